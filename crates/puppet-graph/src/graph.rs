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
//! The apply order is Kahn's traversal with Puppet's tie-breaking (a bitset queue over
//! catalog ranks). Strongly connected components come from an iterative Tarjan over the
//! sealed adjacency arrays (checked against petgraph's in the tests), run only when the
//! traversal could not reach every vertex; no graph library appears in the public API. This module does not simulate a run ([`crate::simulate`]) nor enumerate
//! cycles ([`crate::cycles`]).

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use crate::autorequire::{self, AutoRelation};
use crate::error::Error;
use crate::fxhash::{FxMap, FxSet};
use crate::keys::{self, KeyIndex, StrArena, TextIndex};
use crate::model::{Catalog, RelationKind, RelationOrigin};
use crate::params::{self, ParamSet, P};
use crate::reference::{self, display_reads_back, display_ref_into, key_bytes, parse_ref};

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

/// What the graph keeps of each catalog resource. Strings live in [`Names`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResInfo {
    /// Index of the lower-cased type in `Names::types`.
    pub type_id: u32,
    /// Index of the manifest in `Names::files`, `u32::MAX` when unknown.
    pub file: u32,
    pub line: Option<u32>,
    /// Range of the resource's tags in `Names::tag_ids`.
    pub tags: (u32, u32),
    pub container: bool,
    pub in_graph: bool,
    pub noop: Option<bool>,
    pub refreshonly: bool,
    pub deleting: bool,
}

/// The strings of the resources, stored once: references (one per resource, as Puppet
/// prints them) and interned types, manifests and tags.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    refs: StrArena,
    types: StrArena,
    files: StrArena,
    tags: StrArena,
    tag_ids: Vec<u32>,
}

impl Names {
    /// The reference of resource `r` (`Class[Main]`).
    pub(crate) fn reference(&self, r: u32) -> &str {
        self.refs.get(r)
    }

    /// The lower-cased type of `info` (`file`, `foo::bar`).
    pub(crate) fn type_key(&self, info: &ResInfo) -> &str {
        self.types.get(info.type_id)
    }

    /// `file:line` of `info`'s declaration, when known.
    pub(crate) fn location(&self, info: &ResInfo) -> Option<String> {
        let file = (info.file != u32::MAX).then(|| self.files.get(info.file));
        // Built by hand: cycle reports ask for thousands of these.
        let push_line = |out: &mut String, l: u32| {
            let mut digits = [0u8; 10];
            let mut k = digits.len();
            let mut x = l;
            loop {
                k -= 1;
                digits[k] = b'0' + (x % 10) as u8;
                x /= 10;
                if x == 0 {
                    break;
                }
            }
            out.extend(digits[k..].iter().map(|&d| d as char));
        };
        match (file, info.line) {
            (Some(f), Some(l)) => {
                let mut out = String::with_capacity(f.len() + 11);
                out.push_str(f);
                out.push(':');
                push_line(&mut out, l);
                Some(out)
            }
            (Some(f), None) => Some(f.to_string()),
            (None, Some(l)) => {
                let mut out = String::with_capacity(15);
                out.push_str("line ");
                push_line(&mut out, l);
                Some(out)
            }
            (None, None) => None,
        }
    }

    /// The tags of `info`.
    pub(crate) fn tags<'a>(&'a self, info: &ResInfo) -> impl Iterator<Item = &'a str> + 'a {
        self.tag_ids[info.tags.0 as usize..info.tags.1 as usize]
            .iter()
            .map(|&t| self.tags.get(t))
    }
}

/// Interns borrowed strings into a [`StrArena`] (build phase only).
struct Interner<'a> {
    ids: FxMap<&'a str, u32>,
    last: Option<(&'a str, u32)>,
}

impl<'a> Interner<'a> {
    fn new() -> Self {
        Interner {
            ids: FxMap::default(),
            last: None,
        }
    }

