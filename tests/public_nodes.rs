//! The five public oracle nodes (`../shared/oracle/nodes/*.pp`, module path
//! `/usr/share/puppet/modules`) compile to Puppet 7.23's catalogs
//! (`tests/fixtures/catalogs/<node>.json`, made by `scripts/gen-catalog-fixtures.sh`) in
//! canonical form, ERB template output included, with the same warnings and notices (stdlib's
//! deprecations included, once per key with Puppet's call stack). Skipped, saying so, where the module
//! corpus or the oracle directory is absent (CI has neither).

mod support;

use puppet_lang::eval::{compile, Session};
use puppet_lang::functions::LogLevel;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const CORPUS: &str = "/usr/share/puppet/modules";

fn oracle() -> PathBuf {
    let dir = std::env::var_os("ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle"));
    dir.canonicalize().unwrap_or(dir)
}

#[test]
fn public_nodes_compile_as_puppet_compiles_them() {
    let nodes = oracle().join("nodes");
    if !Path::new(CORPUS).is_dir() || !nodes.is_dir() {
        eprintln!("skipped: {CORPUS} or {} is missing", nodes.display());
        return;
    }
    // One environment for all nodes (only the main manifest differs), as a server has.
    let modules = Session::new()
        .modulepath([PathBuf::from(CORPUS)])
        .load()
        .expect("the corpus loads");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs");
    for (node, facts, certname) in [
        ("ntp", "debian12-web01.json", "web01.example.com"),
        ("db", "debian12-web01.json", "web01.example.com"),
        ("web", "debian12-web01.json", "web01.example.com"),
        ("keystone", "debian12-ctl01.json", "ctl01.example.com"),
        ("kitchensink", "debian12-web01.json", "web01.example.com"),
    ] {
        let manifest = nodes.join(format!("{node}.pp"));
        let text = std::fs::read_to_string(&manifest).unwrap();
        let env = modules.with_main_code(Some(&manifest.to_string_lossy()), &text);
        let settings = support::agent_settings(certname, &oracle().join("facts").join(facts));
        let run = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let out = compile(Arc::new(env), &settings);
                (out.catalog, out.logs)
            });
        let (cat, logs) = run.unwrap().join().unwrap();
        let cat = cat.unwrap_or_else(|e| panic!("{node}: {}", e.located()));
        let fixture: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures.join(format!("{node}.json"))).unwrap(),
        )
        .unwrap();
        support::assert_canonical_eq(&cat, &fixture);
        // The fixtures write the oracle directory as `<oracle>`.
        let oracle_dir = oracle().to_string_lossy().into_owned();
        let ours: Vec<serde_json::Value> = logs
            .iter()
            .filter(|l| l.level >= LogLevel::Notice)
            .map(|l| {
                let mut entry = serde_json::json!({
                    "level": l.level.name(),
                    "message": l.message.replace(&oracle_dir, "<oracle>"),
                });
                if let Some(scope) = &l.scope {
                    entry["source"] = format!("Scope({scope})").into();
                }
                entry
            })
            .collect();
        let theirs: Vec<serde_json::Value> = fixture["logs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["level"] != "info" && l["level"] != "debug")
            .cloned()
            .collect();
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{node}: log {i}");
        }
        assert_eq!(ours.len(), theirs.len(), "{node}: number of logs");
    }
}
