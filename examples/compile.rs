//! `compile`: compiles a node's catalog from a manifest (or code given with `-e`) and a module
//! path, and prints Puppet's catalog JSON. With no manifest and no `-e`, it compiles the
//! bundled environment `examples/env` for `web01.example.com`.
//!
//! ```text
//! cargo run --release --example compile
//! cargo run --release --example compile -- --modulepath A:B [--facts F.json] [--node N] MANIFEST.pp
//! cargo run --release --example compile -- -e 'notify { "hi": }' --pretty
//! cargo run --release --example compile -- --check MANIFEST.pp
//! ```
//!
//! Facts are a JSON hash, or `{"name": .., "values": {..}}` as `puppet facts show` prints
//! them; the node name defaults to the facts' `fqdn` (then that `name`). As the oracle's `compile-catalog` (and
//! a Puppet server) does, `$trusted` is remote data for the node and the facts `clientcert`,
//! `clientversion` and `clientnoop` are added when missing. Log lines (notices, warnings) go
//! to stderr. An error is printed as `file:line:col: message` on stderr, with exit status 1.
//! `--check` also builds the catalog's relationship graph with puppet-graph and reports
//! relationships to missing resources and dependency cycles (exit status 1 when there are).
//!
//! Many nodes in one process: `--nodes DIR` compiles every facts file of DIR (`*.json`,
//! `*.yaml`, `*.yml`: a hash of facts, `puppet facts` output, or a PuppetDB factsets
//! export with many nodes; see `puppet_eval::facts`) over one loaded environment, in
//! parallel (`--threads N`, default all cores), writes each catalog to `--out DIR` as
//! `CERTNAME.json`, shows a progress bar on a terminal, and ends with a summary line on
//! stderr. The exit status is 1 when any node failed.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser as _;
use puppet_lang::eval::facts::{self, NodeFacts};
use puppet_lang::eval::{Environment, EvalError, Session, Settings};
use puppet_lang::functions::LogLevel;
use puppet_lang::graph::{CycleLimits, Graph};
use puppet_lang::types::Value;
use puppet_lang::{Diagnostic, Severity};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Parser)]
#[command(about = "Compile a Puppet catalog and print it as Puppet's catalog JSON")]
struct Args {
    /// The main manifest: a `.pp` file or a directory of them.
    manifest: Option<PathBuf>,
    /// Code to compile instead of a manifest file.
    #[arg(
        short = 'e',
        long = "execute",
        value_name = "CODE",
        conflicts_with = "manifest"
    )]
    code: Option<String>,
    /// Module directories, separated by `:`.
    #[arg(long, short = 'M', value_name = "A:B")]
    modulepath: Option<String>,
    /// Facts JSON file.
    #[arg(long, short = 'f', value_name = "FILE")]
    facts: Option<PathBuf>,
    /// The node name (certname).
    #[arg(long, short = 'n', value_name = "NAME")]
    node: Option<String>,
    /// A global hiera.yaml (Puppet's `hiera_config`); module data is always used, and the
    /// bundled environment's own hiera.yaml when run without arguments.
    #[arg(long, short = 'H', value_name = "FILE")]
    hiera: Option<PathBuf>,
    /// An external node classifier's answer for the node (YAML or JSON: `classes`, an
    /// array or a hash of class => parameters, and `parameters`, top-scope variables).
    #[arg(long, value_name = "FILE")]
    enc: Option<PathBuf>,
    /// Unknown variables are errors.
    #[arg(long)]
    strict_variables: bool,
    /// Run the modules' Ruby functions from their own Ruby source even where a native
    /// implementation exists (to check one against the other).
    #[arg(long)]
    no_native_functions: bool,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
    /// Also check the catalog's relationship graph (missing targets, cycles).
    #[arg(long)]
    check: bool,
    /// Compile every node of this directory of facts files instead of one node.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["facts", "node"])]
    nodes: Option<PathBuf>,
    /// With `--nodes`: write each node's catalog to DIR/CERTNAME.json.
    #[arg(long, value_name = "DIR", requires = "nodes")]
    out: Option<PathBuf>,
    /// With `--nodes`: compile on this many threads (default: all cores).
    #[arg(long, value_name = "N", requires = "nodes")]
    threads: Option<usize>,
}

/// The node name when neither `--node` nor the facts give one.
const DEFAULT_NODE: &str = "node.example.com";

