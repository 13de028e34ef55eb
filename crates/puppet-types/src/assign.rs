//! Assignability (`b <= a`) and instance-of (`$v =~ T`) with Puppet 7's rules.
//!
//! This is a transcription of the *rules* of Puppet's `_assignable?` and `instance?` methods
//! into two recursive functions over [`Type`]. Recursive aliases are handled with a depth
//! guard: a comparison of an alias with itself succeeds at once, and recursion deeper than
//! [`MAX_DEPTH`] answers `false` instead of overflowing the stack. Not here: inference
//! (`infer`), normalisation and the mismatch texts.

use crate::infer::{generalize, infer};
use crate::types::{FloatRange, IntRange, StringType, TupleType, Type};
use crate::value::Value;
use std::sync::{Arc, OnceLock};

/// How deep nested types and aliases may recurse before an answer of `false`.
pub const MAX_DEPTH: usize = 200;

/// True when a value of type `b` may be assigned to `a` (Puppet's `a.assignable?(b)`, the
/// language's `b <= a`).
///
/// ```
/// use puppet_types::{assignable, Type};
/// assert!(assignable(&Type::Numeric, &Type::integer(Some(1), Some(2))));
/// assert!(!assignable(&Type::any_integer(), &Type::Numeric));
/// ```
pub fn assignable(a: &Type, b: &Type) -> bool {
    Checker::default().assignable(a, b)
}

/// True when `v` is an instance of `t` (the language's `$v =~ T`).
///
/// ```
/// use puppet_types::{is_instance, Type, Value};
/// assert!(is_instance(&Type::optional(Type::any_string()), &Value::Undef));
/// assert!(!is_instance(&Type::any_integer(), &Value::Float(1.0)));
/// ```
pub fn is_instance(t: &Type, v: &Value) -> bool {
    Checker::default().instance(t, v)
}

#[derive(Default)]
struct Checker {
    depth: usize,
    /// Alias comparisons in progress; meeting one again means both sides recurse the same way,
    /// which Puppet answers with `true`.
    alias_pairs: Vec<(String, String)>,
}

/// The text that identifies a type in the alias recursion guard (aliases by name, unlike
/// `Display`, which expands aliases of Object types).
fn alias_key(t: &Type) -> String {
    let mut s = String::from(if matches!(t, Type::Alias(_)) { "=" } else { "" });
    crate::format::type_string(&mut s, t);
    s
}

fn undef() -> &'static Type {
    &Type::Undef
}

fn int_covers(a: &IntRange, b: &IntRange) -> bool {
    a.covers(b)
}

fn float_covers(a: &FloatRange, b: &FloatRange) -> bool {
    a.min <= b.min && a.max >= b.max
}

fn size_or_default(s: Option<IntRange>) -> IntRange {
    s.unwrap_or(IntRange::DEFAULT_SIZE)
}

impl Checker {
    fn enter(&mut self) -> bool {
        self.depth += 1;
        self.depth <= MAX_DEPTH
    }

    fn assignable(&mut self, a: &Type, b: &Type) -> bool {
        if !self.enter() {
            self.depth -= 1;
            return false;
        }
        let r = self.assignable_inner(a, b);
        self.depth -= 1;
        r
    }

    fn assignable_inner(&mut self, a: &Type, b: &Type) -> bool {
        // Identical aliases (also the recursive case) are assignable at once.
        if let (Type::Alias(x), Type::Alias(y)) = (a, b) {
            if x == y {
                return true;
            }
        }
        if matches!(a, Type::Alias(_)) || matches!(b, Type::Alias(_)) {
            let key = (alias_key(a), alias_key(b));
            if self.alias_pairs.contains(&key) {
                return true;
            }
            self.alias_pairs.push(key);
            let r = self.assignable_dispatch(a, b);
            self.alias_pairs.pop();
            return r;
        }
        self.assignable_dispatch(a, b)
    }

    fn assignable_dispatch(&mut self, a: &Type, b: &Type) -> bool {
        match a {
            Type::Unit => return true,
            Type::Variant(vs) => {
                if *b == Type::Undef && vs.is_empty() {
                    return false;
                }
                if let Type::Variant(bs) = b {
                    if vs.is_empty() {
                        return true;
                    }
                    return !bs.is_empty() && bs.iter().all(|bt| self.generic(a, bt));
                }
                return self.generic(a, b);
            }
            _ => {}
        }
        self.generic(a, b)
    }

