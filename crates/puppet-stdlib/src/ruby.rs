//! Ruby's view of Puppet values, as the modules' Ruby functions see them: class names,
//! `inspect` and `to_s` texts used in their messages, and the conversion of arguments that
//! Puppet 7.23 applies before calling a 3.x function.
//!
//! Nothing here evaluates Ruby; these are small re-implementations of the texts Ruby prints
//! for the values Puppet passes, so that error messages read as Puppet's.

use puppet_functions::{codes, CallError};
use puppet_types::format::float_to_s;
use puppet_types::Value;

/// The Ruby class name of a value as a 3.x function sees it (`String`, `Integer`, `Hash`...).
pub fn class_name(v: &Value) -> &'static str {
    match v {
        Value::Undef => "NilClass",
        Value::Default => "Symbol",
        Value::Boolean(true) => "TrueClass",
        Value::Boolean(false) => "FalseClass",
        Value::Integer(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Regexp(_) => "Regexp",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
        Value::Type(_) => "Puppet::Resource",
        Value::Sensitive(_) => "Puppet::Pops::Types::PSensitiveType::Sensitive",
        Value::SemVer(_) => "SemanticPuppet::Version",
        Value::SemVerRange(_) => "SemanticPuppet::VersionRange",
        Value::Timespan(_) => "Puppet::Pops::Time::Timespan",
        Value::Timestamp(_) => "Puppet::Pops::Time::Timestamp",
        Value::Binary(_) => "Puppet::Pops::Types::PBinaryType::Binary",
        Value::Uri(_) => "URI::Generic",
        Value::Iterator(_) => "Puppet::Pops::Types::Iterable",
        _ => "Object",
    }
}

/// Ruby's `String#inspect`.
pub fn inspect_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '#' if matches!(chars.peek(), Some('{') | Some('$') | Some('@')) => out.push_str("\\#"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Ruby's `inspect` of a value as passed to a function.
pub fn inspect(v: &Value) -> String {
    match v {
        Value::Undef => "nil".into(),
        Value::Default => ":default".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => float_to_s(*f),
        Value::String(s) => inspect_str(s),
        Value::Regexp(r) => format!("/{}/", r.source()),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().map(inspect).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Hash(h) => {
            let parts: Vec<String> = h
                .iter()
                .map(|(k, v)| format!("{}=>{}", inspect(k), inspect(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Type(t) => t.to_string(),
        other => to_s(other),
    }
}

/// Ruby's `to_s` of a value (`nil` is empty, arrays and hashes print as `inspect`).
pub fn to_s(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::Default => "default".into(),
        Value::String(s) => s.to_string(),
        Value::Float(f) => float_to_s(*f),
        Value::Array(_) | Value::Hash(_) => inspect(v),
        Value::Regexp(r) => format!("(?-mix:{})", r.source()),
        other => other.to_plain_string(),
    }
}

/// Converts arguments as Puppet 7.23 does before calling a 3.x function: a top-level `undef`
/// becomes the empty string (nested ones stay `undef`), regular expressions become their
/// `/.../` text, and versions, binaries, timespans and timestamps become strings.
pub fn v3_args(args: Vec<Value>) -> Vec<Value> {
    args.into_iter().map(|a| v3_convert(a, true)).collect()
}

fn v3_convert(v: Value, top: bool) -> Value {
    match v {
        Value::Undef if top => Value::string(""),
        Value::Regexp(r) => Value::string(format!("/{}/", r.source())),
        Value::SemVer(_)
        | Value::SemVerRange(_)
        | Value::Binary(_)
        | Value::Timespan(_)
        | Value::Timestamp(_) => Value::string(v.to_plain_string()),
        Value::Array(a) => Value::array(a.iter().cloned().map(|x| v3_convert(x, false)).collect()),
        Value::Hash(h) => Value::hash(
            h.iter()
                .map(|(k, x)| (v3_convert(k.clone(), false), v3_convert(x.clone(), false))),
        ),
        other => other,
    }
}

/// Ruby's `NoMethodError` text: ``undefined method `m' for VALUE:Class``.
pub fn no_method(method: &str, v: &Value) -> CallError {
    fail(format!(
        "undefined method `{method}' for {}:{}",
        inspect(v),
        class_name(v)
    ))
}

/// Ruby's `TypeError` text when a string was needed.
pub fn no_implicit_string(v: &Value) -> CallError {
    let what = match v {
        Value::Undef => "nil",
        Value::Boolean(true) => "true",
        Value::Boolean(false) => "false",
        other => class_name(other),
    };
    fail(format!("no implicit conversion of {what} into String"))
}

/// Ruby's `Array(x)`: an array's elements, a hash's [key, value] pairs, nothing for `nil`,
/// else the value alone.
pub fn ruby_array(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.to_vec(),
        Value::Hash(h) => h
            .iter()
            .map(|(k, x)| Value::array(vec![k.clone(), x.clone()]))
            .collect(),
        Value::Undef => Vec::new(),
        other => vec![other.clone()],
    }
}

/// Ruby truthiness: everything but `nil` and `false`.
pub fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Undef | Value::Boolean(false))
}

/// A `Puppet::ParseError` (or any Ruby error) raised by a function: its message.
pub fn fail(message: impl Into<String>) -> CallError {
    CallError::new(codes::FAILED, message)
}

/// Ruby's `Array(x)` / `[x].flatten(1)` helper: an array's elements, else the value alone.
pub fn as_list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.to_vec(),
        other => vec![other.clone()],
    }
}

/// Ruby's `Array#flatten` (recursive).
pub fn flatten(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| flatten(x, out)),
        other => out.push(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inspect_texts() {
        let v = Value::array(vec![
            Value::string("a\"b"),
            Value::Undef,
            Value::hash([(Value::string("k"), Value::Integer(1))]),
        ]);
        assert_eq!(inspect(&v), r#"["a\"b", nil, {"k"=>1}]"#);
        assert_eq!(to_s(&Value::Undef), "");
        assert_eq!(class_name(&Value::Boolean(true)), "TrueClass");
    }

    #[test]
    fn v3_conversion() {
        let out = v3_args(vec![Value::Undef, Value::array(vec![Value::Undef])]);
        assert_eq!(out[0], Value::string(""));
        assert_eq!(out[1], Value::array(vec![Value::Undef]));
    }
}
