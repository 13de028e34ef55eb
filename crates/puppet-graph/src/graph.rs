//! The relationship graph: a build phase ([`GraphBuilder`]) that resolves every relationship
//! of a catalog, then a sealed, immutable [`Graph`] for queries (apply order, dependencies,
//! cycles, simulation, DOT).
//!
//! The graph is built the way the Puppet agent builds it at apply time: explicit
//! relationships first (per resource in catalog order: `require`, `subscribe`, `before`,
//! `notify`), then automatic ones (skipped where an explicit edge exists either way), then
//! every container (class, stage, defined-type instance) is replaced by a pair of
//! sentinels, its *start* (Puppet's admissible whit) and *end* (completed whit), so that an
//! edge to a container orders everything it contains. The order of adjacency lists follows
//! Puppet's too, because it decides which path Puppet's cycle message shows.
//!
//! petgraph is used internally (strongly connected components) and never appears in the
//! public API. This module does not simulate a run ([`crate::simulate`]) nor enumerate
//! cycles ([`crate::cycles`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use crate::autorequire::{self, AutoRelation};
use crate::error::Error;
use crate::fxhash::{FxMap, FxSet};
use crate::model::{Catalog, RelationKind, RelationOrigin};
use crate::reference::{self, display_ref, lookup_key, lookup_key_into, parse_ref};

/// Identifies a resource of the catalog a [`Graph`] was built from: its index in
/// `Catalog::resources`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ResourceId(pub(crate) u32);

impl ResourceId {
    /// The index of the resource in `Catalog::resources`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an edge of the graph comes from, with the location of the resource (or arrow)
/// that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "origin", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EdgeOrigin {
    /// A relationship metaparameter on `declared_on`.
    Metaparameter {
        /// `before`, `require`, `notify` or `subscribe`.
        param: RelationKind,
        /// The resource carrying the parameter.
        declared_on: String,
        /// `file:line` of that resource.
        location: Option<String>,
    },
    /// A chaining arrow (recorded by a compiler in the `relationships` extension).
    Arrow {
        /// `before` (`->`) or `notify` (`~>`).
        kind: RelationKind,
        /// `file:line` of the arrow.
        location: Option<String>,
    },
    /// The `require` function.
    RequireFunction {
        /// `file:line` of the call.
        location: Option<String>,
    },
    /// An automatic relationship of `declared_on`'s type.
    Automatic {
        /// Which kind.
        relation: AutoRelation,
        /// The resource whose type rule made it.
        declared_on: String,
        /// `file:line` of that resource.
        location: Option<String>,
    },
    /// Containment: a container's start precedes its members, its members precede its end.
    Containment {
        /// The container.
        container: String,
        /// `file:line` of the container.
        location: Option<String>,
    },
    /// Added through [`GraphBuilder::add_relationship`].
    Api {
        /// The relationship kind.
        kind: RelationKind,
    },
}

/// Compact internal form of [`EdgeOrigin`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Org {
    Meta { param: RelationKind, holder: u32 },
    Ext { index: u32 },
    Auto { relation: AutoRelation, holder: u32 },
    Contain { container: u32 },
    Api { kind: RelationKind },
}

/// A relationship between two resources before containers are expanded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RelEdge {
    pub source: u32,
    pub target: u32,
    pub refresh: bool,
    pub org: Org,
}

/// Which part of a resource a graph vertex stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// A leaf resource (not a container).
    Resource,
    /// The start of a container (Puppet's `admissible_` whit).
    Start,
    /// The end of a container (Puppet's `completed_` whit).
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Vertex {
    pub res: u32,
    pub part: Part,
}

/// An edge of the expanded graph.
#[derive(Debug, Clone, Copy)]
pub(crate) struct XEdge {
    pub source: u32,
    pub target: u32,
    pub refresh: bool,
    pub org: Org,
}

/// What the graph keeps of each catalog resource.
#[derive(Debug, Clone)]
pub(crate) struct ResInfo {
    pub reference: String,
    pub type_key: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub tags: Vec<String>,
    pub container: bool,
    pub in_graph: bool,
    pub noop: Option<bool>,
    pub refreshonly: bool,
    pub deleting: bool,
}

impl ResInfo {
    pub(crate) fn location(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
            (Some(f), None) => Some(f.clone()),
            (None, Some(l)) => Some(format!("line {l}")),
            (None, None) => None,
        }
    }
}

#[derive(Debug, Clone)]
struct ExtRel {
    kind: RelationKind,
    origin: RelationOrigin,
    file: Option<String>,
    line: Option<u32>,
}

