//! Parses every `.pp` and `.epp` file under the given directories, for measuring the
//! front end and checking that a change leaves trees alone.
//!
//! `parse_corpus bench DIR...` flat-parses each file once (the compile path's parse);
//! `parse_corpus digest DIR...` prints, per file, a digest of its rowan tree, its flat tree
//! and their diagnostics, so two builds' outputs can be compared with `diff`.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "pp" || x == "epp") {
            out.push(p);
        }
    }
}

fn digest(s: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let mut files = Vec::new();
    for d in args {
        collect(Path::new(&d), &mut files);
    }
    files.sort();
    let texts: Vec<(PathBuf, Arc<str>)> = files
        .into_iter()
        .filter_map(|p| {
            let t = std::fs::read_to_string(&p).ok()?;
            Some((p, Arc::from(t)))
        })
        .collect();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    match mode.as_str() {
        "bench" => {
            let mut elems = 0usize;
            for (p, t) in &texts {
                let epp = p.extension().is_some_and(|x| x == "epp");
                let parse = if epp {
                    puppet_syntax::flat::parse_epp(t.clone())
                } else {
                    puppet_syntax::flat::parse(t.clone())
                };
                elems += parse.root().descendants().count() + parse.errors().len();
            }
            println!("{} files, {bytes} bytes, {elems} nodes", texts.len());
        }
        "digest" => {
            for (p, t) in &texts {
                let epp = p.extension().is_some_and(|x| x == "epp");
                let (parse, flat) = if epp {
                    (
                        puppet_syntax::parse_epp(t),
                        puppet_syntax::flat::parse_epp(t.clone()),
                    )
                } else {
                    (
                        puppet_syntax::parse(t),
                        puppet_syntax::flat::parse(t.clone()),
                    )
                };
                println!(
                    "{} {:016x} {:016x} {:016x} {:016x}",
                    p.display(),
                    digest(&parse.debug_tree()),
                    digest(&format!("{:?}", parse.errors())),
                    digest(&format!("{flat:?}")),
                    digest(&format!("{:?}", flat.errors())),
                );
            }
        }
        _ => eprintln!("usage: parse_corpus bench|digest DIR..."),
    }
}
