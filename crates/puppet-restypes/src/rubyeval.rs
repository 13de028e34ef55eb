//! A static evaluator for the small, side-effect free Ruby that computes
//! title patterns: `def self.title_patterns` bodies that build their regexes
//! in local variables (`name = Regexp.new(/.../)`, `/^(#{name})::(#{type})$/`)
//! or call a helper method of a module under `lib/puppet_x`
//! (`PuppetX::Keystone::CompositeNamevar.basic_split_title_patterns(:name, :type)`).
//!
//! The helper files are read into a [`RubyLib`]: singleton methods
//! (`def self.x`, `class << self`, `module_function`, `extend self`) and
//! constants, by their lexical module path. Calls are then evaluated on a
//! tiny interpreter: literals (strings and regexes with interpolation,
//! symbols, arrays), locals, `if`/`unless`/`elsif`/`else` and modifiers,
//! `&&`/`||`/`and`/`or`/`!`, `==`/`!=`, `+`, indexing, `return`, parameter
//! defaults and splats, lambdas, `Regexp.new`/`Regexp.escape`/`Regexp#to_s`
//! with Ruby's exact text (`(?-mix:...)`), and a few methods of arrays and
//! strings (`empty?`, `count`, `first`, `map`, ...). Anything else (loops,
//! hashes, unknown methods, `raise`) makes the evaluation fail with a
//! message naming the construct: nothing is guessed.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::lexer::{match_blocks, tokenize, Tok, Token};

/// Ruby's regex options bits (`Regexp::IGNORECASE`, `EXTENDED`, `MULTILINE`).
pub(crate) const OPT_I: u8 = 1;
pub(crate) const OPT_X: u8 = 2;
pub(crate) const OPT_M: u8 = 4;

/// A piece of an interpolated string or regex literal.
#[derive(Debug, Clone)]
enum Part {
    Lit(String),
    Code(Vec<Expr>),
}

#[derive(Debug, Clone)]
struct Block {
    params: Vec<String>,
    body: Vec<Expr>,
}

#[derive(Debug, Clone)]
enum Expr {
    Nil,
    Bool(bool),
    SelfRef,
    Int(i64),
    Str(Vec<Part>),
    Sym(String),
    Regex(Vec<Part>, u8),
    Array(Vec<Expr>),
    Splat(Box<Expr>),
    Local(String),
    /// A constant path (`A::B::C`), absolute when written `::A`.
    Const(Vec<String>, bool),
    Assign(String, Box<Expr>),
    OpAssign(String, &'static str, Box<Expr>),
    Call {
        recv: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
        block: Option<Arc<Block>>,
        line: u32,
    },
    Index(Box<Expr>, Vec<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    If(Box<Expr>, Vec<Expr>, Vec<Expr>),
    Return(Option<Box<Expr>>),
    Lambda(Arc<Block>),
    Seq(Vec<Expr>),
}

/// A Ruby value the evaluator knows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    Nil,
    Bool(bool),
    Int(i64),
    Str(String),
    Sym(String),
    /// A regex: its source (`Regexp#source`) and option bits.
    Regex(String, u8),
    Array(Vec<Val>),
    /// A module or class, by its full name.
    Const(String),
    /// A lambda/proc; `true` when it is the identity (`lambda { |x| x }`).
    Proc(ProcVal),
}

#[derive(Debug, Clone)]
pub(crate) struct ProcVal {
    block: Arc<Block>,
    captured: HashMap<String, Val>,
    nesting: Arc<Vec<String>>,
}

impl PartialEq for ProcVal {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.block, &other.block)
    }
}

impl ProcVal {
    /// Whether the proc returns its single argument unchanged.
    pub(crate) fn is_identity(&self) -> bool {
        matches!((self.block.params.as_slice(), self.block.body.as_slice()),
            ([p], [Expr::Local(x)]) if p == x)
    }
}

fn truthy(v: &Val) -> bool {
    !matches!(v, Val::Nil | Val::Bool(false))
}

fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Nil => "nil",
        Val::Bool(_) => "a boolean",
        Val::Int(_) => "an Integer",
        Val::Str(_) => "a String",
        Val::Sym(_) => "a Symbol",
        Val::Regex(..) => "a Regexp",
        Val::Array(_) => "an Array",
        Val::Const(_) => "a module",
        Val::Proc(_) => "a Proc",
    }
}

// ---------------------------------------------------------------------------
// Ruby's Regexp text functions

fn opt_letters(opts: u8) -> (String, String) {
    let mut on = String::new();
    let mut off = String::new();
    for (bit, c) in [(OPT_M, 'm'), (OPT_I, 'i'), (OPT_X, 'x')] {
        if opts & bit != 0 {
            on.push(c);
        } else {
            off.push(c);
        }
    }
    (on, off)
}

/// Whether `s` has balanced groups (so `(?:` + `s` + `)` is one group).
fn balanced_groups(s: &str) -> bool {
    let mut depth = 0i32;
    let mut class = 0i32;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => {
                it.next();
            }
            '[' => class += 1,
            ']' if class > 0 => class -= 1,
            '(' if class == 0 => depth += 1,
            ')' if class == 0 => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0 && class == 0
}

/// Ruby's `Regexp#to_s` (`rb_reg_to_s`): `(?on-off:source)`, folding a
/// source that is itself one `(?opts:...)` group or starts with `(?opts)`.
pub(crate) fn regex_to_s(source: &str, opts: u8) -> String {
    let mut opts = opts & (OPT_I | OPT_X | OPT_M);
    let mut src = source;
    loop {
        if src.len() >= 4 && src.starts_with("(?") {
            let b = src.as_bytes();
            let mut o = opts;
            let mut p = 2;
            while p < b.len() {
                match b[p] {
                    b'm' => o |= OPT_M,
                    b'i' => o |= OPT_I,
                    b'x' => o |= OPT_X,
                    _ => break,
                }
                p += 1;
            }
            if p + 1 < b.len() && b[p] == b'-' {
                p += 1;
                while p < b.len() {
                    match b[p] {
                        b'm' => o &= !OPT_M,
                        b'i' => o &= !OPT_I,
                        b'x' => o &= !OPT_X,
                        _ => break,
                    }
                    p += 1;
                }
            }
            if p < b.len() && b[p] == b')' {
                opts = o;
                src = &src[p + 1..];
                continue;
            }
            if p < b.len() && b[p] == b':' && src.ends_with(')') && src.len() > p + 1 {
                let inner = &src[p + 1..src.len() - 1];
                if balanced_groups(inner) {
                    opts = o;
                    src = inner;
                }
            }
        }
        break;
    }
    let (on, off) = opt_letters(opts);
    let mut out = String::from("(?");
    out.push_str(&on);
    if !off.is_empty() {
        out.push('-');
        out.push_str(&off);
    }
    out.push(':');
    let mut it = src.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' if it.peek().is_some() => {
                out.push('\\');
                if let Some(n) = it.next() {
                    out.push(n);
                }
            }
            '/' => out.push_str("\\/"),
            c if c.is_ascii_control() && !c.is_ascii_whitespace() && c != '\u{b}' => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(')');
    out
}

/// Ruby's `Regexp.escape`.
fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '[' | ']' | '{' | '}' | '(' | ')' | '|' | '-' | '*' | '.' | '\\' | '?' | '+' | '^'
            | '$' | '#' => {
                out.push('\\');
                out.push(c);
            }
            ' ' => out.push_str("\\ "),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c => out.push(c),
        }
    }
    out
}

fn flag_bits(flags: &str) -> u8 {
    let mut o = 0;
    for c in flags.chars() {
        match c {
            'i' => o |= OPT_I,
            'x' => o |= OPT_X,
            'm' => o |= OPT_M,
            _ => {}
        }
    }
    o
}

// ---------------------------------------------------------------------------
// Parser: tokens -> Expr

fn is_sep(t: &Token) -> bool {
    matches!(&t.tok, Tok::Newline) || matches!(&t.tok, Tok::Punct(p) if p == ";")
}

fn is_punct(t: Option<&Token>, p: &str) -> bool {
    matches!(t.map(|t| &t.tok), Some(Tok::Punct(x)) if x == p)
}

fn is_ident(t: Option<&Token>, w: &str) -> bool {
    matches!(t.map(|t| &t.tok), Some(Tok::Ident(x)) if x == w)
}

const STOP_WORDS: &[&str] = &[
    "if", "unless", "while", "until", "and", "or", "then", "do", "end", "else", "elsif", "when",
    "rescue", "ensure", "in",
];

