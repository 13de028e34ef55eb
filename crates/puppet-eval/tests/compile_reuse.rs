//! What a compile keeps for itself to allocate less gives what evaluating afresh gives: the
//! compile's copy of the environment's constant type expressions (a define's typed
//! parameters, evaluated for each instance), its interpolation buffer (nested and failing
//! interpolations), resource statements whose value is thrown away (no references made)
//! next to those whose value is used, and bodies with one title, several, or a `default:`.
//! Each program is compiled three times over one environment (the later compiles find the
//! environment's cache filled) and once over a fresh environment per compile; all agree.

use puppet_eval::{compile, Compiled, Environment, Session, Settings};
use std::sync::Arc;

const PROGRAM: &str = r#"
type Port = Integer[1, 65535]
define svc(
  Port $port,
  Enum['a', 'b'] $mode = 'a',
  Optional[Array[String[1]]] $names = undef,
  Hash[String, Variant[Integer, String]] $extra = {},
) {
  $label = "${title}:${port}:${mode}:${"inner-${port}"}"
  notify { "n-${title}": message => $label }
}
$ports = [80, 443, 8080, 8443, 9000]
$ports.each |$i, $p| {
  svc { "s${i}": port => $p, mode => if $i % 2 == 0 { 'a' } else { 'b' }, names => ["x${i}"] }
}
svc { ['t1', 't2']: port => 22 }
svc { default: mode => 'b'; 'u1': port => 1; 'u2': port => 2, mode => 'a' }
$refs = notify { 'kept': }
notify { 'uses': message => "${refs}" }
$long = "a rather long interpolated string that does not fit inline ${ports[0]} ${ports[-1]}"
notify { 'long': message => $long }
if true { notify { 'in-if': } notify { 'last-in-if': } }
"#;

fn settings() -> Settings {
    Settings::agent("node.example.com", Default::default())
}

fn fresh() -> Arc<Environment> {
    Session::new()
        .manifest_text("/env/manifests/site.pp", PROGRAM)
        .load()
        .expect("environment")
}

fn summary(c: &Compiled) -> String {
    let logs: Vec<String> = c.logs.iter().map(|l| l.message.clone()).collect();
    match &c.catalog {
        Ok(cat) => format!("{}\n{:?}", serde_json::to_string(cat).unwrap(), logs),
        Err(e) => format!("error: {}\n{:?}", e.message, logs),
    }
}

#[test]
fn repeated_compiles_agree_with_fresh_ones() {
    let want = summary(&compile(fresh(), &settings()));
    assert!(want.contains("n-s4"), "{want}");
    assert!(want.contains("s0:80:a:inner-80"), "{want}");
    assert!(want.contains("u1:1:b:inner-1"), "{want}");
    assert!(want.contains("Notify[kept]"), "{want}");
    let env = fresh();
    for round in 0..3 {
        assert_eq!(
            summary(&compile(env.clone(), &settings())),
            want,
            "round {round}"
        );
    }
}

#[test]
fn failures_agree_too() {
    // A value outside the constant type, after instances that passed; an interpolation that
    // fails inside another; a title used twice in one expression.
    for bad in [
        "svc { 'bad': port => 70000 }",
        "$x = \"a${\"b${undefined_function()}\"}\"",
        "notify { ['d', 'e', 'd']: }",
        "notify { 'f': ; 'f': }",
    ] {
        let text = format!("{PROGRAM}\n{bad}\n");
        let make = || {
            Session::new()
                .manifest_text("/env/manifests/site.pp", text.as_str())
                .load()
                .expect("environment")
        };
        let want = summary(&compile(make(), &settings()));
        assert!(want.starts_with("error: "), "{bad}: {want}");
        let env = make();
        for round in 0..3 {
            assert_eq!(
                summary(&compile(env.clone(), &settings())),
                want,
                "{bad}, round {round}"
            );
        }
    }
}
