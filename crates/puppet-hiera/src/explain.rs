//! Explain mode: the tree of what a lookup did (which layer, hierarchy entry and file was
//! consulted, what was found, merged or interpolated), rendered exactly as
//! `puppet lookup --explain` prints it.
//!
//! The tree has the shape of Puppet's `Explainer`: a node is pushed for each step that
//! Puppet pushes one for, with the same rules for what is shown (a merge of a single branch
//! is shown as that branch, a merge's result only when something was found, a location's
//! outcome after what its value's interpolation did). Not here: deciding what to look up;
//! [`crate::Lookup::explain`] records the tree while it looks up.

use puppet_types::convert::ruby_inspect_str;
use puppet_types::Value;
use std::fmt;
use std::path::PathBuf;

/// What a node of the tree stands for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// `Searching for "KEY"`: the lookup of a key, or of `lookup_options`.
    Search(String),
    /// `Invalid key "lookup_options"`: the reserved key was asked for.
    InvalidKey(String),
    /// `Using merge options from "lookup_options" hash`.
    MergeSource(String),
    /// `Merge strategy NAME`, with the options given besides the strategy. Shown only when
    /// the merge has more than one branch.
    Merge {
        /// `first`, `unique`, `hash` or `deep`.
        strategy: String,
        /// The options (`{"merge_hash_arrays" => true}`), if any.
        options: Option<Value>,
    },
    /// A data provider: a layer (`Environment Data Provider (hiera configuration version
    /// 5)`, with the configuration file it was read from) or a hierarchy entry
    /// (`Hierarchy entry "NAME"`).
    Provider {
        /// Its name as Puppet prints it.
        name: String,
        /// `Using configuration "PATH"`: the `hiera.yaml` of a layer, when read from a file.
        config: Option<PathBuf>,
    },
    /// `Module "NAME" not found`.
    ModuleNotFound(String),
    /// `Module data provider for module "NAME" not found`.
    ModuleProviderNotFound(String),
    /// A data file: `Path "PATH"` and `Original path: "AS WRITTEN"`.
    Location {
        /// After interpolation, joined with the data directory.
        path: PathBuf,
        /// As written in `hiera.yaml`.
        original: String,
    },
    /// `URI "URI"` then `Original uri: "..."`: a `uri`/`uris` location of a backend
    /// function.
    Uri {
        /// After interpolation.
        uri: String,
        /// As written in `hiera.yaml`.
        original: String,
    },
    /// `Interpolation on "STRING"`.
    Interpolate(String),
    /// A scope or a phase (`Global Scope`, `Searching default_hierarchy of module "m"`).
    Scope(String),
    /// `Sub key: "a.b"`: digging into a value along the segments of a dotted key.
    SubLookup(Vec<String>),
    /// One segment of a sub-lookup (shows only its outcome).
    Segment,
}

/// How a step ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// `Found key: "KEY" value: VALUE`.
    Found(String, Value),
    /// `No such key: "KEY"`.
    NotFound(String),
    /// `Merged result: VALUE` (of a merge).
    Result(Value),
    /// `Path not found` (of a location).
    LocationNotFound,
}

/// A node of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it stands for.
    pub event: Event,
    /// The steps inside it.
    pub children: Vec<Node>,
    /// How it ended, if it reports that.
    pub outcome: Option<Outcome>,
    /// Free text lines added to it.
    pub texts: Vec<String>,
}

impl Node {
    /// A node without children.
    pub fn leaf(event: Event) -> Node {
        Node {
            event,
            children: Vec::new(),
            outcome: None,
            texts: Vec::new(),
        }
    }

    fn dump(&self, out: &mut String, indent: &str) {
        let inner = format!("{indent}  ");
        match &self.event {
            Event::Search(key) => {
                line(out, indent, &format!("Searching for \"{key}\""));
                self.dump_children(out, &inner);
                // Puppet's ExplainTop prints no outcome.
            }
            Event::InvalidKey(key) => line(out, indent, &format!("Invalid key \"{key}\"")),
            Event::MergeSource(source) => line(
                out,
                indent,
                &format!("Using merge options from \"{source}\" hash"),
            ),
            Event::Merge { strategy, options } => {
                match self.children.len() {
                    0 => {}
                    // A merge of one branch is shown as that branch.
                    1 => self.children[0].dump(out, indent),
                    _ => {
                        line(out, indent, &format!("Merge strategy {strategy}"));
                        if let Some(o) = options {
                            line(out, &inner, &format!("Options: {}", dump_value(o, &inner)));
                        }
                        self.dump_children(out, &inner);
                        if let Some(Outcome::Result(v)) = &self.outcome {
                            line(
                                out,
                                &inner,
                                &format!("Merged result: {}", dump_value(v, &inner)),
                            );
                        }
                    }
                }
            }
            Event::Provider { name, config } => {
                line(out, indent, name);
                if let Some(c) = config {
                    line(
                        out,
                        &inner,
                        &format!("Using configuration \"{}\"", c.display()),
                    );
                }
                self.dump_children(out, &inner);
                self.dump_outcome(out, &inner);
            }
            Event::ModuleNotFound(m) => line(out, indent, &format!("Module \"{m}\" not found")),
            Event::ModuleProviderNotFound(m) => line(
                out,
                indent,
                &format!("Module data provider for module \"{m}\" not found"),
            ),
            Event::Location { path, original } => {
                line(out, indent, &format!("Path \"{}\"", path.display()));
                line(out, &inner, &format!("Original path: \"{original}\""));
                self.dump_children(out, &inner);
                if self.outcome == Some(Outcome::LocationNotFound) {
                    line(out, &inner, "Path not found");
                }
                self.dump_outcome(out, &inner);
            }
            Event::Uri { uri, original } => {
                line(out, indent, &format!("URI \"{uri}\""));
                line(out, &inner, &format!("Original uri: \"{original}\""));
                self.dump_children(out, &inner);
                self.dump_outcome(out, &inner);
            }
            Event::Interpolate(subject) => {
                line(out, indent, &format!("Interpolation on \"{subject}\""));
                self.dump_children(out, &inner);
            }
            Event::Scope(name) => {
                line(out, indent, name);
                self.dump_children(out, &inner);
                self.dump_outcome(out, &inner);
            }
            Event::SubLookup(segments) => {
                line(out, indent, &format!("Sub key: \"{}\"", segments.join(".")));
                self.dump_children(out, &inner);
                self.dump_outcome(out, &inner);
            }
            Event::Segment => self.dump_outcome(out, indent),
        }
    }

