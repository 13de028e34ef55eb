//! Lowering from the compile path's flat tree gives exactly what lowering the rowan tree
//! gives: the same IR, definitions, EPP parameters and diagnostics (codes, messages,
//! ranges), and the parses report the same syntax diagnostics.
//!
//! The compile path parses straight into `puppet_syntax::flat` (no rowan tree); tools and
//! the main manifest parse with rowan and lower `FlatParse::from_parse` of that tree. Both
//! are compared on every Puppet file of this workspace's tests, the conformance sources and
//! the installed modules (each skipped when absent), and on mutated input (broken text, so
//! error recovery too).

use proptest::prelude::*;
use puppet_eval::ir::SourceFile;
use puppet_eval::lower::{lower_expression, lower_file, LoweredFile};
use puppet_syntax::flat::FlatParse;
use puppet_syntax::Parse;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn describe(l: &LoweredFile) -> String {
    format!(
        "{:#?}\n{:#?}\n{:#?}\n{:#?}",
        l.statements, l.definitions, l.epp_params, l.diagnostics
    )
}

/// The first difference between the two lowerings of `text`, if any.
fn difference(text: &str) -> Option<String> {
    let arc: Arc<str> = Arc::from(text);
    let file = || Arc::new(SourceFile::from_arc(Some("/x/m.pp".into()), arc.clone()));
    for (name, rowan, flat) in [
        (
            "manifest",
            puppet_syntax::parse as fn(&str) -> Parse,
            puppet_syntax::flat::parse as fn(Arc<str>) -> FlatParse,
        ),
        (
            "epp",
            puppet_syntax::parse_epp,
            puppet_syntax::flat::parse_epp,
        ),
    ] {
        let parse = rowan(text);
        let from_rowan = FlatParse::from_parse(&arc, &parse);
        let direct = flat(arc.clone());
        if direct.errors() != parse.errors() {
            return Some(format!(
                "{name}: diagnostics {:?}, rowan {:?}",
                direct.errors(),
                parse.errors()
            ));
        }
        let (a, b) = (
            describe(&lower_file(file(), &direct)),
            describe(&lower_file(file(), &from_rowan)),
        );
        if a != b {
            return Some(format!("{name}: lowered\n{a}\nfrom rowan\n{b}"));
        }
    }
    let parse = puppet_syntax::parse_expression(text);
    let (a, b) = (
        lower_expression(file(), &puppet_syntax::flat::parse_expression(arc.clone())),
        lower_expression(file(), &FlatParse::from_parse(&arc, &parse)),
    );
    let (a, b) = (format!("{a:#?}"), format!("{b:#?}"));
    (a != b).then(|| format!("expression: lowered\n{a}\nfrom rowan\n{b}"))
}

fn sources_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                sources_under(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "pp" || e == "epp") {
            out.push(path);
        }
    }
}

fn check_files(files: &[PathBuf]) {
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            difference(&text).map(|d| format!("{}: {}", path.display(), &d[..d.len().min(4000)]))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn same_lowering_on_the_workspace_fixtures() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    sources_under(&crates, &mut files);
    files.sort();
    assert!(files.len() > 100, "only {} fixture files", files.len());
    check_files(&files);
}

#[test]
fn same_lowering_on_the_installed_modules() {
    let mut files = Vec::new();
    sources_under(Path::new("/usr/share/puppet/modules"), &mut files);
    if files.is_empty() {
        eprintln!("skipped: no modules installed");
        return;
    }
    files.sort();
    check_files(&files);
}

#[test]
fn same_lowering_on_the_conformance_sources() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance");
    let dir = if dir.is_dir() {
        dir
    } else {
        PathBuf::from("/work/shared/conformance")
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: no conformance directory");
        return;
    };
    let mut failures = Vec::new();
    let mut count = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let Ok(case) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            for field in ["source", "manifest"] {
                if let Some(source) = case.get(field).and_then(|s| s.as_str()) {
                    count += 1;
                    if let Some(d) = difference(source) {
                        failures.push(format!("{}:{}: {d}", path.display(), i + 1));
                    }
                }
            }
        }
    }
    eprintln!("{count} conformance sources");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pieces of Puppet that, glued at random, make broken input of every kind.
const FRAGMENTS: &[&str] = &[
    " ",
    "\n",
    "# c\n",
    "/* c */",
    "$x",
    "1",
    "0x1f",
    "2.5",
    "'s'",
    "\"a${",
    "\"b$y\"",
    "}",
    "{",
    "(",
    ")",
    "[",
    "]",
    ",",
    "=>",
    "+>",
    "=",
    "+",
    "-",
    "!",
    "->",
    "~>",
    "?",
    ":",
    ";",
    "if",
    "elsif",
    "else",
    "unless",
    "case",
    "default",
    "foo",
    "File",
    "@",
    "@@",
    "|",
    "class",
    "define",
    "function",
    "type",
    "node",
    "inherits",
    "@(E)\n",
    "@(\"E\"/L)\n",
    "E\n",
    "-E\n",
    "<%",
    "<%=",
    "%>",
    "-%>",
    ".",
    "each",
    "and",
    "in",
    "=~",
    "/r/",
    "<<| |>>",
    "<| |>",
    "notify",
    "include",
    "undef",
    "true",
    "::a::b",
    "Integer[1]",
    "*",
    "${x}",
    "\\",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn same_lowering_on_fragment_soup(
        parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..48)
    ) {
        let text: String = parts.concat();
        if let Some(d) = difference(&text) {
            return Err(TestCaseError::fail(format!("{text:?}: {d}")));
        }
    }

    /// A real file with bytes deleted, inserted or swapped: error recovery in the middle of
    /// real code.
    #[test]
    fn same_lowering_on_mutated_files(
        which in 0usize..1000,
        edits in proptest::collection::vec((0usize..100_000, 0usize..8, proptest::sample::select(FRAGMENTS)), 1..6)
    ) {
        let mut files = Vec::new();
        sources_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../puppet-syntax/test_data"), &mut files);
        files.sort();
        prop_assume!(!files.is_empty());
        let mut text = std::fs::read_to_string(&files[which % files.len()]).unwrap_or_default();
        for (at, cut, insert) in edits {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + cut).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.replace_range(at..end, insert);
        }
        if let Some(d) = difference(&text) {
            return Err(TestCaseError::fail(format!("{text:?}: {d}")));
        }
    }
}
