//! Object types and values: building, creating, printing, comparing (Puppet 7.23 behaviour,
//! texts from the conformance corpus).

use puppet_types::types::TypeAlias;
use puppet_types::{
    assignable, generalize, infer, is_instance, parameterize, resolve_type_name, Type, Value,
};

fn s(x: &str) -> Value {
    Value::string(x)
}
fn ty(name: &str) -> Value {
    Value::Type(resolve_type_name(name))
}
fn h(pairs: Vec<(&str, Value)>) -> Value {
    Value::hash(pairs.into_iter().map(|(k, v)| (s(k), v)))
}

/// `type <name> = Object[<init>]`, as the evaluator does it.
fn alias(name: &str, init: Value) -> Type {
    let t = parameterize(&resolve_type_name("Object"), &[init]).expect("object type");
    let a = TypeAlias::new(name);
    a.resolve_to(t);
    Type::Alias(a)
}

fn new(t: &Type, args: &[Value]) -> Result<Value, String> {
    puppet_types::convert::new_value(t, args).map_err(|e| e.to_string())
}

#[test]
fn create_print_and_read() {
    let t = alias(
        "MyObject",
        h(vec![(
            "attributes",
            h(vec![("a", ty("Integer")), ("b", ty("String"))]),
        )]),
    );
    assert_eq!(
        t.to_string(),
        "Object[{name => 'MyObject', attributes => {'a' => Integer, 'b' => String}}]"
    );
    let o = new(&t, &[Value::Integer(3), s("hi")]).unwrap();
    assert_eq!(o.to_string(), "MyObject({'a' => 3, 'b' => 'hi'})");
    let o2 = new(&t, &[h(vec![("b", s("hi")), ("a", Value::Integer(3))])]).unwrap();
    assert_eq!(o, o2);
    let Value::Object(ov) = &o else { panic!() };
    assert_eq!(ov.get("a"), Some(&Value::Integer(3)));
    assert_eq!(ov.call("b", &[]).unwrap().unwrap(), s("hi"));
    assert!(is_instance(&t, &o));
    assert!(is_instance(&resolve_type_name("Object"), &o));
    assert!(!is_instance(&resolve_type_name("Error"), &o));
    assert_eq!(infer(&o).to_string(), t.to_string());
    assert!(assignable(&t, &infer(&o)) && assignable(&infer(&o), &t));
    let err = new(&t, &[s("x"), s("y")]).unwrap_err();
    assert!(
        err.contains("parameter 'a' expects an Integer value, got String"),
        "{err}"
    );
}

#[test]
fn defaults_constants_and_inheritance() {
    let first = alias(
        "MyFirstObject",
        h(vec![(
            "attributes",
            h(vec![
                ("a", ty("Integer")),
                (
                    "b",
                    h(vec![
                        ("type", ty("String")),
                        ("kind", s("constant")),
                        ("value", s("the first constant")),
                    ]),
                ),
                ("c", ty("String")),
            ]),
        )]),
    );
    let second = alias(
        "MySecondObject",
        h(vec![
            ("parent", Value::Type(first.clone())),
            (
                "attributes",
                h(vec![(
                    "d",
                    h(vec![("type", ty("Integer")), ("value", Value::Integer(34))]),
                )]),
            ),
        ]),
    );
    let o = new(&second, &[Value::Integer(3), s("hi")]).unwrap();
    let Value::Object(ov) = &o else { panic!() };
    let names: Vec<&str> = ov.values.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);
    assert_eq!(ov.get("b"), Some(&s("the first constant")));
    assert_eq!(ov.get("d"), Some(&Value::Integer(34)));
    assert_eq!(o.to_string(), "MySecondObject({'a' => 3, 'c' => 'hi'})");
    assert!(is_instance(&first, &o));
    assert!(assignable(&first, &second));
    assert!(!assignable(&second, &first));
    assert_eq!(
        second.to_string(),
        "Object[{name => 'MySecondObject', parent => MyFirstObject, attributes => {'d' => {type => Integer, value => 34}}}]"
    );
    assert_eq!(
        first.to_string(),
        "Object[{name => 'MyFirstObject', attributes => {'a' => Integer, 'c' => String}, constants => {'b' => 'the first constant'}}]"
    );
    // Nested, an object type shows its name.
    assert_eq!(Type::optional(first).to_string(), "Optional[MyFirstObject]");
}

#[test]
fn new_errors() {
    let t = alias(
        "MyFirstObject",
        h(vec![("attributes", h(vec![("a", ty("String"))]))]),
    );
    assert_eq!(
        new(&t, &[]).unwrap_err(),
        "'new_MyFirstObject' expects 1 argument, got none"
    );
    assert_eq!(
        new(&t, &[h(vec![])]).unwrap_err(),
        "The function 'new_MyFirstObject' was called with arguments it does not accept. It expects one of:\n  (Struct[{'a' => String}] hash)\n    rejected: parameter 'hash' expects size to be 1, got 0\n  (String a)\n    rejected: parameter 'a' expects a String value, got Hash"
    );
}

