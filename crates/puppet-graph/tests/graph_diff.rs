//! Graph differential test: generated catalogs whose real `puppet apply` runs are recorded in
//! `tests/fixtures/graph_diff.jsonl` (made by `scripts/graph-diff.py`: Puppet 7.23's own
//! catalog of each generated manifest, the scenario a real run has — which execs are in sync,
//! fail, or fail to refresh — and what `apply-order` reported). Each catalog is simulated
//! under its scenario and every reported list must equal Puppet's: evaluation order,
//! changed, failed, failed to restart, skipped, refreshes (done, would-have in noop,
//! scheduled), dependency failures and cycle errors.
//!
//! All cases run; the test then lists every differing case with the first differing key.
//! `GRAPH_DIFF_FIXTURE=FILE` runs another file of the same form (a bigger run of the
//! script); `GRAPH_DIFF_CASE=id` runs one case and prints both sides.

use puppet_graph::{Catalog, Graph, Outcome, Scenario};
use serde_json::{json, Value};

const FIXTURE: &str = include_str!("fixtures/graph_diff.jsonl");

const KEYS: &[&str] = &[
    "evaluation_order",
    "changed",
    "failed",
    "failed_to_restart",
    "skipped",
    "refreshed",
    "would_refresh",
    "scheduled_refreshes",
    "dependency_failures",
    "cycles",
];

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Our simulation of one case, as the JSON object `apply-order` prints.
fn simulate(case: &Value) -> Result<Value, String> {
    let text = serde_json::to_string(&case["catalog"]).map_err(|e| e.to_string())?;
    let catalog = Catalog::from_json(&text).map_err(|e| e.to_string())?;
    let graph = Graph::build(&catalog).map_err(|e| e.to_string())?;
    let sc = &case["scenario"];
    let mut scenario = Scenario::new().noop(case["noop"].as_bool().unwrap_or(false));
    for r in strings(&sc["in_sync"]) {
        scenario = scenario.outcome(r, Outcome::Unchanged);
    }
    for r in strings(&sc["fail"]) {
        scenario = scenario.fail(r);
    }
    for r in strings(&sc["fail_refresh"]) {
        scenario = scenario.fail_refresh(r);
    }
    let sim = graph.simulate(&scenario).map_err(|e| e.to_string())?;
    serde_json::to_value(&sim).map_err(|e| e.to_string())
}

#[test]
fn simulation_equals_puppet_apply() {
    let text = match std::env::var("GRAPH_DIFF_FIXTURE") {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        Err(_) => FIXTURE.to_string(),
    };
    let only = std::env::var("GRAPH_DIFF_CASE").ok();
    let mut total = 0;
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap_or("?").to_string();
        if only.as_deref().is_some_and(|o| o != id) {
            continue;
        }
        total += 1;
        let ours = match simulate(&case) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{id}: {e}"));
                continue;
            }
        };
        let puppet = &case["puppet"];
        if only.is_some() {
            println!("{}", case["manifest"].as_str().unwrap_or(""));
            for k in KEYS {
                println!("{k}:\n  puppet {}\n  ours   {}", puppet[k], ours[k]);
            }
        }
        for k in KEYS {
            let want = puppet.get(*k).cloned().unwrap_or(json!([]));
            let got = ours.get(*k).cloned().unwrap_or(json!([]));
            if want != got {
                failures.push(format!("{id}: {k}: puppet {want} ours {got}"));
                break;
            }
        }
    }
    assert!(total > 0, "no case ran");
    println!(
        "graph differential: {} of {total} cases equal",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} cases differ from puppet apply:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
