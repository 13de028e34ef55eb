//! Ruby's `Time`, `Date` (require 'date') and the `Rational` numbers their arithmetic
//! answers (`Date - Date`, `Float#to_r`), with Ruby 3.1's texts (`to_s`, `inspect`,
//! `strftime`, `iso8601`).
//!
//! Time zones: this engine reads no time zone source, so local time is UTC (as Ruby with
//! `TZ=UTC`): `Time.now.zone` is "UTC", `Time.local`/`Time.mktime` make UTC times that are
//! not `utc?`, and a time with an explicit offset (`Time.new(..., "+09:00")`, a parsed
//! `+02:00`) keeps that offset. `Time.now` and `Date.today` read the real clock, as in Puppet.
//! Dates before the Gregorian reform (1582-10-15), which Ruby's Date counts in the Julian
//! calendar, and the formats of `Time.parse`/`Date.parse` beyond the ISO 8601 forms are
//! errors naming the construct, never a guess.

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::methods::{argc, int_arg};
use crate::object::{Blk, ObjData};
use crate::value::{inspect, to_s, RValue};
use crate::Pos;
use puppet_types::strftime::{offset_text, strftime, CivilTime as Fields};
use puppet_types::time::{DAY_NAMES as DAYS, MONTH_NAMES as MONTHS};
use std::cell::Cell;
use std::rc::Rc;

/// A point in time: seconds and nanoseconds since the epoch, its UTC offset, and whether it
/// is a UTC time (`utc?`) or a local one (local is UTC here, see the module's text).
#[derive(Debug)]
pub(crate) struct TimeData {
    secs: i64,
    nsec: i64,
    off: Cell<i32>,
    utc: Cell<bool>,
    /// True for a time with a fixed offset given by the program (`zone` is nil).
    fixed: Cell<bool>,
}

/// A calendar day (its Julian day number, Gregorian calendar only).
#[derive(Debug)]
pub(crate) struct DateData {
    jd: i64,
}

/// A rational number in lowest terms, the denominator positive.
#[derive(Debug)]
pub(crate) struct RationalData {
    num: i64,
    den: i64,
}

/// The Julian day of the Gregorian reform that Ruby's Date uses (1582-10-15).
const ITALY: i64 = 2299161;
/// Julian day of 1970-01-01.
const JD_EPOCH: i64 = 2440588;

/// Days since 1970-01-01 of a proleptic Gregorian date (puppet-types' calendar, in i64).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    puppet_types::time::days_from_civil(y.into(), m.into(), d.into()) as i64
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let (y, m, d) = puppet_types::time::civil_from_days(z.into());
    (y as i64, m as i64, d as i64)
}

fn leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn month_days(y: i64, m: i64) -> i64 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn time_fields(t: &TimeData) -> Fields {
    Fields {
        zone: if t.fixed.get() {
            String::new()
        } else {
            "UTC".to_string()
        },
        utc: t.utc.get(),
        ..Fields::at(t.secs, t.nsec, t.off.get())
    }
}

fn date_fields(d: &DateData) -> Fields {
    let days = d.jd - JD_EPOCH;
    let (year, mon, day) = civil_from_days(days);
    Fields {
        year,
        mon,
        day,
        hour: 0,
        min: 0,
        sec: 0,
        nsec: 0,
        days,
        off: 0,
        zone: "+00:00".to_string(),
        epoch: days * 86400,
        date: true,
        utc: false,
    }
}

fn now() -> (i64, i64) {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos() as i64),
        Err(_) => (0, 0),
    }
}

fn native<T: 'static>(v: &RValue) -> Option<Rc<T>> {
    match v {
        RValue::Object(o) => match &*o.data.borrow() {
            ObjData::Native(d) => d.clone().downcast::<T>().ok(),
            _ => None,
        },
        _ => None,
    }
}

fn make_time(it: &mut Interp, secs: i64, nsec: i64, off: i32, utc: bool, fixed: bool) -> RValue {
    let (secs, nsec) = (
        secs + nsec.div_euclid(1_000_000_000),
        nsec.rem_euclid(1_000_000_000),
    );
    it.new_native(
        "Time",
        TimeData {
            secs,
            nsec,
            off: Cell::new(off),
            utc: Cell::new(utc),
            fixed: Cell::new(fixed),
        },
    )
}

fn make_date(it: &mut Interp, jd: i64, pos: Pos) -> R {
    if jd < ITALY {
        return unsupported(
            "a Date before 1582-10-15 (Ruby counts those in the Julian calendar)",
            pos,
        );
    }
    if jd > 1_000_000_000 {
        return unsupported("a Date beyond year 2 million", pos);
    }
    Ok(it.new_native("Date", DateData { jd }))
}

