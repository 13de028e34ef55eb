//! Expression-evaluation speed of puppet-eval (criterion, `cargo bench --bench eval`).
//!
//! Each workload is a small Puppet program evaluated from source with
//! `puppet_lang::eval::evaluate_source` (parse, lower and evaluate, as a compile would);
//! each ends with `notice(...)` of its result, checked before timing. The same programs
//! are timed in Puppet 7.23 by `scripts/eval-bench-puppet.sh`, which prints the ratio
//! against the criterion medians written here (`target/criterion/eval_*/new/estimates.json`).
//! Keep `PROGRAMS` and the script's copies identical.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_lang::eval::{evaluate_source, Settings};

/// (bench name, program, the notice it must log)
pub const PROGRAMS: &[(&str, &str, &str)] = &[
    (
        "reduce_range",
        "$r = Integer[1, 100000].reduce(0) |$m, $x| { $m + $x }\nnotice($r)\n",
        "5000050000",
    ),
    (
        "reduce_array",
        "$a = Integer[1, 100000].map |$x| { $x * 3 }\n$r = $a.reduce(0) |$m, $x| { $m + $x % 7 }\nnotice($r)\n",
        "300002",
    ),
    (
        "string_building",
        "$s = Integer[1, 20000].map |$i| { \"item-${i}:${$i * 2}\" }.join(',')\n$r = \"total ${$s.length} chars\"\nnotice($r)\n",
        "total 323342 chars",
    ),
    (
        "nested_hashes",
        "$h = Hash(Integer[1, 5000].map |$i| { [\"k${i}\", { 'id' => $i, 'meta' => { 'even' => $i % 2 == 0, 'sq' => $i * $i } }] })\n$r = $h.filter |$k, $v| { $v.dig('meta', 'even') }.map |$k, $v| { $v.dig('meta', 'sq') }.reduce(0) |$m, $x| { $m + $x }\nnotice($r)\n",
        "20845835000",
    ),
    (
        "recursive_function",
        "function bench::fib(Integer $n) >> Integer { if $n < 2 { $n } else { bench::fib($n - 1) + bench::fib($n - 2) } }\n$r = bench::fib(18)\nnotice($r)\n",
        "2584",
    ),
];

fn run(src: &str) -> Vec<String> {
    let out = evaluate_source(src, &Settings::default());
    if let Err(e) = &out.value {
        panic!("evaluation failed: {}\n{src}", e.message);
    }
    out.logs.into_iter().map(|l| l.message).collect()
}

fn bench(c: &mut Criterion) {
    for (name, src, expected) in PROGRAMS {
        let logs = run(src);
        assert!(
            logs.iter().any(|m| m == expected),
            "{name}: expected notice {expected:?}, got {logs:?}"
        );
        c.bench_function(&format!("eval_{name}"), |b| b.iter(|| run(black_box(src))));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
