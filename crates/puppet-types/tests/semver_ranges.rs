//! `puppet_types::semver::VersionRange` against Puppet 7.23 (SemanticPuppet 1.0.4):
//! `tests/fixtures/semver_ranges.jsonl` holds, for about a thousand range strings (hand-picked
//! and random combinations of partial versions, operators, spaces, `v`, hyphen ranges,
//! intersections and `||` unions, valid and not), what Puppet printed for
//! `SemVerRange('R')` as `"${r}"` and with `String($r, '%p')`, which of a fixed list of
//! versions `SemVer(v) =~ $r` admitted, or the message it failed with. Written by
//! `scripts/gen-semver-fixtures.py`; CI only reads it.

use puppet_types::format::value_p;
use puppet_types::value::Value;
use puppet_types::{Version, VersionRange};
use serde_json::Value as Json;
use std::sync::Arc;

#[test]
fn version_ranges_agree_with_puppet() {
    let text = include_str!("fixtures/semver_ranges.jsonl");
    let mut lines = text.lines();
    let header: Json = serde_json::from_str(lines.next().expect("header")).expect("json");
    let versions: Vec<(String, Version)> = header["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| {
            let s = v.as_str().expect("string").to_string();
            let parsed = Version::parse(&s).expect("a fixture version parses");
            (s, parsed)
        })
        .collect();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in lines {
        let case: Json = serde_json::from_str(line).expect("json");
        let range = case["range"].as_str().expect("range");
        count += 1;
        let got = VersionRange::parse(range);
        let problem = match (&case["error"], got) {
            (Json::String(want), Err(e)) => {
                let msg = e.to_string();
                (!msg.ends_with(want.as_str()))
                    .then(|| format!("error: want {want:?}, got {msg:?}"))
            }
            (Json::String(want), Ok(r)) => {
                Some(format!("want error {want:?}, parsed as {:?}", r.inspect()))
            }
            (_, Err(e)) => Some(format!("want {:?}, got error {e}", case["p"])),
            (_, Ok(r)) => {
                let mut p = String::new();
                value_p(&mut p, &Value::SemVerRange(Arc::new(r.clone())));
                let admitted: Vec<&str> = versions
                    .iter()
                    .filter(|(_, v)| r.includes(v))
                    .map(|(s, _)| s.as_str())
                    .collect();
                let want_in: Vec<&str> = case["in"]
                    .as_array()
                    .expect("in")
                    .iter()
                    .map(|v| v.as_str().expect("string"))
                    .collect();
                if r.to_string() != case["s"].as_str().expect("s") {
                    Some(format!(
                        "\"${{r}}\": want {:?}, got {:?}",
                        case["s"],
                        r.to_string()
                    ))
                } else if p != case["p"].as_str().expect("p") {
                    Some(format!("%p: want {:?}, got {p:?}", case["p"]))
                } else if admitted != want_in {
                    Some(format!("admits {admitted:?}, Puppet {want_in:?}"))
                } else {
                    None
                }
            }
        };
        if let Some(p) = problem {
            failures.push(format!("{range:?}: {p}"));
        }
    }
    assert!(count > 900, "fixture too small: {count}");
    assert!(
        failures.is_empty(),
        "{} of {count} ranges differ from Puppet:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
