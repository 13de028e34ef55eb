//! `Environment::functions`, the listing of every function an environment can call, over a
//! small environment in memory: a module's Ruby function (loaded by puppet-ruby, its
//! dispatch's signature), a Puppet-language function (its parameters), a stdlib function
//! with a native implementation (the native wins over the Ruby file) and the registry's
//! built-ins (those bound to the compiler included), whose signatures must be Puppet 7.23's
//! own (`puppet-functions/tests/fixtures/puppet_signatures.json`).

use puppet_eval::{FunctionInfo, FunctionOrigin, Session};
use puppet_loader::MemoryProvider;
use std::collections::BTreeMap;

const GREET_RB: &str = r#"
# Greets someone.
Puppet::Functions.create_function(:'mymod::greet') do
  dispatch :greet do
    param 'String', :name
    optional_param 'Integer', :count
  end
  def greet(name, count = 1)
    "hi #{name}" * count
  end
end
"#;

const PICK_PORT_PP: &str = "function mymod::pick_port(Stdlib::Port $port, Optional[String]  $host = undef, *$rest) >> Integer { $port }";

fn listing() -> BTreeMap<String, FunctionInfo> {
    let files = MemoryProvider::new()
        .with_file("/m/mymod/lib/puppet/functions/mymod/greet.rb", GREET_RB)
        .with_file("/m/mymod/functions/pick_port.pp", PICK_PORT_PP)
        .with_file(
            "/m/mymod/functions/unknown.pp",
            "function mymod::unknown(Nope::Thing $x, $y = 1) { $x }",
        )
        .with_file(
            "/m/stdlib/types/port.pp",
            "type Stdlib::Port = Integer[0, 65535]",
        )
        .with_file(
            "/m/stdlib/lib/puppet/parser/functions/pick.rb",
            "module Puppet::Parser::Functions\n  newfunction(:pick, :type => :rvalue) { |args| args.first }\nend\n",
        );
    let env = Session::new()
        .files(files)
        .modulepath(["/m"])
        // The stand-in pick.rb gets the native (as the corpus file would).
        .natives_for_any_version(true)
        .load()
        .expect("environment");
    let all = env.functions();
    let names: Vec<&str> = all.iter().map(|f| f.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        names, sorted,
        "the listing is sorted by name, each name once"
    );
    all.into_iter().map(|f| (f.name.clone(), f)).collect()
}

#[test]
fn module_functions_have_their_origin_and_signatures() {
    let all = listing();
    let greet = &all["mymod::greet"];
    assert_eq!(
        greet.origin,
        FunctionOrigin::Ruby {
            module: "mymod".into(),
            file: "lib/puppet/functions/mymod/greet.rb".into()
        }
    );
    assert_eq!(
        greet.signatures,
        Some(vec!["String name, Integer count?".to_string()])
    );

    let pick_port = &all["mymod::pick_port"];
    assert_eq!(
        pick_port.origin,
        FunctionOrigin::Puppet {
            file: "/m/mymod/functions/pick_port.pp".into()
        }
    );
    assert_eq!(
        pick_port.signatures,
        Some(vec![
            // Puppet's text of an alias type names it and shows what it stands for.
            "Stdlib::Port = Integer[0, 65535] port, String host?, Any rest*".to_string()
        ])
    );

    // A type that does not resolve is shown as written.
    assert_eq!(
        all["mymod::unknown"].signatures,
        Some(vec!["Nope::Thing x, Any y?".to_string()])
    );

    let pick = &all["pick"];
    assert_eq!(
        pick.origin,
        FunctionOrigin::Native {
            module: "stdlib".into()
        }
    );
    assert!(pick.signatures.as_ref().is_some_and(|s| !s.is_empty()));
    // Only the stdlib module's natives are visible, not every native puppet-stdlib has.
    assert!(!all.contains_key("apache::bool2httpd"));
}

#[path = "../../puppet-functions/tests/common/puppet_signatures.rs"]
mod puppet_signatures;
use puppet_signatures::puppet_signatures as puppet;

#[test]
fn built_in_signatures_are_puppets() {
    let all = listing();
    let mut compared = 0;
    let mut differing = Vec::new();
    for (name, theirs) in puppet() {
        let Some(theirs) = theirs else {
            continue;
        };
        // Hiera's own data providers: puppet-hiera reads those files itself, and a call
        // needs a `Puppet::LookupContext`, which Puppet code cannot make.
        if ["hocon_data", "json_data", "yaml_data"].contains(&name.as_str()) {
            assert!(!all.contains_key(&name), "{name} is listed: compare it");
            continue;
        }
        let ours = all
            .get(&name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        match ours.origin {
            FunctionOrigin::BuiltIn => {}
            ref other => panic!("Puppet's built-in {name} listed as {other}"),
        }
        compared += 1;
        if ours.signatures.as_ref() != Some(&theirs) {
            differing.push(format!("{name}: {:?} vs {theirs:?}", ours.signatures));
        }
    }
    assert!(compared > 40, "only {compared} functions compared");
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}
