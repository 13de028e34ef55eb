//! Shared helpers of the `conformance` example: reading a JSON Lines file of the corpus and
//! tallying results. Not a test framework: just enough to count and explain failures.

use serde_json::Value;
use std::path::Path;

/// The records of `dir/name`, one JSON value per non-empty line. A missing or unreadable
/// file gives no records (and a message on stderr); a bad line is skipped with a message.
pub fn read_jsonl(dir: &Path, name: &str) -> Vec<Value> {
    let path = dir.join(name);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", path.display());
            return Vec::new();
        }
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .filter_map(|(i, l)| match serde_json::from_str(l) {
            Ok(v) => Some(v),
            Err(e) => {
                eprintln!("{}:{}: {e}", path.display(), i + 1);
                None
            }
        })
        .collect()
}

/// A record's string field, or "".
pub fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Counts passes and failures; prints failures under `--verbose`.
#[derive(Debug)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    verbose: bool,
}

impl Tally {
    pub fn new(verbose: bool) -> Self {
        Tally {
            passed: 0,
            failed: 0,
            verbose,
        }
    }

    pub fn pass(&mut self) {
        self.passed += 1;
    }

    /// Records a failure of case `id`; `reason` is only computed when it is printed.
    pub fn fail(&mut self, id: &str, reason: impl FnOnce() -> String) {
        self.failed += 1;
        if self.verbose {
            println!("  FAIL {id}: {}", reason());
        }
    }

    pub fn result(&self) -> (usize, usize) {
        (self.passed, self.failed)
    }
}

/// The first line where two texts differ, shortened, for failure reasons.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let n = e.len().max(a.len());
    for i in 0..n {
        let (x, y) = (
            e.get(i).copied().unwrap_or(""),
            a.get(i).copied().unwrap_or(""),
        );
        if x != y {
            return format!(
                "line {}: expected {:?}, got {:?}",
                i + 1,
                shorten(x),
                shorten(y)
            );
        }
    }
    "texts differ in line endings".to_string()
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 100 {
        let t: String = s.chars().take(100).collect();
        format!("{t}...")
    } else {
        s.to_string()
    }
}
