//! Ruby's view of Puppet values: the texts Ruby prints for them (`String#inspect`,
//! `inspect`, `to_s`, the class name) and Ruby's `Integer()` conversion. Puppet runs on
//! Ruby, so these texts appear in Puppet's own messages and in the modules' Ruby functions.
//!
//! The one owner of these texts in the workspace: puppet-ruby (the interpreter), the
//! built-in functions and puppet-stdlib use them. They live here, in the lowest crate,
//! because the type system's conversions need them too (`Integer.new('0x1A')` is Ruby's
//! `Integer()`).

use crate::format::float_to_s;
use crate::types::Type;
use crate::value::Value;
use std::fmt::Write as _;

/// Ruby 3.1's `String#inspect` of a UTF-8 string.
///
/// ```
/// use puppet_types::ruby::inspect_str;
/// assert_eq!(inspect_str("a\"b\n\u{1}#{x}"), r#""a\"b\n\u0001\#{x}""#);
/// ```
pub fn inspect_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            '#' if matches!(chars.get(i + 1), Some('{') | Some('$') | Some('@')) => {
                out.push_str("\\#")
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (0x80..0xa0).contains(&(c as u32)) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Ruby's `Integer(string)` / `Integer(string, radix)`: optional sign and surrounding
/// blanks, `0x`/`0b`/`0o`/`0d`/`0` prefixes (the one of the radix when given), single
/// underscores between digits. `None` where Ruby raises `ArgumentError`.
///
/// ```
/// use puppet_types::ruby::integer;
/// assert_eq!(integer("0x1A", None), Some(26));
/// assert_eq!(integer(" 010 ", None), Some(8));
/// assert_eq!(integer("1_000", None), Some(1000));
/// assert_eq!(integer("ff", Some(16)), Some(255));
/// assert_eq!(integer("1.5", None), None);
/// assert_eq!(integer("1__0", None), None);
/// ```
pub fn integer(s: &str, radix: Option<u32>) -> Option<i64> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\0');
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = t.to_ascii_lowercase();
    let (base, digits) = match radix {
        None | Some(0) => {
            if let Some(d) = lower.strip_prefix("0x") {
                (16, d.to_string())
            } else if let Some(d) = lower.strip_prefix("0b") {
                (2, d.to_string())
            } else if let Some(d) = lower.strip_prefix("0o") {
                (8, d.to_string())
            } else if let Some(d) = lower.strip_prefix("0d") {
                (10, d.to_string())
            } else if lower.len() > 1 && lower.starts_with('0') {
                (8, lower[1..].trim_start_matches('_').to_string())
            } else {
                (10, lower.clone())
            }
        }
        Some(r) => {
            if !(2..=36).contains(&r) {
                return None;
            }
            let prefix = match r {
                16 => "0x",
                2 => "0b",
                8 => "0o",
                10 => "0d",
                _ => "",
            };
            let d = if prefix.is_empty() {
                &lower[..]
            } else {
                lower.strip_prefix(prefix).unwrap_or(&lower)
            };
            let d = if r == 8 && d.len() > 1 {
                d.strip_prefix('0').unwrap_or(d)
            } else {
                d
            };
            (r, d.to_string())
        }
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || digits.starts_with(['+', '-'])
    {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let mag = i128::from_str_radix(&clean, base).ok()?;
    let v = if neg { -mag } else { mag };
    i64::try_from(v).ok()
}

/// Ruby's `inspect` of a Puppet value as Ruby code receives it (`nil`, `:default`,
/// `"s"`, `{"k"=>1}`, `1.0e+15`, `/re/`).
///
/// ```
/// use puppet_types::{ruby::inspect, Value};
/// let v = Value::hash([(Value::string("k"), Value::array(vec![Value::Undef, Value::Float(2.0)]))]);
/// assert_eq!(inspect(&v), r#"{"k"=>[nil, 2.0]}"#);
/// ```
pub fn inspect(v: &Value) -> String {
    let mut out = String::new();
    inspect_into(v, &mut out, 0);
    out
}

fn inspect_into(v: &Value, out: &mut String, depth: usize) {
    if depth > 64 {
        out.push_str("[...]");
        return;
    }
    match v {
        Value::Undef => out.push_str("nil"),
        Value::Default => out.push_str(":default"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&float_to_s(*f)),
        Value::String(s) => out.push_str(&inspect_str(s)),
        Value::Regexp(r) => {
            out.push('/');
            out.push_str(r.source());
            out.push('/');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inspect_into(x, out, depth + 1);
            }
            out.push(']');
        }
        Value::Hash(h) => {
            out.push('{');
            for (i, (k, x)) in h.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inspect_into(k, out, depth + 1);
                out.push_str("=>");
                inspect_into(x, out, depth + 1);
            }
            out.push('}');
        }
        other => out.push_str(&to_s(other)),
    }
}

/// Ruby's `to_s` of a Puppet value (`nil` is empty, `:default` is `default`, arrays and
/// hashes print as `inspect`, a regexp as `(?-mix:...)`).
pub fn to_s(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::Default => "default".into(),
        Value::String(s) => s.to_string(),
        Value::Float(f) => float_to_s(*f),
        Value::Array(_) | Value::Hash(_) => inspect(v),
        Value::Regexp(r) => format!("(?-mix:{})", r.source()),
        Value::Sensitive(_) => "Sensitive [value redacted]".into(),
        other => other.to_plain_string(),
    }
}

/// The Ruby class name of a Puppet value as a function receives it. A type is its Puppet
/// class (`Puppet::Pops::Types::PIntegerType`); a resource or class reference is a
/// `Puppet::Resource`, as Puppet converts them for 3.x functions.
///
/// ```
/// use puppet_types::{ruby::class_name, Value};
/// assert_eq!(class_name(&Value::Undef), "NilClass");
/// assert_eq!(class_name(&Value::Default), "Symbol");
/// assert_eq!(class_name(&Value::Integer(1)), "Integer");
/// ```
pub fn class_name(v: &Value) -> String {
    match v {
        Value::Undef => "NilClass".into(),
        Value::Default => "Symbol".into(),
        Value::Boolean(true) => "TrueClass".into(),
        Value::Boolean(false) => "FalseClass".into(),
        Value::Integer(_) => "Integer".into(),
        Value::Float(_) => "Float".into(),
        Value::String(_) => "String".into(),
        Value::Regexp(_) => "Regexp".into(),
        Value::Array(_) => "Array".into(),
        Value::Hash(_) => "Hash".into(),
        Value::Type(t) => match t {
            Type::Resource(_) | Type::Class(_) => "Puppet::Resource".into(),
            other => {
                let text = other.to_string();
                let base = text.split('[').next().unwrap_or("Any");
                format!("Puppet::Pops::Types::P{base}Type")
            }
        },
        Value::Sensitive(_) => "Puppet::Pops::Types::PSensitiveType::Sensitive".into(),
        Value::SemVer(_) => "SemanticPuppet::Version".into(),
        Value::SemVerRange(_) => "SemanticPuppet::VersionRange".into(),
        Value::Timespan(_) => "Puppet::Pops::Time::Timespan".into(),
        Value::Timestamp(_) => "Puppet::Pops::Time::Timestamp".into(),
        Value::Binary(_) => "Puppet::Pops::Types::PBinaryType::Binary".into(),
        Value::Uri(_) => "URI::Generic".into(),
        Value::Iterator(_) => "Puppet::Pops::Types::Iterable".into(),
        _ => "Object".into(),
    }
}
