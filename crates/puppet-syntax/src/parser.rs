//! The parser machinery: a cursor over the significant tokens that records events
//! (start node, token, finish node, error), in the shape of rust-analyzer's parser.
//!
//! The grammar itself lives in `grammar.rs` and only talks to [`Parser`]. The parser knows
//! nothing of rowan or of token text beyond what the grammar asks for (`at_text`); the events
//! are turned into a tree, with the trivia put back, by `build_tree`.

use crate::lexer::Token;
use crate::SyntaxKind::{self, *};

/// What the grammar produced, in order. Kept to 8 bytes: an error's message lives in
/// [`Parser::errors`], the event only holds its index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Event {
    /// Start a node. `forward_parent` (0 for none) is the distance to a later `Start` that
    /// must be opened first (used by `CompletedMarker::precede` for left recursion).
    Start {
        kind: SyntaxKind,
        forward_parent: u32,
    },
    Finish,
    /// Consume the next significant token.
    Token,
    /// An error: index into the parser's `errors`.
    Error(u32),
    /// A placeholder left by an abandoned marker.
    Tombstone,
}

/// Buffers reused from one parse to the next on a thread, so a parse does not allocate
/// (and the allocator does not consolidate) big vectors for every file.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) tokens: Vec<Token>,
    pub(crate) skip: Vec<bool>,
    significant: Vec<Significant>,
    pub(crate) events: Vec<Event>,
    children: Vec<GreenElement>,
    parents: Vec<(SyntaxKind, usize)>,
}

/// Buffers bigger than this many elements are freed rather than kept for the next parse.
const SCRATCH_KEEP_MAX: usize = 1 << 16;

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Box<Scratch>>> = const { std::cell::Cell::new(None) };
}

impl Scratch {
    /// This thread's buffers (fresh ones when they are in use, as by a nested parse).
    pub(crate) fn take() -> Box<Scratch> {
        SCRATCH
            .try_with(|s| s.take())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    /// Gives the buffers back for the next parse on this thread.
    pub(crate) fn put_back(mut self: Box<Self>) {
        fn keep<T>(v: &mut Vec<T>) {
            v.clear();
            if v.capacity() > SCRATCH_KEEP_MAX {
                *v = Vec::new();
            }
        }
        keep(&mut self.tokens);
        keep(&mut self.skip);
        keep(&mut self.significant);
        keep(&mut self.events);
        keep(&mut self.children);
        keep(&mut self.parents);
        let _ = SCRATCH.try_with(|s| s.set(Some(self)));
    }
}

/// Whether the grammar never sees a token of `kind`: trivia, EPP tag markers that carry no
/// meaning (`<%`, `<%-`, comments, and the `%>` closing them), and nothing else.
/// `in_render` carries whether a `<%=` tag is open, from one token to the next.
#[inline]
pub(crate) fn skips(kind: SyntaxKind, in_render: &mut bool) -> bool {
    match kind {
        k if k.is_trivia() => true,
        EPP_OPEN | EPP_COMMENT => true,
        EPP_RENDER_OPEN => {
            *in_render = true;
            false
        }
        EPP_CLOSE | EPP_CLOSE_TRIM => !std::mem::take(in_render),
        _ => false,
    }
}

/// The maximum nesting of expressions; deeper input gets a diagnostic, not a stack overflow.
pub(crate) const NESTING_LIMIT: u32 = 200;

/// A token the grammar sees: its kind and byte range (one vector of these costs one push
/// a token where three vectors of kinds, starts and ends cost three).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Significant {
    kind: SyntaxKind,
    start: u32,
    end: u32,
}

pub(crate) struct Parser<'t> {
    text: &'t str,
    /// The significant tokens.
    significant: Vec<Significant>,
    pos: usize,
    pub(crate) events: Vec<Event>,
    /// The messages of `Event::Error`s: code and text.
    pub(crate) errors: Vec<(&'static str, String)>,
    steps: u32,
    pub(crate) depth: u32,
    /// Set once the nesting limit was hit: the grammar stops descending.
    pub(crate) too_deep: bool,
    /// Set while parsing the first token of `${...}` (see `grammar::prefix`).
    pub(crate) interp_first: bool,
    /// Whether there is a heredoc header among the tokens.
    pub(crate) has_heredoc: bool,
}

