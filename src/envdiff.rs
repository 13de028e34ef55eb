//! Two environments compared node by node: the CI loop of a control repository (the
//! checkout before a change and the one after), every node compiled with both in one
//! process, in parallel, each pair of catalogs compared with [`puppet_graph::diff`], and the
//! nodes whose changes are the same grouped ("this change on 212 nodes").
//!
//! A node that compiles with one environment and fails with the other is a difference of
//! its own (with the error); dependency cycles and relationships to missing resources that
//! the change brings or removes are part of each node's [`CatalogDiff`]. This module only
//! compiles and compares: reading facts files is [`read_nodes`], printing is
//! [`EnvironmentDiff::to_text`] or serde.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use puppet_diagnostics::{Diagnostic, Severity};
use puppet_eval::facts::{self, NodeFacts};
use puppet_eval::{Environment, Settings};
use puppet_graph::{diff, CatalogDiff, DiffOptions};
use puppet_types::Value;
use serde::Serialize;

/// What the change does to one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum NodeResult {
    /// Both catalogs are equal (for the options given).
    Equal,
    /// Both compile, to different catalogs.
    Changed {
        /// The difference.
        diff: Box<CatalogDiff>,
    },
    /// At least one of the compiles failed: the errors (`None`: that side compiled).
    Failed {
        /// The error with the old environment.
        old: Option<String>,
        /// The error with the new environment.
        new: Option<String>,
    },
}

/// One node's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeReport {
    /// The certname.
    pub node: String,
    /// What differs.
    #[serde(flatten)]
    pub result: NodeResult,
}

/// Nodes with the same change: the change's lines ([`CatalogDiff::summary`], or a line for
/// a compile that fails on one side) and the nodes, sorted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The change, one line per item (the same on every node of the group).
    pub change: Vec<String>,
    /// The nodes that have it.
    pub nodes: Vec<String>,
}

/// The comparison of two environments over a set of nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnvironmentDiff {
    /// Every node, in the order given.
    pub nodes: Vec<NodeReport>,
    /// The nodes that are not equal, grouped by change: the largest group first.
    pub groups: Vec<Group>,
}

/// Compiles every node with `old` and with `new` (in parallel, on rayon's current pool)
/// and compares the catalogs. The same [`Settings`] serve both environments, so that only
/// the code and data differ (give them the environment name the nodes have in
/// production).
///
/// ```
/// use puppet_lang::{envdiff, Session, Settings};
/// let old = Session::new().code("file { '/etc/motd': content => 'a' }").load().unwrap();
/// let new = Session::new()
///     .code("file { '/etc/motd': content => $trusted['certname'] ? { /^web/ => 'b', default => 'a' } }")
///     .load()
///     .unwrap();
/// let nodes: Vec<Settings> = ["web01", "web02", "db01"].iter().map(|n| Settings::agent(n, Default::default())).collect();
/// let d = envdiff::diff_environments(&old, &new, &nodes, &Default::default());
/// assert_eq!(d.groups.len(), 1);
/// assert_eq!(d.groups[0].nodes, ["web01", "web02"]);
/// assert_eq!(d.groups[0].change, ["~ File[/etc/motd] content"]);
/// assert_eq!(d.exit_status(), 2);
/// ```
pub fn diff_environments(
    old: &Arc<Environment>,
    new: &Arc<Environment>,
    nodes: &[Settings],
    options: &DiffOptions,
) -> EnvironmentDiff {
    use rayon::prelude::*;
    let reports: Vec<NodeReport> = nodes
        .par_iter()
        .map(|settings| {
            let a = old.compile(settings).catalog;
            let b = new.compile(settings).catalog;
            let result = match (a, b) {
                (Ok(a), Ok(b)) => {
                    let d = diff(&a, &b, options);
                    if d.is_empty() {
                        NodeResult::Equal
                    } else {
                        NodeResult::Changed { diff: Box::new(d) }
                    }
                }
                (a, b) => NodeResult::Failed {
                    old: a.err().map(|e| e.located()),
                    new: b.err().map(|e| e.located()),
                },
            };
            NodeReport {
                node: settings.node_name.clone(),
                result,
            }
        })
        .collect();
    let mut groups: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for r in &reports {
        let change = match &r.result {
            NodeResult::Equal => continue,
            NodeResult::Changed { diff } => diff.summary(),
            NodeResult::Failed { old, new } => failure_lines(old.as_deref(), new.as_deref()),
        };
        groups.entry(change).or_default().push(r.node.clone());
    }
    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|(change, mut nodes)| {
            nodes.sort();
            Group { change, nodes }
        })
        .collect();
    // Largest first; equal sizes keep the order of their change lines.
    groups.sort_by_key(|g| std::cmp::Reverse(g.nodes.len()));
    EnvironmentDiff {
        nodes: reports,
        groups,
    }
}

