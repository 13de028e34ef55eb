//! The Puppet value bridge, checked against real Puppet 7.23: the expected text below is what
//! `/work/shared/oracle/compile-catalog` produced for the same `inline_template` in a class
//! with these variables (undef inside arrays, `default`, regexps, types, Sensitive, SemVer).

use std::sync::Arc;

use puppet_erb::{render, IndexMap, SmolStr, TemplateScope};
use puppet_types::{parameterize, resolve_type_name, Regexp, Value, Version};

struct Scope(IndexMap<SmolStr, Value>);

impl TemplateScope for Scope {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.0.get(name).cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.0.clone()
    }
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        match name {
            "versioncmp" => Ok(Value::Integer(-1)),
            "upcase" => Ok(Value::string(args[0].to_plain_string().to_uppercase())),
            "join" => match (&args[0], &args[1]) {
                (Value::Array(a), sep) => Ok(Value::string(
                    a.iter()
                        .map(Value::to_plain_string)
                        .collect::<Vec<_>>()
                        .join(&sep.to_plain_string()),
                )),
                _ => Err("join".into()),
            },
            other => Err(format!("Unknown function: '{other}'")),
        }
    }
}

#[test]
fn puppet_values_as_real_puppet_shows_them() {
    let mut vars = IndexMap::new();
    let int12 = parameterize(
        &resolve_type_name("Integer"),
        &[Value::Integer(1), Value::Integer(2)],
    )
    .unwrap();
    let mut put = |k: &str, v: Value| {
        vars.insert(SmolStr::new(k), v);
    };
    put("title", Value::string("t"));
    put("name", Value::string("t"));
    put("module_name", Value::string(""));
    put("p", Value::Undef);
    put("d", Value::Default);
    put(
        "a",
        Value::array(vec![
            Value::Integer(1),
            Value::Undef,
            Value::Default,
            Value::string("x"),
        ]),
    );
    put(
        "h",
        Value::hash(vec![
            (Value::string("k"), Value::Undef),
            (
                Value::string("r"),
                Value::Regexp(Regexp::new("ab+c").unwrap()),
            ),
            (Value::string("t"), Value::Type(int12)),
            (
                Value::string("s"),
                Value::Sensitive(Arc::new(Value::string("pw"))),
            ),
            (Value::string("f"), Value::Float(1.0)),
            (
                Value::string("sv"),
                Value::SemVer(Arc::new(Version::parse("1.2.3").unwrap())),
            ),
        ]),
    );
    put("u", Value::Undef);
    let template = "<%= @a.inspect %>|<%= @d.inspect %>|<%= @p.inspect %>|<%= defined?(@p).inspect %>|<%= defined?(@u).inspect %>|<%= @h['k'].inspect %>|<%= @h['r'].inspect %>|<%= @h['t'].to_s %>|<%= @h['s'].to_s %>|<%= @h['f'] %>|<%= @h['sv'].to_s %>|<%= scope.lookupvar('u').inspect %>|<%= scope['nope'].inspect %>|<%= has_variable?('u') %>|<%= scope.to_hash.key?('u') %>|<%= @a.frozen? %>|<%= @a[3].frozen? %>|<%= scope.function_versioncmp(['1.2', '1.10']) %>|<%= scope.call_function('upcase', ['ab']) %>|<%= scope.function_join([['a','b'], '-']) rescue 'x' %>|<%= @title %>|<%= @name %>|<%= @module_name.inspect %>|<%= file.inspect %>";
    let out = render(template, "", &mut Scope(vars)).unwrap();
    // `scope.function_join` is a NoMethodError (join is a 4.x function in Puppet 7; only
    // 3.x functions have `function_` methods), rescued to 'x'.
    assert_eq!(
        out,
        "[1, nil, :default, \"x\"]|:default|nil|nil|nil|nil|/ab+c/|Integer[1, 2]|Sensitive [value redacted]|1.0|1.2.3|nil|nil|false|false|false|true|-1|AB|x|t|t|\"\"|nil"
    );
}

/// `scope`'s class is looked up again once a constant changed (the interpreter keeps the
/// lookup between calls): a method added by reopening `Puppet::Parser::Scope` is seen, and
/// after `remove_const` the class that `scope` gets is the fresh built-in one again.
#[test]
fn scope_class_follows_constant_changes() {
    let mut vars = Scope(IndexMap::new());
    let text = "<%= scope.respond_to?(:greet) %>|\
<% class Puppet::Parser::Scope; def greet; 'hi'; end; end -%>\
<%= scope.greet %>|<%= scope.respond_to?(:greet) %>|\
<% Puppet::Parser.send(:remove_const, :Scope) -%>\
<%= scope.respond_to?(:greet) %>";
    assert_eq!(
        render(text, "t.erb", &mut vars).unwrap(),
        "false|hi|true|false"
    );
}

/// Method lookup follows an `include` made after the class was already searched.
#[test]
fn method_lookup_follows_later_includes() {
    let mut vars = Scope(IndexMap::new());
    let text = "<% module M; def hi; 'm'; end; end; class C; end; c = C.new -%>\
<%= c.respond_to?(:hi) %>|<%= C.ancestors.first(3).inspect %>|\
<% class C; include M; end -%>\
<%= c.hi %>|<%= C.ancestors.first(3).inspect %>";
    assert_eq!(
        render(text, "t.erb", &mut vars).unwrap(),
        "false|[C, Object, Kernel]|m|[C, M, Object]"
    );
}