pub(crate) fn make_rational(it: &mut Interp, num: i64, den: i64, pos: Pos) -> R {
    if den == 0 {
        return raise("ZeroDivisionError", "divided by 0", pos);
    }
    let g = gcd(num.unsigned_abs(), den.unsigned_abs()) as i64;
    let (mut n, mut d) = (num / g, den / g);
    if d < 0 {
        match (n.checked_neg(), d.checked_neg()) {
            (Some(a), Some(b)) => (n, d) = (a, b),
            _ => return unsupported("Rational beyond 64 bits (Bignum)", pos),
        }
    }
    Ok(it.new_native("Rational", RationalData { num: n, den: d }))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// `Rational(a, b = 1)` of Integers (and of a Rational).
pub(crate) fn rational_function(it: &mut Interp, args: &[RValue], pos: Pos) -> R {
    argc(args, 1, 2, pos)?;
    let part = |v: &RValue| -> Result<(i64, i64), Ctrl> {
        match v {
            RValue::Int(i) => Ok((*i, 1)),
            RValue::Nil => raise("TypeError", "can't convert nil into Rational", pos),
            other => match native::<RationalData>(other) {
                Some(r) => Ok((r.num, r.den)),
                None => unsupported(format!("Rational({})", inspect(other)), pos),
            },
        }
    };
    let (a, b) = part(&args[0])?;
    let (c, d) = match args.get(1) {
        Some(v) => part(v)?,
        None => (1, 1),
    };
    // (a/b) / (c/d) = (a*d) / (b*c)
    match (a.checked_mul(d), b.checked_mul(c)) {
        (Some(n), Some(m)) => make_rational(it, n, m, pos),
        _ => unsupported("Rational beyond 64 bits (Bignum)", pos),
    }
}

/// `Float#to_r`: the float's exact value as a Rational.
pub(crate) fn float_to_r(it: &mut Interp, x: f64, pos: Pos) -> R {
    if !x.is_finite() {
        return raise("FloatDomainError", crate::value::float_to_s(x), pos);
    }
    if x == 0.0 {
        return make_rational(it, 0, 1, pos);
    }
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = (bits & ((1 << 52) - 1)) as i64;
    let mut e = if exp == 0 {
        -1074
    } else {
        mant |= 1 << 52;
        exp - 1075
    };
    while mant & 1 == 0 && e < 0 {
        mant >>= 1;
        e += 1;
    }
    let sign = if neg { -1 } else { 1 };
    if e >= 0 {
        if e > 10 || mant.checked_shl(e as u32).is_none_or(|v| v >> e != mant) {
            return unsupported("Float#to_r beyond 64 bits (Bignum)", pos);
        }
        return make_rational(it, sign * (mant << e), 1, pos);
    }
    if e < -62 {
        return unsupported("Float#to_r beyond 64 bits (Bignum)", pos);
    }
    make_rational(it, sign * mant, 1i64 << (-e), pos)
}

/// An offset argument: "+09:00", "-0500", "UTC", "Z", or seconds.
fn offset_arg(v: &RValue, pos: Pos) -> Result<Option<i32>, Ctrl> {
    match v {
        RValue::Int(i) if i.abs() < 86400 => Ok(Some(*i as i32)),
        RValue::Str(s) => {
            let s = s.borrow();
            if matches!(s.as_str(), "UTC" | "Z" | "-00:00") {
                return Ok(None);
            }
            parse_offset(&s).map(Some).ok_or(()).or_else(|_| {
                raise(
                    "ArgumentError",
                    format!("\"+HH:MM\", \"-HH:MM\", \"UTC\" or \"A\"..\"I\",\"K\"..\"Z\" expected for utc_offset: {s}"),
                    pos,
                )
            })
        }
        other => unsupported(format!("time zone argument {}", inspect(other)), pos),
    }
}

fn parse_offset(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = s[1..].chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !matches!(digits.len(), 2 | 4 | 6) {
        return None;
    }
    let n = |r: std::ops::Range<usize>| digits.get(r).and_then(|x| x.parse::<i32>().ok());
    let h = n(0..2)?;
    let m = if digits.len() >= 4 { n(2..4)? } else { 0 };
    let sec = if digits.len() == 6 { n(4..6)? } else { 0 };
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + sec))
}

/// Parses the ISO 8601 forms `YYYY-MM-DD[( |T)HH:MM[:SS[.frac]]][ ][Z|UTC|±HH[:]MM]`:
/// (year, month, day, hour, min, sec, nsec, offset: None when none given, Some(None) UTC).
#[allow(clippy::type_complexity)]
fn parse_iso(s: &str) -> Option<(i64, i64, i64, i64, i64, i64, i64, Option<Option<i32>>)> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    let (y, m, d, mut rest) = if b.len() >= 10 && (b[4] == b'-' || b[4] == b'/') && b[7] == b[4] {
        (num(0..4)?, num(5..7)?, num(8..10)?, &s[10..])
    } else if b.len() == 8 {
        (num(0..4)?, num(4..6)?, num(6..8)?, "")
    } else {
        return None;
    };
    let (mut hh, mut mi, mut ss, mut ns) = (0, 0, 0, 0);
    let mut zone = None;
    if let Some(r) = rest.strip_prefix(['T', ' ']) {
        let rb = r.as_bytes();
        if rb.len() < 5 || rb[2] != b':' {
            return None;
        }
        let n2 = |t: &str| -> Option<i64> {
            if t.len() == 2 && t.bytes().all(|c| c.is_ascii_digit()) {
                t.parse().ok()
            } else {
                None
            }
        };
        hh = n2(&r[0..2])?;
        mi = n2(&r[3..5])?;
        rest = &r[5..];
        if let Some(r2) = rest.strip_prefix(':') {
            ss = n2(r2.get(0..2)?)?;
            rest = &r2[2..];
            if let Some(r3) = rest.strip_prefix('.') {
                let k = r3.bytes().take_while(|c| c.is_ascii_digit()).count();
                if k == 0 {
                    return None;
                }
                let mut frac = r3[..k].to_string();
                frac.truncate(9);
                while frac.len() < 9 {
                    frac.push('0');
                }
                ns = frac.parse().ok()?;
                rest = &r3[k..];
            }
        }
        let z = rest.trim_start();
        if !z.is_empty() {
            zone = Some(if matches!(z, "Z" | "UTC" | "GMT") {
                None
            } else {
                Some(parse_offset(z)?)
            });
            rest = "";
        }
    }
    if !rest.is_empty() || !(1..=12).contains(&m) || d < 1 || d > month_days(y, m) {
        return None;
    }
    if hh > 24 || mi > 59 || ss > 60 {
        return None;
    }
    Some((y, m, d, hh, mi, ss, ns, zone))
}

fn month_arg(v: &RValue, pos: Pos) -> Result<i64, Ctrl> {
    if let RValue::Str(s) = v {
        let s = s.borrow().to_lowercase();
        if let Some(k) = MONTHS.iter().position(|m| m[..3].to_lowercase() == s) {
            return Ok(k as i64 + 1);
        }
        return s
            .parse::<i64>()
            .or_else(|_| raise("ArgumentError", "mon out of range", pos));
    }
    int_arg(v, pos)
}

/// `Time.utc(y, m, d, h, mi, s)` and its kind: the seconds since the epoch and nanoseconds.
fn civil_args(args: &[RValue], pos: Pos) -> Result<(i64, i64), Ctrl> {
    argc(args, 1, 7, pos)?;
    if args.len() > 7 {
        return unsupported("Time.utc with 10 arguments", pos);
    }
    let y = int_arg(&args[0], pos)?;
    let m = match args.get(1) {
        Some(v) if !matches!(v, RValue::Nil) => month_arg(v, pos)?,
        _ => 1,
    };
    let part = |k: usize, dflt: i64| -> Result<i64, Ctrl> {
        match args.get(k) {
            Some(RValue::Nil) | None => Ok(dflt),
            Some(RValue::Str(s)) => s
                .borrow()
                .trim()
                .parse::<i64>()
                .or_else(|_| raise("ArgumentError", "argument out of range", pos)),
            Some(v) => int_arg(v, pos),
        }
    };
    let d = part(2, 1)?;
    let h = part(3, 0)?;
    let mi = part(4, 0)?;
    let (s, mut ns) = match args.get(5) {
        Some(RValue::Float(f)) if f.is_finite() => {
            (f.floor() as i64, ((f - f.floor()) * 1e9) as i64)
        }
        _ => (part(5, 0)?, 0),
    };
    if args.len() == 7 {
        ns += part(6, 0)? * 1000;
    }
    if !(1..=12).contains(&m) {
        return raise("ArgumentError", "mon out of range", pos);
    }
    if !(1..=31).contains(&d) {
        return raise("ArgumentError", "mday out of range", pos);
    }
    if !(0..=24).contains(&h) || (h == 24 && (mi != 0 || s != 0)) {
        return raise("ArgumentError", "argument out of range", pos);
    }
    if !(0..=59).contains(&mi) {
        return raise("ArgumentError", "min out of range", pos);
    }
    if !(0..=60).contains(&s) {
        return raise("ArgumentError", "sec out of range", pos);
    }
    if !(-100_000_000..=100_000_000).contains(&y) {
        return unsupported("a Time beyond year 100 million", pos);
    }
    // Ruby rolls a day past the month's end over into the next month.
    let days = days_from_civil(y, m, 1) + d - 1;
    Ok((days * 86400 + h * 3600 + mi * 60 + s, ns))
}

