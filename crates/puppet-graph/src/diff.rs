//! The semantic difference of two catalogs of one node: resources added and removed,
//! parameters changed (with a unified diff of multi-line strings such as file content),
//! tags, relationship and containment edges, classes, and the dependency cycles and
//! unresolvable relationships a change introduces or removes.
//!
//! "Semantic" means compared the way Puppet uses the catalog, not as JSON: resources are
//! matched by Puppet's lookup key (`Class[foo]` is `Class[Foo]`, `File[/tmp/x/]` is
//! `File[/tmp/x]`); the relationship metaparameters (`before`, `require`, `notify`,
//! `subscribe`) are compared as the edges they make (`A { before => B }` and
//! `B { require => A }` are the same edge), so their order and form never matter; tags
//! (the `tag` metaparameter included) and the unordered metaparameters (`alias`, `audit`,
//! `check`) are compared as sets;
//! where a catalog was declared (`file`, `line`) and its `version` or `catalog_uuid` are not
//! compared. [`DiffOptions`] holds the noise filters users ask for.
//!
//! Not here: reading catalogs (see [`crate::Catalog`]), compiling them, or grouping the
//! changes of many nodes (a change's [`CatalogDiff::summary`] line is the key to group by).
//!
//! ```
//! use puppet_graph::{diff, Catalog, DiffOptions};
//! let old = Catalog::from_json(r#"{"name": "n", "resources": [
//!   {"type": "File", "title": "/etc/motd", "parameters": {"content": "hello\n", "mode": "0644"}},
//!   {"type": "Service", "title": "ssh"}]}"#).unwrap();
//! let new = Catalog::from_json(r#"{"name": "n", "resources": [
//!   {"type": "File", "title": "/etc/motd", "parameters": {"content": "hello\nworld\n", "mode": "0644",
//!                                                         "before": ["Service[ssh]"]}},
//!   {"type": "Service", "title": "ssh"}]}"#).unwrap();
//! let d = diff(&old, &new, &DiffOptions::default());
//! assert_eq!(d.summary(), ["~ File[/etc/motd] content", "+ edge File[/etc/motd] -> Service[ssh]"]);
//! assert!(d.resources_changed[0].parameters[0].diff.as_deref().unwrap().contains("+world"));
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use smol_str::SmolStr;

use crate::graph::Graph;
use crate::model::{Catalog, RelationKind, Resource};
use crate::reference;

/// What [`diff`] ignores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffOptions {
    /// A scalar equals an array holding only that scalar (`ensure => present` and
    /// `ensure => [present]`), at the top of a parameter's value.
    pub scalar_equals_singleton: bool,
    /// Parameters never compared: `name` for every resource, or `Type::name` (`File::mode`)
    /// for one type.
    pub ignore_parameters: Vec<String>,
    /// Resource types left out altogether (`Exec`, `Concat::Fragment`), with their edges.
    pub ignore_types: Vec<String>,
    /// Do not compare tags.
    pub ignore_tags: bool,
    /// Lines of context around each change of a multi-line string.
    pub context_lines: usize,
    /// Look for dependency cycles and unresolvable relationships (builds both graphs).
    pub check_graph: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            scalar_equals_singleton: false,
            ignore_parameters: Vec::new(),
            ignore_types: Vec::new(),
            ignore_tags: false,
            context_lines: 3,
            check_graph: true,
        }
    }
}

/// A resource present on one side only, with its parameters (relationship metaparameters
/// included: its edges are not listed apart).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceEntry {
    /// `Type[title]` as the agent prints it.
    pub resource: String,
    /// `file:line` of the declaration, when the catalog has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Its parameters, in catalog order (ignored parameters left out).
    pub parameters: IndexMap<String, Value>,
}

/// One parameter that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamChange {
    /// The parameter's name.
    pub name: String,
    /// The old value (`None`: not set).
    pub old: Option<Value>,
    /// The new value (`None`: not set).
    pub new: Option<Value>,
    /// For two strings of which one spans lines: their unified diff (hunks only, no file
    /// header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The value is sensitive on either side: `old` and `new` are not shown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sensitive: bool,
}

/// A resource on both sides that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceChange {
    /// `Type[title]` as the new catalog has it.
    pub resource: String,
    /// `file:line` in the new catalog, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Parameters that differ, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<ParamChange>,
    /// Tags only the new resource has.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags_added: Vec<String>,
    /// Tags only the old resource has.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags_removed: Vec<String>,
    /// Exported on one side only: the new value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exported: Option<bool>,
}