fn main() -> ExitCode {
    let mut args = Args::parse();
    let bundled = args.manifest.is_none() && args.code.is_none();
    if bundled {
        bundled_defaults(&mut args);
    }
    // On the main thread: the evaluator grows its stack on demand for deep Puppet code.
    run(args, bundled)
}

/// `examples/env`, for the options not given.
fn bundled_defaults(args: &mut Args) {
    let env = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/env");
    args.manifest = Some(env.join("manifests/site.pp"));
    args.modulepath
        .get_or_insert_with(|| env.join("modules").to_string_lossy().into_owned());
    args.facts
        .get_or_insert_with(|| env.join("facts/web01.example.com.json"));
    args.node.get_or_insert_with(|| "web01.example.com".into());
}

fn run(args: Args, bundled: bool) -> ExitCode {
    let modulepath: Vec<PathBuf> = args
        .modulepath
        .as_deref()
        .unwrap_or("")
        .split(':')
        .filter(|p| !p.is_empty())
        .map(absolute)
        .collect();
    let node_facts = match &args.facts {
        Some(path) => match read_facts_file(path) {
            Ok(mut nodes) if !nodes.is_empty() => nodes.swap_remove(0),
            Ok(_) => NodeFacts::default(),
            Err(d) => {
                eprint!("{}", d.render(None));
                return ExitCode::from(1);
            }
        },
        None => NodeFacts::default(),
    };
    let node = args
        .node
        .clone()
        .unwrap_or_else(|| certname_of(&node_facts, None));
    let mut settings = Settings {
        strict_variables: args.strict_variables,
        native_functions: !args.no_native_functions,
        ..Settings::agent(&node, node_facts.facts)
    };
    if let Some(path) = &args.enc {
        let enc = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| match puppet_lang::hiera::yaml::load(&text) {
                Ok(Some(v)) => Ok(v),
                Ok(None) => Ok(puppet_lang::types::Value::hash([])),
                Err(e) => Err(format!("{e:?}")),
            })
            .and_then(|v| settings.clone().with_enc(&v));
        match enc {
            Ok(s) => settings = s,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
    }

    let mut session = Session::new().modulepath(modulepath);
    session = match (&args.code, &args.manifest) {
        (Some(code), _) => session.code(code),
        (None, Some(manifest)) => session.manifest(manifest),
        (None, None) => unreachable!("bundled_defaults sets a manifest"),
    };
    // Hiera: the module layers, the environment layer of the bundled environment, and the
    // global hiera.yaml given with --hiera.
    if bundled {
        session =
            session.environment_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/env"));
    }
    if let Some(h) = &args.hiera {
        session = session.hiera_config(h);
    }
    let env = match session.load() {
        Ok(env) => env,
        Err(diagnostics) => {
            for d in diagnostics {
                eprint!("{}", d.render(None));
            }
            return ExitCode::from(1);
        }
    };

    if let Some(dir) = &args.nodes {
        return compile_nodes(&env, &settings, dir, &args);
    }
    let out = env.compile(&settings);
    for l in &out.logs {
        if !matches!(l.level, LogLevel::Debug | LogLevel::Info) {
            eprintln!("{}", capitalized(&l.render()));
        }
    }
    let catalog = match out.catalog {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}", located(&e, args.code.is_some()));
            return ExitCode::from(1);
        }
    };
    println!(
        "{}",
        if args.pretty {
            catalog.to_json_pretty()
        } else {
            catalog.to_json()
        }
    );
    if args.check {
        return check(&catalog);
    }
    ExitCode::SUCCESS
}

/// The certname of a node: the facts file's, else its `fqdn` fact, else the file's stem,
/// else `node.example.com`.
fn certname_of(node: &NodeFacts, file: Option<&Path>) -> String {
    node.certname
        .clone()
        .or_else(|| match node.facts.get("fqdn") {
            Some(Value::String(s)) => Some(s.to_string()),
            _ => None,
        })
        .or_else(|| {
            file.and_then(|f| f.file_stem())
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| DEFAULT_NODE.to_string())
}

/// Reads one facts file (one node, or several for a PuppetDB export).
fn read_facts_file(path: &Path) -> Result<Vec<NodeFacts>, Diagnostic> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::new(Severity::Error, facts::BAD_FACTS, e.to_string()).with_file(name.clone())
    })?;
    facts::read_facts(&name, &text)
}

