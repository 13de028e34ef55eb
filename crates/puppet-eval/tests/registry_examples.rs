//! Every example of every built-in of puppet-functions' registry, evaluated as a program by
//! the compiler: the value of its last statement printed as `%p`, or `error: MESSAGE` (the
//! evaluator's "Error while evaluating a ..." wrapping left out).
//!
//! puppet-functions runs the simple examples against a mock context; the built-ins bound to
//! the compiler (`include`, `lookup`, `epp`, `defined`...) can only run here, where the
//! compiler serves their `CallContext` capabilities.

use puppet_eval::{evaluate_source, Settings};
use puppet_functions::builtins;

fn outcome(source: &str) -> String {
    match evaluate_source(source, &Settings::default()).value {
        Ok(v) => v.to_string(),
        Err(e) => {
            let m = e.message.as_str();
            let m = m
                .strip_prefix("Error while evaluating a Function Call, ")
                .or_else(|| m.strip_prefix("Error while evaluating a Method call, "))
                .unwrap_or(m);
            format!("error: {m}")
        }
    }
}

/// The built-ins bound to the compiler are registered, each with an example (which
/// [`every_example_runs_in_a_compile`] runs).
#[test]
fn compiler_bound_built_ins_are_registered() {
    let names = [
        "include",
        "require",
        "contain",
        "defined",
        "getvar",
        "template",
        "inline_template",
        "epp",
        "inline_epp",
        "lookup",
        "hiera",
        "hiera_array",
        "hiera_hash",
        "hiera_include",
        "create_resources",
        "realize",
        "tag",
        "tagged",
        "generate",
        "import",
    ];
    let reg = builtins::registry();
    for name in names {
        let f = reg
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not registered"));
        assert!(!f.examples().is_empty(), "{name} has no example");
    }
}

#[test]
fn every_example_runs_in_a_compile() {
    let reg = builtins::registry();
    let mut wrong = Vec::new();
    let mut ran = 0;
    for f in reg.functions() {
        // Their examples read a module's files, which an evaluation without a module path
        // does not have (`tests/modules.rs` reads module files through an environment).
        if ["file", "binary_file"].contains(&f.name()) {
            continue;
        }
        for ex in f.examples() {
            ran += 1;
            let got = outcome(&ex.source);
            if got != ex.expected.as_str() {
                wrong.push(format!(
                    "{}: {}\n  expected: {}\n  got:      {got}",
                    f.name(),
                    ex.source,
                    ex.expected
                ));
            }
        }
    }
    assert!(ran >= 95, "only {ran} examples");
    assert!(
        wrong.is_empty(),
        "{} of {ran}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
