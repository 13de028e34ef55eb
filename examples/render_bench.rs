//! Renders one template N times against variables from a JSON object (for callgrind).
//! Run: `render_bench TEMPLATE VARS.json N`.
use indexmap::IndexMap;
use puppet_erb::SmolStr;
use puppet_erb::{Template, TemplateScope};
use puppet_types::Value;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Vars(IndexMap<SmolStr, Value>);
impl TemplateScope for Vars {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.0.get(name).cloned()
    }
    fn instance_variable(&self, name: &str) -> Option<Value> {
        self.0.get(name).cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.0.clone()
    }
    fn call_function(&mut self, _: &str, _: Vec<Value>) -> Result<Value, String> {
        Ok(Value::Undef)
    }
}

fn conv(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => Value::Integer(n.as_i64().unwrap_or(0)),
        serde_json::Value::String(s) => Value::string(s.as_str()),
        serde_json::Value::Array(a) => Value::array(a.iter().map(conv).collect()),
        serde_json::Value::Object(o) => Value::hash(
            o.iter()
                .map(|(k, v)| (Value::string(k.as_str()), conv(v)))
                .collect::<Vec<_>>(),
        ),
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&a[1]).unwrap();
    let vars: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a[2]).unwrap()).unwrap();
    let n: usize = a[3].parse().unwrap();
    let mut scope = Vars(
        vars.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (SmolStr::new(k), conv(v)))
            .collect(),
    );
    let t = Template::parse(&text, &a[1]).unwrap();
    let mut len = 0;
    for _ in 0..n {
        len += t.render(&mut scope).unwrap().len();
    }
    println!("{len}");
}
