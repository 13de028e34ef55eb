//! `Value`: every runtime value of the Puppet language, cheap to clone and shareable.
//!
//! Containers and large payloads sit behind `Arc`, so cloning a value never copies its
//! contents, and every value is `Send + Sync`. Resource and class references are not a value
//! kind of their own: as in Puppet they are types (`Value::Type(Type::Resource ..)`).
//! This module holds the value model and its two text forms (`%p` via `Display`, and the plain
//! `%s` form via [`Value::to_plain_string`]); it does not evaluate expressions.

use crate::format;
use crate::regexp::Regexp;
use crate::semver::{Version, VersionRange};
use crate::string::Str;
use crate::time::{Timespan, Timestamp};
use crate::types::Type;
use indexmap::IndexMap;
use smol_str::SmolStr;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// An ordered hash of values, as Puppet keeps them (insertion order).
pub type ValueMap = IndexMap<Value, Value, rustc_hash::FxBuildHasher>;

/// A Puppet value.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Value {
    /// `undef`.
    Undef,
    /// `default`.
    Default,
    /// `true` / `false`.
    Boolean(bool),
    /// A 64-bit integer.
    Integer(i64),
    /// A float.
    Float(f64),
    /// A string (UTF-8, or binary as Ruby's `ASCII-8BIT`: see [`Str`]).
    String(Str),
    /// A regular expression.
    Regexp(Regexp),
    /// An array.
    Array(Arc<Vec<Value>>),
    /// A hash in insertion order.
    Hash(Arc<ValueMap>),
    /// A type, including resource references (`Notify['x']`) and class references.
    Type(Type),
    /// A value whose text is redacted.
    Sensitive(Arc<Value>),
    /// A semantic version.
    SemVer(Arc<Version>),
    /// A semantic version range.
    SemVerRange(Arc<VersionRange>),
    /// A duration.
    Timespan(Timespan),
    /// A point in time.
    Timestamp(Timestamp),
    /// Bytes.
    Binary(Arc<[u8]>),
    /// A URI.
    Uri(Arc<Uri>),
    /// A lazy iterator, as `step` and `reverse_each` produce.
    Iterator(Arc<IteratorValue>),
    /// An instance of an Object type (`MyObject(1)`, `Error('oops')`, `Deferred('f')`).
    Object(Arc<crate::object::ObjectValue>),
}

