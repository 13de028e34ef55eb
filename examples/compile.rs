//! `compile`: compiles a node's catalog from a manifest (or code given with `-e`) and a module
//! path, and prints Puppet's catalog JSON. With no manifest and no `-e`, it compiles the
//! bundled environment `examples/env` for `web01.example.com`.
//!
//! ```text
//! cargo run --release --example compile
//! cargo run --release --example compile -- --modulepath A:B [--facts F.json] [--node N] MANIFEST.pp
//! cargo run --release --example compile -- -e 'notify { "hi": }' --pretty
//! cargo run --release --example compile -- --check MANIFEST.pp
//! cargo run --release --example compile -- --environment examples/control-repo --nodes examples/control-repo/facts --out /tmp/catalogs
//! cargo run --release --example compile -- --environment DIR [--basemodulepath A:B] --facts F.json --format puppetdb
//! ```
//!
//! `--environment DIR` compiles in a directory environment (a control repository's
//! checkout), as a Puppet server whose environmentpath holds it: `environment.conf` gives
//! the module path (`$basemodulepath` is `--basemodulepath`, empty by default) and the main
//! manifest, `hiera.yaml` and `data/` are the environment's Hiera (`--hiera FILE` adds the
//! server's global layer above it), and the environment's
//! name (`$environment`) is the directory's name when Puppet accepts it, else `production`
//! (`--environment-name` sets it). Relative paths are relative to the current directory.
//!
//! `--format puppet` (the default) prints Puppet's catalog JSON, `--format puppetdb`
//! PuppetDB's catalog wire format v9. `--summary` prints a line on stderr: resources,
//! classes, relationship edges and the time taken (always, per node, with `--nodes`).
//! `--allow-exec` lets `generate()` run commands and `--allow-host-files` lets `file()`,
//! `loadyaml()` and `loadjson()` read absolute paths of this host, as Puppet does on a
//! server; both are off by default. `--setting NAME=VALUE` (repeatable) gives a Puppet
//! setting a value, as `puppet.conf` does: manifests read it as `$settings::NAME` and Ruby as
//! `Puppet[:NAME]`, and the settings whose defaults refer to it follow it.
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
use puppet_lang::envdiff;
use puppet_lang::eval::facts::NodeFacts;
use puppet_lang::eval::{Environment, EvalError, Session, Settings};
use puppet_lang::functions::LogLevel;
use puppet_lang::graph::{CycleLimits, Graph};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Parser)]
#[command(about = "Compile a Puppet catalog and print it as Puppet's catalog JSON")]
struct Args {
    /// The main manifest: a `.pp` file or a directory of them.
    manifest: Option<PathBuf>,
    /// A directory environment (its `environment.conf`, `hiera.yaml`, `data/`, manifests).
    #[arg(long, value_name = "DIR")]
    environment: Option<PathBuf>,
    /// With `--environment`: the server's `basemodulepath` (`$basemodulepath` in
    /// `environment.conf`), directories separated by `:`.
    #[arg(long, value_name = "A:B", requires = "environment")]
    basemodulepath: Option<String>,
    /// With `--environment`: the environment's name, instead of the directory's.
    #[arg(long, value_name = "NAME", requires = "environment")]
    environment_name: Option<String>,
    /// The output: Puppet's catalog JSON or PuppetDB's wire format v9.
    #[arg(long, value_enum, default_value_t = Format::Puppet)]
    format: Format,
    /// A summary on stderr: resources, classes, edges, time.
    #[arg(long)]
    summary: bool,
    /// `generate()` runs its command on this host.
    #[arg(long)]
    allow_exec: bool,
    /// `file()`, `loadyaml()`, `loadjson()` read absolute paths of this host.
    #[arg(long)]
    allow_host_files: bool,
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
    /// A global hiera.yaml (Puppet's `hiera_config`, the layer above an environment's own;
    /// any version Puppet reads there, 3 and 5); module data is always used, and the
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
    /// Gives a Puppet setting a value, as `puppet.conf` does (`$settings::name`,
    /// `Puppet[:name]`; settings whose defaults refer to it follow it): repeatable.
    #[arg(long = "setting", value_name = "NAME=VALUE")]
    settings: Vec<String>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Puppet's catalog JSON (`puppet catalog compile`).
    Puppet,
    /// PuppetDB's catalog wire format v9 (`replace catalog` command).
    Puppetdb,
}

/// The node name when neither `--node` nor the facts give one.
const DEFAULT_NODE: &str = "node.example.com";