/// How an edge relates its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// The source contains the target (a class or defined type and its resources).
    Contains,
    /// The source is applied before the target (`before`/`require`, `->`).
    Before,
    /// Before, and the target is refreshed when the source changes (`notify`/`subscribe`,
    /// `~>`).
    Notify,
}

/// An edge of one side only.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct EdgeChange {
    /// Applied (or containing) first.
    pub source: String,
    /// Applied second (or contained).
    pub target: String,
    /// How.
    pub relationship: EdgeKind,
}

impl EdgeChange {
    fn arrow(&self) -> &'static str {
        match self.relationship {
            EdgeKind::Contains => "contains",
            EdgeKind::Before => "->",
            EdgeKind::Notify => "~>",
        }
    }
}

/// The difference of two catalogs. Every list is sorted; [`CatalogDiff::is_empty`] when
/// they are equal for the options given.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogDiff {
    /// The node (the new catalog's name, else the old one's).
    pub node: String,
    /// Resources only in the new catalog.
    pub resources_added: Vec<ResourceEntry>,
    /// Resources only in the old catalog.
    pub resources_removed: Vec<ResourceEntry>,
    /// Resources in both that differ.
    pub resources_changed: Vec<ResourceChange>,
    /// Relationship and containment edges only in the new catalog, leaving out the edges
    /// declared by an added resource (they are part of it).
    pub edges_added: Vec<EdgeChange>,
    /// Edges only in the old catalog, leaving out those of removed resources.
    pub edges_removed: Vec<EdgeChange>,
    /// Classes only in the new catalog.
    pub classes_added: Vec<String>,
    /// Classes only in the old catalog.
    pub classes_removed: Vec<String>,
    /// Dependency cycles of the new catalog that the old one does not have: for each cyclic
    /// component, the path the Puppet agent would print (`(Exec[a] => Exec[b] => Exec[a])`).
    pub cycles_added: Vec<String>,
    /// Cycles the change removes.
    pub cycles_removed: Vec<String>,
    /// Why the new catalog's graph cannot be built (a relationship to a resource that is
    /// not in the catalog, ...), when the old one's could or failed otherwise.
    pub graph_errors_added: Vec<String>,
    /// Graph errors the change fixes.
    pub graph_errors_removed: Vec<String>,
}

/// Compares `old` with `new`.
pub fn diff(old: &Catalog, new: &Catalog, options: &DiffOptions) -> CatalogDiff {
    let filter = Filter::new(options);
    let a = Side::new(old, &filter);
    let b = Side::new(new, &filter);
    let node = [new, old]
        .iter()
        .map(|c| node_name(c))
        .find(|n| !n.is_empty())
        .unwrap_or_default();

    let mut added = Vec::new();
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    for (key, &i) in &b.index {
        let r = &new.resources[i];
        match a.index.get(key) {
            None => added.push(entry(r, &filter)),
            Some(&j) => {
                if let Some(c) = compare(&old.resources[j], r, &filter, options) {
                    changed.push(c);
                }
            }
        }
    }
    for (key, &j) in &a.index {
        if !b.index.contains_key(key) {
            removed.push(entry(&old.resources[j], &filter));
        }
    }
    let sort_key = |r: &str| {
        reference::parse_ref(r).map(|(t, title)| (t.to_ascii_lowercase(), title.to_string()))
    };
    added.sort_by_key(|e| sort_key(&e.resource));
    removed.sort_by_key(|e| sort_key(&e.resource));
    changed.sort_by_key(|c| sort_key(&c.resource));

    // An edge declared on a resource of one side only is part of that resource.
    let edges_added = only_in(&b.edges, &a.edges, |holder| !a.index.contains_key(holder));
    let edges_removed = only_in(&a.edges, &b.edges, |holder| !b.index.contains_key(holder));

    let classes = |c: &Catalog| -> BTreeSet<String> {
        c.classes.iter().map(|c| c.to_ascii_lowercase()).collect()
    };
    let (ca, cb) = (classes(old), classes(new));

    let (mut cycles_added, mut cycles_removed) = (Vec::new(), Vec::new());
    let (mut errors_added, mut errors_removed) = (Vec::new(), Vec::new());
    if options.check_graph {
        let ga = graph_facts(old, &filter);
        let gb = graph_facts(new, &filter);
        cycles_added = gb.cycles.difference(&ga.cycles).cloned().collect();
        cycles_removed = ga.cycles.difference(&gb.cycles).cloned().collect();
        errors_added = gb.errors.difference(&ga.errors).cloned().collect();
        errors_removed = ga.errors.difference(&gb.errors).cloned().collect();
    }

    CatalogDiff {
        node,
        resources_added: added,
        resources_removed: removed,
        resources_changed: changed,
        edges_added,
        edges_removed,
        classes_added: cb.difference(&ca).cloned().collect(),
        classes_removed: ca.difference(&cb).cloned().collect(),
        cycles_added,
        cycles_removed,
        graph_errors_added: errors_added,
        graph_errors_removed: errors_removed,
    }
}

