//! The corpus modules that ship a module-level `hiera.yaml` (cron_core, host_core,
//! mount_core, ntp, sshkeys_core, systemd under /usr/share/puppet/modules) must parse, and
//! their data must resolve with Debian 12 facts; values checked against Puppet 7.23 for
//! ntp (`ntp::servers`, `ntp::config`). Skipped when the corpus is not installed.

use puppet_hiera::{FsSource, HieraConfig, Lookup, MapScope};
use puppet_types::Value;
use std::path::Path;

const MODULES: [&str; 6] = [
    "cron_core",
    "host_core",
    "mount_core",
    "ntp",
    "sshkeys_core",
    "systemd",
];

fn facts() -> MapScope {
    let os = Value::hash([
        (Value::string("family"), Value::string("Debian")),
        (Value::string("name"), Value::string("Debian")),
        (
            Value::string("release"),
            Value::hash([
                (Value::string("major"), Value::string("12")),
                (Value::string("full"), Value::string("12.5")),
            ]),
        ),
    ]);
    MapScope::new().with("facts", Value::hash([(Value::string("os"), os)]))
}

#[test]
fn corpus_module_configs_parse_and_resolve() {
    let root = Path::new("/usr/share/puppet/modules");
    if !root.join("ntp/hiera.yaml").exists() {
        eprintln!("corpus not installed, skipped");
        return;
    }
    let dirs: Vec<(String, std::path::PathBuf)> = MODULES
        .iter()
        .map(|m| (m.to_string(), root.join(m)))
        .collect();
    for (name, dir) in &dirs {
        let text = std::fs::read_to_string(dir.join("hiera.yaml")).unwrap();
        let c = HieraConfig::parse(&text, dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.version, 5, "{name}");
    }
    let mods: Vec<(&str, &Path)> = dirs
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_path()))
        .collect();
    let lookup = Lookup::from_dirs(FsSource, None, None, &mods).unwrap();
    let scope = facts();
    let servers = lookup
        .lookup("ntp::servers", None, None, &scope)
        .unwrap()
        .unwrap();
    assert_eq!(
        servers.to_string(),
        "['0.debian.pool.ntp.org', '1.debian.pool.ntp.org', '2.debian.pool.ntp.org', '3.debian.pool.ntp.org']"
    );
    assert_eq!(
        lookup.lookup("ntp::config", None, None, &scope).unwrap(),
        Some(Value::string("/etc/ntp.conf"))
    );
    // Every key of every module's common.yaml resolves without error.
    for (name, dir) in &dirs {
        let text = std::fs::read_to_string(dir.join("data/common.yaml")).unwrap_or_default();
        if let Ok(Some(Value::Hash(h))) = puppet_hiera::yaml::load(&text) {
            for k in h.keys() {
                let k = k.to_plain_string();
                if k == "lookup_options" {
                    continue;
                }
                let v = lookup.lookup(&k, None, None, &scope);
                assert!(matches!(v, Ok(Some(_))), "{name}: {k}: {v:?}");
            }
        }
    }
}
