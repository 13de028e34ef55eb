//! Hiera 5 backends written as module functions: the fixture environment
//! `tests/fixtures/hiera-ruby/env` has a hierarchy mixing Ruby `lookup_key` backends (options,
//! `cache`, `not_found`, `interpolate`, `explain`, with and without locations), a Ruby
//! `data_hash` backend over key=value files (`options['path']`, `cached_file_data`, a missing
//! file skipped), a Ruby `data_dig` backend, a Ruby copy of Puppet's `yaml_data`
//! (`YAML.safe_load`, `symkeys_to_string`) and an eyaml-like `lookup_key` (`YAML.load_file`,
//! cache), a `uri` entry, a `glob` entry, `yaml_data` with `lookup_options`, a backend that
//! raises, and module layers with a Ruby `lookup_key` (`module_name`, `cache_all`,
//! `cached_entries`), a `data_hash` that answers a string, a function that does not exist, and
//! backends written in the Puppet language: a `data_hash`, a `lookup_key` using its
//! `Puppet::LookupContext` (names, cache, `cached_entries`, `explain`, `not_found`) and a
//! `data_dig`.
//!
//! Every key of `tests/fixtures/hiera-ruby/keys.txt` is looked up as `puppet lookup` does
//! (value and exit status, and the `--explain` text), the environment's `site.pp` (automatic
//! parameter lookup of class `rbdata` through the backends) is compiled, and so is
//! `env-boom`'s (a lookup the backend raises an error for); all are compared with Puppet
//! 7.23's answers in `tests/fixtures/hiera-ruby/expected.json`, made by
//! `scripts/gen-hiera-ruby-fixtures.sh`. [`KNOWN_GAPS`] lists what still differs, with why;
//! a listed case that starts to agree fails the test too.

mod support;

use puppet_lang::eval::hiera::{puppet_lookup, LookupCommand};
use puppet_lang::eval::{compile, Environment, Session, Settings};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Keys (with their merge) that still differ from Puppet, and why.
const KNOWN_GAPS: &[(&str, Option<&str>, &str)] = &[];

/// Keys whose value agrees with Puppet's but whose `--explain` text does not, and why (a
/// listed key whose explanation starts to agree fails the test too).
const EXPLAIN_GAPS: &[(&str, &str)] = &[
    ("call::upcase", NESTED_EXPLAIN),
    ("call::default", NESTED_EXPLAIN),
    ("call::nested", NESTED_EXPLAIN),
    ("call::recursive", NESTED_EXPLAIN),
    ("call::missing", NESTED_EXPLAIN),
];

const NESTED_EXPLAIN: &str = "a lookup that a backend function makes through call_function('lookup') is not explained: Puppet nests its whole search under the backend's hierarchy entry";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hiera-ruby")
}

fn environment(dir: &str) -> Arc<Environment> {
    // The oracle makes the directory the environment `production`.
    Session::new()
        .environment(fixtures().join(dir))
        .environment_name("production")
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"))
}

fn expected() -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join("expected.json")).expect("fixture");
    serde_json::from_str(&text).expect("json")
}

fn settings(env: &Environment, node: &str) -> Settings {
    support::agent_settings(node, &fixtures().join(format!("env/facts/{node}.json")))
        .with_environment(env.name())
}

