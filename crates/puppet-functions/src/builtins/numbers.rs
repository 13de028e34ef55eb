//! Number built-ins: `abs`, `ceiling`, `floor`, `round`.

use crate::error::{codes, CallError};
use crate::registry::Registry;
use crate::{CallContext, RegistryError, Signature};
use puppet_types::Value;

/// `abs` on a String: Puppet's stdlib-compatible patterns (`-?\d+` and `-?\d+\.\d+`).
fn abs_from_string(ctx: &mut dyn CallContext, v: &Value) -> Result<Value, CallError> {
    ctx.warn_once_unlocated(
        "abs_function_numeric_coerce_string",
        "The abs() function's auto conversion of String to Numeric is deprecated - change to convert input before calling",
    );
    let s = v.as_str().unwrap_or_default();
    let body = s.strip_prefix('-').unwrap_or(s);
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let bad = || {
        CallError::new(
            codes::BAD_ARGUMENT,
            "abs(): Requires float or integer to work with - was given non decimal string",
        )
    };
    match body.split_once('.') {
        Some((i, f)) if digits(i) && digits(f) => {
            Ok(Value::Float(s.parse::<f64>().map_err(|_| bad())?))
        }
        None if digits(body) => match body.trim_start_matches('0').parse::<i64>() {
            Ok(n) => Ok(Value::Integer(if s.starts_with('-') { -n } else { n })),
            Err(_) if body.trim_start_matches('0').is_empty() => Ok(Value::Integer(0)),
            Err(_) => Err(bad()),
        },
        _ => Err(bad()),
    }
}

/// Ruby's `Float(str)`: decimal (underscores between digits allowed) or `0x` hexadecimal.
fn ruby_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if h.is_empty() || h.starts_with('_') || h.ends_with('_') || h.contains("__") {
            return None;
        }
        u64::from_str_radix(&h.replace('_', ""), 16).ok()? as f64
    } else {
        let bytes = body.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'_' {
                let ok = i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !ok {
                    return None;
                }
            } else if !(b.is_ascii_digit() || b"eE+-.".contains(b)) {
                return None;
            }
        }
        let clean = body.replace('_', "");
        let (mant, exp) = match clean.find(['e', 'E']) {
            Some(i) => (&clean[..i], Some(&clean[i + 1..])),
            None => (clean.as_str(), None),
        };
        let dig = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        let mant_ok = match mant.split_once('.') {
            Some((i, f)) => dig(i) && dig(f),
            None => dig(mant),
        };
        let exp_ok = exp.is_none_or(|e| dig(e.strip_prefix(['+', '-']).unwrap_or(e)));
        if !mant_ok || !exp_ok {
            return None;
        }
        clean.parse::<f64>().ok()?
    };
    Some(if neg { -mag } else { mag })
}

/// `ceiling`/`floor` on a String: Ruby's `Float(str)` then rounding.
fn rounding_from_string(
    ctx: &mut dyn CallContext,
    name: &str,
    v: &Value,
    f: fn(f64) -> f64,
) -> Result<Value, CallError> {
    ctx.warn_once_unlocated(
        &format!("{name}_function_numeric_coerce_string"),
        &format!("The {name}() function's auto conversion of String to Float is deprecated - change to convert input before calling"),
    );
    match ruby_float(v.as_str().unwrap_or_default()) {
        Some(x) => to_int(f(x)),
        None => Err(CallError::new(
            codes::BAD_ARGUMENT,
            format!("{name}(): cannot convert given value to a floating point value."),
        )),
    }
}

fn to_int(f: f64) -> Result<Value, CallError> {
    if f.is_finite() && f >= i64::MIN as f64 && f < i64::MAX as f64 {
        Ok(Value::Integer(f as i64))
    } else {
        Err(CallError::new(
            codes::BAD_ARGUMENT,
            format!("{f} cannot be converted to an Integer"),
        ))
    }
}

fn abs(v: Value) -> Result<Value, CallError> {
    match v {
        Value::Integer(i) => i
            .checked_abs()
            .map(Value::Integer)
            .ok_or_else(|| CallError::new(codes::BAD_ARGUMENT, "integer overflow in abs()")),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        other => Ok(other),
    }
}

fn rounding(v: Value, f: fn(f64) -> f64) -> Result<Value, CallError> {
    match v {
        Value::Float(x) => to_int(f(x)),
        other => Ok(other),
    }
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &["abs", "ceiling", "floor", "round"];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("abs")
        .doc("Returns the absolute value of a Numeric (a String is converted, with a deprecation warning).")
        .example("abs(-3)", "3")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| abs(a.get(0)))
        .dispatch(Signature::new().param("String", "val"), |c, a| abs(abs_from_string(c, &a.get(0))?))
        .register()?;
    reg.function("ceiling")
        .doc("Returns the smallest Integer greater than or equal to the number.")
        .example("ceiling(3.2)", "4")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| {
            rounding(a.get(0), f64::ceil)
        })
        .dispatch(Signature::new().param("String", "val"), |c, a| {
            rounding_from_string(c, "ceiling", &a.get(0), f64::ceil)
        })
        .register()?;
    reg.function("floor")
        .doc("Returns the largest Integer less than or equal to the number.")
        .example("floor(3.8)", "3")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| {
            rounding(a.get(0), f64::floor)
        })
        .dispatch(Signature::new().param("String", "val"), |c, a| {
            rounding_from_string(c, "floor", &a.get(0), f64::floor)
        })
        .register()?;
    reg.function("round")
        .doc("Rounds a number to the nearest Integer (halves away from zero).")
        .example("round(2.5)", "3")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| {
            rounding(a.get(0), f64::round)
        })
        .register()?;
    Ok(())
}
