//! Cursor-free views of a flat syntax tree ([`crate::flat`]): a node or token is the tree
//! plus an index.
//!
//! rowan's red API ([`crate::SyntaxNode`]) allocates a cursor for every node and token it
//! hands out, and a rowan tree allocates every node; a pass over a file that only reads
//! downwards once (the loader's scan and lowering to the evaluator's IR on the compile path)
//! needs neither. A [`Node`] here is `Copy`, free to make, and enough to read kinds, text and
//! ranges going downwards; tokens also know their neighbours in the file (for heredoc bodies,
//! which lie outside their expression's node).
//!
//! The lookups mirror the private helpers of [`crate::ast`] (first expression child, the
//! operator token, the first significant token, ...) and give the same answers; the typed
//! AST stays the API for tools, this module is for passes that only read downwards.

use crate::ast::{AstNode, Expr, HeredocBody};
use crate::flat::{Elem, FlatParse, FlatTree, NONE};
use crate::{SyntaxKind, TextRange, TextSize};

/// A node of a flat tree.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    tree: &'a FlatTree,
    index: u32,
}

/// A token of a flat tree.
#[derive(Debug, Clone, Copy)]
pub struct Token<'a> {
    tree: &'a FlatTree,
    index: u32,
}

/// A node or a token.
#[derive(Debug, Clone, Copy)]
pub enum Element<'a> {
    Node(Node<'a>),
    Token(Token<'a>),
}

impl<'a> Element<'a> {
    #[inline]
    pub fn into_node(self) -> Option<Node<'a>> {
        match self {
            Element::Node(n) => Some(n),
            Element::Token(_) => None,
        }
    }

    #[inline]
    pub fn into_token(self) -> Option<Token<'a>> {
        match self {
            Element::Token(t) => Some(t),
            Element::Node(_) => None,
        }
    }
}

impl<'a> Node<'a> {
    #[inline]
    pub(crate) fn new(tree: &'a FlatTree, index: u32) -> Self {
        Node { tree, index }
    }

    /// The root of a parse.
    #[inline]
    pub fn root(parse: &'a FlatParse) -> Node<'a> {
        parse.root()
    }

    #[inline]
    fn data(self) -> Elem {
        self.tree.elems[self.index as usize]
    }

    #[inline]
    pub fn kind(self) -> SyntaxKind {
        self.data().kind
    }

    /// The full range, trivia included.
    #[inline]
    pub fn text_range(self) -> TextRange {
        let d = self.data();
        TextRange::at(d.start.into(), d.len.into())
    }

    /// The text of the node, trivia included.
    #[inline]
    pub fn text(self) -> &'a str {
        elem_text(self.tree, &self.data())
    }

    /// The range without leading or trailing trivia, as [`crate::ast::trimmed_range`].
    ///
    /// The walks of [`trimmed_range`] (down the first children, then along the tokens, and
    /// the same from the end) visit the subtree's elements in preorder, and backwards in the
    /// reverse order, which the flat tree holds as one slice: this scans that slice from both
    /// ends instead. It stops where the walks stop: at a significant token, at a childless
    /// node (the full range), and at a trivia token outside the node's range (the walks'
    /// limit; never met, tokens are not empty). `tests/tree_views.rs` and
    /// `linear_trimmed_range_is_the_walk` check it against the walks.
    #[inline]
    pub fn trimmed_range(self) -> TextRange {
        let full = self.text_range();
        let d = self.data();
        let subtree = self
            .tree
            .elems
            .get(self.index as usize + 1..d.next as usize)
            .unwrap_or(&[]);
        let (start, end) = (d.start, d.start + d.len);
        // The first significant token's start; `None` for the full range.
        let first = subtree.iter().find_map(|e| {
            if e.is_node {
                (e.last == NONE).then_some(None)
            } else if !e.kind.is_trivia() {
                Some(Some(e.start))
            } else {
                (e.start >= end).then_some(None)
            }
        });
        let Some(Some(first)) = first else {
            return full;
        };
        // The last significant token's end (or a trivia token's ending before the node).
        let last = subtree.iter().rev().find_map(|e| {
            if e.is_node {
                (e.last == NONE).then_some(None)
            } else if !e.kind.is_trivia() || e.start + e.len <= start {
                Some(Some(e.start + e.len))
            } else {
                None
            }
        });
        let Some(Some(last)) = last else {
            return full;
        };
        if first < last && start <= first && last <= end {
            TextRange::new(first.into(), last.into())
        } else {
            full
        }
    }

