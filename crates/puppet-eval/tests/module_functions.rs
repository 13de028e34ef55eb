//! The corpus modules' Ruby functions that have no native implementation (mysql's
//! `mysql_password`, openstacklib's `os_transport_url` and `os_database_connection`,
//! apache's password hashes, postgresql's shims, dns' `get_in_addr_arpa`, inifile's
//! `create_ini_settings`...), each called with varied arguments, errors included, and
//! compiled as `notice(String(FN(ARGS), '%p'))` with the corpus as module path: the notice or
//! error message and the warnings must be Puppet 7.23's
//! (`fixtures/module_functions/expected.json`, recorded by `gen.py` there).
//!
//! The test needs the module corpus (`/usr/share/puppet/modules`, or `$PUPPET_CORPUS`): it
//! passes without it, saying so, and leaves out the cases whose function file is not there.
//! It prints `module functions: N/M equal` and fails on any difference not listed in
//! [`KNOWN_GAPS`] (a listed case that starts to agree fails it too).

#[path = "common/recorded_calls.rs"]
mod recorded_calls;

use puppet_eval::{Session, Settings};
use recorded_calls::{observed, recorded};
use std::path::PathBuf;
use std::sync::Arc;

/// Cases (function, arguments) that differ from Puppet today, and why.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[];

fn corpus() -> PathBuf {
    std::env::var_os("PUPPET_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/puppet/modules"))
}

#[test]
fn module_functions_answer_as_puppet() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/module_functions");
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("fixture");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let root = corpus();
    if !root.is_dir() {
        eprintln!("module functions: no corpus at {}, skipped", root.display());
        return;
    }
    let env = Session::new()
        .modulepath([root.clone()])
        .code(String::new())
        .load()
        .expect("the corpus loads");
    let settings = Settings::default();
    let (mut run, mut equal) = (0usize, 0usize);
    let mut failures = Vec::new();
    let mut gaps_agreeing = Vec::new();
    for c in cases {
        let function = c["function"].as_str().unwrap_or_default();
        let args = c["args"].as_str().unwrap_or_default();
        if !root.join(c["file"].as_str().unwrap_or_default()).is_file() {
            continue;
        }
        run += 1;
        let code = format!("notice(String({function}({args}), '%p'))");
        let out = Arc::new(env.with_main_code(None, &code)).compile(&settings);
        let (got, warnings) = observed(&out);
        let (expected, expected_warnings) = recorded(c);
        let differs = got != expected || warnings != expected_warnings;
        if !differs {
            equal += 1;
        }
        let known = KNOWN_GAPS
            .iter()
            .any(|(f, a, _)| *f == function && *a == args);
        if known && !differs {
            gaps_agreeing.push(code.clone());
        }
        if differs && !known {
            failures.push(format!(
                "{code}\n  got      {got:?} {warnings:?}\n  expected {expected:?} {expected_warnings:?}"
            ));
        }
    }
    eprintln!("module functions: {equal}/{run} equal");
    assert!(
        failures.is_empty(),
        "{} of {run} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        gaps_agreeing.is_empty(),
        "known gaps that now agree (remove them from KNOWN_GAPS): {gaps_agreeing:?}"
    );
}
