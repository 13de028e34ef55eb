//! Lexer and parser throughput of puppet-syntax, in bytes per second (criterion, run with
//! `cargo bench --bench parse`).
//!
//! The input is every `.pp` and `.epp` file under `/usr/share/puppet/modules` when that
//! directory exists, else the bundled parser fixtures (`crates/puppet-syntax/test_data`), which
//! are too small to say much. `parse` builds the lossless tree (CST) only: no validation, no
//! typed AST. Templates go through the EPP entry points.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
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

/// The corpus: (is it a template, text), and where it came from.
fn corpus() -> (Vec<(bool, String)>, String) {
    let modules = Path::new("/usr/share/puppet/modules");
    let root = if modules.is_dir() {
        modules.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/puppet-syntax/test_data")
    };
    let mut files = Vec::new();
    collect(&root, &mut files);
    let texts = files
        .iter()
        .filter_map(|f| {
            let bytes = std::fs::read(f).ok()?;
            let is_epp = f.extension().and_then(|e| e.to_str()) == Some("epp");
            Some((is_epp, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect();
    (texts, root.display().to_string())
}

fn throughput(c: &mut Criterion) {
    let (files, root) = corpus();
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    eprintln!("corpus: {} files, {bytes} bytes, from {root}", files.len());

    let mut group = c.benchmark_group("puppet-syntax");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(20);
    group.bench_function("lex", |b| {
        b.iter(|| {
            for (is_epp, text) in &files {
                let lexed = if *is_epp {
                    puppet_syntax::lexer::lex_epp(text)
                } else {
                    puppet_syntax::lexer::lex(text)
                };
                black_box(lexed);
            }
        })
    });
    group.bench_function("parse", |b| {
        b.iter(|| {
            for (is_epp, text) in &files {
                let parse = if *is_epp {
                    puppet_syntax::parse_epp(text)
                } else {
                    puppet_syntax::parse(text)
                };
                black_box(parse);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
