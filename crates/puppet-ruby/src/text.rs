//! Ruby's texts of Puppet values, as Ruby code receiving them prints them: `inspect`, `to_s`
//! and the class name (`"Integer"`, `"Hash"`, `"NilClass"`...). They are puppet-types'
//! (`puppet_types::ruby`, the one owner, which the type system's conversions need too);
//! this module is puppet-ruby's door to them for crates above it (puppet-stdlib).

use puppet_types::Value;

/// Ruby's `inspect` of a Puppet value as a function receives it (`nil`, `:default`,
/// `"s"`, `{"k"=>1}`, `1.0e+15`).
///
/// ```
/// use puppet_types::Value;
/// let v = Value::array(vec![Value::string("a\"b"), Value::Undef, Value::Float(1e15)]);
/// assert_eq!(puppet_ruby::text::inspect(&v), r#"["a\"b", nil, 1.0e+15]"#);
/// ```
pub fn inspect(v: &Value) -> String {
    puppet_types::ruby::inspect(v)
}

/// Ruby's `to_s` of a Puppet value.
pub fn to_s(v: &Value) -> String {
    puppet_types::ruby::to_s(v)
}

/// Ruby's `String#inspect`.
pub fn inspect_str(s: &str) -> String {
    puppet_types::ruby::inspect_str(s)
}

/// The Ruby class name of a Puppet value as a function receives it.
pub fn class_name(v: &Value) -> String {
    puppet_types::ruby::class_name(v)
}
