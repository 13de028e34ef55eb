//! Annotations follow the object they were attached to, not the values equal to it.
//!
//! The expected logs were produced by Puppet 7.23 itself:
//! `/work/shared/oracle/compile-catalog --with-logs -e '<the program below>'`.

use puppet_eval::{evaluate_source, Settings};

const PROGRAM: &str = r#"
type MyAdapter = Object[{parent => Annotation, attributes => {value => String[1]}}]
type MyObject = Object[{attributes => {x => Integer}}]
$a = MyObject(1)
$b = MyObject(1)
$c = $a
MyAdapter.annotate($a, {value => 'on a'})
notice(MyAdapter.annotate($b))
notice(MyAdapter.annotate($c).value)
notice($a == $b)
notice(annotate(MyAdapter, [$a][0]).value)
"#;

const PUPPET_LOGS: &[&str] = &[
    "notice: Scope(Class[main]): ",
    "notice: Scope(Class[main]): on a",
    "notice: Scope(Class[main]): true",
    "notice: Scope(Class[main]): on a",
];

#[test]
fn annotations_are_attached_to_one_object() {
    let out = evaluate_source(PROGRAM, &Settings::default());
    assert!(out.value.is_ok(), "{:?}", out.value);
    let logs: Vec<String> = out.logs.iter().map(|l| l.render()).collect();
    assert_eq!(logs, PUPPET_LOGS);
}

#[test]
fn annotations_do_not_outlive_the_compile() {
    let first = "type A = Object[{parent => Annotation, attributes => {v => Integer}}]\n\
                 type T = Object[{annotations => {A => {v => 1}}}]\n\
                 A.annotate(T).v";
    let out = evaluate_source(first, &Settings::default());
    assert_eq!(out.value.map(|v| v.to_string()), Ok("1".to_string()));
    let out = evaluate_source(
        "type A = Object[{parent => Annotation, attributes => {v => Integer}}]\n\
         type B = Object[{parent => Annotation, attributes => {v => Integer}}]\n\
         type T = Object[{annotations => {B => {v => 1}}}]\n\
         A.annotate(T) =~ Undef",
        &Settings::default(),
    );
    assert_eq!(out.value.map(|v| v.to_string()), Ok("true".to_string()));
}
