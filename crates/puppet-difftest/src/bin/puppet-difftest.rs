//! `puppet-difftest`: generate Puppet programs, and compare our compiles with Puppet's answers.
//!
//! ```text
//! puppet-difftest gen --seed 1 --count 5000 > programs.jsonl
//!     one line per program: {"id": "c000001", "seed": 1, "code": "..."}
//! puppet-difftest check answers.jsonl [--verbose] [--show ID] [--threads N]
//!     each line {"id", "seed", "code", "puppet": <Puppet's batch answer>} (as
//!     scripts/compile-diff.py writes them); prints how many are equal, the differences
//!     grouped by aspect, and (with --verbose) every differing case.
//! ```
//!
//! Exit status: 0 when every case is equal, 1 when some differ, 2 on bad input.

use clap::{Parser, Subcommand};
use puppet_difftest::{canonical_puppet, compare, compile_canonical, program};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Differential testing against Puppet 7.23")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print generated programs as JSON lines.
    Gen {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 100)]
        count: u64,
    },
    /// Compare our compiles with the answers in a file.
    Check {
        file: std::path::PathBuf,
        /// Print every differing case.
        #[arg(long)]
        verbose: bool,
        /// Print the program and both answers of one case.
        #[arg(long)]
        show: Option<String>,
        /// Compile on this many threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
}

fn main() -> ExitCode {
    match Args::parse().command {
        Command::Gen { seed, count } => {
            for s in seed..seed + count {
                let line = json!({"id": format!("c{s:06}"), "seed": s, "code": program(s)});
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Command::Check {
            file,
            verbose,
            show,
            threads,
        } => check(&file, verbose, show.as_deref(), threads),
    }
}

fn check(
    file: &std::path::Path,
    verbose: bool,
    show: Option<&str>,
    threads: Option<usize>,
) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let cases: Vec<Value> = match text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let cases: Vec<Value> = match show {
        Some(id) => cases.into_iter().filter(|c| c["id"] == id).collect(),
        None => cases,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(64 << 20)
        .build()
        .expect("thread pool");
    let results: Vec<(String, Value, Option<puppet_difftest::Difference>)> = pool.install(|| {
        cases
            .par_iter()
            .map(|c| {
                let code = c["code"].as_str().unwrap_or("");
                let ours = match std::panic::catch_unwind(|| compile_canonical(code)) {
                    Ok(v) => v,
                    Err(_) => json!({"ok": false, "error": "PANIC"}),
                };
                let d = compare(&ours, &canonical_puppet(&c["puppet"]));
                (c["id"].as_str().unwrap_or("?").to_string(), ours, d)
            })
            .collect()
    });
    let mut by_aspect: BTreeMap<&str, usize> = BTreeMap::new();
    let mut puppet_errors = 0;
    for (c, (id, ours, d)) in cases.iter().zip(&results) {
        if c["puppet"]["ok"] != json!(true) {
            puppet_errors += 1;
        }
        if show.is_some() {
            println!(
                "{}\n--- puppet\n{}\n--- ours\n{}",
                c["code"].as_str().unwrap_or(""),
                canonical_puppet(&c["puppet"]),
                ours
            );
        }
        if let Some(d) = d {
            *by_aspect.entry(d.aspect).or_default() += 1;
            if verbose || show.is_some() {
                println!("{id}: {}: {}", d.aspect, d.detail);
            }
        }
    }
    let differ: usize = by_aspect.values().sum();
    let total = results.len();
    let equal = total - differ;
    println!(
        "{equal} of {total} programs equal to Puppet ({:.2} %), {puppet_errors} of them errors in Puppet",
        if total == 0 { 100.0 } else { equal as f64 * 100.0 / total as f64 }
    );
    for (aspect, n) in &by_aspect {
        println!("  {n} differ in {aspect}");
    }
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