/// The numeric value of a seconds argument: whole seconds and nanoseconds.
fn seconds_arg(it: &mut Interp, v: &RValue, pos: Pos) -> Result<(i64, i64), Ctrl> {
    let _ = it;
    match v {
        RValue::Int(i) => Ok((*i, 0)),
        RValue::Float(f) if f.is_finite() && f.abs() < 1e17 => {
            let s = f.floor();
            Ok((s as i64, ((f - s) * 1e9).floor() as i64))
        }
        other => match native::<RationalData>(other) {
            Some(r) => {
                let s = r.num.div_euclid(r.den);
                let rem = r.num.rem_euclid(r.den) as i128;
                Ok((s, (rem * 1_000_000_000 / r.den as i128) as i64))
            }
            None => match native::<TimeData>(other) {
                Some(t) => Ok((t.secs, t.nsec)),
                None => raise(
                    "TypeError",
                    format!(
                        "can't convert {} into an exact number",
                        other.conversion_name()
                    ),
                    pos,
                ),
            },
        },
    }
}

/// Class methods of Time, Date and Rational; `None` when the name is not one of them.
pub(crate) fn class_method(
    it: &mut Interp,
    cname: &str,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    Some(match (cname, name) {
        ("Time", "now") => {
            if let Err(e) = argc(args, 0, 0, pos) {
                return Some(Err(e));
            }
            let (s, n) = now();
            Ok(make_time(it, s, n, 0, false, false))
        }
        ("Time", "new") if args.is_empty() => {
            let (s, n) = now();
            Ok(make_time(it, s, n, 0, false, false))
        }
        ("Time", "at") => (|| {
            argc(args, 1, 3, pos)?;
            let (s, mut n) = seconds_arg(it, &args[0], pos)?;
            let (off, utc, fixed) = match native::<TimeData>(&args[0]) {
                Some(t) => (t.off.get(), t.utc.get(), t.fixed.get()),
                None => (0, false, false),
            };
            if let Some(sub) = args.get(1) {
                let unit = match args.get(2) {
                    None => 1000,
                    Some(RValue::Sym(u)) => match &**u {
                        "millisecond" => 1_000_000,
                        "usec" | "microsecond" => 1000,
                        "nsec" | "nanosecond" => 1,
                        _ => return raise("ArgumentError", format!("unexpected unit: {u}"), pos),
                    },
                    Some(other) => {
                        return unsupported(format!("Time.at with {}", inspect(other)), pos)
                    }
                };
                match sub {
                    RValue::Int(k) => n += k * unit,
                    RValue::Float(f) if f.is_finite() => n += (f * unit as f64).floor() as i64,
                    other => return unsupported(format!("Time.at with {}", inspect(other)), pos),
                }
            }
            Ok(make_time(it, s, n, off, utc, fixed))
        })(),
        ("Time", "utc" | "gm" | "local" | "mktime") => (|| {
            let (s, n) = civil_args(args, pos)?;
            Ok(make_time(it, s, n, 0, matches!(name, "utc" | "gm"), false))
        })(),
        ("Time", "new") => (|| {
            let (civil, zone) = if args.len() == 7 {
                (&args[..6], Some(&args[6]))
            } else {
                (args, None)
            };
            argc(civil, 1, 6, pos)?;
            let (s, n) = civil_args(civil, pos)?;
            match zone.map(|z| offset_arg(z, pos)).transpose()? {
                None => Ok(make_time(it, s, n, 0, false, false)),
                Some(None) => Ok(make_time(it, s, n, 0, true, false)),
                Some(Some(off)) => Ok(make_time(it, s - off as i64, n, off, false, true)),
            }
        })(),
        ("Time", "parse" | "iso8601" | "xmlschema") => (|| {
            argc(args, 1, 1, pos)?;
            let text = to_s(&args[0]);
            let Some((y, m, d, hh, mi, ss, ns, zone)) = parse_iso(&text) else {
                if name == "parse" {
                    return unsupported(
                        format!(
                            "Time.parse of {} (only ISO 8601 forms are read)",
                            inspect(&args[0])
                        ),
                        pos,
                    );
                }
                return raise(
                    "ArgumentError",
                    format!("invalid xmlschema format: {}", inspect(&args[0])),
                    pos,
                );
            };
            if name != "parse" && (text.len() < 19 || zone.is_none() && !text.contains('T')) {
                return unsupported(format!("Time.{name} of {}", inspect(&args[0])), pos);
            }
            let local = days_from_civil(y, m, d) * 86400 + hh * 3600 + mi * 60 + ss;
            Ok(match zone {
                None => make_time(it, local, ns, 0, false, false),
                Some(None) => make_time(it, local, ns, 0, true, false),
                Some(Some(off)) => make_time(it, local - off as i64, ns, off, false, true),
            })
        })(),
        ("Time", "strptime") => (|| {
            argc(args, 2, 3, pos)?;
            let (text, fmt) = (to_s(&args[0]), to_s(&args[1]));
            let bad = || {
                raise(
                    "ArgumentError",
                    format!("invalid date or strptime format - `{text}' `{fmt}'"),
                    pos,
                )
            };
            let Some(f) = strptime_fields(&text, &fmt, pos)? else {
                return bad();
            };
            let zone = f.zone;
            if let Some(secs) = f.seconds {
                return Ok(match zone {
                    Some(Some(off)) => make_time(it, secs, 0, off, false, true),
                    _ => make_time(it, secs, 0, 0, false, false),
                });
            }
            let Some(y) = f.year else {
                return unsupported(
                    format!("Time.strptime of {text:?} with {fmt:?}: no year (Ruby takes it from the clock)"),
                    pos,
                );
            };
            let mut hour = f.hour.unwrap_or(0);
            match f.pm {
                Some(true) if hour < 12 => hour += 12,
                Some(false) if hour == 12 => hour = 0,
                _ => {}
            }
            let days = match (f.mon, f.yday) {
                (None, Some(yd)) => days_from_civil(y, 1, 1) + yd - 1,
                (m, _) => days_from_civil(y, m.unwrap_or(1), 1) + f.mday.unwrap_or(1) - 1,
            };
            let local = days * 86400 + hour * 3600 + f.min.unwrap_or(0) * 60 + f.sec.unwrap_or(0);
            Ok(match zone {
                None => make_time(it, local, f.nsec, 0, false, false),
                Some(None) => make_time(it, local, f.nsec, 0, true, false),
                Some(Some(off)) => make_time(it, local - off as i64, f.nsec, off, false, true),
            })
        })(),
        ("Date", "today") => {
            let (s, _) = now();
            make_date(it, s.div_euclid(86400) + JD_EPOCH, pos)
        }
        ("Date", "new" | "civil") => (|| {
            argc(args, 0, 4, pos)?;
            if args.is_empty() {
                return unsupported("Date.new without arguments (-4712-01-01, Julian)", pos);
            }
            let y = int_arg(&args[0], pos)?;
            let m = match args.get(1) {
                Some(v) => int_arg(v, pos)?,
                None => 1,
            };
            let d = match args.get(2) {
                Some(v) => int_arg(v, pos)?,
                None => 1,
            };
            match civil_jd(y, m, d) {
                Some(jd) => make_date(it, jd, pos),
                None => raise("Date::Error", "invalid date", pos),
            }
        })(),
        ("Date", "valid_date?" | "valid_civil?") => (|| {
            argc(args, 3, 4, pos)?;
            let (y, m, d) = (
                int_arg(&args[0], pos)?,
                int_arg(&args[1], pos)?,
                int_arg(&args[2], pos)?,
            );
            Ok(RValue::Bool(civil_jd(y, m, d).is_some()))
        })(),
        ("Date", "leap?" | "gregorian_leap?") => (|| {
            argc(args, 1, 1, pos)?;
            Ok(RValue::Bool(leap(int_arg(&args[0], pos)?)))
        })(),
        ("Date", "parse" | "iso8601") => (|| {
            argc(args, 1, 3, pos)?;
            let text = to_s(&args[0]);
            match parse_iso(&text) {
                Some((y, m, d, ..)) => match civil_jd(y, m, d) {
                    Some(jd) => make_date(it, jd, pos),
                    None => raise("Date::Error", "invalid date", pos),
                },
                None => unsupported(
                    format!(
                        "Date.{name} of {} (only ISO 8601 forms are read)",
                        inspect(&args[0])
                    ),
                    pos,
                ),
            }
        })(),
        ("Date", "strptime") => (|| {
            argc(args, 1, 2, pos)?;
            let fmt = args.get(1).map(to_s).unwrap_or_else(|| "%F".to_string());
            let text = to_s(&args[0]);
            if !matches!(fmt.as_str(), "%F" | "%Y-%m-%d") {
                return unsupported(format!("Date.strptime with format {fmt:?}"), pos);
            }
            match parse_iso(&text).filter(|_| text.len() == 10) {
                Some((y, m, d, ..)) => make_date(it, days_from_civil(y, m, d) + JD_EPOCH, pos),
                None => raise("Date::Error", "invalid date", pos),
            }
        })(),
        ("DateTime", _) => unsupported(format!("DateTime.{name}"), pos),
        _ => return None,
    })
}

