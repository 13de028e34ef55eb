//! Lists every function visible in an environment, sorted by name, with its origin, its
//! signatures and the first line of its documentation (a thin front end to
//! [`puppet_lang::eval::Environment::functions`]).
//!
//! `cargo run --example functions -- --modulepath DIR[:DIR...] [--json] [NAME...]`: with
//! names, only those functions are shown. The text form ends with a count per origin.

use puppet_lang::eval::{FunctionInfo, FunctionOrigin, Session};
use std::collections::BTreeMap;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut modulepath = Vec::new();
    let mut json = false;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--modulepath" => match args.next() {
                Some(dirs) => modulepath.extend(dirs.split(':').map(String::from)),
                None => return usage("--modulepath needs a directory"),
            },
            "--json" => json = true,
            "-h" | "--help" => return usage(""),
            flag if flag.starts_with('-') => return usage(&format!("unknown option {flag}")),
            name => names.push(name.to_ascii_lowercase()),
        }
    }
    let env = match Session::new().modulepath(modulepath).load() {
        Ok(env) => env,
        Err(diags) => {
            for d in diags {
                eprintln!("{}", d.message);
            }
            return ExitCode::FAILURE;
        }
    };
    let all: Vec<FunctionInfo> = env
        .functions()
        .into_iter()
        .filter(|f| names.is_empty() || names.contains(&f.name))
        .collect();
    if json {
        let rows: Vec<_> = all
            .iter()
            .map(|f| {
                serde_json::json!({
                    "name": f.name,
                    "origin": f.origin.to_string(),
                    "signatures": f.signatures,
                    "doc": first_line(&f.doc),
                })
            })
            .collect();
        match serde_json::to_string_pretty(&rows) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &all {
        println!("{}  [{}]", f.name, f.origin);
        match &f.signatures {
            Some(sigs) => sigs.iter().for_each(|s| println!("    {}({s})", f.name)),
            None => println!("    (signature not available yet)"),
        }
        let doc = first_line(&f.doc);
        if !doc.is_empty() {
            println!("    {doc}");
        }
        *counts.entry(kind(&f.origin)).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!("{} functions: {}", all.len(), summary.join(", "));
    ExitCode::SUCCESS
}

/// The first line of text of a documentation comment (a YARD `@summary` tag's text).
fn first_line(doc: &str) -> &str {
    doc.lines()
        .map(|l| l.trim().trim_start_matches("@summary").trim())
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

fn kind(origin: &FunctionOrigin) -> &'static str {
    match origin {
        FunctionOrigin::Custom => "custom",
        FunctionOrigin::BuiltIn => "built-in",
        FunctionOrigin::Native { .. } => "native",
        FunctionOrigin::Ruby { .. } => "ruby",
        FunctionOrigin::Puppet { .. } => "puppet",
    }
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("{problem}");
    }
    eprintln!("usage: functions --modulepath DIR[:DIR...] [--json] [NAME...]");
    if problem.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
