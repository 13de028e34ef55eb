//! `lookup`: what `puppet lookup` prints for a node of a directory environment: the value
//! as YAML (`--- value`), or with `--explain` how Hiera found it (each data provider,
//! hierarchy level, path, found or not, merge), in Puppet 7.23's words.
//!
//! ```text
//! cargo run --example lookup -- --environment examples/control-repo \
//!     --node web01.example.com --facts examples/control-repo/facts/web01.example.com.json \
//!     profile::base::packages [--explain] [--merge first|unique|hash|deep]
//!     [--knock-out-prefix P] [--sort-merged-arrays] [--merge-hash-arrays]
//! ```
//!
//! The environment is read as `compile --environment` reads it (`environment.conf`, its
//! `hiera.yaml` and `data/`, the modules' Hiera data); `--hiera-config` is the global
//! `hiera.yaml` (none by default: a global layer with nothing in it, as a Puppet without
//! one). The scope is the node's top scope in a compile (facts, `$trusted` for the
//! certname, `$server_facts`). Exit status 0 when a value was found (always with
//! `--explain`), 1 otherwise; an error is printed as Puppet prints it
//! (`Error: Could not run: ...`). All the work is `puppet_eval::hiera::puppet_lookup`.

use clap::Parser as _;
use puppet_lang::eval::facts;
use puppet_lang::eval::hiera::{puppet_lookup, LookupCommand};
use puppet_lang::eval::Session;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Parser)]
#[command(about = "Look a key up in Hiera as `puppet lookup` does")]
struct Args {
    /// The key.
    key: String,
    /// The directory environment.
    #[arg(long, value_name = "DIR")]
    environment: PathBuf,
    /// The server's `basemodulepath` (`$basemodulepath` in `environment.conf`).
    #[arg(long, value_name = "A:B")]
    basemodulepath: Option<String>,
    /// The global `hiera.yaml` (Puppet's `hiera_config`).
    #[arg(long, value_name = "FILE")]
    hiera_config: Option<PathBuf>,
    /// The node's certname (default: the facts file's, else its `fqdn` fact).
    #[arg(long, value_name = "NAME")]
    node: Option<String>,
    /// The node's facts (JSON or YAML, as `compile --facts`).
    #[arg(long, value_name = "FILE")]
    facts: Option<PathBuf>,
    /// Explain how the value was found.
    #[arg(long)]
    explain: bool,
    /// The merge strategy (`first`, `unique`, `hash`, `deep`).
    #[arg(long, value_name = "STRATEGY")]
    merge: Option<String>,
    /// With `--merge deep`: the knockout prefix.
    #[arg(long, value_name = "PREFIX")]
    knock_out_prefix: Option<String>,
    /// With `--merge deep`: sort merged arrays.
    #[arg(long)]
    sort_merged_arrays: bool,
    /// With `--merge deep`: merge hashes in arrays.
    #[arg(long)]
    merge_hash_arrays: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut session = Session::new()
        .environment(&args.environment)
        .basemodulepath(
            args.basemodulepath
                .as_deref()
                .unwrap_or("")
                .split(':')
                .filter(|p| !p.is_empty()),
        );
    if let Some(h) = &args.hiera_config {
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
    let node = match &args.facts {
        Some(path) => {
            let name = path.display().to_string();
            let read = std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|text| facts::read_facts(&name, &text).map_err(|d| d.message));
            match read {
                Ok(mut nodes) if !nodes.is_empty() => nodes.swap_remove(0),
                Ok(_) => Default::default(),
                Err(e) => {
                    eprintln!("Error: Could not run: {name}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        None => Default::default(),
    };
    let certname = args
        .node
        .clone()
        .or(node.certname.clone())
        .or_else(|| match node.facts.get("fqdn") {
            Some(puppet_lang::types::Value::String(s)) => Some(s.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| "node.example.com".to_string());
    let settings = env.agent(&certname, node.facts);
    let out = puppet_lookup(
        &env,
        &settings,
        &LookupCommand {
            key: args.key,
            merge: args.merge,
            knock_out_prefix: args.knock_out_prefix,
            sort_merged_arrays: args.sort_merged_arrays,
            merge_hash_arrays: args.merge_hash_arrays,
            explain: args.explain,
        },
    );
    print!("{}", out.stdout);
    if let Some(e) = &out.error {
        eprintln!("Error: Could not run: {e}");
    }
    ExitCode::from(out.status)
}
