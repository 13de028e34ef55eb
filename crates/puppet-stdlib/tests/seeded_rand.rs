//! stdlib's seeded functions (`fqdn_rotate`, `fqdn_rand_string`, `seeded_rand`,
//! `seeded_rand_string`) against Puppet 7.23 with stdlib 8.5, for several nodes
//! (`fixtures/seeded_rand.jsonl`, produced by `scripts/gen-fqdn-rand-fixtures.py`): the value
//! as `String(value)` shows it, or the error, and the warnings logged.

use puppet_functions::{builtins, Block, CallContext, CallError, LogLevel, Registry};
use puppet_types::{Type, Value};
use std::sync::Arc;

struct Node {
    reg: Arc<Registry>,
    fqdn: Option<String>,
    warnings: Vec<String>,
}

impl CallContext for Node {
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError> {
        block.call(self, args)
    }
    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let reg = self.reg.clone();
        reg.call(self, name, args, block)
    }
    fn variable(&self, name: &str) -> Option<Value> {
        let fqdn = Value::string(self.fqdn.as_deref()?);
        match name {
            "::fqdn" | "fqdn" => Some(fqdn),
            "facts" => Some(Value::hash([
                (Value::string("fqdn"), fqdn.clone()),
                (
                    Value::string("networking"),
                    Value::hash([(Value::string("fqdn"), fqdn)]),
                ),
            ])),
            _ => None,
        }
    }
    fn log(&mut self, level: LogLevel, message: &str) {
        if level == LogLevel::Warning {
            self.warnings.push(message.to_string());
        }
    }
    fn type_alias(&self, _name: &str) -> Option<Type> {
        None
    }
}

/// `String(v)`: strings as they are, other values as `%p` shows them.
fn string_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => other.to_string(),
    }
}

#[test]
fn seeded_functions_answer_as_puppet() {
    let mut reg = builtins::registry().clone();
    puppet_stdlib::register_module("stdlib", &mut reg);
    let reg = Arc::new(reg);
    let mut n = 0;
    for line in include_str!("../fixtures/seeded_rand.jsonl").lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
        let call = case["call"].as_str().expect("call");
        let (name, rest) = call.split_once('(').expect("a call");
        let args = match puppet_functions::parse_value(
            &format!("[{}]", rest.strip_suffix(')').expect("a call")),
            &|_| None,
        ) {
            Ok(Value::Array(a)) => a.to_vec(),
            other => panic!("bad arguments in {call}: {other:?}"),
        };
        let mut node = Node {
            reg: reg.clone(),
            fqdn: case["fqdn"].as_str().map(String::from),
            warnings: Vec::new(),
        };
        let got = reg
            .call(&mut node, name, args, None)
            .map(|v| string_of(&v))
            .map_err(|e| e.to_string());
        let want = match case.get("value") {
            Some(v) => Ok(v.as_str().unwrap_or_default().to_string()),
            None => Err(case["error"].as_str().unwrap_or_default().to_string()),
        };
        assert_eq!(got, want, "{line}");
        let warnings: Vec<String> = case["warnings"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(node.warnings, warnings, "{line}");
        n += 1;
    }
    assert!(n >= 80, "only {n} cases");
}
