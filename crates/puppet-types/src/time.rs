//! Timespan and Timestamp values: nanosecond counts with Puppet's default text forms.
//!
//! A [`Timespan`] is a signed duration in nanoseconds; a [`Timestamp`] is nanoseconds since the
//! Unix epoch, always in UTC. Both parse Puppet's default formats (`%D-%H:%M:%S.%-N` and the
//! shorter ones for Timespan, `%FT%T.%N %Z` and friends for Timestamp) or given ones
//! ([`Timespan::parse_with`] follows Puppet's Timespan format parser, [`Timestamp::parse_with`]
//! Puppet's `Timestamp.parse` over Ruby's `Date._strptime`, see [`crate::strptime`]) and print
//! the way Puppet's `to_s` does.

use crate::error::TypeError;
use std::fmt;

const NS_PER_SEC: i128 = 1_000_000_000;

/// A signed duration in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timespan(pub i128);

/// A point in time: nanoseconds since 1970-01-01T00:00:00 UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i128);

impl Timespan {
    /// From seconds (integer).
    pub fn from_secs(secs: i64) -> Timespan {
        Timespan(secs as i128 * NS_PER_SEC)
    }

    /// From fractional seconds (`(secs * 10**9).to_i`, truncated as Puppet does).
    pub fn from_secs_f64(secs: f64) -> Timespan {
        Timespan((secs * 1e9).trunc() as i128)
    }

    /// Whole seconds, truncated toward zero.
    pub fn secs(self) -> i128 {
        self.0 / NS_PER_SEC
    }

    /// Fractional seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Parses with Puppet's default Timespan formats, tried in order.
    ///
    /// ```
    /// use puppet_types::Timespan;
    /// let t = Timespan::parse("1-02:03:04.5").unwrap();
    /// assert_eq!(t.to_string(), "1-02:03:04.5");
    /// assert_eq!(Timespan::parse("90").unwrap().to_string(), "0-00:01:30.0");
    /// ```
    pub fn parse(s: &str) -> Result<Timespan, TypeError> {
        Timespan::parse_with(s, &TimeFormat::Default)
    }

    /// Parses with the given format(s), as Puppet's `Timespan.parse` does: one format must
    /// match; of several, the first that matches is used.
    ///
    /// ```
    /// use puppet_types::time::{TimeFormat, Timespan};
    /// let t = Timespan::parse_with("1d11h23m", &TimeFormat::One("%Dd%Hh%Mm".into())).unwrap();
    /// assert_eq!(t.to_string(), "1-11:23:00.0");
    /// ```
    pub fn parse_with(s: &str, format: &TimeFormat) -> Result<Timespan, TypeError> {
        let formats: Vec<String> = match format {
            TimeFormat::One(f) => return span_with_format(s, f),
            TimeFormat::Many(fs) => fs.clone(),
            TimeFormat::Default => SPAN_DEFAULTS.iter().map(|f| f.to_string()).collect(),
        };
        for f in &formats {
            let segments = span_format(f)?;
            if let Ok(t) = span_with_segments(s, f, &segments) {
                return Ok(t);
            }
        }
        Err(TypeError::Conversion(format!(
            "Unable to parse '{s}' using any of the formats {}",
            formats.join(", ")
        )))
    }

    /// From a hash of parts as `Timespan({hours => 3})` takes them. Unknown keys are an error.
    pub fn from_parts(parts: &[(&str, i128)]) -> Result<Timespan, TypeError> {
        let mut ns: i128 = 0;
        let mut negative = false;
        for (k, v) in parts {
            let mul = match *k {
                "days" => 86_400 * NS_PER_SEC,
                "hours" => 3_600 * NS_PER_SEC,
                "minutes" => 60 * NS_PER_SEC,
                "seconds" => NS_PER_SEC,
                "milliseconds" => 1_000_000,
                "microseconds" => 1_000,
                "nanoseconds" => 1,
                "negative" => {
                    negative = *v != 0;
                    continue;
                }
                other => {
                    return Err(TypeError::Conversion(format!(
                        "Unknown Timespan key '{other}'"
                    )))
                }
            };
            ns = v
                .checked_mul(mul)
                .and_then(|x| ns.checked_add(x))
                .ok_or_else(|| TypeError::Overflow("Timespan overflow".into()))?;
        }
        Ok(Timespan(if negative { -ns } else { ns }))
    }
}