impl Value {
    /// Puppet's `==` (and what `in`, `case`, selectors and `index` compare with): strings
    /// equal when they differ only in the case of ASCII letters (Ruby's `casecmp`, so
    /// `'ABC' == 'abc'` but not `'É' == 'é'`), numbers by value (`1 == 1.0`), a Timespan or
    /// Timestamp against a number by seconds, arrays element by element, hashes by key with
    /// equal values (in any order), types when each is assignable to the other; other values
    /// when they are the same.
    ///
    /// ```
    /// use puppet_types::Value;
    /// assert!(Value::string("Web").puppet_eq(&Value::string("WEB")));
    /// assert!(!Value::string("É").puppet_eq(&Value::string("é")));
    /// assert!(Value::Integer(1).puppet_eq(&Value::Float(1.0)));
    /// assert!(!Value::Integer(1).puppet_eq(&Value::string("1")));
    /// ```
    pub fn puppet_eq(&self, other: &Value) -> bool {
        let secs = |v: &Value| match v {
            Value::Integer(i) => *i as f64,
            Value::Float(f) => *f,
            _ => 0.0,
        };
        let stamp = |t: &Timestamp| t.0 as f64 / 1e9;
        match (self, other) {
            (Value::String(x), Value::String(y)) => x.eq_ignore_ascii_case(y),
            (Value::Integer(x), Value::Float(y)) | (Value::Float(y), Value::Integer(x)) => {
                (*x as f64) == *y
            }
            (Value::Timespan(t), Value::Integer(_) | Value::Float(_)) => {
                t.as_secs_f64() == secs(other)
            }
            (Value::Integer(_) | Value::Float(_), Value::Timespan(t)) => {
                t.as_secs_f64() == secs(self)
            }
            (Value::Timestamp(t), Value::Integer(_) | Value::Float(_)) => stamp(t) == secs(other),
            (Value::Integer(_) | Value::Float(_), Value::Timestamp(t)) => stamp(t) == secs(self),
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| p.puppet_eq(q))
            }
            (Value::Hash(x), Value::Hash(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| v.puppet_eq(w)))
            }
            (Value::Type(x), Value::Type(y)) => {
                x == y || (crate::assign::assignable(x, y) && crate::assign::assignable(y, x))
            }
            _ => self == other,
        }
    }

    /// A string value.
    pub fn string(s: impl AsRef<str>) -> Value {
        Value::String(Str::new(s))
    }

    /// A string made from this value, in its encoding when it is a string (what Ruby's
    /// String methods answer, binary for a binary string), else UTF-8.
    ///
    /// ```
    /// use puppet_types::{Str, Value};
    /// let bin = Value::String(Str::from_bytes(b"abc"));
    /// assert!(matches!(bin.string_like("ABC"), Value::String(s) if s.is_binary()));
    /// assert!(matches!(Value::Integer(1).string_like("1"), Value::String(s) if !s.is_binary()));
    /// ```
    pub fn string_like(&self, text: impl AsRef<str>) -> Value {
        match self {
            Value::String(s) => Value::String(s.derive(text)),
            _ => Value::string(text),
        }
    }

    /// An array value.
    pub fn array(v: Vec<Value>) -> Value {
        Value::Array(Arc::new(v))
    }

    /// A hash value from pairs (later duplicates replace earlier values, keeping the first position).
    pub fn hash(pairs: impl IntoIterator<Item = (Value, Value)>) -> Value {
        Value::Hash(Arc::new(pairs.into_iter().collect()))
    }

    /// True for `undef`.
    pub fn is_undef(&self) -> bool {
        matches!(self, Value::Undef)
    }

    /// The string, when this is a String.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The plain `%s` text of a value, as string interpolation produces it: `3.0` for 3.0,
    /// strings unquoted (also inside arrays and hashes), `undef` as the empty string at top level.
    ///
    /// ```
    /// use puppet_types::Value;
    /// let v = Value::hash([(Value::string("a"), Value::array(vec![Value::Integer(1), Value::Float(3.0)]))]);
    /// assert_eq!(v.to_plain_string(), "{a => [1, 3.0]}");
    /// assert_eq!(v.to_string(), "{'a' => [1, 3.0]}");
    /// ```
    pub fn to_plain_string(&self) -> String {
        let mut out = String::new();
        format::plain_value(&mut out, self, true);
        out
    }

    /// Reverses an iterable value lazily, as `reverse_each` without a block does.
    /// Returns `None` for values that are not iterable.
    pub fn reverse_each(&self) -> Option<Value> {
        let source = IteratorValue::of(self)?;
        Some(Value::Iterator(Arc::new(IteratorValue {
            element_type: source.element_type.clone(),
            source: IterSource::Reverse(Arc::new(source)),
        })))
    }

    /// Steps through an iterable value lazily, as `step(n)` without a block does.
    /// Returns `None` when `step < 1` or the value is not iterable.
    pub fn step(&self, step: i64) -> Option<Value> {
        if step < 1 {
            return None;
        }
        let source = IteratorValue::of(self)?;
        Some(Value::Iterator(Arc::new(IteratorValue {
            element_type: source.element_type.clone(),
            source: IterSource::Step(Arc::new(source), step as usize),
        })))
    }
}

/// Puppet's `==` is not this: this is structural identity, used for hash keys (where `'a'` and
/// `'A'` differ, and `1` and `1.0` differ).
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Undef, Undef) | (Default, Default) => true,
            (Boolean(a), Boolean(b)) => a == b,
            (Integer(a), Integer(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits() || a == b,
            (String(a), String(b)) => a == b,
            (Regexp(a), Regexp(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Hash(a), Hash(b)) => a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y),
            (Type(a), Type(b)) => a == b,
            (Sensitive(a), Sensitive(b)) => a == b,
            (SemVer(a), SemVer(b)) => a == b,
            (SemVerRange(a), SemVerRange(b)) => a == b,
            (Timespan(a), Timespan(b)) => a == b,
            (Timestamp(a), Timestamp(b)) => a == b,
            (Binary(a), Binary(b)) => a == b,
            (Uri(a), Uri(b)) => a == b,
            (Iterator(a), Iterator(b)) => Arc::ptr_eq(a, b),
            (Object(a), Object(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}
impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Value::Undef | Value::Default | Value::Iterator(_) => {}
            Value::Boolean(b) => b.hash(state),
            Value::Integer(i) => i.hash(state),
            Value::Float(f) => (if *f == 0.0 { 0.0f64 } else { *f }).to_bits().hash(state),
            Value::String(s) => s.hash(state),
            Value::Regexp(r) => r.hash(state),
            Value::Array(a) => a.hash(state),
            Value::Hash(h) => {
                for (k, v) in h.iter() {
                    k.hash(state);
                    v.hash(state);
                }
            }
            Value::Type(t) => t.hash(state),
            Value::Sensitive(v) => v.hash(state),
            Value::SemVer(v) => v.hash(state),
            Value::SemVerRange(v) => v.hash(state),
            Value::Timespan(t) => t.hash(state),
            Value::Timestamp(t) => t.hash(state),
            Value::Binary(b) => b.hash(state),
            Value::Uri(u) => u.hash(state),
            Value::Object(o) => {
                o.type_name().hash(state);
                for n in o.object_type.equality_attributes() {
                    o.get(&n).hash(state);
                }
            }
        }
    }
}

