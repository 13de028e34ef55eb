//! Building types from evaluated type expressions, as Puppet's evaluator does: a name resolves
//! to a type ([`resolve_type_name`]) and `Name[args]` parameterizes it ([`parameterize`]).
//!
//! The arguments are already evaluated [`Value`]s, so this module needs no parser. Error texts
//! are those of Puppet's access operator (`Integer-Type supports [] with one or two arguments
//! (from, to). Got 3`). Names the crate does not know resolve through a [`TypeResolver`]
//! (the loader supplies aliases and resource types) and otherwise to `TypeReference['Name']`.

use crate::error::TypeError;
use crate::format::capitalize_segments;
use crate::infer::{generalize, infer};
use crate::regexp::Regexp;
use crate::semver::VersionRange;
use crate::time::{Timespan, Timestamp};
use crate::types::{
    FloatRange, InitType, IntRange, ObjectKind, ObjectType, RuntimeType, StringType, StructElement,
    TimeRange, TupleType, Type,
};
use crate::value::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// Supplies types for names the crate does not know itself: type aliases and resource types.
/// The loader implements it; [`BuiltinResolver`] knows Puppet's built-in resource types.
pub trait TypeResolver: Send + Sync {
    /// The type for a capitalized, possibly qualified name (`Foo::Bar`), if it exists.
    fn resolve(&self, name: &str) -> Option<Type>;
}

/// Resolves the resource types that ship with Puppet (`File`, `Notify`, `Exec`, ...).
#[derive(Debug, Default, Clone, Copy)]
pub struct BuiltinResolver;

const BUILTIN_RESOURCE_TYPES: [&str; 15] = [
    "component",
    "exec",
    "file",
    "filebucket",
    "group",
    "notify",
    "package",
    "resources",
    "schedule",
    "service",
    "stage",
    "tidy",
    "user",
    "whit",
    "node",
];

impl TypeResolver for BuiltinResolver {
    fn resolve(&self, name: &str) -> Option<Type> {
        let lower = name.to_ascii_lowercase();
        BUILTIN_RESOURCE_TYPES
            .contains(&lower.as_str())
            .then(|| Type::resource(Some(&capitalize_segments(&lower)), None))
    }
}

/// The built-in Object-like types: `Object`, `Error`, `Deferred`, `Annotation` and `TypeSet`.
/// Other names give the plain `Object`.
pub fn builtin_object(name: &str) -> Type {
    if name == "TypeSet" {
        return Type::Object(Arc::new(ObjectType {
            kind: ObjectKind::TypeSet,
            text: SmolStr::new("TypeSet[{pcore_uri => 'http://puppet.com/2016.1/pcore', pcore_version => '1.0.0', name_authority => 'http://puppet.com/2016.1/runtime', name => 'DefaultTypeSet', version => '0.0.0'}]"),
            ..ObjectType::empty(None)
        }));
    }
    match crate::object::builtin(name) {
        Some(o) => Type::Object(o),
        None => Type::Object(Arc::new(ObjectType::empty(None))),
    }
}

/// The aliases Puppet's Pcore defines for names in its type system (`Pcore::MemberName`...),
/// by lower-case name. `Pcore::URI` (Ruby's URI regexp) is not among them.
fn pcore_alias(lower: &str) -> Option<Type> {
    if !lower.starts_with("pcore::") {
        return None;
    }
    static ALIASES: std::sync::OnceLock<Vec<(&'static str, crate::types::TypeAlias)>> =
        std::sync::OnceLock::new();
    let aliases = ALIASES.get_or_init(|| {
        let qualified = r"\A[A-Z][\w]*(?:::[A-Z][\w]*)*\z";
        [
            ("Pcore::SimpleTypeName", r"\A[A-Z]\w*\z"),
            ("Pcore::MemberName", r"\A[a-z_]\w*\z"),
            ("Pcore::TypeName", qualified),
            ("Pcore::QRef", qualified),
        ]
        .into_iter()
        .filter_map(|(name, rx)| {
            let a = crate::types::TypeAlias::new(name);
            a.resolve_to(Type::Pattern(Arc::new(vec![Regexp::new(rx).ok()?])));
            Some((name, a))
        })
        .collect()
    });
    aliases
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(lower))
        .map(|(_, a)| Type::Alias(a.clone()))
}

/// The type names Puppet's static loader holds before any manifest is read, by lower-case name,
/// with the origin Puppet names when a type alias tries to take one of them: generated from
/// Puppet 7.23 by `scripts/gen-static-loader-types.sh` (its data types, built-in aliases, Pcore
/// and `Puppet::AST` object types, core resource types).
const STATIC_LOADER_TYPES: &str = include_str!("../data/static_loader_types.tsv");

/// Whether Puppet already holds a type named `name` (any case) when a manifest defines
/// `type Name = ...`, and if so the origin its error gives: defining such an alias fails with
/// `Attempt to redefine entity 'http://puppet.com/2016.1/runtime/type/name'. ORIGIN`.
///
/// ```
/// use puppet_types::params::static_type_origin;
/// assert_eq!(
///     static_type_origin("String"),
///     Some("Originally set by Puppet-Type-System/Static-Loader.")
/// );
/// assert_eq!(static_type_origin("File"), Some("Set at unknown location"));
/// assert_eq!(static_type_origin("Error"), None); // loaded later: an alias may take it
/// assert_eq!(static_type_origin("Mymod::Port"), None);
/// ```
pub fn static_type_origin(name: &str) -> Option<&'static str> {
    let name = name.strip_prefix("::").unwrap_or(name);
    STATIC_LOADER_TYPES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, origin)| origin)
}

/// Resolves a type name the way Puppet's evaluator does, with Puppet's built-in resource types.
///
/// Matching is case-insensitive (`INTEGER` is `Integer`) but the name must start with an
/// upper-case letter: `integer` is a bare word, not a type. Unknown names give
/// `TypeReference['Name']`.
///
/// ```
/// use puppet_types::resolve_type_name;
/// assert_eq!(resolve_type_name("Integer").to_string(), "Integer");
/// assert_eq!(resolve_type_name("integer").to_string(), "TypeReference['integer']");
/// assert_eq!(resolve_type_name("Nonesuch").to_string(), "TypeReference['Nonesuch']");
/// assert_eq!(resolve_type_name("File").to_string(), "File");
/// ```
pub fn resolve_type_name(name: &str) -> Type {
    resolve_type_name_with(name, &BuiltinResolver)
}