/// Puppet's default Timespan formats.
const SPAN_DEFAULTS: [&str; 8] = [
    "%D-%H:%M:%S.%-N",
    "%H:%M:%S.%-N",
    "%M:%S.%-N",
    "%S.%-N",
    "%D-%H:%M:%S",
    "%H:%M:%S",
    "%D-%H:%M",
    "%S",
];

/// One or several formats for [`Timespan::parse_with`] and [`Timestamp::parse_with`], or
/// Puppet's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimeFormat {
    /// Puppet's default formats.
    Default,
    /// One format: it must match.
    One(String),
    /// Formats tried in order.
    Many(Vec<String>),
}

/// A part of a Timespan format: literal text, or a value (`D H M S L N`) with its padding
/// (`'0'` by default, `None` for `%-X`, `' '` for `%_X`), width, and whether it holds the
/// total of its unit (the largest unit of the format does).
#[derive(Debug, Clone)]
enum SpanSegment {
    Literal(String),
    Value {
        unit: u8,
        pad: Option<char>,
        width: Option<usize>,
        total: bool,
    },
}

fn bad_specifier(format: &str, start: usize, position: usize) -> TypeError {
    let expression: String = format
        .chars()
        .skip(start)
        .take(position.saturating_sub(start))
        .collect();
    TypeError::BadFormat {
        message: format!(
            "Bad format specifier '{expression}' in '{format}', at position {position}"
        ),
        offset: position,
    }
}

/// Puppet's `Timespan::FormatParser`.
fn span_format(format: &str) -> Result<Vec<SpanSegment>, TypeError> {
    const ORDER: &[u8] = b"NLSMHD";
    let mut out: Vec<SpanSegment> = Vec::new();
    let (mut state, mut pad, mut width) = (0u8, Some('0'), None::<usize>);
    let (mut fstart, mut highest) = (0usize, None::<usize>);
    let mut position = 0usize;
    for (i, c) in format.chars().enumerate() {
        position = i;
        if state == 0 {
            if c == '%' {
                state = 1;
                fstart = i;
                pad = Some('0');
                width = None;
            } else if let Some(SpanSegment::Literal(l)) = out.last_mut() {
                l.push(c);
            } else {
                out.push(SpanSegment::Literal(c.to_string()));
            }
            continue;
        }
        match c {
            '%' => {
                match out.last_mut() {
                    Some(SpanSegment::Literal(l)) => l.push('%'),
                    _ => out.push(SpanSegment::Literal("%".into())),
                }
                state = 0;
            }
            '-' | '_' if state == 1 => {
                pad = if c == '-' { None } else { Some(' ') };
                state = 2;
            }
            'D' | 'H' | 'M' | 'S' | 'L' | 'N' => {
                let rank = ORDER.iter().position(|u| *u == c as u8).unwrap_or(0);
                if highest.is_none_or(|h| rank > h) {
                    highest = Some(rank);
                }
                out.push(SpanSegment::Value {
                    unit: c as u8,
                    pad,
                    width,
                    total: false,
                });
                state = 0;
            }
            '0' if state == 1 => {
                pad = Some('0');
                state = 2;
            }
            d if d.is_ascii_digit() => {
                let n = d as usize - '0' as usize;
                width = Some(width.map_or(n, |w| w * 10 + n));
                state = 2;
            }
            _ => return Err(bad_specifier(format, fstart, i)),
        }
    }
    if state != 0 {
        return Err(bad_specifier(format, fstart, position));
    }
    if let Some(h) = highest {
        let unit = ORDER[h];
        for seg in out.iter_mut() {
            if let SpanSegment::Value { unit: u, total, .. } = seg {
                if *u == unit {
                    *total = true;
                    break;
                }
            }
        }
    }
    Ok(out)
}

