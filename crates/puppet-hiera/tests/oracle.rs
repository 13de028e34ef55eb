//! Compares our lookups with Puppet 7.23's answers recorded in `fixtures/expected.json`
//! (regenerate with `fixtures/gen.sh`, which needs the Puppet oracle; CI only reads the
//! JSON). Values are compared in Puppet's `%p` form; errors by their message text, which
//! must occur in Puppet's (Puppet adds "Evaluation Error: ..." and "on node ..." around it).

use puppet_hiera::{FsSource, Lookup, MergeStrategy, Scope};
use puppet_types::Value;
use std::path::{Path, PathBuf};

struct FactsScope {
    facts: Value,
}

impl Scope for FactsScope {
    fn variable(&self, name: &str) -> Option<Value> {
        let name = name.strip_prefix("::").unwrap_or(name);
        match name {
            "facts" => Some(self.facts.clone()),
            "trusted" => Some(Value::hash([(
                Value::string("certname"),
                Value::string("node.example.com"),
            )])),
            _ => match &self.facts {
                Value::Hash(h) => h.get(&Value::string(name)).cloned(),
                _ => None,
            },
        }
    }
}

fn json_to_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => n
            .as_i64()
            .map(Value::Integer)
            .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0))),
        serde_json::Value::String(s) => Value::string(s),
        serde_json::Value::Array(a) => Value::array(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(m) => {
            Value::hash(m.iter().map(|(k, v)| (Value::string(k), json_to_value(v))))
        }
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn build() -> Lookup {
    let f = fixtures();
    let mymod = f.join("modules/mymod");
    let other = f.join("modules/other");
    let v4mod = f.join("modules/v4mod");
    let v4bad = f.join("modules/v4bad");
    let v4dup = f.join("modules/v4dup");
    Lookup::from_dirs(
        FsSource,
        Some(&f.join("global/hiera.yaml")),
        None,
        &[
            ("mymod", &mymod),
            ("other", &other),
            ("v4mod", &v4mod),
            ("v4bad", &v4bad),
            ("v4dup", &v4dup),
        ],
    )
    .unwrap()
}

#[test]
fn lookups_match_puppet() {
    let f = fixtures();
    let facts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(f.join("facts.json")).unwrap()).unwrap();
    let scope = FactsScope {
        facts: json_to_value(&facts),
    };
    // gen.sh writes this directory's path as "<fixtures>".
    let text = std::fs::read_to_string(f.join("expected.json"))
        .unwrap()
        .replace("<fixtures>", &f.display().to_string());
    let expected: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let lookup = build();
    let mut failures = Vec::new();
    for case in &expected {
        let key = case["key"].as_str().unwrap();
        // `convert_to` runs the evaluator's `new`: puppet-eval's tests/hiera.rs replays these.
        if case.get("evaluator").is_some() {
            continue;
        }
        if case.get("apl").is_some() {
            let (class, param) = key.rsplit_once("::").unwrap();
            let v = lookup
                .class_parameter(class, param, &scope)
                .unwrap()
                .unwrap();
            let want = case["value"].as_str().unwrap();
            if want != format!("param={}", v.to_plain_string()) {
                failures.push(format!("APL {key}: got {v}, want {want}"));
            }
            continue;
        }
        let merge = case
            .get("merge")
            .map(|m| MergeStrategy::from_value(&json_to_value(m)));
        let default = case.get("default").map(json_to_value);
        let got = match merge {
            Some(Err(e)) => Err(e),
            Some(Ok(m)) => lookup.lookup_function(&[key], Some(m), default, &scope),
            None => lookup.lookup_function(&[key], None, default, &scope),
        };
        match (got, case.get("value"), case.get("error")) {
            (Ok(v), Some(want), _) => {
                if v.to_string() != want.as_str().unwrap_or("") {
                    failures.push(format!("{key}: got {v}, want {want}"));
                }
            }
            (Err(e), _, Some(want)) => {
                if !want.as_str().unwrap_or("").contains(&e.message) {
                    failures.push(format!("{key}: got error {e}, want {want}"));
                }
            }
            (got, want_v, want_e) => failures.push(format!(
                "{key}: got {got:?}, want value {want_v:?} / error {want_e:?}"
            )),
        }
    }
    let total = expected.len();
    eprintln!("{} of {total} cases match Puppet", total - failures.len());
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn module_namespace_warnings() {
    let lookup = build();
    let scope = FactsScope {
        facts: Value::hash([]),
    };
    lookup.lookup("mymod::param", None, None, &scope).unwrap();
    let w = lookup.take_warnings();
    assert!(
        w.iter()
            .any(|m| m.starts_with("Module 'mymod': Value returned from data_hash function 'yaml_data', when using location '")
                && m.ends_with("must use keys qualified with the name of the module")),
        "{w:?}"
    );
}
