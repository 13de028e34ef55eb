//! `profile_node`: compiles one oracle node many times in one process and prints the median
//! time of N compiles and the best per-compile time of five batches (a profiling aid: `perf record` it; the criterion bench
//! `benches/compile.rs` is the measurement).
//!
//! ```text
//! cargo run --release --example profile_node -- [NODE] [N]   # ORACLE=../shared/oracle
//! ```
//! The node's manifest is `$ORACLE/nodes/NODE.pp`, compiled with the module path
//! `/usr/share/puppet/modules`, the module layers of Hiera and `$ORACLE/facts/debian12-web01.json`
//! (`debian12-ctl01.json` for keystone).

use puppet_lang::eval::{compile, facts_from_data, Session, Settings};

// The allocator of `examples/compile` (an embedder's choice; the libraries allocate through
// whatever global allocator the program sets).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::path::PathBuf;

fn main() {
    let node = std::env::args().nth(1).unwrap_or_else(|| "ntp".into());
    let n: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
        .max(1);
    let oracle =
        PathBuf::from(std::env::var("ORACLE").unwrap_or_else(|_| "../shared/oracle".into()));
    let manifest = oracle.join("nodes").join(format!("{node}.pp"));
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let modulepath = PathBuf::from("/usr/share/puppet/modules");
    let env = Session::new()
        .modulepath([modulepath])
        .manifest_text("node.pp", text)
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    let (facts_file, certname) = match node.as_str() {
        "keystone" => ("debian12-ctl01.json", "ctl01.example.com"),
        _ => ("debian12-web01.json", "web01.example.com"),
    };
    let facts: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(oracle.join("facts").join(facts_file)).expect("facts"),
    )
    .expect("facts JSON");
    let facts = facts_from_data(&facts);
    let settings = Settings::agent(certname, facts);
    if let Err(e) = compile(env.clone(), &settings).catalog {
        eprintln!("{node}: {}", e.located());
        std::process::exit(1);
    }
    let mut best = std::time::Duration::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        for _ in 0..n {
            let _ = std::hint::black_box(compile(env.clone(), &settings));
        }
        best = best.min(t.elapsed() / n);
    }
    let mut each: Vec<std::time::Duration> = (0..n)
        .map(|_| {
            let t = std::time::Instant::now();
            let _ = std::hint::black_box(compile(env.clone(), &settings));
            t.elapsed()
        })
        .collect();
    each.sort();
    let median = each[each.len() / 2];
    println!("{node}: median {median:?} of {n} compiles, best batch {best:?} per compile");
}
