//! The CI loop over the sample control repository: a copy of `examples/control-repo` with a
//! scripted change (a package added in common data, a relationship that closes a cycle in
//! the web profile, a `fail()` in the database profile) compared with the original for
//! every node through `puppet_lang::envdiff` (what `catalog_diff --environment OLD
//! --environment NEW --nodes DIR` prints), checking the grouped report: each change once
//! with the nodes that have it, the node that no longer compiles with its error, the cycle
//! the change brings, and the exit status.

use puppet_lang::envdiff::{self, NodeResult};
use puppet_lang::{Session, Settings};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/control-repo")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Replaces `old` (which must occur once) in the file `path`.
fn edit(path: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.matches(old).count(), 1, "{path:?}: {old}");
    std::fs::write(path, text.replacen(old, new, 1)).unwrap();
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_scripted_change_is_reported_per_node_and_grouped() {
    let scratch = Scratch(std::env::temp_dir().join(format!(
        "puppet-rs-control-repo-diff-{}",
        std::process::id()
    )));
    let new_dir = scratch.0.join("head");
    copy_dir(&repo(), &new_dir);
    edit(
        &new_dir.join("data/common.yaml"),
        "  - vim\n",
        "  - vim\n  - htop\n",
    );
    edit(
        &new_dir.join("site-modules/profile/manifests/web.pp"),
        "  Class['profile::users'] -> Class['profile::web']\n",
        "  Class['profile::users'] -> Class['profile::web']\n  Class['profile::web'] -> Class['profile::users']\n",
    );
    edit(
        &new_dir.join("site-modules/profile/manifests/database.pp"),
        ") {\n",
        ") {\n  fail('the database profile is broken')\n",
    );

    let load = |dir: &Path| {
        Session::new()
            .environment(dir)
            .environment_name("production")
            .load()
            .unwrap_or_else(|d| panic!("{d:?}"))
    };
    let (old, new) = (load(&repo()), load(&new_dir));
    let (found, problems) = envdiff::read_nodes(&repo().join("facts"));
    assert!(problems.is_empty(), "{problems:?}");
    let nodes: Vec<Settings> = found
        .into_iter()
        .map(|(name, n)| Settings::agent(&name, n.facts))
        .collect();

    // Unchanged: equal everywhere.
    let same = envdiff::diff_environments(&old, &old, &nodes, &Default::default());
    assert_eq!(
        (same.equal(), same.groups.len(), same.exit_status()),
        (4, 0, 0)
    );

    let d = envdiff::diff_environments(&old, &new, &nodes, &Default::default());
    assert_eq!(d.exit_status(), 2);
    assert_eq!(
        (
            d.equal(),
            d.changed(),
            d.failing_on_one_side(),
            d.failing_on_both_sides()
        ),
        (0, 3, 1, 0)
    );
    let groups: Vec<(Vec<&str>, Vec<&str>)> = d
        .groups
        .iter()
        .map(|g| {
            (
                g.nodes.iter().map(String::as_str).collect(),
                g.change.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    let web = &groups[0];
    assert_eq!(web.0, ["web01.example.com", "web02.example.com"]);
    assert_eq!(
        web.1[..3],
        [
            "+ Package[htop]",
            "~ Class[Profile::Base] packages",
            "+ edge Class[Profile::Web] -> Class[Profile::Users]",
        ]
    );
    assert_eq!(web.1.len(), 4, "{:?}", web.1);
    assert!(web.1[3].starts_with("+ cycle ("), "{}", web.1[3]);
    assert!(groups[1..].contains(&(
        vec!["build01.example.com"],
        vec!["+ Package[htop]", "~ Class[Profile::Base] packages"]
    )));
    assert!(groups[1..].contains(&(
        vec!["db01.example.com"],
        vec!["! fails after the change: Error while evaluating a Function Call, the database profile is broken"]
    )));
    let db = d
        .nodes
        .iter()
        .find(|r| r.node == "db01.example.com")
        .unwrap();
    match &db.result {
        NodeResult::Failed {
            old: None,
            new: Some(e),
        } => {
            assert!(e.contains("database.pp, line: "), "{e}")
        }
        other => panic!("{other:?}"),
    }

    let text = d.to_text(false, false);
    assert!(
        text.starts_with("4 nodes: 0 equal, 3 changed, 1 failing with one environment, 0 failing with both\n\nthis change on 2 nodes (web01.example.com, web02.example.com):\n  + Package[htop]\n"),
        "{text}"
    );
    assert!(
        text.contains("\nbuild01.example.com: 2 changes\n"),
        "{text}"
    );
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["nodes"][0]["status"], "changed");
    assert_eq!(json["groups"][0]["nodes"].as_array().unwrap().len(), 2);
}
