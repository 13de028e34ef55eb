//! Cycle reports: every elementary cycle of the graph (Johnson's algorithm on each strongly
//! connected component, bounded), each edge with its origin and the locations involved,
//! and Puppet's own message (one path per component, found the way Puppet finds it).
//!
//! Not here: how the components are computed (once, in [`crate::Graph`]) and ordering.

use serde::Serialize;

use crate::graph::{EdgeOrigin, Graph, Part, ResourceId};

/// Bounds for [`Graph::cycles`], so that a pathological graph cannot hang the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CycleLimits {
    /// Stop after this many elementary cycles (default 1000).
    pub max_cycles: usize,
    /// Stop after this many search steps, summed over all components (default 20 million).
    pub max_steps: usize,
}

impl Default for CycleLimits {
    fn default() -> Self {
        CycleLimits {
            max_cycles: 1000,
            max_steps: 20_000_000,
        }
    }
}

/// One vertex of a cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CycleStep {
    /// The resource (the container, for a container's start or end).
    pub resource: ResourceId,
    /// Its reference, as Puppet prints it.
    pub reference: String,
    /// Which part of the resource.
    pub part: Part,
    /// `file:line` of its declaration.
    pub location: Option<String>,
}

/// One edge of a cycle, with the origin of each parallel edge that makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CycleEdge {
    /// Source reference.
    pub from: String,
    /// Target reference.
    pub to: String,
    /// Where the edge(s) come from; cut all of them to break the cycle here.
    pub origins: Vec<EdgeOrigin>,
}

/// An elementary cycle: `path[0] -> path[1] -> ... -> path[0]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cycle {
    /// The vertices, the first not repeated at the end.
    pub path: Vec<CycleStep>,
    /// `edges[i]` goes from `path[i]` to `path[(i + 1) % len]`.
    pub edges: Vec<CycleEdge>,
}

impl std::fmt::Display for Cycle {
    /// Puppet's notation (see [`Cycle::to_puppet_string`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_puppet_string())
    }
}

impl std::fmt::Display for CycleReport {
    /// `no dependency cycles`, or one line per cycle in Puppet's notation followed by the
    /// declaration of each resource on it (`    Notify[a] at site.pp:3`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.cycles.is_empty() {
            return f.write_str("no dependency cycles");
        }
        write!(
            f,
            "{} dependency cycle{} in {} component{}",
            self.cycles.len(),
            if self.cycles.len() == 1 { "" } else { "s" },
            self.components,
            if self.components == 1 { "" } else { "s" }
        )?;
        if self.truncated {
            f.write_str(" (more not listed)")?;
        }
        for c in &self.cycles {
            write!(f, "\n  {c}")?;
            for step in &c.path {
                if let Some(at) = &step.location {
                    write!(f, "\n    {} at {at}", step.reference)?;
                }
            }
        }
        Ok(())
    }
}

impl CycleReport {
    /// One diagnostic per cycle (code `GRAPH_DEPENDENCY_CYCLE`): the cycle in Puppet's
    /// notation, with each resource's declaration as a related place.
    pub fn diagnostics(&self) -> Vec<puppet_diagnostics::Diagnostic> {
        self.cycles
            .iter()
            .map(|c| {
                let mut d = puppet_diagnostics::Diagnostic::new(
                    puppet_diagnostics::Severity::Error,
                    "GRAPH_DEPENDENCY_CYCLE",
                    format!("Found a dependency cycle: {c}"),
                );
                for step in &c.path {
                    let note = match &step.location {
                        Some(at) => format!("{} is declared at {at}", step.reference),
                        None => format!("{} (declaration not known)", step.reference),
                    };
                    d = d.with_related(note, None, None, None);
                }
                d
            })
            .collect()
    }
}

impl Cycle {
    /// The cycle in Puppet's notation: `(Notify[a] => Notify[b] => Notify[a])`.
    pub fn to_puppet_string(&self) -> String {
        let mut parts: Vec<&str> = self.path.iter().map(|s| s.reference.as_str()).collect();
        if let Some(first) = self.path.first() {
            parts.push(&first.reference);
        }
        format!("({})", parts.join(" => "))
    }
}

/// All cycles of a graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CycleReport {
    /// Elementary cycles, component by component (components in Puppet's order).
    pub cycles: Vec<Cycle>,
    /// Number of cyclic strongly connected components.
    pub components: usize,
    /// Whether a limit stopped the enumeration (then `cycles` is incomplete).
    pub truncated: bool,
    /// One path per component, as Puppet reports them.
    pub puppet_paths: Vec<String>,
    /// Puppet's whole message, `None` without cycles.
    pub puppet_message: Option<String>,
}

const FRAME_BUDGET: usize = 2_000_000;

impl Graph {
    /// Cyclic components in Puppet's order: each sorted by Puppet's vertex names, then
    /// the list sorted.
    fn puppet_components(&self) -> &[Vec<u32>] {
        self.puppet_comps.get_or_init(|| {
            let mut comps: Vec<(Vec<String>, Vec<u32>)> = self
                .cyclic_components()
                .iter()
                .map(|c| {
                    let mut named: Vec<(String, u32)> =
                        c.iter().map(|&v| (self.puppet_ref(v), v)).collect();
                    named.sort();
                    named.into_iter().unzip()
                })
                .collect();
            comps.sort();
            comps.into_iter().map(|(_, c)| c).collect()
        })
    }

