//! Collection built-ins: `keys`, `values`, `length`, `size`, `empty`, `flatten`, `join`,
//! `unique`, `sort`, `min`, `max`, `compare`, `dig`, `get`.

use super::iteration::invoke;
use super::{elements, label, truthy};
use crate::context::{Block, CallContext};
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{RegistryError, Signature};
use puppet_types::string::JoinEncoding;
use puppet_types::{generalize, infer, Value};
use std::cmp::Ordering;
use std::sync::Arc;

/// Ruby's `inspect` of a value, as some messages show it (`[1, "yes"]`, `{"a"=>1}`).
pub(crate) fn ruby_inspect(v: &Value) -> String {
    puppet_types::ruby::inspect(v)
}

/// Ruby's `to_s` of a value inside `join`.
fn ruby_to_s(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::String(s) => s.to_string(),
        Value::Hash(_) => ruby_inspect(v),
        other => other.to_plain_string(),
    }
}

fn flatten_into(v: &Value, out: &mut Vec<Value>, depth: usize) {
    match v {
        Value::Array(a) if depth < 1000 => {
            for e in a.iter() {
                flatten_into(e, out, depth + 1);
            }
        }
        other => out.push(other.clone()),
    }
}

/// Ruby's `Array#join`: a nested array is joined in place with the same separator (an empty
/// one is an empty element: `[1, [], 2]` gives `1--2`).
/// Ruby's `Array#join` into `out`, with the joined text's encoding (binary or not).
fn ruby_join(
    v: &Value,
    sep: &Value,
    out: &mut String,
    encoding: &mut JoinEncoding,
    depth: usize,
) -> Result<(), &'static str> {
    match v {
        Value::Array(a) if depth < 1000 => {
            for (i, e) in a.iter().enumerate() {
                if i > 0 && !matches!(sep, Value::Undef) {
                    join_piece(sep, out, encoding)?;
                }
                match e {
                    Value::Array(_) => ruby_join(e, sep, out, encoding, depth + 1)?,
                    other => join_piece(other, out, encoding)?,
                }
            }
            Ok(())
        }
        other => join_piece(other, out, encoding),
    }
}

fn join_piece(
    v: &Value,
    out: &mut String,
    encoding: &mut JoinEncoding,
) -> Result<(), &'static str> {
    let start = out.len();
    out.push_str(&ruby_to_s(v));
    encoding.push(out, start, matches!(v, Value::String(s) if s.is_binary()))
}