/// The node a catalog is for: `name`, or `node` in the oracle's canonical form.
fn node_name(c: &Catalog) -> String {
    if !c.name.is_empty() {
        return c.name.clone();
    }
    c.extra
        .get("node")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

struct Filter<'a> {
    options: &'a DiffOptions,
    types: BTreeSet<String>,
}

impl<'a> Filter<'a> {
    fn new(options: &'a DiffOptions) -> Filter<'a> {
        Filter {
            options,
            types: options
                .ignore_types
                .iter()
                .map(|t| t.strip_prefix("::").unwrap_or(t).to_ascii_lowercase())
                .collect(),
        }
    }

    fn keeps(&self, r: &Resource) -> bool {
        !self.types.contains(&r.type_key())
    }

    fn keeps_param(&self, r: &Resource, name: &str) -> bool {
        !self
            .options
            .ignore_parameters
            .iter()
            .any(|p| match p.rsplit_once("::") {
                Some((ty, param)) => {
                    param == name
                        && ty
                            .strip_prefix("::")
                            .unwrap_or(ty)
                            .eq_ignore_ascii_case(&r.type_key())
                }
                None => p == name,
            })
    }
}

/// Metaparameters whose arrays Puppet treats as sets (`tag` is compared through `tags`).
const UNORDERED: [&str; 3] = ["alias", "audit", "check"];

/// One side: resources by lookup key, and its edges with the resource that declared each.
struct Side {
    index: IndexMap<String, usize>,
    /// (edge, the lookup key of the resource that declared it).
    edges: BTreeMap<EdgeChange, BTreeSet<String>>,
}

impl Side {
    fn new(c: &Catalog, filter: &Filter<'_>) -> Side {
        let mut index = IndexMap::new();
        let mut display = std::collections::HashMap::new();
        for (i, r) in c.resources.iter().enumerate() {
            if !filter.keeps(r) {
                continue;
            }
            let key = reference::lookup_key(&r.type_name, &r.title);
            display.insert(key.clone(), r.reference());
            index.entry(key).or_insert(i);
        }
        // A reference: the lookup key of what it names and how to print it. `None` when it
        // names a type left out.
        let resolve = |text: &str| -> Option<(String, String)> {
            let Some((ty, title)) = reference::parse_ref(text) else {
                return Some((text.to_string(), text.to_string()));
            };
            if filter
                .types
                .contains(&ty.strip_prefix("::").unwrap_or(ty).to_ascii_lowercase())
            {
                return None;
            }
            let key = reference::lookup_key(ty, title);
            let shown = display
                .get(&key)
                .cloned()
                .unwrap_or_else(|| reference::display_ref(ty, title));
            Some((key, shown))
        };
        let mut edges: BTreeMap<EdgeChange, BTreeSet<String>> = BTreeMap::new();
        let mut add = |source: String, target: String, relationship: EdgeKind, holder: &str| {
            edges
                .entry(EdgeChange {
                    source,
                    target,
                    relationship,
                })
                .or_default()
                .insert(holder.to_string());
        };
        for (key, &i) in &index {
            let r = &c.resources[i];
            let me = display[key].clone();
            for (name, value) in &r.parameters {
                let Some(kind) = RelationKind::from_param(name) else {
                    continue;
                };
                let mut refs = Vec::new();
                flatten_refs(value, &mut refs);
                for text in refs {
                    let Some((_, other)) = resolve(&text) else {
                        continue;
                    };
                    let edge_kind = if kind.refreshes() {
                        EdgeKind::Notify
                    } else {
                        EdgeKind::Before
                    };
                    match kind {
                        RelationKind::Before | RelationKind::Notify => {
                            add(me.clone(), other, edge_kind, key)
                        }
                        RelationKind::Require | RelationKind::Subscribe => {
                            add(other, me.clone(), edge_kind, key)
                        }
                    }
                }
            }
        }
        for rel in &c.relationships {
            let (Some((sk, source)), Some((_, target))) =
                (resolve(&rel.source), resolve(&rel.target))
            else {
                continue;
            };
            let (source, target) = match rel.kind {
                RelationKind::Before | RelationKind::Notify => (source, target),
                RelationKind::Require | RelationKind::Subscribe => (target, source),
            };
            let kind = if rel.kind.refreshes() {
                EdgeKind::Notify
            } else {
                EdgeKind::Before
            };
            add(source, target, kind, &sk);
        }
        for e in &c.edges {
            let (Some((_, source)), Some((tk, target))) = (resolve(&e.source), resolve(&e.target))
            else {
                continue;
            };
            // Containment is declared by the contained resource's place in the code.
            add(source, target, EdgeKind::Contains, &tk);
        }
        Side { index, edges }
    }
}

fn flatten_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| flatten_refs(i, out)),
        _ => {}
    }
}

