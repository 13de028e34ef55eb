//! Compares our rendering with what Ruby's ERB produced for the recorded fixtures
//! (`tests/fixtures/expected.json`, made by `tests/fixtures/gen.rb`): hand-written templates
//! covering every supported construct, the corpus templates with guessed variables, and
//! every template Puppet rendered while compiling the public nodes, with the variables Puppet
//! bound and the function results and `scope.lookupvar` answers it gave (replayed here).
//! An expected output must match byte for byte; an expected Ruby exception must be an error
//! of the same class here (syntax errors as [`ErbError::Syntax`]). Set `ERB_FIXTURE_VERBOSE=1` to print every mismatch.

use indexmap::IndexMap;
use puppet_erb::{render, ErbError, TemplateScope};
use puppet_types::Value;
use smol_str::SmolStr;

struct Scope {
    vars: IndexMap<SmolStr, Value>,
    /// Recorded answers: (function name or `lookupvar`, arguments, result).
    calls: Vec<(String, serde_json::Value, Value)>,
    /// Variables the template set with `scope.setvar`.
    set: IndexMap<SmolStr, Value>,
}

fn json_to_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::string(s),
        serde_json::Value::Array(a) => Value::array(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(o) => {
            Value::hash(o.iter().map(|(k, v)| (Value::string(k), json_to_value(v))))
        }
    }
}

fn versionparts(v: &Value) -> Vec<i64> {
    v.to_plain_string()
        .split('.')
        .map(puppet_erb_to_i)
        .collect()
}

fn puppet_erb_to_i(s: &str) -> i64 {
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap_or(0)
}

impl TemplateScope for Scope {
    fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.set.get(name) {
            return Some(v.clone());
        }
        let recorded = self
            .calls
            .iter()
            .find(|(n, a, _)| n == "lookupvar" && a.as_str() == Some(name));
        if let Some((_, _, v)) = recorded {
            return Some(v.clone());
        }
        self.vars.get(name.trim_start_matches("::")).cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.vars.clone()
    }
    fn instance_variable(&self, name: &str) -> Option<Value> {
        self.vars.get(name).cloned()
    }
    fn set_variable(&mut self, name: &str, value: Value) -> Result<(), String> {
        self.set.insert(SmolStr::new(name), value);
        Ok(())
    }
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        let replayed = self.calls.iter().position(|(n, a, _)| {
            n == name
                && a.as_array().is_some_and(|a| {
                    a.len() == args.len() && a.iter().map(json_to_value).eq(args.iter().cloned())
                })
        });
        if let Some(i) = replayed {
            return Ok(self.calls.remove(i).2);
        }
        match name {
            "versioncmp" => {
                let a = versionparts(args.first().unwrap_or(&Value::Undef));
                let b = versionparts(args.get(1).unwrap_or(&Value::Undef));
                Ok(Value::Integer(a.cmp(&b) as i64))
            }
            "upcase" => Ok(Value::string(
                args.first()
                    .map(|a| a.to_plain_string())
                    .unwrap_or_default()
                    .to_uppercase(),
            )),
            "warning" => Ok(Value::Undef),
            "fail" => Err(args
                .iter()
                .map(|a| a.to_plain_string())
                .collect::<Vec<_>>()
                .join(" ")),
            other => Err(format!("Unknown function: '{other}'")),
        }
    }
}

#[test]
fn fixtures_match_ruby() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/expected.json"
    ))
    .unwrap();
    let records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let verbose = std::env::var("ERB_FIXTURE_VERBOSE").is_ok();
    let (mut ok, mut bad, mut unsupported) = (0, 0, 0);
    let mut failures = Vec::new();
    // The top scope of each public node, shared by that node's records.
    let topscopes: IndexMap<&str, &serde_json::Map<String, serde_json::Value>> = records
        .iter()
        .filter_map(|r| Some((r["name"].as_str()?, r["topscope_vars"].as_object()?)))
        .collect();
    let mut total = 0;
    for r in &records {
        if r.get("template").is_none() {
            continue;
        }
        total += 1;
        let name = r["name"].as_str().unwrap_or("?");
        let file = r["file"].as_str().unwrap_or("?");
        let template = r["template"].as_str().unwrap_or("");
        let mut vars = IndexMap::new();
        if let Some(top) = r["topscope"].as_str() {
            let top = topscopes
                .get(top)
                .expect("a node record names its topscope record");
            let hidden = r["not_in_scope"].as_array();
            for (k, v) in top.iter() {
                if !hidden.is_some_and(|h| h.iter().any(|x| x.as_str() == Some(k))) {
                    vars.insert(SmolStr::new(k), json_to_value(v));
                }
            }
        }
        if let Some(o) = r["vars"].as_object() {
            for (k, v) in o {
                vars.insert(SmolStr::new(k), json_to_value(v));
            }
        }
        let calls = r["calls"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| {
                        (
                            c[0].as_str().unwrap_or("").to_string(),
                            c[1].clone(),
                            json_to_value(&c[2]),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut scope = Scope {
            vars,
            calls,
            set: IndexMap::new(),
        };
        let got = render(template, file, &mut scope);
        let expected_out = r.get("output").and_then(|o| o.as_str());
        let ruby_class = r["error"]["class"].as_str().unwrap_or("");
        let pass = match (&got, expected_out) {
            (Ok(g), Some(e)) => g == e,
            (Err(ErbError::Unsupported { .. }), _) => false,
            // The same exception class as Ruby (a Ruby syntax error is ours too).
            (Err(ErbError::Runtime { class, .. }), None) => class == ruby_class,
            (Err(ErbError::Syntax { .. }), None) => ruby_class == "SyntaxError",
            _ => false,
        };
        if pass {
            ok += 1;
            continue;
        }
        if matches!(got, Err(ErbError::Unsupported { .. })) {
            unsupported += 1;
        } else {
            bad += 1;
        }
        if verbose {
            println!("=== {name}");
            match expected_out {
                Some(e) => println!("--- ruby:\n{e}"),
                None => println!("--- ruby error: {}", r["error"]),
            }
            match &got {
                Ok(g) => println!("--- ours:\n{g}"),
                Err(e) => println!("--- ours error: {e}"),
            }
        }
        failures.push(name.to_string());
    }
    println!("fixtures: {total} total, {ok} match, {bad} differ, {unsupported} unsupported");
    assert!(failures.is_empty(), "mismatching fixtures: {failures:#?}");
}
