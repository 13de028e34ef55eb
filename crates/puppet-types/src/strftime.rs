//! Ruby's `strftime` (Ruby 3.1's `Time#strftime` and `Date#strftime`) over broken-down time
//! fields: the one implementation behind puppet-ruby's `Time`/`Date` and Puppet's
//! `strftime` function of a Timestamp (which formats through Ruby's `Time#strftime`).
//!
//! ```
//! use puppet_types::strftime::{strftime, CivilTime};
//! let t = CivilTime::utc(1_709_528_767, 123_456_789);
//! assert_eq!(strftime(&t, "%F %T.%3N %U %-d %^a %s"), "2024-03-04 05:06:07.123 09 4 MON 1709528767");
//! ```

use crate::time::{civil_from_days, days_from_civil, DAY_NAMES as DAYS, MONTH_NAMES as MONTHS};

/// The fields `strftime` prints: the local date and time, its UTC offset and zone name.
#[derive(Debug, Clone)]
pub struct CivilTime {
    /// The year.
    pub year: i64,
    /// The month, 1-12.
    pub mon: i64,
    /// The day of the month, 1-31.
    pub day: i64,
    /// The hour, 0-23.
    pub hour: i64,
    /// The minute.
    pub min: i64,
    /// The second.
    pub sec: i64,
    /// The nanoseconds of the second.
    pub nsec: i64,
    /// Days since the epoch (of the local date).
    pub days: i64,
    /// The UTC offset in seconds.
    pub off: i32,
    /// The zone name (`%Z`; empty for a fixed offset).
    pub zone: String,
    /// Seconds since the epoch (`%s`).
    pub epoch: i64,
    /// Date#strftime (which has `%+`, Time's has not).
    pub date: bool,
    /// A UTC time (`utc?`): `%-z` is `-0000` for it, as RFC 2822 writes an unknown zone.
    pub utc: bool,
}

impl CivilTime {
    /// The day of the week, Sunday 0.
    pub fn wday(&self) -> i64 {
        (self.days + 4).rem_euclid(7)
    }
    /// The day of the year, from 1.
    pub fn yday(&self) -> i64 {
        self.days - days_from(self.year, 1, 1) + 1
    }
    /// ISO 8601 week-based year and week number.
    pub fn iso_week(&self) -> (i64, i64) {
        let wd = (self.wday() + 6) % 7; // Monday 0
        let thursday = self.days - wd + 3;
        let (ty, _, _) = civil(thursday);
        let week = (thursday - days_from(ty, 1, 1)) / 7 + 1;
        (ty, week)
    }

    /// The time `secs` since the epoch (and `nsec` nanoseconds) at UTC offset `off` seconds,
    /// as a Time with a fixed offset shows it (no zone name, not `utc?`).
    pub fn at(secs: i64, nsec: i64, off: i32) -> CivilTime {
        let local = secs.saturating_add(i64::from(off));
        let days = local.div_euclid(86_400);
        let s = local.rem_euclid(86_400);
        let (year, mon, day) = civil(days);
        CivilTime {
            year,
            mon,
            day,
            hour: s / 3600,
            min: s / 60 % 60,
            sec: s % 60,
            nsec,
            days,
            off,
            zone: String::new(),
            epoch: secs,
            date: false,
            utc: false,
        }
    }

    /// A UTC time (`Time#utc`) of `secs` since the epoch and `nsec` nanoseconds.
    pub fn utc(secs: i64, nsec: i64) -> CivilTime {
        CivilTime {
            zone: "UTC".to_string(),
            utc: true,
            ..CivilTime::at(secs, nsec, 0)
        }
    }
}

fn civil(days: i64) -> (i64, i64, i64) {
    let (y, m, d) = civil_from_days(days.into());
    (y as i64, m as i64, d as i64)
}

fn days_from(y: i64, m: i64, d: i64) -> i64 {
    days_from_civil(y.into(), m.into(), d.into()) as i64
}

/// A UTC offset in seconds as `+hhmm` (`colons` 0), `+hh:mm` (1) or `+hh:mm:ss` (2).
pub fn offset_text(off: i32, colons: usize) -> String {
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.unsigned_abs();
    match colons {
        0 => format!("{sign}{:02}{:02}", a / 3600, a / 60 % 60),
        1 => format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60),
        _ => format!("{sign}{:02}:{:02}:{:02}", a / 3600, a / 60 % 60, a % 60),
    }
}