impl Timespan {
    /// The text of `format` for this timespan, as Puppet's `Timespan#format` writes it: the
    /// largest unit of the format holds the total (`%H` of 26 hours is `26` without `%D`),
    /// `%-X` is unpadded, `%_X` space-padded, a width pads (fractions `%L`/`%N` on the
    /// right), and `%L`/`%N` without `0` padding drop trailing zeroes.
    ///
    /// ```
    /// use puppet_types::Timespan;
    /// let t = Timespan::from_secs(93_784);
    /// assert_eq!(t.format("%D-%H:%M:%S").unwrap(), "1-02:03:04");
    /// assert_eq!(t.format("%H h").unwrap(), "26 h");
    /// assert_eq!(Timespan::from_secs_f64(1.5).format("%S.%-L").unwrap(), "01.5");
    /// assert!(t.format("%Q").is_err());
    /// ```
    pub fn format(&self, format: &str) -> Result<String, TypeError> {
        let segments = span_format(format)?;
        let total_ns = self.0.unsigned_abs();
        let mut out = String::new();
        if self.0 < 0 {
            out.push('-');
        }
        for seg in &segments {
            let (unit, pad, width, total) = match seg {
                SpanSegment::Literal(l) => {
                    out.push_str(l);
                    continue;
                }
                SpanSegment::Value {
                    unit,
                    pad,
                    width,
                    total,
                } => (*unit, *pad, *width, *total),
            };
            let per = |n: u128| total_ns / n;
            let mut n: u128 = match unit {
                b'D' => per(86_400 * NS_PER_SEC as u128),
                b'H' if total => per(3_600 * NS_PER_SEC as u128),
                b'H' => per(3_600 * NS_PER_SEC as u128) % 24,
                b'M' if total => per(60 * NS_PER_SEC as u128),
                b'M' => per(60 * NS_PER_SEC as u128) % 60,
                b'S' if total => per(NS_PER_SEC as u128),
                b'S' => per(NS_PER_SEC as u128) % 60,
                b'L' if total => per(1_000_000),
                b'L' => per(1_000_000) % 1000,
                _ => {
                    let w = width.unwrap_or(9);
                    if w < 9 {
                        let n = total_ns / 10u128.pow(9 - w as u32);
                        if total {
                            n
                        } else {
                            n % 10u128.pow(w as u32)
                        }
                    } else if total {
                        total_ns
                    } else {
                        total_ns % NS_PER_SEC as u128
                    }
                }
            };
            let w = width.unwrap_or_else(|| default_width(unit)).min(1024);
            if matches!(unit, b'L' | b'N') {
                // A fraction: trailing zeroes are not significant unless `0`-padded.
                if !total && pad != Some('0') {
                    while n >= 10 && n % 10 == 0 {
                        n /= 10;
                    }
                }
                match pad {
                    None => out.push_str(&n.to_string()),
                    Some(_) => out.push_str(&format!("{n:<w$}")),
                }
            } else {
                match pad {
                    None => out.push_str(&n.to_string()),
                    Some('0') => out.push_str(&format!("{n:0w$}")),
                    Some(_) => out.push_str(&format!("{n:>w$}")),
                }
            }
        }
        Ok(out)
    }
}

fn default_width(unit: u8) -> usize {
    match unit {
        b'D' => 1,
        b'L' => 3,
        b'N' => 9,
        _ => 2,
    }
}

fn span_with_format(s: &str, format: &str) -> Result<Timespan, TypeError> {
    let segments = span_format(format)?;
    span_with_segments(s, format, &segments)
}

/// Puppet's `Timespan::Format#parse`: the format as a regular expression, each segment a group.
fn span_with_segments(
    s: &str,
    format: &str,
    segments: &[SpanSegment],
) -> Result<Timespan, TypeError> {
    let fail = || TypeError::Conversion(format!("Unable to parse '{s}' using format '{format}'"));
    let mut rx = String::from("\\A-?");
    for seg in segments {
        match seg {
            SpanSegment::Literal(l) => {
                rx.push('(');
                rx.push_str(&fancy_regex::escape(l));
                rx.push(')');
            }
            SpanSegment::Value {
                unit,
                pad,
                width,
                total,
            } => {
                let dw = default_width(*unit);
                rx.push_str(&match (width, pad) {
                    (None, Some(' ')) if *total => "\\s*([0-9]+)".to_string(),
                    (None, Some(' ')) => format!("([0-9\\s]{{1,{dw}}})"),
                    (None, _) if *total => "([0-9]+)".to_string(),
                    (None, _) => format!("([0-9]{{1,{dw}}})"),
                    (Some(w), None) => format!("([0-9]{{1,{w}}})"),
                    (Some(w), Some('0')) => format!("([0-9]{{{w}}})"),
                    (Some(w), Some(_)) => format!("([0-9\\s]{{{w}}})"),
                });
            }
        }
    }
    rx.push_str("\\z");
    let re = fancy_regex::Regex::new(&rx).map_err(|_| fail())?;
    let caps = re.captures(s).ok().flatten().ok_or_else(fail)?;
    let mut ns: i128 = 0;
    for (i, seg) in segments.iter().enumerate() {
        let SpanSegment::Value {
            unit, width, total, ..
        } = seg
        else {
            continue;
        };
        let group = caps.get(i + 1).map(|m| m.as_str()).unwrap_or("");
        let group = group.trim_start();
        if group.is_empty() || !group.bytes().all(|b| b.is_ascii_digit()) {
            return Err(fail());
        }
        let n: i128 = group.parse().map_err(|_| fail())?;
        let add = match unit {
            b'L' | b'N' => {
                if *total {
                    return Err(TypeError::Conversion("Format specifiers %L and %N denotes fractions and must be used together with a specifier of higher magnitude".into()));
                }
                let p = 9 - group.len() as i32;
                if p <= 0 {
                    n
                } else {
                    n * 10i128.pow(p as u32)
                }
            }
            u => {
                let mul = match u {
                    b'D' => 86_400 * NS_PER_SEC,
                    b'H' => 3_600 * NS_PER_SEC,
                    b'M' => 60 * NS_PER_SEC,
                    _ => NS_PER_SEC,
                };
                let _ = width;
                n.checked_mul(mul).ok_or_else(fail)?
            }
        };
        ns = ns.checked_add(add).ok_or_else(fail)?;
    }
    Ok(Timespan(if s.starts_with('-') { -ns } else { ns }))
}

