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
    puppet_types::regexp::compile_ruby(source, flags).map_err(|e| invalid(source, e))
}

/// The error of a pattern that does not compile (`e` the engine's message).
fn invalid(source: &str, e: String) -> CallError {
    CallError::new(
        codes::BAD_ARGUMENT,
        format!("Invalid regular expression /{source}/: {e}"),
    )
}

/// Ruby's options for Puppet's `regsubst` flags `I`, `E` and `M`.
fn ruby_flags(flags: &str) -> String {
    let mut ruby = String::new();
    for (f, r) in [('I', 'i'), ('E', 'x'), ('M', 'm')] {
        if flags.contains(f) {
            ruby.push(r);
        }
    }
    ruby
}

/// A pattern of `regsubst`: checked and translated now, compiled for the first match.
pub(crate) struct Pattern {
    pub(crate) ruby: puppet_types::regexp::RubyPattern,
    source: String,
    flags: String,
}

impl Pattern {
    /// Every match as (start, end, captures), as [`all_matches`] finds
    /// them, on the automata when the pattern runs on them (compiling fancy-regex's matcher
    /// costs several times as much), else through [`compile_flags`] (with its errors).
    #[allow(clippy::type_complexity)]
    pub(crate) fn all_matches(
        &self,
        text: &str,
    ) -> Result<Vec<(usize, usize, Vec<Option<String>>)>, CallError> {
        if let Some(found) = self.ruby.automata_matches(text, super::MAX_ELEMENTS) {
            return Ok(found);
        }
        let re = compile_flags(&self.source, &self.flags)?;
        Ok(all_matches(&re, text))
    }
}

/// The pattern `source` with `regsubst`'s flags (`I` ignore case, `E` extended, `M`
/// multiline dot), for [`Pattern::all_matches`]; a syntax error is [`compile_flags`]'s
/// (both come from the one check).
pub(crate) fn pattern_with(source: &str, flags: &str) -> Result<Pattern, CallError> {
    let flags = ruby_flags(flags);
    match puppet_types::regexp::RubyPattern::new(source, &flags) {
        Ok(ruby) => Ok(Pattern {
            ruby,
            source: source.to_string(),
            flags,
        }),
        Err(e) => Err(invalid(source, e)),
    }
}

/// Every match as Ruby's `gsub` finds them (start, end, captures): each search starts
/// where the previous match ended, or a character further after an empty match.
pub(crate) fn all_matches(re: &Regex, text: &str) -> Vec<(usize, usize, Vec<Option<String>>)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos <= text.len() {
        let Ok(Some(caps)) = re.captures_from_pos(text, pos) else {
            break;
        };
        let Some(m) = caps.get(0) else { break };
        let groups = (0..caps.len())
            .map(|i| caps.get(i).map(|g| g.as_str().to_string()))
            .collect();
        out.push((m.start(), m.end(), groups));
        if out.len() > super::MAX_ELEMENTS {
            break;
        }
        pos = puppet_types::regexp::next_search(text, m.start(), m.end());
    }
    out
}
