//! `conformance`: runs our implementation against the Puppet 7.23 conformance corpus (the
//! JSON Lines files of `/work/shared/conformance`, see its README) and prints, per file,
//! `NAME: P passed, F failed`.
//!
//! ```text
//! cargo run --release --example conformance -- /work/shared/conformance [--verbose] [--only parse]
//! ```
//!
//! Each covered file has a module here with a `run(dir, verbose) -> (passed, failed)`
//! function; adding a category (types, eval, functions, catalog) means adding a module and
//! one line in [`suites`]. It is a report, not a test: it never fails because cases fail,
//! only when the corpus cannot be read.

mod catalog;
mod common;
mod eval;
mod graph;
mod syntax;

use clap::Parser as _;
use std::path::{Path, PathBuf};

#[derive(clap::Parser)]
struct Args {
    /// The conformance directory (holding `parse.jsonl`, `README.md`, ...).
    dir: PathBuf,
    /// List every failing case id with a short reason.
    #[arg(long)]
    verbose: bool,
    /// Run only this file (`parse`, `parse.jsonl`, `parse_errors`, `lex`, ...).
    #[arg(long)]
    only: Option<String>,
}

/// A runner for one JSON Lines file: `(passed, failed)`.
type Runner = fn(&Path, bool) -> (usize, usize);

/// Every covered file, in the order they are reported.
fn suites() -> Vec<(&'static str, Runner)> {
    vec![
        ("parse.jsonl", syntax::run_parse),
        ("parse_errors.jsonl", syntax::run_parse_errors),
        ("lex.jsonl", syntax::run_lex),
        ("graph.jsonl", graph::run),
        ("types.jsonl", eval::run_types),
        ("eval.jsonl", eval::run_eval),
        ("eval_errors.jsonl", eval::run_eval_errors),
        ("functions.jsonl (no resources)", eval::run_functions_pure),
        (
            "functions.jsonl (with resources)",
            eval::run_functions_catalog,
        ),
        ("catalog.jsonl", catalog::run_catalog),
    ]
}

fn main() {
    let args = Args::parse();
    if !args.dir.is_dir() {
        eprintln!("{}: not a directory", args.dir.display());
        std::process::exit(2);
    }
    let only = args
        .only
        .as_deref()
        .map(|o| o.strip_suffix(".jsonl").unwrap_or(o).to_string());
    let mut ran = 0;
    for (name, run) in suites() {
        if let Some(o) = &only {
            let base = name.split(".jsonl").next().unwrap_or(name);
            if base != o.as_str() {
                continue;
            }
        }
        ran += 1;
        let (passed, failed) = run(&args.dir, args.verbose);
        println!("{name}: {passed} passed, {failed} failed");
    }
    if ran == 0 {
        eprintln!("no suite named {:?}", args.only.unwrap_or_default());
        std::process::exit(2);
    }
}
