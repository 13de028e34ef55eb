//! Conversions behind `new` (`Integer('0x1F')`, `Boolean('yes')`, `Timespan(60)` ...), as
//! library functions. The function registry (a later crate) dispatches `new` calls here.
//!
//! Covered: Integer/Float/Numeric from strings (with radix), booleans and time values;
//! Boolean from strings and numbers; String with the default and `%s`/`%p`/`%d`/`%x`/`%o`/`%b`/
//! `%f`/`%e`/`%g` formats and the string-only `%c`/`%C`/`%u`/`%d`/`%t` (see [`format_value`]); Array and Hash from containers and iterables;
//! SemVer, SemVerRange, Timespan, Timestamp, Binary, Sensitive and URI. Not covered yet:
//! container format maps for String (`{ Array => { format => '%(a', separator => '|' } }`),
//! the `%a` hex-float format, Timespan/Timestamp custom format strings, Tuple/Struct
//! targets beyond plain type checks. Object types are created by [`crate::object::new_object`].

use crate::error::TypeError;
use crate::format::float_to_s;
use crate::infer::{generalize, infer};
use crate::printf;
use crate::semver::{Version, VersionRange};
use crate::time::{Timespan, Timestamp};
use crate::types::Type;
use crate::value::{IteratorValue, Uri, Value};
use base64::Engine;
use smol_str::SmolStr;
use std::sync::Arc;

fn conv_err(v: &Value, target: &str) -> TypeError {
    match v {
        Value::String(s) => {
            TypeError::Conversion(format!("The string '{s}' cannot be converted to {target}"))
        }
        other => TypeError::Conversion(format!(
            "Value of type {} cannot be converted to {target}",
            generalize(&infer(other))
        )),
    }
}

fn ruby_inspect(s: &str) -> String {
    crate::ruby::inspect_str(s)
}

/// Ruby's `String#inspect` of a UTF-8 string (the owner is [`crate::ruby::inspect_str`]).
///
/// ```
/// use puppet_types::convert::ruby_inspect_str;
/// assert_eq!(ruby_inspect_str("a \"b\"\n#{x} é\u{1}"), r#""a \"b\"\n\#{x} é\u0001""#);
/// ```
pub use crate::ruby::inspect_str as ruby_inspect_str;

/// Ruby's `Integer(str, radix)` over a string that already passed Puppet's lenient pattern.
fn ruby_integer(s: &str, radix: Option<u32>) -> Option<i64> {
    crate::ruby::integer(s, radix)
}

