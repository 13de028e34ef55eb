//! `Kernel#format` / `String#%`: Ruby's printf-style formatting for the directives templates
//! use (`%s %d %i %f %x %X %o %b %e %g %p %%`, flags `-+ 0#`, width, precision, `*`).

use crate::interp::{raise, unsupported, Ctrl};
use crate::value::{inspect, to_s, RValue};
use crate::Pos;
use puppet_types::printf;

fn num_of(v: &RValue, pos: Pos) -> Result<f64, Ctrl> {
    match v {
        RValue::Int(i) => Ok(*i as f64),
        RValue::Big(b) => Ok(crate::bigint::to_f(b)),
        RValue::Float(f) => Ok(*f),
        RValue::Str(s) => {
            puppet_types::ruby::float(&s.borrow()).or_else(|m| raise("ArgumentError", m, pos))
        }
        RValue::Nil => raise("TypeError", "can't convert nil into Float", pos),
        other => raise(
            "TypeError",
            format!("can't convert {} into Float", other.conversion_name()),
            pos,
        ),
    }
}

fn int_of(v: &RValue, pos: Pos) -> Result<i64, Ctrl> {
    match v {
        RValue::Int(i) => Ok(*i),
        RValue::Float(f) => Ok(f.floor() as i64),
        RValue::Str(s) => {
            let t = s.borrow().trim().replace('_', "");
            t.parse::<i64>().or_else(|_| {
                raise(
                    "ArgumentError",
                    format!("invalid value for Integer(): {}", inspect(v)),
                    pos,
                )
            })
        }
        RValue::Nil => raise("TypeError", "can't convert nil into Integer", pos),
        other => raise(
            "TypeError",
            format!("can't convert {} into Integer", other.conversion_name()),
            pos,
        ),
    }
}

/// The directives with a `<name>` after their flags, width or precision (`%-10<x>s`, which
/// Ruby reads in any order) written with the name first (`%<x>-10s`).
fn name_first(f: &str) -> Vec<char> {
    let mut cs: Vec<char> = f.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        if cs[i] != '%' {
            i += 1;
            continue;
        }
        if cs.get(i + 1) == Some(&'%') {
            i += 2;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while j < cs.len() && (cs[j].is_ascii_digit() || "-0+ #.*".contains(cs[j])) {
            j += 1;
        }
        if j > start && cs.get(j) == Some(&'<') {
            if let Some(k) = cs[j..].iter().position(|c| *c == '>') {
                let name: Vec<char> = cs[j..=j + k].to_vec();
                let spec: Vec<char> = cs[start..j].to_vec();
                let moved: Vec<char> = name.into_iter().chain(spec).collect();
                cs.splice(start..=j + k, moved);
            }
        }
        i = start;
    }
    cs
}

/// An Integer argument of `%d %x %o %b` as its sign and value
/// (big or not; a Float is floored, a String read as `Integer()` reads it).
fn int_digits(v: &RValue, pos: Pos) -> Result<(bool, num_bigint::BigInt), Ctrl> {
    let b = match v {
        RValue::Int(i) => num_bigint::BigInt::from(*i),
        RValue::Big(b) => (**b).clone(),
        RValue::Float(f) if f.is_finite() => {
            crate::bigint::of(&crate::bigint::from_float(f.floor())).unwrap_or_default()
        }
        RValue::Float(f) => return raise("FloatDomainError", crate::value::float_to_s(*f), pos),
        RValue::Str(s) => {
            let t = s.borrow().clone();
            match puppet_types::ruby::integer(&t, None)
                .map(RValue::Int)
                .or_else(|| crate::bigint::parse_strict(&t, 0))
            {
                Some(v) => return int_digits(&v, pos),
                None => {
                    return raise(
                        "ArgumentError",
                        format!("invalid value for Integer(): {}", inspect(v)),
                        pos,
                    )
                }
            }
        }
        other => return int_of(other, pos).map(|i| (i < 0, num_bigint::BigInt::from(i))),
    };
    Ok((num_traits::Signed::is_negative(&b), b))
}

