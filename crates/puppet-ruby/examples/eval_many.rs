//! Runs every case of a `### name`-separated cases file (the format of
//! `tests/fixtures/cases.txt`) with puppet-ruby in one process and prints one JSON object a
//! line: `{"name", "value"}` (inspect of the last value), `{"name", "error": {"class",
//! "message"}}` (a Ruby exception), `{"name", "unsupported"}` / `{"name", "syntax"}` (what
//! the engine refused) or `{"name", "panic"}`. A development aid for differential testing
//! against the real Ruby (`scripts/ruby-diff.py`):
//! `cargo run --release -p puppet-ruby --example eval_many -- cases.txt`.
use puppet_ruby::{eval_inspect, RubyError};
use serde_json::json;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    std::panic::set_hook(Box::new(|_| {}));
    for chunk in split_cases(&text) {
        let (name, code) = chunk;
        let got = std::panic::catch_unwind(|| eval_inspect(&code));
        let line = match got {
            Ok(Ok(v)) => json!({"name": name, "value": v}),
            Ok(Err(RubyError::Runtime { class, message, .. })) => {
                json!({"name": name, "error": {"class": class, "message": message}})
            }
            Ok(Err(e @ RubyError::Unsupported { .. })) => {
                json!({"name": name, "unsupported": e.to_string()})
            }
            Ok(Err(e)) => json!({"name": name, "syntax": e.to_string()}),
            Err(_) => json!({"name": name, "panic": true}),
        };
        println!("{line}");
    }
}

/// The cases of a file: `### name` lines start each one, as `gen.rb` splits them.
fn split_cases(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for part in text.split("\n### ").enumerate().map(|(i, p)| {
        if i == 0 {
            p.strip_prefix("### ").unwrap_or(p)
        } else {
            p
        }
    }) {
        if part.trim().is_empty() {
            continue;
        }
        let (name, code) = part.split_once('\n').unwrap_or((part, ""));
        let mut code = code.to_string();
        if !code.ends_with('\n') {
            code.push('\n');
        }
        out.push((name.trim().to_string(), code));
    }
    out
}
