//! The Ruby lexer: turns source pieces (a whole file, or the pieces of a scanned ERB
//! template) into one token stream.
//!
//! Heredocs (`<<ID`, `<<-ID`, `<<~ID`, quoted or not) become string tokens at their opening;
//! their bodies, on the lines after it, are skipped when the lexer reaches that line break.
//! `=begin`/`=end` comments and everything after `__END__` are skipped. Backticks and `%x()`
//! become [`Tok::XStr`] (the interpreter refuses to run them). For templates, literal text becomes [`Tok::Put`], `<%= %>` tags are bracketed by [`Tok::InsertBegin`] and
//! [`Tok::InsertEnd`], and the boundaries between pieces are statement separators, as in the
//! program ERB generates. A `#` comment inside a code tag runs to the next line break of that
//! generated program, swallowing the pieces in between exactly as Ruby does. Line breaks that
//! cannot end a statement (after an operator or comma, before a leading `.method`) are
//! dropped here so that the parser only sees meaningful ones.

use crate::{Piece, Pos};

/// A part of a string, symbol or regexp literal with interpolation.
#[derive(Debug, Clone, PartialEq)]
pub enum StrPart {
    /// Literal characters (escapes already processed).
    Lit(String),
    /// `#{...}`: the tokens of the embedded code.
    Code(Vec<Token>),
}

/// The token of an integer literal's digits (checked by the lexer): an `Int`, or a `Big`
/// beyond 64 bits.
fn int_token(digits: &str, radix: u32) -> Tok {
    match i64::from_str_radix(digits, radix) {
        Ok(i) => Tok::Int(i),
        Err(_) => match num_bigint::BigInt::parse_bytes(digits.as_bytes(), radix) {
            Some(b) => Tok::Big(Box::new(b)),
            None => Tok::Int(0),
        },
    }
}

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Int(i64),
    /// An integer literal beyond 64 bits.
    Big(Box<num_bigint::BigInt>),
    Float(f64),
    /// A string literal (single or double quoted, `%q`, `%Q`, `%()`).
    Str(Vec<StrPart>),
    /// `:sym` or `:"sym"`.
    Sym(Vec<StrPart>),
    /// `/re/flags` or `%r{re}flags`: the parts and the flags (boxed: a rare token, kept out
    /// of the size of every token).
    Regex(Box<(Vec<StrPart>, String)>),
    /// `%w[]` / `%i[]` words (`%W`/`%I`: with interpolation): (words, symbols?).
    Words(Vec<Vec<StrPart>>, bool),
    /// An identifier or keyword (may end in `?` or `!`).
    Ident(String),
    /// `Const`.
    Const(String),
    /// `@ivar` (name without `@`).
    IVar(String),
    /// `@@cvar` (name without `@@`).
    CVar(String),
    /// A command: backticks or `%x()`.
    XStr(Vec<StrPart>),
    /// `$x` / `$1` (name without `$`).
    GVar(String),
    /// `label:` in a hash or argument list.
    Label(String),
    /// Punctuation and operators.
    Op(&'static str),
    /// A statement separator (`;`, piece boundary).
    Semi,
    /// A meaningful line break.
    Nl,
    /// Literal template text.
    Put(String),
    InsertBegin,
    InsertEnd,
    Eof,
}

/// A token with its position and whether whitespace preceded it.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
    pub space_before: bool,
}

/// A lexing error.
#[derive(Debug, Clone, PartialEq)]
pub struct LexError {
    pub pos: Pos,
    pub message: String,
    pub unsupported: bool,
}

/// Operators that can be method names.
const OPERATOR_METHODS: &[&str] = &[
    "[]=", "[]", "<=>", "===", "==", "=~", "!=", "!~", "<<", ">>", "<=", ">=", "**", "+@", "-@",
    "~@", "!@", "+", "-", "*", "/", "%", "<", ">", "!", "&", "|", "^", "~",
];

/// Operators that can follow `:` as a symbol (`:<=>`, `:[]`), longest first.
const SYMBOL_OPERATORS: &[&str] = &[
    "<=>", "===", "==", "=~", "[]=", "[]", "<<", ">>", "<=", ">=", "**", "!=", "!~", "+@", "-@",
    "+", "-", "*", "/", "%", "<", ">", "!", "|", "&", "^", "~",
];

/// The first bytes of [`SYMBOL_OPERATORS`] (the tests check it).
const SYMBOL_OPERATOR_STARTS: &[u8] = b"<=[>*!+-/%|&^~";

/// Lexes a whole Ruby source file into tokens (ending with [`Tok::Eof`]).
pub fn lex_file(src: &str) -> Result<Vec<Token>, LexError> {
    lex_file_with(src, true)
}

/// [`lex_file`], with the line breaks that continue a statement dropped as the lexer goes
/// (`drop_breaks`) or all by [`clean_newlines`] after it (what the tests compare).
fn lex_file_with(src: &str, drop_breaks: bool) -> Result<Vec<Token>, LexError> {
    // What `lex_pieces` does for a single code piece, without copying the text into one.
    let start = Pos { line: 1, column: 1 };
    // About one token (line breaks included) per four bytes over the modules' files
    // (comments and docs included): one allocation for most files, where a smaller guess
    // copied the tokens two or three times as the vector grew.
    let mut unclean = false;
    let (mut out, _) = lex_code(
        Vec::with_capacity(src.len() / 4 + 8),
        src,
        start,
        false,
        (drop_breaks, &mut unclean),
    )?;
    out.push(Token {
        tok: Tok::Eof,
        pos: start,
        space_before: true,
    });
    Ok(finish_newlines(out, unclean || !drop_breaks))
}

/// The tokens with the line breaks that continue a statement dropped: the lexer dropped
/// most as it went ([`Lexer::push_break`]); [`clean_newlines`] drops the others when it left
/// some (`unclean`). Dropping is local (a line break goes by the kept token before it and
/// the first token after it that is not a line break), so cleaning tokens the lexer
/// partly cleaned drops what cleaning all of them would.
fn finish_newlines(toks: Vec<Token>, unclean: bool) -> Vec<Token> {
    if unclean {
        clean_newlines(toks)
    } else {
        toks
    }
}

/// Lexes a piece of code starting at `pos` after the tokens `out` (skipping up to its first
/// line break when the code before ended in a comment), and ends it with a separator.
/// Returns the tokens and whether the code ends inside a `#` comment. With `drop_breaks`,
/// the lexer drops line breaks as it goes and sets `unclean` when it left one for
/// [`clean_newlines`].
fn lex_code(
    out: Vec<Token>,
    src: &str,
    pos: Pos,
    in_comment: bool,
    (drop_breaks, unclean): (bool, &mut bool),
) -> Result<(Vec<Token>, bool), LexError> {
    let mut lx = Lexer::new(src, pos);
    lx.drop_breaks = drop_breaks;
    if in_comment {
        match src.find('\n') {
            None => return Ok((out, true)),
            Some(i) => lx.advance_to(i),
        }
    }
    // The piece's tokens go straight after the others. The lexer looks back at its
    // previous token, which here is a separator (`;`, a line break, `<%=`) that means what
    // no previous token means: an operand comes next.
    lx.toks = out;
    let mut out = lx.run(false)?;
    *unclean |= lx.unclean;
    out.push(Token {
        tok: Tok::Semi,
        pos: lx.pos(),
        space_before: true,
    });
    Ok((out, lx.ended_in_comment))
}

/// Lexes the pieces of a template into tokens (ending with [`Tok::Eof`]); the literal text
/// pieces move into their tokens.
pub fn lex_pieces(pieces: Vec<Piece>) -> Result<Vec<Token>, LexError> {
    lex_pieces_with(pieces, true)
}