/// Ruby's `Time#strftime` (and `Date#strftime` when `f.date`) over `f`: every directive
/// with its flags (`-_0^#`), width and colons; an unknown directive is copied as written.
pub fn strftime(f: &CivilTime, fmt: &str) -> String {
    let cs: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < cs.len() {
        if cs[i] != '%' {
            out.push(cs[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let (mut nopad, mut space, mut zero, mut upper, mut swap) =
            (false, false, false, false, false);
        while let Some(c) = cs.get(i) {
            match c {
                '-' => nopad = true,
                '_' => space = true,
                '0' => zero = true,
                '^' => upper = true,
                '#' => swap = true,
                _ => break,
            }
            i += 1;
        }
        let mut width: Option<usize> = None;
        while let Some(c) = cs.get(i).filter(|c| c.is_ascii_digit()) {
            width = Some(
                width
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(*c as usize - '0' as usize)
                    .min(1024),
            );
            i += 1;
        }
        let mut colons = 0;
        while cs.get(i) == Some(&':') {
            colons += 1;
            i += 1;
        }
        if matches!(cs.get(i), Some('E' | 'O')) {
            i += 1;
        }
        let Some(&conv) = cs.get(i) else {
            out.extend(&cs[start..]);
            break;
        };
        i += 1;
        // A number with its default width and padding.
        let num = |n: i64, w: usize, pad: char| -> String {
            let pad = if zero {
                '0'
            } else if space {
                ' '
            } else {
                pad
            };
            let w = width.unwrap_or(w);
            let digits = n.unsigned_abs().to_string();
            let sign = if n < 0 { "-" } else { "" };
            if nopad || digits.len() + sign.len() >= w {
                return format!("{sign}{digits}");
            }
            let fill = w - digits.len() - sign.len();
            if pad == '0' {
                format!("{sign}{}{digits}", "0".repeat(fill))
            } else {
                format!("{}{sign}{digits}", " ".repeat(fill))
            }
        };
        let text = |s: String, can_swap_down: bool| -> String {
            let s = if upper || (swap && !can_swap_down) {
                s.to_uppercase()
            } else if swap {
                s.to_lowercase()
            } else {
                s
            };
            match width {
                Some(w) if !nopad && s.chars().count() < w => {
                    let fill = w - s.chars().count();
                    let p = if zero { "0" } else { " " };
                    format!("{}{s}", p.repeat(fill))
                }
                _ => s,
            }
        };
        let h12 = if f.hour % 12 == 0 { 12 } else { f.hour % 12 };
        let piece = match conv {
            'Y' => {
                if f.year >= 0 {
                    num(f.year, 4, '0')
                } else {
                    num(f.year, 5, '0')
                }
            }
            'C' => num(f.year.div_euclid(100), 2, '0'),
            'y' => num(f.year.rem_euclid(100), 2, '0'),
            'm' => num(f.mon, 2, '0'),
            'd' => num(f.day, 2, '0'),
            'e' => num(f.day, 2, ' '),
            'j' => num(f.yday(), 3, '0'),
            'H' => num(f.hour, 2, '0'),
            'k' => num(f.hour, 2, ' '),
            'I' => num(h12, 2, '0'),
            'l' => num(h12, 2, ' '),
            'M' => num(f.min, 2, '0'),
            'S' => num(f.sec, 2, '0'),
            'L' | 'N' => {
                let w = width.unwrap_or(if conv == 'L' { 3 } else { 9 });
                let mut digits = format!("{:09}", f.nsec);
                if w <= 9 {
                    digits.truncate(w);
                } else {
                    digits.push_str(&"0".repeat(w - 9));
                }
                digits
            }
            'z' => {
                let mut s = offset_text(f.off, colons);
                if nopad && f.utc {
                    s.replace_range(..1, "-");
                } else if nopad && f.date {
                    // Date's `-` flag drops the hours' padding (`+000` for UTC).
                    let hours = &s[1..3];
                    if let Some(h) = hours.strip_prefix('0') {
                        s = format!("{}{h}{}", &s[..1], &s[3..]);
                    }
                }
                match width {
                    Some(w) if s.len() < w => {
                        let (sign, rest) = s.split_at(1);
                        if space {
                            format!("{}{sign}{rest}", " ".repeat(w - s.len()))
                        } else {
                            format!("{sign}{}{rest}", "0".repeat(w - s.len()))
                        }
                    }
                    _ => s,
                }
            }
            'Z' => text(f.zone.clone(), true),
            'A' => text(DAYS[f.wday() as usize].to_string(), false),
            'a' => text(DAYS[f.wday() as usize][..3].to_string(), false),
            'B' => text(MONTHS[f.mon as usize - 1].to_string(), false),
            'b' | 'h' => text(MONTHS[f.mon as usize - 1][..3].to_string(), false),
            'p' => text(if f.hour < 12 { "AM" } else { "PM" }.to_string(), true),
            'P' => text(if f.hour < 12 { "am" } else { "pm" }.to_string(), false),
            'u' => num((f.wday() + 6) % 7 + 1, 1, '0'),
            'w' => num(f.wday(), 1, '0'),
            's' => num(f.epoch, 1, '0'),
            'U' => num((f.yday() - 1 + 7 - f.wday()) / 7, 2, '0'),
            'W' => num((f.yday() - 1 + 7 - (f.wday() + 6) % 7) / 7, 2, '0'),
            'G' => num(f.iso_week().0, 4, '0'),
            'g' => num(f.iso_week().0.rem_euclid(100), 2, '0'),
            'V' => num(f.iso_week().1, 2, '0'),
            'n' => "\n".to_string(),
            't' => "\t".to_string(),
            '%' => "%".to_string(),
            'c' => text(strftime(f, "%a %b %e %H:%M:%S %Y"), false),
            'D' | 'x' => text(strftime(f, "%m/%d/%y"), false),
            'F' => text(strftime(f, "%Y-%m-%d"), false),
            'T' | 'X' => text(strftime(f, "%H:%M:%S"), false),
            'R' => text(strftime(f, "%H:%M"), false),
            'r' => text(strftime(f, "%I:%M:%S %p"), false),
            'v' => text(strftime(f, "%e-%^b-%4Y"), false),
            '+' if f.date => text(strftime(f, "%a %b %e %H:%M:%S %Z %Y"), false),
            _ => cs[start..i].iter().collect(),
        };
        out.push_str(&piece);
    }
    out
}