/// The build phase: resolves a catalog's relationships; add more with
/// [`GraphBuilder::add_relationship`], then [`GraphBuilder::seal`].
///
/// ```
/// use puppet_graph::{Catalog, GraphBuilder, RelationKind};
/// let cat = Catalog::from_json(r#"{"resources":[
///   {"type":"Notify","title":"a"},{"type":"Notify","title":"b"}],"edges":[]}"#).unwrap();
/// let mut b = GraphBuilder::from_catalog(&cat).unwrap();
/// b.add_relationship("Notify[b]", "Notify[a]", RelationKind::Before).unwrap();
/// let g = b.seal();
/// let order: Vec<_> = g.order().unwrap().into_iter().map(|r| g.reference(r)).collect();
/// assert_eq!(order, ["Notify[b]", "Notify[a]"]);
/// ```
#[derive(Debug)]
pub struct GraphBuilder {
    res: Vec<ResInfo>,
    keys: FxMap<String, u32>,
    children: Vec<Vec<u32>>,
    rel: Vec<RelEdge>,
    rel_pairs: FxSet<(u32, u32)>,
    autos: Vec<(u32, AutoRelation, u32)>,
    ext: Vec<ExtRel>,
}

fn collect_refs<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        Value::Null => {}
        other => out.push(other),
    }
}

impl GraphBuilder {
    /// Reads the resources, containment and explicit relationships of `catalog`.
    /// A reference to a resource that is not in the catalog is an error with Puppet's text.
    pub fn from_catalog(catalog: &Catalog) -> Result<GraphBuilder, Error> {
        let n = catalog.resources.len();
        let mut keys: FxMap<String, u32> = FxMap::default();
        keys.reserve(n * 2);
        let mut buf = String::new();
        let mut res = Vec::with_capacity(n);
        for (i, r) in catalog.resources.iter().enumerate() {
            let key = lookup_key(&r.type_name, &r.title);
            if keys.insert(key, i as u32).is_some() {
                return Err(Error::DuplicateResource {
                    reference: r.reference(),
                });
            }
            let tk = r.type_key();
            res.push(ResInfo {
                reference: display_ref(&r.type_name, &r.title),
                refreshonly: tk == "exec" && r.param_bool("refreshonly") == Some(true),
                type_key: tk,
                file: r.file.clone(),
                line: r.line,
                tags: r.tags.clone(),
                container: false,
                in_graph: !r.exported,
                noop: r.param_bool("noop"),
                deleting: r.param_str("ensure") == Some("absent"),
            });
        }
        // Aliases: the `alias` metaparameter and a namevar that differs from the title.
        for (i, r) in catalog.resources.iter().enumerate() {
            let mut names: Vec<String> = Vec::new();
            if let Some(v) = r.parameters.get("alias") {
                let mut vals = Vec::new();
                collect_refs(v, &mut vals);
                names.extend(vals.iter().filter_map(|v| v.as_str().map(str::to_string)));
            }
            let namevar = match res[i].type_key.as_str() {
                "file" => r.param_str("path"),
                "package" | "service" | "user" | "group" | "host" | "mount" => r.param_str("name"),
                _ => None,
            };
            if let Some(nv) = namevar {
                names.push(nv.to_string());
            }
            for name in names {
                keys.entry(lookup_key(&r.type_name, &name))
                    .or_insert(i as u32);
            }
        }

        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut child_seen: FxSet<(u32, u32)> = FxSet::default();
        fn find_in(keys: &FxMap<String, u32>, buf: &mut String, s: &str) -> Option<u32> {
            let (t, title) = parse_ref(s)?;
            keys.get(lookup_key_into(buf, t, title)).copied()
        }
        for e in &catalog.edges {
            let s = find_in(&keys, &mut buf, &e.source).ok_or_else(|| {
                Error::MissingContainmentEnd {
                    end: "source",
                    reference: e.source.clone(),
                    other: e.target.clone(),
                }
            })?;
            let t = find_in(&keys, &mut buf, &e.target).ok_or_else(|| {
                Error::MissingContainmentEnd {
                    end: "target",
                    reference: e.target.clone(),
                    other: e.source.clone(),
                }
            })?;
            if child_seen.insert((s, t)) {
                children[s as usize].push(t);
            }
        }
        for (i, r) in catalog.resources.iter().enumerate() {
            res[i].container = r.is_container(!children[i].is_empty());
        }

        let mut b = GraphBuilder {
            res,
            keys: FxMap::default(),
            children,
            rel: Vec::with_capacity(catalog.resources.len() * 4),
            rel_pairs: FxSet::default(),
            autos: Vec::new(),
            ext: Vec::new(),
        };

        // Relationships recorded with their origin, grouped by the resource and parameter
        // Puppet would have put them on.
        type Holder = (u32, RelationKind);
        let mut ext_by_holder: IndexMap<Holder, Vec<(u32, u32, u32)>> = IndexMap::new();
        for (idx, r) in catalog.relationships.iter().enumerate() {
            let s = find_in(&keys, &mut buf, &r.source);
            let t = find_in(&keys, &mut buf, &r.target);
            let (s, t) = match (s, t) {
                (Some(s), Some(t)) => (s, t),
                (None, _) => {
                    return Err(Error::MissingForRelationship {
                        missing: r.source.clone(),
                        other: r.target.clone(),
                        missing_is_source: true,
                    })
                }
                (_, None) => {
                    return Err(Error::MissingForRelationship {
                        missing: r.target.clone(),
                        other: r.source.clone(),
                        missing_is_source: false,
                    })
                }
            };
            let refresh = r.kind.refreshes();
            b.ext.push(ExtRel {
                kind: if refresh {
                    RelationKind::Notify
                } else {
                    RelationKind::Before
                },
                origin: r.origin,
                file: r.file.clone(),
                line: r.line,
            });
            let (holder, param) = if r.origin == RelationOrigin::RequireFunction {
                (t, RelationKind::Require)
            } else if refresh {
                (s, RelationKind::Notify)
            } else {
                (s, RelationKind::Before)
            };
            ext_by_holder
                .entry((holder, param))
                .or_default()
                .push((s, t, idx as u32));
        }

        for (i, r) in catalog.resources.iter().enumerate() {
            if !b.res[i].in_graph {
                continue;
            }
            for kind in RelationKind::PUPPET_ORDER {
                if let Some(v) = r.parameters.get(kind.as_str()) {
                    let mut vals = Vec::new();
                    collect_refs(v, &mut vals);
                    for val in vals {
                        let text = match val {
                            Value::String(s) => s.as_str(),
                            _ => "",
                        };
                        let parsed = parse_ref(text);
                        let Some((ty, title)) = parsed else {
                            return Err(Error::BadReference {
                                reference: val.to_string(),
                                param: kind.as_str().to_string(),
                                resource: b.res[i].reference.clone(),
                            });
                        };
                        let other = keys
                            .get(lookup_key_into(&mut buf, ty, title))
                            .copied()
                            .filter(|o| b.res[*o as usize].in_graph);
                        let Some(other) = other else {
                            return Err(Error::MissingInParameter {
                                target: format!(
                                    "{}[{}]",
                                    reference::capitalize_segments(ty),
                                    title
                                ),
                                param: kind.as_str().to_string(),
                                resource: b.res[i].reference.clone(),
                                file: r.file.clone(),
                                line: r.line,
                            });
                        };
                        let (s, t) = if kind.incoming() {
                            (other, i as u32)
                        } else {
                            (i as u32, other)
                        };
                        b.push_rel(
                            s,
                            t,
                            kind.refreshes(),
                            Org::Meta {
                                param: kind,
                                holder: i as u32,
                            },
                        );
                    }
                }
                if let Some(list) = ext_by_holder.get(&(i as u32, kind)) {
                    for &(s, t, idx) in list {
                        b.push_rel(s, t, kind.refreshes(), Org::Ext { index: idx });
                    }
                }
            }
        }

        // Automatic relationships: candidates now, filtered against explicit edges at seal.
        let file_paths = || -> Vec<String> {
            catalog
                .resources
                .iter()
                .filter(|r| r.type_key() == "file" && !r.exported)
                .map(|r| reference::normalize_path(r.param_str("path").unwrap_or(&r.title)))
                .collect()
        };
        for (i, r) in catalog.resources.iter().enumerate() {
            if !b.res[i].in_graph || b.res[i].container {
                continue;
            }
            let exists = |p: &str| keys.contains_key(&lookup_key("file", p));
            let cands = autorequire::candidates(r, &exists, &file_paths);
            for (rel, ty, title) in cands {
                if let Some(&o) = keys.get(lookup_key_into(&mut buf, ty, &title)) {
                    if o != i as u32 && b.res[o as usize].in_graph {
                        b.autos.push((i as u32, rel, o));
                    }
                }
            }
        }
        b.keys = keys;
        Ok(b)
    }