/// [`resolve_type_name`] with a resolver for aliases and resource types.
pub fn resolve_type_name_with(name: &str, resolver: &dyn TypeResolver) -> Type {
    let bare = name.strip_prefix("::").unwrap_or(name);
    if !bare.starts_with(|c: char| c.is_ascii_uppercase()) {
        return Type::TypeReference(SmolStr::new(name));
    }
    let lower = bare.to_ascii_lowercase();
    if lower == "error" {
        // Puppet loads `Error` after a manifest's type aliases are defined, so an alias of
        // that name may exist and wins over the built-in type.
        if let Some(t) = resolver.resolve(bare) {
            return t;
        }
    }
    let t = match lower.as_str() {
        "any" => Type::Any,
        "undef" => Type::Undef,
        "default" => Type::Default,
        "notundef" => Type::NotUndef(None),
        "boolean" => Type::Boolean(None),
        "numeric" => Type::Numeric,
        "integer" => Type::any_integer(),
        "float" => Type::any_float(),
        "string" => Type::any_string(),
        "enum" => Type::enumeration(vec![], false),
        "pattern" => Type::Pattern(Arc::new(vec![])),
        "regexp" => Type::Regexp(None),
        "scalar" => Type::Scalar,
        "scalardata" => Type::ScalarData,
        "data" => Type::data(),
        "richdata" => Type::rich_data(),
        "richdatakey" => Type::rich_data_key(),
        "collection" => Type::Collection(None),
        "array" => Type::array_of_any(),
        "hash" => Type::hash_of_any(),
        "tuple" => Type::tuple(vec![], None),
        "struct" => Type::structure(vec![]),
        "optional" => Type::Optional(None),
        "variant" => Type::Variant(Arc::new(vec![])),
        "type" => Type::Type(None),
        "class" => Type::Class(None),
        "resource" => Type::resource(None, None),
        "catalogentry" => Type::CatalogEntry,
        "callable" => Type::any_callable(),
        "iterable" => Type::Iterable(None),
        "iterator" => Type::Iterator(None),
        "sensitive" => Type::Sensitive(Arc::new(Type::Any)),
        "semver" => Type::SemVer(Arc::new(vec![])),
        "semverrange" => Type::SemVerRange,
        "timespan" => Type::Timespan(TimeRange::default()),
        "timestamp" => Type::Timestamp(TimeRange::default()),
        "binary" => Type::Binary,
        "init" => Type::Init(Arc::new(InitType {
            target: None,
            args: vec![],
        })),
        "runtime" => Type::Runtime(Arc::new(RuntimeType {
            runtime: None,
            name: None,
        })),
        "uri" => Type::Uri(None),
        "typereference" => Type::TypeReference(SmolStr::new("UnresolvedReference")),
        "object" => builtin_object("Object"),
        "typeset" => builtin_object("TypeSet"),
        "error" => builtin_object("Error"),
        "deferred" => builtin_object("Deferred"),
        "annotation" => builtin_object("Annotation"),
        "rubymethod" => builtin_object("RubyMethod"),
        "pcore" => builtin_object("Pcore"),
        "puppet::lookupcontext" => builtin_object("Puppet::LookupContext"),
        _ => {
            if let Some(t) = pcore_alias(&lower) {
                return t;
            }
            return resolver
                .resolve(bare)
                .unwrap_or_else(|| Type::TypeReference(SmolStr::new(name)));
        }
    };
    t
}

/// Puppet's label for a type in messages (its label provider): `Integer[1, 2]-Type`,
/// `File['x'] Resource-Reference`.
///
/// ```
/// use puppet_types::{params::type_label, Type};
/// assert_eq!(type_label(&Type::Any), "Any-Type");
/// ```
pub fn type_label(t: &Type) -> String {
    match t {
        Type::Resource(r) if r.title.is_some() => format!("{t} Resource-Reference"),
        _ => format!("{t}-Type"),
    }
}

fn article(s: &str) -> &'static str {
    match s
        .chars()
        .find(|c| c.is_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
    {
        Some('a' | 'e' | 'i' | 'o' | 'u' | 'y') => "An",
        _ => "A",
    }
}

fn a_an_uc(s: &str) -> String {
    format!("{} {s}", article(s))
}

fn a_an(s: &str) -> String {
    format!("{} {s}", article(s).to_lowercase())
}

/// The Ruby class name Puppet shows for a value in some messages.
fn ruby_class(v: &Value) -> &'static str {
    match v {
        Value::Undef => "NilClass",
        Value::Default => "Symbol",
        Value::Boolean(true) => "TrueClass",
        Value::Boolean(false) => "FalseClass",
        Value::Integer(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Regexp(_) => "Regexp",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
        Value::Type(_) => "Type",
        Value::Sensitive(_) => "Sensitive",
        Value::SemVer(_) => "SemanticPuppet::Version",
        Value::SemVerRange(_) => "SemanticPuppet::VersionRange",
        Value::Timespan(_) => "Puppet::Pops::Time::Timespan",
        Value::Timestamp(_) => "Puppet::Pops::Time::Timestamp",
        Value::Binary(_) => "Puppet::Pops::Types::PBinaryType::Binary",
        Value::Uri(_) => "URI::Generic",
        Value::Iterator(_) => "Puppet::Pops::Types::Iterable",
        Value::Object(_) => "Object",
    }
}

/// The name Puppet uses for a bad key (`bad_key_type_name`).
fn key_type_name(v: &Value) -> String {
    match v {
        Value::Undef => "Undef".into(),
        Value::Default => "Default".into(),
        other => generalize(&infer(other)).to_string(),
    }
}

fn arity(base: &str, min: usize, max: Option<usize>, actual: usize) -> TypeError {
    let msg = match max {
        None => format!("{base}[] accepts {min} or more arguments. Got {actual}"),
        Some(max) if max != min => {
            format!("{base}[] accepts {min} to {max} arguments. Got {actual}")
        }
        Some(_) => format!(
            "{base}[] accepts {min} {}. Got {actual}",
            if min == 1 { "argument" } else { "arguments" }
        ),
    };
    TypeError::BadArity(msg)
}

