//! Semantic versions and version ranges: the values behind Puppet's `SemVer` and `SemVerRange`.
//!
//! Versions follow SemVer 2.0 precedence (pre-release identifiers compare numerically when
//! numeric, build metadata is ignored for ordering but not for equality). Ranges follow
//! Puppet 7's SemanticPuppet 1.0.4 `VersionRange` rule for rule, quirks included, so that
//! parsing, matching, errors and printing are Puppet's:
//!
//! * a first pass joins an operator and its version across spaces or a `v` (`>= 6.0.0`,
//!   `>=v1.2`); the text is split on `||`, each part is a hyphen range (`1.2 - 2.3.4`,
//!   zero-padded bounds, inclusive upper) or space-separated simple ranges that are
//!   intersected (`>`, `>=`, `<`, `<=`, `=`, `~`, `~>`, `~=`, `^`, partial versions with
//!   `x`/`X`/`*`); the parts are de-duplicated and overlapping or adjacent ones merged;
//! * a version is in a range when one of its parts holds it and, for a pre-release
//!   version, a bound of that part is a pre-release of the same major.minor.patch;
//! * a range prints (`"${r}"`, `notice`) as the text it was parsed from and, with `%p`, as
//!   its parts joined by ` || ` (`>=1.0.0 <2.0.0`);
//! * SemanticPuppet's Ruby failures are reproduced with their messages: `^x` and `<=x` call a
//!   method that does not exist (`AllRange.SINGLETON`), intersecting more than two
//!   disjoint simple ranges calls a method on nil, and merging two overlapping parts with
//!   the same upper end reads an undefined variable (`>=1.0.0 || >=2.0.0`);
//! * `SemVerRange(min, max, exclude_max)` prints its bounds swapped (`2.0.0 - 1.0.0`), as
//!   SemanticPuppet's constructor does, and so do the merged ranges of a `SemVer[...]` type.
//!
//! crates/puppet-types/tests/semver_ranges.rs replays a fixture of Puppet's answers for about
//! a thousand ranges (scripts/gen-semver-fixtures.py).

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

    /// Parses `1.2.3`, `1.2.3-rc.1+build.5`. A numeric pre-release identifier with a leading
    /// zero (`1.2.3-01`) fails with SemanticPuppet's message.
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
                            if part.len() > 1 && part.starts_with('0') {
                                return Err(TypeError::Conversion(
                                    "Numeric pre-release identifiers MUST NOT contain leading \
                                     zeroes"
                                        .into(),
                                ));
                            }
                            part.parse().map(Ident::Num).map_err(|_| bad())
                        } else {
                            Ok(Ident::Alpha(SmolStr::new(part)))
                        }
                    })
                    .collect(),
            }
        };
        // Build identifiers stay text, as SemanticPuppet keeps them (`+007` is not `+7`).
        let build = match build {
            None => Vec::new(),
            Some(b) => {
                let mut out = Vec::new();
                for part in b.split('.') {
                    if part.is_empty()
                        || !part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    {
                        return Err(bad());
                    }
                    out.push(Ident::Alpha(SmolStr::new(part)));
                }
                out
            }
        };
        Ok(Version {
            major: parsed[0],
            minor: parsed[1],
            patch: parsed[2],
            prerelease: idents(pre)?,
            build,
        })
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

/// A point on SemanticPuppet's version line as its ranges see it: `Version::MIN` (below
/// every version, printed `0.0.0-`), a version, or `Version::MAX` (above every version,
/// printed `Infinity.0.0`). Ordered in that order, versions by precedence; equal (`==`)
/// only when identical, build included.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Point {
    /// SemanticPuppet's `Version::MIN`.
    Min,
    /// A version.
    V(Version),
    /// SemanticPuppet's `Version::MAX`.
    Max,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Point::Min => f.write_str("0.0.0-"),
            Point::V(v) => write!(f, "{v}"),
            Point::Max => f.write_str("Infinity.0.0"),
        }
    }
}

/// A borrowed [`Point`], for comparisons without cloning versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum At<'a> {
    Min,
    V(&'a Version),
    Max,
}

impl Point {
    fn at(&self) -> At<'_> {
        match self {
            Point::Min => At::Min,
            Point::V(v) => At::V(v),
            Point::Max => At::Max,
        }
    }
}

