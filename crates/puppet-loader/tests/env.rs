//! Environment behaviour on in-memory trees (and one small real directory): module
//! discovery, metadata, precedence, main manifest, environment functions, snapshots,
//! location diagnostics, path refusal, thread-safety.

use puppet_loader::*;
use std::path::Path;

fn env_of(p: &MemoryProvider, modulepath: &[&str]) -> Index {
    Index::load(
        &EnvironmentConfig::with_modulepath(modulepath.iter().copied()),
        std::sync::Arc::new(p.clone()),
    )
}

fn codes(env: &Index) -> Vec<&str> {
    env.all_diagnostics().map(|d| d.code.as_ref()).collect()
}

#[test]
fn module_discovery_first_wins_and_bad_names_are_diagnostics() {
    let p = MemoryProvider::new()
        .with_file("/a/ntp/manifests/init.pp", "class ntp { }")
        .with_file("/b/ntp/manifests/init.pp", "class ntp { $x = 1 }")
        .with_file("/b/saz-rsyslog/manifests/init.pp", "class rsyslog { }")
        .with_file("/b/Upper/manifests/init.pp", "class upper { }")
        .with_file("/b/stray.pp", "notify { 'x': }");
    let env = env_of(&p, &["/a", "/b", "/missing"]);
    let names: Vec<_> = env.modules().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["ntp"]);
    assert_eq!(env.module("ntp").unwrap().path, Path::new("/a/ntp"));
    let def = env.resolve(DefKind::Class, "ntp").unwrap();
    assert_eq!(&*def.file, Path::new("/a/ntp/manifests/init.pp"));
    let c = codes(&env);
    assert_eq!(
        c.iter()
            .filter(|c| **c == codes::INVALID_MODULE_NAME)
            .count(),
        2
    );
    assert!(c.contains(&codes::SHADOWED_MODULE));
    assert!(env.resolve(DefKind::Class, "rsyslog").is_none());
}

#[test]
fn metadata_and_visibility() {
    let p = MemoryProvider::new()
        .with_file(
            "/m/a/metadata.json",
            r#"{"name":"me-a","version":"1.2.3","author":"me","license":"MIT","source":"s",
                "dependencies":[{"name":"me/b"}]}"#,
        )
        .with_file(
            "/m/a/manifests/init.pp",
            "class a { $x = b::f() $y = c::f() $z = a::f() }",
        )
        .with_file("/m/a/functions/f.pp", "function a::f() { 1 }")
        .with_file("/m/b/functions/f.pp", "function b::f() { 1 }")
        .with_file("/m/c/functions/f.pp", "function c::f() { 1 }")
        .with_file("/m/c/metadata.json", "{ not json")
        .with_file("/m/d/manifests/init.pp", "class d { $x = c::f() }")
        // Puppet refuses a module whose metadata lacks a required key.
        .with_file("/m/e/metadata.json", r#"{"name":"me-e"}"#)
        .with_file("/m/e/manifests/init.pp", "class e { }");
    let env = env_of(&p, &["/m"]);
    let a = env.module("a").unwrap();
    let meta = a.metadata.as_ref().unwrap();
    assert_eq!(meta.version.as_deref(), Some("1.2.3"));
    assert_eq!(
        meta.dependencies.as_ref().unwrap()[0].version_requirement,
        ">= 0.0.0"
    );
    assert!(a.sees("b") && a.sees("a") && !a.sees("c"));
    assert!(env.module("d").unwrap().sees("c"));
    assert!(codes(&env).contains(&codes::BAD_METADATA));
    assert!(env.module("e").is_none());
    assert!(env.resolve(DefKind::Class, "e").is_none());
    assert!(codes(&env).contains(&codes::MISSING_METADATA));
    let report = env.visibility_report();
    assert_eq!(report.len(), 1);
    assert_eq!(
        (report[0].caller.as_str(), report[0].function.as_str()),
        ("a", "c::f")
    );
    assert!(report[0].definition.is_some());
    assert!(env
        .resolve_function(Some("a"), "c::f", Visibility::Puppet7)
        .is_some());
    assert!(env
        .resolve_function(Some("a"), "c::f", Visibility::Dependencies)
        .is_none());
    assert!(env
        .resolve_function(Some("a"), "b::f", Visibility::Dependencies)
        .is_some());
}

