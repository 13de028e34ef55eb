//! Text forms: types and values printed exactly as Puppet 7 prints them.
//!
//! `type_string` follows Puppet's TypeFormatter (`Integer[1, 2]`, `Hash[0, 0]`,
//! `Struct[{'a' => Integer}]`), `value_p` the `%p` rendering of values, and `plain_value` the
//! `%s`/interpolation form. Ruby's Float#to_s rules are reproduced by [`float_to_s`].
//! Arbitrary `String(v, format)` specs are not handled here (see `convert`).

use crate::assign::assignable;
use crate::types::{IntRange, StringType, Type};
use crate::value::Value;
use base64::Engine;

/// Ruby's `Float#to_s`: `3.0`, `0.0001`, `1.0e-05`, `1.0e+15`, `1.0e+20` (fixed notation
/// while the decimal exponent is below 16 digits, as Ruby 3.1 prints). The one
/// implementation of the workspace: puppet-ruby prints floats with it too.
///
/// ```
/// use puppet_types::format::float_to_s;
/// assert_eq!(float_to_s(3.0), "3.0");
/// assert_eq!(float_to_s(1e20), "1.0e+20");
/// assert_eq!(float_to_s(1e15), "1.0e+15");
/// assert_eq!(float_to_s(123456789012345.0), "123456789012345.0");
/// assert_eq!(float_to_s(1234567890123456.0), "1.234567890123456e+15");
/// assert_eq!(float_to_s(1609680940486206.8), "1609680940486206.8");
/// assert_eq!(float_to_s(0.00001), "1.0e-05");
/// assert_eq!(float_to_s(123456.789), "123456.789");
/// ```
pub fn float_to_s(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let sign = if f < 0.0 { "-" } else { "" };
    // Fixed notation from 1e-4 up to 16 integer digits when there is a fraction to show, 15
    // when the value is whole (Ruby's flo_to_s: `1609680940486206.8` but `1.0e+15`).
    if (-4..15).contains(&exp) || (exp == 15 && digits.len() > 16) {
        let mut s = String::new();
        if exp < 0 {
            s.push_str("0.");
            for _ in 0..(-exp - 1) {
                s.push('0');
            }
            s.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                s.push_str(&digits);
                for _ in digits.len()..int_len {
                    s.push('0');
                }
                s.push_str(".0");
            } else {
                s.push_str(&digits[..int_len]);
                s.push('.');
                s.push_str(&digits[int_len..]);
            }
        }
        format!("{sign}{s}")
    } else {
        let frac = if digits.len() > 1 { &digits[1..] } else { "0" };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{}.{frac}e{esign}{:02}", &digits[..1], exp.abs())
    }
}

/// Puppet's single-quoted form of a string, switching to double quotes for control characters.
pub fn puppet_quote(s: &str) -> String {
    if s.chars().any(|c| (c as u32) < 0x20) {
        return puppet_double_quote(s);
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            out.push('\\');
            out.push(c);
            escaped = false;
        } else if c == '\'' {
            out.push_str("\\'");
        } else if c == '\\' {
            escaped = true;
        } else {
            out.push(c);
        }
    }
    if escaped {
        out.push('\\');
    }
    out.push('\'');
    out
}

