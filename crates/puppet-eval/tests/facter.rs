//! `Facter` in a module's Ruby during a compile (3.x and 4.x functions, ERB templates):
//! Puppet's `Facter` answers for the machine that runs the compile, which on a Puppet server
//! is not the node; the code that asks means the node (it was written for `puppet apply`),
//! so puppet-ruby answers with the compiled node's `$facts`: `Facter.value(name)` (a String
//! or Symbol, a dotted path into a structured fact), `Facter[name]`/`Facter.fact(name)` (the
//! fact's `name` and `value`, or nil), `defined?(Facter)`. Each node of a compile sees its
//! own facts.

use puppet_eval::{Session, Settings};
use puppet_loader::MemoryProvider;
use puppet_types::Value;

const V3: &str = r#"module Puppet::Parser::Functions
  newfunction(:m_family, :type => :rvalue) do |args|
    [Facter.value(:osfamily), Facter.value('os.release.major'), Facter.value(:nosuch).inspect].join(' ')
  end
end
"#;

const V4: &str = r##"Puppet::Functions.create_function(:'m::kernel') do
  def kernel
    f = Facter[:kernel]
    "#{defined?(Facter)} #{f.name}=#{f.value} #{Facter.fact('absent').inspect} #{Facter.value('os.nosuch.deeper').inspect}"
  end
end
"##;

fn node(name: &str, family: &str) -> Settings {
    let facts = [
        ("osfamily".into(), Value::string(family)),
        ("kernel".into(), Value::string("Linux")),
        (
            "os".into(),
            Value::hash([(
                Value::string("release"),
                Value::hash([(Value::string("major"), Value::string("9"))]),
            )]),
        ),
    ]
    .into_iter()
    .collect();
    Settings::agent(name, facts)
}

#[test]
fn facter_answers_with_the_compiled_nodes_facts() {
    let files = MemoryProvider::new()
        .with_file(
            "/env/modules/m/manifests/init.pp",
            "class m { notify { 'v3': message => m_family() }\n notify { 'v4': message => m::kernel() }\n notify { 'erb': message => inline_template('<%= Facter.value(:osfamily) %>') } }",
        )
        .with_file("/env/modules/m/lib/puppet/parser/functions/m_family.rb", V3)
        .with_file("/env/modules/m/lib/puppet/functions/m/kernel.rb", V4);
    let env = Session::new()
        .files(files)
        .modulepath(["/env/modules"])
        .code("include m".to_string())
        .load()
        .expect("loads");
    for (name, family) in [("a.example.com", "RedHat"), ("b.example.com", "Debian")] {
        let out = env.compile(&node(name, family));
        let catalog = out.catalog.expect("compiles");
        let message = |title: &str| {
            let r = &catalog.resources[catalog.find(&format!("Notify[{title}]")).unwrap()];
            r.parameters["message"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(message("v3"), format!("{family} 9 nil"));
        assert_eq!(message("v4"), "constant kernel=Linux nil nil");
        assert_eq!(message("erb"), family);
    }
}
