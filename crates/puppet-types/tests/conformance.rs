//! Runs the type-system cases of the shared conformance corpus (observed on Puppet 7.23).
//!
//! Two sources: the full `shared/conformance/types.jsonl` when it is present (its pass rate per
//! kind is printed; run with `--nocapture` to see it), and the committed sample
//! `tests/fixtures/types_sample.jsonl`, which must pass at 99 % or more. Instance cases whose
//! value this crate's test reader cannot build (it needs the evaluator) are counted as skipped.

mod support;

use puppet_types::{assignable, generalize, infer, infer_set, is_instance, normalize};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use support::{parse_type, parse_value, Mode};

#[derive(Default, Debug)]
struct Tally {
    pass: usize,
    fail: usize,
    skip: usize,
}

enum Outcome {
    Pass,
    Fail(String),
    Skip(#[allow(dead_code)] String),
}

fn run_case(r: &Json) -> Outcome {
    let s = |k: &str| r.get(k).and_then(|v| v.as_str()).unwrap_or("");
    match s("kind") {
        "assignable" => {
            let (a, b) = match (parse_type(s("a")), parse_type(s("b"))) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => return Outcome::Fail(format!("parse error: {e}")),
            };
            let want = r
                .get("assignable")
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let got = assignable(&a, &b);
            if got == want {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("assignable({}, {}) = {got}", s("a"), s("b")))
            }
        }
        "instance" => {
            let t = match parse_type(s("type")) {
                Ok(t) => t,
                Err(e) => return Outcome::Fail(format!("type parse error: {e}")),
            };
            let v = match parse_value(s("value"), Mode::Evaluator) {
                Ok(v) => v,
                Err(e) => return Outcome::Skip(format!("value needs evaluator: {e}")),
            };
            let want = r.get("instance").and_then(|v| v.as_bool()).unwrap_or(false);
            let got = is_instance(&t, &v);
            if got == want {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("{} =~ {} = {got}", s("value"), s("type")))
            }
        }
        "normalize" => {
            let parsed = parse_type(s("type"));
            if let Some(err) = r.get("error").and_then(|v| v.as_str()) {
                return match parsed {
                    Err(_) => Outcome::Pass,
                    Ok(t) => Outcome::Fail(format!("expected error {err:?}, got {t}")),
                };
            }
            match parsed {
                Err(e) => Outcome::Fail(format!("parse error for {}: {e}", s("type"))),
                Ok(t) => {
                    let to_s = t.to_string();
                    let n = normalize(&t).to_string();
                    if to_s == s("to_s") && n == s("normalized") {
                        Outcome::Pass
                    } else {
                        Outcome::Fail(format!(
                            "{}: to_s {to_s:?} (want {:?}), normalized {n:?} (want {:?})",
                            s("type"),
                            s("to_s"),
                            s("normalized")
                        ))
                    }
                }
            }
        }
        "infer" => {
            let v = match parse_value(s("value"), Mode::Evaluator) {
                Ok(v) => v,
                Err(e) => return Outcome::Skip(format!("value needs evaluator: {e}")),
            };
            let detailed = infer_set(&v).to_string();
            let reduced = infer(&v).to_string();
            let general = generalize(&infer(&v)).to_string();
            if detailed == s("type") && reduced == s("reduced") && general == s("generalized") {
                Outcome::Pass
            } else {
                Outcome::Fail(format!(
                    "{}: type {detailed:?}/{:?} reduced {reduced:?}/{:?} generalized {general:?}/{:?}",
                    s("value"),
                    s("type"),
                    s("reduced"),
                    s("generalized")
                ))
            }
        }
        other => Outcome::Skip(format!("unknown kind {other}")),
    }
}

fn run_file(path: &PathBuf) -> BTreeMap<String, Tally> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Json = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(e) => panic!("bad JSON in {}: {e}", path.display()),
        };
        let kind = r
            .get("kind")
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_string();
        let t = tallies.entry(kind).or_default();
        match run_case(&r) {
            Outcome::Pass => t.pass += 1,
            Outcome::Skip(_) => t.skip += 1,
            Outcome::Fail(msg) => {
                t.fail += 1;
                failures.push(format!(
                    "{}: {msg}",
                    r.get("id").and_then(|v| v.as_str()).unwrap_or("?")
                ));
            }
        }
    }
    println!("== {}", path.display());
    for (kind, t) in &tallies {
        let run = t.pass + t.fail;
        println!(
            "{kind:>10}: {}/{} passed ({:.2} %), {} skipped (needs evaluator)",
            t.pass,
            run,
            100.0 * t.pass as f64 / run.max(1) as f64,
            t.skip
        );
    }
    for f in failures.iter().take(60) {
        println!("FAIL {f}");
    }
    tallies
}

fn pass_rate(t: &BTreeMap<String, Tally>) -> f64 {
    let pass: usize = t.values().map(|t| t.pass).sum();
    let run: usize = t.values().map(|t| t.pass + t.fail).sum();
    pass as f64 / run.max(1) as f64
}

#[test]
fn committed_sample_passes() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/types_sample.jsonl");
    let t = run_file(&path);
    let rate = pass_rate(&t);
    assert!(
        rate >= 0.99,
        "sample pass rate {:.2} % is below 99 %",
        rate * 100.0
    );
}

#[test]
fn shared_corpus_if_present() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var("PUPPET_CONFORMANCE_DIR")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join("types.jsonl"),
        manifest.join("../../../shared/conformance/types.jsonl"),
        manifest.join("../../shared/conformance/types.jsonl"),
        PathBuf::from("/work/shared/conformance/types.jsonl"),
    ];
    let Some(path) = candidates.iter().find(|p| p.is_file()) else {
        println!(
            "note: shared/conformance/types.jsonl not found; only the committed sample was checked"
        );
        return;
    };
    let t = run_file(path);
    let rate = pass_rate(&t);
    // The full corpus is reported, and guarded against large regressions.
    assert!(
        rate >= 0.97,
        "full corpus pass rate {:.2} % is below 97 %",
        rate * 100.0
    );
}
