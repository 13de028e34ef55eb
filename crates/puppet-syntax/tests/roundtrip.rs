//! Losslessness and robustness tests of the parser: every entry point must give back a tree
//! whose text is the input, byte for byte, on any input.
//!
//! - property tests over arbitrary strings and over strings glued from Puppet fragments
//!   (quotes, `${`, `@(`, `<%`, braces, newlines) that push the lexer through all its modes;
//! - a generator of valid programs (random nesting of statements and expressions rendered to
//!   text), which must parse with no diagnostic at all;
//! - pathological inputs (deep nesting, long chains, a 5 MB file) run on a thread with the
//!   default 2 MiB test stack: they must give a diagnostic or parse, never overflow or hang;
//! - every `.pp`/`.epp` file under `/usr/share/puppet/modules` and every source of the
//!   conformance files, when they are present (the tests skip quietly otherwise).
//!
//! This is not a test of what the trees look like; the fixtures in `test_data/` do that.

use std::path::{Path, PathBuf};

mod common;

use proptest::prelude::*;
use puppet_syntax::Parse;

/// A parser entry point.
type ParseFn = fn(&str) -> Parse;

/// The entry points, by name.
const ENTRY_POINTS: &[(&str, ParseFn)] = &[
    ("parse", puppet_syntax::parse),
    ("parse_epp", puppet_syntax::parse_epp),
    ("parse_expression", puppet_syntax::parse_expression),
    (
        "parse_type_expression",
        puppet_syntax::parse_type_expression,
    ),
];

/// Checks that the tree of `parse` holds exactly `text` and that diagnostics lie inside it.
fn assert_lossless(entry: &str, text: &str, parse: &Parse) -> Result<(), String> {
    let back = parse.syntax().to_string();
    if back != text {
        return Err(format!(
            "{entry} does not round-trip\ninput:  {text:?}\noutput: {back:?}"
        ));
    }
    let len = puppet_syntax::TextSize::of(text);
    if let Some(d) = parse
        .errors()
        .iter()
        .find(|d| d.range.is_some_and(|r| r.end() > len))
    {
        return Err(format!(
            "{entry}: diagnostic out of range on {text:?}: {d:?}"
        ));
    }
    Ok(())
}

fn all_entry_points(text: &str) -> Result<(), TestCaseError> {
    for (name, parse) in ENTRY_POINTS {
        assert_lossless(name, text, &parse(text)).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

/// Bits of Puppet that switch the lexer between its modes, and some that break it.
const FRAGMENTS: &[&str] = &[
    "'",
    "\"",
    "${",
    "}",
    "{",
    "$",
    "$x",
    "$::a::b",
    "@(",
    "@(END)",
    "@(\"END\"/tn)",
    "@(E:json)",
    ")",
    "END",
    "|-",
    "| ",
    "-",
    "\n",
    "\r\n",
    " ",
    "\t",
    "<%",
    "<%=",
    "<%-",
    "-%>",
    "%>",
    "<%#",
    "<%%",
    "%%>",
    "[",
    "]",
    "(",
    "/",
    "/a/",
    "\\",
    "\\n",
    "\\$",
    "#",
    "/*",
    "*/",
    "=>",
    "+>",
    "->",
    "~>",
    "<|",
    "|>",
    "<<|",
    "|>>",
    "|",
    "?",
    ":",
    "::",
    ",",
    ";",
    "=",
    "==",
    "=~",
    "!",
    "@",
    "@@",
    "*",
    "if",
    "else",
    "elsif",
    "unless",
    "case",
    "default",
    "class",
    "define",
    "node",
    "function",
    "type",
    "inherits",
    "and",
    "or",
    "in",
    "true",
    "undef",
    "x",
    "File",
    "Integer[1]",
    "1",
    "0x1F",
    "1.5e3",
    "é",
    "€",
    "\u{1F600}",
    "\0",
];

fn fragment_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..48).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_round_trip(text in any::<String>()) {
        all_entry_points(&text)?;
    }

    #[test]
    fn fragment_soup_round_trips(text in fragment_soup()) {
        all_entry_points(&text)?;
    }

    #[test]
    fn printable_ascii_round_trips(text in "[ -~\n\t]{0,200}") {
        all_entry_points(&text)?;
    }
}

