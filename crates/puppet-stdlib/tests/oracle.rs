//! Compares the native implementations with Puppet 7.23 on the recorded cases of
//! `fixtures/oracle.json` (made by `tools/gen_fixtures.py` with the real Puppet: the
//! `%p` text of the value, or the error message, and the warnings logged).
//!
//! Each case's arguments are read with `puppet_functions::parse_value`, the function is
//! called through a registry holding the built-ins and every module's natives, with a mock
//! `CallContext` whose module path holds `stdlib` and `archive` at the corpus directory.
//! The test reports the agreement and fails below 98 %; set `ORACLE_SHOW_WARNINGS=1` to
//! print the cases whose first warning differs.

use puppet_functions::{builtins, Block, CallContext, CallError, LogLevel, Registry};
use puppet_types::{Type, Value};
use serde_json::Value as Json;
use std::sync::Arc;

struct Mock {
    reg: Arc<Registry>,
    warnings: Vec<String>,
    notices: Vec<String>,
    warned: std::collections::HashSet<String>,
}

impl Mock {
    fn new(reg: &Arc<Registry>) -> Mock {
        Mock {
            reg: reg.clone(),
            warnings: vec![],
            notices: vec![],
            warned: Default::default(),
        }
    }
}

impl CallContext for Mock {
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
    fn variable(&self, _name: &str) -> Option<Value> {
        None
    }
    fn log(&mut self, level: LogLevel, message: &str) {
        match level {
            LogLevel::Warning => self.warnings.push(message.to_string()),
            LogLevel::Notice => self.notices.push(message.to_string()),
            _ => {}
        }
    }
    fn type_alias(&self, _name: &str) -> Option<Type> {
        None
    }
    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        if !self.warned.insert(key.to_string()) {
            return false;
        }
        self.warnings.push(message.to_string());
        true
    }
    /// The fixtures' calls are `-e` code: a call on line 1 of the program.
    fn puppet_stack(&self) -> Vec<(String, u32)> {
        vec![("unknown".into(), 1), ("unknown".into(), 0)]
    }
    /// The fixtures' `loadjson`/`loadyaml` cases name files that do not exist.
    fn read_file(&self, _path: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }
    fn module_directory(&self, name: &str) -> Option<String> {
        // The fixture was made with the corpus as module path; the cases ask for these.
        ["stdlib", "archive"]
            .contains(&name)
            .then(|| format!("/usr/share/puppet/modules/{name}"))
    }
    fn module_file(&self, name: &str, relative: &str) -> Option<Vec<u8>> {
        let dir = self.module_directory(name)?;
        std::fs::read(format!("{dir}/{relative}")).ok()
    }
}

fn registry() -> Arc<Registry> {
    let mut reg = builtins::registry().clone();
    for m in puppet_stdlib::modules() {
        puppet_stdlib::register_module(m, &mut reg);
    }
    Arc::new(reg)
}

