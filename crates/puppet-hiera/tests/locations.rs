//! Hierarchy locations that name a directory: Hiera takes them as existing (Ruby's
//! `Pathname#exist?`), so `yaml_data` fails to read one with Ruby's error, as Puppet 7.23
//! does ("Is a directory @ io_fread - PATH", checked with the oracle's compile-catalog), and
//! a location that names nothing is still skipped. A `lookup_key` function given such a
//! directory is tested in `tests/hiera_ruby.rs` of the workspace root (level "Key directory").

use puppet_hiera::error::codes;
use puppet_hiera::{HieraConfig, Lookup, MapScope, MemorySource};
use puppet_types::Value;

const HIERA: &str = r#"version: 5
defaults: {datadir: data, data_hash: yaml_data}
hierarchy:
  - name: Missing
    path: nothing-here
  - name: Directory
    path: adir
  - name: Common
    path: common.yaml
"#;

fn lookup(files: MemorySource) -> Lookup {
    Lookup::builder(files)
        .environment(HieraConfig::parse(HIERA, "/env").unwrap())
        .build()
        .unwrap()
}

#[test]
fn yaml_data_on_a_directory_fails_as_ruby_reading_it() {
    let files = MemorySource::new()
        .with("/env/hiera.yaml", HIERA)
        .with("/env/data/adir/inner.yaml", "x: inner")
        .with("/env/data/common.yaml", "x: common");
    let err = lookup(files)
        .lookup("x", None, None, &MapScope::new())
        .unwrap_err();
    assert_eq!(err.code, codes::READ_FAILED);
    assert_eq!(err.message, "Is a directory @ io_fread - /env/data/adir");
}

#[test]
fn missing_locations_are_skipped() {
    let files = MemorySource::new()
        .with("/env/hiera.yaml", HIERA)
        .with("/env/data/common.yaml", "x: common");
    let v = lookup(files)
        .lookup("x", None, None, &MapScope::new())
        .unwrap();
    assert_eq!(v, Some(Value::string("common")));
}

#[test]
fn memory_source_knows_directories() {
    use puppet_hiera::DataSource;
    use std::path::Path;
    let files = MemorySource::new().with("/env/data/adir/inner.yaml", "x: 1");
    assert!(files.exists(Path::new("/env/data/adir")));
    assert!(files.exists(Path::new("/env/data/adir/inner.yaml")));
    assert!(files.exists(Path::new("/env/data")));
    assert!(!files.exists(Path::new("/env/data/ad")));
    assert!(!files.exists(Path::new("/env/data/adir/other.yaml")));
}
