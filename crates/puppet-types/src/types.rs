//! The Puppet type model: one `Type` enum with cheap-to-clone parameterized variants.
//!
//! This module defines the data and its constructors only. Assignability and instance checks
//! live in `assign`, inference in `infer`, normalisation in `normalize`, the text form in
//! `format`, and building types from evaluated expressions (`Integer[1,2]`) in `params`.
//! Object, TypeSet and the Pcore object types (`Error`, `Deferred`) are represented only by
//! name and printed form (see [`ObjectType`]); their attributes are not modelled yet.

use crate::regexp::Regexp;
use crate::semver::VersionRange;
use crate::time::{Timespan, Timestamp};
use crate::value::Value;
use smol_str::SmolStr;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// An integer range; `None` is an open end. Used for `Integer[min, max]` and for the size
/// constraints of String, Collection, Array, Hash and Tuple.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntRange {
    /// Lower bound, inclusive.
    pub min: Option<i64>,
    /// Upper bound, inclusive.
    pub max: Option<i64>,
}

impl IntRange {
    /// A range from optional bounds.
    pub const fn new(min: Option<i64>, max: Option<i64>) -> IntRange {
        IntRange { min, max }
    }
    /// The unbounded range.
    pub const UNBOUNDED: IntRange = IntRange {
        min: None,
        max: None,
    };
    /// `[0, default]`, the default size of a collection.
    pub const DEFAULT_SIZE: IntRange = IntRange {
        min: Some(0),
        max: None,
    };
    /// Lower bound as i128 (open end is very small).
    pub fn lo(&self) -> i128 {
        self.min.map_or(i128::MIN, i128::from)
    }
    /// Upper bound as i128 (open end is very large).
    pub fn hi(&self) -> i128 {
        self.max.map_or(i128::MAX, i128::from)
    }
    /// True when both ends are open.
    pub fn is_unbounded(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }
    /// True when `n` lies in the range.
    pub fn contains(&self, n: i128) -> bool {
        self.lo() <= n && n <= self.hi()
    }
    /// True when `o` lies inside `self`.
    pub fn covers(&self, o: &IntRange) -> bool {
        self.lo() <= o.lo() && self.hi() >= o.hi()
    }
    /// Puppet's `to_size`: clamps a size range to non-negative numbers.
    pub fn to_size(self) -> IntRange {
        if self.lo() >= 0 {
            self
        } else {
            IntRange {
                min: Some(0),
                max: self.max.map(|m| m.max(0)),
            }
        }
    }
}

/// A float range; infinities are open ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatRange {
    /// Lower bound, inclusive.
    pub min: f64,
    /// Upper bound, inclusive.
    pub max: f64,
}

impl FloatRange {
    /// The unbounded range.
    pub const UNBOUNDED: FloatRange = FloatRange {
        min: f64::NEG_INFINITY,
        max: f64::INFINITY,
    };
    /// True when both ends are open.
    pub fn is_unbounded(&self) -> bool {
        self.min == f64::NEG_INFINITY && self.max == f64::INFINITY
    }
}

/// A range of Timespan or Timestamp values; `None` is an open end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeRange<T> {
    /// Lower bound.
    pub min: Option<T>,
    /// Upper bound.
    pub max: Option<T>,
}

impl<T> Default for TimeRange<T> {
    fn default() -> Self {
        TimeRange {
            min: None,
            max: None,
        }
    }
}

impl<T: Copy + Ord> TimeRange<T> {
    /// True when `o` lies inside `self`.
    pub fn covers(&self, o: &TimeRange<T>) -> bool {
        let lo = match (self.min, o.min) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => a <= b,
        };
        let hi = match (self.max, o.max) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => a >= b,
        };
        lo && hi
    }
    /// True when `v` lies inside.
    pub fn contains(&self, v: T) -> bool {
        self.min.is_none_or(|m| m <= v) && self.max.is_none_or(|m| v <= m)
    }
}

/// The parameter of a String type: a size range, or (from inference) an exact value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StringType {
    /// Plain `String`.
    Unbounded,
    /// `String[min, max]`; `None` is the same as `Unbounded`.
    Size(Option<IntRange>),
    /// The type of exactly this string (what `infer` produces; prints as `String`).
    Value(SmolStr),
}

