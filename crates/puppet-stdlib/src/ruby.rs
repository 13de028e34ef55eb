//! Ruby's view of Puppet values, as the modules' Ruby functions see them: class names,
//! `inspect` and `to_s` texts used in their messages, and the conversion of arguments that
//! Puppet 7.23 applies before calling a 3.x function. The texts and the conversion are
//! puppet-ruby's (the one owner); the helpers here build the errors native functions raise
//! with them.

use puppet_functions::{codes, CallError};
use puppet_types::Value;

/// The Ruby class name of a value as a function sees it (`String`, `Integer`, `Hash`...):
/// puppet-ruby's, the one owner of Ruby's texts.
pub fn class_name(v: &Value) -> String {
    puppet_ruby::text::class_name(v)
}

/// Ruby's `String#inspect` (puppet-ruby's).
pub fn inspect_str(s: &str) -> String {
    puppet_ruby::text::inspect_str(s)
}

/// Ruby's `inspect` of a value as passed to a function (puppet-ruby's).
pub fn inspect(v: &Value) -> String {
    puppet_ruby::text::inspect(v)
}

/// Ruby's `to_s` of a value (puppet-ruby's: `nil` is empty, arrays and hashes print as
/// `inspect`).
pub fn to_s(v: &Value) -> String {
    puppet_ruby::text::to_s(v)
}

/// Converts arguments as Puppet 7.23 does before calling a 3.x function (puppet-ruby's
/// 3.x calling convention): a top-level `undef` becomes the empty string, regular
/// expressions become their `/.../` text, and versions, binaries, timespans and timestamps
/// become strings.
pub fn v3_args(args: Vec<Value>) -> Vec<Value> {
    puppet_ruby::functions::v3_args(args)
}

/// Ruby's `NoMethodError` text: ``undefined method `m' for VALUE:Class``.
pub fn no_method(method: &str, v: &Value) -> CallError {
    fail(format!(
        "undefined method `{method}' for {}:{}",
        inspect(v),
        class_name(v)
    ))
}

/// Ruby's `NoMethodError` text with the `Did you mean?` lines that Ruby 3.1 adds, for the
/// receivers the built-in functions meet (other receivers get the plain text of
/// [`no_method`]).
pub fn no_method_hint(method: &str, v: &Value) -> CallError {
    let hint: &[&str] = match (method, v) {
        ("to_sym", Value::Integer(_)) => &["to_s"],
        ("to_i", Value::Boolean(_)) => &["to_s"],
        ("to_a", Value::String(_)) => &["to_f", "to_i", "to_s", "to_c", "to_r"],
        ("to_a", Value::Integer(_)) => &["to_c", "to_r", "to_f", "to_i", "to_s"],
        ("reject", Value::Integer(_) | Value::Float(_)) => &["rect"],
        _ => &[],
    };
    let plain = no_method(method, v).to_string();
    if hint.is_empty() {
        return fail(plain);
    }
    fail(format!(
        "{plain}\nDid you mean?  {}",
        hint.join("\n               ")
    ))
}

/// Ruby's `TypeError` text when a string was needed.
pub fn no_implicit_string(v: &Value) -> CallError {
    let what = match v {
        Value::Undef => "nil".to_string(),
        Value::Boolean(true) => "true".to_string(),
        Value::Boolean(false) => "false".to_string(),
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

/// A 3.x function's `lookupvar(name)` (Ruby's `scope.lookupvar`): the variable, or `None`
/// after Puppet's warning when it does not exist, or its error under `strict=error`
/// ([`CallContext::ruby_lookupvar`]).
pub(crate) fn lookupvar(
    ctx: &mut dyn puppet_functions::CallContext,
    name: &str,
) -> Result<Option<puppet_types::Value>, CallError> {
    ctx.ruby_lookupvar(name).map_err(fail)
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