#[test]
fn precedence_main_manifest_then_general_to_specific() {
    let p = MemoryProvider::new()
        .with_file("/env/site", "")
        .with_file("/env/manifests/b.pp", "class x::y { }")
        .with_file(
            "/env/manifests/a.pp",
            "class x { }\nnode default { include x }",
        )
        .with_file("/m/x/manifests/init.pp", "class x { }\nclass x::y::z { }")
        .with_file("/m/x/manifests/y.pp", "class x::y { }\nclass x::y::z { }")
        .with_file("/m/x/manifests/y/z.pp", "class x::y::z { }")
        .with_file("/m/x/manifests/w.pp", "class x::wz { }");
    let config = EnvironmentConfig {
        modulepath: vec!["/m".into()],
        manifest: Some("/env/manifests".into()),
        env_dir: None,
        data_provider: None,
    };
    let env = Index::load(&config, std::sync::Arc::new(p.clone()));
    let file = |n: &str| env.resolve(DefKind::Class, n).unwrap().file.to_path_buf();
    assert_eq!(file("x"), Path::new("/env/manifests/a.pp"));
    assert_eq!(file("x::y"), Path::new("/env/manifests/b.pp"));
    assert_eq!(file("x::y::z"), Path::new("/m/x/manifests/init.pp"));
    // Accepted by Puppet's string-prefix check, but not on x::wz's autoload path: Puppet
    // would find it only after loading x::w, so it is reported and never resolved.
    assert!(env.resolve(DefKind::Class, "x::wz").is_none());
    let c = codes(&env);
    assert!(c.contains(&codes::NOT_AUTOLOADABLE));
    assert_eq!(
        c.iter()
            .filter(|c| **c == codes::DUPLICATE_DEFINITION)
            .count(),
        4
    );
    // Main manifest files are read in sorted order.
    let mains: Vec<_> = env
        .files()
        .filter(|f| f.role == FileRole::MainManifest)
        .map(|f| f.path.to_path_buf())
        .collect();
    assert_eq!(
        mains,
        [
            Path::new("/env/manifests/a.pp"),
            Path::new("/env/manifests/b.pp")
        ]
    );
}

#[test]
fn location_rules_in_autoloaded_files() {
    let p = MemoryProvider::new()
        .with_file(
            "/m/a/manifests/init.pp",
            "class a { class inner { } define d() { } }\nclass b { }\nnotify { 'x': }\n$v = 1\n",
        )
        .with_file(
            "/m/a/manifests/sub.pp",
            "define a::sub() { }\nfunction a::sub::f() { }",
        )
        .with_file(
            "/m/a/functions/f.pp",
            "function a::f() { 1 }\nfunction a::g() { 2 }",
        )
        .with_file("/m/a/functions/h.pp", "function a::wrong() { 1 }")
        .with_file("/m/a/types/t.pp", "type A::T = Integer");
    let env = env_of(&p, &["/m"]);
    let names = |k: DefKind| -> Vec<String> {
        env.definitions()
            .filter(|d| d.kind == k)
            .map(|d| d.name.to_string())
            .collect()
    };
    assert_eq!(names(DefKind::Class), ["a", "a::inner"]);
    assert_eq!(names(DefKind::Define), ["a::d", "a::sub"]);
    assert_eq!(names(DefKind::Function), ["a::f"]);
    assert_eq!(names(DefKind::TypeAlias), ["a::t"]);
    let msgs: Vec<String> = env.all_diagnostics().map(|d| d.message.clone()).collect();
    assert!(msgs.contains(
        &"Unacceptable location. The name 'b' is unacceptable in file '/m/a/manifests/init.pp'"
            .to_string()
    ));
    assert!(msgs.contains(
        &"This Resource Statement is unacceptable as a top level construct in this location"
            .to_string()
    ));
    assert!(msgs.contains(
        &"This '=' expression is unacceptable as a top level construct in this location"
            .to_string()
    ));
    assert!(codes(&env).contains(&codes::MISSING_DEFINITION));
    // The evaluator can get a definition's tree.
    let d = env.resolve(DefKind::Define, "a::d").unwrap();
    let node = env.file_of(d).unwrap().syntax_of(d).unwrap();
    assert_eq!(node.to_string(), "define d() { }");
}

#[test]
fn environment_functions_and_types() {
    let p = MemoryProvider::new()
        .with_file(
            "/env/functions/environment/hello.pp",
            "function environment::hello() { 'hi' }",
        )
        .with_file("/env/types/port.pp", "type Port = Integer[1, 65535]");
    let config = EnvironmentConfig {
        modulepath: vec![],
        manifest: None,
        env_dir: Some("/env".into()),
        data_provider: None,
    };
    let env = Index::load(&config, std::sync::Arc::new(p.clone()));
    assert!(env
        .resolve(DefKind::Function, "environment::hello")
        .is_some());
    assert!(env.resolve(DefKind::TypeAlias, "Port").is_some());
    assert!(env.all_diagnostics().next().is_none());
}

#[test]
fn snapshots_see_changes_and_share_parses() {
    let mut p = MemoryProvider::new()
        .with_file("/m/a/manifests/init.pp", "class a { }")
        .with_file("/m/a/manifests/b.pp", "class a::b { }");
    let cache = std::sync::Arc::new(ParseCache::new());
    let config = EnvironmentConfig::with_modulepath(["/m"]);
    let one = Index::load_with_cache(&config, std::sync::Arc::new(p.clone()), cache.clone());
    p.insert("/m/a/manifests/b.pp", "class a::b { }\nclass a::b::c { }");
    let two = Index::load_with_cache(&config, std::sync::Arc::new(p.clone()), cache.clone());
    assert!(one.resolve(DefKind::Class, "a::b::c").is_none());
    assert!(two.resolve(DefKind::Class, "a::b::c").is_some());
    let init = Path::new("/m/a/manifests/init.pp");
    assert!(std::sync::Arc::ptr_eq(
        &one.file(init).unwrap().parse(),
        &two.file(init).unwrap().parse()
    ));
}

