//! `fqdn_rand` against Puppet 7.23's own answers for several nodes, bounds and seeds
//! (`tests/fixtures/fqdn_rand.jsonl`, produced by `scripts/gen-fqdn-rand-fixtures.py`).

mod common;

use common::{v, Mock};
use puppet_functions::builtins;
use puppet_types::Value;

#[test]
fn fqdn_rand_answers_as_puppet() {
    let text = include_str!("fixtures/fqdn_rand.jsonl");
    let reg = builtins::registry();
    let mut n = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
        let mut ctx = Mock::new(reg);
        let facts = match case["fqdn"].as_str() {
            Some(fqdn) => Value::hash([(
                Value::string("networking"),
                Value::hash([(Value::string("fqdn"), Value::string(fqdn))]),
            )]),
            None => Value::hash([]),
        };
        ctx.vars.insert("facts".into(), facts);
        let args: Vec<Value> = case["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| v(a.as_str().expect("arg text")))
            .collect();
        let got = match reg.call(&mut ctx, "fqdn_rand", args, None) {
            Ok(v) => Ok(v.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let want = match case.get("value") {
            Some(value) => Ok(value.as_str().unwrap_or_default().to_string()),
            None => Err(case["error"].as_str().unwrap_or_default().to_string()),
        };
        assert_eq!(got, want, "{line}");
        n += 1;
    }
    assert!(n >= 50, "only {n} cases");
}