/// The Julian day of a valid civil date (negative month and day count from the end).
fn civil_jd(y: i64, m: i64, d: i64) -> Option<i64> {
    if !(-1_000_000..=1_000_000).contains(&y) {
        return None;
    }
    let m = if m < 0 { m + 13 } else { m };
    if !(1..=12).contains(&m) {
        return None;
    }
    let md = month_days(y, m);
    let d = if d < 0 { d + md + 1 } else { d };
    if d < 1 || d > md {
        return None;
    }
    Some(days_from_civil(y, m, d) + JD_EPOCH)
}

/// Methods of Time, Date and Rational objects; `None` when `recv` is none of them.
pub(crate) fn object_method(
    it: &mut Interp,
    recv: &RValue,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    if let Some(t) = native::<TimeData>(recv) {
        return time_method(it, recv, &t, name, args, pos);
    }
    if let Some(d) = native::<DateData>(recv) {
        return date_method(it, recv, &d, name, args, block, pos);
    }
    if let Some(r) = native::<RationalData>(recv) {
        return rational_method(it, &r, name, args, pos);
    }
    None
}

fn cmp_result(o: Option<std::cmp::Ordering>, name: &str, cname: &str, arg: &RValue, pos: Pos) -> R {
    use std::cmp::Ordering::*;
    let Some(o) = o else {
        return match name {
            "<=>" => Ok(RValue::Nil),
            "==" | "eql?" | "equal?" => Ok(RValue::Bool(false)),
            "!=" => Ok(RValue::Bool(true)),
            _ => raise(
                "ArgumentError",
                format!(
                    "comparison of {cname} with {} failed",
                    match arg {
                        RValue::Nil
                        | RValue::Bool(_)
                        | RValue::Int(_)
                        | RValue::Big(_)
                        | RValue::Float(_)
                        | RValue::Sym(_) => {
                            inspect(arg)
                        }
                        other => other.class_name(),
                    }
                ),
                pos,
            ),
        };
    };
    Ok(match name {
        "<=>" => RValue::Int(match o {
            Less => -1,
            Equal => 0,
            Greater => 1,
        }),
        "==" | "eql?" => RValue::Bool(o == Equal),
        "!=" => RValue::Bool(o != Equal),
        "<" => RValue::Bool(o == Less),
        "<=" => RValue::Bool(o != Greater),
        ">" => RValue::Bool(o == Greater),
        _ => RValue::Bool(o != Less),
    })
}

fn time_text(t: &TimeData, f: &Fields, inspect_form: bool) -> String {
    let mut s = strftime(f, "%Y-%m-%d %H:%M:%S");
    if inspect_form && t.nsec != 0 {
        let frac = format!("{:09}", t.nsec);
        s.push('.');
        s.push_str(frac.trim_end_matches('0'));
    }
    if t.utc.get() {
        s.push_str(" UTC");
    } else {
        s.push(' ');
        s.push_str(&offset_text(f.off, 0));
    }
    s
}

