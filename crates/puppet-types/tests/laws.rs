//! Property tests of the type system's laws: every value is an instance of its inferred
//! types, assignability is reflexive and transitive, and a type's text reads back as the same
//! type (through the test reader in `support`).

mod support;

use proptest::prelude::*;
use puppet_types::types::{FloatRange, IntRange, Type};
use puppet_types::{
    assignable, generalize, infer, infer_set, is_instance, normalize, parameterize,
    resolve_type_name, Value,
};
use std::sync::Arc;

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Undef),
        Just(Value::Default),
        any::<bool>().prop_map(Value::Boolean),
        any::<i64>().prop_map(Value::Integer),
        (-1e12f64..1e12).prop_map(Value::Float),
        "[a-zA-Z0-9 '\\\\]{0,8}".prop_map(Value::string),
        (0i64..100_000).prop_map(|s| Value::Timespan(puppet_types::Timespan::from_secs(s))),
        (0i64..2_000_000_000).prop_map(|s| Value::Timestamp(puppet_types::Timestamp::from_secs(s))),
        Just(Value::Type(Type::any_integer())),
        Just(Value::Binary(Arc::from(vec![1u8, 2, 3]))),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::array),
            prop::collection::vec(("[a-z]{1,4}", inner.clone()), 0..5)
                .prop_map(|kv| Value::hash(kv.into_iter().map(|(k, v)| (Value::string(k), v)))),
            prop::collection::vec((any::<i8>(), inner.clone()), 0..4).prop_map(|kv| Value::hash(
                kv.into_iter().map(|(k, v)| (Value::Integer(k as i64), v))
            )),
            inner.prop_map(|v| Value::Sensitive(Arc::new(v))),
        ]
    })
}

fn contains_nested_undef(v: &Value) -> bool {
    fn inner(v: &Value) -> bool {
        match v {
            Value::Undef => true,
            Value::Array(a) => a.iter().any(inner),
            Value::Hash(h) => h.iter().any(|(k, x)| inner(k) || inner(x)),
            Value::Sensitive(x) => inner(x),
            _ => false,
        }
    }
    match v {
        Value::Array(a) => a.iter().any(inner),
        Value::Hash(h) => h.iter().any(|(k, x)| inner(k) || inner(x)),
        Value::Sensitive(x) => contains_nested_undef(x),
        _ => false,
    }
}

fn sensitive_with_nested_undef(v: &Value) -> bool {
    match v {
        Value::Sensitive(x) => contains_nested_undef(x) || sensitive_with_nested_undef(x),
        Value::Array(a) => a.iter().any(sensitive_with_nested_undef),
        Value::Hash(h) => h.values().any(sensitive_with_nested_undef),
        _ => false,
    }
}

fn range() -> impl Strategy<Value = IntRange> {
    (prop::option::of(-50i64..50), prop::option::of(0i64..100)).prop_map(|(a, b)| match (a, b) {
        (Some(a), Some(b)) if a > b => IntRange::new(Some(b), Some(a)),
        (a, b) => IntRange::new(a, b),
    })
}

fn size() -> impl Strategy<Value = Option<IntRange>> {
    prop::option::of(
        (0i64..4, prop::option::of(0i64..6)).prop_map(|(a, b)| match b {
            Some(b) if b < a => IntRange::new(Some(b), Some(a)),
            b => IntRange::new(Some(a), b),
        }),
    )
}

fn p(name: &str, args: Vec<Value>) -> Type {
    parameterize(&resolve_type_name(name), &args).unwrap_or(Type::Any)
}

