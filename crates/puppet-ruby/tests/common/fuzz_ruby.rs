//! What the `ruby_run` fuzz target does with one input, shared with `tests/robustness.rs`
//! (which runs every file of `tests/fixtures/fuzz/` the same way): the text is run as a
//! program for its value, then loaded as a module function file (4.x `create_function` or
//! 3.x `newfunction`), registered, and called with no argument, one Integer, and a String
//! and an Array. Each interpreter has a small step budget, so runaway code ends with an
//! error. Any `Ok` or `Err` is fine; a panic, a hang or unbounded memory is the bug.

use puppet_functions::{NullContext, Registry};
use puppet_types::Value;

/// Steps each interpreter may take.
pub const STEPS: u64 = 20_000;

/// Runs one input.
pub fn run(text: &str) {
    let _ = puppet_ruby::eval_inspect_with(text, STEPS);
    let sources = puppet_ruby::Sources::empty();
    let Ok(f) = puppet_ruby::functions::load_with_steps(
        "/fz/lib/puppet/functions/fz.rb",
        text,
        &sources,
        STEPS,
    ) else {
        return;
    };
    let mut reg = Registry::new();
    if f.register(&mut reg).is_err() {
        return;
    }
    let arg_sets = [
        vec![],
        vec![Value::Integer(1)],
        vec![
            Value::string("a b"),
            Value::array(vec![Value::Integer(2), Value::Undef]),
        ],
    ];
    for args in arg_sets {
        let _ = reg.call(&mut NullContext::default(), f.name(), args, None);
    }
}
