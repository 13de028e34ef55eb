//! Parity with Puppet 7.23 on the public corpus (`/usr/share/puppet/modules`): the index
//! finds exactly the classes, defines, functions and type aliases Puppet finds
//! (`fixtures/corpus-oracle.json`, made by `scripts/loader-oracle.rb`), and the location
//! checks refuse exactly the files `parse-dump --validate -M` refuses, with the same
//! messages and positions (`fixtures/corpus-locations.json`, made by
//! `scripts/loader-location-fixture.py`). When the corpus is not installed the tests say so
//! and pass.

use puppet_loader::{check_file_location, DefKind, EnvironmentConfig, FsProvider, Index};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const CORPUS: &str = "/usr/share/puppet/modules";

fn fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn corpus_present() -> bool {
    if Path::new(CORPUS).join("stdlib").is_dir() {
        return true;
    }
    eprintln!("{CORPUS} not installed: corpus parity not checked");
    false
}

#[test]
fn index_matches_puppet() {
    if !corpus_present() {
        return;
    }
    let oracle = fixture("corpus-oracle.json");
    let config = EnvironmentConfig::with_modulepath([CORPUS]);
    let env = Index::load(
        &config,
        std::sync::Arc::new(FsProvider::new(config.roots())),
    );

    let modules: Vec<String> = env.modules().map(|m| m.name.to_string()).collect();
    let want: Vec<String> = oracle["modules"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(modules, want);

    for (kind, key) in [
        (DefKind::Class, "classes"),
        (DefKind::Define, "defines"),
        (DefKind::Function, "functions"),
        (DefKind::TypeAlias, "type_aliases"),
    ] {
        let ours: BTreeMap<String, PathBuf> = env
            .definitions()
            .filter(|d| d.kind == kind)
            .map(|d| (d.name.to_string(), d.file.to_path_buf()))
            .collect();
        let theirs: BTreeMap<String, PathBuf> = oracle[key]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.to_lowercase(), PathBuf::from(v.as_str().unwrap())))
            .collect();
        let missing: Vec<_> = theirs.keys().filter(|k| !ours.contains_key(*k)).collect();
        let extra: Vec<_> = ours.keys().filter(|k| !theirs.contains_key(*k)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{key}: missing {missing:?}, extra {extra:?}"
        );
        assert_eq!(ours, theirs, "{key}: files differ");
    }
}

#[test]
fn location_checks_match_puppet() {
    if !corpus_present() {
        return;
    }
    let fx = fixture("corpus-locations.json");
    let modulepath = vec![PathBuf::from(CORPUS)];
    let failed = fx["failed"].as_object().unwrap();
    let mut files: Vec<String> = failed.keys().cloned().collect();
    files.extend(
        fx["ok"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string()),
    );
    files.sort();
    let mut mismatches = Vec::new();
    let mut refused = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let parse = puppet_syntax::parse(&text);
        let idx = puppet_syntax::LineIndex::new(&text);
        let diags = check_file_location(Path::new(file), &parse, &modulepath, None);
        // Puppet logs at most 10 validation errors per file.
        let mut ours: Vec<String> = diags
            .iter()
            .take(10)
            .map(|d| {
                let lc = idx.line_col(&text, d.start());
                format!("{} @{}:{}", d.message, lc.line, lc.col)
            })
            .collect();
        ours.sort();
        if !ours.is_empty() {
            refused += 1;
        }
        let theirs: Vec<String> = failed
            .get(file)
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default();
        if ours != theirs {
            mismatches.push(format!("{file}\n  ours:   {ours:?}\n  puppet: {theirs:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert_eq!(refused, failed.len());
    assert_eq!(refused, 55);
}