    fn push_rel(&mut self, source: u32, target: u32, refresh: bool, org: Org) {
        self.rel_pairs.insert((source, target));
        self.rel.push(RelEdge {
            source,
            target,
            refresh,
            org,
        });
    }

    fn lookup(&self, reference: &str) -> Result<u32, Error> {
        parse_ref(reference)
            .and_then(|(t, title)| self.keys.get(&lookup_key(t, title)).copied())
            .filter(|i| self.res[*i as usize].in_graph)
            .ok_or_else(|| Error::UnknownResource {
                reference: reference.to_string(),
            })
    }

    /// Adds a relationship `source -> target` (`kind` `before`/`notify` seen from the
    /// source; `require`/`subscribe` make `target` apply first).
    pub fn add_relationship(
        &mut self,
        source: &str,
        target: &str,
        kind: RelationKind,
    ) -> Result<(), Error> {
        let s = self.lookup(source)?;
        let t = self.lookup(target)?;
        let (s, t) = if kind.incoming() { (t, s) } else { (s, t) };
        self.push_rel(s, t, kind.refreshes(), Org::Api { kind });
        Ok(())
    }

    /// Ends the build phase: adds automatic relationships, expands containers and
    /// computes the strongly connected components.
    pub fn seal(mut self) -> Graph {
        // Automatic relationships never override or contradict explicit ones.
        let autos = std::mem::take(&mut self.autos);
        for (holder, relation, other) in autos {
            let (s, t) = match relation {
                AutoRelation::Autorequire | AutoRelation::Autosubscribe => (other, holder),
                AutoRelation::Autobefore | AutoRelation::Autonotify => (holder, other),
            };
            if self.rel_pairs.contains(&(s, t)) || self.rel_pairs.contains(&(t, s)) {
                continue;
            }
            let refresh = matches!(
                relation,
                AutoRelation::Autosubscribe | AutoRelation::Autonotify
            );
            self.push_rel(s, t, refresh, Org::Auto { relation, holder });
        }
        expand(self)
    }
}