impl StringType {
    /// The size range, if one is given.
    pub fn size(&self) -> Option<IntRange> {
        match self {
            StringType::Size(s) => *s,
            _ => None,
        }
    }
    /// The size range this type implies (an exact value has an exact size).
    pub fn derived_size(&self) -> IntRange {
        match self {
            StringType::Size(Some(r)) => *r,
            StringType::Value(v) => {
                let n = v.chars().count() as i64;
                IntRange::new(Some(n), Some(n))
            }
            _ => IntRange::DEFAULT_SIZE,
        }
    }
    /// The exact value, if any.
    pub fn value(&self) -> Option<&str> {
        match self {
            StringType::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// `Enum[...]`: sorted unique values and the case-insensitive flag.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnumType {
    /// The values, sorted and deduplicated.
    pub values: Vec<SmolStr>,
    /// `Enum['a', true]` matches ignoring case.
    pub case_insensitive: bool,
}

/// `Array[T, min, max]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArrayType {
    /// Element type.
    pub element: Type,
    /// Size constraint.
    pub size: Option<IntRange>,
}

/// `Hash[K, V, min, max]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HashType {
    /// Key type.
    pub key: Type,
    /// Value type.
    pub value: Type,
    /// Size constraint.
    pub size: Option<IntRange>,
}

/// `Tuple[T1, T2, ..., min, max]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TupleType {
    /// Element types; the last repeats when the size allows more elements.
    pub types: Vec<Type>,
    /// Size constraint.
    pub size: Option<IntRange>,
}

impl TupleType {
    /// The `[min, max]` this tuple accepts.
    pub fn size_range(&self) -> IntRange {
        match self.size {
            Some(s) => s,
            None => {
                let n = self.types.len() as i64;
                if n == 0 {
                    IntRange::DEFAULT_SIZE
                } else {
                    IntRange::new(Some(n), Some(n))
                }
            }
        }
    }
    /// The type at `index`, repeating the last type as the size allows.
    pub fn type_at(&self, index: usize) -> Option<&Type> {
        self.types.get(index).or_else(|| self.types.last())
    }
}

/// One member of a Struct: key type (a String value type, possibly wrapped in Optional or
/// NotUndef) and value type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StructElement {
    /// Key name.
    pub name: SmolStr,
    /// The key type: `String` value, `Optional[String value]` or `NotUndef[String value]`.
    pub key: Type,
    /// The value type.
    pub value: Type,
}

impl StructElement {
    /// True when the key may be missing (its key type accepts undef).
    pub fn is_optional(&self) -> bool {
        crate::assign::assignable(&self.key, &Type::Undef)
    }
}

/// `Callable[params..., min, max, block]` with optional return type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallableType {
    /// Parameter tuple; `None` for the plain `Callable` that matches any callable.
    pub params: Option<TupleType>,
    /// Block type (a `Callable` or `Optional[Callable]`).
    pub block: Option<Type>,
    /// Return type; `None` is Any.
    pub returns: Option<Type>,
}

/// `Resource[type, title]`, printed `File['/tmp']`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceType {
    /// The resource type name as written (e.g. `File`, `Foo::Bar`); `None` for `Resource`.
    pub type_name: Option<SmolStr>,
    /// The title, if any.
    pub title: Option<SmolStr>,
}

/// `Runtime[runtime, name]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuntimeType {
    /// Runtime name (`ruby`).
    pub runtime: Option<SmolStr>,
    /// Runtime type name.
    pub name: Option<SmolStr>,
}

/// `Init[T, args...]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InitType {
    /// The type to create; `None` for plain `Init`.
    pub target: Option<Type>,
    /// Extra arguments for `new`.
    pub args: Vec<Value>,
}

pub use crate::object::{ObjectKind, ObjectType};

/// A named type alias. Its target is set once (possibly after the alias is referenced from
/// inside its own definition, which is how recursive aliases like `Data` are built).
#[derive(Clone)]
pub struct TypeAlias {
    inner: Arc<AliasInner>,
}

struct AliasInner {
    name: SmolStr,
    resolved: OnceLock<Type>,
}

