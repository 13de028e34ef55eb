//! Conformance of `puppet-graph` against `graph.jsonl`: real `puppet apply` runs (order,
//! failures, skips, refreshes, cycles) replayed offline on the catalogs Puppet compiled
//! for the same manifests (committed fixtures, see `scripts/graph-fixtures.py`).
//!
//! A module of the `conformance` example, not a binary. What each exec does is derived
//! from the catalog by a tiny model of the allow-listed commands the cases use (`/bin/true`,
//! `/bin/false`, `echo`, ...), honouring `returns`, `onlyif`, `unless`, `refreshonly` and
//! `refresh`; nothing is executed.

use std::path::{Path, PathBuf};

use puppet_lang::graph::{Catalog, Graph, Outcome, Scenario};
use serde_json::Value;

/// The directory holding the committed catalogs.
fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/puppet-graph/tests/fixtures")
}

fn sanitise(id: &str) -> String {
    let mut out = String::new();
    let mut in_bad = false;
    for c in id.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
            out.push(c);
            in_bad = false;
        } else if !in_bad {
            out.push_str("__");
            in_bad = true;
        }
    }
    out
}

/// Exit status of one simple command of the allow-listed set.
fn simple_status(cmd: &str) -> i64 {
    let mut words = cmd.split_whitespace();
    let Some(first) = words.next() else { return 0 };
    let base = first.rsplit('/').next().unwrap_or(first);
    match base {
        "false" => 1,
        "exit" => words.next().and_then(|w| w.parse().ok()).unwrap_or(0),
        "test" | "[" => 0,
        _ => 0,
    }
}

/// Exit status of a command line with `;`, `&&`, `||` and `|`.
fn status(cmd: &str) -> i64 {
    let mut last = 0;
    for stmt in cmd.split(';') {
        // Split into `&&` / `||` chains, left to right.
        let mut rest = stmt;
        let mut code = 0;
        let mut run_next = true;
        loop {
            let and = rest.find("&&");
            let or = rest.find("||");
            let (part, op, tail) = match (and, or) {
                (Some(a), Some(o)) if a < o => (&rest[..a], "&&", &rest[a + 2..]),
                (Some(a), None) => (&rest[..a], "&&", &rest[a + 2..]),
                (_, Some(o)) => (&rest[..o], "||", &rest[o + 2..]),
                (None, None) => (rest, "", ""),
            };
            if run_next {
                let pipeline_last = part.rsplit('|').next().unwrap_or(part);
                code = simple_status(pipeline_last);
            }
            if op.is_empty() {
                break;
            }
            run_next = match op {
                "&&" => code == 0,
                _ => code != 0,
            };
            rest = tail;
        }
        last = code;
    }
    last
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().flat_map(|x| strings(Some(x))).collect(),
        _ => Vec::new(),
    }
}

fn returns(v: Option<&Value>) -> Vec<i64> {
    match v {
        None | Some(Value::Null) => vec![0],
        Some(Value::Number(n)) => vec![n.as_i64().unwrap_or(0)],
        Some(Value::String(s)) => vec![s.parse().unwrap_or(0)],
        Some(Value::Array(a)) => a.iter().flat_map(|x| returns(Some(x))).collect(),
        Some(_) => vec![0],
    }
}

/// The scenario a real run of this catalog implies: which execs fail, do not run, or
/// fail to refresh.
pub fn scenario_for(catalog: &Catalog, apply_args: &[String]) -> Scenario {
    let mut sc = Scenario::new();
    for r in &catalog.resources {
        if !r.type_name.eq_ignore_ascii_case("exec") {
            continue;
        }
        let reference = r.reference();
        let p = &r.parameters;
        let command = p
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or(&r.title)
            .to_string();
        let ok_codes = returns(p.get("returns"));
        let guards_pass = strings(p.get("onlyif")).iter().all(|c| status(c) == 0)
            && strings(p.get("unless")).iter().all(|c| status(c) != 0);
        let refreshonly = matches!(p.get("refreshonly"), Some(Value::Bool(true)))
            || p.get("refreshonly").and_then(Value::as_str) == Some("true");
        if !refreshonly {
            let outcome = if !guards_pass {
                Outcome::Unchanged
            } else if ok_codes.contains(&status(&command)) {
                Outcome::Changed
            } else {
                Outcome::Failed
            };
            sc = sc.outcome(reference.clone(), outcome);
        }
        // A refresh runs `refresh` (whose status Puppet ignores) or re-syncs `command`.
        if guards_pass && p.get("refresh").is_none() && !ok_codes.contains(&status(&command)) {
            sc = sc.fail_refresh(reference);
        }
    }
    let mut it = apply_args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--tags" => {
                if let Some(t) = it.next() {
                    sc = sc.tags(t.split(',').map(str::to_string).collect::<Vec<_>>());
                }
            }
            "--skip_tags" => {
                if let Some(t) = it.next() {
                    sc = sc.skip_tags(t.split(',').map(str::to_string).collect::<Vec<_>>());
                }
            }
            "--noop" => sc = sc.noop(true),
            _ => {}
        }
    }
    sc
}

