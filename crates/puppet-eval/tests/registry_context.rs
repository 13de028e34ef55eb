//! What the registry's functions ask of the evaluator through `CallContext`: deprecations
//! logged once per call site with its location, type names in type strings resolved as the
//! evaluator resolves them.
//!
//! The expected texts were produced by Puppet 7.23 itself
//! (`/work/shared/oracle/compile-catalog --with-logs /tmp/emp/site.pp` for the first test).

use puppet_eval::{compile, evaluate_source, Environment, Settings};
use std::sync::Arc;

#[test]
fn empty_of_a_number_warns_once_per_call_site() {
    let src = "notice(empty(1))\n$x = [1,2].map |$i| { empty($i) }\nnotice(empty(2.5))\n";
    let env = Environment::from_main(Some("/tmp/emp/site.pp"), src);
    let out = compile(Arc::new(env), &Settings::default());
    assert!(out.catalog.is_ok());
    let logs: Vec<String> = out.logs.iter().map(|l| l.render()).collect();
    let warn = |line: u32| {
        format!("warning: Calling function empty() with Numeric value is deprecated.\n   (file: /tmp/emp/site.pp, line: {line})")
    };
    assert_eq!(
        logs,
        vec![
            warn(1),
            "notice: Scope(Class[main]): false".to_string(),
            warn(2),
            warn(3),
            "notice: Scope(Class[main]): false".to_string(),
        ]
    );
}

#[test]
fn type_strings_load_aliases() {
    let src = "type UnprivilegedPort = Integer[1024,65537]\nassert_type('UnprivilegedPort', 5432)";
    let out = evaluate_source(src, &Settings::default());
    assert_eq!(out.value.map(|v| v.to_string()), Ok("5432".to_string()));
}