/// [`lex_pieces`], dropping line breaks as [`lex_file_with`] does.
fn lex_pieces_with(pieces: Vec<Piece>, drop_breaks: bool) -> Result<Vec<Token>, LexError> {
    let mut out: Vec<Token> = Vec::new();
    let whole_file = pieces.len() == 1;
    if pieces.len() > 1 {
        // A template: its text pieces make two or three tokens each, its code about one
        // per four bytes.
        let code: usize = pieces
            .iter()
            .map(|p| match p {
                Piece::Code(s, _) | Piece::Insert(s, _) => s.len() / 4 + 3,
                Piece::Text(_) => 3,
                Piece::Cr => 1,
            })
            .sum();
        out.reserve(code);
    }
    let mut in_comment = false;
    let mut unclean = false;
    let mut last_pos = Pos { line: 1, column: 1 };
    for piece in pieces {
        match piece {
            Piece::Text(t) => {
                let line_break = t.contains('\n');
                if in_comment {
                    if line_break {
                        in_comment = false;
                        unclean |= push_nl(&mut out, last_pos);
                    }
                    continue;
                }
                out.push(Token {
                    tok: Tok::Put(t),
                    pos: last_pos,
                    space_before: true,
                });
                out.push(Token {
                    tok: Tok::Semi,
                    pos: last_pos,
                    space_before: true,
                });
                if line_break {
                    unclean |= push_nl(&mut out, last_pos);
                }
            }
            Piece::Cr => {
                in_comment = false;
                unclean |= push_nl(&mut out, last_pos);
            }
            Piece::Code(src, pos) => {
                last_pos = pos;
                if whole_file {
                    // A whole file: about one token per eight bytes, comments and docs
                    // included (one or two reallocations instead of a dozen).
                    out.reserve(src.len() / 8);
                }
                (out, in_comment) = lex_code(
                    std::mem::take(&mut out),
                    &src,
                    pos,
                    in_comment,
                    (drop_breaks, &mut unclean),
                )?;
            }
            Piece::Insert(src, pos) => {
                last_pos = pos;
                if in_comment {
                    if src.contains('\n') {
                        return Err(LexError {
                            pos,
                            message: "a Ruby comment running into a multi-line <%= %> tag".into(),
                            unsupported: true,
                        });
                    }
                    continue;
                }
                out.push(Token {
                    tok: Tok::InsertBegin,
                    pos,
                    space_before: true,
                });
                let mut lx = Lexer::new(&src, pos);
                lx.drop_breaks = drop_breaks;
                lx.toks = std::mem::take(&mut out);
                out = lx.run(false)?;
                unclean |= lx.unclean;
                if lx.ended_in_comment {
                    return Err(LexError {
                        pos,
                        message: "a Ruby comment inside <%= %>".into(),
                        unsupported: true,
                    });
                }
                out.push(Token {
                    tok: Tok::InsertEnd,
                    pos: lx.pos(),
                    space_before: true,
                });
                out.push(Token {
                    tok: Tok::Semi,
                    pos: lx.pos(),
                    space_before: true,
                });
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: last_pos,
        space_before: true,
    });
    Ok(finish_newlines(out, unclean || !drop_breaks))
}

/// Pushes a template's line break; true when it may continue a statement (left for
/// [`clean_newlines`]; the tokens before a template's line break are separators, so never
/// in practice).
fn push_nl(out: &mut Vec<Token>, pos: Pos) -> bool {
    let unclean = out
        .last()
        .is_some_and(|t| !matches!(t.tok, Tok::Nl) && continues(&t.tok));
    out.push(Token {
        tok: Tok::Nl,
        pos,
        space_before: true,
    });
    unclean
}

/// Whether a token is the identifier `kw`.
fn is_kw(t: &Tok, kw: &str) -> bool {
    matches!(t, Tok::Ident(k) if k == kw)
}

/// True when a line break after this token cannot end the statement.
fn continues(t: &Tok) -> bool {
    match t {
        Tok::Op(op) => !matches!(*op, ")" | "]" | "}"),
        Tok::Ident(k) => matches!(
            k.as_str(),
            "and" | "or" | "not" | "if" | "unless" | "while" | "until"
        ),
        _ => false,
    }
}

/// Drops line breaks that continue a statement, in place (each kept token moves once).
fn clean_newlines(mut toks: Vec<Token>) -> Vec<Token> {
    const DOT_AHEAD: u8 = 1;
    const NL_NEXT: u8 = 2;
    // Per token: the first later token that is not a line break is `.` or `&.`; the next
    // token is a line break (only then does it matter whether the token continues).
    let mut flags = vec![0u8; toks.len()];
    let (mut dot_ahead, mut nl_next) = (false, false);
    for (i, t) in toks.iter().enumerate().rev() {
        flags[i] = u8::from(dot_ahead) * DOT_AHEAD + u8::from(nl_next) * NL_NEXT;
        let nl = matches!(t.tok, Tok::Nl);
        if !nl {
            dot_ahead = matches!(t.tok, Tok::Op(".") | Tok::Op("&."));
        }
        nl_next = nl;
    }
    let mut i = 0;
    // Whether the last kept token is one after which a line break cannot end the statement
    // (known only where it matters: when a line break follows it).
    let mut last_continues = false;
    toks.retain(|t| {
        let f = flags[i];
        i += 1;
        if matches!(t.tok, Tok::Nl) {
            // Drop after a continuing token, and before a leading `.meth` / `&.meth`.
            if last_continues || f & DOT_AHEAD != 0 {
                return false;
            }
            last_continues = false;
        } else {
            last_continues = f & NL_NEXT != 0 && continues(&t.tok);
        }
        true
    });
    toks
}

/// Lexer over one piece of code. It reads the text's bytes in place (`i` is a byte
/// index, always at a character boundary); positions count characters, as Ruby does.
#[derive(Debug)]
pub struct Lexer<'a> {
    i: usize,
    line: u32,
    column: u32,
    toks: Vec<Token>,
    paren_depth: i32,
    /// The `?` of ternaries whose `:` has not come yet, in the current bracket.
    ternary: i32,
    /// [`Lexer::ternary`] of the enclosing brackets: inside `(`, `[` or `{` a `key: v`
    /// label or a `:sym` is not the pending ternary's colon (`c ? f(k: 1) : x`).
    ternary_outer: Vec<i32>,
    src: &'a str,
    depth: usize,
    /// Set when the code ended inside a `#` comment.
    pub ended_in_comment: bool,
    /// Where the lexer continues after the line break that ends the current line: past the
    /// bodies of the heredocs opened on it.
    heredoc_resume: Option<usize>,
    /// A heredoc body's lexer: the end of the text closes the string.
    to_eof: bool,
    /// A lexer of top-level code (not of an interpolation or a heredoc body): it drops the
    /// line breaks that continue a statement as it goes (see [`Lexer::push_break`]).
    drop_breaks: bool,
    /// Set when it kept a line break that [`clean_newlines`] must drop.
    unclean: bool,
}