struct Parser<'a> {
    toks: &'a [Token],
    close: &'a [Option<usize>],
    pos: usize,
    /// Newlines are whitespace (inside brackets).
    nl: bool,
    locals: HashSet<String>,
    /// Nesting of brackets and blocks being parsed.
    depth: usize,
}

const MAX_NESTING: usize = 100;

type PResult<T> = Result<T, String>;

impl<'a> Parser<'a> {
    fn new(toks: &'a [Token], close: &'a [Option<usize>], locals: HashSet<String>) -> Self {
        Parser {
            toks,
            close,
            pos: 0,
            nl: false,
            locals,
            depth: 0,
        }
    }

    fn line(&self) -> u32 {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(0, |t| t.line)
    }

    fn fail<T>(&self, what: &str) -> PResult<T> {
        Err(format!("line {}: {what}", self.line()))
    }

    fn ws(&mut self, end: usize) {
        if self.nl {
            while self.pos < end && matches!(self.toks[self.pos].tok, Tok::Newline) {
                self.pos += 1;
            }
        }
    }

    fn cur(&mut self, end: usize) -> Option<&'a Token> {
        self.ws(end);
        if self.pos < end {
            self.toks.get(self.pos)
        } else {
            None
        }
    }

    fn closer(&self, i: usize, end: usize) -> PResult<usize> {
        match self.close.get(i).copied().flatten() {
            Some(c) if c < end => Ok(c),
            _ => Err(format!(
                "line {}: unterminated bracket or block",
                self.toks.get(i).map_or(0, |t| t.line)
            )),
        }
    }

    fn skip_from(&self, j: usize) -> usize {
        match self.close.get(j).copied().flatten() {
            Some(c) => c + 1,
            None => j + 1,
        }
    }

    fn stmts(&mut self, a: usize, b: usize) -> PResult<Vec<Expr>> {
        let saved = (self.pos, self.nl);
        self.pos = a;
        self.nl = false;
        let mut out = Vec::new();
        loop {
            while self.pos < b && is_sep(&self.toks[self.pos]) {
                self.pos += 1;
            }
            if self.pos >= b {
                break;
            }
            let e = self.stmt(b)?;
            out.push(e);
            if self.pos < b && !is_sep(&self.toks[self.pos]) {
                return self.fail("unexpected token after a statement");
            }
        }
        self.nl = saved.1;
        self.pos = b;
        Ok(out)
    }

    fn stmt(&mut self, b: usize) -> PResult<Expr> {
        let mut e = if is_ident(self.cur(b), "return") {
            self.pos += 1;
            match self.cur(b) {
                None => Expr::Return(None),
                Some(t) if is_sep(t) || is_ident(Some(t), "if") || is_ident(Some(t), "unless") => {
                    Expr::Return(None)
                }
                Some(_) => Expr::Return(Some(Box::new(self.expr(b)?))),
            }
        } else {
            self.expr_stmt(b)?
        };
        loop {
            let t = self.cur(b);
            if is_ident(t, "if") || is_ident(t, "unless") {
                let unless = is_ident(t, "unless");
                self.pos += 1;
                let c = self.expr(b)?;
                e = if unless {
                    Expr::If(Box::new(c), vec![], vec![e])
                } else {
                    Expr::If(Box::new(c), vec![e], vec![])
                };
            } else if is_ident(t, "while") || is_ident(t, "until") || is_ident(t, "rescue") {
                return self.fail("a loop or rescue modifier");
            } else {
                return Ok(e);
            }
        }
    }

    fn expr_stmt(&mut self, b: usize) -> PResult<Expr> {
        if let Some(Token {
            tok: Tok::Ident(name),
            ..
        }) = self.cur(b)
        {
            let op = match self.toks.get(self.pos + 1).map(|t| &t.tok) {
                Some(Tok::Punct(p)) if self.pos + 1 < b => match p.as_str() {
                    "=" => Some("="),
                    "+=" => Some("+"),
                    "-=" => Some("-"),
                    "||=" => Some("||"),
                    "<<" if self.locals.contains(name.as_str()) => Some("<<"),
                    _ => None,
                },
                _ => None,
            };
            if let Some(op) = op {
                self.pos += 2;
                let rhs = self.expr(b)?;
                self.locals.insert(name.clone());
                return Ok(match op {
                    "=" => Expr::Assign(name.clone(), Box::new(rhs)),
                    op => Expr::OpAssign(name.clone(), op, Box::new(rhs)),
                });
            }
        }
        self.expr(b)
    }

    fn expr(&mut self, b: usize) -> PResult<Expr> {
        let mut l = self.not_expr(b)?;
        loop {
            let op = match self.cur(b).map(|t| &t.tok) {
                Some(Tok::Ident(w)) if w == "and" => "&&",
                Some(Tok::Ident(w)) if w == "or" => "||",
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.not_expr(b)?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn not_expr(&mut self, b: usize) -> PResult<Expr> {
        if is_ident(self.cur(b), "not") {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.not_expr(b)?)));
        }
        self.ternary(b)
    }

    fn ternary(&mut self, b: usize) -> PResult<Expr> {
        let c = self.binary(b, 0)?;
        if is_punct(self.cur(b), "?") {
            self.pos += 1;
            let t = self.ternary(b)?;
            if !is_punct(self.cur(b), ":") {
                return self.fail("a ternary without `:`");
            }
            self.pos += 1;
            let f = self.ternary(b)?;
            return Ok(Expr::If(Box::new(c), vec![t], vec![f]));
        }
        Ok(c)
    }

    /// Binary operators by precedence level (lowest first).
    fn binary(&mut self, b: usize, level: usize) -> PResult<Expr> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["==", "!=", "=~", "!~", "===", "<=>"],
            &["<", ">", "<=", ">="],
            &["|", "^"],
            &["&"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.unary(b);
        }
        let mut l = self.binary(b, level + 1)?;
        loop {
            let op = match self.cur(b).map(|t| &t.tok) {
                Some(Tok::Punct(p)) => LEVELS[level].iter().find(|o| **o == p.as_str()),
                _ => None,
            };
            let Some(op) = op else { return Ok(l) };
            self.pos += 1;
            let r = self.binary(b, level + 1)?;
            l = Expr::Bin(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self, b: usize) -> PResult<Expr> {
        match self.cur(b).map(|t| &t.tok) {
            Some(Tok::Punct(p)) if p == "!" => {
                self.pos += 1;
                Ok(Expr::Not(Box::new(self.unary(b)?)))
            }
            Some(Tok::Punct(p)) if p == "-" => {
                if let Some(Tok::Num(n)) = self.toks.get(self.pos + 1).map(|t| &t.tok) {
                    self.pos += 2;
                    return Ok(Expr::Int(-self.int(n)?));
                }
                self.fail("unary minus")
            }
            _ => self.postfix(b),
        }
    }

    fn int(&self, n: &str) -> PResult<i64> {
        n.replace('_', "")
            .parse::<i64>()
            .or_else(|_| self.fail(&format!("the number `{n}`")))
    }

    fn postfix(&mut self, b: usize) -> PResult<Expr> {
        let mut e = self.primary(b)?;
        loop {
            let Some(t) = self.cur(b) else { return Ok(e) };
            match &t.tok {
                Tok::Punct(p) if p == "." || p == "&." => {
                    let name = match self.toks.get(self.pos + 1).map(|t| &t.tok) {
                        Some(Tok::Ident(n) | Tok::Const(n)) if self.pos + 1 < b => n.clone(),
                        Some(Tok::Punct(p)) if p == "(" => "call".to_string(),
                        _ => return self.fail("a method call without a name"),
                    };
                    let line = t.line;
                    self.pos += if name == "call" && is_punct(self.toks.get(self.pos + 1), "(") {
                        1
                    } else {
                        2
                    };
                    let args = self.call_args(b, false)?;
                    let block = self.block(b)?;
                    e = Expr::Call {
                        recv: Some(Box::new(e)),
                        name,
                        args,
                        block,
                        line,
                    };
                }
                Tok::Punct(p) if p == "::" => match self.toks.get(self.pos + 1).map(|t| &t.tok) {
                    Some(Tok::Const(c)) if self.pos + 1 < b => {
                        let Expr::Const(mut path, abs) = e else {
                            return self.fail("`::` after an expression");
                        };
                        path.push(c.clone());
                        self.pos += 2;
                        e = Expr::Const(path, abs);
                    }
                    Some(Tok::Ident(n)) if self.pos + 1 < b => {
                        let (name, line) = (n.clone(), t.line);
                        self.pos += 2;
                        let args = self.call_args(b, false)?;
                        let block = self.block(b)?;
                        e = Expr::Call {
                            recv: Some(Box::new(e)),
                            name,
                            args,
                            block,
                            line,
                        };
                    }
                    _ => return self.fail("`::` without a name"),
                },
                Tok::Punct(p) if p == "[" && !t.space_before => {
                    let c = self.closer(self.pos, b)?;
                    let args = self.list(self.pos + 1, c)?;
                    self.pos = c + 1;
                    e = Expr::Index(Box::new(e), args);
                }
                _ => return Ok(e),
            }
        }
    }

    /// Comma-separated expressions in `a..c` (newlines are whitespace).
    fn list(&mut self, a: usize, c: usize) -> PResult<Vec<Expr>> {
        let saved = self.nl;
        self.nl = true;
        self.pos = a;
        let mut out = Vec::new();
        while let Some(t) = self.cur(c) {
            if is_punct(Some(t), "*") {
                self.pos += 1;
                out.push(Expr::Splat(Box::new(self.ternary(c)?)));
            } else if matches!(t.tok, Tok::Label(_))
                || matches!(t.tok, Tok::Sym(_)) && is_punct(self.toks.get(self.pos + 1), "=>")
            {
                return self.fail("a hash or keyword argument");
            } else if is_punct(Some(t), "&") {
                return self.fail("a block argument");
            } else {
                out.push(self.expr_stmt(c)?);
            }
            match self.cur(c) {
                None => break,
                Some(t) if is_punct(Some(t), ",") => self.pos += 1,
                Some(t) if is_punct(Some(t), "=>") => return self.fail("a hash"),
                Some(_) => return self.fail("unexpected token in a list"),
            }
        }
        self.nl = saved;
        self.pos = c;
        Ok(out)
    }

    /// Arguments of a call: `(...)` right after the name, or command
    /// arguments (`raise Foo, 'x'`) when `command` allows them.
    fn call_args(&mut self, b: usize, command: bool) -> PResult<Vec<Expr>> {
        let Some(t) = self.toks.get(self.pos).filter(|_| self.pos < b) else {
            return Ok(vec![]);
        };
        if is_punct(Some(t), "(") && !t.space_before {
            let c = self.closer(self.pos, b)?;
            let args = self.list(self.pos + 1, c)?;
            self.pos = c + 1;
            return Ok(args);
        }
        if !command || !t.space_before {
            return Ok(vec![]);
        }
        let starts_arg = match &t.tok {
            Tok::Str(..)
            | Tok::Sym(_)
            | Tok::Num(_)
            | Tok::Regex(..)
            | Tok::Words(_)
            | Tok::Const(_)
            | Tok::Var(_) => true,
            Tok::Ident(w) => !STOP_WORDS.contains(&w.as_str()),
            Tok::Punct(p) => matches!(p.as_str(), "[" | "(" | "->" | "::" | "!" | "*"),
            Tok::Label(_) => true,
            Tok::Newline => false,
        };
        if !starts_arg {
            return Ok(vec![]);
        }
        let mut out = Vec::new();
        while let Some(t) = self.cur(b) {
            if is_punct(Some(t), "*") {
                self.pos += 1;
                out.push(Expr::Splat(Box::new(self.ternary(b)?)));
            } else if matches!(t.tok, Tok::Label(_)) {
                return self.fail("a keyword argument");
            } else {
                out.push(self.ternary(b)?);
            }
            if is_punct(self.cur(b), ",") {
                self.pos += 1;
            } else {
                break;
            }
        }
        Ok(out)
    }

    /// A `{ |x| ... }` or `do |x| ... end` block at the cursor, if any.
    fn block(&mut self, b: usize) -> PResult<Option<Arc<Block>>> {
        let Some(t) = self.toks.get(self.pos).filter(|_| self.pos < b) else {
            return Ok(None);
        };
        if !(is_punct(Some(t), "{") || is_ident(Some(t), "do")) {
            return Ok(None);
        }
        let c = self.closer(self.pos, b)?;
        let mut a = self.pos + 1;
        let mut params = Vec::new();
        if is_punct(self.toks.get(a), "||") {
            a += 1;
        } else if is_punct(self.toks.get(a), "|") {
            a += 1;
            while a < c && !is_punct(self.toks.get(a), "|") {
                match &self.toks[a].tok {
                    Tok::Ident(p) => params.push(p.clone()),
                    Tok::Punct(p) if p == "," => {}
                    _ => return self.fail("block parameters other than plain names"),
                }
                a += 1;
            }
            a += 1;
        }
        let saved = self.locals.clone();
        self.locals.extend(params.iter().cloned());
        let body = self.stmts(a.min(c), c)?;
        self.locals = saved;
        self.pos = c + 1;
        Ok(Some(Arc::new(Block { params, body })))
    }

    fn parts(&self, text: &str, regex: bool) -> PResult<Vec<Part>> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        let mut lit = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\\' && regex && i + 1 < chars.len() {
                lit.push(c);
                lit.push(chars[i + 1]);
                i += 2;
                continue;
            }
            if c == '#' && chars.get(i + 1) == Some(&'{') {
                let mut depth = 0usize;
                let mut j = i + 2;
                let mut quote: Option<char> = None;
                while j < chars.len() {
                    let d = chars[j];
                    if let Some(q) = quote {
                        if d == '\\' {
                            j += 1;
                        } else if d == q {
                            quote = None;
                        }
                    } else if d == '"' || d == '\'' {
                        quote = Some(d);
                    } else if d == '{' {
                        depth += 1;
                    } else if d == '}' {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    j += 1;
                }
                let code: String = chars[i + 2..j.min(chars.len())].iter().collect();
                if !lit.is_empty() {
                    out.push(Part::Lit(std::mem::take(&mut lit)));
                }
                let toks = tokenize(&code);
                let close = match_blocks(&toks);
                let mut p = Parser::new(&toks, &close, self.locals.clone());
                p.depth = self.depth + 1;
                let body = p
                    .stmts(0, toks.len())
                    .map_err(|e| format!("line {}: in `#{{{code}}}`: {e}", self.line()))?;
                out.push(Part::Code(body));
                i = j + 1;
                continue;
            }
            lit.push(c);
            i += 1;
        }
        if !lit.is_empty() {
            out.push(Part::Lit(lit));
        }
        Ok(out)
    }

    fn primary(&mut self, b: usize) -> PResult<Expr> {
        if self.depth >= MAX_NESTING {
            return self.fail("expressions nested too deeply");
        }
        self.depth += 1;
        let r = self.primary_inner(b);
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self, b: usize) -> PResult<Expr> {
        let Some(t) = self.cur(b) else {
            return self.fail("an expression is missing");
        };
        let i = self.pos;
        let line = t.line;
        match &t.tok {
            Tok::Num(n) => {
                self.pos += 1;
                Ok(Expr::Int(self.int(n)?))
            }
            Tok::Str(s, plain) => {
                self.pos += 1;
                let parts = if *plain {
                    vec![Part::Lit(s.clone())]
                } else {
                    self.parts(s, false)?
                };
                Ok(Expr::Str(parts))
            }
            Tok::Sym(s) => {
                self.pos += 1;
                Ok(Expr::Sym(s.clone()))
            }
            Tok::Regex(src, flags, plain) => {
                self.pos += 1;
                let parts = if *plain {
                    vec![Part::Lit(src.clone())]
                } else {
                    self.parts(src, true)?
                };
                Ok(Expr::Regex(parts, flag_bits(flags)))
            }
            Tok::Words(w) => {
                self.pos += 1;
                Ok(Expr::Array(
                    w.iter()
                        .map(|s| Expr::Str(vec![Part::Lit(s.clone())]))
                        .collect(),
                ))
            }
            Tok::Const(c) => {
                self.pos += 1;
                if is_punct(self.toks.get(self.pos), "(") && !self.toks[self.pos].space_before {
                    return self.fail(&format!("the conversion function `{c}(...)`"));
                }
                Ok(Expr::Const(vec![c.clone()], false))
            }
            Tok::Punct(p) => match p.as_str() {
                "[" => {
                    let c = self.closer(i, b)?;
                    let items = self.list(i + 1, c)?;
                    self.pos = c + 1;
                    Ok(Expr::Array(items))
                }
                "(" => {
                    let c = self.closer(i, b)?;
                    let body = self.stmts(i + 1, c)?;
                    self.pos = c + 1;
                    Ok(Expr::Seq(body))
                }
                "::" => match self.toks.get(i + 1).map(|t| &t.tok) {
                    Some(Tok::Const(c)) => {
                        self.pos += 2;
                        Ok(Expr::Const(vec![c.clone()], true))
                    }
                    _ => self.fail("`::` without a constant"),
                },
                "->" => {
                    self.pos += 1;
                    let mut params = Vec::new();
                    if is_punct(self.toks.get(self.pos), "(") {
                        let c = self.closer(self.pos, b)?;
                        for j in self.pos + 1..c {
                            match &self.toks[j].tok {
                                Tok::Ident(p) => params.push(p.clone()),
                                Tok::Punct(p) if p == "," => {}
                                _ => return self.fail("lambda parameters other than plain names"),
                            }
                        }
                        self.pos = c + 1;
                    }
                    let saved = self.locals.clone();
                    self.locals.extend(params.iter().cloned());
                    let blk = self.block(b);
                    self.locals = saved;
                    let Some(blk) = blk? else {
                        return self.fail("`->` without a body");
                    };
                    let mut blk = (*blk).clone();
                    if blk.params.is_empty() {
                        blk.params = params;
                    }
                    Ok(Expr::Lambda(Arc::new(blk)))
                }
                _ => self.fail(&format!("the operator `{p}`")),
            },
            Tok::Ident(w) => self.ident(w, i, b, line),
            Tok::Var(v) => self.fail(&format!("the variable `{v}`")),
            Tok::Label(l) => self.fail(&format!("the hash key `{l}:`")),
            Tok::Newline => self.fail("an expression is missing"),
        }
    }

    fn ident(&mut self, w: &str, i: usize, b: usize, line: u32) -> PResult<Expr> {
        match w {
            "nil" => {
                self.pos += 1;
                Ok(Expr::Nil)
            }
            "true" | "false" => {
                self.pos += 1;
                Ok(Expr::Bool(w == "true"))
            }
            "self" => {
                self.pos += 1;
                Ok(Expr::SelfRef)
            }
            "if" | "unless" => {
                let end = self.closer(i, b)?;
                let e = self.if_expr(i, end, w == "unless")?;
                self.pos = end + 1;
                Ok(e)
            }
            "begin" => {
                let end = self.closer(i, b)?;
                let mut j = i + 1;
                while j < end {
                    if is_ident(self.toks.get(j), "rescue") || is_ident(self.toks.get(j), "ensure")
                    {
                        return self.fail("`begin` with `rescue`/`ensure`");
                    }
                    j = self.skip_from(j);
                }
                let body = self.stmts(i + 1, end)?;
                self.pos = end + 1;
                Ok(Expr::Seq(body))
            }
            "lambda" | "proc" => {
                self.pos += 1;
                match self.block(b)? {
                    Some(blk) => Ok(Expr::Lambda(blk)),
                    None => self.fail(&format!("`{w}` without a block")),
                }
            }
            _ if STOP_WORDS.contains(&w)
                || matches!(
                    w,
                    "case"
                        | "def"
                        | "class"
                        | "module"
                        | "yield"
                        | "super"
                        | "for"
                        | "break"
                        | "next"
                        | "redo"
                        | "retry"
                        | "defined?"
                ) =>
            {
                self.fail(&format!("`{w}`"))
            }
            _ if self.locals.contains(w) => {
                self.pos += 1;
                Ok(Expr::Local(w.to_string()))
            }
            _ => {
                self.pos += 1;
                let args = self.call_args(b, true)?;
                let block = self.block(b)?;
                Ok(Expr::Call {
                    recv: None,
                    name: w.to_string(),
                    args,
                    block,
                    line,
                })
            }
        }
    }

    /// `if cond [then] body (elsif cond body)* [else body] end` at `i`.
    fn if_expr(&mut self, i: usize, end: usize, unless: bool) -> PResult<Expr> {
        // split at top-level elsif/else
        let mut marks = vec![i];
        let mut j = i + 1;
        while j < end {
            if is_ident(self.toks.get(j), "elsif") || is_ident(self.toks.get(j), "else") {
                marks.push(j);
                j += 1;
                continue;
            }
            j = self.skip_from(j);
        }
        marks.push(end);
        let mut branches: Vec<(Option<Expr>, Vec<Expr>)> = Vec::new();
        for w in marks.windows(2) {
            let (s, e) = (w[0], w[1]);
            if is_ident(self.toks.get(s), "else") {
                branches.push((None, self.stmts(s + 1, e)?));
                continue;
            }
            // condition up to newline / `then` / `;`
            let mut k = s + 1;
            while k < e && !is_sep(&self.toks[k]) && !is_ident(self.toks.get(k), "then") {
                k = self.skip_from(k);
            }
            let saved = self.pos;
            self.pos = s + 1;
            let cond = self.expr(k)?;
            if self.pos != k {
                return self.fail("unexpected token in a condition");
            }
            self.pos = saved;
            let body_start = if is_ident(self.toks.get(k), "then") {
                k + 1
            } else {
                k
            };
            branches.push((Some(cond), self.stmts(body_start.min(e), e)?));
        }
        let mut acc: Vec<Expr> = Vec::new();
        for (n, (cond, body)) in branches.into_iter().enumerate().rev() {
            match cond {
                None => acc = body,
                Some(c) => {
                    let e = if n == 0 && unless {
                        Expr::If(Box::new(c), acc, body)
                    } else {
                        Expr::If(Box::new(c), body, acc)
                    };
                    acc = vec![e];
                }
            }
        }
        Ok(Expr::Seq(acc))
    }
}