impl At<'_> {
    fn owned(self) -> Point {
        match self {
            At::Min => Point::Min,
            At::V(v) => Point::V(v.clone()),
            At::Max => Point::Max,
        }
    }

    /// SemanticPuppet's `stable?`: no pre-release identifiers (`MIN`'s list is empty).
    fn stable(self) -> bool {
        match self {
            At::V(v) => v.prerelease.is_empty(),
            At::Min | At::Max => true,
        }
    }

    /// `Version#next(:patch)` compared for equality with `other`: the next patch version
    /// without pre-release or build. (`MAX.next(:patch)` is `Infinity.0.1`, which equals
    /// nothing a range holds.)
    fn next_patch_is(self, other: At<'_>) -> bool {
        let (major, minor, patch) = match self {
            At::Min => (0, 0, 0),
            At::V(v) => (v.major, v.minor, v.patch),
            At::Max => return false,
        };
        match (other, patch.checked_add(1)) {
            (At::V(o), Some(p)) => {
                o.major == major
                    && o.minor == minor
                    && o.patch == p
                    && o.prerelease.is_empty()
                    && o.build.is_empty()
            }
            _ => false,
        }
    }
}

/// One of SemanticPuppet's range matchers (`AbstractRange` and its subclasses).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Rg {
    /// `AllRange`: every version.
    All,
    /// `GtRange`.
    Gt(Point),
    /// `GtEqRange`.
    GtEq(Point),
    /// `LtRange`; `Lt(Point::Min)` is `MATCH_NOTHING`, printed `<0.0.0`.
    Lt(Point),
    /// `LtEqRange`.
    LtEq(Point),
    /// `EqRange`: one version (build included).
    Eq(Point),
    /// `MinMaxRange`: a lower and an upper matcher, neither a `MinMax`.
    MinMax(Box<Rg>, Box<Rg>),
}

/// The Ruby failures of SemanticPuppet's range code that Puppet reports as they are.
enum Failure {
    Unparsable,
    LeadingZero,
    /// `AllRange.SINGLETON` (`^x`, `<=x`).
    Singleton,
    /// `MinMaxRange.create` reducing on after an empty intersection.
    NilIntersection,
    /// `merge` of two overlapping matchers with the same end; the receiver's `inspect`.
    ExcludeEnd(String),
}

type Parsed<T> = Result<T, Failure>;