/// Puppet's double-quoted form of a string (`%#p`).
pub fn puppet_double_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '$' => out.push_str("\\$"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn range_part(r: Option<IntRange>) -> Vec<String> {
    match r {
        None => vec![],
        Some(r) if r.is_unbounded() => vec![],
        Some(r) => {
            let mut v = vec![r.min.map_or("default".to_string(), |m| m.to_string())];
            if let Some(m) = r.max {
                v.push(m.to_string());
            }
            v
        }
    }
}

/// Capitalizes each `::` segment of a resource type name, as Puppet prints them.
pub fn capitalize_segments(name: &str) -> String {
    if name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return name.to_string();
    }
    name.split("::")
        .map(|seg| {
            let mut cs = seg.chars();
            match cs.next() {
                Some(c) => c.to_uppercase().collect::<String>() + &cs.as_str().to_lowercase(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("::")
}

fn join_types(out: &mut String, ts: &[Type]) {
    for (i, t) in ts.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        type_string(out, t);
    }
}

fn push_list(out: &mut String, name: &str, parts: Vec<String>) {
    out.push_str(name);
    if !parts.is_empty() {
        out.push('[');
        out.push_str(&parts.join(", "));
        out.push(']');
    }
}

fn ts(t: &Type) -> String {
    let mut s = String::new();
    type_string(&mut s, t);
    s
}

fn contained_string(t: &Type) -> String {
    match t {
        Type::String(StringType::Value(v)) => puppet_quote(v),
        other => ts(other),
    }
}

/// Appends the Puppet text of a type.
pub fn type_string(out: &mut String, t: &Type) {
    match t {
        Type::Any => out.push_str("Any"),
        Type::Undef => out.push_str("Undef"),
        Type::Default => out.push_str("Default"),
        Type::Unit => out.push_str("Unit"),
        Type::Numeric => out.push_str("Numeric"),
        Type::Scalar => out.push_str("Scalar"),
        Type::ScalarData => out.push_str("ScalarData"),
        Type::CatalogEntry => out.push_str("CatalogEntry"),
        Type::Binary => out.push_str("Binary"),
        Type::SemVerRange => out.push_str("SemVerRange"),
        Type::Boolean(b) => push_list(
            out,
            "Boolean",
            b.map(|b| b.to_string()).into_iter().collect(),
        ),
        Type::Integer(r) => push_list(out, "Integer", range_part(Some(*r))),
        Type::Float(r) => {
            let mut parts = vec![];
            if !r.is_unbounded() {
                parts.push(if r.min == f64::NEG_INFINITY {
                    "default".into()
                } else {
                    float_to_s(r.min)
                });
                if r.max != f64::INFINITY {
                    parts.push(float_to_s(r.max));
                }
            }
            push_list(out, "Float", parts)
        }
        Type::String(s) => push_list(out, "String", range_part(s.size())),
        Type::Enum(e) => {
            let mut parts: Vec<String> = e.values.iter().map(|v| puppet_quote(v)).collect();
            if e.case_insensitive && !parts.is_empty() {
                parts.push("true".into());
            }
            push_list(out, "Enum", parts)
        }
        Type::Pattern(ps) => push_list(out, "Pattern", ps.iter().map(|p| p.to_string()).collect()),
        Type::Regexp(r) => push_list(out, "Regexp", r.iter().map(|p| p.to_string()).collect()),
        Type::Collection(r) => push_list(out, "Collection", range_part(*r)),
        Type::Array(a) => {
            if a.size.is_some_and(|s| s.min == Some(0) && s.max == Some(0)) {
                out.push_str("Array[0, 0]");
            } else if a.element == Type::Any && a.size.is_none() {
                out.push_str("Array");
            } else {
                let mut parts = vec![ts(&a.element)];
                parts.extend(range_part(a.size));
                push_list(out, "Array", parts)
            }
        }
        Type::Hash(h) => {
            if h.size.is_some_and(|s| s.min == Some(0) && s.max == Some(0)) {
                out.push_str("Hash[0, 0]");
            } else if h.key == Type::Any && h.value == Type::Any && h.size.is_none() {
                out.push_str("Hash");
            } else {
                let mut parts = vec![ts(&h.key), ts(&h.value)];
                parts.extend(range_part(h.size));
                push_list(out, "Hash", parts)
            }
        }
        Type::Tuple(t) => {
            if t.types.is_empty() {
                out.push_str("Tuple");
            } else {
                let mut parts: Vec<String> = t.types.iter().map(ts).collect();
                parts.extend(range_part(t.size));
                push_list(out, "Tuple", parts)
            }
        }
        Type::Struct(elems) => {
            if elems.is_empty() {
                out.push_str("Struct");
                return;
            }
            out.push_str("Struct[{");
            for (i, e) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let value_optional = assignable(&e.value, &Type::Undef);
                let key_is_optional = matches!(e.key, Type::Optional(_));
                let name = puppet_quote(&e.name);
                if key_is_optional {
                    if value_optional {
                        out.push_str(&name)
                    } else {
                        out.push_str(&format!("Optional[{name}]"))
                    }
                } else if value_optional {
                    out.push_str(&format!("NotUndef[{name}]"))
                } else {
                    out.push_str(&name)
                }
                out.push_str(" => ");
                type_string(out, &e.value);
            }
            out.push_str("}]");
        }
        Type::Optional(o) => push_list(
            out,
            "Optional",
            o.iter().map(|t| contained_string(t)).collect(),
        ),
        Type::NotUndef(o) => push_list(
            out,
            "NotUndef",
            o.iter()
                .filter(|t| ***t != Type::Any)
                .map(|t| contained_string(t))
                .collect(),
        ),
        Type::Variant(vs) => {
            if vs.is_empty() {
                out.push_str("Variant");
            } else {
                out.push_str("Variant[");
                join_types(out, vs);
                out.push(']');
            }
        }
        Type::Type(o) => push_list(out, "Type", o.iter().map(|t| ts(t)).collect()),
        Type::Iterable(o) => push_list(out, "Iterable", o.iter().map(|t| ts(t)).collect()),
        Type::Iterator(o) => push_list(out, "Iterator", o.iter().map(|t| ts(t)).collect()),
        Type::Sensitive(t) => {
            if **t == Type::Any {
                out.push_str("Sensitive")
            } else {
                push_list(out, "Sensitive", vec![ts(t)])
            }
        }
        Type::Class(n) => push_list(out, "Class", n.iter().map(|n| n.to_string()).collect()),
        Type::Resource(r) => match &r.type_name {
            None => out.push_str("Resource"),
            Some(n) => push_list(
                out,
                &capitalize_segments(n),
                r.title.iter().map(|t| puppet_quote(t)).collect(),
            ),
        },
        Type::Callable(c) => callable_string(out, c),
        Type::SemVer(rs) => push_list(out, "SemVer", rs.iter().map(|r| format!("'{r}'")).collect()),
        Type::Timespan(r) => time_range(
            out,
            "Timespan",
            r.min.map(|m| m.to_string()),
            r.max.map(|m| m.to_string()),
        ),
        Type::Timestamp(r) => time_range(
            out,
            "Timestamp",
            r.min.map(|m| m.to_string()),
            r.max.map(|m| m.to_string()),
        ),
        Type::Init(i) => match &i.target {
            None => out.push_str("Init"),
            Some(t) => {
                let mut parts = vec![ts(t)];
                parts.extend(i.args.iter().map(|a| a.to_string()));
                push_list(out, "Init", parts)
            }
        },
        Type::Runtime(r) => {
            let mut parts = vec![];
            if r.runtime.is_some() || r.name.is_some() {
                parts.push(
                    r.runtime
                        .as_ref()
                        .map_or("undef".to_string(), |s| s.to_string()),
                );
                parts.push(
                    r.name
                        .as_ref()
                        .map_or("undef".to_string(), |s| puppet_quote(s)),
                );
            }
            push_list(out, "Runtime", parts)
        }
        Type::Uri(p) => match p {
            None => out.push_str("URI"),
            Some(m) => {
                out.push_str("URI[{");
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&puppet_quote(k));
                    out.push_str(" => ");
                    value_p(out, v);
                }
                out.push_str("}]");
            }
        },
        Type::TypeReference(n) => {
            out.push_str("TypeReference[");
            out.push_str(&puppet_quote(n));
            out.push(']');
        }
        // An alias naming an Object type is that Object type.
        Type::Alias(a) if matches!(a.resolved(), Type::Object(o) if o.name.as_deref() == Some(a.name()) && o.ext.is_none()) => {
            type_string(out, &a.resolved())
        }
        Type::Alias(a) => {
            out.push_str(a.name());
            let expand = EXPANDING.with(|e| {
                let mut e = e.borrow_mut();
                match e.as_mut() {
                    Some(stack)
                        if !BUILTIN_ALIASES.contains(&a.name())
                            && !stack.iter().any(|n| n == a.name()) =>
                    {
                        stack.push(a.name().to_string());
                        true
                    }
                    _ => false,
                }
            });
            if expand {
                out.push_str(" = ");
                type_string(out, &a.resolved());
                EXPANDING.with(|e| {
                    if let Some(stack) = e.borrow_mut().as_mut() {
                        stack.pop();
                    }
                });
            }
        }
        Type::Object(o) => {
            // Alias-expanded, a named Object type shows its definition (once per nesting).
            let expand = EXPANDING.with(|e| match (e.borrow_mut().as_mut(), &o.name) {
                (Some(stack), Some(n))
                    if o.ext.is_none()
                        && o.kind == crate::types::ObjectKind::Object
                        && !stack.iter().any(|x| x == n.as_str()) =>
                {
                    stack.push(n.to_string());
                    true
                }
                _ => false,
            });
            if expand {
                crate::object::expanded_text(out, o);
                EXPANDING.with(|e| {
                    if let Some(stack) = e.borrow_mut().as_mut() {
                        stack.pop();
                    }
                });
            } else {
                crate::object::nested_text(out, o);
            }
        }
    }
}

