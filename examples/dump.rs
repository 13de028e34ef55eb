//! `dump`: print a manifest's (or EPP template's) parse tree in Puppet's `old` dump format,
//! exactly what `puppet parser dump` prints minus the `--- FILE` header.
//!
//! ```text
//! cargo run --release --example dump -- FILE.pp
//! cargo run --release --example dump -- --jsonl FILE.pp FILE2.epp ...
//! ```
//!
//! With `--jsonl`, one JSON object per file is printed, shaped like the lines of the
//! Puppet oracle's `parse-dump --batch`: `{"file","ok":true,"dump"}` or
//! `{"file","ok":false,"error","line","column"}`. `.epp` files are parsed as templates;
//! `--tasks` parses manifests in tasks mode (Bolt's plans), as `puppet parser dump --tasks`.
//! It is not a validator: only syntax errors make a file fail, as with `puppet parser dump`.

use clap::Parser as _;
use puppet_lang::syntax::{self, LineIndex, Severity};
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(clap::Parser)]
struct Args {
    /// Print one JSON object per file instead of the bare dump.
    #[arg(long)]
    jsonl: bool,
    /// Parse manifests in tasks mode (`plan` and `apply` are keywords).
    #[arg(long)]
    tasks: bool,
    /// Files to dump (`.epp` files are parsed as EPP templates).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// The dump of one source text, or the first error as Puppet would report it.
fn dump_source(text: &str, epp: bool, tasks: bool) -> Result<String, (String, Option<(u32, u32)>)> {
    let parse = if epp {
        syntax::parse_epp(text)
    } else if tasks {
        syntax::parse_tasks(text)
    } else {
        syntax::parse(text)
    };
    if let Some(e) = parse
        .errors()
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        if e.message == "Syntax error at end of input" {
            return Err((e.message.clone(), None));
        }
        let lc = LineIndex::new(text).line_col(text, e.start());
        return Err((
            format!("{} (line: {}, column: {})", e.message, lc.line, lc.col),
            Some((lc.line, lc.col)),
        ));
    }
    Ok(syntax::dump::dump(&parse))
}

fn main() {
    let args = Args::parse();
    let mut failed = false;
    for file in &args.files {
        let name = file.display().to_string();
        let epp = file.extension().is_some_and(|e| e == "epp");
        let result = match std::fs::read(file) {
            Ok(bytes) => dump_source(&String::from_utf8_lossy(&bytes), epp, args.tasks),
            Err(e) => Err((format!("cannot read: {e}"), None)),
        };
        if args.jsonl {
            let v: Value = match result {
                Ok(d) => json!({"file": name, "ok": true, "dump": format!("{d}\n")}),
                Err((msg, pos)) => {
                    let mut v = json!({"file": name, "ok": false, "error": msg});
                    if let Some((l, c)) = pos {
                        v["line"] = json!(l);
                        v["column"] = json!(c);
                    }
                    v
                }
            };
            println!("{v}");
        } else {
            match result {
                Ok(d) => println!("{d}"),
                Err((msg, _)) => {
                    eprintln!("{name}: {msg}");
                    failed = true;
                }
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
