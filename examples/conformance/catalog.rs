//! The catalog suites of the `conformance` example: `catalog.jsonl`, and the resources of
//! the `functions.jsonl` cases that declare some.
//!
//! Each manifest is compiled for the case's node (with the case's module path, relative to
//! the conformance directory) and the catalog is summarised as the corpus README says:
//! resources in catalog order as `{ref, params, tags, exported}` without `Stage[main]`,
//! `Class[main]` and `Class[Settings]`; classes without `settings`; containment edges and
//! relationship metaparameters as `A -> B` / `A ~> B` strings (compared as sets, since their
//! order is Puppet's graph's); logs at notice level and above. An error case passes when the
//! compile fails with a message containing `error_contains`.

use crate::common::{read_jsonl, str_field, Tally};
use puppet_lang::eval::{compile, Compiled, Environment, Settings};
use puppet_lang::functions::LogLevel;
use serde_json::{json, Value as Json};
use std::path::Path;
use std::sync::Arc;

/// Compiles a case's manifest on a thread with a big stack, catching panics.
fn compile_case(dir: &Path, case: &Json) -> Result<(Compiled, Vec<String>), String> {
    let manifest = case
        .get("manifest")
        .or_else(|| case.get("source"))
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_string();
    let mut settings = Settings::default();
    if let Some(n) = case.get("node").and_then(Json::as_str) {
        settings.node_name = n.to_string();
    }
    if case
        .pointer("/settings/strict_variables")
        .and_then(Json::as_bool)
        == Some(true)
    {
        settings.strict_variables = true;
    }
    if let Some(facts) = case.get("facts").and_then(Json::as_object) {
        for (k, v) in facts {
            settings
                .facts
                .insert(k.as_str().into(), puppet_lang::eval::from_data(v));
        }
    }
    let modulepath: Vec<std::path::PathBuf> = case
        .get("modulepath")
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Json::as_str)
                .map(|p| dir.join(p))
                .collect()
        })
        .unwrap_or_default();
    let run = move || {
        let env = if modulepath.is_empty() {
            Arc::new(Environment::from_main(None, &manifest))
        } else {
            match puppet_lang::eval::Session::new()
                .modulepath(modulepath)
                .code(manifest)
                .load()
            {
                Ok(env) => env,
                Err(d) => panic!("{d:?}"),
            }
        };
        let out = compile(env, &settings);
        let logs = out
            .logs
            .iter()
            .filter(|l| !matches!(l.level, LogLevel::Debug | LogLevel::Info))
            .map(|l| l.render())
            .collect::<Vec<_>>();
        (out, logs)
    };
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run)
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "compiler panicked".to_string())
}

/// The catalog as the corpus recorded it: without exported resources nothing collected.
fn agent_view(cat: &mut puppet_lang::graph::Catalog, unrealized: &[String]) {
    let gone = |r: &str| unrealized.iter().any(|u| u == r);
    cat.resources
        .retain(|r| !gone(&format!("{}[{}]", r.type_name, r.title)));
    cat.edges.retain(|e| !gone(&e.target));
}

/// The README's summary of a catalog.
fn summarise(cat: &puppet_lang::graph::Catalog) -> Json {
    let skip = ["Stage[main]", "Class[main]", "Class[Settings]"];
    let mut resources = Vec::new();
    let mut relationships = Vec::new();
    for r in &cat.resources {
        let rf = format!("{}[{}]", r.type_name, r.title);
        for (param, arrow, outgoing) in [
            ("before", "->", true),
            ("require", "->", false),
            ("notify", "~>", true),
            ("subscribe", "~>", false),
        ] {
            let targets: Vec<String> = match r.parameters.get(param) {
                Some(Json::String(s)) => vec![s.clone()],
                Some(Json::Array(a)) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => vec![],
            };
            for t in targets {
                relationships.push(if outgoing {
                    format!("{rf} {arrow} {t}")
                } else {
                    format!("{t} {arrow} {rf}")
                });
            }
        }
        if skip.contains(&rf.as_str()) {
            continue;
        }
        let mut tags = r.tags.clone();
        tags.sort();
        let mut o = serde_json::Map::new();
        o.insert("ref".into(), json!(rf));
        if !r.parameters.is_empty() {
            o.insert("params".into(), json!(r.parameters));
        }
        if r.exported {
            o.insert("exported".into(), json!(true));
        }
        o.insert("tags".into(), json!(tags));
        resources.push(Json::Object(o));
    }
    let classes: Vec<&String> = cat.classes.iter().filter(|c| *c != "settings").collect();
    let mut edges: Vec<String> = cat
        .edges
        .iter()
        .filter(|e| e.target != "Class[Settings]")
        .map(|e| format!("{} -> {}", e.source, e.target))
        .collect();
    edges.sort();
    relationships.sort();
    json!({"resources": resources, "classes": classes, "edges": edges, "relationships": relationships})
}

