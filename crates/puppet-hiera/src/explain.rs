//! Explain mode: a structured trace of a lookup (which layer, hierarchy entry and file was
//! consulted and what was found there), renderable as indented text in the spirit of
//! `puppet lookup --explain`.

use puppet_types::Value;
use std::fmt;
use std::path::PathBuf;

/// One step of a lookup.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The lookup of a key (the root of a trace, or a nested `lookup()` interpolation).
    Lookup(String),
    /// The search for `lookup_options`.
    LookupOptions,
    /// The merge strategy used for the values below.
    Merge(String),
    /// A layer: `Global Data Provider (hiera configuration version 5)`,
    /// `Environment Data Provider ...`, `Module "ntp" Data Provider ...`.
    Layer(String),
    /// A hierarchy entry.
    Hierarchy(String),
    /// A data file: declared path, resolved path, whether it exists.
    Location {
        /// As written in `hiera.yaml`.
        original: String,
        /// After interpolation and joining with the datadir.
        path: PathBuf,
        /// Whether the file exists.
        exists: bool,
    },
    /// A key found, with its value (after interpolation).
    Found(String, Value),
    /// A key not found.
    NotFound(String),
    /// A string being interpolated.
    Interpolate(String),
    /// Free text (e.g. "Module data provider for module 'x' not found").
    Text(String),
    /// The merged result of the children.
    Merged(Value),
}

/// A node of the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What happened.
    pub event: Event,
    /// Nested steps.
    pub children: Vec<Node>,
}

impl Node {
    /// A node without children.
    pub fn leaf(event: Event) -> Node {
        Node {
            event,
            children: Vec::new(),
        }
    }

    fn render(&self, f: &mut fmt::Formatter<'_>, indent: usize) -> fmt::Result {
        let pad = "  ".repeat(indent);
        match &self.event {
            Event::Lookup(k) => writeln!(f, "{pad}Searching for \"{k}\"")?,
            Event::LookupOptions => writeln!(f, "{pad}Searching for \"lookup_options\"")?,
            Event::Merge(s) => writeln!(f, "{pad}Using merge options from {s}")?,
            Event::Layer(n) => writeln!(f, "{pad}{n}")?,
            Event::Hierarchy(n) => writeln!(f, "{pad}Hierarchy entry \"{n}\"")?,
            Event::Location {
                original,
                path,
                exists,
            } => {
                if *exists {
                    writeln!(f, "{pad}Path \"{}\"", path.display())?;
                } else {
                    writeln!(f, "{pad}Path \"{}\"", path.display())?;
                    writeln!(f, "{pad}  Original path: \"{original}\"")?;
                    writeln!(f, "{pad}  Path not found")?;
                }
            }
            Event::Found(k, v) => writeln!(f, "{pad}Found key: \"{k}\" value: {v}")?,
            Event::NotFound(k) => writeln!(f, "{pad}No such key: \"{k}\"")?,
            Event::Interpolate(s) => writeln!(f, "{pad}Interpolation on \"{s}\"")?,
            Event::Text(t) => writeln!(f, "{pad}{t}")?,
            Event::Merged(v) => writeln!(f, "{pad}Merged result: {v}")?,
        }
        for c in &self.children {
            c.render(f, indent + 1)?;
        }
        Ok(())
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f, 0)
    }
}

/// Collects the trace while a lookup runs.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    stack: Vec<Node>,
    pub(crate) roots: Vec<Node>,
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

    pub(crate) fn add(&mut self, event: Event) {
        self.attach(Node::leaf(event));
    }

    fn attach(&mut self, n: Node) {
        match self.stack.last_mut() {
            Some(parent) => parent.children.push(n),
            None => self.roots.push(n),
        }
    }
}
