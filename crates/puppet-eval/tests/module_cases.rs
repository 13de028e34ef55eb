//! Compiles that depend on the module path, against Puppet 7.23's answers: each directory of
//! `tests/fixtures/module_cases/` holds a main manifest `site.pp`, module directories, the
//! module path in `case.json` (relative to the case directory, as a user gives it) and
//! Puppet's result in `expected.json` (made by `scripts/gen-module-cases.py`): the catalog's
//! resources, classes and error/warning logs, or the error message, and what the sorted form
//! leaves out of the catalog as Puppet writes it (orders of resources, parameters, tags and
//! edges; kinds, files and lines; the catalog's tags). Covered: definitions
//! in the wrong file ("Unacceptable location"), the order of each resource's tags, modules Puppet refuses for their
//! `metadata.json` (dropped, logged, and still hiding a later module of the same name), a
//! relative module path with `..`, and modules whose `hiera.yaml` is broken (read by the
//! first lookup reaching the module: unread, a type error, a name defined twice, an unknown
//! version).
//!
//! The files are read from disk through the session's file-system provider, as a user's
//! modules would be; cargo runs tests in the crate directory, so the relative paths hold.

use puppet_eval::{Session, Settings};
use puppet_functions::LogLevel;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const DROP: &[&str] = &["Stage[main]", "Class[main]", "Class[Settings]"];

fn cases_dir() -> PathBuf {
    Path::new("tests/fixtures/module_cases").to_path_buf()
}

/// Our compile of one case, reduced as the script reduces Puppet's.
fn compile_case(dir: &Path) -> Value {
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let modulepath: Vec<PathBuf> = spec["modulepath"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| dir.join(p.as_str().unwrap()))
        .collect();
    let abs = puppet_loader::absolute_path(dir).display().to_string();
    let all = puppet_loader::absolute_path(&cases_dir())
        .display()
        .to_string();
    let clean = |s: &str| s.replace(&abs, "<DIR>").replace(&all, "<CASES>");
    let env = match Session::new()
        .modulepath(modulepath)
        .manifest(dir.join("site.pp"))
        .load()
    {
        Ok(env) => env,
        Err(d) => return json!({"ok": false, "error": format!("session: {d:?}")}),
    };
    let mut settings = Settings {
        node_name: "node.example.com".into(),
        ..Default::default()
    };
    if let Some(given) = spec.get("settings").and_then(Value::as_object) {
        for (k, v) in given {
            settings = settings.with_setting(k, v.as_str().unwrap()).unwrap();
        }
    }
    let out = env.compile(&settings);
    let cat = match out.catalog {
        Ok(c) => c,
        Err(e) => return json!({"ok": false, "error": clean(&e.puppet_message())}),
    };
    // The tags of each resource in the order of the catalog (Puppet's own JSON).
    let mut tag_order: Vec<(String, Value)> = cat
        .resources
        .iter()
        .map(|r| (format!("{}[{}]", r.type_name, r.title), r))
        .filter(|(rf, _)| !DROP.contains(&rf.as_str()))
        .map(|(rf, r)| (rf, json!(r.tags)))
        .collect();
    tag_order.sort_by(|a, b| a.0.cmp(&b.0));
    let tag_order: serde_json::Map<String, Value> = tag_order.into_iter().collect();
    let mut resources: Vec<Value> = cat
        .resources
        .iter()
        .map(|r| (format!("{}[{}]", r.type_name, r.title), r))
        .filter(|(rf, _)| !DROP.contains(&rf.as_str()))
        .map(|(rf, r)| {
            let mut tags = r.tags.clone();
            tags.sort();
            let mut keys: Vec<&str> = r.parameters.keys().map(|k| k.as_str()).collect();
            keys.sort();
            let params: serde_json::Map<String, Value> = keys
                .into_iter()
                .map(|k| (k.to_string(), r.parameters[k].clone()))
                .collect();
            json!([rf, tags, params])
        })
        .collect();
    resources.sort_by(|a, b| a[0].as_str().cmp(&b[0].as_str()));
    let mut classes: Vec<String> = cat
        .classes
        .iter()
        .filter(|c| *c != "settings")
        .cloned()
        .collect();
    classes.sort();
    let mut logs: Vec<Value> = out
        .logs
        .iter()
        .filter_map(|l| match l.level {
            LogLevel::Err => Some(json!(["err", clean(&l.message)])),
            LogLevel::Warning => Some(json!(["warning", clean(&l.message)])),
            _ => None,
        })
        .collect();
    // Puppet lists modules in the order of the directory listing, which depends on the file
    // system; we list them sorted. The set of messages is what is compared.
    logs.sort_by_key(|l| l.to_string());
    json!({"ok": true, "resources": resources, "classes": classes, "logs": logs,
           "tag_order": tag_order, "written": written(&cat, clean)})
}

/// What the sorted form leaves out of the catalog as written: the resources in order with
/// their kind, file (cleaned as messages are), line and parameter names in order; the edges
/// in order; the catalog's own tags.
fn written(cat: &puppet_graph::Catalog, clean: impl Fn(&str) -> String) -> Value {
    let rel = |f: &Option<String>| match f {
        Some(f) => Value::String(clean(f)),
        None => Value::Null,
    };
    let resources: Vec<Value> = cat
        .resources
        .iter()
        .map(|r| {
            let keys: Vec<&str> = r.parameters.keys().map(|k| k.as_str()).collect();
            json!([
                format!("{}[{}]", r.type_name, r.title),
                r.kind,
                rel(&r.file),
                r.line,
                keys
            ])
        })
        .collect();
    let edges: Vec<Value> = cat
        .edges
        .iter()
        .map(|e| json!([e.source, e.target]))
        .collect();
    json!({"resources": resources, "edges": edges, "tags": cat.tags})
}

#[test]
fn module_cases_match_puppet() {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 6, "module cases missing: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let dir = cases_dir().join(name);
        let mut want: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        if let Some(logs) = want.get_mut("logs").and_then(Value::as_array_mut) {
            logs.sort_by_key(|l| l.to_string());
        }
        let got = compile_case(&dir);
        if got != want {
            failures.push(format!(
                "{name}:\n  puppet {}\n  ours   {}",
                serde_json::to_string(&want).unwrap(),
                serde_json::to_string(&got).unwrap()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
