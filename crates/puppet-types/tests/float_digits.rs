//! `puppet_types::printf` against Ruby 3.1: `tests/fixtures/float_digits.tsv` holds Ruby's
//! `'%.Nf' % x`, `%e`, `%g`, `%#g` and `round`/`floor`/`ceil` to digits of chosen floats
//! (ties a hair above or below the half, exact binary ties, random magnitudes), written by
//! `scripts/gen-float-digits.rb`.

use puppet_types::format::float_to_s;
use puppet_types::printf::{exponential, fixed, general, round_digits, round_whole, Rounding};

/// Ruby's `inspect` of a rounding's result: an Integer for no digits.
fn ruby_result(x: f64, digits: i32, mode: Rounding) -> String {
    if digits > 0 {
        return float_to_s(round_digits(x, digits, mode));
    }
    format!("{}", round_whole(x, mode) as i64)
}

fn signed(x: f64, body: String) -> String {
    if x.is_sign_negative() {
        format!("-{body}")
    } else {
        body
    }
}

#[test]
fn float_digits_agree_with_ruby() {
    let text = include_str!("fixtures/float_digits.tsv");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let [op, n, x, want] = cols[..] else {
            panic!("bad line {line:?}");
        };
        let n: i32 = n.parse().expect("digits");
        let x: f64 = x.parse().expect("float");
        let p = n.max(0) as usize;
        let got = match op {
            "f" => signed(x, fixed(x.abs(), p)),
            "e" => signed(x, exponential(x.abs(), p)),
            "g" => signed(x, general(x.abs(), p, false)),
            "g#" => signed(x, general(x.abs(), p, true)),
            "round" => ruby_result(x, n, Rounding::HalfUp),
            "round_even" => ruby_result(x, n, Rounding::HalfEven),
            "round_down" => ruby_result(x, n, Rounding::HalfDown),
            "floor" => ruby_result(x, n, Rounding::Floor),
            "ceil" => ruby_result(x, n, Rounding::Ceil),
            other => panic!("unknown op {other}"),
        };
        count += 1;
        if got != want {
            failures.push(format!("{op} {n} {x:?}: ruby {want}, ours {got}"));
        }
    }
    assert!(count > 10_000, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} differ:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

proptest::proptest! {
    /// Any double (finite or not), any precision: an answer, never a panic.
    #[test]
    fn any_double_formats(bits in proptest::prelude::any::<u64>(), prec in 0usize..25, nd in 1i32..20) {
        let x = f64::from_bits(bits).abs();
        let f = fixed(x, prec);
        let _ = exponential(x, prec);
        let _ = general(x, prec, prec % 2 == 0);
        let _ = round_digits(x, nd, Rounding::HalfEven);
        let _ = round_digits(-x, nd, Rounding::Floor);
        proptest::prop_assert!(!f.is_empty());
    }
}