impl<'a> Lexer<'a> {
    /// A lexer over `src`, which starts at `pos` of the template.
    pub fn new(src: &'a str, pos: Pos) -> Lexer<'a> {
        Lexer {
            i: 0,
            line: pos.line,
            column: pos.column,
            toks: Vec::new(),
            paren_depth: 0,
            ternary: 0,
            ternary_outer: Vec::new(),
            src,
            depth: 0,
            ended_in_comment: false,
            heredoc_resume: None,
            to_eof: false,
            drop_breaks: false,
            unclean: false,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn advance_to(&mut self, byte_idx: usize) {
        let to = byte_idx.min(self.src.len());
        while self.i < to {
            self.bump();
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }
    /// The character at byte `j` (a character boundary), if any.
    fn char_at(&self, j: usize) -> Option<char> {
        match self.bytes().get(j) {
            None => None,
            Some(&b) if b < 0x80 => Some(b as char),
            Some(_) => self.src.get(j..).and_then(|r| r.chars().next()),
        }
    }
    fn peek(&self) -> Option<char> {
        self.char_at(self.i)
    }
    /// The `k`th character after the current one.
    fn peek_at(&self, k: usize) -> Option<char> {
        let b = self.bytes();
        let mut j = self.i;
        for _ in 0..k {
            j += utf8_width(*b.get(j)?);
        }
        self.char_at(j)
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }
    /// Moves over the text up to byte `to` (a character boundary), as `bump` would.
    fn advance_over(&mut self, to: usize) {
        let mut p = self.pos();
        p.advance_over(&self.src[self.i..to]);
        self.line = p.line;
        self.column = p.column;
        self.i = to;
    }
    /// Appends to `s` the text from here up to the next of the ASCII bytes `stops` (or the
    /// end), and moves over it: the plain part of a string literal, copied in one go.
    fn plain_run(&mut self, s: &mut String, stops: &[char]) {
        if !stops.iter().all(char::is_ascii) || stops.is_empty() || stops.len() > 4 {
            return;
        }
        let end = find_stop(&self.bytes()[self.i..], stops).map_or(self.src.len(), |k| self.i + k);
        if end > self.i {
            s.push_str(&self.src[self.i..end]);
            self.advance_over(end);
        }
    }
    fn starts_with(&self, s: &str) -> bool {
        self.bytes()[self.i..].starts_with(s.as_bytes())
    }

    fn err<T>(&self, msg: impl Into<String>, unsupported: bool) -> Result<T, LexError> {
        Err(LexError {
            pos: self.pos(),
            message: msg.into(),
            unsupported,
        })
    }

    /// True when the previous token ends a value (so `/`, `%`, `[`... are operators).
    fn value_ended(&self) -> bool {
        match self.toks.last().map(|t| &t.tok) {
            None => false,
            Some(Tok::Int(_)) | Some(Tok::Big(_)) | Some(Tok::Float(_)) | Some(Tok::Str(_))
            | Some(Tok::Sym(_)) | Some(Tok::Regex(..)) | Some(Tok::Words(..))
            | Some(Tok::Const(_)) | Some(Tok::IVar(_)) | Some(Tok::GVar(_))
            | Some(Tok::CVar(_)) | Some(Tok::XStr(_)) => true,
            Some(Tok::Ident(k)) => !is_keyword_operatorish(k),
            Some(Tok::Op(o)) => matches!(*o, ")" | "]" | "}"),
            _ => false,
        }
    }

    /// Right after `.`/`&.` comes a method name, so `%` and `/` are operator names there.
    fn after_dot(&self) -> bool {
        matches!(
            self.toks.last().map(|t| &t.tok),
            Some(Tok::Op(".")) | Some(Tok::Op("&."))
        )
    }

    /// True right after `alias` (one or two names) or `undef`, and where `def` expects a
    /// method's name (`def -@`, `def self./(x)`: operators are names there).
    fn method_name_expected(&self) -> bool {
        let n = self.toks.len();
        let is = |i: usize, kw: &str| {
            n > i && matches!(&self.toks[n - 1 - i].tok, Tok::Ident(k) if k == kw)
        };
        is(0, "alias")
            || is(0, "undef")
            || (is(1, "alias") && n >= 2 && !matches!(self.toks[n - 1].tok, Tok::Nl | Tok::Semi))
            || is(0, "def")
            || (is(2, "def") && matches!(self.toks[n - 1].tok, Tok::Op(".")))
    }

    fn prev_is_ident(&self) -> bool {
        matches!(self.toks.last().map(|t| &t.tok), Some(Tok::Ident(k)) if !is_keyword_operatorish(k))
    }

    /// Pushes a line break, or drops it when it follows a token after which a line break
    /// cannot end the statement (what [`clean_newlines`] would do). The previous token is
    /// what the lexer looks back at; after a continuing token it means what a line break
    /// means there (both are followed by an operand), except after `.`/`&.` (a method name
    /// follows) and where `alias` is two tokens back: those keep the line break and leave
    /// it to [`clean_newlines`].
    fn push_break(&mut self, pos: Pos) {
        if self.drop_breaks {
            let n = self.toks.len();
            if let Some(last) = self.toks.last().filter(|t| continues(&t.tok)) {
                if matches!(last.tok, Tok::Op(".") | Tok::Op("&."))
                    || (n >= 2 && is_kw(&self.toks[n - 2].tok, "alias"))
                {
                    self.unclean = true;
                } else {
                    return;
                }
            }
        }
        self.push(Tok::Nl, pos, true);
    }

    /// Pushes `.` or `&.`, dropping the line breaks just before it (a leading `.meth`
    /// continues the statement), as [`clean_newlines`] would; where `alias` is just before
    /// them, they stay for it (see [`Lexer::push_break`]).
    fn push_dot(&mut self, op: &'static str, pos: Pos, space_before: bool) {
        if self.drop_breaks {
            let n = self.toks.len();
            let kept = self
                .toks
                .iter()
                .rposition(|t| !matches!(t.tok, Tok::Nl))
                .map_or(0, |k| k + 1);
            if kept < n {
                if kept > 0 && is_kw(&self.toks[kept - 1].tok, "alias") {
                    self.unclean = true;
                } else {
                    self.toks.truncate(kept);
                }
            }
        }
        self.push(Tok::Op(op), pos, space_before);
    }

    fn push(&mut self, tok: Tok, pos: Pos, space_before: bool) {
        self.toks.push(Token {
            tok,
            pos,
            space_before,
        });
    }

    /// Lexes until the end (or, when `until_brace`, until the `}` closing an interpolation).
    pub fn run(&mut self, until_brace: bool) -> Result<Vec<Token>, LexError> {
        let mut space = true;
        let mut brace_depth = 0i32;
        if self.i == 0 && self.column == 1 && !until_brace {
            if self.starts_with("=begin") {
                self.skip_block_comment();
            }
            if self.at_end_marker() {
                return Ok(std::mem::take(&mut self.toks));
            }
        }
        loop {
            let Some(c) = self.peek() else {
                if until_brace {
                    return self.err("unterminated string interpolation", false);
                }
                break;
            };
            let pos = self.pos();
            // After `alias`/`undef`, an operator is a method name (`alias === include?`).
            if matches!(
                c,
                '[' | '<' | '=' | '!' | '>' | '*' | '+' | '-' | '/' | '%' | '&' | '|' | '^' | '~'
            ) && self.method_name_expected()
            {
                if let Some(op) = OPERATOR_METHODS.iter().find(|op| self.starts_with(op)) {
                    self.advance_over(self.i + op.len());
                    self.push(Tok::Ident(op.to_string()), pos, space);
                    space = false;
                    continue;
                }
            }
            match c {
                ' ' | '\t' | '\r' => {
                    let rest = &self.bytes()[self.i..];
                    let n = rest
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\t' | b'\r'))
                        .unwrap_or(rest.len());
                    self.i += n;
                    self.column += n as u32;
                    space = true;
                    continue;
                }
                '\\' if self.peek_at(1) == Some('\n') => {
                    self.bump();
                    self.bump();
                    space = true;
                    continue;
                }
                '\n' => {
                    self.bump();
                    self.push_break(pos);
                    space = true;
                    if let Some(to) = self.heredoc_resume.take() {
                        // Past the heredoc bodies (whole lines).
                        let to = to.min(self.src.len());
                        if to > self.i {
                            self.advance_over(to);
                        }
                    }
                    // `=begin` and `__END__` start a line; most lines start otherwise.
                    if self.column == 1
                        && self.bytes().get(self.i) == Some(&b'=')
                        && self.starts_with("=begin")
                    {
                        self.skip_block_comment();
                    }
                    if self.column == 1
                        && self.bytes().get(self.i) == Some(&b'_')
                        && self.at_end_marker()
                    {
                        break;
                    }
                    continue;
                }
                '#' => {
                    let rest = &self.bytes()[self.i..];
                    let end = self.i + memchr_nl(rest).unwrap_or(rest.len());
                    self.advance_over(end);
                    if self.peek().is_none() {
                        if until_brace {
                            return self.err("unterminated string interpolation", false);
                        }
                        self.ended_in_comment = true;
                        break;
                    }
                    continue;
                }
                ';' => {
                    self.bump();
                    self.push(Tok::Semi, pos, space);
                }
                '}' if until_brace && brace_depth == 0 => {
                    self.bump();
                    return Ok(std::mem::take(&mut self.toks));
                }
                '0'..='9' => {
                    let t = self.number()?;
                    self.push(t, pos, space);
                }
                '`' if !self.after_dot() => {
                    self.bump();
                    let parts = self.dstring('`', '`', true)?;
                    self.push(Tok::XStr(parts), pos, space);
                }
                '"' => {
                    self.bump();
                    let parts = self.dstring('"', '"', true)?;
                    self.push(Tok::Str(parts), pos, space);
                }
                '\'' => {
                    self.bump();
                    let s = self.sstring('\'', '\'')?;
                    self.push(Tok::Str(vec![StrPart::Lit(s)]), pos, space);
                }
                '@' => {
                    self.bump();
                    if self.peek() == Some('@') {
                        self.bump();
                        let name = self.ident_chars();
                        if name.is_empty() {
                            return self.err("`@@' without a name", false);
                        }
                        self.push(Tok::CVar(name), pos, space);
                        space = false;
                        continue;
                    }
                    let name = self.ident_chars();
                    if name.is_empty() {
                        return self.err("`@' without a name", false);
                    }
                    self.push(Tok::IVar(name), pos, space);
                }
                '$' => {
                    self.bump();
                    let name = match self.peek() {
                        Some(d) if d.is_ascii_digit() => {
                            let mut s = String::new();
                            while let Some(d) = self.peek().filter(|d| d.is_ascii_digit()) {
                                s.push(d);
                                self.bump();
                            }
                            s
                        }
                        Some(c2) if "~&`'+!@;,./\\<>_0*$?:\"=".contains(c2) => {
                            self.bump();
                            c2.to_string()
                        }
                        _ => self.ident_chars(),
                    };
                    if name.is_empty() {
                        return self.err("`$' without a name", false);
                    }
                    self.push(Tok::GVar(name), pos, space);
                }
                ':' if self.peek_at(1) == Some('"') => {
                    self.bump();
                    self.bump();
                    let parts = self.dstring('"', '"', true)?;
                    self.push(Tok::Sym(parts), pos, space);
                }
                ':' if self.peek_at(1) == Some('\'') => {
                    self.bump();
                    self.bump();
                    let s = self.sstring('\'', '\'')?;
                    self.push(Tok::Sym(vec![StrPart::Lit(s)]), pos, space);
                }
                ':' if (space || !self.value_ended())
                    // After a value a `:` may be a pending ternary's; after `?` it cannot.
                    && (self.ternary == 0 || !self.value_ended())
                    // Most `:` start a plain symbol: one byte rules the operators out.
                    && self
                        .bytes()
                        .get(self.i + 1)
                        .is_some_and(|b| SYMBOL_OPERATOR_STARTS.contains(b))
                    && SYMBOL_OPERATORS
                    .iter()
                    .any(|op| {
                        self.bytes()[self.i + 1..].starts_with(op.as_bytes())
                            && !self.char_at(self.i + 1 + op.len()).is_some_and(|c| {
                                c.is_alphanumeric() || matches!(c, '_' | '@' | '"' | '\'')
                            })
                    }) =>
                {
                    self.bump();
                    let op = SYMBOL_OPERATORS
                        .iter()
                        .find(|op| self.starts_with(op))
                        .copied()
                        .unwrap_or("+");
                    for _ in 0..op.len() {
                        self.bump();
                    }
                    self.push(Tok::Sym(vec![StrPart::Lit(op.to_string())]), pos, space);
                }
                ':' if matches!(self.peek_at(1), Some('@') | Some('$'))
                    && (space || !self.value_ended()) =>
                {
                    // `:@ivar`, `:@@cvar`, `:$global`.
                    self.bump();
                    let mut name = String::new();
                    while let Some(c) = self.peek().filter(|c| *c == '@' || *c == '$') {
                        name.push(c);
                        self.bump();
                    }
                    match self.peek() {
                        // `:$1`, `:$~`, `:$-w`: the special globals' symbols.
                        Some(d) if name == "$" && d.is_ascii_digit() => {
                            while let Some(d) = self.peek().filter(|d| d.is_ascii_digit()) {
                                name.push(d);
                                self.bump();
                            }
                        }
                        Some(c2) if name == "$" && "~&`'+!@;,./\\<>*$?:\"".contains(c2) => {
                            name.push(c2);
                            self.bump();
                        }
                        Some('-')
                            if name == "$"
                                && self.peek_at(1).is_some_and(|c| c.is_alphanumeric()) =>
                        {
                            name.push('-');
                            self.bump();
                            name.extend(self.peek());
                            self.bump();
                        }
                        _ => name.push_str(&self.ident_chars()),
                    }
                    self.push(Tok::Sym(vec![StrPart::Lit(name)]), pos, space);
                }
                ':' if self.peek_at(1) != Some(':')
                    && self
                        .peek_at(1)
                        .is_some_and(|n| n.is_alphabetic() || n == '_')
                    && (space || !self.value_ended()) =>
                {
                    self.bump();
                    let mut name = self.ident_chars();
                    if let Some(s) = self.peek().filter(|c| *c == '?' || *c == '!' || *c == '=') {
                        if s != '=' || !matches!(self.peek_at(1), Some('=') | Some('~') | Some('>'))
                        {
                            name.push(s);
                            self.bump();
                        }
                    }
                    self.push(Tok::Sym(vec![StrPart::Lit(name)]), pos, space);
                }
                '/' if !self.after_dot() && !self.value_ended()
                    || (self.prev_is_ident()
                        && space
                        && !matches!(self.peek_at(1), Some(' ') | Some('='))) =>
                {
                    self.bump();
                    let parts = self.dstring('/', '/', false)?;
                    let flags = self.regex_flags();
                    self.push(Tok::Regex(Box::new((parts, flags))), pos, space);
                }
                '%' if !self.after_dot()
                    && (!self.value_ended()
                        || (self.prev_is_ident()
                            && space
                            && !matches!(self.peek_at(1), Some(' ') | Some('='))))
                    && self.peek_at(1).is_some_and(|n| {
                        "wWiIqQrsx([{<|!/".contains(n)
                            && (n.is_alphabetic() || !self.value_ended() || space)
                    }) =>
                {
                    let t = self.percent()?;
                    self.push(t, pos, space);
                }
                '?' if !self.value_ended()
                    && self.peek_at(1).is_some_and(|n| {
                        // `?a` but not `?ab` (an identifier), `?\n`, `?/`: one character.
                        if n.is_alphanumeric() || n == '_' {
                            !self
                                .peek_at(2)
                                .is_some_and(|n| n.is_alphanumeric() || n == '_')
                        } else {
                            !n.is_whitespace()
                        }
                    }) =>
                {
                    // Character literal: a one-character string.
                    self.bump();
                    let mut text = String::new();
                    match self.bump() {
                        Some('\\') => {
                            let Some(n) = self.bump() else {
                                return self.err("unterminated character literal", false);
                            };
                            if matches!(n, 'M' | 'C' | 'c') {
                                return self.err("a meta or control character literal", true);
                            }
                            self.escape_into(n, &mut text)?;
                        }
                        Some(ch) => text.push(ch),
                        None => {}
                    }
                    self.push(Tok::Str(vec![StrPart::Lit(text)]), pos, space);
                }
                c if c.is_alphabetic() || c == '_' => {
                    let alias_name = self.method_name_expected();
                    let mut name = self.ident_chars();
                    // A setter's name where a method name is expected: `alias set_x x=`,
                    // `def x= v`, `def version=` (`def x=(v)` is left to the parser).
                    if alias_name
                        && self.peek() == Some('=')
                        && !matches!(self.peek_at(1), Some('=' | '~' | '>' | '('))
                    {
                        self.bump();
                        name.push('=');
                        self.push(Tok::Ident(name), pos, space);
                        space = false;
                        continue;
                    }
                    if let Some(s) = self.peek().filter(|c| *c == '?' || *c == '!') {
                        let next = self.peek_at(1);
                        // `a ?b: c`-like text keeps the `?` for the ternary; `f(a?: 1)`
                        // (outside a ternary) is a label `a?:`.
                        if (next != Some('=') || self.peek_at(2) == Some('='))
                            && !(s == '?'
                                && next == Some(':')
                                && self.peek_at(2) != Some(':')
                                && self.ternary > 0)
                        {
                            name.push(s);
                            self.bump();
                        }
                    }
                    let first_upper = name.starts_with(|c: char| c.is_uppercase());
                    // Labels `name:` (not `name::`), outside a pending ternary's colon.
                    let prev_dot = matches!(
                        self.toks.last().map(|t| &t.tok),
                        Some(Tok::Op(".")) | Some(Tok::Op("&."))
                    );
                    if self.peek() == Some(':')
                        && self.peek_at(1) != Some(':')
                        && !prev_dot
                        && !(self.ternary > 0 && self.peek_at(1) == Some(' '))
                        && (!name.ends_with('?') || self.ternary == 0)
                    {
                        self.bump();
                        self.push(Tok::Label(name), pos, space);
                    } else if first_upper {
                        self.push(Tok::Const(name), pos, space);
                    } else {
                        self.push(Tok::Ident(name), pos, space);
                    }
                }
                '<' if self.heredoc_start() => {
                    let t = self.heredoc()?;
                    self.push(t, pos, space);
                }
                _ => {
                    let Some(op) = op_at(&self.bytes()[self.i..]) else {
                        return self.err(format!("unexpected character `{c}'"), false);
                    };
                    // ASCII without a line break: one column per byte.
                    self.i += op.len();
                    self.column += op.len() as u32;
                    match op {
                        "(" | "[" | "{" => {
                            if op == "{" {
                                brace_depth += 1;
                            } else {
                                self.paren_depth += 1;
                            }
                            self.ternary_outer.push(self.ternary);
                            self.ternary = 0;
                        }
                        ")" | "]" | "}" => {
                            if op == "}" {
                                brace_depth -= 1;
                            } else {
                                self.paren_depth -= 1;
                            }
                            self.ternary = self.ternary_outer.pop().unwrap_or(0);
                        }
                        "?" => self.ternary += 1,
                        ":" if self.ternary > 0 => self.ternary -= 1,
                        "." | "&." => {
                            self.push_dot(op, pos, space);
                            space = false;
                            continue;
                        }
                        _ => {}
                    }
                    self.push(Tok::Op(op), pos, space);
                }
            }
            space = false;
        }
        Ok(std::mem::take(&mut self.toks))
    }

    /// Skips an `=begin` ... `=end` comment (the lexer is at the `=` of `=begin`).
    fn skip_block_comment(&mut self) {
        loop {
            while let Some(c) = self.peek() {
                self.bump();
                if c == '\n' {
                    break;
                }
            }
            if self.peek().is_none() {
                return;
            }
            if self.starts_with("=end") {
                while let Some(c) = self.peek() {
                    if c == '\n' {
                        break;
                    }
                    self.bump();
                }
                return;
            }
        }
    }

    /// True at a line that is exactly `__END__`: the rest of the file is data.
    fn at_end_marker(&self) -> bool {
        self.starts_with("__END__") && matches!(self.peek_at(7), None | Some('\n') | Some('\r'))
    }

    /// True when `<<` opens a heredoc here (not a shift or an append).
    fn heredoc_start(&self) -> bool {
        if !self.starts_with("<<") {
            return false;
        }
        let mut k = 2;
        if matches!(self.peek_at(2), Some('~') | Some('-')) {
            k = 3;
        }
        let Some(n) = self.peek_at(k) else {
            return false;
        };
        let id_start = n == '"' || n == '\'' || n == '`' || n.is_alphabetic() || n == '_';
        if !id_start {
            return false;
        }
        if !self.value_ended() {
            return true;
        }
        // `desc <<-EOT`: a method call's argument (space before, none after).
        let space_before = self.i > 0 && matches!(self.bytes()[self.i - 1], b' ' | b'\t');
        self.prev_is_ident()
            && space_before
            && (k == 3 || n.is_uppercase() || n == '"' || n == '\'')
    }

    /// A heredoc: reads its identifier here and its body from the lines after the current
    /// one, which the lexer then skips.
    fn heredoc(&mut self) -> Result<Tok, LexError> {
        self.bump();
        self.bump();
        let mode = match self.peek() {
            Some('~') => {
                self.bump();
                '~'
            }
            Some('-') => {
                self.bump();
                '-'
            }
            _ => ' ',
        };
        let quote = match self.peek() {
            Some(q @ ('"' | '\'' | '`')) => {
                self.bump();
                Some(q)
            }
            _ => None,
        };
        let mut id = String::new();
        while let Some(c) = self.peek() {
            if quote.is_some_and(|q| q == c) {
                self.bump();
                break;
            }
            if quote.is_none() && !(c.is_alphanumeric() || c == '_') {
                break;
            }
            if c == '\n' {
                return self.err("unterminated heredoc identifier", false);
            }
            id.push(c);
            self.bump();
        }
        if id.is_empty() {
            return self.err("heredoc without an identifier", false);
        }
        // The body starts after this line (or after the bodies already opened on it).
        let len = self.src.len();
        let line_end = |j: usize| j + memchr_nl(&self.bytes()[j..]).unwrap_or(len - j);
        let start = match self.heredoc_resume {
            Some(r) => r,
            None => (line_end(self.i) + 1).min(len),
        };
        let mut lines: Vec<&str> = Vec::new();
        let mut j = start;
        let mut found = false;
        while j < len {
            let e = line_end(j);
            let next = (e + 1).min(len);
            let bare = self.src[j..e].trim_end_matches('\r');
            let candidate = if mode == ' ' { bare } else { bare.trim_start() };
            if candidate == id {
                found = true;
                j = next;
                break;
            }
            // The line with its line break (the last line of the text may have none).
            lines.push(&self.src[j..next]);
            j = next;
        }
        if !found {
            return self.err(
                format!("can't find string \"{id}\" anywhere before EOF"),
                false,
            );
        }
        self.heredoc_resume = Some(j);
        // The position of the body's first line.
        let mut pos = self.pos();
        pos.line += self.bytes()[self.i..start]
            .iter()
            .filter(|b| **b == b'\n')
            .count() as u32;
        pos.column = 1;
        let body: String = if mode == '~' {
            let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            dedent(&mut lines);
            lines.concat()
        } else {
            lines.concat()
        };
        if quote == Some('\'') {
            return Ok(Tok::Str(vec![StrPart::Lit(body)]));
        }
        let parts = if memchr::memchr3(b'\\', b'#', 0, body.as_bytes()).is_some() {
            let mut sub = Lexer::new(&body, pos);
            sub.depth = self.depth + 1;
            sub.to_eof = true;
            // A nested lexer: grows the stack as the parser does (32 levels at most).
            crate::with_stack(|| sub.dstring('\u{0}', '\u{0}', true))?
        } else {
            // No escape, no interpolation: the body is the string (most docs).
            vec![StrPart::Lit(body)]
        };
        Ok(if quote == Some('`') {
            Tok::XStr(parts)
        } else {
            Tok::Str(parts)
        })
    }

    fn ident_chars(&mut self) -> String {
        // An identifier never holds a line break: the column moves with the characters.
        let start = self.i;
        let b = self.bytes();
        let mut j = start;
        let mut n = 0u32;
        while let Some(&c) = b.get(j) {
            if c < 0x80 {
                if !IDENT_BYTES[usize::from(c)] {
                    break;
                }
                j += 1;
            } else {
                match self.char_at(j) {
                    Some(ch) if ch.is_alphanumeric() => j += ch.len_utf8(),
                    _ => break,
                }
            }
            n += 1;
        }
        self.i = j;
        self.column += n;
        self.src[start..j].to_string()
    }

    fn regex_flags(&mut self) -> String {
        let mut f = String::new();
        while let Some(c) = self.peek() {
            if "imxonesu".contains(c) {
                f.push(c);
                self.bump();
            } else {
                break;
            }
        }
        f
    }

    fn number(&mut self) -> Result<Tok, LexError> {
        let mut s = String::new();
        if self.peek() == Some('0') {
            if let Some(k) = self.peek_at(1) {
                let radix = match k {
                    'x' | 'X' => 16,
                    'b' | 'B' => 2,
                    'o' | 'O' => 8,
                    'd' | 'D' => 10,
                    '0'..='7' | '_' => 0,
                    _ => 1,
                };
                if radix != 1 {
                    self.bump();
                    if radix != 0 {
                        self.bump();
                    }
                    let radix = if radix == 0 { 8 } else { radix };
                    while let Some(c) = self.peek() {
                        if c.is_digit(radix) {
                            s.push(c);
                        } else if c != '_' {
                            break;
                        }
                        self.bump();
                    }
                    return Ok(int_token(if s.is_empty() { "0" } else { &s }, radix));
                }
            }
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() {
                s.push(c);
                self.bump();
            } else if c == '_' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) {
                self.bump();
            } else if c == '.' && !float && self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) {
                float = true;
                s.push(c);
                self.bump();
            } else if (c == 'e' || c == 'E')
                && (self.peek_at(1).is_some_and(|d| d.is_ascii_digit())
                    || (matches!(self.peek_at(1), Some('-') | Some('+'))
                        && self.peek_at(2).is_some_and(|d| d.is_ascii_digit())))
            {
                float = true;
                s.push('e');
                self.bump();
                if let Some(sign) = self.peek().filter(|c| *c == '-' || *c == '+') {
                    s.push(sign);
                    self.bump();
                }
            } else {
                break;
            }
        }
        if matches!(self.peek(), Some('r' | 'i'))
            && !self
                .peek_at(1)
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            return self.err("a rational or imaginary number literal (`1r', `2i')", true);
        }
        if float {
            s.parse::<f64>()
                .map(Tok::Float)
                .or_else(|_| self.err("bad float literal", false))
        } else {
            Ok(int_token(&s, 10))
        }
    }

    /// A single-quoted string body up to `close` (the opening delimiter is consumed).
    fn sstring(&mut self, open: char, close: char) -> Result<String, LexError> {
        let mut s = String::new();
        let mut depth = 0;
        loop {
            self.plain_run(&mut s, &['\\', open, close]);
            let Some(c) = self.bump() else {
                return self.err("unterminated string", false);
            };
            if c == '\\' {
                match self.peek() {
                    Some(n) if n == close || n == '\\' || n == open => {
                        s.push(n);
                        self.bump();
                    }
                    _ => s.push('\\'),
                }
            } else if c == close && depth == 0 {
                return Ok(s);
            } else {
                if open != close {
                    if c == open {
                        depth += 1;
                    } else if c == close {
                        depth -= 1;
                    }
                }
                s.push(c);
            }
        }
    }

    /// The character(s) of the escape `\n` (the lexer is past `n`) of a double-quoted
    /// string or a character literal, appended to `s`.
    fn escape_into(&mut self, n: char, s: &mut String) -> Result<(), LexError> {
        match n {
            'n' => s.push('\n'),
            't' => s.push('\t'),
            'r' => s.push('\r'),
            'e' => s.push('\u{1b}'),
            's' => s.push(' '),
            '0' => s.push('\0'),
            'a' => s.push('\u{7}'),
            'b' => s.push('\u{8}'),
            'f' => s.push('\u{c}'),
            'v' => s.push('\u{b}'),
            '\n' => {}
            'u' => {
                let mut hex = String::new();
                if self.peek() == Some('{') {
                    self.bump();
                    while let Some(h) = self.peek().filter(|c| *c != '}') {
                        hex.push(h);
                        self.bump();
                    }
                    self.bump();
                } else {
                    for _ in 0..4 {
                        if let Some(h) = self.peek().filter(|c| c.is_ascii_hexdigit()) {
                            hex.push(h);
                            self.bump();
                        }
                    }
                }
                match u32::from_str_radix(hex.trim(), 16)
                    .ok()
                    .and_then(char::from_u32)
                {
                    Some(ch) => s.push(ch),
                    None => return self.err("bad \\u escape", false),
                }
            }
            'x' => {
                let mut hex = String::new();
                for _ in 0..2 {
                    if let Some(h) = self.peek().filter(|c| c.is_ascii_hexdigit()) {
                        hex.push(h);
                        self.bump();
                    }
                }
                match u8::from_str_radix(&hex, 16) {
                    Ok(v) if v < 0x80 => s.push(char::from(v)),
                    Ok(v) => {
                        // Bytes beyond ASCII: the escapes that follow at once make
                        // one UTF-8 text ("\xC3\xA9" is "é"); other bytes would make
                        // a broken (binary) string, which this engine's literals
                        // cannot hold.
                        let mut bytes = vec![v];
                        while self.peek() == Some('\\')
                            && self.peek_at(1) == Some('x')
                            && self.peek_at(2).is_some_and(|c| c.is_ascii_hexdigit())
                            && self.peek_at(3).is_some_and(|c| c.is_ascii_hexdigit())
                        {
                            let pair: String = [self.peek_at(2), self.peek_at(3)]
                                .into_iter()
                                .flatten()
                                .collect();
                            let Ok(b) = u8::from_str_radix(&pair, 16) else {
                                break;
                            };
                            if b < 0x80 {
                                break;
                            }
                            bytes.push(b);
                            for _ in 0..4 {
                                self.bump();
                            }
                        }
                        match String::from_utf8(bytes) {
                            Ok(text) => s.push_str(&text),
                            Err(_) => return self.err(
                                "a \\x escape of a byte that is not UTF-8 text (a binary string)",
                                true,
                            ),
                        }
                    }
                    _ => return self.err("bad \\x escape", true),
                }
            }
            other => s.push(other),
        }
        Ok(())
    }

    /// A double-quoted (interpolating) body up to `close`. For regexps (`escapes` false)
    /// backslash sequences are kept for the regexp engine.
    fn dstring(
        &mut self,
        open: char,
        close: char,
        escapes: bool,
    ) -> Result<Vec<StrPart>, LexError> {
        let mut parts = Vec::new();
        let mut s = String::new();
        let mut depth = 0;
        loop {
            self.plain_run(&mut s, &['\\', '#', open, close]);
            let Some(c) = self.bump() else {
                if self.to_eof {
                    if !s.is_empty() || parts.is_empty() {
                        parts.push(StrPart::Lit(s));
                    }
                    return Ok(parts);
                }
                return self.err("unterminated string", false);
            };
            match c {
                '\\' => {
                    let Some(n) = self.bump() else {
                        return self.err("unterminated string", false);
                    };
                    if !escapes {
                        if n == close && close == '/' {
                            s.push('/');
                        } else {
                            s.push('\\');
                            s.push(n);
                        }
                        continue;
                    }
                    self.escape_into(n, &mut s)?;
                }
                '#' if self.peek() == Some('{') => {
                    self.bump();
                    if !s.is_empty() {
                        parts.push(StrPart::Lit(std::mem::take(&mut s)));
                    }
                    if self.depth >= 32 {
                        return self.err("string interpolation nested deeper than 32", true);
                    }
                    // The interpolation's lexer reads the same text from here on, and this
                    // one goes on where it stopped.
                    let mut sub = Lexer {
                        i: self.i,
                        line: self.line,
                        column: self.column,
                        toks: Vec::new(),
                        paren_depth: 0,
                        ternary: 0,
                        ternary_outer: Vec::new(),
                        src: self.src,
                        depth: self.depth + 1,
                        ended_in_comment: false,
                        heredoc_resume: None,
                        to_eof: false,
                        drop_breaks: false,
                        unclean: false,
                    };
                    // A nested lexer: grows the stack as the parser does (32 levels at
                    // most).
                    let toks = crate::with_stack(|| sub.run(true))?;
                    self.i = sub.i;
                    self.line = sub.line;
                    self.column = sub.column;
                    parts.push(StrPart::Code(toks));
                }
                '#' if matches!(self.peek(), Some('@') | Some('$'))
                    && self
                        .peek_at(1)
                        .is_some_and(|n| n.is_alphabetic() || n == '_') =>
                {
                    if !s.is_empty() {
                        parts.push(StrPart::Lit(std::mem::take(&mut s)));
                    }
                    let pos = self.pos();
                    let sigil = self.bump();
                    let name = self.ident_chars();
                    let tok = if sigil == Some('@') {
                        Tok::IVar(name)
                    } else {
                        Tok::GVar(name)
                    };
                    parts.push(StrPart::Code(vec![Token {
                        tok,
                        pos,
                        space_before: false,
                    }]));
                }
                c if c == close && depth == 0 => {
                    if !s.is_empty() || parts.is_empty() {
                        parts.push(StrPart::Lit(s));
                    }
                    return Ok(parts);
                }
                c => {
                    if open != close {
                        if c == open {
                            depth += 1;
                        } else if c == close {
                            depth -= 1;
                        }
                    }
                    s.push(c);
                }
            }
        }
    }

    fn percent(&mut self) -> Result<Tok, LexError> {
        self.bump(); // %
        let kind = match self.peek() {
            Some(k) if k.is_alphabetic() => {
                self.bump();
                k
            }
            _ => 'Q',
        };
        let Some(open) = self.bump() else {
            return self.err("unterminated percent literal", false);
        };
        let close = match open {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            '<' => '>',
            c if c.is_alphanumeric() || c.is_whitespace() => {
                return self.err("bad percent literal delimiter", false)
            }
            c => c,
        };
        match kind {
            'w' | 'i' => {
                // Words split at whitespace; `\ ` is a space inside a word.
                let body = self.sstring(open, close)?;
                let mut words: Vec<Vec<StrPart>> = Vec::new();
                let mut word: Option<String> = None;
                let mut chars = body.chars().peekable();
                while let Some(c) = chars.next() {
                    if c == '\\' && chars.peek().is_some_and(|n| n.is_whitespace()) {
                        word.get_or_insert_with(String::new)
                            .push(chars.next().unwrap_or(' '));
                    } else if c.is_whitespace() {
                        if let Some(w) = word.take() {
                            words.push(vec![StrPart::Lit(w)]);
                        }
                    } else {
                        word.get_or_insert_with(String::new).push(c);
                    }
                }
                if let Some(w) = word {
                    words.push(vec![StrPart::Lit(w)]);
                }
                Ok(Tok::Words(words, kind == 'i'))
            }
            'W' | 'I' => {
                // Interpolating words: split at the whitespace of the literal text.
                let parts = self.dstring(open, close, true)?;
                let mut words: Vec<Vec<StrPart>> = Vec::new();
                let mut word: Vec<StrPart> = Vec::new();
                for part in parts {
                    match part {
                        StrPart::Lit(text) => {
                            let mut lit = String::new();
                            for c in text.chars() {
                                if c.is_whitespace() {
                                    if !lit.is_empty() {
                                        word.push(StrPart::Lit(std::mem::take(&mut lit)));
                                    }
                                    if !word.is_empty() {
                                        words.push(std::mem::take(&mut word));
                                    }
                                } else {
                                    lit.push(c);
                                }
                            }
                            if !lit.is_empty() {
                                word.push(StrPart::Lit(lit));
                            }
                        }
                        code => word.push(code),
                    }
                }
                if !word.is_empty() {
                    words.push(word);
                }
                Ok(Tok::Words(words, kind == 'I'))
            }
            'q' => Ok(Tok::Str(vec![StrPart::Lit(self.sstring(open, close)?)])),
            'x' => Ok(Tok::XStr(self.dstring(open, close, true)?)),
            'Q' => Ok(Tok::Str(self.dstring(open, close, true)?)),
            'r' => {
                let parts = self.dstring(open, close, false)?;
                let flags = self.regex_flags();
                Ok(Tok::Regex(Box::new((parts, flags))))
            }
            's' => Ok(Tok::Sym(vec![StrPart::Lit(self.sstring(open, close)?)])),
            _ => self.err(format!("%{kind} literal"), true),
        }
    }
}

/// The ASCII bytes of identifiers (`[A-Za-z0-9_]`), by byte (the tests check it).
const IDENT_BYTES: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    t
};

