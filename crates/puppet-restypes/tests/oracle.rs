//! Compares the crate's knowledge with the answers of the real Puppet 7.23
//! (`tests/fixtures/puppet-types.json`, made by `tools/dump-types.rb`): the
//! core table for every built-in and vendored type, and the static reading
//! of every module type file of the Debian corpus (skipped when
//! `/usr/share/puppet/modules` is absent).

use std::path::Path;

use puppet_restypes::{ResourceTypeInfo, TypeDatabase, METAPARAMETERS};
use serde_json::Value;

fn oracle() -> Value {
    let text = include_str!("fixtures/puppet-types.json");
    serde_json::from_str(text).expect("fixture is JSON")
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Differences between our description and Puppet's answer (empty = equal)
/// for the attribute lists and namevars.
fn attr_diffs(ours: &ResourceTypeInfo, theirs: &Value) -> Vec<String> {
    let mut d = Vec::new();
    let params: Vec<String> = ours.parameters().map(str::to_string).collect();
    let props: Vec<String> = ours.properties().map(str::to_string).collect();
    if params != strs(&theirs["parameters"]) {
        d.push(format!(
            "parameters: ours {params:?} puppet {:?}",
            strs(&theirs["parameters"])
        ));
    }
    if props != strs(&theirs["properties"]) {
        d.push(format!(
            "properties: ours {props:?} puppet {:?}",
            strs(&theirs["properties"])
        ));
    }
    let nv: Vec<String> = ours.namevars.iter().map(|s| s.to_string()).collect();
    if nv != strs(&theirs["namevars"]) {
        d.push(format!(
            "namevars: ours {nv:?} puppet {:?}",
            strs(&theirs["namevars"])
        ));
    }
    d
}

/// Differences in title patterns (capture mapping and regex text).
fn pattern_diffs(ours: &ResourceTypeInfo, theirs: &Value) -> Vec<String> {
    let empty = Vec::new();
    let tp = theirs["title_patterns"].as_array().unwrap_or(&empty);
    let a: Vec<(String, Vec<String>)> = ours
        .title_patterns
        .iter()
        .map(|p| {
            (
                p.regex.to_string(),
                p.captures.iter().map(|c| c.to_string()).collect(),
            )
        })
        .collect();
    let b: Vec<(String, Vec<String>)> = tp
        .iter()
        .map(|p| {
            (
                p["regex"].as_str().unwrap_or("").to_string(),
                strs(&p["captures"]),
            )
        })
        .collect();
    if a == b {
        vec![]
    } else {
        vec![format!("title_patterns: ours {a:?} puppet {b:?}")]
    }
}

fn value_diffs(ours: &ResourceTypeInfo, theirs: &Value) -> Vec<String> {
    let mut d = Vec::new();
    for a in ours.attributes.values() {
        let t = &theirs["values"][a.name.as_str()];
        let simple =
            t.is_object() && strs(&t["regexes"]).is_empty() && !strs(&t["values"]).is_empty();
        let expected = simple.then(|| strs(&t["values"]));
        let got = a
            .values
            .as_ref()
            .map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        if got != expected {
            d.push(format!(
                "values of {}: ours {got:?} puppet {expected:?}",
                a.name
            ));
        }
    }
    d
}

fn hint_diffs(ours: &ResourceTypeInfo, theirs: &Value) -> Vec<String> {
    let mut d = Vec::new();
    let pairs = [
        ("autorequires", &ours.autorequires),
        ("autobefores", &ours.autobefores),
        ("autosubscribes", &ours.autosubscribes),
        ("autonotifies", &ours.autonotifies),
    ];
    for (k, v) in pairs {
        let mut a: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        let mut b = strs(&theirs[k]);
        a.sort();
        b.sort();
        if a != b {
            d.push(format!("{k}: ours {a:?} puppet {b:?}"));
        }
    }
    if ours.isomorphic != theirs["isomorphic"].as_bool().unwrap_or(true) {
        d.push("isomorphic differs".into());
    }
    d
}

#[test]
fn metaparameters_match_puppet() {
    let o = oracle();
    assert_eq!(strs(&o["metaparameters"]), METAPARAMETERS);
}

#[test]
fn core_types_match_puppet() {
    let o = oracle();
    let db = TypeDatabase::core();
    let core = o["core"].as_object().expect("core");
    assert_eq!(db.len(), core.len());
    for (name, theirs) in core {
        let ours = db
            .get(name)
            .unwrap_or_else(|| panic!("core type {name} missing"));
        let mut d = attr_diffs(ours, theirs);
        d.extend(pattern_diffs(ours, theirs));
        d.extend(value_diffs(ours, theirs));
        d.extend(hint_diffs(ours, theirs));
        let mut feats: Vec<String> = ours.features.iter().map(|s| s.to_string()).collect();
        let mut tf = strs(&theirs["features"]);
        feats.sort();
        tf.sort();
        if feats != tf {
            d.push(format!("features: ours {feats:?} puppet {tf:?}"));
        }
        assert!(d.is_empty(), "{name}: {d:#?}");
    }
}

#[test]
fn vendored_types_match_puppet() {
    let o = oracle();
    let db = TypeDatabase::with_vendored();
    for name in [
        "augeas",
        "cron",
        "host",
        "mailalias",
        "mount",
        "sshkey",
        "ssh_authorized_key",
    ] {
        let (_, theirs) = o["modules"]
            .as_object()
            .expect("modules")
            .iter()
            .find(|(k, _)| k.ends_with(&format!("/{name}")))
            .unwrap_or_else(|| panic!("{name} not in the fixture"));
        let ours = db
            .get(name)
            .unwrap_or_else(|| panic!("vendored type {name} missing"));
        let mut d = attr_diffs(ours, theirs);
        d.extend(pattern_diffs(ours, theirs));
        assert!(d.is_empty(), "{name}: {d:#?}");
    }
}

/// Every `lib/puppet/{type,provider}` and `lib/puppet_x` Ruby file of the
/// corpus modules, as the loader would hand them over.
fn corpus_files(root: &Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut mods: Vec<_> = std::fs::read_dir(root)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    mods.sort();
    for m in mods {
        let name = m
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        let mut files = Vec::new();
        let tdir = m.join("lib/puppet/type");
        if let Ok(rd) = std::fs::read_dir(&tdir) {
            files.extend(rd.filter_map(Result::ok).map(|e| e.path()));
        }
        if let Ok(rd) = std::fs::read_dir(m.join("lib/puppet/provider")) {
            for d in rd.filter_map(Result::ok) {
                if let Ok(rd2) = std::fs::read_dir(d.path()) {
                    files.extend(rd2.filter_map(Result::ok).map(|e| e.path()));
                }
            }
        }
        // the helper modules (`lib/puppet_x/**.rb`) type files call
        let mut dirs = vec![m.join("lib/puppet_x")];
        while let Some(d) = dirs.pop() {
            if let Ok(rd) = std::fs::read_dir(&d) {
                for e in rd.filter_map(Result::ok) {
                    let p = e.path();
                    if p.is_dir() {
                        dirs.push(p);
                    } else {
                        files.push(p);
                    }
                }
            }
        }
        files.sort();
        for f in files {
            if f.extension().and_then(|e| e.to_str()) != Some("rb") {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            out.push((name.clone(), f.to_string_lossy().into_owned(), text));
        }
    }
    out
}

#[test]
fn corpus_module_types_read_statically() {
    let root = Path::new("/usr/share/puppet/modules");
    if !root.is_dir() {
        eprintln!("skipped: {} is absent", root.display());
        return;
    }
    let o = oracle();
    let files = corpus_files(root);
    let mut db = TypeDatabase::new();
    let diags = db.load_modules(
        files
            .iter()
            .map(|(m, p, s)| (m.as_str(), p.as_str(), s.as_str())),
    );
    let modules = o["modules"].as_object().expect("modules");
    let (mut equal, mut complete, mut patterns_equal, mut values_equal, mut hints_equal) =
        (0, 0, 0, 0, 0);
    let mut report = Vec::new();
    for (key, theirs) in modules {
        let name = key.rsplit('/').next().unwrap_or(key);
        let Some(ours) = db.get(name) else {
            report.push(format!("{key}: not read"));
            continue;
        };
        if ours.complete {
            complete += 1;
        }
        let d = attr_diffs(ours, theirs);
        if d.is_empty() {
            equal += 1;
        } else {
            report.push(format!("{key} (complete: {}): {d:?}", ours.complete));
        }
        if pattern_diffs(ours, theirs).is_empty() {
            patterns_equal += 1;
        } else if ours.complete {
            report.push(format!("{key}: {:?}", pattern_diffs(ours, theirs)));
        }
        if value_diffs(ours, theirs).is_empty() {
            values_equal += 1;
        }
        if hint_diffs(ours, theirs).is_empty() {
            hints_equal += 1;
        }
        // a complete reading must never be wrong
        assert!(
            !ours.complete || d.is_empty(),
            "{key}: read as complete but differs: {d:?}"
        );
        // nor its title patterns (computed ones included: keystone's helpers)
        assert!(
            !ours.complete || pattern_diffs(ours, theirs).is_empty(),
            "{key}: title patterns differ: {:?}",
            pattern_diffs(ours, theirs)
        );
    }
    let n = modules.len();
    eprintln!("corpus module types: {n}; read: {}", db.len());
    eprintln!("parameters, properties and namevars equal to Puppet's: {equal}/{n}");
    eprintln!("read without errors (complete): {complete}/{n}");
    eprintln!("title patterns equal: {patterns_equal}/{n}; allowed values equal: {values_equal}/{n}; autorequire/isomorphic equal: {hints_equal}/{n}");
    eprintln!(
        "diagnostics: {} ({} errors)",
        diags.len(),
        diags
            .iter()
            .filter(|d| d.severity == puppet_restypes::Severity::Error)
            .count()
    );
    for r in &report {
        eprintln!("  {r}");
    }
    for d in &diags {
        eprintln!("  diag: {d}");
    }
    assert!(equal * 100 >= n * 90, "only {equal}/{n} equal");
}