/// The aliases Puppet defines itself; never expanded.
const BUILTIN_ALIASES: [&str; 3] = ["Data", "RichData", "RichDataKey"];

thread_local! {
    /// While formatting alias-expanded: the aliases being expanded (a self-recursive alias
    /// shows its name only inside its own expansion).
    static EXPANDING: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Puppet's `to_alias_expanded_s`: the text of a type where every alias is shown as
/// `Name = <its type>` (`PM = Hash[UP = Integer[1024, 65537], String]`), each self-recursive
/// alias expanded once. The built-in aliases (`Data`, `RichData`, `RichDataKey`) keep their
/// names.
pub fn alias_expanded_string(t: &Type) -> String {
    let outer = EXPANDING.with(|e| e.borrow_mut().replace(Vec::new()));
    let mut out = String::new();
    type_string(&mut out, t);
    EXPANDING.with(|e| *e.borrow_mut() = outer);
    out
}

/// Appends the text of a type shown on its own (a type value, `Display`): Object types, and
/// aliases that name them, are shown expanded (`Object[{name => 'X', ...}]`), other aliases
/// as Puppet's alias `to_s` shows them ([`alias_expanded_string`]); everything else as
/// [`type_string`] shows it.
pub fn type_top(out: &mut String, t: &Type) {
    match t {
        Type::Object(o) => crate::object::expanded_text(out, o),
        Type::Alias(a) => match a.resolved() {
            Type::Object(o) if o.name.as_deref() == Some(a.name()) && o.ext.is_none() => {
                crate::object::expanded_text(out, &o)
            }
            _ => out.push_str(&alias_expanded_string(t)),
        },
        _ => type_string(out, t),
    }
}

fn time_range(out: &mut String, name: &str, min: Option<String>, max: Option<String>) {
    if min.is_none() && max.is_none() {
        out.push_str(name);
        return;
    }
    let mut parts = vec![min
        .clone()
        .map_or("default".to_string(), |m| format!("'{m}'"))];
    if let Some(m) = max {
        if Some(&m) != min.as_ref() {
            parts.push(format!("'{m}'"));
        }
    }
    push_list(out, name, parts)
}

fn callable_params(c: &crate::types::CallableType) -> Vec<String> {
    let Some(p) = &c.params else { return vec![] };
    let mut parts: Vec<String> = p
        .types
        .iter()
        .filter(|t| **t != Type::Unit)
        .map(ts)
        .collect();
    if p.types.is_empty() {
        parts.push("0".into());
        parts.push("0".into());
    } else {
        parts.extend(range_part(p.size));
    }
    if let Some(b) = &c.block {
        parts.push(ts(b));
    }
    parts
}

fn callable_string(out: &mut String, c: &crate::types::CallableType) {
    match &c.returns {
        None => {
            if c.params.is_none() {
                // A Callable with only a block still prints its parts.
                if let Some(b) = &c.block {
                    push_list(out, "Callable", vec!["0".into(), "0".into(), ts(b)]);
                } else {
                    out.push_str("Callable");
                }
            } else {
                push_list(out, "Callable", callable_params(c))
            }
        }
        Some(r) => {
            if c.params.is_none() {
                push_list(out, "Callable", vec!["[]".into(), ts(r)])
            } else {
                let inner = format!("[{}]", callable_params(c).join(", "));
                push_list(out, "Callable", vec![inner, ts(r)])
            }
        }
    }
}

/// Appends the `%p` text of a value.
pub fn value_p(out: &mut String, v: &Value) {
    match v {
        Value::Undef => out.push_str("undef"),
        Value::Default => out.push_str("default"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&float_to_s(*f)),
        Value::String(s) => out.push_str(&puppet_quote(s)),
        Value::Regexp(r) => out.push_str(&r.to_string()),
        Value::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                value_p(out, e);
            }
            out.push(']');
        }
        Value::Iterator(it) => {
            out.push('[');
            for (i, e) in it.iter().take(100_000).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                value_p(out, &e);
            }
            out.push(']');
        }
        Value::Hash(h) => {
            out.push('{');
            for (i, (k, e)) in h.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                value_p(out, k);
                out.push_str(" => ");
                value_p(out, e);
            }
            out.push('}');
        }
        Value::Type(t) => type_top(out, t),
        Value::Object(o) => crate::object::value_text_p(out, o),
        // Ruby's `inspect` of Puppet's Sensitive (`#<` + its `to_s` + `>`), as `String(s, '%p')`
        // and a container's elements show it.
        Value::Sensitive(_) => out.push_str("#<Sensitive [value redacted]>"),
        // Puppet's string converter has no rule of its own for versions: `%p` is Ruby's
        // `inspect` of SemanticPuppet's version, its text.
        Value::SemVer(v) => out.push_str(&v.to_string()),
        // `%p` of a range is SemanticPuppet's `inspect`: its parts, canonical
        // (`SemVerRange('>= 1.0.0 <2.x')` shows as `>=1.0.0 <2.0.0`).
        Value::SemVerRange(v) => out.push_str(&v.inspect()),
        Value::Timespan(t) => out.push_str(&format!("Timespan('{t}')")),
        Value::Timestamp(t) => out.push_str(&format!("Timestamp('{t}')")),
        Value::Binary(b) => {
            out.push_str("Binary(\"");
            out.push_str(&base64::engine::general_purpose::STANDARD.encode(b));
            out.push_str("\")");
        }
        Value::Uri(u) => out.push_str(&format!("URI({})", puppet_quote(&u.text))),
    }
}