    /// PAnyType#assignable?: dispatch on the right-hand side first.
    fn generic(&mut self, a: &Type, b: &Type) -> bool {
        match b {
            Type::Unit => true,
            Type::Alias(al) => {
                let r = al.resolved();
                self.assignable(a, &r)
            }
            Type::Variant(bs) => {
                if *a == Type::Any {
                    return true;
                }
                if matches!(a, Type::NotUndef(_)) && bs.is_empty() {
                    return self.specific(a, b);
                }
                !bs.is_empty() && bs.iter().all(|bt| self.assignable(a, bt))
            }
            Type::Optional(o) => {
                self.assignable(a, undef()) && o.as_ref().is_none_or(|ot| self.assignable(a, ot))
            }
            Type::NotUndef(o) => match o {
                Some(ot) if !self.assignable(ot, undef()) => self.assignable(a, ot),
                _ => self.specific(a, b),
            },
            _ => self.specific(a, b),
        }
    }

    /// The per-type `_assignable?` rules.
    fn specific(&mut self, a: &Type, b: &Type) -> bool {
        use Type as T;
        match a {
            T::Any | T::Unit => true,
            T::Alias(al) => {
                let r = al.resolved();
                self.assignable(&r, b)
            }
            T::Variant(vs) => vs.iter().any(|v| self.assignable(v, b)),
            T::Undef => matches!(b, T::Undef),
            T::Default => matches!(b, T::Default),
            T::NotUndef(t) => {
                !self.assignable(b, undef()) && t.as_ref().is_none_or(|t| self.assignable(t, b))
            }
            T::Optional(t) => match b {
                T::Undef => true,
                _ => match t {
                    None => true,
                    Some(t) => match b {
                        T::Optional(Some(bo)) => self.assignable(t, bo),
                        T::Optional(None) => self.assignable(t, &T::Any),
                        _ => self.assignable(t, b),
                    },
                },
            },
            T::Boolean(v) => matches!(b, T::Boolean(bv) if v.is_none() || v == bv),
            T::Numeric => matches!(b, T::Numeric | T::Integer(_) | T::Float(_)),
            T::Integer(r) => matches!(b, T::Integer(br) if int_covers(r, br)),
            T::Float(r) => matches!(b, T::Float(br) if float_covers(r, br)),
            T::Scalar => {
                matches!(b, T::Scalar | T::ScalarData)
                    || self.assignable(&T::any_string(), b)
                    || self.assignable(&T::any_integer(), b)
                    || self.assignable(&T::any_float(), b)
                    || self.assignable(&T::Boolean(None), b)
                    || self.assignable(&T::Regexp(None), b)
                    || self.assignable(&T::SemVer(Arc::new(vec![])), b)
                    || self.assignable(&T::SemVerRange, b)
                    || self.assignable(&T::Timespan(Default::default()), b)
                    || self.assignable(&T::Timestamp(Default::default()), b)
                    || matches!(b, T::Numeric)
            }
            T::ScalarData => {
                matches!(b, T::ScalarData)
                    || self.assignable(&T::any_string(), b)
                    || self.assignable(&T::any_integer(), b)
                    || self.assignable(&T::any_float(), b)
                    || self.assignable(&T::Boolean(None), b)
                    || matches!(b, T::Numeric)
            }
            T::String(s) => string_assignable(s, b),
            T::Enum(e) => {
                if let T::Enum(be) = b {
                    if be == e {
                        return true;
                    }
                }
                if e.values.is_empty() && matches!(b, T::String(_) | T::Enum(_) | T::Pattern(_)) {
                    return true;
                }
                match b {
                    T::String(StringType::Value(v)) => enum_has(e, v),
                    T::Enum(be) => {
                        !be.values.is_empty()
                            && (e.case_insensitive || !be.case_insensitive)
                            && be.values.iter().all(|v| enum_has(e, v))
                    }
                    _ => false,
                }
            }
            T::Pattern(ps) => {
                if let T::Pattern(bp) = b {
                    if bp == ps {
                        return true;
                    }
                }
                match b {
                    T::String(s) => match s.value() {
                        None => ps.is_empty(),
                        Some(v) => ps.is_empty() || ps.iter().any(|p| p.is_match(v)),
                    },
                    T::Enum(e) => {
                        if e.values.is_empty() {
                            ps.is_empty()
                        } else {
                            ps.is_empty()
                                || e.values.iter().all(|v| ps.iter().any(|p| p.is_match(v)))
                        }
                    }
                    T::Pattern(_) => ps.is_empty(),
                    _ => false,
                }
            }
            T::Regexp(r) => match b {
                T::Regexp(br) => r.is_none() || r == br,
                _ => false,
            },
            T::Collection(size) => {
                let s = size_or_default(*size);
                match b {
                    T::Collection(bs) => int_covers(&s, &size_or_default(*bs)),
                    T::Array(ba) => int_covers(&s, &size_or_default(ba.size)),
                    T::Hash(bh) => int_covers(&s, &size_or_default(bh.size)),
                    T::Tuple(bt) => int_covers(&s, &tuple_size_for_collection(bt)),
                    T::Struct(elems) => {
                        let n = elems.len() as i64;
                        int_covers(&s, &IntRange::new(Some(n), Some(n)))
                    }
                    _ => false,
                }
            }
            T::Array(arr) => match b {
                T::Tuple(bt) => {
                    let size_s = size_or_default(arr.size);
                    int_covers(&size_s, &tuple_size_for_collection(bt))
                        && bt.types.iter().all(|ot| self.assignable(&arr.element, ot))
                }
                T::Array(ba) => {
                    int_covers(&size_or_default(arr.size), &size_or_default(ba.size))
                        && self.assignable(&arr.element, &ba.element)
                }
                _ => false,
            },
            T::Hash(h) => match b {
                T::Hash(bh) => {
                    let bh_empty = bh
                        .size
                        .is_some_and(|s| s.min == Some(0) && s.max == Some(0));
                    if h.size.is_none_or(|s| s.min == Some(0) || s.min.is_none()) && bh_empty {
                        return true;
                    }
                    self.assignable(&h.key, &bh.key)
                        && self.assignable(&h.value, &bh.value)
                        && int_covers(&size_or_default(h.size), &size_or_default(bh.size))
                }
                T::Struct(elems) => {
                    size_or_default(h.size).contains(elems.len() as i128)
                        && elems.iter().all(|e| {
                            self.instance(&h.key, &Value::String(e.name.clone().into()))
                                && self.assignable(&h.value, &e.value)
                        })
                }
                _ => false,
            },
            T::Tuple(t) => self.tuple_assignable(t, b),
            T::Struct(elems) => match b {
                T::Struct(belems) => {
                    let mut matched = 0;
                    let ok =
                        elems
                            .iter()
                            .all(|e1| match belems.iter().find(|e2| e2.name == e1.name) {
                                None => self.assignable(&e1.key, undef()),
                                Some(e2) => {
                                    matched += 1;
                                    self.assignable(&e1.key, &e2.key)
                                        && self.assignable(&e1.value, &e2.value)
                                }
                            });
                    ok && matched == belems.len()
                }
                T::Hash(bh) => {
                    let mut required = 0i64;
                    let ok = elems.iter().all(|e| {
                        if self.assignable(&e.key, undef()) {
                            true
                        } else {
                            required += 1;
                            self.assignable(&e.value, &bh.value)
                                && self.assignable(&generalize(&e.key), &bh.key)
                        }
                    });
                    ok && int_covers(
                        &IntRange::new(Some(required), Some(elems.len() as i64)),
                        &size_or_default(bh.size),
                    )
                }
                _ => false,
            },
            T::Type(t) => match b {
                T::Type(bt) => match (t, bt) {
                    (None, _) => true,
                    (Some(_), None) => false,
                    (Some(t), Some(bt)) => self.assignable(t, bt),
                },
                _ => false,
            },
            T::CatalogEntry => matches!(b, T::CatalogEntry | T::Class(_) | T::Resource(_)),
            T::Class(n) => match b {
                T::Class(bn) => n.is_none() || n == bn,
                _ => false,
            },
            T::Resource(r) => match b {
                T::Resource(br) => match &r.type_name {
                    None => true,
                    Some(name) => {
                        br.type_name
                            .as_ref()
                            .is_some_and(|bn| bn.eq_ignore_ascii_case(name))
                            && (r.title.is_none() || r.title == br.title)
                    }
                },
                _ => false,
            },
            T::Callable(c) => match b {
                T::Callable(bc) => {
                    if let Some(rt) = &c.returns {
                        if !self.assignable(rt, bc.returns.as_ref().unwrap_or(&T::Any)) {
                            return false;
                        }
                    }
                    let Some(params) = &c.params else { return true };
                    let Some(bparams) = &bc.params else {
                        return false;
                    };
                    if !self.tuple_assignable(bparams, &T::Tuple(Arc::new(params.clone()))) {
                        return false;
                    }
                    let this_block = c.block.clone().unwrap_or(T::Undef);
                    let that_block = bc.block.clone().unwrap_or(T::Undef);
                    self.assignable(&that_block, &this_block)
                }
                _ => false,
            },
            T::Iterable(t) => {
                if t.as_ref().is_none_or(|t| self.assignable(t, &T::Any)) {
                    is_iterable(b)
                } else {
                    match iterable_type(b) {
                        Some(T::Iterable(Some(et))) => {
                            self.assignable(t.as_ref().map_or(&T::Any, |v| v), &et)
                        }
                        _ => false,
                    }
                }
            }
            T::Iterator(t) => match b {
                T::Iterator(bt) => match t {
                    None => true,
                    Some(t) => self.assignable(t, bt.as_ref().map_or(&T::Any, |v| v)),
                },
                _ => false,
            },
            T::Sensitive(t) => match b {
                T::Sensitive(bt) => self.assignable(t, bt),
                _ => false,
            },
            T::SemVer(ranges) => match b {
                T::SemVer(branges) => {
                    if ranges.is_empty() {
                        return true;
                    }
                    if branges.is_empty() {
                        return false;
                    }
                    branges
                        .iter()
                        .all(|br| ranges.iter().any(|r| br.covered_by(r)))
                }
                _ => false,
            },
            T::SemVerRange => matches!(b, T::SemVerRange),
            T::Timespan(r) => matches!(b, T::Timespan(br) if r.covers(br)),
            T::Timestamp(r) => matches!(b, T::Timestamp(br) if r.covers(br)),
            T::Binary => matches!(b, T::Binary),
            T::Uri(p) => match b {
                T::Uri(bp) => match p {
                    None => true,
                    Some(p) => {
                        let empty = indexmap::IndexMap::new();
                        let bp = bp.as_deref().unwrap_or(&empty);
                        p.iter().all(|(k, want)| match bp.get(k) {
                            None => false,
                            Some(have) => uri_param_match(self, have, want),
                        })
                    }
                },
                _ => false,
            },
            T::Runtime(r) => match b {
                T::Runtime(br) => {
                    (r.runtime.is_none() || r.runtime == br.runtime)
                        && (r.name.is_none() || r.name == br.name)
                }
                _ => false,
            },
            T::Init(i) => self.init_assignable(i, b),
            T::TypeReference(_) => a == b,
            T::Object(o) => match b {
                T::Object(bo) => o == bo || crate::object::object_assignable(o, bo),
                _ => false,
            },
        }
    }

