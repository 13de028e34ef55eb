//! `fqdn_rand`: Puppet's 3.x function giving each node its own repeatable random number.
//!
//! Puppet 7.23 (`lib/puppet/parser/functions/fqdn_rand.rb`): the seed is the MD5 digest of
//! `[fqdn, max, seed].join(':')` read as a hexadecimal number, where `fqdn` is
//! `$facts['networking']['fqdn']` (downcased when the third argument is true), `max` the first
//! argument's `to_i` and `seed` the optional second argument; the value is
//! `Random.new(seed).rand(max)` ([`crate::random`]).

use crate::digest::{hex, md5};
use crate::error::{codes, CallError};
use crate::random::deterministic_rand_int;
use crate::registry::{Args, Registry};
use crate::{CallContext, RegistryError, Signature};
use puppet_types::format::float_to_s;
use puppet_types::Value;

/// Ruby's `to_i` of a 3.x function argument.
fn ruby_to_i(v: &Value) -> Result<i64, CallError> {
    match v {
        Value::Integer(i) => Ok(*i),
        Value::Float(f) => Ok(f.trunc() as i64),
        Value::String(s) => Ok(string_to_i(s)),
        other => {
            let (inspect, class) = match other {
                Value::Boolean(b) => (b.to_string(), if *b { "TrueClass" } else { "FalseClass" }),
                Value::Array(_) => (ruby_s(other), "Array"),
                Value::Hash(_) => (ruby_s(other), "Hash"),
                _ => (other.to_plain_string(), "Object"),
            };
            Err(CallError::new(
                codes::FAILED,
                format!("undefined method `to_i' for {inspect}:{class}"),
            ))
        }
    }
}

/// Ruby's `String#to_i`: leading blanks, a sign, then decimal digits (single underscores
/// between digits allowed); anything else ends the number, no digits give 0.
fn string_to_i(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut n: i64 = 0;
    let mut prev_digit = false;
    let bytes = t.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                n = n.saturating_mul(10).saturating_add(i64::from(b - b'0'));
                prev_digit = true;
            }
            b'_' if prev_digit && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                prev_digit = false;
            }
            _ => break,
        }
    }
    if neg {
        -n
    } else {
        n
    }
}

/// Ruby's `to_s` of a value as `Array#join` uses it (arrays are joined recursively).
fn ruby_s(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::String(s) => s.to_string(),
        Value::Float(f) => float_to_s(*f),
        Value::Array(a) => a.iter().map(ruby_s).collect::<Vec<_>>().join(":"),
        Value::Hash(h) => {
            let inspect = |v: &Value| match v {
                Value::String(s) => format!("{s:?}"),
                Value::Undef => "nil".to_string(),
                other => ruby_s(other),
            };
            let parts: Vec<String> = h
                .iter()
                .map(|(k, x)| format!("{}=>{}", inspect(k), inspect(x)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_plain_string(),
    }
}

/// `$facts['networking']['fqdn']`, when the node has it.
fn fqdn_fact(c: &dyn CallContext) -> Option<String> {
    let Some(Value::Hash(facts)) = c.variable("facts") else {
        return None;
    };
    let Some(Value::Hash(net)) = facts.get(&Value::string("networking")) else {
        return None;
    };
    match net.get(&Value::string("fqdn")) {
        Some(Value::String(s)) => Some(s.to_string()),
        Some(Value::Undef) | None => None,
        Some(other) => Some(ruby_s(other)),
    }
}

/// `fqdn_rand(max, seed?, downcase?)` with Puppet's 3.x argument conversion (a top-level
/// `undef` is the empty string).
fn fqdn_rand(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    if a.values.is_empty() {
        return Err(CallError::new(
            codes::ARGUMENT_MISMATCH,
            "fqdn_rand(): Wrong number of arguments given (0 for minimum 1)",
        ));
    }
    let arg = |i: usize| match a.values.get(i) {
        Some(Value::Undef) => Some(Value::string("")),
        other => other.cloned(),
    };
    let max = ruby_to_i(&arg(0).unwrap_or(Value::Undef))?;
    let seed = arg(1).map(|v| ruby_s(&v)).unwrap_or_default();
    let downcase = arg(2).is_some_and(|v| !matches!(v, Value::Boolean(false)));
    let mut fqdn = fqdn_fact(c);
    if downcase {
        fqdn = Some(fqdn.map(|f| f.to_lowercase()).ok_or_else(|| {
            CallError::new(
                codes::FAILED,
                "undefined method `downcase' for nil:NilClass",
            )
        })?);
    }
    let fqdn = fqdn.unwrap_or_default();
    let digest = hex(&md5(format!("{fqdn}:{max}:{seed}").as_bytes()));
    deterministic_rand_int(&digest, max)
        .map(Value::Integer)
        .map_err(|e| CallError::new(codes::FAILED, e))
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &["fqdn_rand"];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("fqdn_rand")
        .doc("Usage: `fqdn_rand(MAX, [SEED], [DOWNCASE])`. A random Integer in `0...MAX` that is the same on every run for a node: the generator is seeded from the node's `$facts['networking']['fqdn']` (downcased when DOWNCASE is true), MAX and SEED (3.x function in Puppet).")
        .example("fqdn_rand(1)", "0")
        .dispatch(Signature::new().repeated_param("Any", "args"), fqdn_rand)
        .register()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_conversions() {
        assert_eq!(string_to_i(" 12abc"), 12);
        assert_eq!(string_to_i("-1_000"), -1000);
        assert_eq!(string_to_i("1__0"), 1);
        assert_eq!(string_to_i("0x10"), 0);
        assert_eq!(string_to_i("abc"), 0);
        assert_eq!(
            ruby_s(&Value::array(vec![
                Value::Integer(1),
                Value::array(vec![Value::Integer(2), Value::Float(1.5)])
            ])),
            "1:2:1.5"
        );
        assert_eq!(
            ruby_s(&Value::hash([(Value::string("a"), Value::Integer(1))])),
            "{\"a\"=>1}"
        );
    }
}
