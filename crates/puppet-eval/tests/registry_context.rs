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

/// `getvar('c::x')` reads a class's variable as `$c::x` does (one lookup): the class's own,
/// then those of the classes it inherits from; an unknown class gives the default.
#[test]
fn getvar_reads_qualified_variables_as_dollar_names_do() {
    let src = "class parent { $x = 'p' $y = 'py' }\nclass child inherits parent { $x = 'c' }\ninclude child\n[$child::x, getvar('child::x'), $child::y, getvar('child::y'), $parent::x, getvar('parent::x'), getvar('nope::x', 'dflt'), getvar('::child::x')]";
    let out = evaluate_source(src, &Settings::default());
    assert_eq!(
        out.value.map(|v| v.to_string()),
        Ok("['c', 'c', 'py', 'py', 'p', 'p', 'dflt', 'c']".to_string())
    );
}

/// The compiler-bound built-ins are ordinary registry functions: an embedder's function of
/// the same name replaces one, and a context without the compiler's capabilities says so.
#[test]
fn compiler_bound_built_ins_are_registry_functions() {
    let env = puppet_eval::Session::new()
        .code("notice(include('x'))")
        .functions(|reg| {
            reg.function("include")
                .dispatch(
                    puppet_functions::Signature::new().repeated_param("Any", "names"),
                    |_c, _a| Ok(puppet_types::Value::string("mine")),
                )
                .register()
                .expect("registered");
        })
        .load()
        .expect("environment");
    let out = env.compile(&Settings::default());
    assert!(out.catalog.is_ok(), "{:?}", out.catalog.err());
    let logs: Vec<String> = out.logs.iter().map(|l| l.render()).collect();
    assert_eq!(logs, ["notice: Scope(Class[main]): mine"]);

    let reg = puppet_functions::builtins::registry();
    let mut ctx = puppet_functions::NullContext::default();
    let e = reg
        .call(
            &mut ctx,
            "include",
            vec![puppet_types::Value::string("x")],
            None,
        )
        .unwrap_err();
    assert_eq!(e.to_string(), "include is not available in this context");
}
