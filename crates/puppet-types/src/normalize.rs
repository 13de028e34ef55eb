//! Normalisation: Puppet's `normalize`, which simplifies a type without changing what it
//! accepts (`Variant[Integer, Integer[1,2], Optional[String]]` becomes
//! `Optional[Variant[Integer, String]]`, `NotUndef[Integer]` becomes `Integer`).
//!
//! Only the rewrites Puppet 7.23 performs are done here; in particular a Variant member that
//! is assignable to another member is kept unless a merge rule removes it.

use crate::assign::assignable;
use crate::types::{FloatRange, IntRange, StringType, StructElement, TimeRange, TupleType, Type};
use std::sync::Arc;

/// Puppet's `normalize`.
///
/// ```
/// use puppet_types::{normalize, Type};
/// let t = Type::Variant(std::sync::Arc::new(vec![
///     Type::any_integer(),
///     Type::integer(Some(1), Some(2)),
///     Type::optional(Type::any_string()),
/// ]));
/// assert_eq!(normalize(&t).to_string(), "Optional[Variant[Integer, String]]");
/// ```
pub fn normalize(t: &Type) -> Type {
    norm(t, 0)
}

fn norm(t: &Type, depth: usize) -> Type {
    if depth > crate::assign::MAX_DEPTH {
        return t.clone();
    }
    let n = |x: &Type| norm(x, depth + 1);
    match t {
        Type::Collection(_) => Type::Collection(None),
        Type::Array(a) => {
            if a.element == Type::Any {
                Type::array_of_any()
            } else {
                Type::array(n(&a.element), a.size)
            }
        }
        Type::Hash(h) => {
            let empty = h.size.is_some_and(|s| s.min == Some(0) && s.max == Some(0));
            if empty || (h.key == Type::Any && h.value == Type::Any && h.size.is_none()) {
                t.clone()
            } else {
                Type::hash(n(&h.key), n(&h.value), h.size)
            }
        }
        Type::Tuple(tt) => Type::Tuple(Arc::new(TupleType {
            types: tt.types.iter().map(n).collect(),
            size: tt.size,
        })),
        Type::Struct(elems) => Type::structure(
            elems
                .iter()
                .map(|e| StructElement {
                    name: e.name.clone(),
                    key: e.key.clone(),
                    value: n(&e.value),
                })
                .collect(),
        ),
        Type::Callable(c) => Type::callable(
            c.params.as_ref().map(|p| TupleType {
                types: p.types.iter().map(n).collect(),
                size: p.size,
            }),
            c.block.as_ref().map(n),
            c.returns.as_ref().map(n),
        ),
        Type::Type(Some(x)) => Type::type_of(n(x)),
        Type::Iterable(Some(x)) => Type::Iterable(Some(Arc::new(n(x)))),
        Type::Iterator(Some(x)) => Type::Iterator(Some(Arc::new(n(x)))),
        Type::Sensitive(x) => Type::Sensitive(Arc::new(n(x))),
        Type::Optional(Some(x)) => {
            let inner = n(x);
            match inner {
                Type::NotUndef(None) => Type::Optional(Some(Arc::new(Type::Any))),
                Type::NotUndef(Some(y)) => norm(&Type::optional((*y).clone()), depth + 1),
                other if assignable(&other, &Type::Undef) => other,
                other => Type::optional(other),
            }
        }
        Type::NotUndef(Some(x)) => {
            let inner = n(x);
            match inner {
                Type::Optional(None) => Type::NotUndef(None),
                Type::Optional(Some(y)) => norm(&Type::not_undef((*y).clone()), depth + 1),
                other if !assignable(&other, &Type::Undef) => other,
                other => Type::not_undef(other),
            }
        }
        Type::Variant(vs) => norm_variant(vs, depth),
        other => other.clone(),
    }
}

