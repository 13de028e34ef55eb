//! Compares the crate's knowledge with the answers of the real Puppet 7.23
//! (`tests/fixtures/puppet-types.json`, made by `tools/dump-types.rb -M
//! /usr/share/puppet/modules`): the core table for every built-in and
//! vendored type, and every module type file of the Debian corpus run against
//! puppet-ruby's type recorder (skipped when `/usr/share/puppet/modules` is
//! absent). The corpus test prints `corpus types: N; equal: M`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use puppet_restypes::{ResourceTypeInfo, RubyTypeReader, TypeDatabase, METAPARAMETERS};
use puppet_ruby::{SourceHost, Sources};
use serde_json::Value;
use smol_str::SmolStr;

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
    // Ruby's Regexp#options: IGNORECASE 1, EXTENDED 2, MULTILINE 4
    let a: Vec<(String, u64, Vec<String>)> = ours
        .title_patterns
        .iter()
        .map(|p| {
            (
                p.regex.to_string(),
                u64::from(p.ignore_case) | u64::from(p.extended) << 1 | u64::from(p.multiline) << 2,
                p.captures.iter().map(|c| c.to_string()).collect(),
            )
        })
        .collect();
    let b: Vec<(String, u64, Vec<String>)> = tp
        .iter()
        .map(|p| {
            (
                p["regex"].as_str().unwrap_or("").to_string(),
                p["options"].as_u64().unwrap_or(0) & 7,
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

fn feature_diffs(ours: &ResourceTypeInfo, theirs: &Value) -> Vec<String> {
    let mut feats: Vec<String> = ours.features.iter().map(|s| s.to_string()).collect();
    let mut tf = strs(&theirs["features"]);
    feats.sort();
    tf.sort();
    if feats == tf {
        vec![]
    } else {
        vec![format!("features: ours {feats:?} puppet {tf:?}")]
    }
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
        d.extend(feature_diffs(ours, theirs));
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

/// The corpus modules' `lib` directories as Ruby's load path (what `require`
/// finds), with reads confined to the corpus.
struct CorpusHost {
    root: PathBuf,
    libs: Vec<PathBuf>,
}

impl SourceHost for CorpusHost {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let rel = format!("{}.rb", name.trim_end_matches(".rb"));
        self.libs.iter().find_map(|l| {
            let p = l.join(&rel);
            let text = std::fs::read_to_string(&p).ok()?;
            Some((p.to_string_lossy().into_owned(), Arc::from(text)))
        })
    }
    fn read(&self, path: &str) -> Option<Arc<str>> {
        let p = Path::new(path);
        if !p.starts_with(&self.root) || path.contains("/../") {
            return None;
        }
        std::fs::read_to_string(p).ok().map(Arc::from)
    }
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The puppet facts the fixture was made with (what `Facter.value` answers).
fn host_facts(o: &Value) -> IndexMap<SmolStr, puppet_types::Value> {
    o["host_facts"]
        .as_object()
        .expect("host_facts")
        .iter()
        .map(|(k, v)| (SmolStr::new(k), json_to_puppet(v)))
        .collect()
}

fn json_to_puppet(v: &Value) -> puppet_types::Value {
    use puppet_types::Value as P;
    match v {
        Value::Null => P::Undef,
        Value::Bool(b) => P::Boolean(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| P::from(n.to_string().as_str()), P::Integer),
        Value::String(s) => P::from(s.as_str()),
        Value::Array(a) => P::array(a.iter().map(json_to_puppet).collect()),
        Value::Object(o) => P::hash(
            o.iter()
                .map(|(k, v)| (P::from(k.as_str()), json_to_puppet(v)))
                .collect::<Vec<_>>(),
        ),
    }
}

/// Every module type of the corpus, read by running its file (puppet-ruby's
/// type recorder, the modules' `lib` as the load path, the fixture's host
/// facts), compared with what Puppet 7.23 answered for it: parameters,
/// properties, namevars, title patterns (regex text, options, captures),
/// allowed values, features, automatic relationships and isomorphism. Types of
/// modules the fixture does not know are listed, not compared (the test does
/// not depend on which modules are installed).
#[test]
fn corpus_module_types_equal_puppets() {
    let root = Path::new("/usr/share/puppet/modules");
    if !root.is_dir() {
        eprintln!("skipped: {} is absent", root.display());
        return;
    }
    let o = oracle();
    let modules = sorted_dir(root);
    let libs = modules
        .iter()
        .map(|m| m.join("lib"))
        .filter(|l| l.is_dir())
        .collect();
    let sources = Sources::new(Arc::new(CorpusHost {
        root: root.to_path_buf(),
        libs,
    }));
    let reader = RubyTypeReader::new(sources).with_facts(Arc::new(host_facts(&o)));
    let theirs_all = o["modules"].as_object().expect("modules");
    let (mut n, mut compared, mut equal) = (0, 0, 0);
    let mut report = Vec::new();
    for m in &modules {
        let module = m
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        for file in sorted_dir(&m.join("lib/puppet/type")) {
            if file.extension().and_then(|e| e.to_str()) != Some("rb") {
                continue;
            }
            n += 1;
            let name = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_string();
            let key = format!("{module}/{name}");
            let Some(theirs) = theirs_all.get(&key) else {
                report.push(format!("{key}: not in the fixture (not compared)"));
                continue;
            };
            compared += 1;
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let mut files = vec![(module.clone(), file.to_string_lossy().into_owned(), text)];
            // a provider's presence gives the type its `provider` parameter
            for pm in &modules {
                if let Some(p) = sorted_dir(&pm.join("lib/puppet/provider").join(&name))
                    .into_iter()
                    .find(|p| p.extension().is_some_and(|e| e == "rb"))
                {
                    files.push((
                        String::new(),
                        p.to_string_lossy().into_owned(),
                        String::new(),
                    ));
                    break;
                }
            }
            let mut db = TypeDatabase::new();
            let diags = db.load_modules_with(&reader, files);
            let Some(ours) = db.get(&name) else {
                report.push(format!("{key}: not read: {diags:?}"));
                continue;
            };
            let mut d = attr_diffs(ours, theirs);
            d.extend(pattern_diffs(ours, theirs));
            d.extend(value_diffs(ours, theirs));
            d.extend(hint_diffs(ours, theirs));
            d.extend(feature_diffs(ours, theirs));
            if d.is_empty() {
                equal += 1;
            } else {
                report.push(format!("{key}: {d:?}"));
            }
        }
    }
    for r in &report {
        eprintln!("  {r}");
    }
    eprintln!("compared with Puppet's answers: {compared}");
    eprintln!("corpus types: {n}; equal: {equal}");
    assert_eq!(equal, compared, "types that differ from Puppet's");
}
