//! The top scope's variables as a compile's [`Settings`] make them (`$facts`, `$trusted`,
//! `$server_facts`, every fact, server fact and ENC parameter as a variable of its own,
//! `$environment` and the built-ins `$title`, `$name`, `$module_name`), and the memo of
//! the last ones made that an [`Environment`](crate::env::Environment) keeps.
//!
//! Compiling a node again with the same settings (a server compiling one node's catalog
//! again, a benchmark) would convert every fact again: instead the memo's variables are
//! copied when its settings are identical to the compile's (compared strictly: floats by
//! their bits, a hash or array first by its allocation, which the memo holds and so cannot
//! be reused or changed). The copy keeps the very `$facts` hash, so what Hiera remembers
//! about it holds in the next compile as well. Nothing here evaluates code; the variables
//! the main manifest sets are added to the compile's own copy.

use crate::settings::Settings;
use indexmap::IndexMap;
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// Room for the main manifest's own top-scope variables, besides those the settings make.
const ROOM: usize = 32;

/// The top-scope variables made from one compile's settings, with the settings they were
/// made from.
#[derive(Debug)]
pub(crate) struct TopVars {
    facts: IndexMap<SmolStr, Value>,
    server_facts: IndexMap<SmolStr, Value>,
    enc_parameters: IndexMap<SmolStr, Value>,
    trusted: Option<Value>,
    environment: String,
    vars: crate::Map<SmolStr, Value>,
}

impl TopVars {
    /// The top-scope variables of `settings`, made from scratch.
    fn new(settings: &Settings) -> TopVars {
        let mut vars = crate::Map::default();
        // The facts, server facts, ENC parameters and the dozen built-in variables below:
        // no rehashing while they go in.
        vars.reserve(
            settings.facts.len()
                + settings.server_facts.len()
                + settings.enc_parameters.len()
                + ROOM,
        );
        let facts = Value::Hash(Arc::new(
            settings
                .facts
                .iter()
                .map(|(k, v)| (Value::String(k.clone()), v.clone()))
                .collect(),
        ));
        vars.insert("facts".into(), facts);
        // `puppet apply` without a certificate: local, unauthenticated trusted data.
        let trusted = settings.trusted.clone().unwrap_or_else(|| {
            Value::hash([
                (Value::string("authenticated"), Value::string("local")),
                (Value::string("certname"), Value::Undef),
                (Value::string("extensions"), Value::hash([])),
                (Value::string("hostname"), Value::Undef),
                (Value::string("domain"), Value::Undef),
                (Value::string("external"), Value::hash([])),
            ])
        });
        vars.insert("trusted".into(), trusted);
        vars.insert("title".into(), Value::string("main"));
        vars.insert("name".into(), Value::string("main"));
        vars.insert("module_name".into(), Value::string(""));
        vars.insert(
            "server_facts".into(),
            Value::hash(
                settings
                    .server_facts
                    .iter()
                    .map(|(k, v)| (Value::String(k.clone()), v.clone())),
            ),
        );
        for (k, v) in &settings.server_facts {
            vars.entry(k.clone()).or_insert_with(|| v.clone());
        }
        // An ENC's parameters are top-scope variables (they win over facts, as Puppet's
        // node parameters do).
        for (k, v) in &settings.enc_parameters {
            vars.insert(k.clone(), v.clone());
        }
        vars.insert("environment".into(), Value::string(&settings.environment));
        for (k, v) in &settings.facts {
            vars.entry(k.clone()).or_insert_with(|| v.clone());
        }
        TopVars {
            facts: settings.facts.clone(),
            server_facts: settings.server_facts.clone(),
            enc_parameters: settings.enc_parameters.clone(),
            trusted: settings.trusted.clone(),
            environment: settings.environment.clone(),
            vars,
        }
    }

