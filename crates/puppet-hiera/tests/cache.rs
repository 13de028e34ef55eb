//! A `Lookup` shared by many lookups (as by every compile of an environment) answers each
//! exactly as one without caches does, whatever the scope of each call: the caches of hierarchy
//! locations and `lookup_options` are keyed by what they depend on. Checked over random
//! sequences of calls with changing variables, including values that are themselves
//! interpolated, floats whose text differs while they compare equal, recursion through
//! `lookup()` in data and the recursion limits.

use proptest::prelude::*;
use puppet_hiera::{
    HieraConfig, Lookup, LookupAdapter, MapScope, MemorySource, MergeStrategy, Scope,
};
use puppet_types::Value;

const ENV_HIERA: &str = r#"version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: Node
    path: "nodes/%{trusted.certname}.yaml"
  - name: OS
    paths: ["os/%{facts.os.family}.yaml", "os/%{facts.os.name}-%{facts.os.release.major}.yaml"]
  - name: Role
    path: "roles/%{role}.yaml"
  - name: Class
    path: "classes/%{ntp::flavor}.yaml"
  - name: Scoped
    path: "scoped/%{::zone}.yaml"
  - name: Globbed
    glob: "glob/%{facts.os.family}/*.yaml"
  - name: Mapped
    mapped_paths: [services, svc, "svc/%{svc}.yaml"]
  - name: Common
    path: common.yaml
"#;

const MODULE_HIERA: &str = r#"version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: Family
    path: "%{facts.os.family}-family.yaml"
  - name: Common
    path: common.yaml
default_hierarchy:
  - name: Defaults
    path: "defaults/%{facts.os.family}.yaml"
"#;

const GLOBAL_HIERA: &str = r#"version: 5
hierarchy:
  - name: Global
    path: "%{role}.yaml"
  - name: Common
    path: common.yaml
"#;

fn source() -> MemorySource {
    let mut chain = String::new();
    for i in 0..40 {
        chain.push_str(&format!("chain{i}: \"%{{lookup('chain{}')}}\"\n", i + 1));
    }
    // chain9 reaches ntp::iburst at the deepest nesting a lookup may start at.
    chain.push_str("chain40: \"%{lookup('ntp::iburst')}\"\n");
    MemorySource::new()
        .with("/etc/hiera.yaml", GLOBAL_HIERA)
        .with("/etc/data/common.yaml", "g: global\nlookup_options:\n  h: {merge: hash}\n")
        .with("/etc/data/web.yaml", "g: global web\nlookup_options:\n  arr: {merge: unique}\n")
        .with("/env/hiera.yaml", ENV_HIERA)
        .with("/env/data/nodes/a.example.com.yaml", "k: node a\narr: [na]\nh: {n: a}\n")
        .with("/env/data/os/Debian.yaml", "k: debian\narr: [d1, d2]\nh: {os: debian, x: 1}\nlookup_options:\n  h: {merge: deep}\n")
        .with("/env/data/os/RedHat.yaml", "arr: [r1]\ndyn: [r]\nh: {os: redhat}\nlookup_options:\n  '^ntp::.*': {merge: unique}\n")
        .with("/env/data/os/Debian-12.yaml", "k: debian 12\nv: \"%{facts.os.release.full}\"\n")
        .with("/env/data/roles/web.yaml", "k: web\nr: \"role %{role} on %{facts.os.name}\"\nntp::servers: [w]\n\
             lookup_options:\n  dyn: {merge: unique, note: \"%{facts.x}\"}\n")
        .with("/env/data/roles/0.0.yaml", "k: zero\n")
        .with("/env/data/roles/-0.0.yaml", "k: minus zero\n")
        .with("/env/data/roles/Debian.yaml", "k: role from a nested interpolation\n")
        .with("/env/data/roles/.yaml", "k: no role\n")
        .with("/env/data/classes/fast.yaml", "k: fast\nntp::servers: [f]\n")
        .with("/env/data/scoped/eu.yaml", "k: eu\nz: \"%{scope('zone')}\"\n")
        .with("/env/data/glob/Debian/a.yaml", "k: glob a\narr: [ga]\n")
        .with("/env/data/glob/Debian/b.yaml", "arr: [gb]\n")
        .with("/env/data/svc/ssh.yaml", "k: ssh\narr: [s]\n")
        .with("/env/data/svc/ntp.yaml", "arr: [n]\n")
        .with(
            "/env/data/common.yaml",
            format!(
                "k: common\narr: [c]\nh: {{common: true}}\nv: common\n\
                 a: \"%{{alias('arr')}}\"\nl: \"%{{lookup('k')}} and %{{lookup('ntp::servers')}}\"\n\
                 rec: \"%{{lookup('rec')}}\"\nf: \"%{{facts.x}}\"\n\
                 scope:role: \"%{{lookup('k')}}\"\nw: \"%{{lookup('scope:role')}}\"\n\
                 dyn: [c]\n\
                 lookup_options:\n  v: {{merge: first}}\n  '^l.*': {{merge: unique}}\n{chain}"
            ),
        )
        .with("/m/ntp/hiera.yaml", MODULE_HIERA)
        .with("/m/ntp/data/common.yaml", "ntp::servers: [c1, c2]\nntp::iburst: true\nntp::msg: \"%{facts.os.family} %{lookup('k')}\"\nlookup_options:\n  ntp::servers: {merge: unique}\n")
        .with("/m/ntp/data/Debian-family.yaml", "ntp::servers: [d]\nlookup_options:\n  '^ntp::s.*': {merge: unique}\n")
        .with("/m/ntp/data/defaults/Debian.yaml", "ntp::only_default: yes\nlookup_options:\n  ntp::only_default: {merge: first}\n")
}