/// Runs one case: `Ok(%p text)` or `Err(message)`, plus the warnings.
fn run(reg: &Arc<Registry>, function: &str, args: &str) -> (Result<String, String>, Vec<String>) {
    let parsed = match puppet_functions::parse_value(&format!("[{args}]"), &|_| None) {
        Ok(Value::Array(a)) => a.to_vec(),
        Ok(other) => vec![other],
        Err(e) => return (Err(format!("unparsable arguments: {e}")), vec![]),
    };
    let mut ctx = Mock::new(reg);
    let out = match reg.call(&mut ctx, function, parsed, None) {
        Ok(v) => puppet_types::convert::format_value(&v, Some("%p")).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    (out, ctx.warnings)
}

#[test]
fn agrees_with_puppet() {
    let text = include_str!("../fixtures/oracle.json");
    let fixtures: Json = serde_json::from_str(text).unwrap();
    let cases = fixtures["cases"].as_array().cloned().unwrap_or_default();
    let reg = registry();
    let mut total = 0usize;
    let mut agree = 0usize;
    let mut warn_total = 0usize;
    let mut warn_agree = 0usize;
    let mut failures = Vec::new();
    for c in &cases {
        let function = c["function"].as_str().unwrap_or_default();
        let args = c["args"].as_str().unwrap_or_default();
        let expected: Result<String, String> = if c["ok"].as_bool() == Some(true) {
            Ok(c["output"].as_str().unwrap_or_default().to_string())
        } else {
            Err(c["error"].as_str().unwrap_or_default().to_string())
        };
        let (got, warnings) = run(&reg, function, args);
        total += 1;
        if got == expected {
            agree += 1;
        } else {
            failures.push(format!(
                "{function}({args})\n   expected {expected:?}\n   got      {got:?}"
            ));
        }
        let want: Vec<String> = c["warnings"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        // The fixture keeps a warning up to its stack and Ruby location (see gen_fixtures.py).
        let warnings: Vec<String> = warnings
            .iter()
            .map(|w| {
                let w = w.split(" at [").next().unwrap_or_default();
                w.split("\n   (location:")
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        if !want.is_empty() || !warnings.is_empty() {
            warn_total += 1;
            if want.first() != warnings.first() && std::env::var("ORACLE_SHOW_WARNINGS").is_ok() {
                eprintln!(
                    "W {function}({args}) want {:?} got {:?}",
                    want.first(),
                    warnings.first()
                );
            }
            if want.first() == warnings.first() {
                warn_agree += 1;
            }
        }
    }
    let pct = if total == 0 {
        0.0
    } else {
        agree as f64 * 100.0 / total as f64
    };
    eprintln!(
        "oracle: {agree}/{total} cases agree ({pct:.2} %); first warning agrees in {warn_agree}/{warn_total}"
    );
    for f in failures.iter().take(300) {
        eprintln!("{f}");
    }
    assert!(total >= 1000, "only {total} cases");
    assert!(pct >= 98.0, "{pct:.2} % < 98 %");
}

/// The functions that take a Ruby regexp as a string agree with Puppet on every recorded
/// case: Ruby's syntax and anchors (`^`, `$` at every line, `\Z`, `\h`) and error messages.
#[test]
fn regexp_functions_agree_on_every_case() {
    let text = include_str!("../fixtures/oracle.json");
    let fixtures: Json = serde_json::from_str(text).unwrap();
    let reg = registry();
    let mut checked = 0;
    let mut failures = Vec::new();
    for c in fixtures["cases"].as_array().into_iter().flatten() {
        let function = c["function"].as_str().unwrap_or_default();
        if !matches!(function, "grep" | "reject" | "validate_re") {
            continue;
        }
        let args = c["args"].as_str().unwrap_or_default();
        let expected: Result<String, String> = if c["ok"].as_bool() == Some(true) {
            Ok(c["output"].as_str().unwrap_or_default().to_string())
        } else {
            Err(c["error"].as_str().unwrap_or_default().to_string())
        };
        let got = run(&reg, function, args).0;
        if got != expected {
            failures.push(format!(
                "{function}({args}): expected {expected:?}, got {got:?}"
            ));
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} regexp cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A value as Puppet's catalog writes a resource parameter: a binary string (Ruby's
/// ASCII-8BIT) as `{"__ptype": "Binary", "__pvalue": <base64>}`.
fn catalog_form(v: &Value) -> Json {
    use base64::Engine;
    match v {
        Value::Undef => Json::Null,
        Value::Boolean(b) => Json::Bool(*b),
        Value::Integer(i) => Json::from(*i),
        Value::String(s) if s.is_binary() => serde_json::json!({
            "__ptype": "Binary",
            "__pvalue": base64::engine::general_purpose::STANDARD.encode(s.to_bytes()),
        }),
        Value::String(s) => Json::String(s.to_string()),
        Value::Array(a) => Json::Array(a.iter().map(catalog_form).collect()),
        other => Json::String(format!("unexpected {other}")),
    }
}

/// An argument of `fixtures/binary.json`: a Puppet literal, a binary string, or an array.
fn binary_fixture_arg(a: &Json) -> Value {
    use base64::Engine;
    if let Some(p) = a["p"].as_str() {
        return puppet_functions::parse_value(p, &|_| None).expect("a literal");
    }
    if let Some(b) = a["b64"].as_str() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b)
            .expect("base64");
        return Value::String(puppet_types::Str::from_bytes(&bytes));
    }
    let items = a["array"].as_array().expect("an array");
    Value::array(items.iter().map(binary_fixture_arg).collect())
}

/// Which natives answer binary strings, and which keep an argument's encoding, as Puppet's
/// Ruby does (`fixtures/binary.json`, made by `tools/gen_binary_fixtures.py`): `pw_hash`
/// (Ruby's `crypt`) and `base64('decode')` make them, `delete`, `suffix`, `reverse`,
/// `shell_escape` and the case functions keep them, `prefix` joins into the prefix's.
#[test]
fn binary_strings_as_puppet() {
    let text = include_str!("../fixtures/binary.json");
    let fixtures: Json = serde_json::from_str(text).unwrap();
    let reg = registry();
    let mut failures = Vec::new();
    let cases = fixtures["cases"].as_array().cloned().unwrap_or_default();
    for c in &cases {
        let function = c["function"].as_str().unwrap_or_default();
        let args: Vec<Value> = c["args"]
            .as_array()
            .into_iter()
            .flatten()
            .map(binary_fixture_arg)
            .collect();
        let mut ctx = Mock::new(&reg);
        let got = match reg.call(&mut ctx, function, args, None) {
            Ok(v) => Ok(catalog_form(&v)),
            Err(e) => Err(e.to_string()),
        };
        let expected = match c.get("error") {
            Some(e) => Err(e.as_str().unwrap_or_default().to_string()),
            None => Ok(c["message"].clone()),
        };
        if got != expected {
            failures.push(format!(
                "{function}{}: expected {expected:?}, got {got:?}",
                c["args"]
            ));
        }
    }
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
