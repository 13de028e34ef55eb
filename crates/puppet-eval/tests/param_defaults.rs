//! A default expression may not read a parameter that is not evaluated yet (itself, or a
//! later one not given a value), in functions, lambdas, classes and defines.
//!
//! The expected texts were produced by Puppet 7.23 itself:
//! `/work/shared/oracle/compile-catalog --with-logs -e '<source>'`.

use puppet_eval::{evaluate_source, Settings};

const CASES: &[(&str, Result<&str, &str>)] = &[
    (
        "function f($a = $b, $b = 1) { $a }\nnotice(f())",
        Err("Error while evaluating a Function Call, f: default expression for $a tries to illegally access not yet evaluated $b"),
    ),
    ("function f($a = 1, $b = $a) { $b }\nnotice(f())", Ok("1")),
    (
        "$b = 5 function f($a = $b, $b = 1) { $a }\nnotice(f())",
        Err("Error while evaluating a Function Call, f: default expression for $a tries to illegally access not yet evaluated $b"),
    ),
    (
        "function f($a = [1].map |$x| { $b }, $b = 1) { $a }\nnotice(f())",
        Err("Error while evaluating a Function Call, f: default expression for $a tries to illegally access not yet evaluated $b"),
    ),
    (
        "function f($a = $a) { $a }\nnotice(f())",
        Err("Error while evaluating a Function Call, f: default expression for $a tries to illegally access not yet evaluated $a"),
    ),
    (
        "with(1) |$a, $b = $c, $c = 2| { notice($b) }",
        Err("Error while evaluating a Function Call, lambda: default expression for $b tries to illegally access not yet evaluated $c"),
    ),
    (
        "class c($a = $b, $b = 1) { notice($a) }\ninclude c",
        Err("Error while evaluating a Function Call, Class[C]: default expression for $a tries to illegally access not yet evaluated $b"),
    ),
    (
        "class c($a = $b, $b = 1) { notice($a) }\nclass { c: }",
        Err("Error while evaluating a Resource Statement, Class[C]: default expression for $a tries to illegally access not yet evaluated $b"),
    ),
    (
        "define d($a = $b, $b = 1) { notice($a) }\nd { x: }",
        // A defined type's instance is evaluated after the code: Puppet's complete message.
        Err("Evaluation Error: Error while evaluating a Resource Statement, D[x]: default expression for $a tries to illegally access not yet evaluated $b (line: 2)"),
    ),
    ("class c($a = $b, $b = 1) { notice($a) }\nclass { c: b => 5 }", Ok("5")),
    ("define d($a = $b, $b = 1) { notice($a) }\nd { x: b => 5 }", Ok("5")),
    ("class c($a = 1, $b = $a) { notice($b) }\ninclude c", Ok("1")),
];

#[test]
fn defaults_cannot_read_parameters_not_yet_evaluated() {
    for (src, want) in CASES {
        let out = evaluate_source(src, &Settings::default());
        match (want, out.value) {
            (Ok(notice), Ok(_)) => {
                let last = out.logs.last().map(|l| l.message.clone());
                assert_eq!(last.as_deref(), Some(*notice), "{src}");
            }
            (Err(msg), Err(e)) => assert_eq!(e.message, *msg, "{src}"),
            (want, got) => panic!("{src}: want {want:?}, got {got:?}"),
        }
    }
}

/// A bare `Optional` accepts no value but undef; when the describer finds nothing to say,
/// a class parameter is accepted and a function shows its signature (answers of Puppet 7.23).
#[test]
fn bare_optional_parameters() {
    let out = evaluate_source(
        "class test(Optional $var=undef) {}\nclass { 'test': var => 'hello' }",
        &Settings::default(),
    );
    assert!(out.value.is_ok(), "{:?}", out.value);
    let out = evaluate_source(
        "function f(Integer $a, Optional $x, $y = 1, String *$r) { $x } notice(f(1, 'hello'))",
        &Settings::default(),
    );
    assert_eq!(
        out.value.expect_err("an error").message,
        "Error while evaluating a Function Call, 'f' expects (Integer a, Optional x, Any y?, String r*)"
    );
}
