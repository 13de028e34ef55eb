//! Hiera lookups of the sample control repository print what `puppet lookup` prints: for
//! every node and every key of `scripts/control-repo-lookups.txt`, the value as YAML
//! (`puppet lookup KEY`) and the explanation (`puppet lookup --explain KEY`), compared with
//! Puppet 7.23's output in `tests/fixtures/control-repo/lookups/<node>.json` (made by
//! `scripts/gen-control-repo-fixtures.sh`; the environment directory is written
//! `<environment>` there).
//!
//! The code path is the `lookup` example's: the repository loaded as a directory
//! environment ([`Session::environment`]: no global `hiera.yaml`, so Puppet's global layer
//! with nothing in it; the environment's `hiera.yaml`; the modules' Hiera data), and
//! `puppet_eval::hiera::puppet_lookup` for the node (its facts with `clientcert`,
//! `clientversion`, `clientnoop`, trusted data), which gives the text and the exit status.

mod support;

use puppet_lang::eval::hiera::{puppet_lookup, LookupCommand};
use puppet_lang::eval::{Environment, Session};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/control-repo")
}

fn environment() -> Arc<Environment> {
    Session::new()
        .environment(repo())
        .load()
        .expect("the repository's configuration is valid")
}

#[test]
fn lookups_print_what_puppet_lookup_prints() {
    let env = environment();
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
        let settings = support::agent_settings(node, &repo().join(format!("facts/{node}.json")))
            .with_environment(env.name());
        for case in fixture["lookups"].as_array().unwrap() {
            let key = case["key"].as_str().unwrap();
            keys.insert((key.to_string(), case["merge"].as_str().map(str::to_string)));
            let what = format!("{node} {key} {:?}", case["merge"].as_str());

            let command = |explain| LookupCommand {
                key: key.to_string(),
                merge: case["merge"].as_str().map(str::to_string),
                explain,
                ..Default::default()
            };

            // `puppet lookup KEY`: the YAML of the value, exit 1 without output when not found.
            let out = puppet_lookup(&env, &settings, &command(false));
            let (value, status) = (out.stdout + out.error.as_deref().unwrap_or(""), out.status);
            if value != case["value"].as_str().unwrap() || status != case["status"] {
                failures.push(format!(
                    "{what}: value\n--- ours ({status})\n{value}--- Puppet's ({})\n{}",
                    case["status"],
                    case["value"].as_str().unwrap()
                ));
            }

            // `puppet lookup --explain KEY`.
            let out = puppet_lookup(&env, &settings, &command(true));
            if out.status != case["explain_status"] {
                failures.push(format!("{what}: --explain exit status {}", out.status));
            }
            let explained = out.stdout.replace(&env_dir, "<environment>");
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
