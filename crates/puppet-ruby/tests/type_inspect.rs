//! How Ruby code sees the Type and Sensitive values Puppet hands it, compared with Puppet
//! 7.23 (`fixtures/type_inspect.json`, made by `fixtures/gen_type_inspect.rb`): each object's
//! `inspect`, its class, and the NoMethodError of a method it lacks, which quotes the
//! inspect (`undefined method `x' for #<Puppet::Pops::Types::PIntegerType:0x... @from=1,
//! @to=2>`). Object addresses are left out on both sides (Ruby's change from run to run,
//! ours are made up). The types whose Ruby objects this engine does not reproduce must be
//! reported as such (`UNMODELLED`), never printed wrong.

use puppet_ruby::eval_inspect;

/// Types whose Ruby objects are not reproduced: a method they lack is an unsupported
/// construct, not a NoMethodError with a made-up text.
const UNMODELLED: &[&str] = &["Data", "Callable[String]", "Class[foo]", "File['/tmp']"];

/// The text without the `:0x...` address that follows a class name after `#<`.
fn without_addresses(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(":0x") {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let hex = tail[3..].bytes().take_while(u8::is_ascii_hexdigit).count();
        rest = &tail[3 + hex..];
    }
    out.push_str(rest);
    out
}

fn ruby_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[test]
fn type_objects_read_as_puppets() {
    let text = include_str!("fixtures/type_inspect.json");
    let doc: serde_json::Value = serde_json::from_str(text).expect("json");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 50);
    let mut failures = Vec::new();
    for c in cases {
        let make = match (c["type"].as_str(), c["sensitive"].as_str()) {
            (Some(t), _) => format!(
                "Puppet::Pops::Types::TypeParser.singleton.parse({})",
                ruby_string(t)
            ),
            (None, Some(s)) => format!(
                "Puppet::Pops::Types::PSensitiveType::Sensitive.new({})",
                ruby_string(s)
            ),
            _ => panic!("case without a value: {c}"),
        };
        let code = format!(
            "v = {make}\n\
             m = begin; v.no_such_method; rescue NoMethodError => e; e.message; end\n\
             [v.inspect, v.class.name, m]"
        );
        let want = format!(
            "[{}, {}, {}]",
            puppet_types::ruby::inspect_str(c["inspect"].as_str().unwrap_or("")),
            puppet_types::ruby::inspect_str(c["class"].as_str().unwrap_or("")),
            puppet_types::ruby::inspect_str(c["no_method"].as_str().unwrap_or(""))
        );
        match eval_inspect(&code) {
            Ok(got) if without_addresses(&got) == want => {}
            got => failures.push(format!("{make}\n  got  {got:?}\n  want {want}")),
        }
    }
    for t in UNMODELLED {
        let code = format!(
            "Puppet::Pops::Types::TypeParser.singleton.parse({}).no_such_method",
            ruby_string(t)
        );
        match eval_inspect(&code) {
            Err(puppet_ruby::RubyError::Unsupported { .. }) => {}
            other => failures.push(format!("{t}: expected unsupported, got {other:?}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