// --- A generator of valid programs ---------------------------------------------------------
//
// Everything is rendered so that no parse depends on Puppet's ambiguities: binary operations
// are parenthesised, statements never start with `(` or `[`, conditions and selector subjects
// are variables or parenthesised, and bare words only appear where they are names.

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,6}".prop_filter("not a keyword", |s| !is_keyword(s))
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "and"
            | "application"
            | "attr"
            | "case"
            | "class"
            | "consumes"
            | "default"
            | "define"
            | "else"
            | "elsif"
            | "false"
            | "function"
            | "if"
            | "import"
            | "in"
            | "inherits"
            | "node"
            | "or"
            | "private"
            | "produces"
            | "site"
            | "true"
            | "type"
            | "undef"
            | "unless"
    )
}

fn variable() -> impl Strategy<Value = String> {
    ident().prop_map(|s| format!("${s}"))
}

fn sq_string() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 _.,:-]{0,12}".prop_map(|s| format!("'{s}'"))
}

fn leaf() -> BoxedStrategy<String> {
    prop_oneof![
        (0u32..100_000).prop_map(|n| n.to_string()),
        (0u32..1000, 0u32..100).prop_map(|(a, b)| format!("{a}.{b}")),
        (0u32..0xffff).prop_map(|n| format!("0x{n:X}")),
        sq_string(),
        variable(),
        prop::sample::select(vec!["true", "false", "undef", "default"]).prop_map(String::from),
        prop::sample::select(vec![
            "String",
            "Integer[0, 10]",
            "Array[String, 1]",
            "Hash[String, Optional[Integer]]",
            "Enum['a', 'b']",
            "Variant[String, Undef]",
        ])
        .prop_map(String::from),
    ]
    .boxed()
}

const BINARY_OPS: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "==", "!=", "<", ">", "<=", ">=", "and", "or", "in",
];

fn expr() -> BoxedStrategy<String> {
    leaf()
        .prop_recursive(4, 48, 4, |inner| {
            prop_oneof![
                (
                    inner.clone(),
                    prop::sample::select(BINARY_OPS),
                    inner.clone()
                )
                    // After `undef`, `default` or `}` Puppet's lexer reads `/` as the start
                    // of a regex (which may span lines), so parenthesise a divided operand.
                    .prop_map(|(a, op, b)| if op == "/" {
                        format!("(({a}) / {b})")
                    } else {
                        format!("({a} {op} {b})")
                    }),
                inner.clone().prop_map(|a| format!("!({a})")),
                inner.clone().prop_map(|a| format!("-({a})")),
                prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                prop::collection::vec((sq_string(), inner.clone()), 0..4).prop_map(|v| {
                    let entries: Vec<String> =
                        v.into_iter().map(|(k, e)| format!("{k} => {e}")).collect();
                    format!("({{ {} }})", entries.join(", "))
                }),
                (variable(), inner.clone()).prop_map(|(v, i)| format!("{v}[{i}]")),
                (ident(), prop::collection::vec(inner.clone(), 0..3))
                    .prop_map(|(f, a)| format!("{f}({})", a.join(", "))),
                (variable(), ident()).prop_map(|(v, m)| format!("{v}.{m}")),
                // Parenthesised: after `}` Puppet takes `/` for the start of a regex.
                (variable(), ident(), inner.clone())
                    .prop_map(|(v, m, e)| format!("({v}.{m} |$x, $y| {{ {e} }})")),
                (variable(), sq_string(), inner.clone(), inner.clone()).prop_map(
                    |(v, k, a, b)| format!(
                        "({v} ? {{ {k} => {a}, /^re.*$/ => 1, default => {b} }})"
                    )
                ),
                (inner.clone(), "[a-z ]{0,8}", variable())
                    .prop_map(|(e, t, v)| format!("\"{t}${{{e}}} {v} \\n\\t\\$ {t}\"")),
                variable().prop_map(|v| format!("({v} =~ /a+b[0-9]*\\/c/)")),
                inner.prop_map(|a| format!("({a})")),
            ]
        })
        .boxed()
}

