//! Compiling the bundled example environment `examples/env` in process: its modules (ERB and
//! EPP templates, a defined type, virtual resources and a collector, a type alias, a
//! Puppet-language function), the whole environment for `web01.example.com` compared with
//! Puppet 7.23's catalog (`tests/fixtures/catalogs/example-env.json`), and RFC 1: a compile
//! does not depend on the compiles made before it with the same environment.

mod support;

use puppet_lang::eval::{compile, Environment, Session, Settings};
use puppet_lang::graph::Catalog;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn env_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/env")
}

/// The settings `examples/compile` uses for a node of the example environment.
fn settings(node: &str) -> Settings {
    support::agent_settings(node, &env_dir().join("facts/web01.example.com.json"))
}

/// The environment's modules with `code` as the main manifest.
fn with_modules(code: &str) -> Arc<Environment> {
    Session::new()
        .modulepath([env_dir().join("modules")])
        .manifest_text("site.pp", code)
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"))
}

/// The whole environment: its modules and `manifests/site.pp`.
fn example_env() -> Arc<Environment> {
    let env = Session::new()
        .modulepath([env_dir().join("modules")])
        .manifest(env_dir().join("manifests/site.pp"))
        .environment_dir(env_dir())
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    assert!(env.hiera().is_some(), "examples/env's hiera.yaml");
    env
}

fn param<'a>(cat: &'a Catalog, reference: &str, name: &str) -> &'a serde_json::Value {
    let i = cat
        .find(reference)
        .unwrap_or_else(|| panic!("{reference} is not in the catalog"));
    &cat.resources[i].parameters[name]
}

/// What Puppet 7.23 compiles for the same code (checked with the oracle's `compile-catalog`).
#[test]
fn modules_of_the_example_environment() {
    let code = "include ntp_lite\n\
        class { 'motd': banner => 'Welcome', style => 'long', notes => ['backups at 02:00'], role => 'web' }\n\
        webapp::site { 'status': server_name => 'status.example.com', port => 8081, access_log => false, allow_from => ['127.0.0.1'] }\n";
    let out = compile(with_modules(code), &settings("web01.example.com"));
    let cat = out.catalog.unwrap_or_else(|e| panic!("{}", e.located()));
    let refs: Vec<String> = cat.resources.iter().map(|r| r.reference()).collect();
    assert_eq!(refs.len(), 24, "{refs:?}");
    for r in [
        "Class[Ntp_lite::Service]",
        "Service[ntp]",
        "Package[nginx]",
        "User[webapp]",
        "Group[webapp]",
        "Webapp::Site[status]",
        "File[/etc/nginx/sites-enabled/status.conf]",
    ] {
        assert!(refs.iter().any(|x| x == r), "{r} missing from {refs:?}");
    }
    assert_eq!(
        param(&cat, "File[/etc/motd]", "content"),
        "Welcome\n\n  Host:    web01.example.com\n  Role:    web\n  System:  Debian GNU/Linux 12 (bookworm), kernel 6.1.0-37-amd64\n  CPUs:    2, memory 4.00 GiB\n\n  * backups at 02:00\n"
    );
    assert_eq!(
        param(&cat, "File[/etc/nginx/sites-available/status.conf]", "content"),
        "# Managed by Puppet: site status\nserver {\n    listen 8081;\n    server_name status.example.com;\n    root /srv/www/status;\n\n    access_log off;\n\n    allow 127.0.0.1;\n    deny all;\n}\n"
    );
    assert_eq!(
        param(
            &cat,
            "File[/etc/nginx/sites-available/status.conf]",
            "notify"
        ),
        &serde_json::json!(["Service[nginx]"])
    );
    assert_eq!(
        param(&cat, "File[/etc/ntp.conf]", "content"),
        "# Managed by Puppet: local changes will be overwritten.\nserver 0.pool.ntp.org iburst\nserver 1.pool.ntp.org iburst\n"
    );
}

/// `examples/env` for `web01.example.com` has the resources of Puppet's catalog.
#[test]
fn whole_environment_as_puppet_compiles_it() {
    let out = compile(example_env(), &settings("web01.example.com"));
    let cat = match out.catalog {
        Ok(c) => c,
        Err(e) => panic!("{}", e.located()),
    };
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogs/example-env.json"),
        )
        .unwrap(),
    )
    .unwrap();
    support::assert_canonical_eq(&cat, &fixture);
}

/// RFC 1: compiling node A then node B with one environment gives B the catalog it gets
/// alone.
#[test]
fn compiles_are_isolated() {
    let code = "node 'a.example.com' {\n\
          include ntp_lite\n\
          webapp::site { 'a': port => 8080 }\n\
          File <| tag == 'webapp_vhost' |> { mode => '0600' }\n\
        }\n\
        node default {\n\
          class { 'ntp_lite': servers => ['ntp.example.com'], enable => false }\n\
          class { 'motd': banner => \"Node ${trusted['certname']}\", style => 'short', notes => [] }\n\
          webapp::site { 'b': aliases => ['www.b.example.com'] }\n\
        }\n";
    let env = with_modules(code);
    let node = |name: &str| {
        compile(env.clone(), &settings(name))
            .catalog
            .unwrap_or_else(|e| panic!("{}", e.located()))
    };
    let alone = node("b.example.com");
    assert!(alone.find("Webapp::Site[b]").is_some());
    assert!(node("a.example.com").find("Webapp::Site[a]").is_some());
    assert_eq!(node("b.example.com").to_json(), alone.to_json());

    // The same with the whole example environment, when it compiles (it needs Hiera).
    let env = example_env();
    let Ok(alone) = compile(env.clone(), &settings("web02.example.com")).catalog else {
        return;
    };
    compile(env.clone(), &settings("web01.example.com"))
        .catalog
        .unwrap_or_else(|e| panic!("{}", e.located()));
    let after = compile(env, &settings("web02.example.com"))
        .catalog
        .unwrap_or_else(|e| panic!("{}", e.located()));
    assert_eq!(after.to_json(), alone.to_json());
}

/// An external node classifier's answer: classes with parameters are declared resource-like,
/// classes without are included (both after the node definition), parameters are top-scope
/// variables.
#[test]
fn enc_classes_and_parameters() {
    let enc = puppet_lang::hiera::yaml::load(
        "classes:\n  ntp_lite::install:\n  ntp_lite:\n    servers: [a.example.com]\nparameters:\n  role: db\n",
    )
    .unwrap()
    .unwrap();
    let settings = settings("web01.example.com").with_enc(&enc).unwrap();
    let out = compile(
        with_modules("notify { 'role': message => $role }\n"),
        &settings,
    );
    let cat = out.catalog.unwrap_or_else(|e| panic!("{}", e.located()));
    assert_eq!(param(&cat, "Notify[role]", "message"), "db");
    assert_eq!(
        param(&cat, "Class[Ntp_lite]", "servers"),
        &serde_json::json!(["a.example.com"])
    );
    assert!(cat.find("Class[Ntp_lite::Install]").is_some());
    assert!(cat.classes.contains(&"ntp_lite::install".to_string()));
}