fn pad(body: String, width: usize, left: bool, zero: bool) -> String {
    let n = body.chars().count();
    if n >= width {
        return body;
    }
    let fill = width - n;
    if left {
        format!("{body}{}", " ".repeat(fill))
    } else if zero {
        let (sign, digits) = match body.strip_prefix(['-', '+', ' ']) {
            Some(rest) => (&body[..1], rest.to_string()),
            None => ("", body.clone()),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{body}", " ".repeat(fill))
    }
}

/// What `%s` (false) or `%p` (true) shows of a value, where the caller knows better than
/// the value's own text (a user class's `to_s` or `inspect`); `None` for the default.
pub type Show<'a> = dyn FnMut(&RValue, bool) -> Result<Option<String>, Ctrl> + 'a;

/// Formats `args` by the Ruby format string `f`, with `show` asked for the text of `%s`,
/// `%p` and `%{name}` arguments.
pub fn sprintf_with(f: &str, args: &[RValue], pos: Pos, show: &mut Show) -> Result<String, Ctrl> {
    let cs = name_first(f);
    let mut out = String::new();
    let mut i = 0;
    let argi = std::cell::Cell::new(0usize);
    let mut numbered = false;
    let next_arg = |pos: Pos| -> Result<RValue, Ctrl> {
        let v = args.get(argi.get()).cloned();
        argi.set(argi.get() + 1);
        match v {
            Some(v) => Ok(v),
            None => raise("ArgumentError", "too few arguments", pos),
        }
    };
    while i < cs.len() {
        let c = cs[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        // `%<name>d` and `%{name}` read the hash argument.
        // Ruby's KeyError names the key with the brackets it was written with.
        let named_value = |name: &str, braces: bool, pos: Pos| -> Result<RValue, Ctrl> {
            match args.first() {
                Some(RValue::Hash(h)) => match h.borrow().get(&RValue::sym(name)) {
                    Some(v) => Ok(v.clone()),
                    None if braces => raise("KeyError", format!("key{{{name}}} not found"), pos),
                    None => raise("KeyError", format!("key<{name}> not found"), pos),
                },
                _ => raise("ArgumentError", "one hash required", pos),
            }
        };
        if i < cs.len() && cs[i] == '{' {
            let end = cs[i..].iter().position(|c| *c == '}').map(|k| i + k);
            let Some(end) = end else {
                return raise(
                    "ArgumentError",
                    "malformed name - unmatched parenthesis",
                    pos,
                );
            };
            let name: String = cs[i + 1..end].iter().collect();
            let v = named_value(&name, true, pos)?;
            match show(&v, false)? {
                Some(s) => out.push_str(&s),
                None => out.push_str(&to_s(&v)),
            }
            i = end + 1;
            continue;
        }
        let mut named: Option<RValue> = None;
        if i < cs.len() && cs[i] == '<' {
            let end = cs[i..].iter().position(|c| *c == '>').map(|k| i + k);
            let Some(end) = end else {
                return raise(
                    "ArgumentError",
                    "malformed name - unmatched parenthesis",
                    pos,
                );
            };
            let name: String = cs[i + 1..end].iter().collect();
            named = Some(named_value(&name, false, pos)?);
            i = end + 1;
        }
        // `%2$s`: the argument at an absolute position (digits followed by `$`).
        let digits_end = cs[i..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(cs.len(), |k| i + k);
        if digits_end > i && cs.get(digits_end) == Some(&'$') {
            let n: usize = cs[i..digits_end]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(usize::MAX);
            if n == 0 {
                return raise("ArgumentError", format!("invalid index - {n}$"), pos);
            }
            if argi.get() > 0 {
                return raise(
                    "ArgumentError",
                    format!("numbered({n}) after unnumbered({})", argi.get()),
                    pos,
                );
            }
            match args.get(n - 1) {
                Some(v) => named = Some(v.clone()),
                None => return raise("ArgumentError", "too few arguments", pos),
            }
            numbered = true;
            i = digits_end + 1;
        } else if numbered && !matches!(cs.get(i), Some('%')) {
            return raise("ArgumentError", "unnumbered(1) mixed with numbered", pos);
        }
        let mut next_arg = |pos: Pos| -> Result<RValue, Ctrl> {
            match named.take() {
                Some(v) => Ok(v),
                None => next_arg(pos),
            }
        };
        let (mut left, mut zero, mut plus, mut space, mut alt) =
            (false, false, false, false, false);
        while i < cs.len() && "-0+ #".contains(cs[i]) {
            match cs[i] {
                '-' => left = true,
                '0' => zero = true,
                '+' => plus = true,
                ' ' => space = true,
                _ => alt = true,
            }
            i += 1;
        }
        let mut width = 0usize;
        if i < cs.len() && cs[i] == '*' {
            let w = int_of(&next_arg(pos)?, pos)?;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        }
        while i < cs.len() && cs[i].is_ascii_digit() {
            width = width
                .saturating_mul(10)
                .saturating_add(cs[i] as usize - '0' as usize);
            i += 1;
        }
        let mut prec: Option<usize> = None;
        if i < cs.len() && cs[i] == '.' {
            i += 1;
            if i < cs.len() && cs[i] == '*' {
                // The precision is the next argument; a negative one is none.
                prec = usize::try_from(int_of(&next_arg(pos)?, pos)?).ok();
                i += 1;
            } else {
                let mut p = 0usize;
                while i < cs.len() && cs[i].is_ascii_digit() {
                    p = p
                        .saturating_mul(10)
                        .saturating_add(cs[i] as usize - '0' as usize);
                    i += 1;
                }
                prec = Some(p);
            }
        }
        if width > 10_000 || prec.is_some_and(|p| p > 10_000) {
            return unsupported("format width above 10000", pos);
        }
        let Some(&conv) = cs.get(i) else {
            return raise(
                "ArgumentError",
                "incomplete format specifier; use %% (double %) instead",
                pos,
            );
        };
        i += 1;
        let sign = |neg: bool| -> &'static str {
            if neg {
                "-"
            } else if plus {
                "+"
            } else if space {
                " "
            } else {
                ""
            }
        };
        let body = match conv {
            '%' => {
                out.push('%');
                continue;
            }
            's' | 'p' => {
                let v = next_arg(pos)?;
                let mut s = match show(&v, conv == 'p')? {
                    Some(s) => s,
                    None if conv == 's' => to_s(&v),
                    None => inspect(&v),
                };
                if let Some(p) = prec {
                    s = s.chars().take(p).collect();
                }
                pad(s, width, left, false)
            }
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'b' | 'B' => {
                let (neg, n) = int_digits(&next_arg(pos)?, pos)?;
                let radix = match conv {
                    'x' | 'X' => 16,
                    'o' => 8,
                    'b' | 'B' => 2,
                    _ => 10,
                };
                let mut digits = n.magnitude().to_str_radix(radix);
                if neg && radix != 10 && !plus && !space {
                    let zero_width = Some(width).filter(|_| zero && !left);
                    let body = printf::negative_radix(&digits, conv, alt, prec, zero_width);
                    out.push_str(&pad(body, width, left, false));
                    continue;
                }
                if conv == 'X' {
                    digits.make_ascii_uppercase();
                }
                let spec = printf::IntSpec {
                    plus,
                    space,
                    alt,
                    zero,
                    minus: left,
                    width: Some(width),
                    precision: prec,
                };
                printf::integer(neg, &digits, conv, &spec)
            }
            'f' => {
                let x = num_of(&next_arg(pos)?, pos)?;
                let p = prec.unwrap_or(6);
                let s = if x.is_finite() {
                    format!(
                        "{}{}",
                        sign(x.is_sign_negative()),
                        printf::fixed(x.abs(), p)
                    )
                } else {
                    format!(
                        "{}{}",
                        sign(x < 0.0),
                        if x.is_nan() { "NaN" } else { "Inf" }
                    )
                };
                pad(s, width, left, zero && x.is_finite())
            }
            'e' | 'E' => {
                let x = num_of(&next_arg(pos)?, pos)?;
                let p = prec.unwrap_or(6);
                let mut s = format!(
                    "{}{}",
                    sign(x.is_sign_negative()),
                    printf::exponential(x.abs(), p)
                );
                if conv == 'E' {
                    s = s.to_uppercase();
                }
                pad(s, width, left, zero)
            }
            'g' | 'G' => {
                let x = num_of(&next_arg(pos)?, pos)?;
                let s = if x.is_finite() {
                    format!(
                        "{}{}",
                        sign(x.is_sign_negative()),
                        printf::general(x.abs(), prec.unwrap_or(6), alt)
                    )
                } else {
                    format!(
                        "{}{}",
                        sign(x < 0.0),
                        if x.is_nan() { "NaN" } else { "Inf" }
                    )
                };
                let s = if conv == 'G' { s.to_uppercase() } else { s };
                pad(s, width, left, zero && x.is_finite())
            }
            'c' => {
                let v = next_arg(pos)?;
                let s = match &v {
                    RValue::Int(n) if *n < 0 => {
                        return unsupported("%c of a negative number (a binary string)", pos)
                    }
                    RValue::Int(n) => match u32::try_from(*n).ok().and_then(char::from_u32) {
                        Some(c) => String::from(c),
                        None => return raise("ArgumentError", "invalid character", pos),
                    },
                    RValue::Str(s) if s.borrow().chars().count() == 1 => s.borrow().clone(),
                    RValue::Str(_) => {
                        return raise("ArgumentError", "%c requires a character", pos)
                    }
                    other => to_s(other).chars().take(1).collect(),
                };
                pad(s, width, left, false)
            }
            '<' | '{' => return unsupported("named format references", pos),
            other => {
                return raise(
                    "ArgumentError",
                    format!("malformed format string - %{other}"),
                    pos,
                )
            }
        };
        out.push_str(&body);
    }
    Ok(out)
}
