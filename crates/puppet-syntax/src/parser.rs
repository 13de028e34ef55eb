//! The parser machinery: a cursor over the significant tokens that records events
//! (start node, token, finish node, error), in the shape of rust-analyzer's parser.
//!
//! The grammar itself lives in `grammar.rs` and only talks to [`Parser`]. The parser knows
//! nothing of rowan or of token text beyond what the grammar asks for (`at_text`); the events
//! are turned into a tree, with the trivia put back, by `build_tree`.

use crate::lexer::Token;
use crate::SyntaxKind::{self, *};

/// What the grammar produced, in order.
#[derive(Debug, Clone)]
pub(crate) enum Event {
    /// Start a node. `forward_parent` links to a later `Start` that must be opened first
    /// (used by `CompletedMarker::precede` for left recursion).
    Start {
        kind: SyntaxKind,
        forward_parent: Option<u32>,
    },
    Finish,
    /// Consume the next significant token.
    Token,
    Error {
        code: &'static str,
        message: String,
    },
    /// A placeholder left by an abandoned marker.
    Tombstone,
}

/// The maximum nesting of expressions; deeper input gets a diagnostic, not a stack overflow.
pub(crate) const NESTING_LIMIT: u32 = 200;

pub(crate) struct Parser<'t> {
    text: &'t str,
    /// Significant tokens: kind and start offset.
    kinds: Vec<SyntaxKind>,
    starts: Vec<u32>,
    ends: Vec<u32>,
    pos: usize,
    pub(crate) events: Vec<Event>,
    steps: u32,
    pub(crate) depth: u32,
    /// Set once the nesting limit was hit: the grammar stops descending.
    pub(crate) too_deep: bool,
    /// Set while parsing the first token of `${...}` (see `grammar::prefix`).
    pub(crate) interp_first: bool,
}

impl<'t> Parser<'t> {
    /// A parser over the significant tokens of `tokens`; `skip` says which tokens the grammar
    /// never sees (trivia, and EPP tags that carry no meaning).
    pub(crate) fn new(text: &'t str, tokens: &[Token], skip: &[bool]) -> Self {
        let mut kinds = Vec::with_capacity(tokens.len());
        let mut starts = Vec::with_capacity(tokens.len());
        let mut ends = Vec::with_capacity(tokens.len());
        let mut offset = 0u32;
        for (t, &s) in tokens.iter().zip(skip) {
            if !s {
                kinds.push(t.kind);
                starts.push(offset);
                ends.push(offset + t.len);
            }
            offset += t.len;
        }
        Parser {
            text,
            kinds,
            starts,
            ends,
            pos: 0,
            events: Vec::new(),
            steps: 0,
            depth: 0,
            too_deep: false,
            interp_first: false,
        }
    }

    /// The kind of the n-th significant token ahead (`EOF` is reported as `__LAST_TOKEN`).
    pub(crate) fn nth(&mut self, n: usize) -> SyntaxKind {
        self.steps += 1;
        assert!(self.steps < 50_000_000, "the parser is stuck");
        self.kinds
            .get(self.pos + n)
            .copied()
            .unwrap_or(__LAST_TOKEN)
    }

    pub(crate) fn current(&mut self) -> SyntaxKind {
        self.nth(0)
    }

    pub(crate) fn at(&mut self, kind: SyntaxKind) -> bool {
        self.nth(0) == kind
    }

    pub(crate) fn at_eof(&mut self) -> bool {
        self.nth(0) == __LAST_TOKEN
    }

