//! Parity with Puppet 7.23 on the public corpus (`/usr/share/puppet/modules`): the index
//! finds exactly the classes, defines, functions and type aliases Puppet finds
//! (`fixtures/corpus-oracle.json`, made by `scripts/loader-oracle.rb`), and the location
//! checks refuse exactly the files `parse-dump --validate -M` refuses, with the same
//! messages and positions (`fixtures/corpus-locations.json`, made by
//! `scripts/loader-location-fixture.py`).
//!
//! The tests do not depend on what a machine has installed: only the modules the fixtures
//! were made from are looked at, each only when it is installed at the version the
//! fixture recorded (other directories of the module path are hidden from the loader);
//! expectations about the others are left out, and the tests say so on stderr. When none
//! is installed the tests pass without checking anything.

use puppet_loader::{
    check_file_location, DefKind, DirEntry, EntryKind, EnvironmentConfig, FsProvider, Index,
    Metadata, ProviderError, SourceProvider,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const CORPUS: &str = "/usr/share/puppet/modules";

fn fixture(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture's modules installed here at the version it recorded.
fn usable_modules(oracle: &serde_json::Value) -> BTreeSet<String> {
    let mut usable = BTreeSet::new();
    let mut skipped = Vec::new();
    for (name, version) in oracle["versions"].as_object().unwrap() {
        let meta = Path::new(CORPUS).join(name).join("metadata.json");
        let installed = std::fs::read_to_string(&meta)
            .ok()
            .and_then(|t| Metadata::parse(&t, &meta).0)
            .and_then(|m| m.version);
        if installed.is_some() && installed.as_deref() == version.as_str() {
            usable.insert(name.clone());
        } else {
            skipped.push(name.as_str());
        }
    }
    if !skipped.is_empty() {
        eprintln!(
            "{CORPUS}: not installed at the fixture's version, not checked: {}",
            skipped.join(", ")
        );
    }
    usable
}

/// The file system, with the corpus directory listing only the `keep` modules.
#[derive(Debug)]
struct OnlyModules {
    fs: FsProvider,
    keep: BTreeSet<String>,
}

impl SourceProvider for OnlyModules {
    fn list_dir(&self, dir: &Path) -> Result<Vec<DirEntry>, ProviderError> {
        let mut entries = self.fs.list_dir(dir)?;
        if dir == Path::new(CORPUS) {
            entries.retain(|e| self.keep.contains(&e.name));
        }
        Ok(entries)
    }
    fn read_to_string(&self, file: &Path) -> Result<String, ProviderError> {
        self.fs.read_to_string(file)
    }
    fn kind(&self, path: &Path) -> Option<EntryKind> {
        self.fs.kind(path)
    }
}

/// The module a corpus path belongs to.
fn module_of(path: &str) -> Option<&str> {
    path.strip_prefix(CORPUS)?
        .trim_start_matches('/')
        .split('/')
        .next()
}

#[test]
fn index_matches_puppet() {
    let oracle = fixture("corpus-oracle.json");
    let keep = usable_modules(&oracle);
    if keep.is_empty() {
        eprintln!("{CORPUS}: no module of the fixture installed, corpus parity not checked");
        return;
    }
    let config = EnvironmentConfig::with_modulepath([CORPUS]);
    let provider = OnlyModules {
        fs: FsProvider::new(config.roots()),
        keep: keep.clone(),
    };
    let env = Index::load(&config, std::sync::Arc::new(provider));
    let kept = |file: &str| module_of(file).is_some_and(|m| keep.contains(m));

    let modules: Vec<String> = env.modules().map(|m| m.name.to_string()).collect();
    let want: Vec<String> = oracle["modules"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|m| keep.contains(*m))
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
            .filter(|(_, v)| kept(v.as_str().unwrap()))
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
    let keep = usable_modules(&fixture("corpus-oracle.json"));
    if keep.is_empty() {
        eprintln!("{CORPUS}: no module of the fixture installed, location checks not compared");
        return;
    }
    let kept = |file: &str| module_of(file).is_some_and(|m| keep.contains(m));
    let fx = fixture("corpus-locations.json");
    let modulepath = vec![PathBuf::from(CORPUS)];
    let failed: serde_json::Map<String, serde_json::Value> = fx["failed"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(f, _)| kept(f))
        .map(|(f, v)| (f.clone(), v.clone()))
        .collect();
    let mut files: Vec<String> = failed.keys().cloned().collect();
    files.extend(
        fx["ok"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .filter(|f| kept(f)),
    );
    files.sort();
    let all_kept = keep.len()
        == fixture("corpus-oracle.json")["versions"]
            .as_object()
            .unwrap()
            .len();
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
    if all_kept {
        assert_eq!(refused, 55);
    }
}
