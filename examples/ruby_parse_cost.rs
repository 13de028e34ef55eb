//! Parses the Ruby files (`.rb`, with puppet-ruby's parser) and ERB templates (`.erb`, with
//! puppet-erb) named on the command line, `N` times each (first argument), and prints a
//! digest of the trees, so that the parse cost alone can be measured (callgrind) and a
//! change to the lexer or parser checked for the same trees. Not a test and not a timer.
//!
//! With `TYPES=MODULEDIR` set, a `lib/puppet/type/*.rb` file is run against the type
//! recorder instead (what the compile does with it), its `require`s served from the
//! modules' `lib` directories.
//!
//! Run: `cargo run --release --example ruby_parse_cost -- N FILE...`

use puppet_lang::ruby::{typedsl, SourceHost, Sources};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The modules' `lib` directories for `require`.
struct FsHost {
    libs: Vec<std::path::PathBuf>,
}

impl SourceHost for FsHost {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let rel = format!("{}.rb", name.trim_end_matches(".rb"));
        self.libs.iter().find_map(|l| {
            let p = l.join(&rel);
            let t = std::fs::read_to_string(&p).ok()?;
            Some((p.display().to_string(), Arc::from(t)))
        })
    }
    fn read(&self, path: &str) -> Option<Arc<str>> {
        std::fs::read_to_string(path).ok().map(Arc::from)
    }
}

/// The allocator of `examples/compile`, so that allocation costs what it costs there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let files: Vec<String> = args.collect();
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok().map(|t| (f.clone(), t)))
        .collect();
    // Printing the trees costs more than parsing them: only with DIGEST set.
    let check = std::env::var_os("DIGEST").is_some();
    let mut digest = std::collections::hash_map::DefaultHasher::new();
    let mut ok = 0usize;
    let types = std::env::var("TYPES").ok().map(|dir| {
        let mut libs: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.path().join("lib"))
                    .collect()
            })
            .unwrap_or_default();
        libs.sort();
        Sources::new(Arc::new(FsHost { libs }))
    });
    for _ in 0..n {
        for (f, t) in &texts {
            if let Some(sources) = types.as_ref().filter(|_| f.contains("/lib/puppet/type/")) {
                match typedsl::load_types(f, t, sources) {
                    Ok(ts) if !check => ok += ts.len(),
                    Ok(ts) => format!("{ts:?}").hash(&mut digest),
                    Err(e) => e.to_string().hash(&mut digest),
                }
            } else if f.ends_with(".erb") {
                match puppet_lang::erb::Template::parse(t, f) {
                    Ok(tp) if !check => ok += tp.body().len(),
                    Ok(tp) => format!("{:?}", tp.body()).hash(&mut digest),
                    Err(e) => e.to_string().hash(&mut digest),
                }
            } else {
                match puppet_lang::ruby::parser::parse_file(t, f) {
                    Ok(p) if !check => ok += p.body.len(),
                    Ok(p) => format!("{:?}", p).hash(&mut digest),
                    Err(e) => format!("{e:?}").hash(&mut digest),
                }
            }
        }
    }
    println!(
        "{} files, {ok} statements, digest {:016x}",
        texts.len(),
        digest.finish()
    );
}