    /// The vertices of all cyclic components, in Puppet's order.
    pub(crate) fn cycle_vertices_in_puppet_order(&self) -> Vec<u32> {
        self.puppet_components().iter().flatten().copied().collect()
    }

    /// Puppet's breadth-first search for a path that comes back to a vertex it has
    /// already visited, starting at the component's first vertex.
    fn puppet_path(&self, comp: &[u32]) -> Vec<u32> {
        let mut sorted = comp.to_vec();
        sorted.sort_unstable();
        let member_sorted = |v: u32| sorted.binary_search(&v).is_ok();
        let start = comp[0];
        // (vertex, parent frame); the path of a frame is its ancestors' vertices.
        let mut frames: Vec<(u32, u32)> = vec![(start, u32::MAX)];
        let mut head = 0usize;
        while head < frames.len() && frames.len() < FRAME_BUDGET {
            let (v, parent) = frames[head];
            let mut p = parent;
            let mut repeated = false;
            while p != u32::MAX {
                let (pv, pp) = frames[p as usize];
                if pv == v {
                    repeated = true;
                    break;
                }
                p = pp;
            }
            if repeated {
                let mut path = vec![v];
                let mut p = parent;
                while p != u32::MAX {
                    path.push(frames[p as usize].0);
                    p = frames[p as usize].1;
                }
                path.reverse();
                return path;
            }
            for s in self.out_slots(v) {
                if member_sorted(s.target) {
                    frames.push((s.target, head as u32));
                }
            }
            head += 1;
        }
        // Budget exhausted (or nothing found): the shortest way back to the start.
        self.shortest_cycle_from(start, &sorted)
    }

