//! The top scope's variables as a compile's [`Settings`] make them (`$facts`, `$trusted`,
//! `$server_facts`, every fact, server fact and ENC parameter as a variable of its own,
//! `$environment` and the built-ins `$title`, `$name`, `$module_name`). Nothing here
//! evaluates code; the variables the main manifest sets are added later.
//!
//! Made anew for every compile, on purpose: a memo of the last settings' variables (tried
//! 2026-11-27) only ever hits when the very same facts are compiled again, which a benchmark
//! does and an agent run (uptime, free memory) does not.

use crate::settings::Settings;
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// Room for the main manifest's own top-scope variables, besides those the settings make.
const ROOM: usize = 32;

/// The top-scope variables of `settings`, with room for the main manifest's own.
pub(crate) fn top_vars(settings: &Settings) -> crate::Map<SmolStr, Value> {
    let mut vars = crate::Map::default();
    // The facts, server facts, ENC parameters and the dozen built-in variables below:
    // no rehashing while they go in.
    vars.reserve(
        settings.facts.len() + settings.server_facts.len() + settings.enc_parameters.len() + ROOM,
    );
    let facts = Value::Hash(Arc::new(
        settings
            .facts
            .iter()
            .map(|(k, v)| (Value::String(k.clone().into()), v.clone()))
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
                .map(|(k, v)| (Value::String(k.clone().into()), v.clone())),
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
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts are variables of their own and `$facts`; an ENC parameter wins over a fact of
    /// the same name, as Puppet's node parameters do.
    #[test]
    fn settings_make_the_top_variables() {
        let mut settings = Settings {
            facts: [
                (SmolStr::new("kernel"), Value::string("Linux")),
                (SmolStr::new("role"), Value::string("fact")),
            ]
            .into_iter()
            .collect(),
            ..Settings::default()
        };
        settings
            .enc_parameters
            .insert("role".into(), Value::string("enc"));
        let vars = top_vars(&settings);
        assert_eq!(vars["kernel"], Value::string("Linux"));
        assert_eq!(vars["role"], Value::string("enc"));
        assert_eq!(vars["title"], Value::string("main"));
        match &vars["facts"] {
            Value::Hash(h) => assert_eq!(h.len(), 2),
            other => panic!("{other:?}"),
        }
    }
}
