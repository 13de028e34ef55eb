//! Type inference (`type($v)` in its three forms), generalisation and the common supertype.
//!
//! [`infer`] is Puppet's `TypeCalculator.infer` (what `type($v, reduced)` shows), [`infer_set`]
//! the detailed form used by `type($v)` and by mismatch messages (Tuples and Structs instead of
//! Arrays and Hashes), and [`generalize`] drops value-specific parameters (what
//! `type($v, generalized)` shows after `infer`). [`common_type`] is the least common supertype
//! that Puppet uses to reduce element types. Not here: assignability and normalisation.

use crate::assign::assignable;
use crate::semver::VersionRange;
use crate::time::Timestamp;
use crate::types::{FloatRange, IntRange, StringType, StructElement, TimeRange, Type};
use crate::value::Value;
use std::sync::Arc;

fn exact(n: usize) -> Option<IntRange> {
    let n = n as i64;
    Some(IntRange::new(Some(n), Some(n)))
}

/// Puppet's `infer`: `[1, 2]` is `Array[Integer[1, 2], 2, 2]`.
///
/// ```
/// use puppet_types::{infer, Value};
/// let v = Value::array(vec![Value::Integer(1), Value::string("a")]);
/// assert_eq!(infer(&v).to_string(), "Array[ScalarData, 2, 2]");
/// ```
pub fn infer(v: &Value) -> Type {
    match v {
        Value::Undef => Type::Undef,
        Value::Default => Type::Default,
        Value::Boolean(b) => Type::Boolean(Some(*b)),
        Value::Integer(i) => Type::integer(Some(*i), Some(*i)),
        Value::Float(f) => Type::Float(FloatRange { min: *f, max: *f }),
        Value::String(s) => Type::String(StringType::Value(s.clone().into())),
        Value::Regexp(r) => Type::Regexp(Some(r.clone())),
        Value::Array(a) => {
            if a.is_empty() {
                Type::array(Type::Unit, exact(0))
            } else {
                let t = reduce(a.iter().map(infer));
                Type::array(t, exact(a.len()))
            }
        }
        Value::Hash(h) => {
            if h.is_empty() {
                Type::hash(Type::Unit, Type::Unit, exact(0))
            } else {
                let k = reduce(h.keys().map(infer));
                let val = reduce(h.values().map(infer));
                Type::hash(k, val, exact(h.len()))
            }
        }
        Value::Type(t) => Type::type_of(t.clone()),
        Value::Sensitive(x) => Type::sensitive(infer(x)),
        Value::SemVer(_) => Type::SemVer(Arc::new(vec![])),
        Value::SemVerRange(_) => Type::SemVerRange,
        Value::Timespan(t) => Type::Timespan(TimeRange {
            min: Some(*t),
            max: Some(*t),
        }),
        Value::Timestamp(t) => Type::Timestamp(TimeRange::<Timestamp> {
            min: Some(*t),
            max: Some(*t),
        }),
        Value::Binary(_) => Type::Binary,
        Value::Uri(u) => {
            let m = u.to_parameter_map();
            Type::Uri(if m.is_empty() {
                None
            } else {
                Some(Arc::new(m))
            })
        }
        Value::Iterator(it) => Type::Iterator(Some(Arc::new(it.element_type.clone()))),
        Value::Object(o) => crate::object::infer_object(o),
    }
}

fn reduce(types: impl Iterator<Item = Type>) -> Type {
    let mut acc: Option<Type> = None;
    for t in types {
        acc = Some(match acc {
            None => t,
            Some(a) => common_type(&a, &t),
        });
    }
    acc.unwrap_or(Type::Unit)
}

/// Puppet's `infer_set`, what `type($v)` prints: `[1, 'a']` is `Tuple[Integer[1, 1], String]`,
/// `{a => 1}` is `Struct[{'a' => Integer[1, 1]}]`.
///
/// ```
/// use puppet_types::{infer_set, Value};
/// let v = Value::hash([(Value::string("a"), Value::Undef)]);
/// assert_eq!(infer_set(&v).to_string(), "Struct[{NotUndef['a'] => Undef}]");
/// ```
pub fn infer_set(v: &Value) -> Type {
    match v {
        Value::Array(a) => {
            if a.is_empty() {
                Type::array(Type::Unit, exact(0))
            } else {
                Type::tuple(a.iter().map(infer_set).collect(), None)
            }
        }
        Value::Hash(h) => {
            if h.is_empty() {
                Type::hash(Type::Unit, Type::Unit, exact(0))
            } else if h
                .keys()
                .all(|k| matches!(k, Value::String(s) if !s.is_empty()))
            {
                Type::structure(
                    h.iter()
                        .map(|(k, x)| {
                            let name = match k {
                                Value::String(s) => s.clone(),
                                _ => Default::default(),
                            };
                            StructElement {
                                key: Type::String(StringType::Value(name.clone().into())),
                                name: name.into(),
                                value: infer_set(x),
                            }
                        })
                        .collect(),
                )
            } else {
                let k = Type::variant_of(h.keys().map(infer_set).collect());
                let val = Type::variant_of(h.values().map(infer_set).collect());
                Type::hash(k, val, exact(h.len()))
            }
        }
        Value::SemVer(ver) => Type::SemVer(Arc::new(vec![VersionRange::between(
            Some((**ver).clone()),
            Some((**ver).clone()),
            false,
        )])),
        other => infer(other),
    }
}