    fn dump_children(&self, out: &mut String, indent: &str) {
        for c in &self.children {
            c.dump(out, indent);
        }
    }

    /// Found / not found, then the texts (Puppet's `dump_outcome`).
    fn dump_outcome(&self, out: &mut String, indent: &str) {
        match &self.outcome {
            Some(Outcome::NotFound(k)) => line(out, indent, &format!("No such key: \"{k}\"")),
            Some(Outcome::Found(k, v)) => line(
                out,
                indent,
                &format!("Found key: \"{k}\" value: {}", dump_value(v, indent)),
            ),
            _ => {}
        }
        for t in &self.texts {
            line(out, indent, t);
        }
    }
}

fn line(out: &mut String, indent: &str, text: &str) {
    out.push_str(indent);
    out.push_str(text);
    out.push('\n');
}

/// A value as the explainer prints it: hashes and arrays one entry per line, indented one
/// step deeper than `indent`, `=>` between keys and values; scalars as Ruby's `inspect`.
pub fn dump_value(v: &Value, indent: &str) -> String {
    let mut out = String::new();
    dump_value_into(&mut out, v, indent);
    out
}

fn dump_value_into(out: &mut String, v: &Value, indent: &str) {
    match v {
        Value::Hash(h) => {
            out.push('{');
            if !h.is_empty() {
                let inner = format!("{indent}  ");
                let mut sep = "\n";
                for (k, val) in h.iter() {
                    out.push_str(sep);
                    out.push_str(&inner);
                    dump_value_into(out, k, &inner);
                    out.push_str(" => ");
                    dump_value_into(out, val, &inner);
                    sep = ",\n";
                }
                out.push('\n');
                out.push_str(indent);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            if !items.is_empty() {
                let inner = format!("{indent}  ");
                let mut sep = "\n";
                for item in items.iter() {
                    out.push_str(sep);
                    out.push_str(&inner);
                    dump_value_into(out, item, &inner);
                    sep = ",\n";
                }
                out.push('\n');
                out.push_str(indent);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(&ruby_inspect_str(s)),
        Value::Undef => out.push_str("nil"),
        Value::Float(f) => out.push_str(&crate::lookup::ruby_float(*f)),
        other => out.push_str(&other.to_string()),
    }
}

/// The explanation of one lookup, as `puppet lookup --explain` prints it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tree {
    /// The top-level steps.
    pub roots: Vec<Node>,
    /// Text lines at the top level (the error that ended the lookup).
    pub texts: Vec<String>,
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        for n in &self.roots {
            n.dump(&mut out, "");
        }
        for t in &self.texts {
            line(&mut out, "", t);
        }
        f.write_str(&out)
    }
}

/// Collects the tree while a lookup runs: `enter` pushes a node (Puppet's `with`), `leave`
/// pops it, `outcome` and `text` annotate the current node.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    stack: Vec<Node>,
    pub(crate) tree: Tree,
}

impl Recorder {
    pub(crate) fn enter(&mut self, event: Event) {
        self.stack.push(Node::leaf(event));
    }

    pub(crate) fn leave(&mut self) {
        if let Some(n) = self.stack.pop() {
            self.attach(n);
        }
    }

    /// Adds a node without children.
    pub(crate) fn add(&mut self, event: Event) {
        self.attach(Node::leaf(event));
    }

    /// Sets how the current node ended.
    pub(crate) fn outcome(&mut self, outcome: Outcome) {
        if let Some(n) = self.stack.last_mut() {
            n.outcome = Some(outcome);
        }
    }

    /// Adds a line of text to the current node (at the top level when there is none).
    pub(crate) fn text(&mut self, text: String) {
        match self.stack.last_mut() {
            Some(n) => n.texts.push(text),
            None => self.tree.texts.push(text),
        }
    }

    fn attach(&mut self, n: Node) {
        match self.stack.last_mut() {
            Some(parent) => parent.children.push(n),
            None => self.tree.roots.push(n),
        }
    }
}