/// Parses the statements `a..b` of `toks` (a method body).
fn parse_body(
    toks: &[Token],
    close: &[Option<usize>],
    a: usize,
    b: usize,
    locals: HashSet<String>,
) -> PResult<Vec<Expr>> {
    let mut p = Parser::new(toks, close, locals);
    p.stmts(a, b)
}

// ---------------------------------------------------------------------------
// The library of helper methods

#[derive(Debug, Clone)]
struct Param {
    name: String,
    default: Option<Expr>,
    splat: bool,
}

#[derive(Debug)]
struct Method {
    path: String,
    line: u32,
    params: Vec<Param>,
    body: PResult<Vec<Expr>>,
    nesting: Arc<Vec<String>>,
}

#[derive(Debug)]
struct ConstDef {
    value: PResult<Expr>,
    nesting: Arc<Vec<String>>,
}

/// A helper file's tokens, kept for the module methods a type may `extend`.
#[derive(Debug)]
pub(crate) struct FileToks {
    pub(crate) path: String,
    pub(crate) toks: Vec<Token>,
    pub(crate) close: Vec<Option<usize>>,
}

/// An instance method without parameters of a helper module, which a type
/// that `extend`s the module can call at its level to run the type DSL in
/// it (openstack's `create_parameters`): its body is `file.toks[body.0..body.1]`.
#[derive(Debug)]
pub(crate) struct MixinDef {
    pub(crate) file: Arc<FileToks>,
    pub(crate) body: (usize, usize),
}

