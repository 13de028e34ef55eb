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
    inspect_text(s, Escapes::Utf8)
}

/// Ruby 3.1's `String#inspect` of a binary (ASCII-8BIT) string, whose characters are its
/// bytes: printable ASCII as it is, the same backslash escapes, any other byte as `\xHH`.
///
/// ```
/// use puppet_types::ruby::inspect_binary_str;
/// assert_eq!(inspect_binary_str("a\u{ff}\u{0}\n"), r#""a\xFF\x00\n""#);
/// ```
pub fn inspect_binary_str(s: &str) -> String {
    inspect_text(s, Escapes::Binary)
}

/// Ruby 3.1's `String#dump` of a UTF-8 string: `inspect`'s escapes, and every character
/// outside printable ASCII escaped: other ASCII as `\xHH`, the rest as `\uHHHH`
/// (`\u{H...}` above U+FFFF).
///
/// ```
/// use puppet_types::ruby::dump_str;
/// assert_eq!(dump_str("é\u{1}\n"), r#""\u00E9\x01\n""#);
/// ```
pub fn dump_str(s: &str) -> String {
    inspect_text(s, Escapes::Dump)
}

/// Which characters [`inspect_text`] escapes beyond the shared backslash escapes.
#[derive(Clone, Copy, PartialEq)]
enum Escapes {
    /// `inspect` of a UTF-8 string: what Ruby does not print.
    Utf8,
    /// `inspect` of a binary string: every byte outside printable ASCII.
    Binary,
    /// `dump`: every character outside printable ASCII.
    Dump,
}

