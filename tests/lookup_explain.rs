//! Hiera lookups of the sample control repository print what `puppet lookup` prints: for
//! every node and every key of `scripts/control-repo-lookups.txt`, the value as YAML
//! (`puppet lookup KEY`) and the explanation (`puppet lookup --explain KEY`), compared with
//! Puppet 7.23's output in `tests/fixtures/control-repo/lookups/<node>.json` (made by
//! `scripts/gen-control-repo-fixtures.sh`; the environment directory is written
//! `<environment>` there).
//!
//! The Hiera layers are read from the repository through puppet-hiera's file source
//! (`puppet_eval::hiera::lookup_for`): no global `hiera.yaml` (Puppet's default global layer
//! over a data directory that does not exist), the environment's `hiera.yaml`, and the
//! modules of `site-modules/` and `modules/`. The scope is what a compile of the node sees:
//! its facts (with `clientcert`, `clientversion`, `clientnoop`) and trusted data.

mod support;

use indexmap::IndexMap;
use puppet_lang::eval::hiera::{lookup_for, render_lookup_value};
use puppet_lang::hiera::{Lookup, MapScope, MergeStrategy};
use puppet_lang::types::Value;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/control-repo")
}

fn lookup() -> Lookup {
    let mut modules = IndexMap::new();
    for dir in ["site-modules", "modules"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for m in names {
            let name = m.file_name().unwrap().to_string_lossy().into_owned();
            modules.entry(name.as_str().into()).or_insert(m);
        }
    }
    // Puppet's confdir in the oracle has no hiera.yaml.
    let global = Path::new("/nonexistent/puppet/hiera.yaml");
    lookup_for(Some(&repo()), Some(global), &modules)
        .expect("the repository's Hiera configuration is valid")
        .expect("it has Hiera layers")
}

fn scope(node: &str) -> MapScope {
    let settings = support::agent_settings(node, &repo().join(format!("facts/{node}.json")));
    let facts = Value::hash(
        settings
            .facts
            .iter()
            .map(|(k, v)| (Value::string(k.as_str()), v.clone())),
    );
    MapScope::new().with("facts", facts).with(
        "trusted",
        settings
            .trusted
            .clone()
            .expect("agent settings have trusted data"),
    )
}

#[test]
fn lookups_print_what_puppet_lookup_prints() {
    let lookup = lookup();
    let env_dir = repo().to_string_lossy().into_owned();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/control-repo/lookups");
    let mut checked = 0;
    let mut keys = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let fixture: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let node = fixture["node"].as_str().unwrap();
        let scope = scope(node);
        for case in fixture["lookups"].as_array().unwrap() {
            let key = case["key"].as_str().unwrap();
            let merge = case["merge"]
                .as_str()
                .map(|m| MergeStrategy::from_value(&Value::string(m)).unwrap());
            keys.insert((key.to_string(), case["merge"].as_str().map(str::to_string)));
            let what = format!("{node} {key} {:?}", case["merge"].as_str());

            // `puppet lookup KEY`: the YAML of the value, exit 1 without output when not found.
            let (value, status) = match lookup.lookup(key, merge.clone(), None, &scope) {
                Ok(Some(v)) => (render_lookup_value(&v).unwrap(), 0),
                Ok(None) => (String::new(), 1),
                Err(e) => (e.to_string(), 1),
            };
            if value != case["value"].as_str().unwrap() || status != case["status"] {
                failures.push(format!(
                    "{what}: value\n--- ours ({status})\n{value}--- Puppet's ({})\n{}",
                    case["status"],
                    case["value"].as_str().unwrap()
                ));
            }

            // `puppet lookup --explain KEY`.
            let explained = lookup
                .explain(key, merge, &scope)
                .to_string()
                .replace(&env_dir, "<environment>");
            let theirs = case["explain"].as_str().unwrap();
            if explained != theirs {
                let line = explained
                    .lines()
                    .zip(theirs.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(explained.lines().count().min(theirs.lines().count()));
                let context = |t: &str| {
                    t.lines()
                        .skip(line.saturating_sub(3))
                        .take(8)
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                failures.push(format!(
                    "{what}: explanation differs at line {}\n--- ours\n{}\n--- Puppet's\n{}",
                    line + 1,
                    context(&explained),
                    context(theirs)
                ));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} lookups differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(keys.len() >= 20, "{} keys", keys.len());
    assert!(checked >= 80, "{checked} lookups");
}
