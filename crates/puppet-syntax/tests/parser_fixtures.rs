//! Data-driven parser tests: every `test_data/{parser,epp}/{ok,err}/NNNN_name.{pp,epp}` is
//! parsed and its tree and diagnostics are compared with the `.rast` snapshot next to it.
//!
//! `ok` cases must parse without any diagnostic, `err` cases must produce at least one error
//! (and still a tree holding every byte). All mismatches are reported at once, with file names.
//! Run with `UPDATE_EXPECT=1` to (re)write the snapshots instead of comparing them. This is not
//! a test of the validation pass or of evaluation: only the syntax tree and syntax errors.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use puppet_syntax::{Parse, Severity};

/// Renders a parse as a snapshot: the debug tree, then one line per diagnostic.
fn render(parse: &Parse) -> String {
    let mut out = parse.debug_tree();
    if !parse.errors().is_empty() {
        out.push_str("errors:\n");
    }
    for e in parse.errors() {
        let severity = match e.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(
            out,
            "  {severity}[{}]@{:?}: {}",
            e.code,
            e.range.unwrap_or_default(),
            e.message
        );
    }
    out
}

fn test_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data")
}

/// The source files of one fixture directory, sorted by name.
fn sources(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
        .collect();
    files.sort();
    files
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Ok,
    Err,
}

/// Checks every fixture of `dir`, returning one message per failure.
fn check_dir(dir: &str, ext: &str, expect: Expect, parse: fn(&str) -> Parse) -> Vec<String> {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let dir = test_data().join(dir);
    let files = sources(&dir, ext);
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for file in files {
        let name = file
            .strip_prefix(test_data())
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let parsed = parse(&text);
        if parsed.syntax().to_string() != text {
            failures.push(format!(
                "{name}: the tree does not round-trip to the source"
            ));
        }
        match expect {
            Expect::Ok if !parsed.errors().is_empty() => failures.push(format!(
                "{name}: expected no diagnostics, got {:#?}",
                parsed.errors()
            )),
            Expect::Err if parsed.is_ok() => {
                failures.push(format!("{name}: expected at least one error, got none"))
            }
            _ => {}
        }
        let actual = render(&parsed);
        let snapshot = file.with_extension("rast");
        if update {
            if std::fs::read_to_string(&snapshot).ok().as_deref() != Some(actual.as_str()) {
                std::fs::write(&snapshot, &actual).unwrap();
                eprintln!("updated {}", snapshot.display());
            }
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{name}: snapshot mismatch (UPDATE_EXPECT=1 to update)\n{}",
                first_difference(&expected, &actual)
            )),
            Err(_) => failures.push(format!(
                "{name}: missing snapshot {} (UPDATE_EXPECT=1 to create)",
                snapshot.display()
            )),
        }
    }
    failures
}

/// The first differing line of two snapshots, with a little context.
fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let i = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    format!(
        "  line {}:\n  - expected: {}\n  + actual:   {}",
        i + 1,
        e.get(i).unwrap_or(&"<end>"),
        a.get(i).unwrap_or(&"<end>")
    )
}

fn report(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} fixture failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn parser_ok() {
    report(check_dir(
        "parser/ok",
        "pp",
        Expect::Ok,
        puppet_syntax::parse,
    ));
}

#[test]
fn parser_err() {
    report(check_dir(
        "parser/err",
        "pp",
        Expect::Err,
        puppet_syntax::parse,
    ));
}

#[test]
fn epp_ok() {
    report(check_dir(
        "epp/ok",
        "epp",
        Expect::Ok,
        puppet_syntax::parse_epp,
    ));
}

#[test]
fn epp_err() {
    report(check_dir(
        "epp/err",
        "epp",
        Expect::Err,
        puppet_syntax::parse_epp,
    ));
}