fn time_method(
    it: &mut Interp,
    recv: &RValue,
    t: &TimeData,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let f = time_fields(t);
    let int = |n: i64| Some(Ok(RValue::Int(n)));
    let no_args = |n: usize| argc(args, 0, n, pos);
    if let Err(e) = match name {
        "strftime" | "+" | "-" | "<=>" | "==" | "<" | "<=" | ">" | ">=" | "eql?" | "!=" => {
            argc(args, 1, 1, pos)
        }
        "iso8601" | "xmlschema" | "localtime" | "getlocal" | "round" | "floor" | "ceil" => {
            no_args(1)
        }
        "between?" => argc(args, 2, 2, pos),
        _ => no_args(0),
    } {
        if matches!(
            name,
            "year"
                | "month"
                | "mon"
                | "day"
                | "mday"
                | "hour"
                | "min"
                | "sec"
                | "usec"
                | "nsec"
                | "to_i"
                | "to_f"
                | "to_s"
                | "inspect"
                | "utc"
                | "strftime"
                | "iso8601"
                | "+"
                | "-"
                | "<=>"
                | "=="
                | "<"
                | ">"
                | "<="
                | ">="
        ) {
            return Some(Err(e));
        }
    }
    match name {
        "year" => int(f.year),
        "month" | "mon" => int(f.mon),
        "day" | "mday" => int(f.day),
        "hour" => int(f.hour),
        "min" => int(f.min),
        "sec" => int(f.sec),
        "usec" | "tv_usec" => int(t.nsec / 1000),
        "nsec" | "tv_nsec" => int(t.nsec),
        "wday" => int(f.wday()),
        "yday" => int(f.yday()),
        "to_i" | "tv_sec" => int(t.secs),
        "to_f" => Some(Ok(RValue::Float(t.secs as f64 + t.nsec as f64 / 1e9))),
        "to_r" => Some(make_rational(
            it,
            t.secs.saturating_mul(1_000_000_000).saturating_add(t.nsec),
            1_000_000_000,
            pos,
        )),
        "subsec" if t.nsec == 0 => int(0),
        "utc_offset" | "gmt_offset" | "gmtoff" => int(f.off as i64),
        "utc?" | "gmt?" => Some(Ok(RValue::Bool(t.utc.get()))),
        "dst?" | "isdst" => Some(Ok(RValue::Bool(false))),
        "zone" => Some(Ok(if t.fixed.get() {
            RValue::Nil
        } else {
            RValue::str("UTC")
        })),
        "utc" | "gmtime" => {
            t.utc.set(true);
            t.off.set(0);
            t.fixed.set(false);
            Some(Ok(recv.clone()))
        }
        "getutc" | "getgm" => Some(Ok(make_time(it, t.secs, t.nsec, 0, true, false))),
        "localtime" | "getlocal" => Some((|| {
            let (off, fixed) = match args.first() {
                None => (0, false),
                Some(z) => match offset_arg(z, pos)? {
                    None => (0, false),
                    Some(o) => (o, true),
                },
            };
            if name == "getlocal" {
                return Ok(make_time(it, t.secs, t.nsec, off, false, fixed));
            }
            t.utc.set(false);
            t.off.set(off);
            t.fixed.set(fixed);
            Ok(recv.clone())
        })()),
        "to_time" => Some(Ok(recv.clone())),
        "to_date" => Some(make_date(it, f.days + JD_EPOCH, pos)),
        "to_a" => Some(Ok(RValue::array(vec![
            RValue::Int(f.sec),
            RValue::Int(f.min),
            RValue::Int(f.hour),
            RValue::Int(f.day),
            RValue::Int(f.mon),
            RValue::Int(f.year),
            RValue::Int(f.wday()),
            RValue::Int(f.yday()),
            RValue::Bool(false),
            if t.fixed.get() {
                RValue::Nil
            } else {
                RValue::str("UTC")
            },
        ]))),
        "strftime" => Some(match &args[0] {
            RValue::Str(s) => Ok(RValue::string(strftime(&f, &s.borrow()))),
            other => crate::interp::no_implicit_conversion(other, "String", pos),
        }),
        "iso8601" | "xmlschema" => Some((|| {
            let n = match args.first() {
                Some(v) => int_arg(v, pos)?.clamp(0, 9) as usize,
                None => 0,
            };
            let mut s = strftime(&f, "%Y-%m-%dT%H:%M:%S");
            if n > 0 {
                s.push('.');
                s.push_str(&format!("{:09}", t.nsec)[..n]);
            }
            if t.utc.get() {
                s.push('Z');
            } else {
                s.push_str(&offset_text(f.off, 1));
            }
            Ok(RValue::string(s))
        })()),
        "httpdate" => Some(Ok(RValue::string(strftime(
            &time_fields(&TimeData {
                secs: t.secs,
                nsec: t.nsec,
                off: Cell::new(0),
                utc: Cell::new(true),
                fixed: Cell::new(false),
            }),
            "%a, %d %b %Y %H:%M:%S GMT",
        )))),
        "rfc2822" | "rfc822" => Some(Ok(RValue::string(format!(
            "{} {}",
            strftime(&f, "%a, %d %b %Y %H:%M:%S"),
            if t.utc.get() {
                "-0000".to_string()
            } else {
                offset_text(f.off, 0)
            }
        )))),
        "ctime" | "asctime" => Some(Ok(RValue::string(strftime(&f, "%a %b %e %H:%M:%S %Y")))),
        "to_s" => Some(Ok(RValue::string(time_text(t, &f, false)))),
        "inspect" => Some(Ok(RValue::string(time_text(t, &f, true)))),
        "sunday?" | "monday?" | "tuesday?" | "wednesday?" | "thursday?" | "friday?"
        | "saturday?" => Some(Ok(RValue::Bool(
            DAYS[f.wday() as usize].to_lowercase() == name[..name.len() - 1],
        ))),
        "+" | "-" => Some((|| {
            let a = &args[0];
            if let Some(o) = native::<TimeData>(a) {
                if name == "+" {
                    return raise("TypeError", "time + time?", pos);
                }
                let d = (t.secs - o.secs) as f64 + (t.nsec - o.nsec) as f64 / 1e9;
                return Ok(RValue::Float(d));
            }
            let (s, n) = match a {
                RValue::Int(_) | RValue::Float(_) => seconds_arg(it, a, pos)?,
                other if native::<RationalData>(other).is_some() => seconds_arg(it, a, pos)?,
                other => {
                    return raise(
                        "TypeError",
                        format!(
                            "can't convert {} into an exact number",
                            other.conversion_name()
                        ),
                        pos,
                    )
                }
            };
            let (s, n) = if name == "+" {
                (t.secs + s, t.nsec + n)
            } else {
                (t.secs - s, t.nsec - n)
            };
            Ok(make_time(it, s, n, t.off.get(), t.utc.get(), t.fixed.get()))
        })()),
        "<=>" | "==" | "<" | "<=" | ">" | ">=" | "eql?" | "!=" => {
            let a = &args[0];
            let o = native::<TimeData>(a).map(|o| (t.secs, t.nsec).cmp(&(o.secs, o.nsec)));
            Some(cmp_result(o, name, "Time", a, pos))
        }
        "between?" => Some({
            let lo = native::<TimeData>(&args[0]).map(|o| (t.secs, t.nsec) >= (o.secs, o.nsec));
            let hi = native::<TimeData>(&args[1]).map(|o| (t.secs, t.nsec) <= (o.secs, o.nsec));
            match (lo, hi) {
                (Some(a), Some(b)) => Ok(RValue::Bool(a && b)),
                _ => cmp_result(None, name, "Time", &args[0], pos),
            }
        }),
        "hash" => int(t.secs ^ (t.nsec << 20)),
        "round" | "floor" | "ceil" | "subsec" | "succ" | "to_datetime" => {
            Some(unsupported(format!("Time#{name}"), pos))
        }
        _ => None,
    }
}

