//! Puppet's settings as manifests (`$settings::x`, `$settings::all_local`) and Ruby
//! (`Puppet[:x]`) read them: every setting of the table Puppet 7.23 gave
//! (`src/settings/puppet-7.23-server.jsonl`, written by `scripts/gen-settings-table.py`) has
//! Puppet's value and type; overrides move the settings derived from them as Puppet's
//! interpolation does; bad overrides are refused; an unknown `$settings::x` is Puppet's
//! unknown variable.

use puppet_eval::{compile, Compiled, Session, Settings};
use puppet_types::Value;

const DATA: &str = include_str!("../src/settings/puppet-7.23-server.jsonl");

/// The node the table was made for (the generator's host is `node.example.com`).
const NODE: &str = "node.example.com";

fn settings() -> Settings {
    Settings::agent(NODE, Default::default())
}

fn json_to_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().unwrap()),
        },
        serde_json::Value::String(s) => Value::string(s),
        serde_json::Value::Array(a) => Value::array(a.iter().map(json_to_value).collect()),
        serde_json::Value::Object(o) => {
            Value::hash(o.iter().map(|(k, v)| (Value::string(k), json_to_value(v))))
        }
    }
}

/// (name, Puppet's value, `type($v, 'generalized')`) of each setting, in Puppet's order.
fn expected() -> Vec<(String, Value, String)> {
    DATA.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let e = &v["expect"];
            let ty = e["type"].as_str().unwrap().to_string();
            let value = if ty == "Float" && e["value"] == "Infinity" {
                Value::Float(f64::INFINITY)
            } else {
                json_to_value(&e["value"])
            };
            (v["name"].as_str().unwrap().to_string(), value, ty)
        })
        .collect()
}

fn generalized(v: &Value) -> String {
    puppet_types::generalize(&puppet_types::infer(v)).to_string()
}

fn run(code: &str, s: &Settings) -> Compiled {
    let env = Session::new().code(code).load().unwrap();
    compile(env, s)
}

fn notices(c: &Compiled) -> Vec<String> {
    c.logs.iter().map(|l| l.message.clone()).collect()
}

#[test]
fn every_setting_has_puppets_value_and_type() {
    let want = expected();
    assert_eq!(want.len(), 232);
    let s = settings();
    for (name, value, ty) in &want {
        let got = s.setting(name).unwrap_or_else(|| panic!("{name} unknown"));
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&got, value, "{name}");
        assert_eq!(&generalized(&got), ty, "type of {name}");
    }
}

#[test]
fn manifests_read_the_table() {
    let want = expected();
    // `$settings::all_local`: every setting in Puppet's order, with the same values.
    let c = run(
        "notice($settings::all_local.keys.join(','))\n\
         $settings::all_local.each |$k, $v| { notice(\"${k}=${v}=${type($v, 'generalized')}\") }",
        &settings(),
    );
    assert!(c.catalog.is_ok(), "{:?}", c.catalog.err());
    let logs = notices(&c);
    let names: Vec<&str> = want.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(logs[0], names.join(","));
    for (i, (name, _, ty)) in want.iter().enumerate() {
        assert!(
            logs[i + 1].starts_with(&format!("{name}=")),
            "{}",
            logs[i + 1]
        );
        assert!(logs[i + 1].ends_with(&format!("={ty}")), "{}", logs[i + 1]);
    }
    // Each one as `$settings::x` and through `getvar`.
    let reads: Vec<String> = names
        .iter()
        .map(|n| format!("notice($settings::{n} == $settings::all_local['{n}'] and getvar('settings::{n}') == $settings::{n})"))
        .collect();
    let c = run(&reads.join("\n"), &settings());
    assert!(notices(&c).iter().all(|l| l == "true"), "{:?}", notices(&c));
    // The class's own variables, and a sample of values.
    let c = run(
        "notice([$settings::name, $settings::title, $settings::certname, $settings::hostcert, $settings::runinterval, $settings::reports, $settings::storeconfigs_backend, $settings::modulepath, $settings::manifest])",
        &Settings::agent("web01.example.com", Default::default()),
    );
    assert_eq!(
        notices(&c),
        ["[settings, settings, web01.example.com, /var/lib/puppet/ssl/certs/web01.example.com.pem, 1800, store, puppetdb, , no_manifest]"]
    );
}

#[test]
fn the_environment_gives_modulepath_and_manifest() {
    let files = puppet_loader::MemoryProvider::new()
        .with_file(
            "/env/manifests/site.pp",
            "notice([$settings::modulepath, $settings::manifest, $settings::environment])",
        )
        .with_file("/m/a/manifests/init.pp", "class a {}");
    let env = Session::new()
        .files(files)
        .modulepath(["/m", "/n/"])
        .manifest("/env/manifests/site.pp")
        .environment_name("staging")
        .load()
        .unwrap();
    let c = compile(env.clone(), &env.agent(NODE, Default::default()));
    assert_eq!(notices(&c), ["[/m:/n, /env/manifests/site.pp, staging]"]);
}