fn lenient_integer_pattern(s: &str) -> bool {
    let t = s.strip_prefix(['+', '-']).unwrap_or(s).trim_start();
    if t.is_empty() {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        return !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if let Some(h) = lower.strip_prefix("0b") {
        return !h.is_empty() && h.bytes().all(|b| b == b'0' || b == b'1');
    }
    t.bytes().all(|b| b.is_ascii_digit())
}

/// `Integer.new(from, radix, abs)`.
///
/// ```
/// use puppet_types::{convert::integer_from, Value};
/// assert_eq!(integer_from(&Value::string("0x1F"), None, false).unwrap(), 31);
/// assert_eq!(integer_from(&Value::string("777"), Some(8), false).unwrap(), 511);
/// assert_eq!(integer_from(&Value::string("08"), None, false).unwrap_err().to_string(), "invalid value for Integer(): \"08\"");
/// assert_eq!(integer_from(&Value::Float(-3.7), None, true).unwrap(), 3);
/// ```
pub fn integer_from(v: &Value, radix: Option<u32>, abs: bool) -> Result<i64, TypeError> {
    if let Some(r) = radix {
        if ![2, 8, 10, 16].contains(&r) {
            return Err(TypeError::Conversion(format!(
                "Illegal radix: {r}, expected 2, 8, 10, 16, or default"
            )));
        }
    }
    let n: i64 =
        match v {
            Value::Integer(i) => *i,
            Value::Float(f) => {
                if !f.is_finite() || f.abs() >= 9.223_372_036_854_776e18 {
                    return Err(TypeError::Overflow(format!(
                        "Float {} cannot be converted to Integer",
                        float_to_s(*f)
                    )));
                }
                f.trunc() as i64
            }
            Value::Boolean(b) => *b as i64,
            Value::Timespan(t) => i64::try_from(t.secs())
                .map_err(|_| TypeError::Overflow("Integer overflow".into()))?,
            Value::Timestamp(t) => i64::try_from(t.secs())
                .map_err(|_| TypeError::Overflow("Integer overflow".into()))?,
            Value::String(s) => {
                if !lenient_integer_pattern(s) {
                    return Err(conv_err(v, "Integer"));
                }
                match ruby_integer(s, radix) {
                    Some(n) => n,
                    None => {
                        // Puppet retries with the blanks between sign and digits removed.
                        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
                        match (compact != **s)
                            .then(|| ruby_integer(&compact, radix))
                            .flatten()
                        {
                            Some(n) => n,
                            None => {
                                return Err(TypeError::Conversion(format!(
                                    "invalid value for Integer(): {}",
                                    ruby_inspect(s)
                                )))
                            }
                        }
                    }
                }
            }
            other => return Err(conv_err(other, "Integer")),
        };
    if abs {
        n.checked_abs()
            .ok_or_else(|| TypeError::Overflow("Integer overflow".into()))
    } else {
        Ok(n)
    }
}

/// `Float.new(from, abs)`.
///
/// ```
/// use puppet_types::{convert::float_from, Value};
/// assert_eq!(float_from(&Value::string("3.5e2"), false).unwrap(), 350.0);
/// assert_eq!(float_from(&Value::string("0x10"), false).unwrap(), 16.0);
/// ```
pub fn float_from(v: &Value, abs: bool) -> Result<f64, TypeError> {
    let f = match v {
        Value::Float(f) => *f,
        Value::Integer(i) => *i as f64,
        Value::Boolean(b) => *b as i64 as f64,
        Value::Timespan(t) => t.as_secs_f64(),
        Value::Timestamp(t) => t.0 as f64 / 1e9,
        Value::String(s) => {
            let t: String = s.trim().chars().filter(|c| *c != '_').collect();
            let t2: String = t.chars().filter(|c| !c.is_whitespace()).collect();
            let parse = |x: &str| -> Option<f64> {
                let (neg, body) = match x.as_bytes().first() {
                    Some(b'-') => (true, &x[1..]),
                    Some(b'+') => (false, &x[1..]),
                    _ => (false, x),
                };
                let lower = body.to_ascii_lowercase();
                let mag = if let Some(h) = lower.strip_prefix("0x") {
                    i64::from_str_radix(h, 16).ok()? as f64
                } else if let Some(b) = lower.strip_prefix("0b") {
                    i64::from_str_radix(b, 2).ok()? as f64
                } else {
                    if body.is_empty()
                        || !body
                            .bytes()
                            .all(|c| c.is_ascii_digit() || b".eE+-".contains(&c))
                        || body.starts_with('.')
                        || body.ends_with('.')
                    {
                        return None;
                    }
                    body.parse::<f64>().ok()?
                };
                Some(if neg { -mag } else { mag })
            };
            match parse(&t).or_else(|| parse(&t2)) {
                Some(f) => f,
                None => return Err(conv_err(v, "Float")),
            }
        }
        other => return Err(conv_err(other, "Float")),
    };
    Ok(if abs { f.abs() } else { f })
}

/// `Numeric.new(from, abs)`: an Integer when the text is integral, otherwise a Float.
pub fn numeric_from(v: &Value, abs: bool) -> Result<Value, TypeError> {
    match v {
        Value::Integer(_) | Value::Boolean(_) => Ok(Value::Integer(integer_from(v, None, abs)?)),
        Value::String(s) => {
            let t = s.trim();
            let lower = t.to_ascii_lowercase();
            let body = lower.trim_start_matches(['+', '-']);
            let looks_int = body.starts_with("0x")
                || body.starts_with("0b")
                || (!body.is_empty() && body.bytes().all(|b| b.is_ascii_digit() || b == b'_'));
            if looks_int {
                if let Ok(i) = integer_from(v, None, abs) {
                    return Ok(Value::Integer(i));
                }
            }
            float_from(v, abs).map(Value::Float).map_err(|_| {
                TypeError::Conversion(format!("The string '{s}' cannot be converted to Numeric"))
            })
        }
        _ => float_from(v, abs)
            .map(Value::Float)
            .map_err(|_| conv_err(v, "Numeric")),
    }
}

/// `Boolean.new(from)`.
pub fn boolean_from(v: &Value) -> Result<bool, TypeError> {
    match v {
        Value::Boolean(b) => Ok(*b),
        Value::Integer(i) => Ok(*i != 0),
        Value::Float(f) => Ok(*f != 0.0),
        Value::String(s) => match s.to_lowercase().as_str() {
            "true" | "yes" | "y" => Ok(true),
            "false" | "no" | "n" => Ok(false),
            _ => Err(conv_err(v, "Boolean")),
        },
        other => Err(conv_err(other, "Boolean")),
    }
}

fn capitalize(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().collect::<String>() + &cs.as_str().to_lowercase(),
        None => String::new(),
    }
}

/// The sign a number's directive prints: `-` for a negative one, else `+` or a space as the
/// flags ask.
/// A directive's flags, width and precision, as [`printf::integer`] takes them.
fn int_spec(spec: &spec::Spec) -> printf::IntSpec {
    printf::IntSpec {
        plus: spec.plus,
        space: spec.space,
        alt: spec.alt,
        zero: spec.zero,
        minus: spec.minus,
        width: spec.width,
        precision: spec.precision,
    }
}

