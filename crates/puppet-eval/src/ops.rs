//! Puppet's operators on values: arithmetic, comparison, equality, `in`, truthiness.
//!
//! Pure functions over `puppet_types::Value`; the evaluator calls them and wraps their
//! errors with the expression that failed ("Error while evaluating a '+' expression, ...").
//! Semantics follow Puppet 7.23: integer arithmetic is checked for 64-bit overflow and
//! divides with floor; `==` on strings ignores case (also inside arrays and hash values,
//! not hash keys); numbers and strings never compare equal.

use puppet_types::{assignable, Value};
use std::sync::Arc;

/// Puppet's truthiness: only `undef` and `false` are false.
pub fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Undef | Value::Boolean(false))
}

/// Puppet's `==`: [`Value::puppet_eq`].
pub fn equals(a: &Value, b: &Value) -> bool {
    a.puppet_eq(b)
}

/// A numeric value of an operand, coercing numeric strings as Puppet does (with a warning,
/// reported by the caller through `coerced`).
pub fn to_number(v: &Value, coerced: &mut bool) -> Option<Value> {
    match v {
        Value::Integer(_) | Value::Float(_) => Some(v.clone()),
        Value::String(s) => {
            let parsed = parse_numeric_string(s)?;
            *coerced = true;
            Some(parsed)
        }
        _ => None,
    }
}

/// Parses `"12"`, `"0x1F"`, `"017"`, `"1.5e3"`, `"-3"` as Puppet does for arithmetic.
pub fn parse_numeric_string(t: &str) -> Option<Value> {
    // A sign may be followed by blanks (`'- 2'` is -2 to Puppet).
    let blanks: &[char] = &[' ', '\t'];
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r.trim_start_matches(blanks)),
        None => (
            false,
            t.strip_prefix('+')
                .map(|r| r.trim_start_matches(blanks))
                .unwrap_or(t),
        ),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Value::Integer(i64::from_str_radix(h, 16).ok()?)
    } else if body.len() > 1 && body.starts_with('0') && body.bytes().all(|b| b.is_ascii_digit()) {
        Value::Integer(i64::from_str_radix(&body[1..], 8).ok()?)
    } else if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        Value::Integer(body.parse().ok()?)
    } else {
        let f: f64 = body.parse().ok()?;
        if !body.bytes().next()?.is_ascii_digit() {
            return None;
        }
        Value::Float(f)
    };
    Some(if neg {
        match v {
            Value::Integer(i) => Value::Integer(-i),
            Value::Float(f) => Value::Float(-f),
            other => other,
        }
    } else {
        v
    })
}

/// An arithmetic failure: the message after "Error while evaluating a 'op' expression, ".
pub type OpResult = Result<Value, OpError>;

/// Where Puppet reports an operator's failure: a language issue is reported without the
/// evaluator's "Error while evaluating a 'op' expression" prefix, at the operand it is about
/// (`Division by 0` at the divisor) or at the operator; a runtime error of the operation
/// itself gets the prefix, at the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorSite {
    /// An issue about the left operand.
    Left,
    /// An issue about the right operand.
    Right,
    /// An issue about the operation, at the operator.
    Operator,
    /// A runtime error of the operation (with the prefix), at the operator.
    Expression,
}

/// An operator's failure: Puppet's message and where it is reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpError {
    pub message: String,
    pub site: ErrorSite,
}

impl OpError {
    fn at(site: ErrorSite, message: impl Into<String>) -> OpError {
        OpError {
            message: message.into(),
            site,
        }
    }
}

impl From<String> for OpError {
    fn from(message: String) -> OpError {
        OpError::at(ErrorSite::Expression, message)
    }
}

impl From<&str> for OpError {
    fn from(message: &str) -> OpError {
        OpError::at(ErrorSite::Expression, message)
    }
}

