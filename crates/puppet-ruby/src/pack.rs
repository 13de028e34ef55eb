//! `Array#pack` and `String#unpack`/`unpack1` for the directives module code uses: integers
//! (`C c S s L l Q q J j I i N n V v` with the `_ ! < >` modifiers, `U`, `w`), strings
//! (`a A Z`), hex and bit strings (`H h B b`), Base64 (`m`, `m0`) and positioning
//! (`x X @`). The others (`M u p P D d F f E e G g`) are errors naming the directive.
//! Sizes are those of Ruby on x86-64 Linux (`l_` and `j` are 8 bytes, native order little).

use crate::interp::{raise, unsupported, Ctrl, R};
use crate::methods::{binary_string, str_bytes};
use crate::value::{inspect, RValue};
use crate::Pos;

/// One directive: its letter, count (`None`: `*`), size modifier and byte order.
struct Directive {
    letter: char,
    count: Option<usize>,
    explicit: bool,
    native: bool,
    big: Option<bool>,
}

fn directives(fmt: &str, pos: Pos) -> Result<Vec<Directive>, Ctrl> {
    let cs: Vec<char> = fmt.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        i += 1;
        if c.is_whitespace() {
            continue;
        }
        if c == '#' {
            while i < cs.len() && cs[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let (mut native, mut big) = (false, None);
        while let Some(m) = cs.get(i) {
            match m {
                '_' | '!' => native = true,
                '<' => big = Some(false),
                '>' => big = Some(true),
                _ => break,
            }
            i += 1;
        }
        if (native || big.is_some()) && !"sSiIlLqQjJ".contains(c) {
            let m = if native {
                if cs[i - 1] == '!' {
                    '!'
                } else {
                    '_'
                }
            } else {
                cs[i - 1]
            };
            return raise(
                "ArgumentError",
                format!("'{m}' allowed only after types sSiIlLqQjJ"),
                pos,
            );
        }
        let (count, explicit) = if cs.get(i) == Some(&'*') {
            i += 1;
            (None, true)
        } else if cs.get(i).is_some_and(|d| d.is_ascii_digit()) {
            let mut n: usize = 0;
            while let Some(d) = cs.get(i).and_then(|d| d.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d as usize);
                i += 1;
            }
            if n > 1 << 24 {
                return unsupported("a pack count above 16 million", pos);
            }
            (Some(n), true)
        } else {
            (Some(1), false)
        };
        out.push(Directive {
            letter: c,
            count,
            explicit,
            native,
            big,
        });
    }
    Ok(out)
}

/// Byte size and signedness of an integer directive.
fn int_kind(d: &Directive) -> Option<(usize, bool)> {
    Some(match d.letter {
        'C' => (1, false),
        'c' => (1, true),
        'S' | 'n' | 'v' => (2, false),
        's' => (2, true),
        'L' | 'N' | 'V' => (if d.native && d.letter == 'L' { 8 } else { 4 }, false),
        'l' => (if d.native { 8 } else { 4 }, true),
        'I' => (4, false),
        'i' => (4, true),
        'Q' | 'J' => (8, false),
        'q' | 'j' => (8, true),
        _ => return None,
    })
}

fn big_endian(d: &Directive) -> bool {
    match d.letter {
        'n' | 'N' => true,
        'v' | 'V' => false,
        _ => d.big.unwrap_or(false),
    }
}

/// A directive this file does not read: an error naming it when Ruby has it; Ruby 3.1
/// ignores an unknown one (with a warning), and so does this.
fn unknown(c: char, pos: Pos) -> Result<(), Ctrl> {
    if "MupPDdFfEeGg".contains(c) {
        return unsupported(format!("pack/unpack directive '{c}'"), pos);
    }
    Ok(())
}

fn int_item(v: &RValue, pos: Pos) -> Result<i64, Ctrl> {
    match v {
        RValue::Int(i) => Ok(*i),
        // Beyond 64 bits: its low 64 bits (two's complement), as Ruby packs it.
        RValue::Big(b) => {
            let low = &**b & num_bigint::BigInt::from(u64::MAX);
            Ok(num_traits::ToPrimitive::to_u64(&low).unwrap_or(0) as i64)
        }
        RValue::Float(f) if f.is_finite() && f.abs() < 9.2e18 => Ok(f.trunc() as i64),
        RValue::Nil => raise(
            "TypeError",
            "no implicit conversion of nil into Integer",
            pos,
        ),
        other => crate::interp::no_implicit_conversion(other, "Integer", pos),
    }
}

