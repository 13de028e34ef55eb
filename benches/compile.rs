//! Catalog compilation speed (criterion, `cargo bench --bench compile`).
//!
//! Each environment is loaded once, outside the timed loop, and shared by every compile
//! (Puppet's "warm, reused env" figure in the oracle's `BASELINE.md`); `load_*` times the
//! loading itself (module path listing, parsing and lowering every manifest, reading the
//! modules' Ruby functions, types and templates). Workloads:
//!
//! * `compile_example_env`: `examples/env` for `web01.example.com` (with its Hiera data), and
//!   `compile_example_modules`: its modules with a small main manifest;
//! * when `/usr/share/puppet/modules` and the oracle's `nodes/` exist (`ORACLE`, default
//!   `../shared/oracle` next to this checkout): the five oracle nodes ntp, db, web, keystone
//!   and kitchensink (keystone with the facts `debian12-ctl01.json`, the others with
//!   `debian12-web01.json`, as in `BASELINE.md`). A node that does not compile is skipped
//!   with its error.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use puppet_lang::eval::{compile, facts_from_data, Environment, Session, Settings};

// The allocator of `examples/compile` (an embedder's choice; the libraries allocate through
// whatever global allocator the program sets).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// Compile settings as `examples/compile` makes them (`Settings::agent`).
fn settings(node: &str, facts: &Path) -> Settings {
    let text = std::fs::read_to_string(facts).unwrap_or_else(|e| panic!("{facts:?}: {e}"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let facts = facts_from_data(&json);
    Settings::agent(node, facts)
}

/// An environment of a module path and a main manifest, with Hiera's module layers and
/// the environment layer of `env_dir` when given.
fn load(modulepath: &Path, manifest: &Path, env_dir: Option<&Path>) -> Arc<Environment> {
    assert!(manifest.is_file(), "{manifest:?} is not a file");
    let mut session = Session::new()
        .modulepath([modulepath.to_path_buf()])
        .manifest(manifest);
    if let Some(dir) = env_dir {
        session = session.environment_dir(dir);
    }
    session.load().unwrap_or_else(|d| panic!("{d:?}"))
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
        load(&modules, &site, Some(&env_dir)),
        &web01,
    );
    let code = "include ntp_lite\n\
        class { 'motd': banner => 'Welcome', style => 'long', notes => ['backups at 02:00'] }\n\
        webapp::site { ['a', 'b', 'c']: }\n";
    let env = Session::new()
        .modulepath([modules])
        .manifest_text("site.pp", code)
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    bench_compile(c, "compile_example_modules", env, &web01);

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
        b.iter(|| load(Path::new(CORPUS), black_box(&web_pp), None))
    });
    group.finish();
    for node in ["ntp", "db", "web", "keystone", "kitchensink"] {
        let (certname, facts) = if node == "keystone" {
            ("ctl01.example.com", &ctl_facts)
        } else {
            ("web01.example.com", &web_facts)
        };
        let env = load(Path::new(CORPUS), &nodes.join(format!("{node}.pp")), None);
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
