//! The `ruby_run` fuzz target: feeds arbitrary UTF-8 to puppet-ruby (see
//! `tests/common/fuzz_ruby.rs` of puppet-ruby): as a program run for its value, and as a
//! module function file loaded, registered and called with a few arguments. Every run has a
//! small step budget. Only "no panic, no hang, no unbounded memory": any `Ok` or `Err` is
//! fine.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/puppet-ruby/tests/common/fuzz_ruby.rs"]
mod fuzz_ruby;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    fuzz_ruby::run(text);
});