/// The Puppet type of a value in the form `type()` gives for its optional second argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferMode {
    /// `type($v)` / `type($v, detailed)`: [`infer_set`].
    Detailed,
    /// `type($v, reduced)`: [`infer`].
    Reduced,
    /// `type($v, generalized)`: [`generalize`] of [`infer`].
    Generalized,
}

/// `type($v, mode)`.
///
/// ```
/// use puppet_types::{type_of_value, InferMode, Value};
/// assert_eq!(type_of_value(&Value::array(vec![]), InferMode::Generalized).to_string(), "Array[Unit]");
/// ```
pub fn type_of_value(v: &Value, mode: InferMode) -> Type {
    match mode {
        InferMode::Detailed => infer_set(v),
        InferMode::Reduced => infer(v),
        InferMode::Generalized => generalize(&infer(v)),
    }
}

/// Drops value-specific parameters: `Integer[1, 1]` becomes `Integer`, `Array[String, 2, 2]`
/// becomes `Array[String]`.
pub fn generalize(t: &Type) -> Type {
    match t {
        Type::Integer(_) => Type::any_integer(),
        Type::Float(_) => Type::any_float(),
        Type::String(_) => Type::any_string(),
        Type::Boolean(_) => Type::Boolean(None),
        Type::Enum(e) => {
            if e.values.is_empty() {
                Type::any_string()
            } else {
                let lens = e.values.iter().map(|v| v.chars().count() as i64);
                let min = lens.clone().min();
                let max = lens.max();
                Type::String(StringType::Size(Some(IntRange::new(min, max))))
            }
        }
        Type::Collection(_) => Type::Collection(None),
        Type::Array(a) => {
            if a.element == Type::Any {
                Type::array_of_any()
            } else {
                Type::array(generalize(&a.element), None)
            }
        }
        Type::Hash(h) => {
            let is_empty = h.size.is_some_and(|s| s.min == Some(0) && s.max == Some(0));
            if is_empty || (h.key == Type::Any && h.value == Type::Any && h.size.is_none()) {
                t.clone()
            } else {
                Type::hash(generalize(&h.key), generalize(&h.value), None)
            }
        }
        Type::Tuple(tt) => {
            if tt.types.is_empty() && tt.size.is_none() {
                t.clone()
            } else {
                Type::Tuple(Arc::new(crate::types::TupleType {
                    types: tt.types.iter().map(generalize).collect(),
                    size: tt.size,
                }))
            }
        }
        Type::Struct(elems) => Type::structure(
            elems
                .iter()
                .map(|e| StructElement {
                    name: e.name.clone(),
                    key: e.key.clone(),
                    value: generalize(&e.value),
                })
                .collect(),
        ),
        Type::Variant(vs) => {
            if vs.is_empty() {
                t.clone()
            } else {
                Type::variant_of(vs.iter().map(generalize).collect())
            }
        }
        Type::Type(Some(x)) => Type::type_of(generalize(x)),
        Type::Optional(Some(x)) => Type::optional(generalize(x)),
        Type::NotUndef(Some(x)) => Type::not_undef(generalize(x)),
        Type::Iterable(Some(x)) => Type::Iterable(Some(Arc::new(generalize(x)))),
        Type::Iterator(Some(x)) => Type::Iterator(Some(Arc::new(generalize(x)))),
        Type::Sensitive(x) => Type::Sensitive(Arc::new(generalize(x))),
        Type::Callable(c) => Type::callable(
            c.params.as_ref().map(|p| crate::types::TupleType {
                types: p.types.iter().map(generalize).collect(),
                size: p.size,
            }),
            c.block.as_ref().map(generalize),
            c.returns.as_ref().map(generalize),
        ),
        Type::Timespan(_) => Type::Timespan(TimeRange::default()),
        Type::Timestamp(_) => Type::Timestamp(TimeRange::default()),
        Type::SemVer(_) => Type::SemVer(Arc::new(vec![])),
        Type::Uri(_) => Type::Uri(None),
        Type::Object(o) => match &o.ext {
            Some(e) => Type::Object(e.base.clone()),
            None => t.clone(),
        },
        other => other.clone(),
    }
}