fn sign_text(negative: bool, spec: &spec::Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// The `%s` text `String()` gives: a top-level string as is, a regexp as its source, Binary as
/// its bytes; containers with their strings quoted (as `%p`).
fn string_s(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Regexp(r) => r.to_ruby_s(),
        Value::Binary(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Undef => String::new(),
        Value::Array(_) | Value::Hash(_) => v.to_string(),
        other => other.to_plain_string(),
    }
}

/// The largest width or precision a format may ask for (a guard against huge allocations).
pub const MAX_WIDTH: usize = 1 << 20;

/// Formats a value with one `%` directive (`%s`, `%p`, `%d`, `%x`, `%X`, `%o`, `%b`, `%f`,
/// `%e`, `%g`, with flags `-+ 0#` and width/precision). `String(v)` without a format uses the
/// defaults: Floats as `%f`, everything else as `%s`.
///
/// ```
/// use puppet_types::{convert::format_value, Value};
/// assert_eq!(format_value(&Value::Float(3.0), None).unwrap(), "3.000000");
/// assert_eq!(format_value(&Value::Float(3.0), Some("%s")).unwrap(), "3.0");
/// assert_eq!(format_value(&Value::Integer(255), Some("%#x")).unwrap(), "0xff");
/// assert_eq!(format_value(&Value::string("a"), Some("%-3s|")).unwrap(), "a  |");
/// ```
pub fn format_value(v: &Value, fmt: Option<&str>) -> Result<String, TypeError> {
    let fmt = match fmt {
        Some(f) => f,
        None => {
            return Ok(match v {
                Value::Float(_) => format_value(v, Some("%f"))?,
                Value::Binary(b) => base64::engine::general_purpose::STANDARD.encode(b),
                other => string_s(other),
            })
        }
    };
    let spec = crate::convert::spec::parse(fmt)?;
    if spec.width.is_some_and(|w| w > MAX_WIDTH) || spec.precision.is_some_and(|p| p > MAX_WIDTH) {
        return Err(TypeError::BadFormat {
            message: format!("The format '{fmt}' asks for a width or precision above {MAX_WIDTH}"),
            offset: 0,
        });
    }
    let body = match (spec.conv, v) {
        ('s', _) => string_s(v),
        ('p', Value::String(s)) if spec.alt => crate::format::puppet_double_quote(s),
        ('p', _) => v.to_string(),
        ('c', Value::String(s)) => capitalize(s),
        ('C', Value::String(s)) => s.split("::").map(capitalize).collect::<Vec<_>>().join("::"),
        ('u', Value::String(s)) => s.to_uppercase(),
        ('d', Value::String(s)) => s.to_lowercase(),
        ('t', Value::String(s)) => s.trim().to_string(),
        ('c', Value::Integer(i)) => u32::try_from(*i)
            .ok()
            .and_then(char::from_u32)
            .map(String::from)
            .unwrap_or_default(),
        ('d' | 'x' | 'X' | 'o' | 'b' | 'B', _) => {
            let i = match v {
                Value::Float(f) => *f as i64,
                other => integer_from(other, None, false)?,
            };
            if i < 0 && spec.conv != 'd' && !spec.plus && !spec.space {
                // Ruby's two's complement form: `..f01`.
                let magnitude = match spec.conv {
                    'x' | 'X' => format!("{:x}", i.unsigned_abs()),
                    'o' => format!("{:o}", i.unsigned_abs()),
                    _ => format!("{:b}", i.unsigned_abs()),
                };
                let zero_width = spec.width.filter(|_| spec.zero && !spec.minus);
                printf::negative_radix(&magnitude, spec.conv, spec.alt, spec.precision, zero_width)
            } else {
                let digits = match spec.conv {
                    'd' => i.unsigned_abs().to_string(),
                    'x' => format!("{:x}", i.unsigned_abs()),
                    'X' => format!("{:X}", i.unsigned_abs()),
                    'o' => format!("{:o}", i.unsigned_abs()),
                    _ => format!("{:b}", i.unsigned_abs()),
                };
                printf::integer(i < 0, &digits, spec.conv, &int_spec(&spec))
            }
        }
        ('f' | 'e' | 'E' | 'g' | 'G' | 'a', _) => {
            let f = float_from(v, false)?;
            let p = spec.precision.unwrap_or(6);
            let s = match spec.conv {
                'f' => printf::fixed(f.abs(), p),
                'e' => printf::exponential(f.abs(), p),
                'E' => printf::exponential(f.abs(), p).to_uppercase(),
                'g' => printf::general(f.abs(), p, spec.alt),
                'G' => printf::general(f.abs(), p, spec.alt).to_uppercase(),
                _ => float_to_s(f.abs()),
            };
            let sign = sign_text(f < 0.0 || (f == 0.0 && f.is_sign_negative()), &spec);
            if spec.zero && !spec.minus && spec.width.is_some_and(|w| w > s.len() + sign.len()) {
                let pad = spec.width.unwrap_or(0) - s.len() - sign.len();
                format!("{sign}{}{s}", "0".repeat(pad))
            } else {
                format!("{sign}{s}")
            }
        }
        (other, _) => {
            return Err(TypeError::BadFormat {
                message: format!("Illegal format conversion '{other}'"),
                offset: spec.conv_offset,
            })
        }
    };
    let body = match (spec.conv, spec.precision) {
        ('s' | 'p', Some(p)) => body.chars().take(p).collect(),
        _ => body,
    };
    let n = body.chars().count();
    let padded = match spec.width {
        Some(w) if w > n => {
            if spec.minus {
                format!("{body}{}", " ".repeat(w - n))
            } else {
                format!("{}{body}", " ".repeat(w - n))
            }
        }
        _ => body,
    };
    Ok(format!("{}{padded}{}", spec.prefix, spec.suffix))
}

/// Format specifications (`%-10.3s`), parsed with chumsky so that errors point into the text.
pub mod spec {
    use crate::error::TypeError;
    use chumsky::prelude::*;

    /// One parsed `%` directive with the literal text around it.
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    pub struct Spec {
        /// Text before the directive.
        pub prefix: String,
        /// `-` flag.
        pub minus: bool,
        /// `+` flag.
        pub plus: bool,
        /// ` ` flag.
        pub space: bool,
        /// `0` flag.
        pub zero: bool,
        /// `#` flag.
        pub alt: bool,
        /// Width.
        pub width: Option<usize>,
        /// Precision.
        pub precision: Option<usize>,
        /// Conversion character.
        pub conv: char,
        /// Byte offset of the conversion character.
        pub conv_offset: usize,
        /// Text after the directive.
        pub suffix: String,
    }

    fn parser<'a>() -> impl Parser<'a, &'a str, Spec, extra::Err<Rich<'a, char>>> {
        let literal = none_of('%')
            .or(just("%%").to('%'))
            .repeated()
            .collect::<String>();
        let flags = one_of("-+ 0#").repeated().collect::<String>();
        let number = text::int(10).from_str::<usize>().unwrapped();
        let directive = just('%')
            .ignore_then(flags)
            .then(number.or_not())
            .then(just('.').ignore_then(number.or_not()).or_not())
            .then(any().map_with(|c: char, e| (c, e.span())));
        literal
            .then(directive)
            .then(literal)
            .then_ignore(end())
            .map(
                |((prefix, (((flags, width), precision), (conv, span))), suffix)| {
                    let span: SimpleSpan = span;
                    Spec {
                        prefix,
                        minus: flags.contains('-'),
                        plus: flags.contains('+'),
                        space: flags.contains(' '),
                        zero: flags.contains('0'),
                        alt: flags.contains('#'),
                        width,
                        precision: precision.map(|p| p.unwrap_or(0)),
                        conv,
                        conv_offset: span.start,
                        suffix,
                    }
                },
            )
    }

    /// Parses a format string holding exactly one directive.
    ///
    /// ```
    /// let s = puppet_types::convert::spec::parse("<%-5.2f>").unwrap();
    /// assert_eq!((s.minus, s.width, s.precision, s.conv), (true, Some(5), Some(2), 'f'));
    /// assert_eq!(puppet_types::convert::spec::parse("%").unwrap_err().code(), "TYPES_BAD_FORMAT");
    /// ```
    pub fn parse(fmt: &str) -> Result<Spec, TypeError> {
        parser().parse(fmt).into_result().map_err(|errs| {
            let offset = errs.first().map_or(0, |e| e.span().start);
            TypeError::BadFormat {
                message: format!("The format '{fmt}' is not a valid format (at offset {offset})"),
                offset,
            }
        })
    }
}

/// `Array.new(from, wrap)`.
pub fn array_from(v: &Value, wrap: bool) -> Result<Value, TypeError> {
    if wrap {
        return Ok(match v {
            Value::Array(_) => v.clone(),
            other => Value::array(vec![other.clone()]),
        });
    }
    match v {
        Value::Array(_) => Ok(v.clone()),
        Value::Hash(h) => Ok(Value::array(
            h.iter()
                .map(|(k, x)| Value::array(vec![k.clone(), x.clone()]))
                .collect(),
        )),
        Value::Binary(b) => Ok(Value::array(
            b.iter().map(|x| Value::Integer(*x as i64)).collect(),
        )),
        other => match IteratorValue::of(other) {
            Some(it) => Ok(Value::array(it.iter().take(10_000_000).collect())),
            None => Err(TypeError::Conversion(format!(
                "Value of type {} cannot be converted to Array",
                generalize(&infer(other))
            ))),
        },
    }
}

/// `SemVer(major, minor, patch, prerelease, build)`: as SemanticPuppet's `Version.new`, each
/// qualifier is one identifier, kept as text (`SemVer(1, 2, 3, '01')` is `1.2.3-01`).
fn semver_of_parts(
    nums: [i64; 3],
    prerelease: Option<&str>,
    build: Option<&str>,
) -> Result<Version, TypeError> {
    let [a, b, c] = nums;
    let qualifier = |q: &str| {
        q.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    };
    if !prerelease.is_none_or(qualifier) || !build.is_none_or(qualifier) || a < 0 || b < 0 || c < 0
    {
        let mut s = format!("{a}.{b}.{c}");
        if let Some(p) = prerelease {
            s.push('-');
            s.push_str(p);
        }
        if let Some(bd) = build {
            s.push('+');
            s.push_str(bd);
        }
        return Err(TypeError::Conversion(format!(
            "The string '{s}' cannot be converted to a SemVer"
        )));
    }
    let one = |q: Option<&str>| {
        q.map(|q| vec![crate::semver::Ident::Alpha(q.into())])
            .unwrap_or_default()
    };
    Ok(Version {
        prerelease: one(prerelease),
        build: one(build),
        ..Version::new(a as u64, b as u64, c as u64)
    })
}

/// `Hash.new(from)`: from a hash, an array of pairs, or a flat array of keys and values.
pub fn hash_from(v: &Value) -> Result<Value, TypeError> {
    match v {
        Value::Hash(_) => Ok(v.clone()),
        Value::Array(a) => {
            if a.iter()
                .all(|e| matches!(e, Value::Array(p) if p.len() == 2))
                && !a.is_empty()
            {
                return Ok(Value::hash(a.iter().filter_map(|e| match e {
                    Value::Array(p) => Some((p[0].clone(), p[1].clone())),
                    _ => None,
                })));
            }
            if a.len() % 2 != 0 {
                return Err(TypeError::Conversion(
                    "odd number of arguments for Hash".into(),
                ));
            }
            Ok(Value::hash(
                a.chunks(2).map(|c| (c[0].clone(), c[1].clone())),
            ))
        }
        other => match IteratorValue::of(other) {
            Some(it) => hash_from(&Value::array(it.iter().take(10_000_000).collect())),
            None => Err(TypeError::Conversion(format!(
                "Value of type {} cannot be converted to Hash",
                generalize(&infer(other))
            ))),
        },
    }
}

/// A container being built by [`hash_from_tree`]: Ruby mutates nested arrays and hashes in
/// place, so the tree is kept mutable until the end.
enum TreeNode {
    Hash(indexmap::IndexMap<Value, TreeNode>),
    Array(Vec<TreeNode>),
    Leaf(Value),
}

impl TreeNode {
    fn of(v: &Value) -> TreeNode {
        match v {
            Value::Array(a) => TreeNode::Array(a.iter().map(TreeNode::of).collect()),
            Value::Hash(h) => TreeNode::Hash(
                h.iter()
                    .map(|(k, x)| (k.clone(), TreeNode::of(x)))
                    .collect(),
            ),
            other => TreeNode::Leaf(other.clone()),
        }
    }

    fn value(self) -> Value {
        match self {
            TreeNode::Hash(h) => Value::hash(h.into_iter().map(|(k, n)| (k, n.value()))),
            TreeNode::Array(a) => Value::array(a.into_iter().map(TreeNode::value).collect()),
            TreeNode::Leaf(v) => v,
        }
    }
}

fn array_index(idx: &Value, len: usize) -> Option<usize> {
    match idx {
        Value::Integer(i) if *i >= 0 => Some(*i as usize),
        Value::Integer(i) if i.unsigned_abs() as usize <= len => {
            Some(len - i.unsigned_abs() as usize)
        }
        _ => None,
    }
}

/// `Hash.new(entries, tree)` / `Hash.new(entries, hash_tree)`: builds nested hashes from
/// `[path, value]` entries (as `tree_each` produces them), as Puppet's `from_tree` does: the
/// containers along a path are created as hashes when missing, an existing array is indexed
/// into; with `hash_tree` every array value becomes a hash keyed by index.
pub fn hash_from_tree(entries: &[Value], all_hashes: bool) -> Result<Value, TypeError> {
    let as_hash = |v: &Value| -> Value {
        match v {
            Value::Array(a) if all_hashes => Value::hash(
                a.iter()
                    .enumerate()
                    .map(|(i, x)| (Value::Integer(i as i64), x.clone())),
            ),
            other => other.clone(),
        }
    };
    let bad = |what: &str| TypeError::Conversion(format!("Hash tree: {what}"));
    let mut root = TreeNode::Hash(indexmap::IndexMap::new());
    for entry in entries {
        let Value::Array(pair) = entry else {
            return Err(bad("an entry is not a [path, value] pair"));
        };
        let (Some(Value::Array(path)), Some(value)) = (pair.first(), pair.get(1)) else {
            return Err(bad("an entry is not a [path, value] pair"));
        };
        if path.is_empty() {
            // The root: its entries merge into the result (an array by index).
            let TreeNode::Hash(r) = &mut root else {
                continue;
            };
            match value {
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        r.insert(Value::Integer(i as i64), TreeNode::of(x));
                    }
                }
                Value::Hash(h) => {
                    for (k, x) in h.iter() {
                        r.insert(k.clone(), TreeNode::of(x));
                    }
                }
                _ => return Err(bad("the root value is not an Array or a Hash")),
            }
            continue;
        }
        set_at(&mut root, path, TreeNode::of(&as_hash(value))).map_err(bad)?;
    }
    Ok(root.value())
}