    /// [`trimmed_range`]'s walks over this node, for the tests of the linear scan.
    #[cfg(test)]
    fn walked_trimmed_range(self) -> TextRange {
        trimmed_range(self, self.text_range())
    }

    /// The children, nodes and tokens, in order.
    #[inline]
    pub fn children_with_tokens(self) -> Elements<'a> {
        let d = self.data();
        let front = if d.last == NONE { NONE } else { self.index + 1 };
        Elements {
            tree: self.tree,
            front,
            back: d.last,
        }
    }

    /// The child nodes, in order.
    #[inline]
    pub fn children(self) -> impl Iterator<Item = Node<'a>> {
        self.children_with_tokens().filter_map(|e| e.into_node())
    }

    /// The child nodes of `kind`.
    #[inline]
    pub fn children_of(self, kind: SyntaxKind) -> impl Iterator<Item = Node<'a>> {
        self.children().filter(move |n| n.kind() == kind)
    }

    /// The first child node of `kind`.
    #[inline]
    pub fn child(self, kind: SyntaxKind) -> Option<Node<'a>> {
        self.children_of(kind).next()
    }

    /// The child nodes that are expressions ([`Expr::can_cast`]).
    #[inline]
    pub fn exprs(self) -> impl Iterator<Item = Node<'a>> {
        self.children().filter(|n| Expr::can_cast(n.kind()))
    }

    /// The `n`-th (from 0) expression child.
    #[inline]
    pub fn nth_expr(self, n: usize) -> Option<Node<'a>> {
        self.exprs().nth(n)
    }

    /// The first child token of `kind`.
    #[inline]
    pub fn token(self, kind: SyntaxKind) -> Option<Token<'a>> {
        self.children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| t.kind() == kind)
    }

    /// The first child token that is not trivia.
    #[inline]
    pub fn first_significant_token(self) -> Option<Token<'a>> {
        self.children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| !t.kind().is_trivia())
    }

    /// The first significant child token after the first significant child (node or token):
    /// the operator of a binary, assignment or relationship expression.
    #[inline]
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

    /// This node and every node below it, in preorder (as rowan's `descendants`).
    pub fn descendants(self) -> impl Iterator<Item = Node<'a>> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let n = stack.pop()?;
            let before = stack.len();
            stack.extend(n.children());
            stack[before..].reverse();
            Some(n)
        })
    }

    /// The nodes of `kind` in this node's subtree (itself included), in source order: a
    /// scan of the tree's arena (which holds a subtree's elements together), far cheaper
    /// than filtering [`descendants`](Self::descendants).
    ///
    /// ```
    /// use puppet_syntax::{green::Node, SyntaxKind};
    /// let parse = puppet_syntax::flat::parse("$a = {1 => {2 => 3}}\n$b = [{}]".into());
    /// let root = Node::root(&parse);
    /// let hashes: Vec<&str> = root.descendants_of_kind(SyntaxKind::HASH_EXPR).map(|n| n.text().trim()).collect();
    /// assert_eq!(hashes, ["{1 => {2 => 3}}", "{2 => 3}", "{}"]);
    /// ```
    pub fn descendants_of_kind(self, kind: SyntaxKind) -> impl Iterator<Item = Node<'a>> {
        let elems = &self.tree.elems;
        let next = self.data().next as usize;
        let end = if next > self.index as usize && next <= elems.len() {
            next
        } else {
            elems.len()
        };
        let start = self.index as usize;
        // Over the slice, without a bounds check per element; the kind first, as most
        // elements are of another kind.
        (elems[start.min(end)..end].iter().enumerate())
            .filter(move |(_, e)| e.kind == kind && e.is_node)
            .map(move |(i, _)| Node::new(self.tree, (start + i) as u32))
    }

    /// For a heredoc expression: its body (as [`crate::ast::HeredocExpr::body`], with the
    /// flat parse of an interpolating body).
    pub fn heredoc_body(self) -> Option<HeredocBody<Token<'a>, FlatParse>> {
        let header_token = self.token(SyntaxKind::HEREDOC_HEADER)?;
        let header = crate::lexer::parse_heredoc_header(header_token.text())?;
        // Tokens are in source order among the elements.
        let elems = &self.tree.elems;
        let at = header_token.index as usize;
        let before = crate::ast::heredoc_headers_before(
            elems[..at.min(elems.len())]
                .iter()
                .rev()
                .filter(|e| !e.is_node)
                .map(|t| (t.kind, elem_text(self.tree, t).contains('\n'))),
        );
        let body = elems
            .iter()
            .enumerate()
            .skip(at + 1)
            .filter(|(_, t)| !t.is_node && t.kind == SyntaxKind::HEREDOC_BODY)
            .nth(before)
            .map(|(i, _)| Token {
                tree: self.tree,
                index: i as u32,
            });
        Some(crate::ast::heredoc_body_of(
            header,
            body.map(|t| (t, t.text(), t.text_range().start())),
            self.text_range().end(),
            crate::flat::parse_interpolated_text_with,
            |p: &FlatParse| p.errors(),
        ))
    }
}