fn date_method(
    it: &mut Interp,
    recv: &RValue,
    d: &DateData,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let f = date_fields(d);
    let int = |n: i64| Some(Ok(RValue::Int(n)));
    let one = || argc(args, 1, 1, pos);
    let count = || -> Result<i64, Ctrl> {
        argc(args, 0, 1, pos)?;
        match args.first() {
            Some(v) => int_arg(v, pos),
            None => Ok(1),
        }
    };
    let add_months = |it: &mut Interp, n: i64| -> R {
        let total = f.year * 12 + (f.mon - 1) + n;
        let (y, m) = (total.div_euclid(12), total.rem_euclid(12) + 1);
        let day = f.day.min(month_days(y, m));
        make_date(it, days_from_civil(y, m, day) + JD_EPOCH, pos)
    };
    match name {
        "year" => int(f.year),
        "month" | "mon" => int(f.mon),
        "day" | "mday" => int(f.day),
        "wday" => int(f.wday()),
        "yday" => int(f.yday()),
        "jd" => int(d.jd),
        "mjd" => int(d.jd - 2400001),
        "cwday" => int((f.wday() + 6) % 7 + 1),
        "cweek" => int(f.iso_week().1),
        "cwyear" => int(f.iso_week().0),
        "leap?" => Some(Ok(RValue::Bool(leap(f.year)))),
        "to_s" | "iso8601" | "xmlschema" => Some(Ok(RValue::string(strftime(&f, "%Y-%m-%d")))),
        "inspect" => Some(Ok(RValue::string(format!(
            "#<Date: {} (({}j,0s,0n),+0s,{ITALY}j)>",
            strftime(&f, "%Y-%m-%d"),
            d.jd
        )))),
        "strftime" => Some((|| {
            argc(args, 0, 1, pos)?;
            let fmt = args.first().map(to_s).unwrap_or_else(|| "%F".to_string());
            Ok(RValue::string(strftime(&f, &fmt)))
        })()),
        "httpdate" => Some(Ok(RValue::string(strftime(
            &f,
            "%a, %d %b %Y %H:%M:%S GMT",
        )))),
        "to_date" => Some(Ok(recv.clone())),
        "to_time" => Some(Ok(make_time(it, f.epoch, 0, 0, false, false))),
        "sunday?" | "monday?" | "tuesday?" | "wednesday?" | "thursday?" | "friday?"
        | "saturday?" => Some(Ok(RValue::Bool(
            DAYS[f.wday() as usize].to_lowercase() == name[..name.len() - 1],
        ))),
        "+" | "-" => Some((|| {
            one()?;
            if let Some(o) = native::<DateData>(&args[0]) {
                if name == "-" {
                    return make_rational(it, d.jd - o.jd, 1, pos);
                }
                return raise("TypeError", "expected numeric", pos);
            }
            match &args[0] {
                RValue::Int(n) => {
                    let jd = if name == "+" {
                        d.jd.checked_add(*n)
                    } else {
                        d.jd.checked_sub(*n)
                    };
                    match jd {
                        Some(jd) => make_date(it, jd, pos),
                        None => unsupported("a Date beyond 64 bits", pos),
                    }
                }
                RValue::Float(_) => {
                    unsupported(format!("Date#{name} with a fraction of a day"), pos)
                }
                other => match native::<RationalData>(other) {
                    Some(r) if r.den == 1 => make_date(
                        it,
                        if name == "+" {
                            d.jd + r.num
                        } else {
                            d.jd - r.num
                        },
                        pos,
                    ),
                    _ if native::<RationalData>(other).is_some() => {
                        unsupported(format!("Date#{name} with a fraction of a day"), pos)
                    }
                    _ => raise("TypeError", "expected numeric", pos),
                },
            }
        })()),
        ">>" | "<<" => Some((|| {
            one()?;
            let n = int_arg(&args[0], pos)?;
            add_months(it, if name == ">>" { n } else { -n })
        })()),
        "next_day" | "prev_day" | "next" | "succ" => Some((|| {
            let n = if matches!(name, "next" | "succ") {
                argc(args, 0, 0, pos).map(|_| 1)?
            } else {
                count()?
            };
            make_date(
                it,
                if name == "prev_day" {
                    d.jd - n
                } else {
                    d.jd + n
                },
                pos,
            )
        })()),
        "next_month" | "prev_month" => Some((|| {
            let n = count()?;
            add_months(it, if name == "next_month" { n } else { -n })
        })()),
        "next_year" | "prev_year" => Some((|| {
            let n = count()?;
            add_months(it, if name == "next_year" { n * 12 } else { -n * 12 })
        })()),
        "<=>" | "==" | "<" | "<=" | ">" | ">=" | "eql?" | "!=" | "===" => Some((|| {
            one()?;
            let a = &args[0];
            let o = match native::<DateData>(a) {
                Some(o) => Some(d.jd.cmp(&o.jd)),
                None => match a {
                    RValue::Int(n) => Some(d.jd.cmp(n)),
                    _ => None,
                },
            };
            cmp_result(o, if name == "===" { "==" } else { name }, "Date", a, pos)
        })()),
        "between?" => Some((|| {
            argc(args, 2, 2, pos)?;
            match (native::<DateData>(&args[0]), native::<DateData>(&args[1])) {
                (Some(a), Some(b)) => Ok(RValue::Bool(a.jd <= d.jd && d.jd <= b.jd)),
                _ => cmp_result(None, name, "Date", &args[0], pos),
            }
        })()),
        "upto" | "downto" => Some((|| {
            one()?;
            let Some(b) = block else {
                return unsupported(format!("Date#{name} without a block"), pos);
            };
            let Some(o) = native::<DateData>(&args[0]) else {
                return raise("TypeError", "expected date", pos);
            };
            let mut jd = d.jd;
            while (name == "upto" && jd <= o.jd) || (name == "downto" && jd >= o.jd) {
                let v = make_date(it, jd, pos)?;
                it.call_block(b, vec![v], pos)?;
                jd += if name == "upto" { 1 } else { -1 };
            }
            Ok(recv.clone())
        })()),
        "hash" => int(d.jd),
        _ => None,
    }
}

