//! Corpus coverage report: parses every `.erb` file under the given directories (default
//! `/usr/share/puppet/modules`) and renders it with no variables, counting syntax errors,
//! unsupported constructs found while parsing and unsupported constructs met while rendering.
//!
//! Run: `cargo run --release -p puppet-erb --example erb_corpus [-- -v] [dir...]`.

use indexmap::IndexMap;
use puppet_erb::{ErbError, Template, TemplateScope};
use puppet_types::Value;
use smol_str::SmolStr;
use std::path::{Path, PathBuf};

struct Empty;
impl TemplateScope for Empty {
    fn lookup(&self, _: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }
    fn call_function(&mut self, _: &str, _: Vec<Value>) -> Result<Value, String> {
        Ok(Value::Undef)
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "erb") {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let mut dirs: Vec<String> = args.into_iter().filter(|a| a != "-v").collect();
    if dirs.is_empty() {
        dirs.push("/usr/share/puppet/modules".into());
    }
    let mut files = Vec::new();
    for d in &dirs {
        walk(Path::new(d), &mut files);
    }
    let (mut parsed, mut parse_unsup, mut syntax, mut run_unsup, mut run_ok, mut run_err) =
        (0, 0, 0, 0, 0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let name = f.display().to_string();
        match Template::parse(&text, &name) {
            Ok(t) => {
                parsed += 1;
                match t.render(&mut Empty) {
                    Ok(_) => run_ok += 1,
                    Err(e @ ErbError::Unsupported { .. }) => {
                        run_unsup += 1;
                        if verbose {
                            println!("RUN-UNSUPPORTED {e}");
                        }
                    }
                    Err(e) => {
                        run_err += 1;
                        if verbose {
                            println!("RUN-ERROR {e}");
                        }
                    }
                }
            }
            Err(e) => {
                if e.is_unsupported() {
                    parse_unsup += 1;
                } else {
                    syntax += 1;
                }
                println!("PARSE {e}");
            }
        }
    }
    let n = files.len().max(1) as f64;
    println!("files: {}", files.len());
    println!("parsed: {parsed} ({:.1} %)", parsed as f64 * 100.0 / n);
    println!("syntax errors: {syntax}; unsupported while parsing: {parse_unsup}");
    println!(
        "no unsupported construct (parse + render with nil variables): {} ({:.1} %)",
        files.len() - parse_unsup - syntax - run_unsup,
        (files.len() - parse_unsup - syntax - run_unsup) as f64 * 100.0 / n
    );
    println!(
        "render with nil variables: ok {run_ok}, Ruby error {run_err}, unsupported {run_unsup}"
    );
}
