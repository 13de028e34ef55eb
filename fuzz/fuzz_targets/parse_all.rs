//! The `parse_all` fuzz target: feeds arbitrary UTF-8 to every entry point of puppet-syntax
//! (manifest, tasks-mode manifest, EPP, expression, type expression, and the validation
//! passes) and checks that each tree holds every byte of the input and that every
//! diagnostic lies inside it.
//!
//! It is not a correctness test of the grammar: only "no panic, no hang, lossless tree".

#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_syntax::Parse;

fn check_ranges(entry: &str, text: &str, diagnostics: &[puppet_syntax::Diagnostic]) {
    let len = puppet_syntax::TextSize::of(text);
    for d in diagnostics {
        let range = d.range.expect("a syntax diagnostic has a range");
        assert!(
            range.end() <= len,
            "{entry}: diagnostic out of range: {d:?}"
        );
    }
}

fn check(entry: &str, text: &str, parse: &Parse) {
    assert_eq!(
        parse.syntax().to_string(),
        text,
        "{entry}: the tree does not round-trip"
    );
    check_ranges(entry, text, parse.errors());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let manifest = puppet_syntax::parse(text);
    check("parse", text, &manifest);
    check_ranges(
        "validate",
        text,
        &puppet_syntax::validate::validate(&manifest),
    );
    let tasks = puppet_syntax::parse_tasks(text);
    check("parse_tasks", text, &tasks);
    check_ranges(
        "validate tasks",
        text,
        &puppet_syntax::validate::validate_tasks(&tasks),
    );
    let epp = puppet_syntax::parse_epp(text);
    check("parse_epp", text, &epp);
    check_ranges(
        "validate epp",
        text,
        &puppet_syntax::validate::validate(&epp),
    );
    check(
        "parse_expression",
        text,
        &puppet_syntax::parse_expression(text),
    );
    check(
        "parse_type_expression",
        text,
        &puppet_syntax::parse_type_expression(text),
    );
});
