//! Semantic versions and version ranges: the values behind Puppet's `SemVer` and `SemVerRange`.
//!
//! Follows SemVer 2.0 precedence (pre-release identifiers compare numerically when numeric,
//! build metadata is ignored for ordering) and the range syntax of Puppet's SemanticPuppet
//! library: exact versions, `x`/`*` wildcards, partial versions, `>`, `>=`, `<`, `<=`, `~`, `^`,
//! hyphen ranges, space-separated intersections and `||` unions. It does not implement
//! SemanticPuppet's special pre-release matching rules: a pre-release version is in a range when
//! it lies between the bounds.

use crate::error::TypeError;
use smol_str::SmolStr;
use std::cmp::Ordering;
use std::fmt;

/// One pre-release or build identifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ident {
    /// All digits.
    Num(u64),
    /// Anything else.
    Alpha(SmolStr),
}

impl Ord for Ident {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Ident::Num(a), Ident::Num(b)) => a.cmp(b),
            (Ident::Num(_), Ident::Alpha(_)) => Ordering::Less,
            (Ident::Alpha(_), Ident::Num(_)) => Ordering::Greater,
            (Ident::Alpha(a), Ident::Alpha(b)) => a.cmp(b),
        }
    }
}
impl PartialOrd for Ident {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ident::Num(n) => write!(f, "{n}"),
            Ident::Alpha(s) => f.write_str(s),
        }
    }
}

/// A semantic version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version {
    /// Major number.
    pub major: u64,
    /// Minor number.
    pub minor: u64,
    /// Patch number.
    pub patch: u64,
    /// Pre-release identifiers (after `-`).
    pub prerelease: Vec<Ident>,
    /// Build identifiers (after `+`); ignored by ordering.
    pub build: Vec<Ident>,
}

impl Version {
    /// A version without pre-release or build parts.
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            prerelease: Vec::new(),
            build: Vec::new(),
        }
    }

    /// Parses `1.2.3`, `1.2.3-rc.1+build.5`.
    ///
    /// ```
    /// use puppet_types::semver::Version;
    /// let v = Version::parse("1.2.3-rc.1").unwrap();
    /// assert!(v < Version::parse("1.2.3").unwrap());
    /// assert_eq!(v.to_string(), "1.2.3-rc.1");
    /// ```
    pub fn parse(s: &str) -> Result<Version, TypeError> {
        let bad =
            || TypeError::Conversion(format!("The string '{s}' cannot be converted to a SemVer"));
        let (main, build) = match s.split_once('+') {
            Some((m, b)) => (m, Some(b)),
            None => (s, None),
        };
        let (core, pre) = match main.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (main, None),
        };
        let nums: Vec<&str> = core.split('.').collect();
        if nums.len() != 3 {
            return Err(bad());
        }
        let mut parsed = [0u64; 3];
        for (i, n) in nums.iter().enumerate() {
            if n.is_empty()
                || !n.bytes().all(|b| b.is_ascii_digit())
                || (n.len() > 1 && n.starts_with('0'))
            {
                return Err(bad());
            }
            parsed[i] = n.parse().map_err(|_| bad())?;
        }
        let idents = |p: Option<&str>| -> Result<Vec<Ident>, TypeError> {
            match p {
                None => Ok(Vec::new()),
                Some(p) => p
                    .split('.')
                    .map(|part| {
                        if part.is_empty()
                            || !part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                        {
                            Err(bad())
                        } else if part.bytes().all(|b| b.is_ascii_digit()) {
                            part.parse().map(Ident::Num).map_err(|_| bad())
                        } else {
                            Ok(Ident::Alpha(SmolStr::new(part)))
                        }
                    })
                    .collect(),
            }
        };
        Ok(Version {
            major: parsed[0],
            minor: parsed[1],
            patch: parsed[2],
            prerelease: idents(pre)?,
            build: idents(build)?,
        })
    }

    /// The lowest possible version, `0.0.0-0`.
    pub fn min_version() -> Version {
        Version {
            prerelease: vec![Ident::Num(0)],
            ..Version::new(0, 0, 0)
        }
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(
                || match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => self.prerelease.cmp(&other.prerelease),
                },
            )
    }
}
impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        let join = |v: &[Ident]| {
            v.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(".")
        };
        if !self.prerelease.is_empty() {
            write!(f, "-{}", join(&self.prerelease))?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", join(&self.build))?;
        }
        Ok(())
    }
}