fn slice_type(base: &str, v: &Value) -> TypeError {
    TypeError::BadParameter(format!(
        "{base}[] arguments must be types. Got {}",
        ruby_class(v)
    ))
}

fn specialization(t: &Type, v: &Value, expected: &str) -> TypeError {
    TypeError::BadParameter(format!(
        "Error creating type specialization of {}, Cannot use {} where {expected} is expected",
        a_an(&type_label(t)),
        key_type_name(v)
    ))
}

fn as_type(v: &Value) -> Option<Type> {
    match v {
        Value::Type(t) => Some(t.clone()),
        _ => None,
    }
}

fn collection_size(keys: &[Value]) -> Result<IntRange, TypeError> {
    if let [Value::Type(Type::Integer(r))] = keys {
        return Ok(*r);
    }
    let mut bounds = [None, None];
    for (i, k) in keys.iter().enumerate() {
        bounds[i] = match k {
            Value::Integer(n) => Some(*n),
            Value::Default => None,
            other => {
                // Puppet names the argument's Ruby class: a type is `String-Type`.
                let class = match other {
                    Value::Type(t) => {
                        let text = t.to_string();
                        format!("{}-Type", text.split('[').next().unwrap_or(&text))
                    }
                    v => ruby_class(v).to_string(),
                };
                return Err(TypeError::BadParameter(format!(
                    "A Type's size constraint arguments must be a single Integer type, or 1-2 integers (or default). Got {}",
                    a_an(&class)
                )));
            }
        };
    }
    int_range(bounds[0], bounds[1])
}

fn int_range(min: Option<i64>, max: Option<i64>) -> Result<IntRange, TypeError> {
    if let (Some(a), Some(b)) = (min, max) {
        if a > b {
            // Puppet's text has no closing parenthesis.
            return Err(TypeError::Operation(format!(
                "'from' must be less or equal to 'to'. Got ({a}, {b}"
            )));
        }
    }
    Ok(IntRange::new(min, max))
}

fn flatten(args: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for a in args {
        match a {
            Value::Array(items) => out.extend(flatten(items)),
            other => out.push(other.clone()),
        }
    }
    out
}

fn is_range_param(v: &Value) -> bool {
    matches!(v, Value::Integer(_) | Value::Default) || v.as_str() == Some("default")
}

fn range_bound(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        _ => None,
    }
}

fn regexp_of(v: &Value, base: &Type) -> Result<Vec<Regexp>, TypeError> {
    match v {
        Value::String(s) => Ok(vec![Regexp::new(s)?]),
        Value::Regexp(r) => Ok(vec![r.clone()]),
        Value::Type(Type::Regexp(Some(r))) => Ok(vec![r.clone()]),
        Value::Type(Type::Regexp(None)) => Ok(vec![]),
        Value::Type(Type::Pattern(ps)) => Ok((**ps).clone()),
        other => Err(specialization(
            base,
            other,
            "String or Regexp or Pattern-Type or Regexp-Type",
        )),
    }
}

fn time_bound<T>(
    v: &Value,
    parse: impl Fn(&str) -> Result<T, TypeError>,
    from_secs: impl Fn(f64) -> T,
    from_value: impl Fn(&Value) -> Option<T>,
    from_hash: impl Fn(&crate::value::ValueMap) -> Result<T, TypeError>,
    what: &str,
) -> Result<Option<T>, TypeError> {
    match v {
        Value::Default | Value::Undef => Ok(None),
        Value::String(s) => parse(s).map(Some),
        Value::Integer(i) => Ok(Some(from_secs(*i as f64))),
        Value::Float(f) => Ok(Some(from_secs(*f))),
        Value::Hash(h) => from_hash(h).map(Some),
        other => from_value(other).map(Some).ok_or_else(|| {
            TypeError::BadParameter(format!(
                "Unable to create a {what} from a {}",
                ruby_class(other)
            ))
        }),
    }
}

/// A Timespan from a hash like `{hours => 3}`, as `Timespan` parameters and `new` accept it.
pub fn timespan_from_hash(h: &crate::value::ValueMap) -> Result<Timespan, TypeError> {
    let mut parts = Vec::new();
    for (k, v) in h.iter() {
        let key = k.as_str().unwrap_or("");
        let n: i128 = match v {
            Value::Integer(i) => *i as i128,
            Value::Boolean(b) => *b as i128,
            Value::Float(f) => *f as i128,
            _ => {
                return Err(TypeError::Conversion(format!(
                    "Timespan key '{key}' expects an Integer value"
                )))
            }
        };
        parts.push((key, n));
    }
    Timespan::from_parts(&parts)
}

fn timespan_bound(v: &Value) -> Result<Option<Timespan>, TypeError> {
    time_bound(
        v,
        Timespan::parse,
        Timespan::from_secs_f64,
        |x| match x {
            Value::Timespan(t) => Some(*t),
            _ => None,
        },
        timespan_from_hash,
        "Puppet::Pops::Time::Timespan",
    )
}

fn timestamp_bound(v: &Value) -> Result<Option<Timestamp>, TypeError> {
    time_bound(
        v,
        Timestamp::parse,
        Timestamp::from_secs_f64,
        |x| match x {
            Value::Timestamp(t) => Some(*t),
            _ => None,
        },
        |_| {
            Err(TypeError::BadParameter(
                "Unable to create a Puppet::Pops::Time::Timestamp from a Hash".into(),
            ))
        },
        "Puppet::Pops::Time::Timestamp",
    )
}

