//! Shared by the root package's tests: compile settings for a node and the comparison of a
//! catalog with Puppet's in `compile-catalog`'s canonical form (resources by reference with
//! sorted tags and parameters, containment edges and classes as sets).

#![allow(dead_code)]

use puppet_lang::eval::{facts_from_data, LogEntry, Settings};
use puppet_lang::graph::Catalog;
use std::collections::BTreeSet;
use std::path::Path;

/// What `examples/compile` uses for a node: its facts file, and what an agent and a
/// server add (`Settings::agent`).
pub fn agent_settings(node: &str, facts: &Path) -> Settings {
    let text = std::fs::read_to_string(facts).unwrap_or_else(|e| panic!("{facts:?}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let facts = facts_from_data(&json);
    Settings::agent(node, facts)
}

/// Asserts that `cat` equals Puppet's catalog `fixture` (`compile-catalog`'s JSON) in
/// canonical form.
pub fn assert_canonical_eq(cat: &Catalog, fixture: &serde_json::Value) {
    let canonical = |resources: Vec<(String, Vec<String>, serde_json::Value)>| {
        resources
            .into_iter()
            .map(|(r, mut tags, params)| {
                tags.sort();
                (r, (tags, params))
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let expected = canonical(
        fixture["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    format!(
                        "{}[{}]",
                        r["type"].as_str().unwrap(),
                        r["title"].as_str().unwrap()
                    ),
                    strings(&r["tags"]),
                    r["parameters"].clone(),
                )
            })
            .collect(),
    );
    let got = canonical(
        cat.resources
            .iter()
            .map(|r| {
                (
                    format!("{}[{}]", r.type_name, r.title),
                    r.tags.iter().map(|t| t.to_string()).collect(),
                    serde_json::to_value(&r.parameters).unwrap(),
                )
            })
            .collect(),
    );
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (k, v) in &expected {
        assert_eq!(&got[k], v, "{k}");
    }
    let edges = |pairs: Vec<(String, String)>| pairs.into_iter().collect::<BTreeSet<_>>();
    assert_eq!(
        edges(
            cat.edges
                .iter()
                .map(|e| (e.source.to_string(), e.target.to_string()))
                .collect()
        ),
        edges(
            fixture["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (
                    e["source"].as_str().unwrap().to_string(),
                    e["target"].as_str().unwrap().to_string()
                ))
                .collect()
        )
    );
    let mut classes = cat.classes.clone();
    classes.sort();
    assert_eq!(classes, strings(&fixture["classes"]));
}

/// The warnings of a compile's `logs` and Puppet's (`want`, a JSON array of texts) as
/// sorted lists, the compile's with `dir` written `placeholder` as the fixture writes it:
/// Puppet logs each once, and their order around the functions' own warnings is not
/// compared.
pub fn sorted_warnings(
    logs: &[LogEntry],
    dir: &str,
    placeholder: &str,
    want: &serde_json::Value,
) -> (Vec<String>, Vec<String>) {
    let mut got: Vec<String> = logs
        .iter()
        .filter(|l| l.level == puppet_lang::functions::LogLevel::Warning)
        .map(|l| l.message.replace(dir, placeholder))
        .collect();
    let mut want: Vec<String> = want
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w.as_str().unwrap_or_default().to_string())
        .collect();
    got.sort();
    want.sort();
    (got, want)
}
