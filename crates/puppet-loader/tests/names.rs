//! Table tests for the name rules: name -> manifest, function and type alias files, the
//! autoload search order, file -> namespace, and Puppet 3's relative candidates.

use puppet_loader::names::*;
use std::path::PathBuf;

fn module(m: &str) -> Owner {
    Owner::Module(m.into())
}

#[test]
fn manifest_table() {
    let table: &[(&str, Option<(&str, &str)>)] = &[
        ("apache", Some(("apache", "manifests/init.pp"))),
        ("apache::mod", Some(("apache", "manifests/mod.pp"))),
        (
            "apache::mod::passenger",
            Some(("apache", "manifests/mod/passenger.pp")),
        ),
        (
            "Apache::Mod::Passenger",
            Some(("apache", "manifests/mod/passenger.pp")),
        ),
        ("::apache::mod", Some(("apache", "manifests/mod.pp"))),
        ("::Apache", Some(("apache", "manifests/init.pp"))),
        ("a::b::c::d", Some(("a", "manifests/b/c/d.pp"))),
        ("apache::init", Some(("apache", "manifests/init.pp"))),
        ("", None),
        ("::", None),
        ("apache::", None),
        ("apache::::mod", None),
        ("1apache", None),
        ("apache::../etc", None),
        ("apache/mod", None),
        ("apache-mod", None),
    ];
    for (name, want) in table {
        let got = manifest_path(name).map(|p| (p.owner, p.path));
        let want = want.map(|(m, p)| (module(m), PathBuf::from(p)));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn autoload_order_is_general_to_specific() {
    let table: &[(&str, &[&str])] = &[
        ("apache", &["manifests/init.pp"]),
        ("apache::mod", &["manifests/init.pp", "manifests/mod.pp"]),
        (
            "Apache::Mod::Passenger",
            &[
                "manifests/init.pp",
                "manifests/mod.pp",
                "manifests/mod/passenger.pp",
            ],
        ),
        ("bad name", &[]),
    ];
    for (name, want) in table {
        let got: Vec<PathBuf> = autoload_candidates(name)
            .into_iter()
            .map(|p| p.path)
            .collect();
        let want: Vec<PathBuf> = want.iter().map(PathBuf::from).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn function_table() {
    let table: &[(&str, Option<(Owner, &str)>)] = &[
        (
            "apache::bool2httpd",
            Some((module("apache"), "functions/bool2httpd.pp")),
        ),
        (
            "Apache::Bool2httpd",
            Some((module("apache"), "functions/bool2httpd.pp")),
        ),
        (
            "::stdlib::ensure",
            Some((module("stdlib"), "functions/ensure.pp")),
        ),
        ("stdlib::a::b", Some((module("stdlib"), "functions/a/b.pp"))),
        // The environment's loader is global: whole names (Puppet 7.23 finds
        // `environment::hello` in functions/environment/hello.pp, not functions/hello.pp,
        // which holds the global `hello`).
        (
            "environment::hello",
            Some((Owner::Environment, "functions/environment/hello.pp")),
        ),
        (
            "environment::x::y",
            Some((Owner::Environment, "functions/environment/x/y.pp")),
        ),
        ("hello", Some((Owner::Environment, "functions/hello.pp"))),
        ("stdlib::", None),
    ];
    for (name, want) in table {
        let got = function_path(name).map(|p| (p.owner, p.path));
        let want = want.clone().map(|(o, p)| (o, PathBuf::from(p)));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn type_alias_table() {
    let table: &[(&str, Option<(Owner, &str)>)] = &[
        (
            "Apache::LogLevel",
            Some((module("apache"), "types/loglevel.pp")),
        ),
        (
            "Stdlib::Compat::Re",
            Some((module("stdlib"), "types/compat/re.pp")),
        ),
        ("::Stdlib::Port", Some((module("stdlib"), "types/port.pp"))),
        ("MyType", Some((Owner::Environment, "types/mytype.pp"))),
        // Where Puppet 7.23's global environment loader looks (it finds the file there,
        // though it then fails to resolve the alias).
        (
            "Environment::Thing",
            Some((Owner::Environment, "types/environment/thing.pp")),
        ),
        ("Bad-Name", None),
    ];
    for (name, want) in table {
        let got = type_alias_path(name).map(|p| (p.owner, p.path));
        let want = want.clone().map(|(o, p)| (o, PathBuf::from(p)));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn file_namespace_table() {
    use FileNamespace::*;
    let table: &[(&str, FileNamespace)] = &[
        ("apache/manifests/init.pp", Namespace("apache".into())),
        ("apache/manifests/mod.pp", Namespace("apache::mod".into())),
        (
            "apache/manifests/mod/passenger.pp",
            Namespace("apache::mod::passenger".into()),
        ),
        ("Apache/Manifests/Mod.PP", Namespace("apache::mod".into())),
        (
            "apache/manifests/mod/init.pp",
            Namespace("apache::mod::init".into()),
        ),
        (
            "apache/functions/bool2httpd.pp",
            Namespace("apache::bool2httpd".into()),
        ),
        (
            "apache/types/loglevel.pp",
            Namespace("apache::loglevel".into()),
        ),
        ("apache/plans/deploy.pp", Namespace("apache::deploy".into())),
        ("apache/examples/init.pp", BadModuleFile),
        ("apache/tests/init.pp", BadModuleFile),
        ("apache/init.pp", BadModuleFile),
        ("site.pp", BadModuleFile),
        ("apache/manifests/README.md", Free),
        ("apache/manifests/pp", Free),
        ("apache/manifests/p", Free),
        ("apache/manifests/\u{e9}pp", Free),
        ("apache/manifests/x.Pp", Namespace("apache::x".into())),
    ];
    for (path, want) in table {
        let parts: Vec<&str> = path.split('/').collect();
        assert_eq!(&namespace_for_relative_path(&parts), want, "{path}");
    }
}

#[test]
fn relative_lookup_table() {
    let table: &[(&str, &str, &[&str])] = &[
        ("", "foo", &["foo"]),
        ("a", "foo", &["a::foo", "foo"]),
        ("a::b", "foo", &["a::b::foo", "a::foo", "foo"]),
        ("a::b", "c::d", &["a::b::c::d", "a::c::d", "c::d"]),
        ("a::b", "::foo", &["foo"]),
        ("A::B", "Foo", &["a::b::foo", "a::foo", "foo"]),
    ];
    for (ns, name, want) in table {
        assert_eq!(&relative_candidates(ns, name), want, "{ns} / {name}");
    }
}

#[test]
fn module_names() {
    for ok in ["a", "apache", "cron_core", "a1"] {
        assert!(is_valid_module_name(ok), "{ok}");
    }
    for bad in ["", "1a", "Apache", "saz-rsyslog", "a.b", "_a"] {
        assert!(!is_valid_module_name(bad), "{bad}");
    }
}
