//! Puppet 7.23's pure 3.x built-ins (`lib/puppet/parser/functions/`): `md5`, `sha1`,
//! `sha256`, `digest` (Puppet's default `digest_algorithm`, sha256) and `shellquote`.
//!
//! They keep the 3.x calling convention: one argument list, a top-level `undef` passed as
//! the empty string, arity errors as `md5(): Wrong number of arguments given (2 for 1)`,
//! and Ruby's own errors for values of the wrong class (`no implicit conversion of Integer
//! into String`).

use crate::digest::{hex, md5, sha1, sha256};
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{CallContext, RegistryError, Signature};
use puppet_types::Value;

/// Ruby's `inspect` and class name of a value a 3.x function received, for its errors.
fn ruby_inspect_class(v: &Value) -> (String, String) {
    (
        puppet_types::ruby::inspect(v),
        puppet_types::ruby::class_name(v),
    )
}

/// What Ruby says when a non-String is used where `String` is required (`Digest::MD5`).
fn no_conversion(v: &Value) -> CallError {
    let what = match v {
        Value::Undef => "nil".to_string(),
        Value::Boolean(b) => b.to_string(),
        other => ruby_inspect_class(other).1.to_string(),
    };
    CallError::new(
        codes::FAILED,
        format!("no implicit conversion of {what} into String"),
    )
}

/// The one argument of a 3.x function of arity 1, as text.
fn one_string(name: &str, a: &Args<'_>) -> Result<String, CallError> {
    if a.values.len() != 1 {
        return Err(CallError::new(
            codes::ARGUMENT_MISMATCH,
            format!(
                "{name}(): Wrong number of arguments given ({} for 1)",
                a.values.len()
            ),
        ));
    }
    match &a.values[0] {
        Value::String(s) => Ok(s.to_string()),
        Value::Undef => Ok(String::new()),
        other => Err(no_conversion(other)),
    }
}

fn digest_fn(
    name: &'static str,
    f: fn(&[u8]) -> String,
) -> impl Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> + Send + Sync {
    move |_c: &mut dyn CallContext, a: Args<'_>| {
        let s = one_string(name, &a)?;
        Ok(Value::string(f(s.as_bytes())))
    }
}

/// Characters `shellquote` leaves unquoted.
fn is_safe(c: char) -> bool {
    c.is_ascii_alphanumeric() || "@%_+=:,./-".contains(c)
}

/// Characters that are special inside double quotes.
fn is_dangerous(c: char) -> bool {
    "!\"`$\\".contains(c)
}

/// Bourne-shell quoting of one word, as Puppet's `shellquote` does it.
fn quote_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(is_safe) {
        word.to_string()
    } else if !word.chars().any(is_dangerous) {
        format!("\"{word}\"")
    } else if !word.contains('\'') {
        format!("'{word}'")
    } else {
        let mut r = String::from("\"");
        for c in word.chars() {
            if is_dangerous(c) {
                r.push('\\');
            }
            r.push(c);
        }
        r.push('"');
        r
    }
}

/// Ruby's `Array#flatten` of the arguments; a top-level `undef` is `''` (3.x conversion).
fn flatten_words(values: &[Value], top: bool, out: &mut Vec<Value>) {
    for v in values {
        match v {
            Value::Array(items) => flatten_words(items, false, out),
            Value::Undef if top => out.push(Value::string("")),
            other => out.push(other.clone()),
        }
    }
}

fn shellquote(_c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let mut words = Vec::new();
    flatten_words(&a.values, true, &mut words);
    let mut out = Vec::with_capacity(words.len());
    for w in &words {
        match w {
            Value::String(s) => out.push(quote_word(s)),
            // A Hash has a length and counts no characters, so Puppet's Ruby gets as far as
            // `'"' + word + '"'`.
            Value::Hash(_) => {
                return Err(CallError::new(
                    codes::FAILED,
                    "no implicit conversion of Hash into String",
                ))
            }
            other => {
                let (inspect, class) = ruby_inspect_class(other);
                return Err(CallError::new(
                    codes::FAILED,
                    format!("undefined method `length' for {inspect}:{class}"),
                ));
            }
        }
    }
    Ok(Value::string(out.join(" ")))
}

/// A digest function: name, implementation, doc, digest of `'abc'`.
type DigestEntry = (
    &'static str,
    fn(&[u8]) -> String,
    &'static str,
    &'static str,
);

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &["md5", "sha1", "sha256", "digest", "shellquote"];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    let any = || Signature::new().repeated_param("Any", "args");
    let digests: [DigestEntry; 4] = [
        (
            "md5",
            |b| hex(&md5(b)),
            "Usage: `md5(STRING)`. The MD5 digest of a string, in hexadecimal (3.x function in Puppet).",
            "900150983cd24fb0d6963f7d28e17f72",
        ),
        (
            "sha1",
            |b| hex(&sha1(b)),
            "Usage: `sha1(STRING)`. The SHA-1 digest of a string, in hexadecimal (3.x function in Puppet).",
            "a9993e364706816aba3e25717850c26c9cd0d89d",
        ),
        (
            "sha256",
            |b| hex(&sha256(b)),
            "Usage: `sha256(STRING)`. The SHA-256 digest of a string, in hexadecimal (3.x function in Puppet).",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
        (
            "digest",
            |b| hex(&sha256(b)),
            "Usage: `digest(STRING)`. The digest of a string with Puppet's `digest_algorithm` setting, whose default is sha256 (3.x function in Puppet).",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
    ];
    for (name, f, doc, abc) in digests {
        reg.function(name)
            .doc(doc)
            .example(&format!("{name}('abc')"), &format!("'{abc}'"))
            .dispatch(any(), digest_fn(name, f))
            .register()?;
    }
    reg.function("shellquote")
        .doc("Usage: `shellquote(WORD...)`. Quotes each word for a Bourne shell and joins them with spaces; arrays are flattened into the words (3.x function in Puppet).")
        .example("shellquote('a b', 'c')", "'\"a b\" c'")
        .dispatch(any(), shellquote)
        .register()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Puppet 7.23's answer for `shellquote('a b', ['c', ['d$e']], "it's", '', 'x"y\'z',
    /// 'ok-_/.:=,+@%')`.
    #[test]
    fn quoting_as_puppet() {
        let words = ["a b", "c", "d$e", "it's", "", "x\"y'z", "ok-_/.:=,+@%"];
        let quoted: Vec<String> = words.iter().map(|w| quote_word(w)).collect();
        assert_eq!(
            quoted.join(" "),
            r#""a b" c 'd$e' "it's" "" "x\"y'z" ok-_/.:=,+@%"#
        );
    }
}