    /// The text of the n-th significant token ahead.
    pub(crate) fn nth_text(&self, n: usize) -> &'t str {
        match (self.starts.get(self.pos + n), self.ends.get(self.pos + n)) {
            (Some(&s), Some(&e)) => &self.text[s as usize..e as usize],
            _ => "",
        }
    }

    /// The text of the previous significant token.
    pub(crate) fn prev_text(&self) -> &'t str {
        if self.pos == 0 {
            return "";
        }
        let (s, e) = (self.starts[self.pos - 1], self.ends[self.pos - 1]);
        &self.text[s as usize..e as usize]
    }

    pub(crate) fn bump(&mut self) {
        if self.pos < self.kinds.len() {
            self.pos += 1;
            self.events.push(Event::Token);
            // Progress: the step limit in `nth` counts look-ups since the last consumed token,
            // so it catches a stuck grammar without also rejecting big files (a 20 MB
            // manifest used to panic with "the parser is stuck").
            self.steps = 0;
        }
    }

    pub(crate) fn eat(&mut self, kind: SyntaxKind) -> bool {
        if self.at(kind) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes `kind` or reports a syntax error at the current token.
    pub(crate) fn expect(&mut self, kind: SyntaxKind) -> bool {
        if self.eat(kind) {
            true
        } else {
            self.error_here();
            false
        }
    }

    pub(crate) fn start(&mut self) -> Marker {
        let pos = self.events.len() as u32;
        self.events.push(Event::Tombstone);
        Marker { pos, done: false }
    }

    pub(crate) fn error(&mut self, code: &'static str, message: impl Into<String>) {
        self.events.push(Event::Error {
            code,
            message: message.into(),
        });
    }

    /// Puppet's generic "Syntax error at 'x'" for the current token.
    pub(crate) fn error_here(&mut self) {
        let msg = if self.at_eof() {
            "Syntax error at end of input".to_string()
        } else {
            format!(
                "Syntax error at '{}'",
                puppet_token_text(self.current(), self.nth_text(0))
            )
        };
        self.error("SYNTAX_ERROR", msg);
    }

    /// Reports a syntax error and wraps the current token into an `ERROR` node.
    pub(crate) fn err_and_bump(&mut self) {
        self.error_here();
        let m = self.start();
        self.bump();
        m.complete(self, ERROR);
    }

    /// Enters one level of nesting; false (with a diagnostic, once) past the limit.
    pub(crate) fn enter(&mut self) -> bool {
        if self.too_deep {
            return false;
        }
        if self.depth >= NESTING_LIMIT {
            self.too_deep = true;
            self.error(
                "NESTING_TOO_DEEP",
                format!("Expression nesting deeper than {NESTING_LIMIT} levels is not supported"),
            );
            return false;
        }
        self.depth += 1;
        true
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// The text Puppet shows for a token in "Syntax error at '...'".
fn puppet_token_text(kind: SyntaxKind, text: &str) -> String {
    match kind {
        DQUOTE | STRING_TEXT => text.to_string(),
        HEREDOC_HEADER => text.to_string(),
        _ => text.to_string(),
    }
}

/// An open node; must be completed or abandoned.
#[derive(Debug)]
pub(crate) struct Marker {
    pos: u32,
    done: bool,
}

impl Marker {
    pub(crate) fn complete(mut self, p: &mut Parser, kind: SyntaxKind) -> CompletedMarker {
        self.done = true;
        if let Some(Event::Start { kind: slot, .. }) = p.events.get_mut(self.pos as usize) {
            *slot = kind;
        } else {
            p.events[self.pos as usize] = Event::Start {
                kind,
                forward_parent: None,
            };
        }
        p.events.push(Event::Finish);
        CompletedMarker {
            pos: self.pos,
            kind,
        }
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        // A marker that is neither completed nor abandoned is a grammar bug; it leaves a
        // tombstone, which the tree builder ignores, so input can never make this panic.
        debug_assert!(self.done || std::thread::panicking(), "marker dropped");
    }
}

/// A finished node, which can still be wrapped into a new parent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompletedMarker {
    pos: u32,
    kind: SyntaxKind,
}

impl CompletedMarker {
    /// Starts a new node that will contain this one (for left-recursive constructs).
    pub(crate) fn precede(self, p: &mut Parser) -> Marker {
        let new = p.start();
        if let Event::Start { forward_parent, .. } = &mut p.events[self.pos as usize] {
            *forward_parent = Some(new.pos - self.pos);
        }
        new
    }

    pub(crate) fn kind(&self) -> SyntaxKind {
        self.kind
    }
}

/// An error placed in the tree by the builder: code, message and byte offset.
#[derive(Debug, Clone)]
pub(crate) struct PlacedError {
    pub code: &'static str,
    pub message: String,
    pub offset: u32,
}

/// Turns events into a rowan green tree, putting back every skipped token.
pub(crate) fn build_tree(
    text: &str,
    tokens: &[Token],
    skip: &[bool],
    mut events: Vec<Event>,
    root: SyntaxKind,
) -> (rowan::GreenNode, Vec<PlacedError>) {
    let mut builder = rowan::GreenNodeBuilder::new();
    let mut errors = Vec::new();
    let mut tok = 0usize;
    let mut offset = 0u32;
    builder.start_node(root.into());

    let emit_token = |builder: &mut rowan::GreenNodeBuilder, tok: &mut usize, offset: &mut u32| {
        let t = tokens[*tok];
        let s = *offset as usize;
        builder.token(t.kind.into(), &text[s..s + t.len as usize]);
        *offset += t.len;
        *tok += 1;
    };
    let flush_skipped =
        |builder: &mut rowan::GreenNodeBuilder, tok: &mut usize, offset: &mut u32| {
            while *tok < tokens.len() && skip[*tok] {
                emit_token(builder, tok, offset);
            }
        };

    let mut forward: Vec<SyntaxKind> = Vec::new();
    let mut depth = 0usize;
    for i in 0..events.len() {
        match std::mem::replace(&mut events[i], Event::Tombstone) {
            Event::Start {
                kind,
                forward_parent,
            } => {
                forward.clear();
                forward.push(kind);
                let mut idx = i;
                let mut fp = forward_parent;
                while let Some(delta) = fp {
                    idx += delta as usize;
                    fp = match std::mem::replace(&mut events[idx], Event::Tombstone) {
                        Event::Start {
                            kind,
                            forward_parent,
                        } => {
                            forward.push(kind);
                            forward_parent
                        }
                        _ => None,
                    };
                }
                flush_skipped(&mut builder, &mut tok, &mut offset);
                for kind in forward.drain(..).rev() {
                    builder.start_node(kind.into());
                    depth += 1;
                }
            }
            Event::Finish => {
                if depth > 0 {
                    builder.finish_node();
                    depth -= 1;
                }
            }
            Event::Token => {
                flush_skipped(&mut builder, &mut tok, &mut offset);
                if tok < tokens.len() {
                    emit_token(&mut builder, &mut tok, &mut offset);
                }
            }
            Event::Error { code, message } => {
                // Point at the next significant token.
                let mut t = tok;
                let mut o = offset;
                while t < tokens.len() && skip[t] {
                    o += tokens[t].len;
                    t += 1;
                }
                errors.push(PlacedError {
                    code,
                    message,
                    offset: o,
                });
            }
            Event::Tombstone => {}
        }
    }
    while depth > 0 {
        builder.finish_node();
        depth -= 1;
    }
    // Whatever the grammar did not consume (it always consumes everything, but be safe).
    while tok < tokens.len() {
        emit_token(&mut builder, &mut tok, &mut offset);
    }
    builder.finish_node();
    (builder.finish(), errors)
}
