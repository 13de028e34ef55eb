//! Module Ruby that reads its directory environment as SIMP's compliance_markup backend does:
//! `Puppet::Settings::EnvironmentConf.load_from("#{Puppet[:environmentpath]}/#{env}", ...)`
//! (`modulepath`, `manifest`, `config_version`, `environment_timeout`, `raw_setting`, and the
//! defaults for a directory without `environment.conf`), then `Dir.glob` of a brace pattern
//! over the module directories. The environment `tests/fixtures/envconf/production` is
//! compiled as a Puppet server finds it (its environmentpath is the directory holding it) and
//! its `Notify[envconf]` compared with Puppet 7.23's (`tests/fixtures/envconf/expected.json`,
//! made by `scripts/gen-envconf-fixtures.sh`).

use puppet_lang::eval::{compile, Session, Settings};
use std::path::Path;

#[test]
fn module_ruby_reads_the_environment_conf_as_puppet() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/envconf");
    let env = Session::new()
        .environment(root.join("production"))
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(env.name(), "production");
    let out = compile(
        env.clone(),
        &Settings::agent("node.example.com", Default::default()),
    );
    let cat = out.catalog.unwrap_or_else(|e| panic!("{}", e.located()));
    let ours = &cat.resources[cat.find("Notify[envconf]").expect("Notify[envconf]")];
    let text = std::fs::read_to_string(root.join("expected.json")).expect("fixture");
    let theirs: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(ours.parameters["message"], theirs["message"]);
}