impl Rg {
    fn begin(&self) -> At<'_> {
        match self {
            Rg::Gt(v) | Rg::GtEq(v) | Rg::Eq(v) => v.at(),
            Rg::MinMax(a, _) => a.begin(),
            Rg::All | Rg::Lt(_) | Rg::LtEq(_) => At::Min,
        }
    }

    fn end(&self) -> At<'_> {
        match self {
            Rg::Lt(v) | Rg::LtEq(v) | Rg::Eq(v) => v.at(),
            Rg::MinMax(_, b) => b.end(),
            Rg::All | Rg::Gt(_) | Rg::GtEq(_) => At::Max,
        }
    }

    fn exclude_begin(&self) -> bool {
        match self {
            Rg::Gt(_) => true,
            Rg::MinMax(a, _) => a.exclude_begin(),
            _ => false,
        }
    }

    fn exclude_end(&self) -> bool {
        match self {
            Rg::Lt(_) => true,
            Rg::MinMax(_, b) => b.exclude_end(),
            _ => false,
        }
    }

    fn lower_bound(&self) -> bool {
        match self {
            Rg::Gt(_) => true,
            Rg::GtEq(v) | Rg::Eq(v) => *v != Point::Min,
            Rg::MinMax(a, _) => a.lower_bound(),
            _ => false,
        }
    }

    fn upper_bound(&self) -> bool {
        match self {
            Rg::Lt(_) => true,
            Rg::LtEq(v) | Rg::Eq(v) => *v != Point::Max,
            Rg::MinMax(_, b) => b.upper_bound(),
            _ => false,
        }
    }

    /// The matcher's own `include?` (no pre-release rule).
    fn include(&self, p: At<'_>) -> bool {
        match self {
            Rg::All => true,
            Rg::Gt(v) => p > v.at(),
            Rg::GtEq(v) => p >= v.at(),
            Rg::Lt(v) => p < v.at(),
            Rg::LtEq(v) => p <= v.at(),
            Rg::Eq(v) => p == v.at(),
            Rg::MinMax(a, b) => a.include(p) && b.include(p),
        }
    }

    /// `test_prerelease?`: whether a bound is a pre-release of `p`'s major.minor.patch.
    fn test_prerelease(&self, p: At<'_>) -> bool {
        match self {
            Rg::All => true,
            Rg::MinMax(a, b) => a.test_prerelease(p) || b.test_prerelease(p),
            Rg::Gt(v) | Rg::GtEq(v) | Rg::Lt(v) | Rg::LtEq(v) | Rg::Eq(v) => match (v, p) {
                (Point::V(v), At::V(p)) => {
                    !v.prerelease.is_empty()
                        && (v.major, v.minor, v.patch) == (p.major, p.minor, p.patch)
                }
                _ => false,
            },
        }
    }

    fn min_max(min: &Rg, max: &Rg) -> Rg {
        let min = match min {
            Rg::MinMax(a, _) => (**a).clone(),
            other => other.clone(),
        };
        let max = match max {
            Rg::MinMax(_, b) => (**b).clone(),
            other => other.clone(),
        };
        Rg::MinMax(Box::new(min), Box::new(max))
    }

    /// `intersection`: the versions both match, `None` when there are none.
    fn intersection(&self, o: &Rg) -> Option<Rg> {
        if *self == Rg::All {
            return Some(o.clone());
        }
        match self.begin().cmp(&o.end()) {
            Ordering::Greater => return None,
            Ordering::Equal => {
                return (!self.exclude_begin() && !o.exclude_end())
                    .then(|| Rg::Eq(self.begin().owned()));
            }
            Ordering::Less => {}
        }
        match o.begin().cmp(&self.end()) {
            Ordering::Greater => return None,
            Ordering::Equal => {
                return (!o.exclude_begin() && !self.exclude_end())
                    .then(|| Rg::Eq(o.begin().owned()));
            }
            Ordering::Less => {}
        }
        let min = match self.begin().cmp(&o.begin()) {
            Ordering::Less => o,
            Ordering::Greater => self,
            Ordering::Equal if self.exclude_begin() => self,
            Ordering::Equal => o,
        };
        let max = match self.end().cmp(&o.end()) {
            Ordering::Greater => o,
            Ordering::Less => self,
            Ordering::Equal if self.exclude_end() => self,
            Ordering::Equal => o,
        };
        Some(if !max.upper_bound() {
            min.clone()
        } else if !min.lower_bound() {
            max.clone()
        } else {
            Rg::min_max(min, max)
        })
    }

    /// `MinMaxRange.create`: the matchers intersected left to right.
    fn create(items: Vec<Rg>) -> Parsed<Option<Rg>> {
        let mut it = items.into_iter();
        let Some(first) = it.next() else {
            return Ok(None);
        };
        let mut memo = Some(first);
        for r in it {
            match memo {
                None => return Err(Failure::NilIntersection),
                Some(m) => memo = m.intersection(&r),
            }
        }
        Ok(memo)
    }

    fn from_bounds(min: At<'_>, exclude_min: bool, max: At<'_>, exclude_max: bool) -> Option<Rg> {
        let lo = if exclude_min {
            Rg::Gt(min.owned())
        } else {
            Rg::GtEq(min.owned())
        };
        let hi = if exclude_max {
            Rg::Lt(max.owned())
        } else {
            Rg::LtEq(max.owned())
        };
        lo.intersection(&hi)
    }

    /// `merge`: one matcher for the versions of two that overlap or are adjacent.
    fn merge(&self, o: &Rg) -> Parsed<Option<Rg>> {
        if *self == Rg::All {
            return Ok(Some(Rg::All));
        }
        if self.include(o.begin()) || o.include(self.begin()) {
            let (min, exclude_min) = match self.begin().cmp(&o.begin()) {
                Ordering::Less => (self.begin(), self.exclude_begin()),
                Ordering::Greater => (o.begin(), o.exclude_begin()),
                Ordering::Equal => (self.begin(), self.exclude_begin() && o.exclude_begin()),
            };
            let (max, exclude_max) = match self.end().cmp(&o.end()) {
                Ordering::Greater => (self.end(), self.exclude_end()),
                Ordering::Less => (o.end(), o.exclude_end()),
                Ordering::Equal => return Err(Failure::ExcludeEnd(self.ruby_inspect())),
            };
            Ok(Rg::from_bounds(min, exclude_min, max, exclude_max))
        } else if self.exclude_end() && !o.exclude_begin() && self.end() == o.begin() {
            Ok(self.to(o))
        } else if o.exclude_end() && !self.exclude_begin() && o.end() == self.begin() {
            Ok(o.to(self))
        } else if !self.exclude_end() && !o.exclude_begin() && self.end().next_patch_is(o.begin()) {
            Ok(self.to(o))
        } else if !o.exclude_end() && !self.exclude_begin() && o.end().next_patch_is(self.begin()) {
            Ok(o.to(self))
        } else {
            Ok(None)
        }
    }

    /// `from_to(self, b)`: from this matcher's start to `b`'s end.
    fn to(&self, b: &Rg) -> Option<Rg> {
        Rg::from_bounds(self.begin(), self.exclude_begin(), b.end(), b.exclude_end())
    }

    /// Ruby's `inspect` of the matcher as a NameError message shows it (object addresses as
    /// zeros).
    fn ruby_inspect(&self) -> String {
        let (class, v) = match self {
            Rg::MinMax(..) => {
                return format!("{self}:SemanticPuppet::VersionRange::MinMaxRange");
            }
            Rg::All => {
                return "#<SemanticPuppet::VersionRange::AllRange:0x0000000000000000>".into()
            }
            Rg::Gt(v) => ("GtRange", v),
            Rg::GtEq(v) => ("GtEqRange", v),
            Rg::Lt(v) => ("LtRange", v),
            Rg::LtEq(v) => ("LtEqRange", v),
            Rg::Eq(v) => ("EqRange", v),
        };
        format!("#<SemanticPuppet::VersionRange::{class}:0x0000000000000000 @version={v}>")
    }
}

