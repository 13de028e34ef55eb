//! The built-in functions' signatures against Puppet 7.23's own.
//!
//! `fixtures/puppet_signatures.json` holds, for every 4.x function file of Puppet's
//! `lib/puppet/functions`, the signature texts Puppet prints in "expects one of" errors
//! (`TypeMismatchDescriber#signature_string` of each dispatch, in order); it is made by
//! `scripts/puppet-signatures.rb`. Every function of [`builtins::registry`] that Puppet has
//! must list the same signatures in the same order (argument-mismatch dispatches aside).
//! Puppet's functions that the registry does not hold are the evaluator's own (they need
//! the compiler: `include`, `lookup`, ...) and are listed, so that one moving into the
//! registry, or one appearing nowhere, is noticed.

use puppet_functions::builtins;
use std::collections::BTreeMap;

/// Puppet's signatures per function; `None` where Puppet could not load the function on the
/// machine that made the fixture (a missing library).
fn puppet() -> BTreeMap<String, Option<Vec<String>>> {
    let text = include_str!("fixtures/puppet_signatures.json");
    let json: serde_json::Value = serde_json::from_str(text).expect("fixture");
    let object = json.as_object().expect("an object of functions");
    object
        .iter()
        .map(|(name, v)| {
            let sigs = v.as_array().map(|a| {
                a.iter()
                    .map(|s| s["signature"].as_str().expect("signature").to_string())
                    .collect()
            });
            (name.clone(), sigs)
        })
        .collect()
}

#[test]
fn built_in_signatures_are_puppets() {
    let reg = builtins::registry();
    let mut differing = Vec::new();
    let mut missing = Vec::new();
    let mut compared = 0;
    for (name, entry) in puppet() {
        let Some(theirs) = entry else {
            continue;
        };
        let Some(f) = reg.get(&name) else {
            missing.push(name);
            continue;
        };
        compared += 1;
        let ours: Vec<String> = f
            .dispatches()
            .iter()
            .filter(|d| !d.is_argument_mismatch())
            .map(|d| d.signature_string())
            .collect();
        if ours != theirs {
            differing.push(format!("{name}:\n  ours:   {ours:?}\n  Puppet: {theirs:?}"));
        }
    }
    assert!(compared > 40, "only {compared} functions compared");
    assert!(
        differing.is_empty(),
        "{} of {compared} functions differ from Puppet's signatures:\n{}",
        differing.len(),
        differing.join("\n")
    );
    // The evaluator's own (they declare classes, read the catalog or Hiera, render
    // templates, load data files): in puppet-eval, not in this registry.
    let evaluator_bound = [
        "contain",
        "defined",
        "epp",
        "getvar",
        "hiera",
        "hiera_array",
        "hiera_hash",
        "hiera_include",
        "hocon_data",
        "import",
        "include",
        "inline_epp",
        "json_data",
        "lookup",
        "require",
        "yaml_data",
    ];
    assert_eq!(
        missing, evaluator_bound,
        "Puppet's functions not in the registry"
    );
}