#[test]
fn error_and_deferred() {
    let e = new(
        &resolve_type_name("Error"),
        &[
            s("bad things happened"),
            s("puppet/error"),
            h(vec![("detail", s("val"))]),
            s("OOPS"),
        ],
    )
    .unwrap();
    assert_eq!(
        e.to_string(),
        "Error({'msg' => 'bad things happened', 'kind' => 'puppet/error', 'details' => {'detail' => 'val'}, 'issue_code' => 'OOPS'})"
    );
    assert_eq!(infer(&e).to_string(), "Error['puppet/error', 'OOPS']");
    assert!(generalize(&infer(&e))
        .to_string()
        .starts_with("Object[{name => 'Error'"));
    let Value::Object(ov) = &e else { panic!() };
    assert_eq!(
        ov.call("message", &[]).unwrap().unwrap(),
        s("bad things happened")
    );
    let err = resolve_type_name("Error");
    let p = |args: &[Value]| parameterize(&err, args).unwrap();
    assert!(is_instance(
        &p(&[Value::Regexp(
            puppet_types::Regexp::new("puppet/error").unwrap()
        )]),
        &e
    ));
    assert!(is_instance(&p(&[Value::Default, s("OOPS")]), &e));
    assert!(!is_instance(&p(&[Value::Default, s("FOO")]), &e));
    assert!(is_instance(&infer(&e), &e));

    let d = new(
        &resolve_type_name("Deferred"),
        &[h(vec![
            ("name", s("michelangelo")),
            ("arguments", Value::array(vec![Value::Integer(1)])),
        ])],
    )
    .unwrap();
    assert_eq!(
        d.to_string(),
        "Deferred({'name' => 'michelangelo', 'arguments' => [1]})"
    );
    assert!(is_instance(&resolve_type_name("Deferred"), &d));
    assert!(is_instance(&resolve_type_name("RichData"), &d));
    assert!(!is_instance(&resolve_type_name("Data"), &d));
}

#[test]
fn type_parameters() {
    let t = alias(
        "MyType",
        h(vec![
            (
                "type_parameters",
                h(vec![("p1", ty("String")), ("p2", ty("String"))]),
            ),
            (
                "attributes",
                h(vec![("p1", ty("String")), ("p2", ty("String"))]),
            ),
        ]),
    );
    let x = new(&t, &[s("good bye"), s("cruel world")]).unwrap();
    let by_name = parameterize(
        &t,
        &[h(vec![("p1", s("good bye")), ("p2", s("cruel world"))])],
    )
    .unwrap();
    assert!(is_instance(&by_name, &x));
    let other = parameterize(&t, &[h(vec![("p1", s("hello"))])]).unwrap();
    assert!(!is_instance(&other, &x));
    assert_eq!(
        parameterize(&t, &[Value::Default, s("world")])
            .unwrap()
            .to_string(),
        "MyType[default, 'world']"
    );
    let e = parameterize(&t, &[Value::Default]).unwrap_err().to_string();
    assert_eq!(
        e,
        "The MyType-Type cannot be parameterized using an empty parameter list"
    );
}

#[test]
fn subtype_by_access_and_optional_attributes() {
    let first = alias(
        "MyObject",
        h(vec![
            ("name", s("MyFirstObject")),
            ("attributes", h(vec![("a", ty("String"))])),
        ]),
    );
    let sub = parameterize(
        &first,
        &[h(vec![("attributes", h(vec![("b", ty("String"))]))])],
    )
    .unwrap();
    let a = TypeAlias::new("MySecondObject");
    a.resolve_to(sub);
    let second = Type::Alias(a);
    assert!(assignable(&first, &second) && !assignable(&second, &first));
    assert_eq!(
        new(&second, &[s("hello"), s("world")]).unwrap().to_string(),
        "MySecondObject({'a' => 'hello', 'b' => 'world'})"
    );
    let opt = alias(
        "MyType",
        h(vec![("attributes", h(vec![("p1", ty("Optional"))]))]),
    );
    let o = new(&opt, &[]).unwrap();
    assert_eq!(o.to_string(), "MyType({'p1' => undef})");
}

#[test]
fn ruby_method_string_bodies() {
    let f = h(vec![
        (
            "type",
            Value::Type(
                parameterize(
                    &resolve_type_name("Callable"),
                    &[
                        Value::array(vec![Value::Integer(0), Value::Integer(0)]),
                        ty("String"),
                    ],
                )
                .unwrap(),
            ),
        ),
        (
            "annotations",
            Value::hash([(ty("RubyMethod"), h(vec![("body", s("'value of alias'"))]))]),
        ),
    ]);
    let t = alias("MyObject", h(vec![("functions", h(vec![("alias", f)]))]));
    let Value::Object(o) = new(&t, &[]).unwrap() else {
        panic!()
    };
    assert_eq!(o.call("alias", &[]).unwrap().unwrap(), s("value of alias"));
    assert!(o.call("nonesuch", &[]).is_none());
}

#[test]
fn lookup_context_type_prints_as_puppets() {
    // Puppet 7.23: `notice(Puppet::LookupContext)` (the Pcore type a Hiera backend's
    // `context` has).
    let t = resolve_type_name("Puppet::LookupContext");
    assert_eq!(
        t.to_string(),
        "Object[{name => 'Puppet::LookupContext', parent => Any, attributes => {'environment_name' => {type => String[1], kind => derived}, 'module_name' => Variant[String[1], Undef]}, functions => {'not_found' => Callable[[0, 0], Undef], 'explain' => Callable[[0, 0, Callable[0, 0]], Undef], 'interpolate' => Callable[1, 1], 'cache' => Callable[Optional[Scalar], Any], 'cache_all' => Callable[[Hash[Optional[Scalar], Any]], Undef], 'cache_has_key' => Callable[[Optional[Scalar]], Boolean], 'cached_value' => Callable[Optional[Scalar]], 'cached_entries' => Variant[Callable[[0, 0, Callable[1, 1]], Undef], Callable[[0, 0, Callable[2, 2]], Undef], Callable[[0, 0], Iterable[Tuple[Optional[Scalar], Any]]]], 'cached_file_data' => Callable[String, Optional[Callable[Array[Integer]]]]}}]"
    );
    assert!(!is_instance(&t, &Value::Integer(1)));
}