    /// The id of `s`, adding `make(s)` to `arena` the first time `s` is seen.
    fn intern(
        &mut self,
        s: &'a str,
        arena: &mut StrArena,
        make: impl FnOnce(&mut String, &str),
    ) -> u32 {
        if let Some((l, id)) = self.last {
            if l == s {
                return id;
            }
        }
        let id = *self
            .ids
            .entry(s)
            .or_insert_with(|| arena.push_with(|buf| make(buf, s)));
        self.last = Some((s, id));
        id
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
    names: Names,
    keys: KeyIndex,
    children: Vec<Vec<u32>>,
    rel: Vec<RelEdge>,
    autos: Vec<(u32, AutoRelation, u32)>,
    ext: Vec<ExtRel>,
}

/// Calls `f` on every value of a relationship parameter (arrays flattened, `null`s
/// skipped), in order, stopping at the first error.
fn for_each_ref<'a>(
    v: &'a Value,
    f: &mut impl FnMut(&'a Value) -> Result<(), Error>,
) -> Result<(), Error> {
    match v {
        Value::Array(a) => {
            for x in a {
                match x {
                    // The usual case, without a call per element.
                    Value::String(_) => f(x)?,
                    _ => for_each_ref(x, f)?,
                }
            }
            Ok(())
        }
        Value::Null => Ok(()),
        other => f(other),
    }
}

/// Whether a resource of lower-cased type `type_key` is a container in the agent's
/// graph: classes, stages, nodes and defined-type instances.
fn is_container(type_key: &str, kind: Option<&str>, has_children: bool) -> bool {
    match type_key {
        "class" | "stage" | "node" => true,
        _ => match kind {
            Some("defined_type") => true,
            Some(_) => false,
            None => has_children,
        },
    }
}

impl GraphBuilder {
    /// Reads the resources, containment and explicit relationships of `catalog`.
    /// A reference to a resource that is not in the catalog is an error with Puppet's text.
    pub fn from_catalog(catalog: &Catalog) -> Result<GraphBuilder, Error> {
        let n = catalog.resources.len();
        let mut keys = KeyIndex::with_capacity(n + n / 8 + 8, 24);
        // References written exactly as the agent prints them (nearly all of them) are
        // found by their text, without parsing or building a key.
        let mut by_text = TextIndex::with_capacity(n);
        let mut buf: Vec<u8> = Vec::with_capacity(64);
        let mut names = Names {
            refs: StrArena::with_capacity(n, 24),
            ..Names::default()
        };
        names.tag_ids.reserve(2 * n);
        let mut types = Interner::new();
        let mut files = Interner::new();
        let mut tags = Interner::new();
        let mut res = Vec::with_capacity(n);
        // Aliases and namevars, added once every resource has its own key.
        let mut aliases: Vec<(u32, &str)> = Vec::new();
        // The parameters read below, per resource (`pair_start[i]..pair_start[i + 1]`).
        let mut pairs: Vec<(P, &Value)> =
            Vec::with_capacity(catalog.resources.iter().map(|r| r.parameters.len()).sum());
        let mut pair_start: Vec<u32> = Vec::with_capacity(n + 1);
        pair_start.push(0);
        for (i, r) in catalog.resources.iter().enumerate() {
            params::collect(r, &mut pairs);
            pair_start.push(pairs.len() as u32);
            if keys
                .insert_if_absent(key_bytes(&mut buf, &r.type_name, &r.title), i as u32)
                .is_some()
            {
                return Err(Error::DuplicateResource {
                    reference: r.reference(),
                });
            }
            let shown = names
                .refs
                .push_with(|out| display_ref_into(out, &r.type_name, &r.title));
            if display_reads_back(&r.type_name, &r.title) {
                by_text.insert(&names.refs, shown);
            }
            let type_id = types.intern(&r.type_name, &mut names.types, |out, t| {
                let t = t.strip_prefix("::").unwrap_or(t);
                out.extend(t.chars().map(|c| c.to_ascii_lowercase()));
            });
            let tk = names.types.get(type_id);
            let file = match &r.file {
                Some(f) => files.intern(f, &mut names.files, |out, f| out.push_str(f)),
                None => u32::MAX,
            };
            let tag_start = names.tag_ids.len() as u32;
            for t in &r.tags {
                let id = tags.intern(t, &mut names.tags, |out, t| out.push_str(t));
                names.tag_ids.push(id);
            }
            let p =
                ParamSet::from_pairs(&pairs[pair_start[i] as usize..pair_start[i + 1] as usize]);
            if let Some(v) = p.get(P::Alias) {
                let _ = for_each_ref(v, &mut |x| {
                    if let Some(s) = x.as_str() {
                        aliases.push((i as u32, s));
                    }
                    Ok(())
                });
            }
            let namevar = match reference::namevar(tk) {
                Some("path") => p.get(P::Path),
                Some(_) => p.get(P::Name),
                None => None,
            };
            if let Some(nv) = namevar.and_then(Value::as_str) {
                aliases.push((i as u32, nv));
            }
            res.push(ResInfo {
                type_id,
                file,
                line: r.line,
                tags: (tag_start, names.tag_ids.len() as u32),
                container: false,
                in_graph: !r.exported,
                noop: p.bool(P::Noop),
                refreshonly: tk == "exec" && p.bool(P::Refreshonly) == Some(true),
                deleting: p.str(P::Ensure) == Some("absent"),
            });
        }
        for &(i, name) in &aliases {
            let r = &catalog.resources[i as usize];
            keys.insert_if_absent(key_bytes(&mut buf, &r.type_name, name), i);
        }

        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        // Repeated containment edges count once. A resource nearly always has a single
        // container: remember the first one per resource, and only pairs with any other
        // container go to a set.
        let mut first_container: Vec<u32> = vec![u32::MAX; n];
        let mut other_pairs: FxSet<(u32, u32)> = FxSet::default();
        // The resource `s` names: by its text when written as the agent prints it, else
        // by its lookup key.
        fn find_in(
            (keys, by_text, refs): (&KeyIndex, &TextIndex, &StrArena),
            buf: &mut Vec<u8>,
            s: &str,
        ) -> Option<u32> {
            if let Some(i) = by_text.get(refs, s) {
                return Some(i);
            }
            let (t, title) = parse_ref(s)?;
            keys.get(key_bytes(buf, t, title))
        }
        // Consecutive edges usually share their container: remember the last source.
        let mut last_source: Option<(&str, u32)> = None;
        for e in &catalog.edges {
            let s = match last_source {
                Some((text, s)) if text == e.source => Some(s),
                _ => find_in((&keys, &by_text, &names.refs), &mut buf, &e.source),
            };
            let s = s.ok_or_else(|| Error::MissingContainmentEnd {
                end: "source",
                reference: e.source.to_string(),
                other: e.target.to_string(),
            })?;
            let t =
                find_in((&keys, &by_text, &names.refs), &mut buf, &e.target).ok_or_else(|| {
                    Error::MissingContainmentEnd {
                        end: "target",
                        reference: e.target.to_string(),
                        other: e.source.to_string(),
                    }
                })?;
            last_source = Some((&e.source, s));
            let first = &mut first_container[t as usize];
            let new = if *first == u32::MAX {
                *first = s;
                true
            } else {
                *first != s && other_pairs.insert((s, t))
            };
            if new {
                children[s as usize].push(t);
            }
        }
        drop((first_container, other_pairs));
        for (i, r) in catalog.resources.iter().enumerate() {
            let tk = names.type_key(&res[i]);
            res[i].container = is_container(tk, r.kind.as_deref(), !children[i].is_empty());
        }

        let mut b = GraphBuilder {
            res,
            names,
            keys: KeyIndex::default(),
            children,
            rel: Vec::with_capacity(catalog.resources.len() * 4),
            autos: Vec::new(),
            ext: Vec::new(),
        };

        // Relationships recorded with their origin, grouped by the resource and parameter
        // Puppet would have put them on.
        type Holder = (u32, RelationKind);
        let mut ext_by_holder: IndexMap<Holder, Vec<(u32, u32, u32)>> = IndexMap::new();
        for (idx, r) in catalog.relationships.iter().enumerate() {
            // Exported resources are not part of the graph: a relationship with one is a
            // relationship with a missing resource (it used to index past the graph).
            let tables = (&keys, &by_text, &b.names.refs);
            let s = find_in(tables, &mut buf, &r.source).filter(|i| b.res[*i as usize].in_graph);
            let t = find_in(tables, &mut buf, &r.target).filter(|i| b.res[*i as usize].in_graph);
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

        let has_ext = !ext_by_holder.is_empty();
        // Compact copy of the `in_graph` flags: checked once per reference.
        let in_graph: Vec<bool> = b.res.iter().map(|r| r.in_graph).collect();
        let file_paths = || -> Vec<String> {
            catalog
                .resources
                .iter()
                .filter(|r| r.type_key() == "file" && !r.exported)
                .map(|r| reference::normalize_path(r.param_str("path").unwrap_or(&r.title)))
                .collect()
        };
        let mut cands = Vec::new();
        let mut buf2: Vec<u8> = Vec::with_capacity(64);
        let mut last_file: (String, Option<u32>) = (String::new(), None);
        // The references of a block of resources are found by their text ahead of the
        // loop below, in short passes (gather the texts, hash them, probe the index) whose
        // memory reads do not wait on one another, so that the cache misses of a large
        // catalog overlap; the block stays in cache for the loop. `fast` holds the
        // resource of each reference, in the order the loop visits them, or `u32::MAX`.
        const BLOCK: usize = 64;
        let mut texts: Vec<&str> = Vec::new();
        let mut hashes: Vec<u64> = Vec::new();
        let mut fast: Vec<u32> = Vec::new();
        let mut next_fast = 0usize;
        for (i, r) in catalog.resources.iter().enumerate() {
            if i % BLOCK == 0 {
                texts.clear();
                for j in i..n.min(i + BLOCK) {
                    if !in_graph[j] {
                        continue;
                    }
                    let range = pair_start[j] as usize..pair_start[j + 1] as usize;
                    let params = ParamSet::from_pairs(&pairs[range]);
                    for p in P::RELATIONS {
                        if let Some(v) = params.get(p) {
                            let _ = for_each_ref(v, &mut |val| {
                                texts.push(match val {
                                    Value::String(s) => s.as_str(),
                                    _ => "",
                                });
                                Ok(())
                            });
                        }
                    }
                }
                hashes.clear();
                hashes.extend(texts.iter().map(|t| keys::hash_key(t.as_bytes())));
                fast.clear();
                fast.extend(texts.iter().zip(&hashes).map(|(t, &h)| {
                    by_text
                        .get_hashed(&b.names.refs, t, h)
                        .filter(|o| in_graph[*o as usize])
                        .unwrap_or(u32::MAX)
                }));
                next_fast = 0;
            }
            if !b.res[i].in_graph {
                continue;
            }
            let params =
                ParamSet::from_pairs(&pairs[pair_start[i] as usize..pair_start[i + 1] as usize]);
            for (k, kind) in RelationKind::PUPPET_ORDER.into_iter().enumerate() {
                if let Some(v) = params.get(P::RELATIONS[k]) {
                    let (rel, names) = (&mut b.rel, &b.names);
                    for_each_ref(v, &mut |val| {
                        let found = fast.get(next_fast).copied().unwrap_or(u32::MAX);
                        next_fast += 1;
                        let other = match found {
                            o if o != u32::MAX => o,
                            _ => {
                                let text = match val {
                                    Value::String(s) => s.as_str(),
                                    _ => "",
                                };
                                let Some((ty, title)) = parse_ref(text) else {
                                    return Err(Error::BadReference {
                                        reference: val.to_string(),
                                        param: kind.as_str().to_string(),
                                        resource: names.reference(i as u32).to_string(),
                                    });
                                };
                                let other = keys
                                    .get(key_bytes(&mut buf, ty, title))
                                    .filter(|o| in_graph[*o as usize]);
                                let Some(other) = other else {
                                    return Err(Error::MissingInParameter {
                                        target: format!(
                                            "{}[{}]",
                                            reference::capitalize_segments(ty),
                                            title
                                        ),
                                        param: kind.as_str().to_string(),
                                        resource: names.reference(i as u32).to_string(),
                                        file: r.file.clone(),
                                        line: r.line,
                                    });
                                };
                                other
                            }
                        };
                        let (source, target) = if kind.incoming() {
                            (other, i as u32)
                        } else {
                            (i as u32, other)
                        };
                        rel.push(RelEdge {
                            source,
                            target,
                            refresh: kind.refreshes(),
                            org: Org::Meta {
                                param: kind,
                                holder: i as u32,
                            },
                        });
                        Ok(())
                    })?;
                }
                if has_ext {
                    if let Some(list) = ext_by_holder.get(&(i as u32, kind)) {
                        for &(s, t, idx) in list {
                            b.push_rel(s, t, kind.refreshes(), Org::Ext { index: idx });
                        }
                    }
                }
            }
            // Automatic relationships: candidates now (while the resource is in cache),
            // filtered against explicit edges at seal.
            if b.res[i].container {
                continue;
            }
            // The file the nearest-parent rule found is a candidate next: remember it.
            last_file.1 = None;
            let mut exists = |p: &str| {
                let found = keys.get(key_bytes(&mut buf2, "file", p));
                if let Some(o) = found {
                    last_file.0.clear();
                    last_file.0.push_str(p);
                    last_file.1 = Some(o);
                }
                found.is_some()
            };
            let tk = b.names.type_key(&b.res[i]);
            autorequire::candidates(&r.title, &params, tk, &mut exists, &file_paths, &mut cands);
            for (rel, ty, title) in cands.drain(..) {
                let known = match last_file {
                    (ref p, Some(o)) if ty == "file" && *p == *title => Some(o),
                    _ => None,
                };
                if let Some(o) = known.or_else(|| keys.get(key_bytes(&mut buf, ty, &title))) {
                    if o != i as u32 && in_graph[o as usize] {
                        b.autos.push((i as u32, rel, o));
                    }
                }
            }
        }

        b.keys = keys;
        Ok(b)
    }

    fn push_rel(&mut self, source: u32, target: u32, refresh: bool, org: Org) {
        self.rel.push(RelEdge {
            source,
            target,
            refresh,
            org,
        });
    }

    fn lookup(&self, reference: &str) -> Result<u32, Error> {
        let mut buf = Vec::new();
        parse_ref(reference)
            .and_then(|(t, title)| self.keys.get(key_bytes(&mut buf, t, title)))
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
        // Automatic relationships never override or contradict explicit ones (nor an
        // earlier automatic one), in either direction: compare unordered pairs, and only
        // the explicit pairs that some automatic relationship could collide with.
        let autos = std::mem::take(&mut self.autos);
        if !autos.is_empty() {
            let unordered = |s: u32, t: u32| if s <= t { (s, t) } else { (t, s) };
            let ends = |holder: u32, relation: AutoRelation, other: u32| match relation {
                AutoRelation::Autorequire | AutoRelation::Autosubscribe => (other, holder),
                AutoRelation::Autobefore | AutoRelation::Autonotify => (holder, other),
            };
            let mut wanted: FxSet<(u32, u32)> = FxSet::default();
            wanted.reserve(autos.len());
            for &(holder, relation, other) in &autos {
                let (s, t) = ends(holder, relation, other);
                wanted.insert(unordered(s, t));
            }
            let mut taken: FxSet<(u32, u32)> = FxSet::default();
            taken.reserve(autos.len());
            for e in &self.rel {
                let p = unordered(e.source, e.target);
                if wanted.contains(&p) {
                    taken.insert(p);
                }
            }
            for (holder, relation, other) in autos {
                let (s, t) = ends(holder, relation, other);
                if !taken.insert(unordered(s, t)) {
                    continue;
                }
                let refresh = matches!(
                    relation,
                    AutoRelation::Autosubscribe | AutoRelation::Autonotify
                );
                self.push_rel(s, t, refresh, Org::Auto { relation, holder });
            }
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
    // Relationships only join resources in the graph, so the ones that touch a container
    // are exactly those that containers redirect; `cidx` numbers the containers.
    let mut cidx: Vec<u32> = vec![u32::MAX; n];
    for (k, &c) in containers.iter().enumerate() {
        cidx[c as usize] = k as u32;
    }
    let mut rel_in: Vec<Vec<u32>> = vec![Vec::new(); containers.len()];
    let mut rel_out: Vec<Vec<u32>> = vec![Vec::new(); containers.len()];
    for (id, e) in b.rel.iter().enumerate() {
        if let Some(k) = cidx.get(e.target as usize).filter(|k| **k != u32::MAX) {
            rel_in[*k as usize].push(id as u32);
        }
        if let Some(k) = cidx.get(e.source as usize).filter(|k| **k != u32::MAX) {
            rel_out[*k as usize].push(id as u32);
        }
    }
    // The edge list is `b.rel` followed by `extra` (containment and redirected edges, in
    // the order the agent adds them); `moved` marks the relationships a container
    // redirected. Extra edges are never redirected: their ends are already sentinels.
    let mut moved: Vec<bool> = vec![false; b.rel.len()];
    let mut extra: Vec<XEdge> = Vec::with_capacity(
        containers
            .iter()
            .map(|&c| 1 + 2 * b.children[c as usize].len())
            .sum::<usize>()
            + rel_in.iter().chain(&rel_out).map(Vec::len).sum::<usize>(),
    );
    let add = |extra: &mut Vec<XEdge>, source, target, refresh, org| {
        extra.push(XEdge {
            source,
            target,
            refresh,
            org,
        });
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
    for (k, &c) in containers.iter().enumerate() {
        let (cs, ce) = (start[c as usize], end[c as usize]);
        let org = Org::Contain { container: c };
        let mut any = false;
        for &v in &b.children[c as usize] {
            if !b.res[v as usize].in_graph {
                continue;
            }
            any = true;
            add(&mut extra, cs, start[v as usize], true, org);
            add(&mut extra, end[v as usize], ce, true, org);
        }
        if !any {
            // Puppet adds this edge before the content edges; with no content there are none.
            add(&mut extra, cs, ce, true, org);
        }
        // Edges into the container now go to its start, from the end of their source;
        // edges out of it leave from its end, to the start of their target, in the order
        // of the container's adjacency (first edge per other end).
        for (list, incoming) in [(&rel_in[k], true), (&rel_out[k], false)] {
            by_source.clear();
            for &id in list {
                if !moved[id as usize] {
                    let e = &b.rel[id as usize];
                    let other = if incoming { e.source } else { e.target };
                    by_source.entry(other).or_default().push(id);
                }
            }
            for ids in by_source.values() {
                for &id in ids {
                    let e = b.rel[id as usize];
                    let (s, t) = (end[e.source as usize], start[e.target as usize]);
                    add(&mut extra, s, t, e.refresh, e.org);
                    moved[id as usize] = true;
                }
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
    // Stable counting sort of the surviving edges (list order: relationships not
    // redirected, then `extra`) by new source id, written once in their final form.
    let mut count = vec![0u32; nv + 1];
    for (e, &m) in b.rel.iter().zip(&moved) {
        if !m {
            count[new_id[e.source as usize] as usize + 1] += 1;
        }
    }
    for e in &extra {
        count[new_id[e.source as usize] as usize + 1] += 1;
    }
    for i in 0..nv {
        count[i + 1] += count[i];
    }
    let n_alive = count[nv] as usize;
    let filler = XEdge {
        source: 0,
        target: 0,
        refresh: false,
        org: Org::Api {
            kind: RelationKind::Before,
        },
    };
    let mut edges: Vec<XEdge> = vec![filler; n_alive];
    {
        let mut fill = count.clone();
        let mut place = |source: u32, target: u32, refresh: bool, org: Org| {
            let s = new_id[source as usize];
            let at = &mut fill[s as usize];
            edges[*at as usize] = XEdge {
                source: s,
                target: new_id[target as usize],
                refresh,
                org,
            };
            *at += 1;
        };
        for (e, &m) in b.rel.iter().zip(&moved) {
            if !m {
                place(e.source, e.target, e.refresh, e.org);
            }
        }
        for e in &extra {
            place(e.source, e.target, e.refresh, e.org);
        }
    }
    drop(extra);
    // Group each vertex's edges by target, targets in first-appearance order, so that
    // each slot's edges are contiguous and in their original order. Most vertices have
    // no parallel edges: their edges stay where they are, one slot each.
    let mut out_start: Vec<u32> = Vec::with_capacity(nv + 1);
    let mut slots: Vec<Slot> = Vec::with_capacity(n_alive);
    let mut mark: Vec<u32> = vec![u32::MAX; nv];
    let mut cursor: Vec<u32> = Vec::new();
    let mut regroup: Vec<XEdge> = Vec::new();
    for v in 0..nv {
        out_start.push(slots.len() as u32);
        let (lo, hi) = (count[v] as usize, count[v + 1] as usize);
        let base = slots.len();
        let mut parallel = false;
        for (k, e) in edges[lo..hi].iter().enumerate() {
            let t = e.target as usize;
            if mark[t] == u32::MAX {
                mark[t] = (slots.len() - base) as u32;
                slots.push(Slot {
                    target: e.target,
                    first: (lo + k) as u32,
                    len: 0,
                    refresh: 0,
                });
            } else {
                parallel = true;
            }
            let slot = &mut slots[base + mark[t] as usize];
            slot.len += 1;
            slot.refresh += u32::from(e.refresh);
        }
        if parallel {
            regroup.clear();
            regroup.extend_from_slice(&edges[lo..hi]);
            cursor.clear();
            let mut next = lo as u32;
            for slot in &mut slots[base..] {
                slot.first = next;
                cursor.push(next);
                next += slot.len;
            }
            for e in &regroup {
                let k = mark[e.target as usize] as usize;
                edges[cursor[k] as usize] = *e;
                cursor[k] += 1;
            }
        }
        for slot in &slots[base..] {
            mark[slot.target as usize] = u32::MAX;
        }
    }
    out_start.push(slots.len() as u32);

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

    let start_v: Vec<u32> = start
        .iter()
        .map(|&s| new_id.get(s as usize).copied().unwrap_or(u32::MAX))
        .collect();
    let end_v: Vec<u32> = end
        .iter()
        .map(|&s| new_id.get(s as usize).copied().unwrap_or(u32::MAX))
        .collect();
    // Puppet's prioritiser breaks ties by catalog order: vertices ranked by (resource,
    // vertex id), a container's start before its end.
    let mut by_rank: Vec<u32> = Vec::with_capacity(nv);
    for (&s, &e) in start_v.iter().zip(&end_v) {
        if s != u32::MAX {
            by_rank.push(s);
            if e != s {
                by_rank.push(e);
            }
        }
    }
    let mut rank = vec![0u32; nv];
    for (k, &v) in by_rank.iter().enumerate() {
        rank[v as usize] = k as u32;
    }

    let ext = b.ext;
    let graph = Graph {
        res: b.res,
        names: b.names,
        keys: b.keys,
        rel: b.rel,
        ext: ext
            .into_iter()
            .map(|e| (e.kind, e.origin, e.file, e.line))
            .collect(),
        children: b.children,
        vertices,
        rank,
        by_rank,
        out_start,
        slots,
        in_start,
        in_sources,
        edges,
        start_v,
        end_v,
        sccs: OnceLock::new(),
        order: OnceLock::new(),
        puppet_comps: OnceLock::new(),
        puppet_paths: OnceLock::new(),
    };
    // Components are needed by every query that matters; compute them eagerly.
    let _ = graph.cyclic_components();
    graph
}

/// Tarjan's strongly connected components over the adjacency `slots` (`out_start` gives
/// each vertex's range), iteratively; `emit` receives each component.
fn tarjan(nv: usize, out_start: &[u32], slots: &[Slot], mut emit: impl FnMut(&[u32])) {
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; nv];
    let mut low = vec![0u32; nv];
    let mut on_stack = vec![false; nv];
    let mut stack: Vec<u32> = Vec::new();
    // (vertex, next slot position)
    let mut calls: Vec<(u32, u32)> = Vec::new();
    let mut next_index = 0u32;
    for root in 0..nv as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        calls.push((root, out_start[root as usize]));
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let end = out_start[v as usize + 1];
            if *pos < end {
                let w = slots[*pos as usize].target;
                *pos += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, out_start[w as usize]));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut k = stack.len();
                while stack[k - 1] != v {
                    k -= 1;
                }
                k -= 1;
                for &u in &stack[k..] {
                    on_stack[u as usize] = false;
                }
                emit(&stack[k..]);
                stack.truncate(k);
            }
        }
    }
}

/// A set of ranks in `0..n` with cheap insert and remove-minimum, for Kahn's traversal:
/// one bit per rank, and above it levels of one bit per non-empty word of the level
/// below, up to a single word.
struct RankQueue {
    levels: Vec<Vec<u64>>,
}

impl RankQueue {
    fn new(n: usize) -> RankQueue {
        let mut levels = Vec::new();
        let mut len = n.max(1);
        loop {
            let words = len.div_ceil(64);
            levels.push(vec![0u64; words]);
            if words == 1 {
                break;
            }
            len = words;
        }
        RankQueue { levels }
    }

    /// Adds `x` (below the `n` it was made for).
    fn insert(&mut self, x: u32) {
        let mut i = x as usize;
        for level in &mut self.levels {
            let was = level[i / 64];
            level[i / 64] = was | (1 << (i % 64));
            if was != 0 {
                break; // the levels above already know this word is not empty
            }
            i /= 64;
        }
    }

    /// Removes and returns the smallest rank.
    fn pop_min(&mut self) -> Option<u32> {
        let top = self.levels.last()?;
        if top[0] == 0 {
            return None;
        }
        let mut i = 0usize;
        for level in self.levels.iter().rev() {
            i = i * 64 + level[i].trailing_zeros() as usize;
        }
        let x = i;
        for level in &mut self.levels {
            level[i / 64] &= !(1 << (i % 64));
            if level[i / 64] != 0 {
                break;
            }
            i /= 64;
        }
        Some(x as u32)
    }
}

/// A distinct target in a vertex's adjacency, with its parallel edges
/// (`Graph::edges[first..first + len]`, `refresh` of them carrying refresh events).
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
    pub(crate) names: Names,
    keys: KeyIndex,
    pub(crate) rel: Vec<RelEdge>,
    pub(crate) ext: Vec<(RelationKind, RelationOrigin, Option<String>, Option<u32>)>,
    pub(crate) children: Vec<Vec<u32>>,
    pub(crate) vertices: Vec<Vertex>,
    /// Each vertex's place in the tie-breaking order (`by_rank` is the inverse).
    rank: Vec<u32>,
    by_rank: Vec<u32>,
    pub(crate) out_start: Vec<u32>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) in_start: Vec<u32>,
    pub(crate) in_sources: Vec<u32>,
    pub(crate) edges: Vec<XEdge>,
    pub(crate) start_v: Vec<u32>,
    pub(crate) end_v: Vec<u32>,
    sccs: OnceLock<Vec<Vec<u32>>>,
    /// Kahn's traversal; shorter than the vertex count when the graph has a cycle.
    order: OnceLock<Vec<u32>>,
    pub(crate) puppet_comps: OnceLock<Vec<Vec<u32>>>,
    pub(crate) puppet_paths: OnceLock<Vec<String>>,
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
        let mut buf = Vec::new();
        self.keys
            .get(key_bytes(&mut buf, t, title))
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
        if id.index() < self.res.len() {
            self.names.reference(id.0).to_string()
        } else {
            String::new()
        }
    }