/// Expands containers into start/end sentinels the way the agent does, keeping Puppet's
/// adjacency order: the targets of a vertex are ordered by their first surviving edge.
/// Only edges to or from containers are ever removed, and containers never come back, so
/// an append-only edge list with dead flags is enough.
fn expand(b: GraphBuilder) -> Graph {
    let n = b.res.len();
    let containers: Vec<u32> = (0..n as u32)
        .filter(|&i| b.res[i as usize].container && b.res[i as usize].in_graph)
        .collect();
    let total = n + 2 * containers.len();
    let mut edges: Vec<XEdge> = Vec::with_capacity(b.rel.len() + 3 * n);
    let mut alive: Vec<bool> = Vec::with_capacity(b.rel.len() + 3 * n);
    let mut rel_in: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut rel_out: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (id, e) in b.rel.iter().enumerate() {
        edges.push(XEdge {
            source: e.source,
            target: e.target,
            refresh: e.refresh,
            org: e.org,
        });
        alive.push(true);
        if b.res[e.target as usize].container {
            rel_in[e.target as usize].push(id as u32);
        }
        if b.res[e.source as usize].container {
            rel_out[e.source as usize].push(id as u32);
        }
    }
    let add = |edges: &mut Vec<XEdge>, alive: &mut Vec<bool>, source, target, refresh, org| {
        edges.push(XEdge {
            source,
            target,
            refresh,
            org,
        });
        alive.push(true);
    };
    let mut start: Vec<u32> = (0..n as u32).collect();
    let mut end: Vec<u32> = (0..n as u32).collect();
    let mut whits: Vec<Vertex> = Vec::with_capacity(2 * containers.len());
    for (k, &c) in containers.iter().enumerate() {
        start[c as usize] = (n + 2 * k) as u32;
        end[c as usize] = (n + 2 * k + 1) as u32;
        whits.push(Vertex {
            res: c,
            part: Part::Start,
        });
        whits.push(Vertex {
            res: c,
            part: Part::End,
        });
    }
    let mut by_source: IndexMap<u32, Vec<u32>> = IndexMap::new();
    for &c in &containers {
        let (cs, ce) = (start[c as usize], end[c as usize]);
        let org = Org::Contain { container: c };
        let mut any = false;
        for &v in &b.children[c as usize] {
            if !b.res[v as usize].in_graph {
                continue;
            }
            any = true;
            add(&mut edges, &mut alive, cs, start[v as usize], true, org);
            add(&mut edges, &mut alive, end[v as usize], ce, true, org);
        }
        if !any {
            // Puppet adds this edge before the content edges; with no content there are none.
            add(&mut edges, &mut alive, cs, ce, true, org);
        }
        // Edges into the container now go to its start, from the end of their source.
        by_source.clear();
        for &id in &rel_in[c as usize] {
            if alive[id as usize] {
                by_source
                    .entry(edges[id as usize].source)
                    .or_default()
                    .push(id);
            }
        }
        for ids in by_source.values() {
            for &id in ids {
                let e = edges[id as usize];
                add(
                    &mut edges,
                    &mut alive,
                    end[e.source as usize],
                    cs,
                    e.refresh,
                    e.org,
                );
                alive[id as usize] = false;
            }
        }
        // Edges out of the container now leave from its end, to the start of their target,
        // in the order of the container's adjacency (first edge per target).
        by_source.clear();
        for &id in &rel_out[c as usize] {
            if alive[id as usize] {
                by_source
                    .entry(edges[id as usize].target)
                    .or_default()
                    .push(id);
            }
        }
        for ids in by_source.values() {
            for &id in ids {
                let e = edges[id as usize];
                add(
                    &mut edges,
                    &mut alive,
                    ce,
                    start[e.target as usize],
                    e.refresh,
                    e.org,
                );
                alive[id as usize] = false;
            }
        }
    }

    // Compact: leaves in catalog order, then the container sentinels.
    let mut new_id = vec![u32::MAX; total];
    let mut vertices: Vec<Vertex> = Vec::with_capacity(total - containers.len());
    for (i, r) in b.res.iter().enumerate() {
        if r.in_graph && !r.container {
            new_id[i] = vertices.len() as u32;
            vertices.push(Vertex {
                res: i as u32,
                part: Part::Resource,
            });
        }
    }
    for (k, v) in whits.into_iter().enumerate() {
        new_id[n + k] = vertices.len() as u32;
        vertices.push(v);
    }
    let nv = vertices.len();
    // Stable counting sort of the surviving edges by source.
    let mut count = vec![0u32; nv + 1];
    for (e, &ok) in edges.iter().zip(&alive) {
        if ok {
            count[new_id[e.source as usize] as usize + 1] += 1;
        }
    }
    for i in 0..nv {
        count[i + 1] += count[i];
    }
    let n_alive = count[nv] as usize;
    let mut by_src: Vec<XEdge> = vec![
        XEdge {
            source: 0,
            target: 0,
            refresh: false,
            org: Org::Api {
                kind: RelationKind::Before,
            },
        };
        n_alive
    ];
    {
        let mut fill = count.clone();
        for (e, &ok) in edges.iter().zip(&alive) {
            if ok {
                let s = new_id[e.source as usize];
                by_src[fill[s as usize] as usize] = XEdge {
                    source: s,
                    target: new_id[e.target as usize],
                    refresh: e.refresh,
                    org: e.org,
                };
                fill[s as usize] += 1;
            }
        }
    }
    // Group each vertex's edges by target, targets in first-appearance order.
    let mut out_start: Vec<u32> = Vec::with_capacity(nv + 1);
    let mut slots: Vec<Slot> = Vec::with_capacity(n_alive);
    let mut slot_edges: Vec<u32> = Vec::with_capacity(n_alive);
    let mut final_edges: Vec<XEdge> = Vec::with_capacity(n_alive);
    let mut mark: Vec<u32> = vec![u32::MAX; nv];
    let mut local: Vec<(u32, Vec<u32>)> = Vec::new();
    for v in 0..nv {
        out_start.push(slots.len() as u32);
        let list = &by_src[count[v] as usize..count[v + 1] as usize];
        local.clear();
        for (i, e) in list.iter().enumerate() {
            let t = e.target as usize;
            if mark[t] == u32::MAX {
                mark[t] = local.len() as u32;
                local.push((e.target, Vec::new()));
            }
            local[mark[t] as usize].1.push(i as u32);
        }
        for (t, ids) in &local {
            mark[*t as usize] = u32::MAX;
            let first = slot_edges.len() as u32;
            let mut refresh = 0;
            for &i in ids {
                let e = list[i as usize];
                if e.refresh {
                    refresh += 1;
                }
                slot_edges.push(final_edges.len() as u32);
                final_edges.push(e);
            }
            slots.push(Slot {
                target: *t,
                first,
                len: ids.len() as u32,
                refresh,
            });
        }
    }
    out_start.push(slots.len() as u32);
    let edges = final_edges;

    // Incoming adjacency (distinct sources).
    let mut in_count = vec![0u32; nv + 1];
    for s in &slots {
        in_count[s.target as usize + 1] += 1;
    }
    for i in 0..nv {
        in_count[i + 1] += in_count[i];
    }
    let mut in_sources = vec![0u32; slots.len()];
    {
        let mut fill = in_count.clone();
        for (v, w) in out_start.windows(2).enumerate() {
            for s in &slots[w[0] as usize..w[1] as usize] {
                in_sources[fill[s.target as usize] as usize] = v as u32;
                fill[s.target as usize] += 1;
            }
        }
    }
    let in_start = in_count;

    let priority: Vec<u32> = vertices.iter().map(|v| v.res).collect();
    let start_v: Vec<u32> = start
        .iter()
        .map(|&s| new_id.get(s as usize).copied().unwrap_or(u32::MAX))
        .collect();
    let end_v: Vec<u32> = end
        .iter()
        .map(|&s| new_id.get(s as usize).copied().unwrap_or(u32::MAX))
        .collect();

    let ext = b.ext;
    let graph = Graph {
        res: b.res,
        keys: b.keys,
        rel: b.rel,
        ext: ext
            .into_iter()
            .map(|e| (e.kind, e.origin, e.file, e.line))
            .collect(),
        children: b.children,
        vertices,
        priority,
        out_start,
        slots,
        slot_edges,
        in_start,
        in_sources,
        edges,
        start_v,
        end_v,
        sccs: OnceLock::new(),
        order: OnceLock::new(),
    };
    // Components are needed by every query that matters; compute them eagerly.
    let _ = graph.cyclic_components();
    graph
}