/// Edges of `mine` that `theirs` lacks, unless every resource that declared it exists on
/// one side only (`own(holder)`).
fn only_in(
    mine: &BTreeMap<EdgeChange, BTreeSet<String>>,
    theirs: &BTreeMap<EdgeChange, BTreeSet<String>>,
    own: impl Fn(&str) -> bool,
) -> Vec<EdgeChange> {
    mine.iter()
        .filter(|(e, holders)| !theirs.contains_key(*e) && !holders.iter().all(|h| own(h)))
        .map(|(e, _)| e.clone())
        .collect()
}

fn entry(r: &Resource, filter: &Filter<'_>) -> ResourceEntry {
    let sensitive = sensitive_params(r);
    ResourceEntry {
        resource: r.reference(),
        location: r.location(),
        parameters: r
            .parameters
            .iter()
            .filter(|(k, _)| filter.keeps_param(r, k))
            .map(|(k, v)| {
                let v = if sensitive.contains(k.as_str()) {
                    Value::String(REDACTED.into())
                } else {
                    v.clone()
                };
                (k.to_string(), v)
            })
            .collect(),
    }
}

const REDACTED: &str = "Sensitive [value redacted]";

fn sensitive_params(r: &Resource) -> BTreeSet<&str> {
    r.extra
        .get("sensitive_parameters")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn compare(
    old: &Resource,
    new: &Resource,
    filter: &Filter<'_>,
    options: &DiffOptions,
) -> Option<ResourceChange> {
    let sensitive: BTreeSet<&str> = sensitive_params(old)
        .union(&sensitive_params(new))
        .copied()
        .collect();
    let mut names: Vec<&SmolStr> = old.parameters.keys().collect();
    for k in new.parameters.keys() {
        if !old.parameters.contains_key(k) {
            names.push(k);
        }
    }
    names.sort();
    let mut parameters = Vec::new();
    for name in names {
        // The relationship metaparameters are compared as edges, `tag` as part of `tags`.
        if RelationKind::from_param(name).is_some()
            || name == "tag"
            || !filter.keeps_param(new, name)
        {
            continue;
        }
        let (a, b) = (old.parameters.get(name), new.parameters.get(name));
        if same_value(name, a, b, options) {
            continue;
        }
        let is_sensitive = sensitive.contains(name.as_str());
        let diff = match (a, b) {
            (Some(Value::String(x)), Some(Value::String(y)))
                if !is_sensitive && (x.contains('\n') || y.contains('\n')) =>
            {
                Some(unified(x, y, options.context_lines))
            }
            _ => None,
        };
        let shown = |v: Option<&Value>| {
            v.map(|v| {
                if is_sensitive {
                    Value::String(REDACTED.into())
                } else {
                    v.clone()
                }
            })
        };
        parameters.push(ParamChange {
            name: name.to_string(),
            old: shown(a),
            new: shown(b),
            diff,
            sensitive: is_sensitive,
        });
    }
    let (mut tags_added, mut tags_removed) = (Vec::new(), Vec::new());
    if !options.ignore_tags {
        let ta: BTreeSet<&SmolStr> = old.tags.iter().collect();
        let tb: BTreeSet<&SmolStr> = new.tags.iter().collect();
        tags_added = tb.difference(&ta).map(|t| t.to_string()).collect();
        tags_removed = ta.difference(&tb).map(|t| t.to_string()).collect();
    }
    let exported = (old.exported != new.exported).then_some(new.exported);
    if parameters.is_empty()
        && tags_added.is_empty()
        && tags_removed.is_empty()
        && exported.is_none()
    {
        return None;
    }
    Some(ResourceChange {
        resource: new.reference(),
        location: new.location(),
        parameters,
        tags_added,
        tags_removed,
        exported,
    })
}

fn same_value(name: &str, a: Option<&Value>, b: Option<&Value>, options: &DiffOptions) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return a.is_none() && b.is_none();
    };
    if a == b {
        return true;
    }
    let single = |v: &Value| -> Option<Value> {
        match v {
            Value::Array(items) if items.len() == 1 => Some(items[0].clone()),
            other => Some(other.clone()),
        }
    };
    if UNORDERED.contains(&name) {
        let set = |v: &Value| -> BTreeSet<String> {
            match v {
                Value::Array(items) => items.iter().map(Value::to_string).collect(),
                other => [other.to_string()].into(),
            }
        };
        return set(a) == set(b);
    }
    options.scalar_equals_singleton && single(a) == single(b)
}

