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

use clap::Parser as _;
use puppet_lang::eval::{from_data, EvalError, Session, Settings};
use puppet_lang::functions::LogLevel;
use puppet_lang::graph::{CycleLimits, Graph};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
    /// Also check the catalog's relationship graph (missing targets, cycles).
    #[arg(long)]
    check: bool,
}

/// The node name when neither `--node` nor the facts give one.
const DEFAULT_NODE: &str = "node.example.com";

fn main() -> ExitCode {
    let mut args = Args::parse();
    let bundled = args.manifest.is_none() && args.code.is_none();
    if bundled {
        bundled_defaults(&mut args);
    }
    // Deep Puppet code is bounded by the evaluator; a large stack keeps it fast.
    let run = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(args, bundled));
    match run.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: the compiler panicked");
            ExitCode::from(1)
        }
    }
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
    let (facts, facts_name) = match &args.facts {
        Some(path) => match read_facts(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                return ExitCode::from(1);
            }
        },
        None => (serde_json::Map::new(), None),
    };
    let node = args
        .node
        .clone()
        .or_else(|| facts.get("fqdn").and_then(Json::as_str).map(str::to_string))
        .or(facts_name)
        .unwrap_or_else(|| DEFAULT_NODE.to_string());
    let mut settings = settings(&node, facts, args.strict_variables);
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

/// The compile settings for a node: its facts plus what an agent and a server add
/// (`Settings::agent`).
fn settings(node: &str, facts: serde_json::Map<String, Json>, strict: bool) -> Settings {
    let facts = facts
        .iter()
        .map(|(k, v)| (k.as_str().into(), from_data(v)))
        .collect();
    Settings {
        strict_variables: strict,
        ..Settings::agent(node, facts)
    }
}

/// A facts file: a plain hash, or `{"name": .., "values": {..}}` (then also the name).
fn read_facts(path: &Path) -> Result<(serde_json::Map<String, Json>, Option<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let json: Json = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let Json::Object(map) = json else {
        return Err("facts must be a JSON object".into());
    };
    if let (Some(Json::Object(values)), Some(name)) = (map.get("values"), map.get("name")) {
        return Ok((values.clone(), name.as_str().map(str::to_string)));
    }
    Ok((map, None))
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
    let p = p.as_ref();
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