    fn tuple_assignable(&mut self, t: &TupleType, b: &Type) -> bool {
        use Type as T;
        if let T::Tuple(bt) = b {
            if **bt == *t {
                return true;
            }
        }
        let size_s = t.size_range();
        match b {
            T::Tuple(bt) => {
                let size_o = bt.size_range();
                if !int_covers(&size_s, &size_o) {
                    return false;
                }
                if !t.types.is_empty() {
                    if bt.types.is_empty() {
                        return size_s.lo() == 0;
                    }
                    for (i, ot) in bt.types.iter().enumerate() {
                        let st = t.type_at(i).unwrap_or(&T::Any).clone();
                        if !self.assignable(&st, ot) {
                            return false;
                        }
                    }
                }
                true
            }
            T::Array(ba) => {
                let size_o = size_or_default(ba.size);
                if !int_covers(&size_s, &size_o) {
                    return false;
                }
                if !t.types.is_empty() {
                    let n = (t.types.len() as i128).min(size_o.hi()).max(0) as usize;
                    for i in 0..n {
                        let st = t.type_at(i).unwrap_or(&T::Any).clone();
                        if !self.assignable(&st, &ba.element) {
                            return false;
                        }
                    }
                }
                true
            }
            _ => false,
        }
    }

    fn init_assignable(&mut self, i: &crate::types::InitType, b: &Type) -> bool {
        match &i.target {
            None => match b {
                Type::Init(_) => true,
                _ => self.assignable(&Type::rich_data(), b),
            },
            Some(t) => {
                if let Type::Init(bi) = b {
                    return match &bi.target {
                        None => false,
                        Some(bt) => self.assignable(t, bt),
                    };
                }
                if self.assignable(t, b) {
                    return true;
                }
                let sig = new_signatures(t);
                if let Some(single) = &sig.single {
                    if self.assignable(single, b) {
                        return true;
                    }
                }
                if let Some(other) = &sig.other {
                    if self.assignable(other, b) {
                        return true;
                    }
                    if sig.optional_single
                        && self.assignable(other, &Type::tuple(vec![b.clone()], None))
                    {
                        return true;
                    }
                }
                false
            }
        }
    }

