//! Mismatch texts, checked against messages observed on Puppet 7.23 (functions.jsonl and
//! eval_errors.jsonl of the shared conformance corpus).

mod support;

use puppet_types::mismatch::describe_value_mismatch;
use support::{parse_type, parse_value, Mode};

fn check(name: &str, ty: &str, value: &str, want: &str) {
    let t = parse_type(ty).unwrap();
    let v = parse_value(value, Mode::Evaluator).unwrap();
    let got = describe_value_mismatch(name, &t, &v).unwrap_or_default();
    assert_eq!(got, want, "{value} against {ty}");
}

#[test]
fn simple_type_mismatches() {
    check("", "Integer", "'a'", "expects an Integer value, got String");
    check(
        "",
        "Optional[String]",
        "1",
        "expects a value of type Undef or String, got Integer",
    );
    check(
        "",
        "Integer[1, 2]",
        "3",
        "expects an Integer[1, 2] value, got Integer[3, 3]",
    );
    check(
        "'step' parameter 'step'",
        "Integer[1]",
        "0",
        "'step' parameter 'step' expects an Integer[1] value, got Integer[0, 0]",
    );
    check(
        "'f' parameter 'x'",
        "NotUndef",
        "undef",
        "'f' parameter 'x' expects a NotUndef value, got Undef",
    );
    check(
        "'f' parameter 'c'",
        "Callable",
        "1",
        "'f' parameter 'c' expects a Callable value, got Integer",
    );
    check(
        "'split' parameter 'str'",
        "String",
        "1",
        "'split' parameter 'str' expects a String value, got Integer",
    );
}

#[test]
fn variants() {
    check(
        "'abs' parameter 'val'",
        "Variant[Numeric, String]",
        "[1]",
        "'abs' parameter 'val' expects a value of type Numeric or String, got Tuple",
    );
    check(
        "'abs' parameter 'val'",
        "Variant[Numeric, String]",
        "{a => 1}",
        "'abs' parameter 'val' expects a value of type Numeric or String, got Struct",
    );
    check(
        "'size' parameter 'arg'",
        "Variant[Collection, String, Binary]",
        "1",
        "'size' parameter 'arg' expects a value of type Collection, String, or Binary, got Integer",
    );
    check(
        "'dig' parameter 'data'",
        "Optional[Collection]",
        "'a'",
        "'dig' parameter 'data' expects a value of type Undef or Collection, got String",
    );
}

#[test]
fn patterns_and_enums() {
    check(
        "'f' parameter 'x'",
        "Enum['a', 'b']",
        "'c'",
        "'f' parameter 'x' expects a match for Enum['a', 'b'], got 'c'",
    );
    check(
        "'f' parameter 'x'",
        "Pattern[/^a/]",
        "'b'",
        "'f' parameter 'x' expects a match for Pattern[/^a/], got 'b'",
    );
}

#[test]
fn containers() {
    check(
        "'f' parameter 'x'",
        "Array[Integer]",
        "[1, 'a']",
        "'f' parameter 'x' index 1 expects an Integer value, got String",
    );
    check(
        "'f' parameter 'x'",
        "Hash[String, Integer]",
        "{1 => 1}",
        "'f' parameter 'x' expects a Hash[String, Integer] value, got Hash[Integer[1, 1], Integer[1, 1]]",
    );
    check(
        "'f' parameter 'h'",
        "Hash[String, Integer, 1]",
        "{}",
        "'f' parameter 'h' expects size to be at least 1, got 0",
    );
    check(
        "assert_type():",
        "Struct[{a => Integer, b => Integer}]",
        "{a => 'x', x => 1}",
        " assert_type(): entry 'a' expects an Integer value, got String\n  assert_type(): expects a value for key 'b'\n  assert_type(): unrecognized key 'x'",
    );
}

#[test]
fn matching_values_have_no_description() {
    let t = parse_type("Integer").unwrap();
    assert_eq!(
        describe_value_mismatch("", &t, &puppet_types::Value::Integer(1)),
        None
    );
}
