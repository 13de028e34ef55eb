//! Ruby's Integer beyond 64 bits (what Ruby calls a Bignum): `2**64`, `"ff…ff".hex`,
//! `Digest::MD5.hexdigest(s).to_i(16)`, an IPv6 address as an Integer.
//!
//! From Ruby's point of view there is one Integer class. Here an Integer that fits 64 bits is
//! always an [`RValue::Int`] and one that does not is always an [`RValue::Big`]: every result
//! goes through [`norm`], which demotes what fits, so equality, `eql?` and hash keys stay
//! canonical and the i64 paths stay as fast as before (they only come here when a checked
//! operation overflows or an operand is already big).
//!
//! Ruby 3.1's own rules are followed where they are cheap to follow: floor division and
//! modulo, `**` falling back to a Float (with Ruby's "b may be too big" rule, see [`pow`]),
//! exact comparison with Floats. One limit is this interpreter's own: no Integer result may
//! have more than [`MAX_BITS`] bits (Ruby would go on until memory runs out); beyond it the
//! operation raises `NoMemoryError`, naming the limit.

use crate::interp::{raise, unsupported, Ctrl};
use crate::value::RValue;
use crate::Pos;
use num_bigint::BigInt;
use num_integer::Integer as _;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};
use puppet_types::printf::Rounding;
use std::cmp::Ordering;
use std::rc::Rc;

type R = Result<RValue, Ctrl>;

/// The most bits an Integer may have in this interpreter (a 315,653-digit number); Ruby
/// itself has no limit short of memory. Bounds both memory and the time of the quadratic
/// operations (division, decimal conversion).
pub const MAX_BITS: u64 = 1 << 20;

/// Ruby's `BIGLEN_LIMIT` in `Integer#**`: when the base's bits times the exponent exceed
/// it, Ruby warns "in a**b, b may be too big" and computes a Float instead.
const BIGLEN_LIMIT: u64 = 32 * 1024 * 1024;

/// Ruby's Fixnum range (62 bits and a sign), which `Integer#**` uses to decide when to go
/// on in Bignum arithmetic (the point where it does changes the result of its Float rule).
const FIXNUM_MAX: i128 = (1 << 62) - 1;
const FIXNUM_MIN: i128 = -(1 << 62);

/// An Integer value of `b`: an `Int` when it fits 64 bits, else a `Big`.
pub fn norm(b: BigInt) -> RValue {
    match b.to_i64() {
        Some(i) => RValue::Int(i),
        None => RValue::Big(Rc::new(b)),
    }
}

/// [`norm`] of a result, refused beyond [`MAX_BITS`].
pub fn checked(b: BigInt, pos: Pos) -> R {
    if b.bits() > MAX_BITS {
        return too_big(pos);
    }
    Ok(norm(b))
}

/// The `NoMemoryError` of an Integer beyond [`MAX_BITS`].
pub fn too_big<T>(pos: Pos) -> Result<T, Ctrl> {
    raise(
        "NoMemoryError",
        format!(
            "failed to allocate memory (an Integer of more than {MAX_BITS} bits, this interpreter's limit)"
        ),
        pos,
    )
}

/// The Integer value of an `Int` or `Big`.
pub fn of(v: &RValue) -> Option<BigInt> {
    match v {
        RValue::Int(i) => Some(BigInt::from(*i)),
        RValue::Big(b) => Some((**b).clone()),
        _ => None,
    }
}

/// True for an Integer (`Int` or `Big`).
pub fn is_int(v: &RValue) -> bool {
    matches!(v, RValue::Int(_) | RValue::Big(_))
}

/// Ruby's `Integer#to_f` of a big value: the nearest Float, infinite beyond Float's range.
pub fn to_f(b: &BigInt) -> f64 {
    match b.to_f64() {
        Some(f) => f,
        None if b.is_negative() => f64::NEG_INFINITY,
        None => f64::INFINITY,
    }
}

/// The Integer of a finite Float's whole part (`Float#to_i`, `floor`, `round`...).
pub fn from_float(f: f64) -> RValue {
    let t = f.trunc();
    if (i64::MIN as f64..-(i64::MIN as f64)).contains(&t) {
        return RValue::Int(t as i64);
    }
    // A Float beyond 2**63 is a whole number below 2**1024: at most 1024 bits.
    BigInt::from_f64(t).map_or(RValue::Int(0), norm)
}

