//! `puppet_graph::diff` over pairs of Puppet's own catalogs: a node of `examples/control-repo`
//! before and after each scripted edit of `tests/fixtures/catalog_diff/edits.json` (recorded by
//! `scripts/gen-catalog-diff-fixtures.sh`) reports exactly the change the edit makes, written
//! by hand in the edit's `expect`. Also: a catalog equals itself, Puppet's catalog JSON equals
//! the oracle's canonical form of the same catalog, and our compile of every node has no
//! semantic difference from Puppet's.

mod support;

use puppet_lang::eval::{compile, Session};
use puppet_lang::graph::{diff, Catalog, DiffOptions};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read(path: &Path) -> Catalog {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    Catalog::from_json(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

fn options(v: &Value) -> DiffOptions {
    let mut o = DiffOptions::default();
    let strings = |k: &str| -> Vec<String> {
        v[k].as_array()
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    o.scalar_equals_singleton = v["scalar_equals_singleton"].as_bool().unwrap_or(false);
    o.ignore_tags = v["ignore_tags"].as_bool().unwrap_or(false);
    o.ignore_parameters = strings("ignore_parameters");
    o.ignore_types = strings("ignore_types");
    o
}

fn set(lines: &[String]) -> BTreeSet<String> {
    let s: BTreeSet<String> = lines.iter().cloned().collect();
    assert_eq!(s.len(), lines.len(), "a change reported twice: {lines:?}");
    s
}

fn expected(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_recorded_edit_is_reported_exactly() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("catalog_diff/edits.json")).unwrap(),
    )
    .unwrap();
    let edits = doc["edits"].as_array().unwrap();
    assert!(edits.len() >= 20, "{} edits", edits.len());
    let mut failures = Vec::new();
    let mut kinds = BTreeSet::new();
    for e in edits {
        let name = e["name"].as_str().unwrap();
        let node = e["node"].as_str().unwrap();
        let before = read(&fixtures().join(format!("control-repo/raw/{node}.json")));
        let after = read(&fixtures().join(format!("catalog_diff/after/{name}.json")));
        let d = diff(&before, &after, &DiffOptions::default());
        assert_eq!(d.node, node);
        let mut got = set(&d.summary());
        for line in &got {
            kinds.insert(line.split(' ').take(2).collect::<Vec<_>>().join(" "));
        }
        if let Some(through) = e.get("expect_cycles_through") {
            let cycles: Vec<String> = got
                .iter()
                .filter(|l| l.starts_with("+ cycle "))
                .cloned()
                .collect();
            let refs = expected(through);
            if cycles.is_empty()
                || cycles
                    .iter()
                    .any(|c| !refs.iter().all(|r| c.contains(r.as_str())))
            {
                failures.push(format!(
                    "{name}: cycles {cycles:?} do not all pass through {refs:?}"
                ));
            }
            got.retain(|l| !l.starts_with("+ cycle "));
        }
        let want = expected(&e["expect"]);
        if got != want {
            failures.push(format!(
                "{name}: reported {:?}, expected {:?}\n{}",
                got.difference(&want).collect::<Vec<_>>(),
                want.difference(&got).collect::<Vec<_>>(),
                d.to_text(false)
            ));
        }
        if let Some(w) = e.get("expect_with_options") {
            let d = diff(&before, &after, &options(&w["options"]));
            let got = set(&d.summary());
            let want = expected(&w["expect"]);
            if got != want {
                failures.push(format!(
                    "{name} with {}: reported {got:?}, expected {want:?}",
                    w["options"]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The edits cover every kind of change the diff reports.
    for kind in [
        "+ File[/etc/issue]",
        "- File[/etc/resolv.conf]",
        "~ File[/etc/motd]",
        "+ edge",
        "- edge",
        "+ class",
        "- class",
        "+ cycle",
    ] {
        assert!(
            kinds
                .iter()
                .any(|k| kind.starts_with(k.as_str()) || k.starts_with(kind)),
            "no edit reports '{kind}': {kinds:?}"
        );
    }
}

#[test]
fn a_catalog_equals_itself_and_its_canonical_form() {
    for entry in std::fs::read_dir(fixtures().join("control-repo/raw")).unwrap() {
        let path = entry.unwrap().path();
        let raw = read(&path);
        assert!(diff(&raw, &raw, &DiffOptions::default()).is_empty());
        let canonical = read(
            &fixtures()
                .join("control-repo/catalogs")
                .join(path.file_name().unwrap()),
        );
        let d = diff(&raw, &canonical, &DiffOptions::default());
        assert!(d.is_empty(), "{path:?}\n{}", d.to_text(false));
    }
}

#[test]
fn our_catalogs_have_no_semantic_difference_from_puppets() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/control-repo");
    let env = Session::new()
        .modulepath([repo.join("site-modules"), repo.join("modules")])
        .manifest(repo.join("manifests"))
        .environment_dir(&repo)
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    for entry in std::fs::read_dir(fixtures().join("control-repo/raw")).unwrap() {
        let path = entry.unwrap().path();
        let node = path.file_stem().unwrap().to_string_lossy().into_owned();
        let settings = support::agent_settings(&node, &repo.join(format!("facts/{node}.json")));
        let ours = compile(env.clone(), &settings)
            .catalog
            .unwrap_or_else(|e| panic!("{node}: {}", e.located()));
        let theirs = read(&path);
        let d = diff(&theirs, &ours, &DiffOptions::default());
        assert!(d.is_empty(), "{node}\n{}", d.to_text(false));
    }
}