    fn shortest_cycle_from(&self, start: u32, sorted: &[u32]) -> Vec<u32> {
        let mut prev: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        while let Some(v) = queue.pop_front() {
            for s in self.out_slots(v) {
                if sorted.binary_search(&s.target).is_err() {
                    continue;
                }
                if s.target == start {
                    let mut path = vec![start, v];
                    let mut cur = v;
                    while cur != start {
                        cur = prev[&cur];
                        path.push(cur);
                    }
                    path.reverse();
                    return path;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(s.target) {
                    e.insert(v);
                    queue.push_back(s.target);
                }
            }
        }
        vec![start, start]
    }

    /// Puppet's cycle paths, one per cyclic component: `(A => B => A)`.
    pub fn puppet_cycle_paths(&self) -> Vec<String> {
        self.puppet_paths_ref().to_vec()
    }

    /// [`Graph::puppet_cycle_paths`], computed once.
    fn puppet_paths_ref(&self) -> &[String] {
        self.puppet_paths.get_or_init(|| {
            self.puppet_components()
                .iter()
                .map(|c| {
                    let path = self.puppet_path(c);
                    let names: Vec<&str> = path.iter().map(|&v| self.vertex_name(v)).collect();
                    format!("({})", names.join(" => "))
                })
                .collect()
        })
    }

    /// The error Puppet logs before refusing to apply a catalog with cycles, verbatim
    /// (including its literal `\n`s), or `None` when there is no cycle.
    ///
    /// ```
    /// use puppet_graph::{Catalog, Graph};
    /// let cat = Catalog::from_json(r#"{"resources":[
    ///   {"type":"Notify","title":"a","parameters":{"before":"Notify[b]"}},
    ///   {"type":"Notify","title":"b","parameters":{"before":"Notify[a]"}}],"edges":[]}"#).unwrap();
    /// let g = Graph::build(&cat).unwrap();
    /// assert_eq!(g.puppet_cycle_message().unwrap(),
    ///   "Found 1 dependency cycle:\n(Notify[a] => Notify[b] => Notify[a])\\nTry the '--graph' option \
    ///    and opening the resulting '.dot' file in OmniGraffle or GraphViz");
    /// ```
    pub fn puppet_cycle_message(&self) -> Option<String> {
        let paths = self.puppet_paths_ref();
        if paths.is_empty() {
            return None;
        }
        let n = paths.len();
        let mut msg = if n == 1 {
            "Found 1 dependency cycle:\n".to_string()
        } else {
            format!("Found {n} dependency cycles:\n")
        };
        for p in paths {
            msg.push_str(p);
            msg.push_str("\\n");
        }
        msg.push_str(
            "Try the '--graph' option and opening the resulting '.dot' file in OmniGraffle or GraphViz",
        );
        Some(msg)
    }

    /// Every elementary cycle (Johnson's algorithm per strongly connected component),
    /// within `limits`, with the origin of each edge and Puppet's message.
    ///
    /// ```
    /// use puppet_graph::{Catalog, Graph, CycleLimits};
    /// let cat = Catalog::from_json(r#"{"resources":[
    ///   {"type":"Notify","title":"a","parameters":{"before":["Notify[b]","Notify[c]"]}},
    ///   {"type":"Notify","title":"b","parameters":{"before":"Notify[a]"}},
    ///   {"type":"Notify","title":"c","parameters":{"before":"Notify[a]"}}],"edges":[]}"#).unwrap();
    /// let g = Graph::build(&cat).unwrap();
    /// let report = g.cycles(CycleLimits::default());
    /// let cycles: Vec<_> = report.cycles.iter().map(|c| c.to_puppet_string()).collect();
    /// assert_eq!(cycles, ["(Notify[a] => Notify[b] => Notify[a])", "(Notify[a] => Notify[c] => Notify[a])"]);
    /// assert_eq!(report.components, 1); // Puppet reports only one of them
    /// ```
    pub fn cycles(&self, limits: CycleLimits) -> CycleReport {
        let comps = self.puppet_components();
        let mut cycles = Vec::new();
        let mut steps = 0usize;
        let mut truncated = false;
        for comp in comps {
            if cycles.len() >= limits.max_cycles || steps >= limits.max_steps {
                truncated = true;
                break;
            }
            let found = johnson(self, comp, limits, &mut steps, cycles.len(), &mut truncated);
            for c in found {
                cycles.push(self.make_cycle(&c));
            }
        }
        let puppet_paths = self.puppet_cycle_paths();
        CycleReport {
            cycles,
            components: comps.len(),
            truncated,
            puppet_message: self.puppet_cycle_message(),
            puppet_paths,
        }
    }

    fn make_cycle(&self, verts: &[u32]) -> Cycle {
        let path: Vec<CycleStep> = verts
            .iter()
            .map(|&v| {
                let vx = self.vertices[v as usize];
                CycleStep {
                    resource: ResourceId(vx.res),
                    reference: self.res_name(vx.res).to_string(),
                    part: vx.part,
                    location: self.res_location(vx.res),
                }
            })
            .collect();
        let mut edges = Vec::with_capacity(verts.len());
        for i in 0..verts.len() {
            let a = verts[i];
            let b = verts[(i + 1) % verts.len()];
            let mut origins = Vec::new();
            for s in self.out_slots(a) {
                if s.target == b {
                    for e in self.slot_edge_list(s) {
                        let o = self.origin(e.org);
                        if !origins.contains(&o) {
                            origins.push(o);
                        }
                    }
                }
            }
            edges.push(CycleEdge {
                from: self.vertex_name(a).to_string(),
                to: self.vertex_name(b).to_string(),
                origins,
            });
        }
        Cycle { path, edges }
    }
}

/// Johnson's elementary-cycle search restricted to one component, whose vertices are
/// given in the order cycles should start from. Iterative, bounded by `limits`.
fn johnson(
    g: &Graph,
    comp: &[u32],
    limits: CycleLimits,
    steps: &mut usize,
    already: usize,
    truncated: &mut bool,
) -> Vec<Vec<u32>> {
    let k = comp.len();
    let mut sorted: Vec<(u32, usize)> = comp.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    sorted.sort_unstable();
    let local = |v: u32| -> Option<usize> {
        sorted
            .binary_search_by_key(&v, |&(g, _)| g)
            .ok()
            .map(|i| sorted[i].1)
    };
    let adj: Vec<Vec<usize>> = comp
        .iter()
        .map(|&v| {
            g.out_slots(v)
                .iter()
                .filter_map(|s| local(s.target))
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    let mut blocked = vec![false; k];
    let mut bsets: Vec<Vec<usize>> = vec![Vec::new(); k];
    let mut work: Vec<usize> = Vec::new();
    for s in 0..k {
        for i in s..k {
            blocked[i] = false;
            bsets[i].clear();
        }
        // Frames: (vertex, next neighbour index, found a cycle below).
        let mut stack: Vec<(usize, usize, bool)> = vec![(s, 0, false)];
        let mut path: Vec<usize> = vec![s];
        blocked[s] = true;
        while let Some(&mut (v, ref mut next, ref mut found)) = stack.last_mut() {
            *steps += 1;
            if *steps >= limits.max_steps || already + out.len() >= limits.max_cycles {
                *truncated = true;
                return out;
            }
            if *next < adj[v].len() {
                let w = adj[v][*next];
                *next += 1;
                if w < s {
                    continue;
                }
                if w == s {
                    *found = true;
                    out.push(path.iter().map(|&i| comp[i]).collect());
                } else if !blocked[w] {
                    blocked[w] = true;
                    path.push(w);
                    stack.push((w, 0, false));
                }
                continue;
            }
            let f = *found;
            stack.pop();
            path.pop();
            if f {
                // Unblock v and everything waiting on it.
                work.clear();
                work.push(v);
                while let Some(u) = work.pop() {
                    if blocked[u] {
                        blocked[u] = false;
                        work.append(&mut bsets[u]);
                    }
                }
            } else {
                for &w in &adj[v] {
                    if w >= s && !bsets[w].contains(&v) {
                        bsets[w].push(v);
                    }
                }
            }
            if let Some(parent) = stack.last_mut() {
                parent.2 |= f;
            }
        }
    }
    out
}