    fn instance(&mut self, t: &Type, v: &Value) -> bool {
        if !self.enter() {
            self.depth -= 1;
            return false;
        }
        let r = self.instance_inner(t, v);
        self.depth -= 1;
        r
    }

    fn instance_inner(&mut self, t: &Type, v: &Value) -> bool {
        use Type as T;
        use Value as V;
        match t {
            T::Any | T::Unit => true,
            T::Alias(a) => {
                let r = a.resolved();
                self.instance(&r, v)
            }
            T::Undef => matches!(v, V::Undef),
            T::Default => matches!(v, V::Default),
            T::NotUndef(t) => {
                !matches!(v, V::Undef) && t.as_ref().is_none_or(|t| self.instance(t, v))
            }
            T::Optional(t) => {
                matches!(v, V::Undef) || t.as_ref().is_some_and(|t| self.instance(t, v))
            }
            T::Variant(vs) => vs.iter().any(|t| self.instance(t, v)),
            T::Boolean(b) => matches!(v, V::Boolean(x) if b.is_none_or(|b| b == *x)),
            T::Numeric => matches!(v, V::Integer(_) | V::Float(_)),
            T::Integer(r) => matches!(v, V::Integer(i) if r.contains(*i as i128)),
            T::Float(r) => matches!(v, V::Float(f) if *f >= r.min && *f <= r.max),
            T::String(s) => match v {
                V::String(x) => match s {
                    StringType::Unbounded | StringType::Size(None) => true,
                    StringType::Size(Some(r)) => r.contains(x.chars().count() as i128),
                    StringType::Value(val) => val == x.as_str(),
                },
                _ => false,
            },
            T::Enum(e) => match v {
                V::String(x) => enum_has(e, x),
                _ => false,
            },
            T::Pattern(ps) => match v {
                V::String(x) => ps.is_empty() || ps.iter().any(|p| p.is_match(x)),
                _ => false,
            },
            T::Regexp(r) => match v {
                V::Regexp(x) => r.as_ref().is_none_or(|r| r == x),
                _ => false,
            },
            T::Scalar => match v {
                V::String(_) | V::Integer(_) | V::Float(_) | V::Boolean(_) | V::Regexp(_) => true,
                V::Array(_) | V::Hash(_) | V::Type(_) | V::Undef => false,
                other => {
                    let it = infer(other);
                    self.assignable(t, &it)
                }
            },
            T::ScalarData => matches!(
                v,
                V::String(_) | V::Integer(_) | V::Float(_) | V::Boolean(_)
            ),
            T::Collection(size) => match v {
                V::Array(a) => size.is_none_or(|s| s.contains(a.len() as i128)),
                V::Hash(h) => size.is_none_or(|s| s.contains(h.len() as i128)),
                _ => false,
            },
            T::Array(at) => match v {
                V::Array(a) => {
                    a.iter().all(|e| self.instance(&at.element, e))
                        && at.size.is_none_or(|s| s.contains(a.len() as i128))
                }
                _ => false,
            },
            T::Hash(ht) => match v {
                V::Hash(h) => {
                    h.iter()
                        .all(|(k, x)| self.instance(&ht.key, k) && self.instance(&ht.value, x))
                        && ht.size.is_none_or(|s| s.contains(h.len() as i128))
                }
                _ => false,
            },
            T::Tuple(tt) => match v {
                V::Array(a) => {
                    match tt.size {
                        Some(s) => {
                            if !s.contains(a.len() as i128) {
                                return false;
                            }
                        }
                        None => {
                            if !tt.types.is_empty() && tt.types.len() != a.len() {
                                return false;
                            }
                        }
                    }
                    tt.types.is_empty()
                        || a.iter().enumerate().all(|(i, e)| {
                            let et = tt.type_at(i).cloned().unwrap_or(T::Any);
                            self.instance(&et, e)
                        })
                }
                _ => false,
            },
            T::Struct(elems) => match v {
                V::Hash(h) => {
                    let mut matched = 0;
                    let ok = elems.iter().all(|e| {
                        let key = V::String(e.name.clone().into());
                        match h.get(&key) {
                            None => self.assignable(&e.key, undef()),
                            Some(x) => {
                                matched += 1;
                                self.instance(&e.value, x)
                            }
                        }
                    });
                    ok && matched == h.len()
                }
                _ => false,
            },
            T::Type(inner) => match v {
                V::Type(vt) => inner.as_ref().is_none_or(|it| self.assignable(it, vt)),
                _ => false,
            },
            T::CatalogEntry | T::Class(_) | T::Resource(_) | T::Runtime(_) | T::Callable(_) => {
                // Catalog entries, runtime objects and callables are never plain values here.
                let it = infer(v);
                !matches!(it, T::Type(_)) && self.assignable(t, &it)
            }
            T::Iterable(et) => {
                if et.as_ref().is_none_or(|e| self.assignable(e, &T::Any)) {
                    match v {
                        V::Iterator(_) | V::String(_) | V::Hash(_) | V::Array(_) => true,
                        V::Integer(i) => *i >= 0,
                        V::Type(T::Enum(_)) => true,
                        V::Type(T::Integer(r)) => r.min.is_some() && r.max.is_some(),
                        _ => false,
                    }
                } else {
                    let it = infer(v);
                    self.assignable(t, &it)
                }
            }
            T::Iterator(et) => match v {
                V::Iterator(it) => et
                    .as_ref()
                    .is_none_or(|e| self.assignable(e, &it.element_type)),
                _ => false,
            },
            T::Sensitive(st) => match v {
                V::Sensitive(inner) => self.instance(st, inner),
                _ => false,
            },
            T::SemVer(ranges) => match v {
                V::SemVer(ver) => ranges.is_empty() || ranges.iter().any(|r| r.includes(ver)),
                _ => false,
            },
            T::SemVerRange => matches!(v, V::SemVerRange(_)),
            T::Timespan(r) => matches!(v, V::Timespan(x) if r.contains(*x)),
            T::Timestamp(r) => matches!(v, V::Timestamp(x) if r.contains(*x)),
            T::Binary => matches!(v, V::Binary(_)),
            T::Uri(p) => match v {
                V::Uri(u) => match p {
                    None => true,
                    Some(p) => {
                        let have = u.to_parameter_map();
                        p.iter().all(|(k, want)| {
                            let hv = have.get(k).cloned().unwrap_or(V::Undef);
                            uri_param_match(self, &hv, want)
                        })
                    }
                },
                _ => false,
            },
            T::Init(i) => match &i.target {
                None => self.instance(&Type::rich_data(), v),
                Some(target) => {
                    if self.instance(target, v) {
                        return true;
                    }
                    let sig = new_signatures(target);
                    if sig.single.as_ref().is_some_and(|s| self.instance(s, v)) {
                        return true;
                    }
                    if let Some(other) = &sig.other {
                        if self.instance(other, v) {
                            return true;
                        }
                        if sig.optional_single && self.instance(other, &V::array(vec![v.clone()])) {
                            return true;
                        }
                    }
                    false
                }
            },
            T::TypeReference(_) => false,
            // Types are Pcore objects, so every type value is an instance of plain Object.
            T::Object(o) => crate::object::object_instance(o, v),
        }
    }
}