fn inspect_text(s: &str, mode: Escapes) -> String {
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
            ' '..='~' if mode != Escapes::Utf8 => out.push(c),
            c if mode == Escapes::Binary || (mode == Escapes::Dump && (c as u32) < 0x80) => {
                let _ = write!(out, "\\x{:02X}", c as u32 & 0xff);
            }
            c if mode == Escapes::Dump => {
                if (c as u32) > 0xffff {
                    let _ = write!(out, "\\u{{{:X}}}", c as u32);
                } else {
                    let _ = write!(out, "\\u{:04X}", c as u32);
                }
            }
            // Not printable for Ruby: control characters (NEL aside), the line and paragraph
            // separators and the noncharacters (other unassigned code points are printed as
            // they are here).
            c if (c as u32) < 0x20
                || c as u32 == 0x7f
                || ((0x80..0xa0).contains(&(c as u32)) && c != '\u{85}')
                || matches!(c, '\u{2028}' | '\u{2029}')
                || (0xfdd0..=0xfdef).contains(&(c as u32))
                || (c as u32) & 0xfffe == 0xfffe =>
            {
                if (c as u32) > 0xffff {
                    let _ = write!(out, "\\u{{{:X}}}", c as u32);
                } else {
                    let _ = write!(out, "\\u{:04X}", c as u32);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Ruby's `String#casecmp`: the byte order of two strings with ASCII letters folded to
/// lower case and every other character left as it is. Puppet's `<`, `>`, `compare` and
/// (through [`Value::puppet_eq`](crate::Value::puppet_eq)) `==` order strings this way.
///
/// ```
/// use std::cmp::Ordering;
/// use puppet_types::ruby::casecmp;
/// assert_eq!(casecmp("Apple", "apple"), Ordering::Equal);
/// assert_eq!(casecmp("a", "B"), Ordering::Less);
/// assert_eq!(casecmp("É", "é"), Ordering::Less);
/// ```
pub fn casecmp(a: &str, b: &str) -> std::cmp::Ordering {
    let a = a.bytes().map(|c| c.to_ascii_lowercase());
    a.cmp(b.bytes().map(|c| c.to_ascii_lowercase()))
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

/// Ruby's `Float(string)`: optional sign and surrounding blanks, digits with single
/// underscores between them, an optional fraction (`.5` but not `1.`) and exponent, or a
/// `0x` hexadecimal integer; a leading zero is decimal (`017` is 17.0). `Err` is Ruby's
/// message (`invalid value for Float(): "1."`, the text's bytes quoted).
///
/// ```
/// use puppet_types::ruby::float;
/// assert_eq!(float(" .5 "), Ok(0.5));
/// assert_eq!(float("1_000.5e1_0"), Ok(1000.5e10));
/// assert_eq!(float("0x1A"), Ok(26.0));
/// assert_eq!(float("017"), Ok(17.0));
/// assert_eq!(float("1."), Err(r#"invalid value for Float(): "1.""#.to_string()));
/// assert!(float("NaN").is_err() && float("1__0").is_err() && float("0b11").is_err());
/// ```
pub fn float(s: &str) -> Result<f64, String> {
    let bad = || {
        let bytes: String = s.bytes().map(char::from).collect();
        format!("invalid value for Float(): {}", inspect_binary_str(&bytes))
    };
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let unsigned = t.trim_start_matches(['+', '-']);
    if t.len() - unsigned.len() > 1 {
        return Err(bad());
    }
    if unsigned.starts_with("0x") || unsigned.starts_with("0X") {
        return integer(t, None).map(|i| i as f64).ok_or_else(bad);
    }
    // Digits with single underscores between them.
    let digits = |d: &str| {
        !d.is_empty()
            && !d.starts_with('_')
            && !d.ends_with('_')
            && !d.contains("__")
            && d.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    };
    let (mantissa, exp) = match unsigned.find(['e', 'E']) {
        Some(k) => (&unsigned[..k], Some(&unsigned[k + 1..])),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => (int.is_empty() || digits(int)) && digits(frac),
        None => digits(mantissa),
    };
    let exp_ok = exp.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    if !mantissa_ok || !exp_ok {
        return Err(bad());
    }
    t.replace('_', "").parse().map_err(|_| bad())
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
        Value::Sensitive(_) => out.push_str("#<Sensitive [value redacted]>"),
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
/// class (`Puppet::Pops::Types::PIntegerType`); a resource or class reference (`File`,
/// `Class[foo]`) is a `Puppet::Resource`, as Puppet converts them for 3.x functions.
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
            Type::Class(Some(_)) => "Puppet::Resource".into(),
            Type::Resource(r) if r.type_name.is_some() => "Puppet::Resource".into(),
            other => format!("Puppet::Pops::Types::{}", type_class(other)),
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

/// The Puppet class (below `Puppet::Pops::Types`) of a type: `PIntegerType` for
/// `Integer[1, 2]`, `PTypeAliasType` for `Data`.
///
/// ```
/// use puppet_types::{ruby::type_class, Type};
/// assert_eq!(type_class(&Type::Any), "PAnyType");
/// assert_eq!(type_class(&Type::Uri(None)), "PURIType");
/// ```
pub fn type_class(t: &Type) -> &'static str {
    match t {
        Type::Any => "PAnyType",
        Type::Undef => "PUndefType",
        Type::Default => "PDefaultType",
        Type::Unit => "PUnitType",
        Type::NotUndef(_) => "PNotUndefType",
        Type::Boolean(_) => "PBooleanType",
        Type::Numeric => "PNumericType",
        Type::Integer(_) => "PIntegerType",
        Type::Float(_) => "PFloatType",
        Type::String(_) => "PStringType",
        Type::Enum(_) => "PEnumType",
        Type::Pattern(_) => "PPatternType",
        Type::Regexp(_) => "PRegexpType",
        Type::Scalar => "PScalarType",
        Type::ScalarData => "PScalarDataType",
        Type::Collection(_) => "PCollectionType",
        Type::Array(_) => "PArrayType",
        Type::Hash(_) => "PHashType",
        Type::Tuple(_) => "PTupleType",
        Type::Struct(_) => "PStructType",
        Type::Optional(_) => "POptionalType",
        Type::Variant(_) => "PVariantType",
        Type::Type(_) => "PTypeType",
        Type::Class(_) => "PClassType",
        Type::Resource(_) => "PResourceType",
        Type::CatalogEntry => "PCatalogEntryType",
        Type::Callable(_) => "PCallableType",
        Type::Iterable(_) => "PIterableType",
        Type::Iterator(_) => "PIteratorType",
        Type::Sensitive(_) => "PSensitiveType",
        Type::SemVer(_) => "PSemVerType",
        Type::SemVerRange => "PSemVerRangeType",
        Type::Timespan(_) => "PTimespanType",
        Type::Timestamp(_) => "PTimestampType",
        Type::Binary => "PBinaryType",
        Type::Init(_) => "PInitType",
        Type::Runtime(_) => "PRuntimeType",
        Type::Uri(_) => "PURIType",
        Type::TypeReference(_) => "PTypeReferenceType",
        Type::Alias(_) => "PTypeAliasType",
        Type::Object(_) => "PObjectType",
    }
}

/// Puppet 7.23's Ruby `inspect` of the object a Ruby function receives for a Type or a
/// Sensitive value: Ruby's default `#<Class:0x... @ivar=value, ...>` over the instance
/// variables Puppet's type classes set (`#<Puppet::Pops::Types::PIntegerType:0x...
/// @from=1, @to=Infinity>`), and `#<Sensitive [value redacted]>`. `address` gives each
/// object printed its address. `None` for the values and types whose Ruby objects this
/// does not reproduce (aliases, object types, resource and class references, parameterized
/// callables, URI and Init parameters...): never a made-up text.
///
/// ```
/// use puppet_types::{ruby::inspect_object, types::IntRange, Type, Value};
/// let t = Value::Type(Type::Integer(IntRange::new(Some(1), None)));
/// assert_eq!(
///     inspect_object(&t, &mut || 0x10).as_deref(),
///     Some("#<Puppet::Pops::Types::PIntegerType:0x0000000000000010 @from=1, @to=Infinity>")
/// );
/// ```
pub fn inspect_object(v: &Value, address: &mut dyn FnMut() -> u64) -> Option<String> {
    match v {
        Value::Sensitive(_) => Some("#<Sensitive [value redacted]>".into()),
        // SemanticPuppet::VersionRange#inspect: the matchers, normalized.
        Value::SemVerRange(r) => Some(r.inspect()),
        Value::Type(t) => {
            let mut out = String::new();
            inspect_type(t, address, &mut out, 0)?;
            Some(out)
        }
        _ => None,
    }
}

/// Writes the `inspect` of a type object; `None` for a type not reproduced.
fn inspect_type(
    t: &Type,
    address: &mut dyn FnMut() -> u64,
    out: &mut String,
    depth: usize,
) -> Option<()> {
    use crate::types::{IntRange, StringType};
    if depth > 32 {
        return None;
    }
    let int_range = |r: &IntRange| -> (String, String) {
        let bound = |b: Option<i64>, inf: &str| b.map_or(inf.to_string(), |x| x.to_string());
        (bound(r.min, "-Infinity"), bound(r.max, "Infinity"))
    };
    let _ = write!(
        out,
        "#<Puppet::Pops::Types::{}:{:#018x}",
        type_class(t),
        address()
    );
    // Each instance variable: its name, then its value written by the closure.
    let mut first = true;
    let mut ivar = |out: &mut String, name: &str| {
        out.push_str(if first { " @" } else { ", @" });
        first = false;
        out.push_str(name);
        out.push('=');
    };
    let size =
        |r: &Option<IntRange>, out: &mut String, address: &mut dyn FnMut() -> u64| -> Option<()> {
            match r {
                None => out.push_str("nil"),
                Some(r) => inspect_type(&Type::Integer(*r), address, out, depth + 1)?,
            }
            Some(())
        };
    let opt_type = |x: &Option<std::sync::Arc<Type>>,
                    out: &mut String,
                    address: &mut dyn FnMut() -> u64|
     -> Option<()> {
        match x {
            None => out.push_str("nil"),
            Some(x) => inspect_type(x, address, out, depth + 1)?,
        }
        Some(())
    };
    let list = |ts: &[Type], out: &mut String, address: &mut dyn FnMut() -> u64| -> Option<()> {
        out.push('[');
        for (i, x) in ts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            inspect_type(x, address, out, depth + 1)?;
        }
        out.push(']');
        Some(())
    };
    match t {
        Type::Any
        | Type::Undef
        | Type::Default
        | Type::Unit
        | Type::Scalar
        | Type::ScalarData
        | Type::CatalogEntry
        | Type::Binary
        | Type::SemVerRange
        | Type::Uri(None) => {}
        Type::Numeric => {
            ivar(out, "from");
            out.push_str("-Infinity");
            ivar(out, "to");
            out.push_str("Infinity");
        }
        Type::Integer(r) => {
            let (from, to) = int_range(r);
            ivar(out, "from");
            out.push_str(&from);
            ivar(out, "to");
            out.push_str(&to);
        }
        Type::Float(r) => {
            ivar(out, "from");
            out.push_str(&float_inspect(r.min));
            ivar(out, "to");
            out.push_str(&float_inspect(r.max));
        }
        Type::Timespan(r) if r.min.is_none() && r.max.is_none() => {
            ivar(out, "from");
            out.push_str("-Infinity");
            ivar(out, "to");
            out.push_str("Infinity");
        }
        Type::Timestamp(r) if r.min.is_none() && r.max.is_none() => {
            ivar(out, "from");
            out.push_str("-Infinity");
            ivar(out, "to");
            out.push_str("Infinity");
        }
        Type::String(s) => {
            ivar(out, "size_type_or_value");
            match s {
                StringType::Unbounded | StringType::Size(None) => out.push_str("nil"),
                StringType::Size(r) => size(r, out, address)?,
                StringType::Value(v) => out.push_str(&inspect_str(v)),
            }
        }
        Type::Boolean(b) => {
            ivar(out, "value");
            out.push_str(match b {
                None => "nil",
                Some(true) => "true",
                Some(false) => "false",
            });
        }
        Type::Enum(e) => {
            ivar(out, "values");
            out.push('[');
            for (i, v) in e.values.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&inspect_str(v));
            }
            out.push(']');
            ivar(out, "case_insensitive");
            out.push_str(if e.case_insensitive { "true" } else { "false" });
        }
        Type::Pattern(ps) => {
            ivar(out, "patterns");
            let regexps: Vec<Type> = ps.iter().map(|r| Type::Regexp(Some(r.clone()))).collect();
            list(&regexps, out, address)?;
        }
        Type::Regexp(r) => {
            ivar(out, "pattern");
            match r {
                None => out.push_str("nil"),
                Some(r) => {
                    // Puppet keeps the pattern without the `\/` escapes of the literal.
                    let mut pattern = String::with_capacity(r.source().len());
                    let mut chars = r.source().chars();
                    while let Some(c) = chars.next() {
                        match (c, chars.clone().next()) {
                            ('\\', Some('/')) => {}
                            ('\\', Some(n)) => {
                                pattern.push(c);
                                pattern.push(n);
                                chars.next();
                            }
                            _ => pattern.push(c),
                        }
                    }
                    out.push_str(&inspect_str(&pattern));
                    ivar(out, "regexp");
                    let _ = write!(out, "/{}/", slash_escaped(&pattern));
                }
            }
        }
        Type::Collection(r) => {
            ivar(out, "size_type");
            size(r, out, address)?;
        }
        Type::Array(a) => {
            ivar(out, "size_type");
            size(&a.size, out, address)?;
            ivar(out, "element_type");
            inspect_type(&a.element, address, out, depth + 1)?;
        }
        Type::Hash(h) => {
            ivar(out, "size_type");
            size(&h.size, out, address)?;
            ivar(out, "key_type");
            inspect_type(&h.key, address, out, depth + 1)?;
            ivar(out, "value_type");
            inspect_type(&h.value, address, out, depth + 1)?;
        }
        Type::Tuple(tt) => {
            ivar(out, "types");
            list(&tt.types, out, address)?;
            ivar(out, "size_type");
            size(&tt.size, out, address)?;
        }
        Type::Struct(elements) => {
            ivar(out, "elements");
            out.push('[');
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(
                    out,
                    "#<Puppet::Pops::Types::PStructElement:{:#018x} @key_type=",
                    address()
                );
                inspect_type(&e.key, address, out, depth + 1)?;
                out.push_str(", @value_type=");
                inspect_type(&e.value, address, out, depth + 1)?;
                out.push('>');
            }
            out.push(']');
        }
        Type::Optional(x)
        | Type::NotUndef(x)
        | Type::Type(x)
        | Type::Iterable(x)
        | Type::Iterator(x) => {
            ivar(out, "type");
            opt_type(x, out, address)?;
        }
        Type::Sensitive(x) => {
            ivar(out, "type");
            inspect_type(x, address, out, depth + 1)?;
        }
        Type::Variant(ts) => {
            ivar(out, "types");
            list(ts, out, address)?;
        }
        Type::Class(None) => {
            ivar(out, "class_name");
            out.push_str("nil");
        }
        Type::SemVer(ranges) if ranges.is_empty() => {
            ivar(out, "ranges");
            out.push_str("[]");
        }
        Type::Callable(c) if c.params.is_none() && c.block.is_none() && c.returns.is_none() => {
            for name in ["param_types", "block_type", "return_type"] {
                ivar(out, name);
                out.push_str("nil");
            }
        }
        Type::Runtime(r) if r.runtime.is_none() && r.name.is_none() => {
            ivar(out, "runtime");
            out.push_str("nil");
            ivar(out, "name_or_pattern");
            out.push_str("nil");
        }
        _ => return None,
    }
    out.push('>');
    Some(())
}