    /// Whether these variables are what `settings` make.
    fn made_from(&self, settings: &Settings) -> bool {
        self.environment == settings.environment
            && same_map(&self.facts, &settings.facts)
            && same_map(&self.server_facts, &settings.server_facts)
            && same_map(&self.enc_parameters, &settings.enc_parameters)
            && match (&self.trusted, &settings.trusted) {
                (Some(a), Some(b)) => identical(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// The top-scope variables of `settings` (with room for the main manifest's): a copy of
/// `memo`'s when they were made from identical settings, else made anew and left in `memo`
/// for the next compile.
pub(crate) fn top_vars(
    settings: &Settings,
    memo: &std::sync::Mutex<Option<Arc<TopVars>>>,
) -> crate::Map<SmolStr, Value> {
    let last = memo.lock().ok().and_then(|m| m.clone());
    let made = match last {
        Some(t) if t.made_from(settings) => t,
        _ => {
            let t = Arc::new(TopVars::new(settings));
            if let Ok(mut m) = memo.lock() {
                *m = Some(t.clone());
            }
            t
        }
    };
    let mut vars = made.vars.clone();
    vars.reserve(ROOM);
    vars
}

fn same_map(a: &IndexMap<SmolStr, Value>, b: &IndexMap<SmolStr, Value>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((k1, v1), (k2, v2))| k1 == k2 && identical(v1, v2))
}

/// Strict identity of two values: the same structure and contents, floats by their bits, a
/// hash or array first by its allocation; values of other kinds than scalars, strings,
/// arrays and hashes count as different (the memo is then simply made again).
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Undef, Value::Undef) | (Value::Default, Value::Default) => true,
        (Value::Boolean(x), Value::Boolean(y)) => x == y,
        (Value::Integer(x), Value::Integer(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| identical(p, q)))
        }
        (Value::Hash(x), Value::Hash(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|((k1, v1), (k2, v2))| identical(k1, k2) && identical(v1, v2)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn settings(facts: &[(&str, Value)]) -> Settings {
        Settings {
            facts: facts
                .iter()
                .map(|(k, v)| (SmolStr::new(k), v.clone()))
                .collect(),
            ..Settings::default()
        }
    }

    /// A copy from the memo is what making the variables anew gives, and any change of
    /// the settings makes them anew.
    #[test]
    fn memo_gives_what_the_settings_make() {
        let memo = Mutex::new(None);
        let os = Value::hash([(Value::string("family"), Value::string("Debian"))]);
        let a = settings(&[("os", os.clone()), ("kernel", Value::string("Linux"))]);
        // In order, values as text (`==` takes 0.0 and -0.0 for equal).
        let listed = |m: &crate::Map<SmolStr, Value>| -> Vec<(String, String)> {
            m.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let fresh = |s: &Settings| listed(&TopVars::new(s).vars);
        let first = top_vars(&a, &memo);
        assert_eq!(listed(&first), fresh(&a));
        let again = top_vars(&a, &memo);
        assert_eq!(listed(&again), fresh(&a));
        // The very same `$facts` hash.
        match (&first["facts"], &again["facts"]) {
            (Value::Hash(x), Value::Hash(y)) => assert!(Arc::ptr_eq(x, y)),
            other => panic!("{other:?}"),
        }
        let mut variants = vec![
            settings(&[("os", os.clone()), ("kernel", Value::string("BSD"))]),
            settings(&[("os", os.clone())]),
            settings(&[("kernel", Value::string("Linux")), ("os", os.clone())]),
            settings(&[("x", Value::Float(0.0))]),
            settings(&[("x", Value::Float(-0.0))]),
        ];
        let mut b = a.clone();
        b.environment = "staging".into();
        variants.push(b);
        let mut b = a.clone();
        b.trusted = Some(Value::hash([]));
        variants.push(b);
        let mut b = a.clone();
        b.enc_parameters.insert("role".into(), Value::string("db"));
        variants.push(b);
        let mut b = a.clone();
        b.server_facts
            .insert("servername".into(), Value::string("s"));
        variants.push(b);
        for s in variants.iter().chain([&a]) {
            assert_eq!(listed(&top_vars(s, &memo)), fresh(s));
        }
        assert_ne!(fresh(&variants[3]), fresh(&variants[4]));
    }

    #[test]
    fn identity_is_strict() {
        assert!(!identical(&Value::Float(0.0), &Value::Float(-0.0)));
        assert!(!identical(&Value::Integer(1), &Value::Float(1.0)));
        let h = |k: &str| Value::hash([(Value::string(k), Value::Integer(1))]);
        assert!(identical(&h("a"), &h("a")));
        assert!(!identical(&h("a"), &h("b")));
        let a = Value::array(vec![Value::string("x")]);
        assert!(identical(&a, &a.clone()));
        assert!(!identical(&a, &Value::array(vec![Value::string("X")])));
    }
}