/// A distinct target in a vertex's adjacency, with its parallel edges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    pub target: u32,
    pub first: u32,
    pub len: u32,
    pub refresh: u32,
}

/// The sealed relationship graph of a catalog. Immutable, `Send + Sync`.
///
/// ```
/// use puppet_graph::{Catalog, Graph};
/// let cat = Catalog::from_json(r#"{"resources":[
///   {"type":"Notify","title":"first","parameters":{"require":"Notify[third]"}},
///   {"type":"Notify","title":"second"},{"type":"Notify","title":"third"}],"edges":[]}"#).unwrap();
/// let g = Graph::build(&cat).unwrap();
/// let order: Vec<_> = g.order().unwrap().into_iter().map(|r| g.reference(r)).collect();
/// assert_eq!(order, ["Notify[second]", "Notify[third]", "Notify[first]"]);
/// ```
#[derive(Debug)]
pub struct Graph {
    pub(crate) res: Vec<ResInfo>,
    keys: FxMap<String, u32>,
    pub(crate) rel: Vec<RelEdge>,
    pub(crate) ext: Vec<(RelationKind, RelationOrigin, Option<String>, Option<u32>)>,
    pub(crate) children: Vec<Vec<u32>>,
    pub(crate) vertices: Vec<Vertex>,
    pub(crate) priority: Vec<u32>,
    pub(crate) out_start: Vec<u32>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) slot_edges: Vec<u32>,
    pub(crate) in_start: Vec<u32>,
    pub(crate) in_sources: Vec<u32>,
    pub(crate) edges: Vec<XEdge>,
    pub(crate) start_v: Vec<u32>,
    pub(crate) end_v: Vec<u32>,
    sccs: OnceLock<Vec<Vec<u32>>>,
    order: OnceLock<Result<Vec<u32>, usize>>,
}

