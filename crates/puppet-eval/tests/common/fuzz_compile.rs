//! The `compile` fuzz target's input and what it does with it, shared by the fuzz target
//! (`fuzz/fuzz_targets/compile.rs` includes this file) and by `tests/robustness.rs`, which
//! runs every input the fuzzer reported (`tests/fixtures/fuzz/`) the same way.
//!
//! An input is cut into sections at lines that are exactly `##----`
//! (`fuzz/fuzz_targets/sections.rs`): the first is the main manifest, the others become
//! files of a module `fz` (its `init.pp`, an ERB and an EPP template, Ruby function and type
//! files, its `metadata.json`) and the environment's Hiera data ([`SECTIONS`]); an empty
//! section, or one the input does not reach, is a file that does not exist. Beside them sit
//! a fixed module `m` (a class with parameters and `inherits`, a define, a Puppet function,
//! a type alias, templates, Hiera data, a Ruby function and type), so that
//! include/autoload, defines, templates, functions and lookups are reachable from a short
//! manifest, and a module `stdlib`, whose functions are puppet-stdlib's native ones
//! ([`TREE`]). The compiled catalog then goes through puppet-graph (build, order, cycles,
//! simulation). Any catalog or error is fine; only a panic, a hang or a memory blow-up is
//! a bug. `FUZZ_SHOW=1` in the environment prints the logs and the result.

#[path = "../../../../fuzz/fuzz_targets/sections.rs"]
mod sections;

use puppet_eval::{compile, Environment, Session, Settings};
use puppet_graph::{CycleLimits, Graph, Scenario};
use puppet_loader::MemoryProvider;
use puppet_types::Value;
use std::sync::{Arc, OnceLock};

/// Where each section of the input goes, in order.
pub const SECTIONS: &[&str] = &[
    "/env/manifests/site.pp",
    "/env/modules/fz/manifests/init.pp",
    "/env/modules/fz/templates/t.erb",
    "/env/modules/fz/templates/t.epp",
    "/env/data/common.yaml",
    "/env/modules/fz/lib/puppet/functions/fz/rb.rb",
    "/env/modules/fz/lib/puppet/type/fz_thing.rb",
    "/env/modules/fz/metadata.json",
];

/// The fixed part of the environment: modules `m` and `stdlib`, an environment function
/// and the environment's Hiera setup.
pub const TREE: &[(&str, &str)] = &[
    (
        "/env/hiera.yaml",
        "version: 5\nhierarchy:\n  - name: nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: common\n    path: common.yaml\n",
    ),
    (
        "/env/data/nodes/fuzz.example.com.yaml",
        "m::n: 7\nlist:\n  - a\n  - b\nlookup_options:\n  list:\n    merge: unique\n",
    ),
    (
        "/env/functions/environment/twice.pp",
        "function environment::twice($x) { [$x, $x] }\n",
    ),
    (
        "/env/modules/m/metadata.json",
        r#"{"name": "fz-m", "version": "1.0.0", "author": "fz", "license": "Apache-2.0", "summary": "m", "source": "m", "dependencies": []}"#,
    ),
    (
        "/env/modules/m/manifests/init.pp",
        "class m(String $msg = 'hi', Integer $n = 1, Optional[Hash] $h = undef, M::Port $port = 80) inherits m::params {\n  file { \"/tmp/m-${n}\": ensure => file, content => template('m/t.erb'), tag => ['m'] }\n  m::d { ['one', 'two']: list => [$n, $port] }\n  notify { \"m ${msg}\": message => m::f($msg).then |$s| { \"${s}!\" }, require => File[\"/tmp/m-${n}\"] }\n  @package { 'virtual': ensure => installed }\n  Package <| title == 'virtual' |>\n}\n",
    ),
    (
        "/env/modules/m/manifests/params.pp",
        "class m::params {\n  $defaults = { 'a' => 1, 'b' => [2, 3] }\n  $family = $facts['os']['family']\n}\n",
    ),
    (
        "/env/modules/m/manifests/d.pp",
        "define m::d(Array $list = [], Optional[String] $content = undef) {\n  $c = pick($content, epp('m/t.epp', { 'x' => $title, 'list' => $list }))\n  file { \"/tmp/d-${title}\": content => $c }\n  exec { \"refresh ${title}\": command => '/bin/true', refreshonly => true, subscribe => File[\"/tmp/d-${title}\"] }\n}\n",
    ),
    (
        "/env/modules/m/functions/f.pp",
        "function m::f(Variant[String, Integer] $x) >> String {\n  \"${x}\"\n}\n",
    ),
    ("/env/modules/m/types/port.pp", "type M::Port = Integer[1, 65535]\n"),
    (
        "/env/modules/m/templates/t.erb",
        "<%# m's template -%>\nmsg=<%= @msg %> n=<%= @n %>\n<% @defaults.each do |k, v| -%>\n<%= k %>: <%= v.inspect %>\n<% end -%>\n<%= scope.call_function('m::f', [@n]) %>\n",
    ),
    (
        "/env/modules/m/templates/t.epp",
        "<%- | String $x, Array $list = [] | -%>\nx=<%= $x %>\n<% $list.each |$i| { -%>\n- <%= $i %>\n<% } -%>\n",
    ),
    (
        "/env/modules/m/hiera.yaml",
        "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n",
    ),
    (
        "/env/modules/m/data/common.yaml",
        "m::msg: from hiera\nm::h:\n  k: \"%{facts.os.family}\"\n",
    ),
    (
        "/env/modules/m/lib/puppet/functions/m/upper.rb",
        "Puppet::Functions.create_function(:'m::upper') do\n  dispatch :upper do\n    param 'String', :s\n  end\n  def upper(s)\n    s.upcase\n  end\nend\n",
    ),
    (
        "/env/modules/m/lib/puppet/type/m_thing.rb",
        "Puppet::Type.newtype(:m_thing) do\n  ensurable\n  newparam(:name, namevar: true) do\n  end\n  newproperty(:value) do\n  end\n  autorequire(:file) { ['/tmp/m-1'] }\nend\n",
    ),
    ("/env/modules/m/files/x.txt", "file content\n"),
    // A module named stdlib: puppet-stdlib's native implementations of its functions
    // (pick, merge, to_json, ...) become callable without its Ruby files
    // (`Session::natives_for_any_version`).
    (
        "/env/modules/stdlib/metadata.json",
        r#"{"name": "puppetlabs-stdlib", "version": "9.0.0", "author": "p", "license": "Apache-2.0", "summary": "s", "source": "s", "dependencies": []}"#,
    ),
];

