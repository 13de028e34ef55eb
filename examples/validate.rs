//! `validate`: parse and validate every `.pp` and `.epp` file under the given paths, print
//! problems as `file:line:col: error[CODE]: message` with a source snippet (or JSON with
//! `--format json`), and exit 1 when anything is wrong. Files are checked in parallel on
//! every core; the output is in file order. Files inside a `plans` directory (a module's
//! Bolt plans) are parsed and validated in tasks mode, as `pdk validate` checks them
//! (`puppet parser validate --tasks`); `--tasks` makes every manifest a plan file.
//!
//! ```text
//! cargo run --release --example validate -- examples/env
//! cargo run --release --example validate -- --format json modules/
//! ```

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser as _;
use puppet_lang::syntax::{self, Diagnostic, Severity};
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
    /// Check every manifest in tasks mode (by default only those inside a `plans`
    /// directory).
    #[arg(long)]
    tasks: bool,
}

/// The `.pp` and `.epp` files below `dir`, sorted (a directory's entry type comes with its
/// listing; only symlinks cost a `stat`).
fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 64 {
        eprintln!("{}: directories nested too deep", dir.display());
        return;
    }
    let mut entries: Vec<(PathBuf, bool)> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| {
                let path = e.path();
                let is_dir = match e.file_type() {
                    Ok(t) if t.is_symlink() => path.is_dir(),
                    Ok(t) => t.is_dir(),
                    Err(_) => false,
                };
                (path, is_dir)
            })
            .collect(),
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            return;
        }
    };
    entries.sort();
    for (path, is_dir) in entries {
        if is_dir {
            collect(&path, out, depth + 1);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("pp" | "epp")
        ) {
            out.push(path);
        }
    }
}

fn main() {
    let args = Args::parse();
    let mut files = Vec::new();
    for p in &args.paths {
        if p.is_file() {
            files.push(p.clone());
        } else {
            collect(p, &mut files, 0);
        }
    }
    use rayon::prelude::*;
    let checked: Vec<Checked> = files.par_iter().map(|file| check(file, &args)).collect();
    let (mut errors, mut warnings) = (0usize, 0usize);
    let mut out = String::new();
    for c in checked {
        errors += c.errors;
        warnings += c.warnings;
        out.push_str(&c.output);
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

/// What checking one file gave.
struct Checked {
    errors: usize,
    warnings: usize,
    output: String,
}

/// Parses and validates one file.
fn check(file: &Path, args: &Args) -> Checked {
    let mut c = Checked {
        errors: 0,
        warnings: 0,
        output: String::new(),
    };
    let text = match std::fs::read(file) {
        Ok(bytes) => String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            c.errors += 1;
            return c;
        }
    };
    let is_epp = file.extension().and_then(|e| e.to_str()) == Some("epp");
    let tasks = !is_epp && (args.tasks || file.components().any(|c| c.as_os_str() == "plans"));
    let parse = if is_epp {
        syntax::parse_epp(&text)
    } else if tasks {
        syntax::parse_tasks(&text)
    } else {
        syntax::parse(&text)
    };
    let mut diags: Vec<Diagnostic> = parse.errors().to_vec();
    if !args.syntax_only && parse.is_ok() {
        diags.extend(match tasks {
            true => syntax::validate::validate_tasks(&parse),
            false => syntax::validate::validate(&parse),
        });
    }
    if diags.is_empty() {
        return c;
    }
    let name = file.display().to_string();
    for d in diags {
        match d.severity {
            Severity::Error => c.errors += 1,
            Severity::Warning => c.warnings += 1,
        }
        let d = d.with_file(name.as_str()).with_source(&text);
        if args.format == "json" {
            c.output.push_str(&d.to_json());
            c.output.push('\n');
        } else {
            c.output.push_str(&d.render(Some(&text)));
        }
    }
    c
}