/// Exact comparison of an Integer with a Float, as Ruby's `rb_integer_float_cmp` (`None`
/// for NaN).
pub fn cmp_float(b: &BigInt, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let t = f.trunc();
    let whole = BigInt::from_f64(t)?;
    Some(match b.cmp(&whole) {
        Ordering::Equal if f > t => Ordering::Less,
        Ordering::Equal if f < t => Ordering::Greater,
        o => o,
    })
}

/// Ruby's `==` of an Integer and a Float, exact.
pub fn eq_float(b: &BigInt, f: f64) -> bool {
    cmp_float(b, f) == Some(Ordering::Equal)
}

/// `+ - * / div % modulo divmod fdiv` of two Integers, at least one big or the i64
/// operation having overflowed.
pub fn arith(name: &str, a: &BigInt, b: &BigInt, pos: Pos) -> R {
    match name {
        "+" => checked(a + b, pos),
        "-" => checked(a - b, pos),
        "*" => {
            if a.bits() + b.bits() > MAX_BITS + 1 {
                return too_big(pos);
            }
            checked(a * b, pos)
        }
        "fdiv" => Ok(RValue::Float(fdiv(a, b))),
        _ => {
            if b.is_zero() {
                return raise("ZeroDivisionError", "divided by 0", pos);
            }
            let (q, m) = a.div_mod_floor(b);
            Ok(match name {
                "/" | "div" => norm(q),
                "divmod" => RValue::array(vec![norm(q), norm(m)]),
                _ => norm(m),
            })
        }
    }
}

/// Ruby's `Integer#fdiv` with a big operand: both divided by their gcd, then Floats when
/// both fit 64 bits, else an Integer quotient of 128 bits or more scaled back (Ruby's
/// `big_fdiv`): `(10**400).fdiv(10**399)` is 10.0 and `7.fdiv(10**30)` 7.0e-30.
/// `Integer#fdiv` as Ruby 3.1 computes it: the operands divided by their gcd, then a
/// Fixnum dividend (below 2**62) over a divisor below 2**53 as two Floats, anything larger
/// through a big division.
pub(crate) fn fdiv(a: &BigInt, b: &BigInt) -> f64 {
    if b.is_zero() {
        return to_f(a) / 0.0;
    }
    let g = a.gcd(b);
    let (a, b) = if g.is_one() || g.is_zero() {
        (a.clone(), b.clone())
    } else {
        (a / &g, b / &g)
    };
    const FIXNUM: i64 = 1 << 62;
    const MANTISSA: i64 = 1 << 53;
    if let (Some(x), Some(y)) = (a.to_i64(), b.to_i64()) {
        if (-FIXNUM..FIXNUM).contains(&x) && y.abs() < MANTISSA {
            return x as f64 / y as f64;
        }
    }
    let k = (b.bits() as i64 - a.bits() as i64 + 128).max(0);
    let q = (a << (k as u64)) / b;
    let mut r = to_f(&q);
    // r * 2**-k without overflowing the intermediate power.
    let mut e = k;
    while e > 0 && r != 0.0 && r.is_finite() {
        let step = e.min(1000);
        r /= 2f64.powi(step as i32);
        e -= step;
    }
    r
}

/// Ruby's `Integer#**` with an Integer exponent (a Float exponent is Float arithmetic).
pub fn pow(base: &RValue, exp: &RValue, pos: Pos) -> R {
    match (base, exp) {
        (_, RValue::Int(y)) if *y < 0 => unsupported("Integer ** negative (Rational)", pos),
        (RValue::Int(x), RValue::Int(y)) => {
            let (x, y) = (*x, *y as u64);
            match x {
                _ if y == 0 => Ok(RValue::Int(1)),
                0 | 1 => Ok(RValue::Int(x)),
                -1 => Ok(RValue::Int(if y % 2 == 0 { 1 } else { -1 })),
                _ if !(FIXNUM_MIN..=FIXNUM_MAX).contains(&(x as i128)) => {
                    big_pow(&BigInt::from(x), y, pos)
                }
                _ => fix_pow(x, y, pos),
            }
        }
        (RValue::Big(x), RValue::Int(y)) => big_pow(x, *y as u64, pos),
        (_, RValue::Big(y)) => {
            let x = of(base).unwrap_or_default();
            if x.is_one() {
                return Ok(RValue::Int(1));
            }
            if x == BigInt::from(-1) {
                return Ok(RValue::Int(if y.is_even() { 1 } else { -1 }));
            }
            if y.is_negative() {
                return unsupported("Integer ** negative (Rational)", pos);
            }
            if x.is_zero() {
                return Ok(RValue::Int(0));
            }
            // "in a**b, b may be too big": a Float.
            Ok(RValue::Float(to_f(&x).powf(to_f(y))))
        }
        _ => unsupported("Integer ** of this operand", pos),
    }
}

