//! Number built-ins: `abs`, `ceiling`, `floor`, `round`.

use crate::error::{codes, CallError};
use crate::registry::Registry;
use crate::{CallContext, LogLevel, RegistryError, Signature};
use puppet_types::Value;

fn from_string(ctx: &mut dyn CallContext, name: &str, v: &Value) -> Result<Value, CallError> {
    ctx.log(
        LogLevel::Warning,
        &format!("The {name}() function's auto conversion of String to Numeric is deprecated - change to convert input before calling"),
    );
    Ok(puppet_types::convert::numeric_from(v, false)?)
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

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("abs")
        .doc("Returns the absolute value of a Numeric (a String is converted, with a deprecation warning).")
        .example("abs(-3)", "3")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| abs(a.get(0)))
        .dispatch(Signature::new().param("String", "val"), |c, a| abs(from_string(c, "abs", &a.get(0))?))
        .register()?;
    reg.function("ceiling")
        .doc("Returns the smallest Integer greater than or equal to the number.")
        .example("ceiling(3.2)", "4")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| {
            rounding(a.get(0), f64::ceil)
        })
        .dispatch(Signature::new().param("String", "val"), |c, a| {
            rounding(from_string(c, "ceiling", &a.get(0))?, f64::ceil)
        })
        .register()?;
    reg.function("floor")
        .doc("Returns the largest Integer less than or equal to the number.")
        .example("floor(3.8)", "3")
        .dispatch(Signature::new().param("Numeric", "val"), |_c, a| {
            rounding(a.get(0), f64::floor)
        })
        .dispatch(Signature::new().param("String", "val"), |c, a| {
            rounding(from_string(c, "floor", &a.get(0))?, f64::floor)
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