/// Appends the `%s` text of a value (`String(v)`: a nested `undef` is `undef`).
pub fn plain_value(out: &mut String, v: &Value, top: bool) {
    plain_value_with(out, v, top, "undef")
}

/// Appends the text of a value interpolated into a string (`"${v}"`, EPP's `<%= %>`):
/// as [`plain_value`], but a nested `undef` is empty (`"${[1, undef]}"` is `[1, ]`).
pub fn interpolated_value(out: &mut String, v: &Value) {
    plain_value_with(out, v, true, "")
}

fn plain_value_with(out: &mut String, v: &Value, top: bool, undef: &str) {
    match v {
        Value::Undef => {
            if !top {
                out.push_str(undef)
            }
        }
        Value::String(s) => out.push_str(s),
        Value::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                plain_value_with(out, e, false, undef);
            }
            out.push(']');
        }
        Value::Iterator(it) => {
            out.push('[');
            for (i, e) in it.iter().take(100_000).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                plain_value_with(out, &e, false, undef);
            }
            out.push(']');
        }
        Value::Hash(h) => {
            out.push('{');
            for (i, (k, e)) in h.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                plain_value_with(out, k, false, undef);
                out.push_str(" => ");
                plain_value_with(out, e, false, undef);
            }
            out.push('}');
        }
        Value::Sensitive(_) => out.push_str("Sensitive [value redacted]"),
        Value::SemVer(v) => out.push_str(&v.to_string()),
        Value::SemVerRange(v) => out.push_str(&v.to_string()),
        Value::Timespan(t) => out.push_str(&t.to_string()),
        Value::Timestamp(t) => out.push_str(&t.to_string()),
        Value::Binary(b) => out.push_str(&base64::engine::general_purpose::STANDARD.encode(b)),
        Value::Uri(u) => out.push_str(&u.text),
        other => value_p(out, other),
    }
}
