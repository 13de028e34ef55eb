//! `load_phases`: runs one phase of loading (read, Puppet parse, parse + lower, Ruby lex,
//! Ruby parse, ERB parse) over a list of files, so that each phase's instruction count can be
//! measured alone under callgrind; the `*-dump` modes print every file's result (Ruby AST,
//! template, Puppet tree + errors + lowered IR) for a differential check of parser changes
//! (dump before and after, compare). A profiling aid, not a benchmark.
//!
//! ```text
//! find -L /usr/share/puppet/modules -name '*.rb' > /tmp/rb.list
//! valgrind --tool=callgrind target/release/examples/load_phases rb-parse /tmp/rb.list
//! target/release/examples/load_phases rb-dump /tmp/rb.list > before.txt
//! ```
//! Modes: read, pp-parse (rowan tree), pp-flat (flat tree), pp-lower (flat tree, lowered),
//! pp-dump (Puppet files), rb-lex, rb-parse, rb-dump (Ruby files), erb-parse, erb-dump (ERB
//! templates).

use std::sync::Arc;

// The allocator of `examples/compile`, so that the counts match a compile's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let (Some(mode), Some(list)) = (std::env::args().nth(1), std::env::args().nth(2)) else {
        eprintln!("usage: load_phases MODE FILE_LIST");
        std::process::exit(2);
    };
    let files: Vec<(String, String)> = std::fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("{list}: {e}"))
        .lines()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
            (p.to_string(), text)
        })
        .collect();
    let mut n = 0usize;
    for (path, text) in &files {
        match mode.as_str() {
            "read" => n += text.len(),
            "pp-parse" => n += puppet_lang::syntax::parse(text).errors().len(),
            "pp-flat" => {
                n += puppet_lang::syntax::flat::parse(Arc::from(text.as_str()))
                    .errors()
                    .len()
            }
            "pp-lower" => {
                let parse = puppet_lang::syntax::flat::parse(Arc::from(text.as_str()));
                let src = Arc::new(puppet_lang::eval::ir::SourceFile::from_arc(
                    Some(path.clone()),
                    Arc::from(text.as_str()),
                ));
                let l = puppet_lang::eval::lower::lower_file(src, &parse);
                n += l.diagnostics.len();
            }
            "rb-lex" => {
                n += puppet_lang::ruby::lexer::lex_file(text)
                    .map(|t| t.len())
                    .unwrap_or(0)
            }
            "rb-parse" => {
                n += puppet_lang::ruby::parser::parse_file(text, path)
                    .map(|p| p.body.len())
                    .unwrap_or(0)
            }
            "erb-parse" => n += puppet_lang::erb::Template::parse(text, path).is_ok() as usize,
            "rb-dump" => println!(
                "{path} {:?}",
                puppet_lang::ruby::parser::parse_file(text, path)
            ),
            "erb-dump" => println!(
                "{path} {:?}",
                puppet_lang::erb::Template::parse(text, path).map(|t| format!("{t:?}"))
            ),
            "pp-dump" => {
                let parse = puppet_lang::syntax::parse(text);
                let src = Arc::new(puppet_lang::eval::ir::SourceFile::from_arc(
                    Some(path.clone()),
                    Arc::from(text.as_str()),
                ));
                let flat = puppet_lang::syntax::flat::FlatParse::from_parse(&src.text, &parse);
                let l = puppet_lang::eval::lower::lower_file(src.clone(), &flat);
                println!(
                    "{path} {:?} {:?} {:?} {:?}",
                    parse.syntax(),
                    parse.errors(),
                    l.statements,
                    l.definitions
                );
            }
            _ => {
                eprintln!("unknown mode {mode}");
                std::process::exit(2);
            }
        }
    }
    // A number that depends on every file's result, so that no phase is optimised away.
    println!("{n}");
}