/// One contiguous interval of versions. `max == None` means unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Interval {
    /// Lower bound.
    pub min: Version,
    /// Upper bound, `None` for no upper bound.
    pub max: Option<Version>,
    /// Whether `min` itself is excluded.
    pub exclude_min: bool,
    /// Whether `max` itself is excluded.
    pub exclude_max: bool,
}

impl Interval {
    fn includes(&self, v: &Version) -> bool {
        let lo = match v.cmp(&self.min) {
            Ordering::Less => false,
            Ordering::Equal => !self.exclude_min,
            Ordering::Greater => true,
        };
        let hi = match &self.max {
            None => true,
            Some(max) => match v.cmp(max) {
                Ordering::Less => true,
                Ordering::Equal => !self.exclude_max,
                Ordering::Greater => false,
            },
        };
        lo && hi
    }

    fn intersect(&self, o: &Interval) -> Interval {
        let (min, exclude_min) = match self.min.cmp(&o.min) {
            Ordering::Less => (o.min.clone(), o.exclude_min),
            Ordering::Greater => (self.min.clone(), self.exclude_min),
            Ordering::Equal => (self.min.clone(), self.exclude_min || o.exclude_min),
        };
        let (max, exclude_max) = match (&self.max, &o.max) {
            (None, None) => (None, false),
            (Some(a), None) => (Some(a.clone()), self.exclude_max),
            (None, Some(b)) => (Some(b.clone()), o.exclude_max),
            (Some(a), Some(b)) => match a.cmp(b) {
                Ordering::Less => (Some(a.clone()), self.exclude_max),
                Ordering::Greater => (Some(b.clone()), o.exclude_max),
                Ordering::Equal => (Some(a.clone()), self.exclude_max || o.exclude_max),
            },
        };
        Interval {
            min,
            max,
            exclude_min,
            exclude_max,
        }
    }

    /// True when every version in `self` is also in `other`.
    pub fn covered_by(&self, other: &Interval) -> bool {
        let lo = match other.min.cmp(&self.min) {
            Ordering::Less => true,
            Ordering::Equal => !other.exclude_min || self.exclude_min,
            Ordering::Greater => false,
        };
        let hi = match (&other.max, &self.max) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(b), Some(a)) => match b.cmp(a) {
                Ordering::Greater => true,
                Ordering::Equal => !other.exclude_max || self.exclude_max,
                Ordering::Less => false,
            },
        };
        lo && hi
    }
}

/// A version range: a union of intervals plus the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct VersionRange {
    text: SmolStr,
    intervals: Vec<Interval>,
}

impl VersionRange {
    /// The range that holds exactly the versions from `min` to `max`.
    pub fn between(min: Version, max: Version, exclude_max: bool) -> VersionRange {
        let text = if exclude_max {
            format!(">={min} <{max}")
        } else {
            format!("{min} - {max}")
        };
        VersionRange {
            text: SmolStr::new(text),
            intervals: vec![Interval {
                min,
                max: Some(max),
                exclude_min: false,
                exclude_max,
            }],
        }
    }

    /// The intervals of this range.
    pub fn intervals(&self) -> &[Interval] {
        &self.intervals
    }

    /// Puppet's `PSemVerRangeType.merge`: one range holding the versions of two single
    /// intervals that overlap or are adjacent; `None` otherwise (or for unions).
    pub fn merge(&self, o: &VersionRange) -> Option<VersionRange> {
        let ([a], [b]) = (&self.intervals[..], &o.intervals[..]) else {
            return None;
        };
        // Ends compared with an unbounded end as the greatest.
        let end_cmp = |x: &Option<Version>, y: &Option<Version>| match (x, y) {
            (None, None) => Ordering::Equal,
            (None, _) => Ordering::Greater,
            (_, None) => Ordering::Less,
            (Some(x), Some(y)) => x.cmp(y),
        };
        let interval = |min: &Version, max: &Option<Version>, exclude_max: bool| Interval {
            min: min.clone(),
            max: max.clone(),
            exclude_min: false,
            exclude_max,
        };
        let merged = if a.includes(&b.min) || b.includes(&a.min) {
            let max = if end_cmp(&a.max, &b.max) == Ordering::Less {
                b.max.clone()
            } else {
                a.max.clone()
            };
            let exclude = if a.exclude_max {
                end_cmp(&max, &a.max) == Ordering::Equal
                    && (end_cmp(&max, &b.max) == Ordering::Greater || b.exclude_max)
            } else if b.exclude_max {
                end_cmp(&max, &b.max) == Ordering::Equal
                    && (end_cmp(&max, &a.max) == Ordering::Greater || a.exclude_max)
            } else {
                false
            };
            interval(std::cmp::min(&a.min, &b.min), &max, exclude)
        } else if a.exclude_max && a.max.as_ref() == Some(&b.min) {
            interval(&a.min, &b.max, b.exclude_max)
        } else if b.exclude_max && b.max.as_ref() == Some(&a.min) {
            interval(&b.min, &a.max, a.exclude_max)
        } else {
            return None;
        };
        let text = match (&merged.max, merged.exclude_max) {
            (None, _) => format!(">={}", merged.min),
            (Some(m), true) => format!(">={} <{m}", merged.min),
            (Some(m), false) => format!(">={} <={m}", merged.min),
        };
        Some(VersionRange {
            text: SmolStr::new(text),
            intervals: vec![merged],
        })
    }