/// Singleton methods and constants of Ruby helper files, by module path.
#[derive(Debug, Default)]
pub(crate) struct RubyLib {
    /// `(module, method)` -> an instance method without parameters.
    mixins: HashMap<(String, String), MixinDef>,
    /// `(module, method)` -> method; `""` is the top level (a type file's own
    /// `def self.x`).
    methods: HashMap<(String, String), Arc<Method>>,
    consts: HashMap<String, Arc<ConstDef>>,
    namespaces: HashSet<String>,
}

struct Frame {
    ns: String,
    nesting: Arc<Vec<String>>,
    locals: HashMap<String, Val>,
}

enum Ctl {
    Return(Val),
    Err(String),
}

impl From<String> for Ctl {
    fn from(s: String) -> Self {
        Ctl::Err(s)
    }
}

type EResult<T> = Result<T, Ctl>;

const MAX_DEPTH: usize = 48;

impl RubyLib {
    /// Reads the modules, singleton methods and constants of one file.
    pub(crate) fn add_file(&mut self, path: &str, source: &str) {
        let toks = tokenize(source);
        let close = match_blocks(&toks);
        let file = Arc::new(FileToks {
            path: path.to_string(),
            toks,
            close,
        });
        self.scan(path, &file.toks, &file.close, Some(&file));
    }

