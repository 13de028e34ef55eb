//! Puppet's arithmetic on numbers: 64-bit Integers whose overflow is an error, Floats, and
//! the mixed cases, with Puppet's rules (`7 / 2 == 3`, `-7 / 2 == -4`, `%` only on Integers,
//! division by zero is an error).
//!
//! Only numbers: string-to-number coercion, Timespan/Timestamp arithmetic and collection
//! operators belong to the evaluator.

use crate::error::TypeError;
use crate::value::Value;

/// An arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

fn overflow(op: &str) -> TypeError {
    TypeError::Overflow(format!("integer overflow in '{op}'"))
}

/// Applies `op` to two numbers.
///
/// ```
/// use puppet_types::arith::{apply, Op};
/// use puppet_types::Value;
/// assert_eq!(apply(Op::Div, &Value::Integer(-7), &Value::Integer(2)).unwrap(), Value::Integer(-4));
/// assert!(apply(Op::Shl, &Value::Integer(1), &Value::Integer(63)).is_err());
/// assert!(apply(Op::Mod, &Value::Float(7.5), &Value::Integer(2)).is_err());
/// ```
pub fn apply(op: Op, a: &Value, b: &Value) -> Result<Value, TypeError> {
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => int_op(op, *x, *y).map(Value::Integer),
        (Value::Integer(_) | Value::Float(_), Value::Integer(_) | Value::Float(_)) => {
            let x = as_f64(a);
            let y = as_f64(b);
            let r = match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => {
                    if y == 0.0 {
                        return Err(TypeError::Conversion("Division by 0".into()));
                    }
                    x / y
                }
                Op::Mod => {
                    return Err(TypeError::Conversion(
                        "The % operator is only applicable to Integer values".into(),
                    ))
                }
                Op::Shl | Op::Shr => {
                    return Err(TypeError::Conversion(
                        "Shift operators are only applicable to Integer values".into(),
                    ))
                }
            };
            if r.is_finite() {
                Ok(Value::Float(r))
            } else {
                Err(TypeError::Overflow("float overflow".into()))
            }
        }
        _ => Err(TypeError::Conversion(
            "Arithmetic is only applicable to numbers".into(),
        )),
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn int_op(op: Op, x: i64, y: i64) -> Result<i64, TypeError> {
    match op {
        Op::Add => x.checked_add(y).ok_or_else(|| overflow("+")),
        Op::Sub => x.checked_sub(y).ok_or_else(|| overflow("-")),
        Op::Mul => x.checked_mul(y).ok_or_else(|| overflow("*")),
        Op::Div => {
            if y == 0 {
                return Err(TypeError::Conversion("Division by 0".into()));
            }
            if x == i64::MIN && y == -1 {
                return Err(overflow("/"));
            }
            Ok(floor_div(x, y))
        }
        Op::Mod => {
            if y == 0 {
                return Err(TypeError::Conversion("Division by 0".into()));
            }
            if y == -1 {
                return Ok(0);
            }
            // Ruby's modulo takes the sign of the divisor.
            let r = x % y;
            Ok(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        }
        Op::Shl => shift(x, y),
        Op::Shr => shift(x, y.checked_neg().ok_or_else(|| overflow(">>"))?),
    }
}

fn floor_div(x: i64, y: i64) -> i64 {
    let q = x / y;
    if (x % y != 0) && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    }
}

fn shift(x: i64, by: i64) -> Result<i64, TypeError> {
    if by >= 0 {
        if by >= 64 {
            return if x == 0 { Ok(0) } else { Err(overflow("<<")) };
        }
        let r = (x as i128) << by;
        i64::try_from(r).map_err(|_| overflow("<<"))
    } else {
        let by = by.unsigned_abs().min(63);
        Ok(x >> by)
    }
}