fn statement(depth: u32) -> BoxedStrategy<String> {
    let simple = prop_oneof![
        (variable(), expr()).prop_map(|(v, e)| format!("{v} = {e}")),
        expr().prop_map(|e| format!("notice({e})")),
        (sq_string(), expr(), expr())
            .prop_map(|(t, a, b)| format!("file {{ {t}:\n  ensure => {a},\n  mode => {b},\n}}")),
        (ident(), sq_string())
            .prop_map(|(ty, t)| format!("@{ty} {{ {t}: }}\n{} <| title == {t} |>", cap(&ty))),
        (sq_string(), sq_string())
            .prop_map(|(a, b)| format!("Package[{a}] -> File[{b}] ~> Service[{a}]")),
        (ident(), ident()).prop_map(|(a, b)| format!("include {a}::{b}, {b}")),
        (variable(), "[a-z ]{0,10}", expr())
            .prop_map(|(v, t, e)| format!("{v} = @(\"END\")\n  {t} ${{{e}}}\n  | END")),
        (variable(), "[a-z ]{0,10}").prop_map(|(v, t)| format!("{v} = @(END)\n{t}\nEND")),
        expr().prop_map(|e| format!("File {{ mode => {e} }}")),
    ];
    if depth == 0 {
        return simple.boxed();
    }
    let block = move || block(depth - 1);
    prop_oneof![
        4 => simple,
        1 => (variable(), block(), block())
            .prop_map(|(c, a, b)| format!("if {c} {{\n{a}\n}} elsif ({c} == 1) {{\n}} else {{\n{b}\n}}")),
        1 => (expr(), block()).prop_map(|(c, a)| format!("unless ({c}) {{\n{a}\n}}")),
        1 => (variable(), sq_string(), block(), block()).prop_map(|(v, k, a, b)| {
            format!("case {v} {{\n  {k}, 1, /x/: {{\n{a}\n  }}\n  default: {{\n{b}\n  }}\n}}")
        }),
        1 => (variable(), block())
            .prop_map(|(v, a)| format!("{v}.each |$k, $v| {{\n{a}\n}}")),
    ]
    .boxed()
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn block(depth: u32) -> BoxedStrategy<String> {
    prop::collection::vec(statement(depth), 0..4)
        .prop_map(|v| v.join("\n"))
        .boxed()
}

fn definition() -> BoxedStrategy<String> {
    prop_oneof![
        (ident(), ident(), expr(), block(1)).prop_map(|(a, b, e, body)| format!(
            "class {a}::{b} (\n  Integer $p = {e},\n  $q,\n) inherits {a} {{\n{body}\n}}"
        )),
        (ident(), block(1))
            .prop_map(|(a, body)| format!("define {a}::d (String $x, *$rest) {{\n{body}\n}}")),
        (ident(), expr())
            .prop_map(|(a, e)| format!("function {a}::f(Any $x) >> Any {{\n  {e}\n}}")),
        ident().prop_map(|a| format!("type {}::T = Variant[Integer[1, 2], String]", cap(&a))),
        (sq_string(), block(1))
            .prop_map(|(n, body)| format!("node {n}, /web\\d+/, default {{\n{body}\n}}")),
    ]
    .boxed()
}

fn program() -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![3 => statement(2), 1 => definition()], 0..6)
        .prop_map(|v| v.join("\n") + "\n")
}