/// A resource this one depends on (or that depends on it), with the edge's origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependency {
    /// The other resource.
    pub resource: ResourceId,
    /// Its reference.
    pub reference: String,
    /// Whether the edge carries refresh events.
    pub refresh: bool,
    /// Where the edge comes from.
    pub origin: EdgeOrigin,
}

/// One step of the apply traversal: a leaf resource, or a container's start or end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceEntry {
    /// The resource (for a container's sentinels, the container).
    pub resource: ResourceId,
    /// Its reference as Puppet prints it.
    pub reference: String,
    /// Which part.
    pub part: Part,
}

impl Graph {
    /// Builds and seals the graph of `catalog` (see [`GraphBuilder`]).
    pub fn build(catalog: &Catalog) -> Result<Graph, Error> {
        Ok(GraphBuilder::from_catalog(catalog)?.seal())
    }

    /// The resource named by `reference` (`Notify[a]`, `Class[foo]`), if it is in the graph.
    pub fn find(&self, reference: &str) -> Option<ResourceId> {
        let (t, title) = parse_ref(reference)?;
        self.keys
            .get(&lookup_key(t, title))
            .copied()
            .filter(|i| self.res[*i as usize].in_graph)
            .map(ResourceId)
    }

    /// Like [`Graph::find`], with an [`Error::UnknownResource`] when absent.
    pub fn resolve(&self, reference: &str) -> Result<ResourceId, Error> {
        self.find(reference).ok_or_else(|| Error::UnknownResource {
            reference: reference.to_string(),
        })
    }

    /// The reference of a resource as Puppet prints it (`Class[Main]`).
    pub fn reference(&self, id: ResourceId) -> String {
        self.res
            .get(id.index())
            .map(|r| r.reference.clone())
            .unwrap_or_default()
    }

    /// `file:line` of a resource's declaration, when the catalog has it.
    pub fn location(&self, id: ResourceId) -> Option<String> {
        self.res.get(id.index()).and_then(ResInfo::location)
    }

    /// Whether the resource is a container (class, stage, defined-type instance).
    pub fn is_container(&self, id: ResourceId) -> bool {
        self.res.get(id.index()).is_some_and(|r| r.container)
    }

    /// Number of resources known (the catalog's resources, exported ones included).
    pub fn resource_count(&self) -> usize {
        self.res.len()
    }

    /// Number of vertices of the expanded graph (leaves plus two per container).
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// Number of edges of the expanded graph (parallel edges counted).
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    pub(crate) fn vertex_name(&self, v: u32) -> &str {
        &self.res[self.vertices[v as usize].res as usize].reference
    }

    /// Puppet's own name of a vertex (`Whit[admissible_Class[A]]` for sentinels), the key
    /// Puppet sorts cycles by.
    pub(crate) fn puppet_ref(&self, v: u32) -> String {
        let vx = self.vertices[v as usize];
        let r = &self.res[vx.res as usize].reference;
        match vx.part {
            Part::Resource => r.clone(),
            Part::Start => format!("Whit[admissible_{r}]"),
            Part::End => format!("Whit[completed_{r}]"),
        }
    }

    pub(crate) fn out_slots(&self, v: u32) -> &[Slot] {
        let s = self.out_start[v as usize] as usize;
        let e = self.out_start[v as usize + 1] as usize;
        &self.slots[s..e]
    }

