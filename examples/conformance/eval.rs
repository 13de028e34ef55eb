//! The evaluator's suites of the `conformance` example: `eval.jsonl`, `eval_errors.jsonl`,
//! `functions.jsonl` (split into cases with and without resources) and `types.jsonl`.
//!
//! Each source is compiled as the main manifest of a fresh compile with the case's settings,
//! as the corpus was produced (`puppet apply -e` on node `testnode`, no facts). A value case
//! passes when `String(V, '%p')` of the last statement equals `expected` and the logs at
//! notice level and above equal `logs` (absent meaning none); an error case passes when the
//! compile fails with a message containing `error_contains` at the given line.

use crate::common::{read_jsonl, str_field, Tally};
use puppet_lang::eval::{evaluate_source, Settings};
use puppet_lang::functions::LogLevel;
use puppet_lang::types::{assignable, generalize, infer, normalize, Value};
use serde_json::Value as Json;
use std::path::Path;

fn settings_for(case: &Json) -> Settings {
    let mut s = Settings::default();
    if case
        .pointer("/settings/strict_variables")
        .and_then(Json::as_bool)
        == Some(true)
    {
        s.strict_variables = true;
    }
    s
}

/// Evaluates a source on a thread with a big stack (deep recursion cases), catching panics
/// so one bad case cannot stop the report.
/// The rendered value, or the error message and its line; plus the logs.
type RunResult = (Result<String, (String, Option<u32>)>, Vec<String>);

fn run_source(source: &str, settings: Settings) -> RunResult {
    let src = source.to_string();
    let r = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let out = evaluate_source(&src, &settings);
            let logs = out
                .logs
                .iter()
                .filter(|l| !matches!(l.level, LogLevel::Debug | LogLevel::Info))
                .map(|l| l.render())
                .collect::<Vec<_>>();
            // The corpus renders a Sensitive leaf as `Sensitive([value redacted])` where
            // Puppet's `%p` gives Ruby's `#<Sensitive [value redacted]>` (its README).
            let value = out
                .value
                .map(|v| {
                    v.to_string().replace(
                        "#<Sensitive [value redacted]>",
                        "Sensitive([value redacted])",
                    )
                })
                .map_err(|e| (e.message.clone(), e.line_col().map(|(l, _)| l)));
            (value, logs)
        })
        .map(|h| h.join());
    match r {
        Ok(Ok(x)) => x,
        _ => (Err(("evaluator panicked".into(), None)), Vec::new()),
    }
}

