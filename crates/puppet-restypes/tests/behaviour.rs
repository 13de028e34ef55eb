//! Behaviour checks against what the real Puppet 7.23 answered when run
//! through the compile-catalog oracle (messages, uniqueness keys, title
//! patterns), and property tests that no reader panics on any input.

use proptest::prelude::*;
use puppet_restypes::{
    alias_conflict_message, parse_generated_type, parse_ruby_type, NamevarValue, TypeDatabase,
};

fn key(db: &TypeDatabase, ty: &str, title: &str, params: &[(&str, &str)]) -> Vec<Option<String>> {
    db.namevar_values(ty, title, |p| {
        params
            .iter()
            .find(|(k, _)| *k == p)
            .map(|(_, v)| v.to_string())
    })
    .unwrap()
    .into_iter()
    .map(|(_, v)| match v {
        NamevarValue::Given(v) => Some(v),
        NamevarValue::FromTitle(v) => Some(v),
        NamevarValue::Missing => None,
    })
    .collect()
}

#[test]
fn messages_are_puppets() {
    let db = TypeDatabase::core();
    // file { '/tmp/x': bogus => 1 } -> "no parameter named 'bogus'"
    assert_eq!(
        db.check_parameter("file", "bogus").unwrap_err(),
        "no parameter named 'bogus'"
    );
    // export/consume/title are rejected in 7.23
    for p in ["export", "consume", "title"] {
        assert_eq!(
            db.check_parameter("notify", p).unwrap_err(),
            format!("no parameter named '{p}'")
        );
    }
    assert!(db.check_parameter("exec", "name").is_ok());
    assert_eq!(
        db.check_parameter("foo", "x").unwrap_err(),
        "Unknown resource type: 'foo'"
    );
    assert_eq!(
        puppet_restypes::resource_type_not_found_message("Foo"),
        "Resource type not found: Foo"
    );
}

#[test]
fn file_duplicates_by_path() {
    let db = TypeDatabase::core();
    // file { 'a': path => '/tmp/x' } file { 'b': path => '/tmp/x' }
    let a = key(&db, "file", "a", &[("path", "/tmp/x")]);
    let b = key(&db, "file", "b", &[("path", "/tmp/x")]);
    assert_eq!(a, b);
    // file { '/tmp/x/': } is the same file as path => '/tmp/x'
    assert_eq!(key(&db, "file", "/tmp/x/", &[]), a);
    // `name` stands for the namevar
    assert_eq!(key(&db, "file", "c", &[("name", "/tmp/x")]), a);
    assert_eq!(key(&db, "file", "/", &[]), [Some("/".to_string())]);
    let m = alias_conflict_message(
        "File",
        "File[b]",
        &[Some("/tmp/x")],
        Some("(line: 1)"),
        Some("(line: 1)"),
    );
    assert_eq!(
        m,
        r#"Cannot alias File[b] to ["/tmp/x"] at (line: 1); resource ["File", "/tmp/x"] already declared (line: 1)"#
    );
}

#[test]
fn package_composite_key() {
    let db = TypeDatabase::core();
    // package { 'a': name => 'x', provider => apt } -> [nil, "x", "apt"]
    let k = key(&db, "package", "a", &[("name", "x"), ("provider", "apt")]);
    assert_eq!(k, [None, Some("x".into()), Some("apt".into())]);
    let k2: Vec<Option<&str>> = k.iter().map(|v| v.as_deref()).collect();
    assert_eq!(
        alias_conflict_message("Package", "Package[b]", &k2, None, None),
        r#"Cannot alias Package[b] to [nil, "x", "apt"]; resource ["Package", nil, "x", "apt"] already declared"#
    );
    // without params the title is the name
    assert_eq!(
        key(&db, "package", "vim", &[]),
        [None, Some("vim".into()), None]
    );
}

#[test]
fn sshkey_title_patterns() {
    let db = TypeDatabase::with_vendored();
    let k = key(&db, "sshkey", "host@ssh-rsa", &[]);
    assert_eq!(k, [Some("host".into()), Some("ssh-rsa".into())]);
    let k = key(&db, "sshkey", "host", &[("type", "rsa")]);
    assert_eq!(k, [Some("host".into()), Some("rsa".into())]);
}