/// The change lines of a node that fails on one side or both. Error texts name files of
/// each environment; the message before Puppet's location suffix groups them.
fn failure_lines(old: Option<&str>, new: Option<&str>) -> Vec<String> {
    let message = |e: &str| match e.rfind(" (file: ") {
        Some(i) if e.ends_with(')') => e[..i].to_string(),
        _ => e.to_string(),
    };
    match (old, new) {
        (None, Some(e)) => vec![format!("! fails after the change: {}", message(e))],
        (Some(e), None) => vec![format!(
            "! compiles after the change, failed before: {}",
            message(e)
        )],
        (Some(a), Some(b)) if message(a) == message(b) => {
            vec![format!(
                "! fails before and after the change: {}",
                message(b)
            )]
        }
        (Some(a), Some(b)) => vec![
            format!("! failed before the change: {}", message(a)),
            format!("! fails after the change: {}", message(b)),
        ],
        (None, None) => Vec::new(),
    }
}

impl EnvironmentDiff {
    /// Nodes whose catalogs are equal.
    pub fn equal(&self) -> usize {
        self.count(|r| matches!(r, NodeResult::Equal))
    }

    /// Nodes whose catalogs differ.
    pub fn changed(&self) -> usize {
        self.count(|r| matches!(r, NodeResult::Changed { .. }))
    }

    /// Nodes that compile with one environment only.
    pub fn failing_on_one_side(&self) -> usize {
        self.count(
            |r| matches!(r, NodeResult::Failed { old, new } if old.is_some() != new.is_some()),
        )
    }

    /// Nodes that fail with both environments.
    pub fn failing_on_both_sides(&self) -> usize {
        self.count(|r| {
            matches!(
                r,
                NodeResult::Failed {
                    old: Some(_),
                    new: Some(_)
                }
            )
        })
    }

    fn count(&self, f: impl Fn(&NodeResult) -> bool) -> usize {
        self.nodes.iter().filter(|r| f(&r.result)).count()
    }

    /// 0 when every node compiles with both and nothing differs, 2 when something differs
    /// (a node that fails with one environment only included), 1 when a node fails with
    /// both (nothing can be said of it).
    pub fn exit_status(&self) -> u8 {
        if self.failing_on_both_sides() > 0 {
            1
        } else if self.groups.is_empty() {
            0
        } else {
            2
        }
    }

    /// The report for people: a count line, the groups (each change once, with how many
    /// nodes and which), then one line per node; with `details`, each changed node's whole
    /// difference ([`CatalogDiff::to_text`], values and file content diffs). `color` adds
    /// ANSI colours.
    pub fn to_text(&self, color: bool, details: bool) -> String {
        let bold = |t: &str| {
            if color {
                format!("\x1b[1m{t}\x1b[0m")
            } else {
                t.to_string()
            }
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} nodes: {} equal, {} changed, {} failing with one environment, {} failing with both",
            self.nodes.len(),
            self.equal(),
            self.changed(),
            self.failing_on_one_side(),
            self.failing_on_both_sides()
        );
        for g in &self.groups {
            let shown: Vec<&str> = g.nodes.iter().take(5).map(String::as_str).collect();
            let more = match g.nodes.len().saturating_sub(shown.len()) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let plural = if g.nodes.len() == 1 { "" } else { "s" };
            let _ = writeln!(
                out,
                "\n{} ({}{more}):",
                bold(&format!("this change on {} node{plural}", g.nodes.len())),
                shown.join(", ")
            );
            for line in &g.change {
                let _ = writeln!(out, "  {line}");
            }
        }
        out.push('\n');
        for r in &self.nodes {
            let line = match &r.result {
                NodeResult::Equal => "equal".to_string(),
                NodeResult::Changed { diff } => {
                    let n = diff.summary().len();
                    format!("{n} change{}", if n == 1 { "" } else { "s" })
                }
                NodeResult::Failed {
                    old: None,
                    new: Some(e),
                } => format!("fails after the change: {e}"),
                NodeResult::Failed {
                    old: Some(e),
                    new: None,
                } => {
                    format!("compiles after the change, failed before: {e}")
                }
                NodeResult::Failed { new, .. } => format!(
                    "fails before and after the change: {}",
                    new.as_deref().unwrap_or_default()
                ),
            };
            let _ = writeln!(out, "{}: {line}", r.node);
        }
        if details {
            for r in &self.nodes {
                if let NodeResult::Changed { diff } = &r.result {
                    out.push('\n');
                    out.push_str(&diff.to_text(color));
                }
            }
        }
        out
    }
}