impl<'t> Parser<'t> {
    /// A parser over the significant tokens of `tokens`; fills `skip` with which tokens the
    /// grammar never sees ([`skips`]: trivia, and EPP tags that carry no meaning), in the
    /// same pass. Its buffers come from `scratch` and go back there with [`Parser::finish`].
    pub(crate) fn new(
        text: &'t str,
        tokens: &[Token],
        skip: &mut Vec<bool>,
        scratch: &mut Scratch,
    ) -> Self {
        let mut significant = std::mem::take(&mut scratch.significant);
        let mut events = std::mem::take(&mut scratch.events);
        significant.clear();
        events.clear();
        significant.reserve(tokens.len());
        events.reserve(tokens.len() + tokens.len() / 2);
        skip.clear();
        skip.reserve(tokens.len());
        let mut offset = 0u32;
        let mut has_heredoc = false;
        let mut in_render = false;
        // One `extend` over the tokens (no capacity check per token), then the significant
        // ones.
        skip.extend(tokens.iter().map(|t| skips(t.kind, &mut in_render)));
        for (t, &s) in tokens.iter().zip(skip.iter()) {
            if !s {
                has_heredoc |= t.kind == HEREDOC_HEADER;
                significant.push(Significant {
                    kind: t.kind,
                    start: offset,
                    end: offset + t.len,
                });
            }
            offset += t.len;
        }
        Parser {
            text,
            significant,
            pos: 0,
            events,
            errors: Vec::new(),
            steps: 0,
            depth: 0,
            too_deep: false,
            interp_first: false,
            has_heredoc,
        }
    }

    /// The events and error messages; the token buffers go back to `scratch`.
    pub(crate) fn finish(self, scratch: &mut Scratch) -> (Vec<Event>, Vec<(&'static str, String)>) {
        scratch.significant = self.significant;
        (self.events, self.errors)
    }

    /// The kind of the n-th significant token ahead (`EOF` is reported as `__LAST_TOKEN`).
    #[inline]
    pub(crate) fn nth(&mut self, n: usize) -> SyntaxKind {
        self.steps += 1;
        assert!(self.steps < 50_000_000, "the parser is stuck");
        self.significant
            .get(self.pos + n)
            .map_or(__LAST_TOKEN, |t| t.kind)
    }

    #[inline]
    pub(crate) fn current(&mut self) -> SyntaxKind {
        self.nth(0)
    }

    #[inline]
    pub(crate) fn at(&mut self, kind: SyntaxKind) -> bool {
        self.nth(0) == kind
    }

    #[inline]
    pub(crate) fn at_eof(&mut self) -> bool {
        self.nth(0) == __LAST_TOKEN
    }

    /// The text of the n-th significant token ahead.
    #[inline]
    pub(crate) fn nth_text(&self, n: usize) -> &'t str {
        match self.significant.get(self.pos + n) {
            Some(t) => &self.text[t.start as usize..t.end as usize],
            None => "",
        }
    }