#[test]
fn overrides_move_what_derives_from_them() {
    let get = |s: &Settings, n: &str| s.setting(n).unwrap().unwrap();
    let s = settings();
    // Debian's Puppet gives a root server fixed confdir, vardir and ssldir (the run mode's
    // directories), so confdir moves the files under it but not ssldir.
    let moved = s.clone().with_setting("confdir", "/srv/puppet/").unwrap();
    assert_eq!(get(&moved, "confdir"), Value::string("/srv/puppet"));
    assert_eq!(
        get(&moved, "fileserverconfig"),
        Value::string("/srv/puppet/fileserver.conf")
    );
    assert_eq!(
        get(&moved, "config"),
        Value::string("/srv/puppet/puppet.conf")
    );
    assert_eq!(get(&moved, "ssldir"), Value::string("/var/lib/puppet/ssl"));
    // ssldir moves the certificates, unless one is set itself.
    let moved = s
        .clone()
        .with_setting("ssldir", "$confdir/ssl")
        .unwrap()
        .with_setting("confdir", "/etc/puppetlabs/puppet")
        .unwrap()
        .with_setting("localcacert", "/etc/ca.pem")
        .unwrap();
    assert_eq!(
        get(&moved, "hostcert"),
        Value::string("/etc/puppetlabs/puppet/ssl/certs/node.example.com.pem")
    );
    assert_eq!(
        get(&moved, "hostprivkey"),
        Value::string("/etc/puppetlabs/puppet/ssl/private_keys/node.example.com.pem")
    );
    assert_eq!(get(&moved, "localcacert"), Value::string("/etc/ca.pem"));
    // vardir moves the state files; certname the host's files and the CA's name.
    let moved = s
        .clone()
        .with_setting("vardir", "/opt/puppetlabs/puppet/cache")
        .unwrap()
        .with_setting("certname", "puppet.example.com")
        .unwrap();
    assert_eq!(
        get(&moved, "lastrunreport"),
        Value::string("/opt/puppetlabs/puppet/cache/state/last_run_report.yaml")
    );
    assert_eq!(
        get(&moved, "hostcert"),
        Value::string("/var/lib/puppet/ssl/certs/puppet.example.com.pem")
    );
    assert_eq!(
        get(&moved, "ca_name"),
        Value::string("Puppet CA: puppet.example.com")
    );
    assert_eq!(
        get(&moved, "node_name_value"),
        Value::string("puppet.example.com")
    );
    // The node name stays the node's.
    assert_eq!(moved.node_name, NODE);
    // An alias follows its target unless set; settings interpolating it follow it.
    let ports = s.clone().with_setting("masterport", "8141").unwrap();
    assert_eq!(get(&ports, "serverport"), Value::Integer(8141));
    assert_eq!(get(&ports, "ca_port"), Value::Integer(8141));
    let ports = ports.with_setting("serverport", "9000").unwrap();
    assert_eq!(get(&ports, "masterport"), Value::Integer(8141));
    assert_eq!(get(&ports, "report_port"), Value::Integer(9000));
    // Values are munged by the setting's kind.
    let typed = s
        .clone()
        .with_setting("runinterval", "1h")
        .unwrap()
        .with_setting("storeconfigs", "true")
        .unwrap()
        .with_setting("disable_warnings", "deprecations, undefined_variables")
        .unwrap()
        .with_setting("server_list", "a:8140,b")
        .unwrap()
        .with_setting("strict", "error")
        .unwrap()
        .with_setting("ca_ttl", "5y")
        .unwrap()
        .with_setting("reports", "store,http")
        .unwrap();
    assert_eq!(get(&typed, "runinterval"), Value::Integer(3600));
    assert_eq!(get(&typed, "splaylimit"), Value::Integer(3600));
    assert_eq!(get(&typed, "storeconfigs"), Value::Boolean(true));
    assert_eq!(
        get(&typed, "disable_warnings").to_string(),
        "['deprecations', 'undefined_variables']"
    );
    assert_eq!(
        get(&typed, "server_list").to_string(),
        "[['a', '8140'], ['b']]"
    );
    assert_eq!(get(&typed, "strict"), Value::string("error"));
    assert_eq!(get(&typed, "ca_ttl"), Value::Integer(157_680_000));
    assert_eq!(get(&typed, "reports"), Value::string("store,http"));
    // Environment and strict_variables are the compile's own.
    let own = s
        .clone()
        .with_setting("environment", "staging")
        .unwrap()
        .with_setting("strict_variables", "true")
        .unwrap();
    assert_eq!(own.environment, "staging");
    assert!(own.strict_variables);
    assert_eq!(get(&own, "strict_variables"), Value::Boolean(true));
    // ... and manifests see all of it.
    let c = run(
        "notice([$settings::runinterval, $settings::storeconfigs, $settings::server_list, $settings::environment, $settings::all_local['splaylimit']])",
        &typed.with_setting("environment", "staging").unwrap(),
    );
    assert_eq!(
        notices(&c),
        ["[3600, true, [[a, 8140], [b]], staging, 3600]"]
    );
}