fn norm_variant(vs: &[Type], depth: usize) -> Type {
    if vs.is_empty() {
        return Type::Variant(Arc::new(vec![]));
    }
    let types: Vec<Type> = vs.iter().map(|t| norm(t, depth + 1)).collect();
    if types.len() == 1 {
        return types[0].clone();
    }
    if types
        .iter()
        .any(|t| matches!(t, Type::Undef | Type::Optional(_)))
    {
        let rest: Vec<Type> = types
            .into_iter()
            .filter(|t| !matches!(t, Type::Undef))
            .map(|t| match t {
                Type::Optional(Some(x)) => (*x).clone(),
                Type::Optional(None) => Type::Any,
                other => other,
            })
            .collect();
        let inner = if rest.is_empty() {
            Type::Variant(Arc::new(vec![]))
        } else {
            Type::variant_of(rest)
        };
        return norm(&Type::optional(inner), depth + 1);
    }
    // Flatten nested variants.
    let mut flat: Vec<Type> = Vec::new();
    for t in types {
        match t {
            Type::Variant(inner) => flat.extend(inner.iter().cloned()),
            other => flat.push(other),
        }
    }
    let mut types = swap_not_undefs(flat, depth);
    types = merge_enums(types);
    types = merge_patterns(types);
    types = merge_semvers(types);
    types = merge_ranges(types, RangeKind::Integer);
    types = merge_ranges(types, RangeKind::Float);
    types = merge_ranges(types, RangeKind::Timespan);
    types = merge_ranges(types, RangeKind::Timestamp);
    if types.len() == 1 {
        types.pop().unwrap_or(Type::Any)
    } else {
        Type::variant_of(types)
    }
}

fn swap_not_undefs(types: Vec<Type>, depth: usize) -> Vec<Type> {
    if types.len() < 2 {
        return types;
    }
    let (nu, mut others): (Vec<Type>, Vec<Type>) = types
        .into_iter()
        .partition(|t| matches!(t, Type::NotUndef(_)));
    if nu.len() > 1 {
        let inner: Vec<Type> = nu
            .into_iter()
            .map(|t| match t {
                Type::NotUndef(Some(x)) => (*x).clone(),
                _ => Type::Any,
            })
            .collect();
        others.push(Type::not_undef(norm(&Type::variant_of(inner), depth + 1)));
        others
    } else {
        let mut all = others;
        all.splice(0..0, nu);
        all
    }
}

fn partition_keep_order(types: Vec<Type>, pred: impl Fn(&Type) -> bool) -> (Vec<Type>, Vec<Type>) {
    types.into_iter().partition(|t| pred(t))
}

fn merge_enums(types: Vec<Type>) -> Vec<Type> {
    let mut types = types;
    if types.len() > 1 {
        let is_cs = |t: &Type| match t {
            Type::Enum(e) => !e.values.is_empty() && !e.case_insensitive,
            Type::String(StringType::Value(_)) => true,
            _ => false,
        };
        if types.iter().filter(|t| is_cs(t)).count() > 1 {
            let (enums, mut others) = partition_keep_order(types, is_cs);
            let mut vals = Vec::new();
            for e in enums {
                match e {
                    Type::Enum(e) => vals.extend(e.values.iter().cloned()),
                    Type::String(StringType::Value(v)) => vals.push(v),
                    _ => {}
                }
            }
            others.push(Type::enumeration(vals, false));
            types = others;
        }
    }
    if types.len() > 1 {
        let is_ci =
            |t: &Type| matches!(t, Type::Enum(e) if !e.values.is_empty() && e.case_insensitive);
        if types.iter().filter(|t| is_ci(t)).count() > 1 {
            let (enums, mut others) = partition_keep_order(types, is_ci);
            let mut vals = Vec::new();
            for e in enums {
                if let Type::Enum(e) = e {
                    vals.extend(
                        e.values
                            .iter()
                            .map(|v| smol_str::SmolStr::new(v.to_lowercase())),
                    );
                }
            }
            others.push(Type::enumeration(vals, true));
            types = others;
        }
    }
    types
}

fn merge_patterns(types: Vec<Type>) -> Vec<Type> {
    if types.len() > 1
        && types
            .iter()
            .filter(|t| matches!(t, Type::Pattern(_)))
            .count()
            > 1
    {
        let (ps, mut others) = partition_keep_order(types, |t| matches!(t, Type::Pattern(_)));
        let mut all = Vec::new();
        for p in ps {
            if let Type::Pattern(p) = p {
                for r in p.iter() {
                    if !all.contains(r) {
                        all.push(r.clone());
                    }
                }
            }
        }
        others.push(Type::Pattern(Arc::new(all)));
        return others;
    }
    types
}