    pub(crate) fn in_neighbours(&self, v: u32) -> &[u32] {
        let s = self.in_start[v as usize] as usize;
        let e = self.in_start[v as usize + 1] as usize;
        &self.in_sources[s..e]
    }

    pub(crate) fn slot_edge_list(&self, slot: &Slot) -> impl Iterator<Item = &XEdge> {
        self.slot_edges[slot.first as usize..(slot.first + slot.len) as usize]
            .iter()
            .map(|&i| &self.edges[i as usize])
    }

    /// The public form of an edge origin.
    pub(crate) fn origin(&self, org: Org) -> EdgeOrigin {
        match org {
            Org::Meta { param, holder } => EdgeOrigin::Metaparameter {
                param,
                declared_on: self.res[holder as usize].reference.clone(),
                location: self.res[holder as usize].location(),
            },
            Org::Ext { index } => {
                let (kind, origin, file, line) = &self.ext[index as usize];
                let location = match (file, line) {
                    (Some(f), Some(l)) => Some(format!("{f}:{l}")),
                    (Some(f), None) => Some(f.clone()),
                    (None, Some(l)) => Some(format!("line {l}")),
                    _ => None,
                };
                match origin {
                    RelationOrigin::RequireFunction => EdgeOrigin::RequireFunction { location },
                    RelationOrigin::Arrow => EdgeOrigin::Arrow {
                        kind: *kind,
                        location,
                    },
                    RelationOrigin::Metaparameter => EdgeOrigin::Arrow {
                        kind: *kind,
                        location,
                    },
                }
            }
            Org::Auto { relation, holder } => EdgeOrigin::Automatic {
                relation,
                declared_on: self.res[holder as usize].reference.clone(),
                location: self.res[holder as usize].location(),
            },
            Org::Contain { container } => EdgeOrigin::Containment {
                container: self.res[container as usize].reference.clone(),
                location: self.res[container as usize].location(),
            },
            Org::Api { kind } => EdgeOrigin::Api { kind },
        }
    }

    /// Strongly connected components that form cycles (more than one vertex, or a
    /// self-loop), each sorted by vertex id; computed once.
    pub(crate) fn cyclic_components(&self) -> &[Vec<u32>] {
        self.sccs.get_or_init(|| {
            let mut pg: petgraph::Graph<(), (), petgraph::Directed, u32> =
                petgraph::Graph::with_capacity(self.vertices.len(), self.slots.len());
            for _ in 0..self.vertices.len() {
                pg.add_node(());
            }
            for v in 0..self.vertices.len() as u32 {
                for s in self.out_slots(v) {
                    pg.add_edge(
                        petgraph::graph::NodeIndex::new(v as usize),
                        petgraph::graph::NodeIndex::new(s.target as usize),
                        (),
                    );
                }
            }
            let mut out: Vec<Vec<u32>> = petgraph::algo::tarjan_scc(&pg)
                .into_iter()
                .filter(|c| {
                    c.len() > 1
                        || self
                            .out_slots(c[0].index() as u32)
                            .iter()
                            .any(|s| s.target as usize == c[0].index())
                })
                .map(|c| {
                    let mut c: Vec<u32> = c.into_iter().map(|x| x.index() as u32).collect();
                    c.sort_unstable();
                    c
                })
                .collect();
            out.sort();
            out
        })
    }

    /// Whether the graph has a dependency cycle (then Puppet refuses to apply it).
    pub fn has_cycles(&self) -> bool {
        !self.cyclic_components().is_empty()
    }

    /// Vertex order of the traversal (Kahn's algorithm, ties broken by catalog order, as
    /// Puppet's prioritiser does), or the number of cyclic components.
    pub(crate) fn vertex_order(&self) -> Result<&[u32], usize> {
        let r = self.order.get_or_init(|| {
            let cyc = self.cyclic_components().len();
            if cyc > 0 {
                return Err(cyc);
            }
            let nv = self.vertices.len();
            let mut blockers: Vec<u32> = (0..nv as u32)
                .map(|v| self.in_neighbours(v).len() as u32)
                .collect();
            let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
            for v in 0..nv as u32 {
                if blockers[v as usize] == 0 {
                    heap.push(Reverse((self.priority[v as usize], v)));
                }
            }
            let mut order = Vec::with_capacity(nv);
            while let Some(Reverse((_, v))) = heap.pop() {
                order.push(v);
                for s in self.out_slots(v) {
                    let b = &mut blockers[s.target as usize];
                    *b -= 1;
                    if *b == 0 {
                        heap.push(Reverse((self.priority[s.target as usize], s.target)));
                    }
                }
            }
            Ok(order)
        });
        match r {
            Ok(v) => Ok(v.as_slice()),
            Err(n) => Err(*n),
        }
    }

    fn cycle_error(&self, count: usize) -> Error {
        Error::DependencyCycles {
            count,
            message: self.puppet_cycle_message().unwrap_or_default(),
        }
    }

