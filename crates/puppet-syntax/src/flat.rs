//! A flat syntax tree for passes that read a file once, downwards: the compile path's
//! loader scan and lowering.
//!
//! The parser's events are replayed into three vectors (nodes, tokens, and the child lists
//! of the nodes) instead of a rowan tree: building one costs a few pushes per node and
//! freeing it three deallocations, where a rowan tree allocates (and frees) every node.
//! Token text is sliced from the file's text, which the tree shares. The tree holds the same
//! nodes and tokens, in the same order, as the rowan tree of [`crate::parse`] (the tests and
//! [`FlatParse::from_parse`] check it), and it is read through the views of
//! [`crate::green`]. Tools that want a lossless tree to walk in every direction (validation,
//! dumps, editors) keep using [`crate::Parse`].

use crate::green::Node;
use crate::parser::Sink;
use crate::{Diagnostic, Parse, Severity, SyntaxKind};
use std::sync::Arc;

/// A node: its kind, byte range, and its children (`count` entries of the tree's child
/// list from `first`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NodeData {
    pub(crate) kind: SyntaxKind,
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) first: u32,
    pub(crate) count: u32,
}

/// A token: its kind and byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TokenData {
    pub(crate) kind: SyntaxKind,
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// In the child lists, a node's index has this bit set; a token's index does not.
pub(crate) const NODE_BIT: u32 = 1 << 31;

/// The arena: nodes (children before their parent), tokens (in source order, every byte of
/// the text in exactly one), and the child lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatTree {
    pub(crate) text: Arc<str>,
    pub(crate) nodes: Vec<NodeData>,
    pub(crate) tokens: Vec<TokenData>,
    pub(crate) children: Vec<u32>,
    pub(crate) root: u32,
}

/// The result of a compile-path parse: a flat tree and the same diagnostics as
/// [`crate::parse`] gives for the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatParse {
    tree: FlatTree,
    errors: Vec<Diagnostic>,
}

impl FlatParse {
    pub(crate) fn new(tree: FlatTree, errors: Vec<Diagnostic>) -> Self {
        FlatParse { tree, errors }
    }

    pub(crate) fn set_errors(&mut self, errors: Vec<Diagnostic>) {
        self.errors = errors;
    }

    /// The root node.
    pub fn root(&self) -> Node<'_> {
        Node::new(&self.tree, self.tree.root)
    }

    /// The text the tree was parsed from.
    pub fn text(&self) -> &Arc<str> {
        &self.tree.text
    }

    /// Lexical and syntax problems, in source order (warnings included).
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    /// True when there is no error (warnings allowed).
    pub fn is_ok(&self) -> bool {
        !self.errors.iter().any(|d| d.severity == Severity::Error)
    }

    /// The flat form of a rowan parse of `text`: the same nodes, tokens and diagnostics
    /// (for callers that hold a [`Parse`] and lower it).
    pub fn from_parse(text: &Arc<str>, parse: &Parse) -> FlatParse {
        let mut sink = FlatSink::new(text.clone(), 0);
        replay_green(parse.green(), 0, &mut sink);
        FlatParse {
            tree: sink.finish(),
            errors: parse.errors().to_vec(),
        }
    }
}

/// Feeds a rowan green tree into a sink, as the parser's events would.
fn replay_green(node: &rowan::GreenNodeData, mut offset: u32, sink: &mut FlatSink) {
    let kind = <crate::PuppetLanguage as rowan::Language>::kind_from_raw(node.kind());
    sink.start_node(kind, offset);
    for child in node.children() {
        match child {
            rowan::NodeOrToken::Node(n) => {
                replay_green(n, offset, sink);
                offset += u32::from(n.text_len());
            }
            rowan::NodeOrToken::Token(t) => {
                let kind = <crate::PuppetLanguage as rowan::Language>::kind_from_raw(t.kind());
                let len = u32::from(t.text_len());
                sink.token(kind, offset, len);
                offset += len;
            }
        }
    }
    sink.finish_node(offset);
}

/// Builds a [`FlatTree`] from a parse's events.
pub(crate) struct FlatSink {
    text: Arc<str>,
    nodes: Vec<NodeData>,
    tokens: Vec<TokenData>,
    children: Vec<u32>,
    /// The children of the open nodes, innermost last.
    stack: Vec<u32>,
    /// Open nodes: kind, start, and where their children start in `stack`.
    open: Vec<(SyntaxKind, u32, usize)>,
}

impl FlatSink {
    /// A sink for a text of about `tokens` tokens.
    pub(crate) fn new(text: Arc<str>, tokens: usize) -> Self {
        FlatSink {
            text,
            nodes: Vec::with_capacity(tokens / 2 + 1),
            tokens: Vec::with_capacity(tokens),
            children: Vec::with_capacity(tokens + tokens / 2 + 1),
            stack: Vec::new(),
            open: Vec::new(),
        }
    }

    pub(crate) fn finish(self) -> FlatTree {
        // The root is the last node closed; an empty sink (never the case) gets an empty root.
        let mut nodes = self.nodes;
        let children = self.children;
        if nodes.is_empty() {
            nodes.push(NodeData {
                kind: SyntaxKind::SOURCE_FILE,
                start: 0,
                end: 0,
                first: 0,
                count: 0,
            });
        }
        let root = (nodes.len() - 1) as u32;
        FlatTree {
            text: self.text,
            nodes,
            tokens: self.tokens,
            children,
            root,
        }
    }
}

impl Sink for FlatSink {
    #[inline]
    fn start_node(&mut self, kind: SyntaxKind, offset: u32) {
        self.open.push((kind, offset, self.stack.len()));
    }

    #[inline]
    fn finish_node(&mut self, offset: u32) {
        if let Some((kind, start, from)) = self.open.pop() {
            let index = self.nodes.len() as u32;
            let first = self.children.len() as u32;
            self.children.extend_from_slice(&self.stack[from..]);
            self.nodes.push(NodeData {
                kind,
                start,
                end: offset,
                first,
                count: (self.stack.len() - from) as u32,
            });
            self.stack.truncate(from);
            self.stack.push(index | NODE_BIT);
        }
    }

    #[inline(always)]
    fn token(&mut self, kind: SyntaxKind, start: u32, len: u32) {
        self.stack.push(self.tokens.len() as u32);
        self.tokens.push(TokenData { kind, start, len });
    }
}

/// Parses a manifest (`.pp` file) into a flat tree.
pub fn parse(text: Arc<str>) -> FlatParse {
    crate::run_flat(text, crate::Entry::Manifest)
}

/// Parses an EPP template into a flat tree.
pub fn parse_epp(text: Arc<str>) -> FlatParse {
    crate::run_flat(text, crate::Entry::Epp)
}

/// Parses a single expression (as [`crate::parse_expression`]) into a flat tree.
pub fn parse_expression(text: Arc<str>) -> FlatParse {
    crate::run_flat(text, crate::Entry::Expression)
}

/// The text of an interpolating heredoc body, as [`crate::parse_interpolated_text_with`].
pub(crate) fn parse_interpolated_text_with(text: &str, dollar_escape: bool) -> FlatParse {
    let entry = if dollar_escape {
        crate::Entry::InterpolatedText
    } else {
        crate::Entry::InterpolatedTextNoDollarEscape
    };
    crate::run_flat(Arc::from(text), entry)
}