#[test]
fn lookups_through_ruby_backends_answer_as_puppet() {
    let env = environment("env");
    let env_dir = fixtures().join("env").to_string_lossy().into_owned();
    let fixture = expected();
    let node = fixture["node"].as_str().unwrap();
    let settings = settings(&env, node);
    let mut failures = Vec::new();
    let mut agreeing_gaps = Vec::new();
    let mut equal = 0;
    let mut explained = 0;
    let lookups = fixture["lookups"].as_array().unwrap();
    for case in lookups {
        let key = case["key"].as_str().unwrap();
        let merge = case["merge"].as_str();
        let what = format!("{key} {merge:?}");
        let command = |explain| LookupCommand {
            key: key.to_string(),
            merge: merge.map(str::to_string),
            explain,
            ..Default::default()
        };
        let mut differs = Vec::new();

        // `puppet lookup KEY`: the value's YAML and the exit status; an error Puppet does
        // not turn into a lookup error is printed as `Error: Could not run: ...`.
        let out = puppet_lookup(&env, &settings, &command(false));
        let theirs = (
            case["value"].as_str().unwrap().to_string(),
            case["status"].as_u64().unwrap() as u8,
            case["error"].as_str().map(str::to_string),
        );
        let lookup_error = out.error.filter(|_| theirs.2.is_some() || out.status != 1);
        let ours = (out.stdout, out.status, lookup_error);
        if ours == theirs {
            equal += 1;
        } else {
            differs.push(format!("value: ours {ours:?}, Puppet's {theirs:?}"));
        }

        // `puppet lookup --explain KEY` (an error that is not a lookup error ends Puppet's
        // explanation without a text: the fixture has the error alone).
        if case["explain_error"].is_null() {
            let out = puppet_lookup(&env, &settings, &command(true));
            let ours = out.stdout.replace(&env_dir, "<environment>");
            let theirs = case["explain"].as_str().unwrap();
            let gap = EXPLAIN_GAPS.iter().any(|(k, _)| *k == key);
            if ours == theirs && gap {
                differs.push(format!(
                    "explanation agrees now: remove {key} from EXPLAIN_GAPS"
                ));
            } else if ours == theirs || gap {
                explained += usize::from(ours == theirs);
            } else {
                let line = ours
                    .lines()
                    .zip(theirs.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(ours.lines().count().min(theirs.lines().count()));
                let context = |t: &str| {
                    t.lines()
                        .skip(line.saturating_sub(3))
                        .take(8)
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                differs.push(format!(
                    "explanation differs at line {}\n--- ours\n{}\n--- Puppet's\n{}",
                    line + 1,
                    context(&ours),
                    context(theirs)
                ));
            }
        } else {
            explained += 1;
        }

        let known = KNOWN_GAPS.iter().any(|(k, m, _)| *k == key && *m == merge);
        match (known, differs.is_empty()) {
            (true, true) => agreeing_gaps.push(what),
            (false, false) => failures.push(format!("{what}:\n{}", differs.join("\n"))),
            _ => {}
        }
    }
    println!(
        "hiera-ruby: {equal}/{} keys equal, {explained}/{} explanations equal",
        lookups.len(),
        lookups.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} keys differ:\n\n{}",
        failures.len(),
        lookups.len(),
        failures.join("\n\n")
    );
    assert!(
        agreeing_gaps.is_empty(),
        "known gaps that now agree (remove them from KNOWN_GAPS): {agreeing_gaps:?}"
    );
    assert!(lookups.len() >= 30);
}

#[test]
fn automatic_parameter_lookup_through_ruby_backends_compiles_as_puppet() {
    let env = environment("env");
    let fixture = expected();
    let node = fixture["node"].as_str().unwrap();
    let out = compile(env.clone(), &settings(&env, node));
    let cat = out.catalog.unwrap_or_else(|e| panic!("{}", e.located()));
    let theirs = &fixture["catalog"];
    support::assert_canonical_eq(&cat, theirs);
    // Notices (the class's values) and warnings (one logged by a Ruby backend).
    let logs: Vec<(&str, &str)> = out
        .logs
        .iter()
        .filter(|l| l.level >= puppet_lang::functions::LogLevel::Notice)
        .map(|l| (l.level.name(), l.message.as_str()))
        .collect();
    let expected: Vec<(&str, &str)> = theirs["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["level"].as_str().unwrap(), l["message"].as_str().unwrap()))
        .collect();
    assert_eq!(logs, expected);
    assert!(expected.iter().any(|(level, _)| *level == "warning"));
}

#[test]
fn an_error_raised_in_a_ruby_backend_fails_the_compile_as_in_puppet() {
    let env = environment("env-boom");
    let fixture = expected();
    let node = fixture["node"].as_str().unwrap();
    let out = compile(env.clone(), &settings(&env, node));
    let err = out.catalog.expect_err("the backend raises");
    let env_dir = fixtures().join("env-boom").to_string_lossy().into_owned();
    let ours = format!("{} on node {node}", err.located()).replace(&env_dir, "<environment>");
    let theirs = fixture["catalog_boom"]["error"].as_str().unwrap();
    assert_eq!(
        Some(ours.as_str()),
        theirs.strip_prefix("Evaluation Error: ")
    );
}
