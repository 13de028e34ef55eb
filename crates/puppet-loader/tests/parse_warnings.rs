//! `parse_warnings` compares hash keys by text before it validates a file in full; the
//! duplicate-key warnings it gives must be exactly the validator's, for any keys: single-
//! and double-quoted strings with escapes, barewords, integers in every radix, floats in
//! every form, booleans and non-literal keys.

use proptest::prelude::*;
use puppet_loader::parse_warnings;

const KEYS: &[&str] = &[
    "'a'",
    "\"a\"",
    "a",
    "'A'",
    "A",
    "'it\\'s'",
    "\"it's\"",
    "\"it\\'s\"",
    "'x\\\\y'",
    "\"x\\\\y\"",
    "1",
    "0x1",
    "01",
    "8",
    "010",
    "0x10",
    "16",
    "1.0",
    "1.00",
    "1e1",
    "10.0",
    "10",
    "true",
    "'true'",
    "false",
    "\"false\"",
    "undef",
    "default",
    "$v",
    "\"${v}\"",
    "[1]",
    "-1",
    "'1'",
    "\"1.0\"",
    "Foo",
    "'foo::bar'",
    "foo::bar",
];

fn duplicates(text: &str) -> Vec<String> {
    let flat = puppet_syntax::flat::parse(text.into());
    parse_warnings(std::path::Path::new("/m/x.pp"), text, &flat)
        .into_iter()
        .filter(|d| d.code == "DUPLICATE_KEY")
        .map(|d| format!("{} {:?}", d.message, d.range))
        .collect()
}

fn validated(text: &str) -> Vec<String> {
    puppet_syntax::validate::validate(&puppet_syntax::parse(text))
        .into_iter()
        .filter(|d| d.code == "DUPLICATE_KEY")
        .map(|d| format!("{} {:?}", d.message, d.range))
        .collect()
}

proptest! {
    #[test]
    fn duplicate_keys_are_the_validators(hashes in prop::collection::vec(
        prop::collection::vec(0..KEYS.len(), 1..5), 1..4)) {
        let text: String = hashes
            .iter()
            .enumerate()
            .map(|(i, keys)| {
                let entries: Vec<String> =
                    keys.iter().enumerate().map(|(j, k)| format!("{} => {j}", KEYS[*k])).collect();
                format!("$h{i} = {{{}}}\n", entries.join(", "))
            })
            .collect();
        prop_assert_eq!(duplicates(&text), validated(&text), "{}", text);
    }
}

#[test]
fn numbers_are_compared_by_value_before_validation() {
    // Only floats repeat here: the text comparison must still find them.
    let text = "$h = {1e1 => a, 10.0 => b}\n";
    assert_eq!(duplicates(text), validated(text));
    assert_eq!(duplicates(text).len(), 1);
}
