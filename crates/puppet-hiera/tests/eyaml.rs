//! `eyaml_lookup_key` against Puppet 7.23 with hiera-eyaml 3.3: the key pairs and eyaml files
//! under `fixtures/eyaml` were made with the real `eyaml`, and `fixtures/eyaml/cases.json`
//! holds Puppet's answers (values, errors, warnings) to the lookups of each case, one
//! compilation per case (regenerate with `scripts/gen-eyaml-fixtures.py`; CI only reads the
//! files). The tree is served from memory under the root Puppet read it from, so paths in
//! messages agree. Errors are compared by our message occurring in Puppet's (Puppet adds
//! "Evaluation Error: ..." and the manifest location around it).

use puppet_hiera::{Lookup, LookupAdapter, MemorySource, Scope};
use puppet_types::Value;
use std::path::{Path, PathBuf};

const ROOT: &str = "/tmp/puppet-rs-eyaml";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/eyaml")
}

/// Every file of the fixture tree, at its place under [`ROOT`].
fn source() -> MemorySource {
    fn add(dir: &Path, rel: &Path, src: &mut MemorySource) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let rel = rel.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                add(&entry.path(), &rel, src);
            } else {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                src.insert(Path::new(ROOT).join(&rel), text);
            }
        }
    }
    let mut src = MemorySource::new();
    add(&fixtures(), Path::new(""), &mut src);
    src
}

/// The manifest's scopes: top scope (`$role = 'web'`) or class `c` (`$role = 'db'`).
struct TestScope<'a> {
    in_class: bool,
    adapter: &'a LookupAdapter,
}

impl Scope for TestScope<'_> {
    fn variable(&self, name: &str) -> Option<Value> {
        match name {
            "role" if self.in_class => Some(Value::string("db")),
            "role" | "::role" => Some(Value::string("web")),
            "trusted" | "::trusted" => Some(Value::hash([(
                Value::string("certname"),
                Value::string("node.example.com"),
            )])),
            _ => None,
        }
    }

    fn adapter(&self) -> Option<&LookupAdapter> {
        Some(self.adapter)
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

#[test]
fn lookups_match_puppet() {
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("cases.json")).unwrap())
            .unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let hiera = Path::new(ROOT).join(case["hiera"].as_str().unwrap());
        // One compilation: a fresh lookup and adapter.
        let lookup = Lookup::from_dirs(source(), Some(&hiera), None, &[]).unwrap();
        let adapter = LookupAdapter::default();
        let mut got = Vec::new();
        let mut error = None;
        for l in case["lookups"].as_array().unwrap() {
            let key = l[0].as_str().unwrap();
            let scope = TestScope {
                in_class: l[1] == "class",
                adapter: &adapter,
            };
            match lookup.lookup_function(&[key], None, Some(Value::string("__absent__")), &scope) {
                Ok(v) => got.push(v),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        checked += 1;
        match (case.get("values"), case.get("error"), error) {
            (Some(want), _, None) => {
                for (i, (g, w)) in got.iter().zip(want.as_array().unwrap()).enumerate() {
                    let w = json_to_value(w);
                    if *g != w {
                        failures.push(format!(
                            "{name}: lookup {}: got {g}, want {w}",
                            case["lookups"][i]
                        ));
                    }
                }
                if let Some(want) = case.get("warnings") {
                    let w: Vec<String> = want
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|m| m.as_str().unwrap().to_string())
                        .collect();
                    let ours = lookup.take_warnings();
                    if ours != w {
                        failures.push(format!("{name}: warnings {ours:?}, want {w:?}"));
                    }
                }
            }
            (_, Some(want), Some(e)) => {
                if !want.as_str().unwrap().contains(&e.message) {
                    failures.push(format!(
                        "{name}: got error\n  {}\nwant\n  {want}",
                        e.message
                    ));
                }
            }
            (_, want, e) => failures.push(format!(
                "{name}: got {got:?} / error {e:?}, want error {want:?}"
            )),
        }
    }
    eprintln!(
        "{} of {checked} cases match Puppet",
        checked - failures.len()
    );
    assert!(checked >= 18);
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}
