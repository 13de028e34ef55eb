//! Compares puppet-ruby with Ruby 3.1 on the snippets of `fixtures/cases.txt`: the
//! expected answers (`fixtures/expected.json`) were made by the real Ruby with
//! `fixtures/gen.rb` — Ruby's `inspect` of each snippet's last value, or the class and
//! message of the exception it raised. Every case must agree; the failures are listed with
//! the snippet. Set `RUBY_FIXTURE_ONLY=name` to run one case. `fixtures/library_cases.txt`
//! (`gen.rb library`) holds the standard library's cases: Time, Date, Rational, pack and
//! unpack, Zlib, generator enumerators, `format`'s positional arguments and `%g`.

use puppet_ruby::{eval_inspect, RubyError};

#[test]
fn snippets_agree_with_ruby() {
    agree(include_str!("fixtures/expected.json"));
}

#[test]
fn library_snippets_agree_with_ruby() {
    agree(include_str!("fixtures/library_expected.json"));
}

fn agree(text: &str) {
    let doc: serde_json::Value = serde_json::from_str(text).expect("expected.json parses");
    let cases = doc["cases"].as_array().expect("cases");
    let only = std::env::var("RUBY_FIXTURE_ONLY").ok();
    let mut failures = Vec::new();
    let mut total = 0;
    for c in cases {
        let name = c["name"].as_str().unwrap_or("?");
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        total += 1;
        let code = c["code"].as_str().unwrap_or("");
        let got = eval_inspect(code);
        let ok = match (&got, c.get("value"), c.get("error")) {
            (Ok(v), Some(want), _) => want.as_str() == Some(v.as_str()),
            (Err(RubyError::Runtime { class, message, .. }), _, Some(err)) => {
                err["class"].as_str() == Some(class.as_str())
                    && err["message"].as_str() == Some(message.as_str())
            }
            _ => false,
        };
        if !ok {
            let want = match c.get("value") {
                Some(v) => v.as_str().unwrap_or("").to_string(),
                None => format!(
                    "{}: {}",
                    c["error"]["class"].as_str().unwrap_or(""),
                    c["error"]["message"].as_str().unwrap_or("")
                ),
            };
            let got = match got {
                Ok(v) => v,
                Err(e) => format!("error {e}"),
            };
            failures.push(format!(
                "=== {name}\n{code}--- ruby: {want}\n--- ours: {got}\n"
            ));
        }
    }
    assert!(total > 0, "no case ran");
    assert!(
        failures.is_empty(),
        "{} of {total} snippets differ from Ruby 3.1:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
