//! Catalog compilation regression cases whose expectations come from real Puppet 7.23.
//!
//! `tests/fixtures/catalog_cases.jsonl` holds ~90 small manifests (include/require/contain,
//! inheritance, class parameters, defined types, resource defaults, virtual resources and
//! collectors, relationships, tags, stages, node definitions, error cases), each with the
//! summary of the catalog Puppet compiled for it, or Puppet's error message. This test
//! compiles every manifest with `puppet_eval::compile` for the case's node and compares
//! the same summary:
//!   * resources in catalog order, without `Stage[main]`, `Class[main]` and
//!     `Class[Settings]`: reference, sorted tags, parameters, exported flag;
//!   * classes (sorted, without `settings`);
//!   * containment edges as sorted `"Source -> Target"` strings (without
//!     `Stage[main] -> Class[Settings]`);
//!   * notice/warning logs in order (level, message, `Scope(...)` source);
//!   * for error cases: our `EvalError.message` must contain Puppet's message with the
//!     leading `Evaluation Error: ` and the trailing `(line: N, column: M)` / `on node NAME`
//!     removed, and `EvalError::puppet_message` must be Puppet's verbatim text (the
//!     fixture's `error_full`) without ` on node NAME`, but for the cases of
//!     [`INEXACT_ERRORS`].
//!
//! All cases run; the test then lists every failing case id with a short reason and
//! fails. `CATALOG_CASE=id1,id2` runs only those cases; `CATALOG_VERBOSE=1` prints the
//! full expected and actual summaries of failing cases.
//!
//! Regenerate the fixture (needs Puppet 7.23 and the oracle's `compile-catalog`; see the
//! script's header): `scripts/gen-catalog-cases.py`.

use puppet_eval::{compile, Environment, Settings};

/// Error cases whose full text (location included) still differs from Puppet's.
const INEXACT_ERRORS: &[&str] = &[];
use serde_json::{json, Map, Value};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

const FIXTURE: &str = include_str!("fixtures/catalog_cases.jsonl");
const DROPPED_REFS: &[&str] = &["Stage[main]", "Class[main]", "Class[Settings]"];
const SETTINGS_EDGE: &str = "Stage[main] -> Class[Settings]";
const TIMEOUT: Duration = Duration::from_secs(30);

/// What one compile produced, reduced to the fixture's summary.
enum Outcome {
    Catalog(Value),
    Error {
        message: String,
        located: String,
        puppet: String,
    },
    Panic(String),
    Timeout,
}

fn sorted_object(m: &puppet_graph::Parameters) -> Value {
    let mut keys: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
    keys.sort();
    let mut out = Map::new();
    for k in keys {
        out.insert(k.to_string(), m[k].clone());
    }
    Value::Object(out)
}

fn summarise(cat: &puppet_graph::Catalog, logs: &[puppet_eval::LogEntry]) -> Value {
    let resources: Vec<Value> = cat
        .resources
        .iter()
        .map(|r| (format!("{}[{}]", r.type_name, r.title), r))
        .filter(|(rf, _)| !DROPPED_REFS.contains(&rf.as_str()))
        .map(|(rf, r)| {
            let mut tags = r.tags.clone();
            tags.sort();
            json!({
                "ref": rf,
                "tags": tags,
                "params": sorted_object(&r.parameters),
                "exported": r.exported,
            })
        })
        .collect();
    let mut classes: Vec<String> = cat
        .classes
        .iter()
        .filter(|c| c.as_str() != "settings")
        .cloned()
        .collect();
    classes.sort();
    let mut edges: Vec<String> = cat
        .edges
        .iter()
        .map(|e| format!("{} -> {}", e.source, e.target))
        .filter(|e| e != SETTINGS_EDGE)
        .collect();
    edges.sort();
    let logs: Vec<Value> = logs
        .iter()
        .filter(|l| matches!(l.level.name(), "notice" | "warning"))
        .map(|l| {
            json!({
                "level": l.level.name(),
                "message": l.message,
                "source": l.scope.as_ref().map(|s| format!("Scope({s})")),
            })
        })
        .collect();
    json!({ "resources": resources, "classes": classes, "edges": edges, "logs": logs })
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".to_string()
    }
}

