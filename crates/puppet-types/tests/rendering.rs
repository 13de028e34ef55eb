//! `%p` rendering and the generalized detailed type of values, checked against the eval and function
//! cases of the shared conformance corpus whose source is a literal the test reader can build
//! (observed on Puppet 7.23). Runs only when the shared corpus is present.

mod support;

use puppet_types::{generalize, infer_set};
use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        std::env::var("PUPPET_CONFORMANCE_DIR")
            .map(PathBuf::from)
            .unwrap_or_default(),
        manifest.join("../../../shared/conformance"),
        PathBuf::from("/work/shared/conformance"),
    ]
    .into_iter()
    .find(|p| p.join("eval.jsonl").is_file())
}

#[test]
fn literal_values_render_like_puppet() {
    let Some(dir) = corpus_dir() else {
        println!("note: shared conformance corpus not found; rendering check skipped");
        return;
    };
    let (mut pass, mut fail) = (0, 0);
    for file in ["eval.jsonl", "functions.jsonl"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        for line in text.lines() {
            let Ok(r) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let (Some(src), Some(expected)) = (r["source"].as_str(), r["expected"].as_str()) else {
                continue;
            };
            if r.get("settings").is_some() {
                continue;
            }
            let Ok(v) = support::parse_value(src.trim(), support::Mode::Evaluator) else {
                continue;
            };
            let rendered = v.to_string();
            let ty = generalize(&infer_set(&v)).to_string();
            let want_ty = r["type"].as_str().unwrap_or("");
            if rendered == expected && (want_ty.is_empty() || ty == want_ty) {
                pass += 1;
            } else {
                fail += 1;
                println!("FAIL {src:?}: {rendered:?} / {ty:?}, want {expected:?} / {want_ty:?}");
            }
        }
    }
    println!("literal rendering: {pass} passed, {fail} failed");
    assert!(
        fail * 20 <= pass + fail,
        "too many rendering failures: {fail}"
    );
}
