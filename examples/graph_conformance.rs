//! Runs only the `graph.jsonl` conformance cases (the `conformance` example runs them all):
//! `cargo run --example graph_conformance -- [CONFORMANCE_DIR] [-v]`.
//!
//! A thin driver over `conformance/graph.rs`; it checks nothing itself.

#[path = "conformance/graph.rs"]
mod graph;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v" || a == "--verbose");
    let dir = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_else(|| "../shared/conformance".to_string());
    let (pass, fail) = graph::run(std::path::Path::new(&dir), verbose);
    let total = pass + fail;
    let pct = if total == 0 {
        0.0
    } else {
        100.0 * pass as f64 / total as f64
    };
    println!("graph: {pass}/{total} passed ({pct:.1} %)");
    if fail > 0 {
        std::process::exit(1);
    }
}
