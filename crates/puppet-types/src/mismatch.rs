//! Mismatch descriptions: Puppet's texts for why a value or type does not match an expected
//! type (`expects an Integer value, got String`, `entry 'a' expects ...`, `expects a value for
//! key 'x'`, `unrecognized key 'y'`, `index 1 expects ...`, `expects size to be at least 1,
//! got 0`, `expects a match for Enum['a', 'b'], got 'c'`).
//!
//! [`describe`] produces structured [`Mismatch`]es with a path, [`describe_mismatch`] the
//! joined text Puppet's `TypeMismatchDescriber#describe_mismatch` gives. Function-signature
//! texts ("expects one of: ...") are assembled by the function registry from these pieces.

use crate::assign::assignable;
use crate::infer::{generalize, infer_set};
use crate::normalize::normalize;
use crate::types::{IntRange, Type};
use crate::value::Value;
use std::fmt;

/// One step of the path to a mismatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathElement {
    /// The subject as given by the caller (e.g. `parameter 'x'` or `'f' parameter 'x'`).
    Subject(String),
    /// `entry 'k'`.
    EntryValue(String),
    /// `key of entry 'k'`.
    EntryKey(String),
    /// `parameter 'p'`.
    Parameter(String),
    /// `return`.
    Return,
    /// `block`.
    Block,
    /// `index n`.
    Index(usize),
    /// A Variant alternative (not shown).
    Variant(usize),
    /// A signature number (`1.`).
    Signature(usize),
}

impl fmt::Display for PathElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Subject(s) => f.write_str(s),
            PathElement::EntryValue(k) => write!(f, "entry '{k}'"),
            PathElement::EntryKey(k) => write!(f, "key of entry '{k}'"),
            PathElement::Parameter(p) => write!(f, "parameter '{p}'"),
            PathElement::Return => f.write_str("return"),
            PathElement::Block => f.write_str("block"),
            PathElement::Index(i) => write!(f, "index {i}"),
            PathElement::Variant(i) => write!(f, "variant {i}"),
            PathElement::Signature(i) => write!(f, "{}.", i + 1),
        }
    }
}

/// What kind of mismatch was found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MismatchKind {
    /// A required struct key is missing.
    MissingKey(String),
    /// A required parameter is missing.
    MissingParameter(String),
    /// A key that the struct does not have.
    ExtraneousKey(String),
    /// A parameter the callee does not have.
    InvalidParameter(String),
    /// A block was given but not expected.
    UnexpectedBlock,
    /// A block was expected.
    MissingRequiredBlock,
    /// The expected type references an unknown type.
    UnresolvedTypeReference(String),
    /// Wrong type.
    Type {
        /// Expected (normalized).
        expected: Type,
        /// Actual (normalized).
        actual: Type,
    },
    /// A string that does not match an Enum or Pattern.
    Pattern {
        /// Expected (normalized).
        expected: Type,
        /// Actual (normalized).
        actual: Type,
    },
    /// Wrong size.
    Size {
        /// Expected range.
        expected: IntRange,
        /// Actual range.
        actual: IntRange,
    },
    /// Wrong argument count.
    Count {
        /// Expected range.
        expected: IntRange,
        /// Actual range.
        actual: IntRange,
    },
}

/// A mismatch at a path.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// Where the mismatch is.
    pub path: Vec<PathElement>,
    /// What it is.
    pub kind: MismatchKind,
}

fn type_mismatch(path: &[PathElement], expected: &Type, actual: &Type) -> Mismatch {
    Mismatch {
        path: path.to_vec(),
        kind: MismatchKind::Type {
            expected: normalize(expected),
            actual: normalize(actual),
        },
    }
}

fn pattern_mismatch(path: &[PathElement], expected: &Type, actual: &Type) -> Mismatch {
    Mismatch {
        path: path.to_vec(),
        kind: MismatchKind::Pattern {
            expected: normalize(expected),
            actual: normalize(actual),
        },
    }
}

