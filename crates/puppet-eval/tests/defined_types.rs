//! `defined('<type name>')` answers as puppet 7.23 does for the resource types it knows
//! without modules: the built-in types and those of the core modules puppet-agent vendors.
//!
//! The expected answers were produced by Puppet 7.23 itself with
//! `puppet apply --noop -e '$n = [<the names below>] notice($n.map |$x| { defined($x) })'`
//! in an environment holding the vendored core modules (cron_core, host_core, mailalias,
//! mount_core, sshkeys_core, augeas_core); rerun it to regenerate them.

use puppet_eval::{evaluate_source, Settings};

const ANSWERS: &[(&str, bool)] = &[
    ("file", true),
    ("package", true),
    ("service", true),
    ("exec", true),
    ("user", true),
    ("group", true),
    ("notify", true),
    ("cron", true),
    ("host", true),
    ("mount", true),
    ("tidy", true),
    ("schedule", true),
    ("stage", true),
    ("filebucket", true),
    ("resources", true),
    ("sshkey", true),
    ("ssh_authorized_key", true),
    ("augeas", true),
    ("selboolean", false),
    ("selmodule", false),
    ("zfs", false),
    ("zone", false),
    ("zpool", false),
    ("component", true),
    ("whit", true),
    ("mailalias", true),
    ("nosuch", false),
];

#[test]
fn defined_knows_the_types_puppet_knows() {
    let names: Vec<String> = ANSWERS.iter().map(|(n, _)| format!("'{n}'")).collect();
    let src = format!("[{}].map |$x| {{ defined($x) }}", names.join(", "));
    let got = evaluate_source(&src, &Settings::default())
        .value
        .map(|v| v.to_string())
        .expect("evaluates");
    let want: Vec<String> = ANSWERS.iter().map(|(_, d)| d.to_string()).collect();
    assert_eq!(got, format!("[{}]", want.join(", ")));
}
