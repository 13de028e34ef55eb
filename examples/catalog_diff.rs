//! The semantic difference of two catalogs of one node (Puppet's catalog JSON as `compile`
//! or `puppet catalog compile` print it, or the oracle's canonical form).
//!
//! ```text
//! cargo run --release --example catalog_diff -- OLD.json NEW.json [--json]
//!     [--scalar-equals-array] [--ignore-param NAME|TYPE::NAME]... [--ignore-type TYPE]...
//!     [--ignore-tags] [--context N] [--no-graph] [--color auto|always|never]
//! ```
//!
//! Text output (coloured on a terminal) or `--json`. Exit status: 0 equal, 2 different,
//! 1 error (a file that cannot be read or is not a catalog). It only prints; the comparison
//! is `puppet_graph::diff`.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use puppet_lang::graph::{diff, Catalog, DiffOptions};

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
    old: String,
    /// The catalog after the change.
    new: String,
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
    let (old, new) = match (read(&args.old), read(&args.new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let options = DiffOptions {
        scalar_equals_singleton: args.scalar_equals_array,
        ignore_parameters: args.ignore_param,
        ignore_types: args.ignore_type,
        ignore_tags: args.ignore_tags,
        context_lines: args.context,
        check_graph: !args.no_graph,
    };
    let d = diff(&old, &new, &options);
    if args.json {
        match serde_json::to_string_pretty(&d) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        let color = match args.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        print!("{}", d.to_text(color));
    }
    ExitCode::from(if d.is_empty() { 0 } else { 2 })
}
