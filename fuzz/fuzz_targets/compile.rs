//! The `compile` fuzz target: compiles arbitrary text as the main manifest (and, in further
//! sections, files of a module) of an in-memory environment and runs the catalog through
//! puppet-graph. The input format, the fixed module tree and the run itself are in
//! `crates/puppet-eval/tests/common/fuzz_compile.rs`, which the crate's robustness test
//! shares to replay what the fuzzer found. Only "no panic, no hang, no unbounded memory".

#![no_main]

#[path = "../../crates/puppet-eval/tests/common/fuzz_compile.rs"]
mod fuzz_compile;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = fuzz_compile::run(text);
    }
});
