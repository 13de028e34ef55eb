//! `validate`: parse and validate every `.pp` and `.epp` file under the given paths, print
//! problems as `file:line:col: error[CODE]: message` with a source snippet (or JSON with
//! `--format json`), and exit 1 when anything is wrong.
//!
//! ```text
//! cargo run --release --example validate -- examples/env
//! cargo run --release --example validate -- --format json modules/
//! ```

use clap::Parser as _;
use puppet_lang::syntax::{self, Diagnostic, LineIndex, Severity};
use std::path::{Path, PathBuf};

#[derive(clap::Parser)]
struct Args {
    /// Files or directories to check.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format: `text` (default) or `json` (one object per line).
    #[arg(long, default_value = "text")]
    format: String,
    /// Only parse (skip the validation pass).
    #[arg(long)]
    syntax_only: bool,
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = match std::fs::read_dir(path) {
            Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                return;
            }
        };
        entries.sort();
        for e in entries {
            collect(&e, out);
        }
    } else if matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("pp" | "epp")
    ) {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let args = Args::parse();
    let mut files = Vec::new();
    for p in &args.paths {
        if p.is_file() {
            files.push(p.clone());
        } else {
            collect(p, &mut files);
        }
    }
    let mut errors = 0usize;
    let mut warnings = 0usize;
    let mut out = String::new();
    for file in &files {
        let text = match std::fs::read(file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                errors += 1;
                continue;
            }
        };
        let is_epp = file.extension().and_then(|e| e.to_str()) == Some("epp");
        let parse = if is_epp {
            syntax::parse_epp(&text)
        } else {
            syntax::parse(&text)
        };
        let mut diags: Vec<Diagnostic> = parse.errors().to_vec();
        if !args.syntax_only && parse.is_ok() {
            diags.extend(syntax::validate::validate(&parse));
        }
        if diags.is_empty() {
            continue;
        }
        let index = LineIndex::new(&text);
        for d in &diags {
            match d.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
            }
            let lc = index.line_col(&text, d.start());
            if args.format == "json" {
                let obj = serde_json::json!({
                    "file": file.display().to_string(),
                    "line": lc.line,
                    "column": lc.col,
                    "severity": d.severity,
                    "code": d.code,
                    "message": d.message,
                    "range": {"start": u32::from(d.start()), "end": u32::from(d.range.unwrap_or_default().end())},
                });
                out.push_str(&obj.to_string());
                out.push('\n');
            } else {
                let sev = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                out.push_str(&format!(
                    "{}:{}:{}: {}[{}]: {}\n",
                    file.display(),
                    lc.line,
                    lc.col,
                    sev,
                    d.code,
                    d.message
                ));
                let line_text = text.lines().nth(lc.line as usize - 1).unwrap_or("");
                out.push_str(&format!("  {} | {}\n", lc.line, line_text));
                let pad = " ".repeat(lc.line.to_string().len());
                out.push_str(&format!(
                    "  {} | {}^\n",
                    pad,
                    " ".repeat(lc.col as usize - 1)
                ));
            }
        }
    }
    print!("{out}");
    if args.format != "json" {
        eprintln!(
            "{} files checked: {} errors, {} warnings",
            files.len(),
            errors,
            warnings
        );
    }
    std::process::exit(if errors > 0 { 1 } else { 0 });
}