fn main() -> ExitCode {
    let mut args = Args::parse();
    let bundled = args.manifest.is_none() && args.code.is_none() && args.environment.is_none();
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
        Some(path) => match envdiff::read_facts_file(path) {
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
        .or_else(|| envdiff::certname_of(&node_facts, args.facts.as_deref()))
        .unwrap_or_else(|| DEFAULT_NODE.to_string());
    let mut settings = Settings {
        strict_variables: args.strict_variables,
        allow_exec: args.allow_exec,
        allow_host_files: args.allow_host_files,
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

    let mut session = Session::new();
    if let Some(dir) = &args.environment {
        session = session
            .environment(dir)
            .basemodulepath(split_path(args.basemodulepath.as_deref()));
        if let Some(name) = &args.environment_name {
            session = session.environment_name(name);
        }
    }
    if args.modulepath.is_some() || args.environment.is_none() {
        session = session.modulepath(modulepath);
    }
    session = match (&args.code, &args.manifest) {
        (Some(code), _) => session.code(code),
        (None, Some(manifest)) => session.manifest(manifest),
        (None, None) => session,
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

    for d in env.diagnostics() {
        if d.code.starts_with("ENV_CONF") {
            eprint!("{}", d.render(None));
        }
    }
    // The environment's name for the node (`$environment`, the catalog's).
    let mut settings = settings.with_environment(env.name());
    for given in &args.settings {
        let Some((name, value)) = given.split_once('=') else {
            eprintln!("--setting {given}: expected NAME=VALUE");
            return ExitCode::from(2);
        };
        match settings.clone().with_setting(name.trim(), value) {
            Ok(s) => settings = s,
            Err(e) => {
                eprintln!("--setting {given}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(dir) = &args.nodes {
        return compile_nodes(&env, &settings, dir, &args);
    }
    let start = std::time::Instant::now();
    let out = env.compile(&settings);
    let elapsed = start.elapsed();
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
    let stdout = std::io::stdout().lock();
    if let Err(e) = write_catalog(stdout, &catalog, args.format, args.pretty, true) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    if args.summary {
        eprintln!("{}", summary(&catalog, elapsed));
    }
    let code = if args.check {
        check(&catalog)
    } else {
        ExitCode::SUCCESS
    };
    // The process ends here: freeing the environment and the catalog one allocation at a
    // time would cost about 1.5 % of a whole-process compile of kitchensink (callgrind,
    // 2026-11-27) for memory the kernel takes back at exit anyway. The catalog is written
    // as it is serialised, so keeping the environment until now does not raise the peak.
    std::mem::forget(env);
    std::mem::forget(catalog);
    code
}

/// `--nodes DIR`: every node of the facts files in DIR, compiled in parallel over one
/// environment.
fn compile_nodes(env: &Arc<Environment>, base: &Settings, dir: &Path, args: &Args) -> ExitCode {
    let threads = args.threads.unwrap_or(0);
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("threads: {e}");
            return ExitCode::from(1);
        }
    };
    // The facts files are parsed on the same threads as the compiles.
    let (found, problems) = pool.install(|| envdiff::read_nodes(dir));
    let mut failed = problems.len();
    for d in &problems {
        eprint!("{}", d.render(None));
    }
    let mut nodes: Vec<Settings> = found
        .into_iter()
        .map(|(certname, n)| {
            Settings::agent(&certname, n.facts).with_environment(&base.environment)
        })
        .collect();
    for n in &mut nodes {
        n.strict_variables = base.strict_variables;
        n.overrides = base.overrides.clone();
        n.native_functions = base.native_functions;
        n.enc_classes = base.enc_classes.clone();
        n.enc_parameters = base.enc_parameters.clone();
        n.allow_exec = base.allow_exec;
        n.allow_host_files = base.allow_host_files;
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
    let results: Vec<Result<usize, String>> = pool.install(|| {
        use rayon::prelude::*;
        nodes
            .par_iter()
            .map(|settings| {
                let node_start = std::time::Instant::now();
                let out = env.compile(settings);
                let node_time = node_start.elapsed();
                let r = match out.catalog {
                    Ok(catalog) => {
                        let written = match &args.out {
                            Some(dir) => {
                                let path = dir.join(format!("{}.json", settings.node_name));
                                std::fs::File::create(path)
                                    .map_err(|e| e.to_string())
                                    .and_then(|file| {
                                        write_catalog(
                                            file,
                                            &catalog,
                                            args.format,
                                            args.pretty,
                                            false,
                                        )
                                    })
                            }
                            None => Ok(()),
                        };
                        bar.suspend(|| {
                            eprintln!("{}: {}", settings.node_name, summary(&catalog, node_time))
                        });
                        written
                            .map(|_| catalog.resources.len())
                            .map_err(|e| format!("{}: {e}", settings.node_name))
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

/// `notice: ...` -> `Notice: ...`, as Puppet prints log lines (`err` is `Error`).
fn capitalized(s: &str) -> String {
    if let Some(rest) = s.strip_prefix("err:") {
        return format!("Error:{rest}");
    }
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

/// Writes the catalog in `format` to `out` (stdout, or a file of `--out`) as it is
/// serialised, without building the text first; `newline` ends it with a line break.
fn write_catalog(
    out: impl std::io::Write,
    catalog: &puppet_lang::graph::Catalog,
    format: Format,
    pretty: bool,
    newline: bool,
) -> Result<(), String> {
    use std::io::Write as _;
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let written = match format {
        Format::Puppet if pretty => serde_json::to_writer_pretty(&mut out, catalog),
        Format::Puppet => serde_json::to_writer(&mut out, catalog),
        Format::Puppetdb => {
            let value = catalog
                .to_puppetdb(&Default::default())
                .map_err(|e| e.to_string())?;
            if pretty {
                serde_json::to_writer_pretty(&mut out, &value)
            } else {
                serde_json::to_writer(&mut out, &value)
            }
        }
    };
    written.map_err(|e| e.to_string())?;
    if newline {
        writeln!(out).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// `42 resources, 7 classes, 12 relationship edges, compiled in 3.1 ms`.
fn summary(catalog: &puppet_lang::graph::Catalog, time: std::time::Duration) -> String {
    let edges = match Graph::build(catalog) {
        Ok(g) => format!("{} relationship edges", g.edge_count()),
        Err(e) => format!("no graph ({e})"),
    };
    format!(
        "{} resources, {} classes, {edges}, compiled in {:.1} ms",
        catalog.resources.len(),
        catalog.classes.len(),
        time.as_secs_f64() * 1000.0
    )
}

/// `A:B` as directories (made absolute); none for `None`.
fn split_path(text: Option<&str>) -> Vec<PathBuf> {
    text.unwrap_or("")
        .split(':')
        .filter(|p| !p.is_empty())
        .map(absolute)
        .collect()
}

fn absolute(p: impl AsRef<Path>) -> PathBuf {
    puppet_lang::loader::absolute_path(p.as_ref())
}
