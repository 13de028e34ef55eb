//! Link settings for this package's example binaries (`compile`, `validate`, ...), which are
//! measured as whole processes; the libraries, tests and benches are built as usual.
//!
//! On Linux with glibc the examples are linked as position-dependent executables
//! (`-no-pie`). A position-independent one starts by relocating every pointer in its static
//! data (22,000 relative relocations in `compile`, 400 KB of `.data.rel.ro`), which writes
//! and so copies about 100 pages: ~100 page faults of a 2,500-4,500 fault compile, at about
//! 4.5 µs each on the VM this was measured on (2026-11-27). Without relocations those pages
//! stay shared with the page cache. The cost is address-space randomisation of the
//! examples' own code and data, not of their heap, stack or libraries.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-examples=-no-pie");
    }
}