fn type_strategy() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        Just(Type::Any),
        Just(Type::Undef),
        Just(Type::Default),
        Just(Type::Numeric),
        Just(Type::Scalar),
        Just(Type::ScalarData),
        Just(Type::Binary),
        Just(Type::SemVerRange),
        Just(Type::data()),
        Just(Type::rich_data()),
        Just(Type::any_string()),
        Just(Type::Regexp(None)),
        Just(Type::Collection(None)),
        Just(resolve_type_name("Timespan")),
        prop::option::of(any::<bool>()).prop_map(Type::Boolean),
        range().prop_map(Type::Integer),
        (-20i32..20, 0i32..40).prop_map(|(a, w)| Type::Float(FloatRange {
            min: a as f64 / 2.0,
            max: (a + w) as f64 / 2.0
        })),
        (0i64..3, 3i64..6).prop_map(|(a, b)| Type::string_sized(IntRange::new(Some(a), Some(b)))),
        (
            prop::sample::subsequence(vec!["a", "b", "ab", "B"], 1..4),
            any::<bool>()
        )
            .prop_map(|(vs, ci)| Type::enumeration(vs.into_iter().map(Into::into), ci)),
        prop::sample::subsequence(vec!["^a", "b$", "x+"], 1..3)
            .prop_map(|ps| p("Pattern", ps.into_iter().map(Value::string).collect())),
        "[a-z]{1,6}".prop_map(|n| Type::class(Some(&n))),
        (
            prop::sample::select(vec!["File", "Notify", "Exec", "Package"]),
            prop::option::of("[a-z/]{1,5}")
        )
            .prop_map(|(t, title)| Type::resource(Some(t), title.as_deref())),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), size()).prop_map(|(t, s)| Type::array(t, s)),
            (inner.clone(), inner.clone(), size()).prop_map(|(k, v, s)| Type::hash(k, v, s)),
            (prop::collection::vec(inner.clone(), 1..4), size())
                .prop_map(|(ts, s)| Type::tuple(ts, s)),
            inner.clone().prop_map(Type::optional),
            // Only types that reject undef: Puppet's NotUndef over a type that accepts undef is
            // not even assignable to itself (a quirk of 7.23 this crate keeps).
            inner
                .clone()
                .prop_filter("accepts undef", |t| !assignable(t, &Type::Undef))
                .prop_map(Type::not_undef),
            inner.clone().prop_map(Type::type_of),
            inner
                .clone()
                .prop_map(|t| p("Iterable", vec![Value::Type(t)])),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Type::variant_of),
            prop::collection::vec(("[a-z]{1,3}", inner), 1..4).prop_map(|kv| {
                p(
                    "Struct",
                    vec![Value::hash(
                        kv.into_iter()
                            .map(|(k, v)| (Value::string(k), Value::Type(v))),
                    )],
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn values_are_instances_of_their_inferred_types(v in value_strategy()) {
        // Inside Sensitive, Puppet infers the reduced way too.
        if !sensitive_with_nested_undef(&v) {
            prop_assert!(is_instance(&infer_set(&v), &v), "infer_set {} of {}", infer_set(&v), v);
        }
        // Puppet's reduced inference drops undef when it reduces element types
        // (`[undef, default]` infers as `Array[Default, 2, 2]`), so the law holds for values
        // without undef inside containers only.
        if !contains_nested_undef(&v) {
            prop_assert!(is_instance(&infer(&v), &v), "infer {} of {}", infer(&v), v);
            prop_assert!(is_instance(&generalize(&infer(&v)), &v), "generalized {} of {}", generalize(&infer(&v)), v);
        }
    }

    #[test]
    fn assignability_is_reflexive(t in type_strategy()) {
        prop_assert!(assignable(&t, &t), "{} is not assignable to itself", t);
    }

    #[test]
    fn assignability_is_transitive(a in type_strategy(), b in type_strategy(), c in type_strategy()) {
        if assignable(&a, &b) && assignable(&b, &c) {
            prop_assert!(assignable(&a, &c), "{} >= {} >= {} but not {} >= {}", a, b, c, a, c);
        }
    }

    #[test]
    fn normalize_keeps_meaning(t in type_strategy(), v in value_strategy()) {
        // Puppet 7.23's normalize drops the size of `Collection[n]` and `Array[Any, n]`
        // (observed in types.jsonl), which changes their meaning; those are left out.
        let text = t.to_string();
        prop_assume!(!text.contains("Collection[") && !text.contains("Array[Any,"));
        let n = normalize(&t);
        prop_assert_eq!(is_instance(&t, &v), is_instance(&n, &v), "{} vs normalized {} on {}", t, n, v);
    }

    #[test]
    fn display_then_parse_roundtrips(t in type_strategy()) {
        let text = t.to_string();
        let back = support::parse_type(&text);
        prop_assert!(back.is_ok(), "{} does not parse: {:?}", text, back);
        let back = back.unwrap_or(Type::Any);
        prop_assert_eq!(back.to_string(), text.clone());
        prop_assert_eq!(back, t, "{}", text);
    }

    #[test]
    fn value_text_roundtrips_for_data(v in value_strategy()) {
        // Only plain data reads back; skip values whose %p form is a constructor call (or
        // Ruby's inspect of a Sensitive).
        let text = v.to_string();
        if !text.contains("#<Sensitive") && !text.contains("Timespan(") && !text.contains("Timestamp(")
            && !text.contains("Binary(") && !text.contains("Integer") && !text.contains('\\') {
            let back = support::parse_value(&text, support::Mode::Evaluator);
            prop_assert!(back.is_ok(), "{} does not parse: {:?}", text, back);
            prop_assert_eq!(back.map(|b| b.to_string()).unwrap_or_default(), text);
        }
    }
}

const TYPE_NAMES: [&str; 40] = [
    "Any",
    "Undef",
    "Default",
    "NotUndef",
    "Boolean",
    "Numeric",
    "Integer",
    "Float",
    "String",
    "Enum",
    "Pattern",
    "Regexp",
    "Scalar",
    "ScalarData",
    "Data",
    "RichData",
    "Collection",
    "Array",
    "Hash",
    "Tuple",
    "Struct",
    "Optional",
    "Variant",
    "Type",
    "Class",
    "Resource",
    "CatalogEntry",
    "Callable",
    "Iterable",
    "Iterator",
    "Sensitive",
    "SemVer",
    "SemVerRange",
    "Timespan",
    "Timestamp",
    "Binary",
    "Init",
    "Runtime",
    "URI",
    "Object",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parameterize_never_panics(
        name in prop::sample::select(TYPE_NAMES.to_vec()),
        args in prop::collection::vec(prop_oneof![value_strategy(), type_strategy().prop_map(Value::Type)], 0..5),
    ) {
        let base = resolve_type_name(name);
        if let Ok(t) = parameterize(&base, &args) {
            let _ = t.to_string();
            let _ = normalize(&t);
            prop_assert!(assignable(&Type::Any, &t));
        }
        let _ = puppet_types::convert::new_value(&base, &args);
    }

    #[test]
    fn text_parsers_never_panic(s in "\\PC{0,40}") {
        let _ = puppet_types::Timespan::parse(&s);
        let _ = puppet_types::Timestamp::parse(&s);
        let _ = puppet_types::Version::parse(&s);
        let _ = puppet_types::VersionRange::parse(&s);
        let _ = puppet_types::Regexp::new(&s);
        let _ = puppet_types::convert::format_value(&Value::Integer(42), Some(&s));
        let _ = puppet_types::convert::integer_from(&Value::string(&s), None, false);
        let _ = puppet_types::convert::float_from(&Value::string(&s), false);
        let _ = puppet_types::convert::numeric_from(&Value::string(&s), false);
        let _ = support::parse_type(&s);
    }

    #[test]
    fn time_values_print_without_panic(ns in any::<i128>()) {
        let _ = puppet_types::Timespan(ns).to_string();
        let _ = puppet_types::Timestamp(ns).to_string();
    }
}
