//! Regexp matching with positions, for `match`, `regsubst`, `split` and `index`.
//!
//! `puppet_types::Regexp` only answers "does it match" and "first captures"; these built-ins
//! need match positions and every match, so the Regexp's source is compiled here again with
//! `fancy-regex`, after the same kind of Ruby-to-Rust rewrite (`^`/`$` match at line ends as in
//! Ruby, `\Z`, `\h`). Differences from Ruby: no `\g<name>` calls, no Onigmo encodings, and a
//! match that exceeds the backtracking limit counts as no match.

use crate::error::{codes, CallError};
use fancy_regex::Regex;

/// Compiled regexps by source, shared by every caller in the process (compiling is pure and
/// costly: the same few patterns come back in every define instance of a compile).
fn cache() -> &'static std::sync::Mutex<std::collections::HashMap<String, Regex>> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, Regex>>> =
        std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Compiles Ruby regexp source text (cached).
pub(crate) fn compile(source: &str) -> Result<Regex, CallError> {
    if let Some(r) = cache().lock().ok().and_then(|c| c.get(source).cloned()) {
        return Ok(r);
    }
    let r = compile_uncached(source)?;
    if let Ok(mut c) = cache().lock() {
        if c.len() >= 4096 {
            c.clear();
        }
        c.insert(source.to_string(), r.clone());
    }
    Ok(r)
}

fn compile_uncached(source: &str) -> Result<Regex, CallError> {
    let mut out = String::from("(?m)");
    let chars: Vec<char> = source.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            match chars[i + 1] {
                'Z' if !in_class => out.push_str("(?=\\n?\\z)"),
                'h' if in_class => out.push_str("0-9a-fA-F"),
                'h' => out.push_str("[0-9a-fA-F]"),
                'H' if !in_class => out.push_str("[^0-9a-fA-F]"),
                '/' => out.push('/'),
                n => {
                    out.push('\\');
                    out.push(n);
                }
            }
            i += 2;
            continue;
        }
        match c {
            '[' => in_class = true,
            ']' => in_class = false,
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    fancy_regex::RegexBuilder::new(&out)
        .backtrack_limit(1_000_000)
        .delegate_dfa_size_limit(0) // no full DFA: see puppet_types::Regexp
        .build()
        .map_err(|e| {
            CallError::new(
                codes::BAD_ARGUMENT,
                format!("Invalid regular expression /{source}/: {e}"),
            )
        })
}

/// Compiles with Ruby's options: `i` (ignore case), `x` (extended), `m` (multiline dot).
pub(crate) fn compile_with(source: &str, flags: &str) -> Result<Regex, CallError> {
    let mut prefix = String::new();
    for (f, r) in [('I', 'i'), ('E', 'x'), ('M', 's')] {
        if flags.contains(f) {
            prefix.push(r);
        }
    }
    if prefix.is_empty() {
        compile(source)
    } else {
        compile(&format!("(?{prefix}){source}"))
    }
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