fn rational_method(
    it: &mut Interp,
    r: &RationalData,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let int = |n: i64| Some(Ok(RValue::Int(n)));
    let other = |v: &RValue| -> Option<(i64, i64)> {
        match v {
            RValue::Int(i) => Some((*i, 1)),
            _ => native::<RationalData>(v).map(|o| (o.num, o.den)),
        }
    };
    let overflow = || unsupported("Rational beyond 64 bits (Bignum)", pos);
    match name {
        "numerator" => int(r.num),
        "denominator" => int(r.den),
        "to_i" | "truncate" if args.is_empty() => int(r.num / r.den),
        "floor" if args.is_empty() => int(r.num.div_euclid(r.den)),
        "ceil" if args.is_empty() => int(-((-r.num).div_euclid(r.den))),
        "round" if args.is_empty() => {
            // Half away from zero.
            let q = (2 * r.num.abs() as i128 + r.den as i128) / (2 * r.den as i128);
            int(if r.num < 0 { -(q as i64) } else { q as i64 })
        }
        "to_f" => Some(Ok(RValue::Float(r.num as f64 / r.den as f64))),
        "to_r" | "rationalize" if args.is_empty() => Some(make_rational(it, r.num, r.den, pos)),
        "to_s" => Some(Ok(RValue::string(format!("{}/{}", r.num, r.den)))),
        "inspect" => Some(Ok(RValue::string(format!("({}/{})", r.num, r.den)))),
        "zero?" => Some(Ok(RValue::Bool(r.num == 0))),
        "positive?" => Some(Ok(RValue::Bool(r.num > 0))),
        "negative?" => Some(Ok(RValue::Bool(r.num < 0))),
        "integer?" => Some(Ok(RValue::Bool(false))),
        "abs" => Some(make_rational(it, r.num.abs(), r.den, pos)),
        "-@" => Some(make_rational(it, -r.num, r.den, pos)),
        "hash" => int(r.num ^ (r.den << 16)),
        "+" | "-" | "*" | "/" | "quo" => Some((|| {
            argc(args, 1, 1, pos)?;
            if let RValue::Float(x) = &args[0] {
                let a = r.num as f64 / r.den as f64;
                return Ok(RValue::Float(match name {
                    "+" => a + x,
                    "-" => a - x,
                    "*" => a * x,
                    _ => a / x,
                }));
            }
            let Some((n, d)) = other(&args[0]) else {
                return raise(
                    "TypeError",
                    format!("{} can't be coerced into Rational", args[0].class_name()),
                    pos,
                );
            };
            let (a, b, c, e) = (r.num as i128, r.den as i128, n as i128, d as i128);
            let (num, den) = match name {
                "+" => (a * e + c * b, b * e),
                "-" => (a * e - c * b, b * e),
                "*" => (a * c, b * e),
                _ => {
                    if c == 0 {
                        return raise("ZeroDivisionError", "divided by 0", pos);
                    }
                    (a * e, b * c)
                }
            };
            let g = gcd_i128(num, den);
            match (i64::try_from(num / g), i64::try_from(den / g)) {
                (Ok(n), Ok(d)) => make_rational(it, n, d, pos),
                _ => overflow(),
            }
        })()),
        "<=>" | "==" | "<" | "<=" | ">" | ">=" | "eql?" | "!=" => Some((|| {
            argc(args, 1, 1, pos)?;
            let a = &args[0];
            let o = match (a, other(a)) {
                (RValue::Float(x), _) => (r.num as f64 / r.den as f64).partial_cmp(x),
                (_, Some((n, d))) => {
                    Some((r.num as i128 * d as i128).cmp(&(n as i128 * r.den as i128)))
                }
                _ => None,
            };
            let o = if name == "eql?" && native::<RationalData>(a).is_none() {
                None
            } else {
                o
            };
            cmp_result(o, name, "Rational", a, pos)
        })()),
        _ => None,
    }
}

fn gcd_i128(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1) as i128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trips() {
        for z in [-800_000, -1, 0, 1, 59, 60, 11_016, 19_782, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(
            days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 1),
            29
        );
    }

    #[test]
    fn offsets_parse() {
        assert_eq!(parse_offset("+09:00"), Some(32400));
        assert_eq!(parse_offset("-0530"), Some(-19800));
        assert_eq!(parse_offset("09:00"), None);
    }
}

/// What `Time.strptime` read ([`strptime_fields`]).
#[derive(Default)]
struct Parsed {
    year: Option<i64>,
    mon: Option<i64>,
    mday: Option<i64>,
    yday: Option<i64>,
    hour: Option<i64>,
    min: Option<i64>,
    sec: Option<i64>,
    nsec: i64,
    pm: Option<bool>,
    seconds: Option<i64>,
    /// `None`: no zone; `Some(None)`: UTC; `Some(Some(offset))`.
    zone: Option<Option<i32>>,
}

