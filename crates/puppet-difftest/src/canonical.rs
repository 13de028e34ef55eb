//! The canonical form of a compile, ours and Puppet's, for comparison as text.
//!
//! Puppet's side is a line of `compile-catalog --batch` output (its canonical JSON, or
//! `{"ok": false, "error": ...}`); ours is a compile with `puppet_eval::compile` of the same
//! code (as `-e` code: no file name) for the same node, with the facts and trusted data the
//! oracle gives (a [`Session`] with the code and no files). Both are reduced to one JSON text: `{"ok": true, "classes": [...],
//! "resources": [...], "edges": [...]}` with resources sorted by `[type, title]`, each
//! `{"type", "title", "tags" (sorted), "exported", "parameters" (names sorted, values as
//! they are: nested hashes keep their order)}` plus `sensitive_parameters` when present, and
//! edges sorted; or `{"ok": false, "error": MESSAGE}` with Puppet's whole message
//! (` on node NAME` included). Logs are not part of it.

use indexmap::IndexMap;
use puppet_eval::{Session, Settings};
use puppet_loader::MemoryProvider;
use serde_json::{json, Map, Value};

/// The node every program is compiled for (the oracle's default).
pub const NODE: &str = "node.example.com";

/// Our compile of `code` in canonical form (see the module docs).
pub fn compile_canonical(code: &str) -> Value {
    let env = match Session::new()
        .files(MemoryProvider::new())
        .code(code)
        .load()
    {
        Ok(env) => env,
        Err(diagnostics) => {
            let message = diagnostics
                .first()
                .map(|d| d.message.clone())
                .unwrap_or_default();
            return json!({"ok": false, "error": format!("{message} on node {NODE}")});
        }
    };
    let out = env.compile(&Settings::agent(NODE, IndexMap::new()));
    match out.catalog {
        Ok(cat) => {
            let resources = cat
                .resources
                .iter()
                .map(|r| {
                    let mut o = Map::new();
                    o.insert("type".into(), json!(r.type_name));
                    o.insert("title".into(), json!(r.title));
                    o.insert("tags".into(), json!(r.tags));
                    o.insert("exported".into(), json!(r.exported));
                    o.insert(
                        "parameters".into(),
                        Value::Object(
                            r.parameters
                                .iter()
                                .map(|(k, v)| (k.to_string(), v.clone()))
                                .collect(),
                        ),
                    );
                    if let Some(s) = r.extra.get("sensitive_parameters") {
                        o.insert("sensitive_parameters".into(), s.clone());
                    }
                    Value::Object(o)
                })
                .collect();
            let edges = cat
                .edges
                .iter()
                .map(|e| json!({"source": e.source, "target": e.target}))
                .collect();
            normalize(json!({
                "ok": true,
                "classes": cat.classes,
                "resources": Value::Array(resources),
                "edges": Value::Array(edges),
            }))
        }
        Err(e) => json!({"ok": false, "error": format!("{} on node {NODE}", e.puppet_message())}),
    }
}

/// Puppet's answer (a `compile-catalog --batch` line, parsed) in canonical form.
///
/// ```
/// let line = serde_json::json!({"ok": false, "error":
///     "Parameter 'tag' is already set on Notify[n] by #<Puppet::Resource::Type:0x00007f7b1e737f08> at (line: 1); cannot redefine (line: 2) on node node.example.com"});
/// assert_eq!(
///     puppet_difftest::canonical_puppet(&line)["error"],
///     "Parameter 'tag' is already set on Notify[n] by #<Puppet::Resource::Type> at (line: 1); cannot redefine (line: 2) on node node.example.com"
/// );
/// ```
pub fn canonical_puppet(line: &Value) -> Value {
    if line.get("ok") != Some(&Value::Bool(true)) {
        let error = line.get("error").and_then(Value::as_str).unwrap_or("");
        return json!({"ok": false, "error": without_addresses(error)});
    }
    normalize(json!({
        "ok": true,
        "classes": line.get("classes").cloned().unwrap_or(json!([])),
        "resources": line.get("resources").cloned().unwrap_or(json!([])),
        "edges": line.get("edges").cloned().unwrap_or(json!([])),
    }))
}

/// Puppet's message without the Ruby object addresses some carry
/// (`#<Puppet::Resource::Type:0x00007f...>` is `#<Puppet::Resource::Type>`), which differ
/// from run to run.
fn without_addresses(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(":0x") {
        let (head, tail) = rest.split_at(i);
        let hex = tail[3..].bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex > 0 && tail[3 + hex..].starts_with('>') && head.contains("#<") {
            out.push_str(head);
            rest = &tail[3 + hex..];
        } else {
            out.push_str(head);
            out.push_str(&tail[..3]);
            rest = &tail[3..];
        }
    }
    out.push_str(rest);
    out
}