/// Sets the value at a (non-empty) path, creating missing containers as hashes.
fn set_at(node: &mut TreeNode, path: &[Value], value: TreeNode) -> Result<(), &'static str> {
    let Some((first, rest)) = path.split_first() else {
        return Ok(());
    };
    let child = match node {
        TreeNode::Hash(h) if rest.is_empty() => {
            h.insert(first.clone(), value);
            return Ok(());
        }
        TreeNode::Hash(h) => h
            .entry(first.clone())
            .or_insert_with(|| TreeNode::Hash(indexmap::IndexMap::new())),
        TreeNode::Array(a) => {
            let i = array_index(first, a.len()).ok_or("an array index is not an Integer")?;
            if rest.is_empty() {
                while a.len() <= i {
                    a.push(TreeNode::Leaf(Value::Undef));
                }
                a[i] = value;
                return Ok(());
            }
            a.get_mut(i).ok_or("a path leads outside an array")?
        }
        TreeNode::Leaf(_) => return Err("a path leads through a value"),
    };
    set_at(child, rest, value)
}

/// `Binary.new(str, format)`: `%B` (strict base64, the default), `%b` (base64), `%u` (URL-safe
/// base64), `%s` (the string's bytes); or from an array of bytes.
pub fn binary_from(v: &Value, format: Option<&str>) -> Result<Value, TypeError> {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
    let invalid = || TypeError::Conversion("invalid base64".into());
    match v {
        Value::String(s) => {
            let bytes = match format.unwrap_or("%B") {
                "%s" | "%r" => s.as_bytes().to_vec(),
                "%u" => {
                    if s.len() % 4 == 0 {
                        URL_SAFE.decode(s.as_bytes()).map_err(|_| invalid())?
                    } else {
                        URL_SAFE_NO_PAD
                            .decode(s.as_bytes())
                            .map_err(|_| invalid())?
                    }
                }
                "%b" => lenient_base64(s),
                _ => STANDARD.decode(s.as_bytes()).map_err(|_| invalid())?,
            };
            Ok(Value::Binary(Arc::from(bytes)))
        }
        Value::Array(a) => {
            let mut out = Vec::with_capacity(a.len());
            for x in a.iter() {
                match x {
                    Value::Integer(i) if (0..=255).contains(i) => out.push(*i as u8),
                    other => return Err(conv_err(other, "Binary")),
                }
            }
            Ok(Value::Binary(Arc::from(out)))
        }
        Value::Hash(h) => {
            let value = h
                .get(&Value::string("value"))
                .cloned()
                .unwrap_or(Value::Undef);
            let fmt = h
                .get(&Value::string("format"))
                .and_then(|f| f.as_str().map(String::from));
            match value {
                Value::String(_) | Value::Array(_) => binary_from(&value, fmt.as_deref()),
                _ => Err(conv_err(v, "Binary")),
            }
        }
        Value::Binary(_) => Ok(v.clone()),
        other => Err(conv_err(other, "Binary")),
    }
}