fn build() -> Lookup {
    let src = source();
    Lookup::builder(src)
        .global(HieraConfig::parse(GLOBAL_HIERA, "/etc").unwrap())
        .environment(HieraConfig::parse(ENV_HIERA, "/env").unwrap())
        .module("ntp", HieraConfig::parse(MODULE_HIERA, "/m/ntp").unwrap())
        .build()
        .unwrap()
}

fn s(x: &str) -> Value {
    Value::string(x)
}

fn h<const N: usize>(items: [(&str, Value); N]) -> Value {
    Value::hash(items.map(|(k, v)| (s(k), v)))
}

/// The variables of one call, from a few choices each.
#[derive(Debug, Clone)]
struct Vars {
    family: usize,
    certname: usize,
    role: usize,
    flavor: usize,
    zone: usize,
    services: usize,
    x: usize,
    fresh_facts: bool,
}

/// A hash or array value of a call: calls with the same variables share it (the very same
/// allocation), as the lookups of one compile share `$facts` while other variables change,
/// unless `fresh_facts` is set.
fn shared(v: &Vars, tag: String, make: impl FnOnce() -> Value) -> Value {
    thread_local! {
        static VALUES: std::cell::RefCell<std::collections::HashMap<String, Value>> =
            Default::default();
    }
    if v.fresh_facts {
        return make();
    }
    VALUES.with(|f| f.borrow_mut().entry(tag).or_insert_with(make).clone())
}

fn scope(v: &Vars) -> MapScope {
    let facts = shared(v, format!("facts {} {}", v.family % 3, v.x % 4), || {
        facts(v)
    });
    scope_with(v, facts)
}

fn facts(v: &Vars) -> Value {
    let (name, family, major) = [
        ("Debian", "Debian", "12"),
        ("Debian", "Debian", "11"),
        ("Rocky", "RedHat", "9"),
    ][v.family % 3];
    h([
        (
            "os",
            h([
                ("name", s(name)),
                ("family", s(family)),
                (
                    "release",
                    h([("major", s(major)), ("full", s(&format!("{major}.1")))]),
                ),
            ]),
        ),
        (
            "x",
            [
                s("plain"),
                s("%{facts.os.name}"),
                s("%{lookup('k')}"),
                s("%{lookup('f')}"),
            ][v.x % 4]
                .clone(),
        ),
    ])
}

fn scope_with(v: &Vars, facts: Value) -> MapScope {
    let trusted = shared(v, format!("trusted {}", v.certname % 2), || {
        h([(
            "certname",
            s(["a.example.com", "b.example.com"][v.certname % 2]),
        )])
    });
    let mut sc = MapScope::new()
        .with("facts", facts)
        .with("trusted", trusted);
    let role = [
        None,
        Some(s("web")),
        Some(Value::Float(0.0)),
        Some(Value::Float(-0.0)),
        Some(s("%{facts.os.family}")),
        Some(s("%{lookup('k')}")),
        Some(Value::Undef),
        Some(s("")),
    ][v.role % 8]
        .clone();
    if let Some(r) = role {
        sc = sc.with("role", r);
    }
    if let Some(f) = [None, Some(s("fast")), Some(s("slow"))][v.flavor % 3].clone() {
        sc = sc.with("ntp::flavor", f);
    }
    if let Some(z) = [None, Some(s("eu"))][v.zone % 2].clone() {
        sc = sc.with("zone", z);
    }
    let services = match v.services % 4 {
        0 => None,
        1 => Some(shared(v, "services 1".into(), || {
            Value::array(vec![s("ssh"), s("ntp")])
        })),
        2 => Some(s("ssh")),
        _ => Some(shared(v, "services 3".into(), || Value::array(vec![]))),
    };
    if let Some(x) = services {
        sc = sc.with("services", x);
    }
    sc
}

