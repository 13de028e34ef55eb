//! Graphviz DOT output of the three graphs Puppet's `--graph` option writes: `resources`
//! (containment), `relationships` (resources and their explicit and automatic
//! relationships) and `expanded_relationships` (containers replaced by their start and end
//! sentinels, what the agent actually traverses).
//!
//! The layout mirrors Puppet's files (node names are references, font size 8); strings
//! are escaped so that Graphviz accepts any title. Rendering images is Graphviz's job.

use std::fmt::Write;

use crate::graph::Graph;

/// Which of Puppet's three graphs to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DotKind {
    /// `resources.dot`: the containment tree.
    Resources,
    /// `relationships.dot`: every resource and its relationships (not containment).
    Relationships,
    /// `expanded_relationships.dot`: the graph the agent traverses.
    Expanded,
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Graph {
    /// The DOT text of one of Puppet's graphs.
    ///
    /// ```
    /// use puppet_graph::{Catalog, Graph, DotKind};
    /// let cat = Catalog::from_json(r#"{"resources":[
    ///   {"type":"Notify","title":"a \"quoted\"","parameters":{"before":"Notify[b]"}},
    ///   {"type":"Notify","title":"b"}],"edges":[]}"#).unwrap();
    /// let dot = Graph::build(&cat).unwrap().to_dot(DotKind::Relationships);
    /// assert!(dot.starts_with("digraph Relationships {"));
    /// assert!(dot.contains(r#""Notify[a \"quoted\"]" -> "Notify[b]""#));
    /// ```
    pub fn to_dot(&self, kind: DotKind) -> String {
        let name = match kind {
            DotKind::Resources => "Resources",
            DotKind::Relationships => "Relationships",
            DotKind::Expanded => "Expanded_relationships",
        };
        let mut out = String::new();
        let _ = writeln!(out, "digraph {name} {{");
        let _ = writeln!(out, "    label = {}", quote(name));
        let node = |out: &mut String, n: &str| {
            let q = quote(n);
            let _ = writeln!(out, "    {q} [fontsize = 8, label = {q}];");
        };
        let edge = |out: &mut String, a: &str, b: &str, refresh: bool| {
            let style = if refresh { ", style = bold" } else { "" };
            let _ = writeln!(
                out,
                "    {} -> {} [fontsize = 8{style}];",
                quote(a),
                quote(b)
            );
        };
        match kind {
            DotKind::Resources | DotKind::Relationships => {
                for (i, r) in self.res.iter().enumerate() {
                    if r.in_graph {
                        node(&mut out, self.res_name(i as u32));
                    }
                }
                if kind == DotKind::Resources {
                    for (i, kids) in self.children.iter().enumerate() {
                        if !self.res[i].in_graph {
                            continue;
                        }
                        for &k in kids {
                            if self.res[k as usize].in_graph {
                                edge(&mut out, self.res_name(i as u32), self.res_name(k), false);
                            }
                        }
                    }
                } else {
                    for e in &self.rel {
                        edge(
                            &mut out,
                            self.res_name(e.source),
                            self.res_name(e.target),
                            e.refresh,
                        );
                    }
                }
            }
            DotKind::Expanded => {
                for v in 0..self.vertices.len() as u32 {
                    node(&mut out, &self.puppet_ref(v));
                }
                for v in 0..self.vertices.len() as u32 {
                    let from = self.puppet_ref(v);
                    for s in self.out_slots(v) {
                        let to = self.puppet_ref(s.target);
                        for e in self.slot_edge_list(s) {
                            edge(&mut out, &from, &to, e.refresh);
                        }
                    }
                }
            }
        }
        out.push_str("}\n");
        out
    }
}
