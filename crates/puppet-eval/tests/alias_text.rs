//! How type aliases print: a type value that is an alias shows `Name = <type>` with the
//! aliases inside it expanded too (Puppet's `to_alias_expanded_s`), an alias inside another
//! type shows its name; an alias resolves to its normalized type, a self-recursive Variant
//! member dropped.
//!
//! The expected logs were produced by Puppet 7.23 itself:
//! `/work/shared/oracle/compile-catalog --with-logs -e '<PROGRAM>'`.

use puppet_eval::{evaluate_source, Settings};

const PROGRAM: &str = "type EVariants = Variant[Enum[a,b],Enum[b,c],Enum[c,d]] \
notice(EVariants) notice(Array[EVariants]) type Foo = Variant[Foo,String,Integer] notice(Foo) \
type UP = Integer[1024,65537] type PM = Hash[UP,String] notice(PM) notice(String(PM, '%p')) \
notice({a => PM}) notice([PM]) notice(\"${PM}\") notice(Optional[PM]) \
notice(Variant[UP, String])";

const PUPPET: &[&str] = &[
    "EVariants = Enum['a', 'b', 'c', 'd']",
    "Array[EVariants]",
    "Foo = Variant[String, Integer]",
    "PM = Hash[UP = Integer[1024, 65537], String]",
    "PM = Hash[UP = Integer[1024, 65537], String]",
    "{a => PM = Hash[UP = Integer[1024, 65537], String]}",
    "[PM = Hash[UP = Integer[1024, 65537], String]]",
    "PM = Hash[UP = Integer[1024, 65537], String]",
    "Optional[PM]",
    "Variant[UP, String]",
];

#[test]
fn aliases_print_as_in_puppet() {
    let out = evaluate_source(PROGRAM, &Settings::default());
    assert!(out.value.is_ok(), "{:?}", out.value);
    let logs: Vec<&str> = out.logs.iter().map(|l| l.message.as_str()).collect();
    assert_eq!(logs, PUPPET);
}

/// Puppet interprets an alias body with its type parser: no variables (eval_errors.jsonl
/// `types:592`).
#[test]
fn alias_bodies_are_type_specifications() {
    let out = evaluate_source(
        "type Foo = Enum[$facts[os][family]]\nnotice(Foo)",
        &Settings::default(),
    );
    let e = out.value.expect_err("an error");
    assert_eq!(
        e.message,
        "Error while evaluating a Type-Name, The expression <$facts[os][family]> is not a valid type specification."
    );
    assert_eq!(e.line_col(), Some((2, 8)));
}

/// An alias body is read as Puppet's type parser reads it: an unknown name is a type
/// reference; an Object parent that names no type fails where the alias is used (answers of
/// Puppet 7.23).
#[test]
fn alias_bodies_reference_unknown_names() {
    let out = evaluate_source("type A = Array[B] notice(A)", &Settings::default());
    assert!(out.value.is_ok(), "{:?}", out.value);
    assert_eq!(out.logs[0].message, "A = Array[TypeReference['B']]");
    let out = evaluate_source(
        "type A = Object[{parent => B, attributes => {a => String}}] notice(A)",
        &Settings::default(),
    );
    let e = out.value.expect_err("an error");
    assert_eq!(
        e.message,
        "Error while evaluating a Type-Name, reference to unresolved type 'B'"
    );
}

/// Alias-expanded, an Object type shows its definition; in mismatch texts it keeps its name
/// (answers of Puppet 7.23).
#[test]
fn object_types_inside_expanded_aliases() {
    let out = evaluate_source(
        "type MyObj = Object[{attributes => {a => Integer}}] type X = Array[MyObj] notice(X) notice(Array[MyObj])",
        &Settings::default(),
    );
    let logs: Vec<&str> = out.logs.iter().map(|l| l.message.as_str()).collect();
    assert_eq!(
        logs,
        [
            "X = Array[Object[{name => 'MyObj', attributes => {'a' => Integer}}]]",
            "Array[MyObj]"
        ]
    );
    let out = evaluate_source(
        "type MyObj = Object[{attributes => {a => Integer}}] function f(MyObj $x) {} f(1)",
        &Settings::default(),
    );
    assert_eq!(
        out.value.expect_err("an error").message,
        "Error while evaluating a Function Call, 'f' parameter 'x' expects a MyObj value, got Integer"
    );
}