/// Ruby's `int_pow`: squares in Fixnum arithmetic while it can, then goes on in Bignum
/// arithmetic from where it got (which decides whether the Float rule applies).
fn fix_pow(x: i64, y: u64, pos: Pos) -> R {
    if y == 1 {
        return Ok(RValue::Int(x));
    }
    let fits_sqrt = |n: i64| (-(1i64 << 31)..(1i64 << 31)).contains(&n);
    let mul_overflows = |a: i64, b: i64| {
        let p = a as i128 * b as i128;
        !(FIXNUM_MIN..=FIXNUM_MAX).contains(&p)
    };
    let mut neg = x < 0;
    let mut x = x.abs();
    let mut y = y;
    let mut z: i64 = 1;
    if y & 1 == 1 {
        z = x;
    } else {
        neg = false;
    }
    y &= !1;
    loop {
        while y % 2 == 0 {
            if !fits_sqrt(x) {
                return fix_pow_big(x, y, z, neg, pos);
            }
            x *= x;
            y >>= 1;
        }
        if mul_overflows(x, z) {
            return fix_pow_big(x, y, z, neg, pos);
        }
        z *= x;
        y -= 1;
        if y == 0 {
            break;
        }
    }
    Ok(RValue::Int(if neg { -z } else { z }))
}

fn fix_pow_big(x: i64, y: u64, z: i64, neg: bool, pos: Pos) -> R {
    let v = big_pow(&BigInt::from(x), y, pos)?;
    if matches!(v, RValue::Float(_)) || z == 1 {
        return Ok(v);
    }
    let v = of(&v).unwrap_or_default();
    let z = BigInt::from(if neg { -z } else { z });
    arith("*", &z, &v, pos)
}

/// Ruby's `rb_big_pow` with a Fixnum exponent: a Float when the result would exceed
/// [`BIGLEN_LIMIT`] bits, else the Integer (refused beyond [`MAX_BITS`]).
fn big_pow(x: &BigInt, y: u64, pos: Pos) -> R {
    let xbits = x.bits();
    if xbits > BIGLEN_LIMIT || xbits.saturating_mul(y) > BIGLEN_LIMIT {
        return Ok(RValue::Float(to_f(x).powf(y as f64)));
    }
    // The result has more than (xbits - 1) * y bits.
    if (xbits - 1).saturating_mul(y) >= MAX_BITS {
        return too_big(pos);
    }
    let Ok(e) = u32::try_from(y) else {
        return too_big(pos);
    };
    checked(num_traits::Pow::pow(x, e), pos)
}

/// `Integer#pow(b, m)`: modular exponentiation (the result takes the modulus' sign, as
/// Ruby's).
pub fn pow_mod(a: &BigInt, b: &BigInt, m: &BigInt, pos: Pos) -> R {
    if m.is_zero() {
        return raise("ZeroDivisionError", "divided by 0", pos);
    }
    if b.is_negative() {
        return raise(
            "RangeError",
            "Integer#pow() 1st argument cannot be negative when 2nd argument specified",
            pos,
        );
    }
    let r = a.modpow(b, &m.abs());
    // modpow gives a value in [0, |m|); Ruby's is floored by m.
    let r = if m.is_negative() && !r.is_zero() {
        r + m
    } else {
        r
    };
    Ok(norm(r))
}

/// `& | ^ << >>` with at least one big operand or an overflowing shift.
pub fn bitop(name: &str, a: &BigInt, b: &BigInt, pos: Pos) -> R {
    match name {
        "&" => Ok(norm(a & b)),
        "|" => Ok(norm(a | b)),
        "^" => Ok(norm(a ^ b)),
        "<<" | ">>" => {
            let left = (name == "<<") != b.is_negative();
            let n = b.magnitude();
            if left {
                let Some(n) = n.to_u64().filter(|n| a.bits() + n <= MAX_BITS) else {
                    return if a.is_zero() {
                        Ok(RValue::Int(0))
                    } else {
                        too_big(pos)
                    };
                };
                Ok(norm(a << n))
            } else {
                match n.to_u64().filter(|n| *n < a.bits() + 1) {
                    // Floor shift: the sign stays (-1 for a negative value shifted out).
                    Some(n) => Ok(norm(a >> n)),
                    None => Ok(RValue::Int(if a.is_negative() { -1 } else { 0 })),
                }
            }
        }
        _ => unsupported(format!("Integer#{name}"), pos),
    }
}

