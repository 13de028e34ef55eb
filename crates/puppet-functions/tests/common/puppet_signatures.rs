//! Puppet 7.23's signature texts per function, read from `fixtures/puppet_signatures.json`
//! (made by `scripts/puppet-signatures.rb`). Shared by puppet-functions' `signatures.rs` and
//! puppet-eval's `functions_listing.rs`, which include this file by path.

use std::collections::BTreeMap;

/// Puppet's signatures per function; `None` where Puppet could not load the function on the
/// machine that made the fixture (a missing library).
pub fn puppet_signatures() -> BTreeMap<String, Option<Vec<String>>> {
    let text = include_str!("../fixtures/puppet_signatures.json");
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