    /// The instance method `name` (without parameters) of module `module`.
    pub(crate) fn mixin(&self, module: &str, name: &str) -> Option<&MixinDef> {
        self.mixins.get(&(module.to_string(), name.to_string()))
    }

    /// Reads the modules, singleton methods and constants of tokens that
    /// are not kept (a type file's own).
    pub(crate) fn add_tokens(&mut self, path: &str, toks: &[Token], close: &[Option<usize>]) {
        self.scan(path, toks, close, None);
    }

    fn scan(
        &mut self,
        path: &str,
        toks: &[Token],
        close: &[Option<usize>],
        file: Option<&Arc<FileToks>>,
    ) {
        // (end index, module full name, singleton-defs mode)
        let mut stack: Vec<(usize, String, bool)> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            while stack.last().is_some_and(|(e, _, _)| *e <= i) {
                stack.pop();
            }
            let cur = stack.last().map(|(_, n, _)| n.clone()).unwrap_or_default();
            let singleton = stack.last().is_some_and(|(_, _, s)| *s);
            let after_dot = i > 0
                && (is_punct(toks.get(i - 1), ".")
                    || is_punct(toks.get(i - 1), "&.")
                    || is_punct(toks.get(i - 1), "::"));
            let stmt_start = i == 0 || is_sep(&toks[i - 1]);
            match &toks[i].tok {
                Tok::Ident(w) if !after_dot && (w == "module" || w == "class") => {
                    let end = close.get(i).copied().flatten().unwrap_or(toks.len());
                    if w == "class" && is_punct(toks.get(i + 1), "<<") {
                        // class << self: its defs are singleton methods
                        stack.push((end, cur.clone(), true));
                        i += 3;
                        continue;
                    }
                    let mut j = i + 1;
                    let mut name = String::new();
                    let mut absolute = false;
                    if is_punct(toks.get(j), "::") {
                        absolute = true;
                        j += 1;
                    }
                    while let Some(Tok::Const(c)) = toks.get(j).map(|t| &t.tok) {
                        if !name.is_empty() {
                            name.push_str("::");
                        }
                        name.push_str(c);
                        j += 1;
                        if is_punct(toks.get(j), "::") {
                            j += 1;
                        } else {
                            break;
                        }
                    }
                    if name.is_empty() {
                        i += 1;
                        continue;
                    }
                    let full = if cur.is_empty() || absolute {
                        name
                    } else {
                        format!("{cur}::{name}")
                    };
                    self.namespaces.insert(full.clone());
                    stack.push((end, full, false));
                    i = j;
                }
                Tok::Ident(w) if !after_dot && w == "def" => {
                    let end = close.get(i).copied().flatten().unwrap_or(toks.len());
                    let has_self =
                        is_ident(toks.get(i + 1), "self") && is_punct(toks.get(i + 2), ".");
                    let name_at = if has_self { i + 3 } else { i + 1 };
                    let name = match toks.get(name_at).map(|t| &t.tok) {
                        Some(Tok::Ident(n) | Tok::Const(n)) => n.clone(),
                        _ => String::new(),
                    };
                    if !name.is_empty() && (has_self || singleton) {
                        let nesting: Vec<String> =
                            stack.iter().map(|(_, n, _)| n.clone()).collect();
                        let m = self.read_def(path, toks, close, name_at, end, nesting);
                        self.methods.insert((cur.clone(), name), Arc::new(m));
                    } else if let (false, false, Some(f)) = (name.is_empty(), cur.is_empty(), file)
                    {
                        // `def name` / `def name()` then a new line: a mixin candidate
                        let mut a = name_at + 1;
                        if is_punct(toks.get(a), "(") && is_punct(toks.get(a + 1), ")") {
                            a += 2;
                        }
                        if a >= end || is_sep(&toks[a]) {
                            self.mixins.insert(
                                (cur.clone(), name),
                                MixinDef {
                                    file: f.clone(),
                                    body: (a.min(end), end),
                                },
                            );
                        }
                    }
                    i = end + 1;
                }
                Tok::Ident(w)
                    if !after_dot
                        && stmt_start
                        && (w == "module_function"
                            || w == "extend" && is_ident(toks.get(i + 1), "self"))
                        && toks
                            .get(i + if w == "extend" { 2 } else { 1 })
                            .is_none_or(is_sep) =>
                {
                    if let Some(top) = stack.last_mut() {
                        top.2 = true;
                    }
                    i += 1;
                }
                Tok::Const(c)
                    if stmt_start && is_punct(toks.get(i + 1), "=") && !cur.is_empty() =>
                {
                    let mut e = i + 2;
                    while e < toks.len() && !is_sep(&toks[e]) {
                        e = match close.get(e).copied().flatten() {
                            Some(x) => x + 1,
                            None => e + 1,
                        };
                    }
                    let nesting: Vec<String> = stack.iter().map(|(_, n, _)| n.clone()).collect();
                    let value = parse_body(toks, close, i + 2, e.min(toks.len()), HashSet::new())
                        .and_then(|mut v| {
                            if v.len() == 1 {
                                Ok(v.remove(0))
                            } else {
                                Err("not one expression".into())
                            }
                        })
                        .map_err(|m| format!("{path}: {m}"));
                    self.consts.insert(
                        format!("{cur}::{c}"),
                        Arc::new(ConstDef {
                            value,
                            nesting: Arc::new(nesting),
                        }),
                    );
                    i = e;
                }
                _ => i += 1,
            }
        }
    }

    fn read_def(
        &self,
        path: &str,
        toks: &[Token],
        close: &[Option<usize>],
        name_at: usize,
        end: usize,
        nesting: Vec<String>,
    ) -> Method {
        let line = toks.get(name_at).map_or(0, |t| t.line);
        let mut params = Vec::new();
        let mut err: Option<String> = None;
        // parameter list: `(...)` or up to the end of the line
        let (pa, pb, body_start) = if is_punct(toks.get(name_at + 1), "(") {
            let c = close
                .get(name_at + 1)
                .copied()
                .flatten()
                .unwrap_or(end)
                .min(end);
            (name_at + 2, c, c + 1)
        } else {
            let mut k = name_at + 1;
            while k < end && !is_sep(&toks[k]) {
                k += 1;
            }
            (name_at + 1, k, k)
        };
        let mut names: HashSet<String> = HashSet::new();
        let mut k = pa;
        while k < pb {
            let mut e = k;
            while e < pb && !is_punct(toks.get(e), ",") {
                e = match close.get(e).copied().flatten() {
                    Some(x) => x + 1,
                    None => e + 1,
                };
            }
            while k < e && matches!(toks[k].tok, Tok::Newline) {
                k += 1;
            }
            let splat = is_punct(toks.get(k), "*");
            let n = if splat { k + 1 } else { k };
            match toks.get(n).map(|t| &t.tok) {
                Some(Tok::Ident(p)) if n < e => {
                    let default = if is_punct(toks.get(n + 1), "=") {
                        match parse_body(toks, close, n + 2, e, names.clone()) {
                            Ok(mut v) if v.len() == 1 => Some(v.remove(0)),
                            Ok(_) => {
                                err = Some(format!("default of `{p}` is not one expression"));
                                None
                            }
                            Err(m) => {
                                err = Some(m);
                                None
                            }
                        }
                    } else {
                        if n + 1 < e {
                            err = Some(format!("parameter `{p}` is not a plain name"));
                        }
                        None
                    };
                    names.insert(p.clone());
                    params.push(Param {
                        name: p.clone(),
                        default,
                        splat,
                    });
                }
                _ if k < e => {
                    err = Some("keyword, block or destructuring parameters".into());
                }
                _ => {}
            }
            k = e + 1;
        }
        let body = match err {
            Some(m) => Err(m),
            None => parse_body(toks, close, body_start.min(end), end, names),
        }
        .map_err(|m| format!("{path}: {m}"));
        Method {
            path: path.to_string(),
            line,
            params,
            body,
            nesting: Arc::new(nesting),
        }
    }
}

/// The evaluator, over a type file's own library and the helper library.
pub(crate) struct Interp<'l> {
    libs: Vec<&'l RubyLib>,
    depth: usize,
}

impl<'l> Interp<'l> {
    pub(crate) fn new(libs: Vec<&'l RubyLib>) -> Self {
        Interp { libs, depth: 0 }
    }