/// Puppet's message for an Integer result out of the 64-bit range, with the exact value.
fn overflow(op: &str, i: i64, j: i64) -> String {
    let (i, j) = (i as i128, j as i128);
    let exact: Option<i128> = match op {
        "+" => Some(i + j),
        "-" => Some(i - j),
        "*" => i.checked_mul(j),
        "<<" if (0..64).contains(&j) => Some(i * (1i128 << j)),
        "/" => Some(i / j),
        _ => None,
    };
    let (bound, v) = match exact {
        Some(v) if v < 0 => ("min", format!("-0x{:x}", v.unsigned_abs())),
        Some(v) => ("max", format!("+0x{v:x}")),
        None => ("max", "?".into()),
    };
    format!("A '{op}' expression resulted in a value outside of Puppet Integer {bound} range, got '{v}'")
}

/// `a + b`, `a - b`, `a * b`, `a / b`, `a % b`, `a << b`, `a >> b`.
pub fn arithmetic(op: &str, a: &Value, b: &Value, coerced: &mut bool) -> OpResult {
    // Collections first.
    match (op, a, b) {
        // `URI + String|URI`: the reference resolved against the URI.
        ("+", Value::Uri(base), Value::String(r)) => {
            return Ok(Value::Uri(Arc::new(
                base.join(&puppet_types::value::Uri::parse(r)),
            )));
        }
        ("+", Value::Uri(base), Value::Uri(r)) => {
            return Ok(Value::Uri(Arc::new(base.join(r))));
        }
        ("+", Value::Array(x), Value::Array(y)) => {
            let mut v = (**x).clone();
            v.extend(y.iter().cloned());
            return Ok(Value::Array(Arc::new(v)));
        }
        ("+", Value::Array(x), Value::Hash(h)) => {
            let mut v = (**x).clone();
            for (k, val) in h.iter() {
                v.push(Value::array(vec![k.clone(), val.clone()]));
            }
            return Ok(Value::Array(Arc::new(v)));
        }
        ("+", Value::Array(x), other) => {
            let mut v = (**x).clone();
            v.push(other.clone());
            return Ok(Value::Array(Arc::new(v)));
        }
        ("+", Value::Hash(x), Value::Hash(y)) => {
            let mut h = (**x).clone();
            for (k, v) in y.iter() {
                h.insert(k.clone(), v.clone());
            }
            return Ok(Value::Hash(Arc::new(h)));
        }
        ("+", Value::Hash(x), Value::Array(y)) => {
            let mut h = (**x).clone();
            if y.iter()
                .all(|e| matches!(e, Value::Array(p) if p.len() == 2))
            {
                for e in y.iter() {
                    if let Value::Array(pair) = e {
                        h.insert(pair[0].clone(), pair[1].clone());
                    }
                }
            } else if y.len() % 2 == 0 {
                for pair in y.chunks(2) {
                    h.insert(pair[0].clone(), pair[1].clone());
                }
            } else {
                return Err("odd number of arguments for Hash".into());
            }
            return Ok(Value::Hash(Arc::new(h)));
        }
        ("+", Value::Hash(_), _) => {
            return Err("Can only append Array or Hash to a Hash".into());
        }
        ("-", Value::Array(x), Value::Array(y)) => {
            let v: Vec<Value> = x
                .iter()
                .filter(|e| !y.iter().any(|r| equals(e, r)))
                .cloned()
                .collect();
            return Ok(Value::array(v));
        }
        ("-", Value::Array(x), Value::Hash(h)) => {
            let v: Vec<Value> = x
                .iter()
                .filter(|e| match e {
                    Value::Array(pair) if pair.len() == 2 => !h
                        .iter()
                        .any(|(k, val)| equals(k, &pair[0]) && equals(val, &pair[1])),
                    _ => true,
                })
                .cloned()
                .collect();
            return Ok(Value::array(v));
        }
        ("-", Value::Array(x), other) => {
            let v: Vec<Value> = x.iter().filter(|e| !equals(e, other)).cloned().collect();
            return Ok(Value::array(v));
        }
        ("-", Value::Hash(x), Value::Hash(y)) => {
            let h = x
                .iter()
                .filter(|(k, _)| !y.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            return Ok(Value::Hash(Arc::new(h)));
        }
        ("-", Value::Hash(x), Value::Array(y)) => {
            let h = x
                .iter()
                .filter(|(k, _)| !y.iter().any(|r| equals(k, r)))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            return Ok(Value::Hash(Arc::new(h)));
        }
        ("-", Value::Hash(x), other) => {
            let h = x
                .iter()
                .filter(|(k, _)| !equals(k, other))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            return Ok(Value::Hash(Arc::new(h)));
        }
        // `<<` is a collection operator (an Array's append); the others make Puppet coerce
        // the hash to a number (below), which fails.
        ("<<", Value::Hash(_), _) => {
            return Err(OpError::at(
                ErrorSite::Left,
                format!("Operator '{op}' is not applicable to a Hash."),
            ));
        }
        ("<<", Value::Array(x), other) => {
            let mut v = (**x).clone();
            v.push(other.clone());
            return Ok(Value::Array(Arc::new(v)));
        }
        ("+", Value::Binary(x), Value::Binary(y)) => {
            let mut v = x.to_vec();
            v.extend_from_slice(y);
            return Ok(Value::Binary(Arc::from(v)));
        }
        _ => {}
    }
    if let Some(r) = time_arithmetic(op, a, b) {
        return r;
    }
    if let Some(e) = version_arithmetic(op, a, b, coerced) {
        return Err(e);
    }
    let (Some(x), Some(y)) = (to_number(a, coerced), to_number(b, coerced)) else {
        let bad = if to_number(a, &mut false).is_none() {
            a
        } else {
            b
        };
        return Err(match op {
            "+" | "-" if matches!(a, Value::Hash(_) | Value::Array(_)) => OpError::at(
                ErrorSite::Left,
                format!("Operator '{op}' is not applicable to {}.", a_an_type(a)),
            ),
            _ => OpError::at(
                if std::ptr::eq(bad, a) {
                    ErrorSite::Left
                } else {
                    ErrorSite::Right
                },
                not_numeric(bad),
            ),
        });
    };
    match (x, y) {
        (Value::Integer(i), Value::Integer(j)) => int_op(op, i, j),
        // Ruby's Integer#<< and #>> take a Float count, truncated.
        (Value::Integer(i), Value::Float(f)) if matches!(op, "<<" | ">>") && f.is_finite() => {
            int_op(op, i, f.trunc().clamp(-1e18, 1e18) as i64)
        }
        (Value::Integer(_), Value::Float(_)) if op == "%" => Err(OpError::at(
            ErrorSite::Left,
            format!("Operator '{op}' is not applicable to an Integer when right side is a Float."),
        )),
        (x, y) => {
            let fx = as_f64(&x);
            let fy = as_f64(&y);
            let r = match op {
                "+" => fx + fy,
                "-" => fx - fy,
                "*" => fx * fy,
                // A Float division by zero is Ruby's Infinity (refused below) or NaN.
                "/" => fx / fy,
                "%" | "<<" | ">>" => {
                    return Err(OpError::at(
                        ErrorSite::Left,
                        format!("Operator '{op}' is not applicable to a Float."),
                    ))
                }
                _ => return Err(format!("unknown operator {op}").into()),
            };
            // Puppet refuses a result that overflowed to infinity.
            if r.is_infinite() {
                return Err(OpError::at(
                    ErrorSite::Left,
                    format!("The result of the {op} expression is Infinity"),
                ));
            }
            Ok(Value::Float(r))
        }
    }
}

/// Puppet's NOT_NUMERIC: the value as Ruby's `to_s` writes it (`["x", "y"]`,
/// `{"a"=>1}`, `(?-mix:x)`, nothing for undef).
pub(crate) fn not_numeric(v: &Value) -> String {
    format!(
        "The value '{}' cannot be converted to Numeric.",
        puppet_types::ruby::to_s(v)
    )
}

fn a_an_type(v: &Value) -> String {
    let name = match v {
        Value::Hash(_) => "Hash".to_string(),
        Value::Array(_) => "Array".to_string(),
        Value::Integer(_) => "Integer".to_string(),
        Value::Float(_) => "Float".to_string(),
        Value::Timespan(_) => "Timespan".to_string(),
        Value::Timestamp(_) => "Timestamp".to_string(),
        other => {
            let t = puppet_types::generalize(&puppet_types::infer(other)).to_string();
            t.split('[').next().unwrap_or("").to_string()
        }
    };
    article(&name)
}

fn article(name: &str) -> String {
    let a = if "AEIOUaeiou".contains(name.chars().next().unwrap_or('x')) {
        "an"
    } else {
        "a"
    };
    format!("{a} {name}")
}

/// "an Integer", "a Hash", "an Array-Type", "an Undef Value": how Puppet names the type of
/// a value in messages.
pub fn a_an_value(v: &Value) -> String {
    match v {
        Value::Type(t) => {
            let s = t.to_string();
            article(&format!("{}-Type", s.split('[').next().unwrap_or("")))
        }
        Value::Undef => "an Undef Value".into(),
        Value::Default => "a Default Value".into(),
        Value::String(_) => "a String".into(),
        Value::Boolean(_) => "a Boolean".into(),
        Value::Regexp(_) => "a Regexp".into(),
        other => a_an_type(other),
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

fn int_op(op: &str, i: i64, j: i64) -> OpResult {
    let r = match op {
        "+" => i.checked_add(j),
        "-" => i.checked_sub(j),
        "*" => i.checked_mul(j),
        "/" => {
            if j == 0 {
                return Err(OpError::at(ErrorSite::Right, "Division by 0"));
            }
            i.checked_div_euclid(j)
                .map(|_| i.div_euclid(j))
                .map(|_| floor_div(i, j))
        }
        "%" => {
            if j == 0 {
                return Err(OpError::at(ErrorSite::Right, "Division by 0"));
            }
            i.checked_rem(j)
                .map(|_| i.rem_euclid(j))
                .map(|_| floor_mod(i, j))
        }
        "<<" => {
            if j < 0 {
                shr(i, j.checked_neg().unwrap_or(i64::MAX))
            } else {
                shl(i, j)
            }
        }
        ">>" => {
            if j < 0 {
                shl(i, j.checked_neg().unwrap_or(i64::MAX))
            } else {
                shr(i, j)
            }
        }
        _ => return Err(format!("unknown operator {op}").into()),
    };
    r.map(Value::Integer)
        .ok_or_else(|| OpError::at(ErrorSite::Operator, overflow(op, i, j)))
}

fn floor_div(i: i64, j: i64) -> i64 {
    let q = i / j;
    if (i % j != 0) && ((i < 0) != (j < 0)) {
        q - 1
    } else {
        q
    }
}

fn floor_mod(i: i64, j: i64) -> i64 {
    let r = i % j;
    if r != 0 && ((r < 0) != (j < 0)) {
        r + j
    } else {
        r
    }
}

fn shl(i: i64, n: i64) -> Option<i64> {
    if n >= 64 {
        return if i == 0 { Some(0) } else { None };
    }
    let r = i.checked_shl(n as u32)?;
    if (r >> n) != i {
        return None;
    }
    Some(r)
}

fn shr(i: i64, n: i64) -> Option<i64> {
    Some(if n >= 64 {
        if i < 0 {
            -1
        } else {
            0
        }
    } else {
        i >> n
    })
}

/// Timespan/Timestamp arithmetic, or `None` when neither operand is a time value.
/// Arithmetic with a SemVer, which Ruby counts as a `Numeric` without operators: on the
/// left, Puppet's `send` finds no method; on the right of a number, Ruby's coercion to Float
/// fails. `None` when no SemVer is involved.
fn version_arithmetic(op: &str, a: &Value, b: &Value, coerced: &mut bool) -> Option<OpError> {
    if matches!(a, Value::SemVer(_)) {
        return Some(OpError::at(
            ErrorSite::Left,
            format!("Operator '{op}' is not applicable to a Semver."),
        ));
    }
    if !matches!(b, Value::SemVer(_)) {
        return None;
    }
    let left = to_number(a, coerced)?;
    Some(match (op, &left) {
        ("%", Value::Float(_)) | ("<<" | ">>", _) => OpError::at(
            ErrorSite::Left,
            format!("Operator '{op}' is not applicable to {}.", a_an_type(&left)),
        ),
        _ => OpError::at(
            ErrorSite::Expression,
            "can't convert SemanticPuppet::Version into Float",
        ),
    })
}

fn time_arithmetic(op: &str, a: &Value, b: &Value) -> Option<OpResult> {
    use puppet_types::{Timespan, Timestamp};
    // Times are kept in integer nanoseconds; numbers are seconds. Adding in nanoseconds keeps
    // the precision an f64 of seconds since 1970 would lose.
    let ns = |v: &Value| -> Option<i128> {
        match v {
            Value::Integer(i) => Some(*i as i128 * 1_000_000_000),
            Value::Float(f) => Some((*f * 1e9).round() as i128),
            _ => None,
        }
    };
    let num = |v: &Value| match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    let not_applicable = |v: &Value| {
        OpError::at(
            ErrorSite::Left,
            format!("Operator '{op}' is not applicable to {}.", a_an_type(v)),
        )
    };
    let span = |n: i128| Value::Timespan(Timespan(n));
    let stamp = |n: i128| Value::Timestamp(Timestamp(n));
    let scaled = |n: i128, f: f64| (n as f64 * f).round() as i128;
    Some(match (a, b) {
        (Value::Timespan(x), Value::Timespan(y)) => match op {
            "+" => Ok(span(x.0 + y.0)),
            "-" => Ok(span(x.0 - y.0)),
            "/" => Ok(Value::Float(x.0 as f64 / y.0 as f64)),
            "*" => Err("A Timestamp cannot be multiplied by a Timespan".into()),
            _ => Err(not_applicable(a)),
        },
        (Value::Timespan(x), other) if num(other).is_some() => {
            let n = num(other).unwrap_or(0.0);
            let d = ns(other).unwrap_or(0);
            match op {
                "+" => Ok(span(x.0 + d)),
                "-" => Ok(span(x.0 - d)),
                "*" => Ok(span(scaled(x.0, n))),
                "/" => Ok(span(scaled(x.0, 1.0 / n))),
                _ => Err(not_applicable(a)),
            }
        }
        (Value::Timespan(x), Value::Timestamp(y)) => match op {
            "+" => Ok(stamp(x.0 + y.0)),
            "-" => Err("A Timestamp cannot be subtracted from a Timespan".into()),
            "*" => Err("A Timestamp cannot be multiplied by a Timestamp".into()),
            "/" => Err("A Timespan cannot be divided by a Timestamp".into()),
            _ => Err(not_applicable(a)),
        },
        (Value::Timestamp(x), Value::Timespan(y)) => match op {
            "+" => Ok(stamp(x.0 + y.0)),
            "-" => Ok(stamp(x.0 - y.0)),
            _ => Err(not_applicable(a)),
        },
        (Value::Timestamp(x), Value::Timestamp(y)) => match op {
            "-" => Ok(span(x.0 - y.0)),
            "+" => Err("A Timestamp cannot be added to a Timestamp".into()),
            _ => Err(not_applicable(a)),
        },
        (Value::Timestamp(x), other) if num(other).is_some() => {
            let d = ns(other).unwrap_or(0);
            match op {
                "+" => Ok(stamp(x.0 + d)),
                "-" => Ok(stamp(x.0 - d)),
                _ => Err(not_applicable(a)),
            }
        }
        (Value::Timestamp(_), _) => Err(not_applicable(a)),
        (Value::Integer(_) | Value::Float(_), Value::Timestamp(_)) if op == "+" => {
            return time_arithmetic(op, b, a);
        }
        (Value::Integer(_) | Value::Float(_), Value::Timestamp(_)) => Err(OpError::at(
            ErrorSite::Left,
            format!(
                "Operator '{op}' is not applicable to {} when right side is a Timestamp.",
                a_an_type(a)
            ),
        )),
        (Value::Integer(_) | Value::Float(_), Value::Timespan(_)) if op == "+" || op == "*" => {
            return time_arithmetic(op, b, a);
        }
        (Value::Integer(_) | Value::Float(_), Value::Timespan(y)) if op == "-" => {
            Ok(span(ns(a).unwrap_or(0) - y.0))
        }
        (Value::Integer(_) | Value::Float(_), Value::Timespan(_)) => Err(OpError::at(
            ErrorSite::Left,
            format!(
                "Operator '{op}' is not applicable to {} when right side is a Timespan.",
                a_an_type(a)
            ),
        )),
        _ => return None,
    })
}

fn ts_secs(t: &puppet_types::Timestamp) -> f64 {
    t.0 as f64 / 1e9
}

/// `a < b` and friends: the answer, or Puppet's error text.
pub fn compare(op: &str, a: &Value, b: &Value) -> Result<bool, String> {
    use std::cmp::Ordering;
    let ord: Ordering = match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Integer(_) | Value::Float(_), Value::Integer(_) | Value::Float(_)) => {
            as_f64(a).partial_cmp(&as_f64(b)).unwrap_or(Ordering::Equal)
        }
        (Value::String(x), Value::String(y)) => puppet_types::ruby::casecmp(x, y),
        (Value::Type(x), Value::Type(y)) => {
            let ab = assignable(y, x); // x <= y
            let ba = assignable(x, y);
            return Ok(match op {
                "<" => ab && !ba,
                "<=" => ab,
                ">" => ba && !ab,
                ">=" => ba,
                _ => false,
            });
        }
        // A type compared with a value that is not a type: neither is assignable to the
        // other (Puppet's type calculator answers false).
        (Value::Type(_), _) => return Ok(false),
        (Value::Timespan(x), Value::Timespan(y)) => x
            .as_secs_f64()
            .partial_cmp(&y.as_secs_f64())
            .unwrap_or(Ordering::Equal),
        (Value::Timespan(x), Value::Integer(_) | Value::Float(_)) => x
            .as_secs_f64()
            .partial_cmp(&as_f64(b))
            .unwrap_or(Ordering::Equal),
        (Value::Integer(_) | Value::Float(_), Value::Timespan(y)) => as_f64(a)
            .partial_cmp(&y.as_secs_f64())
            .unwrap_or(Ordering::Equal),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.secs().cmp(&y.secs()),
        (Value::Timestamp(x), Value::Integer(_) | Value::Float(_)) => ts_secs(x)
            .partial_cmp(&as_f64(b))
            .unwrap_or(Ordering::Equal),
        (Value::Integer(_) | Value::Float(_), Value::Timestamp(y)) => as_f64(a)
            .partial_cmp(&ts_secs(y))
            .unwrap_or(Ordering::Equal),
        (Value::SemVer(x), Value::SemVer(y)) => x.cmp(y),
        _ => {
            let cause = match a {
                Value::String(_) => "A String is not comparable to a non String",
                Value::Integer(_) | Value::Float(_) => "A Numeric is not comparable to non Numeric",
                Value::Timespan(_) => {
                    "Timespans are only comparable to Timespans, Integers, and Floats"
                }
                Value::Timestamp(_) => {
                    "Timestamps are only comparable to Timestamps, Integers, and Floats"
                }
                Value::SemVer(_) => "A version is only comparable to another version",
                _ => "Only Strings, Numbers, Timespans, Timestamps, and Versions are comparable",
            };
            return Err(format!(
                "Comparison of: {} {op} {}, is not possible. Caused by '{cause}'.",
                type_label(a),
                type_label(b)
            ));
        }
    };
    Ok(match op {
        "<" => ord == Ordering::Less,
        "<=" => ord != Ordering::Greater,
        ">" => ord == Ordering::Greater,
        ">=" => ord != Ordering::Less,
        _ => false,
    })
}

fn type_label(v: &Value) -> String {
    match v {
        Value::String(_) => "String".into(),
        Value::Undef => "Undef Value".into(),
        Value::Default => "Default".into(),
        Value::Integer(_) => "Integer".into(),
        Value::Float(_) => "Float".into(),
        Value::Boolean(_) => "Boolean".into(),
        Value::Array(_) => "Array".into(),
        Value::Hash(_) => "Hash".into(),
        Value::Regexp(_) => "Regexp".into(),
        Value::Type(t) => puppet_types::params::type_label(t),
        other => puppet_types::generalize(&puppet_types::infer(other)).to_string(),
    }
}
