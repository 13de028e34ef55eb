//! Hiera lookup speed (criterion, run with `cargo bench -p puppet-hiera --bench lookup`).
//!
//! The work mirrors automatic class parameter lookup in a catalog compile (the shape of
//! puppetlabs-ntp): a module layer whose 3-level hierarchy interpolates facts
//! (`%{facts.os.name}-%{facts.os.release.major}.yaml`, `%{facts.os.family}-family.yaml`,
//! `common.yaml`) under an environment layer, 50 class parameters each looked up as the
//! compiler does it (`class_parameter`, then `lookup_options` for `convert_to`), and a
//! `lookup_options` merge across both layers and all hierarchy levels (exact and regex keys).
//! One `Lookup` serves every iteration, as one serves every compile of an environment; the
//! `two_nodes` case alternates between the facts of two operating systems, as compiles of
//! different nodes do.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_hiera::{HieraConfig, Lookup, MapScope, MemorySource};
use puppet_types::Value;

const PARAMS: usize = 50;
const ENV_HIERA: &str = "version: 5\nhierarchy:\n  - name: Node\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: Common\n    path: common.yaml\n";

fn s(x: &str) -> Value {
    Value::string(x)
}

fn hash<const N: usize>(items: [(&str, Value); N]) -> Value {
    Value::hash(items.map(|(k, v)| (s(k), v)))
}

fn facts(name: &str, family: &str, major: &str) -> MapScope {
    let os = hash([
        ("name", s(name)),
        ("family", s(family)),
        (
            "release",
            hash([("major", s(major)), ("full", s(&format!("{major}.4")))]),
        ),
    ]);
    MapScope::new()
        .with("facts", hash([("os", os), ("hostname", s("web01"))]))
        .with("trusted", hash([("certname", s("web01.example.com"))]))
}

fn lookup() -> Lookup {
    let mut common = String::from(
        "lookup_options:\n  ntp::servers: {merge: unique}\n  '^ntp::.*_hash$': {merge: hash}\n",
    );
    let mut family = String::from("lookup_options:\n  ntp::restrict: {merge: unique}\n");
    let mut release = String::new();
    for i in 0..PARAMS {
        match i % 5 {
            0 => common.push_str(&format!("ntp::p{i}: 'value {i}'\n")),
            1 => common.push_str(&format!("ntp::p{i}: [a{i}, b{i}, c{i}]\n")),
            2 => common.push_str(&format!("ntp::p{i}_hash: {{k{i}: v, other: {i}}}\n")),
            3 => common.push_str(&format!("ntp::p{i}: ~\n")),
            _ => common.push_str(&format!("ntp::p{i}: {i}\n")),
        }
        if i % 3 == 0 {
            family.push_str(&format!("ntp::p{i}: 'family {i}'\n"));
        }
        if i % 7 == 0 {
            release.push_str(&format!("ntp::p{i}: 'release {i}'\n"));
        }
    }
    let src = MemorySource::new()
        .with(
            "/env/data/common.yaml",
            "lookup_options:\n  ntp::keys: {merge: deep}\nntp::p4: 'from env'\n",
        )
        .with("/m/ntp/data/common.yaml", common)
        .with("/m/ntp/data/Debian-family.yaml", family.clone())
        .with("/m/ntp/data/RedHat-family.yaml", family)
        .with("/m/ntp/data/Debian-12.yaml", release);
    let module = HieraConfig::parse(
        "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  - name: Release\n    path: '%{facts.os.name}-%{facts.os.release.major}.yaml'\n  - name: Family\n    path: '%{facts.os.family}-family.yaml'\n  - name: Common\n    path: common.yaml\n",
        "/m/ntp",
    )
    .unwrap();
    Lookup::builder(src)
        .environment(HieraConfig::parse(ENV_HIERA, "/env").unwrap())
        .module("ntp", module)
        .build()
        .unwrap()
}

fn params() -> Vec<String> {
    (0..PARAMS)
        .map(|i| {
            if i % 5 == 2 {
                format!("p{i}_hash")
            } else {
                format!("p{i}")
            }
        })
        .collect()
}

/// What the compiler does for each class parameter: the lookup, then `lookup_options` of
/// the key when a value was found.
fn class_parameters(l: &Lookup, params: &[String], scope: &MapScope) -> usize {
    let mut found = 0;
    for p in params {
        if l.class_parameter("ntp", p, scope).unwrap().is_some() {
            found += 1;
            black_box(l.lookup_options(&format!("ntp::{p}"), scope).unwrap());
        }
    }
    found
}

fn bench(c: &mut Criterion) {
    let l = lookup();
    let params = params();
    let debian = facts("Debian", "Debian", "12");
    let redhat = facts("Rocky", "RedHat", "9");
    assert_eq!(class_parameters(&l, &params, &debian), PARAMS);
    assert_eq!(
        l.class_parameter("ntp", "p7", &debian).unwrap(),
        Some(s("release 7"))
    );
    assert_eq!(
        l.class_parameter("ntp", "p6", &redhat).unwrap(),
        Some(s("family 6"))
    );
    assert_eq!(
        l.lookup_options("ntp::p2_hash", &debian)
            .unwrap()
            .map(|v| v.to_string()),
        Some("{'merge' => 'hash'}".to_string())
    );
    let mut g = c.benchmark_group("hiera");
    g.bench_function("class_parameters_x50", |b| {
        b.iter(|| class_parameters(&l, &params, black_box(&debian)))
    });
    let mut flip = false;
    g.bench_function("class_parameters_x50_two_nodes", |b| {
        b.iter(|| {
            flip = !flip;
            class_parameters(&l, &params, black_box(if flip { &debian } else { &redhat }))
        })
    });
    g.bench_function("lookup_options_merge", |b| {
        b.iter(|| {
            l.lookup_options(black_box("ntp::keys"), black_box(&debian))
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
