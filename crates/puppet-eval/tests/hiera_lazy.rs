//! Hiera's module layers are made on first use: a module's `hiera.yaml` is read and checked
//! when a lookup first reaches the module, as Puppet 7.23 reads it (its `LookupAdapter`
//! makes a module's data provider then), so a broken one fails only the lookups that reach
//! it (Puppet's answers: `tests/fixtures/module_cases/hiera_module_config_*`).
//!
//! Here: compiling with every module layer made up front (`Lookup::load_module_layers`
//! before the compile) gives the same catalogs, logs and errors as making them on demand,
//! over the module cases that have module data and an in-memory environment, also when
//! several threads compile over one environment first; and a `hiera.yaml` that is not
//! valid YAML (whose parser message is not Psych's, so it has no fixture) fails the lookup
//! that reaches its module with Puppet's wrapping and nothing else.

use puppet_eval::{Compiled, Environment, Session, Settings};
use puppet_loader::MemoryProvider;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn settings() -> Settings {
    Settings {
        node_name: "node.example.com".into(),
        ..Default::default()
    }
}

/// Everything a compile shows: the catalog as JSON or the error, and the logs.
fn outcome(out: &Compiled) -> String {
    let catalog = match &out.catalog {
        Ok(c) => c.to_json(),
        Err(e) => format!("error: {}", e.puppet_message()),
    };
    let logs: Vec<String> = out
        .logs
        .iter()
        .map(|l| format!("{:?} {}", l.level, l.message))
        .collect();
    format!("{catalog}\n{}", logs.join("\n"))
}

fn case_env(dir: &Path) -> Arc<Environment> {
    Session::new()
        .modulepath([dir.join("modules")])
        .manifest(dir.join("site.pp"))
        .load()
        .unwrap_or_else(|d| panic!("{}: {d:?}", dir.display()))
}

/// Makes every module layer of `env` now; the first error is kept for the compiles.
fn eager(env: &Arc<Environment>) {
    if let Some(l) = env.hiera() {
        let _ = l.load_module_layers();
    }
}

fn hiera_cases() -> Vec<PathBuf> {
    let root = Path::new("tests/fixtures/module_cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("case.json").exists())
        .filter(|p| {
            std::fs::read_dir(p.join("modules"))
                .map(|mods| mods.flatten().any(|m| m.path().join("hiera.yaml").exists()))
                .unwrap_or(false)
        })
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn module_layers_made_on_demand_equal_made_up_front() {
    let cases = hiera_cases();
    assert!(cases.len() >= 5, "{cases:?}");
    for dir in cases {
        let lazy = case_env(&dir);
        let up_front = case_env(&dir);
        eager(&up_front);
        let a = outcome(&lazy.compile(&settings()));
        let b = outcome(&up_front.compile(&settings()));
        assert_eq!(a, b, "{}", dir.display());
        // A second compile over the same environments answers the same again.
        assert_eq!(outcome(&lazy.compile(&settings())), a, "{}", dir.display());
        assert_eq!(
            outcome(&up_front.compile(&settings())),
            b,
            "{}",
            dir.display()
        );
    }
}

#[test]
fn module_layers_made_by_racing_threads_answer_as_one() {
    for dir in hiera_cases() {
        let reference = outcome(&case_env(&dir).compile(&settings()));
        let env = case_env(&dir);
        let outs: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| outcome(&env.compile(&settings()))))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for o in outs {
            assert_eq!(o, reference, "{}", dir.display());
        }
    }
}

const SYNTAX_ERROR: &str = "version: 5\nhierarchy:\n  - name: common\n    path: [common.yaml\n";

fn memory_env(site: &str) -> Arc<Environment> {
    let files = MemoryProvider::new()
        .with_file("/mods/bad/hiera.yaml", SYNTAX_ERROR)
        .with_file("/mods/bad/data/common.yaml", "bad::x: 1\n")
        .with_file(
            "/mods/bad/manifests/init.pp",
            "class bad($x = 'd') { notice(\"bad ${x}\") }\n",
        )
        .with_file("/mods/good/hiera.yaml", "version: 5\n")
        .with_file("/mods/good/data/common.yaml", "good::x: 2\n")
        .with_file("/site.pp", site);
    Session::new()
        .files(files)
        .modulepath(["/mods"])
        .manifest("/site.pp")
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"))
}

#[test]
fn a_module_hiera_yaml_that_does_not_parse_fails_only_lookups_reaching_it() {
    // Unread: the compile does not look up a key of module bad.
    let out = memory_env("notice(lookup('good::x'))\nclass { 'bad': x => 'given' }\n")
        .compile(&settings());
    assert!(out.catalog.is_ok(), "{}", outcome(&out));
    // Read by the lookup of one of its keys: Puppet's YAML error is not a lookup error, so
    // it is wrapped as an error of the call, with the call's location.
    for (site, label, line) in [
        (
            "notice(lookup('good::x'))\nnotice(lookup('bad::x'))\n",
            "Function Call",
            2,
        ),
        ("include bad\n", "Function Call", 1),
        ("class { 'bad': }\n", "Resource Statement", 1),
    ] {
        let env = memory_env(site);
        let lazy = outcome(&env.compile(&settings()));
        let up_front = memory_env(site);
        eager(&up_front);
        assert_eq!(lazy, outcome(&up_front.compile(&settings())));
        let want = format!(
            "error: Evaluation Error: Error while evaluating a {label}, (/mods/bad/hiera.yaml): "
        );
        assert!(lazy.starts_with(&want), "{lazy}");
        assert!(
            lazy.contains(&format!("(file: /site.pp, line: {line}, column: ")),
            "{lazy}"
        );
    }
}