impl fmt::Display for Rg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rg::All => f.write_str("*"),
            Rg::Gt(v) => write!(f, ">{v}"),
            Rg::GtEq(v) => write!(f, ">={v}"),
            Rg::Lt(Point::Min) => f.write_str("<0.0.0"),
            Rg::Lt(v) => write!(f, "<{v}"),
            Rg::LtEq(v) => write!(f, "<={v}"),
            Rg::Eq(v) => write!(f, "{v}"),
            Rg::MinMax(a, b) => write!(f, "{a} {b}"),
        }
    }
}

/// A version range: SemanticPuppet's matchers plus the text it prints as.
#[derive(Debug, Clone)]
pub struct VersionRange {
    text: SmolStr,
    ranges: Vec<Rg>,
}

/// Equal when the matchers are (SemanticPuppet's `eql?`), whatever the text.
impl PartialEq for VersionRange {
    fn eq(&self, other: &Self) -> bool {
        self.ranges == other.ranges
    }
}
impl Eq for VersionRange {}
impl std::hash::Hash for VersionRange {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.ranges.hash(state);
    }
}

impl VersionRange {
    /// `SemVerRange(min, max, exclude_max)`: `None` bounds are SemanticPuppet's `MIN` and
    /// `MAX`. Prints, as SemanticPuppet's constructor writes it, with the bounds swapped:
    /// `MAX - MIN`, or `>=MAX <MIN` when `exclude_max`.
    ///
    /// ```
    /// use puppet_types::semver::{Version, VersionRange};
    /// let r = VersionRange::between(Some(Version::new(1, 0, 0)), Some(Version::new(2, 0, 0)), true);
    /// assert_eq!(r.to_string(), ">=2.0.0 <1.0.0");
    /// assert_eq!(r.inspect(), ">=1.0.0 <2.0.0");
    /// ```
    pub fn between(min: Option<Version>, max: Option<Version>, exclude_max: bool) -> VersionRange {
        let point = |v: Option<Version>, dflt: Point| v.map_or(dflt, Point::V);
        VersionRange::from_points(point(min, Point::Min), point(max, Point::Max), exclude_max)
    }