/// Ruby's `<=>` on the values Puppet's `sort`, `min` and `max` compare without a lambda.
pub(crate) fn natural_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => Some(x.cmp(y)),
        (Value::Integer(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        (Value::Float(x), Value::Integer(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::String(x), Value::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::SemVer(x), Value::SemVer(y)) => x.partial_cmp(y),
        (Value::Timespan(x), Value::Timespan(y)) => Some(x.0.cmp(&y.0)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Some(x.0.cmp(&y.0)),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match natural_cmp(p, q)? {
                    Ordering::Equal => {}
                    o => return Some(o),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

/// Ruby's `comparison of A with B failed`: the class of `a`; `b` by its inspect when Ruby
/// keeps it as an immediate (nil, booleans, numbers, symbols), else its class.
fn cmp_error(a: &Value, b: &Value) -> CallError {
    let right = match b {
        Value::Undef => "nil".to_string(),
        Value::Boolean(x) => x.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => puppet_types::format::float_to_s(*f),
        Value::Default => ":default".to_string(),
        other => puppet_types::ruby::class_name(other),
    };
    CallError::new(
        codes::BAD_ARGUMENT,
        format!(
            "comparison of {} with {right} failed",
            puppet_types::ruby::class_name(a)
        ),
    )
}

fn block_cmp(
    ctx: &mut dyn CallContext,
    b: &dyn Block,
    x: &Value,
    y: &Value,
) -> Result<Ordering, CallError> {
    match invoke(ctx, b, vec![x.clone(), y.clone()])? {
        Some(Value::Integer(i)) => Ok(i.cmp(&0)),
        Some(Value::Float(f)) => Ok(f.partial_cmp(&0.0).unwrap_or(Ordering::Equal)),
        Some(other) => Err(CallError::new(
            codes::BAD_ARGUMENT,
            format!(
                "comparison of {} with 0 failed",
                puppet_types::ruby::class_name(&other)
            ),
        )),
        None => Err(CallError::Break),
    }
}

/// Merge sort with a fallible comparator (stable, no panics on inconsistent comparators).
fn sort_by(
    items: Vec<Value>,
    cmp: &mut dyn FnMut(&Value, &Value) -> Result<Ordering, CallError>,
) -> Result<Vec<Value>, CallError> {
    if items.len() <= 1 {
        return Ok(items);
    }
    let mut right = items;
    let left_part: Vec<Value> = right.drain(..right.len() / 2).collect();
    let left = sort_by(left_part, cmp)?;
    let right = sort_by(right, cmp)?;
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if cmp(&right[j], &left[i])? == Ordering::Less {
            out.push(right[j].clone());
            j += 1;
        } else {
            out.push(left[i].clone());
            i += 1;
        }
    }
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    Ok(out)
}

fn sort(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let subject = a.get(0);
    let (items, is_string) = match &subject {
        Value::String(s) => (
            s.chars().map(|c| Value::string(c.to_string())).collect(),
            true,
        ),
        other => (elements(other)?, false),
    };
    let sorted = match a.block {
        Some(b) => sort_by(items, &mut |x, y| block_cmp(ctx, b, x, y))?,
        // Ruby's sort reports the failing pair as (left, right) of the original order.
        None => sort_by(items, &mut |x, y| {
            natural_cmp(x, y).ok_or_else(|| cmp_error(y, x))
        })?,
    };
    if is_string {
        Ok(Value::string(
            sorted.iter().filter_map(|v| v.as_str()).collect::<String>(),
        ))
    } else {
        Ok(Value::array(sorted))
    }
}

fn numeric_like(s: &str) -> Option<f64> {
    let t = s.strip_prefix('-').unwrap_or(s);
    let mut parts = t.splitn(2, ['.', '_', 'e', 'E']);
    let head = parts.next().unwrap_or("");
    let ok_head = !head.is_empty() && head.bytes().all(|b| b.is_ascii_digit());
    let ok_tail = parts
        .next()
        .is_none_or(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()));
    if ok_head && ok_tail {
        let lead: String = s
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-' || *c == '.')
            .collect();
        lead.parse::<f64>().ok()
    } else {
        None
    }
}

fn extreme(
    ctx: &mut dyn CallContext,
    name: &str,
    values: Vec<Value>,
    block: Option<&dyn Block>,
    want: Ordering,
) -> Result<Value, CallError> {
    if values.is_empty() {
        return Err(CallError::new(
            codes::BAD_ARGUMENT,
            format!("{name}(): Wrong number of arguments need at least one"),
        ));
    }
    let mut warned = false;
    let mut warned_any = false;
    let is_num = |v: &Value| matches!(v, Value::Integer(_) | Value::Float(_));
    let is_str = |v: &Value| matches!(v, Value::String(_));
    let mixed = !(values.iter().all(is_num) || values.iter().all(is_str));
    let mut best = values[0].clone();
    for v in values.into_iter().skip(1) {
        let ord = match block {
            Some(b) => block_cmp(ctx, b, &v, &best)?,
            None => match (&v, &best) {
                (Value::Integer(_) | Value::Float(_), Value::Integer(_) | Value::Float(_))
                    if !mixed =>
                {
                    natural_cmp(&v, &best).unwrap_or(Ordering::Equal)
                }
                _ => {
                    let (vs, bs) = (ruby_to_s(&v), ruby_to_s(&best));
                    match (numeric_like(&vs), numeric_like(&bs)) {
                        (Some(x), Some(y)) => {
                            if !warned {
                                warned = true;
                                ctx.warn_once_unlocated(&format!("{name}_function_numeric_coerce_string"), &format!("The {name}() function's auto conversion of String to Numeric is deprecated - change to convert input before calling, or use lambda"));
                            }
                            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
                        }
                        _ => {
                            if mixed && !warned_any {
                                warned_any = true;
                                ctx.warn_once_unlocated(&format!("{name}_function_string_coerce_any"), &format!("The {name}() function's auto conversion of Any to String is deprecated - change to convert input before calling, or use lambda"));
                            }
                            vs.as_bytes().cmp(bs.as_bytes())
                        }
                    }
                }
            },
        };
        if ord == want {
            best = v;
        }
    }
    Ok(best)
}

fn min_max(
    reg: &mut Registry,
    name: &'static str,
    want: Ordering,
    doc: &str,
    ex: (&str, &str),
) -> Result<(), RegistryError> {
    let rep = move |c: &mut dyn CallContext, a: Args<'_>| {
        extreme(c, name, a.values.clone(), a.block, want)
    };
    let arr = move |c: &mut dyn CallContext, a: Args<'_>| {
        let vals = match a.get(0) {
            Value::Array(v) => (*v).clone(),
            _ => vec![],
        };
        extreme(c, name, vals, a.block, want)
    };
    reg.function(name)
        .doc(doc)
        .example(ex.0, ex.1)
        .dispatch(Signature::new().repeated_param("Numeric", "values"), rep)
        .dispatch(Signature::new().repeated_param("String", "values"), rep)
        .dispatch(
            Signature::new()
                .param("Array[Numeric]", "values")
                .optional_block_param("Callable[2,2]", "block"),
            arr,
        )
        .dispatch(
            Signature::new()
                .param("Array[String]", "values")
                .optional_block_param("Callable[2,2]", "block"),
            arr,
        )
        .dispatch(
            Signature::new()
                .param("Array", "values")
                .optional_block_param("Callable[2,2]", "block"),
            arr,
        )
        .dispatch(
            Signature::new()
                .repeated_param("Any", "values")
                .block_param("Callable[2,2]", "block"),
            rep,
        )
        .dispatch(Signature::new().repeated_param("Any", "values"), rep)
        .register()
}

fn compare(a: &Value, b: &Value, ignore_case: bool) -> Value {
    let o = match (a, b) {
        (Value::String(x), Value::String(y)) if ignore_case => puppet_types::ruby::casecmp(x, y),
        (Value::Timestamp(x), Value::Integer(_) | Value::Float(_)) => {
            let y = puppet_types::convert::float_from(b, false).unwrap_or(0.0);
            (x.0 as f64)
                .partial_cmp(&(y * 1e9))
                .unwrap_or(Ordering::Equal)
        }
        (Value::Timespan(x), Value::Integer(_) | Value::Float(_)) => {
            let y = puppet_types::convert::float_from(b, false).unwrap_or(0.0);
            (x.0 as f64)
                .partial_cmp(&(y * 1e9))
                .unwrap_or(Ordering::Equal)
        }
        (Value::Integer(_) | Value::Float(_), Value::Timestamp(_) | Value::Timespan(_)) => {
            return match compare(b, a, false) {
                Value::Integer(i) => Value::Integer(-i),
                other => other,
            }
        }
        _ => natural_cmp(a, b).unwrap_or(Ordering::Equal),
    };
    Value::Integer(o as i64)
}

fn comparable(v: &Value) -> bool {
    matches!(
        v,
        Value::String(_)
            | Value::Integer(_)
            | Value::Float(_)
            | Value::SemVer(_)
            | Value::Timespan(_)
            | Value::Timestamp(_)
    )
}

/// Splits a dotted navigation string (`a.0."b.c"`) into keys.
fn dotted(path: &str) -> Result<Vec<Value>, CallError> {
    let syntax = || {
        CallError::new(
            codes::BAD_ARGUMENT,
            "Syntax error in dotted-navigation string",
        )
    };
    let mut out = Vec::new();
    if path.is_empty() {
        return Ok(out);
    }
    let chars: Vec<char> = path.chars().collect();
    let mut i = 0;
    loop {
        if i < chars.len() && (chars[i] == '"' || chars[i] == '\'') {
            let q = chars[i];
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && chars[j] != q {
                j += 1;
            }
            if j >= chars.len() {
                return Err(syntax());
            }
            out.push(Value::string(chars[start..j].iter().collect::<String>()));
            i = j + 1;
        } else {
            let start = i;
            while i < chars.len() && chars[i] != '.' {
                i += 1;
            }
            let seg: String = chars[start..i].iter().collect();
            if seg.is_empty() {
                return Err(syntax());
            }
            out.push(match seg.parse::<i64>() {
                Ok(n) => Value::Integer(n),
                Err(_) => Value::string(seg),
            });
        }
        if i >= chars.len() {
            return Ok(out);
        }
        if chars[i] != '.' {
            return Err(syntax());
        }
        i += 1;
        if i >= chars.len() {
            return Err(syntax());
        }
    }
}

fn get(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let keys = dotted(a.get(1).as_str().unwrap_or_default())?;
    let default = a.get(2);
    let mut cur = a.get(0);
    let mut walked = Vec::new();
    for k in keys {
        if cur.is_undef() {
            break;
        }
        walked.push(k.clone());
        let next = match (&cur, &k) {
            (Value::Array(arr), Value::Integer(i)) => {
                let idx = if *i < 0 { arr.len() as i64 + i } else { *i };
                usize::try_from(idx)
                    .ok()
                    .and_then(|i| arr.get(i).cloned())
                    .unwrap_or(Value::Undef)
            }
            (Value::Array(_), _) => {
                let m = format!(
                    "The given data requires an Integer index at {}, got '{}'",
                    ruby_inspect(&Value::array(walked.clone())),
                    generalize(&infer(&k))
                );
                return on_get_error(ctx, &a, m, "EXPECTED_INTEGER_INDEX");
            }
            (Value::Hash(h), _) => h.get(&k).cloned().unwrap_or(Value::Undef),
            _ => {
                let m = format!(
                    "The given data does not contain a Collection at {}, got '{}'",
                    ruby_inspect(&Value::array(walked[..walked.len() - 1].to_vec())),
                    generalize(&infer(&cur))
                );
                return on_get_error(ctx, &a, m, "EXPECTED_COLLECTION");
            }
        };
        cur = next;
    }
    Ok(if cur.is_undef() { default } else { cur })
}

/// A navigation failure of `get`: the block, when given, receives an `Error` (kind
/// `SLICE_ERROR`, with the issue code) and its value is the result.
fn on_get_error(
    ctx: &mut dyn CallContext,
    a: &Args<'_>,
    message: String,
    issue_code: &str,
) -> Result<Value, CallError> {
    match a.block {
        Some(b) => {
            let e =
                puppet_types::object::error_value(&message, Some("SLICE_ERROR"), Some(issue_code));
            Ok(invoke(ctx, b, vec![e])?.unwrap_or(Value::Undef))
        }
        None => Err(CallError::new(codes::BAD_ARGUMENT, message)),
    }
}

fn dig(a: Args<'_>) -> Result<Value, CallError> {
    let mut cur = a.get(0);
    let mut walked = Vec::new();
    for k in a.values.iter().skip(1) {
        if cur.is_undef() || k.is_undef() {
            return Ok(Value::Undef);
        }
        if !matches!(cur, Value::Array(_) | Value::Hash(_)) {
            return Err(CallError::new(
                codes::BAD_ARGUMENT,
                format!(
                    "The given data does not contain a Collection at {}, got '{}'",
                    ruby_inspect(&Value::array(walked)),
                    generalize(&infer(&cur))
                ),
            ));
        }
        walked.push(k.clone());
        cur = match (&cur, k) {
            (Value::Array(arr), Value::Integer(i)) => {
                let idx = if *i < 0 { arr.len() as i64 + i } else { *i };
                usize::try_from(idx)
                    .ok()
                    .and_then(|i| arr.get(i).cloned())
                    .unwrap_or(Value::Undef)
            }
            (Value::Array(_), _) => {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    format!(
                        "The given data requires an Integer index at {}, got '{}'",
                        ruby_inspect(&Value::array(walked)),
                        generalize(&infer(k))
                    ),
                ))
            }
            (Value::Hash(h), _) => h.get(k).cloned().unwrap_or(Value::Undef),
            _ => Value::Undef,
        };
    }
    Ok(cur)
}