impl TypeAlias {
    /// A new alias with no target yet.
    pub fn new(name: impl AsRef<str>) -> TypeAlias {
        TypeAlias {
            inner: Arc::new(AliasInner {
                name: SmolStr::new(name.as_ref()),
                resolved: OnceLock::new(),
            }),
        }
    }
    /// The alias name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }
    /// Sets the target; returns false when it was already set.
    ///
    /// An Object type takes the alias name (`type MyObject = Object[{...}]` names the type
    /// `MyObject`, whatever its `name` entry says).
    pub fn resolve_to(&self, t: Type) -> bool {
        let t = match t {
            Type::Object(o) if o.kind == ObjectKind::Object && o.ext.is_none() => {
                Type::Object(Arc::new(o.renamed(&self.inner.name)))
            }
            other => other,
        };
        self.inner.resolved.set(t).is_ok()
    }
    /// The target; an unresolved alias behaves like `TypeReference['Name']`.
    pub fn resolved(&self) -> Type {
        self.inner
            .resolved
            .get()
            .cloned()
            .unwrap_or_else(|| Type::TypeReference(self.inner.name.clone()))
    }
    /// Pointer identity.
    pub fn same(&self, o: &TypeAlias) -> bool {
        Arc::ptr_eq(&self.inner, &o.inner)
    }
}

impl PartialEq for TypeAlias {
    fn eq(&self, other: &Self) -> bool {
        self.inner.name == other.inner.name
    }
}
impl Eq for TypeAlias {}
impl Hash for TypeAlias {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.inner.name.hash(state)
    }
}
impl fmt::Debug for TypeAlias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypeAlias({})", self.inner.name)
    }
}

/// A Puppet type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Type {
    /// `Any`.
    Any,
    /// `Undef`.
    Undef,
    /// `Default`.
    Default,
    /// `Unit` (only produced internally, e.g. the element type of `Array[0, 0]`).
    Unit,
    /// `NotUndef[T]`.
    NotUndef(Option<Arc<Type>>),
    /// `Boolean`, `Boolean[true]`.
    Boolean(Option<bool>),
    /// `Numeric`.
    Numeric,
    /// `Integer[min, max]`.
    Integer(IntRange),
    /// `Float[min, max]`.
    Float(FloatRange),
    /// `String[min, max]`.
    String(StringType),
    /// `Enum[...]`.
    Enum(Arc<EnumType>),
    /// `Pattern[...]`.
    Pattern(Arc<Vec<Regexp>>),
    /// `Regexp[/re/]`.
    Regexp(Option<Regexp>),
    /// `Scalar`.
    Scalar,
    /// `ScalarData`.
    ScalarData,
    /// `Collection[min, max]`.
    Collection(Option<IntRange>),
    /// `Array[T, min, max]`.
    Array(Arc<ArrayType>),
    /// `Hash[K, V, min, max]`.
    Hash(Arc<HashType>),
    /// `Tuple[...]`.
    Tuple(Arc<TupleType>),
    /// `Struct[{...}]`.
    Struct(Arc<Vec<StructElement>>),
    /// `Optional[T]`.
    Optional(Option<Arc<Type>>),
    /// `Variant[...]`.
    Variant(Arc<Vec<Type>>),
    /// `Type[T]`.
    Type(Option<Arc<Type>>),
    /// `Class[name]`.
    Class(Option<SmolStr>),
    /// `Resource[type, title]`, `File['x']`.
    Resource(Arc<ResourceType>),
    /// `CatalogEntry`.
    CatalogEntry,
    /// `Callable[...]`.
    Callable(Arc<CallableType>),
    /// `Iterable[T]`.
    Iterable(Option<Arc<Type>>),
    /// `Iterator[T]`.
    Iterator(Option<Arc<Type>>),
    /// `Sensitive[T]` (the contained type is generalized, `Any` by default).
    Sensitive(Arc<Type>),
    /// `SemVer[ranges...]`.
    SemVer(Arc<Vec<VersionRange>>),
    /// `SemVerRange`.
    SemVerRange,
    /// `Timespan[min, max]`.
    Timespan(TimeRange<Timespan>),
    /// `Timestamp[min, max]`.
    Timestamp(TimeRange<Timestamp>),
    /// `Binary`.
    Binary,
    /// `Init[T, args...]`.
    Init(Arc<InitType>),
    /// `Runtime[runtime, name]`.
    Runtime(Arc<RuntimeType>),
    /// `URI[parameters]`.
    Uri(Option<Arc<indexmap::IndexMap<SmolStr, Value>>>),
    /// An unresolved name: `TypeReference['Name']`.
    TypeReference(SmolStr),
    /// A named alias (`Data`, `RichData`, user aliases).
    Alias(TypeAlias),
    /// Object types (also `Error`, `Deferred`, parameterized ones) and the TypeSet type.
    Object(Arc<ObjectType>),
}

