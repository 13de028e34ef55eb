//! Ruby's printf rules for integers (flags, width, precision, every integer conversion) in
//! `sprintf` and `String(value, format)`, against Puppet 7.23's answers
//! (`tests/fixtures/integer_formats.jsonl`, produced by
//! `scripts/gen-integer-format-fixtures.py`).

mod common;

use common::Mock;
use puppet_functions::builtins;
use puppet_types::Value;

#[test]
fn integer_directives_format_as_puppet() {
    let text = include_str!("fixtures/integer_formats.jsonl");
    let reg = builtins::registry();
    let mut n = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
        let fmt = case["format"].as_str().expect("format");
        let value = Value::Integer(case["value"].as_i64().expect("value"));
        let mut ctx = Mock::new(reg);
        let got = reg
            .call(
                &mut ctx,
                "sprintf",
                vec![Value::string(fmt), value.clone()],
                None,
            )
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .map_err(|e| e.to_string());
        assert_eq!(
            got.as_deref(),
            Ok(case["sprintf"].as_str().expect("sprintf")),
            "{line}"
        );
        if let Some(want) = case["string"].as_str() {
            let got = puppet_types::strconv::string_new(&value, Some(&Value::string(fmt)))
                .map_err(|e| e.to_string());
            assert_eq!(got.as_deref(), Ok(want), "String() of {line}");
        }
        n += 1;
    }
    assert!(n >= 300, "only {n} cases");
}