    fn from_points(min: Point, max: Point, exclude_max: bool) -> VersionRange {
        let text = if exclude_max {
            format!(">={max} <{min}")
        } else {
            format!("{max} - {min}")
        };
        let range = Rg::from_bounds(min.at(), false, max.at(), exclude_max);
        VersionRange {
            text: SmolStr::new(text),
            ranges: vec![range.unwrap_or(Rg::Lt(Point::Min))],
        }
    }

    /// Parses SemanticPuppet range syntax; the error is Puppet's message.
    ///
    /// ```
    /// use puppet_types::semver::{Version, VersionRange};
    /// let r = VersionRange::parse(">= 1.0.0 <2.x").unwrap();
    /// assert!(r.includes(&Version::parse("1.5.0").unwrap()));
    /// assert!(!r.includes(&Version::parse("1.5.0-rc1").unwrap()));
    /// assert_eq!(r.to_string(), ">= 1.0.0 <2.x");
    /// assert_eq!(r.inspect(), ">=1.0.0 <2.0.0");
    /// assert!(VersionRange::parse("1.x || 3.x").unwrap().includes(&Version::new(3, 1, 0)));
    /// ```
    pub fn parse(s: &str) -> Result<VersionRange, TypeError> {
        parse_range(s).map_err(|f| {
            TypeError::Conversion(match f {
                Failure::Unparsable => format!("Unparsable version range: \"{s}\""),
                Failure::LeadingZero => {
                    "Numeric pre-release identifiers MUST NOT contain leading zeroes".into()
                }
                Failure::Singleton => "undefined method `SINGLETON' for \
                     SemanticPuppet::VersionRange::AllRange:Class\n\n      \
                     return AllRange.SINGLETON unless major\n                     \
                     ^^^^^^^^^^\nDid you mean?  singleton_class"
                    .into(),
                Failure::NilIntersection => "undefined method `intersection' for nil:NilClass\n\n        \
                     ranges.reduce { |memo, range| memo.intersection(range) }\n                                          \
                     ^^^^^^^^^^^^^"
                    .into(),
                Failure::ExcludeEnd(recv) => format!(
                    "undefined local variable or method `exclude_end' for {recv}\n\n            \
                     excl_end = exclude_end && other.exclude_end?\n                       \
                     ^^^^^^^^^^^\nDid you mean?  exclude_end?\n               excl_end"
                ),
            })
        })
    }

    /// True when `v` is in the range: a part holds it and, when `v` is a pre-release, that
    /// part has a pre-release bound with `v`'s major.minor.patch.
    pub fn includes(&self, v: &Version) -> bool {
        self.includes_at(At::V(v))
    }

    fn includes_at(&self, p: At<'_>) -> bool {
        self.ranges
            .iter()
            .any(|r| r.include(p) && (p.stable() || r.test_prerelease(p)))
    }

    /// SemanticPuppet's `inspect`, Puppet's `%p`: the parts joined by ` || `.
    pub fn inspect(&self) -> String {
        let parts: Vec<String> = self.ranges.iter().map(|r| r.to_string()).collect();
        parts.join(" || ")
    }

    /// `begin`, `end` and `exclude_end?` of a range of one part.
    fn bounds(&self) -> Option<(At<'_>, At<'_>, bool)> {
        match &self.ranges[..] {
            [r] => Some((r.begin(), r.end(), r.exclude_end())),
            _ => None,
        }
    }