    fn method(&self, ns: &str, name: &str) -> Option<Arc<Method>> {
        let key = (ns.to_string(), name.to_string());
        self.libs.iter().find_map(|l| l.methods.get(&key).cloned())
    }

    fn known_ns(&self, name: &str) -> bool {
        self.libs.iter().any(|l| l.namespaces.contains(name))
    }

    fn constant(&self, name: &str) -> Option<Arc<ConstDef>> {
        self.libs.iter().find_map(|l| l.consts.get(name).cloned())
    }

    /// Evaluates the body of a method at the top level of a type file
    /// (`def self.title_patterns`): `toks[a..b]`.
    pub(crate) fn eval_body(
        &mut self,
        toks: &[Token],
        close: &[Option<usize>],
        a: usize,
        b: usize,
    ) -> Result<Val, String> {
        let body = parse_body(toks, close, a, b, HashSet::new())?;
        let mut fr = Frame {
            ns: String::new(),
            nesting: Arc::new(Vec::new()),
            locals: HashMap::new(),
        };
        match self.seq(&body, &mut fr) {
            Ok(v) | Err(Ctl::Return(v)) => Ok(v),
            Err(Ctl::Err(m)) => Err(m),
        }
    }

    fn seq(&mut self, body: &[Expr], fr: &mut Frame) -> EResult<Val> {
        let mut last = Val::Nil;
        for e in body {
            last = self.eval(e, fr)?;
        }
        Ok(last)
    }

    fn interp_str(&mut self, parts: &[Part], fr: &mut Frame, regex: bool) -> EResult<String> {
        let mut out = String::new();
        for p in parts {
            match p {
                Part::Lit(s) => out.push_str(s),
                Part::Code(body) => match self.seq(body, fr)? {
                    Val::Str(s) | Val::Sym(s) | Val::Const(s) => out.push_str(&s),
                    Val::Int(n) => out.push_str(&n.to_string()),
                    Val::Nil => {}
                    Val::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                    Val::Regex(src, o) => out.push_str(&regex_to_s(&src, o)),
                    v => {
                        return Err(Ctl::Err(format!(
                            "interpolation of {} into a {}",
                            type_name(&v),
                            if regex { "regex" } else { "string" }
                        )))
                    }
                },
            }
        }
        Ok(out)
    }

    fn resolve_const(&self, path: &[String], absolute: bool, nesting: &[String]) -> String {
        let rel = path.join("::");
        if !absolute {
            for n in nesting.iter().rev() {
                let cand = format!("{n}::{rel}");
                if self.known_ns(&cand) || self.constant(&cand).is_some() {
                    return cand;
                }
            }
        }
        rel
    }

    fn eval(&mut self, e: &Expr, fr: &mut Frame) -> EResult<Val> {
        Ok(match e {
            Expr::Nil => Val::Nil,
            Expr::Bool(b) => Val::Bool(*b),
            Expr::SelfRef => Val::Const(fr.ns.clone()),
            Expr::Int(n) => Val::Int(*n),
            Expr::Str(parts) => Val::Str(self.interp_str(parts, fr, false)?),
            Expr::Sym(s) => Val::Sym(s.clone()),
            Expr::Regex(parts, o) => Val::Regex(self.interp_str(parts, fr, true)?, *o),
            Expr::Array(items) => Val::Array(self.args(items, fr)?),
            Expr::Splat(_) => return Err(Ctl::Err("a splat outside a list".into())),
            Expr::Local(n) => fr.locals.get(n).cloned().unwrap_or(Val::Nil),
            Expr::Const(path, abs) => {
                let full = self.resolve_const(path, *abs, &fr.nesting);
                match full.as_str() {
                    "Regexp::IGNORECASE" => Val::Int(OPT_I.into()),
                    "Regexp::EXTENDED" => Val::Int(OPT_X.into()),
                    "Regexp::MULTILINE" => Val::Int(OPT_M.into()),
                    _ => match self.constant(&full) {
                        Some(c) => {
                            let expr = c.value.clone().map_err(Ctl::Err)?;
                            self.enter()?;
                            let mut f2 = Frame {
                                ns: full.rsplit_once("::").map_or("", |x| x.0).to_string(),
                                nesting: c.nesting.clone(),
                                locals: HashMap::new(),
                            };
                            let r = self.eval(&expr, &mut f2);
                            self.depth -= 1;
                            r?
                        }
                        None => Val::Const(full),
                    },
                }
            }
            Expr::Assign(n, rhs) => {
                let v = self.eval(rhs, fr)?;
                fr.locals.insert(n.clone(), v.clone());
                v
            }
            Expr::OpAssign(n, op, rhs) => {
                let cur = fr.locals.get(n).cloned().unwrap_or(Val::Nil);
                let v = if *op == "||" {
                    if truthy(&cur) {
                        cur
                    } else {
                        self.eval(rhs, fr)?
                    }
                } else {
                    let r = self.eval(rhs, fr)?;
                    binop(op, cur, r)?
                };
                fr.locals.insert(n.clone(), v.clone());
                v
            }
            Expr::Bin(op, l, r) => {
                let lv = self.eval(l, fr)?;
                match *op {
                    "&&" if !truthy(&lv) => lv,
                    "&&" => self.eval(r, fr)?,
                    "||" if truthy(&lv) => lv,
                    "||" => self.eval(r, fr)?,
                    op => {
                        let rv = self.eval(r, fr)?;
                        binop(op, lv, rv)?
                    }
                }
            }
            Expr::Not(x) => Val::Bool(!truthy(&self.eval(x, fr)?)),
            Expr::If(c, t, f) => {
                if truthy(&self.eval(c, fr)?) {
                    self.seq(t, fr)?
                } else {
                    self.seq(f, fr)?
                }
            }
            Expr::Seq(body) => self.seq(body, fr)?,
            Expr::Return(v) => {
                let v = match v {
                    Some(x) => self.eval(x, fr)?,
                    None => Val::Nil,
                };
                return Err(Ctl::Return(v));
            }
            Expr::Lambda(b) => Val::Proc(ProcVal {
                block: b.clone(),
                captured: fr.locals.clone(),
                nesting: fr.nesting.clone(),
            }),
            Expr::Index(x, idx) => {
                let v = self.eval(x, fr)?;
                let idx = self.args(idx, fr)?;
                index(v, &idx)?
            }
            Expr::Call {
                recv,
                name,
                args,
                block,
                line,
            } => {
                let recv_v = match recv {
                    Some(r) => Some(self.eval(r, fr)?),
                    None => None,
                };
                let argv = self.args(args, fr)?;
                self.call(recv_v, name, argv, block.as_deref(), *line, fr)
                    .map_err(|c| match c {
                        Ctl::Err(m) if !m.starts_with("line ") && !m.contains(".rb") => {
                            Ctl::Err(format!("line {line}: {m}"))
                        }
                        c => c,
                    })?
            }
        })
    }