fn uri_param_match(c: &mut Checker, have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::String(a), Value::String(b)) => a == b,
        (Value::String(a), Value::Regexp(r)) => r.is_match(a),
        (_, Value::Type(t)) => match have {
            Value::Type(ht) => c.assignable(t, ht),
            _ => c.instance(t, have),
        },
        (a, b) => a == b,
    }
}

fn enum_has(e: &crate::types::EnumType, s: &str) -> bool {
    if e.case_insensitive {
        e.values.iter().any(|v| v.eq_ignore_ascii_case(s))
    } else {
        e.values.iter().any(|v| v == s)
    }
}

/// The size a tuple stands for when compared with a collection size.
fn tuple_size_for_collection(t: &TupleType) -> IntRange {
    match t.size {
        Some(s) => s,
        None => {
            let n = t.types.len() as i64;
            IntRange::new(Some(n), Some(n))
        }
    }
}

fn string_assignable(s: &StringType, b: &Type) -> bool {
    match s {
        StringType::Size(Some(r)) => match b {
            Type::String(bs) => r.covers(&bs.derived_size()),
            Type::Enum(e) => {
                if e.values.is_empty() {
                    r.covers(&IntRange::DEFAULT_SIZE)
                } else {
                    let lens = e.values.iter().map(|v| v.chars().count() as i128);
                    let min = lens.clone().min().unwrap_or(0);
                    let max = lens.max().unwrap_or(0);
                    r.lo() <= min && r.hi() >= max
                }
            }
            Type::Pattern(_) => r.covers(&IntRange::DEFAULT_SIZE),
            _ => false,
        },
        StringType::Unbounded | StringType::Size(None) => {
            matches!(b, Type::String(_) | Type::Enum(_) | Type::Pattern(_))
        }
        StringType::Value(v) => match b {
            Type::String(StringType::Value(bv)) => v == bv,
            Type::Enum(e) => e.values.len() == 1 && !e.case_insensitive && e.values[0] == *v,
            _ => false,
        },
    }
}

