//! The sample control repository `examples/control-repo` (roles and profiles in
//! `site-modules/`, component modules in `modules/`, environment Hiera with per-node, per-OS
//! family and common data, four nodes of two OS families) compiles, for every node, to the
//! catalog Puppet 7.23 compiles with the repository as its environment
//! (`tests/fixtures/control-repo/catalogs/<node>.json`, made by
//! `scripts/gen-control-repo-fixtures.sh`), warnings and notices included.
//!
//! The environment is the repository directory itself, read as Puppet reads a directory
//! environment ([`Session::environment`]: `environment.conf`, `hiera.yaml`, `data/`,
//! `manifests/`); its directory name is no valid environment name, so it is `production`,
//! as in the oracle. `compile --environment` goes the same way.

mod support;

use puppet_lang::eval::{compile, Environment, Session};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/control-repo")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/control-repo")
}

/// The nodes: one facts file each.
fn nodes() -> Vec<String> {
    let mut nodes: Vec<String> = std::fs::read_dir(repo().join("facts"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".json").map(str::to_string)
        })
        .collect();
    nodes.sort();
    nodes
}

/// The repository as a directory environment, with an empty base module path.
fn environment() -> Arc<Environment> {
    let env = Session::new()
        .environment(repo())
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(env.name(), "production");
    assert_eq!(
        env.diagnostics().count(),
        0,
        "{:?}",
        env.diagnostics().collect::<Vec<_>>()
    );
    env
}

#[test]
fn every_node_compiles_as_puppet_compiles_it() {
    let env = environment();
    let nodes = nodes();
    assert!(nodes.len() >= 3, "{nodes:?}");
    for node in nodes {
        let settings = support::agent_settings(&node, &repo().join(format!("facts/{node}.json")))
            .with_environment(env.name());
        let out = compile(env.clone(), &settings);
        let cat = out
            .catalog
            .unwrap_or_else(|e| panic!("{node}: {}", e.located()));
        let fixture: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures().join(format!("catalogs/{node}.json"))).unwrap(),
        )
        .unwrap();
        support::assert_canonical_eq(&cat, &fixture);
        let logs: Vec<(String, String)> = out
            .logs
            .iter()
            .filter(|l| l.level >= puppet_lang::functions::LogLevel::Notice)
            .map(|l| (l.level.name().to_string(), l.message.clone()))
            .collect();
        let theirs: Vec<(String, String)> = fixture["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["level"].as_str().unwrap().to_string(),
                    l["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(logs, theirs, "{node}");
    }
}