const KEYS: &[&str] = &[
    "k",
    "arr",
    "h",
    "v",
    "a",
    "l",
    "rec",
    "f",
    "r",
    "z",
    "g",
    "w",
    "scope:role",
    "chain0",
    "chain8",
    "chain9",
    "chain10",
    "chain25",
    "ntp::servers",
    "ntp::iburst",
    "ntp::msg",
    "ntp::only_default",
    "dyn",
    "ntp::missing",
    "h.os",
    "arr.0",
    "lookup_options",
    "nope",
];

/// The scope of a call during a compilation: the variables of the call, and the
/// compilation's adapter (which keeps each module's `lookup_options` and the resolutions of
/// each layer's hierarchy from one call to the next).
struct Compiling<'a>(MapScope, &'a LookupAdapter);

impl Scope for Compiling<'_> {
    fn variable(&self, name: &str) -> Option<Value> {
        self.0.variable(name)
    }

    fn adapter(&self) -> Option<&LookupAdapter> {
        Some(self.1)
    }
}

/// Everything a call can answer, as text.
fn call(l: &Lookup, op: usize, key: &str, sc: &dyn Scope) -> String {
    let merges = [
        None,
        Some(MergeStrategy::Unique),
        Some(MergeStrategy::Hash),
        Some(MergeStrategy::Deep(Default::default())),
    ];
    match op % 7 {
        0..=3 => format!("{:?}", l.lookup(key, merges[op % 7].clone(), None, sc)),
        4 => format!("{:?}", l.lookup_options(key, sc)),
        5 => match key.rsplit_once("::") {
            Some((class, param)) => format!("{:?}", l.class_parameter(class, param, sc)),
            None => format!("{:?}", l.lookup_global_only(key, None, sc)),
        },
        _ => l.explain(key, None, sc).to_string(),
    }
}

fn vars() -> impl Strategy<Value = Vars> {
    (
        0..3usize,
        0..2usize,
        0..8usize,
        0..3usize,
        0..2usize,
        0..4usize,
        0..4usize,
        any::<bool>(),
    )
        .prop_map(
            |(family, certname, role, flavor, zone, services, x, fresh_facts)| Vars {
                family,
                certname,
                role,
                flavor,
                zone,
                services,
                x,
                fresh_facts,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn shared_lookup_answers_as_a_fresh_one(
        calls in prop::collection::vec((vars(), 0..KEYS.len(), 0..7usize), 1..40)
    ) {
        let shared = build();
        let reference = build().without_caches();
        for (v, k, op) in &calls {
            let sc = scope(v);
            let key = KEYS[*k];
            let want = call(&reference, *op, key, &sc);
            let got = call(&shared, *op, key, &sc);
            prop_assert_eq!(got, want, "{:?} {} op {}", v, key, op);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The same within a compilation: one adapter for a sequence of calls whose variables
    /// change (the resolutions of a layer kept in the adapter hold only while the root
    /// variables they read keep their values). The reference has an adapter of its own.
    #[test]
    fn shared_lookup_in_a_compilation_answers_as_a_fresh_one(
        calls in prop::collection::vec((vars(), 0..KEYS.len(), 0..7usize), 1..40)
    ) {
        let shared = build();
        let reference = build().without_caches();
        let (mine, theirs) = (LookupAdapter::default(), LookupAdapter::default());
        for (v, k, op) in &calls {
            let key = KEYS[*k];
            let want = call(&reference, *op, key, &Compiling(scope(v), &theirs));
            let got = call(&shared, *op, key, &Compiling(scope(v), &mine));
            prop_assert_eq!(got, want, "{:?} {} op {}", v, key, op);
        }
    }
}

/// Every key under many combinations of variables, in one shared Lookup, forwards then
/// backwards.
#[test]
fn every_key_many_scopes() {
    let mut cases = Vec::new();
    let reference = build().without_caches();
    for family in [0, 2] {
        for role in 0..8 {
            for x in 0..4 {
                let v = Vars {
                    family,
                    certname: role % 2,
                    role,
                    flavor: (family + role) % 3,
                    zone: (x + role) % 2,
                    services: (role + x) % 4,
                    x,
                    fresh_facts: role == 3,
                };
                let sc = scope(&v);
                for key in KEYS {
                    for op in [0, 2, 4, 5] {
                        let want = call(&reference, op, key, &sc);
                        cases.push((v.clone(), *key, op, want));
                    }
                }
            }
        }
    }
    let shared = build();
    for round in 0..2 {
        let order: Box<dyn Iterator<Item = _>> = if round == 0 {
            Box::new(cases.iter())
        } else {
            Box::new(cases.iter().rev())
        };
        for (v, key, op, want) in order {
            let got = call(&shared, *op, key, &scope(v));
            assert_eq!(&got, want, "round {round} {v:?} {key} op {op}");
        }
    }
}