    /// Puppet's `PSemVerType#merge_ranges`: the ranges of a `SemVer[...]` type with the
    /// overlapping and adjacent ones merged.
    pub fn merge_all(mut ranges: Vec<VersionRange>) -> Vec<VersionRange> {
        let mut result = Vec::new();
        while let Some(x) = ranges.pop() {
            let mut unmerged = Vec::new();
            let mut memo = x;
            for y in ranges {
                match memo.merge(&y) {
                    Some(m) => memo = m,
                    None => unmerged.push(y),
                }
            }
            result.push(memo);
            ranges = unmerged;
        }
        result.reverse();
        result
    }

    /// Parses SemanticPuppet range syntax.
    ///
    /// ```
    /// use puppet_types::semver::{Version, VersionRange};
    /// let r = VersionRange::parse(">=1.0.0 <2.0.0").unwrap();
    /// assert!(r.includes(&Version::parse("1.5.0").unwrap()));
    /// assert!(!r.includes(&Version::parse("2.0.0").unwrap()));
    /// assert!(VersionRange::parse("1.x || 3.x").unwrap().includes(&Version::new(3, 1, 0)));
    /// ```
    pub fn parse(s: &str) -> Result<VersionRange, TypeError> {
        let bad = || TypeError::Conversion(format!("Unparsable version range: \"{s}\""));
        let mut intervals = Vec::new();
        for alt in operators_joined(s).split("||") {
            let alt = alt.trim();
            let tokens: Vec<&str> = alt.split_whitespace().collect();
            let mut acc = all_versions();
            if tokens.len() == 3 && tokens[1] == "-" {
                let lo = partial(tokens[0]).ok_or_else(bad)?;
                let hi = partial(tokens[2]).ok_or_else(bad)?;
                let hi_iv = hi.upper(false);
                acc = Interval {
                    min: lo.lower(),
                    max: hi_iv.0,
                    exclude_min: false,
                    exclude_max: hi_iv.1,
                };
            } else {
                for t in tokens {
                    acc = acc.intersect(&simple(t).ok_or_else(bad)?);
                }
            }
            intervals.push(acc);
        }
        if intervals.is_empty() {
            return Err(bad());
        }
        Ok(VersionRange {
            text: SmolStr::new(s),
            intervals,
        })
    }

    /// True when `v` is in the range.
    pub fn includes(&self, v: &Version) -> bool {
        self.intervals.iter().any(|i| i.includes(v))
    }

