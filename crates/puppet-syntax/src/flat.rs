//! A flat syntax tree for passes that read a file once, downwards: the compile path's
//! loader scan and lowering.
//!
//! The parser's events are replayed into one vector of elements (nodes and tokens, in
//! preorder, so tokens are in source order) instead of a rowan tree: building one costs a
//! push per node and per token and freeing it one deallocation, where a rowan tree
//! allocates (and frees) every node. Each element links to its next and previous sibling
//! and a node to its last child, so children are walked both ways without copying child
//! lists. Token text is sliced from the file's text, which the tree shares. The tree holds
//! the same nodes and tokens, in the same order, as the rowan tree of [`crate::parse`] (the
//! tests and [`FlatParse::from_parse`] check it), and it is read through the views of
//! [`crate::green`]. Tools that want a lossless tree to walk in every direction
//! (validation, dumps, editors) keep using [`crate::Parse`].

use crate::green::Node;
use crate::parser::Sink;
use crate::{Diagnostic, Parse, Severity, SyntaxKind};
use std::sync::Arc;

/// No element (no previous sibling, no last child).
pub(crate) const NONE: u32 = u32::MAX;

/// A node or a token: kind, byte range, and its links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elem {
    pub(crate) start: u32,
    pub(crate) len: u32,
    /// The element after this one's subtree: its next sibling, or its parent's end.
    pub(crate) next: u32,
    /// The previous sibling, or [`NONE`].
    pub(crate) prev: u32,
    /// For a node, its last child ([`NONE`] when it has none).
    pub(crate) last: u32,
    pub(crate) kind: SyntaxKind,
    pub(crate) is_node: bool,
}

/// The arena: every node and token in preorder (the root first; every byte of the text in
/// exactly one token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatTree {
    pub(crate) text: Arc<str>,
    pub(crate) elems: Vec<Elem>,
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
        Node::new(&self.tree, 0)
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
    elems: Vec<Elem>,
    /// Open nodes, innermost last: index and last child so far.
    open: Vec<(u32, u32)>,
}

impl FlatSink {
    /// A sink for a text of about `tokens` tokens.
    pub(crate) fn new(text: Arc<str>, tokens: usize) -> Self {
        FlatSink {
            text,
            elems: Vec::with_capacity(tokens + tokens / 2 + 1),
            open: Vec::with_capacity(32),
        }
    }

    pub(crate) fn finish(self) -> FlatTree {
        let mut elems = self.elems;
        if elems.is_empty() {
            // Never the case (the replay always opens a root), but keep the root at 0.
            elems.push(Elem {
                start: 0,
                len: 0,
                next: 1,
                prev: NONE,
                last: NONE,
                kind: SyntaxKind::SOURCE_FILE,
                is_node: true,
            });
        }
        FlatTree {
            text: self.text,
            elems,
        }
    }

    /// Appends an element as the last child of the innermost open node.
    #[inline(always)]
    fn push(&mut self, mut elem: Elem) -> u32 {
        let index = self.elems.len() as u32;
        if let Some((_, last)) = self.open.last_mut() {
            elem.prev = *last;
            *last = index;
        }
        self.elems.push(elem);
        index
    }
}

impl Sink for FlatSink {
    #[inline]
    fn start_node(&mut self, kind: SyntaxKind, offset: u32) {
        let index = self.push(Elem {
            start: offset,
            len: 0,
            next: 0,
            prev: NONE,
            last: NONE,
            kind,
            is_node: true,
        });
        self.open.push((index, NONE));
    }

    #[inline]
    fn finish_node(&mut self, offset: u32) {
        if let Some((index, last)) = self.open.pop() {
            let next = self.elems.len() as u32;
            if let Some(e) = self.elems.get_mut(index as usize) {
                e.len = offset.saturating_sub(e.start);
                e.next = next;
                e.last = last;
            }
        }
    }

    #[inline(always)]
    fn token(&mut self, kind: SyntaxKind, start: u32, len: u32) {
        let next = self.elems.len() as u32 + 1;
        self.push(Elem {
            start,
            len,
            next,
            prev: NONE,
            last: NONE,
            kind,
            is_node: false,
        });
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
