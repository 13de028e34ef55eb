//! Differential compile test: generated programs compiled by Puppet 7.23 and by us.
//!
//! `tests/fixtures/compile_diff.jsonl` holds programs 1-200 of the generator
//! (`puppet_difftest::program`) with Puppet's answer for each (a catalog in the oracle's
//! canonical form, or its error text), as `scripts/compile-diff.py --seed 1 --count 200`
//! writes them. Each program must still be what its seed generates (else the fixture is
//! stale: rerun the script), and our compile must equal Puppet's answer.
//!
//! `COMPILE_DIFF_FIXTURE=FILE` runs another file of the same form (the script's bigger
//! runs); `puppet-difftest check FILE` does the same with a summary by aspect.

use puppet_difftest::{canonical_puppet, compare, compile_canonical, program};
use serde_json::Value;

const FIXTURE: &str = include_str!("fixtures/compile_diff.jsonl");

fn run() {
    let text = match std::env::var("COMPILE_DIFF_FIXTURE") {
        Ok(path) => std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        Err(_) => FIXTURE.to_string(),
    };
    let cases: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("fixture line"))
        .collect();
    assert!(!cases.is_empty(), "no cases");
    let mut stale = Vec::new();
    let mut differ = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        let code = case["code"].as_str().unwrap_or("");
        if let Some(seed) = case["seed"].as_u64() {
            if program(seed) != code {
                stale.push(id.to_string());
            }
        }
        let ours = compile_canonical(code);
        if let Some(d) = compare(&ours, &canonical_puppet(&case["puppet"])) {
            differ.push(format!("{id}: {}: {}", d.aspect, d.detail));
        }
    }
    println!(
        "compile differential: {} of {} programs equal to Puppet",
        cases.len() - differ.len(),
        cases.len()
    );
    assert!(
        stale.is_empty(),
        "the generator no longer makes these programs; rerun scripts/compile-diff.py: {stale:?}"
    );
    assert!(
        differ.is_empty(),
        "differences from Puppet:\n{}",
        differ.join("\n")
    );
}

#[test]
fn compiles_equal_puppet() {
    // Deeply nested generated expressions want more stack than a test thread has.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("compile differential failed");
}
