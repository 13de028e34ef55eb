//! Modules' Ruby functions in a compile: the `rbtest` fixture module (one function per
//! feature of Puppet's 4.x and 3.x function APIs: dispatches, optional/repeated/block
//! parameters, return types, local types, argument_mismatch, call_function, closure_scope,
//! function_* calls, lookupvar, errors raised in Ruby) is compiled as
//! `notice(String(FN(ARGS), '%p'))` and must give the notice, error message and warnings
//! Puppet 7.23 gave (`fixtures/ruby_functions/expected.json`, recorded by `gen.py` there).
//! Its functions have no native implementation, so the module's own Ruby runs.
//!
//! [`KNOWN_GAPS`] lists the cases that still differ, with the reason; a listed case that
//! starts to agree fails the test too, so that the list stays true.

#[path = "common/recorded_calls.rs"]
mod recorded_calls;

use puppet_eval::{Session, Settings};
use recorded_calls::{observed, recorded};
use std::path::PathBuf;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ruby_functions")
}

/// Cases (function, arguments) that differ from Puppet today, and why.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[
    // Puppet 7.23 keeps a Ruby Integer beyond 64 bits that a function returns as a value
    // (String() and interpolation print it; a resource attribute or Puppet arithmetic then
    // fails with "Use of a Ruby Integer outside of Puppet Integer max range, got
    // '0x10000000000000000'" / "resulted in a value outside of Puppet Integer max range").
    // Our Puppet values are 64-bit: the same error comes at the function's return.
    (
        "rbtest::big",
        "'pow', 64",
        "a big Integer as a Puppet value",
    ),
    (
        "rbtest::big",
        "'neg', 64",
        "a big Integer as a Puppet value",
    ),
    (
        "rbtest::big",
        "'nested', 70",
        "a big Integer as a Puppet value",
    ),
];

#[test]
fn module_ruby_functions_answer_as_puppet() {
    let dir = fixture_dir();
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("fixture");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 50);
    let mut failures = Vec::new();
    let mut gaps_agreeing = Vec::new();
    for c in cases {
        let function = c["function"].as_str().unwrap_or_default();
        let args = c["args"].as_str().unwrap_or_default();
        // The code gen.py compiled (the call, the variables set before it, the lambda
        // given, and where it is made: top scope, a class's or a define's body).
        let code = c["code"].as_str().expect("code").to_string();
        let env = Session::new()
            .modulepath([dir.join("modules")])
            .code(code.clone())
            .load()
            .expect("loads");
        let out = env.compile(&Settings::default());
        let (got, warnings) = observed(&out);
        let (expected, expected_warnings) = recorded(c);
        // Whether the error is printed as Puppet's evaluator's (`Evaluation Error: ...` and a
        // location) or alone, as an exception that is not a StandardError is.
        let unwrapped = match &out.catalog {
            Err(e) => !e.puppet_message().starts_with("Evaluation Error: "),
            Ok(_) => false,
        };
        let differs = got != expected
            || warnings != expected_warnings
            || unwrapped != c["unwrapped"].as_bool().unwrap_or(false);
        let known = KNOWN_GAPS
            .iter()
            .any(|(f, a, _)| *f == function && *a == args);
        if known && !differs {
            gaps_agreeing.push(code.clone());
        }
        if differs && !known {
            failures.push(format!(
                "{code}\n  got      {got:?} {warnings:?}\n  expected {expected:?} {expected_warnings:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        gaps_agreeing.is_empty(),
        "known gaps that now agree (remove them from KNOWN_GAPS): {gaps_agreeing:?}"
    );
}

/// Logs from Ruby with their source, as Puppet 7.23 logs them (`compile-catalog
/// --with-logs -e 'rbtest::logs()'`, recorded by hand): `Puppet.notice` and friends have no
/// source, the scope's log methods the scope; `warn_once` logs once per key, with its
/// location line.
#[test]
fn ruby_logs_have_puppets_sources() {
    let env = Session::new()
        .modulepath([fixture_dir().join("modules")])
        .code("rbtest::logs()")
        .load()
        .expect("loads");
    let out = env.compile(&Settings::default());
    assert!(out.catalog.is_ok(), "{:?}", out.catalog.err());
    let got: Vec<(String, String, Option<String>)> = out
        .logs
        .iter()
        .map(|l| (format!("{:?}", l.level), l.message.clone(), l.scope.clone()))
        .collect();
    // The scope as the log shows it inside `Scope(...)`.
    let main = Some("Class[main]".to_string());
    let expected = [
        ("Notice", "puppet notice", None),
        ("Err", "puppet err", None),
        ("Notice", "scope notice", main.clone()),
        ("Warning", "scope warning", main),
        ("Warning", "sent", None),
        ("Err", "created", None),
        ("Warning", "once\n   (file & line not available)", None),
        ("Warning", "twice\n   (file: f.pp, line: 3)", None),
    ]
    .map(|(l, m, s)| (l.to_string(), m.to_string(), s));
    assert_eq!(got, expected);
}