fn sorted(v: Option<&Json>) -> Vec<String> {
    let mut out: Vec<String> = v
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Compares our summary with the expectation; the first difference.
fn compare(got: &Json, want: &Json) -> Result<(), String> {
    let gr = got["resources"].as_array().cloned().unwrap_or_default();
    let wr = want["resources"].as_array().cloned().unwrap_or_default();
    let refs = |v: &[Json]| -> Vec<String> {
        v.iter()
            .map(|r| r["ref"].as_str().unwrap_or("").to_string())
            .collect()
    };
    if refs(&gr) != refs(&wr) {
        return Err(format!("resources {:?}, want {:?}", refs(&gr), refs(&wr)));
    }
    for (g, w) in gr.iter().zip(wr.iter()) {
        for field in ["params", "tags", "exported"] {
            if g.get(field) != w.get(field) {
                return Err(format!(
                    "{} {field} {}, want {}",
                    w["ref"].as_str().unwrap_or(""),
                    g.get(field).unwrap_or(&Json::Null),
                    w.get(field).unwrap_or(&Json::Null)
                ));
            }
        }
    }
    for field in ["classes", "edges", "relationships"] {
        let (g, w) = (sorted(got.get(field)), sorted(want.get(field)));
        if g != w {
            return Err(format!("{field} {g:?}, want {w:?}"));
        }
    }
    Ok(())
}

fn expected_logs(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn check_catalog_case(dir: &Path, case: &Json) -> Result<(), String> {
    let (out, logs) = compile_case(dir, case)?;
    if let Some(want) = case.get("error_contains").and_then(Json::as_str) {
        let node = case
            .get("node")
            .and_then(Json::as_str)
            .unwrap_or("testnode");
        return match out.catalog {
            Err(e) if e.message.contains(want) => Ok(()),
            Err(e) if format!("{} on node {node}", e.located()).contains(want) => Ok(()),
            Err(e) => Err(format!("error {:?}, want {want:?}", e.message)),
            Ok(_) => Err(format!("compiled, want error {want:?}")),
        };
    }
    let mut cat = out.catalog.map_err(|e| format!("error {:?}", e.message))?;
    agent_view(&mut cat, &out.unrealized_exports);
    let want = &case["expect"];
    compare(&summarise(&cat), want)?;
    let want_logs = expected_logs(want.get("logs"));
    if logs != want_logs {
        return Err(format!("logs {logs:?}, want {want_logs:?}"));
    }
    Ok(())
}

pub fn run_catalog(dir: &Path, verbose: bool) -> (usize, usize) {
    let mut t = Tally::new(verbose);
    for case in read_jsonl(dir, "catalog.jsonl") {
        match check_catalog_case(dir, &case) {
            Ok(()) => t.pass(),
            Err(reason) => t.fail(str_field(&case, "id"), || reason),
        }
    }
    t.result()
}

/// The resources of a `functions.jsonl` case (`{ref, params}` in catalog order) against
/// what our catalog has.
pub fn check_function_resources(case: &Json) -> Result<(), String> {
    let (out, _) = compile_case(Path::new("."), case)?;
    let mut cat = out.catalog.map_err(|e| format!("error {:?}", e.message))?;
    agent_view(&mut cat, &out.unrealized_exports);
    let got = summarise(&cat);
    let gr = got["resources"].as_array().cloned().unwrap_or_default();
    let wr = case["resources"].as_array().cloned().unwrap_or_default();
    let strip = |v: &[Json]| -> Vec<Json> {
        v.iter()
            .map(|r| json!({"ref": r["ref"], "params": r.get("params").cloned().unwrap_or(json!(null))}))
            .collect()
    };
    if strip(&gr) != strip(&wr) {
        return Err(format!(
            "resources {}, want {}",
            Json::Array(strip(&gr)),
            Json::Array(strip(&wr))
        ));
    }
    Ok(())
}
