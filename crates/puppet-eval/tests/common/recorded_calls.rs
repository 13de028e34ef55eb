//! What a compile of one recorded function call answered, next to what Puppet answered, for
//! the tests that replay Puppet-recorded calls (`ruby_functions.rs`, `module_functions.rs`):
//! the last notice or the error (without Puppet's evaluation prefixes and location suffix),
//! and the warnings (without their `(location: ...)` line). Texts that quote a Ruby object
//! (`#<Puppet::Pops::Types::PIntegerType:0x00007f1f582215e0 @from=...>`, from Ruby's
//! NoMethodError or `inspect`) are compared without the object's address, on both sides:
//! Ruby's addresses differ from run to run and ours are made up
//! (`#<Puppet::Pops::Types::PIntegerType @from=...>`).

use puppet_eval::Compiled;
use puppet_functions::LogLevel;

/// An answer: the printed value or the error text, and the warnings.
pub type Answer = (Result<String, String>, Vec<String>);

/// The text without the addresses of the Ruby objects it quotes: `:0x` and hex digits
/// right after a class name that follows `#<`.
pub fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(":0x") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let hex = tail[3..].bytes().take_while(u8::is_ascii_hexdigit).count();
        let class_start = head.rfind("#<").map(|j| &head[j + 2..]);
        let after_class = class_start.is_some_and(|c| {
            !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == ':')
        });
        if hex > 0 && after_class {
            rest = &tail[3 + hex..];
        } else {
            out.push_str(&tail[..3]);
            rest = &tail[3..];
        }
    }
    out.push_str(rest);
    out
}

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
            .map(|l| without_addresses(&l.message))
            .next_back()
            .unwrap_or_default()),
        Err(e) => Err(without_addresses(&clean(&e.message))),
    };
    let warnings = out
        .logs
        .iter()
        .filter(|l| l.level == LogLevel::Warning)
        .map(|l| without_addresses(l.message.split("\n   (location:").next().unwrap_or("")))
        .collect();
    (got, warnings)
}

/// What Puppet answered, from a fixture case (`ok`, `output` or `error`, `warnings`).
pub fn recorded(case: &serde_json::Value) -> Answer {
    let text = |key: &str| without_addresses(case[key].as_str().unwrap_or_default());
    let expected = if case["ok"].as_bool() == Some(true) {
        Ok(text("output"))
    } else {
        Err(text("error"))
    };
    let warnings = case["warnings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|w| w.as_str().map(without_addresses))
                .collect()
        })
        .unwrap_or_default();
    (expected, warnings)
}