/// Ruby's `Float#inspect` of a bound (`Infinity`, `-Infinity`, `2.0`).
fn float_inspect(f: f64) -> String {
    if f == f64::INFINITY {
        "Infinity".into()
    } else if f == f64::NEG_INFINITY {
        "-Infinity".into()
    } else {
        float_to_s(f)
    }
}

/// A regexp's source as Ruby's `Regexp#inspect` writes it between slashes: each `/` not
/// already escaped gets a backslash.
///
/// ```
/// assert_eq!(puppet_types::ruby::slash_escaped(r"a/b\/c"), r"a\/b\/c");
/// ```
pub fn slash_escaped(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '/' => out.push_str("\\/"),
            _ => out.push(c),
        }
    }
    out
}

/// Converts arguments as Puppet 7.23 does before calling a 3.x function: a top-level `undef`
/// becomes the empty string (nested ones stay `undef`), regular expressions become their
/// `/.../` text, and versions, binaries, timespans and timestamps become strings.
pub fn v3_args(args: Vec<Value>) -> Vec<Value> {
    args.into_iter().map(|a| v3_convert(a, true)).collect()
}

/// True when [`v3_convert`] changes `v` (or something inside it).
fn v3_changes(v: &Value, top: bool) -> bool {
    match v {
        Value::Undef => top,
        Value::Regexp(_)
        | Value::SemVer(_)
        | Value::SemVerRange(_)
        | Value::Binary(_)
        | Value::Timespan(_)
        | Value::Timestamp(_) => true,
        Value::Array(a) => a.iter().any(|x| v3_changes(x, false)),
        Value::Hash(h) => h
            .iter()
            .any(|(k, x)| v3_changes(k, false) || v3_changes(x, false)),
        _ => false,
    }
}