    /// Puppet's `PSemVerRangeType.merge`: one range holding the versions of two ranges of
    /// one part that overlap or are adjacent; `None` otherwise (or for unions).
    pub fn merge(&self, o: &VersionRange) -> Option<VersionRange> {
        let ((ab, ae, ax), (bb, be, bx)) = (self.bounds()?, o.bounds()?);
        if self.includes_at(bb) || o.includes_at(ab) {
            let max = if be > ae { be } else { ae };
            let exclude = if ax {
                max == ae && (max > be || bx)
            } else if bx {
                max == be && (max > ae || ax)
            } else {
                false
            };
            let min = if bb < ab { bb } else { ab };
            Some(VersionRange::from_points(min.owned(), max.owned(), exclude))
        } else if ax && ae == bb {
            Some(VersionRange::from_points(ab.owned(), be.owned(), bx))
        } else if bx && be == ab {
            Some(VersionRange::from_points(bb.owned(), ae.owned(), ax))
        } else {
            None
        }
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

    /// Puppet's `PSemVerRangeType.covered_by?`: every version of `self` is in `other`
    /// (ranges of one part; false for unions).
    pub fn covered_by(&self, other: &VersionRange) -> bool {
        let (Some((ab, ae, ax)), Some((bb, be, bx))) = (self.bounds(), other.bounds()) else {
            return false;
        };
        bb <= ab && (be > ae || (be == ae && (!bx || ax)))
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Ruby's `\s`.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// SemanticPuppet's first pass, `gsub(/([><=~^])(?:\s+|\s*v)/, '\1')`: an operator takes the
/// version after it across spaces, or across a `v` right after it (`>= 6.0.0` is `>=6.0.0`,
/// `>=v1` is `>=1`, but `>= v1` is `>=v1`).
fn operators_joined(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        out.push(c);
        rest = &rest[c.len_utf8()..];
        if matches!(c, '>' | '<' | '=' | '~' | '^') {
            let trimmed = rest.trim_start_matches(is_space);
            if trimmed.len() < rest.len() {
                rest = trimmed;
            } else if let Some(r) = rest.strip_prefix('v') {
                rest = r;
            }
        }
    }
    out
}

/// Ruby's `String#split` with a pattern matched by `find` (start, end of the next match at
/// or after an offset): empty fields at the end dropped, an empty string gives none.
fn ruby_split(s: &str, find: impl Fn(&str, usize) -> Option<(usize, usize)>) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some((a, b)) = find(s, from) {
        out.push(&s[from..a]);
        from = b;
    }
    out.push(&s[from..]);
    while out.last().is_some_and(|f| f.is_empty()) {
        out.pop();
    }
    out
}

/// The next `\s*\|\|\s*` at or after `from`.
fn find_or(s: &str, from: usize) -> Option<(usize, usize)> {
    let at = from + s[from..].find("||")?;
    let start = from + s[from..at].trim_end_matches(is_space).len();
    let after = &s[at + 2..];
    Some((start, s.len() - after.trim_start_matches(is_space).len()))
}

/// The next `\s+` at or after `from`.
fn find_space(s: &str, from: usize) -> Option<(usize, usize)> {
    let at = from + s[from..].find(is_space)?;
    let after = &s[at..];
    Some((at, s.len() - after.trim_start_matches(is_space).len()))
}

/// A match of SemanticPuppet's `PARTIAL`: up to three parts (`None` for `x`, `X`, `*`),
/// and the qualifiers after a third part.
struct Partial<'a> {
    parts: [Option<Option<&'a str>>; 3],
    prerelease: Option<&'a str>,
    build: Option<&'a str>,
}

/// `PARTS`: dot-separated non-empty runs of `[0-9A-Za-z-]`.
fn is_parts(s: &str) -> bool {
    s.split('.')
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

/// `XR`: `x`, `X`, `*` (as `None`), `0` or a number without a leading zero.
fn xr(s: &str) -> Option<Option<&str>> {
    match s {
        "x" | "X" | "*" => Some(None),
        _ if !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')) =>
        {
            Some(Some(s))
        }
        _ => None,
    }
}

fn partial(s: &str) -> Option<Partial<'_>> {
    let mut p = Partial {
        parts: [None, None, None],
        prerelease: None,
        build: None,
    };
    let (core, build) = match s.split_once('+') {
        Some((c, b)) => (c, Some(b)),
        None => (s, None),
    };
    // The qualifiers may only follow a third part; a `-` before the second dot is no match.
    let mut fields = core.splitn(3, '.');
    p.parts[0] = Some(xr(fields.next()?)?);
    if let Some(f) = fields.next() {
        p.parts[1] = Some(xr(f)?);
        if let Some(f) = fields.next() {
            let (third, pre) = match f.split_once('-') {
                Some((t, pre)) => (t, Some(pre)),
                None => (f, None),
            };
            p.parts[2] = Some(xr(third)?);
            if let Some(pre) = pre {
                if !is_parts(pre) {
                    return None;
                }
                p.prerelease = Some(pre);
            }
            if let Some(b) = build {
                if !is_parts(b) {
                    return None;
                }
                p.build = Some(b);
            }
            return Some(p);
        }
    }
    // Fewer than three parts: no qualifiers allowed.
    build.is_none().then_some(p)
}

/// A part's number (`None` for `x`, `X`, `*` or a missing part). Numbers past `u64` are
/// refused (SemanticPuppet would take them).
fn digit(part: Option<Option<&str>>) -> Parsed<Option<u64>> {
    match part.flatten() {
        None => Ok(None),
        Some(n) => n.parse().map(Some).map_err(|_| Failure::Unparsable),
    }
}

fn inc(n: u64) -> Parsed<u64> {
    n.checked_add(1).ok_or(Failure::Unparsable)
}

/// `Version.parse_prerelease`: numeric identifiers without leading zeros.
fn prerelease(p: Option<&str>) -> Parsed<Vec<Ident>> {
    let Some(p) = p else {
        return Ok(Vec::new());
    };
    p.split('.')
        .map(|x| {
            if x.bytes().all(|b| b.is_ascii_digit()) {
                if x.len() > 1 && x.starts_with('0') {
                    return Err(Failure::LeadingZero);
                }
                x.parse().map(Ident::Num).map_err(|_| Failure::Unparsable)
            } else {
                Ok(Ident::Alpha(SmolStr::new(x)))
            }
        })
        .collect()
}

fn build(b: Option<&str>) -> Vec<Ident> {
    b.map(|b| {
        b.split('.')
            .map(|x| Ident::Alpha(SmolStr::new(x)))
            .collect()
    })
    .unwrap_or_default()
}

fn v3(major: u64, minor: u64, patch: u64) -> Point {
    Point::V(Version::new(major, minor, patch))
}

/// `>=lo <hi` as `MinMaxRange.new` builds it (no simplification).
fn min_lt(lo: Point, hi: Point) -> Rg {
    Rg::MinMax(Box::new(Rg::GtEq(lo)), Box::new(Rg::Lt(hi)))
}

/// The full version of a match with three numeric parts.
fn full(m: &Partial<'_>, major: u64, minor: u64, patch: u64, with_build: bool) -> Parsed<Point> {
    Ok(Point::V(Version {
        prerelease: prerelease(m.prerelease)?,
        build: if with_build {
            build(m.build)
        } else {
            Vec::new()
        },
        ..Version::new(major, minor, patch)
    }))
}

/// `parse_version`: missing and wildcard parts are zero.
fn parse_version(m: &Partial<'_>) -> Parsed<Point> {
    let major = digit(m.parts[0])?.unwrap_or(0);
    let minor = digit(m.parts[1])?.unwrap_or(0);
    let patch = digit(m.parts[2])?.unwrap_or(0);
    full(m, major, minor, patch, true)
}

/// `allow_patch_updates`: `~`, `^0...` and (without `tilde_or_caret`) plain versions.
fn allow_patch_updates(m: &Partial<'_>, tilde_or_caret: bool) -> Parsed<Rg> {
    let Some(major) = digit(m.parts[0])? else {
        return Ok(Rg::All);
    };
    let Some(minor) = digit(m.parts[1])? else {
        return Ok(min_lt(v3(major, 0, 0), v3(inc(major)?, 0, 0)));
    };
    let Some(patch) = digit(m.parts[2])? else {
        return Ok(min_lt(v3(major, minor, 0), v3(major, inc(minor)?, 0)));
    };
    let version = full(m, major, minor, patch, true)?;
    if !tilde_or_caret {
        return Ok(Rg::Eq(version));
    }
    Ok(min_lt(version, v3(major, inc(minor)?, 0)))
}

/// `allow_minor_updates`: `^` with a major other than 0. A wildcard major calls a method
/// that does not exist.
fn allow_minor_updates(m: &Partial<'_>) -> Parsed<Rg> {
    let Some(major) = digit(m.parts[0])? else {
        return Err(Failure::Singleton);
    };
    let next = v3(inc(major)?, 0, 0);
    let Some(minor) = digit(m.parts[1])? else {
        return Ok(min_lt(v3(major, 0, 0), next));
    };
    let Some(patch) = digit(m.parts[2])? else {
        return Ok(min_lt(v3(major, minor, 0), next));
    };
    // The build is kept only along with a pre-release.
    let with_build = m.prerelease.is_some();
    Ok(min_lt(full(m, major, minor, patch, with_build)?, next))
}

/// One space-free simple range: an optional operator and a partial version.
fn simple(t: &str) -> Parsed<Rg> {
    let (op, m) = ["<=", ">=", "~>", "~=", "<", ">", "=", "~", "^", ""]
        .iter()
        .find_map(|op| Some((*op, partial(t.strip_prefix(op)?)?)))
        .ok_or(Failure::Unparsable)?;
    match op {
        "~" | "~>" | "~=" => allow_patch_updates(&m, true),
        "^" => {
            if digit(m.parts[0])? == Some(0) {
                allow_patch_updates(&m, true)
            } else {
                allow_minor_updates(&m)
            }
        }
        ">" => {
            let Some(major) = digit(m.parts[0])? else {
                return Ok(Rg::Lt(Point::Min));
            };
            let Some(minor) = digit(m.parts[1])? else {
                return Ok(Rg::GtEq(v3(inc(major)?, 0, 0)));
            };
            let Some(patch) = digit(m.parts[2])? else {
                return Ok(Rg::GtEq(v3(major, inc(minor)?, 0)));
            };
            Ok(Rg::Gt(full(&m, major, minor, patch, true)?))
        }
        ">=" => Ok(Rg::GtEq(parse_version(&m)?)),
        "<" => Ok(Rg::Lt(parse_version(&m)?)),
        "<=" => {
            let Some(major) = digit(m.parts[0])? else {
                return Err(Failure::Singleton);
            };
            let Some(minor) = digit(m.parts[1])? else {
                return Ok(Rg::Lt(v3(inc(major)?, 0, 0)));
            };
            let Some(patch) = digit(m.parts[2])? else {
                return Ok(Rg::Lt(v3(major, inc(minor)?, 0)));
            };
            Ok(Rg::LtEq(full(&m, major, minor, patch, true)?))
        }
        _ => allow_patch_updates(&m, false),
    }
}

/// One `||` part: a hyphen range or space-separated simple ranges; `None` when it matches
/// nothing.
fn part(range: &str) -> Parsed<Option<Rg>> {
    let words: Vec<&str> = range.split(is_space).filter(|w| !w.is_empty()).collect();
    let edges_bare = !range.starts_with(is_space) && !range.ends_with(is_space);
    if let [lo, "-", hi] = words[..] {
        if edges_bare {
            if let (Some(lo), Some(hi)) = (partial(lo), partial(hi)) {
                let lo = parse_version(&lo)?;
                let hi = parse_version(&hi)?;
                return Ok(Rg::GtEq(lo).intersection(&Rg::LtEq(hi)));
            }
        }
    }
    let mut simples = Vec::new();
    for t in ruby_split(range, find_space) {
        simples.push(simple(t)?);
    }
    if simples.len() == 1 {
        return Ok(simples.pop());
    }
    Rg::create(simples)
}

fn parse_range(s: &str) -> Parsed<VersionRange> {
    let joined = operators_joined(s);
    let parts = ruby_split(&joined, find_or);
    if parts.is_empty() {
        return Ok(VersionRange {
            text: SmolStr::new("*"),
            ranges: vec![Rg::All],
        });
    }
    let mut ranges: Vec<Rg> = Vec::new();
    for p in parts {
        if let Some(r) = part(p)? {
            if !ranges.contains(&r) {
                ranges.push(r);
            }
        }
    }
    // SemanticPuppet's initialize: merge until nothing merges.
    let mut merged = true;
    while ranges.len() > 1 && merged {
        merged = false;
        let mut result = Vec::new();
        while let Some(x) = ranges.pop() {
            let mut unmerged = Vec::new();
            let mut memo = x;
            for y in ranges {
                match memo.merge(&y)? {
                    Some(m) => {
                        merged = true;
                        memo = m;
                    }
                    None => unmerged.push(y),
                }
            }
            result.push(memo);
            ranges = unmerged;
        }
        result.reverse();
        ranges = result;
    }
    if ranges.is_empty() {
        ranges.push(Rg::Lt(Point::Min));
    }
    Ok(VersionRange {
        text: SmolStr::new(s),
        ranges,
    })
}
