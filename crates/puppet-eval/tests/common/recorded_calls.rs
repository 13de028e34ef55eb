//! What a compile of one recorded function call answered, next to what Puppet answered, for
//! the tests that replay Puppet-recorded calls (`ruby_functions.rs`, `module_functions.rs`):
//! the last notice or the error (without Puppet's evaluation prefixes and location suffix),
//! and the warnings (without their `(location: ...)` line).

use puppet_eval::Compiled;
use puppet_functions::LogLevel;

/// An answer: the printed value or the error text, and the warnings.
pub type Answer = (Result<String, String>, Vec<String>);

/// Puppet's error text without the evaluation prefixes and the location suffix.
pub fn clean(message: &str) -> String {
    let mut m = message;
    for p in [
        "Evaluation Error: ",
        "Error while evaluating a Function Call, ",
    ] {
        m = m.strip_prefix(p).unwrap_or(m);
    }
    match m.rfind(" (") {
        Some(i) if m.ends_with(')') && m[i..].contains("line: ") => m[..i].to_string(),
        _ => m.to_string(),
    }
}

/// What our compile answered.
pub fn observed(out: &Compiled) -> Answer {
    let got = match &out.catalog {
        Ok(_) => Ok(out
            .logs
            .iter()
            .filter(|l| l.level == LogLevel::Notice)
            .map(|l| l.message.clone())
            .next_back()
            .unwrap_or_default()),
        Err(e) => Err(clean(&e.message)),
    };
    let warnings = out
        .logs
        .iter()
        .filter(|l| l.level == LogLevel::Warning)
        .map(|l| {
            l.message
                .split("\n   (location:")
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    (got, warnings)
}

/// What Puppet answered, from a fixture case (`ok`, `output` or `error`, `warnings`).
pub fn recorded(case: &serde_json::Value) -> Answer {
    let expected = if case["ok"].as_bool() == Some(true) {
        Ok(case["output"].as_str().unwrap_or_default().to_string())
    } else {
        Err(case["error"].as_str().unwrap_or_default().to_string())
    };
    let warnings = case["warnings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|w| w.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    (expected, warnings)
}