/// Sorts what the canonical form sorts; nested values are left as they are.
fn normalize(v: Value) -> Value {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut classes = strings(v.get("classes"));
    classes.sort();
    let mut resources: Vec<Value> = v
        .get("resources")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let mut tags = strings(r.get("tags"));
            tags.sort();
            let mut params: Vec<(String, Value)> = r
                .get("parameters")
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            params.sort_by(|a, b| a.0.cmp(&b.0));
            let mut o = Map::new();
            o.insert("type".into(), r.get("type").cloned().unwrap_or(Value::Null));
            o.insert(
                "title".into(),
                r.get("title").cloned().unwrap_or(Value::Null),
            );
            o.insert("tags".into(), json!(tags));
            o.insert(
                "exported".into(),
                r.get("exported").cloned().unwrap_or(json!(false)),
            );
            o.insert(
                "parameters".into(),
                Value::Object(params.into_iter().collect()),
            );
            if let Some(s) = r.get("sensitive_parameters") {
                let mut s = strings(Some(s));
                s.sort();
                o.insert("sensitive_parameters".into(), json!(s));
            }
            Value::Object(o)
        })
        .collect();
    let key = |r: &Value| {
        (
            r["type"].as_str().unwrap_or("").to_string(),
            r["title"].as_str().unwrap_or("").to_string(),
        )
    };
    resources.sort_by_key(key);
    let mut edges: Vec<(String, String)> = v
        .get("edges")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["source"].as_str().unwrap_or("").to_string(),
                        e["target"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    edges.sort();
    let edges: Vec<Value> = edges
        .into_iter()
        .map(|(s, t)| json!({"source": s, "target": t}))
        .collect();
    json!({"ok": true, "classes": classes, "resources": resources, "edges": edges})
}

/// How two canonical answers differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// What differs first: `outcome` (one failed, the other did not), `error`, `classes`,
    /// `resources` (the set of references), `resource` (one resource's content), `edges`.
    pub aspect: &'static str,
    /// A short human account: the resource and both sides.
    pub detail: String,
}

/// `None` when `ours` equals `puppet` (as text), else the first difference.
pub fn compare(ours: &Value, puppet: &Value) -> Option<Difference> {
    if text(ours) == text(puppet) {
        return None;
    }
    let diff = |aspect, detail| Some(Difference { aspect, detail });
    let (ok_ours, ok_puppet) = (ours["ok"] == json!(true), puppet["ok"] == json!(true));
    if ok_ours != ok_puppet {
        let side = |v: &Value| {
            if v["ok"] == json!(true) {
                "a catalog".to_string()
            } else {
                format!("error {}", v["error"])
            }
        };
        return diff(
            "outcome",
            format!("puppet: {}; ours: {}", side(puppet), side(ours)),
        );
    }
    if !ok_ours {
        return diff(
            "error",
            format!("puppet: {}\nours:   {}", puppet["error"], ours["error"]),
        );
    }
    if ours["classes"] != puppet["classes"] {
        return diff(
            "classes",
            format!("puppet: {}; ours: {}", puppet["classes"], ours["classes"]),
        );
    }
    let refs = |v: &Value| -> Vec<String> {
        v["resources"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        format!(
                            "{}[{}]",
                            r["type"].as_str().unwrap_or(""),
                            r["title"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (ro, rp) = (refs(ours), refs(puppet));
    if ro != rp {
        let missing: Vec<&String> = rp.iter().filter(|r| !ro.contains(r)).collect();
        let extra: Vec<&String> = ro.iter().filter(|r| !rp.contains(r)).collect();
        return diff("resources", format!("missing {missing:?}; extra {extra:?}"));
    }
    let (ao, ap) = (
        ours["resources"].as_array().cloned().unwrap_or_default(),
        puppet["resources"].as_array().cloned().unwrap_or_default(),
    );
    for ((o, p), name) in ao.iter().zip(&ap).zip(&rp) {
        if text(o) != text(p) {
            let mut detail = format!("{name}:");
            for key in ["tags", "exported", "parameters", "sensitive_parameters"] {
                if o.get(key).map(Value::to_string) != p.get(key).map(Value::to_string) {
                    if key == "parameters" {
                        let (po, pp) = (&o[key], &p[key]);
                        let mut names: Vec<&String> = po
                            .as_object()
                            .into_iter()
                            .flat_map(|m| m.keys())
                            .chain(pp.as_object().into_iter().flat_map(|m| m.keys()))
                            .collect();
                        names.sort();
                        names.dedup();
                        for n in names {
                            if po.get(n).map(Value::to_string) != pp.get(n).map(Value::to_string) {
                                detail.push_str(&format!(
                                    " {n}: puppet {} ours {};",
                                    pp.get(n)
                                        .map(Value::to_string)
                                        .unwrap_or_else(|| "-".into()),
                                    po.get(n)
                                        .map(Value::to_string)
                                        .unwrap_or_else(|| "-".into())
                                ));
                            }
                        }
                    } else {
                        detail.push_str(&format!(
                            " {key}: puppet {} ours {};",
                            p.get(key).map(Value::to_string).unwrap_or_default(),
                            o.get(key).map(Value::to_string).unwrap_or_default()
                        ));
                    }
                }
            }
            return diff("resource", detail);
        }
    }
    diff(
        "edges",
        format!("puppet: {}\nours:   {}", puppet["edges"], ours["edges"]),
    )
}

/// A value's JSON text: equality of texts is equality with the order of hash keys (which
/// `Value`'s own equality ignores).
fn text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