    /// The leaf resources in the order Puppet would apply them. Fails, as Puppet does,
    /// when the graph has a cycle.
    pub fn order(&self) -> Result<Vec<ResourceId>, Error> {
        let order = self.vertex_order().map_err(|n| self.cycle_error(n))?;
        Ok(order
            .iter()
            .filter(|&&v| self.vertices[v as usize].part == Part::Resource)
            .map(|&v| ResourceId(self.vertices[v as usize].res))
            .collect())
    }

    /// Every step of the traversal, container sentinels included (Puppet's evaltrace).
    pub fn trace(&self) -> Result<Vec<TraceEntry>, Error> {
        let order = self.vertex_order().map_err(|n| self.cycle_error(n))?;
        Ok(order
            .iter()
            .map(|&v| {
                let vx = self.vertices[v as usize];
                TraceEntry {
                    resource: ResourceId(vx.res),
                    reference: self.res[vx.res as usize].reference.clone(),
                    part: vx.part,
                }
            })
            .collect())
    }

    fn dependency(&self, other: u32, e: &RelEdge) -> Dependency {
        Dependency {
            resource: ResourceId(other),
            reference: self.res[other as usize].reference.clone(),
            refresh: e.refresh,
            origin: self.origin(e.org),
        }
    }

    /// The resources `id` directly depends on (relationships and automatic ones, not
    /// containment), in the order the edges were made.
    pub fn dependencies(&self, id: ResourceId) -> Vec<Dependency> {
        self.rel
            .iter()
            .filter(|e| e.target == id.0)
            .map(|e| self.dependency(e.source, e))
            .collect()
    }

    /// The resources that directly depend on `id`.
    pub fn dependents(&self, id: ResourceId) -> Vec<Dependency> {
        self.rel
            .iter()
            .filter(|e| e.source == id.0)
            .map(|e| self.dependency(e.target, e))
            .collect()
    }

    fn reach(&self, from: u32, forward: bool) -> Vec<bool> {
        let mut seen = vec![false; self.vertices.len()];
        if from == u32::MAX {
            return seen;
        }
        let mut stack = vec![from];
        seen[from as usize] = true;
        while let Some(v) = stack.pop() {
            if forward {
                for s in self.out_slots(v) {
                    if !seen[s.target as usize] {
                        seen[s.target as usize] = true;
                        stack.push(s.target);
                    }
                }
            } else {
                for &u in self.in_neighbours(v) {
                    if !seen[u as usize] {
                        seen[u as usize] = true;
                        stack.push(u);
                    }
                }
            }
        }
        seen
    }

    /// Every resource that must be completely applied before `id` starts (containers
    /// included when all of their content comes first), in catalog order.
    pub fn transitive_dependencies(&self, id: ResourceId) -> Vec<ResourceId> {
        let Some(&from) = self.start_v.get(id.index()) else {
            return Vec::new();
        };
        let seen = self.reach(from, false);
        (0..self.res.len() as u32)
            .filter(|&r| r != id.0 && self.res[r as usize].in_graph)
            .filter(|&r| {
                let e = self.end_v[r as usize];
                e != u32::MAX && seen[e as usize]
            })
            .map(ResourceId)
            .collect()
    }

    /// Every resource that can only start once `id` is completely applied, in catalog order.
    pub fn transitive_dependents(&self, id: ResourceId) -> Vec<ResourceId> {
        let Some(&from) = self.end_v.get(id.index()) else {
            return Vec::new();
        };
        let seen = self.reach(from, true);
        (0..self.res.len() as u32)
            .filter(|&r| r != id.0 && self.res[r as usize].in_graph)
            .filter(|&r| {
                let s = self.start_v[r as usize];
                s != u32::MAX && seen[s as usize]
            })
            .map(ResourceId)
            .collect()
    }

    /// Checks internal invariants (test helper): every edge is in the adjacency lists and
    /// every vertex is reachable from its container's start.
    #[doc(hidden)]
    pub fn verify(&self) -> Result<(), String> {
        let nv = self.vertices.len() as u32;
        for e in &self.edges {
            if e.source >= nv || e.target >= nv {
                return Err(format!("edge out of range: {e:?}"));
            }
        }
        let total: u32 = self.slots.iter().map(|s| s.len).sum();
        if total as usize != self.edges.len() {
            return Err("slot edge count differs from edge count".into());
        }
        if let Ok(order) = self.vertex_order() {
            if order.len() != self.vertices.len() {
                return Err("acyclic graph but the order misses vertices".into());
            }
            let mut pos = vec![0usize; self.vertices.len()];
            for (i, &v) in order.iter().enumerate() {
                pos[v as usize] = i;
            }
            for e in &self.edges {
                if pos[e.source as usize] >= pos[e.target as usize] {
                    return Err(format!("order breaks edge {e:?}"));
                }
            }
        }
        Ok(())
    }
}
