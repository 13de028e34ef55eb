//! Build script of the facade package: links its example binaries (the command-line tools,
//! `compile`, `validate`, `lookup`...) as position-dependent executables on x86-64 Linux.
//!
//! A position-independent executable's loader rewrites every pointer of the binary's
//! read-only data at start (about 15,000 relocations over 75 pages here), before `main` runs:
//! about 110 page faults and 0.4 ms per process (measured 2026-11-29: `compile --help` 2.0 ->
//! 1.6 ms, `compile -e 'notice(1)'` 3.5 -> 3.1 ms), a tenth of a small node's whole compile.
//! The libraries are not affected: an embedder's program links as it chooses.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if os == "linux" && arch == "x86_64" {
        println!("cargo:rustc-link-arg-examples=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