/// Title patterns match as Ruby's regexps do (through puppet-types' one
/// translation): `$` ends a line, inline option groups, lazy quantifiers.
#[test]
fn title_patterns_are_ruby_regexps() {
    let src = r#"Puppet::Type.newtype(:t) do
  newparam(:name) { isnamevar }
  newparam(:domain) { isnamevar }
  def self.title_patterns
    name = /(?:[^:]|:[^:])+/
    [
      [/^(.*?)@(.*)$/, [[:name], [:domain]]],
      [/^(#{name})::(.+)$/, [[:name], [:domain]]],
      [/^(.*):(.*)$/, [[:name], [:domain]]],
      [/(.*)/m, [[:name]]],
    ]
  end
end
"#;
    let t = parse_ruby_type(src, "lib/puppet/type/t.rb").unwrap();
    assert_eq!(
        t.title_patterns[1].regex,
        "^((?-mix:(?:[^:]|:[^:])+))::(.+)$"
    );
    let mut db = TypeDatabase::new();
    db.insert(t);
    let title = |s: &str| {
        db.parse_title("t", s)
            .unwrap()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
    };
    assert_eq!(title("a@b@c"), ["name=a", "domain=b@c"]);
    assert_eq!(title("admin::Default"), ["name=admin", "domain=Default"]);
    // `$` is an end-of-line anchor in Ruby
    assert_eq!(title("a:b\nzzz"), ["name=a", "domain=b"]);
    assert_eq!(title("plain"), ["name=plain"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn ruby_reader_never_panics(s in "(Puppet::Type\\.newtype\\(:t\\) do|newparam|\\(|\\)|:x|, |=> true|do|end|\\{|\\}|\\[|\\]|/a/|\"s|'q|<<-EOT|EOT|%w\\[|#\\{|\n| |ensurable|isnamevar|def self\\.title_patterns|\\|p\\||\\.each|if|x =|@isomorphic = false)*") {
        let _ = parse_ruby_type(&s, "lib/puppet/type/t.rb");
    }

    #[test]
    fn title_pattern_evaluator_never_panics(
        helper in "(x = |\\[|\\]|, |:a|'s'|/r#\\{x\\}/|\"#\\{a\\}\"|Regexp\\.new\\(|\\(|\\)|if |else|elsif |end|\n| and | \\+ |\\*|\\[0\\]|\\.empty\\?|\\.count|return |raise|f\\(|M\\.g|lambda \\{ \\|y\\| y \\}|-1|9999999999999999999)*",
        body in "(x = |\\[|\\]|, |:name|:x|/r#\\{x\\}/|Regexp\\.new\\(/\\.\\+/\\)|M\\.f\\(|M\\.g|\\(|\\)|if |end|\n|\\[0, 1\\]|\\.map \\{ \\|v\\| \\[v\\] \\}| \\+ )*",
    ) {
        let lib = format!("module M\n  def self.f(a, b = 1, *c)\n{helper}\n  end\n  def self.g\n    M.g\n  end\nend\n");
        let ty = format!("Puppet::Type.newtype(:t) do\n  newparam(:name)\n  newparam(:x) {{ isnamevar }}\n  def self.title_patterns\n{body}\n  end\nend\n");
        let mut db = TypeDatabase::new();
        let _ = db.load_modules([
            ("m", "m/lib/puppet_x/m.rb", lib.as_str()),
            ("m", "m/lib/puppet/type/t.rb", ty.as_str()),
        ]);
        if db.get("t").is_some() {
            let _ = db.namevar_values("t", "a::b", |_| None::<String>);
        }
    }

    #[test]
    fn ruby_reader_never_panics_bytes(s in any::<String>()) {
        let _ = parse_ruby_type(&s, "t.rb");
        let _ = parse_generated_type(&s, "t.pp");
    }

    #[test]
    fn titles_never_panic(title in any::<String>()) {
        let db = TypeDatabase::with_vendored();
        for t in db.iter() {
            let _ = db.namevar_values(&t.name, &title, |_| None::<String>);
        }
    }
}
