//! No input makes puppet-ruby panic, overflow its stack or hang: arbitrary text, text made
//! of Ruby's tokens, programs from a grammar of the statements module code uses (classes,
//! methods, blocks, exceptions, loops, string operations), the corpus files with bytes cut
//! out, and deep nesting. Every run has a small step budget, so a program that loops ends
//! with an error. The inputs of `fixtures/fuzz/` (what the `ruby_run` fuzz target found, and
//! its seeds) run exactly as the target runs them (`common/fuzz_ruby.rs`).

use proptest::prelude::*;

#[path = "common/fuzz_ruby.rs"]
mod fuzz_ruby;

const STEPS: u64 = 20_000;

fn run(code: &str) {
    let _ = puppet_ruby::eval_inspect_with(code, STEPS);
}

const TOKENS: &[&str] = &[
    "def",
    "end",
    "class",
    "module",
    "if",
    "else",
    "elsif",
    "unless",
    "while",
    "until",
    "do",
    "begin",
    "rescue",
    "ensure",
    "retry",
    "yield",
    "super",
    "self",
    "nil",
    "true",
    "return",
    "next",
    "break",
    "case",
    "when",
    "then",
    "lambda",
    "proc",
    "->",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "|",
    "||",
    "&&",
    "=",
    "==",
    "+=",
    "||=",
    "<<",
    "<<~EOS\n",
    "EOS\n",
    "\n",
    ";",
    ",",
    ".",
    "&.",
    "::",
    "*",
    "**",
    "&",
    ":",
    "?",
    "x",
    "y",
    "@a",
    "@@b",
    "$c",
    "Foo",
    "1",
    "2.5",
    "'s'",
    "\"d#{x}\"",
    ":sym",
    "/r+/",
    "%w[a b]",
    "`ls`",
    "each",
    "map",
    "new",
    "raise",
    "=begin\n",
    "=end\n",
    "__END__\n",
    "alias",
    "defined?",
    "and",
    "not",
    "for",
    "in",
];

fn stmt() -> BoxedStrategy<String> {
    let expr = prop_oneof![
        Just("x".to_string()),
        Just("@a".to_string()),
        Just("[1, 'a', nil, 2.5]".to_string()),
        Just("{ 'k' => [1], k2: :v }".to_string()),
        Just("'str' * 3".to_string()),
        Just("(1..5)".to_string()),
        Just("Foo.new(1)".to_string()),
        Just("y.call(2)".to_string()),
        Just("Integer('7')".to_string()),
        Just("x.map { |v| v }".to_string()),
        Just("\"i#{x}\"".to_string()),
        Just("nil".to_string()),
    ];
    let leaf = prop_oneof![
        expr.clone().prop_map(|e| format!("x = {e}")),
        expr.clone().prop_map(|e| format!("@a = {e}")),
        expr.clone().prop_map(|e| format!("puts {e}")),
        Just("y = ->(a, b = 1, *c, d: 2, **e, &f) { [a, b, c, d, e] }".to_string()),
        Just("raise ArgumentError, 'bad'".to_string()),
        Just("x = [1, 2, 3].each_with_object({}) { |i, h| h[i] = i * i }".to_string()),
        Just("x = x.to_s.upcase.split('').reverse.join".to_string()),
        Just("x = @a.respond_to?(:each) ? @a.size : 0".to_string()),
        Just("x, *y = [1, 2, 3]".to_string()),
        Just("x ||= {}".to_string()),
        Just("x = Foo::BAR rescue nil".to_string()),
        Just("yield 1 if block_given?".to_string()),
        Just("x = format('%05.1f|%-4s|%x', 3.14159, 'ab', 255)".to_string()),
        Just("x = 'a-b_c'.gsub(/[-_]/) { |m| m * 2 }".to_string()),
        Just("x = [3, 1, 2].sort_by { |v| -v }.first(2)".to_string()),
        Just("x = Set.new([1, 2]) rescue nil".to_string()),
        Just("x = x.freeze".to_string()),
        Just("x = x.dup".to_string()),
    ];
    leaf.prop_recursive(4, 40, 4, |inner| {
        let body = proptest::collection::vec(inner.clone(), 0..4).prop_map(|v| v.join("\n"));
        prop_oneof![
            (body.clone(), body.clone())
                .prop_map(|(a, b)| format!("if x\n{a}\nelse\n{b}\nend")),
            body.clone().prop_map(|a| format!("3.times do |i|\n{a}\nend")),
            body.clone()
                .prop_map(|a| format!("i = 0\nwhile i < 3\n  i += 1\n{a}\nend")),
            (body.clone(), body.clone())
                .prop_map(|(a, b)| format!("begin\n{a}\nrescue => e\n{b}\nensure\nx = 1\nend")),
            body.clone().prop_map(|a| format!(
                "class Foo\n  BAR = 1\n  attr_accessor :v\n  def initialize(v = nil)\n    @v = v\n  end\n  def m(*args)\n{a}\n  end\nend\nx = Foo.new(1).m(2)"
            )),
            body.clone().prop_map(|a| format!("module M\n  def self.f\n{a}\n  end\nend\nx = M.f")),
            body.prop_map(|a| format!("def g(x)\n{a}\nend\nx = g(x)")),
        ]
    })
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        run(&text);
    }

    #[test]
    fn token_soup_never_panics(parts in proptest::collection::vec(0..TOKENS.len(), 0..80)) {
        let text: Vec<&str> = parts.iter().map(|i| TOKENS[*i]).collect();
        run(&text.join(" "));
    }

    #[test]
    fn grammar_programs_never_panic(stmts in proptest::collection::vec(stmt(), 1..6)) {
        run(&stmts.join("\n"));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 5000;
    for (open, close) in [("(", ")"), ("[", "]"), ("{ a: ", "}"), ("-> { ", " }")] {
        let code = format!("{}1{}", open.repeat(n), close.repeat(n));
        run(&code);
    }
    let code = "if true\n".repeat(n) + &"end\n".repeat(n);
    run(&code);
    let code = format!("x = {}", "\"#{".repeat(100) + &"}\"".repeat(100));
    run(&code);
}