    /// The text of the previous significant token.
    pub(crate) fn prev_text(&self) -> &'t str {
        if self.pos == 0 {
            return "";
        }
        let t = self.significant[self.pos - 1];
        &self.text[t.start as usize..t.end as usize]
    }

    #[inline]
    pub(crate) fn bump(&mut self) {
        if self.pos < self.significant.len() {
            self.pos += 1;
            self.events.push(Event::Token);
            // Progress: the step limit in `nth` counts look-ups since the last consumed token,
            // so it catches a stuck grammar without also rejecting big files (a 20 MB
            // manifest used to panic with "the parser is stuck").
            self.steps = 0;
        }
    }

    #[inline]
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

    #[inline]
    pub(crate) fn start(&mut self) -> Marker {
        let pos = self.events.len() as u32;
        self.events.push(Event::Tombstone);
        Marker { pos, done: false }
    }

    pub(crate) fn error(&mut self, code: &'static str, message: impl Into<String>) {
        let idx = self.errors.len() as u32;
        self.errors.push((code, message.into()));
        self.events.push(Event::Error(idx));
    }

    /// Keeps a place for an error at the current token, to be decided later
    /// ([`error_at_reserved`](Self::error_at_reserved)); left unused, it is nothing.
    pub(crate) fn reserve_error(&mut self) -> usize {
        self.events.push(Event::Tombstone);
        self.events.len() - 1
    }

    /// Reports an error at the token that was current when `slot` was reserved.
    pub(crate) fn error_at_reserved(
        &mut self,
        slot: usize,
        code: &'static str,
        message: impl Into<String>,
    ) {
        if let Some(event @ Event::Tombstone) = self.events.get_mut(slot) {
            *event = Event::Error(self.errors.len() as u32);
            self.errors.push((code, message.into()));
        }
    }

    /// Puppet's generic "Syntax error at 'x'" for the current token.
    pub(crate) fn error_here(&mut self) {
        let msg = if self.at_eof() {
            "Syntax error at end of input".to_string()
        } else {
            // A string shows its value, as Puppet's token does: without quotes and
            // escapes, a double-quoted one up to its first interpolation; a variable its
            // name.
            let shown = match self.current() {
                VARIABLE => self.nth_text(0).trim_start_matches('$').to_string(),
                SQ_STRING => crate::ast::unescape_sq(self.nth_text(0)),
                DQUOTE if self.nth(1) == STRING_TEXT => {
                    crate::ast::unescape_dq(self.nth_text(1), crate::ast::DQ_ESCAPES)
                }
                DQUOTE => String::new(),
                kind => puppet_token_text(kind, self.nth_text(0)),
            };
            format!("Syntax error at '{shown}'")
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
    #[inline]
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

    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// The text Puppet shows for a token in "Syntax error at '...'".
fn puppet_token_text(kind: SyntaxKind, text: &str) -> String {
    match kind {
        // A character Puppet's lexer does not know is its `OTHER` token, whose text is
        // empty: `Syntax error at ''`.
        ERROR_TOKEN if is_unknown_character(text) => String::new(),
        _ => text.to_string(),
    }
}

/// One character that starts no token of Puppet's lexer.
fn is_unknown_character(text: &str) -> bool {
    let mut chars = text.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
}

/// An open node; must be completed or abandoned.
#[derive(Debug)]
pub(crate) struct Marker {
    pos: u32,
    done: bool,
}

impl Marker {
    #[inline]
    pub(crate) fn complete(mut self, p: &mut Parser, kind: SyntaxKind) -> CompletedMarker {
        self.done = true;
        if let Some(Event::Start { kind: slot, .. }) = p.events.get_mut(self.pos as usize) {
            *slot = kind;
        } else {
            p.events[self.pos as usize] = Event::Start {
                kind,
                forward_parent: 0,
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
    #[inline]
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
    #[inline]
    pub(crate) fn precede(self, p: &mut Parser) -> Marker {
        let new = p.start();
        if let Event::Start { forward_parent, .. } = &mut p.events[self.pos as usize] {
            *forward_parent = new.pos - self.pos;
        }
        new
    }

    #[inline]
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

type GreenElement = rowan::NodeOrToken<rowan::GreenNode, rowan::GreenToken>;

/// Tokens up to this many bytes are looked up in the [`TokenCache`].
const CACHED_TOKEN_MAX: usize = 16;
/// `KEY_MASKS[n]` keeps the low `n` bytes of a little-endian `u128`.
const KEY_MASKS: [u128; CACHED_TOKEN_MAX + 1] = {
    let mut masks = [0u128; CACHED_TOKEN_MAX + 1];
    let mut n = 1;
    while n <= CACHED_TOKEN_MAX {
        masks[n] = (masks[n - 1] << 8) | 0xff;
        n += 1;
    }
    masks
};
/// log2 of the number of slots of each table of the [`TokenCache`], at most.
const TOKEN_CACHE_BITS: u32 = 11;
/// log2 of the number of slots of each table of a new [`TokenCache`]: the tables grow (by
/// [`TOKEN_CACHE_GROWTH`] bits) as parses miss, so a process that parses little does not
/// write 144 KiB of empty slots (36 pages) before its first token.
const TOKEN_CACHE_FIRST_BITS: u32 = 9;
const TOKEN_CACHE_GROWTH: u32 = 2;

/// A bounded, direct-mapped cache of small green tokens (whitespace, punctuation, keywords,
/// short names), so the same `,` or `\n  ` is allocated once and shared, without the hashing
/// and growth of rowan's `NodeCache`. A slot's key is the token's kind, length and bytes
/// (zero-padded to 16), so a hit needs no string comparison; a collision just replaces the
/// slot.
struct TokenCache {
    /// log2 of the number of slots of each table.
    bits: u32,
    /// Misses since the tables were made; past a few per slot, they grow.
    misses: usize,
    slots: Vec<Option<CachedToken>>,
    /// Nodes whose only child is a small (cached) token, such as `VARIABLE_EXPR` over `$x`
    /// or `LITERAL` over `'present'`: keyed by the node kind and the token's address, which
    /// the slot keeps alive through the node it holds.
    wrappers: Vec<Option<CachedWrapper>>,
    /// Longer tokens (up to [`CACHED_LONG_TOKEN_MAX`] bytes) that repeat: variables such as
    /// `$::os_service_default`, indentation, common comments and strings. Keyed by a hash
    /// of the bytes and checked against the token's text.
    long: Vec<Option<(u64, rowan::GreenToken)>>,
}

/// Tokens up to this many bytes are looked up in the cache of longer tokens.
const CACHED_LONG_TOKEN_MAX: usize = 64;

struct CachedWrapper {
    kind: SyntaxKind,
    token: usize,
    node: rowan::GreenNode,
}

struct CachedToken {
    key: u128,
    kind_len: u32,
    token: rowan::GreenToken,
}

impl TokenCache {
    fn new() -> Self {
        Self::with_bits(TOKEN_CACHE_FIRST_BITS)
    }

    fn with_bits(bits: u32) -> Self {
        TokenCache {
            bits,
            misses: 0,
            slots: (0..1usize << bits).map(|_| None).collect(),
            wrappers: (0..1usize << bits).map(|_| None).collect(),
            long: (0..1usize << bits).map(|_| None).collect(),
        }
    }

    /// Makes the tables bigger once they have missed four times per slot, until they have
    /// [`TOKEN_CACHE_BITS`] bits, moving what they hold to their slots in the bigger ones.
    /// Between parses only (the cache is a cache: what a parse builds does not depend on
    /// it, only how much it shares).
    fn grow_if_missing(&mut self) {
        if self.bits >= TOKEN_CACHE_BITS || self.misses <= 4 << self.bits {
            return;
        }
        let old = std::mem::replace(
            self,
            Self::with_bits((self.bits + TOKEN_CACHE_GROWTH).min(TOKEN_CACHE_BITS)),
        );
        let bits = self.bits;
        for c in old.slots.into_iter().flatten() {
            let idx = slot_index(token_hash(c.key, c.kind_len), bits);
            self.slots[idx] = Some(c);
        }
        for c in old.wrappers.into_iter().flatten() {
            let idx = slot_index(wrapper_hash(c.token, c.kind), bits);
            self.wrappers[idx] = Some(c);
        }
        for (h, t) in old.long.into_iter().flatten() {
            self.long[(h >> (64 - bits)) as usize] = Some((h, t));
        }
    }

    /// The node of `kind` whose only child is `token`, shared when `token` is a cached one.
    #[inline]
    fn wrapper(&mut self, kind: SyntaxKind, token: rowan::GreenToken) -> rowan::GreenNode {
        if usize::from(token.text_len()) > CACHED_LONG_TOKEN_MAX {
            return rowan::GreenNode::new(kind.into(), [token.into()]);
        }
        let addr = &*token as *const rowan::GreenTokenData as usize;
        let idx = slot_index(wrapper_hash(addr, kind), self.bits);
        let slot = &mut self.wrappers[idx];
        if let Some(c) = slot {
            if c.token == addr && c.kind == kind {
                return c.node.clone();
            }
        }
        let node = rowan::GreenNode::new(kind.into(), [token.into()]);
        self.misses += 1;
        *slot = Some(CachedWrapper {
            kind,
            token: addr,
            node: node.clone(),
        });
        node
    }

    /// The green token of `kind` for `text[start..start + len]`.
    #[inline(always)]
    fn token(&mut self, kind: SyntaxKind, text: &str, start: usize, len: usize) -> GreenElement {
        if len > CACHED_TOKEN_MAX {
            return self.long_token(kind, &text[start..start + len]).into();
        }
        let bytes = text.as_bytes();
        // The token's bytes, zero-padded to 16, as a number.
        // (Through a fixed-size array: `copy_from_slice` into one is an out-of-line call
        // to `memcpy` per token.)
        let key = match bytes
            .get(start..start + 16)
            .and_then(|b| <[u8; 16]>::try_from(b).ok())
        {
            Some(b16) => u128::from_le_bytes(b16) & KEY_MASKS[len],
            None => {
                let mut a = [0u8; 16];
                a[..len].copy_from_slice(&bytes[start..start + len]);
                u128::from_le_bytes(a)
            }
        };
        let kind_len = ((kind as u32) << 8) | len as u32;
        let idx = slot_index(token_hash(key, kind_len), self.bits);
        let slot = &mut self.slots[idx];
        if let Some(c) = slot {
            if c.key == key && c.kind_len == kind_len {
                return c.token.clone().into();
            }
        }
        let token = new_token(kind, &text[start..start + len]);
        self.misses += 1;
        *slot = Some(CachedToken {
            key,
            kind_len,
            token: token.clone(),
        });
        token.into()
    }

    /// A token longer than [`CACHED_TOKEN_MAX`] bytes: shared when short enough to cache.
    #[inline(never)]
    fn long_token(&mut self, kind: SyntaxKind, s: &str) -> rowan::GreenToken {
        if s.len() > CACHED_LONG_TOKEN_MAX {
            return rowan::GreenToken::new(kind.into(), s);
        }
        let mut h = (((kind as u64) << 8) | s.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Eight bytes at a time, through fixed-size arrays (`copy_from_slice` into one is an
        // out-of-line call to `memcpy`).
        let bytes = s.as_bytes();
        let chunks = bytes.chunks_exact(8);
        let rest = chunks.remainder();
        for c in chunks {
            let c = <[u8; 8]>::try_from(c).unwrap_or_default();
            h = (h.rotate_left(26) ^ u64::from_le_bytes(c)).wrapping_mul(0x2545_F491_4F6C_DD1D);
        }
        // The last eight bytes (overlapping the chunks: these tokens are longer than 16).
        if !rest.is_empty() {
            let tail = bytes
                .get(bytes.len().saturating_sub(8)..)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .unwrap_or_default();
            h = (h.rotate_left(26) ^ u64::from_le_bytes(tail)).wrapping_mul(0x2545_F491_4F6C_DD1D);
        }
        let idx = (h >> (64 - self.bits)) as usize;
        let slot = &mut self.long[idx];
        if let Some((hash, token)) = slot {
            if *hash == h && token.kind() == kind.into() && token.text() == s {
                return token.clone();
            }
        }
        let token = rowan::GreenToken::new(kind.into(), s);
        self.misses += 1;
        *slot = Some((h, token.clone()));
        token
    }
}

/// The hash of a short token's key (its bytes as a number) and kind and length.
#[inline(always)]
fn token_hash(key: u128, kind_len: u32) -> u64 {
    (key as u64)
        ^ ((key >> 64) as u64).rotate_left(23)
        ^ u64::from(kind_len).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The hash of a single-token node's key: its kind and the token's address.
#[inline(always)]
fn wrapper_hash(token: usize, kind: SyntaxKind) -> u64 {
    ((token as u64) >> 4) ^ u64::from(kind as u16).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The slot of hash `h` in a table of `1 << bits` slots.
#[inline(always)]
fn slot_index(h: u64, bits: u32) -> usize {
    (h.wrapping_mul(0x2545_F491_4F6C_DD1D) >> (64 - bits)) as usize
}

/// A fresh green token (kept out of line: the cached path is the hot one).
#[inline(never)]
fn new_token(kind: SyntaxKind, text: &str) -> rowan::GreenToken {
    rowan::GreenToken::new(kind.into(), text)
}

thread_local! {
    static TOKEN_CACHE: std::cell::RefCell<TokenCache> = std::cell::RefCell::new(TokenCache::new());
}

/// Where the events of a parse go: nodes opened and closed, tokens in source order (trivia
/// included). One event stream, two sinks: the rowan tree of [`crate::Parse`] and the flat
/// arena of [`crate::flat::FlatParse`].
pub(crate) trait Sink {
    /// Opens a node that starts at byte `offset`.
    fn start_node(&mut self, kind: SyntaxKind, offset: u32);
    /// Closes the innermost open node, which ends at byte `offset`.
    fn finish_node(&mut self, offset: u32);
    /// A token of `len` bytes at `start`.
    fn token(&mut self, kind: SyntaxKind, start: u32, len: u32);
}

/// Builds green nodes bottom-up from a stack of finished children, with rowan's
/// `GreenNode::new` (no `NodeCache`: only tokens and nodes over a single token are shared,
/// through the [`TokenCache`]).
struct TreeSink<'a> {
    text: &'a str,
    children: Vec<GreenElement>,
    /// Open nodes: kind and where their children start in `children`.
    parents: Vec<(SyntaxKind, usize)>,
    cache: &'a mut TokenCache,
}

impl Sink for TreeSink<'_> {
    #[inline]
    fn start_node(&mut self, kind: SyntaxKind, _offset: u32) {
        self.parents.push((kind, self.children.len()));
    }

    #[inline]
    fn finish_node(&mut self, _offset: u32) {
        if let Some((kind, first)) = self.parents.pop() {
            let node = if self.children.len() == first + 1 {
                match self.children.pop() {
                    Some(rowan::NodeOrToken::Token(token)) => self.cache.wrapper(kind, token),
                    Some(child) => rowan::GreenNode::new(kind.into(), [child]),
                    None => rowan::GreenNode::new(kind.into(), []),
                }
            } else {
                rowan::GreenNode::new(kind.into(), self.children.drain(first..))
            };
            self.children.push(node.into());
        }
    }

    #[inline(always)]
    fn token(&mut self, kind: SyntaxKind, start: u32, len: u32) {
        let el = self
            .cache
            .token(kind, self.text, start as usize, len as usize);
        self.children.push(el);
    }
}

/// Replays the events into a [`Sink`], putting back every skipped token.
struct Replay<'a, S> {
    tokens: &'a [Token],
    skip: &'a [bool],
    tok: usize,
    offset: u32,
    /// Open nodes, the root included.
    depth: usize,
    sink: &'a mut S,
}

impl<S: Sink> Replay<'_, S> {
    #[inline]
    fn start_node(&mut self, kind: SyntaxKind) {
        self.depth += 1;
        self.sink.start_node(kind, self.offset);
    }

    #[inline]
    fn finish_node(&mut self) {
        self.depth -= 1;
        self.sink.finish_node(self.offset);
    }

    #[inline(always)]
    fn emit_token(&mut self) {
        let t = self.tokens[self.tok];
        self.sink.token(t.kind, self.offset, t.len);
        self.offset += t.len;
        self.tok += 1;
    }

    /// Emits the skipped tokens (trivia) before the next significant one. Most calls find
    /// none: that check is inline, the emitting loop is not.
    #[inline(always)]
    fn flush_skipped(&mut self) {
        if self.skip.get(self.tok).copied().unwrap_or(false) {
            self.emit_skipped();
        }
    }

    #[inline(never)]
    fn emit_skipped(&mut self) {
        while self.tok < self.tokens.len() && self.skip[self.tok] {
            self.emit_token();
        }
    }
}

/// Turns events into a rowan green tree, putting back every skipped token.
pub(crate) fn build_tree(
    text: &str,
    tokens: &[Token],
    skip: &[bool],
    events: &mut [Event],
    messages: Vec<(&'static str, String)>,
    root: SyntaxKind,
    scratch: &mut Scratch,
) -> (rowan::GreenNode, Vec<PlacedError>) {
    TOKEN_CACHE.with(|cache| match cache.try_borrow_mut() {
        Ok(mut cache) => {
            cache.grow_if_missing();
            build_tree_with(
                text, tokens, skip, events, messages, root, scratch, &mut cache,
            )
        }
        Err(_) => build_tree_with(
            text,
            tokens,
            skip,
            events,
            messages,
            root,
            scratch,
            &mut TokenCache::new(),
        ),
    })
}

#[allow(clippy::too_many_arguments)]
fn build_tree_with(
    text: &str,
    tokens: &[Token],
    skip: &[bool],
    events: &mut [Event],
    messages: Vec<(&'static str, String)>,
    root: SyntaxKind,
    scratch: &mut Scratch,
    cache: &mut TokenCache,
) -> (rowan::GreenNode, Vec<PlacedError>) {
    let mut children = std::mem::take(&mut scratch.children);
    let mut parents = std::mem::take(&mut scratch.parents);
    children.clear();
    parents.clear();
    let mut sink = TreeSink {
        text,
        children,
        parents,
        cache,
    };
    let errors = replay(tokens, skip, events, messages, root, &mut sink);
    let root = match sink.children.pop() {
        Some(rowan::NodeOrToken::Node(node)) => node,
        _ => rowan::GreenNode::new(root.into(), std::iter::empty()),
    };
    scratch.children = sink.children;
    scratch.parents = sink.parents;
    (root, errors)
}

/// Replays `events` into `sink` under a `root` node: every token of `tokens` is emitted
/// once, in order, inside the innermost node open at its place. Gives the errors placed at
/// the next significant token after each `Event::Error`.
pub(crate) fn replay<S: Sink>(
    tokens: &[Token],
    skip: &[bool],
    events: &mut [Event],
    messages: Vec<(&'static str, String)>,
    root: SyntaxKind,
    sink: &mut S,
) -> Vec<PlacedError> {
    let mut r = Replay {
        tokens,
        skip,
        tok: 0,
        offset: 0,
        depth: 0,
        sink,
    };
    let mut messages: Vec<Option<(&'static str, String)>> =
        messages.into_iter().map(Some).collect();
    let mut errors = Vec::new();
    r.start_node(root);

    let mut forward: Vec<SyntaxKind> = Vec::new();
    for i in 0..events.len() {
        // Events are `Copy`; only the forward parents a `Start` pulls in are tombstoned.
        match events[i] {
            Event::Start {
                kind,
                forward_parent,
            } => {
                r.flush_skipped();
                if forward_parent == 0 {
                    r.start_node(kind);
                    continue;
                }
                forward.clear();
                forward.push(kind);
                let mut idx = i;
                let mut fp = forward_parent;
                while fp != 0 {
                    idx += fp as usize;
                    fp = match std::mem::replace(&mut events[idx], Event::Tombstone) {
                        Event::Start {
                            kind,
                            forward_parent,
                        } => {
                            forward.push(kind);
                            forward_parent
                        }
                        _ => 0,
                    };
                }
                for &kind in forward.iter().rev() {
                    r.start_node(kind);
                }
            }
            Event::Finish => {
                // The root is never closed here.
                if r.depth > 1 {
                    r.finish_node();
                }
            }
            Event::Token => {
                r.flush_skipped();
                if r.tok < tokens.len() {
                    r.emit_token();
                }
            }
            Event::Error(idx) => {
                // Point at the next significant token.
                let mut t = r.tok;
                let mut o = r.offset;
                while t < tokens.len() && skip[t] {
                    o += tokens[t].len;
                    t += 1;
                }
                if let Some((code, message)) = messages.get_mut(idx as usize).and_then(Option::take)
                {
                    errors.push(PlacedError {
                        code,
                        message,
                        offset: o,
                    });
                }
            }
            Event::Tombstone => {}
        }
    }
    while r.depth > 1 {
        r.finish_node();
    }
    // Whatever the grammar did not consume (it always consumes everything, but be safe).
    while r.tok < tokens.len() {
        r.emit_token();
    }
    r.finish_node();
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Short and long tokens and single-token nodes of many kinds of text: enough distinct
    /// ones to miss more than four times per slot of the first tables.
    fn tokens_of(i: usize) -> Vec<(SyntaxKind, String)> {
        vec![
            (SyntaxKind::WHITESPACE, " ".repeat(1 + i % 12)),
            (SyntaxKind::NAME, format!("n{i}")),
            (SyntaxKind::VARIABLE, format!("$v{}", i % 700)),
            (SyntaxKind::SQ_STRING, format!("'a string long enough {i}'")),
        ]
    }

    /// A grown cache holds what it held, in the slots a lookup finds: every cached token
    /// and single-token node is the same allocation after the tables grow.
    #[test]
    fn growing_keeps_what_the_tables_hold() {
        let mut cache = TokenCache::new();
        assert_eq!(cache.bits, TOKEN_CACHE_FIRST_BITS);
        let mut i = 0;
        while cache.bits < TOKEN_CACHE_BITS {
            let mut held = Vec::new();
            for _ in 0..300 {
                for (kind, text) in tokens_of(i) {
                    let token = cache.token(kind, &text, 0, text.len());
                    let wrapper = token
                        .as_token()
                        .map(|t| cache.wrapper(SyntaxKind::LITERAL, t.clone()));
                    held.push((kind, text, token, wrapper));
                }
                i += 1;
            }
            // Only what the tables still hold (later tokens replaced earlier ones).
            let tokens: Vec<*const rowan::GreenTokenData> = (cache.slots.iter().flatten())
                .map(|c| &*c.token as *const rowan::GreenTokenData)
                .chain(cache.long.iter().flatten().map(|(_, t)| &**t as *const _))
                .collect();
            let nodes: Vec<*const rowan::GreenNodeData> = (cache.wrappers.iter().flatten())
                .map(|c| &*c.node as *const rowan::GreenNodeData)
                .collect();
            let bits = cache.bits;
            cache.misses = usize::MAX;
            cache.grow_if_missing();
            assert!(cache.bits > bits);
            assert_eq!(cache.misses, 0);
            let mut checked = 0;
            for (kind, text, token, wrapper) in &held {
                let Some(t) = token.as_token() else {
                    panic!("a token")
                };
                if tokens.contains(&(&**t as *const _)) {
                    let again = cache.token(*kind, text, 0, text.len());
                    let same = again.as_token().is_some_and(|a| std::ptr::eq(&**a, &**t));
                    assert!(same, "{text:?} moved");
                    checked += 1;
                }
                if let Some(w) = wrapper
                    .as_ref()
                    .filter(|w| nodes.contains(&(&***w as *const _)))
                {
                    let again = cache.wrapper(SyntaxKind::LITERAL, t.clone());
                    assert!(std::ptr::eq(&**w, &*again), "the node over {text:?} moved");
                    checked += 1;
                }
            }
            assert!(checked > 500, "{checked}");
        }
        assert_eq!(cache.bits, TOKEN_CACHE_BITS);
    }

    /// Trees do not depend on the cache: the same files parse to the same trees on a thread
    /// whose cache grew through many parses as on fresh threads.
    #[test]
    fn trees_do_not_depend_on_the_cache() {
        let files: Vec<String> = (0..400)
            .map(|i| {
                format!(
                    "class c{i} ($p{i} = 'default value {i}', $q = [1, {i}]) {{\n  notify {{ \"m${{p{i}}}\": message => $q, tag => 'long enough to be a long token {i}' }}\n}}\n"
                )
            })
            .collect();
        let grown: Vec<String> = std::thread::spawn({
            let files = files.clone();
            move || {
                let trees = files.iter().map(|f| crate::parse(f).debug_tree()).collect();
                // The cache of this thread did grow on the way.
                let bits = TOKEN_CACHE.with(|c| c.borrow().bits);
                assert_eq!(bits, TOKEN_CACHE_BITS);
                trees
            }
        })
        .join()
        .unwrap();
        for (i, f) in files.iter().enumerate().step_by(37) {
            let f = f.clone();
            let fresh = std::thread::spawn(move || crate::parse(&f).debug_tree())
                .join()
                .unwrap();
            assert_eq!(fresh, grown[i]);
        }
    }
}
