//! Compares `puppet_syntax::dump::dump` with the `.dump` files next to each `.pp` input in
//! `tests/dump/`, which real Puppet 7.23 produced (`scripts/gen-dump-fixtures.sh`). Runs
//! without Puppet; reports every mismatching file, not just the first.

use std::path::Path;

#[test]
fn dumps_match_puppet() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dump");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/dump exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pp"))
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for pp in &entries {
        let source = std::fs::read_to_string(pp).expect("readable input");
        let expected = std::fs::read_to_string(pp.with_extension("dump")).unwrap_or_default();
        let parse = puppet_syntax::parse(&source);
        let errors: Vec<_> = parse
            .errors()
            .iter()
            .filter(|d| d.severity == puppet_syntax::Severity::Error)
            .collect();
        // The oracle prints the dump followed by a newline.
        let ours = format!("{}\n", puppet_syntax::dump::dump(&parse));
        if !errors.is_empty() {
            failures.push(format!(
                "{}: syntax error: {}",
                pp.display(),
                errors[0].message
            ));
        } else if ours != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- ours\n{ours}",
                pp.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} dumps differ:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

/// Every prefix of every fixture (broken input of all shapes) dumps without panicking,
/// as a manifest and as a template.
#[test]
fn dump_never_panics_on_prefixes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dump");
    for entry in std::fs::read_dir(&dir)
        .expect("tests/dump exists")
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pp") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable input");
        for (i, _) in source.char_indices() {
            let prefix = &source[..i];
            let _ = puppet_syntax::dump::dump(&puppet_syntax::parse(prefix));
            let _ = puppet_syntax::dump::dump(&puppet_syntax::parse_epp(prefix));
        }
    }
}