/// Parameterizes a type with evaluated arguments: `Integer[1, 2]` is
/// `parameterize(&Integer, &[1, 2])`.
///
/// Resource and Class references with several titles (`File['a', 'b']`) produce several types;
/// use [`parameterize_value`] for those. Here they are an error.
///
/// ```
/// use puppet_types::{parameterize, resolve_type_name, Value};
/// let t = parameterize(&resolve_type_name("Integer"), &[Value::Integer(1), Value::Integer(2)]).unwrap();
/// assert_eq!(t.to_string(), "Integer[1, 2]");
/// let err = parameterize(&resolve_type_name("Integer"), &[1.into(), 2.into(), 3.into()]).unwrap_err();
/// assert_eq!(err.to_string(), "Integer-Type supports [] with one or two arguments (from, to). Got 3");
/// ```
pub fn parameterize(base: &Type, args: &[Value]) -> Result<Type, TypeError> {
    match parameterize_value(base, args)? {
        Value::Type(t) => Ok(t),
        Value::Array(ts) if ts.len() == 1 => match &ts[0] {
            Value::Type(t) => Ok(t.clone()),
            _ => Err(TypeError::BadParameter("Expected a single type".into())),
        },
        _ => Err(TypeError::BadParameter(
            "The access produced several types; use parameterize_value".into(),
        )),
    }
}

/// Like [`parameterize`], but returns a Value: an Array of types for multi-title references.
pub fn parameterize_value(base: &Type, args: &[Value]) -> Result<Value, TypeError> {
    parameterize_inner(base, args)
}

