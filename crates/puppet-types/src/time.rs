//! Timespan and Timestamp values: nanosecond counts with Puppet's default text forms.
//!
//! A [`Timespan`] is a signed duration in nanoseconds; a [`Timestamp`] is nanoseconds since the
//! Unix epoch, always in UTC. Both parse Puppet's default formats (`%D-%H:%M:%S.%-N` and the
//! shorter ones for Timespan, `%FT%T.%N %Z` and friends for Timestamp) and print the way
//! Puppet's `to_s` does. Arbitrary `strftime`-style formats and time zones other than UTC
//! offsets and a few common abbreviations are not implemented here.

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

    /// From fractional seconds.
    pub fn from_secs_f64(secs: f64) -> Timespan {
        Timespan((secs * 1e9).round() as i128)
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
        const FORMATS: [&str; 8] = [
            "%D-%H:%M:%S.%N",
            "%H:%M:%S.%N",
            "%M:%S.%N",
            "%S.%N",
            "%D-%H:%M:%S",
            "%H:%M:%S",
            "%D-%H:%M",
            "%S",
        ];
        let (neg, body) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        for f in FORMATS {
            if let Some(ns) = parse_span_with(body, f) {
                return Ok(Timespan(if neg { -ns } else { ns }));
            }
        }
        Err(TypeError::Conversion(format!(
            "Unable to parse '{s}' using any of the formats {}",
            "%D-%H:%M:%S.%-N, %H:%M:%S.%-N, %M:%S.%-N, %S.%-N, %D-%H:%M:%S, %H:%M:%S, %D-%H:%M, %S"
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

fn take_digits(s: &str, max: Option<usize>) -> Option<(i128, usize, &str)> {
    let n = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    let n = max.map_or(n, |m| n.min(m));
    if n == 0 {
        return None;
    }
    Some((s[..n].parse().ok()?, n, &s[n..]))
}

fn parse_span_with(s: &str, fmt: &str) -> Option<i128> {
    let mut rest = s;
    let mut total: i128 = 0;
    let mut first = true;
    let mut f = fmt.chars().peekable();
    while let Some(c) = f.next() {
        if c == '%' {
            let d = f.next()?;
            let limit = if first { None } else { Some(2) };
            first = false;
            match d {
                'N' => {
                    let (_, n, r) = take_digits(rest, Some(9))?;
                    let digits = &rest[..n];
                    let padded = format!("{digits:0<9}");
                    total = total.checked_add(padded.parse::<i128>().ok()?)?;
                    rest = r;
                }
                _ => {
                    let (v, _, r) = take_digits(rest, limit)?;
                    let mul = match d {
                        'D' => 86_400,
                        'H' => 3_600,
                        'M' => 60,
                        'S' => 1,
                        _ => return None,
                    };
                    total = v
                        .checked_mul(mul * NS_PER_SEC)
                        .and_then(|x| total.checked_add(x))?;
                    rest = r;
                }
            }
        } else {
            rest = rest.strip_prefix(c)?;
        }
    }
    rest.is_empty().then_some(total)
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
        let mut frac_s = format!("{frac:09}");
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

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i128, m: i128, d: i128) -> i128 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i128) -> (i128, i128, i128) {
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

fn zone_offset_secs(z: &str) -> Option<i64> {
    let named = match z.to_ascii_uppercase().as_str() {
        "UTC" | "GMT" | "Z" | "UT" => Some(0),
        "CET" => Some(3600),
        "CEST" => Some(7200),
        "EET" => Some(7200),
        "EEST" => Some(10800),
        "WET" => Some(0),
        "WEST" => Some(3600),
        "BST" => Some(3600),
        "EST" => Some(-5 * 3600),
        "EDT" => Some(-4 * 3600),
        "CST" => Some(-6 * 3600),
        "CDT" => Some(-5 * 3600),
        "MST" => Some(-7 * 3600),
        "MDT" => Some(-6 * 3600),
        "PST" => Some(-8 * 3600),
        "PDT" => Some(-7 * 3600),
        "JST" => Some(9 * 3600),
        _ => None,
    };
    if named.is_some() {
        return named;
    }
    let (sign, rest) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i64 = digits[..2].parse().ok()?;
    let m: i64 = digits[2..].parse().ok()?;
    Some(sign * (h * 3600 + m * 60))
}

impl Timestamp {
    /// From seconds since the epoch.
    pub fn from_secs(secs: i64) -> Timestamp {
        Timestamp(secs as i128 * NS_PER_SEC)
    }

    /// From fractional seconds since the epoch.
    pub fn from_secs_f64(secs: f64) -> Timestamp {
        Timestamp((secs * 1e9).round() as i128)
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
        let err = || {
            TypeError::Conversion(format!(
                "Unable to parse '{s}' using any of the formats %FT%T.%N %Z, %FT%T %Z, %F %T.%N %Z, %F %T %Z, %F %Z, %FT%T.%N, %FT%T, %F %T.%N, %F %T, %F"
            ))
        };
        let s_trim = s.trim();
        let (body, zone) = match s_trim.rsplit_once(' ') {
            Some((b, z)) if zone_offset_secs(z).is_some() => (b, zone_offset_secs(z).unwrap_or(0)),
            _ => (s_trim, 0),
        };
        // A zone glued to the time, as in 2014-01-01T00:00:00+01:00 or ...Z.
        let (body, zone) = if zone == 0 {
            if let Some(b) = body.strip_suffix('Z') {
                (b, 0)
            } else if let Some(tail) = body.get(10..).filter(|_| body.len() > 16) {
                match tail.rfind(['+', '-']).map(|i| i + 10) {
                    Some(i) => match zone_offset_secs(&body[i..]) {
                        Some(z) => (&body[..i], z),
                        None => (body, 0),
                    },
                    None => (body, 0),
                }
            } else {
                (body, 0)
            }
        } else {
            (body, zone)
        };
        let (date, time) = match body.split_once(['T', ' ']) {
            Some((d, t)) => (d, Some(t)),
            None => (body, None),
        };
        let dp: Vec<&str> = date.split('-').collect();
        if dp.len() != 3 || dp[0].len() != 4 || dp[1].len() != 2 || dp[2].len() != 2 {
            return Err(err());
        }
        let num = |x: &str| -> Result<i64, TypeError> {
            if x.is_empty() || !x.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            x.parse().map_err(|_| err())
        };
        let (y, mo, d) = (num(dp[0])?, num(dp[1])?, num(dp[2])?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
            return Err(err());
        }
        let mut secs = days_from_civil(y as i128, mo as i128, d as i128) as i64 * 86_400;
        let mut frac: i128 = 0;
        if let Some(t) = time {
            let (hms, f) = match t.split_once('.') {
                Some((a, b)) => (a, Some(b)),
                None => (t, None),
            };
            let tp: Vec<&str> = hms.split(':').collect();
            if tp.len() != 3 || tp.iter().any(|p| p.len() != 2) {
                return Err(err());
            }
            let (h, mi, se) = (num(tp[0])?, num(tp[1])?, num(tp[2])?);
            if h > 23 || mi > 59 || se > 60 {
                return Err(err());
            }
            secs += h * 3600 + mi * 60 + se;
            if let Some(f) = f {
                if f.is_empty() || f.len() > 9 {
                    return Err(err());
                }
                frac = num(&format!("{f:0<9}"))? as i128;
            }
        }
        secs -= zone;
        Ok(Timestamp(secs as i128 * NS_PER_SEC + frac))
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