impl Eq for Type {}

impl Hash for Type {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Equal types print the same, so the text is a sound (if slow) hash.
        self.to_string().hash(state)
    }
}

impl Type {
    /// `Array` (of Any).
    pub fn array_of_any() -> Type {
        Type::array(Type::Any, None)
    }
    /// `Hash` (of Any, Any).
    pub fn hash_of_any() -> Type {
        Type::hash(Type::Any, Type::Any, None)
    }
    /// `Array[elem, size]`; an exact size of 0 makes the element type `Unit`.
    pub fn array(element: Type, size: Option<IntRange>) -> Type {
        let size = size.map(IntRange::to_size);
        let element = if size.is_some_and(|s| s.min == Some(0) && s.max == Some(0)) {
            Type::Unit
        } else {
            element
        };
        Type::Array(Arc::new(ArrayType { element, size }))
    }
    /// `Hash[key, value, size]`; an exact size of 0 makes both types `Unit`.
    pub fn hash(key: Type, value: Type, size: Option<IntRange>) -> Type {
        let size = size.map(IntRange::to_size);
        let (key, value) = if size.is_some_and(|s| s.min == Some(0) && s.max == Some(0)) {
            (Type::Unit, Type::Unit)
        } else {
            (key, value)
        };
        Type::Hash(Arc::new(HashType { key, value, size }))
    }
    /// `Tuple[types..., size]`.
    pub fn tuple(types: Vec<Type>, size: Option<IntRange>) -> Type {
        Type::Tuple(Arc::new(TupleType {
            types,
            size: size.map(IntRange::to_size),
        }))
    }
    /// `Integer[min, max]`.
    pub fn integer(min: Option<i64>, max: Option<i64>) -> Type {
        Type::Integer(IntRange::new(min, max))
    }
    /// Plain `Integer`.
    pub fn any_integer() -> Type {
        Type::Integer(IntRange::UNBOUNDED)
    }
    /// Plain `Float`.
    pub fn any_float() -> Type {
        Type::Float(FloatRange::UNBOUNDED)
    }
    /// Plain `String`.
    pub fn any_string() -> Type {
        Type::String(StringType::Unbounded)
    }
    /// `String[min, max]`.
    pub fn string_sized(size: IntRange) -> Type {
        Type::String(StringType::Size(Some(size.to_size())))
    }
    /// `Enum[values]`.
    pub fn enumeration(values: impl IntoIterator<Item = SmolStr>, case_insensitive: bool) -> Type {
        let mut values: Vec<SmolStr> = values.into_iter().collect();
        values.sort();
        values.dedup();
        Type::Enum(Arc::new(EnumType {
            values,
            case_insensitive,
        }))
    }
    /// `Optional[t]`.
    pub fn optional(t: Type) -> Type {
        Type::Optional(Some(Arc::new(t)))
    }
    /// `NotUndef[t]` (`NotUndef[Any]` is plain `NotUndef`).
    pub fn not_undef(t: Type) -> Type {
        if t == Type::Any {
            Type::NotUndef(None)
        } else {
            Type::NotUndef(Some(Arc::new(t)))
        }
    }
    /// `Type[t]`.
    pub fn type_of(t: Type) -> Type {
        Type::Type(Some(Arc::new(t)))
    }
    /// `Variant[types]`, flattening nested variants and removing duplicates; a single type is
    /// returned as itself (Puppet's `maybe_create`).
    pub fn variant_of(types: Vec<Type>) -> Type {
        // An ordered set: first occurrence wins, linear in the number of types.
        let mut flat: indexmap::IndexSet<Type> = indexmap::IndexSet::with_capacity(types.len());
        for t in types {
            match t {
                Type::Variant(vs) => {
                    for v in vs.iter() {
                        flat.insert(v.clone());
                    }
                }
                t => {
                    flat.insert(t);
                }
            }
        }
        if flat.len() == 1 {
            flat.pop().unwrap_or(Type::Any)
        } else {
            Type::Variant(Arc::new(flat.into_iter().collect()))
        }
    }
    /// `Sensitive[t]` (the contained type is generalized, as Puppet does).
    pub fn sensitive(t: Type) -> Type {
        Type::Sensitive(Arc::new(crate::infer::generalize(&t)))
    }
    /// `Resource[type_name, title]`.
    pub fn resource(type_name: Option<&str>, title: Option<&str>) -> Type {
        Type::Resource(Arc::new(ResourceType {
            type_name: type_name.map(SmolStr::new),
            title: title.map(SmolStr::new),
        }))
    }
    /// `Class[name]`.
    pub fn class(name: Option<&str>) -> Type {
        Type::Class(name.map(SmolStr::new))
    }
    /// `Struct[{...}]`.
    pub fn structure(elements: Vec<StructElement>) -> Type {
        Type::Struct(Arc::new(elements))
    }
    /// A Callable from its parts.
    pub fn callable(params: Option<TupleType>, block: Option<Type>, returns: Option<Type>) -> Type {
        let returns = returns.filter(|r| *r != Type::Any);
        Type::Callable(Arc::new(CallableType {
            params,
            block,
            returns,
        }))
    }
    /// Plain `Callable`.
    pub fn any_callable() -> Type {
        Type::callable(None, None, None)
    }