    /// `file:line` of a resource's declaration, when the catalog has it.
    pub fn location(&self, id: ResourceId) -> Option<String> {
        self.res
            .get(id.index())
            .and_then(|r| self.names.location(r))
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
        self.names.reference(self.vertices[v as usize].res)
    }

    /// The reference of resource `r` (`Class[Main]`).
    pub(crate) fn res_name(&self, r: u32) -> &str {
        self.names.reference(r)
    }

    /// `file:line` of resource `r`.
    pub(crate) fn res_location(&self, r: u32) -> Option<String> {
        self.names.location(&self.res[r as usize])
    }

    /// Puppet's own name of a vertex (`Whit[admissible_Class[A]]` for sentinels), the key
    /// Puppet sorts cycles by.
    pub(crate) fn puppet_ref(&self, v: u32) -> String {
        let vx = self.vertices[v as usize];
        let r = self.names.reference(vx.res);
        match vx.part {
            Part::Resource => r.to_string(),
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
        self.edges[slot.first as usize..(slot.first + slot.len) as usize].iter()
    }

    /// The public form of an edge origin.
    pub(crate) fn origin(&self, org: Org) -> EdgeOrigin {
        match org {
            Org::Meta { param, holder } => EdgeOrigin::Metaparameter {
                param,
                declared_on: self.res_name(holder).to_string(),
                location: self.res_location(holder),
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
                declared_on: self.res_name(holder).to_string(),
                location: self.res_location(holder),
            },
            Org::Contain { container } => EdgeOrigin::Containment {
                container: self.res_name(container).to_string(),
                location: self.res_location(container),
            },
            Org::Api { kind } => EdgeOrigin::Api { kind },
        }
    }

    /// Strongly connected components that form cycles (more than one vertex, or a
    /// self-loop), each sorted by vertex id; computed once. A graph whose traversal
    /// reaches every vertex has none, and then Tarjan's search is skipped.
    pub(crate) fn cyclic_components(&self) -> &[Vec<u32>] {
        self.sccs.get_or_init(|| {
            let mut out: Vec<Vec<u32>> = Vec::new();
            if self.traversal().len() == self.vertices.len() {
                return out;
            }
            tarjan(self.vertices.len(), &self.out_start, &self.slots, |c| {
                let cyclic = c.len() > 1 || self.out_slots(c[0]).iter().any(|s| s.target == c[0]);
                if cyclic {
                    let mut c = c.to_vec();
                    c.sort_unstable();
                    out.push(c);
                }
            });
            out.sort();
            out
        })
    }
    /// Whether the graph has a dependency cycle (then Puppet refuses to apply it).
    pub fn has_cycles(&self) -> bool {
        !self.cyclic_components().is_empty()
    }

    /// Kahn's algorithm, ties broken by catalog order as Puppet's prioritiser does; stops
    /// short of the vertex count when the graph has a cycle. Computed once.
    fn traversal(&self) -> &[u32] {
        self.order.get_or_init(|| {
            let nv = self.vertices.len();
            let mut blockers: Vec<u32> = self.in_start.windows(2).map(|w| w[1] - w[0]).collect();
            let mut ready = RankQueue::new(nv);
            for (v, &b) in blockers.iter().enumerate() {
                if b == 0 {
                    ready.insert(self.rank[v]);
                }
            }
            let mut order = Vec::with_capacity(nv);
            while let Some(r) = ready.pop_min() {
                let v = self.by_rank[r as usize];
                order.push(v);
                for s in self.out_slots(v) {
                    let b = &mut blockers[s.target as usize];
                    *b -= 1;
                    if *b == 0 {
                        ready.insert(self.rank[s.target as usize]);
                    }
                }
            }
            order
        })
    }

    /// Vertex order of the traversal ([`Graph::traversal`]), or the number of cyclic
    /// components.
    pub(crate) fn vertex_order(&self) -> Result<&[u32], usize> {
        let order = self.traversal();
        if order.len() == self.vertices.len() {
            Ok(order)
        } else {
            Err(self.cyclic_components().len())
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
                    reference: self.res_name(vx.res).to_string(),
                    part: vx.part,
                }
            })
            .collect())
    }

    fn dependency(&self, other: u32, e: &RelEdge) -> Dependency {
        Dependency {
            resource: ResourceId(other),
            reference: self.res_name(other).to_string(),
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

    /// Checks internal invariants (test helper): every edge is in the adjacency lists, in
    /// the slot of its source and target, and the order respects every edge.
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
        for v in 0..nv {
            for s in self.out_slots(v) {
                let list: Vec<&XEdge> = self.slot_edge_list(s).collect();
                if list.iter().any(|e| e.source != v || e.target != s.target)
                    || list.iter().filter(|e| e.refresh).count() != s.refresh as usize
                {
                    return Err(format!("slot {s:?} of vertex {v} holds other edges"));
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The rank queue pops what a sorted set would.
    #[test]
    fn rank_queue_matches_a_sorted_set() {
        let mut seed = 11u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for n in [1usize, 2, 63, 64, 65, 4095, 4096, 4097, 300_000] {
            let mut q = RankQueue::new(n);
            let mut set = std::collections::BTreeSet::new();
            for _ in 0..3000 {
                if next(3) == 0 {
                    assert_eq!(q.pop_min(), set.pop_first(), "n = {n}");
                } else {
                    let x = next(n as u64) as u32;
                    q.insert(x);
                    set.insert(x);
                }
            }
            while let Some(x) = set.pop_first() {
                assert_eq!(q.pop_min(), Some(x));
            }
            assert_eq!(q.pop_min(), None);
        }
    }

    /// The iterative Tarjan finds the same components as petgraph's.
    #[test]
    fn tarjan_matches_petgraph() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for round in 0..300 {
            let nv = 1 + next(30) as usize;
            let ne = next(3 * nv as u64 + 1) as usize;
            let mut adj: Vec<Vec<u32>> = vec![Vec::new(); nv];
            for _ in 0..ne {
                let a = next(nv as u64) as usize;
                let b = next(nv as u64) as u32;
                if round % 3 == 0 && (b as usize) < a {
                    continue; // mostly acyclic rounds too
                }
                if !adj[a].contains(&b) {
                    adj[a].push(b);
                }
            }
            let mut out_start = vec![0u32];
            let mut slots = Vec::new();
            for list in &adj {
                for &t in list {
                    slots.push(Slot {
                        target: t,
                        first: 0,
                        len: 1,
                        refresh: 0,
                    });
                }
                out_start.push(slots.len() as u32);
            }
            let mut ours: Vec<Vec<u32>> = Vec::new();
            tarjan(nv, &out_start, &slots, |c| {
                let mut c = c.to_vec();
                c.sort_unstable();
                ours.push(c);
            });
            ours.sort();
            let mut pg: petgraph::Graph<(), (), petgraph::Directed, u32> =
                petgraph::Graph::default();
            for _ in 0..nv {
                pg.add_node(());
            }
            for (a, list) in adj.iter().enumerate() {
                for &b in list {
                    pg.add_edge(
                        petgraph::graph::NodeIndex::new(a),
                        petgraph::graph::NodeIndex::new(b as usize),
                        (),
                    );
                }
            }
            let mut theirs: Vec<Vec<u32>> = petgraph::algo::tarjan_scc(&pg)
                .into_iter()
                .map(|c| {
                    let mut c: Vec<u32> = c.into_iter().map(|x| x.index() as u32).collect();
                    c.sort_unstable();
                    c
                })
                .collect();
            theirs.sort();
            assert_eq!(ours, theirs, "round {round}");
        }
    }
}
