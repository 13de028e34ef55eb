//! Catalog compilation speed (criterion, `cargo bench --bench compile`).
//!
//! Each environment is loaded once, outside the timed loop, and shared by every compile
//! (Puppet's "warm, reused env" figure in the oracle's `BASELINE.md`); `load_*` times the
//! loading itself (module path listing, parsing and lowering every manifest, reading the
//! modules' Ruby functions, types and templates). Workloads:
//!
//! * `compile_example_env`: `examples/env` for `web01.example.com` (needs Hiera; skipped,
//!   saying why, while it does not compile), and `compile_example_modules`: its modules
//!   with a main manifest that needs no Hiera;
//! * when `/usr/share/puppet/modules` and the oracle's `nodes/` exist (`ORACLE`, default
//!   `../shared/oracle` next to this checkout): the five oracle nodes ntp, db, web, keystone
//!   and kitchensink (keystone with the facts `debian12-ctl01.json`, the others with
//!   `debian12-web01.json`, as in `BASELINE.md`). A node that does not compile is skipped
//!   with its error.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_lang::eval::{compile, from_data, Environment, Settings};
use puppet_lang::loader::{EnvironmentConfig, FsProvider};
use puppet_lang::types::Value;

const CORPUS: &str = "/usr/share/puppet/modules";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn oracle() -> PathBuf {
    let dir = std::env::var_os("ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/oracle"));
    // The loader refuses paths with `..`.
    dir.canonicalize().unwrap_or(dir)
}

/// Compile settings as `examples/compile` makes them: facts, and remote trusted data.
fn settings(node: &str, facts: &Path) -> Settings {
    let text = std::fs::read_to_string(facts).unwrap_or_else(|e| panic!("{facts:?}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut s = Settings {
        node_name: node.to_string(),
        ..Settings::default()
    };
    if let Some(map) = json.as_object() {
        for (k, v) in map {
            s.facts.insert(k.as_str().into(), from_data(v));
        }
    }
    for (k, v) in [
        ("clientcert", Value::string(node)),
        ("clientversion", Value::string("7.23.0")),
        ("clientnoop", Value::Boolean(false)),
    ] {
        s.facts.entry(k.into()).or_insert(v);
    }
    let (host, domain) = node.split_once('.').unwrap_or((node, ""));
    s.trusted = Some(Value::hash([
        (Value::string("authenticated"), Value::string("remote")),
        (Value::string("certname"), Value::string(node)),
        (Value::string("extensions"), Value::hash([])),
        (Value::string("hostname"), Value::string(host)),
        (Value::string("domain"), Value::string(domain)),
        (Value::string("external"), Value::hash([])),
    ]));
    s
}

fn load(modulepath: &Path, manifest: &Path) -> Environment {
    assert!(manifest.is_file(), "{manifest:?} is not a file");
    let mut config = EnvironmentConfig::with_modulepath([modulepath.to_path_buf()]);
    config.manifest = Some(manifest.to_path_buf());
    let provider = FsProvider::new(config.roots());
    Environment::load(&config, &provider)
}

/// Benches one compile if it succeeds; says why otherwise.
fn bench_compile(c: &mut Criterion, name: &str, env: Arc<Environment>, settings: &Settings) {
    match compile(env.clone(), settings).catalog {
        Ok(cat) => eprintln!("{name}: {} resources", cat.resources.len()),
        Err(e) => {
            eprintln!("{name}: skipped, does not compile: {}", e.located());
            return;
        }
    }
    c.bench_function(name, |b| {
        b.iter(|| compile(black_box(env.clone()), black_box(settings)))
    });
}

fn bench(c: &mut Criterion) {
    let env_dir = root().join("examples/env");
    let facts = env_dir.join("facts/web01.example.com.json");
    let web01 = settings("web01.example.com", &facts);
    let modules = env_dir.join("modules");
    let site = env_dir.join("manifests/site.pp");
    bench_compile(
        c,
        "compile_example_env",
        Arc::new(load(&modules, &site)),
        &web01,
    );
    let code = "include ntp_lite\n\
        class { 'motd': banner => 'Welcome', style => 'long', notes => ['backups at 02:00'] }\n\
        webapp::site { ['a', 'b', 'c']: }\n";
    let env = Environment::from_modulepath(&[modules], Some("site.pp"), code);
    bench_compile(c, "compile_example_modules", Arc::new(env), &web01);

    let nodes = oracle().join("nodes");
    if !Path::new(CORPUS).is_dir() || !nodes.is_dir() {
        eprintln!(
            "oracle nodes skipped: {CORPUS} or {} missing",
            nodes.display()
        );
        return;
    }
    let web_facts = oracle().join("facts/debian12-web01.json");
    let ctl_facts = oracle().join("facts/debian12-ctl01.json");
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    let web_pp = nodes.join("web.pp");
    group.bench_function("load_corpus", |b| {
        b.iter(|| load(Path::new(CORPUS), black_box(&web_pp)))
    });
    group.finish();
    for node in ["ntp", "db", "web", "keystone", "kitchensink"] {
        let (certname, facts) = if node == "keystone" {
            ("ctl01.example.com", &ctl_facts)
        } else {
            ("web01.example.com", &web_facts)
        };
        let env = Arc::new(load(Path::new(CORPUS), &nodes.join(format!("{node}.pp"))));
        bench_compile(
            c,
            &format!("compile_node_{node}"),
            env,
            &settings(certname, facts),
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
