//! What the puppet-syntax tests share: the Puppet sources of the conformance cases
//! (`../shared/conformance/*.jsonl`), when that directory is present.

use std::path::{Path, PathBuf};

/// The conformance directory, if this checkout has one.
pub fn conformance_dir() -> Option<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    [
        workspace.join("../shared/conformance"),
        PathBuf::from("/work/shared/conformance"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// Every `source` and `manifest` of the cases of `files` (names without `.jsonl`), each with
/// where it comes from (`parse.jsonl:12`). `None` without a conformance directory; a file
/// that is missing is skipped.
pub fn conformance_sources(files: &[&str]) -> Option<Vec<(String, String)>> {
    let dir = conformance_dir()?;
    let mut out = Vec::new();
    for name in files {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            let Ok(case) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            for field in ["source", "manifest"] {
                if let Some(source) = case.get(field).and_then(|s| s.as_str()) {
                    out.push((format!("{name}.jsonl:{}", i + 1), source.to_string()));
                }
            }
        }
    }
    Some(out)
}