fn elem_text<'a>(tree: &'a FlatTree, e: &Elem) -> &'a str {
    tree.text
        .get(e.start as usize..e.start as usize + e.len as usize)
        .unwrap_or("")
}

impl<'a> Token<'a> {
    #[inline]
    fn data(self) -> Elem {
        self.tree.elems[self.index as usize]
    }

    #[inline]
    pub fn kind(self) -> SyntaxKind {
        self.data().kind
    }

    #[inline]
    pub fn text(self) -> &'a str {
        elem_text(self.tree, &self.tree.elems[self.index as usize])
    }

    #[inline]
    pub fn text_range(self) -> TextRange {
        let d = self.data();
        TextRange::at(d.start.into(), d.len.into())
    }
}

/// The children of a [`Node`], from both ends.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    tree: &'a FlatTree,
    /// The next child from the front and from the back ([`NONE`] when done).
    front: u32,
    back: u32,
}

impl<'a> Elements<'a> {
    #[inline]
    fn element(&self, index: u32, e: &Elem) -> Element<'a> {
        if e.is_node {
            Element::Node(Node {
                tree: self.tree,
                index,
            })
        } else {
            Element::Token(Token {
                tree: self.tree,
                index,
            })
        }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Element<'a>;

    #[inline]
    fn next(&mut self) -> Option<Element<'a>> {
        let index = self.front;
        let e = self.tree.elems.get(index as usize)?;
        if index == self.back {
            self.front = NONE;
            self.back = NONE;
        } else {
            self.front = e.next;
        }
        Some(self.element(index, e))
    }
}

impl DoubleEndedIterator for Elements<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let index = self.back;
        let e = self.tree.elems.get(index as usize)?;
        if index == self.front {
            self.front = NONE;
            self.back = NONE;
        } else {
            self.back = e.prev;
        }
        Some(self.element(index, e))
    }
}

/// A child, as the trivia trimming sees it.
pub(crate) enum Kid<N> {
    Node(N),
    Token { trivia: bool, len: TextSize },
}

/// A node of either tree, for [`trimmed_range`]: its children, in order.
pub(crate) trait TrimNode: Copy {
    fn kids(self) -> impl DoubleEndedIterator<Item = Kid<Self>>;
    fn len(self) -> TextSize;
}

impl TrimNode for &rowan::GreenNodeData {
    fn kids(self) -> impl DoubleEndedIterator<Item = Kid<Self>> {
        self.children().map(|c| match c {
            rowan::NodeOrToken::Node(n) => Kid::Node(n),
            rowan::NodeOrToken::Token(t) => Kid::Token {
                trivia: is_trivia_raw(t.kind()),
                len: t.text_len(),
            },
        })
    }

    fn len(self) -> TextSize {
        self.text_len()
    }
}

impl TrimNode for Node<'_> {
    fn kids(self) -> impl DoubleEndedIterator<Item = Kid<Self>> {
        self.children_with_tokens().map(|c| match c {
            Element::Node(n) => Kid::Node(n),
            Element::Token(t) => {
                let d = t.data();
                Kid::Token {
                    trivia: d.kind.is_trivia(),
                    len: d.len.into(),
                }
            }
        })
    }

    fn len(self) -> TextSize {
        self.text_range().len()
    }
}