#[test]
fn runaway_code_ends_with_an_error() {
    for code in [
        "loop { }",
        "def f = f\nf",
        "x = 'a'\n100.times { x = x + x }",
        "a = []\nloop { a << a.size }",
        "def f(n) = f(n + 1)\nf(0)",
        "x = (1..Float::INFINITY).to_a",
    ] {
        let r = puppet_ruby::eval_inspect_with(code, 200_000);
        assert!(r.is_err(), "{code}: {r:?}");
    }
}

#[test]
fn mutated_corpus_files_never_panic() {
    let root = std::path::Path::new("/usr/share/puppet/modules");
    if !root.is_dir() {
        return;
    }
    let mut files = Vec::new();
    for m in ["stdlib", "apache", "firewall", "keystone"] {
        let dir = root.join(m).join("lib/puppet/parser/functions");
        if let Ok(rd) = std::fs::read_dir(&dir) {
            let mut v: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
            v.sort();
            files.extend(v.into_iter().take(20));
        }
    }
    for (k, f) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let len = text.len();
        run(&text);
        for cut in [len / 3, len / 2, (len * 2) / 3] {
            let cut = (cut + k) % len.max(1);
            let mut t = text.clone();
            if t.is_char_boundary(cut) {
                t.truncate(cut);
                run(&t);
            }
        }
    }
}

