//! Types that use Ruby helper modules of `lib/puppet_x`: `self.title_patterns`
//! computed by keystone's `PuppetX::Keystone::CompositeNamevar`, and the type
//! DSL run by a method of an `extend`ed module (`create_parameters`), run from
//! copies of the module files (`tests/fixtures/modules`) and checked against
//! the answers of the real Puppet 7.23.

use std::path::{Path, PathBuf};

use puppet_restypes::{NamevarValue, Severity, TypeDatabase};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rb") {
                out.push(p);
            }
        }
    }
}

/// The fixture module's files as (module, path, text), helpers included
/// unless `with_helpers` is false.
fn keystone_files(with_helpers: bool) -> Vec<(String, String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/modules/keystone");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|p| with_helpers || !p.to_string_lossy().contains("puppet_x"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                "keystone".to_string(),
                p.to_string_lossy().into_owned(),
                text,
            )
        })
        .collect()
}

fn keystone_db() -> TypeDatabase {
    let mut db = TypeDatabase::core();
    let diags = db.load_modules(keystone_files(true));
    let errors: Vec<_> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    db
}

/// What Puppet 7.23.0 put in the catalog for `TYPE { TITLE: ensure => present }`
/// (the parameters other than `ensure`), from
/// `/work/shared/oracle/compile-catalog -M /usr/share/puppet/modules -n ctl01.example.com
///  -f facts/debian12-ctl01.json -e 'keystone_service { "keystone::identity": ensure => present } ...'`
/// (keystone module 21.0.0). A namevar equal to the title is omitted, as Puppet does.
/// (type, title, parameters Puppet derived from the title)
type Answer = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const PUPPET_ANSWERS: &[Answer] = &[
    (
        "keystone_endpoint",
        "RegionOne/keystone::identity",
        &[
            ("name", "keystone"),
            ("region", "RegionOne"),
            ("type", "identity"),
        ],
    ),
    (
        "keystone_endpoint",
        "RegionTwo/nova",
        &[("name", "nova"), ("region", "RegionTwo")],
    ),
    (
        "keystone_endpoint",
        "cinder::volumev3",
        &[("name", "cinder"), ("type", "volumev3")],
    ),
    ("keystone_endpoint", "swift", &[]),
    ("keystone_service", "glance", &[]),
    (
        "keystone_service",
        "keystone::identity",
        &[("name", "keystone"), ("type", "identity")],
    ),
    (
        "keystone_tenant",
        "t1::d1",
        &[("domain", "d1"), ("name", "t1")],
    ),
    ("keystone_tenant", "t2", &[]),
    (
        "keystone_user",
        "u1::d1",
        &[("domain", "d1"), ("name", "u1")],
    ),
    ("keystone_user", "u:x", &[]),
    (
        "keystone_user_role",
        "admin@::::all",
        &[("system", "all"), ("user", "admin")],
    ),
    (
        "keystone_user_role",
        "admin@admin",
        &[("project", "admin"), ("user", "admin")],
    ),
    (
        "keystone_user_role",
        "bob::dom1@::dom3",
        &[("domain", "dom3"), ("user", "bob"), ("user_domain", "dom1")],
    ),
    (
        "keystone_user_role",
        "bob::dom1@proj::dom2",
        &[
            ("project", "proj"),
            ("project_domain", "dom2"),
            ("user", "bob"),
            ("user_domain", "dom1"),
        ],
    ),
    (
        "keystone_user_role",
        "carol::d5@p5",
        &[("project", "p5"), ("user", "carol"), ("user_domain", "d5")],
    ),
    (
        "keystone_user_role",
        "carol@::dom4",
        &[("domain", "dom4"), ("user", "carol")],
    ),
    (
        "keystone_user_role",
        "carol@p6::d6",
        &[
            ("project", "p6"),
            ("project_domain", "d6"),
            ("user", "carol"),
        ],
    ),
    (
        "keystone_user_role",
        "dave::d7@::::all",
        &[("system", "all"), ("user", "dave"), ("user_domain", "d7")],
    ),
];

#[test]
fn title_parameters_are_puppets() {
    let db = keystone_db();
    for (ty, title, expected) in PUPPET_ANSWERS {
        let got = db.parse_title(ty, title).unwrap();
        let mut got: Vec<(String, String)> = got
            .into_iter()
            .filter(|(k, v)| !(k == "name" && v == title))
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        got.sort();
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(got, expected, "{ty}[{title}]");
    }
}

