//! The `erb_render` fuzz target: feeds arbitrary UTF-8 to puppet-erb as a template and
//! renders it against a small scope (a few variables, functions that echo their first
//! argument). Only "no panic, no hang, no unbounded memory": any `Ok` or `Err` is fine.

#![no_main]

use libfuzzer_sys::fuzz_target;
use puppet_erb::{IndexMap, SmolStr, TemplateScope};
use puppet_types::Value;

struct Scope;

impl TemplateScope for Scope {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.all_variables()
            .get(name.trim_start_matches("::"))
            .cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        let mut m = IndexMap::new();
        m.insert(SmolStr::new("x"), Value::Integer(3));
        m.insert(SmolStr::new("s"), Value::string("a b"));
        m.insert(
            SmolStr::new("list"),
            Value::array(vec![Value::string("a"), Value::Undef, Value::Integer(1)]),
        );
        m.insert(
            SmolStr::new("h"),
            Value::hash(vec![(Value::string("k"), Value::string("v"))]),
        );
        m
    }
    fn call_function(&mut self, _: &str, args: Vec<Value>) -> Result<Value, String> {
        Ok(args.into_iter().next().unwrap_or(Value::Undef))
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = puppet_erb::render(text, "fuzz.erb", &mut Scope);
    let _ = puppet_erb::render(text, "", &mut Scope);
});