/// Whether values of a type can be iterated (Puppet's `iterable?`).
pub fn is_iterable(t: &Type) -> bool {
    match t {
        Type::Collection(_)
        | Type::Array(_)
        | Type::Hash(_)
        | Type::Tuple(_)
        | Type::Struct(_)
        | Type::String(_)
        | Type::Enum(_)
        | Type::Integer(_)
        | Type::Iterable(_)
        | Type::Iterator(_) => true,
        Type::Type(Some(inner)) => match &**inner {
            Type::Enum(_) => true,
            Type::Integer(r) => r.min.is_some() && r.max.is_some(),
            _ => false,
        },
        Type::Alias(a) => {
            let r = a.resolved();
            !matches!(r, Type::Alias(_)) && is_iterable(&r)
        }
        _ => false,
    }
}

/// The `Iterable[T]` a type iterates as (Puppet's `iterable_type`), if known.
pub fn iterable_type(t: &Type) -> Option<Type> {
    let it = |t: Type| Some(Type::Iterable(Some(Arc::new(t))));
    match t {
        Type::Array(a) => {
            if a.element == Type::Any {
                Some(Type::Iterable(None))
            } else {
                it(a.element.clone())
            }
        }
        Type::Hash(h) => it(Type::tuple(
            vec![h.key.clone(), h.value.clone()],
            Some(IntRange::new(Some(2), Some(2))),
        )),
        Type::Tuple(tt) => it(Type::variant_of(tt.types.clone())),
        Type::Struct(elems) => {
            if elems.is_empty() {
                it(Type::tuple(
                    vec![Type::Unit, Type::Unit],
                    Some(IntRange::new(Some(2), Some(2))),
                ))
            } else {
                it(Type::tuple(
                    vec![
                        Type::variant_of(elems.iter().map(|e| e.key.clone()).collect()),
                        Type::variant_of(elems.iter().map(|e| e.value.clone()).collect()),
                    ],
                    Some(IntRange::new(Some(2), Some(2))),
                ))
            }
        }
        Type::String(_) | Type::Enum(_) => it(Type::string_sized(IntRange::new(Some(1), Some(1)))),
        Type::Integer(_) => it(Type::any_integer()),
        Type::Iterable(_) => Some(t.clone()),
        Type::Iterator(e) => Some(Type::Iterable(e.clone())),
        Type::Type(Some(inner)) => match &**inner {
            Type::Enum(_) => it((**inner).clone()),
            Type::Integer(r) if r.min.is_some() && r.max.is_some() => it((**inner).clone()),
            _ => None,
        },
        Type::Alias(a) => {
            let r = a.resolved();
            if matches!(r, Type::Alias(_)) {
                None
            } else {
                iterable_type(&r)
            }
        }
        _ => None,
    }
}

