//! Property tests: no input text (hiera.yaml, data files, interpolated strings, keys) makes
//! the crate panic; errors are returned instead, and results are deterministic.

use proptest::prelude::*;
use puppet_hiera::{interp, HieraConfig, Lookup, MapScope, MemorySource, MergeStrategy};
use puppet_types::Value;

fn texty() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,80}",
        "[%{}()'\".:a-z0-9 \\-]{0,60}",
        "(%\\{(lookup|alias|scope|literal|hiera|foo)\\('[a-z.%{}]{0,6}'\\)\\}|[a-z.]{0,4}|%\\{[a-z:.']{0,8}\\}){0,6}",
    ]
}

fn yamlish() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,120}",
        "([a-z_:]{1,6}: ([-+0-9.:_eE]{0,8}|\\[[a-z0-9, ]{0,10}\\]|\\{[a-z: ,]{0,10}\\}|'[%{}a-z()]{0,12}'|&a x|\\*a|~|yes|<<)\n){0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn interpolation_parse_never_panics(s in texty()) {
        let _ = interp::parse(&s);
        let _ = interp::split_key(&s, |p| p.to_string());
    }

    #[test]
    fn config_parse_never_panics(s in yamlish()) {
        let _ = HieraConfig::parse(&s, "/d");
        let _ = puppet_hiera::yaml::load(&s);
    }

    #[test]
    fn lookups_never_panic(data in yamlish(), value in texty(), key in "[a-z:.'\"0-9]{0,10}") {
        let src = MemorySource::new()
            .with("/env/data/common.yaml", data)
            .with("/env/data/x.yaml", format!("k: \"{}\"\nlookup_options:\n  k: {{merge: deep}}\n", value.replace(['"', '\\'], "")));
        let cfg = "version: 5\nhierarchy:\n  - name: x\n    path: x.yaml\n  - name: c\n    paths: [common.yaml, \"%{facts.x}.yaml\"]\n";
        let src = src.with("/env/hiera.yaml", cfg);
        let lookup = Lookup::from_dirs(src, None, Some("/env".as_ref()), &[]).unwrap();
        let scope = MapScope::new().with("facts", Value::hash([(Value::string("x"), Value::string("common"))]));
        for merge in [None, Some(MergeStrategy::Unique), Some(MergeStrategy::Hash)] {
            let a = lookup.lookup(&key, merge.clone(), None, &scope);
            let b = lookup.lookup(&key, merge.clone(), None, &scope);
            prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
            let _ = lookup.lookup("k", merge.clone(), None, &scope);
            let _ = lookup.explain(&key, merge, &scope).to_string();
        }
    }
}

#[path = "common/fuzz_hiera.rs"]
mod fuzz_hiera;

/// The files of a folder (relative to this crate), sorted, with their text; none when the
/// folder does not exist.
fn files_in(dir: &str) -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.map(|e| e.expect("dir entry").path()).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect()
}

/// The `hiera_yaml` fuzz target's inputs, run as the target runs them. Its seeds
/// (`fuzz/seeds/hiera_yaml/`) load and find values (if a change made them fail at the
/// configuration, the fuzzer would stop reaching the lookups); the inputs it reported
/// (`tests/fixtures/fuzz/`) end with values or errors.
#[test]
fn fuzz_inputs_find_values_or_fail_cleanly() {
    let seeds = files_in("../../fuzz/seeds/hiera_yaml");
    assert!(seeds.len() >= 3);
    for (name, text) in seeds {
        match fuzz_hiera::run(&text) {
            Ok(found) => assert!(found > 0, "{name}: no key has a value"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
    for (_, text) in files_in("tests/fixtures/fuzz") {
        let _ = fuzz_hiera::run(&text);
    }
}
