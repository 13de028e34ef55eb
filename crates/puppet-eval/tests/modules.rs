//! What modules bring to a compile besides Puppet code: their Ruby functions (native
//! implementations from puppet-stdlib, stubs for the others), their Ruby resource types and
//! their templates; and `create_resources` and the catalog functions of stdlib declaring
//! through the compiler. Expected texts are Puppet 7.23's (checked with the oracle's
//! `compile-catalog`).

use puppet_eval::{compile, Environment, Session, Settings};
use puppet_loader::MemoryProvider;
use std::sync::Arc;

fn env_with(files: &[(&str, &str)], site: &str) -> Arc<Environment> {
    let mut provider = MemoryProvider::new().with_file("/env/site.pp", site);
    for (path, text) in files {
        provider.insert(format!("/env/modules/{path}"), *text);
    }
    Session::new()
        .files(provider)
        .modulepath(["/env/modules"])
        .manifest("/env/site.pp")
        // These tests exercise the natives with stand-in module files.
        .natives_for_any_version(true)
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"))
}

/// The catalog's resources as `Type[title] {json parameters}` lines (Class[main],
/// Class[Settings] and Stage[main] left out), or the error's located message.
fn compile_lines(env: Arc<Environment>) -> Result<Vec<String>, String> {
    let out = compile(env, &Settings::default());
    let cat = out.catalog.map_err(|e| e.located())?;
    let skip = ["Class[main]", "Class[Settings]", "Stage[main]"];
    Ok(cat
        .resources
        .iter()
        .map(|r| (format!("{}[{}]", r.type_name, r.title), r))
        .filter(|(name, _)| !skip.contains(&name.as_str()))
        .map(|(name, r)| {
            let params = serde_json::to_string(&r.parameters).unwrap_or_default();
            format!("{name} {params}")
        })
        .collect())
}

const STDLIB: (&str, &str) = (
    "stdlib/metadata.json",
    r#"{"name": "puppetlabs-stdlib", "version": "9.0.0", "author": "puppetlabs",
        "license": "Apache-2.0", "source": "s", "dependencies": []}"#,
);

#[test]
fn stdlib_functions_declare_through_the_compiler() {
    let site = r#"
        package { 'git': ensure => installed }
        ensure_packages(['git', 'vim'])
        ensure_resource('user', 'deploy', { 'ensure' => 'present' })
        ensure_resource('user', 'deploy', { 'ensure' => 'present' })
        if defined_with_params(User['deploy'], { 'ensure' => 'present' }) {
          notify { 'has deploy': message => getparam(User['deploy'], 'ensure') }
        }
        notify { 'picked': message => pick(undef, 'x') }
    "#;
    let lines = compile_lines(env_with(&[STDLIB], site)).unwrap();
    assert_eq!(
        lines,
        [
            r#"Package[git] {"ensure":"installed"}"#,
            r#"Package[vim] {"ensure":"installed"}"#,
            r#"User[deploy] {"ensure":"present"}"#,
            r#"Notify[has deploy] {"message":"present"}"#,
            r#"Notify[picked] {"message":"x"}"#,
        ]
    );
    // A conflicting declaration through a function is a duplicate, reported at the call.
    let site = "package { 'git': ensure => latest }\nensure_packages(['git'])\n";
    let e = compile_lines(env_with(&[STDLIB], site)).unwrap_err();
    assert!(
        e.starts_with(
            "Error while evaluating a Function Call, Duplicate declaration: Package[git] is already declared at (file: /env/site.pp, line: 1); cannot redeclare (file: /env/site.pp, line: 2)"
        ),
        "{e}"
    );
    assert!(
        e.ends_with("(file: /env/site.pp, line: 2, column: 1)"),
        "{e}"
    );
}