/// `%D-%H:%M:%S.%-N`, Puppet's default Timespan text.
impl fmt::Display for Timespan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.0 < 0;
        let ns = self.0.unsigned_abs();
        let secs = ns / NS_PER_SEC as u128;
        let frac = ns % NS_PER_SEC as u128;
        let days = secs / 86_400;
        let h = secs / 3600 % 24;
        let m = secs / 60 % 60;
        let s = secs % 60;
        // Puppet's `%-N`: the nanoseconds without padding, trailing zeroes stripped (so
        // 0.05 s shows as `.5`, as Puppet 7.23 prints it).
        let mut frac_s = frac.to_string();
        while frac_s.len() > 1 && frac_s.ends_with('0') {
            frac_s.pop();
        }
        write!(
            f,
            "{}{days}-{h:02}:{m:02}:{s:02}.{frac_s}",
            if neg { "-" } else { "" }
        )
    }
}

/// The English month names (January first), as `strftime`'s `%B`/`%b` and Ruby's `Date`
/// print them: the one table of the workspace.
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The English day names (Sunday first, as `wday` counts), for `%A`/`%a`.
pub const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12; a day past the month's
/// end counts on into the next).
///
/// ```
/// use puppet_types::time::{civil_from_days, days_from_civil};
/// assert_eq!(days_from_civil(1970, 1, 1), 0);
/// assert_eq!(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 1), 29);
/// assert_eq!(civil_from_days(days_from_civil(1582, 10, 15)), (1582, 10, 15));
/// ```
pub fn days_from_civil(y: i128, m: i128, d: i128) -> i128 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i128) -> (i128, i128, i128) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Puppet's `Timestamp.utc_offset`: the offset in seconds of a zone as `%z` reads it
/// (`current`, the host's zone, is taken as UTC here).
fn utc_offset(timezone: &str) -> Result<i64, TypeError> {
    if timezone.eq_ignore_ascii_case("current") {
        return Ok(0);
    }
    crate::strptime::strptime(timezone, "%z")
        .and_then(|p| p.offset)
        .ok_or_else(|| TypeError::Conversion(format!("Illegal timezone '{timezone}'")))
}

/// Puppet's default Timestamp formats: with a zone, then without.
const STAMP_DEFAULTS: [&str; 10] = [
    "%FT%T.%N %Z",
    "%FT%T %Z",
    "%F %T.%N %Z",
    "%F %T %Z",
    "%F %Z",
    "%FT%T.%N",
    "%FT%T",
    "%F %T.%N",
    "%F %T",
    "%F",
];

impl Timestamp {
    /// From seconds since the epoch.
    pub fn from_secs(secs: i64) -> Timestamp {
        Timestamp(secs as i128 * NS_PER_SEC)
    }

    /// From fractional seconds since the epoch (truncated to nanoseconds as Puppet does).
    pub fn from_secs_f64(secs: f64) -> Timestamp {
        Timestamp((secs * 1e9).trunc() as i128)
    }

