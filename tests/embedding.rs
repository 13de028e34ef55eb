//! The library as an embedder sees it, through the facade only: parse and walk a file,
//! compile an environment held in memory with a function of one's own, order a catalog and
//! print a cycle report, and get every failure back as a diagnostic with a code and a
//! location (never an empty catalog).

use puppet_lang::eval::codes;
use puppet_lang::functions::Signature;
use puppet_lang::graph::{CycleLimits, Graph};
use puppet_lang::loader::MemoryProvider;
use puppet_lang::syntax::ast::{self, AstNode};
use puppet_lang::types::Value;
use puppet_lang::{Diagnostic, Session, Settings};

fn node() -> Settings {
    Settings::agent("web01.example.com", Default::default())
}

#[test]
fn parse_and_walk_a_file() {
    let text = "class a { notify { 'x': } }\nclass b inherits a { }\ninclude b\n";
    let parse = puppet_lang::syntax::parse(text);
    assert!(parse.errors().is_empty());
    let file = ast::SourceFile::cast(parse.syntax()).unwrap();
    let classes: Vec<String> = file
        .syntax()
        .descendants()
        .filter_map(ast::ClassDef::cast)
        .map(|c| c.name())
        .collect();
    assert_eq!(classes, ["a", "b"]);
    // Broken input still gives the whole text back, and a located diagnostic.
    let broken = puppet_lang::syntax::parse("class a {\n  notify { 'x': \n");
    assert_eq!(broken.syntax().to_string(), "class a {\n  notify { 'x': \n");
    let d = broken.errors()[0]
        .clone()
        .with_file("a.pp")
        .with_source("class a {\n  notify { 'x': \n");
    assert_eq!(d.code, "SYNTAX_ERROR");
    assert!(d.to_string().starts_with("a.pp:"), "{d}");
}

#[test]
fn compile_in_memory_with_a_custom_function() {
    let files = MemoryProvider::new()
        .with_file("/env/manifests/site.pp", "node default { include web }")
        .with_file(
            "/env/modules/web/manifests/init.pp",
            "class web($port = lookup('web::port')) {\n  file { '/etc/web.conf': content => shout(\"port=${port}\") }\n}\n",
        )
        .with_file(
            "/env/modules/web/hiera.yaml",
            "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
        )
        .with_file("/env/modules/web/data/common.yaml", "web::port: 8080\n")
        .with_file("/env/modules/db/manifests/init.pp", "class db { }");
    let env = Session::new()
        .files(files)
        .modulepath(["/env/modules"])
        .manifest("/env/manifests/site.pp")
        .functions(|reg| {
            reg.function("shout")
                .dispatch(Signature::new().param("String", "s"), |_, args| {
                    Ok(Value::string(args.get(0).to_plain_string().to_uppercase()))
                })
                .register()
                .unwrap();
        })
        .load()
        .unwrap();
    let (catalog, diagnostics) = env.compile(&node()).into_parts();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let catalog = catalog.unwrap();
    let conf = &catalog.resources[catalog.find("File[/etc/web.conf]").unwrap()];
    assert_eq!(conf.parameters["content"], "PORT=8080");
    // Only what the compile needed was read: the db module never was.
    assert!(env.loader().loaded_files() <= 2);
}

#[test]
fn order_and_print_a_cycle_report() {
    let env = Session::new()
        .code("notify { 'a': before => Notify['b'] }\nnotify { 'b': before => Notify['a'] }\nnotify { 'c': }\n")
        .load()
        .unwrap();
    let catalog = env.compile(&node()).catalog.unwrap();
    let graph = Graph::build(&catalog).unwrap();
    let report = graph.cycles(CycleLimits::default());
    let text = format!("{report}");
    assert!(
        text.starts_with("1 dependency cycle in 1 component"),
        "{text}"
    );
    assert!(
        text.contains("(Notify[a] => Notify[b] => Notify[a])"),
        "{text}"
    );
    let diagnostics = report.diagnostics();
    assert_eq!(diagnostics[0].code, "GRAPH_DEPENDENCY_CYCLE");
    // Without the cycle, the order is the catalog's.
    let env = Session::new()
        .code("notify { 'b': require => Notify['a'] }\nnotify { 'a': }\n")
        .load()
        .unwrap();
    let catalog = env.compile(&node()).catalog.unwrap();
    let graph = Graph::build(&catalog).unwrap();
    let order: Vec<String> = graph
        .order()
        .unwrap()
        .into_iter()
        .map(|id| catalog.resources[id.index()].reference())
        .filter(|r| r.starts_with("Notify"))
        .collect();
    assert_eq!(order, ["Notify[a]", "Notify[b]"]);
    assert_eq!(
        format!("{}", graph.cycles(CycleLimits::default())),
        "no dependency cycles"
    );
}

/// Every failure is a diagnostic with a code and a location.
#[test]
fn failures_come_back_as_located_diagnostics() {
    // A main manifest that does not exist: the environment does not load.
    let missing: Vec<Diagnostic> = Session::new()
        .files(MemoryProvider::new())
        .manifest("/env/manifests/sitee.pp")
        .load()
        .unwrap_err();
    assert_eq!(missing[0].code, "SESSION_MANIFEST_NOT_FOUND");
    assert_eq!(missing[0].file.as_deref(), Some("/env/manifests/sitee.pp"));

    let files = MemoryProvider::new()
        .with_file("/env/site.pp", "include broken\n")
        .with_file("/env/unknown.pp", "include nowhere\n")
        .with_file(
            "/env/modules/broken/manifests/init.pp",
            "class broken {\n  notify { 'x':\n}\n",
        );
    let load = |manifest: &str| {
        Session::new()
            .files(files.clone())
            .modulepath(["/env/modules"])
            .manifest(manifest)
            .load()
            .unwrap()
    };
    // A syntax error in a module.
    let out = load("/env/site.pp").compile(&node());
    assert!(out.catalog.is_err());
    let d = out.diagnostics().pop().unwrap();
    assert_eq!(d.code, "SYNTAX_ERROR");
    assert!(
        d.message.contains("/env/modules/broken/manifests/init.pp"),
        "{}",
        d.message
    );
    // An unknown class.
    let out = load("/env/unknown.pp").compile(&node());
    let d = out.diagnostics().pop().unwrap();
    assert_eq!(d.code, codes::UNKNOWN_CLASS);
    assert_eq!(d.file.as_deref(), Some("/env/unknown.pp"));
    assert_eq!(d.location.map(|l| l.line), Some(1));
    assert!(
        d.render(None)
            .starts_with("/env/unknown.pp:1:1: error[UNKNOWN_CLASS]: Evaluation Error: Error while evaluating a Function Call, Could not find class ::nowhere"),
        "{}",
        d.render(None)
    );
}