#[test]
fn patterns_are_rubys_regex_text() {
    // Regexp#source of Puppet's own patterns (tests/fixtures/puppet-types.json)
    let db = keystone_db();
    let t = db.get("keystone_endpoint").unwrap();
    assert_eq!(
        t.title_patterns[0].regex,
        r"^((?-mix:[^\/]+))/((?-mix:(?:[^:]|:[^:])+))::((?-mix:.+))$"
    );
    assert_eq!(t.title_patterns[0].captures, ["region", "name", "type"]);
    let t = db.get("keystone_service").unwrap();
    assert_eq!(
        t.title_patterns[0].regex,
        r"^((?-mix:(?:[^:]|:[^:])+))::((?-mix:(?:[^:]|:[^:])+))$"
    );
    assert_eq!(
        db.get("keystone_user_role").unwrap().title_patterns.len(),
        8
    );
    assert!(db.get("keystone_user_role").unwrap().complete);
}

#[test]
fn unmatched_titles_and_keys() {
    let db = keystone_db();
    // Puppet: Evaluation Error: Error while evaluating a Resource Statement,
    // No set of title patterns matched the title "a::b::c". (line: 1, column: 1)
    assert_eq!(
        db.parse_title("keystone_service", "a::b::c").unwrap_err(),
        "No set of title patterns matched the title \"a::b::c\"."
    );
    assert_eq!(
        db.parse_title("keystone_user_role", "admin").unwrap_err(),
        "No set of title patterns matched the title \"admin\"."
    );
    // keystone_service { "x": type => "t" } keystone_service { "x::t": } ->
    // Cannot alias Keystone_service[x::t] to ["x", "t"] at (line: 2); resource
    // ["Keystone_service", "x", "t"] already declared (line: 1)
    let a = db
        .namevar_values("keystone_service", "x", |p| (p == "type").then_some("t"))
        .unwrap();
    let b = db
        .namevar_values("keystone_service", "x::t", |_| None::<&str>)
        .unwrap();
    let flat = |k: Vec<(smol_str::SmolStr, NamevarValue<&str>)>| -> Vec<Option<String>> {
        k.into_iter()
            .map(|(_, v)| match v {
                NamevarValue::Given(s) => Some(s.to_string()),
                NamevarValue::FromTitle(s) => Some(s),
                NamevarValue::Missing => None,
            })
            .collect()
    };
    assert_eq!(flat(a), flat(b));
    assert_eq!(
        flat(
            db.namevar_values("keystone_endpoint", "swift", |_| None::<&str>)
                .unwrap()
        ),
        [Some("swift".to_string()), None, None]
    );
}

#[test]
fn extended_module_runs_the_type_dsl() {
    // Puppet 7.23 (tests/fixtures/puppet-types.json, keystone/keystone_domain_config)
    let db = keystone_db();
    let t = db.get("keystone_domain_config").unwrap();
    assert!(t.complete);
    let params: Vec<_> = t.parameters().collect();
    assert_eq!(params, ["name", "secret", "ensure_absent_val", "provider"]);
    let props: Vec<_> = t.properties().collect();
    assert_eq!(props, ["ensure", "value"]);
    assert_eq!(t.namevars, ["name"]);
    assert_eq!(t.autorequires, ["anchor", "file", "keystone_config"]);
    assert_eq!(t.autonotifies, ["service"]);
    assert_eq!(
        db.check_parameter("keystone_domain_config", "bogus")
            .unwrap_err(),
        "no parameter named 'bogus'"
    );
}

#[test]
fn missing_helper_is_a_diagnostic() {
    let mut db = TypeDatabase::core();
    let diags = db.load_modules(keystone_files(false));
    // The interpreter's own error, at the `require` of the type file.
    let d = diags
        .iter()
        .find(|d| d.path.ends_with("keystone_service.rb") && d.severity == Severity::Error)
        .expect("a diagnostic for keystone_service");
    assert_eq!(d.code, "RUBY_RUNTIME");
    assert_eq!(d.line, 4);
    assert_eq!(
        d.message,
        "LoadError: cannot load such file -- puppet_x/keystone/composite_namevar"
    );
    let m = diags
        .iter()
        .find(|d| d.path.ends_with("keystone_domain_config.rb") && d.severity == Severity::Error)
        .expect("a diagnostic for keystone_domain_config");
    assert!(
        m.message
            .contains("cannot load such file -- puppet_x/keystone_config/ini_setting"),
        "{}",
        m.message
    );
    // A type that could not be read is not described (not guessed).
    assert!(db.get("keystone_service").is_none());
}