    /// The built-in `Data` alias: `Variant[ScalarData, Undef, Hash[String, Data], Array[Data]]`.
    pub fn data() -> Type {
        static DATA: OnceLock<TypeAlias> = OnceLock::new();
        Type::Alias(
            DATA.get_or_init(|| {
                let a = TypeAlias::new("Data");
                let me = Type::Alias(a.clone());
                a.resolve_to(Type::Variant(Arc::new(vec![
                    Type::ScalarData,
                    Type::Undef,
                    Type::hash(Type::any_string(), me.clone(), None),
                    Type::array(me, None),
                ])));
                a
            })
            .clone(),
        )
    }

    /// The built-in `RichDataKey` alias: `Variant[String, Numeric]`.
    pub fn rich_data_key() -> Type {
        static KEY: OnceLock<TypeAlias> = OnceLock::new();
        Type::Alias(
            KEY.get_or_init(|| {
                let a = TypeAlias::new("RichDataKey");
                a.resolve_to(Type::Variant(Arc::new(vec![
                    Type::any_string(),
                    Type::Numeric,
                ])));
                a
            })
            .clone(),
        )
    }

    /// The built-in `RichData` alias.
    pub fn rich_data() -> Type {
        static RICH: OnceLock<TypeAlias> = OnceLock::new();
        Type::Alias(
            RICH.get_or_init(|| {
                let a = TypeAlias::new("RichData");
                let me = Type::Alias(a.clone());
                a.resolve_to(Type::Variant(Arc::new(vec![
                    Type::Scalar,
                    Type::SemVerRange,
                    Type::Binary,
                    Type::Sensitive(Arc::new(Type::Any)),
                    Type::Type(None),
                    crate::params::builtin_object("TypeSet"),
                    Type::Uri(None),
                    crate::params::builtin_object("Object"),
                    Type::Undef,
                    Type::Default,
                    Type::hash(Type::rich_data_key(), me.clone(), None),
                    Type::array(me, None),
                ])));
                a
            })
            .clone(),
        )
    }

    /// Resolves aliases at the top (not inside) of this type.
    pub fn unalias(&self) -> Type {
        let mut t = self.clone();
        for _ in 0..64 {
            match t {
                Type::Alias(a) => t = a.resolved(),
                other => return other,
            }
        }
        t
    }
}

/// Puppet syntax: `Integer[1, 2]`, `Struct[{'a' => Integer}]`, `Optional[String]`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        crate::format::type_top(&mut out, self);
        f.write_str(&out)
    }
}