fn merge_semvers(types: Vec<Type>) -> Vec<Type> {
    if types.len() > 1
        && types
            .iter()
            .filter(|t| matches!(t, Type::SemVer(_)))
            .count()
            > 1
    {
        let (vs, others) = partition_keep_order(types, |t| matches!(t, Type::SemVer(_)));
        let mut ranges = Vec::new();
        for v in vs {
            if let Type::SemVer(r) = v {
                ranges.extend(r.iter().cloned());
            }
        }
        let mut out = vec![Type::SemVer(Arc::new(ranges))];
        out.extend(others);
        return out;
    }
    types
}

#[derive(Clone, Copy)]
enum RangeKind {
    Integer,
    Float,
    Timespan,
    Timestamp,
}

fn kind_matches(k: RangeKind, t: &Type) -> bool {
    matches!(
        (k, t),
        (RangeKind::Integer, Type::Integer(_))
            | (RangeKind::Float, Type::Float(_))
            | (RangeKind::Timespan, Type::Timespan(_))
            | (RangeKind::Timestamp, Type::Timestamp(_))
    )
}

/// Merges two ranges of the same kind when they overlap (or, for integers, touch).
fn merge_two(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        (Type::Integer(x), Type::Integer(y)) => {
            let overlap = !(x.hi() < y.lo() || y.hi() < x.lo());
            let adjacent =
                x.hi().checked_add(1) == Some(y.lo()) || y.hi().checked_add(1) == Some(x.lo());
            (overlap || adjacent).then(|| {
                Type::Integer(IntRange::new(
                    if x.lo() <= y.lo() { x.min } else { y.min },
                    if x.hi() >= y.hi() { x.max } else { y.max },
                ))
            })
        }
        (Type::Float(x), Type::Float(y)) => {
            let overlap = !(x.max < y.min || y.max < x.min);
            overlap.then(|| {
                Type::Float(FloatRange {
                    min: x.min.min(y.min),
                    max: x.max.max(y.max),
                })
            })
        }
        (Type::Timespan(x), Type::Timespan(y)) => merge_time(x, y).map(Type::Timespan),
        (Type::Timestamp(x), Type::Timestamp(y)) => merge_time(x, y).map(Type::Timestamp),
        _ => None,
    }
}

fn merge_time<T: Copy + Ord>(x: &TimeRange<T>, y: &TimeRange<T>) -> Option<TimeRange<T>> {
    let lo_le = |a: Option<T>, b: Option<T>| match (a, b) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => a <= b,
    };
    let hi_ge = |a: Option<T>, b: Option<T>| match (a, b) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(a), Some(b)) => a >= b,
    };
    // Disjoint when one ends before the other starts.
    let before = |a: &TimeRange<T>, b: &TimeRange<T>| match (a.max, b.min) {
        (Some(m), Some(n)) => m < n,
        _ => false,
    };
    if before(x, y) || before(y, x) {
        return None;
    }
    Some(TimeRange {
        min: if lo_le(x.min, y.min) { x.min } else { y.min },
        max: if hi_ge(x.max, y.max) { x.max } else { y.max },
    })
}

fn merge_ranges(types: Vec<Type>, kind: RangeKind) -> Vec<Type> {
    if types.len() < 2 || types.iter().filter(|t| kind_matches(kind, t)).count() < 2 {
        return types;
    }
    let (mut ranges, others) = partition_keep_order(types, |t| kind_matches(kind, t));
    let mut result = Vec::new();
    while let Some(x) = ranges.pop() {
        let mut unmerged = Vec::new();
        let mut memo = x;
        for y in ranges.drain(..) {
            match merge_two(&memo, &y) {
                Some(m) => memo = m,
                None => unmerged.push(y),
            }
        }
        result.push(memo);
        ranges = unmerged;
    }
    result.extend(others);
    result
}