    /// The current time (the system clock), as `Timestamp()` and `Timestamp.new` give it.
    ///
    /// ```
    /// use puppet_types::{convert::new_value, resolve_type_name, Timestamp, Value};
    /// let after = Timestamp::parse("2026-01-01T00:00:00 UTC").unwrap();
    /// assert!(Timestamp::now() > after);
    /// match new_value(&resolve_type_name("Timestamp"), &[]).unwrap() {
    ///     Value::Timestamp(t) => assert!(t > after),
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    pub fn now() -> Timestamp {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        Timestamp(nanos)
    }

    /// Parses Puppet's default Timestamp formats: `%FT%T.%N %Z`, `%FT%T %Z`, `%F %T.%N %Z`,
    /// `%F %T %Z`, `%F %Z`, and the same without a zone (UTC).
    ///
    /// ```
    /// use puppet_types::Timestamp;
    /// let t = Timestamp::parse("2014-12-12T13:14:15 CET").unwrap();
    /// assert_eq!(t.to_string(), "2014-12-12T12:14:15.000000000 UTC");
    /// ```
    pub fn parse(s: &str) -> Result<Timestamp, TypeError> {
        Timestamp::parse_with(s, &TimeFormat::Default, None)
    }

    /// Puppet's `Timestamp.parse(string, format, timezone)`: the string is read with the
    /// format (or the first of several that matches without leftover text); a zone in the
    /// string, or the `timezone` given (not both), says how far the time is from UTC.
    ///
    /// ```
    /// use puppet_types::time::{TimeFormat, Timestamp};
    /// let f = TimeFormat::One("%A, %d %B, %Y".into());
    /// let t = Timestamp::parse_with("Sunday, 28 August, 2016", &f, Some("EST")).unwrap();
    /// assert_eq!(t.to_string(), "2016-08-28T05:00:00.000000000 UTC");
    /// ```
    pub fn parse_with(
        s: &str,
        format: &TimeFormat,
        timezone: Option<&str>,
    ) -> Result<Timestamp, TypeError> {
        use crate::strptime::strptime;
        let conv = |m: String| TypeError::Conversion(m);
        let has_tz = timezone.is_some_and(|t| !t.is_empty());
        let parsed = match format {
            TimeFormat::One(f) => {
                let p = strptime(s, f)
                    .filter(|p| p.leftover.is_none())
                    .ok_or_else(|| conv(format!("Unable to parse '{s}' using format '{f}'")))?;
                if has_tz && p.zone.is_some() {
                    return Err(conv("Using a Timezone designator in format specification is mutually exclusive to providing an explicit timezone argument".into()));
                }
                p
            }
            other => {
                let formats: Vec<String> = match other {
                    TimeFormat::Many(fs) => fs.clone(),
                    _ if has_tz => STAMP_DEFAULTS[5..].iter().map(|f| f.to_string()).collect(),
                    _ => STAMP_DEFAULTS.iter().map(|f| f.to_string()).collect(),
                };
                formats
                    .iter()
                    .filter_map(|f| strptime(s, f))
                    .find(|p| p.leftover.is_none() && !(has_tz && p.zone.is_some()))
                    .ok_or_else(|| {
                        conv(format!(
                            "Unable to parse '{s}' using any of the formats {}",
                            formats.join(", ")
                        ))
                    })?
            }
        };
        let zone = if has_tz {
            timezone.map(str::to_string)
        } else {
            parsed.zone.clone()
        };
        let year = parsed
            .year
            .ok_or_else(|| conv("can't convert nil into Integer".into()))?;
        let days = days_from_civil(
            year as i128,
            parsed.mon.unwrap_or(1) as i128,
            parsed.mday.unwrap_or(1) as i128,
        );
        let secs = days * 86_400
            + parsed.hour.unwrap_or(0) as i128 * 3600
            + parsed.min.unwrap_or(0) as i128 * 60
            + parsed.sec.unwrap_or(0) as i128;
        let mut ns = secs * NS_PER_SEC + parsed.sec_fraction.unwrap_or(0) as i128;
        if let Some(z) = zone {
            ns -= utc_offset(&z)? as i128 * NS_PER_SEC;
        }
        Ok(Timestamp(ns))
    }

    /// Seconds since the epoch, floored.
    pub fn secs(self) -> i128 {
        self.0.div_euclid(NS_PER_SEC)
    }
}

/// `%FT%T.%N UTC`, Puppet's default Timestamp text.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0.div_euclid(NS_PER_SEC);
        let frac = self.0.rem_euclid(NS_PER_SEC);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:09} UTC",
            sod / 3600,
            sod / 60 % 60,
            sod % 60
        )
    }
}