/// The `%p` form: `'abc'`, `[1, 'a']`, `{'a' => 1}`, `Integer[1, 2]`, `Binary("aGk=")`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        format::value_p(&mut out, self);
        f.write_str(&out)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Integer(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Boolean(b)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::string(s)
    }
}
impl From<Type> for Value {
    fn from(t: Type) -> Self {
        Value::Type(t)
    }
}

/// A parsed URI. Components are as RFC 3986 splits them; the original text is kept for display.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Uri {
    /// The text the URI was made from.
    pub text: SmolStr,
    /// Scheme, lower-cased.
    pub scheme: Option<SmolStr>,
    /// User info before `@`.
    pub userinfo: Option<SmolStr>,
    /// Host, lower-cased.
    pub host: Option<SmolStr>,
    /// Port, when given.
    pub port: Option<u32>,
    /// Path (may be empty).
    pub path: SmolStr,
    /// Query after `?`.
    pub query: Option<SmolStr>,
    /// Fragment after `#`.
    pub fragment: Option<SmolStr>,
    /// The opaque part of a URI with a scheme and no hierarchical part (`urn:a:b:c` has the
    /// opaque part `a:b:c`, query included, and no path), as Ruby's `URI` splits it.
    pub opaque: Option<SmolStr>,
}

impl Uri {
    /// Splits a URI into its parts. Never fails: text that is not a URI becomes a path.
    ///
    /// ```
    /// use puppet_types::value::Uri;
    /// let u = Uri::parse("http://a.example/x");
    /// assert_eq!(u.host.as_deref(), Some("a.example"));
    /// assert_eq!(u.path, "/x");
    /// ```
    pub fn parse(s: &str) -> Uri {
        let mut rest = s;
        let mut fragment = None;
        if let Some((a, b)) = rest.split_once('#') {
            fragment = Some(SmolStr::new(b));
            rest = a;
        }
        let mut query = None;
        if let Some((a, b)) = rest.split_once('?') {
            query = Some(SmolStr::new(b));
            rest = a;
        }
        let mut scheme = None;
        if let Some(idx) = rest.find(':') {
            let cand = &rest[..idx];
            if !cand.is_empty()
                && cand.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && cand
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            {
                scheme = Some(SmolStr::new(cand.to_ascii_lowercase()));
                rest = &rest[idx + 1..];
            }
        }
        // `scheme:` followed by something that is not a path: an opaque URI.
        if let Some(sc) = &scheme {
            let after = &s[sc.len() + 1..];
            let after = after.split_once('#').map_or(after, |(a, _)| a);
            if !after.is_empty() && !after.starts_with('/') {
                return Uri {
                    text: SmolStr::new(s),
                    scheme,
                    userinfo: None,
                    host: None,
                    port: None,
                    path: SmolStr::default(),
                    query: None,
                    fragment,
                    opaque: Some(SmolStr::new(after)),
                };
            }
        }
        let (mut userinfo, mut host, mut port) = (None, None, None);
        if let Some(auth_rest) = rest.strip_prefix("//") {
            let end = auth_rest.find('/').unwrap_or(auth_rest.len());
            let mut auth = &auth_rest[..end];
            rest = &auth_rest[end..];
            if let Some((u, h)) = auth.rsplit_once('@') {
                userinfo = Some(SmolStr::new(u));
                auth = h;
            }
            if let Some((h, p)) = auth.rsplit_once(':') {
                if let Ok(p) = p.parse::<u32>() {
                    port = Some(p);
                    auth = h;
                }
            }
            if !auth.is_empty() {
                host = Some(SmolStr::new(auth.to_ascii_lowercase()));
            }
        }
        Uri {
            text: SmolStr::new(s),
            scheme,
            userinfo,
            host,
            port,
            path: SmolStr::new(rest),
            query,
            fragment,
            opaque: None,
        }
    }

