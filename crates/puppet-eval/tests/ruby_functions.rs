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

use puppet_eval::{Session, Settings};
use puppet_functions::LogLevel;
use std::path::PathBuf;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ruby_functions")
}

const LAMBDAS: &[(&str, &str)] = &[
    ("times10", "|$x| { $x * 10 }"),
    ("describe", "|$x| { \"got ${x}\" }"),
];

/// Cases (function, arguments) that differ from Puppet today, and why.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[(
    "rbtest::values",
    "Integer[1, 2]",
    "a Type value's Ruby class is Object, not Puppet's PIntegerType",
)];

/// Puppet's error text without the location suffix and the evaluation prefix.
fn clean(message: &str) -> String {
    let m = message
        .strip_prefix("Evaluation Error: ")
        .unwrap_or(message);
    let m = m
        .strip_prefix("Error while evaluating a Function Call, ")
        .unwrap_or(m);
    match m.rfind(" (") {
        Some(i) if m.ends_with(')') && m[i..].contains("line: ") => m[..i].to_string(),
        _ => m.to_string(),
    }
}

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
        let lambda = c["lambda"]
            .as_str()
            .and_then(|l| LAMBDAS.iter().find(|(n, _)| *n == l))
            .map(|(_, body)| format!(" {body}"))
            .unwrap_or_default();
        let vars: String = c["vars"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("${k} = '{}' ", v.as_str().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        let code = format!("{vars}notice(String({function}({args}){lambda}, '%p'))");
        let env = Session::new()
            .modulepath([dir.join("modules")])
            .code(code.clone())
            .load()
            .expect("loads");
        let out = env.compile(&Settings::default());
        let got: Result<String, String> = match &out.catalog {
            Ok(_) => Ok(out
                .logs
                .iter()
                .filter(|l| l.level == LogLevel::Notice)
                .map(|l| l.message.clone())
                .next_back()
                .unwrap_or_default()),
            Err(e) => Err(clean(&e.message)),
        };
        let expected: Result<String, String> = if c["ok"].as_bool() == Some(true) {
            Ok(c["output"].as_str().unwrap_or_default().to_string())
        } else {
            Err(c["error"].as_str().unwrap_or_default().to_string())
        };
        let warnings: Vec<String> = out
            .logs
            .iter()
            .filter(|l| l.level == LogLevel::Warning)
            .map(|l| {
                l.message
                    .split("\n   (location:")
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        let expected_warnings: Vec<String> = c["warnings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|w| w.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let differs = got != expected || warnings != expected_warnings;
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
