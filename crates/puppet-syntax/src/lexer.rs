//! The Puppet lexer: source text to a flat list of tokens that covers every byte.
//!
//! The lexer keeps a stack of modes: code, the inside of a double-quoted string, and the
//! code inside `${...}` of such a string (which ends at its own closing brace). Template text
//! (EPP) is a mode of its own at the bottom of the stack. It decides what Puppet's lexer
//! decides from context: a `/` is a regex or a division by the previous token, `[` is an
//! access or a list start by the character before it, `(` directly after blanks at the
//! start of a line never starts a call, and `{` after `?` opens a selector.
//!
//! Heredoc bodies live on the lines after the one holding their `@(TAG)` header; the lexer
//! emits each body as one `HEREDOC_BODY` token where it lies in the text, right after the
//! newline that ends the header's line, so the token list stays in source order.
//!
//! The lexer never fails: problems are reported as [`LexError`]s next to the tokens.

use crate::SyntaxKind::{self, *};

/// One token: a kind and a length in bytes. Offsets follow from the order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: SyntaxKind,
    pub len: u32,
}

/// A problem found while lexing, with Puppet's issue code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub code: &'static str,
    pub message: String,
    /// Byte offset where Puppet reports the problem.
    pub offset: u32,
    /// Length in bytes of the offending text (may be 0).
    pub len: u32,
    /// Byte offset of the token the problem belongs to (where Puppet reports it may lie
    /// further in): a syntax error the parser finds at that token adds nothing.
    pub token: u32,
    /// Warnings (unrecognised escapes) do not make the source invalid.
    pub is_warning: bool,
}

/// The result of lexing: tokens covering the whole input, and problems.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub errors: Vec<LexError>,
}

/// Lexes a manifest.
pub fn lex(text: &str) -> Lexed {
    lex_into(text, false, Vec::new())
}

/// Lexes an EPP template.
pub fn lex_epp(text: &str) -> Lexed {
    lex_into(text, true, Vec::new())
}

/// Lexes a manifest (or, with `epp`, a template) into `tokens`, a buffer to reuse (cleared
/// first).
pub(crate) fn lex_into(text: &str, epp: bool, tokens: Vec<Token>) -> Lexed {
    let mut lx = Lexer::with_buffer(text, epp, tokens);
    lx.run();
    lx.finish()
}

/// Lexes the text of an interpolating heredoc body (already stripped of its margin) as the
/// inside of a double-quoted string without quotes: text, `$var` and `${expr}`.
pub fn lex_interpolated_text(text: &str) -> Lexed {
    lex_interpolated_text_with(text, true)
}

/// Like [`lex_interpolated_text`]; `dollar_escape` says whether `\$` escapes a `$` (the
/// heredoc's escapes include `$`). Without it every `$name` and `${` interpolates.
pub fn lex_interpolated_text_with(text: &str, dollar_escape: bool) -> Lexed {
    let mut lx = Lexer::new(text, false);
    lx.modes = vec![Mode::Dq { unquoted: true }];
    lx.uq_dollar_escape = dollar_escape;
    lx.run();
    lx.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Ordinary code. `interp_depth` is `Some(n)` inside `${...}`: the brace depth at which the
    /// closing `}` ends the interpolation.
    Code { interp_depth: Option<u32> },
    /// Inside a double-quoted string (or, with `unquoted`, a heredoc body with interpolation).
    Dq { unquoted: bool },
    /// EPP template text.
    EppText,
    /// Code inside an EPP tag.
    EppCode,
}

#[derive(Debug, Clone)]
struct PendingHeredoc {
    tag: String,
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Lexed,
    modes: Vec<Mode>,
    brace_depth: u32,
    /// Last non-trivia token kind, for context decisions.
    last: Option<SyntaxKind>,
    /// Byte offset of the start of the current line, as Puppet's lexer tracks it.
    line_start: usize,
    pending_heredocs: Vec<PendingHeredoc>,
    /// EPP: skip leading blanks and one newline of the text after `-%>`.
    epp_trim_next: bool,
    /// In an interpolating heredoc body: whether `\$` escapes the `$` (the `$` escape is on).
    uq_dollar_escape: bool,
    /// EPP: offset of an open tag, to report an unbalanced tag at the end.
    epp_open: Option<usize>,
    /// Where the text of the innermost double-quoted string resumed last (after its
    /// opening quote, a `$var` or a `${...}`), and the range of what Puppet's scanner
    /// matched last before it (the quote, the variable's name, the last word inside the
    /// braces): what an unclosed quote is reported after and followed by.
    dq_resume: Option<(usize, (usize, usize))>,
    /// Offset of the opening quote of the innermost double-quoted string (the token an
    /// unclosed quote is about).
    dq_start: usize,
}

/// What an unclosed quote is reported after, quoted as Puppet's `format_quote` quotes it:
/// a single quote in double quotes, anything else in single quotes.
fn quoted_matched(text: &str) -> String {
    if text == "'" {
        "\"'\"".to_string()
    } else {
        format!("'{text}'")
    }
}

/// `WORD_BYTES[b]`: is `b` a `\w` byte (ASCII letter, digit or `_`)?
static WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

#[inline]
fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[b as usize]
}