fn str_item(v: &RValue, pos: Pos) -> Result<Vec<u8>, Ctrl> {
    match v {
        RValue::Str(_) => Ok(str_bytes(v)),
        RValue::Nil => raise(
            "TypeError",
            "no implicit conversion of nil into String",
            pos,
        ),
        other => crate::interp::no_implicit_conversion(other, "String", pos),
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for ch in bytes.chunks(3) {
        let b = [ch[0], *ch.get(1).unwrap_or(&0), *ch.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= ch.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize]);
            } else {
                out.push(b'=');
            }
        }
    }
    out
}

/// `Array#pack`.
pub(crate) fn pack(items: &[RValue], args: &[RValue], pos: Pos) -> R {
    crate::methods::argc(args, 1, 2, pos)?;
    if args.len() == 2 {
        return unsupported("Array#pack with a buffer", pos);
    }
    let fmt = match &args[0] {
        RValue::Str(s) => s.borrow().clone(),
        other => return crate::interp::no_implicit_conversion(other, "String", pos),
    };
    let ds = directives(&fmt, pos)?;
    let mut out: Vec<u8> = Vec::new();
    let k = std::cell::Cell::new(0usize);
    let next = |pos: Pos| -> Result<RValue, Ctrl> {
        let v = items.get(k.get()).cloned();
        k.set(k.get() + 1);
        v.map_or_else(|| raise("ArgumentError", "too few arguments", pos), Ok)
    };
    // The result's encoding, as Ruby's pack.c decides it: US-ASCII while only 'm', 'M' and
    // 'u' (text encodings) are seen, UTF-8 once a 'U' comes before any other directive,
    // binary (ASCII-8BIT) after any other. A US-ASCII result is text to Puppet (not Binary):
    // it is kept as an ordinary string here.
    // (pack.c's `enc_info`: 1 US-ASCII, 2 UTF-8, 0 binary.)
    let mut enc = 1;
    for d in &ds {
        match d.letter {
            'U' if enc == 1 => enc = 2,
            'U' | 'm' | 'M' | 'u' => {}
            _ => enc = 0,
        }
    }
    let (text, utf8) = (enc == 1, enc == 2);
    for d in &ds {
        if let Some((size, _)) = int_kind(d) {
            let n = match d.count {
                Some(n) => n,
                None => items.len().saturating_sub(k.get()),
            };
            for _ in 0..n {
                let v = int_item(&next(pos)?, pos)? as u64;
                let bytes = v.to_le_bytes();
                if big_endian(d) {
                    out.extend(bytes[..size].iter().rev());
                } else {
                    out.extend(&bytes[..size]);
                }
            }
            continue;
        }
        match d.letter {
            'U' => {
                let n = d.count.unwrap_or(items.len().saturating_sub(k.get()));
                for _ in 0..n {
                    let item = next(pos)?;
                    if matches!(item, RValue::Big(_)) {
                        return raise("RangeError", "bignum too big to convert into `long'", pos);
                    }
                    let v = int_item(&item, pos)?;
                    if v < 0 {
                        return raise("RangeError", "pack(U): value out of range", pos);
                    }
                    match u32::try_from(v).ok().and_then(char::from_u32) {
                        Some(c) => {
                            let mut buf = [0u8; 4];
                            out.extend(c.encode_utf8(&mut buf).as_bytes());
                        }
                        None => {
                            return unsupported(
                                format!("pack(U) of {v} (not a Unicode scalar)"),
                                pos,
                            )
                        }
                    }
                }
            }
            'w' => {
                let n = d.count.unwrap_or(items.len().saturating_sub(k.get()));
                for _ in 0..n {
                    let item = next(pos)?;
                    if let RValue::Big(b) = &item {
                        if num_traits::Signed::is_negative(&**b) {
                            return raise("ArgumentError", "can't compress negative numbers", pos);
                        }
                        // Base-128 digits, most significant first, all but the last with the
                        // high bit.
                        let digits = b.magnitude().to_radix_le(128);
                        out.extend(digits.iter().enumerate().rev().map(|(i, d)| {
                            if i == 0 {
                                *d
                            } else {
                                d | 0x80
                            }
                        }));
                        continue;
                    }
                    let v = int_item(&item, pos)?;
                    if v < 0 {
                        return raise("ArgumentError", "can't compress negative numbers", pos);
                    }
                    let mut v = v as u64;
                    let mut groups = vec![(v & 0x7f) as u8];
                    v >>= 7;
                    while v > 0 {
                        groups.push((v & 0x7f) as u8 | 0x80);
                        v >>= 7;
                    }
                    out.extend(groups.iter().rev());
                }
            }
            'a' | 'A' | 'Z' => {
                let s = str_item(&next(pos)?, pos)?;
                match d.count {
                    None => {
                        out.extend(&s);
                        if d.letter == 'Z' {
                            out.push(0);
                        }
                    }
                    Some(n) => {
                        let take = s.len().min(n);
                        out.extend(&s[..take]);
                        let fill = if d.letter == 'A' { b' ' } else { 0 };
                        out.extend(std::iter::repeat_n(fill, n - take));
                    }
                }
            }
            'H' | 'h' => {
                let s = str_item(&next(pos)?, pos)?;
                let n = d.count.unwrap_or(s.len());
                let mut byte = 0u8;
                for idx in 0..n {
                    let c = s.get(idx).copied().unwrap_or(0);
                    let nib = if c.is_ascii_alphabetic() {
                        ((c & 7) + 9) & 15
                    } else {
                        c & 15
                    };
                    if d.letter == 'H' {
                        byte |= if idx % 2 == 0 { nib << 4 } else { nib };
                    } else {
                        byte |= if idx % 2 == 0 { nib } else { nib << 4 };
                    }
                    if idx % 2 == 1 {
                        out.push(byte);
                        byte = 0;
                    }
                }
                if n % 2 == 1 {
                    out.push(byte);
                }
            }
            'B' | 'b' => {
                let s = str_item(&next(pos)?, pos)?;
                let n = d.count.unwrap_or(s.len());
                let mut byte = 0u8;
                for idx in 0..n {
                    let bit = s.get(idx).copied().unwrap_or(0) & 1;
                    if d.letter == 'B' {
                        byte |= bit << (7 - idx % 8);
                    } else {
                        byte |= bit << (idx % 8);
                    }
                    if idx % 8 == 7 {
                        out.push(byte);
                        byte = 0;
                    }
                }
                if n % 8 != 0 {
                    out.push(byte);
                }
            }
            'm' => {
                let s = str_item(&next(pos)?, pos)?;
                let line = match d.count {
                    Some(0) if d.explicit => 0,
                    Some(n) if d.explicit && n >= 3 => n / 3 * 3,
                    _ => 45,
                };
                if line == 0 {
                    out.extend(base64(&s));
                } else {
                    for chunk in s.chunks(line) {
                        out.extend(base64(chunk));
                        out.push(b'\n');
                    }
                }
            }
            'x' => out.extend(std::iter::repeat_n(0, d.count.unwrap_or(0))),
            'X' => {
                let n = d.count.unwrap_or(0);
                if n > out.len() {
                    return raise("ArgumentError", "X outside of string", pos);
                }
                out.truncate(out.len() - n);
            }
            '@' => {
                let n = d.count.unwrap_or(0);
                out.resize(n, 0);
            }
            other => unknown(other, pos)?,
        }
    }
    if utf8 {
        return match String::from_utf8(out) {
            Ok(s) => Ok(RValue::string(s)),
            Err(_) => unsupported("pack of 'U' mixed with bytes beyond ASCII", pos),
        };
    }
    if text {
        if let Ok(s) = String::from_utf8(out.clone()) {
            return Ok(RValue::string(s));
        }
    }
    Ok(binary_string(&out))
}