fn expected_logs(case: &Json) -> Vec<String> {
    case.get("logs")
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Checks one value-or-error case; `Ok(())` or a reason.
fn check_case(case: &Json) -> Result<(), String> {
    if has_resources(case) {
        crate::catalog::check_function_resources(case)?;
    }
    let (value, logs) = run_source(str_field(case, "source"), settings_for(case));
    if let Some(want) = case.get("error_contains").and_then(Json::as_str) {
        return match value {
            Err((msg, line)) => {
                if !msg.contains(want) {
                    return Err(format!("error {msg:?}, want {want:?}"));
                }
                match (case.get("line").and_then(Json::as_u64), line) {
                    (Some(l), Some(got)) if l as u32 != got => {
                        Err(format!("error at line {got}, want {l}"))
                    }
                    _ => Ok(()),
                }
            }
            Ok(v) => Err(format!("value {v}, want error {want:?}")),
        };
    }
    let want = str_field(case, "expected");
    match value {
        Ok(v) if v == want => {
            let want_logs = expected_logs(case);
            if logs == want_logs {
                Ok(())
            } else {
                Err(format!("logs {logs:?}, want {want_logs:?}"))
            }
        }
        Ok(v) => Err(format!("value {v}, want {want}")),
        Err((msg, _)) => Err(format!("error {msg:?}, want {want}")),
    }
}

fn run_file(
    dir: &Path,
    name: &str,
    verbose: bool,
    filter: impl Fn(&Json) -> bool,
) -> (usize, usize) {
    let mut t = Tally::new(verbose);
    for case in read_jsonl(dir, name).iter().filter(|c| filter(c)) {
        match check_case(case) {
            Ok(()) => t.pass(),
            Err(reason) => t.fail(str_field(case, "id"), || reason),
        }
    }
    t.result()
}

pub fn run_eval(dir: &Path, verbose: bool) -> (usize, usize) {
    run_file(dir, "eval.jsonl", verbose, |_| true)
}

pub fn run_eval_errors(dir: &Path, verbose: bool) -> (usize, usize) {
    run_file(dir, "eval_errors.jsonl", verbose, |_| true)
}

fn has_resources(case: &Json) -> bool {
    case.get("resources")
        .and_then(Json::as_array)
        .is_some_and(|a| !a.is_empty())
}

/// `functions.jsonl` cases whose expectation has no resources (the evaluator's share).
pub fn run_functions_pure(dir: &Path, verbose: bool) -> (usize, usize) {
    run_file(dir, "functions.jsonl", verbose, |c| !has_resources(c))
}

/// `functions.jsonl` cases whose expectation lists resources (the compiler's share).
pub fn run_functions_catalog(dir: &Path, verbose: bool) -> (usize, usize) {
    run_file(dir, "functions.jsonl", verbose, has_resources)
}

/// Evaluates a type expression with the evaluator, as Puppet's type parser would.
fn eval_type(text: &str) -> Result<Value, String> {
    let src = text.to_string();
    on_large_stack(move || {
        evaluate_source(&src, &Settings::default())
            .value
            .map_err(|e| e.message)
    })
}

/// Parses a type string as Puppet's type parser does (unknown parameterized names become a
/// `TypeReference` of the whole text).
fn parse_type_string(text: &str) -> Result<Value, String> {
    let src = text.to_string();
    on_large_stack(move || puppet_lang::eval::parse_type_string(&src).map(Value::Type))
}

/// Runs `f` on its own thread with a 64 MiB stack; a panic becomes an error.
fn on_large_stack(
    f: impl FnOnce() -> Result<Value, String> + Send + 'static,
) -> Result<Value, String> {
    match std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .map(|h| h.join())
    {
        Ok(Ok(v)) => v,
        _ => Err("evaluator panicked".into()),
    }
}

pub fn run_types(dir: &Path, verbose: bool) -> (usize, usize) {
    let mut per_kind: indexmap::IndexMap<String, (usize, usize)> = indexmap::IndexMap::new();
    let mut t = Tally::new(verbose);
    for case in read_jsonl(dir, "types.jsonl") {
        let kind = str_field(&case, "kind").to_string();
        let r = check_type_case(&case);
        let entry = per_kind.entry(kind).or_default();
        match r {
            Ok(()) => {
                entry.0 += 1;
                t.pass()
            }
            Err(reason) => {
                entry.1 += 1;
                t.fail(str_field(&case, "id"), || reason)
            }
        }
    }
    for (k, (p, f)) in &per_kind {
        println!("  types.jsonl {k}: {p} passed, {f} failed");
    }
    t.result()
}

fn check_type_case(case: &Json) -> Result<(), String> {
    match str_field(case, "kind") {
        "assignable" => {
            let a = parse_type_string(str_field(case, "a"))?;
            let b = parse_type_string(str_field(case, "b"))?;
            let (Value::Type(a), Value::Type(b)) = (a, b) else {
                return Err("not types".into());
            };
            let want = case
                .get("assignable")
                .and_then(Json::as_bool)
                .unwrap_or(false);
            let got = assignable(&a, &b);
            if got == want {
                Ok(())
            } else {
                Err(format!("assignable = {got}, want {want}"))
            }
        }
        "instance" => {
            let src = format!(
                "({}) =~ {}",
                str_field(case, "value"),
                str_field(case, "type")
            );
            let want = case
                .get("instance")
                .and_then(Json::as_bool)
                .unwrap_or(false);
            match eval_type(&src)? {
                Value::Boolean(got) if got == want => Ok(()),
                other => Err(format!("got {other}, want {want}")),
            }
        }
        "infer" => {
            // `generalized` in this file is Puppet's `TypeCalculator.generalize(infer(v))`
            // (e.g. `Array[Integer]` for `[1]`), which is not what the `type()` function
            // returns for tuples (`Tuple[Integer]`, as functions.jsonl records).
            let v = str_field(case, "value");
            let src = format!("[{v}, type({v}), type({v}, 'reduced')]");
            let got = eval_type(&src)?;
            let Value::Array(items) = got else {
                return Err("not an array".into());
            };
            let want = [
                str_field(case, "type"),
                str_field(case, "generalized"),
                str_field(case, "reduced"),
            ];
            let generalized = generalize(&infer(&items[0])).to_string();
            let got = vec![items[1].to_string(), generalized, items[2].to_string()];
            if got.iter().zip(want.iter()).all(|(g, w)| g == w) {
                Ok(())
            } else {
                Err(format!("got {got:?}, want {want:?}"))
            }
        }
        "normalize" => {
            let r = parse_type_string(str_field(case, "type"));
            if case.get("error").is_some() {
                return match r {
                    Err(_) | Ok(Value::String(_) | Value::Integer(_)) => Ok(()),
                    Ok(v) => Err(format!("got {v}, want an error")),
                };
            }
            let Value::Type(t) = r? else {
                return Err("not a type, want a type".into());
            };
            let to_s = t.to_string();
            let norm = normalize(&t).to_string();
            if to_s == str_field(case, "to_s") && norm == str_field(case, "normalized") {
                Ok(())
            } else {
                Err(format!("to_s {to_s}, normalized {norm}"))
            }
        }
        other => Err(format!("unknown kind {other}")),
    }
}