/// The unified diff of two texts, hunks only.
fn unified(old: &str, new: &str, context: usize) -> String {
    let d = similar::TextDiff::from_lines(old, new);
    let mut out = String::new();
    for hunk in d.unified_diff().context_radius(context).iter_hunks() {
        let _ = write!(out, "{hunk}");
    }
    out
}

struct GraphFacts {
    cycles: BTreeSet<String>,
    errors: BTreeSet<String>,
}

/// The cycles of a catalog's graph, one per cyclic component in Puppet's notation (the path
/// the agent would print), or why it has no graph.
fn graph_facts(c: &Catalog, filter: &Filter<'_>) -> GraphFacts {
    let mut facts = GraphFacts {
        cycles: BTreeSet::new(),
        errors: BTreeSet::new(),
    };
    let kept;
    let c = if filter.types.is_empty() {
        c
    } else {
        let mut copy = c.clone();
        copy.resources.retain(|r| filter.keeps(r));
        let ignored = |text: &str| {
            reference::parse_ref(text).is_some_and(|(ty, _)| {
                filter
                    .types
                    .contains(&ty.strip_prefix("::").unwrap_or(ty).to_ascii_lowercase())
            })
        };
        for r in &mut copy.resources {
            for (name, value) in r.parameters.iter_mut() {
                if RelationKind::from_param(name).is_some() {
                    let mut refs = Vec::new();
                    flatten_refs(value, &mut refs);
                    refs.retain(|t| !ignored(t));
                    *value = Value::Array(refs.into_iter().map(Value::String).collect());
                }
            }
        }
        copy.relationships
            .retain(|rel| !ignored(&rel.source) && !ignored(&rel.target));
        copy.edges
            .retain(|e| !ignored(&e.source) && !ignored(&e.target));
        kept = copy;
        &kept
    };
    match Graph::build(c) {
        Err(e) => {
            facts.errors.insert(e.to_string());
        }
        Ok(g) => {
            if g.has_cycles() {
                facts.cycles.extend(g.puppet_cycle_paths());
            }
        }
    }
    facts
}

impl CatalogDiff {
    /// True when nothing differs.
    pub fn is_empty(&self) -> bool {
        self.resources_added.is_empty()
            && self.resources_removed.is_empty()
            && self.resources_changed.is_empty()
            && self.edges_added.is_empty()
            && self.edges_removed.is_empty()
            && self.classes_added.is_empty()
            && self.classes_removed.is_empty()
            && self.cycles_added.is_empty()
            && self.cycles_removed.is_empty()
            && self.graph_errors_added.is_empty()
            && self.graph_errors_removed.is_empty()
    }