/// Programs whose data doubles on every turn end with an error (the size bound of one
/// string or array, the memory bound of the run, the bound on the elements one operation
/// walks, or the step budget for work proportional to the data), quickly: shared parts
/// count as often as they are walked (`[a, a]` is cheap, its `inspect` is not).
#[test]
fn exponential_growth_is_an_error() {
    let programs = [
        "a = [1]; 100.times { a = a + a }; a.size",
        "s = 'x'; 100.times { s = s + s }; s.size",
        "s = 'x'; 100.times { s << s }; s.size",
        "s = 'x'; 100.times { s = \"#{s}#{s}\" }; s.size",
        "a = [1]; 100.times { a = a * 2 }; a.size",
        "s = 'x'; 100.times { s = s * 2 }; s.size",
        "a = [1]; 100.times { a.concat(a) }; a.size",
        "a = [1]; 100.times { a = [a, a] }; a.flatten.size",
        "a = [1]; 100.times { a = [a, a] }; a.inspect.size",
        "a = [1]; 100.times { a = [a, a] }; a.to_s.size",
        "a = [1]; 100.times { a = [a, a] }; a.join(',').size",
        "a = [1]; 100.times { a = [a, a] }; a.hash",
        "a = [1]; b = [1]; 40.times { a = [a, a]; b = [b, b] }; a == b",
        "a = [1]; b = [1]; 40.times { a = [a, a]; b = [b, b] }; (a <=> b).to_s",
        "a = [1]; b = [1]; 40.times { a = [a, a]; b = [b, b] }; {a => 1}[b]",
        "a = [1]; 40.times { a = [a, a] }; require 'json'; a.to_json.size",
        "a = [1]; 40.times { a = [a, a] }; require 'yaml'; a.to_yaml.size",
        "h = {1 => 2}; 100.times { h = {a: h, b: h} }; h.inspect.size",
        "h = {1 => 2}; 40.times { h = {a: h, b: h} }; h.to_s.size",
        "h = {1 => 2}; g = {1 => 2}; 40.times { h = {a: h, b: h}; g = {a: g, b: g} }; h == g",
        "s = 'ab'; 100.times { s = s.gsub('a', 'aa').gsub('b', 'bb') }; s.size",
        "s = 'ab'; 100.times { s = s.gsub(/a/) { 'aa' } }; s.size",
        "s = 'ab'; 100.times { s = s.chars.map { |c| c * 2 }.join }; s.size",
        "a = (1..1_000_000_000).to_a; a.size",
        "a = [1] * 1_000_000_000; a.size",
        "'x'.ljust(1_000_000_000).size",
        "a = [1, 2, 3]; 100.times { a = a.product(a).flatten }; a.size",
        "s = 'x'; 100.times { s = [s, s].join }; s.size",
        "s = 'x'; 100.times { s = format('%s%s', s, s) }; s.size",
        // Integers beyond 64 bits stop at the interpreter's size limit (NoMemoryError).
        "x = 2; 100.times { x = x * x }; x.bit_length",
        "x = 7; 100.times { x = x ** 3 }; x.bit_length",
        "x = 1; 100.times { x = (x << 100_000) | 1 }; x.bit_length",
        "(1 << (2**40)).bit_length",
        "(2**(2**20)).bit_length",
    ];
    for p in programs {
        let started = std::time::Instant::now();
        let r = puppet_ruby::eval_inspect_with(p, 5_000_000);
        assert!(r.is_err(), "{p}: {r:?}");
        eprintln!(
            "{:>8.3}s {p}: {}",
            started.elapsed().as_secs_f64(),
            r.unwrap_err()
        );
    }
}

/// The inputs of `fixtures/fuzz/` named `bulk_*` build large data with native methods
/// (`(1..n).to_a`, `[x] * n`, `first(n)`) again and again: that work counts against the step
/// budget, one step an element, so the run ends with the budget error (before, it ran for
/// seconds, up to the memory bound).
#[test]
fn bulk_building_counts_against_the_step_budget() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).expect("fixtures/fuzz").flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.starts_with("bulk_") {
            continue;
        }
        seen += 1;
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        match puppet_ruby::eval_inspect_with(&text, STEPS) {
            Err(puppet_ruby::RubyError::Unsupported { construct, .. })
                if construct.contains("evaluation steps") => {}
            other => panic!("{name}: expected the step budget error, got {other:?}"),
        }
    }
    assert!(seen > 0);
}

/// Every input of `fixtures/fuzz/` runs as the `ruby_run` fuzz target runs it, on a small
/// stack, without a panic.
#[test]
fn fuzz_fixtures_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/fuzz")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let name = f.display().to_string();
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || fuzz_ruby::run(&text))
            .expect("thread")
            .join()
            .unwrap_or_else(|_| panic!("{name} panicked"));
    }
}