    /// Ruby's `URI::Generic.build` from named parts (`URI(scheme => 'https', host => ...)`).
    pub fn build(parts: &IndexMap<SmolStr, Value>) -> Uri {
        let get = |k: &str| parts.get(k).map(Value::to_plain_string);
        let mut text = String::new();
        if let Some(s) = get("scheme") {
            text.push_str(&s);
            text.push(':');
        }
        if let Some(o) = get("opaque") {
            text.push_str(&o);
        } else {
            if let Some(h) = get("host") {
                text.push_str("//");
                if let Some(u) = get("userinfo") {
                    text.push_str(&u);
                    text.push('@');
                }
                text.push_str(&h);
                if let Some(p) = get("port") {
                    text.push(':');
                    text.push_str(&p);
                }
            }
            if let Some(p) = get("path") {
                text.push_str(&p);
            }
            if let Some(q) = get("query") {
                text.push('?');
                text.push_str(&q);
            }
        }
        if let Some(f) = get("fragment") {
            text.push('#');
            text.push_str(&f);
        }
        Uri::parse(&text)
    }

    /// Ruby's `URI#+` / `merge`: a reference resolved against this URI (RFC 3986, 5.2).
    ///
    /// ```
    /// use puppet_types::value::Uri;
    /// let base = Uri::parse("https://example.com/x/y");
    /// assert_eq!(base.join(&Uri::parse("z")).text, "https://example.com/x/z");
    /// assert_eq!(base.join(&Uri::parse("/a/b")).text, "https://example.com/a/b");
    /// ```
    pub fn join(&self, r: &Uri) -> Uri {
        if r.scheme.is_some() {
            return r.clone();
        }
        let authority = |u: &Uri| -> String {
            let mut a = String::new();
            if let Some(h) = &u.host {
                a.push_str("//");
                if let Some(ui) = &u.userinfo {
                    a.push_str(ui);
                    a.push('@');
                }
                a.push_str(h);
                if let Some(p) = u.port {
                    a.push_str(&format!(":{p}"));
                }
            }
            a
        };
        let (auth, path, query) = if r.host.is_some() {
            (authority(r), remove_dot_segments(&r.path), r.query.clone())
        } else if r.path.is_empty() {
            (
                authority(self),
                self.path.to_string(),
                r.query.clone().or_else(|| self.query.clone()),
            )
        } else if r.path.starts_with('/') {
            (
                authority(self),
                remove_dot_segments(&r.path),
                r.query.clone(),
            )
        } else {
            let merged = if self.host.is_some() && self.path.is_empty() {
                format!("/{}", r.path)
            } else {
                match self.path.rfind('/') {
                    Some(i) => format!("{}{}", &self.path[..=i], r.path),
                    None => r.path.to_string(),
                }
            };
            (
                authority(self),
                remove_dot_segments(&merged),
                r.query.clone(),
            )
        };
        let mut text = String::new();
        if let Some(s) = &self.scheme {
            text.push_str(s);
            text.push(':');
        }
        text.push_str(&auth);
        text.push_str(&path);
        if let Some(q) = query {
            text.push('?');
            text.push_str(&q);
        }
        if let Some(f) = &r.fragment {
            text.push('#');
            text.push_str(f);
        }
        Uri::parse(&text)
    }

    /// The parts as Puppet's URI type parameters show them (`{'scheme' => 'http', ...}`).
    pub fn to_parameter_map(&self) -> IndexMap<SmolStr, Value> {
        let mut m = IndexMap::new();
        if let Some(s) = &self.scheme {
            m.insert(SmolStr::new("scheme"), Value::String(s.clone().into()));
        }
        if let Some(s) = &self.userinfo {
            m.insert(SmolStr::new("userinfo"), Value::String(s.clone().into()));
        }
        if let Some(s) = &self.host {
            m.insert(SmolStr::new("host"), Value::String(s.clone().into()));
        }
        if let Some(p) = self.port {
            let default_port = matches!(
                (self.scheme.as_deref(), p),
                (Some("http"), 80) | (Some("https"), 443)
            );
            if !default_port {
                m.insert(SmolStr::new("port"), Value::string(p.to_string()));
            }
        }
        if !self.path.is_empty() {
            m.insert(
                SmolStr::new("path"),
                Value::String(self.path.clone().into()),
            );
        }
        if let Some(s) = &self.query {
            m.insert(SmolStr::new("query"), Value::String(s.clone().into()));
        }
        if let Some(s) = &self.fragment {
            m.insert(SmolStr::new("fragment"), Value::String(s.clone().into()));
        }
        if let Some(s) = &self.opaque {
            m.insert(SmolStr::new("opaque"), Value::String(s.clone().into()));
        }
        m
    }
}

