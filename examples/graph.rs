//! Explains the graph of a compiled catalog (Puppet's catalog JSON): apply order, every
//! dependency cycle, DOT, and an offline simulation of a run.
//!
//! ```text
//! cargo run --release --example graph -- CATALOG.json --order
//! cargo run --release --example graph -- CATALOG.json --cycles [--max-cycles N]
//! cargo run --release --example graph -- CATALOG.json --dot [resources|relationships|expanded]
//! cargo run --release --example graph -- CATALOG.json --simulate [--fail REF]... [--fail-refresh REF]...
//!                                         [--in-sync REF]... [--noop] [--tags T] [--skip-tags T]
//! cargo run --release --example graph -- CATALOG.json --deps REF
//! ```
//!
//! Output is JSON (DOT for `--dot`); `--simulate` prints the keys of the oracle's
//! `apply-order` (`evaluation_order`, `refreshed`, `skipped`, `failed`, `cycles`, ...).
//! Exit status: 0 done, 1 the catalog cannot be read or has a dangling reference,
//! 2 usage. It only prints; all logic is in the `puppet-graph` crate.

use std::process::ExitCode;

use clap::Parser;
use puppet_lang::graph::{Catalog, CycleLimits, DotKind, Graph, Outcome, Scenario};
use serde_json::{json, Value};

#[derive(Parser, Debug)]
#[command(about = "Order, cycles, DOT and apply simulation of a Puppet catalog")]
struct Args {
    /// Catalog JSON (as `puppet catalog compile --render-as json` or `compile-catalog --raw`).
    catalog: String,
    /// Print the apply order (leaf resources) and the full trace.
    #[arg(long)]
    order: bool,
    /// Print every elementary cycle with edge origins, and Puppet's message.
    #[arg(long)]
    cycles: bool,
    /// Stop listing cycles after this many.
    #[arg(long, default_value_t = 1000)]
    max_cycles: usize,
    /// Print DOT: resources, relationships or expanded (default).
    #[arg(long, num_args = 0..=1, default_missing_value = "expanded")]
    dot: Option<String>,
    /// Simulate a run.
    #[arg(long)]
    simulate: bool,
    /// A resource that fails when applied (repeatable).
    #[arg(long = "fail", value_name = "REF")]
    fail: Vec<String>,
    /// A resource whose refresh fails (repeatable).
    #[arg(long = "fail-refresh", value_name = "REF")]
    fail_refresh: Vec<String>,
    /// A resource a real run finds already in sync, e.g. an exec whose `unless` holds
    /// (repeatable).
    #[arg(long = "in-sync", value_name = "REF")]
    in_sync: Vec<String>,
    /// Simulate in noop mode.
    #[arg(long)]
    noop: bool,
    /// Only apply resources with these tags (comma separated).
    #[arg(long)]
    tags: Option<String>,
    /// Skip resources with these tags (comma separated).
    #[arg(long = "skip-tags")]
    skip_tags: Option<String>,
    /// Print direct and transitive dependencies and dependents of a resource.
    #[arg(long, value_name = "REF")]
    deps: Option<String>,
}

fn fail(code: &str, message: String) -> ExitCode {
    println!("{}", json!({"ok": false, "code": code, "error": message}));
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let text = match std::fs::read_to_string(&args.catalog) {
        Ok(t) => t,
        Err(e) => return fail("IO", format!("{}: {e}", args.catalog)),
    };
    let catalog = match Catalog::from_json(&text) {
        Ok(c) => c,
        Err(e) => return fail(e.code(), e.to_string()),
    };
    let graph = match Graph::build(&catalog) {
        Ok(g) => g,
        Err(e) => return fail(e.code(), e.to_string()),
    };
    if let Some(kind) = &args.dot {
        let kind = match kind.as_str() {
            "resources" => DotKind::Resources,
            "relationships" => DotKind::Relationships,
            "expanded" => DotKind::Expanded,
            other => {
                eprintln!("unknown DOT graph {other:?} (resources, relationships, expanded)");
                return ExitCode::from(2);
            }
        };
        print!("{}", graph.to_dot(kind));
        return ExitCode::SUCCESS;
    }
    let mut out = serde_json::Map::new();
    if args.order {
        match (graph.order(), graph.trace()) {
            (Ok(order), Ok(trace)) => {
                let order: Vec<String> = order.into_iter().map(|r| graph.reference(r)).collect();
                let trace: Vec<String> = trace.into_iter().map(|t| t.reference).collect();
                out.insert("evaluation_order".into(), json!(order));
                out.insert("trace".into(), json!(trace));
            }
            (Err(e), _) | (_, Err(e)) => {
                out.insert("evaluation_order".into(), json!([]));
                out.insert("cycles".into(), json!([e.to_string()]));
            }
        }
    }
    if args.cycles {
        let report = graph.cycles(CycleLimits {
            max_cycles: args.max_cycles,
            ..CycleLimits::default()
        });
        out.insert(
            "cycles".into(),
            json!(report.puppet_message.iter().collect::<Vec<_>>()),
        );
        out.insert(
            "cycle_report".into(),
            serde_json::to_value(&report).unwrap_or(Value::Null),
        );
    }
    if let Some(r) = &args.deps {
        let id = match graph.resolve(r) {
            Ok(id) => id,
            Err(e) => return fail(e.code(), e.to_string()),
        };
        let names = |ids: Vec<puppet_lang::graph::ResourceId>| -> Vec<String> {
            ids.into_iter().map(|i| graph.reference(i)).collect()
        };
        out.insert(
            "dependencies".into(),
            serde_json::to_value(graph.dependencies(id)).unwrap_or(Value::Null),
        );
        out.insert(
            "dependents".into(),
            serde_json::to_value(graph.dependents(id)).unwrap_or(Value::Null),
        );
        out.insert(
            "transitive_dependencies".into(),
            json!(names(graph.transitive_dependencies(id))),
        );
        out.insert(
            "transitive_dependents".into(),
            json!(names(graph.transitive_dependents(id))),
        );
    }
    if args.simulate || (!args.order && !args.cycles && args.deps.is_none()) {
        let mut sc = Scenario::new().noop(args.noop);
        for f in &args.fail {
            sc = sc.fail(f.clone());
        }
        for f in &args.fail_refresh {
            sc = sc.fail_refresh(f.clone());
        }
        for r in &args.in_sync {
            sc = sc.outcome(r.clone(), Outcome::Unchanged);
        }
        if let Some(t) = &args.tags {
            sc = sc.tags(t.split(',').map(str::to_string).collect::<Vec<_>>());
        }
        if let Some(t) = &args.skip_tags {
            sc = sc.skip_tags(t.split(',').map(str::to_string).collect::<Vec<_>>());
        }
        match graph.simulate(&sc) {
            Ok(sim) => {
                if let Ok(Value::Object(m)) = serde_json::to_value(&sim) {
                    out.extend(m);
                }
            }
            Err(e) => return fail(e.code(), e.to_string()),
        }
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&Value::Object(out)).unwrap_or_default()
    );
    ExitCode::SUCCESS
}