/// `--nodes DIR`: every node of the facts files in DIR, compiled in parallel over one
/// environment.
fn compile_nodes(env: &Arc<Environment>, base: &Settings, dir: &Path, args: &Args) -> ExitCode {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("json" | "yaml" | "yml")
                )
            })
            .collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            return ExitCode::from(1);
        }
    };
    files.sort();
    let mut nodes: Vec<Settings> = Vec::new();
    let mut failed = 0usize;
    for f in &files {
        match read_facts_file(f) {
            Ok(found) => {
                let single = found.len() == 1;
                for n in found {
                    let certname = certname_of(&n, single.then_some(f.as_path()));
                    nodes.push(Settings::agent(&certname, n.facts));
                }
            }
            Err(d) => {
                eprint!("{}", d.render(None));
                failed += 1;
            }
        }
    }
    for n in &mut nodes {
        n.strict_variables = base.strict_variables;
        n.native_functions = base.native_functions;
        n.enc_classes = base.enc_classes.clone();
        n.enc_parameters = base.enc_parameters.clone();
    }
    if let Some(out) = &args.out {
        if let Err(e) = std::fs::create_dir_all(out) {
            eprintln!("{}: {e}", out.display());
            return ExitCode::from(1);
        }
    }
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(nodes.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let start = std::time::Instant::now();
    let threads = args.threads.unwrap_or(0);
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("threads: {e}");
            return ExitCode::from(1);
        }
    };
    let results: Vec<Result<usize, String>> = pool.install(|| {
        use rayon::prelude::*;
        nodes
            .par_iter()
            .map(|settings| {
                let out = env.compile(settings);
                let r = match out.catalog {
                    Ok(catalog) => {
                        let written = match &args.out {
                            Some(dir) => std::fs::write(
                                dir.join(format!("{}.json", settings.node_name)),
                                if args.pretty {
                                    catalog.to_json_pretty()
                                } else {
                                    catalog.to_json()
                                },
                            )
                            .map_err(|e| format!("{}: {e}", settings.node_name)),
                            None => Ok(()),
                        };
                        written.map(|_| catalog.resources.len())
                    }
                    Err(e) => Err(format!("{}: {}", settings.node_name, located(&e, false))),
                };
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    let mut resources = 0usize;
    for r in &results {
        match r {
            Ok(n) => resources += n,
            Err(e) => {
                eprintln!("{e}");
                failed += 1;
            }
        }
    }
    let compiled = results.iter().filter(|r| r.is_ok()).count();
    eprintln!(
        "{} nodes: {compiled} compiled ({resources} resources), {failed} failed, in {elapsed:.2} s ({:.1} nodes/s on {} threads)",
        nodes.len(),
        nodes.len() as f64 / elapsed.max(1e-9),
        pool.current_num_threads()
    );
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `file:line:col: message` (`-e` stands for code given on the command line).
fn located(e: &EvalError, from_command_line: bool) -> String {
    match &e.span {
        Some(span) => {
            let (line, col) = span.line_col();
            let file = match &span.file.path {
                Some(p) => p.clone(),
                None if from_command_line => "-e".into(),
                None => "<unknown>".into(),
            };
            format!("{file}:{line}:{col}: {}", e.message)
        }
        None => format!("error: {}", e.message),
    }
}

/// `notice: ...` -> `Notice: ...`, as Puppet prints log lines.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Runs puppet-graph on the catalog: relationships to missing resources, then cycles.
fn check(catalog: &puppet_lang::graph::Catalog) -> ExitCode {
    let graph = match Graph::build(catalog) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("check: error[{}]: {e}", e.code());
            return ExitCode::from(1);
        }
    };
    let report = graph.cycles(CycleLimits::default());
    let Some(message) = &report.puppet_message else {
        eprintln!(
            "check: {} resources, {} relationship edges, no dependency cycles",
            graph.resource_count(),
            graph.edge_count()
        );
        return ExitCode::SUCCESS;
    };
    eprintln!("check: error[GRAPH_DEPENDENCY_CYCLES]: {message}");
    for cycle in &report.cycles {
        eprintln!("  cycle {}", cycle.to_puppet_string());
        for step in &cycle.path {
            if let Some(at) = &step.location {
                eprintln!("    {} at {at}", step.reference);
            }
        }
    }
    if report.truncated {
        eprintln!("  (more cycles not listed)");
    }
    ExitCode::from(1)
}

fn absolute(p: impl AsRef<Path>) -> PathBuf {
    puppet_lang::loader::absolute_path(p.as_ref())
}