fn unique(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let subject = a.get(0);
    let key = |ctx: &mut dyn CallContext, v: &Value| -> Result<Value, CallError> {
        match a.block {
            Some(b) => Ok(invoke(ctx, b, vec![v.clone()])?.unwrap_or(Value::Undef)),
            None => Ok(v.clone()),
        }
    };
    match &subject {
        Value::String(s) => {
            let mut seen = indexmap::IndexSet::new();
            let mut out = String::new();
            for c in s.chars() {
                let k = key(ctx, &Value::string(c.to_string()))?;
                if seen.insert(k) {
                    out.push(c);
                }
            }
            Ok(Value::string(out))
        }
        Value::Hash(h) => {
            let mut groups: indexmap::IndexMap<Value, (Vec<Value>, indexmap::IndexSet<Value>)> =
                indexmap::IndexMap::new();
            for (k, v) in h.iter() {
                let kk = key(ctx, v)?;
                let g = groups.entry(kk).or_default();
                g.0.push(k.clone());
                g.1.insert(v.clone());
            }
            Ok(Value::hash(groups.into_values().map(|(ks, vs)| {
                (Value::array(ks), Value::array(vs.into_iter().collect()))
            })))
        }
        other => {
            let mut seen = indexmap::IndexSet::new();
            let mut out = Vec::new();
            for e in elements(other)? {
                if seen.insert(key(ctx, &e)?) {
                    out.push(e);
                }
            }
            Ok(Value::array(out))
        }
    }
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &[
    "keys", "values", "length", "size", "empty", "flatten", "join", "unique", "sort", "max", "min",
    "compare", "dig", "get",
];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("keys")
        .doc("Returns the keys of a Hash as an Array.")
        .example("{a => 1, b => 2}.keys", "['a', 'b']")
        .dispatch(Signature::new().param("Hash", "hsh"), |_c, a| {
            match a.get(0) {
                Value::Hash(h) => Ok(Value::array(h.keys().cloned().collect())),
                _ => Ok(Value::array(vec![])),
            }
        })
        .register()?;
    reg.function("values")
        .doc("Returns the values of a Hash as an Array.")
        .example("{a => 1, b => 2}.values", "[1, 2]")
        .dispatch(Signature::new().param("Hash", "hsh"), |_c, a| {
            match a.get(0) {
                Value::Hash(h) => Ok(Value::array(h.values().cloned().collect())),
                _ => Ok(Value::array(vec![])),
            }
        })
        .register()?;
    fn len(v: &Value) -> Value {
        Value::Integer(match v {
            Value::Array(a) => a.len(),
            Value::Hash(h) => h.len(),
            Value::String(s) => s.chars().count(),
            Value::Binary(b) => b.len(),
            _ => 0,
        } as i64)
    }
    reg.function("length")
        .doc("Returns the number of elements of a Collection, characters of a String or bytes of a Binary.")
        .example("length([1, 2, 3])", "3")
        .dispatch(Signature::new().param("Collection", "arg"), |_c, a| Ok(len(&a.get(0))))
        .dispatch(Signature::new().param("String", "arg"), |_c, a| Ok(len(&a.get(0))))
        .dispatch(Signature::new().param("Binary", "arg"), |_c, a| Ok(len(&a.get(0))))
        .register()?;
    reg.function("size")
        .doc("The same as `length`.")
        .example("size('abc')", "3")
        .dispatch(
            Signature::new().param("Variant[Collection, String, Binary]", "arg"),
            |_c, a| Ok(len(&a.get(0))),
        )
        .register()?;
    reg.function("empty")
        .doc("Returns true for an empty Collection, String, Sensitive String or Binary, and for undef; false for a number.")
        .example("[empty(''), empty([1]), empty(undef)]", "[true, false, true]")
        .dispatch(Signature::new().param("Collection", "coll"), |_c, a| Ok(Value::Boolean(matches!(len(&a.get(0)), Value::Integer(0)))))
        .dispatch(Signature::new().param("Sensitive[String]", "str"), |_c, a| match a.get(0) {
            Value::Sensitive(s) => Ok(Value::Boolean(s.as_str().is_some_and(str::is_empty))),
            _ => Ok(Value::Boolean(false)),
        })
        .dispatch(Signature::new().param("String", "str"), |_c, a| Ok(Value::Boolean(a.get(0).as_str().is_some_and(str::is_empty))))
        .dispatch(Signature::new().param("Numeric", "num"), |c, _a| {
            c.deprecation_at_call("empty", "Calling function empty() with Numeric value is deprecated.");
            Ok(Value::Boolean(false))
        })
        .dispatch(Signature::new().param("Binary", "bin"), |_c, a| Ok(Value::Boolean(matches!(len(&a.get(0)), Value::Integer(0)))))
        .dispatch(Signature::new().param("Undef", "x"), |_c, _a| Ok(Value::Boolean(true)))
        .register()?;
    reg.function("flatten")
        .doc("Flattens its arguments (and nested Arrays in them) into one Array.")
        .example("flatten([1, [2, [3]]], 4)", "[1, 2, 3, 4]")
        .dispatch(Signature::new().repeated_param("Any", "args"), |_c, a| {
            let mut out = Vec::new();
            for v in &a.values {
                flatten_into(v, &mut out, 0);
            }
            Ok(Value::array(out))
        })
        .register()?;
    reg.function("join")
        .doc("Joins the (flattened) elements of an Array into a String with an optional delimiter.")
        .example("join([1, 2, 3], '-')", "'1-2-3'")
        .dispatch(
            Signature::new()
                .param("Array", "arg")
                .optional_param("String", "delimiter"),
            |_c, a| {
                let mut out = String::new();
                let mut encoding = JoinEncoding::default();
                ruby_join(&a.get(0), &a.get(1), &mut out, &mut encoding, 0)
                    .map_err(|m| CallError::new(codes::FAILED, m))?;
                Ok(Value::String(puppet_types::Str::with_binary(
                    out,
                    encoding.is_binary(),
                )))
            },
        )
        .register()?;
    reg.function("unique")
        .doc("Removes duplicates from a String, Array, Hash (values; keys are grouped) or Iterable, optionally comparing by a lambda's result.")
        .example("[1, 2, 1].unique", "[1, 2]")
        .dispatch(Signature::new().param("String", "string").optional_block_param("Callable[String]", "block"), unique)
        .dispatch(Signature::new().param("Hash", "hash").optional_block_param("Callable[Any]", "block"), unique)
        .dispatch(Signature::new().param("Array", "array").optional_block_param("Callable[Any]", "block"), unique)
        .dispatch(Signature::new().param("Iterable", "iterable").optional_block_param("Callable[Any]", "block"), unique)
        .register()?;
    reg.function("sort")
        .doc("Sorts an Array or the characters of a String, by natural order or by a lambda returning -1, 0 or 1.")
        .example("sort([3, 1, 2])", "[1, 2, 3]")
        .dispatch(Signature::new().param("String", "string_value").optional_block_param("Callable[2,2]", "block"), sort)
        .dispatch(Signature::new().param("Array", "array_value").optional_block_param("Callable[2,2]", "block"), sort)
        .register()?;
    min_max(reg, "max", Ordering::Greater, "Returns the highest of the values (numbers numerically, strings lexically, or by a lambda).", ("max(1, 3, 2)", "3"))?;
    min_max(reg, "min", Ordering::Less, "Returns the lowest of the values (numbers numerically, strings lexically, or by a lambda).", ("min(1, 3, 2)", "1"))?;
    reg.function("compare")
        .doc("Compares two values of the same kind (Numeric, String, SemVer, Timespan, Timestamp), giving -1, 0 or 1; strings ignore case unless told otherwise.")
        .example("[compare(1, 2), compare('a', 'A'), compare('a', 'A', false)]", "[-1, 0, 1]")
        .local_type("TimeComparable", "Variant[Numeric, Timespan, Timestamp]")
        .local_type("Comparable", "Variant[String, Semver, TimeComparable]")
        .dispatch(Signature::new().param("Numeric", "a").param("Numeric", "b"), |_c, a| Ok(compare(&a.get(0), &a.get(1), false)))
        .dispatch(Signature::new().param("String", "a").param("String", "b").optional_param("Boolean", "ignore_case"), |_c, a| {
            let ic = !matches!(a.get(2), Value::Boolean(false));
            Ok(compare(&a.get(0), &a.get(1), ic))
        })
        .dispatch(Signature::new().param("Semver", "a").param("Semver", "b"), |_c, a| Ok(compare(&a.get(0), &a.get(1), false)))
        .dispatch(Signature::new().param("Numeric", "a").param("Variant[Timespan, Timestamp]", "b"), |_c, a| Ok(compare(&a.get(0), &a.get(1), false)))
        .dispatch(Signature::new().param("Timestamp", "a").param("Variant[Timestamp, Numeric]", "b"), |_c, a| Ok(compare(&a.get(0), &a.get(1), false)))
        .dispatch(Signature::new().param("Timespan", "a").param("Variant[Timespan, Numeric]", "b"), |_c, a| Ok(compare(&a.get(0), &a.get(1), false)))
        .argument_mismatch(Signature::new().param("Comparable", "a").param("Comparable", "b").repeated_param("Any", "ignore_case"), |args| {
            let (a, b) = (&args[0], &args[1]);
            let extra = &args[2..];
            if !extra.is_empty() {
                if !(matches!(a, Value::String(_)) && matches!(b, Value::String(_))) {
                    return "compare(): The third argument (ignore case) can only be used when comparing strings".into();
                }
                if extra.len() != 1 {
                    return format!("compare(): Accepts at most 3 arguments, got {}", 2 + extra.len());
                }
                if !matches!(extra[0], Value::Boolean(_)) {
                    return format!("compare(): The third argument (ignore case) must be a Boolean. Got {}", label(&extra[0]));
                }
            }
            format!("compare(): Can only compare values of the same type (or for Timestamp/Timespan also against Numeric). Got {} and {}", label(a), label(b))
        })
        .argument_mismatch(Signature::new().param("Any", "a").param("Any", "b").repeated_param("Any", "ignore_case"), |args| {
            let _ = comparable;
            format!("compare(): Non comparable type. Only values of the types Numeric, String, Semver, Timestamp and Timestamp can be compared. Got {} and {}", label(&args[0]), label(&args[1]))
        })
        .register()?;
    reg.function("dig")
        .doc("Digs into nested Arrays and Hashes by a path of keys and indexes; undef when a step is missing.")
        .example("{a => [1, {b => 2}]}.dig('a', 1, 'b')", "2")
        .dispatch(Signature::new().param("Optional[Collection]", "data").repeated_param("Any", "arg"), |_c, a| dig(a))
        .register()?;
    reg.function("get")
        .doc("Digs into a value by a dotted path (`a.0.\"b.c\"`), returning the default when the result is undef; a lambda receives errors (here as a message String, Puppet passes an Error object).")
        .example("get({a => [1, 2]}, 'a.1')", "2")
        .dispatch(Signature::new().param("Any", "value").param("String", "dotted_string").optional_param("Any", "default_value").optional_block_param("Callable[1,1]", "block"), get)
        .register()?;
    let _ = truthy;
    let _: Option<Arc<()>> = None;
    Ok(())
}