/// `Integer#to_s(base)` of a big value.
pub fn to_radix(b: &BigInt, base: u32) -> String {
    b.to_str_radix(base)
}

/// The digits Ruby's `format('%x')` (`%o`, `%b`) prints for a negative Integer: its two's
/// complement with the infinite leading digits shown as `..f` (`..7`, `..1`): `-255` is
/// `..f01`, `-1` is `..f`. `base` is 2, 8 or 16; `upper` for `%X`.
pub fn twos_complement(n: &BigInt, base: u32, upper: bool) -> String {
    let digits = puppet_types::printf::twos_complement(&n.magnitude().to_str_radix(base), base);
    let out = format!("..{digits}");
    if upper {
        out.to_ascii_uppercase()
    } else {
        out
    }
}

/// Puppet's error for a Ruby Integer that a Ruby function (or template, or Hiera backend)
/// hands to Puppet beyond Puppet's 64-bit Integer: Puppet 7.23's `Runtime3Converter`
/// message, with its `"0x%x"` of the value (a negative one in two's complement form).
pub fn puppet_range_error(b: &BigInt) -> String {
    let (end, digits) = if b.is_negative() {
        ("min", twos_complement(b, 16, false))
    } else {
        ("max", b.to_str_radix(16))
    };
    format!("{PUPPET_RANGE_PREFIX}{end} range, got '0x{digits}'")
}

/// The start of [`puppet_range_error`]'s message (to tell it from other conversion errors).
pub const PUPPET_RANGE_PREFIX: &str = "Use of a Ruby Integer outside of Puppet Integer ";

/// The Integer of `digits` (an optional sign and digits of `base`, already checked), big
/// or not: `None` when the text has no digits.
pub fn parse_digits(digits: &str, base: u32) -> Option<RValue> {
    let (neg, body) = match digits.as_bytes().first() {
        Some(b'-') => (true, &digits[1..]),
        Some(b'+') => (false, &digits[1..]),
        _ => (false, digits),
    };
    let mag = BigInt::parse_bytes(body.as_bytes(), base)?;
    Some(norm(if neg { -mag } else { mag }))
}

/// Ruby's `Integer(str, base)` for a text whose value is beyond 64 bits (the i64 parser
/// having refused it): whitespace around, a sign, a radix prefix (`0x 0b 0o 0d 0`, which
/// must agree with `base` when given), digits with single underscores between them.
/// `None` when the text is not such an Integer or fits 64 bits.
pub fn parse_strict(s: &str, base: u32) -> Option<RValue> {
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    let (sign, rest) = match t.as_bytes().first() {
        Some(b'-') => ("-", &t[1..]),
        Some(b'+') => ("", &t[1..]),
        _ => ("", t),
    };
    let lower = rest.to_ascii_lowercase();
    let prefixed = |p: &str, b: u32| lower.starts_with(p) && (base == 0 || base == b);
    let (radix, body) = if prefixed("0x", 16) {
        (16, &rest[2..])
    } else if prefixed("0b", 2) {
        (2, &rest[2..])
    } else if prefixed("0o", 8) {
        (8, &rest[2..])
    } else if prefixed("0d", 10) {
        (10, &rest[2..])
    } else if base == 0 && rest.len() > 1 && rest.starts_with('0') {
        (8, &rest[1..])
    } else if base == 0 {
        (10, rest)
    } else {
        (base, rest)
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return None;
    }
    let mut digits = String::from(sign);
    for c in body.chars() {
        if c == '_' {
            continue;
        }
        if !c.is_digit(radix) {
            return None;
        }
        digits.push(c);
    }
    parse_digits(&digits, radix).filter(|v| matches!(v, RValue::Big(_)))
}

/// Ruby's `Integer#digits` (least significant first) in `base` (at least 2) of a value
/// that is not negative.
pub fn digits(b: &BigInt, base: u32) -> Vec<RValue> {
    if base <= 256 {
        return b
            .magnitude()
            .to_radix_le(base)
            .into_iter()
            .map(|d| RValue::Int(i64::from(d)))
            .collect();
    }
    let base = BigInt::from(base);
    let mut n = b.clone();
    let mut out = Vec::new();
    while !n.is_zero() {
        let (q, r) = n.div_rem(&base);
        out.push(norm(r));
        n = q;
    }
    out
}

