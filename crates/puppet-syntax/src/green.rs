//! Cursor-free views of a syntax tree: a green node or token with its offset.
//!
//! rowan's red API ([`SyntaxNode`]) allocates a cursor for every node and token it hands
//! out, which dominates the cost of a single pass over a tree (lowering a file to the
//! evaluator's IR visits each node once). A [`Node`] here is a borrowed green node plus its
//! absolute offset: `Copy`, free to make, and enough to read kinds, text and ranges going
//! downwards. It cannot go up or sideways (no parent, no next token); [`Node::to_syntax`]
//! finds the red node when a caller needs that.
//!
//! The lookups mirror the private helpers of [`crate::ast`] (first expression child, the
//! operator token, the first significant token, ...) and give the same answers; the typed
//! AST stays the API for tools, this module is for passes that only read downwards.

use crate::ast::{AstNode, Expr};
use crate::{Parse, SyntaxKind, SyntaxNode, TextRange, TextSize};

/// A node of the green tree at a known offset.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    green: &'a rowan::GreenNodeData,
    offset: TextSize,
}

/// A token of the green tree at a known offset.
#[derive(Debug, Clone, Copy)]
pub struct Token<'a> {
    green: &'a rowan::GreenTokenData,
    offset: TextSize,
}

/// A node or a token.
#[derive(Debug, Clone, Copy)]
pub enum Element<'a> {
    Node(Node<'a>),
    Token(Token<'a>),
}

impl<'a> Element<'a> {
    pub fn into_node(self) -> Option<Node<'a>> {
        match self {
            Element::Node(n) => Some(n),
            Element::Token(_) => None,
        }
    }

    pub fn into_token(self) -> Option<Token<'a>> {
        match self {
            Element::Token(t) => Some(t),
            Element::Node(_) => None,
        }
    }
}

fn kind_of(raw: rowan::SyntaxKind) -> SyntaxKind {
    <crate::PuppetLanguage as rowan::Language>::kind_from_raw(raw)
}

/// [`SyntaxKind::is_trivia`] on a raw kind: the trivia kinds come first in the enum.
#[inline]
fn is_trivia_raw(raw: rowan::SyntaxKind) -> bool {
    raw.0 <= SyntaxKind::HEREDOC_BODY as u16
}

impl<'a> Node<'a> {
    /// The root of a parse.
    pub fn root(parse: &'a Parse) -> Node<'a> {
        Node {
            green: parse.green(),
            offset: TextSize::from(0),
        }
    }

    pub fn kind(self) -> SyntaxKind {
        kind_of(self.green.kind())
    }

    /// The full range, trivia included.
    pub fn text_range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }

    /// The range without leading or trailing trivia, as [`crate::ast::trimmed_range`].
    pub fn trimmed_range(self) -> TextRange {
        trimmed_range(self.green, self.text_range())
    }

    /// The children, nodes and tokens, in order.
    pub fn children_with_tokens(self) -> Elements<'a> {
        Elements {
            children: self.green.children(),
            offset: self.offset,
        }
    }

    /// The child nodes, in order.
    pub fn children(self) -> impl Iterator<Item = Node<'a>> {
        self.children_with_tokens().filter_map(|e| e.into_node())
    }

    /// The child nodes of `kind`.
    pub fn children_of(self, kind: SyntaxKind) -> impl Iterator<Item = Node<'a>> {
        self.children().filter(move |n| n.kind() == kind)
    }

    /// The first child node of `kind`.
    pub fn child(self, kind: SyntaxKind) -> Option<Node<'a>> {
        self.children_of(kind).next()
    }

    /// The child nodes that are expressions ([`Expr::can_cast`]).
    pub fn exprs(self) -> impl Iterator<Item = Node<'a>> {
        self.children().filter(|n| Expr::can_cast(n.kind()))
    }

    /// The `n`-th (from 0) expression child.
    pub fn nth_expr(self, n: usize) -> Option<Node<'a>> {
        self.exprs().nth(n)
    }

    /// The first child token of `kind`.
    pub fn token(self, kind: SyntaxKind) -> Option<Token<'a>> {
        self.children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| t.kind() == kind)
    }

    /// The first child token that is not trivia.
    pub fn first_significant_token(self) -> Option<Token<'a>> {
        self.children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| !t.kind().is_trivia())
    }

    /// The first significant child token after the first significant child (node or token):
    /// the operator of a binary, assignment or relationship expression.
    pub fn operator_token(self) -> Option<Token<'a>> {
        let mut children = self.children_with_tokens();
        children.find(|e| match e {
            Element::Token(t) => !t.kind().is_trivia(),
            Element::Node(_) => true,
        })?;
        children
            .filter_map(|e| e.into_token())
            .find(|t| !t.kind().is_trivia())
    }

    /// The leftmost token of the subtree, trivia included (rowan's `first_token`: none when
    /// the leftmost path ends in a childless node).
    pub fn first_token(self) -> Option<Token<'a>> {
        match self.children_with_tokens().next()? {
            Element::Token(t) => Some(t),
            Element::Node(n) => n.first_token(),
        }
    }

    /// The red node for this one in the tree rooted at `root` (which must be the tree this
    /// node comes from): for the rare reads that need to look outside the node.
    pub fn to_syntax(self, root: &SyntaxNode) -> Option<SyntaxNode> {
        let range = self.text_range();
        if !root.text_range().contains_range(range) {
            return None;
        }
        let start = match root.covering_element(range) {
            rowan::NodeOrToken::Node(n) => n,
            rowan::NodeOrToken::Token(t) => t.parent()?,
        };
        let kind = self.kind();
        let is_self = |n: &SyntaxNode| n.kind() == kind && n.text_range() == range;
        // `covering_element` can stop above the node next to an empty sibling; then search.
        start
            .ancestors()
            .find(is_self)
            .or_else(|| root.descendants().find(is_self))
    }
}