fn size_mismatch(path: &[PathElement], expected: IntRange, actual: IntRange) -> Mismatch {
    Mismatch {
        path: path.to_vec(),
        kind: MismatchKind::Size { expected, actual },
    }
}

fn with(path: &[PathElement], e: PathElement) -> Vec<PathElement> {
    let mut p = path.to_vec();
    p.push(e);
    p
}

fn article(s: &str) -> &'static str {
    let mut cs = s.chars();
    let mut c = cs.next();
    if matches!(c, Some('"' | '\'')) {
        c = cs.next();
    }
    match c.map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'y') => "an",
        _ => "a",
    }
}

fn range_to_s(r: &IntRange, zero: &str) -> String {
    let min = r.min.unwrap_or(0).max(0) as i128;
    let max = r.hi();
    if min == max {
        if min == 0 {
            zero.to_string()
        } else {
            min.to_string()
        }
    } else if min == 0 {
        if r.max.is_none() {
            "unlimited".into()
        } else {
            format!("at most {max}")
        }
    } else if r.max.is_none() {
        format!("at least {min}")
    } else {
        format!("between {min} and {max}")
    }
}

/// Ruby-class-like tag of a type, used where Puppet compares `e.class == a.class`.
fn class_tag(t: &Type) -> &'static str {
    match t {
        Type::Any => "Any",
        Type::Undef => "Undef",
        Type::Default => "Default",
        Type::Unit => "Unit",
        Type::NotUndef(_) => "NotUndef",
        Type::Boolean(_) => "Boolean",
        Type::Numeric => "Numeric",
        Type::Integer(_) => "Integer",
        Type::Float(_) => "Float",
        Type::String(_) => "String",
        Type::Enum(_) => "Enum",
        Type::Pattern(_) => "Pattern",
        Type::Regexp(_) => "Regexp",
        Type::Scalar => "Scalar",
        Type::ScalarData => "ScalarData",
        Type::Collection(_) => "Collection",
        Type::Array(_) => "Array",
        Type::Hash(_) => "Hash",
        Type::Tuple(_) => "Tuple",
        Type::Struct(_) => "Struct",
        Type::Optional(_) => "Optional",
        Type::Variant(_) => "Variant",
        Type::Type(_) => "Type",
        Type::Class(_) => "Class",
        Type::Resource(_) => "Resource",
        Type::CatalogEntry => "CatalogEntry",
        Type::Callable(_) => "Callable",
        Type::Iterable(_) => "Iterable",
        Type::Iterator(_) => "Iterator",
        Type::Sensitive(_) => "Sensitive",
        Type::SemVer(_) => "SemVer",
        Type::SemVerRange => "SemVerRange",
        Type::Timespan(_) => "Timespan",
        Type::Timestamp(_) => "Timestamp",
        Type::Binary => "Binary",
        Type::Init(_) => "Init",
        Type::Runtime(_) => "Runtime",
        Type::Uri(_) => "URI",
        Type::TypeReference(_) => "TypeReference",
        Type::Alias(_) => "TypeAlias",
        Type::Object(_) => "Object",
    }
}

/// Puppet's `name` of a type: the alias or object name, else the simple class name.
fn simple_name(t: &Type) -> String {
    match t {
        Type::Alias(a) => a.name().to_string(),
        Type::Object(o) => o.name.as_deref().unwrap_or("Object").to_string(),
        other => class_tag(other).to_string(),
    }
}

fn contained(t: &Type) -> Option<&Type> {
    match t {
        Type::Type(Some(x))
        | Type::NotUndef(Some(x))
        | Type::Optional(Some(x))
        | Type::Iterable(Some(x))
        | Type::Iterator(Some(x)) => Some(x),
        Type::Sensitive(x) => Some(x),
        Type::Init(i) => i.target.as_ref(),
        _ => None,
    }
}

fn short_name(t: &Type) -> String {
    match contained(t) {
        Some(inner) if *inner != Type::Any => format!("{}[{}]", simple_name(t), simple_name(inner)),
        _ => simple_name(t),
    }
}