#[test]
fn bad_overrides_are_refused() {
    let s = settings();
    let err = |name: &str, value: &str| s.clone().with_setting(name, value).unwrap_err();
    assert_eq!(err("nosuch", "1"), "unknown setting 'nosuch'");
    assert_eq!(
        err("storeconfigs", "yes"),
        "Invalid value '\"yes\"' for boolean parameter: storeconfigs"
    );
    assert_eq!(
        err("runinterval", "soon"),
        "Invalid duration format '\"soon\"' for parameter: runinterval"
    );
    assert_eq!(
        err("masterport", "70000"),
        "Value '70000' is not a valid port number for parameter: masterport"
    );
    assert_eq!(
        err("strict", "loud"),
        "Invalid value 'loud' for parameter strict. Allowed values are 'off', 'warning', 'error'"
    );
    assert_eq!(
        err("confdir", "$nosuch/x"),
        "Error converting value for param 'confdir': Could not find value for $nosuch"
    );
    assert!(err("modulepath", "/m").contains("environment"));
    // A cycle is an error, not a hang or an overflow.
    let cyclic = s.clone().with_setting("confdir", "$vardir/c").unwrap();
    assert!(cyclic.with_setting("vardir", "$confdir/v").is_err());
}

#[test]
fn unknown_settings_are_unknown_variables() {
    let c = run(
        "notice([$settings::nosuch, defined('$settings::nosuch'), defined('$settings::confdir')])",
        &settings(),
    );
    assert_eq!(
        notices(&c),
        ["Unknown variable: 'settings::nosuch'.", "[, false, true]"]
    );
    let strict = Settings {
        strict_variables: true,
        ..settings()
    };
    let c = run("notice($settings::nosuch)", &strict);
    let e = c.catalog.unwrap_err();
    assert_eq!(e.message, "Unknown variable: 'settings::nosuch'.");
    // The `strict` setting decides when strict_variables is off (Puppet's UNKNOWN_VARIABLE).
    let off = settings().with_setting("strict", "off").unwrap();
    let c = run("notice([$settings::nosuch, $nope, $foo::bar])", &off);
    assert_eq!(notices(&c), ["[, , ]"]);
    let error = settings().with_setting("strict", "error").unwrap();
    for code in [
        "notice($settings::nosuch)",
        "notice($foo::bar)",
        "notice($nope)",
    ] {
        let e = run(code, &error).catalog.unwrap_err();
        assert!(
            e.message.starts_with("Unknown variable: '"),
            "{code}: {}",
            e.message
        );
    }
}

#[test]
fn ruby_reads_the_same_table() {
    let s = settings().with_setting("runinterval", "2h").unwrap();
    let c = run(
        "notice(inline_template('<%= [Puppet[:runinterval], Puppet.settings[:storeconfigs_backend], Puppet[:confdir], Puppet[:strict], Puppet[:node_terminus], Puppet[:catalog_cache_terminus], Puppet[:maxwaitforcert], Puppet[:certificate_revocation], Puppet[:disable_warnings], Puppet[:nosuch], Puppet[:hostcert]].inspect %>'))",
        &s,
    );
    assert_eq!(
        notices(&c),
        ["[7200, :puppetdb, \"/etc/puppet\", :warning, :plain, nil, Infinity, :chain, [], nil, \"/var/lib/puppet/ssl/certs/node.example.com.pem\"]"]
    );
}

/// An exported resource warns that storeconfigs is off, unless it is on (Puppet 7.23:
/// `compile-catalog --setting storeconfigs=true -e '@@notify {"x": }'` logs nothing and
/// keeps `Notify[x]` exported).
#[test]
fn storeconfigs_silences_the_export_warning() {
    let code = "@@notify { 'x': }";
    let c = run(code, &settings());
    assert_eq!(
        notices(&c),
        ["You cannot collect exported resources without storeconfigs being set; the export is ignored"]
    );
    let on = settings().with_setting("storeconfigs", "true").unwrap();
    let c = run(code, &on);
    assert!(notices(&c).is_empty(), "{:?}", notices(&c));
    let cat = c.catalog.unwrap();
    let i = cat.find("Notify[x]").unwrap();
    assert!(cat.resources[i].exported);
}