/// An Integer to `-digits` trailing zeros (`digits < 0`), as Ruby's `Integer#round`
/// (ties as `mode` says), `#floor`, `#ceil` (and `#truncate`: floor of a positive, ceil of a
/// negative value). Ruby gives 0 when 10**n is beyond the value's size.
pub fn round_digits(mode: Rounding, a: &BigInt, digits: i64) -> RValue {
    let n = digits.unsigned_abs();
    let beyond = n as f64 * std::f64::consts::LOG2_10 > a.bits() as f64 + 1.0;
    let rounds = !matches!(mode, Rounding::Floor | Rounding::Ceil);
    if a.is_zero() || (beyond && rounds) || n > MAX_BITS / 4 {
        // 10**n beyond twice the value: it rounds to 0 (or an absurd number of digits).
        return RValue::Int(0);
    }
    let m: BigInt = num_traits::Pow::pow(BigInt::from(10), n as u32);
    let r = match mode {
        Rounding::Floor => a.div_floor(&m) * &m,
        Rounding::Ceil => -((-a).div_floor(&m) * &m),
        _ => {
            // The multiple below, and a tie decided by the mode.
            let rest = a.mod_floor(&m);
            let below = a - &rest;
            let up = match rest.cmp(&(&m >> 1u32)) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => match mode {
                    Rounding::HalfDown => a.is_negative(),
                    Rounding::HalfEven => (&below / &m).is_odd(),
                    _ => a.is_positive(),
                },
            };
            if up {
                below + m
            } else {
                below
            }
        }
    };
    norm(r)
}

/// Ruby's `Integer#hash` image for a hash key: the value's bytes.
pub fn key_bytes(b: &BigInt) -> Vec<u8> {
    b.to_signed_bytes_le()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_that_fit_are_demoted() {
        let a: BigInt = BigInt::from(i64::MAX) + 1;
        assert!(matches!(norm(a.clone()), RValue::Big(_)));
        let r = arith("-", &a, &BigInt::one(), Pos::default()).unwrap();
        assert!(matches!(r, RValue::Int(i64::MAX)));
    }

    #[test]
    fn floor_division_of_negatives() {
        let a = -(BigInt::one() << 64u32);
        let r = arith("divmod", &a, &BigInt::from(7), Pos::default()).unwrap();
        assert_eq!(
            crate::value::inspect(&r),
            "[-2635249153387078803, 5]".to_string()
        );
    }

    #[test]
    fn fixnum_pow_agrees_with_big_pow() {
        // The fast path (Fixnum squaring) and Bignum arithmetic give the same Integers.
        for x in [-7i64, -3, 2, 3, 10, 1 << 20, 12345] {
            for y in [2u64, 3, 5, 17, 40, 63, 64, 100] {
                let fast = pow(&RValue::Int(x), &RValue::Int(y as i64), Pos::default()).unwrap();
                let slow = checked(
                    num_traits::Pow::pow(BigInt::from(x), y as u32),
                    Pos::default(),
                )
                .unwrap();
                assert!(crate::value::equal(&fast, &slow), "{x}**{y}");
            }
        }
    }

    #[test]
    fn huge_results_are_refused_or_floats() {
        let two = RValue::Int(2);
        let r = pow(&two, &RValue::Int(1 << 40), Pos::default()).unwrap();
        assert!(matches!(r, RValue::Float(f) if f.is_infinite()));
        assert!(pow(&two, &RValue::Int(1 << 21), Pos::default()).is_err());
        let one = BigInt::one();
        assert!(bitop("<<", &one, &BigInt::from(1u64 << 40), Pos::default()).is_err());
    }

    #[test]
    fn strict_parse() {
        let v = parse_strict(" 0x_ff", 0);
        assert!(v.is_none());
        let v = parse_strict("0xffffffffffffffffffff", 0).unwrap();
        assert_eq!(crate::value::to_s(&v), "1208925819614629174706175");
        let v = parse_strict("-1_000_000_000_000_000_000_000", 10).unwrap();
        assert_eq!(crate::value::to_s(&v), "-1000000000000000000000");
        assert!(parse_strict("12", 10).is_none());
    }
}