fn alias_expanded(t: &Type) -> String {
    crate::format::alias_expanded_string(t)
}

fn default_of(t: &Type) -> Type {
    match t {
        Type::Alias(a) => default_of(&a.resolved()),
        Type::Integer(_) => Type::any_integer(),
        Type::Float(_) => Type::any_float(),
        Type::String(_) => Type::any_string(),
        Type::Enum(_) => Type::enumeration(vec![], false),
        Type::Pattern(_) => Type::Pattern(std::sync::Arc::new(vec![])),
        Type::Regexp(_) => Type::Regexp(None),
        Type::Boolean(_) => Type::Boolean(None),
        Type::Collection(_) => Type::Collection(None),
        Type::Array(_) => Type::array_of_any(),
        Type::Hash(_) => Type::hash_of_any(),
        Type::Tuple(_) => Type::tuple(vec![], None),
        Type::Struct(_) => Type::structure(vec![]),
        Type::Optional(_) => Type::Optional(None),
        Type::NotUndef(_) => Type::NotUndef(None),
        Type::Variant(_) => Type::Variant(std::sync::Arc::new(vec![])),
        Type::Type(_) => Type::Type(None),
        Type::Class(_) => Type::Class(None),
        Type::Resource(_) => Type::resource(None, None),
        Type::Callable(_) => Type::any_callable(),
        Type::Iterable(_) => Type::Iterable(None),
        Type::Iterator(_) => Type::Iterator(None),
        Type::Sensitive(_) => Type::Sensitive(std::sync::Arc::new(Type::Any)),
        Type::SemVer(_) => Type::SemVer(std::sync::Arc::new(vec![])),
        Type::Timespan(_) => Type::Timespan(Default::default()),
        Type::Timestamp(_) => Type::Timestamp(Default::default()),
        Type::Uri(_) => Type::Uri(None),
        Type::TypeReference(_) => Type::TypeReference("UnresolvedReference".into()),
        Type::Init(_) => crate::params::resolve_type_name("Init"),
        Type::Runtime(_) => crate::params::resolve_type_name("Runtime"),
        Type::Object(_) => crate::params::builtin_object("Object"),
        other => other.clone(),
    }
}

fn resolved(t: &Type) -> Type {
    match t {
        Type::Alias(a) => resolved(&a.resolved()),
        other => other.clone(),
    }
}

fn specialization(e: &Type, a: &Type) -> bool {
    matches!(
        (e, a),
        (Type::Struct(_), Type::Hash(_)) | (Type::Tuple(_), Type::Array(_))
    )
}

/// An alias that is not only the name of an Object type (`type MyObj = Object[{...}]` makes
/// an Object type in Puppet, not an alias).
fn is_alias(t: &Type) -> bool {
    match t {
        Type::Alias(a) => {
            !matches!(a.resolved(), Type::Object(o) if o.name.as_deref() == Some(a.name()) && o.ext.is_none())
        }
        _ => false,
    }
}

fn always_fully_detailed(es: &[Type], a: &Type) -> bool {
    es.iter()
        .any(|e| class_tag(e) == class_tag(a) || is_alias(e) || is_alias(a) || specialization(e, a))
}

fn report_detailed(es: &[Type], a: &Type) -> bool {
    always_fully_detailed(es, a) || es.iter().any(|e| assignable(&default_of(e), a))
}

fn detailed_actual(es: &[Type], a: &Type) -> String {
    let es: Vec<Type> = es.iter().map(resolved).collect();
    if always_fully_detailed(&es, a) {
        alias_expanded(a)
    } else {
        let g = generalize(a);
        if es.iter().any(|e| assignable(e, &g)) {
            alias_expanded(a)
        } else {
            simple_name(a)
        }
    }
}