/// The parameter shapes of a type's `new` function, as `Init[T]` uses them.
struct NewSignatures {
    single: Option<Type>,
    other: Option<Type>,
    optional_single: bool,
}

fn regex_type(src: &str) -> Type {
    match crate::regexp::Regexp::new(src) {
        Ok(r) => Type::Pattern(Arc::new(vec![r])),
        Err(_) => Type::Pattern(Arc::new(vec![])),
    }
}

fn new_signatures(t: &Type) -> NewSignatures {
    static INT: OnceLock<(Type, Type)> = OnceLock::new();
    static FLOAT: OnceLock<(Type, Type)> = OnceLock::new();
    let named_args = |convertible: &Type, extra: Vec<(&str, Type)>| {
        let mut elems = vec![crate::types::StructElement {
            name: "from".into(),
            key: Type::String(StringType::Value("from".into())),
            value: convertible.clone(),
        }];
        for (k, v) in extra {
            elems.push(crate::types::StructElement {
                name: k.into(),
                key: Type::optional(Type::String(StringType::Value(k.into()))),
                value: v,
            });
        }
        Type::structure(elems)
    };
    let time_types = || {
        vec![
            Type::Timespan(Default::default()),
            Type::Timestamp(Default::default()),
        ]
    };
    match t {
        Type::Integer(_) => {
            let (single, other) = INT.get_or_init(|| {
                let mut conv = vec![
                    Type::Numeric,
                    Type::Boolean(None),
                    regex_type(r"\A[+-]?\s*(?:(?:\d+)|(?:0[xX][0-9A-Fa-f]+)|(?:0[bB][01]+))\z"),
                ];
                conv.extend(time_types());
                let conv = Type::Variant(Arc::new(conv));
                let radix = Type::Variant(Arc::new(vec![
                    Type::Default,
                    Type::integer(Some(2), Some(2)),
                    Type::integer(Some(8), Some(8)),
                    Type::integer(Some(10), Some(10)),
                    Type::integer(Some(16), Some(16)),
                ]));
                let single = named_args(
                    &conv,
                    vec![("radix", radix.clone()), ("abs", Type::Boolean(None))],
                );
                let other = Type::tuple(
                    vec![conv, radix, Type::Boolean(None)],
                    Some(IntRange::new(Some(1), Some(3))),
                );
                (single, other)
            });
            NewSignatures {
                single: Some(single.clone()),
                other: Some(other.clone()),
                optional_single: true,
            }
        }
        Type::Float(_) | Type::Numeric => {
            let (single, other) = FLOAT.get_or_init(|| {
                let mut conv = vec![
                    Type::Numeric,
                    Type::Boolean(None),
                    regex_type(
                        r"\A[+-]?\s*(?:(?:(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE]-?\d+)?)|(?:0[xX][0-9A-Fa-f]+)|(?:0[0-7]+)|(?:0[bB][01]+))\z",
                    ),
                ];
                conv.extend(time_types());
                let conv = Type::Variant(Arc::new(conv));
                let single = named_args(&conv, vec![("abs", Type::Boolean(None))]);
                let other = Type::tuple(vec![conv, Type::Boolean(None)], Some(IntRange::new(Some(1), Some(2))));
                (single, other)
            });
            NewSignatures {
                single: Some(single.clone()),
                other: Some(other.clone()),
                optional_single: true,
            }
        }
        Type::Boolean(_) => NewSignatures {
            single: Some(Type::Variant(Arc::new(vec![
                Type::any_integer(),
                Type::any_float(),
                Type::Boolean(None),
                Type::enumeration(
                    ["false", "true", "yes", "no", "y", "n"].map(Into::into),
                    true,
                ),
            ]))),
            other: None,
            optional_single: false,
        },
        Type::String(_) => NewSignatures {
            single: None,
            other: Some(Type::tuple(
                vec![Type::Any, Type::Any],
                Some(IntRange::new(Some(1), Some(2))),
            )),
            optional_single: true,
        },
        _ => NewSignatures {
            single: None,
            other: None,
            optional_single: false,
        },
    }
}