impl<'a> Token<'a> {
    pub fn kind(self) -> SyntaxKind {
        kind_of(self.green.kind())
    }

    pub fn text(self) -> &'a str {
        self.green.text()
    }

    pub fn text_range(self) -> TextRange {
        TextRange::at(self.offset, self.green.text_len())
    }
}

/// The children of a [`Node`], with their offsets.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    children: rowan::Children<'a>,
    offset: TextSize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Element<'a>;

    fn next(&mut self) -> Option<Element<'a>> {
        let offset = self.offset;
        Some(match self.children.next()? {
            rowan::NodeOrToken::Node(green) => {
                self.offset += green.text_len();
                Element::Node(Node { green, offset })
            }
            rowan::NodeOrToken::Token(green) => {
                self.offset += green.text_len();
                Element::Token(Token { green, offset })
            }
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.children.size_hint()
    }
}

/// The range of a green node (whose full range is `full`) without leading or trailing
/// trivia. Steps in from both ends, so it costs the depth of the node's edges and the trivia
/// there, not the size of the node.
///
/// The answer is the one the red-tree walk gives (`first_token`, then `next_token` while
/// trivia; `last_token`, then `prev_token`), including its edge cases: a childless node met
/// on the way, or a node that is all trivia, gives the full range.
pub(crate) fn trimmed_range(green: &rowan::GreenNodeData, full: TextRange) -> TextRange {
    let mut children = green.children();
    let Some(first) = children.next() else {
        return full;
    };
    let last = children.next_back().unwrap_or(first);
    // The common case, a node that starts and ends with a significant token of its own
    // (`$x`, `'s'`, `f(...)`, `{ ... }`): the walks would stop at once.
    if let (rowan::NodeOrToken::Token(f), rowan::NodeOrToken::Token(l)) = (first, last) {
        if !is_trivia_raw(f.kind()) && !is_trivia_raw(l.kind()) {
            return full;
        }
    }
    let Some(Edge::Token {
        trivia: false,
        start: first,
        ..
    }) = first_edge(green, full.start(), full.end())
    else {
        return full;
    };
    let Some(Edge::Token { end: last, .. }) = last_edge(green, full.end(), full.start()) else {
        return full;
    };
    if first < last && full.contains_range(TextRange::new(first, last)) {
        TextRange::new(first, last)
    } else {
        full
    }
}

/// Where a walk over the tokens at one edge of a node stopped.
enum Edge {
    /// At a token that is significant or outside the node's range.
    Token {
        trivia: bool,
        start: TextSize,
        end: TextSize,
    },
    /// At a childless node, where rowan's token walk finds no token.
    Stop,
}

/// The first token of `node` (starting at `offset`) that is not trivia or starts at or after
/// `limit`; `None` when the node has none (the caller treats that as "no edge").
fn first_edge(node: &rowan::GreenNodeData, mut offset: TextSize, limit: TextSize) -> Option<Edge> {
    for child in node.children() {
        match child {
            rowan::NodeOrToken::Token(t) => {
                let trivia = is_trivia_raw(t.kind());
                let end = offset + t.text_len();
                if !trivia || offset >= limit {
                    return Some(Edge::Token {
                        trivia,
                        start: offset,
                        end,
                    });
                }
                offset = end;
            }
            rowan::NodeOrToken::Node(n) => {
                if n.children().len() == 0 {
                    return Some(Edge::Stop);
                }
                if let Some(edge) = first_edge(n, offset, limit) {
                    return Some(edge);
                }
                offset += n.text_len();
            }
        }
    }
    None
}

/// The last token of `node` (ending at `end`) that is not trivia or ends at or before `limit`.
fn last_edge(node: &rowan::GreenNodeData, mut end: TextSize, limit: TextSize) -> Option<Edge> {
    for child in node.children().rev() {
        match child {
            rowan::NodeOrToken::Token(t) => {
                let trivia = is_trivia_raw(t.kind());
                let start = end - t.text_len();
                if !trivia || end <= limit {
                    return Some(Edge::Token { trivia, start, end });
                }
                end = start;
            }
            rowan::NodeOrToken::Node(n) => {
                if n.children().len() == 0 {
                    return Some(Edge::Stop);
                }
                if let Some(edge) = last_edge(n, end, limit) {
                    return Some(edge);
                }
                end -= n.text_len();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_trivia_test_matches_is_trivia() {
        for raw in 0..SyntaxKind::__LAST as u16 {
            let kind = kind_of(rowan::SyntaxKind(raw));
            assert_eq!(
                is_trivia_raw(rowan::SyntaxKind(raw)),
                kind.is_trivia(),
                "{kind:?}"
            );
        }
    }
}