fn type_message(expected: &Type, actual: &Type) -> String {
    let mut e = expected.clone();
    let mut optional = false;
    if let Type::Optional(inner) = &e {
        optional = true;
        e = inner.as_deref().cloned().unwrap_or(Type::Any);
    }
    let (e_text, a_text, multi) = if let Type::Variant(vs) = &e {
        let es: Vec<Type> = (**vs).clone();
        let (mut names, a) = if report_detailed(&es, actual) {
            (
                es.iter().map(alias_expanded).collect::<Vec<_>>(),
                detailed_actual(&es, actual),
            )
        } else {
            let mut names: Vec<String> = Vec::new();
            for t in &es {
                let n = short_name(t);
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            (names, short_name(actual))
        };
        if optional {
            names.insert(0, "Undef".into());
        }
        let multi = names.len() > 1;
        let text = match names.len() {
            0 => String::new(),
            1 => names[0].clone(),
            2 => format!("{} or {}", names[0], names[1]),
            n => format!("{}, or {}", names[..n - 1].join(", "), names[n - 1]),
        };
        (text, a, multi)
    } else {
        let es = [e.clone()];
        let (mut text, a) = if report_detailed(&es, actual) {
            (alias_expanded(&e), detailed_actual(&es, actual))
        } else {
            (short_name(&e), short_name(actual))
        };
        if optional {
            text = format!("Undef or {text}");
        }
        (text, a, optional)
    };
    if multi {
        format!(" expects a value of type {e_text}, got {a_text}")
    } else {
        format!(" expects {} {e_text} value, got {a_text}", article(&e_text))
    }
}

impl Mismatch {
    fn canonical_path(&self) -> Vec<&PathElement> {
        self.path
            .iter()
            .filter(|p| !matches!(p, PathElement::Variant(_)))
            .collect()
    }

    /// The message without the path: ` expects an Integer value, got String`.
    fn message(&self) -> String {
        match &self.kind {
            MismatchKind::MissingKey(k) => format!(" expects a value for key '{k}'"),
            MismatchKind::MissingParameter(k) => format!(" expects a value for parameter '{k}'"),
            MismatchKind::ExtraneousKey(k) => format!(" unrecognized key '{k}'"),
            MismatchKind::InvalidParameter(k) => format!(" has no parameter named '{k}'"),
            MismatchKind::UnexpectedBlock => " does not expect a block".into(),
            MismatchKind::MissingRequiredBlock => " expects a block".into(),
            MismatchKind::UnresolvedTypeReference(n) => {
                format!(" references an unresolved type '{n}'")
            }
            MismatchKind::Type { expected, actual } => type_message(expected, actual),
            MismatchKind::Pattern { expected, actual } => {
                let (e, pfx) = match expected {
                    Type::Optional(Some(inner)) => ((**inner).clone(), "an undef value or "),
                    other => (other.clone(), ""),
                };
                let a = match actual {
                    Type::String(s) if s.value().is_some() => {
                        format!("'{}'", s.value().unwrap_or_default())
                    }
                    other => short_name(other),
                };
                format!(" expects {pfx}a match for {}, got {a}", alias_expanded(&e))
            }
            MismatchKind::Size { expected, actual } => {
                format!(
                    " expects size to be {}, got {}",
                    range_to_s(expected, "0"),
                    range_to_s(actual, "0")
                )
            }
            MismatchKind::Count { expected, actual } => {
                let min = expected.min.unwrap_or(0);
                let suffix = if (min == 1 && (expected.max == Some(1) || expected.max.is_none()))
                    || (min == 0 && expected.max == Some(1))
                {
                    ""
                } else {
                    "s"
                };
                format!(
                    " expects {} argument{suffix}, got {}",
                    range_to_s(expected, "no"),
                    range_to_s(actual, "none")
                )
            }
        }
    }

    /// The mismatch as Puppet formats it, path first (leading space kept, as Puppet does).
    pub fn format(&self) -> String {
        let mut p: &[PathElement] = &self.path;
        let mut variant = String::new();
        if let Some(PathElement::Signature(_)) = p.first() {
            variant = format!(" {}", p[0]);
            p = &p[1..];
        }
        let position = if p.is_empty() {
            String::new()
        } else {
            format!(
                " {}",
                p.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        };
        format!("{variant}{position}{}", self.message())
    }

    fn merge(&self, o: &Mismatch) -> Mismatch {
        let kind = match (&self.kind, &o.kind) {
            (
                MismatchKind::Type {
                    expected: e1,
                    actual,
                },
                MismatchKind::Type { expected: e2, .. },
            ) => MismatchKind::Type {
                expected: normalize(&Type::variant_of(vec![e1.clone(), e2.clone()])),
                actual: actual.clone(),
            },
            // A pattern mismatch merges as a type mismatch, keeping its own class.
            (
                MismatchKind::Pattern {
                    expected: e1,
                    actual,
                },
                MismatchKind::Pattern { expected: e2, .. }
                | MismatchKind::Type { expected: e2, .. },
            ) => MismatchKind::Pattern {
                expected: normalize(&Type::variant_of(vec![e1.clone(), e2.clone()])),
                actual: actual.clone(),
            },
            (
                MismatchKind::Type {
                    expected: e1,
                    actual,
                },
                MismatchKind::Pattern { expected: e2, .. },
            ) => MismatchKind::Type {
                expected: normalize(&Type::variant_of(vec![e1.clone(), e2.clone()])),
                actual: actual.clone(),
            },
            (
                MismatchKind::Size {
                    expected: e1,
                    actual,
                },
                MismatchKind::Size { expected: e2, .. },
            ) => MismatchKind::Size {
                expected: e1.merge(e2),
                actual: *actual,
            },
            (
                MismatchKind::Count {
                    expected: e1,
                    actual,
                },
                MismatchKind::Count { expected: e2, .. },
            ) => MismatchKind::Count {
                expected: e1.merge(e2),
                actual: *actual,
            },
            (k, _) => k.clone(),
        };
        Mismatch {
            path: self.path.clone(),
            kind,
        }
    }

    /// The mismatch without the path element at `index` (the varying position of merged
    /// alternatives: Puppet's `chop_path`).
    pub fn chop_path(&self, index: usize) -> Mismatch {
        let mut m = self.clone();
        if index < m.path.len() {
            m.path.remove(index);
        }
        m
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.format().trim())
    }
}

fn find_unresolved(t: &Type, depth: usize) -> Option<String> {
    if depth > 64 {
        return None;
    }
    let d = depth + 1;
    match t {
        Type::TypeReference(n) => Some(n.to_string()),
        Type::Variant(vs) => vs.iter().find_map(|x| find_unresolved(x, d)),
        Type::Array(a) => find_unresolved(&a.element, d),
        Type::Hash(h) => find_unresolved(&h.key, d).or_else(|| find_unresolved(&h.value, d)),
        Type::Tuple(tt) => tt.types.iter().find_map(|x| find_unresolved(x, d)),
        Type::Struct(es) => es.iter().find_map(|e| find_unresolved(&e.value, d)),
        other => contained(other).and_then(|x| find_unresolved(x, d)),
    }
}

/// Puppet's `describe`: the mismatches between an expected and an actual type.
pub fn describe(expected: &Type, actual: &Type, path: &[PathElement]) -> Vec<Mismatch> {
    if let Some(n) = find_unresolved(expected, 0) {
        return vec![Mismatch {
            path: path.to_vec(),
            kind: MismatchKind::UnresolvedTypeReference(n),
        }];
    }
    internal(&normalize(expected), expected, actual, path, 0)
}

fn internal(
    expected: &Type,
    original: &Type,
    actual: &Type,
    path: &[PathElement],
    depth: usize,
) -> Vec<Mismatch> {
    if depth > crate::assign::MAX_DEPTH {
        return vec![type_mismatch(path, original, actual)];
    }
    let d = depth + 1;
    let desc = |e: &Type, a: &Type, p: &[PathElement]| internal(&normalize(e), e, a, p, d);
    match expected {
        Type::Variant(vs) => {
            let mut types: Vec<Type> = (**vs).clone();
            if matches!(original, Type::Optional(_)) {
                types.insert(0, Type::Undef);
            }
            let mut all = Vec::new();
            for (i, vt) in types.iter().enumerate() {
                let dsc = desc(vt, actual, &with(path, PathElement::Variant(i)));
                if dsc.is_empty() {
                    return vec![];
                }
                all.push(dsc);
            }
            let merged = merge_descriptions(path.len(), false, &all);
            if matches!(original, Type::Alias(_)) && merged.len() == 1 {
                vec![type_mismatch(path, original, actual)]
            } else {
                merged
            }
        }
        Type::Struct(elems) => match actual {
            Type::Struct(aelems) => {
                let mut out = Vec::new();
                let mut remaining: Vec<&crate::types::StructElement> = aelems.iter().collect();
                for e1 in elems.iter() {
                    match remaining.iter().position(|e2| e2.name == e1.name) {
                        None => {
                            if !assignable(&e1.key, &Type::Undef) {
                                out.push(Mismatch {
                                    path: path.to_vec(),
                                    kind: MismatchKind::MissingKey(e1.name.to_string()),
                                });
                            }
                        }
                        Some(idx) => {
                            let e2 = remaining.remove(idx);
                            if !assignable(&e1.key, &e2.key) {
                                out.extend(desc(
                                    &e1.key,
                                    &e2.key,
                                    &with(path, PathElement::EntryKey(e1.name.to_string())),
                                ));
                            }
                            if !assignable(&e1.value, &e2.value) {
                                out.extend(desc(
                                    &e1.value,
                                    &e2.value,
                                    &with(path, PathElement::EntryValue(e1.name.to_string())),
                                ));
                            }
                        }
                    }
                }
                for e2 in remaining {
                    out.push(Mismatch {
                        path: path.to_vec(),
                        kind: MismatchKind::ExtraneousKey(e2.name.to_string()),
                    });
                }
                out
            }
            Type::Hash(h) => {
                let actual_size = h.size.unwrap_or(IntRange::DEFAULT_SIZE);
                let required = elems
                    .iter()
                    .filter(|e| !assignable(&e.key, &Type::Undef))
                    .count() as i64;
                let expected_size = IntRange::new(Some(required), Some(elems.len() as i64));
                if expected_size.covers(&actual_size) {
                    vec![type_mismatch(
                        path,
                        original,
                        &Type::hash(h.key.clone(), h.value.clone(), None),
                    )]
                } else {
                    vec![size_mismatch(path, expected_size, actual_size)]
                }
            }
            _ => vec![type_mismatch(path, original, actual)],
        },
        Type::Hash(h) => match actual {
            Type::Struct(aelems) => {
                let expected_size = h.size.unwrap_or(IntRange::DEFAULT_SIZE);
                let req = aelems
                    .iter()
                    .filter(|a| !assignable(&a.key, &Type::Undef))
                    .count() as i64;
                let actual_size = IntRange::new(Some(req), Some(aelems.len() as i64));
                if expected_size.covers(&actual_size) {
                    let mut out = Vec::new();
                    for a in aelems.iter() {
                        if !assignable(&h.key, &a.key) {
                            out.extend(desc(
                                &h.key,
                                &a.key,
                                &with(path, PathElement::EntryKey(a.name.to_string())),
                            ));
                        }
                        if !assignable(&h.value, &a.value) {
                            out.extend(desc(
                                &h.value,
                                &a.value,
                                &with(path, PathElement::EntryValue(a.name.to_string())),
                            ));
                        }
                    }
                    out
                } else {
                    vec![size_mismatch(path, expected_size, actual_size)]
                }
            }
            Type::Hash(ah) => {
                let actual_size = ah.size.unwrap_or(IntRange::DEFAULT_SIZE);
                if h.size.is_none_or(|s| s.covers(&actual_size)) {
                    vec![type_mismatch(
                        path,
                        original,
                        &Type::hash(ah.key.clone(), ah.value.clone(), None),
                    )]
                } else {
                    vec![size_mismatch(
                        path,
                        h.size.unwrap_or(IntRange::DEFAULT_SIZE),
                        actual_size,
                    )]
                }
            }
            _ => vec![type_mismatch(path, original, actual)],
        },
        Type::Tuple(tt) => {
            if let Type::Tuple(at) = actual {
                if at == tt {
                    return vec![];
                }
            }
            if tt.types.is_empty() && matches!(actual, Type::Array(_)) {
                return vec![];
            }
            let expected_size = tt.size_range();
            match actual {
                Type::Tuple(at) => {
                    let actual_size = at.size_range();
                    if expected_size.covers(&actual_size) {
                        let mut out = Vec::new();
                        if !tt.types.is_empty() {
                            for (i, a) in at.types.iter().enumerate() {
                                let adx = i.min(tt.types.len() - 1);
                                out.extend(desc(
                                    &tt.types[adx],
                                    a,
                                    &with(path, PathElement::Index(adx)),
                                ));
                            }
                        }
                        out
                    } else {
                        vec![size_mismatch(path, expected_size, actual_size)]
                    }
                }
                Type::Array(aa) => {
                    let actual_size = aa.size.unwrap_or(IntRange::DEFAULT_SIZE);
                    if expected_size.covers(&actual_size) {
                        let mut out = Vec::new();
                        for (i, e) in tt.types.iter().enumerate() {
                            out.extend(desc(e, &aa.element, &with(path, PathElement::Index(i))));
                        }
                        out
                    } else {
                        vec![size_mismatch(path, expected_size, actual_size)]
                    }
                }
                _ => vec![type_mismatch(path, original, actual)],
            }
        }
        Type::Array(arr) => match actual {
            Type::Tuple(at) => {
                let expected_size = arr.size.unwrap_or(IntRange::DEFAULT_SIZE);
                let actual_size = at.size.unwrap_or_else(|| {
                    let n = at.types.len() as i64;
                    IntRange::new(Some(n), Some(n))
                });
                if expected_size.covers(&actual_size) {
                    let mut out = Vec::new();
                    for (i, t) in at.types.iter().enumerate() {
                        if !assignable(&arr.element, t) {
                            out.extend(desc(&arr.element, t, &with(path, PathElement::Index(i))));
                        }
                    }
                    out
                } else {
                    vec![size_mismatch(path, expected_size, actual_size)]
                }
            }
            Type::Array(aa) => {
                let actual_size = aa.size.unwrap_or(IntRange::DEFAULT_SIZE);
                if arr.size.is_none_or(|s| s.covers(&actual_size)) {
                    vec![type_mismatch(
                        path,
                        original,
                        &Type::array(aa.element.clone(), None),
                    )]
                } else {
                    vec![size_mismatch(
                        path,
                        arr.size.unwrap_or(IntRange::DEFAULT_SIZE),
                        actual_size,
                    )]
                }
            }
            _ => vec![type_mismatch(path, original, actual)],
        },
        Type::Optional(inner) => {
            if matches!(actual, Type::Undef) {
                return vec![];
            }
            match inner {
                None => vec![],
                Some(inner) => {
                    let orig = if matches!(original, Type::Alias(_)) {
                        original
                    } else {
                        expected
                    };
                    internal(inner, orig, actual, path, d)
                }
            }
        }
        Type::Enum(_) | Type::Pattern(_) => vec![pattern_mismatch(path, original, actual)],
        Type::Alias(a) => {
            let r = normalize(&a.resolved());
            internal(&r, expected, actual, path, d)
        }
        _ => {
            if assignable(expected, actual) {
                vec![]
            } else {
                vec![type_mismatch(path, original, actual)]
            }
        }
    }
}

/// The range covering two expected sizes or counts, as Puppet merges them: the smaller
/// minimum (0 when absent) and the larger maximum (unbounded when either is).
trait MergeRange {
    fn merge(&self, o: &IntRange) -> IntRange;
}

impl MergeRange for IntRange {
    fn merge(&self, o: &IntRange) -> IntRange {
        IntRange::new(
            Some(self.min.unwrap_or(0).min(o.min.unwrap_or(0))),
            match (self.max, o.max) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            },
        )
    }
}

