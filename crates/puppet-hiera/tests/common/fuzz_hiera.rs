//! The `hiera_yaml` fuzz target's input and what it does with it, shared by the fuzz target
//! (`fuzz/fuzz_targets/hiera_yaml.rs` includes this file) and by `tests/no_panic.rs`, which
//! runs every input the fuzzer reported (`tests/fixtures/fuzz/`) the same way.
//!
//! An input is cut into sections at lines that are exactly `##----`
//! (`fuzz/fuzz_targets/sections.rs`): `hiera.yaml` files and data files of the global,
//! environment and module layers ([`SECTIONS`]); an empty section, or one the input does
//! not reach, is a file that does not exist (so that the default configuration is
//! reachable). The section after them holds the keys to look up, one a line, each
//! optionally followed by a space and a merge strategy name (`first`, `unique`, `hash`,
//! `deep`). Every data file also goes through the YAML loader, every `hiera.yaml` through
//! the configuration parser; each key is looked up, with `lookup()`'s fallback, its
//! `lookup_options`, in the global layer alone, explained, and as a class parameter. Any
//! value or error is fine; only a panic, a hang or a memory blow-up is a bug.
//! `FUZZ_SHOW=1` in the environment prints each key's value.

#[path = "../../../../fuzz/fuzz_targets/sections.rs"]
mod sections;

use puppet_hiera::{HieraConfig, Lookup, MapScope, MemorySource, MergeStrategy};
use puppet_types::Value;
use std::path::Path;

/// Where each section of the input goes, in order; the keys come after them.
pub const SECTIONS: &[&str] = &[
    "/env/hiera.yaml",
    "/env/data/common.yaml",
    "/env/data/nodes/fuzz.example.com.yaml",
    "/env/data/common.json",
    "/env/modules/m/hiera.yaml",
    "/env/modules/m/data/common.yaml",
    "/etc/puppetlabs/puppet/hiera.yaml",
    "/etc/puppetlabs/code/data/common.yaml",
];

/// At most this many keys are looked up per input (each key is looked up several times).
const MAX_KEYS: usize = 8;

fn scope() -> MapScope {
    let s = Value::string;
    MapScope::new()
        .with(
            "facts",
            Value::hash([
                (
                    s("os"),
                    Value::hash([(s("family"), s("Debian")), (s("name"), s("Debian"))]),
                ),
                (s("fqdn"), s("fuzz.example.com")),
                (s("list"), Value::array(vec![s("a"), Value::Integer(1)])),
            ]),
        )
        .with(
            "trusted",
            Value::hash([
                (s("certname"), s("fuzz.example.com")),
                (s("extensions"), Value::hash([])),
            ]),
        )
        .with("environment", s("production"))
        .with("x", s("common"))
        .with("m::v", Value::Integer(3))
}

/// Loads one input's files and looks its keys up; returns how many keys had a value, or
/// the configuration's error.
pub fn run(text: &str) -> Result<usize, String> {
    let sections = sections::split(text);
    let mut source = MemorySource::new();
    for (i, path) in SECTIONS.iter().enumerate() {
        let Some(section) = sections.get(i).filter(|s| !s.is_empty()) else {
            continue;
        };
        source.insert(*path, *section);
        let _ = puppet_hiera::yaml::load(section);
        if path.ends_with("hiera.yaml") {
            let dir = Path::new(path).parent().unwrap_or(Path::new("/"));
            let _ = HieraConfig::parse(section, dir);
        }
    }
    let keys = sections.get(SECTIONS.len()).copied().unwrap_or("");
    let lookup = Lookup::from_dirs(
        source,
        Some(SECTIONS[6].as_ref()),
        Some("/env".as_ref()),
        &[("m", "/env/modules/m".as_ref())],
    );
    let show = std::env::var_os("FUZZ_SHOW").is_some();
    let lookup = match lookup {
        Ok(lookup) => lookup,
        Err(e) => {
            if show {
                eprintln!("configuration error: {e}");
            }
            return Err(e.to_string());
        }
    };
    let scope = scope();
    let mut found_values = 0;
    for line in keys.lines().take(MAX_KEYS) {
        let (key, merge) = match line.rsplit_once(' ') {
            Some((key, name)) => match MergeStrategy::from_name(name) {
                Ok(m) => (key, Some(m)),
                Err(_) => (line, None),
            },
            None => (line, None),
        };
        let _ = puppet_hiera::interp::parse(key);
        let found = lookup.lookup(key, merge.clone(), None, &scope);
        if show {
            eprintln!("{key}: {found:?}");
        }
        if matches!(found, Ok(Some(_))) {
            found_values += 1;
        }
        let _ = lookup.lookup_function(&[key, "m::fallback"], merge.clone(), None, &scope);
        let _ = lookup.lookup_options(key, &scope);
        let _ = lookup.lookup_global_only(key, merge.clone(), &scope);
        let _ = lookup.explain(key, merge, &scope).to_string();
        if let Some((class, param)) = key.rsplit_once("::") {
            let _ = lookup.class_parameter(class, param, &scope);
        }
    }
    let _ = lookup.take_warnings();
    Ok(found_values)
}
