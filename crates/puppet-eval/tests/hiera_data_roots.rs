//! Hiera data outside the directories of its `hiera.yaml` files (`datadir: /var/lib/hiera`,
//! an absolute `path`): Puppet reads it, so the session's file-system reader serves it, and a
//! backend function written in Ruby may read the paths Hiera hands it
//! (`Puppet::FileSystem.read(options['path'])`), as Puppet 7.23 does (checked by hand with
//! the oracle's `compile-catalog -H`).

use puppet_eval::{Session, Settings};
use std::path::{Path, PathBuf};

/// A fresh directory of this test under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("puppet-eval-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn global_data_outside_the_configuration_directory_is_read() {
    let root = scratch("hiera-data-roots");
    let (conf, data, modules) = (root.join("conf"), root.join("data"), root.join("modules"));
    write(
        &conf.join("hiera.yaml"),
        &format!(
            "---\nversion: 5\ndefaults:\n  datadir: {}\nhierarchy:\n  - name: yaml\n    data_hash: yaml_data\n    path: common.yaml\n  - name: ruby\n    data_hash: site::json_file\n    path: extra.json\n",
            data.display()
        ),
    );
    write(&data.join("common.yaml"), "from_yaml: outside\n");
    write(&data.join("extra.json"), "{\"from_ruby\": [1, 2]}\n");
    write(
        &modules.join("site/lib/puppet/functions/site/json_file.rb"),
        "Puppet::Functions.create_function(:'site::json_file') do\n  dispatch :json_file do\n    param 'Struct[{path=>String[1]}]', :options\n    param 'Puppet::LookupContext', :context\n  end\n  def json_file(options, context)\n    JSON.parse(Puppet::FileSystem.read(options['path'], :encoding => 'utf-8'))\n  end\nend\n",
    );
    let env = Session::new()
        .modulepath([&modules])
        .hiera_config(conf.join("hiera.yaml"))
        .code("notice(lookup('from_yaml')) notice(lookup('from_ruby'))")
        .load()
        .expect("loads");
    let out = env.compile(&Settings::default());
    let _ = std::fs::remove_dir_all(&root);
    let notices: Vec<&str> = out.logs.iter().map(|l| l.message.as_str()).collect();
    assert!(out.catalog.is_ok(), "{:?} {notices:?}", out.catalog.err());
    assert_eq!(notices, ["outside", "[1, 2]"]);
}