/// Whether `a` is of the class of `probe`, as Ruby's `is_a?`: a pattern mismatch is a
/// type mismatch too (`PatternMismatch < TypeMismatch` in Puppet).
fn same_class(a: &MismatchKind, probe: &MismatchKind) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(probe)
        || matches!(
            (a, probe),
            (MismatchKind::Pattern { .. }, MismatchKind::Type { .. })
        )
}

/// Merges the descriptions of several alternatives (Puppet's `merge_descriptions`): when every
/// alternative failed the same way at the same place, one merged mismatch is reported.
pub fn merge_descriptions(
    varying_path_position: usize,
    count: bool,
    variants: &[Vec<Mismatch>],
) -> Vec<Mismatch> {
    let mut descriptions: Vec<Mismatch> = variants.iter().flatten().cloned().collect();
    let size_probe = if count {
        MismatchKind::Count {
            expected: IntRange::UNBOUNDED,
            actual: IntRange::UNBOUNDED,
        }
    } else {
        MismatchKind::Size {
            expected: IntRange::UNBOUNDED,
            actual: IntRange::UNBOUNDED,
        }
    };
    let probes = [
        size_probe,
        MismatchKind::MissingRequiredBlock,
        MismatchKind::UnexpectedBlock,
        MismatchKind::Type {
            expected: Type::Any,
            actual: Type::Any,
        },
    ];
    for probe in probes.iter() {
        let ms: Vec<&Mismatch> = descriptions
            .iter()
            .filter(|m| same_class(&m.kind, probe))
            .collect();
        if ms.len() == variants.len() && !ms.is_empty() {
            let mut acc = Some(ms[0].clone());
            for m in &ms[1..] {
                acc = match acc {
                    Some(p) if p.canonical_path() == m.canonical_path() => Some(p.merge(m)),
                    _ => None,
                };
            }
            if let Some(g) = acc {
                descriptions = vec![g];
                break;
            }
        }
    }
    let mut uniq: Vec<Mismatch> = Vec::new();
    for d in descriptions {
        if !uniq
            .iter()
            .any(|u| u.canonical_path() == d.canonical_path() && u.kind == d.kind)
        {
            uniq.push(d);
        }
    }
    if uniq.len() == 1 {
        vec![uniq[0].chop_path(varying_path_position)]
    } else {
        uniq
    }
}

