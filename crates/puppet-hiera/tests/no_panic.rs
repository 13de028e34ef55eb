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
