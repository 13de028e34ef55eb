//! Every built-in called through the registry with a mock context (lambdas are Rust closures).
//! Each case names the `functions.jsonl` case it re-expresses (`abs:13`, `hw/builtin/...`) or
//! says `doc` when it comes from the function's documentation. The expected texts are
//! Puppet's `%p` renderings or error messages without the evaluator's prefix.

mod common;

use common::{args, block, call, int, rest_block, v, Mock};
use puppet_functions::{builtins, Block, CallContext, CallError, FnBlock};
use puppet_types::Value;

fn ok(name: &str, a: &str) -> String {
    match call(name, args(a), None) {
        Ok(s) => s,
        Err(e) => panic!("{name}({a}) failed: {e}"),
    }
}

fn err(name: &str, a: &str) -> String {
    match call(name, args(a), None) {
        Ok(s) => panic!("{name}({a}) gave {s}, expected an error"),
        Err(e) => e,
    }
}

fn with_block(name: &str, a: &str, b: &dyn Block) -> Result<String, String> {
    call(name, args(a), Some(b))
}

fn num(x: &Value) -> f64 {
    match x {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

#[test]
fn numbers() {
    // abs:11..23, ceiling:11.*, floor:11.*, round:11.*, hw/builtin/abs-*
    assert_eq!(ok("abs", "-1"), "1");
    assert_eq!(ok("abs", "-1.1"), "1.1");
    assert_eq!(ok("abs", "'-3'"), "3");
    assert_eq!(ok("ceiling", "-1.5"), "-1");
    assert_eq!(ok("ceiling", "1.1"), "2");
    assert_eq!(ok("floor", "-1.5"), "-2");
    assert_eq!(ok("floor", "'3.9'"), "3");
    assert_eq!(ok("round", "2.5"), "3");
    assert_eq!(ok("round", "-2.5"), "-3");
    assert_eq!(ok("round", "7"), "7");
    assert_eq!(
        err("abs", "[1]"),
        "'abs' parameter 'val' expects a value of type Numeric or String, got Tuple"
    );
    assert_eq!(err("abs", ""), "'abs' expects 1 argument, got none");
    // abs:34: the String conversion logs a deprecation warning.
    let reg = builtins::registry();
    let mut ctx = Mock::new(reg);
    reg.call(&mut ctx, "abs", args("'0'"), None).unwrap();
    assert_eq!(ctx.logs, ["warning: The abs() function's auto conversion of String to Numeric is deprecated - change to convert input before calling\n   (file & line not available)"]);
}

#[test]
fn strings() {
    // camelcase:11..19, capitalize:11..19, downcase, upcase, chomp, chop, strip, lstrip, rstrip
    assert_eq!(ok("camelcase", "'abc_def'"), "'AbcDef'");
    assert_eq!(ok("camelcase", "'åäö_äö'"), "'ÅäöÄö'");
    assert_eq!(ok("camelcase", "42"), "42");
    assert_eq!(ok("capitalize", "'åäö'"), "'Åäö'");
    assert_eq!(ok("capitalize", "['abc', 'bcd']"), "['Abc', 'Bcd']");
    assert_eq!(ok("downcase", "'ÅÄÖ'"), "'åäö'");
    assert_eq!(
        ok("downcase", "{'ABC' => ['DEF', 1]}"),
        "{'abc' => ['def', 1]}"
    );
    assert_eq!(ok("upcase", "'åäö'"), "'ÅÄÖ'");
    assert_eq!(ok("upcase", "1"), "1");
    assert_eq!(ok("chomp", "\"abc\\r\\n\""), "'abc'");
    assert_eq!(ok("chomp", "['a\\n']"), "['a\\n']");
    assert_eq!(ok("chomp", "[\"a\\n\", 'b']"), "['a', 'b']");
    assert_eq!(ok("chop", "'abc'"), "'ab'");
    assert_eq!(ok("chop", "''"), "''");
    assert_eq!(ok("chop", "\"abc\\r\\n\""), "'abc'");
    assert_eq!(ok("strip", "\"\\t\\n abc \""), "'abc'");
    assert_eq!(ok("lstrip", "\"\\t\\n abc \""), "'abc '");
    assert_eq!(ok("rstrip", "\" abc\\t\\n \""), "' abc'");
    assert_eq!(ok("strip", "[' a ', ' b ']"), "['a', 'b']");
    // split:*, hw/builtin/split-*
    assert_eq!(ok("split", "'a,b,c';','"), "['a', 'b', 'c']");
    assert_eq!(ok("split", "'abc';''"), "['a', 'b', 'c']");
    assert_eq!(ok("split", "'a1b22c';/\\d+/"), "['a', 'b', 'c']");
    assert_eq!(ok("split", "'a,b,,';','"), "['a', 'b']");
    assert_eq!(ok("split", "',a';','"), "['', 'a']");
    assert_eq!(ok("split", "'a,b';Regexp[/,/]"), "['a', 'b']");
    // hw/builtin/match-array, match
    assert_eq!(
        ok("match", "['a1', 'b'];/([a-z])(\\d)?/"),
        "[['a1', 'a', '1'], ['b', 'b', undef]]"
    );
    assert_eq!(ok("match", "'abc';'x'"), "undef");
    assert_eq!(ok("match", "'abc';Pattern[/(b)/]"), "['b', 'b']");
    // regsubst:*, hw/builtin/regsubst-*
    assert_eq!(ok("regsubst", "'abcb';'b';'x'"), "'axcb'");
    assert_eq!(ok("regsubst", "'abcb';'b';'x';'G'"), "'axcx'");
    assert_eq!(ok("regsubst", "'aBc';'b';'x';'I'"), "'axc'");
    assert_eq!(ok("regsubst", "'abc';/(b)/;'<\\1>'"), "'a<b>c'");
    assert_eq!(ok("regsubst", "['ab', 'cb'];/b/;'x'"), "['ax', 'cx']");
    assert_eq!(
        ok("regsubst", "'abc';/[ac]/;{a => 'A', c => 'C'};'G'"),
        "'AbC'"
    );
    // sprintf (3.x function), versioncmp
    assert_eq!(ok("sprintf", "'%s-%03d';'a';7"), "'a-007'");
    assert_eq!(ok("sprintf", "'%.2f%%';3.14159"), "'3.14%'");
    assert_eq!(ok("versioncmp", "'1.2.10';'1.2.9'"), "1");
    assert_eq!(ok("versioncmp", "'1.0';'1.0'"), "0");
    assert_eq!(ok("versioncmp", "'1.0';'1.0.0'"), "-1");
    assert_eq!(ok("versioncmp", "'1.0';'1.0.0';true"), "0");
    assert_eq!(ok("versioncmp", "'1.0-rc1';'1.0'"), "1");
    // scanf:11 (Puppet 7.23 cannot load Ruby's scanf)
    assert_eq!(err("scanf", "'42';'%i'"), "cannot load such file -- scanf");
    // strftime (doc)
    let ts = Value::Timestamp(puppet_types::Timestamp::parse("2020-01-02T03:04:05.123Z").unwrap());
    let out = call(
        "strftime",
        vec![ts.clone(), v("'%Y-%m-%d %H:%M:%S.%L %a %b %j %Z'")],
        None,
    )
    .unwrap();
    assert_eq!(out, "'2020-01-02 03:04:05.123 Thu Jan 002 UTC'");
    let span = Value::Timespan(puppet_types::Timespan::from_secs(93_784));
    assert_eq!(
        call("strftime", vec![span, v("'%D %H:%M:%S'")], None).unwrap(),
        "'1 02:03:04'"
    );
}

#[test]
fn collections() {
    // keys:11, values:11, hw/builtin/keys-array
    assert_eq!(
        ok("keys", "{'apples' => 1, 'oranges' => 2}"),
        "['apples', 'oranges']"
    );
    assert_eq!(ok("values", "{'apples' => 1, 'oranges' => 2}"), "[1, 2]");
    assert_eq!(ok("keys", "{}"), "[]");
    assert_eq!(
        err("keys", "[1]"),
        "'keys' parameter 'hsh' expects a Hash value, got Tuple"
    );
    // length:*, size:*, hw/builtin/length-hash
    assert_eq!(ok("length", "[]"), "0");
    assert_eq!(ok("length", "[1, 2, 3]"), "3");
    assert_eq!(ok("length", "{a => 1, b => 2}"), "2");
    assert_eq!(ok("length", "'åäö'"), "3");
    assert_eq!(ok("size", "{}"), "0");
    assert_eq!(ok("size", "'abc'"), "3");
    // empty:15..82, hw/builtin/empty-various
    for (a, e) in [
        ("[]", "true"),
        ("[1]", "false"),
        ("{}", "true"),
        ("{1 => 1}", "false"),
        ("0", "false"),
        ("0.0", "false"),
        ("''", "true"),
        ("' '", "false"),
        ("undef", "true"),
    ] {
        assert_eq!(ok("empty", a), e, "empty({a})");
    }
    let s = Value::Sensitive(std::sync::Arc::new(v("''")));
    assert_eq!(call("empty", vec![s], None).unwrap(), "true");
    // flatten:13..29, hw/builtin/flatten
    assert_eq!(ok("flatten", "[1, [2, [3, [4]]]]"), "[1, 2, 3, 4]");
    assert_eq!(ok("flatten", "1"), "[1]");
    assert_eq!(ok("flatten", "{a => 1}"), "[{'a' => 1}]");
    assert_eq!(ok("flatten", "[1];2;[[3, 4]]"), "[1, 2, 3, 4]");
    // join:11..31, hw/builtin/join-*
    assert_eq!(ok("join", "[1, 2, 3]"), "'123'");
    assert_eq!(ok("join", "[1, 2, 3];'x'"), "'1x2x3'");
    assert_eq!(ok("join", "[]"), "''");
    assert_eq!(ok("join", "[1, 2, [3, 4]]"), "'1234'");
    assert_eq!(ok("join", "[1, 2, {a => [3, 4]}]"), "'12{\"a\"=>[3, 4]}'");
    assert_eq!(ok("join", "[undef, undef];'x'"), "'x'");
    assert_eq!(ok("join", "[1, [2, [3]]];'-'"), "'1-2-3'");
    assert_eq!(
        err("join", "1"),
        "'join' parameter 'arg' expects an Array value, got Integer"
    );
    // unique:12, unique:18, doc
    assert_eq!(ok("unique", "'abcbbcc'"), "'abc'");
    assert_eq!(ok("unique", "'abcAbbBccC'"), "'abcABC'");
    assert_eq!(ok("unique", "[1, 2, 1, '1']"), "[1, 2, '1']");
    assert_eq!(
        ok("unique", "{a => 1, b => 2, c => 1}"),
        "{['a', 'c'] => [1], ['b'] => [2]}"
    );
    let down = block(1, |a| {
        Value::string(a[0].as_str().unwrap_or_default().to_lowercase())
    });
    assert_eq!(
        with_block("unique", "['a', 'A', 'b']", &down).unwrap(),
        "['a', 'b']"
    );
    // sort:11..77
    assert_eq!(ok("sort", "'bac'"), "'abc'");
    assert_eq!(ok("sort", "'BaC'"), "'BCa'");
    assert_eq!(ok("sort", "[3, 1, 2]"), "[1, 2, 3]");
    assert_eq!(ok("sort", "['b', 'A', 'a']"), "['A', 'a', 'b']");
    assert_eq!(
        err("sort", "[1, 'a']"),
        "comparison of Integer with String failed"
    );
    let cmp = FnBlock::new(2, |c: &mut dyn CallContext, a: Vec<Value>| {
        c.call_function("compare", a, None)
    });
    assert_eq!(with_block("sort", "'bac'", &cmp).unwrap(), "'abc'");
    assert_eq!(
        with_block("sort", "['b', 'A', 'a']", &cmp).unwrap(),
        "['A', 'a', 'b']"
    );
    // max:14..111, min:14..111, hw/builtin/max-*, hw/builtin/min-strings
    assert_eq!(ok("max", "1;3;2"), "3");
    assert_eq!(ok("max", "'a';'b'"), "'b'");
    assert_eq!(ok("max", "[1, 2, 3]"), "3");
    assert_eq!(ok("max", "['1', '2', '3']"), "'3'");
    assert_eq!(ok("max", "[1, '2', 3]"), "3");
    assert_eq!(ok("max", "1;'a'"), "'a'");
    assert_eq!(ok("min", "'b';'a';'c'"), "'a'");
    assert_eq!(ok("min", "[1, '2', 3]"), "1");
    assert_eq!(
        err("max", ""),
        "max(): Wrong number of arguments need at least one"
    );
    assert_eq!(
        err("min", ""),
        "min(): Wrong number of arguments need at least one"
    );
    assert_eq!(with_block("max", "'2';'10'", &cmp).unwrap(), "'2'");
    assert_eq!(with_block("min", "'2';'10'", &cmp).unwrap(), "'10'");
    let by_len = FnBlock::new(2, |c: &mut dyn CallContext, a: Vec<Value>| {
        let l: Vec<Value> = a
            .iter()
            .map(|x| Value::Integer(x.as_str().map_or(0, |s| s.len() as i64)))
            .collect();
        c.call_function("compare", l, None)
    });
    assert_eq!(
        with_block("max", "'aaa';'b';'cc'", &by_len).unwrap(),
        "'aaa'"
    );
    // compare:97..141, hw/builtin/compare-types
    assert_eq!(ok("compare", "1;2"), "-1");
    assert_eq!(ok("compare", "'a';'A'"), "0");
    assert_eq!(ok("compare", "'a';'A';false"), "1");
    assert_eq!(ok("compare", "2.5;2"), "1");
    assert_eq!(err("compare", "undef;1"), "'compare' compare(): Non comparable type. Only values of the types Numeric, String, Semver, Timestamp and Timestamp can be compared. Got Undef Value and Integer");
    assert_eq!(err("compare", "[1];[1]"), "'compare' compare(): Non comparable type. Only values of the types Numeric, String, Semver, Timestamp and Timestamp can be compared. Got Array and Array");
    assert_eq!(err("compare", "true;false"), "'compare' compare(): Non comparable type. Only values of the types Numeric, String, Semver, Timestamp and Timestamp can be compared. Got Boolean and Boolean");
    assert_eq!(err("compare", "10;'hello'"), "'compare' compare(): Can only compare values of the same type (or for Timestamp/Timespan also against Numeric). Got Integer and String");
    assert_eq!(err("compare", "'hello';10.0"), "'compare' compare(): Can only compare values of the same type (or for Timestamp/Timespan also against Numeric). Got String and Float");
    assert_eq!(err("compare", "10;10;true"), "'compare' compare(): The third argument (ignore case) can only be used when comparing strings");
    assert_eq!(
        err("compare", "'a';'b';false;false"),
        "'compare' compare(): Accepts at most 3 arguments, got 4"
    );
    // dig:11..53, hw/builtin/dig*
    assert_eq!(ok("dig", "['testing'];0"), "'testing'");
    assert_eq!(ok("dig", "['testing'];undef"), "undef");
    assert_eq!(ok("dig", "undef;undef"), "undef");
    assert_eq!(ok("dig", "{key => 'testing'};'key'"), "'testing'");
    assert_eq!(ok("dig", "['nope', ['testing']];1;0"), "'testing'");
    assert_eq!(ok("dig", "['nope', {yes => 'testing'}];1;'no';2"), "undef");
    assert_eq!(ok("dig", "{a => [1, {b => 2}]};'a';1;'b'"), "2");
    assert_eq!(ok("dig", "{a => undef};'a';'b';'c'"), "undef");
    assert_eq!(
        err("dig", "['nope', {yes => 'testing'}];1;'yes';2"),
        "The given data does not contain a Collection at [1, \"yes\"], got 'String'"
    );
    assert_eq!(
        err("dig", "'hello';1"),
        "'dig' parameter 'data' expects a value of type Undef or Collection, got String"
    );
    // get:12..131, hw/builtin/get-path
    for (a, e) in [
        ("undef;''", "undef"),
        ("undef;'0'", "undef"),
        ("[undef];'0'", "undef"),
        ("{a => undef};'a'", "undef"),
        ("[1];'2'", "undef"),
        ("{a => 43};'b'", "undef"),
        ("undef;'';'ok'", "'ok'"),
        ("undef;'0';'ok'", "'ok'"),
        ("[undef];'0';'ok'", "'ok'"),
        ("{a => undef};'a';'ok'", "'ok'"),
        ("[1];'2';'ok'", "'ok'"),
        ("{a => 43};'b';'ok'", "'ok'"),
        ("'ok';''", "'ok'"),
        ("['nope', ['ok']];'1.0'", "'ok'"),
        ("{a => 'nope', b => ['ok']};'b.0'", "'ok'"),
        ("{a => 'nope', 0 => ['ok']};'0.0'", "'ok'"),
        ("{a => 'nope', '0' => ['ok']};'\"0\".0'", "'ok'"),
        ("{a => [1, 2]};'a.1'", "2"),
    ] {
        assert_eq!(ok("get", a), e, "get({a})");
    }
    assert_eq!(
        err("get", "['nope', ['ok']];'1.blue'"),
        "The given data requires an Integer index at [1, \"blue\"], got 'String'"
    );
    let undef_block = block(1, |_| Value::Undef);
    assert_eq!(
        with_block("get", "['nope', ['ok']];'1.blue';'nope'", &undef_block).unwrap(),
        "undef"
    );
    assert_eq!(
        with_block("get", "['nope', /nah/];'1.blue'", &undef_block).unwrap(),
        "undef"
    );
    assert_eq!(
        with_block("get", "['nope', /nah/];'1....'", &undef_block).unwrap_err(),
        "Syntax error in dotted-navigation string"
    );
}

#[test]
fn iteration() {
    let id = block(1, |a| a[0].clone());
    let pair = block(2, |a| Value::array(a.to_vec()));
    // each:12..38: each returns its receiver; hw/builtin/each-integer
    assert_eq!(with_block("each", "[1, 2, 3]", &id).unwrap(), "[1, 2, 3]");
    assert_eq!(with_block("each", "3", &id).unwrap(), "3");
    // hw/builtin/each-hash-one-param, hw/builtin/each-hash-two-params (through map)
    assert_eq!(with_block("map", "{a => 1}", &id).unwrap(), "[['a', 1]]");
    assert_eq!(with_block("map", "{a => 1}", &pair).unwrap(), "[['a', 1]]");
    assert_eq!(
        with_block("map", "['x', 'y']", &pair).unwrap(),
        "[[0, 'x'], [1, 'y']]"
    );
    assert_eq!(
        with_block("map", "Integer[1, 3]", &id).unwrap(),
        "[1, 2, 3]"
    );
    assert_eq!(with_block("map", "'ab'", &id).unwrap(), "['a', 'b']");
    // map:101 |*$kv|
    assert_eq!(
        with_block("map", "{a => 1}", &rest_block()).unwrap(),
        "[['a', 1]]"
    );
    // filter:13..126, hw/builtin/filter-hash
    let big = block(2, |a| Value::Boolean(num(&a[1]) > 1.0));
    assert_eq!(
        with_block("filter", "{a => 1, b => 2}", &big).unwrap(),
        "{'b' => 2}"
    );
    assert_eq!(
        with_block("filter", "[1, 2, false, undef]", &id).unwrap(),
        "[1, 2]"
    );
    let berry = block(1, |a| {
        Value::Boolean(a[0].as_str().is_some_and(|s| s.ends_with("berry")))
    });
    assert_eq!(
        with_block("filter", "['strawberry', 'blueberry', 'orange']", &berry).unwrap(),
        "['strawberry', 'blueberry']"
    );
    // reduce:21..41
    let sum = block(2, |a| Value::Integer(int(&a[0]) + int(&a[1])));
    assert_eq!(with_block("reduce", "[1, 2, 3]", &sum).unwrap(), "6");
    assert_eq!(with_block("reduce", "Integer[1, 3]", &sum).unwrap(), "6");
    assert_eq!(with_block("reduce", "[1, 2, 3];4", &sum).unwrap(), "10");
    let count = block(2, |a| Value::Integer(int(&a[0]) + 1));
    assert_eq!(with_block("reduce", "[];0", &count).unwrap(), "0");
    // any:12..32, all:12..32
    let two = block(1, |a| Value::Boolean(a[0] == Value::Integer(2)));
    assert_eq!(with_block("any", "[1, 2, 3]", &two).unwrap(), "true");
    assert_eq!(with_block("all", "[1, 2, 3]", &two).unwrap(), "false");
    let dbl = block(2, |a| Value::Boolean(int(&a[1]) == int(&a[0]) * 2));
    assert_eq!(with_block("all", "[0, 2, 4]", &dbl).unwrap(), "true");
    let kv = block(1, |a| match &a[0] {
        Value::Array(p) => Value::Boolean(p[1] == v("'be'")),
        _ => Value::Boolean(false),
    });
    assert_eq!(
        with_block("any", "{'a' => 'ah', 'b' => 'be'}", &kv).unwrap(),
        "true"
    );
    // index:12..119, hw/builtin/index-string
    assert_eq!(with_block("index", "[1, 2, 3]", &two).unwrap(), "1");
    assert_eq!(
        with_block("index", "{a => 1, b => 2}", &two).unwrap(),
        "'b'"
    );
    assert_eq!(ok("index", "'abcd';'c'"), "2");
    assert_eq!(ok("index", "[1, 2, 3];3"), "2");
    assert_eq!(ok("index", "{a => 1};1"), "'a'");
    assert_eq!(ok("index", "'abcd';/d/"), "3");
    assert_eq!(ok("index", "'abcd';'x'"), "undef");
    // slice:100..124
    assert_eq!(
        ok("slice", "[1, 'present', 2, 'absent'];2"),
        "[[1, 'present'], [2, 'absent']]"
    );
    assert_eq!(
        ok("slice", "{a => 1, b => 2, c => 3};2"),
        "[[['a', 1], ['b', 2]], [['c', 3]]]"
    );
    assert_eq!(with_block("slice", "4;2", &pair).unwrap(), "4");
    assert_eq!(with_block("slice", "'abcd';2", &pair).unwrap(), "'abcd'");
    // step:103..111, reverse_each:100..105 (iterators render like arrays)
    assert_eq!(ok("step", "[1, 2, 3, 4, 5];2"), "[1, 3, 5]");
    assert_eq!(ok("reverse_each", "[1, 2, 3]"), "[3, 2, 1]");
    // With a block, step and reverse_each return undef (step:103, reverse_each:52).
    assert_eq!(
        with_block("step", "Integer[5, 20];4", &id).unwrap(),
        "undef"
    );
    assert_eq!(with_block("reverse_each", "[1, 2]", &id).unwrap(), "undef");
    assert_eq!(
        err("reverse_each", "3.14"),
        "'reverse_each' parameter 'iterable' expects an Iterable value, got Float"
    );
    // with:11..19, hw/pl/with-typed-lambda, the extra argument is ignored (README)
    assert_eq!(with_block("with", "1;2", &rest_block()).unwrap(), "[1, 2]");
    assert_eq!(with_block("with", "1;2", &id).unwrap(), "1");
    // then:11..19, lest:11..19, hw/builtin/lest-*
    let fallback = block(0, |_| v("'fallback'"));
    assert_eq!(
        with_block("lest", "undef", &fallback).unwrap(),
        "'fallback'"
    );
    assert_eq!(with_block("lest", "1", &fallback).unwrap(), "1");
    assert_eq!(with_block("then", "undef", &id).unwrap(), "undef");
    assert_eq!(with_block("then", "'testing'", &id).unwrap(), "'testing'");
    // group_by:13..25, partition:13..25
    let len = block(1, |a| {
        Value::Integer(a[0].as_str().map_or(0, |s| s.len() as i64))
    });
    assert_eq!(
        with_block("group_by", "['a', 'b', 'ab']", &len).unwrap(),
        "{1 => ['a', 'b'], 2 => ['ab']}"
    );
    let il = block(2, |a| {
        Value::Integer(int(&a[0]) % 2 + a[1].as_str().map_or(0, |s| s.len() as i64))
    });
    assert_eq!(
        with_block("group_by", "['a', 'b', 'ab']", &il).unwrap(),
        "{1 => ['a'], 2 => ['b', 'ab']}"
    );
    let kvlen = block(1, |a| match &a[0] {
        Value::Array(p) => Value::Integer(match &p[1] {
            Value::Array(x) => x.len() as i64,
            _ => 0,
        }),
        _ => Value::Undef,
    });
    assert_eq!(
        with_block("group_by", "{a => [1, 2], b => [1]}", &kvlen).unwrap(),
        "{2 => [['a', [1, 2]]], 1 => [['b', [1]]]}"
    );
    let empty = block(1, |a| Value::Boolean(a[0].as_str() == Some("")));
    assert_eq!(
        with_block("partition", "['', 'b', 'ab']", &empty).unwrap(),
        "[[''], ['b', 'ab']]"
    );
    let i2 = block(2, |a| {
        Value::Boolean(int(&a[0]) == 2 || a[1].as_str() == Some(""))
    });
    assert_eq!(
        with_block("partition", "['', 'b', 'ab']", &i2).unwrap(),
        "[['', 'ab'], ['b']]"
    );
    // tree_each:12..150
    assert_eq!(
        with_block("tree_each", "[1, [2, [3]]]", &pair).unwrap(),
        "[1, [2, [3]]]"
    );
    assert_eq!(
        ok("tree_each", "[1, [2]]"),
        "[[[], [1, [2]]], [[0], 1], [[1], [2]], [[1, 0], 2]]"
    );
    assert_eq!(
        ok("tree_each", "[1, [2]];{include_containers => false}"),
        "[[[0], 1], [[1, 0], 2]]"
    );
    assert_eq!(
        ok(
            "tree_each",
            "[[1], 2];{order => 'breadth_first', include_root => false}"
        ),
        "[[[0], [1]], [[1], 2], [[0, 0], 1]]"
    );
}

#[test]
fn control_flow() {
    // break:12 / hw/builtin/break-in-each: map stops and returns what it has.
    let brk = FnBlock::new(1, |_c: &mut dyn CallContext, a: Vec<Value>| {
        if a[0] == Value::Integer(3) {
            Err(CallError::Break)
        } else {
            Ok(a[0].clone())
        }
    });
    assert_eq!(with_block("map", "[1, 2, 3]", &brk).unwrap(), "[1, 2]");
    assert_eq!(with_block("each", "[1, 2, 3]", &brk).unwrap(), "[1, 2, 3]");
    // next:12, next:19
    let nxt = FnBlock::new(1, |c: &mut dyn CallContext, a: Vec<Value>| {
        if a[0] == Value::Integer(1) {
            c.call_function("next", vec![Value::Integer(100)], None)?;
        }
        Ok(Value::Integer(int(&a[0]) * 2))
    });
    assert_eq!(with_block("map", "[1, 2, 3]", &nxt).unwrap(), "[100, 4, 6]");
    // return:12: return() unwinds through map.
    let ret = FnBlock::new(1, |c: &mut dyn CallContext, _a: Vec<Value>| {
        c.call_function("return", vec![Value::Integer(100)], None)
    });
    let reg = builtins::registry();
    let mut ctx = Mock::new(reg);
    let e = reg
        .call(&mut ctx, "map", args("[1, 2]"), Some(&ret))
        .unwrap_err();
    assert_eq!(e, CallError::Return(Value::Integer(100)));
    // hw/builtin/break-outside-iteration
    assert_eq!(
        call("break", vec![], None).unwrap_err(),
        "break() from context where this is illegal"
    );
}

#[test]
fn types_and_calls() {
    // type:11..21
    assert_eq!(
        ok("type", "[2, 3.14]"),
        "Tuple[Integer[2, 2], Float[3.14, 3.14]]"
    );
    assert_eq!(
        ok("type", "[2, 3.14];'detailed'"),
        "Tuple[Integer[2, 2], Float[3.14, 3.14]]"
    );
    assert_eq!(ok("type", "[2, 3.14];'reduced'"), "Array[Numeric, 2, 2]");
    assert_eq!(ok("type", "[2, 3.14];'generalized'"), "Array[Numeric]");
    // assert_type:60..78, hw/builtin/assert_type-*
    assert_eq!(ok("assert_type", "Integer;1"), "1");
    assert_eq!(
        err("assert_type", "Integer;'x'"),
        "assert_type(): expects an Integer value, got String"
    );
    assert_eq!(
        err("assert_type", "'Integer[1,2]';3"),
        "assert_type(): expects an Integer[1, 2] value, got Integer[3, 3]"
    );
    let show = block(2, |a| {
        Value::string(format!(
            "{} vs {}",
            a[0],
            puppet_types::generalize(&match &a[1] {
                Value::Type(t) => t.clone(),
                _ => puppet_types::Type::Any,
            })
        ))
    });
    assert_eq!(
        with_block("assert_type", "Integer;'x'", &show).unwrap(),
        "'Integer vs String'"
    );
    // Loader aliases through the context (MyInt is Integer[0] in the mock).
    assert_eq!(
        err("assert_type", "'MyInt';-1"),
        "assert_type(): expects a MyInt value, got Integer[-1, -1]"
            .replace("a MyInt", "an Integer[0]")
    );
    // new:*, hw/builtin/new-*
    assert_eq!(ok("new", "Integer;'42'"), "42");
    assert_eq!(ok("new", "Integer;true"), "1");
    assert_eq!(ok("new", "Integer;-42;10;true"), "42");
    assert_eq!(ok("new", "Array;{a => 1}"), "[['a', 1]]");
    assert_eq!(ok("new", "Hash;['a', 1, 'b', 2]"), "{'a' => 1, 'b' => 2}");
    assert_eq!(ok("new", "Optional[Integer];'12'"), "12");
    assert_eq!(ok("new", "Struct[{a => Integer}];{a => 1}"), "{'a' => 1}");
    assert_eq!(
        err("new", "Integer;'1.5'"),
        "'new' The string '1.5' cannot be converted to Integer"
    );
    assert_eq!(
        err("new", "Boolean;'maybe'"),
        "'new_boolean' The string 'maybe' cannot be converted to Boolean"
    );
    assert_eq!(
        err("new", "Undef;1"),
        "Creation of new instance of type 'Undef' is not supported"
    );
    assert_eq!(
        err("new", "Variant[Integer, Boolean];'true'"),
        "Creation of new instance of type 'Variant[Integer, Boolean]' is not supported"
    );
    let plus2 = block(1, |a| Value::Integer(int(&a[0]) + 2));
    assert_eq!(with_block("new", "Integer;'42'", &plus2).unwrap(), "44");
    // convert_to:11..19, hw/builtin/convert_to
    assert_eq!(ok("convert_to", "'1';Integer"), "1");
    assert_eq!(ok("convert_to", "['a', 1];Hash"), "{'a' => 1}");
    let yay = block(1, |_| v("'yay'"));
    assert_eq!(
        with_block("convert_to", "['a', 1];Hash", &yay).unwrap(),
        "'yay'"
    );
    // unwrap:15..35
    let s = Value::Sensitive(std::sync::Arc::new(v("'12345'")));
    assert_eq!(call("unwrap", vec![s.clone()], None).unwrap(), "'12345'");
    assert_eq!(ok("unwrap", "'12345'"), "'12345'");
    assert_eq!(
        call("unwrap", vec![s], Some(&block(1, |a| a[0].clone()))).unwrap(),
        "'12345'"
    );
    // hw/builtin/call-builtin, hw/builtin/call-unknown
    assert_eq!(ok("call", "'max';1;5;3"), "5");
    assert_eq!(
        err("call", "'no_such_function_xyz'"),
        "Unknown function 'no_such_function_xyz'"
    );
    // hw/builtin/fail
    assert_eq!(err("fail", "'boom';1"), "boom 1");
    // logging functions
    let reg = builtins::registry();
    let mut ctx = Mock::new(reg);
    assert_eq!(
        reg.call(&mut ctx, "notice", args("'hello';1"), None)
            .unwrap(),
        Value::Undef
    );
    assert_eq!(
        reg.call(&mut ctx, "warning", args("[1, 'a']"), None)
            .unwrap(),
        Value::Undef
    );
    assert_eq!(ctx.logs, ["notice: hello 1", "warning: [1, a]"]);
}

/// Every registered function has a doc and an example; the examples of the simple form
/// `f(literal, ...)`, `literal.f(...)` or `literal.f` are run and compared (those of the
/// functions bound to the compiler, which a mock context cannot serve, run in puppet-eval's
/// `tests/registry_examples.rs`).
#[test]
fn docs_and_examples() {
    let reg = builtins::registry();
    assert!(reg.functions().count() >= 60);
    let mut ran = 0;
    for f in reg.functions() {
        assert!(!f.doc().is_empty(), "{} has no doc", f.name());
        assert!(!f.examples().is_empty(), "{} has no example", f.name());
        for ex in f.examples() {
            let Some((name, a)) = simple_call(&ex.source) else {
                continue;
            };
            let Ok(a) = a
                .iter()
                .map(|s| puppet_functions::parse_value(s, &|_| None))
                .collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            let mut ctx = Mock::new(reg);
            let got = match reg.call(&mut ctx, &name, a, None) {
                Ok(v) => v.to_string(),
                // Bound to the compiler: puppet-eval's `tests/registry_examples.rs` runs it.
                Err(e) if e.code() == puppet_functions::codes::UNSUPPORTED => continue,
                Err(e) => format!("error: {e}"),
            };
            assert_eq!(got, ex.expected.as_str(), "example {}", ex.source);
            ran += 1;
        }
    }
    assert!(ran >= 35, "only {ran} examples ran");
}

/// Splits `f(a, b)`, `a.f(b)` or `a.f` into a function name and argument texts (top-level
/// commas only); `None` for anything with a lambda or other syntax.
fn simple_call(src: &str) -> Option<(String, Vec<String>)> {
    if src.contains('|') || src.contains("function ") || src.starts_with('[') && src.ends_with(']')
    {
        return None;
    }
    let split_top = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        let (mut depth, mut cur, mut quote) = (0i32, String::new(), None::<char>);
        for c in s.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (None, '\'' | '"') => quote = Some(c),
                (None, '[' | '(' | '{') => depth += 1,
                (None, ']' | ')' | '}') => depth -= 1,
                (None, ',') if depth == 0 => {
                    out.push(cur.trim().to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(c);
        }
        if !cur.trim().is_empty() {
            out.push(cur.trim().to_string());
        }
        out
    };
    // literal.f(args) or literal.f
    if let Some(dot) = find_method_dot(src) {
        let (recv, rest) = (&src[..dot], &src[dot + 1..]);
        let (name, a) = match rest.find('(') {
            Some(p) if rest.ends_with(')') => (&rest[..p], split_top(&rest[p + 1..rest.len() - 1])),
            None => (rest, vec![]),
            _ => return None,
        };
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let mut all = vec![recv.to_string()];
        all.extend(a);
        return Some((name.to_string(), all));
    }
    let p = src.find('(')?;
    if !src.ends_with(')') {
        return None;
    }
    let name = &src[..p];
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name.to_string(), split_top(&src[p + 1..src.len() - 1])))
}

/// The position of the `.` of a method call on a literal receiver (outside quotes/brackets,
/// not inside a number).
fn find_method_dot(src: &str) -> Option<usize> {
    let (mut depth, mut quote) = (0i32, None::<char>);
    let b = src.as_bytes();
    for (i, c) in src.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(' | '{') => depth += 1,
            (None, ']' | ')' | '}') => depth -= 1,
            (None, '.') if depth == 0 => {
                let prev_digit = i > 0 && b[i - 1].is_ascii_digit();
                let next_digit = b.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !(prev_digit && next_digit) {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}
