//! Compares our rendering with what Ruby's ERB produced for the recorded fixtures
//! (`tests/fixtures/expected.json`, made by `tests/fixtures/gen.rb`): hand-written templates
//! covering every supported construct and the corpus templates with guessed variables.
//! An expected output must match byte for byte; an expected Ruby exception must be an error
//! of the same class here (syntax errors as [`ErbError::Syntax`]). Set `ERB_FIXTURE_VERBOSE=1` to print every mismatch.

use indexmap::IndexMap;
use puppet_erb::{render, ErbError, TemplateScope};
use puppet_types::Value;
use smol_str::SmolStr;

struct Scope(IndexMap<SmolStr, Value>);

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
        self.0.get(name.trim_start_matches("::")).cloned()
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.0.clone()
    }
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
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
    for r in &records {
        let name = r["name"].as_str().unwrap_or("?");
        let file = r["file"].as_str().unwrap_or("?");
        let template = r["template"].as_str().unwrap_or("");
        let mut vars = IndexMap::new();
        if let Some(o) = r["vars"].as_object() {
            for (k, v) in o {
                vars.insert(SmolStr::new(k), json_to_value(v));
            }
        }
        let mut scope = Scope(vars);
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
    println!(
        "fixtures: {} total, {ok} match, {bad} differ, {unsupported} unsupported",
        records.len()
    );
    assert!(failures.is_empty(), "mismatching fixtures: {failures:#?}");
}