#[test]
fn module_functions_exist_only_with_their_module() {
    let e = compile_lines(Arc::new(Environment::from_main(
        None,
        "notice(pick(undef, 1))",
    )))
    .unwrap_err();
    assert_eq!(e, "Unknown function: 'pick'. (line: 1, column: 8)");
    // A Ruby function without a native implementation runs from its Ruby source.
    let rb = "Puppet::Functions.create_function(:'mymod::twice') do\n  dispatch :twice do\n    param 'Integer', :x\n  end\n  def twice(x)\n    x * 2\n  end\nend\n";
    let env = env_with(
        &[("mymod/lib/puppet/functions/mymod/twice.rb", rb)],
        "notify { \"${mymod::twice(2)}\": }\nnotify { mymod::twice('x'): }",
    );
    let e = compile_lines(env).unwrap_err();
    assert!(
        e.contains("'mymod::twice' parameter 'x' expects an Integer value, got String"),
        "{e}"
    );
    let env = env_with(
        &[("mymod/lib/puppet/functions/mymod/twice.rb", rb)],
        "notify { \"${mymod::twice(2)}\": }",
    );
    assert_eq!(compile_lines(env).unwrap(), [r#"Notify[4] {}"#]);
    // One that this interpreter cannot load (it runs a command) is known, and fails
    // naming its file, line and construct.
    let rb = "`ls`\nPuppet::Functions.create_function(:'mymod::ls') do\nend\n";
    let env = env_with(
        &[("mymod/lib/puppet/functions/mymod/ls.rb", rb)],
        "notice(mymod::ls(2))",
    );
    let e = compile_lines(env).unwrap_err();
    assert!(
        e.contains("/env/modules/mymod/lib/puppet/functions/mymod/ls.rb:1:1: unsupported Ruby construct: running the command `ls`"),
        "{e}"
    );
}

#[test]
fn module_resource_types_are_known() {
    let rb = "Puppet::Type.newtype(:thing) do\n  ensurable\n  newparam(:name, :namevar => true)\n  newproperty(:size)\nend\n";
    let files = [("things/lib/puppet/type/thing.rb", rb)];
    let lines = compile_lines(env_with(
        &files,
        "thing { 'a': ensure => present, size => 3 }",
    ));
    assert_eq!(
        lines.unwrap(),
        [r#"Thing[a] {"ensure":"present","size":3}"#]
    );
    let e = compile_lines(env_with(&files, "thing { 'a': colour => red }")).unwrap_err();
    assert_eq!(
        e,
        // Puppet appends the resource's location twice.
        "no parameter named 'colour' (file: /env/site.pp, line: 1) on Thing[a] (file: /env/site.pp, line: 1)"
    );
    assert!(compile_lines(env_with(&files, "notice(defined('thing'))")).is_ok());
    // A module type's name is a resource type in expressions.
    let site = "thing { 'a': }\nnotify { 'n': require => Thing['a'] }\nThing['a'] -> Notify['n']";
    assert!(compile_lines(env_with(&files, site)).is_ok());
    let e = compile_lines(Arc::new(Environment::from_main(None, "thing { 'a': }"))).unwrap_err();
    assert!(
        e.starts_with(
            "Error while evaluating a Resource Statement, Unknown resource type: 'thing'"
        ),
        "{e}"
    );
}

#[test]
fn create_resources_declares_like_a_resource_expression() {
    let site = r#"
        define d($p = 'dflt') { notify { "d ${title}": message => $p } }
        class c($x) { notify { "c ${x}": } }
        create_resources(notify, { 'a' => { 'message' => 1 }, 'b' => {} }, { 'message' => 'm' })
        create_resources('d', { 'one' => { 'p' => 'x' }, 'two' => { 'p' => undef } })
        create_resources('class', { 'c' => { 'x' => 5 } })
        create_resources('@notify', { 'virtual' => {} })
    "#;
    let lines = compile_lines(env_with(&[], site)).unwrap();
    assert_eq!(
        lines,
        [
            r#"Notify[a] {"message":1}"#,
            r#"Notify[b] {"message":"m"}"#,
            r#"D[one] {"p":"x"}"#,
            r#"D[two] {"p":"dflt"}"#,
            r#"Class[C] {"x":5}"#,
            r#"Notify[c 5] {}"#,
            r#"Notify[d one] {"message":"x"}"#,
            r#"Notify[d two] {"message":"dflt"}"#,
        ]
    );
    for (code, expected) in [
        (
            "notify { 'a': }\ncreate_resources(notify, { 'a' => {} })",
            "Error while evaluating a Function Call, Duplicate declaration: Notify[a] is already declared at (line: 1); cannot redeclare (file: unknown, line: 2) (line: 2, column: 1)",
        ),
        (
            "create_resources(nosuch, { 'a' => {} })",
            "Error while evaluating a Function Call, Unknown resource type: 'nosuch' (line: 1, column: 1)",
        ),
        (
            "create_resources('class', { 'nosuch' => {} })",
            "Error while evaluating a Function Call, Could not find declared class nosuch (line: 1, column: 1)",
        ),
        (
            "create_resources(notify)",
            "Error while evaluating a Function Call, create_resources(): Wrong number of arguments given (1 for minimum 2) (line: 1, column: 1)",
        ),
        (
            "create_resources(notify, 1)",
            "Error while evaluating a Function Call, create_resources(): second argument must be a hash (line: 1, column: 1)",
        ),
    ] {
        let e = compile_lines(Arc::new(Environment::from_main(None, code))).unwrap_err();
        assert_eq!(e, expected, "{code}");
    }
}

#[test]
fn module_name_is_the_module_of_the_code() {
    let files = [
        (
            "m/manifests/init.pp",
            "class m { notify { \"m=${module_name}\": } }",
        ),
        (
            "m/manifests/d.pp",
            "define m::d { notify { \"d=${module_name}\": } }",
        ),
    ];
    let site =
        "class local { notify { \"local=${module_name}.\": } }\ninclude m, local\nm::d { 'x': }";
    let lines = compile_lines(env_with(&files, site)).unwrap();
    let names: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("Notify"))
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(names, ["Notify[m=m]", "Notify[local=.]", "Notify[d=m]"]);
}

#[test]
fn templates_share_setvar_objects() {
    // apache's vhost templates: an object set with scope.setvar and changed in place is
    // what a template rendered from inside the first one reads.
    let files = [
        (
            "m/templates/outer.erb",
            "<%- scope.setvar('_shared', {}) -%>\n<%- [1, 2].each do |i| -%>\n<%- scope.lookupvar('_shared')[:item] = i -%>\n<%= scope.function_template(['m/inner.erb']) -%>\n<%- end -%>\n",
        ),
        (
            "m/templates/inner.erb",
            "item <%= scope.lookupvar('_shared')[:item] %>\n",
        ),
    ];
    let site = "notify { 'x': message => template('m/outer.erb') }";
    let lines = compile_lines(env_with(&files, site)).unwrap();
    assert_eq!(lines, [r#"Notify[x] {"message":"item 1\nitem 2\n"}"#]);
}

#[test]
fn module_templates() {
    let files = [
        ("m/templates/a.erb", "A<%= @v %>\n"),
        ("m/templates/b.erb", "B<%= @v %>\n"),
        ("m/templates/bad.erb", "a <%= @nope.foo %> b\n"),
        (
            "m/templates/sub/x.epp",
            "<%- | Integer $n | -%>\nn=<%= $n %> top=<%= $v %>\n",
        ),
    ];
    let site = r#"
        $v = 1
        notify { 'erb': message => template('m/a.erb', 'm/b.erb') }
        notify { 'epp': message => epp('m/sub/x', { 'n' => 2 }) }
    "#;
    let lines = compile_lines(env_with(&files, site)).unwrap();
    assert_eq!(
        lines,
        [
            r#"Notify[erb] {"message":"A1\nB1\n"}"#,
            r#"Notify[epp] {"message":"n=2 top=1\n"}"#,
        ]
    );
    for (code, expected) in [
        (
            "notify { 'x': message => template('m/nope.erb') }",
            "Error while evaluating a Function Call, Could not find template 'm/nope.erb' (file: /env/site.pp, line: 1, column: 26)",
        ),
        (
            "notify { 'x': message => epp('nope/x') }",
            "Error while evaluating a Function Call, Could not find template 'nope/x.epp' (file: /env/site.pp, line: 1, column: 26)",
        ),
        (
            "notify { 'x': message => epp('m/sub/x.epp', { 'n' => 1, 'y' => 2 }) }",
            "Error while evaluating a Function Call, lambda: has no parameter named 'y' (file: /env/site.pp, line: 1, column: 26)",
        ),
        (
            "notify { 'x': message => template('m/bad.erb') }",
            "Error while evaluating a Function Call, Failed to parse template m/bad.erb:\n  Filepath: /env/modules/m/templates/bad.erb\n  Line: 1\n  Detail: undefined method `foo' for nil:NilClass\n (file: /env/site.pp, line: 1, column: 26)",
        ),
    ] {
        let e = compile_lines(env_with(&files, code)).unwrap_err();
        assert_eq!(e, expected, "{code}");
    }
}

#[test]
fn a_loaded_main_manifest_is_validated() {
    let e = compile_lines(env_with(&[], "notify { 'a': }\n$a::b = 1\n")).unwrap_err();
    assert_eq!(
        e,
        "Could not parse for environment production: Illegal attempt to assign to 'a::b'. Cannot assign to variables in other namespaces (file: /env/site.pp, line: 2, column: 1)"
    );
}

#[test]
fn scope_defaults_and_get_module_path_ask_the_compiler() {
    // Expected values are Puppet 7.23's for the same manifest and module tree.
    let scope_defaults = "module Puppet::Parser::Functions\n  newfunction(:scope_defaults, :type => :rvalue) do |arguments|\n  end\nend\n";
    let get_module_path = "module Puppet::Parser::Functions\n  newfunction(:get_module_path, type: :rvalue) do |args|\n  end\nend\n";
    let site = r#"
        Exec { path => '/bin' }
        notify { 'a': message => String(scope_defaults('exec', 'path')) }
        notify { 'b': message => String(scope_defaults('Exec', 'user')) }
        class c {
          File { mode => '0644' }
          notify { 'c': message => "${scope_defaults('Exec', 'path')} ${scope_defaults('File', 'mode')}" }
        }
        include c
        notify { 'd': message => String(scope_defaults('File', 'mode')) }
        define d2() { notify { $title: message => String(scope_defaults('File', 'mode')) } }
        class e {
          File { mode => '0600' }
          d2 { 'e': }
        }
        include e
        notify { 'm': message => get_module_path('staging') }
    "#;
    let env = env_with(
        &[
            (
                "staging/lib/puppet/parser/functions/scope_defaults.rb",
                scope_defaults,
            ),
            (
                "stdlib/lib/puppet/parser/functions/get_module_path.rb",
                get_module_path,
            ),
        ],
        site,
    );
    let lines = compile_lines(env).unwrap();
    let messages: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("Notify["))
        .cloned()
        .collect();
    assert_eq!(
        messages,
        [
            r#"Notify[a] {"message":"true"}"#,
            r#"Notify[b] {"message":"false"}"#,
            r#"Notify[c] {"message":"true true"}"#,
            r#"Notify[d] {"message":"false"}"#,
            r#"Notify[m] {"message":"/env/modules/staging"}"#,
            r#"Notify[e] {"message":"true"}"#,
        ]
    );
    let e = compile_lines(env_with(
        &[(
            "stdlib/lib/puppet/parser/functions/get_module_path.rb",
            get_module_path,
        )],
        "notice(get_module_path('nope'))",
    ))
    .unwrap_err();
    assert!(
        e.contains("Could not find module nope in environment production"),
        "{e}"
    );
}

/// stdlib's `loadjson`/`loadyaml` and the built-in `file()` read through the environment's
/// file source; a missing file gives the default (Puppet warns), a URL is refused clearly.
#[test]
fn module_files_are_read_through_the_environment() {
    let stdlib = "module Puppet::Parser::Functions\n  newfunction(:loadjson, :type => :rvalue) do |args|\n  end\nend\n";
    let stdlib_yaml = "module Puppet::Parser::Functions\n  newfunction(:loadyaml, :type => :rvalue) do |args|\n  end\nend\n";
    let files = [
        ("stdlib/lib/puppet/parser/functions/loadjson.rb", stdlib),
        (
            "stdlib/lib/puppet/parser/functions/loadyaml.rb",
            stdlib_yaml,
        ),
        ("m/files/data.json", "{\"a\": [1, 2]}"),
        ("m/files/data.yaml", "---\nb: text\n"),
        ("m/files/motd", "hello\n"),
    ];
    let lines = compile_lines(env_with(
        &files,
        "notify { 'j': message => loadjson('/env/modules/m/files/data.json')['a'] }\n\
         notify { 'y': message => loadyaml('/env/modules/m/files/data.yaml')['b'] }\n\
         notify { 'd': message => loadjson('/env/modules/m/files/none.json', 'dflt') }\n\
         notify { 'f': message => file('m/motd') }\n",
    ))
    .unwrap();
    assert_eq!(
        lines,
        [
            r#"Notify[j] {"message":[1,2]}"#,
            r#"Notify[y] {"message":"text"}"#,
            r#"Notify[d] {"message":"dflt"}"#,
            r#"Notify[f] {"message":"hello\n"}"#,
        ]
    );
    let e = compile_lines(env_with(
        &files,
        "notify { 'u': message => loadjson('https://example.com/x.json') }",
    ))
    .unwrap_err();
    assert!(e.contains("needs the network"), "{e}");
}
