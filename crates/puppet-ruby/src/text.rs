//! Ruby's texts of Puppet values, as Ruby code receiving them prints them: `inspect`, `to_s`
//! and the class name (`"Integer"`, `"Hash"`, `"NilClass"`...). The one owner of these
//! texts: puppet-stdlib's native functions print their messages with them, and the
//! interpreter's values use the same code.

use crate::value;
use puppet_types::{Type, Value};

/// Ruby's `inspect` of a Puppet value as a function receives it (`nil`, `:default`,
/// `"s"`, `{"k"=>1}`, `1.0e+15`).
///
/// ```
/// use puppet_types::Value;
/// let v = Value::array(vec![Value::string("a\"b"), Value::Undef, Value::Float(1e15)]);
/// assert_eq!(puppet_ruby::text::inspect(&v), r#"["a\"b", nil, 1.0e+15]"#);
/// ```
pub fn inspect(v: &Value) -> String {
    value::inspect(&value::from_puppet(v))
}

/// Ruby's `to_s` of a Puppet value (`nil` is empty, arrays and hashes print as `inspect`,
/// a regexp as `(?-mix:...)`).
pub fn to_s(v: &Value) -> String {
    value::to_s(&value::from_puppet(v))
}

/// Ruby's `String#inspect`.
pub fn inspect_str(s: &str) -> String {
    value::inspect_str(s)
}

/// The Ruby class name of a Puppet value as a function receives it. A type is its Puppet
/// class (`Puppet::Pops::Types::PIntegerType`); a resource or class reference is a
/// `Puppet::Resource`, as Puppet converts them for 3.x functions.
pub fn class_name(v: &Value) -> String {
    match v {
        Value::Type(t) => type_class(t),
        other => value::from_puppet(other).class_name(),
    }
}

fn type_class(t: &Type) -> String {
    match t {
        Type::Resource(_) | Type::Class(_) => "Puppet::Resource".into(),
        other => {
            let text = other.to_string();
            let base = text.split('[').next().unwrap_or("Any");
            format!("Puppet::Pops::Types::P{base}Type")
        }
    }
}
