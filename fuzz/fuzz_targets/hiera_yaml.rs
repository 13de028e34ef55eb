//! The `hiera_yaml` fuzz target: feeds arbitrary text to puppet-hiera as `hiera.yaml`
//! configurations and data files and looks keys up through the global, environment and
//! module layers. The input format and the run itself are in
//! `crates/puppet-hiera/tests/common/fuzz_hiera.rs`, which the crate's no-panic test shares
//! to replay what the fuzzer found. Only "no panic, no hang, no unbounded memory".

#![no_main]

#[path = "../../crates/puppet-hiera/tests/common/fuzz_hiera.rs"]
mod fuzz_hiera;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = fuzz_hiera::run(text);
    }
});
