//! Errors name the template file, line, column and the construct: unsupported constructs
//! (found while parsing or while rendering), Ruby syntax errors and Ruby exceptions.

use puppet_erb::{render, ErbError, IndexMap, SmolStr, TemplateScope};
use puppet_types::Value;

struct Scope;
impl TemplateScope for Scope {
    fn lookup(&self, _: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        let mut m = IndexMap::new();
        m.insert(SmolStr::new("s"), Value::string("abc"));
        m
    }
    fn call_function(&mut self, name: &str, _: Vec<Value>) -> Result<Value, String> {
        Err(format!("Unknown function: '{name}'"))
    }
}

fn err(text: &str) -> ErbError {
    match render(text, "t.erb", &mut Scope) {
        Ok(out) => panic!("expected an error, got {out:?}"),
        Err(e) => e,
    }
}

#[test]
fn unsupported_constructs_are_located() {
    // Commands are never run: an error at the command, when it is evaluated.
    let e = err("line one\n  <% x = `ls` %>\n");
    assert!(e.is_unsupported(), "{e}");
    assert_eq!(
        e.to_string(),
        "t.erb:2:10: unsupported construct in ERB template: running the command `ls` (Ruby code never runs commands here)"
    );
    let e = err("<%= system('ls') %>");
    assert!(
        e.is_unsupported() && e.to_string().contains("`system'"),
        "{e}"
    );
    let e = err("<%= ERB.new('<%= 1 %%>').src %>");
    assert!(
        e.is_unsupported()
            && e.to_string().starts_with("t.erb:1:24:")
            && e.to_string().contains("ERB#src"),
        "{e}"
    );
    let e = err("a\nb <%= @s.unpack('M*') %>");
    assert_eq!(
        e.to_string(),
        "t.erb:2:9: unsupported construct in ERB template: pack/unpack directive 'M'"
    );
    let e = err("<% x = OpenSSL::Cipher.new('aes-256-cbc') %>");
    assert!(
        e.is_unsupported() && e.to_string().contains("Cipher"),
        "{e}"
    );
}

#[test]
fn ruby_beyond_the_template_subset_runs() {
    let ok = |t: &str| render(t, "t.erb", &mut Scope).unwrap_or_else(|e| panic!("{t}: {e}"));
    assert_eq!(
        ok("<% x = <<~EOS\n  hi\n    there\n  EOS\n%><%= x %>"),
        "hi\n  there\n"
    );
    assert_eq!(ok("<%= lambda { |x| x * 2 }.call(21) %>"), "42");
    assert_eq!(
        ok("<% class Foo; def initialize(a); @a = a; end; def to_s; \"<#{@a}>\"; end; end %><%= Foo.new(@s) %>"),
        "<abc>"
    );
}

#[test]
fn syntax_errors_are_located() {
    let e = err("<% if true %>x");
    assert!(matches!(e, ErbError::Syntax { .. }), "{e}");
    let e = err("<%= [1, 2 %>");
    assert!(matches!(e, ErbError::Syntax { line: 1, .. }), "{e}");
}

#[test]
fn ruby_exceptions_are_located() {
    let e = err("ok\n<% @missing.each do |x| %><% end %>");
    assert_eq!(
        e.to_string(),
        "t.erb:2:12: NoMethodError: undefined method `each' for nil:NilClass"
    );
    let e = err("<%= [3, 'a'].sort %>");
    assert!(
        e.to_string()
            .contains("ArgumentError: comparison of Integer with String failed"),
        "{e}"
    );
    let e = err("<% @s << 'x' %>");
    assert!(e.to_string().contains("FrozenError"), "{e}");
    // Puppet's Scope#method_missing knows 3.x functions only.
    let e = err("<%= scope.function_nope(['a']) %>");
    assert!(
        e.to_string()
            .contains("NoMethodError: undefined method `function_nope'"),
        "{e}"
    );
    let e = err("<%= scope.function_nope('a') %>");
    assert!(e.to_string().contains("single array"), "{e}");
}