fn parameterize_inner(base: &Type, raw: &[Value]) -> Result<Value, TypeError> {
    let t = |t: Type| Ok(Value::Type(t));
    let keys = flatten(raw);
    // Only an error needs the label: formatting it on every access was 10% of the cost.
    let label = || type_label(base);
    match base {
        Type::Any
        | Type::Undef
        | Type::Default
        | Type::Unit
        | Type::Numeric
        | Type::Scalar
        | Type::ScalarData
        | Type::CatalogEntry
        | Type::SemVerRange
        | Type::Binary => Err(TypeError::NotParameterized(base.to_string())),
        Type::Alias(a) => match a.resolved() {
            Type::Object(o) if o.kind == ObjectKind::Object => {
                o.access(base, &keys).map(Value::Type)
            }
            _ => Err(TypeError::NotParameterized(a.name().to_string())),
        },
        Type::Boolean(_) => {
            if keys.len() != 1 {
                return Err(arity(&a_an_uc(&label()), 1, Some(1), keys.len()));
            }
            match keys[0] {
                Value::Boolean(b) => t(Type::Boolean(Some(b))),
                ref other => Err(specialization(base, other, "Boolean")),
            }
        }
        Type::Enum(_) => {
            let mut keys = keys;
            let mut ci = false;
            if let Some(Value::Boolean(b)) = keys.last() {
                ci = *b;
                keys.pop();
            }
            if keys.is_empty() {
                return Err(arity(&a_an_uc(&label()), 1, None, 0));
            }
            let mut vals = Vec::new();
            for k in &keys {
                match k {
                    Value::String(s) => vals.push(s.text().clone()),
                    other => return Err(specialization(base, other, "String")),
                }
            }
            t(Type::enumeration(vals, ci))
        }
        Type::Variant(_) => {
            if keys.is_empty() {
                return Err(arity(&a_an_uc(&label()), 1, None, 0));
            }
            let mut ts = Vec::new();
            for k in &keys {
                ts.push(as_type(k).ok_or_else(|| specialization(base, k, "Any-Type"))?);
            }
            t(Type::variant_of(ts))
        }
        Type::SemVer(_) => {
            if keys.is_empty() {
                return Err(arity(&a_an_uc(&label()), 1, None, 0));
            }
            let mut ranges = Vec::new();
            for k in &keys {
                match k {
                    Value::String(s) => ranges.push(VersionRange::parse(s)?),
                    Value::SemVerRange(r) => ranges.push((**r).clone()),
                    other => return Err(specialization(base, other, "String or SemverRange")),
                }
            }
            if ranges.len() > 1 {
                ranges = VersionRange::merge_all(ranges);
            }
            t(Type::SemVer(Arc::new(ranges)))
        }
        Type::Timestamp(_) => {
            if keys.len() > 2 {
                return Err(arity(&a_an_uc(&label()), 0, Some(2), keys.len()));
            }
            let min = keys.first().map(timestamp_bound).transpose()?.flatten();
            let max = keys.get(1).map(timestamp_bound).transpose()?.flatten();
            if let (Some(a), Some(b)) = (min, max) {
                if a > b {
                    return Err(TypeError::Operation(format!(
                        "'from' must be less or equal to 'to'. Got ({a}, {b}"
                    )));
                }
            }
            t(Type::Timestamp(TimeRange { min, max }))
        }
        Type::Timespan(_) => {
            if keys.len() > 2 {
                return Err(arity(&a_an_uc(&label()), 0, Some(2), keys.len()));
            }
            let min = keys.first().map(timespan_bound).transpose()?.flatten();
            let max = keys.get(1).map(timespan_bound).transpose()?.flatten();
            if let (Some(a), Some(b)) = (min, max) {
                if a > b {
                    return Err(TypeError::Operation(format!(
                        "'from' must be less or equal to 'to'. Got ({a}, {b}"
                    )));
                }
            }
            t(Type::Timespan(TimeRange { min, max }))
        }
        Type::Tuple(_) => {
            let mut keys = keys;
            let n = keys.len();
            let mut size = None;
            if n >= 2 && is_range_param(&keys[n - 2]) && is_range_param(&keys[n - 1]) {
                let min = range_bound(&keys[n - 2]).unwrap_or(0);
                size = Some(int_range(Some(min), range_bound(&keys[n - 1]))?);
                keys.truncate(n - 2);
            } else if n >= 1 && is_range_param(&keys[n - 1]) {
                size = Some(IntRange::new(
                    Some(range_bound(&keys[n - 1]).unwrap_or(0)),
                    None,
                ));
                keys.truncate(n - 1);
            }
            if keys.is_empty() {
                return Err(arity(&a_an_uc(&label()), 1, None, 0));
            }
            let mut ts = Vec::new();
            for k in &keys {
                ts.push(as_type(k).ok_or_else(|| specialization(base, k, "Any-Type"))?);
            }
            t(Type::tuple(ts, size))
        }
        Type::Callable(_) => callable(base, raw).map(Value::Type),
        Type::Struct(_) => {
            if raw.len() != 1 {
                return Err(arity(&a_an_uc(&label()), 1, Some(1), raw.len()));
            }
            let Value::Hash(h) = &raw[0] else {
                return Err(specialization(base, &raw[0], "Hash"));
            };
            let mut elems = Vec::new();
            for (k, v) in h.iter() {
                let vt = as_type(v).ok_or_else(|| {
                    TypeError::BadParameter("Struct element value_type must be a Type".to_string())
                })?;
                elems.push(struct_element(k, vt)?);
            }
            t(Type::structure(elems))
        }
        Type::String(_) => {
            let size = match keys.len() {
                1 | 2 => collection_size(&keys)?,
                n => {
                    return Err(TypeError::BadArity(format!(
                        "String supports [] with one or two arguments. Got {n}"
                    )))
                }
            };
            t(Type::string_sized(size))
        }
        Type::Pattern(_) => {
            if keys.is_empty() {
                return Err(arity(&a_an_uc(&label()), 1, None, 0));
            }
            let mut ps = Vec::new();
            for k in &keys {
                for r in regexp_of(k, base)? {
                    if !ps.contains(&r) {
                        ps.push(r);
                    }
                }
            }
            t(Type::Pattern(Arc::new(ps)))
        }
        Type::Regexp(_) => {
            if keys.len() != 1 {
                return Err(arity(&a_an_uc(&label()), 1, Some(1), keys.len()));
            }
            match &keys[0] {
                Value::String(s) => t(Type::Regexp(Some(Regexp::new(s)?))),
                Value::Regexp(r) => t(Type::Regexp(Some(r.clone()))),
                other => Err(specialization(base, other, "String or Regexp")),
            }
        }
        Type::Uri(_) => {
            if keys.len() != 1 {
                return Err(arity("URI-Type", 1, Some(1), keys.len()));
            }
            match &keys[0] {
                Value::String(s) if !s.is_empty() => {
                    let m = crate::value::Uri::parse(s).to_parameter_map();
                    t(Type::Uri(if m.is_empty() {
                        None
                    } else {
                        Some(Arc::new(m))
                    }))
                }
                Value::Uri(u) => {
                    let m = u.to_parameter_map();
                    t(Type::Uri(if m.is_empty() {
                        None
                    } else {
                        Some(Arc::new(m))
                    }))
                }
                Value::Hash(h) => {
                    let mut m = indexmap::IndexMap::new();
                    for (k, v) in h.iter() {
                        match k.as_str() {
                            Some(key) => {
                                m.insert(SmolStr::new(key), v.clone());
                            }
                            None => return Err(slice_type("URI-Type", k)),
                        }
                    }
                    t(Type::Uri(if m.is_empty() {
                        None
                    } else {
                        Some(Arc::new(m))
                    }))
                }
                other => Err(slice_type("URI-Type", other)),
            }
        }
        Type::Optional(_) | Type::NotUndef(_) => {
            let is_opt = matches!(base, Type::Optional(_));
            let name = if is_opt {
                "Optional-Type"
            } else {
                "NotUndef-Type"
            };
            if keys.is_empty() && !is_opt {
                return t(Type::NotUndef(None));
            }
            if keys.len() != 1 {
                return Err(if is_opt {
                    arity(name, 1, Some(1), keys.len())
                } else {
                    arity(name, 0, Some(1), keys.len())
                });
            }
            let inner = match &keys[0] {
                Value::Type(x) => x.clone(),
                Value::String(s) => Type::String(StringType::Value(s.clone().into())),
                other => {
                    return Err(if is_opt {
                        slice_type(name, other)
                    } else {
                        TypeError::BadParameter(format!(
                            "{name}[] argument must be a Type or a String. Got {}",
                            ruby_class(other)
                        ))
                    })
                }
            };
            t(if is_opt {
                Type::optional(inner)
            } else {
                Type::not_undef(inner)
            })
        }
        Type::Sensitive(_) | Type::Type(_) | Type::Iterable(_) | Type::Iterator(_) => {
            let name = match base {
                Type::Sensitive(_) => "Sensitive-Type",
                Type::Type(_) => "Type-Type",
                Type::Iterable(_) => "Iterable-Type",
                _ => "Iterator-Type",
            };
            if keys.len() != 1 {
                return Err(arity(name, 1, Some(1), keys.len()));
            }
            let inner = as_type(&keys[0]).ok_or_else(|| slice_type(name, &keys[0]))?;
            t(match base {
                Type::Sensitive(_) => Type::sensitive(inner),
                Type::Type(_) => Type::type_of(inner),
                Type::Iterable(_) => Type::Iterable(Some(Arc::new(inner))),
                _ => Type::Iterator(Some(Arc::new(inner))),
            })
        }
        Type::Init(_) => {
            let Some(first) = raw.first() else {
                return Err(arity("Init-Type", 1, None, 0));
            };
            let target = match first {
                Value::Type(x) => x.clone(),
                Value::Undef if raw.len() == 1 => return t(base.clone()),
                other => return Err(slice_type("Init-Type", other)),
            };
            t(Type::Init(Arc::new(InitType {
                target: Some(target),
                args: raw[1..].to_vec(),
            })))
        }
        Type::Runtime(_) => {
            if keys.len() != 2 {
                return Err(arity(&a_an_uc(&label()), 2, Some(2), keys.len()));
            }
            let mut parts = [None, None];
            for (i, k) in keys.iter().enumerate() {
                match k {
                    Value::String(s) => parts[i] = Some(s.text().clone()),
                    other => return Err(specialization(base, other, "String")),
                }
            }
            let [runtime, name] = parts;
            t(Type::Runtime(Arc::new(RuntimeType { runtime, name })))
        }
        Type::Integer(_) => {
            if !(1..=2).contains(&keys.len()) {
                return Err(TypeError::BadArity(format!(
                    "Integer-Type supports [] with one or two arguments (from, to). Got {}",
                    keys.len()
                )));
            }
            let mut b = [None, None];
            for (i, k) in keys.iter().enumerate() {
                b[i] = match k {
                    Value::Integer(n) => Some(*n),
                    Value::Default => None,
                    other => {
                        return Err(TypeError::BadParameter(format!(
                            "Integer-Type [] requires all arguments to be integers (or default). Got {}",
                            ruby_class(other)
                        )))
                    }
                };
            }
            t(Type::Integer(int_range(b[0], b[1])?))
        }
        Type::Float(_) => {
            if !(1..=2).contains(&keys.len()) {
                return Err(TypeError::BadArity(format!(
                    "Float-Type supports [] with one or two arguments (from, to). Got {}",
                    keys.len()
                )));
            }
            let mut b = [f64::NEG_INFINITY, f64::INFINITY];
            for (i, k) in keys.iter().enumerate() {
                b[i] = match k {
                    Value::Integer(n) => *n as f64,
                    Value::Float(f) => *f,
                    Value::Default => b[i],
                    other => {
                        return Err(TypeError::BadParameter(format!(
                            "Float-Type [] requires all arguments to be floats, or integers (or default). Got {}",
                            ruby_class(other)
                        )))
                    }
                };
            }
            if b[0] > b[1] {
                return Err(TypeError::Operation(format!(
                    "'from' must be less or equal to 'to'. Got ({}, {}",
                    crate::format::float_to_s(b[0]),
                    crate::format::float_to_s(b[1])
                )));
            }
            t(Type::Float(FloatRange {
                min: b[0],
                max: b[1],
            }))
        }
        Type::Hash(_) => {
            if keys.len() == 2 {
                if let (Value::Integer(a), Value::Integer(b)) = (&keys[0], &keys[1]) {
                    return t(Type::hash(
                        Type::Any,
                        Type::Any,
                        Some(int_range(Some(*a), Some(*b))?),
                    ));
                }
            }
            let mut kv = Vec::new();
            for k in keys.iter().take(2) {
                kv.push(as_type(k).ok_or_else(|| slice_type("Hash-Type", k))?);
            }
            let size = match keys.len() {
                2 => None,
                3 => Some(match &keys[2] {
                    Value::Type(Type::Integer(r)) => *r,
                    Value::Integer(n) => IntRange::new(Some(*n), None),
                    Value::Default => IntRange::UNBOUNDED,
                    other => {
                        return Err(collection_size(std::slice::from_ref(other))
                            .err()
                            .unwrap_or_else(|| slice_type("Hash-Type", other)))
                    }
                }),
                4 => Some(collection_size(&keys[2..4])?),
                n => return Err(arity("Hash-Type", 2, Some(4), n)),
            };
            let (Some(k), Some(v)) = (kv.first(), kv.get(1)) else {
                return Err(arity("Hash-Type", 2, Some(4), keys.len()));
            };
            t(Type::hash(k.clone(), v.clone(), size))
        }
        Type::Collection(_) => {
            let size = match keys.len() {
                1 | 2 => collection_size(&keys)?,
                n => return Err(arity("Collection-Type", 1, Some(2), n)),
            };
            t(Type::Collection(Some(size.to_size())))
        }
        Type::Array(_) => match keys.len() {
            1 => {
                let e = as_type(&keys[0]).ok_or_else(|| slice_type("Array-Type", &keys[0]))?;
                t(Type::array(e, None))
            }
            2 => match as_type(&keys[0]) {
                Some(e) => t(Type::array(e, Some(collection_size(&keys[1..2])?))),
                None => t(Type::array(Type::Any, Some(collection_size(&keys[0..2])?))),
            },
            3 => {
                let e = as_type(&keys[0]).ok_or_else(|| slice_type("Array-Type", &keys[0]))?;
                t(Type::array(e, Some(collection_size(&keys[1..3])?)))
            }
            n => Err(arity("Array-Type", 1, Some(3), n)),
        },
        Type::TypeReference(name) => Err(TypeError::BadParameter(format!(
            "Resource type not found: {name}"
        ))),
        Type::Resource(r) => resource(base, r, raw),
        Type::Class(n) => class(base, n.as_deref(), raw),
        Type::Object(o) if o.kind == ObjectKind::Object && !o.is_plain_object() => {
            o.access(base, &keys).map(Value::Type)
        }
        Type::Object(o) => {
            if keys.len() != 1 {
                return Err(arity(
                    if o.kind == ObjectKind::TypeSet {
                        "TypeSet-Type"
                    } else {
                        "Object-Type"
                    },
                    1,
                    Some(1),
                    keys.len(),
                ));
            }
            if o.kind == ObjectKind::TypeSet {
                let mut text = String::from("TypeSet[");
                match &keys[0] {
                    Value::Hash(h) => {
                        text.push('{');
                        for (i, (k, v)) in h.iter().enumerate() {
                            if i > 0 {
                                text.push_str(", ");
                            }
                            text.push_str(&k.to_plain_string());
                            text.push_str(" => ");
                            text.push_str(&v.to_string());
                        }
                        text.push('}');
                    }
                    other => text.push_str(&other.to_string()),
                }
                text.push(']');
                let name = match &keys[0] {
                    Value::Hash(h) => h
                        .get(&Value::string("name"))
                        .and_then(|v| v.as_str())
                        .map(SmolStr::new),
                    _ => None,
                };
                return t(Type::Object(Arc::new(ObjectType {
                    name,
                    kind: ObjectKind::TypeSet,
                    text: SmolStr::new(text),
                    ..ObjectType::empty(None)
                })));
            }
            match &keys[0] {
                Value::Hash(h) => {
                    let o = ObjectType::from_init_hash(h)?;
                    // A parent that names no type is an error when the type is created.
                    if let Some(Type::TypeReference(n)) = &o.parent {
                        return Err(TypeError::Operation(format!(
                            "reference to unresolved type '{n}'"
                        )));
                    }
                    t(Type::Object(Arc::new(o)))
                }
                Value::String(s) => t(Type::Object(Arc::new(ObjectType::empty(Some(s))))),
                other => Err(TypeError::BadParameter(format!(
                    "Object-Type expects an initialization Hash, got {}",
                    generalize(&infer(other))
                ))),
            }
        }
    }
}