fn b64_value(c: u8) -> Option<u32> {
    B64.iter().position(|&x| x == c).map(|v| v as u32)
}

/// `String#unpack` (`first`: `unpack1`).
pub(crate) fn unpack(recv: &RValue, first: bool, args: &[RValue], pos: Pos) -> R {
    crate::methods::argc(args, 1, 1, pos)?;
    let fmt = match &args[0] {
        RValue::Str(s) => s.borrow().clone(),
        other => return crate::interp::no_implicit_conversion(other, "String", pos),
    };
    let bytes = str_bytes(recv);
    let ds = directives(&fmt, pos)?;
    let mut out: Vec<RValue> = Vec::new();
    let mut at = 0usize;
    for d in &ds {
        if first && !out.is_empty() {
            break;
        }
        if let Some((size, signed)) = int_kind(d) {
            let mut n = d.count.unwrap_or(usize::MAX);
            while n > 0 {
                if at + size > bytes.len() {
                    if d.count.is_some() {
                        out.push(RValue::Nil);
                        n -= 1;
                        continue;
                    }
                    break;
                }
                let mut buf = [0u8; 8];
                buf[..size].copy_from_slice(&bytes[at..at + size]);
                if big_endian(d) {
                    buf[..size].reverse();
                }
                let mut v = u64::from_le_bytes(buf);
                at += size;
                n -= 1;
                if signed && size < 8 && v >> (size * 8 - 1) & 1 == 1 {
                    v |= u64::MAX << (size * 8);
                }
                if !signed && size == 8 && v > i64::MAX as u64 {
                    out.push(crate::bigint::norm(num_bigint::BigInt::from(v)));
                } else {
                    out.push(RValue::Int(v as i64));
                }
            }
            continue;
        }
        match d.letter {
            'U' => {
                let mut n = d.count.unwrap_or(usize::MAX);
                while n > 0 && at < bytes.len() {
                    let len = match bytes[at] {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        0xf0..=0xf7 => 4,
                        _ => return raise("ArgumentError", "malformed UTF-8 character", pos),
                    };
                    let Some(c) = bytes
                        .get(at..at + len)
                        .and_then(|b| std::str::from_utf8(b).ok())
                        .and_then(|s| s.chars().next())
                    else {
                        return raise("ArgumentError", "malformed UTF-8 character", pos);
                    };
                    out.push(RValue::Int(c as i64));
                    at += len;
                    n -= 1;
                }
            }
            'w' => {
                let mut n = d.count.unwrap_or(usize::MAX);
                while n > 0 && at < bytes.len() {
                    let mut v = num_bigint::BigInt::default();
                    while let Some(&b) = bytes.get(at) {
                        at += 1;
                        v = (v << 7u32) | num_bigint::BigInt::from(b & 0x7f);
                        if b & 0x80 == 0 {
                            break;
                        }
                    }
                    out.push(crate::bigint::checked(v, pos)?);
                    n -= 1;
                }
            }
            'a' | 'A' | 'Z' => {
                let rest = &bytes[at.min(bytes.len())..];
                let n = d.count.unwrap_or(rest.len()).min(rest.len());
                let mut s = &rest[..n];
                match d.letter {
                    'A' => {
                        while let [init @ .., b' ' | 0] = s {
                            s = init;
                        }
                        at += n;
                    }
                    'Z' => {
                        if let Some(z) = s.iter().position(|&b| b == 0) {
                            s = &s[..z];
                            at += if d.count.is_none() { z + 1 } else { n };
                        } else {
                            at += n;
                        }
                    }
                    _ => at += n,
                }
                out.push(binary_string(s));
            }
            'H' | 'h' | 'B' | 'b' => {
                let rest = &bytes[at.min(bytes.len())..];
                let per = if matches!(d.letter, 'H' | 'h') { 2 } else { 8 };
                let n = d.count.unwrap_or(rest.len() * per).min(rest.len() * per);
                let mut s = String::new();
                for idx in 0..n {
                    let b = rest[idx / per];
                    let v = match d.letter {
                        'H' => (b >> if idx % 2 == 0 { 4 } else { 0 }) & 15,
                        'h' => (b >> if idx % 2 == 0 { 0 } else { 4 }) & 15,
                        'B' => (b >> (7 - idx % 8)) & 1,
                        _ => (b >> (idx % 8)) & 1,
                    };
                    s.push(char::from_digit(v as u32, 16).unwrap_or('0'));
                }
                at += n.div_ceil(per);
                out.push(RValue::string(s));
            }
            'm' => {
                let rest = &bytes[at.min(bytes.len())..];
                let strict = d.explicit && d.count == Some(0);
                let mut acc: Vec<u8> = Vec::new();
                let mut quad: Vec<u32> = Vec::new();
                let mut pad = 0;
                for &c in rest {
                    if c == b'=' {
                        pad += 1;
                        continue;
                    }
                    match b64_value(c) {
                        Some(v) if pad == 0 => quad.push(v),
                        _ if strict => return raise("ArgumentError", "invalid base64", pos),
                        _ => continue,
                    }
                    if quad.len() == 4 {
                        let n = quad[0] << 18 | quad[1] << 12 | quad[2] << 6 | quad[3];
                        acc.extend([(n >> 16) as u8, (n >> 8) as u8, n as u8]);
                        quad.clear();
                    }
                }
                if strict && (quad.len() + pad) % 4 != 0 {
                    return raise("ArgumentError", "invalid base64", pos);
                }
                match quad.len() {
                    2 => acc.push(((quad[0] << 18 | quad[1] << 12) >> 16) as u8),
                    3 => {
                        let n = quad[0] << 18 | quad[1] << 12 | quad[2] << 6;
                        acc.extend([(n >> 16) as u8, (n >> 8) as u8]);
                    }
                    1 if strict => return raise("ArgumentError", "invalid base64", pos),
                    _ => {}
                }
                at = bytes.len();
                out.push(binary_string(&acc));
            }
            'x' => {
                let n = d.count.unwrap_or(bytes.len().saturating_sub(at));
                if at + n > bytes.len() {
                    return raise("ArgumentError", "x outside of string", pos);
                }
                at += n;
            }
            'X' => {
                let n = d.count.unwrap_or(0);
                if n > at {
                    return raise("ArgumentError", "X outside of string", pos);
                }
                at -= n;
            }
            '@' => {
                let n = d.count.unwrap_or(0);
                if n > bytes.len() {
                    return raise("ArgumentError", "@ outside of string", pos);
                }
                at = n;
            }
            other => unknown(other, pos)?,
        }
    }
    if first {
        return Ok(out.into_iter().next().unwrap_or(RValue::Nil));
    }
    let _ = inspect;
    Ok(RValue::array(out))
}
