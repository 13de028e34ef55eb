//! What a compile may do on the compiling host, only when asked: `generate()` runs its
//! command with `Settings::allow_exec` (`compile --allow-exec`), and functions read files by
//! absolute path outside the environment with `Settings::allow_host_files`
//! (`--allow-host-files`). Without them the call fails with a clear error.
//!
//! Puppet 7.23's answers are in `tests/fixtures/host-access` (made by
//! `scripts/gen-host-access-fixtures.sh`): the catalog of a module whose content comes from
//! `/bin/echo` and `/bin/sh`, and Puppet's error for each failing `generate()` call of
//! `errors.txt` (relative paths, bad characters, `..`, a failing command, a missing one).

mod support;

use puppet_lang::eval::Settings;
use puppet_lang::Session;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host-access")
}

fn generated(allow_exec: bool) -> Result<puppet_lang::graph::Catalog, String> {
    let env = Session::new()
        .modulepath([fixtures().join("modules")])
        .code("include generated")
        .load()
        .unwrap();
    let settings = Settings {
        allow_exec,
        ..Settings::agent("gen01.example.com", Default::default())
    };
    env.compile(&settings).catalog.map_err(|e| e.located())
}

#[test]
fn generate_runs_commands_only_when_allowed() {
    let refused = generated(false).unwrap_err();
    assert!(
        refused.starts_with("Error while evaluating a Function Call, generate() would run /bin/echo on the compiling host; commands run only when allowed"),
        "{refused}"
    );
    let catalog = generated(true).unwrap();
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("catalog.json")).unwrap())
            .unwrap();
    support::assert_canonical_eq(&catalog, &fixture);
    assert_eq!(
        catalog.resources[catalog.find("Notify[combined]").unwrap()].parameters["message"],
        "out\nerr\n1 true\n"
    );
}

#[test]
fn generate_errors_are_puppets() {
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("errors.json")).unwrap())
            .unwrap();
    assert!(cases.len() >= 8);
    for case in cases {
        let code = case["code"].as_str().unwrap();
        let theirs = case["error"].as_str().unwrap();
        let theirs = theirs
            .strip_prefix("Evaluation Error: ")
            .and_then(|t| t.strip_suffix(" on node node.example.com"))
            .unwrap_or(theirs);
        let env = Session::new().code(code).load().unwrap();
        let settings = Settings {
            allow_exec: true,
            ..Settings::agent("node.example.com", Default::default())
        };
        let ours = env.compile(&settings).catalog.unwrap_err().located();
        assert_eq!(ours, theirs, "{code}");
    }
}

#[test]
fn host_files_are_read_only_when_allowed() {
    let dir = std::env::temp_dir().join(format!("puppet-rs-host-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("motd.txt");
    let yaml = dir.join("data.yaml");
    std::fs::write(&file, "managed by puppet\n").unwrap();
    std::fs::write(&yaml, "role: web\n").unwrap();
    // stdlib's loadyaml, implemented natively when a stdlib module defines it.
    let functions = dir.join("modules/stdlib/lib/puppet/parser/functions");
    std::fs::create_dir_all(&functions).unwrap();
    std::fs::write(functions.join("loadyaml.rb"), "").unwrap();
    let code = format!(
        "notify {{ 'file': message => file('{}') }}\nnotify {{ 'yaml': message => loadyaml('{}')['role'] }}",
        file.display(),
        yaml.display()
    );
    let env = Session::new()
        .modulepath([dir.join("modules")])
        .code(&code)
        // The empty loadyaml.rb stands in for stdlib's; its native reads the file.
        .natives_for_any_version(true)
        .load()
        .unwrap();
    let compile = |allow_host_files| {
        env.compile(&Settings {
            allow_host_files,
            ..Settings::agent("node.example.com", Default::default())
        })
        .catalog
    };
    let refused = compile(false).unwrap_err().located();
    let read = compile(true);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        refused.contains(&format!("Could not find any files from {}", file.display())),
        "{refused}"
    );
    let catalog = read.unwrap_or_else(|e| panic!("{}", e.located()));
    assert_eq!(
        catalog.resources[catalog.find("Notify[file]").unwrap()].parameters["message"],
        "managed by puppet\n"
    );
    assert_eq!(
        catalog.resources[catalog.find("Notify[yaml]").unwrap()].parameters["message"],
        "web"
    );
}