fn struct_element(k: &Value, vt: Type) -> Result<StructElement, TypeError> {
    let undef_ok = crate::assign::assignable(&vt, &Type::Undef);
    match k {
        Value::String(s) => {
            if s.is_empty() {
                return Err(TypeError::BadParameter(
                    "Struct element key cannot be an empty String".into(),
                ));
            }
            let kt = Type::String(StringType::Value(s.clone().into()));
            Ok(StructElement {
                name: s.clone().into(),
                key: if undef_ok { Type::optional(kt) } else { kt },
                value: vt,
            })
        }
        Value::Type(kt) => {
            let (key, s) = match kt {
                Type::NotUndef(Some(inner)) => ((**inner).clone(), (**inner).clone()),
                Type::Optional(Some(inner)) => (kt.clone(), (**inner).clone()),
                Type::String(_) => (kt.clone(), kt.clone()),
                Type::Enum(e) if e.values.len() == 1 => (kt.clone(), Type::String(StringType::Value(e.values[0].clone()))),
                _ => {
                    return Err(TypeError::BadParameter(format!(
                        "Illegal Struct member key type. Expected NotUndef, Optional, String, or Enum. Got: {kt}"
                    )))
                }
            };
            match s {
                Type::String(StringType::Value(name)) => Ok(StructElement {
                    name,
                    key,
                    value: vt,
                }),
                _ => Err(TypeError::BadParameter(format!(
                    "Unable to extract a non-empty literal string from Struct member key type {kt}"
                ))),
            }
        }
        other => Err(TypeError::BadParameter(format!(
            "Illegal Struct member key type. Expected NotUndef, Optional, String, or Enum. Got: {}",
            key_type_name(other)
        ))),
    }
}

