//! Robustness of the evaluator: evaluating any parsed program never panics, and deep
//! recursion in Puppet code gives an error instead of a stack overflow, and a runaway
//! evaluation stops at the step limit.
//!
//! Runs on threads with the default 2 MiB test stack, as an embedding tool would.

use proptest::prelude::*;
use puppet_eval::{evaluate_source, Settings};

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the evaluator panicked or overflowed its stack")
}

#[test]
fn deep_recursion_in_a_puppet_function_is_an_error() {
    let out = on_small_stack(|| {
        let src = "function f(Integer $n) { f($n + 1) }\nf(0)";
        evaluate_source(src, &Settings::default())
            .value
            .map(|v| v.to_string())
    });
    let e = out.expect_err("unbounded recursion must fail");
    assert!(e.message.contains("too deep"), "{}", e.message);
}

#[test]
fn deep_recursion_through_lambdas_is_an_error() {
    let out = on_small_stack(|| {
        let src = "function g(Integer $n) { [1].map |$x| { g($n + $x) } }\ng(0)";
        evaluate_source(src, &Settings::default())
            .value
            .map(|v| v.to_string())
    });
    assert!(out.is_err());
}

/// Exponential recursion (2^40 calls: Puppet would run for hours) stops at the step limit
/// with an error, never a hang.
#[test]
fn runaway_evaluation_stops_at_the_step_limit() {
    let src = "function f($n) { if $n < 40 { f($n + 1) f($n + 1) } }\nf(0)";
    let settings = Settings {
        max_steps: 100_000,
        ..Settings::default()
    };
    let e = evaluate_source(src, &settings).value.unwrap_err();
    assert_eq!(e.code, puppet_eval::codes::STEP_LIMIT);
    assert!(
        e.message
            .starts_with("Evaluation stopped after 100000 steps"),
        "{}",
        e.message
    );
}

#[test]
fn recursion_within_the_limit_works() {
    let out = on_small_stack(|| {
        let src = "function fact(Integer $n) >> Integer { if $n <= 1 { 1 } else { $n * fact($n - 1) } }\nfact(20)";
        evaluate_source(src, &Settings::default())
            .value
            .map(|v| v.to_string())
    });
    assert_eq!(out.unwrap(), "2432902008176640000");
}

/// Fragments that exercise many evaluator paths when glued together at random.
const FRAGMENTS: &[&str] = &[
    "$a = 1\n",
    "$b = [1, 'x', {k => 2}]\n",
    "notice($a)\n",
    "$a + ",
    "$b[",
    "]",
    "[",
    "{",
    "}",
    "(",
    ")",
    "1",
    "'s'",
    "\"${a}\"",
    " == ",
    " =~ /x(y)/",
    " ? { default => 1 }",
    "if $a { ",
    "case $a { 1: { ",
    "} ",
    "$b.map |$x| { $x } ",
    "$b.each |$k, $v| { } ",
    "Integer[",
    "String",
    "function f($x) { $x } ",
    "f(1) ",
    "class c { } include c ",
    "define d($p) { } d { 't': p => 1 } ",
    "notify { 'n': } ",
    "Notify['n'] -> Notify['n'] ",
    "* ",
    " - ",
    " / 0 ",
    " % ",
    " << ",
    "[1,2][5] ",
    "undef ",
    "default ",
    "$facts['x'] ",
    "with(1) |$x| { $x } ",
    "$c = $a.reduce |$m, $x| { $m } ",
    "1 in [1] ",
    "break() ",
    "next(1) ",
    "return(2) ",
    "Timestamp() ",
    "Sensitive('x') ",
    "\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn evaluating_any_program_never_panics(parts in prop::collection::vec(0..FRAGMENTS.len(), 0..40)) {
        let src: String = parts.into_iter().map(|i| FRAGMENTS[i]).collect();
        on_small_stack(move || {
            let _ = evaluate_source(&src, &Settings::default());
        });
    }

    #[test]
    fn evaluating_arbitrary_text_never_panics(src in "\\PC{0,200}") {
        on_small_stack(move || {
            let _ = evaluate_source(&src, &Settings::default());
        });
    }
}

/// Lambda scopes are released when the call returns and their slots reused; resources,
/// classes and collectors declared inside a lambda must not keep naming them (a defined
/// type instance is evaluated long after the lambda that declared it returned).
#[test]
fn resources_declared_in_lambdas_outlive_the_lambda() {
    let src = "define d($v = 1) { notify { \"in ${title}\": message => $caller_module_name } }\n\
        class c { notify { 'c': } }\n\
        [1, 2].each |$x| { d { \"t${x}\": } Notify <| title == 'c' |> { message => 'collected' } }\n\
        [3].each |$y| { $z = $y include c }\n\
        [4, 5].map |$w| { $w * 2 }\n";
    let env = std::sync::Arc::new(puppet_eval::Environment::from_main(None, src));
    let out = puppet_eval::compile(env, &Settings::default());
    let cat = out.catalog.expect("compiles");
    for r in ["Notify[in t1]", "Notify[in t2]", "Class[C]"] {
        assert!(cat.find(r).is_some(), "{r} missing");
    }
    let c = &cat.resources[cat.find("Notify[c]").unwrap()];
    assert_eq!(c.parameters["message"], "collected");
}

#[path = "common/fuzz_compile.rs"]
mod fuzz_compile;

/// The files of a folder (relative to this crate), sorted, with their text; none when the
/// folder does not exist.
fn files_in(dir: &str) -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.map(|e| e.expect("dir entry").path()).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect()
}

/// The `compile` fuzz target's inputs, run as the target runs them, on a 2 MiB stack. Its
/// seeds (`fuzz/seeds/compile/`) compile to catalogs in its fixed environment (if a change
/// broke the fixed module tree or the seeds, the fuzzer would stop reaching past the first
/// error); the inputs it reported (`tests/fixtures/fuzz/`) end with a catalog or an error.
#[test]
fn fuzz_inputs_compile_or_fail_cleanly() {
    let seeds = files_in("../../fuzz/seeds/compile");
    assert!(seeds.len() >= 5);
    for (name, text) in seeds {
        let out = on_small_stack(move || fuzz_compile::run(&text));
        match out {
            Ok(resources) => assert!(resources > 0, "{name}: an empty catalog"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
    for (_, text) in files_in("tests/fixtures/fuzz") {
        let _ = on_small_stack(move || fuzz_compile::run(&text));
    }
}