fn epp_template() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-z ]{0,10}\n?".prop_map(|t| t),
            expr().prop_map(|e| format!("<%= {e} %>")),
            statement(1).prop_map(|s| format!("<% {s}\n-%>\n")),
            variable().prop_map(|v| format!("<% if {v} {{ -%>\nyes\n<% }} -%>\n")),
        ],
        0..6,
    )
    .prop_map(|v| format!("<%- | $a, Integer $b = 1 | -%>\n{}", v.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn valid_programs_parse_without_errors(text in program()) {
        let parse = puppet_syntax::parse(&text);
        assert_lossless("parse", &text, &parse).map_err(TestCaseError::fail)?;
        prop_assert!(parse.errors().is_empty(), "errors {:#?} in\n{}", parse.errors(), text);
    }

    #[test]
    fn valid_expressions_parse_without_errors(text in expr()) {
        let parse = puppet_syntax::parse_expression(&text);
        assert_lossless("parse_expression", &text, &parse).map_err(TestCaseError::fail)?;
        prop_assert!(parse.errors().is_empty(), "errors {:#?} in\n{}", parse.errors(), text);
    }

    #[test]
    fn valid_templates_parse_without_errors(text in epp_template()) {
        let parse = puppet_syntax::parse_epp(&text);
        assert_lossless("parse_epp", &text, &parse).map_err(TestCaseError::fail)?;
        prop_assert!(parse.errors().is_empty(), "errors {:#?} in\n{}", parse.errors(), text);
    }
}

// --- Pathological inputs --------------------------------------------------------------------

/// Runs `f` on a thread with the default test stack (2 MiB), so that a recursion without limit
/// shows up as a stack overflow here rather than only on big-stack threads.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// Parses `text` with `parse` and checks the round-trip; returns whether there were errors.
fn robust(name: &str, text: &str, parse: ParseFn) -> bool {
    let start = std::time::Instant::now();
    let parsed = parse(text);
    if let Err(e) = assert_lossless(name, text, &parsed) {
        panic!("{}", &e[..e.len().min(400)]);
    }
    // Generous: a debug build on a loaded machine. A hang would take far longer.
    assert!(
        start.elapsed().as_secs() < 30,
        "{name}: took {:?}",
        start.elapsed()
    );
    !parsed.is_ok()
}

#[test]
fn deep_nesting_gives_a_diagnostic_not_a_stack_overflow() {
    on_small_stack(|| {
        // The sizes of the issue, through the manifest parser: these must say something.
        let unbalanced = [
            ("100k [", "[".repeat(100_000)),
            ("100k (", "(".repeat(100_000)),
            ("20k if", "if true {".repeat(20_000)),
        ];
        for (name, text) in &unbalanced {
            assert!(
                robust(name, text, puppet_syntax::parse),
                "{name}: no diagnostic"
            );
        }
        let long = [
            ("50k +", format!("$a = 1{}", "+1".repeat(50_000))),
            (
                "20k if closed",
                format!("{}{}", "if true {".repeat(20_000), "}".repeat(20_000)),
            ),
        ];
        for (name, text) in &long {
            robust(name, text, puppet_syntax::parse);
        }
        // Every other way to nest or chain, smaller, through every entry point.
        let n = 10_000;
        let cases: Vec<(&str, String)> = vec![
            ("{", "{".repeat(n)),
            (
                "balanced []",
                format!("$a = {}{}", "[".repeat(n), "]".repeat(n)),
            ),
            (
                "balanced ()",
                format!("$a = {}1{}", "(".repeat(n), ")".repeat(n)),
            ),
            ("->", format!("File[a]{}", " -> File[a]".repeat(n))),
            (".f", format!("$a{}", ".f".repeat(n))),
            ("[1]", format!("$a{}", "[1]".repeat(n))),
            ("=", format!("$a{}", " = $a".repeat(n))),
            ("!", format!("{}1", "!".repeat(n))),
            ("-", format!("{}1", "-".repeat(n))),
            ("selector", "$x ? {".repeat(n)),
            ("case", "case $x { 1: {".repeat(n)),
            ("class", "class a {".repeat(n)),
            ("lambda", "$x.each |$y| {".repeat(n)),
            ("hash", "{a => ".repeat(n)),
            ("dq", "\"${".repeat(n)),
            ("heredoc", "@(A)\n".repeat(n)),
            ("epp", "<%".repeat(n)),
            ("epp render", "<%= [".repeat(n)),
        ];
        for (name, text) in &cases {
            for (entry, parse) in ENTRY_POINTS {
                robust(&format!("{name} / {entry}"), text, *parse);
            }
        }
    });
}

#[test]
fn huge_files_parse() {
    on_small_stack(|| {
        // 5 MB in a single token, and 5 MB of comments.
        let text = format!("$x = '{}'\nnotice($x)\n", "a".repeat(5_000_000));
        assert!(!robust("5 MB string", &text, puppet_syntax::parse));
        let text = "# a comment line\n".repeat(5_000_000 / 17);
        assert!(!robust("5 MB comments", &text, puppet_syntax::parse));
        // About 1 MB of ordinary code (a debug build parses slowly).
        let unit = "file { \"/tmp/${name}\": ensure => file, content => @(END), mode => '0644' }\n  text ${x}\n  | END\n$x = [1, 2, { a => $b[1] }].map |$v| { $v * 2 }\n";
        let text = unit.repeat(1_000_000 / unit.len() + 1);
        assert!(!robust("1 MB code", &text, puppet_syntax::parse));
    });
}

/// Regression: the parser's step limit used to count every look-up of the whole parse, so
/// files of 20 MB and more panicked with "the parser is stuck". A debug build takes minutes on
/// such a file, so this runs under `cargo test --release` only.
#[test]
fn twenty_megabyte_file_does_not_hit_the_step_limit() {
    if cfg!(debug_assertions) {
        return;
    }
    let text = "$x = [1, 2, 3]\n".repeat(20_000_000 / 15);
    assert!(!robust("20 MB", &text, puppet_syntax::parse));
}

// --- Real sources ---------------------------------------------------------------------------

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("pp" | "epp")
    ) {
        out.push(path.to_path_buf());
    }
}