fn v3_convert(v: Value, top: bool) -> Value {
    if !v3_changes(&v, top) {
        // Nothing to convert: the value itself, not a copy of its arrays and hashes.
        return v;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The conversion rebuilding every array and hash (what `v3_convert` does when something
    /// inside changes), to check that skipping values with nothing to convert agrees.
    fn rebuilt(v: Value, top: bool) -> Value {
        match v {
            Value::Undef if top => Value::string(""),
            Value::Regexp(r) => Value::string(format!("/{}/", r.source())),
            Value::SemVer(_) => Value::string(v.to_plain_string()),
            Value::Array(a) => Value::array(a.iter().cloned().map(|x| rebuilt(x, false)).collect()),
            Value::Hash(h) => Value::hash(
                h.iter()
                    .map(|(k, x)| (rebuilt(k.clone(), false), rebuilt(x.clone(), false))),
            ),
            other => other,
        }
    }

    #[test]
    fn v3_arguments_convert_only_what_changes() {
        let re = Value::Regexp(crate::Regexp::new("a+").unwrap());
        let plain = Value::hash(vec![
            (
                Value::string("k"),
                Value::array(vec![Value::Undef, Value::Integer(1)]),
            ),
            (Value::Integer(2), Value::Boolean(true)),
        ]);
        let mixed = Value::array(vec![
            plain.clone(),
            Value::hash(vec![(Value::string("r"), re.clone())]),
            Value::Undef,
        ]);
        let args = vec![Value::Undef, plain, mixed, re, Value::string("s")];
        let want: Vec<Value> = args.iter().cloned().map(|a| rebuilt(a, true)).collect();
        assert_eq!(v3_args(args), want);
    }
}