fn callable(base: &Type, raw: &[Value]) -> Result<Type, TypeError> {
    let mut params: Vec<Value> = raw.to_vec();
    let mut returns = None;
    if let Some(Value::Array(first)) = params.first() {
        if params.len() != 2 {
            return Err(arity(&a_an_uc(&type_label(base)), 2, Some(2), params.len()));
        }
        returns =
            Some(as_type(&params[1]).ok_or_else(|| specialization(base, &params[1], "Any-Type"))?);
        params = (**first).clone();
    }
    let is_callable = |v: &Value| match v {
        Value::Type(t) => kind_of_callable(t),
        _ => false,
    };
    let mut block = None;
    if params.last().is_some_and(is_callable) {
        block = params.pop().and_then(|v| as_type(&v));
    }
    let n = params.len();
    let mut size = None;
    if n >= 2 && is_range_param(&params[n - 2]) && is_range_param(&params[n - 1]) {
        size = Some(int_range(
            range_bound(&params[n - 2]),
            range_bound(&params[n - 1]),
        )?);
        params.truncate(n - 2);
    } else if n >= 1 && is_range_param(&params[n - 1]) {
        size = Some(IntRange::new(range_bound(&params[n - 1]), None));
        params.truncate(n - 1);
    }
    let mut types = Vec::new();
    for p in &params {
        types.push(match p {
            Value::Type(t) => t.clone(),
            Value::String(s) => Type::Runtime(Arc::new(RuntimeType {
                runtime: Some("ruby".into()),
                name: Some(s.clone().into()),
            })),
            other => generalize(&infer(other)),
        });
    }
    if types.is_empty() && size.is_some_and(|s| s.hi() > 0) {
        types.push(Type::Unit);
    }
    Ok(Type::callable(
        Some(TupleType {
            types,
            size: size.map(IntRange::to_size),
        }),
        block,
        returns,
    ))
}

fn kind_of_callable(t: &Type) -> bool {
    match t {
        Type::Callable(_) => true,
        Type::Optional(Some(x)) => kind_of_callable(x),
        Type::Variant(vs) => !vs.is_empty() && vs.iter().all(kind_of_callable),
        Type::Alias(a) => {
            let r = a.resolved();
            !matches!(r, Type::Alias(_)) && kind_of_callable(&r)
        }
        _ => false,
    }
}