    fn enter(&mut self) -> EResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(Ctl::Err("calls nested too deeply".into()));
        }
        Ok(())
    }

    fn args(&mut self, items: &[Expr], fr: &mut Frame) -> EResult<Vec<Val>> {
        let mut out = Vec::new();
        for it in items {
            match it {
                Expr::Splat(x) => match self.eval(x, fr)? {
                    Val::Array(a) => out.extend(a),
                    Val::Nil => {}
                    v => out.push(v),
                },
                x => out.push(self.eval(x, fr)?),
            }
        }
        Ok(out)
    }

    fn call_proc(&mut self, p: &ProcVal, args: Vec<Val>) -> EResult<Val> {
        self.enter()?;
        let mut locals = p.captured.clone();
        let one_array = args.len() == 1 && p.block.params.len() > 1;
        let args = match (one_array, args) {
            (true, mut a) => match a.remove(0) {
                Val::Array(items) => items,
                v => vec![v],
            },
            (false, a) => a,
        };
        for (i, name) in p.block.params.iter().enumerate() {
            locals.insert(name.clone(), args.get(i).cloned().unwrap_or(Val::Nil));
        }
        let mut fr = Frame {
            ns: String::new(),
            nesting: p.nesting.clone(),
            locals,
        };
        let r = self.seq(&p.block.body, &mut fr);
        self.depth -= 1;
        match r {
            Ok(v) => Ok(v),
            // `return` in a lambda returns from it
            Err(Ctl::Return(v)) => Ok(v),
            Err(e) => Err(e),
        }
    }

    fn call_method(&mut self, m: &Method, ns: &str, args: Vec<Val>) -> EResult<Val> {
        let body = m.body.as_ref().map_err(|e| Ctl::Err(e.clone()))?;
        self.enter()?;
        let mut fr = Frame {
            ns: ns.to_string(),
            nesting: m.nesting.clone(),
            locals: HashMap::new(),
        };
        let required = m
            .params
            .iter()
            .filter(|p| p.default.is_none() && !p.splat)
            .count();
        let optional = m.params.iter().filter(|p| p.default.is_some()).count();
        let has_splat = m.params.iter().any(|p| p.splat);
        if args.len() < required || (!has_splat && args.len() > required + optional) {
            self.depth -= 1;
            return Err(Ctl::Err(format!(
                "{}:{}: wrong number of arguments (given {}, expected {required})",
                m.path,
                m.line,
                args.len()
            )));
        }
        // Ruby's binding: required first, then optionals in order, the rest to the splat
        let mut optional_left = (args.len() - required).min(optional);
        let mut splat_left = args.len() - required - optional_left;
        let mut it = args.into_iter();
        let mut result = Ok(());
        for p in &m.params {
            if p.splat {
                let v: Vec<Val> = it.by_ref().take(splat_left).collect();
                splat_left = 0;
                fr.locals.insert(p.name.clone(), Val::Array(v));
            } else if let Some(d) = &p.default {
                if optional_left > 0 {
                    optional_left -= 1;
                    let v = it.next().unwrap_or(Val::Nil);
                    fr.locals.insert(p.name.clone(), v);
                } else {
                    match self.eval(d, &mut fr) {
                        Ok(v) => {
                            fr.locals.insert(p.name.clone(), v);
                        }
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
            } else {
                let v = it.next().unwrap_or(Val::Nil);
                fr.locals.insert(p.name.clone(), v);
            }
        }
        let r = match result {
            Ok(()) => self.seq(body, &mut fr),
            Err(e) => Err(e),
        };
        self.depth -= 1;
        match r {
            Ok(v) | Err(Ctl::Return(v)) => Ok(v),
            Err(Ctl::Err(m2)) if m2.contains(".rb") => Err(Ctl::Err(m2)),
            Err(Ctl::Err(m2)) => Err(Ctl::Err(format!("{}: {m2}", m.path))),
        }
    }

    fn call(
        &mut self,
        recv: Option<Val>,
        name: &str,
        args: Vec<Val>,
        block: Option<&Block>,
        _line: u32,
        fr: &mut Frame,
    ) -> EResult<Val> {
        let ns = match &recv {
            None => Some(fr.ns.clone()),
            Some(Val::Const(c)) => Some(c.clone()),
            _ => None,
        };
        if let Some(ns) = &ns {
            if let Some(m) = self.method(ns, name) {
                return self.call_method(&m, ns, args);
            }
        }
        let proc_of = |b: Option<&Block>, fr: &Frame| {
            b.map(|b| ProcVal {
                block: Arc::new(b.clone()),
                captured: fr.locals.clone(),
                nesting: fr.nesting.clone(),
            })
        };
        match (recv, name) {
            (None, "raise" | "fail") => {
                let what: Vec<String> = args
                    .iter()
                    .map(|a| match a {
                        Val::Str(s) => format!("{s:?}"),
                        Val::Const(c) => c.clone(),
                        v => type_name(v).to_string(),
                    })
                    .collect();
                Err(Ctl::Err(format!("raises {}", what.join(", "))))
            }
            (None, "lambda" | "proc") => match proc_of(block, fr) {
                Some(p) => Ok(Val::Proc(p)),
                None => Err(Ctl::Err(format!("`{name}` without a block"))),
            },
            (None, "require" | "require_relative") => Ok(Val::Bool(true)),
            (None, n) => Err(Ctl::Err(format!(
                "unknown method `{n}`{}",
                if fr.ns.is_empty() {
                    String::new()
                } else {
                    format!(" in {}", fr.ns)
                }
            ))),
            (Some(Val::Const(c)), n) if c == "Regexp" => match (n, args.as_slice()) {
                ("new" | "compile", [Val::Regex(s, o)]) => Ok(Val::Regex(s.clone(), *o)),
                ("new" | "compile", [Val::Str(s)]) => Ok(Val::Regex(s.clone(), 0)),
                ("new" | "compile", [Val::Str(s), opt]) => {
                    let o = match opt {
                        Val::Int(i) => (*i as u8) & (OPT_I | OPT_X | OPT_M),
                        v if truthy(v) => OPT_I,
                        _ => 0,
                    };
                    Ok(Val::Regex(s.clone(), o))
                }
                ("escape" | "quote", [Val::Str(s) | Val::Sym(s)]) => Ok(Val::Str(regex_escape(s))),
                _ => Err(Ctl::Err(format!(
                    "`Regexp.{n}` with these arguments is not supported"
                ))),
            },
            (Some(Val::Const(c)), n) => Err(Ctl::Err(format!(
                "unknown method `{c}.{n}` (no helper file defines it)"
            ))),
            (Some(Val::Proc(p)), "call" | "()" | "yield") => self.call_proc(&p, args),
            (Some(v), n) => {
                let blk = proc_of(block, fr);
                self.value_method(v, n, args, blk)
            }
        }
    }

    fn value_method(
        &mut self,
        v: Val,
        name: &str,
        args: Vec<Val>,
        blk: Option<ProcVal>,
    ) -> EResult<Val> {
        let unsupported = |v: &Val| {
            Err(Ctl::Err(format!(
                "the method `{name}` of {} is not supported",
                type_name(v)
            )))
        };
        Ok(match (&v, name, args.as_slice()) {
            (_, "freeze" | "dup" | "clone" | "itself", []) => v,
            (_, "nil?", []) => Val::Bool(v == Val::Nil),
            (_, "==" | "eql?" | "equal?", [o]) => Val::Bool(&v == o),
            (_, "!=", [o]) => Val::Bool(&v != o),
            (_, "is_a?" | "kind_of?", [Val::Const(c)]) => Val::Bool(matches!(
                (&v, c.as_str()),
                (Val::Array(_), "Array")
                    | (Val::Str(_), "String")
                    | (Val::Sym(_), "Symbol")
                    | (Val::Regex(..), "Regexp")
                    | (Val::Int(_), "Integer" | "Numeric")
                    | (Val::Nil, "NilClass")
                    | (Val::Proc(_), "Proc")
                    | (_, "Object" | "BasicObject")
            )),
            (Val::Nil, "to_s", []) => Val::Str(String::new()),
            (Val::Nil, "to_a", []) => Val::Array(vec![]),
            (Val::Str(s), "to_s" | "to_str", []) => Val::Str(s.clone()),
            (Val::Str(s) | Val::Sym(s), "to_sym" | "intern", []) => Val::Sym(s.clone()),
            (Val::Sym(s), "to_s" | "id2name" | "name", []) => Val::Str(s.clone()),
            (Val::Int(n), "to_s", []) => Val::Str(n.to_string()),
            (Val::Str(s), "empty?", []) => Val::Bool(s.is_empty()),
            (Val::Str(s), "length" | "size", []) => Val::Int(s.chars().count() as i64),
            (Val::Str(s), "upcase", []) => Val::Str(s.to_uppercase()),
            (Val::Str(s), "downcase", []) => Val::Str(s.to_lowercase()),
            (Val::Regex(s, _), "source", []) => Val::Str(s.clone()),
            (Val::Regex(s, o), "to_s", []) => Val::Str(regex_to_s(s, *o)),
            (Val::Regex(_, o), "options", []) => Val::Int((*o).into()),
            (Val::Array(a), "empty?", []) => Val::Bool(a.is_empty()),
            (Val::Array(a), "any?", []) => Val::Bool(a.iter().any(truthy)),
            (Val::Array(a), "count" | "length" | "size", []) => Val::Int(a.len() as i64),
            (Val::Array(a), "first", []) => a.first().cloned().unwrap_or(Val::Nil),
            (Val::Array(a), "last", []) => a.last().cloned().unwrap_or(Val::Nil),
            (Val::Array(a), "include?", [x]) => Val::Bool(a.contains(x)),
            (Val::Array(a), "compact", []) => {
                Val::Array(a.iter().filter(|x| **x != Val::Nil).cloned().collect())
            }
            (Val::Array(a), "flatten", []) => {
                fn flat(a: &[Val], out: &mut Vec<Val>) {
                    for x in a {
                        match x {
                            Val::Array(b) => flat(b, out),
                            x => out.push(x.clone()),
                        }
                    }
                }
                let mut out = Vec::new();
                flat(a, &mut out);
                Val::Array(out)
            }
            (Val::Array(a), "reverse", []) => Val::Array(a.iter().rev().cloned().collect()),
            (Val::Array(a), "to_a" | "entries", []) => Val::Array(a.clone()),
            (Val::Array(a), "map" | "collect", []) => {
                let Some(p) = blk else {
                    return unsupported(&v);
                };
                let mut out = Vec::with_capacity(a.len());
                for x in a.clone() {
                    out.push(self.call_proc(&p, vec![x])?);
                }
                Val::Array(out)
            }
            (Val::Array(a), "join", [sep]) => {
                let sep = match sep {
                    Val::Str(s) => s.clone(),
                    _ => return unsupported(&v),
                };
                let mut parts = Vec::new();
                for x in a {
                    parts.push(match x {
                        Val::Str(s) | Val::Sym(s) => s.clone(),
                        Val::Int(n) => n.to_string(),
                        Val::Regex(s, o) => regex_to_s(s, *o),
                        Val::Nil => String::new(),
                        _ => return unsupported(&v),
                    });
                }
                Val::Str(parts.join(&sep))
            }
            (_, "+" | "-" | "|" | "<<", [o]) => binop(op_static(name), v.clone(), o.clone())?,
            (_, "[]", idx) => index(v.clone(), idx)?,
            _ => return unsupported(&v),
        })
    }
}

fn op_static(name: &str) -> &'static str {
    match name {
        "+" => "+",
        "-" => "-",
        "|" => "|",
        _ => "<<",
    }
}