#[test]
fn hazards_cover_every_reference_form() {
    let p = MemoryProvider::new()
        .with_file(
            "/m/a/manifests/init.pp",
            "class a inherits b {\n  include b\n  class { 'b': }\n  file { '/x': }\n  Class['b'] -> File['/x']\n  require ::b\n}\n",
        )
        .with_file("/m/a/manifests/b.pp", "class a::b { }")
        .with_file("/m/a/manifests/file.pp", "define a::file() { }")
        .with_file("/m/b/manifests/init.pp", "class b { }");
    let env = env_of(&p, &["/m"]);
    let hz = env.hazards();
    let got: Vec<(RefSyntax, u32, Option<String>, Option<String>)> = hz
        .iter()
        .map(|h| {
            (
                h.reference.syntax,
                h.reference.line,
                h.absolute.as_ref().map(|d| d.name.to_string()),
                h.relative.as_ref().map(|d| d.name.to_string()),
            )
        })
        .collect();
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        got,
        [
            (RefSyntax::Inherits, 1, s("b"), s("a::b")),
            (RefSyntax::Include, 2, s("b"), s("a::b")),
            (RefSyntax::ResourceLikeClass, 3, s("b"), s("a::b")),
            (RefSyntax::ResourceType, 4, None, s("a::file")),
            (RefSyntax::TypeReference, 5, s("b"), s("a::b")),
            (RefSyntax::TypeReference, 5, None, s("a::file")),
        ]
    );
}

#[test]
fn memory_provider_refuses_dotdot() {
    let p = MemoryProvider::new().with_file("/m/a/manifests/init.pp", "class a { }");
    assert!(matches!(
        p.read_to_string(Path::new("/m/a/../a/manifests/init.pp")),
        Err(ProviderError::Escape { .. })
    ));
}

#[test]
fn fs_provider_refuses_escapes_and_loops() {
    let dir = std::env::temp_dir().join(format!("puppet-loader-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let m = dir.join("mp/a/manifests");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(m.join("init.pp"), "class a { }").unwrap();
    let provider = FsProvider::new([dir.join("mp")]);
    assert!(matches!(
        provider.read_to_string(&dir.join("mp/a/../../outside")),
        Err(ProviderError::Escape { .. })
    ));
    assert!(matches!(
        provider.read_to_string(Path::new("/etc/passwd")),
        Err(ProviderError::Escape { .. })
    ));
    #[cfg(unix)]
    std::os::unix::fs::symlink(&m, m.join("loop")).unwrap();
    let config = EnvironmentConfig::with_modulepath([dir.join("mp")]);
    let env = Index::load(&config, std::sync::Arc::new(provider.clone()));
    assert!(env.resolve(DefKind::Class, "a").is_some());
    #[cfg(unix)]
    assert!(env.all_diagnostics().any(|d| d.code == codes::PATH_ESCAPE));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module whose `metadata.json` is missing or is a directory has no metadata and no
/// diagnostic (the file is read without asking for its kind first); a real one is read.
#[test]
fn metadata_missing_or_a_directory_is_no_metadata() {
    let dir = std::env::temp_dir().join(format!("puppet-loader-meta-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for m in ["a", "b", "c"] {
        std::fs::create_dir_all(dir.join("mp").join(m).join("manifests")).unwrap();
    }
    std::fs::create_dir_all(dir.join("mp/b/metadata.json")).unwrap();
    std::fs::write(
        dir.join("mp/c/metadata.json"),
        r#"{"name":"me-c","version":"1.0.0","author":"me","license":"MIT","source":"s","dependencies":[]}"#,
    )
    .unwrap();
    let provider = FsProvider::new([dir.join("mp")]);
    let config = EnvironmentConfig::with_modulepath([dir.join("mp")]);
    let env = Index::load(&config, std::sync::Arc::new(provider));
    assert!(env.module("a").unwrap().metadata.is_none());
    assert!(env.module("b").unwrap().metadata.is_none());
    let c = env.module("c").unwrap().metadata.clone().unwrap();
    assert_eq!(c.version.as_deref(), Some("1.0.0"));
    assert_eq!(env.all_diagnostics().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn definitions_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Index>();
    check::<puppet_loader::Loader>();
    check::<Definition>();
    check::<LoadedFile>();
    check::<ParseCache>();
}

#[test]
fn no_panic_on_garbage() {
    let p = MemoryProvider::new()
        .with_file(
            "/m/a/manifests/init.pp",
            "class { ] } define ((( \u{0} @@@ '",
        )
        .with_file("/m/a/metadata.json", "[1,2")
        .with_file("/m/a/functions/x.pp", "")
        .with_file("/m/a/types/y.pp", "type = ");
    let env = env_of(&p, &["/m"]);
    assert!(env.all_diagnostics().count() > 0);
    let _ = env.hazards();
    let _ = env.visibility_report();
}
