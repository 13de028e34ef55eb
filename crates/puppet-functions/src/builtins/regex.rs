//! Regexp matching with positions, for `match`, `regsubst`, `split` and `index`.
//!
//! `puppet_types::Regexp` only answers "does it match" and "first captures"; these built-ins
//! need match positions and every match, so they take the compiled matcher from
//! `puppet_types::regexp::compile_ruby` (the one Ruby-to-Rust translation and cache).
//! Differences from Ruby: no `\g<name>` calls, no Onigmo encodings, and a match that exceeds
//! the backtracking limit counts as no match.

use crate::error::{codes, CallError};
use fancy_regex::Regex;

/// Compiles Ruby regexp source text (puppet-types' translation and cache, the one of the
/// workspace).
pub(crate) fn compile(source: &str) -> Result<std::sync::Arc<Regex>, CallError> {
    compile_flags(source, "")
}

fn compile_flags(source: &str, flags: &str) -> Result<std::sync::Arc<Regex>, CallError> {
    puppet_types::regexp::compile_ruby(source, flags).map_err(|e| {
        CallError::new(
            codes::BAD_ARGUMENT,
            format!("Invalid regular expression /{source}/: {e}"),
        )
    })
}

/// Compiles with Ruby's options: `i` (ignore case), `x` (extended), `m` (multiline dot).
pub(crate) fn compile_with(source: &str, flags: &str) -> Result<std::sync::Arc<Regex>, CallError> {
    let mut ruby = String::new();
    for (f, r) in [('I', 'i'), ('E', 'x'), ('M', 'm')] {
        if flags.contains(f) {
            ruby.push(r);
        }
    }
    compile_flags(source, &ruby)
}

/// Every non-overlapping match as (start, end, captures).
pub(crate) fn all_matches(re: &Regex, text: &str) -> Vec<(usize, usize, Vec<Option<String>>)> {
    let mut out = Vec::new();
    for caps in re.captures_iter(text) {
        let Ok(caps) = caps else { break };
        let Some(m) = caps.get(0) else { continue };
        let groups = (0..caps.len())
            .map(|i| caps.get(i).map(|g| g.as_str().to_string()))
            .collect();
        out.push((m.start(), m.end(), groups));
        if out.len() > super::MAX_ELEMENTS {
            break;
        }
    }
    out
}