    /// True when every interval of `self` is covered by some interval of `other`.
    pub fn covered_by(&self, other: &VersionRange) -> bool {
        self.intervals
            .iter()
            .all(|a| other.intervals.iter().any(|b| a.covered_by(b)))
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// SemanticPuppet's first pass over a range: an operator (`>`, `<`, `=`, `~`, `^`) takes
/// the version after it across spaces and an optional `v` (`>= 6.0.0` is `>=6.0.0`,
/// `>=v1` is `>=1`).
fn operators_joined(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        out.push(c);
        if matches!(c, '>' | '<' | '=' | '~' | '^') {
            let mut skipped = false;
            while it.peek().is_some_and(|n| n.is_whitespace()) {
                it.next();
                skipped = true;
            }
            // `\s+` alone, or `\s*v`.
            if it.peek() == Some(&'v') {
                it.next();
            } else if !skipped {
                continue;
            }
        }
    }
    out
}

fn all_versions() -> Interval {
    Interval {
        min: Version::min_version(),
        max: None,
        exclude_min: false,
        exclude_max: false,
    }
}

/// A partial version like `1`, `1.2`, `1.x`, `1.2.3-rc`.
struct Partial {
    parts: Vec<u64>,
    full: Option<Version>,
}

impl Partial {
    fn lower(&self) -> Version {
        if let Some(v) = &self.full {
            return v.clone();
        }
        let g = |i: usize| self.parts.get(i).copied().unwrap_or(0);
        Version::new(g(0), g(1), g(2))
    }
    /// The upper bound and whether it is excluded. For `<`, partial versions bound at their
    /// lower end; otherwise at the next increment.
    fn upper(&self, for_less: bool) -> (Option<Version>, bool) {
        if let Some(v) = &self.full {
            return (Some(v.clone()), for_less);
        }
        if for_less {
            return (Some(self.lower_pre()), true);
        }
        match self.parts.len() {
            0 => (None, false),
            1 => (
                Some(Version {
                    prerelease: vec![Ident::Num(0)],
                    ..Version::new(self.parts[0] + 1, 0, 0)
                }),
                true,
            ),
            _ => (
                Some(Version {
                    prerelease: vec![Ident::Num(0)],
                    ..Version::new(self.parts[0], self.parts[1] + 1, 0)
                }),
                true,
            ),
        }
    }
    fn lower_pre(&self) -> Version {
        let mut v = self.lower();
        v.prerelease = vec![Ident::Num(0)];
        v
    }
    fn all(&self) -> Interval {
        let (max, exclude_max) = self.upper(false);
        Interval {
            min: self.lower(),
            max,
            exclude_min: false,
            exclude_max,
        }
    }
}

fn partial(s: &str) -> Option<Partial> {
    let s = s.strip_prefix('v').unwrap_or(s);
    if let Ok(v) = Version::parse(s) {
        return Some(Partial {
            parts: vec![v.major, v.minor, v.patch],
            full: Some(v),
        });
    }
    let mut parts = Vec::new();
    for p in s.split('.') {
        if matches!(p, "x" | "X" | "*") {
            break;
        }
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parts.push(p.parse().ok()?);
    }
    if parts.len() > 3 {
        return None;
    }
    if parts.len() == 3 {
        let v = Version::new(parts[0], parts[1], parts[2]);
        return Some(Partial {
            parts,
            full: Some(v),
        });
    }
    Some(Partial { parts, full: None })
}

fn simple(t: &str) -> Option<Interval> {
    let (op, rest) = if let Some(r) = t.strip_prefix(">=") {
        (">=", r)
    } else if let Some(r) = t.strip_prefix("<=") {
        ("<=", r)
    } else if let Some(r) = t.strip_prefix('>') {
        (">", r)
    } else if let Some(r) = t.strip_prefix('<') {
        ("<", r)
    } else if let Some(r) = t.strip_prefix('~') {
        ("~", r)
    } else if let Some(r) = t.strip_prefix('^') {
        ("^", r)
    } else if let Some(r) = t.strip_prefix('=') {
        ("", r)
    } else {
        ("", t)
    };
    let p = partial(rest)?;
    let all = all_versions();
    Some(match op {
        ">=" => Interval {
            min: p.lower(),
            ..all
        },
        ">" => match &p.full {
            Some(v) => Interval {
                min: v.clone(),
                exclude_min: true,
                ..all
            },
            None => {
                let (max, _) = p.upper(false);
                match max {
                    Some(m) => Interval { min: m, ..all },
                    None => Interval {
                        min: Version::min_version(),
                        max: Some(Version::min_version()),
                        exclude_min: true,
                        exclude_max: true,
                    },
                }
            }
        },
        "<" => {
            let (max, ex) = p.upper(true);
            Interval {
                max,
                exclude_max: ex,
                ..all
            }
        }
        "<=" => {
            let (max, ex) = p.upper(false);
            Interval {
                max,
                exclude_max: ex,
                ..all
            }
        }
        "~" => {
            let lower = p.lower();
            let max = if p.parts.len() >= 2 {
                Version::new(lower.major, lower.minor + 1, 0)
            } else {
                Version::new(lower.major + 1, 0, 0)
            };
            Interval {
                min: lower,
                max: Some(Version {
                    prerelease: vec![Ident::Num(0)],
                    ..max
                }),
                exclude_min: false,
                exclude_max: true,
            }
        }
        "^" => {
            let lower = p.lower();
            let max = if lower.major > 0 || p.parts.len() < 2 {
                Version::new(lower.major + 1, 0, 0)
            } else if lower.minor > 0 || p.parts.len() < 3 {
                Version::new(0, lower.minor + 1, 0)
            } else {
                Version::new(0, 0, lower.patch + 1)
            };
            Interval {
                min: lower,
                max: Some(Version {
                    prerelease: vec![Ident::Num(0)],
                    ..max
                }),
                exclude_min: false,
                exclude_max: true,
            }
        }
        _ => p.all(),
    })
}
