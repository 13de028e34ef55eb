//! Ruby's `Date._strptime`, which Puppet's `Timestamp.parse` uses to read a string with a
//! format: it matches the format against the string and returns the fields it found (year,
//! month, day, hour, minute, second, fraction, zone and its offset, AM/PM), or nothing when
//! the string does not match. Text left after the format is reported as `leftover`.
//!
//! Written after `date__strptime_internal` of Ruby's `date_strptime.c`: a blank in the
//! format matches any run of blanks (also none); `%d`, `%H`... read at most two digits (a
//! leading blank allowed for `%e %k %l` and friends); `%Y` reads all digits unless a numeric
//! directive follows; names of days and months match in full or abbreviated, ignoring case;
//! composite directives (`%F %T %R %r %D %x %X %c %v %+`) expand to their parts.

/// The fields `Date._strptime` found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub year: Option<i64>,
    /// The century given by `%C`, or implied by `%y`.
    pub cent: Option<i64>,
    pub mon: Option<i64>,
    pub mday: Option<i64>,
    pub yday: Option<i64>,
    pub wday: Option<i64>,
    pub hour: Option<i64>,
    pub min: Option<i64>,
    pub sec: Option<i64>,
    /// The fraction of a second, in nanoseconds.
    pub sec_fraction: Option<i64>,
    /// `%s`: seconds since the epoch.
    pub seconds: Option<i64>,
    /// `%p`: 0 for AM, 12 for PM.
    pub merid: Option<i64>,
    /// The zone text as written (`UTC`, `+01:00`).
    pub zone: Option<String>,
    /// The zone's offset from UTC in seconds, when the zone is known.
    pub offset: Option<i64>,
    /// Text after the end of the format.
    pub leftover: Option<String>,
}

const DAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Reads `text` with `format` as Ruby's `Date._strptime(text, format)` does; `None` when the
/// text does not match.
///
/// ```
/// use puppet_types::strptime::strptime;
/// let p = strptime("Sunday, 28 August, 2016", "%A, %d %B, %Y").unwrap();
/// assert_eq!((p.year, p.mon, p.mday, p.wday), (Some(2016), Some(8), Some(28), Some(0)));
/// assert!(strptime("2016-08-28 rest", "%F").unwrap().leftover.is_some());
/// ```
pub fn strptime(text: &str, format: &str) -> Option<Parsed> {
    let mut p = Parsed::default();
    let s = text.as_bytes();
    let used = internal(s, 0, format.as_bytes(), &mut p, 0)?;
    if used < s.len() {
        p.leftover = Some(String::from_utf8_lossy(&s[used..]).into_owned());
    }
    if let (Some(c), Some(y)) = (p.cent, p.year) {
        p.year = Some(c * 100 + y);
    }
    if let (Some(m), Some(h)) = (p.merid, p.hour) {
        p.hour = Some(h % 12 + m);
    }
    Some(p)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Whether the format at `fi` starts with something numeric (a digit or a numeric
/// directive): then `%Y` and friends read a limited number of digits.
fn num_pattern_at(f: &[u8], fi: usize) -> bool {
    match f.get(fi) {
        Some(b) if b.is_ascii_digit() => true,
        Some(b'%') => {
            let mut i = fi + 1;
            if matches!(f.get(i), Some(b'E' | b'O')) {
                i += 1;
            }
            matches!(
                f.get(i),
                Some(b) if b"CDdeFGgHIjkLlMmNQRrSsTUuVvWwXxYy".contains(b) || b.is_ascii_digit()
            )
        }
        _ => false,
    }
}

/// Reads up to `width` digits (any number when 0) at `si`: the value and the new position.
fn read_digits(s: &[u8], si: usize, width: usize) -> Option<(i64, usize)> {
    let mut i = si;
    let mut n: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() && (width == 0 || i - si < width) {
        n = n.checked_mul(10)?.checked_add(i64::from(s[i] - b'0'))?;
        i += 1;
    }
    (i > si).then_some((n, i))
}

/// Digits with an optional sign.
fn read_signed(s: &[u8], si: usize, width: usize) -> Option<(i64, usize)> {
    let (neg, start) = match s.get(si) {
        Some(b'-') => (true, si + 1),
        Some(b'+') => (false, si + 1),
        _ => (false, si),
    };
    let (n, i) = read_digits(s, start, width)?;
    Some((if neg { -n } else { n }, i))
}

fn starts_with_ci(s: &[u8], si: usize, word: &str) -> bool {
    let w = word.as_bytes();
    s.len() >= si + w.len() && s[si..si + w.len()].eq_ignore_ascii_case(w)
}

/// A day or month name, full or abbreviated to three letters: its index and new position.
fn read_name(s: &[u8], si: usize, names: &[&str]) -> Option<(i64, usize)> {
    for (i, n) in names.iter().enumerate() {
        if starts_with_ci(s, si, n) {
            return Some((i as i64, si + n.len()));
        }
        if starts_with_ci(s, si, &n[..3]) {
            return Some((i as i64, si + 3));
        }
    }
    None
}

fn in_range(n: i64, lo: i64, hi: i64) -> Option<i64> {
    (lo..=hi).contains(&n).then_some(n)
}

/// A zone as `%z`/`%Z` read it: `[gmt|utc][+-]digits[:digits[:digits]]`, or a name
/// (optionally followed by ` dst`).
fn read_zone(s: &[u8], si: usize) -> Option<(String, usize)> {
    let mut i = si;
    for prefix in ["gmt", "utc", "ut"] {
        if starts_with_ci(s, i, prefix) && matches!(s.get(i + prefix.len()), Some(b'+' | b'-')) {
            i += prefix.len();
            break;
        }
    }
    if matches!(s.get(i), Some(b'+' | b'-')) {
        let mut j = i + 1;
        let digits_start = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if j == digits_start {
            return None;
        }
        for _ in 0..2 {
            if matches!(s.get(j), Some(b':' | b',' | b'.'))
                && s.get(j + 1).is_some_and(u8::is_ascii_digit)
            {
                j += 1;
                while j < s.len() && s[j].is_ascii_digit() {
                    j += 1;
                }
            }
        }
        return Some((String::from_utf8_lossy(&s[si..j]).into_owned(), j));
    }
    let mut j = si;
    while j < s.len() && s[j].is_ascii_alphabetic() {
        j += 1;
    }
    if j == si {
        return None;
    }
    if starts_with_ci(s, j, " dst") && !s.get(j + 4).is_some_and(u8::is_ascii_alphabetic) {
        j += 4;
    }
    Some((String::from_utf8_lossy(&s[si..j]).into_owned(), j))
}

/// The offset of a zone in seconds, as Ruby's `date_zone_to_diff` reads it (`UTC`, `CET`,
/// `+01:00`, `-0500`, `+1`, `GMT+2`); `None` for an unknown name.
pub fn zone_offset(zone: &str) -> Option<i64> {
    let z = zone.trim();
    let lower = z.to_ascii_lowercase();
    let (dst, name) = match lower.strip_suffix(" dst") {
        Some(n) => (3600, n.to_string()),
        None => (0, lower.clone()),
    };
    let named = match name.as_str() {
        "utc" | "ut" | "gmt" | "z" | "wet" | "zulu" => Some(0),
        "est" => Some(-5),
        "edt" => Some(-4),
        "cst" => Some(-6),
        "cdt" => Some(-5),
        "mst" => Some(-7),
        "mdt" => Some(-6),
        "pst" => Some(-8),
        "pdt" => Some(-7),
        "akst" => Some(-9),
        "akdt" => Some(-8),
        "hst" => Some(-10),
        "ast" => Some(-4),
        "adt" => Some(-3),
        "nst" => return Some(-(3 * 3600 + 1800) + dst),
        "ndt" => return Some(-(2 * 3600 + 1800) + dst),
        "bst" | "cet" | "met" | "mez" | "west" | "wat" => Some(1),
        "cest" | "mest" | "mesz" | "eet" | "sast" | "cat" => Some(2),
        "eest" | "msk" | "eat" => Some(3),
        "ist" => return Some(5 * 3600 + 1800 + dst),
        "jst" | "kst" => Some(9),
        "hkt" | "sgt" | "awst" => Some(8),
        "aest" => Some(10),
        "aedt" => Some(11),
        "nzst" => Some(12),
        "nzdt" => Some(13),
        _ => None,
    };
    if let Some(h) = named {
        return Some(h * 3600 + dst);
    }
    if name.len() == 1 {
        // Military zones: A-I (skipping J) +1..+9, K-M +10..+12, N-Y -1..-12.
        let c = name.as_bytes()[0];
        return match c {
            b'a'..=b'i' => Some(i64::from(c - b'a' + 1) * 3600),
            b'k'..=b'm' => Some(i64::from(c - b'k' + 10) * 3600),
            b'n'..=b'y' => Some(-(i64::from(c - b'n') + 1) * 3600),
            _ => None,
        };
    }
    let body = ["gmt", "utc", "ut"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
        .filter(|r| r.starts_with(['+', '-']))
        .unwrap_or(&name);
    let (sign, digits) = match body.as_bytes().first()? {
        b'+' => (1, &body[1..]),
        b'-' => (-1, &body[1..]),
        _ => return None,
    };
    let parts: Vec<&str> = digits.split([':', ',', '.']).collect();
    let num = |x: &str| -> Option<i64> {
        (!x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
            .then(|| x.parse().ok())
            .flatten()
    };
    let secs = if parts.len() > 1 {
        let h = num(parts[0])?;
        let m = num(parts[1])?;
        let s = parts.get(2).map_or(Some(0), |x| num(x))?;
        h * 3600 + m * 60 + s
    } else {
        let d = parts[0];
        match d.len() {
            1 | 2 => num(d)? * 3600,
            3 | 4 => num(&d[..d.len() - 2])? * 3600 + num(&d[d.len() - 2..])? * 60,
            5 | 6 => {
                num(&d[..d.len() - 4])? * 3600
                    + num(&d[d.len() - 4..d.len() - 2])? * 60
                    + num(&d[d.len() - 2..])?
            }
            _ => return None,
        }
    };
    Some(sign * secs + dst)
}

fn internal(s: &[u8], mut si: usize, f: &[u8], p: &mut Parsed, depth: usize) -> Option<usize> {
    if depth > 8 {
        return None;
    }
    let mut fi = 0;
    while fi < f.len() {
        let c = f[fi];
        if is_space(c) {
            while si < s.len() && is_space(s[si]) {
                si += 1;
            }
            fi += 1;
            continue;
        }
        if c != b'%' {
            if s.get(si) != Some(&c) {
                return None;
            }
            si += 1;
            fi += 1;
            continue;
        }
        fi += 1;
        // `%E` and `%O` modifiers are accepted and ignored.
        if matches!(f.get(fi), Some(b'E' | b'O'))
            && f.get(fi + 1)
                .is_some_and(|d| b"cCxXyYdeHImMSuUVwW".contains(d))
        {
            fi += 1;
        }
        let Some(&d) = f.get(fi) else {
            // A lone '%' at the end matches itself.
            if s.get(si) != Some(&b'%') {
                return None;
            }
            return Some(si + 1);
        };
        fi += 1;
        let next_num = num_pattern_at(f, fi);
        let recur =
            |fmt: &str, si: usize, p: &mut Parsed| internal(s, si, fmt.as_bytes(), p, depth + 1);
        si = match d {
            b'A' | b'a' => {
                let (n, i) = read_name(s, si, &DAYS)?;
                p.wday = Some(n);
                i
            }
            b'B' | b'b' | b'h' => {
                let (n, i) = read_name(s, si, &MONTHS)?;
                p.mon = Some(n + 1);
                i
            }
            b'C' => {
                let (n, i) = read_signed(s, si, if next_num { 2 } else { 0 })?;
                p.cent = Some(n);
                i
            }
            b'c' => recur("%a %b %e %H:%M:%S %Y", si, p)?,
            b'D' | b'x' => recur("%m/%d/%y", si, p)?,
            b'd' | b'e' => {
                let (n, i) = if s.get(si) == Some(&b' ') {
                    read_digits(s, si + 1, 1)?
                } else {
                    read_digits(s, si, 2)?
                };
                p.mday = Some(in_range(n, 1, 31)?);
                i
            }
            b'F' => recur("%Y-%m-%d", si, p)?,
            b'H' | b'k' => {
                let (n, i) = if s.get(si) == Some(&b' ') {
                    read_digits(s, si + 1, 1)?
                } else {
                    read_digits(s, si, 2)?
                };
                p.hour = Some(in_range(n, 0, 24)?);
                i
            }
            b'I' | b'l' => {
                let (n, i) = if s.get(si) == Some(&b' ') {
                    read_digits(s, si + 1, 1)?
                } else {
                    read_digits(s, si, 2)?
                };
                p.hour = Some(in_range(n, 1, 12)?);
                i
            }
            b'j' => {
                let (n, i) = read_digits(s, si, 3)?;
                p.yday = Some(in_range(n, 1, 366)?);
                i
            }
            b'L' | b'N' => {
                let neg = s.get(si) == Some(&b'-');
                let start = if matches!(s.get(si), Some(b'-' | b'+')) {
                    si + 1
                } else {
                    si
                };
                let width = if next_num {
                    if d == b'L' {
                        3
                    } else {
                        9
                    }
                } else {
                    0
                };
                let (_, i) = read_digits(s, start, width)?;
                let digits = std::str::from_utf8(&s[start..i]).ok()?;
                let mut padded: String = digits.chars().take(9).collect();
                while padded.len() < 9 {
                    padded.push('0');
                }
                let ns: i64 = padded.parse().ok()?;
                p.sec_fraction = Some(if neg { -ns } else { ns });
                i
            }
            b'M' => {
                let (n, i) = read_digits(s, si, 2)?;
                p.min = Some(in_range(n, 0, 59)?);
                i
            }
            b'm' => {
                let (n, i) = read_digits(s, si, 2)?;
                p.mon = Some(in_range(n, 1, 12)?);
                i
            }
            b'n' | b't' => recur(" ", si, p)?,
            b'P' | b'p' => {
                let mut found = None;
                for (text, merid) in [("a.m.", 0), ("p.m.", 12), ("am", 0), ("pm", 12)] {
                    if starts_with_ci(s, si, text) {
                        found = Some((merid, si + text.len()));
                        break;
                    }
                }
                let (m, i) = found?;
                p.merid = Some(m);
                i
            }
            b'R' => recur("%H:%M", si, p)?,
            b'r' => recur("%I:%M:%S %p", si, p)?,
            b'S' => {
                let (n, i) = read_digits(s, si, 2)?;
                p.sec = Some(in_range(n, 0, 60)?);
                i
            }
            b's' => {
                let (n, i) = read_signed(s, si, 0)?;
                p.seconds = Some(n);
                i
            }
            b'T' | b'X' => recur("%H:%M:%S", si, p)?,
            b'U' | b'W' | b'V' => {
                let (n, i) = read_digits(s, si, 2)?;
                in_range(n, 0, 53)?;
                i
            }
            b'u' => {
                let (n, i) = read_digits(s, si, 1)?;
                in_range(n, 1, 7)?;
                p.wday = Some(n % 7);
                i
            }
            b'w' => {
                let (n, i) = read_digits(s, si, 1)?;
                p.wday = Some(in_range(n, 0, 6)?);
                i
            }
            b'v' => recur("%e-%b-%Y", si, p)?,
            b'Y' => {
                let (n, i) = read_signed(s, si, if next_num { 4 } else { 0 })?;
                p.year = Some(n);
                i
            }
            b'y' => {
                let (n, i) = read_digits(s, si, 2)?;
                p.year = Some(in_range(n, 0, 99)?);
                if p.cent.is_none() {
                    p.cent = Some(if n >= 69 { 19 } else { 20 });
                }
                i
            }
            b'Z' | b'z' => {
                let (zone, i) = read_zone(s, si)?;
                p.offset = zone_offset(&zone);
                p.zone = Some(zone);
                i
            }
            b'+' => recur("%a %b %e %H:%M:%S %Z %Y", si, p)?,
            b'%' => {
                if s.get(si) != Some(&b'%') {
                    return None;
                }
                si + 1
            }
            other => {
                // An unknown directive matches itself, '%' included.
                if s.get(si) != Some(&b'%') || s.get(si + 1) != Some(&other) {
                    return None;
                }
                si + 2
            }
        };
    }
    Some(si)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_common_formats() {
        let p = strptime(
            "Sunday, 28 August, 2016 at 12:15:00 PM",
            "%A, %d %B, %Y at %r",
        )
        .unwrap();
        assert_eq!(
            (p.year, p.mon, p.mday, p.hour, p.min),
            (Some(2016), Some(8), Some(28), Some(12), Some(15))
        );
        let p = strptime("Jul 24, 2016, 1:20 am", "%b %d, %Y, %l:%M %P").unwrap();
        assert_eq!(
            (p.mon, p.mday, p.hour, p.min),
            (Some(7), Some(24), Some(1), Some(20))
        );
        let p = strptime("16-06-21 18:23:15 UTC", "%y-%m-%d %H:%M:%S %z").unwrap();
        assert_eq!(
            (p.year, p.zone.as_deref(), p.offset),
            (Some(2016), Some("UTC"), Some(0))
        );
        let p = strptime("2015-03-01T11:12:13.5 +01:00", "%FT%T.%N %Z").unwrap();
        assert_eq!((p.sec_fraction, p.offset), (Some(500_000_000), Some(3600)));
        assert!(strptime("2015#03#01", "%F").is_none());
        assert_eq!(strptime("20160828", "%Y%m%d").unwrap().mday, Some(28));
    }

    #[test]
    fn zone_offsets() {
        assert_eq!(zone_offset("EST"), Some(-5 * 3600));
        assert_eq!(zone_offset("+0130"), Some(5400));
        assert_eq!(zone_offset("-05:00"), Some(-5 * 3600));
        assert_eq!(zone_offset("GMT+2"), Some(7200));
        assert_eq!(zone_offset("Nowhere"), None);
    }
}