/// The number of bytes of the UTF-8 character that starts with byte `b`.
fn utf8_width(b: u8) -> usize {
    match b {
        0..=0xBF => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// The index of the first line break in `b`.
fn memchr_nl(b: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', b)
}

/// The index of the first of the (one to four, ASCII) bytes `stops` in `b`: a SIMD search
/// (`memchr`) for up to three different bytes, else four comparisons per byte.
fn find_stop(b: &[u8], stops: &[char]) -> Option<usize> {
    // The stops as four bytes (the last repeated).
    let stop = |k: usize| stops[k.min(stops.len() - 1)] as u8;
    let (s0, s1, s2, s3) = (stop(0), stop(1), stop(2), stop(3));
    let mut distinct = [s0, s1, s2, s3];
    distinct.sort_unstable();
    let mut n = 1;
    for k in 1..4 {
        if distinct[k] != distinct[n - 1] {
            distinct[n] = distinct[k];
            n += 1;
        }
    }
    match n {
        1 => memchr::memchr(distinct[0], b),
        2 => memchr::memchr2(distinct[0], distinct[1], b),
        3 => memchr::memchr3(distinct[0], distinct[1], distinct[2], b),
        _ => b
            .iter()
            .position(|c| *c == s0 || *c == s1 || *c == s2 || *c == s3),
    }
}

/// The operator (punctuation) at the start of `b`: the longest one (the tests check it
/// against the whole table, longest first).
fn op_at(b: &[u8]) -> Option<&'static str> {
    // A missing byte reads as 0, which no operator holds.
    let c1 = b.get(1).copied().unwrap_or(0);
    let c2 = b.get(2).copied().unwrap_or(0);
    Some(match *b.first()? {
        b'*' => match (c1, c2) {
            (b'*', b'=') => "**=",
            (b'*', _) => "**",
            (b'=', _) => "*=",
            _ => "*",
        },
        b'<' => match (c1, c2) {
            (b'=', b'>') => "<=>",
            (b'<', b'=') => "<<=",
            (b'=', _) => "<=",
            (b'<', _) => "<<",
            _ => "<",
        },
        b'=' => match (c1, c2) {
            (b'=', b'=') => "===",
            (b'=', _) => "==",
            (b'~', _) => "=~",
            (b'>', _) => "=>",
            _ => "=",
        },
        b'.' => match (c1, c2) {
            (b'.', b'.') => "...",
            (b'.', _) => "..",
            _ => ".",
        },
        b'>' => match (c1, c2) {
            (b'>', b'=') => ">>=",
            (b'=', _) => ">=",
            (b'>', _) => ">>",
            _ => ">",
        },
        b'&' => match (c1, c2) {
            (b'&', b'=') => "&&=",
            (b'&', _) => "&&",
            (b'=', _) => "&=",
            (b'.', _) => "&.",
            _ => "&",
        },
        b'|' => match (c1, c2) {
            (b'|', b'=') => "||=",
            (b'|', _) => "||",
            (b'=', _) => "|=",
            _ => "|",
        },
        b'!' => match c1 {
            b'=' => "!=",
            b'~' => "!~",
            _ => "!",
        },
        b'+' => match c1 {
            b'=' => "+=",
            _ => "+",
        },
        b'-' => match c1 {
            b'=' => "-=",
            b'>' => "->",
            _ => "-",
        },
        b'/' => match c1 {
            b'=' => "/=",
            _ => "/",
        },
        b'%' => match c1 {
            b'=' => "%=",
            _ => "%",
        },
        b'^' => match c1 {
            b'=' => "^=",
            _ => "^",
        },
        b':' => match c1 {
            b':' => "::",
            _ => ":",
        },
        b'~' => "~",
        b'?' => "?",
        b',' => ",",
        b'(' => "(",
        b')' => ")",
        b'[' => "[",
        b']' => "]",
        b'{' => "{",
        b'}' => "}",
        _ => return None,
    })
}

/// `<<~`: removes the smallest indentation of the non-blank lines from every line (a tab
/// advances to the next multiple of 8, as in Ruby).
fn dedent(lines: &mut [String]) {
    fn width(line: &str) -> Option<usize> {
        let mut w = 0;
        for c in line.chars() {
            match c {
                ' ' => w += 1,
                '\t' => w = (w / 8 + 1) * 8,
                '\n' | '\r' => return None,
                _ => return Some(w),
            }
        }
        None
    }
    let Some(min) = lines.iter().filter_map(|l| width(l)).min() else {
        return;
    };
    for line in lines.iter_mut() {
        let mut w = 0;
        let mut cut = 0;
        for (i, c) in line.char_indices() {
            if w >= min {
                break;
            }
            match c {
                ' ' => w += 1,
                '\t' => {
                    let nw = (w / 8 + 1) * 8;
                    if nw > min {
                        break;
                    }
                    w = nw
                }
                _ => break,
            }
            cut = i + c.len_utf8();
        }
        line.replace_range(..cut, "");
    }
}

/// Keywords after which an operand (not an operator) is expected.
fn is_keyword_operatorish(k: &str) -> bool {
    matches!(
        k,
        "if" | "elsif"
            | "unless"
            | "while"
            | "until"
            | "and"
            | "or"
            | "not"
            | "return"
            | "when"
            | "in"
            | "then"
            | "do"
            | "else"
            | "case"
            | "next"
            | "break"
            | "puts"
            | "print"
            | "p"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ruby sources for the line break checks: the snippets of the Ruby fixtures, the
    /// prelude files, and line breaks around every kind of token.
    fn break_samples() -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for fixture in [
            include_str!("../tests/fixtures/cases.txt"),
            include_str!("../tests/fixtures/library_cases.txt"),
        ] {
            out.extend(
                fixture
                    .split("\n### ")
                    .map(|c| c.split_once('\n').map_or("", |(_, body)| body).to_string()),
            );
        }
        out.extend(
            [
                include_str!("prelude/set.rb"),
                include_str!("prelude/ostruct.rb"),
                include_str!("prelude/forwardable.rb"),
                include_str!("prelude/rubygems.rb"),
                include_str!("prelude/resolv.rb"),
                include_str!("prelude/openssl.rb"),
                include_str!("prelude/shellwords.rb"),
                include_str!("prelude/uri.rb"),
                include_str!("prelude/pathname.rb"),
                include_str!("prelude/templatewrapper.rb"),
                include_str!("prelude/environment_conf.rb"),
                include_str!("prelude/deep_merge.rb"),
                include_str!("prelude/deep_merge_hash.rb"),
            ]
            .map(str::to_string),
        );
        let pieces = [
            "a",
            "a.",
            "a&.",
            ".b",
            "&.b",
            "+",
            "-",
            "=",
            ",",
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            "|x|",
            "and",
            "or",
            "not",
            "if",
            "unless",
            "while",
            "until",
            "alias",
            "alias x",
            "undef",
            "then",
            "end",
            "do",
            "x ?",
            ":",
            "/r/",
            "% 2",
            "%w[a]",
            "<<~E",
            "E",
            "::",
            "#c",
            "\\",
            ";",
            "\"s#{a\n.b}\"",
            "1",
            "foo:",
            "*",
            "&",
            "!",
            "=~",
            "**",
            "..",
        ];
        for a in pieces {
            for b in pieces {
                for nl in ["\n", "\n\n", "\n  \n", " \n"] {
                    out.push(format!("{a}{nl}{b}\n"));
                    out.push(format!("x = {a}{nl}{b}{nl}.c\n"));
                    out.push(format!("alias {a}{nl}{b}\n"));
                }
            }
        }
        out
    }

    /// The lexer's own dropping of line breaks gives the tokens (and errors) that cleaning
    /// them all afterwards gives, for files and for templates.
    #[test]
    fn dropped_breaks_match_cleaning() {
        let mut unclean_seen = 0;
        for src in break_samples() {
            let fast = lex_file_with(&src, true);
            assert_eq!(fast, lex_file_with(&src, false), "{src:?}");
            let mut lx = Lexer::new(&src, Pos { line: 1, column: 1 });
            lx.drop_breaks = true;
            if lx.run(false).is_ok() && lx.unclean {
                unclean_seen += 1;
            }
            let p = Pos { line: 1, column: 1 };
            let pieces = || {
                vec![
                    Piece::Text("t\n".into()),
                    Piece::Code(src.clone(), p),
                    Piece::Cr,
                    Piece::Insert(src.clone(), p),
                    Piece::Text("u".into()),
                    Piece::Code(".x\n".into(), p),
                ]
            };
            assert_eq!(
                lex_pieces_with(pieces(), true),
                lex_pieces_with(pieces(), false),
                "{src:?}"
            );
        }
        // The cases left to `clean_newlines` are among the samples.
        assert!(unclean_seen > 10, "{unclean_seen}");
    }

    fn toks(src: &str) -> Vec<Tok> {
        let mut lx = Lexer::new(src, Pos { line: 1, column: 1 });
        lx.run(false).unwrap().into_iter().map(|t| t.tok).collect()
    }

    /// Every operator, longest first: the table `op_at` must agree with.
    const OPS: &[&str] = &[
        "**=", "<=>", "===", "...", "<<=", ">>=", "&&=", "||=", "==", "!=", "=~", "!~", ">=", "<=",
        "&&", "||", "<<", ">>", "**", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "..", "::",
        "=>", "->", "&.", "+", "-", "*", "/", "%", "=", "<", ">", "!", "&", "|", "^", "~", "?",
        ":", ",", ".", "(", ")", "[", "]", "{", "}",
    ];

    /// A token stays small (the vector of a file's tokens is about eight bytes of token per
    /// byte of source).
    /// `find_stop` (memchr for up to three different bytes) finds what a byte-by-byte
    /// search for any of the stops finds.
    #[test]
    fn find_stop_is_the_first_stop() {
        let texts = [
            "",
            "plain",
            "a 'quoted' \\ text with \"double\" #{x} and (parens) [x] {y} <z>",
            "ünïcödé then a ' quote",
            "no stop at all in this one",
            "#",
            "\\",
        ];
        let stop_sets: [&[char]; 7] = [
            &['\\', '\'', '\''],
            &['\\', '#', '"', '"'],
            &['\\', '#', '(', ')'],
            &['\\', '(', ')'],
            &['#'],
            &['\\', '#', '{', '}'],
            &['"', '"', '"', '"'],
        ];
        for t in texts {
            for stops in stop_sets {
                let want = t.bytes().position(|c| stops.contains(&(c as char)));
                assert_eq!(find_stop(t.as_bytes(), stops), want, "{t:?} {stops:?}");
            }
        }
    }

    #[test]
    fn token_size() {
        assert!(
            std::mem::size_of::<Token>() <= 48,
            "{}",
            std::mem::size_of::<Token>()
        );
    }

    #[test]
    fn ident_bytes() {
        for b in 0u8..128 {
            assert_eq!(
                IDENT_BYTES[usize::from(b)],
                b.is_ascii_alphanumeric() || b == b'_',
                "{b}"
            );
        }
    }

    #[test]
    fn symbol_operator_starts() {
        let mut starts: Vec<u8> = SYMBOL_OPERATORS.iter().map(|op| op.as_bytes()[0]).collect();
        starts.sort_unstable();
        starts.dedup();
        let mut table = SYMBOL_OPERATOR_STARTS.to_vec();
        table.sort_unstable();
        assert_eq!(starts, table);
        assert_eq!(
            toks(":<=> :[]= :x :+ :-@"),
            vec![
                Tok::Sym(vec![StrPart::Lit("<=>".into())]),
                Tok::Sym(vec![StrPart::Lit("[]=".into())]),
                Tok::Sym(vec![StrPart::Lit("x".into())]),
                Tok::Sym(vec![StrPart::Lit("+".into())]),
                Tok::Sym(vec![StrPart::Lit("-@".into())]),
            ]
        );
    }

    #[test]
    fn operators_longest_first() {
        for a in OPS {
            for b in OPS.iter().chain(&["x", " ", ""]) {
                let text = format!("{a}{b}");
                let want = OPS.iter().find(|op| text.starts_with(**op)).copied();
                assert_eq!(op_at(text.as_bytes()), want, "{text}");
            }
        }
        assert_eq!(op_at(b"@x"), None);
        // Every text of up to three bytes over the operators' bytes (and a few others).
        let mut alphabet: Vec<u8> = OPS.iter().flat_map(|op| op.bytes()).collect();
        alphabet.extend(b"x @\0\n");
        alphabet.sort_unstable();
        alphabet.dedup();
        for &x in &alphabet {
            for &y in &alphabet {
                for &z in &alphabet {
                    for text in [vec![x], vec![x, y], vec![x, y, z]] {
                        let want = OPS
                            .iter()
                            .find(|op| text.starts_with(op.as_bytes()))
                            .copied();
                        assert_eq!(op_at(&text), want, "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn basics() {
        assert_eq!(
            toks("a / 2"),
            vec![Tok::Ident("a".into()), Tok::Op("/"), Tok::Int(2)]
        );
        assert_eq!(
            toks("x =~ /a b/i"),
            vec![
                Tok::Ident("x".into()),
                Tok::Op("=~"),
                Tok::Regex(Box::new((vec![StrPart::Lit("a b".into())], "i".into())))
            ]
        );
        assert_eq!(
            toks("{ a: :b }"),
            vec![
                Tok::Op("{"),
                Tok::Label("a".into()),
                Tok::Sym(vec![StrPart::Lit("b".into())]),
                Tok::Op("}")
            ]
        );
        assert_eq!(
            toks("%w[a b]"),
            vec![Tok::Words(
                vec![
                    vec![StrPart::Lit("a".into())],
                    vec![StrPart::Lit("b".into())]
                ],
                false
            )]
        );
        assert_eq!(
            toks("x.empty?"),
            vec![
                Tok::Ident("x".into()),
                Tok::Op("."),
                Tok::Ident("empty?".into())
            ]
        );
    }
}