/// The nodes of a directory of facts files (`*.json`, `*.yaml`, `*.yml`, in name order;
/// see [`puppet_eval::facts`] for the shapes, a PuppetDB export giving several nodes), each
/// with its certname: the file's (`name`, `certname`), else its `fqdn` fact, else the
/// file's name less the extension. Files that cannot be read are diagnostics; the others
/// still count. The files are parsed in parallel on rayon's current pool (call it inside
/// `ThreadPool::install` to choose the threads); the result does not depend on it.
pub fn read_nodes(dir: &Path) -> (Vec<(String, NodeFacts)>, Vec<Diagnostic>) {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("json" | "yaml" | "yml")
                )
            })
            .collect(),
        Err(e) => {
            let d = Diagnostic::new(Severity::Error, facts::BAD_FACTS, e.to_string())
                .with_file(dir.display().to_string());
            return (Vec::new(), vec![d]);
        }
    };
    files.sort();
    // Parsed in parallel (on the caller's rayon pool), then taken in file order: for 500
    // nodes the parse was ~10 % of a `compile --nodes` run's instructions (callgrind,
    // 2026-11-27), all of it on one thread before the first compile.
    let read: Vec<_> = {
        use rayon::prelude::*;
        files.par_iter().map(|f| read_facts_file(f)).collect()
    };
    let mut nodes = Vec::new();
    let mut problems = Vec::new();
    for (f, found) in files.iter().zip(read) {
        match found {
            Ok(found) => {
                let single = found.len() == 1;
                for n in found {
                    let name = certname_of(&n, single.then_some(f.as_path()))
                        .unwrap_or_else(|| "node.example.com".to_string());
                    nodes.push((name, n));
                }
            }
            Err(d) => problems.push(d),
        }
    }
    (nodes, problems)
}

/// Reads one facts file (one node, or several for a PuppetDB export).
pub fn read_facts_file(path: &Path) -> Result<Vec<NodeFacts>, Diagnostic> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::new(Severity::Error, facts::BAD_FACTS, e.to_string()).with_file(name.clone())
    })?;
    facts::read_facts(&name, &text)
}

/// The certname of a node: the facts file's, else its `fqdn` fact, else the file's name
/// less its extension.
pub fn certname_of(node: &NodeFacts, file: Option<&Path>) -> Option<String> {
    node.certname
        .clone()
        .or_else(|| match node.facts.get("fqdn") {
            Some(Value::String(s)) => Some(s.to_string()),
            _ => None,
        })
        .or_else(|| {
            file.and_then(|f| f.file_stem())
                .map(|s| s.to_string_lossy().into_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_group_by_message() {
        assert_eq!(
            failure_lines(None, Some("boom (file: /a/site.pp, line: 1, column: 2)")),
            ["! fails after the change: boom"]
        );
        assert_eq!(
            failure_lines(
                Some("boom (file: /old/site.pp, line: 1, column: 2)"),
                Some("boom (file: /new/site.pp, line: 1, column: 2)")
            ),
            ["! fails before and after the change: boom"]
        );
    }
}
