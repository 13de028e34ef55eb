//! Loads every module Ruby function and resource type below the given directories with
//! puppet-ruby: each `lib/puppet/functions/**/*.rb`, `lib/puppet/parser/functions/*.rb` and
//! `lib/puppet/type/*.rb` is parsed and run, a function is registered in a function registry,
//! a type file is run against the type recorder. With `-v` every failure is printed as
//! `file:line:column: message`; the last line is always
//! `ruby files: N; loaded: M (P %)`.
//!
//! Run: `cargo run --release --example ruby_corpus -- [-v] DIR...` (a directory of modules,
//! such as `/usr/share/puppet/modules`, or a module).
//!
//! The example is the file-system side: it serves the modules' files to the interpreter
//! through puppet-ruby's `SourceHost` (what `require` and `File.read` see).

use puppet_lang::ruby::{functions, typedsl, SourceHost, Sources};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The modules' `lib` directories, and the files below the given roots.
struct FsHost {
    libs: Vec<PathBuf>,
    roots: Vec<PathBuf>,
}

impl SourceHost for FsHost {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let rel = format!("{}.rb", name.trim_end_matches(".rb"));
        for l in &self.libs {
            let p = l.join(&rel);
            if let Ok(t) = std::fs::read_to_string(&p) {
                return Some((p.display().to_string(), Arc::from(t)));
            }
        }
        None
    }
    fn read(&self, path: &str) -> Option<Arc<str>> {
        let p = Path::new(path);
        if !self.roots.iter().any(|r| p.starts_with(r)) || path.contains("/../") {
            return None;
        }
        std::fs::read_to_string(p).ok().map(Arc::from)
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 12 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out, depth + 1);
        } else if p.extension().is_some_and(|e| e == "rb") {
            out.push(p);
        }
    }
}

#[derive(PartialEq)]
enum Kind {
    Function,
    Type,
}

fn kind(p: &Path) -> Option<Kind> {
    let s = p.to_string_lossy();
    if s.contains("/lib/puppet/functions/") {
        Some(Kind::Function)
    } else if let Some(i) = s.find("/lib/puppet/parser/functions/") {
        // Directly in the directory, not below it.
        (!s[i + "/lib/puppet/parser/functions/".len()..].contains('/')).then_some(Kind::Function)
    } else if let Some(i) = s.find("/lib/puppet/type/") {
        (!s[i + "/lib/puppet/type/".len()..].contains('/')).then_some(Kind::Type)
    } else {
        None
    }
}

fn main() {
    let mut verbose = false;
    let mut dirs: Vec<PathBuf> = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "-v" {
            verbose = true;
        } else {
            dirs.push(PathBuf::from(a));
        }
    }
    if dirs.is_empty() {
        dirs.push(PathBuf::from("/usr/share/puppet/modules"));
    }
    let mut libs = Vec::new();
    let mut files = Vec::new();
    for d in &dirs {
        if d.join("lib").is_dir() {
            libs.push(d.join("lib"));
        }
        if let Ok(rd) = std::fs::read_dir(d) {
            let mut mods: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
            mods.sort();
            for m in mods {
                if m.join("lib").is_dir() {
                    libs.push(m.join("lib"));
                }
            }
        }
        walk(d, &mut files, 0);
    }
    let files: Vec<(PathBuf, Kind)> = files
        .into_iter()
        .filter_map(|p| kind(&p).map(|k| (p, k)))
        .collect();
    // Paths as the host serves them (below the roots as given).
    let roots = dirs.clone();
    let sources = Sources::new(Arc::new(FsHost { libs, roots }));
    let mut loaded = 0usize;
    for (path, k) in &files {
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                if verbose {
                    println!("{shown}: cannot read: {e}");
                }
                continue;
            }
        };
        let result: Result<(), String> = match k {
            Kind::Function => match functions::load(&shown, &text, &sources) {
                Ok(f) => {
                    let mut reg = puppet_lang::functions::Registry::new();
                    f.register(&mut reg)
                        .map_err(|e| format!("{shown}: registering: {e}"))
                }
                Err(e) => Err(e.to_string()),
            },
            Kind::Type => typedsl::load_types(&shown, &text, &sources)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        };
        match result {
            Ok(()) => loaded += 1,
            Err(e) => {
                if verbose {
                    println!("{e}");
                }
            }
        }
    }
    let n = files.len();
    let pct = if n == 0 {
        0.0
    } else {
        loaded as f64 * 100.0 / n as f64
    };
    println!("ruby files: {n}; loaded: {loaded} ({pct:.1} %)");
}
