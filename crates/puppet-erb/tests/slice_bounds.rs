//! Slices whose bounds reach Ruby's Integer range ends (`a[1..9223372036854775807]`) give
//! Ruby's answers instead of overflowing. The expected texts are Ruby 3.1's, from
//! `ruby -e 'a=[1,2,3]; s="abcdef"; m=9223372036854775807; p a[1..m], s[1..m], ...'`
//! (each `<%= x.inspect %>` below prints what `p x` printed).

use puppet_erb::{render, IndexMap, SmolStr, TemplateScope};
use puppet_types::Value;

struct Scope;
impl TemplateScope for Scope {
    fn lookup(&self, _: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }
    fn call_function(&mut self, name: &str, _: Vec<Value>) -> Result<Value, String> {
        Err(format!("Unknown function: '{name}'"))
    }
}

#[test]
fn slices_to_integer_max_do_not_overflow() {
    let cases = [
        ("a[1..m]", "[2, 3]"),
        ("a[-2..m]", "[2, 3]"),
        ("a[1, m]", "[2, 3]"),
        ("s[1..m]", "\"bcdef\""),
        ("s[-2..m]", "\"ef\""),
        ("s[1, m]", "\"bcdef\""),
        ("a[m..m]", "nil"),
        ("s[m..m]", "nil"),
        ("a[1...m]", "[2, 3]"),
    ];
    for (expr, ruby) in cases {
        let text = format!(
            "<% a = [1, 2, 3]; s = 'abcdef'; m = 9223372036854775807 %><%= ({expr}).inspect %>"
        );
        let out = render(&text, "t.erb", &mut Scope).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(out, ruby, "{expr}");
    }
}