    /// One line per change, without values: `+ File[/x]`, `- Service[y]`,
    /// `~ File[/etc/motd] content`, `~ File[/etc/motd] tags +web -db`,
    /// `+ edge Package[a] -> File[b]` (`~>` refreshes, `contains` for containment),
    /// `+ class profile::web`, `+ cycle (A => B => A)`, `+ graph error MESSAGE`. The same
    /// change on two nodes gives the same line.
    pub fn summary(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.resources_added {
            out.push(format!("+ {}", r.resource));
        }
        for r in &self.resources_removed {
            out.push(format!("- {}", r.resource));
        }
        for c in &self.resources_changed {
            for p in &c.parameters {
                out.push(format!("~ {} {}", c.resource, p.name));
            }
            if !c.tags_added.is_empty() || !c.tags_removed.is_empty() {
                let mut line = format!("~ {} tags", c.resource);
                for t in &c.tags_added {
                    let _ = write!(line, " +{t}");
                }
                for t in &c.tags_removed {
                    let _ = write!(line, " -{t}");
                }
                out.push(line);
            }
            if let Some(e) = c.exported {
                out.push(format!("~ {} exported {e}", c.resource));
            }
        }
        for (sign, edges) in [("+", &self.edges_added), ("-", &self.edges_removed)] {
            for e in edges {
                out.push(format!(
                    "{sign} edge {} {} {}",
                    e.source,
                    e.arrow(),
                    e.target
                ));
            }
        }
        for (sign, classes) in [("+", &self.classes_added), ("-", &self.classes_removed)] {
            for c in classes {
                out.push(format!("{sign} class {c}"));
            }
        }
        for (sign, cycles) in [("+", &self.cycles_added), ("-", &self.cycles_removed)] {
            for c in cycles {
                out.push(format!("{sign} cycle {c}"));
            }
        }
        for (sign, errors) in [
            ("+", &self.graph_errors_added),
            ("-", &self.graph_errors_removed),
        ] {
            for e in errors {
                out.push(format!("{sign} graph error {e}"));
            }
        }
        out
    }

