//! The built-in functions' signatures against Puppet 7.23's own.
//!
//! `fixtures/puppet_signatures.json` holds, for every 4.x function file of Puppet's
//! `lib/puppet/functions`, the signature texts Puppet prints in "expects one of" errors
//! (`TypeMismatchDescriber#signature_string` of each dispatch, in order); it is made by
//! `scripts/puppet-signatures.rb`. Every function of [`builtins::registry`] that Puppet has
//! must list the same signatures in the same order (argument-mismatch dispatches aside);
//! that includes the built-ins bound to the compiler (`include`, `lookup`, `epp`...), which
//! do their work through `CallContext` capabilities. The few of Puppet's functions the
//! registry does not hold are listed with the reason, so that one appearing nowhere is
//! noticed.

use puppet_functions::builtins;

#[path = "common/puppet_signatures.rs"]
mod puppet_signatures;
use puppet_signatures::puppet_signatures as puppet;

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
    // Hiera's own data providers: puppet-hiera reads those files itself, and a call needs
    // a `Puppet::LookupContext`, which Puppet code cannot make. Every other function of
    // Puppet's, the compiler-bound ones included (`include`, `lookup`, `epp`...), is here.
    let hiera_providers = ["hocon_data", "json_data", "yaml_data"];
    assert_eq!(
        missing, hiera_providers,
        "Puppet's functions not in the registry"
    );
}