fn settings() -> Settings {
    let facts = [
        (
            "os",
            Value::hash([
                (Value::string("family"), Value::string("Debian")),
                (Value::string("name"), Value::string("Debian")),
            ]),
        ),
        ("fqdn", Value::string("fuzz.example.com")),
        ("kernel", Value::string("Linux")),
    ]
    .into_iter()
    .map(|(k, v)| (k.into(), v))
    .collect();
    Settings::agent("fuzz.example.com", facts)
}

/// The environment of the fixed tree plus the given sections (their files, as [`SECTIONS`]
/// places them), loaded through a `Session` (Hiera reads the same in-memory files); a
/// problem that stops loading (a broken `hiera.yaml`) is the input's result.
fn environment(sections: &[&str]) -> Result<Arc<Environment>, String> {
    let mut provider = MemoryProvider::new();
    for (path, content) in TREE {
        provider.insert(*path, *content);
    }
    for (path, section) in SECTIONS.iter().zip(sections) {
        if !section.is_empty() {
            provider.insert(*path, *section);
        }
    }
    let mut session = Session::new()
        .files(provider)
        .modulepath(["/env/modules"])
        .environment_dir("/env")
        .natives_for_any_version(true);
    if sections.first().is_some_and(|s| !s.is_empty()) {
        session = session.manifest(SECTIONS[0]);
    }
    session.load().map_err(|d| {
        d.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The environment of the fixed tree alone, loaded once: an input that is only a main
/// manifest replaces its main manifest ([`Environment::with_main_code`]), which is several
/// times faster than loading the modules again (what was loaded is shared between inputs,
/// as between compiles).
static FIXED: OnceLock<Result<Arc<Environment>, String>> = OnceLock::new();

/// Compiles one input and runs its catalog through puppet-graph; returns the number of
/// resources in the catalog, or the compile's error.
pub fn run(text: &str) -> Result<usize, String> {
    let sections = sections::split(text);
    let env = if sections.len() == 1 {
        let fixed = FIXED.get_or_init(|| environment(&[])).clone()?;
        Arc::new(fixed.with_main_code(Some(SECTIONS[0]), text))
    } else {
        environment(&sections)?
    };
    let out = compile(env, &settings());
    if std::env::var_os("FUZZ_SHOW").is_some() {
        for log in &out.logs {
            eprintln!("{}", log.render());
        }
        match &out.catalog {
            Ok(c) => eprintln!("catalog: {} resources", c.resources.len()),
            Err(e) => eprintln!("error: {}", e.located()),
        }
    }
    let catalog = out.catalog.map_err(|e| e.located())?;
    let _ = catalog.to_json();
    let Ok(graph) = Graph::build(&catalog) else {
        return Ok(catalog.resources.len());
    };
    let _ = graph.order();
    if graph.has_cycles() {
        let _ = graph.cycles(CycleLimits {
            max_cycles: 20,
            max_steps: 100_000,
        });
    } else {
        let _ = graph.simulate(&Scenario::new());
    }
    Ok(catalog.resources.len())
}
