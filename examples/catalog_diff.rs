//! The semantic difference of two catalogs of one node (Puppet's catalog JSON as `compile`
//! or `puppet catalog compile` print it, or the oracle's canonical form).
//!
//! ```text
//! cargo run --release --example catalog_diff -- OLD.json NEW.json [--json]
//!     [--scalar-equals-array] [--ignore-param NAME|TYPE::NAME]... [--ignore-type TYPE]...
//!     [--ignore-tags] [--context N] [--no-graph] [--color auto|always|never]
//! ```
//!
//! The whole CI loop of a control repository in one command: every node of a facts
//! directory compiled with two directory environments (the checkout before a change and
//! the one after, read as `compile --environment` reads one), in parallel, compared, and
//! the nodes grouped by change ("this change on 212 nodes"), nodes that fail with one side
//! (with the error) and dependency cycles or missing relationship targets the change
//! brings included:
//!
//! ```text
//! cargo run --release --example catalog_diff -- --environment OLD_DIR --environment NEW_DIR
//!     --nodes FACTS_DIR [--environment-name production] [--basemodulepath A:B]
//!     [--threads N] [--details] [--json] [noise options as above]
//! ```
//!
//! Both environments compile under one name (`--environment-name`, default `production`),
//! so that only the code and data differ.
//!
//! Text output (coloured on a terminal) or `--json`. Exit status: 0 equal, 2 different,
//! 1 error (a file that cannot be read or is not a catalog, an environment that does not
//! load, a node that fails with both environments). It only prints; the comparison is
//! `puppet_graph::diff` and `puppet_lang::envdiff`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, ValueEnum};
use puppet_lang::envdiff;
use puppet_lang::graph::{diff, Catalog, DiffOptions};
use puppet_lang::{Environment, Session, Settings};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Parser, Debug)]
#[command(about = "Semantic difference of two Puppet catalogs of one node")]
struct Args {
    /// The catalog before the change.
    #[arg(required_unless_present = "environment")]
    old: Option<String>,
    /// The catalog after the change.
    #[arg(required_unless_present = "environment")]
    new: Option<String>,
    /// The environment directory before the change, then the one after (given twice).
    #[arg(long, value_name = "DIR", num_args = 1, requires = "nodes", conflicts_with_all = ["old", "new"])]
    environment: Vec<PathBuf>,
    /// With `--environment`: the directory of facts files, one node each (or PuppetDB
    /// exports).
    #[arg(long, value_name = "DIR")]
    nodes: Option<PathBuf>,
    /// With `--environment`: the name both environments compile under.
    #[arg(long, value_name = "NAME", default_value = "production")]
    environment_name: String,
    /// With `--environment`: the server's `basemodulepath`, directories separated by `:`.
    #[arg(long, value_name = "A:B")]
    basemodulepath: Option<String>,
    /// With `--environment`: compile on this many threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// With `--environment`: every changed node's whole difference after the groups.
    #[arg(long)]
    details: bool,
    /// With `--environment`: `generate()` runs its command on this host.
    #[arg(long)]
    allow_exec: bool,
    /// With `--environment`: `file()` and friends read absolute paths of this host.
    #[arg(long)]
    allow_host_files: bool,
    /// Print the difference as JSON.
    #[arg(long)]
    json: bool,
    /// A scalar equals a one-element array holding it.
    #[arg(long)]
    scalar_equals_array: bool,
    /// Do not compare this parameter (`content`, or `File::content` for one type); repeatable.
    #[arg(long = "ignore-param", value_name = "NAME")]
    ignore_param: Vec<String>,
    /// Leave out resources of this type (and their edges); repeatable.
    #[arg(long = "ignore-type", value_name = "TYPE")]
    ignore_type: Vec<String>,
    /// Do not compare tags.
    #[arg(long)]
    ignore_tags: bool,
    /// Lines of context in the diff of multi-line strings.
    #[arg(long, default_value_t = 3)]
    context: usize,
    /// Do not build the graphs (no dependency cycle or missing-target check).
    #[arg(long)]
    no_graph: bool,
    /// Colour the text output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

fn read(path: &str) -> Result<Catalog, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Catalog::from_json(&text).map_err(|e| format!("{path}: {e}"))
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.environment.is_empty() {
        return environments(&args);
    }
    let (Some(old), Some(new)) = (&args.old, &args.new) else {
        eprintln!("error: two catalogs, or --environment twice with --nodes");
        return ExitCode::from(1);
    };
    let (old, new) = match (read(old), read(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let d = diff(&old, &new, &options(&args));
    if args.json {
        match serde_json::to_string_pretty(&d) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        print!("{}", d.to_text(color(&args)));
    }
    ExitCode::from(if d.is_empty() { 0 } else { 2 })
}

fn options(args: &Args) -> DiffOptions {
    DiffOptions {
        scalar_equals_singleton: args.scalar_equals_array,
        ignore_parameters: args.ignore_param.clone(),
        ignore_types: args.ignore_type.clone(),
        ignore_tags: args.ignore_tags,
        context_lines: args.context,
        check_graph: !args.no_graph,
    }
}

fn color(args: &Args) -> bool {
    match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

/// `--environment OLD --environment NEW --nodes DIR`.
fn environments(args: &Args) -> ExitCode {
    let [old_dir, new_dir] = args.environment.as_slice() else {
        eprintln!("error: --environment is given twice: the environment before the change, then the one after");
        return ExitCode::from(1);
    };
    let Some(nodes_dir) = &args.nodes else {
        eprintln!("error: --environment needs --nodes");
        return ExitCode::from(1);
    };
    let base: Vec<PathBuf> = args
        .basemodulepath
        .as_deref()
        .unwrap_or("")
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    let load = |dir: &PathBuf| -> Option<Arc<Environment>> {
        match Session::new()
            .environment(dir)
            .basemodulepath(base.clone())
            .environment_name(&args.environment_name)
            .load()
        {
            Ok(env) => Some(env),
            Err(diagnostics) => {
                eprintln!("error: {} does not load:", dir.display());
                for d in diagnostics {
                    eprint!("{}", d.render(None));
                }
                None
            }
        }
    };
    let (Some(old), Some(new)) = (load(old_dir), load(new_dir)) else {
        return ExitCode::from(1);
    };
    let (found, problems) = envdiff::read_nodes(nodes_dir);
    for d in &problems {
        eprint!("{}", d.render(None));
    }
    if !problems.is_empty() {
        return ExitCode::from(1);
    }
    let nodes: Vec<Settings> = found
        .into_iter()
        .map(|(certname, n)| Settings {
            allow_exec: args.allow_exec,
            allow_host_files: args.allow_host_files,
            ..Settings::agent(&certname, n.facts).with_environment(&args.environment_name)
        })
        .collect();
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: threads: {e}");
            return ExitCode::from(1);
        }
    };
    let start = std::time::Instant::now();
    let report = pool.install(|| envdiff::diff_environments(&old, &new, &nodes, &options(args)));
    let elapsed = start.elapsed().as_secs_f64();
    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        print!("{}", report.to_text(color(args), args.details));
    }
    eprintln!(
        "{} nodes compiled twice and compared in {elapsed:.2} s on {} threads",
        nodes.len(),
        pool.current_num_threads()
    );
    ExitCode::from(report.exit_status())
}