/// Puppet's `describe_mismatch(name, expected, actual)`: the joined text of all mismatches,
/// empty when `actual` is assignable to `expected`.
///
/// ```
/// use puppet_types::{describe_mismatch, Type};
/// let t = Type::optional(Type::any_string());
/// assert_eq!(describe_mismatch("", &t, &Type::integer(Some(1), Some(1))), "expects a value of type Undef or String, got Integer");
/// ```
pub fn describe_mismatch(name: &str, expected: &Type, actual: &Type) -> String {
    let errors = describe(expected, actual, &[PathElement::Subject(name.to_string())]);
    match errors.len() {
        0 => String::new(),
        1 => errors[0].format().trim().to_string(),
        _ => errors
            .iter()
            .map(|e| e.format())
            .collect::<Vec<_>>()
            .join("\n "),
    }
}

/// Describes why a value does not match a type (`None` when it does), using the detailed
/// inferred type of the value as Puppet does.
///
/// ```
/// use puppet_types::{mismatch::describe_value_mismatch, Type, Value};
/// let t = Type::integer(Some(1), Some(2));
/// assert_eq!(describe_value_mismatch("", &t, &Value::Integer(3)).unwrap(), "expects an Integer[1, 2] value, got Integer[3, 3]");
/// ```
pub fn describe_value_mismatch(name: &str, expected: &Type, value: &Value) -> Option<String> {
    if crate::is_instance(expected, value) {
        return None;
    }
    Some(describe_mismatch(name, expected, &infer_set(value)))
}