/// Ruby's `Base64.decode64`: characters outside the alphabet are skipped, decoding stops at
/// `=`, and a short final group yields the bytes it holds.
fn lenient_base64(s: &str) -> Vec<u8> {
    let mut sextets = Vec::with_capacity(s.len());
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => continue,
        };
        sextets.push(v as u32);
    }
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for chunk in sextets.chunks(4) {
        let mut n = 0u32;
        for (i, x) in chunk.iter().enumerate() {
            n |= x << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let take = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => 0,
        };
        out.extend_from_slice(&bytes[..take]);
    }
    out
}

fn opt_bool(args: &[Value], i: usize) -> Result<bool, TypeError> {
    match args.get(i) {
        None | Some(Value::Undef) => Ok(false),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(other) => Err(conv_err(other, "Boolean")),
    }
}

/// The format argument of `Timespan.new` / `Timestamp.new`: a String, an Array of them, or
/// nothing (`undef`, `default`) for Puppet's defaults.
fn time_format(v: Option<&Value>) -> Result<crate::time::TimeFormat, TypeError> {
    use crate::time::TimeFormat;
    Ok(match v {
        None | Some(Value::Undef) | Some(Value::Default) => TimeFormat::Default,
        Some(Value::String(s)) => TimeFormat::One(s.to_string()),
        Some(Value::Array(a)) => TimeFormat::Many(
            a.iter()
                .map(|f| match f {
                    Value::String(s) => Ok(s.to_string()),
                    other => Err(conv_err(other, "a format")),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(other) => return Err(conv_err(other, "a format")),
    })
}

/// Ruby's `Regexp.escape`.
///
/// ```
/// assert_eq!(puppet_types::convert::ruby_regexp_escape("a.b c"), "a\\.b\\ c");
/// ```
pub fn ruby_regexp_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        match c {
            '.' | '*' | '?' | '+' | '^' | '$' | '|' | '(' | ')' | '[' | ']' | '{' | '}' | '\\'
            | '-' | '#' => {
                out.push('\\');
                out.push(c);
            }
            ' ' => out.push_str("\\ "),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x0c' => out.push_str("\\f"),
            '\x0b' => out.push_str("\\v"),
            other => out.push(other),
        }
    }
    out
}

/// `T.new(args...)` / `T(args...)` for the types this crate knows how to create.
///
/// ```
/// use puppet_types::{convert::new_value, resolve_type_name, Value};
/// let v = new_value(&resolve_type_name("Timespan"), &[Value::Integer(90)]).unwrap();
/// assert_eq!(v.to_string(), "Timespan('0-00:01:30.0')");
/// let b = new_value(&resolve_type_name("Boolean"), &[Value::string("Yes")]).unwrap();
/// assert_eq!(b, Value::Boolean(true));
/// ```
pub fn new_value(t: &Type, args: &[Value]) -> Result<Value, TypeError> {
    let first = args.first().cloned().unwrap_or(Value::Undef);
    let unalias = t.unalias();
    let v = match &unalias {
        Type::Integer(_) => {
            let (from, radix, abs) = match &first {
                Value::Hash(h) if args.len() == 1 => (
                    h.get(&Value::string("from"))
                        .cloned()
                        .unwrap_or(Value::Undef),
                    h.get(&Value::string("radix")).cloned(),
                    matches!(h.get(&Value::string("abs")), Some(Value::Boolean(true))),
                ),
                _ => (first.clone(), args.get(1).cloned(), opt_bool(args, 2)?),
            };
            let radix = match radix {
                None | Some(Value::Default) | Some(Value::Undef) => None,
                Some(Value::Integer(r)) => Some(u32::try_from(r).unwrap_or(0)),
                Some(other) => return Err(conv_err(&other, "Integer")),
            };
            Value::Integer(integer_from(&from, radix, abs)?)
        }
        Type::Float(_) | Type::Numeric => {
            let (from, abs) = match &first {
                Value::Hash(h) if args.len() == 1 && h.contains_key(&Value::string("from")) => (
                    h.get(&Value::string("from"))
                        .cloned()
                        .unwrap_or(Value::Undef),
                    matches!(h.get(&Value::string("abs")), Some(Value::Boolean(true))),
                ),
                _ => (first.clone(), opt_bool(args, 1)?),
            };
            if matches!(unalias, Type::Numeric) {
                numeric_from(&from, abs)?
            } else {
                Value::Float(float_from(&from, abs)?)
            }
        }
        Type::Boolean(_) => Value::Boolean(boolean_from(&first)?),
        Type::String(_) => Value::string(crate::strconv::string_new(&first, args.get(1))?),
        Type::Array(_) | Type::Tuple(_) => array_from(&first, opt_bool(args, 1)?)?,
        Type::Hash(_) | Type::Struct(_) => match (&first, args.get(1)) {
            (Value::Array(entries), Some(Value::String(o))) if o == "tree" || o == "hash_tree" => {
                hash_from_tree(entries, o == "hash_tree")?
            }
            _ => hash_from(&first)?,
        },
        Type::Sensitive(_) => match &first {
            Value::Sensitive(_) => first.clone(),
            other => Value::Sensitive(Arc::new(other.clone())),
        },
        Type::SemVer(_) => match args {
            [Value::String(s)] => Value::SemVer(Arc::new(Version::parse(s)?)),
            [Value::Integer(a), Value::Integer(b), Value::Integer(c), ..]
                if *a >= 0 && *b >= 0 && *c >= 0 =>
            {
                let text = |i: usize| match args.get(i) {
                    Some(Value::String(q)) => Some(q.as_str()),
                    _ => None,
                };
                Value::SemVer(Arc::new(semver_of_parts([*a, *b, *c], text(3), text(4))?))
            }
            // `SemVer({major => 1, minor => 2, patch => 3, prerelease => 'rc', build => '5'})`
            [Value::Hash(h)] => {
                let get = |k: &str| h.get(&Value::string(k));
                let part = |k: &str| match get(k) {
                    Some(Value::Integer(n)) if *n >= 0 => Ok(*n),
                    _ => Err(conv_err(&first, "a SemVer")),
                };
                let text = |k: &str| match get(k) {
                    Some(Value::String(q)) => Some(q.as_str()),
                    _ => None,
                };
                Value::SemVer(Arc::new(semver_of_parts(
                    [part("major")?, part("minor")?, part("patch")?],
                    text("prerelease"),
                    text("build"),
                )?))
            }
            _ => return Err(conv_err(&first, "a SemVer")),
        },
        Type::SemVerRange => match args {
            [Value::String(s)] => Value::SemVerRange(Arc::new(VersionRange::parse(s)?)),
            [a, b, rest @ ..] => {
                // `default` is SemanticPuppet's MIN or MAX.
                let ver = |x: &Value| match x {
                    Value::SemVer(v) => Ok(Some((**v).clone())),
                    Value::Default => Ok(None),
                    other => Err(conv_err(other, "SemVerRange")),
                };
                let min = ver(a)?;
                let max = ver(b)?;
                let ex = matches!(rest.first(), Some(Value::Boolean(true)));
                Value::SemVerRange(Arc::new(VersionRange::between(min, max, ex)))
            }
            // `SemVerRange({min => SemVer('1.0.0'), max => default, exclude_max => true})`
            [Value::Hash(h)] => {
                let get = |k: &str| h.get(&Value::string(k));
                let ver = |x: Option<&Value>| match x {
                    Some(Value::SemVer(v)) => Ok(Some((**v).clone())),
                    Some(Value::Default) | None => Ok(None),
                    Some(other) => Err(conv_err(other, "SemVerRange")),
                };
                if get("min").is_none() {
                    return Err(conv_err(&first, "SemVerRange"));
                }
                let min = ver(get("min"))?;
                let max = ver(get("max"))?;
                let ex = matches!(get("exclude_max"), Some(Value::Boolean(true)));
                Value::SemVerRange(Arc::new(VersionRange::between(min, max, ex)))
            }
            _ => return Err(conv_err(&first, "SemVerRange")),
        },
        Type::Timespan(_) => Value::Timespan(match &first {
            Value::Integer(i) if args.len() >= 4 => {
                let mut parts = Vec::new();
                for (k, v) in [
                    "days",
                    "hours",
                    "minutes",
                    "seconds",
                    "milliseconds",
                    "microseconds",
                    "nanoseconds",
                ]
                .iter()
                .zip(args)
                {
                    match v {
                        Value::Integer(n) => parts.push((*k, *n as i128)),
                        other => return Err(conv_err(other, "Timespan")),
                    }
                }
                let _ = i;
                Timespan::from_parts(&parts)?
            }
            Value::Integer(i) => Timespan::from_secs(*i),
            Value::Float(f) => Timespan::from_secs_f64(*f),
            Value::String(s) => Timespan::parse_with(s, &time_format(args.get(1))?)?,
            Value::Hash(h) if h.contains_key(&Value::string("string")) => {
                let s = h
                    .get(&Value::string("string"))
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string();
                Timespan::parse_with(&s, &time_format(h.get(&Value::string("format")))?)?
            }
            Value::Hash(h) => crate::params::timespan_from_hash(h)?,
            Value::Timespan(t) => *t,
            other => return Err(conv_err(other, "Timespan")),
        }),
        // `Timestamp()`, `Timestamp.new`: now.
        Type::Timestamp(_) if args.is_empty() => Value::Timestamp(Timestamp::now()),
        Type::Timestamp(_) => Value::Timestamp(match &first {
            Value::Integer(i) => Timestamp::from_secs(*i),
            Value::Float(f) => Timestamp::from_secs_f64(*f),
            Value::String(s) => Timestamp::parse_with(
                s,
                &time_format(args.get(1))?,
                args.get(2).and_then(|v| v.as_str()),
            )?,
            Value::Hash(h) => {
                let get = |k: &str| h.get(&Value::string(k));
                let s = get("string")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string();
                Timestamp::parse_with(
                    &s,
                    &time_format(get("format"))?,
                    get("timezone").and_then(|v| v.as_str()),
                )?
            }
            Value::Timestamp(t) => *t,
            other => return Err(conv_err(other, "Timestamp")),
        }),
        Type::Binary => {
            if args.len() == 2 && !matches!(first, Value::String(_)) {
                return Err(TypeError::Conversion(format!(
                    "The function 'new_Binary' was called with arguments it does not accept. It expects one of:\n  (String str, Base64Format = Enum['%B', '%b', '%r', '%s', '%u'] format?)\n    rejected: parameter 'str' expects a String value, got {}\n  (Array[ByteInteger] byte_array)\n    rejected: expects 1 argument, got 2\n  (BinaryArgsHash = Variant[StringHash = Struct[{{'value' => String, 'format' => Optional[Base64Format = Enum['%B', '%b', '%r', '%s', '%u']]}}], ArrayHash = Struct[{{'value' => Array[ByteInteger = Integer[0, 255]]}}]] hash_args)\n    rejected: expects 1 argument, got 2",
                    generalize(&infer(&first))
                )));
            }
            binary_from(&first, args.get(1).and_then(|f| f.as_str()))?
        }
        Type::Uri(_) => match &first {
            Value::String(s) => Value::Uri(Arc::new(Uri::parse(s))),
            Value::Hash(h) => Value::Uri(Arc::new(Uri::build(
                &h.iter()
                    .map(|(k, v)| (SmolStr::new(k.to_plain_string()), v.clone()))
                    .collect(),
            ))),
            other => return Err(conv_err(other, "URI")),
        },
        Type::Regexp(_) => match &first {
            // `Regexp(string, true)`: the string taken literally (Ruby's `Regexp.escape`).
            Value::String(s) if matches!(args.get(1), Some(Value::Boolean(true))) => {
                Value::Regexp(crate::regexp::Regexp::new(&ruby_regexp_escape(s))?)
            }
            Value::String(s) => Value::Regexp(crate::regexp::Regexp::new(s)?),
            Value::Regexp(_) => first.clone(),
            other => return Err(conv_err(other, "Regexp")),
        },
        Type::Optional(Some(inner)) | Type::NotUndef(Some(inner)) => return new_value(inner, args),
        Type::Object(o) => return crate::object::new_object(o, args),
        Type::Init(i) => match &i.target {
            Some(target) => {
                let mut all = args.to_vec();
                all.extend(i.args.iter().cloned());
                return new_value(target, &all);
            }
            None => {
                return Err(TypeError::Conversion(format!(
                    "Creation of new instance of type '{t}' is not supported"
                )))
            }
        },
        Type::Variant(_) | Type::Any | Type::Undef | Type::Default => {
            return Err(TypeError::Conversion(format!(
                "Creation of new instance of type '{t}' is not supported"
            )))
        }
        _ => {
            return Err(TypeError::Conversion(format!(
                "Creation of new instance of type '{t}' is not supported"
            )))
        }
    };
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &[i64], v: Value) -> Value {
        Value::array(vec![
            Value::array(path.iter().map(|i| Value::Integer(*i)).collect()),
            v,
        ])
    }

    /// Puppet 7.23's answers (functions.jsonl `new:690`, `new:708`).
    #[test]
    fn hash_trees_follow_ruby_mutation() {
        let kept = Value::array(vec![Value::string("overwritten"), Value::string("kept")]);
        let entries = [
            entry(&[0], Value::string("a")),
            entry(&[1, 0], Value::string("b")),
            entry(&[2], kept),
            entry(&[2, 0], Value::string("d")),
        ];
        assert_eq!(
            hash_from_tree(&entries, false).unwrap().to_string(),
            "{0 => 'a', 1 => {0 => 'b'}, 2 => ['d', 'kept']}"
        );
        assert_eq!(
            hash_from_tree(&entries, true).unwrap().to_string(),
            "{0 => 'a', 1 => {0 => 'b'}, 2 => {0 => 'd', 1 => 'kept'}}"
        );
    }
}