fn str_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Runs one case; `Err` carries the reason it does not match.
pub fn check_case(case: &Value, catalog_json: &str) -> Result<(), String> {
    let catalog = Catalog::from_json(catalog_json).map_err(|e| format!("catalog: {e}"))?;
    let built = Graph::build(&catalog);
    if let Some(want) = case.get("compile_error_contains").and_then(Value::as_str) {
        return match built {
            Err(e) if e.to_string().contains(want) => Ok(()),
            Err(e) => Err(format!("error {e:?} does not contain {want:?}")),
            Ok(_) => Err(format!("built without the error {want:?}")),
        };
    }
    let graph = built.map_err(|e| format!("build failed: {e}"))?;
    let apply_args = str_list(case.get("apply_args"));
    let sim = graph
        .simulate(&scenario_for(&catalog, &apply_args))
        .map_err(|e| format!("simulate: {e}"))?;
    let mut problems = Vec::new();
    if let Some(want) = case.get("cycle_error_contains").and_then(Value::as_str) {
        let msg = sim.cycles.first().cloned().unwrap_or_default();
        if !msg.contains(want) {
            problems.push(format!("cycle message {msg:?} lacks {want:?}"));
        }
        let cycles = str_list(case.get("cycles"));
        if sim.cycle_paths != cycles {
            problems.push(format!("cycles {:?} != {:?}", sim.cycle_paths, cycles));
        }
    } else {
        let cmp = |what: &str, got: &[String], problems: &mut Vec<String>| {
            if let Some(v) = case.get(what) {
                let want = str_list(Some(v));
                if got != want.as_slice() {
                    problems.push(format!("{what}: got {got:?}, want {want:?}"));
                }
            }
        };
        cmp("order", &sim.evaluation_order, &mut problems);
        cmp("trace", &sim.trace, &mut problems);
        cmp("failed", &sim.failed, &mut problems);
        cmp("skipped", &sim.skipped, &mut problems);
        // The suite's `changed` is "a non-noop property change", without refreshes.
        cmp("changed", &sim.property_changes, &mut problems);
        if let Some(want) = case.get("refreshed").and_then(Value::as_object) {
            let got: Vec<(String, u64)> = sim
                .refreshed
                .iter()
                .map(|r| (r.resource.clone(), r.events as u64))
                .collect();
            let want: Vec<(String, u64)> = want
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect();
            if got != want {
                problems.push(format!("refreshed: got {got:?}, want {want:?}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// Runs every case of `conformance_dir/graph.jsonl`; returns (passed, failed).
pub fn run(conformance_dir: &Path, verbose: bool) -> (usize, usize) {
    let path = conformance_dir.join("graph.jsonl");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("graph: cannot read {}: {e}", path.display());
            return (0, 1);
        }
    };
    let (mut pass, mut fail) = (0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                fail += 1;
                if verbose {
                    eprintln!("graph: bad line: {e}");
                }
                continue;
            }
        };
        let id = case.get("id").and_then(Value::as_str).unwrap_or("?");
        let fixture = fixture_dir().join(format!("{}.json", sanitise(id)));
        let result = match std::fs::read_to_string(&fixture) {
            Ok(json) => check_case(&case, &json),
            Err(e) => Err(format!("no fixture {}: {e}", fixture.display())),
        };
        match result {
            Ok(()) => pass += 1,
            Err(reason) => {
                fail += 1;
                if verbose {
                    println!("FAIL graph {id}: {reason}");
                }
            }
        }
    }
    (pass, fail)
}