/// The segments of a `::`-separated name, as `name.split("::")` gives them, without setting
/// up a substring searcher (names are short, and this runs for every `File[$title]` and
/// every Ruby constant path).
pub fn path_segments(name: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(name);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.as_bytes().windows(2).position(|w| w == b"::") {
            Some(i) => {
                rest = Some(&r[i + 2..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

fn classref_ok(name: &str) -> bool {
    // Puppet's CLASSREF_EXT: ((::)?[A-Z][\w]*)(::[A-Z][\w]*)*
    let name = name.strip_prefix("::").unwrap_or(name);
    let mut segments = path_segments(name);
    !name.is_empty()
        && segments.all(|seg| {
            let mut cs = seg.chars();
            cs.next().is_some_and(|c| c.is_ascii_uppercase())
                && cs.all(|c| c.is_alphanumeric() || c == '_')
        })
}

fn resource(
    base: &Type,
    r: &crate::types::ResourceType,
    raw: &[Value],
) -> Result<Value, TypeError> {
    if raw.is_empty() {
        return Err(arity(&base.to_string(), 1, None, 0));
    }
    // The common `File[$title]`: a resource type and one title, what the general path
    // below makes, without its copies.
    if let (Some(n), None, [Value::String(title)]) = (&r.type_name, &r.title, raw) {
        if classref_ok(n) {
            return Ok(Value::Type(Type::Resource(Arc::new(
                crate::types::ResourceType {
                    type_name: Some(n.clone()),
                    title: Some(title.clone().into()),
                },
            ))));
        }
    }
    let mut keys: Vec<Value> = raw.to_vec();
    let type_name: String = match &r.type_name {
        Some(n) => n.to_string(),
        None => {
            let first = keys.remove(0);
            match first {
                Value::String(s) => capitalize_segments(&s),
                Value::Type(Type::Resource(rt)) if rt.type_name.is_some() => {
                    rt.type_name.as_deref().unwrap_or_default().to_string()
                }
                Value::Type(Type::TypeReference(s)) => {
                    // Resource[Nonesuch['fife']]: the reference text holds the title.
                    if let Some(idx) = s.find('[') {
                        let title = s[idx + 1..]
                            .trim_end_matches(']')
                            .trim_matches('\'')
                            .to_string();
                        keys.insert(0, Value::string(title));
                        s[..idx].to_string()
                    } else {
                        s.to_string()
                    }
                }
                other => {
                    return Err(TypeError::BadParameter(format!(
                        "First argument to Resource[] must be a resource type or a String. Got {}.",
                        key_type_name(&other)
                    )))
                }
            }
        }
    };
    if !classref_ok(&type_name) {
        return Err(TypeError::BadParameter(format!(
            "Illegal type reference. The given name '{type_name}' does not conform to the naming rule"
        )));
    }
    if r.title.is_some() {
        return Err(TypeError::BadParameter(format!(
            "Resource parameter access needs a catalog: {}",
            Type::resource(Some(&type_name), r.title.as_deref())
        )));
    }
    let result_array = keys.len() > 1 || matches!(keys.first(), Some(Value::Array(_)));
    let orig = keys.len();
    let mut flat: Vec<Value> = flatten(&keys)
        .into_iter()
        .filter(|v| !v.is_undef())
        .collect();
    if flat.is_empty() && orig > 0 {
        return Ok(if result_array {
            Value::array(vec![])
        } else {
            Value::Undef
        });
    }
    if flat.is_empty() {
        flat.push(Value::Default);
        return Ok(Value::Type(Type::resource(Some(&type_name), None)));
    }
    let mut out = Vec::new();
    for k in &flat {
        match k {
            Value::String(s) => out.push(Value::Type(Type::resource(Some(&type_name), Some(s)))),
            other => {
                return Err(TypeError::BadParameter(format!(
                    "Error creating type specialization of {}, Cannot use {} where a resource title String is expected",
                    a_an(&type_label(base)),
                    key_type_name(other)
                )))
            }
        }
    }
    Ok(if result_array {
        Value::array(out)
    } else {
        out.pop().unwrap_or(Value::Undef)
    })
}

fn class(base: &Type, name: Option<&str>, raw: &[Value]) -> Result<Value, TypeError> {
    if raw.is_empty() {
        return Err(arity(&base.to_string(), 1, None, 0));
    }
    if name.is_some() {
        return Err(TypeError::BadParameter(format!(
            "Class parameter access needs a catalog: {base}"
        )));
    }
    let result_array = raw.len() > 1 || matches!(raw.first(), Some(Value::Array(_)));
    let flat: Vec<Value> = flatten(raw).into_iter().filter(|v| !v.is_undef()).collect();
    if flat.is_empty() {
        return Ok(if result_array {
            Value::array(vec![])
        } else {
            Value::Undef
        });
    }
    let mut out = Vec::new();
    for k in &flat {
        let Value::String(s) = k else {
            // Puppet's label of a value: its kind, not its detailed type.
            let label = match k {
                Value::Type(t) => type_label(t),
                Value::Regexp(_) => "Regexp".to_string(),
                Value::Array(_) => "Array".to_string(),
                Value::Hash(_) => "Hash".to_string(),
                other => key_type_name(other),
            };
            return Err(TypeError::BadParameter(format!(
                "Illegal Class name in class reference. {} cannot be used where a String is expected",
                a_an_uc(&label)
            )));
        };
        let lower = s.to_lowercase();
        let n = lower.strip_prefix("::").unwrap_or(&lower);
        let ok = !n.is_empty()
            && n.split("::").enumerate().all(|(i, seg)| {
                let mut cs = seg.chars();
                cs.next()
                    .is_some_and(|c| c.is_ascii_lowercase() || (i == 0 && c == '_'))
                    && cs.all(|c| c.is_alphanumeric() || c == '_')
            });
        if !ok {
            return Err(TypeError::BadParameter(format!(
                "Illegal name. The given name '{s}' does not conform to the naming rule /^((::)?[a-z_]\\w*)(::[a-z]\\w*)*$/"
            )));
        }
        out.push(Value::Type(Type::class(Some(n))));
    }
    Ok(if result_array {
        Value::array(out)
    } else {
        out.pop().unwrap_or(Value::Undef)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `path_segments` gives `split("::")`'s segments, odd colons and non-ASCII included.
    #[test]
    fn path_segments_are_split_s() {
        for p in [
            "", "A", "A::B", "::A", "A::", "A:::B", "A::::B", ":", "::", ":::", "a:b::c", "é::ü",
        ] {
            assert_eq!(
                path_segments(p).collect::<Vec<_>>(),
                p.split("::").collect::<Vec<_>>(),
                "{p}"
            );
        }
    }

    /// `classref_ok` splits as `split("::")` does.
    #[test]
    fn classref_segments_are_split_s() {
        let by_split = |name: &str| {
            let name = name.strip_prefix("::").unwrap_or(name);
            !name.is_empty()
                && name.split("::").all(|seg| {
                    let mut cs = seg.chars();
                    cs.next().is_some_and(|c| c.is_ascii_uppercase())
                        && cs.all(|c| c.is_alphanumeric() || c == '_')
                })
        };
        let names = [
            "",
            "::",
            "File",
            "::File",
            "::::File",
            "Foo::Bar",
            "Foo::bar",
            "Foo:::Bar",
            "Foo::::Bar",
            "Foo::",
            "::Foo::",
            "Foo:Bar",
            "F",
            "Fé::Bär",
            "Foo::Bar_2",
            "foo",
            "Foo::Bar::",
            ":Foo",
            "Foo::B:",
        ];
        for n in names {
            assert_eq!(classref_ok(n), by_split(n), "{n:?}");
        }
    }

    /// `File[title]` (the shortcut) is what `Resource[File, title]` and
    /// `Resource['file', title]` (the general path) give; a name that is no class reference
    /// still fails as before.
    #[test]
    fn resource_title_shortcut_matches_the_general_path() {
        let file = Type::resource(Some("File"), None);
        let any = Type::resource(None, None);
        for title in ["/etc/motd", "", "x y", "Ü"] {
            let t = Value::string(title);
            let short = parameterize_value(&file, std::slice::from_ref(&t)).unwrap();
            let general =
                parameterize_value(&any, &[Value::Type(file.clone()), t.clone()]).unwrap();
            let by_name = parameterize_value(&any, &[Value::string("file"), t.clone()]).unwrap();
            assert_eq!(short, general);
            assert_eq!(short, by_name);
            assert_eq!(
                short,
                Value::Type(Type::resource(Some("File"), Some(title)))
            );
        }
        let bad = Type::resource(Some("file"), None);
        assert!(parameterize_value(&bad, &[Value::string("x")]).is_err());
        let titled = Type::resource(Some("File"), Some("a"));
        assert!(parameterize_value(&titled, &[Value::string("x")]).is_err());
    }
}