#[test]
fn module_corpus_round_trips() {
    let root = Path::new("/usr/share/puppet/modules");
    if !root.is_dir() {
        eprintln!("skipped: {} is absent", root.display());
        return;
    }
    let mut files = Vec::new();
    collect(root, &mut files);
    let mut failures = Vec::new();
    for file in &files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let is_epp = file.extension().and_then(|e| e.to_str()) == Some("epp");
        let (entry, parse): (&str, ParseFn) = if is_epp {
            ("parse_epp", puppet_syntax::parse_epp)
        } else {
            ("parse", puppet_syntax::parse)
        };
        if let Err(e) = assert_lossless(entry, &text, &parse(&text)) {
            failures.push(format!("{}: {}", file.display(), &e[..e.len().min(300)]));
        }
    }
    eprintln!("{} corpus files round-tripped", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn conformance_sources_round_trip() {
    let files = [
        "parse",
        "parse_errors",
        "lex",
        "eval",
        "eval_errors",
        "functions",
        "catalog",
    ];
    let Some(sources) = common::conformance_sources(&files) else {
        eprintln!("skipped: no conformance directory");
        return;
    };
    let mut failures = Vec::new();
    for (at, source) in &sources {
        for (entry, parse) in &ENTRY_POINTS[..2] {
            if let Err(e) = assert_lossless(entry, source, &parse(source)) {
                failures.push(format!("{at}: {e}"));
            }
        }
    }
    eprintln!("{} conformance sources round-tripped", sources.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