/// The length of `bytes` up to its first `\n` (all of it when there is none), eight bytes at
/// a time: comments are a third of a module's text, most of them a few dozen bytes long,
/// where `str::find`'s searcher costs more to set up than to run.
#[inline]
fn line_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or_default()) ^ NEWLINES;
        // A byte of `word` is zero where the text has a newline; the lowest such byte is
        // flagged exactly (higher flags may be false positives, which are never looked at).
        let zero = word.wrapping_sub(ONES) & !word & HIGHS;
        if zero != 0 {
            return at + (zero.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(chunks.remainder().len())
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str, epp: bool) -> Self {
        Self::with_buffer(text, epp, Vec::new())
    }

    fn with_buffer(text: &'a str, epp: bool, mut tokens: Vec<Token>) -> Self {
        tokens.clear();
        // Manifests average about seven bytes a token: reserve enough to rarely regrow.
        tokens.reserve(text.len() / 4 + 16);
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            out: Lexed {
                tokens,
                errors: Vec::new(),
            },
            modes: vec![if epp {
                Mode::EppText
            } else {
                Mode::Code { interp_depth: None }
            }],
            brace_depth: 0,
            last: None,
            line_start: 0,
            pending_heredocs: Vec::new(),
            epp_trim_next: false,
            uq_dollar_escape: true,
            epp_open: None,
            dq_resume: None,
            dq_start: 0,
        }
    }

    fn finish(mut self) -> Lexed {
        if let Some(open) = self.epp_open {
            if self.modes.iter().any(|m| matches!(m, Mode::EppCode)) {
                self.error_at(
                    "EPP_UNBALANCED_TAG",
                    "Unbalanced epp tag, reached <eof> without closing tag.",
                    open,
                    0,
                );
            }
        }
        debug_assert_eq!(
            self.out
                .tokens
                .iter()
                .map(|t| t.len as usize)
                .sum::<usize>(),
            self.text.len()
        );
        self.out
    }

    fn peek(&self, n: usize) -> u8 {
        self.bytes.get(self.pos + n).copied().unwrap_or(0)
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn push(&mut self, kind: SyntaxKind, len: usize) {
        if len == 0 {
            return;
        }
        self.out.tokens.push(Token {
            kind,
            len: len as u32,
        });
        self.pos += len;
        if !kind.is_trivia() {
            self.last = Some(kind);
        }
    }

    fn error_at(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        offset: usize,
        len: usize,
    ) {
        self.error_on_token(code, message, offset, len, offset);
    }

    /// [`error_at`](Self::error_at) for an error placed inside the token that starts at
    /// `token` (the parser's own error at that token then adds nothing).
    fn error_on_token(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        offset: usize,
        len: usize,
        token: usize,
    ) {
        self.out.errors.push(LexError {
            code,
            message: message.into(),
            offset: offset as u32,
            len: len as u32,
            token: token as u32,
            is_warning: false,
        });
    }

    /// [`Lexer::error_at`] for a problem Puppet reports at `offset`, inside or after the
    /// token starting at `token`.
    fn error_in_token(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        token: usize,
        offset: usize,
    ) {
        let len = self.bytes.len().saturating_sub(offset).min(1);
        self.error_at(code, message, offset, len);
        if let Some(e) = self.out.errors.last_mut() {
            e.token = token as u32;
        }
    }

    fn warning_at(
        &mut self,
        code: &'static str,
        message: impl Into<String>,
        offset: usize,
        len: usize,
    ) {
        self.out.errors.push(LexError {
            code,
            message: message.into(),
            offset: offset as u32,
            len: len as u32,
            token: offset as u32,
            is_warning: true,
        });
    }

    /// What follows the current position, as Puppet quotes it in messages.
    /// The range of what Puppet's scanner matched last in the `${...}` just closed (its
    /// tokens end the list): the last word, number or variable, nothing after a blank.
    fn last_matched_in_braces(&self) -> (usize, usize) {
        let mut end = self.pos;
        for t in self.out.tokens.iter().rev() {
            let len = t.len as usize;
            let start = end.saturating_sub(len);
            match t.kind {
                INTERP_START => break,
                WHITESPACE => return (start, 0),
                k if (CASE_KW as u16..=NUMBER as u16).contains(&(k as u16)) => return (start, len),
                _ => end = start,
            }
        }
        (end, 0)
    }

    fn followed_by(&self, at: usize) -> String {
        if at >= self.text.len() {
            return "<eof>".to_string();
        }
        let rest = &self.text[at..];
        let mut end = rest.len().min(5);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let mut s = rest[..end].to_string();
        s.push_str("...");
        s.replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
    }

    fn run(&mut self) {
        // A step guard: every iteration must consume input.
        while self.pos < self.bytes.len() {
            let before = self.pos;
            let tokens_before = self.out.tokens.len();
            match *self
                .modes
                .last()
                .unwrap_or(&Mode::Code { interp_depth: None })
            {
                Mode::Code { interp_depth } => {
                    self.code_tokens(interp_depth);
                    continue;
                }
                Mode::EppCode => {
                    self.code_tokens(None);
                    continue;
                }
                Mode::Dq { unquoted } => self.dq_token(unquoted),
                Mode::EppText => self.epp_text(),
            }
            if self.pos == before && self.out.tokens.len() == tokens_before {
                // Defensive: never loop without progress.
                let len = self.char_len_at(self.pos);
                self.push(ERROR_TOKEN, len);
            }
        }
        if let Some(Mode::Dq { unquoted: false }) = self.modes.last() {
            // As Puppet: at the text that was being read when the input ended, after what
            // was matched before it.
            let (at, (after, len)) = self.dq_resume.unwrap_or_default();
            let msg = format!(
                "Unclosed quote after {} followed by '{}'",
                quoted_matched(&self.text[after..after + len]),
                self.followed_by(at)
            );
            let quote = self.dq_start;
            self.error_on_token("UNCLOSED_QUOTE", msg, at, self.text.len() - at, quote);
        }
        if !self.pending_heredocs.is_empty() {
            self.error_at(
                "HEREDOC_WITHOUT_TEXT",
                "Heredoc without any following lines of text",
                self.text.len(),
                0,
            );
        }
    }

    fn char_len_at(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map(|c| c.len_utf8())
            .unwrap_or(1)
    }

    fn regex_acceptable(&self) -> bool {
        !matches!(
            self.last,
            Some(
                R_PAREN
                    | R_BRACK
                    | RRCOLLECT
                    | RCOLLECT
                    | NAME
                    | TYPE_NAME
                    | NUMBER
                    | SQ_STRING
                    | TRUE_KW
                    | FALSE_KW
                    | DQUOTE
                    | HEREDOC_HEADER
                    | REGEX
                    | VARIABLE
                    | BARE_WORD
            )
        )
    }

    // ---- code mode ----

    /// Code tokens for as long as the mode stays the same: every mode change pushes or pops
    /// the mode stack, so an unchanged depth means an unchanged mode.
    fn code_tokens(&mut self, interp_depth: Option<u32>) {
        let depth = self.modes.len();
        while self.pos < self.bytes.len() {
            let before = self.pos;
            self.code_token(interp_depth);
            // Every token pushed moves the position ([`Lexer::push`] drops empty ones), so
            // an unmoved position means no token.
            if self.pos == before {
                // Defensive: never loop without progress.
                let len = self.char_len_at(self.pos);
                self.push(ERROR_TOKEN, len);
            }
            if self.modes.len() != depth {
                break;
            }
        }
    }

    fn code_token(&mut self, interp_depth: Option<u32>) {
        let b = self.peek(0);
        let start = self.pos;
        match b {
            b' ' | b'\t' | b'\r' => {
                let mut n = 0;
                while is_blank(self.peek(n)) {
                    n += 1;
                }
                self.push(WHITESPACE, n);
            }
            b'\n' => {
                self.push(WHITESPACE, 1);
                self.line_start = self.pos;
                if !self.pending_heredocs.is_empty() {
                    self.heredoc_bodies();
                }
            }
            b'#' => {
                let n = line_len(&self.bytes[self.pos..]);
                self.push(COMMENT, n);
            }
            b'/' if self.peek(1) == b'*' => match self.rest()[2..].find("*/") {
                Some(i) => self.push(ML_COMMENT, i + 4),
                None => {
                    self.error_at("UNCLOSED_MLCOMMENT", "Unclosed multiline comment", start, 0);
                    let n = self.rest().len();
                    self.push(ML_COMMENT, n);
                }
            },
            b'/' => {
                if self.regex_acceptable() {
                    if let Some(n) = self.scan_regex() {
                        self.push(REGEX, n);
                        return;
                    }
                }
                self.push(SLASH, 1);
            }
            b'.' => self.push(DOT, 1),
            b',' => self.push(COMMA, 1),
            b'[' => {
                let prev = if start == 0 {
                    None
                } else {
                    Some(self.bytes[start - 1])
                };
                match prev {
                    None | Some(b' ' | b'\t' | b'\r' | b'\n') => self.push(LIST_START, 1),
                    _ => self.push(L_BRACK, 1),
                }
            }
            b']' => self.push(R_BRACK, 1),
            b'(' => {
                let ws = self.bytes[self.line_start.min(start)..start]
                    .iter()
                    .all(|&c| is_blank(c));
                self.push(if ws { WS_L_PAREN } else { L_PAREN }, 1);
            }
            b')' => self.push(R_PAREN, 1),
            b';' => self.push(SEMI, 1),
            b'?' => self.push(QMARK, 1),
            b'*' => self.push(STAR, 1),
            b'%' => {
                if self.peek(1) == b'>' && self.in_epp() {
                    self.push(EPP_CLOSE, 2);
                    self.close_epp_tag(false);
                } else {
                    self.push(PERCENT, 1);
                }
            }
            b'{' => {
                self.brace_depth += 1;
                self.push(
                    if self.last == Some(QMARK) {
                        SEL_BRACE
                    } else {
                        L_BRACE
                    },
                    1,
                );
            }
            b'}' => {
                if let Some(depth) = interp_depth {
                    if self.brace_depth == depth {
                        self.push(INTERP_END, 1);
                        self.modes.pop();
                        if let Some(Mode::Dq { unquoted: false }) = self.modes.last() {
                            self.dq_resume = Some((self.pos, self.last_matched_in_braces()));
                        }
                        return;
                    }
                }
                self.brace_depth = self.brace_depth.saturating_sub(1);
                self.push(R_BRACE, 1);
            }
            b'@' => match self.peek(1) {
                b'@' => self.push(ATAT, 2),
                b'(' => self.heredoc_header(),
                _ => self.push(AT, 1),
            },
            b'|' => match (self.peek(1), self.peek(2)) {
                (b'>', b'>') => self.push(RRCOLLECT, 3),
                (b'>', _) => self.push(RCOLLECT, 2),
                _ => self.push(PIPE, 1),
            },
            b'=' => match self.peek(1) {
                b'=' => self.push(EQ2, 2),
                b'>' => self.push(FARROW, 2),
                b'~' => self.push(MATCH, 2),
                _ => self.push(EQ, 1),
            },
            b'+' => match self.peek(1) {
                b'=' => self.push(PLUS_EQ, 2),
                b'>' => self.push(PARROW, 2),
                _ => self.push(PLUS, 1),
            },
            b'-' => {
                if self.in_epp() && self.peek(1) == b'%' && self.peek(2) == b'>' {
                    self.push(EPP_CLOSE_TRIM, 3);
                    self.close_epp_tag(true);
                    return;
                }
                match self.peek(1) {
                    b'>' => self.push(IN_EDGE, 2),
                    b'=' => self.push(MINUS_EQ, 2),
                    _ => self.push(MINUS, 1),
                }
            }
            b'!' => match self.peek(1) {
                b'=' => self.push(NEQ, 2),
                b'~' => self.push(NOMATCH, 2),
                _ => self.push(BANG, 1),
            },
            b'~' => {
                if self.peek(1) == b'>' {
                    self.push(IN_EDGE_SUB, 2)
                } else {
                    self.push(TILDE, 1)
                }
            }
            b'<' => match (self.peek(1), self.peek(2)) {
                (b'<', b'|') => self.push(LLCOLLECT, 3),
                (b'<', _) => self.push(LSHIFT, 2),
                (b'=', _) => self.push(LTEQ, 2),
                (b'|', _) => self.push(LCOLLECT, 2),
                (b'-', _) => self.push(OUT_EDGE, 2),
                (b'~', _) => self.push(OUT_EDGE_SUB, 2),
                _ => self.push(LT, 1),
            },
            b'>' => match self.peek(1) {
                b'>' => self.push(RSHIFT, 2),
                b'=' => self.push(GTEQ, 2),
                _ => self.push(GT, 1),
            },
            b':' => {
                if self.peek(1) == b':' {
                    if self.peek(2).is_ascii_uppercase() {
                        self.type_name();
                    } else {
                        self.bare_word();
                    }
                } else {
                    self.push(COLON, 1);
                }
            }
            b'$' => self.variable(),
            b'"' => {
                self.push(DQUOTE, 1);
                self.dq_resume = Some((start + 1, (start, 1)));
                self.dq_start = start;
                self.modes.push(Mode::Dq { unquoted: false });
            }
            b'\'' => self.sq_string(),
            b'0'..=b'9' => self.number(),
            b'a'..=b'z' | b'_' => self.bare_word(),
            b'A'..=b'Z' => self.type_name(),
            _ => {
                // Unicode blanks (no-break space and the other space separators) are
                // whitespace to Puppet, as its `[[:blank:]]` matches them.
                let c = self.text[start..].chars().next().unwrap_or('\0');
                let n = c.len_utf8();
                if is_unicode_blank(c) {
                    self.push(WHITESPACE, n);
                } else {
                    self.push(ERROR_TOKEN, n);
                }
            }
        }
    }

    fn in_epp(&self) -> bool {
        self.modes.iter().any(|m| matches!(m, Mode::EppCode))
    }

    /// Scans `/.../` at the current position; `None` if there is no closing slash.
    fn scan_regex(&self) -> Option<usize> {
        let rest = &self.bytes[self.pos..];
        let mut i = 1;
        while i < rest.len() {
            match rest[i] {
                b'\\' => i += 2,
                b'/' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    fn variable(&mut self) {
        let start = self.pos;
        let mut i = 1;
        if self.peek(1) == b':' && self.peek(2) == b':' {
            i = 3;
        }
        // (\w+::)*\w+
        let mut end = None;
        loop {
            let seg_start = i;
            while is_word_byte(self.peek(i)) {
                i += 1;
            }
            if i == seg_start {
                break;
            }
            end = Some(i);
            if self.peek(i) == b':' && self.peek(i + 1) == b':' && is_word_byte(self.peek(i + 2)) {
                i += 2;
            } else {
                break;
            }
        }
        match end {
            Some(n) => self.push(VARIABLE, n),
            None => {
                let _ = start;
                self.push(VARIABLE, 1);
            }
        }
    }

    fn sq_string(&mut self) {
        let start = self.pos;
        let rest = &self.bytes[start..];
        let mut i = 1;
        while i < rest.len() {
            match rest[i] {
                b'\\' => i += 2,
                b'\'' => {
                    self.push(SQ_STRING, i + 1);
                    return;
                }
                _ => i += 1,
            }
        }
        // As Puppet: at the text after the quote.
        let msg = format!(
            "Unclosed quote after \"'\" followed by '{}'",
            self.followed_by(start + 1)
        );
        self.error_on_token("UNCLOSED_QUOTE", msg, start + 1, rest.len() - 1, start);
        self.push(SQ_STRING, rest.len());
    }

    fn number(&mut self) {
        let start = self.pos;
        let rest = &self.bytes[start..];
        // Scan the longest run that could belong to the number: word characters, and a dot or
        // exponent sign followed by more.
        let mut i = 0;
        let hex = rest.len() > 1 && rest[0] == b'0' && (rest[1] == b'x' || rest[1] == b'X');
        if hex {
            i = 2;
            while i < rest.len() && is_word_byte(rest[i]) {
                i += 1;
            }
        } else {
            while i < rest.len() && rest[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < rest.len() && rest[i] == b'.' && rest[i + 1].is_ascii_digit() {
                i += 1;
                while i < rest.len() && rest[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < rest.len() && (rest[i] == b'e' || rest[i] == b'E') {
                let mut j = i + 1;
                if j < rest.len() && rest[j] == b'-' {
                    j += 1;
                }
                if j < rest.len() && rest[j].is_ascii_digit() {
                    while j < rest.len() && rest[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            // Trailing word characters make the number malformed.
            while i < rest.len() && is_word_byte(rest[i]) {
                i += 1;
            }
        }
        let value = &self.text[start..start + i];
        if let Some((code, msg)) = check_number(value) {
            self.error_at(code, msg, start, i);
        }
        self.push(NUMBER, i);
    }

    fn bare_word(&mut self) {
        // ((::)?[a-z_]([\w-]*\w)?)+ ; then NAME if it matches ^((::)?[a-z]\w*)(::[a-z]\w*)*$
        let start = self.pos;
        let rest = &self.bytes[start..];
        let mut i = 0;
        // Whether the word is a name, found in the same scan: every segment starts with a
        // lowercase letter and holds no `-` (what `is_name` would check on the word).
        let mut name = true;
        loop {
            let seg = i;
            if rest.get(i) == Some(&b':') && rest.get(i + 1) == Some(&b':') {
                i += 2;
            }
            match rest.get(i) {
                Some(&b) if b.is_ascii_lowercase() || b == b'_' => {
                    name &= b != b'_';
                    i += 1;
                    let mut last_word_end = i;
                    // A `-` counts once a word byte follows it (trailing ones are not part
                    // of the word).
                    let mut dash = false;
                    while let Some(&c) = rest.get(i) {
                        if is_word_byte(c) {
                            i += 1;
                            last_word_end = i;
                            name &= !dash;
                        } else if c == b'-' {
                            i += 1;
                            dash = true;
                        } else {
                            break;
                        }
                    }
                    i = last_word_end;
                }
                _ => {
                    i = seg;
                    break;
                }
            }
        }
        if i == 0 {
            let fq = rest.starts_with(b"::");
            let (code, msg) = if fq {
                (
                    "ILLEGAL_FULLY_QUALIFIED_NAME",
                    "Illegal fully qualified name",
                )
            } else {
                ("ILLEGAL_NAME_OR_BARE_WORD", "Illegal name or bare word")
            };
            // Puppet reports the first faulty position: after `::`, else after the letter.
            let at = (start + if fq { 2 } else { 1 }).min(self.bytes.len());
            self.error_in_token(code, msg, start, at);
            let n = if fq { 2 } else { self.char_len_at(start) };
            self.push(ERROR_TOKEN, n);
            return;
        }
        let word = &self.text[start..start + i];
        debug_assert_eq!(name, is_name(word), "{word:?}");
        if name {
            let kind = SyntaxKind::from_keyword(word).unwrap_or(NAME);
            self.push(kind, i);
        } else {
            self.push(BARE_WORD, i);
        }
    }

    fn type_name(&mut self) {
        // ((::)?[A-Z]\w*)+ not followed by '::'
        let start = self.pos;
        let rest = &self.bytes[start..];
        let mut i = 0;
        loop {
            let seg = i;
            if rest.get(i) == Some(&b':') && rest.get(i + 1) == Some(&b':') {
                i += 2;
            }
            match rest.get(i) {
                Some(b) if b.is_ascii_uppercase() => {
                    i += 1;
                    while rest.get(i).is_some_and(|c| is_word_byte(*c)) {
                        i += 1;
                    }
                }
                _ => {
                    i = seg;
                    break;
                }
            }
        }
        if rest.get(i) == Some(&b':') && rest.get(i + 1) == Some(&b':') {
            let fq = rest.starts_with(b"::");
            let (code, msg) = if fq {
                (
                    "ILLEGAL_FULLY_QUALIFIED_CLASS_REFERENCE",
                    "Illegal fully qualified class reference",
                )
            } else {
                ("ILLEGAL_CLASS_REFERENCE", "Illegal class reference")
            };
            // Puppet reports the first faulty position: past what scanned as a reference,
            // by one character (by three after a leading `::`, as its lexer does).
            let at = (start + i + if fq { 3 } else { 1 }).min(self.bytes.len());
            self.error_in_token(code, msg, start, at);
            self.push(ERROR_TOKEN, i + 2);
            return;
        }
        self.push(TYPE_NAME, i);
    }

    // ---- heredoc ----

    fn heredoc_header(&mut self) {
        let start = self.pos;
        let rest = self.rest();
        let Some(close) = rest.find(')') else {
            let msg = format!(
                "Unclosed parenthesis after '@(' followed by '{}'",
                self.followed_by(start + 2)
            );
            self.error_at("HEREDOC_UNCLOSED_PARENTHESIS", msg, start, 2);
            self.push(AT, 1);
            return;
        };
        let header = &rest[..close + 1];
        match parse_heredoc_header(header) {
            Some(h) => {
                if h.tag.is_empty() {
                    self.error_at(
                        "HEREDOC_EMPTY_ENDTAG",
                        "Heredoc with an empty endtag",
                        start,
                        close + 1,
                    );
                }
                if let Some((code, msg)) = h.error {
                    self.error_at(code, msg, start, close + 1);
                }
                self.pending_heredocs.push(PendingHeredoc { tag: h.tag });
            }
            None => {
                self.error_at(
                    "HEREDOC_INVALID_SYNTAX",
                    "Invalid syntax in heredoc expected @(endtag[:syntax][/escapes])",
                    start,
                    close + 1,
                );
            }
        }
        self.push(HEREDOC_HEADER, close + 1);
    }

    /// At the start of a line following one or more heredoc headers: emit their bodies.
    fn heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.pending_heredocs);
        for h in pending {
            let start = self.pos;
            let mut at = start;
            let mut found = None;
            while at < self.text.len() {
                let line_end = self.text[at..]
                    .find('\n')
                    .map(|i| at + i + 1)
                    .unwrap_or(self.text.len());
                if is_end_tag_line(&self.text[at..line_end], &h.tag) {
                    found = Some(line_end);
                    break;
                }
                at = line_end;
            }
            match found {
                Some(end) => self.push(HEREDOC_BODY, end - start),
                None => {
                    self.error_at(
                        "HEREDOC_WITHOUT_END_TAGGED_LINE",
                        "Heredoc without end-tagged line",
                        start,
                        0,
                    );
                    let n = self.text.len() - start;
                    self.push(HEREDOC_BODY, n);
                }
            }
        }
        self.line_start = self.pos;
    }

    // ---- double-quoted strings ----

    fn dq_token(&mut self, unquoted: bool) {
        let start = self.pos;
        let rest = &self.bytes[start..];
        let mut i = 0;
        while i < rest.len() {
            match rest[i] {
                b'\\' if unquoted && !self.uq_dollar_escape && rest.get(i + 1) == Some(&b'$') => {
                    i += 1;
                }
                b'\\' => {
                    i += 2;
                }
                b'"' if !unquoted => break,
                b'$' => {
                    if rest.get(i + 1) == Some(&b'{') {
                        break;
                    }
                    if var_name_len(&rest[i + 1..]) > 0 {
                        break;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        let i = i.min(rest.len());
        if i > 0 {
            self.check_escapes(start, i, unquoted);
            self.push(STRING_TEXT, i);
            return;
        }
        match rest.first() {
            Some(b'"') => {
                self.push(DQUOTE, 1);
                self.modes.pop();
            }
            Some(b'$') if rest.get(1) == Some(&b'{') => {
                self.push(INTERP_START, 2);
                let depth = self.brace_depth;
                self.modes.push(Mode::Code {
                    interp_depth: Some(depth),
                });
            }
            Some(b'$') => {
                let n = var_name_len(&rest[1..]);
                self.push(VARIABLE, n + 1);
                if !unquoted {
                    self.dq_resume = Some((self.pos, (start + 1, n)));
                }
            }
            _ => {}
        }
    }

    /// Reports unrecognised escapes in double-quoted text as warnings (as Puppet does).
    fn check_escapes(&mut self, start: usize, len: usize, unquoted: bool) {
        if unquoted {
            return;
        }
        let s = &self.bytes[start..start + len];
        let mut i = 0;
        while i + 1 < s.len() {
            if s[i] == b'\\' {
                let c = s[i + 1];
                if !matches!(
                    c,
                    b'\\' | b'$' | b'\'' | b'"' | b'r' | b'n' | b't' | b's' | b'u' | b'\n' | b'\r'
                ) {
                    let ch = self.text[start + i + 1..].chars().next().unwrap_or('?');
                    self.warning_at(
                        "UNRECOGNIZED_ESCAPE",
                        format!("Unrecognized escape sequence '\\{ch}'"),
                        start + i,
                        2,
                    );
                }
                i += 2;
            } else {
                i += 1;
            }
        }
    }

    // ---- EPP ----

    fn epp_text(&mut self) {
        let start = self.pos;
        if self.epp_trim_next {
            self.epp_trim_next = false;
            // Skip blanks and one line break after `-%>`; they stay in the tree as whitespace.
            // Puppet skips the blanks even when no line break follows them.
            let mut n = 0;
            while matches!(self.peek(n), b' ' | b'\t') {
                n += 1;
            }
            if self.peek(n) == b'\r' && self.peek(n + 1) == b'\n' {
                n += 2;
            } else if self.peek(n) == b'\n' {
                n += 1;
            }
            if n > 0 {
                self.push(WHITESPACE, n);
                return;
            }
        }
        let rest = self.rest();
        let mut search = 0;
        loop {
            match rest[search..].find("<%") {
                None => {
                    let n = rest.len();
                    self.push(EPP_TEXT, n);
                    return;
                }
                Some(i) => {
                    let at = search + i;
                    if rest[at..].starts_with("<%%") {
                        // A literal `<%`: stays text.
                        search = at + 3;
                        continue;
                    }
                    if at > 0 {
                        let text_len = if epp_trims_blanks_before(rest, at) {
                            // `<%-` trims blanks before it on its line; the blanks become whitespace.
                            let trimmed = rest[..at].trim_end_matches([' ', '\t']).len();
                            if trimmed < at {
                                if trimmed > 0 {
                                    self.push(EPP_TEXT, trimmed);
                                }
                                self.push(WHITESPACE, at - trimmed);
                                return;
                            }
                            at
                        } else {
                            at
                        };
                        self.push(EPP_TEXT, text_len);
                        return;
                    }
                    // At a tag.
                    self.epp_open = Some(start);
                    if let Some(comment) = rest.strip_prefix("<%#") {
                        match comment.find("%>") {
                            Some(j) => {
                                let end = 3 + j + 2;
                                let trim = rest[..end].ends_with("-%>");
                                self.push(EPP_COMMENT, end);
                                self.epp_open = None;
                                if trim {
                                    self.epp_trim_next = true;
                                }
                            }
                            None => {
                                self.error_at(
                                    "EPP_UNBALANCED_COMMENT",
                                    "Reaching end after opening <%# without seeing %>",
                                    self.text.len(),
                                    0,
                                );
                                let n = rest.len();
                                self.push(EPP_COMMENT, n);
                                self.epp_open = None;
                            }
                        }
                        return;
                    }
                    if rest.starts_with("<%=") {
                        self.push(EPP_RENDER_OPEN, 3);
                    } else if rest.starts_with("<%-") {
                        self.push(EPP_OPEN, 3);
                    } else {
                        self.push(EPP_OPEN, 2);
                    }
                    if self.pos >= self.bytes.len() {
                        self.error_at(
                            "EPP_UNBALANCED_EXPRESSION",
                            "Unbalanced embedded expression - opening <% and reaching end of input",
                            self.text.len(),
                            0,
                        );
                        self.epp_open = None;
                    }
                    self.modes.push(Mode::EppCode);
                    self.last = None;
                    return;
                }
            }
        }
    }

    fn close_epp_tag(&mut self, trim: bool) {
        // Pop back to the template text mode.
        while let Some(m) = self.modes.last() {
            if matches!(m, Mode::EppText) {
                break;
            }
            self.modes.pop();
        }
        self.epp_open = None;
        self.epp_trim_next = trim;
        self.brace_depth = 0;
    }
}

/// Whether the blanks just before the tag at `rest[at..]` (a `<%`) are dropped from the
/// template's text. Puppet's EPP scanner (`EppScanner#scan`) gathers text across comments
/// into one string and trims that string's trailing blanks at `<%-` and at `<%#-`, so blanks
/// before a comment go too when only comments, blanks and (after a comment's `-%>`) one line
/// break stand between them and such a tag.
fn epp_trims_blanks_before(rest: &str, mut at: usize) -> bool {
    loop {
        let tag = &rest[at..];
        if tag.starts_with("<%-") || tag.starts_with("<%#-") {
            return true;
        }
        if !tag.starts_with("<%#") {
            return false;
        }
        let Some(j) = tag[3..].find("%>") else {
            return false;
        };
        let end = at + 3 + j + 2;
        let bytes = rest.as_bytes();
        let mut k = end;
        let skip_blanks = |k: &mut usize| {
            while matches!(bytes.get(*k), Some(b' ' | b'\t')) {
                *k += 1;
            }
        };
        if rest[..end].ends_with("-%>") {
            skip_blanks(&mut k);
            if rest[k..].starts_with("\r\n") {
                k += 2;
            } else if rest[k..].starts_with('\n') {
                k += 1;
            }
        }
        skip_blanks(&mut k);
        if !rest[k..].starts_with("<%") || rest[k..].starts_with("<%%") {
            return false;
        }
        at = k;
    }
}

/// Space separators other than the ASCII space (Unicode category Zs).
fn is_unicode_blank(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// Length of a `(::)?(\w+::)*\w+` variable name at the start of `s` (0 if none).
fn var_name_len(s: &[u8]) -> usize {
    let mut i = 0;
    if s.starts_with(b"::") {
        i = 2;
    }
    let mut end = 0;
    loop {
        let seg = i;
        while s.get(i).is_some_and(|c| is_word_byte(*c)) {
            i += 1;
        }
        if i == seg {
            break;
        }
        end = i;
        if s.get(i) == Some(&b':')
            && s.get(i + 1) == Some(&b':')
            && s.get(i + 2).is_some_and(|c| is_word_byte(*c))
        {
            i += 2;
        } else {
            break;
        }
    }
    end
}

/// Is this word a valid name: `^((::)?[a-z]\w*)(::[a-z]\w*)*$`?
pub fn is_name(word: &str) -> bool {
    let b = word.as_bytes();
    let mut i = if b.starts_with(b"::") { 2 } else { 0 };
    loop {
        // One segment: [a-z]\w*
        if !b.get(i).is_some_and(|c| c.is_ascii_lowercase()) {
            return false;
        }
        i += 1;
        while i < b.len() && is_word_byte(b[i]) {
            i += 1;
        }
        if i == b.len() {
            return true;
        }
        if b[i] == b':' && b.get(i + 1) == Some(&b':') {
            i += 2;
        } else {
            return false;
        }
    }
}

/// `^\d+[eE.]`: digits, then an exponent or a fraction (Puppet checks those as decimals).
fn decimal_like(b: &[u8]) -> bool {
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && matches!(b.get(digits), Some(b'e' | b'E' | b'.'))
}

/// Puppet's checks of a number token's text.
fn check_number(value: &str) -> Option<(&'static str, String)> {
    let b = value.as_bytes();
    let all = |s: &[u8], f: fn(&u8) -> bool| !s.is_empty() && s.iter().all(f);
    if value.starts_with("0x") || value.starts_with("0X") {
        if !all(&b[2..], |c| c.is_ascii_hexdigit()) {
            return Some((
                "INVALID_HEX_NUMBER",
                format!("Not a valid hex number {value}"),
            ));
        }
    } else if b.len() > 1 && b[0] == b'0' && b[1] != b'.' {
        if !all(&b[1..], |c| (b'0'..=b'7').contains(c)) {
            return Some((
                "INVALID_OCTAL_NUMBER",
                format!("Not a valid octal number {value}"),
            ));
        }
    } else if decimal_like(b) {
        if !is_decimal(value) {
            return Some((
                "INVALID_DECIMAL_NUMBER",
                format!("Not a valid decimal number {value}"),
            ));
        }
    } else if !all(b, |c| c.is_ascii_digit()) {
        return Some(("ILLEGAL_NUMBER", format!("Illegal number '{value}'")));
    }
    None
}

/// `^\d+(?:\.\d+)?(?:[eE]-?\d+)?$`
fn is_decimal(v: &str) -> bool {
    let b = v.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    if !digits(&mut i) {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && b[i] == b'-' {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

/// The parts of a heredoc header `@(TAG:syntax/escapes)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeredocHeader {
    /// The end tag, without quotes.
    pub tag: String,
    /// The syntax after `:`, or empty.
    pub syntax: String,
    /// The escapes switched on (`None` when no `/` was given).
    pub escapes: Option<String>,
    /// Whether the tag was quoted (`@("END")`): the body is interpolated.
    pub interpolate: bool,
    /// An error in an otherwise well-formed header.
    pub error: Option<(&'static str, String)>,
}

/// Parses a heredoc header `@(...)` (the whole text including `@(` and `)`).
pub fn parse_heredoc_header(header: &str) -> Option<HeredocHeader> {
    let inner = header
        .strip_prefix("@(")
        .and_then(|s| s.strip_suffix(')'))?;
    // tag: [^:/\r\n)]+
    let tag_end = inner.find([':', '/']).unwrap_or(inner.len());
    let raw_tag = &inner[..tag_end];
    if raw_tag.is_empty() || raw_tag.contains(['\r', '\n']) {
        return None;
    }
    let mut rest = &inner[tag_end..];
    let mut syntax = String::new();
    if let Some(r) = rest.strip_prefix(':') {
        let r2 = r.trim_start_matches([' ', '\t']);
        let b = r2.as_bytes();
        if b.is_empty() || !b[0].is_ascii_lowercase() {
            return None;
        }
        let mut n = 1;
        while n < b.len() && (b[n].is_ascii_alphanumeric() || b[n] == b'_' || b[n] == b'+') {
            n += 1;
        }
        if n < 2 {
            return None;
        }
        syntax = r2[..n].to_string();
        rest = r2[n..].trim_start_matches([' ', '\t']);
    }
    let mut escapes = None;
    if let Some(r) = rest.strip_prefix('/') {
        let n = r
            .bytes()
            .take_while(|c| is_word_byte(*c) || *c == b'$')
            .count();
        escapes = Some(r[..n].to_string());
        rest = r[n..].trim_start_matches([' ', '\t']);
    }
    if !rest.is_empty() {
        return None;
    }
    let mut tag = raw_tag.trim().to_string();
    let mut interpolate = false;
    if tag.len() >= 2 && tag.starts_with('"') && tag.ends_with('"') {
        interpolate = true;
        tag = tag[1..tag.len() - 1].trim().to_string();
    }
    let mut error = None;
    if let Some(e) = &escapes {
        let chars: Vec<char> = e.chars().collect();
        let mut seen = std::collections::BTreeSet::new();
        if chars.iter().any(|c| !seen.insert(*c)) {
            let list = chars
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            error = Some((
                "HEREDOC_MULTIPLE_AT_ESCAPES",
                format!("An escape char for @() may only appear once. Got '{list}'"),
            ));
        } else if let Some(bad) = chars.iter().find(|c| !"trnsuL$".contains(**c)) {
            error = Some((
                "HEREDOC_INVALID_ESCAPE",
                format!(
                    "Invalid heredoc escape char. Only t, r, n, s,  u, L, $ allowed. Got '{bad}'"
                ),
            ));
        }
    }
    Some(HeredocHeader {
        tag,
        syntax,
        escapes,
        interpolate,
        error,
    })
}

/// Does this line (with its newline) end a heredoc with `tag`?
/// `^[blank]*(\|[blank]*)?(-[blank]*)?TAG[blank]*\r?(\n|$)`
pub fn is_end_tag_line(line: &str, tag: &str) -> bool {
    end_tag_parts(line, tag).is_some()
}

/// For an end-tag line: (leading blanks length, has margin `|`, trims the last line break `-`).
pub fn end_tag_parts(line: &str, tag: &str) -> Option<(usize, bool, bool)> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    let leading = i;
    let mut margin = false;
    let mut trim = false;
    if b.get(i) == Some(&b'|') {
        margin = true;
        i += 1;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
    }
    if b.get(i) == Some(&b'-') {
        trim = true;
        i += 1;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
    }
    let rest = &line[i..];
    let after = rest.strip_prefix(tag)?;
    let after = after.trim_start_matches([' ', '\t']);
    let after = after.strip_prefix('\r').unwrap_or(after);
    if after.is_empty() || after == "\n" {
        Some((leading, margin, trim))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(SyntaxKind, String)> {
        let lexed = lex(src);
        let mut pos = 0;
        lexed
            .tokens
            .iter()
            .map(|t| {
                let s = src[pos..pos + t.len as usize].to_string();
                pos += t.len as usize;
                (t.kind, s)
            })
            .filter(|(k, _)| *k != WHITESPACE)
            .collect()
    }

    #[test]
    fn regex_versus_division() {
        let k = kinds("$a = 4 / 2 / 1\n$b = $x =~ /a\\/b/");
        assert!(k.iter().any(|(k, s)| *k == REGEX && s == "/a\\/b/"));
        assert_eq!(k.iter().filter(|(k, _)| *k == SLASH).count(), 2);
    }

    #[test]
    fn brackets_and_parens_by_context() {
        let k = kinds("$a[1] [2]\n(3) foo(4)");
        let names: Vec<_> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            vec![
                VARIABLE, L_BRACK, NUMBER, R_BRACK, LIST_START, NUMBER, R_BRACK, WS_L_PAREN,
                NUMBER, R_PAREN, NAME, L_PAREN, NUMBER, R_PAREN
            ]
        );
    }

    #[test]
    fn interpolation_modes() {
        let k = kinds(r#""a${b["c"]}d$e f""#);
        let names: Vec<_> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            vec![
                DQUOTE,
                STRING_TEXT,
                INTERP_START,
                NAME,
                L_BRACK,
                DQUOTE,
                STRING_TEXT,
                DQUOTE,
                R_BRACK,
                INTERP_END,
                STRING_TEXT,
                VARIABLE,
                STRING_TEXT,
                DQUOTE
            ]
        );
    }

    #[test]
    fn heredoc_bodies_follow_their_line() {
        let src = "$a = [@(A), @(B)]\nfirst\nA\nsecond\n  |- B\n$c = 1\n";
        let k = kinds(src);
        let bodies: Vec<_> = k
            .iter()
            .filter(|(k, _)| *k == HEREDOC_BODY)
            .map(|(_, s)| s.clone())
            .collect();
        assert_eq!(
            bodies,
            vec!["first\nA\n".to_string(), "second\n  |- B\n".to_string()]
        );
        assert!(lex(src).errors.is_empty());
    }

    #[test]
    fn is_name_matches_its_regex() {
        // The reference: `^((::)?[a-z]\w*)(::[a-z]\w*)*$`, written the slow way.
        fn reference(word: &str) -> bool {
            let w = word.strip_prefix("::").unwrap_or(word);
            !w.is_empty()
                && w.split("::").all(|seg| {
                    let b = seg.as_bytes();
                    !b.is_empty() && b[0].is_ascii_lowercase() && b.iter().all(|c| is_word_byte(*c))
                })
        }
        let alphabet = ['a', 'B', '_', '1', ':', '-'];
        let mut words = vec![String::new()];
        for _ in 0..6 {
            let next: Vec<String> = words
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            for w in &next {
                assert_eq!(is_name(w), reference(w), "{w:?}");
            }
            words = next;
        }
        assert_eq!(is_name(""), reference(""));
    }

    /// The word-at-a-time newline search finds what a byte search finds, at any alignment,
    /// next to any byte (0x8a and 0x0b are where the borrow trick could go wrong).
    #[test]
    fn line_len_agrees_with_a_byte_search() {
        let alphabet = [b'a', b'\n', 0x8a, 0x0b, 0x09, 0xff, 0x00, b'#'];
        let mut seed = 0x2545_f491_u64;
        for len in 0..40 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        alphabet[(seed >> 61) as usize]
                    })
                    .collect();
                let expected = bytes
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(bytes.len());
                assert_eq!(line_len(&bytes), expected, "{bytes:?}");
            }
        }
    }

    #[test]
    fn numbers() {
        assert!(lex("0x1F 0777 1.5e-3 3").errors.is_empty());
        assert_eq!(lex("0789").errors[0].code, "INVALID_OCTAL_NUMBER");
        assert_eq!(lex("3foo").errors[0].code, "ILLEGAL_NUMBER");
    }

    #[test]
    fn epp_modes() {
        let src = "a <%= $x %> b <%- if true -%>\n c <%# note %><%% d";
        let lexed = lex_epp(src);
        assert!(lexed.errors.is_empty(), "{:?}", lexed.errors);
        let total: u32 = lexed.tokens.iter().map(|t| t.len).sum();
        assert_eq!(total as usize, src.len());
    }
}