    /// The difference as text for people: a header line, then each change with its values
    /// and the unified diff of multi-line strings. `color` adds ANSI colours (for a
    /// terminal).
    pub fn to_text(&self, color: bool) -> String {
        let paint = |code: &str, text: &str| {
            if color {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text.to_string()
            }
        };
        let (green, red, yellow, cyan, bold) = ("32", "31", "33", "36", "1");
        let mut out = String::new();
        let node = if self.node.is_empty() {
            "catalog"
        } else {
            &self.node
        };
        if self.is_empty() {
            let _ = writeln!(out, "{}: no differences", paint(bold, node));
            return out;
        }
        let _ = writeln!(
            out,
            "{}: {} added, {} removed, {} changed resources; {} added, {} removed edges; {} added, {} removed classes{}",
            paint(bold, node),
            self.resources_added.len(),
            self.resources_removed.len(),
            self.resources_changed.len(),
            self.edges_added.len(),
            self.edges_removed.len(),
            self.classes_added.len(),
            self.classes_removed.len(),
            match self.cycles_added.len() {
                0 => String::new(),
                1 => "; 1 new dependency cycle".to_string(),
                n => format!("; {n} new dependency cycles"),
            }
        );
        let value = |v: &Option<Value>| match v {
            None => "(not set)".to_string(),
            Some(v) => v.to_string(),
        };
        for (sign, code, entries) in [
            ("+", green, &self.resources_added),
            ("-", red, &self.resources_removed),
        ] {
            for r in entries {
                let at = r
                    .location
                    .as_deref()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{}{at}",
                    paint(code, &format!("{sign} {}", r.resource))
                );
                for (k, v) in &r.parameters {
                    let _ = writeln!(out, "    {k} => {v}");
                }
            }
        }
        for c in &self.resources_changed {
            let at = c
                .location
                .as_deref()
                .map(|l| format!(" ({l})"))
                .unwrap_or_default();
            let _ = writeln!(out, "{}{at}", paint(yellow, &format!("~ {}", c.resource)));
            for p in &c.parameters {
                match &p.diff {
                    Some(d) => {
                        let _ = writeln!(out, "    {}:", p.name);
                        for line in d.lines() {
                            let shown = match line.as_bytes().first() {
                                Some(b'+') => paint(green, line),
                                Some(b'-') => paint(red, line),
                                Some(b'@') => paint(cyan, line),
                                _ => line.to_string(),
                            };
                            let _ = writeln!(out, "      {shown}");
                        }
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            "    {}: {} -> {}",
                            p.name,
                            paint(red, &value(&p.old)),
                            paint(green, &value(&p.new))
                        );
                    }
                }
            }
            if !c.tags_added.is_empty() || !c.tags_removed.is_empty() {
                let mut line = String::from("    tags:");
                for t in &c.tags_added {
                    let _ = write!(line, " {}", paint(green, &format!("+{t}")));
                }
                for t in &c.tags_removed {
                    let _ = write!(line, " {}", paint(red, &format!("-{t}")));
                }
                let _ = writeln!(out, "{line}");
            }
            if let Some(e) = c.exported {
                let _ = writeln!(out, "    exported: {} -> {e}", !e);
            }
        }
        for (sign, code, edges) in [
            ("+", green, &self.edges_added),
            ("-", red, &self.edges_removed),
        ] {
            for e in edges {
                let line = format!("{sign} edge {} {} {}", e.source, e.arrow(), e.target);
                let _ = writeln!(out, "{}", paint(code, &line));
            }
        }
        for (sign, code, classes) in [
            ("+", green, &self.classes_added),
            ("-", red, &self.classes_removed),
        ] {
            for c in classes {
                let _ = writeln!(out, "{}", paint(code, &format!("{sign} class {c}")));
            }
        }
        for (sign, code, what, list) in [
            ("+", red, "dependency cycle", &self.cycles_added),
            ("-", green, "dependency cycle", &self.cycles_removed),
            ("+", red, "graph error", &self.graph_errors_added),
            ("-", green, "graph error", &self.graph_errors_removed),
        ] {
            for c in list {
                let _ = writeln!(out, "{}", paint(code, &format!("{sign} {what} {c}")));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(json: &str) -> Catalog {
        Catalog::from_json(json).unwrap()
    }

    #[test]
    fn before_and_require_make_the_same_edge() {
        let a = cat(r#"{"resources": [
            {"type": "Package", "title": "p", "parameters": {"before": "Service[s]"}},
            {"type": "Service", "title": "s"}]}"#);
        let b = cat(r#"{"resources": [
            {"type": "Package", "title": "p"},
            {"type": "Service", "title": "s", "parameters": {"require": ["Package[p]"]}}]}"#);
        assert!(diff(&a, &b, &DiffOptions::default()).is_empty());
        let c = cat(r#"{"resources": [
            {"type": "Package", "title": "p"},
            {"type": "Service", "title": "s", "parameters": {"subscribe": ["Package[p]"]}}]}"#);
        assert_eq!(
            diff(&a, &c, &DiffOptions::default()).summary(),
            [
                "+ edge Package[p] ~> Service[s]",
                "- edge Package[p] -> Service[s]"
            ]
        );
    }

    #[test]
    fn ignored_types_take_their_edges_along() {
        let a = cat(r#"{"resources": [{"type": "Service", "title": "s"}]}"#);
        let b = cat(r#"{"resources": [
            {"type": "Exec", "title": "e", "parameters": {"notify": "Service[s]"}},
            {"type": "Service", "title": "s", "parameters": {"require": "Exec[e]"}}]}"#);
        assert_eq!(
            diff(&a, &b, &DiffOptions::default()).summary(),
            ["+ Exec[e]", "+ edge Exec[e] -> Service[s]"]
        );
        let options = DiffOptions {
            ignore_types: vec!["exec".into()],
            ..DiffOptions::default()
        };
        assert!(diff(&a, &b, &options).is_empty());
    }

    #[test]
    fn sensitive_values_are_not_shown() {
        let a = cat(r#"{"resources": [{"type": "File", "title": "/k",
            "parameters": {"content": "old\nsecret\n"}, "sensitive_parameters": ["content"]}]}"#);
        let b = cat(r#"{"resources": [{"type": "File", "title": "/k",
            "parameters": {"content": "new\nsecret\n"}, "sensitive_parameters": ["content"]}]}"#);
        let d = diff(&a, &b, &DiffOptions::default());
        let change = &d.resources_changed[0].parameters[0];
        assert!(change.sensitive && change.diff.is_none());
        let text = d.to_text(false) + &serde_json::to_string(&d).unwrap();
        assert!(!text.contains("secret"), "{text}");
    }

    #[test]
    fn missing_targets_are_graph_errors() {
        let a = cat(r#"{"resources": [{"type": "Service", "title": "s"}]}"#);
        let b = cat(r#"{"resources": [{"type": "Service", "title": "s",
            "parameters": {"require": "Package[gone]"}}]}"#);
        let d = diff(&a, &b, &DiffOptions::default());
        assert_eq!(d.edges_added.len(), 1);
        assert_eq!(d.graph_errors_added.len(), 1, "{d:?}");
        assert!(d.graph_errors_added[0].contains("Package[gone]"));
    }
}