/// Ruby's `Date._strptime` for the directives of common formats (`%Y %m %d %H %M %S %y %e
/// %j %I %p %b %B %a %A %L %N %s %z %Z %T %F %D %R %%`): `Ok(None)` when the text does not
/// match (Ruby's "invalid date or strptime format"); text left over is ignored, as
/// `Time.strptime` ignores it. Other directives are unsupported.
fn strptime_fields(text: &str, fmt: &str, pos: Pos) -> Result<Option<Parsed>, Ctrl> {
    let fmt = fmt
        .replace("%T", "%H:%M:%S")
        .replace("%F", "%Y-%m-%d")
        .replace("%D", "%m/%d/%y")
        .replace("%R", "%H:%M");
    let t = text.as_bytes();
    let f: Vec<char> = fmt.chars().collect();
    let mut p = Parsed::default();
    let mut i = 0usize;
    let mut k = 0usize;
    // Digits (at most `max`), with an optional sign when `signed`.
    let digits = |i: &mut usize, max: usize, signed: bool| -> Option<i64> {
        let start = *i;
        let mut neg = false;
        if signed && *i < t.len() && (t[*i] == b'-' || t[*i] == b'+') {
            neg = t[*i] == b'-';
            *i += 1;
        }
        let ds = *i;
        while *i < t.len() && *i - ds < max && t[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == ds {
            *i = start;
            return None;
        }
        let v: i64 = std::str::from_utf8(&t[ds..*i]).ok()?.parse().ok()?;
        Some(if neg { -v } else { v })
    };
    let name = |i: &mut usize, names: &[&str]| -> Option<i64> {
        let rest = &text[*i..];
        for (n, full) in names.iter().enumerate() {
            for cand in [*full, &full[..3]] {
                if rest.len() >= cand.len()
                    && rest.is_char_boundary(cand.len())
                    && rest[..cand.len()].eq_ignore_ascii_case(cand)
                {
                    *i += cand.len();
                    return Some(n as i64);
                }
            }
        }
        None
    };
    while k < f.len() {
        let c = f[k];
        if c.is_whitespace() {
            while i < t.len() && t[i].is_ascii_whitespace() {
                i += 1;
            }
            k += 1;
            continue;
        }
        if c != '%' || k + 1 >= f.len() {
            let mut b = [0u8; 4];
            let enc = c.encode_utf8(&mut b).as_bytes();
            if !t[i..].starts_with(enc) {
                return Ok(None);
            }
            i += enc.len();
            k += 1;
            continue;
        }
        let d = f[k + 1];
        k += 2;
        // A number directive followed by another number directive reads its width only.
        let next_digit = k + 1 < f.len()
            && f[k] == '%'
            && matches!(
                f[k + 1],
                'Y' | 'm' | 'd' | 'H' | 'M' | 'S' | 'y' | 'j' | 'I' | 'e' | 'L' | 'N'
            );
        let in_range = |v: Option<i64>, lo: i64, hi: i64| v.filter(|v| (lo..=hi).contains(v));
        match d {
            'Y' => {
                let Some(v) = digits(&mut i, if next_digit { 4 } else { 10 }, true) else {
                    return Ok(None);
                };
                p.year = Some(v);
            }
            'y' => {
                let Some(v) = in_range(digits(&mut i, 2, false), 0, 99) else {
                    return Ok(None);
                };
                p.year = Some(if v < 69 { v + 2000 } else { v + 1900 });
            }
            'm' => match in_range(digits(&mut i, 2, false), 1, 12) {
                Some(v) => p.mon = Some(v),
                None => return Ok(None),
            },
            'd' | 'e' => {
                if d == 'e' && i < t.len() && t[i] == b' ' {
                    i += 1;
                }
                match in_range(digits(&mut i, 2, false), 1, 31) {
                    Some(v) => p.mday = Some(v),
                    None => return Ok(None),
                }
            }
            'j' => match in_range(digits(&mut i, 3, false), 1, 366) {
                Some(v) => p.yday = Some(v),
                None => return Ok(None),
            },
            'H' => match in_range(digits(&mut i, 2, false), 0, 24) {
                Some(v) => p.hour = Some(v),
                None => return Ok(None),
            },
            'I' => match in_range(digits(&mut i, 2, false), 1, 12) {
                Some(v) => p.hour = Some(v),
                None => return Ok(None),
            },
            'M' => match in_range(digits(&mut i, 2, false), 0, 59) {
                Some(v) => p.min = Some(v),
                None => return Ok(None),
            },
            'S' => match in_range(digits(&mut i, 2, false), 0, 60) {
                Some(v) => p.sec = Some(v),
                None => return Ok(None),
            },
            'L' | 'N' => {
                let ds = i;
                while i < t.len() && t[i].is_ascii_digit() {
                    i += 1;
                }
                if i == ds {
                    return Ok(None);
                }
                let frac: String = text[ds..i]
                    .chars()
                    .chain("000000000".chars())
                    .take(9)
                    .collect();
                p.nsec = frac.parse().unwrap_or(0);
            }
            's' => match digits(&mut i, 30, true) {
                Some(v) => p.seconds = Some(v),
                None => return Ok(None),
            },
            'p' | 'P' => {
                let rest = text[i..].to_ascii_uppercase();
                let (pm, n) = if rest.starts_with("PM") {
                    (true, 2)
                } else if rest.starts_with("AM") {
                    (false, 2)
                } else if rest.starts_with("P.M.") {
                    (true, 4)
                } else if rest.starts_with("A.M.") {
                    (false, 4)
                } else {
                    return Ok(None);
                };
                p.pm = Some(pm);
                i += n;
            }
            'b' | 'B' | 'h' => match name(&mut i, &MONTHS) {
                Some(n) => p.mon = Some(n + 1),
                None => return Ok(None),
            },
            'a' | 'A' => {
                if name(&mut i, &DAYS).is_none() {
                    return Ok(None);
                }
            }
            'z' | 'Z' => {
                let rest = &text[i..];
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | ':'))
                    .collect();
                if word.is_empty() {
                    return Ok(None);
                }
                let upper = word.to_ascii_uppercase();
                if matches!(upper.as_str(), "Z" | "UTC" | "GMT" | "UT") {
                    p.zone = Some(None);
                    i += word.len();
                    continue;
                }
                let sign = match word.as_bytes()[0] {
                    b'+' => 1,
                    b'-' => -1,
                    _ => {
                        return unsupported(format!("Time.strptime of the zone name {word:?}"), pos)
                    }
                };
                let body = word[1..].replace(':', "");
                let off = match body.len() {
                    4 if body.bytes().all(|b| b.is_ascii_digit()) => {
                        let v: i32 = body.parse().unwrap_or(0);
                        (v / 100) * 3600 + (v % 100) * 60
                    }
                    _ => return unsupported(format!("Time.strptime of the offset {word:?}"), pos),
                };
                p.zone = Some(Some(sign * off));
                i += word.len();
            }
            '%' => {
                if t.get(i) != Some(&b'%') {
                    return Ok(None);
                }
                i += 1;
            }
            'n' | 't' => {
                while i < t.len() && t[i].is_ascii_whitespace() {
                    i += 1;
                }
            }
            other => return unsupported(format!("Time.strptime directive %{other}"), pos),
        }
    }
    Ok(Some(p))
}