/// The least common supertype of two types, as Puppet reduces element types.
///
/// ```
/// use puppet_types::{common_type, Type};
/// let t = common_type(&Type::integer(Some(1), Some(1)), &Type::integer(Some(5), Some(5)));
/// assert_eq!(t.to_string(), "Integer[1, 5]");
/// ```
pub fn common_type(t1: &Type, t2: &Type) -> Type {
    use Type as T;
    if matches!(t1, T::Undef) {
        return t2.clone();
    }
    if matches!(t2, T::Undef) {
        return t1.clone();
    }
    if matches!(t1, T::Unit) {
        return t2.clone();
    }
    if matches!(t2, T::Unit) {
        return t1.clone();
    }
    if assignable(t1, t2) {
        return t1.clone();
    }
    if assignable(t2, t1) {
        return t2.clone();
    }
    match (t1, t2) {
        (T::Array(a), T::Array(b)) => {
            return Type::array(common_type(&a.element, &b.element), None)
        }
        (T::Hash(a), T::Hash(b)) => {
            return Type::hash(
                common_type(&a.key, &b.key),
                common_type(&a.value, &b.value),
                None,
            )
        }
        (T::Class(_), T::Class(_)) => return Type::Class(None),
        (T::Resource(a), T::Resource(b)) => {
            return if a.type_name == b.type_name {
                Type::resource(a.type_name.as_deref(), None)
            } else {
                Type::resource(None, None)
            }
        }
        (T::Integer(a), T::Integer(b)) => {
            let min = if a.lo() <= b.lo() { a.min } else { b.min };
            let max = if a.hi() >= b.hi() { a.max } else { b.max };
            return Type::Integer(IntRange::new(min, max));
        }
        (T::Float(a), T::Float(b)) => {
            return Type::Float(FloatRange {
                min: a.min.min(b.min),
                max: a.max.max(b.max),
            })
        }
        (T::String(a), T::String(_) | T::Enum(_)) => {
            if let T::Enum(e) = t2 {
                return match a.value() {
                    None => Type::enumeration(vec![], false),
                    Some(v) => Type::enumeration(e.values.iter().cloned().chain([v.into()]), false),
                };
            }
            let T::String(b) = t2 else {
                return Type::any_string();
            };
            if a.size().is_none() || b.size().is_none() {
                return match (a.value(), b.value()) {
                    (Some(x), Some(y)) => Type::enumeration([x.into(), y.into()], false),
                    _ => Type::any_string(),
                };
            }
            let (Some(sa), Some(sb)) = (a.size(), b.size()) else {
                return Type::any_string();
            };
            return match common_type(&Type::Integer(sa), &Type::Integer(sb)) {
                Type::Integer(r) => Type::string_sized(r),
                _ => Type::any_string(),
            };
        }
        (T::Pattern(a), T::Pattern(b)) => {
            let mut ps = (**a).clone();
            for p in b.iter() {
                if !ps.contains(p) {
                    ps.push(p.clone());
                }
            }
            return Type::Pattern(Arc::new(ps));
        }
        (T::Enum(a), T::String(_) | T::Enum(_)) => {
            if let T::Enum(b) = t2 {
                return Type::enumeration(a.values.iter().chain(b.values.iter()).cloned(), false);
            }
            let T::String(b) = t2 else {
                return Type::any_string();
            };
            return match b.value() {
                None => Type::enumeration(vec![], false),
                Some(v) => Type::enumeration(a.values.iter().cloned().chain([v.into()]), false),
            };
        }
        (T::Variant(a), T::Variant(b)) => {
            let mut all = (**a).clone();
            for t in b.iter() {
                if !all.contains(t) {
                    all.push(t.clone());
                }
            }
            return Type::variant_of(all);
        }
        (T::Regexp(_), T::Regexp(_)) => return Type::Regexp(None),
        (T::Callable(_), T::Callable(_)) => return Type::any_callable(),
        _ => {}
    }
    let both = |t: &Type| assignable(t, t1) && assignable(t, t2);
    if both(&T::Numeric) {
        return T::Numeric;
    }
    if both(&T::ScalarData) {
        return T::ScalarData;
    }
    if both(&T::Scalar) {
        return T::Scalar;
    }
    if both(&Type::data()) {
        return Type::data();
    }
    if let (T::Type(a), T::Type(b)) = (t1, t2) {
        let inner = match (a, b) {
            (Some(a), Some(b)) => common_type(a, b),
            _ => Type::Any,
        };
        return Type::type_of(inner);
    }
    if both(&Type::rich_data()) {
        return Type::rich_data();
    }
    if let (T::Runtime(a), T::Runtime(b)) = (t1, t2) {
        if a == b {
            return t1.clone();
        }
    }
    T::Any
}