/// [`SyntaxKind::is_trivia`] on a raw kind: the trivia kinds come first in the enum.
#[inline]
fn is_trivia_raw(raw: rowan::SyntaxKind) -> bool {
    raw.0 <= SyntaxKind::HEREDOC_BODY as u16
}

/// The range of a green node (whose full range is `full`) without leading or trailing
/// trivia. Steps in from both ends, so it costs the depth of the node's edges and the trivia
/// there, not the size of the node.
///
/// The answer is the one the red-tree walk gives (`first_token`, then `next_token` while
/// trivia; `last_token`, then `prev_token`), including its edge cases: a childless node met
/// on the way, or a node that is all trivia, gives the full range.
pub(crate) fn trimmed_range<N: TrimNode>(green: N, full: TextRange) -> TextRange {
    let mut children = green.kids();
    let Some(first) = children.next() else {
        return full;
    };
    let last = children.next_back();
    // The common case, a node that starts and ends with a significant token of its own
    // (`$x`, `'s'`, `f(...)`, `{ ... }`): the walks would stop at once.
    if let Kid::Token { trivia: false, .. } = first {
        match last {
            None | Some(Kid::Token { trivia: false, .. }) => return full,
            _ => {}
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
fn first_edge<N: TrimNode>(node: N, mut offset: TextSize, limit: TextSize) -> Option<Edge> {
    for child in node.kids() {
        match child {
            Kid::Token { trivia, len } => {
                let end = offset + len;
                if !trivia || offset >= limit {
                    return Some(Edge::Token {
                        trivia,
                        start: offset,
                        end,
                    });
                }
                offset = end;
            }
            Kid::Node(n) => {
                if n.kids().next().is_none() {
                    return Some(Edge::Stop);
                }
                if let Some(edge) = first_edge(n, offset, limit) {
                    return Some(edge);
                }
                offset += n.len();
            }
        }
    }
    None
}

/// The last token of `node` (ending at `end`) that is not trivia or ends at or before `limit`.
fn last_edge<N: TrimNode>(node: N, mut end: TextSize, limit: TextSize) -> Option<Edge> {
    for child in node.kids().rev() {
        match child {
            Kid::Token { trivia, len } => {
                let start = end - len;
                if !trivia || end <= limit {
                    return Some(Edge::Token { trivia, start, end });
                }
                end = start;
            }
            Kid::Node(n) => {
                if n.kids().next().is_none() {
                    return Some(Edge::Stop);
                }
                if let Some(edge) = last_edge(n, end, limit) {
                    return Some(edge);
                }
                end -= n.len();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_trimmed_range_is_the_walk() {
        let texts = [
            "",
            "# only a comment\n",
            "  $x = 1 # trailing\n",
            "class a { }\n\n# end\n",
            "f(\n  # c\n  1,\n)\n",
            "$x = @(END)\n  text\n  END\nnotice($x)\n",
            "if $a { } else { }\n",
            "$a = [ ]\n$b = { }\n",
            "node default { include a }\n",
            "a -> b ~> c\n/* ml */ $x =~ /re/\n",
            "notify { 'x': message => \"a ${b} c\", }\n",
            "class { 'x': }\n$y = $x ? { 'a' => 1, default => 2 }\n",
            "(",
            "$x = [1,\n",
            "}}}{{{ )( ",
            "define d($a = 1, String $b) { }\n",
        ];
        for text in texts {
            for parse in [
                crate::flat::parse(std::sync::Arc::from(text)),
                crate::flat::parse_epp(std::sync::Arc::from(text)),
                crate::flat::parse_expression(std::sync::Arc::from(text)),
            ] {
                let mut stack = vec![parse.root()];
                while let Some(n) = stack.pop() {
                    assert_eq!(
                        n.trimmed_range(),
                        n.walked_trimmed_range(),
                        "{text:?} {:?}",
                        n.kind()
                    );
                    stack.extend(n.children());
                }
            }
        }
    }

    #[test]
    fn raw_trivia_test_matches_is_trivia() {
        for raw in 0..SyntaxKind::__LAST as u16 {
            let kind =
                <crate::PuppetLanguage as rowan::Language>::kind_from_raw(rowan::SyntaxKind(raw));
            assert_eq!(
                is_trivia_raw(rowan::SyntaxKind(raw)),
                kind.is_trivia(),
                "{kind:?}"
            );
        }
    }
}