/// Compiles on a thread with a 64 MiB stack; a hang becomes `Timeout` (the thread is
/// left behind), a panic becomes `Panic`.
fn run(manifest: &str, node: &str, overrides: &[(String, String)]) -> Outcome {
    let manifest = manifest.to_string();
    let node = node.to_string();
    let overrides = overrides.to_vec();
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("compile {node}"))
        .stack_size(64 << 20)
        .spawn(move || {
            let result = std::panic::catch_unwind(|| {
                let env = Arc::new(Environment::from_main(None, &manifest));
                let mut settings = Settings {
                    node_name: node,
                    ..Settings::default()
                };
                for (name, value) in &overrides {
                    settings = match settings.with_setting(name, value) {
                        Ok(s) => s,
                        Err(e) => panic!("the case's setting {name}={value}: {e}"),
                    };
                }
                let out = compile(env, &settings);
                match out.catalog {
                    Ok(cat) => Outcome::Catalog(summarise(&cat, &out.logs)),
                    Err(e) => Outcome::Error {
                        message: e.message.clone(),
                        located: e.located(),
                        puppet: e.puppet_message(),
                    },
                }
            });
            let _ = tx.send(result.unwrap_or_else(|p| Outcome::Panic(panic_text(&*p))));
        });
    if let Err(e) = spawned {
        return Outcome::Panic(format!("could not spawn the compile thread: {e}"));
    }
    match rx.recv_timeout(TIMEOUT) {
        Ok(o) => o,
        Err(mpsc::RecvTimeoutError::Timeout) => Outcome::Timeout,
        Err(mpsc::RecvTimeoutError::Disconnected) => Outcome::Panic("thread died".into()),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    clip(&s, 160)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Short descriptions of how `got` differs from `want` (empty when equal).
fn differences(want: &Value, got: &Value) -> Vec<String> {
    let mut out = Vec::new();

    // Resources: set difference first, then order, then per-resource content.
    let refs = |v: &Value| -> Vec<String> {
        v["resources"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| r["ref"].as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (wr, gr) = (refs(want), refs(got));
    let missing: Vec<&String> = wr.iter().filter(|r| !gr.contains(r)).collect();
    let extra: Vec<&String> = gr.iter().filter(|r| !wr.contains(r)).collect();
    if !missing.is_empty() {
        out.push(format!("missing resources {missing:?}"));
    }
    if !extra.is_empty() {
        out.push(format!("extra resources {extra:?}"));
    }
    let wc: Vec<&String> = wr.iter().filter(|r| gr.contains(r)).collect();
    let gc: Vec<&String> = gr.iter().filter(|r| wr.contains(r)).collect();
    if wc != gc {
        out.push(format!("resource order: want {wc:?}, got {gc:?}"));
    }
    let find = |v: &Value, rf: &str| -> Option<Value> {
        v["resources"]
            .as_array()?
            .iter()
            .find(|r| r["ref"] == rf)
            .cloned()
    };
    for rf in &wr {
        let (Some(w), Some(g)) = (find(want, rf), find(got, rf)) else {
            continue;
        };
        if w["tags"] != g["tags"] {
            let (wt, gt) = (strings(&w["tags"]), strings(&g["tags"]));
            let miss: Vec<&String> = wt.iter().filter(|t| !gt.contains(t)).collect();
            let ext: Vec<&String> = gt.iter().filter(|t| !wt.contains(t)).collect();
            out.push(format!("{rf} tags: missing {miss:?}, extra {ext:?}"));
        }
        if w["exported"] != g["exported"] {
            out.push(format!(
                "{rf} exported: want {}, got {}",
                w["exported"], g["exported"]
            ));
        }
        if w["params"] != g["params"] {
            let empty = Map::new();
            let wp = w["params"].as_object().unwrap_or(&empty);
            let gp = g["params"].as_object().unwrap_or(&empty);
            let mut parts = Vec::new();
            for (k, wv) in wp {
                match gp.get(k) {
                    None => parts.push(format!("missing {k}={}", short(wv))),
                    Some(gv) if gv != wv => {
                        parts.push(format!("{k}: want {}, got {}", short(wv), short(gv)))
                    }
                    _ => {}
                }
            }
            for (k, gv) in gp {
                if !wp.contains_key(k) {
                    parts.push(format!("extra {k}={}", short(gv)));
                }
            }
            out.push(format!("{rf} params: {}", parts.join("; ")));
        }
    }

    if want["classes"] != got["classes"] {
        out.push(format!(
            "classes: want {}, got {}",
            short(&want["classes"]),
            short(&got["classes"])
        ));
    }

    let (we, ge) = (strings(&want["edges"]), strings(&got["edges"]));
    let miss: Vec<&String> = we.iter().filter(|e| !ge.contains(e)).collect();
    let ext: Vec<&String> = ge.iter().filter(|e| !we.contains(e)).collect();
    if !miss.is_empty() || !ext.is_empty() {
        out.push(format!("edges: missing {miss:?}, extra {ext:?}"));
    }

    if want["logs"] != got["logs"] {
        let render = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| {
                    a.iter()
                        .map(|l| {
                            format!(
                                "{}: {}{}",
                                l["level"].as_str().unwrap_or("?"),
                                l["source"]
                                    .as_str()
                                    .map(|s| format!("{s}: "))
                                    .unwrap_or_default(),
                                l["message"].as_str().unwrap_or("?")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        out.push(format!(
            "logs: want {:?}, got {:?}",
            render(&want["logs"]),
            render(&got["logs"])
        ));
    }
    out
}

#[test]
fn catalogs_match_puppet() {
    let only: Option<Vec<String>> = std::env::var("CATALOG_CASE")
        .ok()
        .filter(|s| !s.is_empty())
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let verbose = std::env::var_os("CATALOG_VERBOSE").is_some();

    let cases: Vec<Value> = FIXTURE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("fixture line is JSON"))
        .collect();
    assert!(cases.len() > 50, "fixture has {} cases", cases.len());

    let mut failures: Vec<(String, String)> = Vec::new();
    let mut ran = 0;
    for case in &cases {
        let id = case["id"].as_str().expect("id");
        if let Some(only) = &only {
            if !only.iter().any(|o| o == id) {
                continue;
            }
        }
        ran += 1;
        let node = case["node"].as_str().expect("node");
        let manifest = case["manifest"].as_str().expect("manifest");
        // Puppet settings the case was compiled with (`--setting`).
        let overrides: Vec<(String, String)> = case["settings"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let outcome = run(manifest, node, &overrides);

        let reason: Option<String> = match (case.get("error"), outcome) {
            (_, Outcome::Panic(p)) => Some(format!("panicked: {}", clip(&p, 300))),
            (_, Outcome::Timeout) => Some(format!("no result after {}s", TIMEOUT.as_secs())),
            (Some(want), Outcome::Catalog(_)) => Some(format!(
                "compiled, but Puppet fails with: {}",
                want.as_str().unwrap_or("?")
            )),
            (
                Some(want),
                Outcome::Error {
                    message, puppet, ..
                },
            ) => {
                let want = want.as_str().expect("error is a string");
                let full = case["error_full"].as_str().unwrap_or_default();
                let full = full
                    .strip_suffix(&format!(" on node {node}"))
                    .unwrap_or(full);
                if !message.contains(want) {
                    Some(format!("error message: want `{want}`, got `{message}`"))
                } else if puppet != full && !INEXACT_ERRORS.contains(&id) {
                    Some(format!(
                        "Puppet's full message: want `{full}`, got `{puppet}`"
                    ))
                } else {
                    None
                }
            }
            (None, Outcome::Error { located, .. }) => {
                Some(format!("compile failed: {}", clip(&located, 300)))
            }
            (None, Outcome::Catalog(got)) => {
                let want = &case["expect"];
                let diffs = differences(want, &got);
                if verbose && !diffs.is_empty() {
                    eprintln!(
                        "=== {id}\n--- manifest\n{manifest}--- want\n{}\n--- got\n{}\n",
                        serde_json::to_string_pretty(want).unwrap(),
                        serde_json::to_string_pretty(&got).unwrap()
                    );
                }
                (!diffs.is_empty()).then(|| {
                    let n = diffs.len();
                    let mut shown: Vec<String> =
                        diffs.into_iter().take(4).map(|d| clip(&d, 400)).collect();
                    if n > 4 {
                        shown.push(format!("(+{} more)", n - 4));
                    }
                    shown.join(" | ")
                })
            }
        };
        if let Some(r) = reason {
            failures.push((id.to_string(), r));
        }
    }

    if let Some(only) = &only {
        assert!(ran > 0, "CATALOG_CASE={only:?} matches no case");
    }
    if !failures.is_empty() {
        let mut report = format!(
            "{} of {ran} catalog cases differ from Puppet:\n",
            failures.len()
        );
        for (id, r) in &failures {
            report.push_str(&format!("  {id}: {r}\n"));
        }
        eprintln!("{report}");
        panic!(
            "{} of {ran} catalog cases fail (list above)",
            failures.len()
        );
    }
}