/// RFC 3986's `remove_dot_segments`.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path.to_string();
    let mut out: Vec<String> = Vec::new();
    while !input.is_empty() {
        if let Some(r) = input.strip_prefix("../") {
            input = r.to_string();
        } else if let Some(r) = input.strip_prefix("./") {
            input = r.to_string();
        } else if input.starts_with("/./") {
            input = input[2..].to_string();
        } else if input == "/." {
            input = "/".to_string();
        } else if input.starts_with("/../") || input == "/.." {
            input = if input == "/.." {
                "/".to_string()
            } else {
                input[3..].to_string()
            };
            out.pop();
        } else if input == "." || input == ".." {
            input.clear();
        } else {
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |i| i + start);
            out.push(input[..end].to_string());
            input = input[end..].to_string();
        }
    }
    out.concat()
}

/// A lazy iterator value.
#[derive(Debug, Clone)]
pub struct IteratorValue {
    /// The type of the produced elements.
    pub element_type: Type,
    /// Where the elements come from.
    pub source: IterSource,
}

/// The source of an iterator's elements.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum IterSource {
    /// The elements of an array (a hash iterates as `[key, value]` pairs).
    Values(Arc<Vec<Value>>),
    /// Integers from `from` to `to` inclusive.
    Range {
        /// First value.
        from: i64,
        /// Last value.
        to: i64,
    },
    /// The characters of a string.
    Chars(SmolStr),
    /// Another iterator, reversed.
    Reverse(Arc<IteratorValue>),
    /// Every n-th element of another iterator.
    Step(Arc<IteratorValue>, usize),
}

impl IteratorValue {
    /// An iterator over an iterable value: Array, Hash, String, a non-negative Integer `n`
    /// (0 to n-1), an Iterator, `Integer[a, b]` with finite bounds, or an `Enum` type.
    pub fn of(v: &Value) -> Option<IteratorValue> {
        Some(match v {
            Value::Array(a) => {
                let elem = match crate::infer::infer_set(v) {
                    Type::Tuple(t) => Type::variant_of(t.types.clone()),
                    _ => Type::Unit,
                };
                let _ = a;
                IteratorValue {
                    element_type: elem,
                    source: IterSource::Values(a.clone()),
                }
            }
            Value::Hash(h) => {
                let pairs: Vec<Value> = h
                    .iter()
                    .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
                    .collect();
                let arr = Value::array(pairs);
                let inner = IteratorValue::of(&arr)?;
                IteratorValue {
                    element_type: inner.element_type,
                    source: inner.source,
                }
            }
            Value::String(s) => IteratorValue {
                element_type: Type::String(crate::types::StringType::Size(Some(
                    crate::types::IntRange::new(Some(1), Some(1)),
                ))),
                source: IterSource::Chars(s.clone().into()),
            },
            Value::Integer(n) if *n >= 0 => IteratorValue {
                element_type: Type::Integer(crate::types::IntRange::new(
                    Some(0),
                    Some(n.saturating_sub(1).max(0)),
                )),
                source: IterSource::Range { from: 0, to: n - 1 },
            },
            Value::Iterator(it) => (**it).clone(),
            Value::Type(Type::Integer(r)) => match (r.min, r.max) {
                (Some(a), Some(b)) => IteratorValue {
                    element_type: Type::Integer(*r),
                    source: IterSource::Range { from: a, to: b },
                },
                _ => return None,
            },
            Value::Type(Type::Enum(e)) => IteratorValue {
                element_type: Type::String(crate::types::StringType::Unbounded),
                source: IterSource::Values(Arc::new(
                    e.values
                        .iter()
                        .map(|s| Value::String(s.clone().into()))
                        .collect(),
                )),
            },
            _ => return None,
        })
    }

    /// Produces all elements. Integer ranges are produced lazily by the returned iterator.
    pub fn iter(&self) -> Box<dyn Iterator<Item = Value> + '_> {
        match &self.source {
            IterSource::Values(v) => Box::new(v.iter().cloned()),
            IterSource::Range { from, to } => Box::new((*from..=*to).map(Value::Integer)),
            IterSource::Chars(s) => Box::new(s.chars().map(|c| Value::string(c.to_string()))),
            IterSource::Reverse(inner) => match &inner.source {
                IterSource::Range { from, to } => Box::new((*from..=*to).rev().map(Value::Integer)),
                IterSource::Values(v) => Box::new(v.iter().rev().cloned()),
                _ => {
                    let all: Vec<Value> = inner.iter().collect();
                    Box::new(all.into_iter().rev())
                }
            },
            IterSource::Step(inner, n) => Box::new(inner.iter().step_by(*n)),
        }
    }
}