fn binop(op: &str, l: Val, r: Val) -> EResult<Val> {
    Ok(match (op, l, r) {
        ("==", l, r) => Val::Bool(l == r),
        ("!=", l, r) => Val::Bool(l != r),
        ("+", Val::Int(a), Val::Int(b)) => Val::Int(a.wrapping_add(b)),
        ("-", Val::Int(a), Val::Int(b)) => Val::Int(a.wrapping_sub(b)),
        ("|", Val::Int(a), Val::Int(b)) => Val::Int(a | b),
        ("<", Val::Int(a), Val::Int(b)) => Val::Bool(a < b),
        (">", Val::Int(a), Val::Int(b)) => Val::Bool(a > b),
        ("<=", Val::Int(a), Val::Int(b)) => Val::Bool(a <= b),
        (">=", Val::Int(a), Val::Int(b)) => Val::Bool(a >= b),
        ("+", Val::Str(a), Val::Str(b)) => Val::Str(a + &b),
        ("<<", Val::Str(a), Val::Str(b)) => Val::Str(a + &b),
        ("+", Val::Array(mut a), Val::Array(b)) => {
            a.extend(b);
            Val::Array(a)
        }
        ("-", Val::Array(a), Val::Array(b)) => {
            Val::Array(a.into_iter().filter(|x| !b.contains(x)).collect())
        }
        ("|", Val::Array(mut a), Val::Array(b)) => {
            for x in b {
                if !a.contains(&x) {
                    a.push(x);
                }
            }
            Val::Array(a)
        }
        ("<<", Val::Array(mut a), x) => {
            a.push(x);
            Val::Array(a)
        }
        (op, l, r) => {
            return Err(Ctl::Err(format!(
                "`{op}` on {} and {}",
                type_name(&l),
                type_name(&r)
            )))
        }
    })
}

fn index(v: Val, idx: &[Val]) -> EResult<Val> {
    match (&v, idx) {
        (Val::Array(a), [Val::Int(i)]) => {
            let n = a.len() as i64;
            let i = if *i < 0 { n + i } else { *i };
            Ok(if (0..n).contains(&i) {
                a[i as usize].clone()
            } else {
                Val::Nil
            })
        }
        (Val::Array(a), [Val::Int(s), Val::Int(l)]) => {
            let n = a.len() as i64;
            let s = if *s < 0 { n + s } else { *s };
            if s < 0 || s > n || *l < 0 {
                return Ok(Val::Nil);
            }
            let e = s.saturating_add(*l).min(n);
            Ok(Val::Array(a[s as usize..e as usize].to_vec()))
        }
        _ => Err(Ctl::Err(format!(
            "indexing {} with {}",
            type_name(&v),
            idx.iter().map(type_name).collect::<Vec<_>>().join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval_src(lib_src: &str, body: &str) -> Result<Val, String> {
        let mut lib = RubyLib::default();
        lib.add_file("lib/puppet_x/h.rb", lib_src);
        let toks = tokenize(body);
        let close = match_blocks(&toks);
        Interp::new(vec![&lib]).eval_body(&toks, &close, 0, toks.len())
    }

    #[test]
    fn regex_to_s_is_rubys() {
        // checked with ruby 3.1: Regexp#to_s
        assert_eq!(regex_to_s("[^/]+", 0), "(?-mix:[^\\/]+)");
        assert_eq!(regex_to_s("x", OPT_M | OPT_I), "(?mi-x:x)");
        assert_eq!(regex_to_s("(?:[^:]|:[^:])+", 0), "(?-mix:(?:[^:]|:[^:])+)");
        assert_eq!(regex_to_s("(?:a|b)", 0), "(?-mix:a|b)");
        assert_eq!(regex_to_s("(?i:a)", 0), "(?i-mx:a)");
        assert_eq!(regex_to_s("(?:a)|(b)", 0), "(?-mix:(?:a)|(b))");
        assert_eq!(regex_to_s("a\\/b", 0), "(?-mix:a\\/b)");
    }

    #[test]
    fn helper_with_defaults_splat_and_interpolation() {
        let lib = r#"
module PuppetX
  module H
    def self.word
      Regexp.new(/\w+/)
    end
    def self.split(a, b, sep = '::', *res)
      rs = []
      if res.empty? and sep == '::'
        rs += [word, word]
      elsif res.count != 2
        raise(Puppet::DevError, 'two')
      else
        rs += res
      end
      [[/^(#{rs[0]})#{sep}(#{rs[1]})$/, [[a], [b]]], [/^(#{rs[0]})$/, [[a]]]]
    end
  end
end
"#;
        let v = eval_src(lib, "PuppetX::H.split(:name, :type)").unwrap();
        let Val::Array(ps) = v else { panic!() };
        assert_eq!(
            ps[0],
            Val::Array(vec![
                Val::Regex("^((?-mix:\\w+))::((?-mix:\\w+))$".into(), 0),
                Val::Array(vec![
                    Val::Array(vec![Val::Sym("name".into())]),
                    Val::Array(vec![Val::Sym("type".into())])
                ])
            ])
        );
        let v = eval_src(lib, "PuppetX::H.split(:a, :b, '/', /x/, /y/m)").unwrap();
        let Val::Array(ps) = v else { panic!() };
        let Val::Array(p0) = &ps[0] else { panic!() };
        assert_eq!(p0[0], Val::Regex("^((?-mix:x))/((?m-ix:y))$".into(), 0));
        let e = eval_src(lib, "PuppetX::H.split(:a, :b, '/', /x/)").unwrap_err();
        assert!(e.contains("raises Puppet::DevError"), "{e}");
        let e = eval_src(lib, "PuppetX::H.nope").unwrap_err();
        assert!(e.contains("unknown method `PuppetX::H.nope`"), "{e}");
    }

    #[test]
    fn locals_lambdas_and_constants() {
        let lib = "module M\n  SEP = '@'\n  class << self\n    def f(x)\n      x.map { |s| [s] }\n    end\n  end\nend\n";
        let v = eval_src(
            lib,
            "id = lambda { |x| x }\nr = Regexp.new('a' + M::SEP)\n[r.source, M.f([:a, :b]), id.call(3), (1 if false), (2 unless false)]",
        )
        .unwrap();
        assert_eq!(
            v,
            Val::Array(vec![
                Val::Str("a@".into()),
                Val::Array(vec![
                    Val::Array(vec![Val::Sym("a".into())]),
                    Val::Array(vec![Val::Sym("b".into())])
                ]),
                Val::Int(3),
                Val::Nil,
                Val::Int(2),
            ])
        );
        assert!(eval_src("", "while true do end").is_err());
        assert!(eval_src("", "{ :a => 1 }").is_err());
        // unbounded recursion is cut
        let e = eval_src("module R\n  def self.f\n    f\n  end\nend\n", "R.f").unwrap_err();
        assert!(e.contains("nested too deeply"), "{e}");
    }
}
