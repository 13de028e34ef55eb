//! The parser: a recursive-descent parser for the Ruby subset of module files and templates,
//! with Ruby's operator precedence (`not`/`and`/`or` below assignment, `!`/`&&`/`||` above
//! it), modifiers, blocks, command calls without parentheses, `def` with every parameter
//! kind, `class`/`module`/`class << self`, `yield`/`super`, lambdas, heredocs (from the
//! lexer) and multiple assignment.
//!
//! Like Ruby, it decides at parse time whether a bare identifier is a local variable (it was
//! assigned before, or is a block or method parameter) or a method call. Constructs outside
//! the subset produce an error flagged as unsupported, so the caller can tell "Ruby would
//! reject this" from "we do not implement this". Nesting depth is bounded, so no input can
//! overflow the stack.

use crate::ast::{
    Block, Def, HashItem, HashRest, InClause, Kind, ModuleBody, Node, Param, Params, Part, Pat,
    Program, Rescue,
};
use crate::lexer::{StrPart, Tok, Token};
use crate::Pos;
use std::sync::Arc;

/// A parse (or lex) error.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// Where.
    pub pos: Pos,
    /// Ruby's kind of message (`unexpected ...`), or the unsupported construct.
    pub message: String,
    /// True when Ruby would accept the code but this engine does not implement it.
    pub unsupported: bool,
}

impl From<crate::lexer::LexError> for ParseError {
    fn from(e: crate::lexer::LexError) -> Self {
        ParseError {
            pos: e.pos,
            message: e.message,
            unsupported: e.unsupported,
        }
    }
}

type PResult<T> = Result<T, ParseError>;

const MAX_DEPTH: usize = 1000;

/// Parses a whole Ruby source file.
///
/// ```
/// let p = puppet_ruby::parser::parse_file("x = `ls`\ny = %x(ls)\n", "m.rb");
/// assert!(p.is_ok()); // commands parse; running one is an error
/// let p = puppet_ruby::parser::parse_file("case x\nin [a]\n  a\nend\n", "m.rb");
/// assert!(p.is_ok()); // pattern matching
/// let p = puppet_ruby::parser::parse_file("module M\n  def self.x(a, *b, k: 1, &blk)\n    yield a\n  end\nend\n", "m.rb").unwrap();
/// assert_eq!(p.body.len(), 1);
/// ```
pub fn parse_file(text: &str, file: &str) -> PResult<Program> {
    let toks = crate::lexer::lex_file(text)?;
    let frozen = frozen_literal_comment(text);
    let mut p = parse_program_with(toks, file, false, frozen)?;
    p.frozen_literals = frozen;
    Ok(p)
}

/// Whether the comment lines at the top of a file hold `frozen_string_literal: true`.
fn frozen_literal_comment(text: &str) -> bool {
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let Some(c) = t.strip_prefix('#') else {
            return false;
        };
        let c = c
            .trim()
            .trim_start_matches("-*-")
            .trim_end_matches("-*-")
            .trim();
        if let Some((k, v)) = c.split_once(':') {
            if k.trim().eq_ignore_ascii_case("frozen_string_literal") {
                return v.trim().eq_ignore_ascii_case("true");
            }
        }
    }
    false
}

/// In a condition (also under `!`, `not`, `and`, `or`), Ruby gives a regular expression
/// literal and a range literal other meanings: a match against `$_`, a flip-flop. Neither is
/// implemented, so both are unsupported rather than silently truthy.
fn check_cond(c: &Node) -> PResult<()> {
    let what = match &c.kind {
        Kind::Regex(..) => "a regular expression literal as a condition (matched against $_)",
        Kind::Range(..) => "a range literal as a condition (a flip-flop)",
        Kind::Not(x) => return check_cond(x),
        Kind::And(a, b) | Kind::Or(a, b) => {
            check_cond(a)?;
            return check_cond(b);
        }
        Kind::Seq(xs) if xs.len() == 1 => return check_cond(&xs[0]),
        _ => return Ok(()),
    };
    Err(ParseError {
        pos: c.pos,
        message: what.to_string(),
        unsupported: true,
    })
}

/// Where a `break` or `next` is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum JumpCtx {
    /// A template's own code (run by `eval`).
    Template,
    /// A file's top level or a class body.
    Top,
    /// A `def` body outside any loop or block.
    Def,
    /// A `while`/`until`/`for` body or a block: jumps are fine.
    Loop,
}

/// Checks of the whole tree after parsing. Ruby refuses to compile `break` and `next` outside
/// a loop or a block ("Can't escape from eval with break" in a template's code, "Invalid
/// break" elsewhere), so the whole file fails even when the statement is never reached; so do
/// we. Conditions are checked with [`check_cond`].
fn check_jumps(nodes: &[Node], ctx: JumpCtx) -> PResult<()> {
    nodes.iter().try_for_each(|n| check_jump(n, ctx))
}

fn check_items(items: &[HashItem], ctx: JumpCtx) -> PResult<()> {
    items.iter().try_for_each(|i| match i {
        HashItem::Pair(k, v) => {
            check_jump(k, ctx)?;
            check_jump(v, ctx)
        }
        HashItem::Splat(x) => check_jump(x, ctx),
    })
}

fn check_params(p: &Params) -> PResult<()> {
    for (_, d) in &p.optional {
        check_jump(d, JumpCtx::Def)?;
    }
    for d in p.keywords.iter().filter_map(|(_, d)| d.as_ref()) {
        check_jump(d, JumpCtx::Def)?;
    }
    Ok(())
}

fn check_jump(n: &Node, ctx: JumpCtx) -> PResult<()> {
    let one = |x: &Node| check_jump(x, ctx);
    let parts = |ps: &[Part]| {
        ps.iter().try_for_each(|p| match p {
            Part::Lit(_) => Ok(()),
            Part::Code(c) => check_jumps(c, ctx),
        })
    };
    let opt = |x: &Option<Box<Node>>| x.as_deref().map_or(Ok(()), one);
    match &n.kind {
        Kind::Next(_) | Kind::Break(_) | Kind::Redo if ctx != JumpCtx::Loop => {
            let what = match n.kind {
                Kind::Next(_) => "next",
                Kind::Break(_) => "break",
                _ => "redo",
            };
            Err(ParseError {
                pos: n.pos,
                message: if ctx == JumpCtx::Template {
                    format!("Can't escape from eval with {what}")
                } else {
                    format!("Invalid {what}")
                },
                unsupported: false,
            })
        }
        Kind::Next(v) | Kind::Break(v) | Kind::Return(v) => opt(v),
        Kind::Str(ps) | Kind::Sym(ps) | Kind::Regex(ps, _) | Kind::XStr(ps) => parts(ps),
        Kind::Array(xs) | Kind::Seq(xs) | Kind::Insert(xs) | Kind::Yield(xs) | Kind::Mlhs(xs) => {
            check_jumps(xs, ctx)
        }
        Kind::Hash(items) | Kind::KwArgs(items) => check_items(items, ctx),
        Kind::Range(a, b, _)
        | Kind::And(a, b)
        | Kind::Or(a, b)
        | Kind::Assign(a, b)
        | Kind::OpAssign(a, _, b)
        | Kind::RescueMod(a, b) => {
            one(a)?;
            one(b)
        }
        Kind::Const(Some(a), _) | Kind::Splat(a) | Kind::Not(a) | Kind::Defined(a) => one(a),
        Kind::Call {
            recv,
            args,
            block,
            block_arg,
            ..
        } => {
            opt(recv)?;
            check_jumps(args, ctx)?;
            opt(block_arg)?;
            match block {
                Some(b) => {
                    check_params(&b.params)?;
                    check_jumps(&b.body, JumpCtx::Loop)
                }
                None => Ok(()),
            }
        }
        Kind::Super {
            args,
            block,
            block_arg,
        } => {
            if let Some(a) = args {
                check_jumps(a, ctx)?;
            }
            opt(block_arg)?;
            match block {
                Some(b) => check_jumps(&b.body, JumpCtx::Loop),
                None => Ok(()),
            }
        }
        Kind::Lambda(b) => {
            check_params(&b.params)?;
            check_jumps(&b.body, JumpCtx::Loop)
        }
        Kind::MultiAssign(xs, v) => {
            check_jumps(xs, ctx)?;
            one(v)
        }
        Kind::If(c, a, b) => {
            check_cond(c)?;
            one(c)?;
            check_jumps(a, ctx)?;
            check_jumps(b, ctx)
        }
        Kind::While { cond, body, .. } => {
            check_cond(cond)?;
            one(cond)?;
            check_jumps(body, JumpCtx::Loop)
        }
        Kind::For(_, e, body) => {
            one(e)?;
            check_jumps(body, JumpCtx::Loop)
        }
        Kind::CaseIn(subject, clauses, other) => {
            one(subject)?;
            for c in clauses {
                if let Some((_, g)) = &c.guard {
                    one(g)?;
                }
                check_jumps(&c.body, ctx)?;
            }
            other.as_deref().map_or(Ok(()), |o| check_jumps(o, ctx))
        }
        Kind::Case(subject, whens, other) => {
            opt(subject)?;
            for (tests, body) in whens {
                check_jumps(tests, ctx)?;
                check_jumps(body, ctx)?;
            }
            other.as_deref().map_or(Ok(()), |o| check_jumps(o, ctx))
        }
        Kind::Begin(body, rescues, other, ensure) => {
            check_jumps(body, ctx)?;
            for r in rescues {
                check_jumps(&r.classes, ctx)?;
                check_jumps(&r.body, ctx)?;
            }
            other.as_deref().map_or(Ok(()), |o| check_jumps(o, ctx))?;
            ensure.as_deref().map_or(Ok(()), |o| check_jumps(o, ctx))
        }
        Kind::Def(recv, d) => {
            opt(recv)?;
            check_params(&d.params)?;
            check_jumps(&d.body, JumpCtx::Def)
        }
        Kind::Class(m) | Kind::Module(m) => {
            one(&m.path)?;
            m.superclass.as_ref().map_or(Ok(()), one)?;
            let inner = if ctx == JumpCtx::Template {
                ctx
            } else {
                JumpCtx::Top
            };
            check_jumps(&m.body, inner)
        }
        Kind::SClass(t, body) => {
            one(t)?;
            check_jumps(body, JumpCtx::Top)
        }
        Kind::Nil
        | Kind::True
        | Kind::False
        | Kind::SelfRef
        | Kind::Int(_)
        | Kind::Big(_)
        | Kind::Float(_)
        | Kind::LVar(_)
        | Kind::IVar(_)
        | Kind::GVar(_)
        | Kind::CVar(_)
        | Kind::NthRef(_)
        | Kind::Const(None, _)
        | Kind::TopConst(_)
        | Kind::Retry
        | Kind::Redo
        | Kind::Alias(..)
        | Kind::Undef(_)
        | Kind::CurrentMethod
        | Kind::Put(_) => Ok(()),
    }
}

/// An element of an array pattern: a pattern or a splat (`*name`, `*`).
enum PatElem {
    Pat(Pat),
    Splat(Option<String>),
}

/// The parser state.
#[derive(Debug)]
pub struct Parser {
    toks: Vec<Token>,
    i: usize,
    locals: Locals,
    depth: usize,
    no_do: usize,
    /// Whether the last consumed token was a `name?` or `name!` identifier.
    prev_pred: bool,
    file: Arc<str>,
    /// Parsing a template (jumps read as in `eval`).
    template: bool,
    /// `__FILE__` is the template wrapper's `file` (a Puppet template).
    wrapper_file: bool,
    /// Inside an argument list, array or hash literal: `a = 1, 2` is not a multiple value.
    args_level: usize,
    /// Parsing a block parameter's default: `|` ends it.
    no_pipe: bool,
    /// `# frozen_string_literal: true`.
    frozen_literals: bool,
}

/// Parses the tokens of a file (or, with `template`, of a template) into a program.
pub fn parse_program(toks: Vec<Token>, file: &str, template: bool) -> PResult<Program> {
    parse_program_with(toks, file, template, false)
}

/// Parses Ruby code given to `eval`, `instance_eval` or `class_eval` as a string: `locals`
/// are the local variables of the calling code (the string sees them, as Ruby's eval does),
/// `line` the line the code's first line is reported at.
pub(crate) fn parse_eval(text: &str, file: &str, line: u32, locals: &[String]) -> PResult<Program> {
    let mut toks = crate::lexer::lex_file(text)?;
    if line != 1 {
        for t in &mut toks {
            t.pos.line = t.pos.line.saturating_add(line).saturating_sub(1);
        }
    }
    let frozen = frozen_literal_comment(text);
    let mut known = Locals::new();
    for l in locals {
        known.declare(l);
    }
    let mut p = parse_program_inner(toks, file, false, false, frozen, known)?;
    p.frozen_literals = frozen;
    Ok(p)
}

/// Parses an ERB template run from Ruby code (`ERB#result`): `pieces` from
/// [`crate::erb::scan`], `locals` the variables of the binding it runs in, `line` the line its
/// first line is reported at.
pub(crate) fn parse_template_eval(
    pieces: Vec<crate::Piece>,
    file: &str,
    line: u32,
    locals: &[String],
) -> PResult<Program> {
    let mut toks = crate::lexer::lex_pieces(pieces)?;
    if line != 1 {
        for t in &mut toks {
            t.pos.line = t.pos.line.saturating_add(line).saturating_sub(1);
        }
    }
    let mut known = Locals::new();
    for l in locals {
        known.declare(l);
    }
    parse_program_inner(toks, file, true, false, false, known)
}

fn parse_program_with(
    toks: Vec<Token>,
    file: &str,
    template: bool,
    frozen_literals: bool,
) -> PResult<Program> {
    parse_program_inner(
        toks,
        file,
        template,
        template,
        frozen_literals,
        Locals::new(),
    )
}

fn parse_program_inner(
    toks: Vec<Token>,
    file: &str,
    template: bool,
    wrapper_file: bool,
    frozen_literals: bool,
    locals: Locals,
) -> PResult<Program> {
    let mut p = Parser {
        toks,
        i: 0,
        locals,
        depth: 0,
        no_do: 0,
        prev_pred: false,
        file: Arc::from(file),
        template,
        wrapper_file,
        args_level: 0,
        no_pipe: false,
        frozen_literals,
    };
    let body = p.stmts(&[])?;
    if !p.at_eof() {
        return p.fail(format!("unexpected {}", p.describe()));
    }
    check_jumps(
        &body,
        if template {
            JumpCtx::Template
        } else {
            JumpCtx::Top
        },
    )?;
    Ok(Program {
        file: p.file.clone(),
        body,
        frozen_literals,
    })
}

/// The local variables known while parsing, scope by scope. A block's scope sees the
/// names of the scopes around it up to the nearest method, class or module body (a hard
/// scope), and the names it declares go when it ends.
///
/// The names of all open scopes are one vector, innermost last, so that the names a scope
/// sees are one slice of it (from the start of the nearest hard scope) and opening a scope
/// allocates nothing. A scope holds a few names: a scan of them costs less than hashing.
#[derive(Debug, Default)]
struct Locals {
    /// The names declared in the open scopes, in order.
    names: Vec<String>,
    /// Per open scope: where its names start in `names`, and where the names it sees start
    /// (its own start when it is hard, else its parent's).
    scopes: Vec<(usize, usize)>,
}

impl Locals {
    fn new() -> Locals {
        Locals {
            names: Vec::new(),
            scopes: vec![(0, 0)],
        }
    }
    fn contains(&self, name: &str) -> bool {
        match self.scopes.last() {
            Some(&(_, seen)) => self.names[seen..].iter().any(|n| n == name),
            None => false,
        }
    }
    fn declare(&mut self, name: &str) {
        if !self.scopes.is_empty() && !self.contains(name) {
            self.names.push(name.to_string());
        }
    }
    fn push(&mut self, hard: bool) {
        let start = self.names.len();
        let seen = match self.scopes.last() {
            Some(&(_, seen)) if !hard => seen,
            _ => start,
        };
        self.scopes.push((start, seen));
    }
    fn pop(&mut self) {
        if let Some((start, _)) = self.scopes.pop() {
            self.names.truncate(start);
        }
    }
}

/// Whether an identifier ends in `?` or `!` (a byte test: both are ASCII).
#[inline]
fn is_predicate_name(name: &str) -> bool {
    matches!(name.as_bytes().last(), Some(b'?' | b'!'))
}

#[inline]
fn is_kw(t: &Tok, kw: &str) -> bool {
    matches!(t, Tok::Ident(k) if k == kw)
}

fn node(kind: Kind, pos: Pos) -> Node {
    Node { kind, pos }
}

impl Parser {
    #[inline]
    fn peek(&self) -> &Tok {
        self.toks.get(self.i).map(|t| &t.tok).unwrap_or(&Tok::Eof)
    }
    #[inline]
    fn peek_tok(&self) -> Option<&Token> {
        self.toks.get(self.i)
    }
    #[inline]
    fn peek_n(&self, n: usize) -> &Tok {
        self.toks
            .get(self.i + n)
            .map(|t| &t.tok)
            .unwrap_or(&Tok::Eof)
    }
    #[inline]
    fn pos(&self) -> Pos {
        self.toks
            .get(self.i)
            .or_else(|| self.toks.last())
            .map(|t| t.pos)
            .unwrap_or_default()
    }
    #[inline]
    fn space_before(&self) -> bool {
        self.toks.get(self.i).is_some_and(|t| t.space_before)
    }
    #[inline]
    fn space_before_n(&self, n: usize) -> bool {
        self.toks.get(self.i + n).is_some_and(|t| t.space_before)
    }
    /// Consumes the current token. Tokens are moved out, not cloned: the parser never looks
    /// at a consumed token again (only whether it was a `name?`/`name!`, kept aside).
    fn bump(&mut self) -> Tok {
        let Some(t) = self.toks.get_mut(self.i) else {
            return Tok::Eof;
        };
        self.i += 1;
        let tok = std::mem::replace(&mut t.tok, Tok::Eof);
        self.prev_pred = matches!(&tok, Tok::Ident(n) if is_predicate_name(n));
        tok
    }
    /// Consumes the current token without taking it (it is dropped with the others).
    #[inline]
    fn skip(&mut self) {
        let Some(t) = self.toks.get(self.i) else {
            return;
        };
        self.i += 1;
        self.prev_pred = matches!(&t.tok, Tok::Ident(n) if is_predicate_name(n));
    }
    #[inline]
    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }
    #[inline]
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }
    #[inline]
    fn is_kw(&self, kw: &str) -> bool {
        is_kw(self.peek(), kw)
    }
    #[inline]
    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.skip();
            true
        } else {
            false
        }
    }
    #[inline]
    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.skip();
            true
        } else {
            false
        }
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::Eof => {
                if self.template {
                    "end of template".into()
                } else {
                    "end-of-input".into()
                }
            }
            Tok::Op(o) => format!("`{o}'"),
            Tok::Ident(i) | Tok::Const(i) => format!("`{i}'"),
            Tok::Nl => "line break".into(),
            Tok::Semi => "`;'".into(),
            Tok::Put(_) => "template text".into(),
            Tok::InsertBegin => "`<%='".into(),
            Tok::InsertEnd => "`%>'".into(),
            Tok::Label(l) => format!("label `{l}:'"),
            Tok::Str(_) => "string literal".into(),
            Tok::Int(_) | Tok::Big(_) | Tok::Float(_) => "number".into(),
            _ => "token".into(),
        }
    }
    fn fail<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            pos: self.pos(),
            message: msg.into(),
            unsupported: false,
        })
    }
    fn unsupported<T>(&self, what: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            pos: self.pos(),
            message: what.into(),
            unsupported: true,
        })
    }
    fn expect_op(&mut self, op: &str) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            self.fail(format!("expected `{op}', found {}", self.describe()))
        }
    }
    fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        self.skip_terms();
        if self.eat_kw(kw) {
            Ok(())
        } else {
            self.fail(format!("expected `{kw}', found {}", self.describe()))
        }
    }
    #[inline]
    fn skip_nl(&mut self) {
        while matches!(self.peek(), Tok::Nl) {
            self.skip();
        }
    }
    #[inline]
    fn skip_terms(&mut self) {
        while matches!(self.peek(), Tok::Nl | Tok::Semi) {
            self.skip();
        }
    }
    fn is_local(&self, name: &str) -> bool {
        self.locals.contains(name)
    }
    fn declare(&mut self, name: &str) {
        self.locals.declare(name);
    }
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.unsupported(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }
    #[inline]
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let r = crate::with_stack_at(self.depth, || f(self));
        self.depth -= 1;
        r
    }

    /// Statements until one of the keywords `ends` (not consumed), `}`, `)` or the end: a
    /// body (of a `def`, `class`, `if`, `begin`...). A body starts afresh: a `do` in it is
    /// not the enclosing command's (`private def f` with a `do` block inside), nor is a `,`
    /// an argument separator.
    fn stmts(&mut self, ends: &[&str]) -> PResult<Vec<Node>> {
        let saved = (self.no_do, self.args_level);
        self.no_do = 0;
        self.args_level = 0;
        let r = self.stmts_inner(ends);
        (self.no_do, self.args_level) = saved;
        r
    }

    fn stmts_inner(&mut self, ends: &[&str]) -> PResult<Vec<Node>> {
        let mut out = Vec::new();
        loop {
            self.skip_terms();
            match self.peek() {
                Tok::Eof | Tok::InsertEnd => break,
                Tok::Op("}") | Tok::Op(")") => break,
                Tok::Ident(k) if ends.contains(&k.as_str()) => break,
                _ => {}
            }
            let start = self.i;
            out.push(self.stmt()?);
            match self.peek() {
                Tok::Nl | Tok::Semi | Tok::Eof | Tok::InsertEnd | Tok::Op("}") | Tok::Op(")") => {}
                Tok::Ident(k) if ends.contains(&k.as_str()) => {}
                _ => return self.fail(format!("unexpected {}", self.describe())),
            }
            if self.i == start {
                return self.fail(format!("unexpected {}", self.describe()));
            }
        }
        Ok(out)
    }

    #[inline]
    fn stmt(&mut self) -> PResult<Node> {
        self.nested(|p| p.stmt_inner())
    }

    fn stmt_inner(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if matches!(self.peek(), Tok::Put(_)) {
            if let Tok::Put(text) = self.bump() {
                return Ok(node(Kind::Put(text), pos));
            }
        }
        if matches!(self.peek(), Tok::InsertBegin) {
            self.skip();
            let body = self.stmts(&[])?;
            if !matches!(self.peek(), Tok::InsertEnd) {
                return self.fail(format!("unexpected {} in <%= %>", self.describe()));
            }
            self.skip();
            return Ok(node(Kind::Insert(body), pos));
        }
        // `BEGIN { }` / `END { }` (lexed as constants; a constant followed by a block is
        // nothing else at a statement's start).
        let begin_end = matches!(self.peek(), Tok::Const(k) if k == "BEGIN" || k == "END");
        if begin_end && matches!(self.peek_n(1), Tok::Op("{")) {
            return self.unsupported("BEGIN/END blocks");
        }
        // `alias`/`undef` are statements, which the modifiers below may follow.
        let mut n = if self.eat_kw("alias") {
            let new = self.method_name_token()?;
            let old = self.method_name_token()?;
            node(Kind::Alias(new, old), pos)
        } else if self.eat_kw("undef") {
            let mut names = vec![self.method_name_token()?];
            while self.eat_op(",") {
                names.push(self.method_name_token()?);
            }
            node(Kind::Undef(names), pos)
        } else {
            match self.leaf_operand(false)? {
                Some(n) => n,
                None => self.expr_stmt()?,
            }
        };
        loop {
            let mpos = self.pos();
            if self.eat_kw("if") {
                let c = self.expr_stmt()?;
                n = node(Kind::If(Box::new(c), vec![n], vec![]), mpos);
            } else if self.eat_kw("unless") {
                let c = self.expr_stmt()?;
                n = node(Kind::If(Box::new(c), vec![], vec![n]), mpos);
            } else if self.is_kw("while") || self.is_kw("until") {
                let until = self.is_kw("until");
                self.skip();
                let c = self.expr_stmt()?;
                // `begin ... end while c` runs the body first.
                let do_while = matches!(&n.kind, Kind::Begin(..));
                n = node(
                    Kind::While {
                        cond: Box::new(c),
                        body: vec![n],
                        until,
                        do_while,
                    },
                    mpos,
                );
            } else if self.eat_kw("rescue") {
                let r = self.expr_stmt()?;
                n = node(Kind::RescueMod(Box::new(n), Box::new(r)), mpos);
            } else {
                break;
            }
        }
        Ok(n)
    }

    /// A method name after `alias`/`undef`: identifier, operator, or symbol.
    fn method_name_token(&mut self) -> PResult<String> {
        match self.bump() {
            Tok::Ident(n) | Tok::Const(n) => {
                if self.is_op("=") && !self.space_before() {
                    self.skip();
                    return Ok(format!("{n}="));
                }
                Ok(n)
            }
            Tok::Sym(parts) => match parts.as_slice() {
                [StrPart::Lit(s)] => Ok(s.clone()),
                _ => self.fail("expected a method name"),
            },
            Tok::Label(n) => {
                // `alias foo? bar?` never lexes as a label; `alias a:b` does not exist.
                self.fail(format!("unexpected label `{n}:'"))
            }
            Tok::GVar(_) => self.unsupported("alias of a global variable"),
            Tok::Op(o) => Ok(o.to_string()),
            _ => self.fail("expected a method name"),
        }
    }

    /// `not`, `and`, `or` level.
    fn expr_stmt(&mut self) -> PResult<Node> {
        let mut left = self.not_expr()?;
        loop {
            let pos = self.pos();
            if self.eat_kw("and") {
                self.skip_nl();
                let r = self.not_expr()?;
                left = node(Kind::And(Box::new(left), Box::new(r)), pos);
            } else if self.eat_kw("or") {
                self.skip_nl();
                let r = self.not_expr()?;
                left = node(Kind::Or(Box::new(left), Box::new(r)), pos);
            } else {
                return Ok(left);
            }
        }
    }

    fn not_expr(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.eat_kw("not") {
            // Ruby reads `{` after `not` as a block's brace, not a hash.
            if self.is_op("{") {
                return self.fail("unexpected `{'");
            }
            let e = self.nested(|p| p.not_expr())?;
            return Ok(node(Kind::Not(Box::new(e)), pos));
        }
        if self.starts_multi_assign() {
            return self.multi_assign(pos);
        }
        self.expr()
    }

    /// Whether the tokens from here are the targets of a multiple assignment
    /// (`a, b =`, `*a, b =`, `(a, b), c =`, `x.y, h[k] =`): a comma or a splat at the top
    /// level before an `=` on the same statement.
    fn starts_multi_assign(&self) -> bool {
        let mut k = self.i;
        let mut depth = 0i32;
        let mut saw_comma = false;
        let first = self.toks.get(k).map(|t| &t.tok);
        if !matches!(
            first,
            Some(Tok::Ident(_))
                | Some(Tok::IVar(_))
                | Some(Tok::GVar(_))
                | Some(Tok::CVar(_))
                | Some(Tok::Const(_))
                | Some(Tok::Op("*"))
                | Some(Tok::Op("("))
        ) {
            return false;
        }
        if let Some(Tok::Ident(n)) = first {
            // `self.a, self.b = 1, 2` assigns attributes.
            if is_reserved(n) && n != "self" {
                return false;
            }
        }
        let star_first = matches!(first, Some(Tok::Op("*")));
        if matches!(first, Some(Tok::Op("("))) {
            // `(a, b) = x`: a group with a comma, then `=`.
            let mut d = 0i32;
            let mut comma = false;
            let mut j = k;
            while let Some(t) = self.toks.get(j) {
                match &t.tok {
                    Tok::Op("(") | Tok::Op("[") => d += 1,
                    Tok::Op(")") | Tok::Op("]") => {
                        d -= 1;
                        if d == 0 {
                            if comma
                                && matches!(
                                    self.toks.get(j + 1).map(|t| &t.tok),
                                    Some(Tok::Op("="))
                                )
                            {
                                return true;
                            }
                            break;
                        }
                    }
                    Tok::Op(",") if d == 1 => comma = true,
                    Tok::Nl | Tok::Semi | Tok::Eof => break,
                    _ => {}
                }
                j += 1;
            }
        }
        loop {
            let Some(t) = self.toks.get(k) else {
                return false;
            };
            match &t.tok {
                Tok::Op("(") | Tok::Op("[") => depth += 1,
                Tok::Op(")") | Tok::Op("]") => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                Tok::Op(",") if depth == 0 => saw_comma = true,
                Tok::Op("=") if depth == 0 => return saw_comma || star_first,
                Tok::Op("{") | Tok::Op("}") | Tok::Nl | Tok::Semi | Tok::Eof | Tok::InsertEnd => {
                    return false
                }
                Tok::Op(o) if depth == 0 && is_assign_op(o) => return false,
                Tok::Op("==") | Tok::Op("=>") | Tok::Op("?") if depth == 0 => return false,
                Tok::Ident(kw) if depth == 0 && is_reserved(kw) && kw != "self" => return false,
                Tok::Str(_) | Tok::Int(_) | Tok::Big(_) | Tok::Float(_) | Tok::Sym(_)
                    if depth == 0 =>
                {
                    return false
                }
                _ => {}
            }
            k += 1;
        }
    }

    /// The left-hand side list of a multiple assignment, up to `=`.
    fn mlhs_list(&mut self, close: Option<&str>) -> PResult<Vec<Node>> {
        let mut targets = Vec::new();
        loop {
            if close.is_some_and(|c| self.is_op(c)) || self.is_op("=") {
                break;
            }
            let pos = self.pos();
            if self.eat_op("*") {
                if self.is_op(",") || self.is_op("=") || close.is_some_and(|c| self.is_op(c)) {
                    targets.push(node(Kind::Splat(Box::new(node(Kind::Nil, pos))), pos));
                } else {
                    let t = self.mlhs_item()?;
                    targets.push(node(Kind::Splat(Box::new(t)), pos));
                }
            } else if self.is_op("(") {
                self.skip();
                let inner = self.mlhs_list(Some(")"))?;
                self.expect_op(")")?;
                targets.push(node(Kind::Mlhs(inner), pos));
            } else {
                targets.push(self.mlhs_item()?);
            }
            if !self.eat_op(",") {
                break;
            }
        }
        Ok(targets)
    }

    fn mlhs_item(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if let Tok::Ident(n) = self.peek() {
            let n = n.clone();
            if !is_reserved(&n)
                && matches!(
                    self.peek_n(1),
                    Tok::Op(",") | Tok::Op("=") | Tok::Op(")") | Tok::Op("|")
                )
            {
                self.skip();
                self.declare(&n);
                return Ok(node(Kind::LVar(n), pos));
            }
        }
        let e = self.primary_postfix()?;
        match &e.kind {
            Kind::LVar(_) | Kind::IVar(_) | Kind::GVar(_) | Kind::CVar(_) | Kind::Const(..) => {
                Ok(e)
            }
            Kind::Call {
                recv: Some(_),
                block: None,
                ..
            } => Ok(e),
            Kind::Call {
                recv: None,
                name,
                args,
                block: None,
                ..
            } if args.is_empty() => {
                let n = name.clone();
                self.declare(&n);
                Ok(node(Kind::LVar(n), e.pos))
            }
            _ => self.fail("bad assignment target"),
        }
    }

    fn multi_assign(&mut self, pos: Pos) -> PResult<Node> {
        let targets = self.mlhs_list(None)?;
        self.expect_op("=")?;
        self.skip_nl();
        let v = self.mrhs(pos)?;
        Ok(node(Kind::MultiAssign(targets, Box::new(v)), pos))
    }

    /// The right-hand side of an assignment: one expression, or several (an array), `*x`
    /// included.
    fn mrhs(&mut self, pos: Pos) -> PResult<Node> {
        if self.args_level > 0 {
            return self.assign_rhs();
        }
        let first = self.rhs_item()?;
        if !self.is_op(",") && !matches!(first.kind, Kind::Splat(_)) {
            if self.is_kw("rescue") {
                let rpos = self.pos();
                self.skip();
                let r = self.expr()?;
                return Ok(node(Kind::RescueMod(Box::new(first), Box::new(r)), rpos));
            }
            return Ok(first);
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            self.skip_nl();
            items.push(self.rhs_item()?);
        }
        Ok(node(Kind::Array(items), pos))
    }

    fn rhs_item(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.eat_op("*") {
            let e = self.ternary()?;
            return Ok(node(Kind::Splat(Box::new(e)), pos));
        }
        self.expr()
    }

    /// Assignment level (and everything below).
    #[inline]
    fn expr(&mut self) -> PResult<Node> {
        self.nested(|p| p.expr_inner())
    }

    fn expr_inner(&mut self) -> PResult<Node> {
        let pos = self.pos();
        // `x = ...` where x is a new local.
        if let (Tok::Ident(name), Tok::Op(op)) = (self.peek(), self.peek_n(1)) {
            let op = *op;
            if (op == "=" || is_assign_op(op)) && !is_reserved(name) && !is_predicate_name(name) {
                let name = name.clone();
                self.skip();
                self.skip();
                self.skip_nl();
                self.declare(&name);
                let target = node(Kind::LVar(name), pos);
                let value = if op == "=" {
                    self.mrhs(pos)?
                } else {
                    self.assign_rhs()?
                };
                return Ok(make_assign(target, op, value, pos));
            }
        }
        let left = self.ternary()?;
        if let Tok::Op(op) = self.peek() {
            let op = *op;
            if op == "=" || is_assign_op(op) {
                let assignable = match &left.kind {
                    Kind::LVar(_)
                    | Kind::IVar(_)
                    | Kind::GVar(_)
                    | Kind::CVar(_)
                    | Kind::Const(..)
                    | Kind::TopConst(_) => true,
                    Kind::Call {
                        recv: Some(_),
                        name,
                        block: None,
                        ..
                    } => name == "[]" || is_ident_name(name),
                    _ => false,
                };
                if assignable {
                    self.skip();
                    self.skip_nl();
                    let value = if op == "=" {
                        self.mrhs(pos)?
                    } else {
                        self.assign_rhs()?
                    };
                    return Ok(make_assign(left, op, value, pos));
                }
            }
        }
        Ok(left)
    }

    fn assign_rhs(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let v = self.expr()?;
        if self.is_kw("rescue") {
            self.skip();
            let r = self.expr()?;
            return Ok(node(Kind::RescueMod(Box::new(v), Box::new(r)), pos));
        }
        Ok(v)
    }

    fn ternary(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let c = self.range()?;
        if self.is_op("?") {
            self.skip();
            self.skip_nl();
            let a = self.ternary_branch()?;
            self.skip_nl();
            // `a ? b :c` may have lexed `:c` as a symbol.
            if let Tok::Sym(parts) = self.peek() {
                let parts = parts.clone();
                if !self.space_before() || self.peek_tok().is_some_and(|t| t.space_before) {
                    if let [StrPart::Lit(name)] = parts.as_slice() {
                        let spos = self.pos();
                        self.skip();
                        let b = self.ident_node(name.clone(), spos)?;
                        let b = self.postfix(b)?;
                        return Ok(node(Kind::If(Box::new(c), vec![a], vec![b]), pos));
                    }
                }
            }
            if let Tok::Label(l) = self.peek() {
                let l = l.clone();
                // `a ? b.c : d` where the lexer read `c:` as a label cannot happen (labels
                // follow only identifiers); `cond ? x: y` can.
                let _ = l;
                return self.fail("unexpected label in ternary");
            }
            self.expect_op(":")?;
            self.skip_nl();
            let b = self.ternary_branch()?;
            return Ok(node(Kind::If(Box::new(c), vec![a], vec![b]), pos));
        }
        Ok(c)
    }

    fn ternary_branch(&mut self) -> PResult<Node> {
        let pos = self.pos();
        // A branch may be an assignment (`x ? a = 1 : b`).
        if let (Tok::Ident(name), Tok::Op(op)) = (self.peek(), self.peek_n(1)) {
            let op = *op;
            if (op == "=" || is_assign_op(op)) && !is_reserved(name) {
                let name = name.clone();
                self.skip();
                self.skip();
                self.declare(&name);
                let v = self.nested(|p| p.ternary())?;
                return Ok(make_assign(node(Kind::LVar(name), pos), op, v, pos));
            }
        }
        let r = self.nested(|p| p.ternary())?;
        if let Tok::Op(op) = self.peek() {
            let op = *op;
            if op == "=" || is_assign_op(op) {
                self.skip();
                let v = self.nested(|p| p.ternary())?;
                return Ok(make_assign(r, op, v, pos));
            }
        }
        Ok(r)
    }

    #[inline]
    fn range(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let l = self.binary(0)?;
        if self.is_op("..") || self.is_op("...") {
            let excl = self.is_op("...");
            self.skip();
            let endless = matches!(
                self.peek(),
                Tok::Op("]") | Tok::Op(")") | Tok::Nl | Tok::Semi | Tok::Eof | Tok::InsertEnd
            ) || self.is_kw("then");
            let r = if endless {
                node(Kind::Nil, pos)
            } else {
                self.binary(0)?
            };
            return Ok(node(Kind::Range(Box::new(l), Box::new(r), excl), pos));
        }
        Ok(l)
    }

    /// Binary operators from precedence level `min_level` up (0 = `||`), by precedence
    /// climbing: one operand, then each operator of at least that level with its right
    /// side parsed at the next level (left associative; comparisons do not chain).
    fn binary(&mut self, min_level: usize) -> PResult<Node> {
        fn level_of(op: &str) -> Option<usize> {
            Some(match op {
                "||" => 0,
                "&&" => 1,
                "<=>" | "==" | "===" | "!=" | "=~" | "!~" => 2,
                "<" | "<=" | ">" | ">=" => 3,
                "|" | "^" => 4,
                "&" => 5,
                "<<" | ">>" => 6,
                "+" | "-" => 7,
                "*" | "/" | "%" => 8,
                _ => return None,
            })
        }
        // Counts for the nine precedence levels it stands for (one nested call each before
        // precedence climbing), so that the nesting bound keeps the stack where it was.
        const LEVELS: usize = 9;
        self.depth += LEVELS - 1;
        let r = self.nested(|p| {
            let mut left = p.unary_minus()?;
            // The highest level the next operator may have: after an operator of level L
            // the right side took every operator above L, so one above L here is where
            // that side stopped (a second comparison: comparisons do not chain).
            let mut ceiling = usize::MAX;
            while let Tok::Op(op) = p.peek() {
                let op = *op;
                let Some(level) = level_of(op) else {
                    break;
                };
                if level < min_level || level > ceiling || (op == "|" && p.no_pipe) {
                    break;
                }
                let pos = p.pos();
                p.skip();
                p.skip_nl();
                // `a && b = c` is `a && (b = c)`.
                let right = if p.assignment_follows() {
                    p.expr()?
                } else {
                    p.binary(level + 1)?
                };
                left = match op {
                    "||" => node(Kind::Or(Box::new(left), Box::new(right)), pos),
                    "&&" => node(Kind::And(Box::new(left), Box::new(right)), pos),
                    "!=" => call(Some(left), "!=", vec![right], pos),
                    "!~" => node(
                        Kind::Not(Box::new(call(Some(left), "=~", vec![right], pos))),
                        pos,
                    ),
                    "=~" => match named_groups(&left) {
                        Some(names) => {
                            for n in &names {
                                p.declare(n);
                            }
                            match_assigning_groups(left, right, names, pos)
                        }
                        None => call(Some(left), "=~", vec![right], pos),
                    },
                    _ => call(Some(left), op, vec![right], pos),
                };
                ceiling = if level == 2 { 1 } else { level };
            }
            Ok(left)
        });
        self.depth -= LEVELS - 1;
        r
    }

    /// Whether an assignment to a variable starts here (`x = ...`, `@x ||= ...`).
    fn assignment_follows(&self) -> bool {
        let target = match self.peek() {
            Tok::Ident(n) => !is_reserved(n),
            Tok::IVar(_) | Tok::GVar(_) | Tok::CVar(_) => true,
            _ => false,
        };
        target && matches!(self.peek_n(1), Tok::Op(o) if *o == "=" || is_assign_op(o))
    }

    fn unary_minus(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.is_op("-") {
            self.skip();
            // Negative numeric literals bind tighter than a method call, but `-2 ** 2` is
            // `-(2 ** 2)`, as in Ruby's grammar (`tUMINUS_NUM numeric tPOW arg`).
            let positive = match self.peek() {
                Tok::Int(n) => Some(Kind::Int(*n)),
                Tok::Big(b) => Some(Kind::Big(b.clone())),
                Tok::Float(f) => Some(Kind::Float(*f)),
                _ => None,
            };
            if let Some(kind) =
                positive.filter(|_| !self.space_before() && matches!(self.peek_n(1), Tok::Op("**")))
            {
                let lit = node(kind, pos);
                self.skip();
                let e = self.pow(lit)?;
                return Ok(call(Some(e), "-@", vec![], pos));
            }
            match self.peek().clone() {
                Tok::Int(n) if !self.space_before() => {
                    self.skip();
                    let lit = node(Kind::Int(n.checked_neg().unwrap_or(i64::MIN)), pos);
                    let lit = self.postfix(lit)?;
                    return self.pow(lit);
                }
                Tok::Big(b) if !self.space_before() => {
                    self.skip();
                    let lit = match crate::bigint::norm(-(*b).clone()) {
                        crate::value::RValue::Int(i) => node(Kind::Int(i), pos),
                        _ => node(Kind::Big(Box::new(-(*b).clone())), pos),
                    };
                    let lit = self.postfix(lit)?;
                    return self.pow(lit);
                }
                Tok::Float(f) if !self.space_before() => {
                    self.skip();
                    let lit = node(Kind::Float(-f), pos);
                    let lit = self.postfix(lit)?;
                    return self.pow(lit);
                }
                _ => {}
            }
            let e = self.nested(|p| p.unary_minus())?;
            return Ok(call(Some(e), "-@", vec![], pos));
        }
        let base = self.unary()?;
        self.pow(base)
    }

    #[inline]
    fn pow(&mut self, base: Node) -> PResult<Node> {
        if self.is_op("**") {
            let pos = self.pos();
            self.skip();
            let e = self.nested(|p| p.unary_minus())?;
            return Ok(call(Some(base), "**", vec![e], pos));
        }
        Ok(base)
    }

    /// The operand of a prefix `!`, `~` or `+`: `!-x` is `!(-x)`, `~-7` is `~(-7)`.
    fn unary_operand(&mut self) -> PResult<Node> {
        if self.is_op("-") {
            self.unary_minus()
        } else {
            self.unary()
        }
    }

    fn unary(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.is_op("!") {
            self.skip();
            // `!-x` is `!(-x)`, `!x = f` is `!(x = f)`.
            let e = if self.assignment_follows() {
                self.expr()?
            } else {
                self.nested(Parser::unary_operand)?
            };
            return Ok(node(Kind::Not(Box::new(e)), pos));
        }
        if self.is_op("~") || self.is_op("+") {
            let op = if self.is_op("~") { "~" } else { "+@" };
            self.skip();
            // `~-7` is `~(-7)`.
            let e = self.nested(Parser::unary_operand)?;
            return Ok(call(Some(e), op, vec![], pos));
        }
        if self.is_op("&") {
            return self.unsupported("`&' block argument outside an argument list");
        }
        if self.is_kw("defined?") {
            self.skip();
            let paren = self.eat_op("(");
            self.skip_nl();
            let e = if paren {
                let e = self.expr_stmt()?;
                self.skip_nl();
                self.expect_op(")")?;
                e
            } else {
                self.nested(|p| p.unary())?
            };
            let d = node(Kind::Defined(Box::new(e)), pos);
            return if paren { self.postfix(d) } else { Ok(d) };
        }
        self.primary_postfix()
    }

    #[inline]
    fn primary_postfix(&mut self) -> PResult<Node> {
        let p = self.primary()?;
        self.postfix(p)
    }

    /// Method calls, indexing and `::` after a primary.
    fn postfix(&mut self, mut n: Node) -> PResult<Node> {
        loop {
            let pos = self.pos();
            if self.is_op(".") || self.is_op("&.") {
                let safe = self.is_op("&.");
                self.skip();
                self.skip_nl();
                if self.is_op("(") {
                    // `f.(x)` is `f.call(x)`.
                    n = self.call_rest(Some(n), "call".to_string(), pos, safe)?;
                    continue;
                }
                let name = match self.bump() {
                    Tok::Ident(n) | Tok::Const(n) => n,
                    Tok::Label(l) => {
                        // `x.y:` never happens in valid code.
                        return self.fail(format!("unexpected label `{l}:'"));
                    }
                    Tok::Op(op)
                        if matches!(
                            op,
                            "+" | "-"
                                | "*"
                                | "/"
                                | "%"
                                | "**"
                                | "=="
                                | "==="
                                | "=~"
                                | "<=>"
                                | "<"
                                | ">"
                                | "<="
                                | ">="
                                | "<<"
                                | ">>"
                                | "&"
                                | "|"
                                | "^"
                                | "!"
                                | "[]"
                        ) =>
                    {
                        op.to_string()
                    }
                    // `x.[](i)`, `x&.[](i)`: the lexer gives `[` and `]`.
                    Tok::Op("[") if self.is_op("]") => {
                        self.skip();
                        "[]".to_string()
                    }
                    _ => return self.fail("expected a method name after `.'"),
                };
                // Attribute assignment `x.y = v` is handled by the caller.
                n = self.call_rest(Some(n), name, pos, safe)?;
            } else if self.is_op("::") && !self.space_before_n(1) {
                self.skip();
                match self.bump() {
                    // `Mod::Name "x"` calls the method `Name` (as `Integer "1"` does).
                    Tok::Const(c)
                        if (!self.is_op("(") || self.space_before())
                            && !self.argument_follows() =>
                    {
                        n = node(Kind::Const(Some(Box::new(n)), c), pos)
                    }
                    Tok::Const(c) | Tok::Ident(c) => {
                        n = self.call_rest(Some(n), c, pos, false)?;
                    }
                    _ => return self.fail("expected a name after `::'"),
                }
            } else if self.is_op("[")
                && (!self.space_before()
                    // `x [1]`, `@x [1]`: a variable's value is indexed, space or not.
                    || matches!(
                        n.kind,
                        Kind::LVar(_) | Kind::IVar(_) | Kind::GVar(_) | Kind::CVar(_)
                    ))
            {
                self.skip();
                let args = self.call_args("]")?;
                n = call(Some(n), "[]", args, pos);
            } else {
                return Ok(n);
            }
        }
    }

    /// After a method name: arguments (parenthesised or command style) and a block.
    fn call_rest(
        &mut self,
        recv: Option<Node>,
        name: String,
        pos: Pos,
        safe: bool,
    ) -> PResult<Node> {
        let mut args = Vec::new();
        let mut block_arg = None;
        let mut block = None;
        let mut command = false;
        if self.is_op("(") && !self.space_before() {
            self.skip();
            (args, block_arg) = self.call_args_with_block(")")?;
        } else if self.can_start_command_arg() {
            // `let (:x) { ... }`: after arguments that start with a parenthesised
            // expression, a brace block is still the command's.
            command = !self.is_op("(");
            // A `do` after a command's arguments belongs to the command.
            self.no_do += 1;
            self.args_level += 1;
            let r = self.command_args();
            self.args_level -= 1;
            self.no_do -= 1;
            (args, block_arg) = r?;
        }
        if block_arg.is_none() {
            if self.is_op("{") && !command {
                block = Some(self.brace_block()?);
            } else if self.is_kw("do") && self.no_do == 0 {
                block = Some(self.do_block()?);
            }
        }
        Ok(node(
            Kind::Call {
                recv: recv.map(Box::new),
                name,
                args,
                block,
                block_arg: block_arg.map(Box::new),
                safe,
            },
            pos,
        ))
    }

    /// After a space, a token that can only start an argument (a literal, a variable, a
    /// constant, a name): what makes a local variable or a constant before it a command
    /// call (`type 'x'`, `Integer "3"`, `Mod::Name arg`), as in Ruby. Operators that could
    /// also continue an expression (`[`, `-`, `:`, `?`) do not.
    fn argument_follows(&self) -> bool {
        self.space_before()
            && match self.peek() {
                Tok::Str(_) | Tok::Int(_) | Tok::Big(_) | Tok::Float(_) => true,
                Tok::IVar(_) | Tok::CVar(_) | Tok::Const(_) => true,
                Tok::Ident(k) => !is_reserved(k),
                _ => false,
            }
    }

    fn can_start_command_arg(&self) -> bool {
        if !self.space_before() {
            // `_"text"` is `_("text")`.
            if matches!(self.peek(), Tok::Str(_)) {
                return true;
            }
            return self.prev_pred
                && matches!(
                    self.peek(),
                    Tok::Ident(_)
                        | Tok::IVar(_)
                        | Tok::Str(_)
                        | Tok::Const(_)
                        | Tok::Int(_)
                        | Tok::Big(_)
                );
        }
        let next_space = self.space_before_n(1);
        match self.peek() {
            Tok::Int(_)
            | Tok::Big(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::XStr(_)
            | Tok::Sym(_)
            | Tok::Regex(..)
            | Tok::Words(..)
            | Tok::IVar(_)
            | Tok::GVar(_)
            | Tok::CVar(_)
            | Tok::Const(_)
            | Tok::Label(_) => true,
            Tok::Ident(k) => !matches!(
                k.as_str(),
                "if" | "unless"
                    | "while"
                    | "until"
                    | "and"
                    | "or"
                    | "then"
                    | "do"
                    | "end"
                    | "rescue"
                    | "else"
                    | "elsif"
                    | "when"
                    | "in"
                    | "ensure"
            ),
            Tok::Op("[") | Tok::Op("(") | Tok::Op("!") | Tok::Op("->") => true,
            Tok::Op("::") => !next_space,
            Tok::Op("-") | Tok::Op("*") | Tok::Op("&") | Tok::Op(":") | Tok::Op("**") => {
                !next_space
            }
            _ => false,
        }
    }

    fn command_args(&mut self) -> PResult<(Vec<Node>, Option<Node>)> {
        let mut args = Vec::new();
        let mut pairs = Vec::new();
        let mut block_arg = None;
        loop {
            self.arg_item(&mut args, &mut pairs, &mut block_arg)?;
            if !self.eat_op(",") {
                break;
            }
            self.skip_nl();
        }
        if !pairs.is_empty() {
            args.push(kwargs_node(pairs));
        }
        Ok((args, block_arg))
    }

    /// One argument: `*x`, `**x`, `&x`, `key: v`, `k => v` or an expression.
    fn arg_item(
        &mut self,
        args: &mut Vec<Node>,
        pairs: &mut Vec<HashItem>,
        block_arg: &mut Option<Node>,
    ) -> PResult<()> {
        let pos = self.pos();
        if block_arg.is_some() {
            return self.fail("argument after a block argument");
        }
        if matches!(self.peek(), Tok::Label(_)) {
            if let Tok::Label(l) = self.bump() {
                self.skip_nl();
                let v = if matches!(self.peek(), Tok::Op(",") | Tok::Op(")")) {
                    // `f(x:)`: the value is the variable or method `x`.
                    self.ident_node(l.clone(), pos)?
                } else {
                    self.expr_no_stmt()?
                };
                pairs.push(HashItem::Pair(node(Kind::Sym(vec![Part::Lit(l)]), pos), v));
                return Ok(());
            }
        }
        if matches!(self.peek(), Tok::Str(_))
            && matches!(self.peek_n(1), Tok::Op(":"))
            && !self.space_before_n(1)
        {
            if let Tok::Str(parts) = self.bump() {
                self.skip();
                self.skip_nl();
                let v = self.expr_no_stmt()?;
                let parts = self.parts(parts)?;
                pairs.push(HashItem::Pair(node(Kind::Sym(parts), pos), v));
                return Ok(());
            }
        }
        if self.is_op("**") {
            self.skip();
            let e = self.ternary()?;
            pairs.push(HashItem::Splat(e));
            return Ok(());
        }
        if self.is_op("...") && self.is_local(FORWARDED[0]) {
            // `g(...)`: what the method's `...` parameter took.
            self.skip();
            let var = |i: usize| node(Kind::LVar(FORWARDED[i].into()), pos);
            args.push(node(Kind::Splat(Box::new(var(0))), pos));
            pairs.push(HashItem::Splat(var(1)));
            *block_arg = Some(var(2));
            return Ok(());
        }
        if self.is_op("*") {
            self.skip();
            let e = self.ternary()?;
            args.push(node(Kind::Splat(Box::new(e)), pos));
            return Ok(());
        }
        if self.is_op("&") {
            self.skip();
            if matches!(self.peek(), Tok::Op(")") | Tok::Op(",")) {
                // Anonymous block forwarding `&` (Ruby 3.1).
                return self.unsupported("anonymous block argument `&'");
            }
            let e = self.ternary()?;
            *block_arg = Some(e);
            return Ok(());
        }
        let e = match self.leaf_operand(true)? {
            Some(e) => e,
            None => self.expr_no_stmt()?,
        };
        if self.eat_op("=>") {
            self.skip_nl();
            let v = self.expr_no_stmt()?;
            pairs.push(HashItem::Pair(e, v));
        } else {
            if !pairs.is_empty() {
                return self.fail("positional argument after keyword arguments");
            }
            args.push(e);
        }
        Ok(())
    }

    /// The fast path of a statement (`arg` false) or an argument (`arg` true) that is one
    /// literal or name token (a number, a string, symbol or regexp without interpolation,
    /// `%w[]`, a variable, a constant, a local variable or a method call without arguments)
    /// followed by a token that no level of an
    /// expression takes after an operand (`)`, `]`, `}`, a line break, `;`, `%>`, the end;
    /// in an argument list also `,` and `=>`; not `,` for a statement, which may start a
    /// multiple assignment): the node that the levels from `expr_stmt` / `expr_no_stmt`
    /// down to `primary` would build, without going through them. `None`: the general path
    /// decides (also when it could reach the nesting bound, so that errors stay the same).
    fn leaf_operand(&mut self, arg: bool) -> PResult<Option<Node>> {
        // The general path nests 11 levels to reach the token (`expr`, the nine of
        // `binary`, `primary`); a margin on top.
        const LEAF_DEPTH: usize = 16;
        #[cfg(test)]
        if tests::NO_LEAF_FAST_PATH.with(std::cell::Cell::get) {
            return Ok(None);
        }
        if self.depth + LEAF_DEPTH > MAX_DEPTH {
            return Ok(None);
        }
        let ends = match self.peek_n(1) {
            Tok::Op(")" | "]" | "}") | Tok::Nl | Tok::Semi | Tok::Eof | Tok::InsertEnd => true,
            Tok::Op("," | "=>") => arg,
            _ => false,
        };
        let lits = |parts: &[StrPart]| parts.iter().all(|p| matches!(p, StrPart::Lit(_)));
        let leaf = match self.peek() {
            Tok::Int(_)
            | Tok::Big(_)
            | Tok::Float(_)
            | Tok::IVar(_)
            | Tok::CVar(_)
            | Tok::GVar(_)
            | Tok::Const(_) => true,
            Tok::Words(words, _) => words.iter().all(|w| lits(w)),
            Tok::Str(parts) | Tok::Sym(parts) => lits(parts),
            Tok::Regex(re) => lits(&re.0),
            // A local variable or a method call without arguments (keywords, and the
            // `__x__` names, some of which are keywords, go the general way).
            Tok::Ident(name) => !is_reserved(name) && !name.starts_with("__"),
            _ => false,
        };
        if !(ends && leaf) {
            return Ok(None);
        }
        self.primary_inner().map(Some)
    }

    fn expr_no_stmt(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.is_kw("not") {
            self.skip();
            if self.is_op("{") {
                return self.fail("unexpected `{'");
            }
            let e = self.expr()?;
            return Ok(node(Kind::Not(Box::new(e)), pos));
        }
        self.expr()
    }

    /// Parenthesised or bracketed arguments; keyword arguments become one `KwArgs` node.
    fn call_args(&mut self, close: &str) -> PResult<Vec<Node>> {
        let (args, block_arg) = self.call_args_with_block(close)?;
        if block_arg.is_some() {
            return self.fail("block argument should not be given here");
        }
        Ok(args)
    }

    fn call_args_with_block(&mut self, close: &str) -> PResult<(Vec<Node>, Option<Node>)> {
        let mut args = Vec::new();
        let mut pairs = Vec::new();
        let mut block_arg = None;
        let saved = self.no_do;
        self.no_do = 0;
        self.args_level += 1;
        let r = (|| -> PResult<()> {
            loop {
                self.skip_nl();
                if self.eat_op(close) {
                    break;
                }
                self.arg_item(&mut args, &mut pairs, &mut block_arg)?;
                self.skip_nl();
                if self.eat_op(",") {
                    continue;
                }
                self.skip_nl();
                self.expect_op(close)?;
                break;
            }
            Ok(())
        })();
        self.no_do = saved;
        self.args_level -= 1;
        r?;
        if !pairs.is_empty() {
            args.push(kwargs_node(pairs));
        }
        Ok((args, block_arg))
    }

    /// Block parameters between `|...|` (none when there are no bars).
    fn block_params(&mut self) -> PResult<(Params, bool)> {
        if self.is_op("||") {
            self.skip();
            return Ok((Params::default(), true));
        }
        if !self.eat_op("|") {
            return Ok((Params::default(), false));
        }
        let params = self.param_list(&["|"], true)?;
        self.expect_op("|")?;
        Ok((params, true))
    }

    /// A parameter list up to one of the closing operators (not consumed). `block` allows
    /// destructuring groups, trailing commas and block-local variables (`; x`).
    fn param_list(&mut self, close: &[&str], block: bool) -> PResult<Params> {
        let mut p = Params::default();
        loop {
            self.skip_nl();
            if close.iter().any(|c| self.is_op(c)) {
                break;
            }
            if block && matches!(self.peek(), Tok::Semi) {
                // Block-local variables: declared, not bound.
                self.skip();
                while let Tok::Ident(n) = self.peek() {
                    let n = n.clone();
                    self.skip();
                    self.declare(&n);
                    if !self.eat_op(",") {
                        break;
                    }
                }
                continue;
            }
            match self.peek().clone() {
                Tok::Ident(n) => {
                    self.skip();
                    self.declare(&n);
                    if self.eat_op("=") {
                        // In `|a = 1|`, the closing bar is not an operator.
                        let saved = self.no_pipe;
                        self.no_pipe = block;
                        let d = self.ternary();
                        self.no_pipe = saved;
                        let d = d?;
                        p.optional.push((n, d));
                    } else if p.rest.is_some() || !p.optional.is_empty() {
                        p.post.push(Param::Name(n));
                    } else {
                        p.required.push(Param::Name(n));
                    }
                }
                Tok::Label(n) => {
                    self.skip();
                    self.declare(&n);
                    let d = if matches!(self.peek(), Tok::Op(",") | Tok::Op(")") | Tok::Op("|"))
                        || matches!(self.peek(), Tok::Nl | Tok::Semi)
                    {
                        None
                    } else {
                        // `|a, b: 2|`: the closing bar is not an operator either.
                        let saved = self.no_pipe;
                        self.no_pipe = block;
                        let d = self.ternary();
                        self.no_pipe = saved;
                        Some(d?)
                    };
                    p.keywords.push((n, d));
                }
                Tok::Op("*") => {
                    self.skip();
                    let n = match self.peek().clone() {
                        Tok::Ident(n) => {
                            self.skip();
                            self.declare(&n);
                            n
                        }
                        _ => String::new(),
                    };
                    p.rest = Some(n);
                }
                Tok::Op("**") => {
                    self.skip();
                    let n = match self.peek().clone() {
                        Tok::Ident(n) => {
                            self.skip();
                            self.declare(&n);
                            n
                        }
                        _ => {
                            if is_kw(self.peek(), "nil") {
                                self.skip();
                            }
                            String::new()
                        }
                    };
                    p.kwrest = Some(n);
                }
                Tok::Op("&") => {
                    self.skip();
                    match self.bump() {
                        Tok::Ident(n) => {
                            self.declare(&n);
                            p.block = Some(n);
                        }
                        _ => return self.unsupported("anonymous block parameter `&'"),
                    }
                }
                Tok::Op("...") if !block && p.rest.is_none() => {
                    // `def f(a, ...)`: every other argument, keywords and block, for
                    // `g(...)` to pass on; held in locals no Ruby name can write.
                    self.skip();
                    for n in FORWARDED {
                        self.declare(n);
                    }
                    p.rest = Some(FORWARDED[0].into());
                    p.kwrest = Some(FORWARDED[1].into());
                    p.block = Some(FORWARDED[2].into());
                }
                Tok::Op("(") => {
                    self.skip();
                    let inner = self.destructure()?;
                    if p.rest.is_some() {
                        p.post.push(inner);
                    } else {
                        p.required.push(inner);
                    }
                }
                _ => return self.fail(format!("unexpected {} in parameters", self.describe())),
            }
            self.skip_nl();
            if self.eat_op(",") {
                if block && close.iter().any(|c| self.is_op(c)) {
                    p.trailing_comma = true;
                }
                continue;
            }
            break;
        }
        Ok(p)
    }

    /// `(a, (b, c), *d)` in a parameter list (the `(` is consumed).
    fn destructure(&mut self) -> PResult<Param> {
        let mut inner = Vec::new();
        loop {
            match self.bump() {
                Tok::Ident(n) => {
                    self.declare(&n);
                    inner.push(Param::Name(n));
                }
                Tok::Op("*") => match self.peek().clone() {
                    Tok::Ident(n) => {
                        self.skip();
                        self.declare(&n);
                        inner.push(Param::Splat(n));
                    }
                    _ => inner.push(Param::Splat(String::new())),
                },
                Tok::Op("(") => inner.push(self.destructure()?),
                _ => return self.fail("expected a parameter"),
            }
            if self.eat_op(",") {
                continue;
            }
            self.expect_op(")")?;
            break;
        }
        Ok(Param::Destructure(inner))
    }

    fn with_block_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.locals.push(false);
        let saved_no_do = self.no_do;
        let saved_args = self.args_level;
        self.no_do = 0;
        self.args_level = 0;
        let r = f(self);
        self.no_do = saved_no_do;
        self.args_level = saved_args;
        self.locals.pop();
        r
    }

    fn brace_block(&mut self) -> PResult<Arc<Block>> {
        self.expect_op("{")?;
        self.nested(|me| {
            me.with_block_scope(|p| {
                p.skip_nl();
                let (params, has_params) = p.block_params()?;
                let body = p.stmts(&[])?;
                p.skip_terms();
                p.expect_op("}")?;
                Ok(Arc::new(Block {
                    params,
                    has_params,
                    body,
                }))
            })
        })
    }

    fn do_block(&mut self) -> PResult<Arc<Block>> {
        self.skip(); // do
        self.nested(|me| {
            me.with_block_scope(|p| {
                p.skip_nl();
                let (params, has_params) = p.block_params()?;
                let body = p.body_with_rescue(&["end"])?;
                p.expect_kw("end")?;
                Ok(Arc::new(Block {
                    params,
                    has_params,
                    body,
                }))
            })
        })
    }

    /// `->(x) { ... }`, `-> x do ... end`.
    fn lambda(&mut self) -> PResult<Arc<Block>> {
        self.nested(|me| {
            me.with_block_scope(|p| {
                let params = if p.eat_op("(") {
                    let ps = p.param_list(&[")"], true)?;
                    p.expect_op(")")?;
                    ps
                } else if matches!(p.peek(), Tok::Ident(_) | Tok::Op("*") | Tok::Op("&")) {
                    p.param_list(&["{"], true)?
                } else {
                    Params::default()
                };
                let body = if p.eat_op("{") {
                    let b = p.stmts(&[])?;
                    p.skip_terms();
                    p.expect_op("}")?;
                    b
                } else if p.eat_kw("do") {
                    let b = p.body_with_rescue(&["end"])?;
                    p.expect_kw("end")?;
                    b
                } else {
                    return p.fail("expected a lambda body");
                };
                Ok(Arc::new(Block {
                    params,
                    has_params: true,
                    body,
                }))
            })
        })
    }

    /// A body that may carry `rescue`/`else`/`ensure` clauses (def, do-block, begin, class).
    fn body_with_rescue(&mut self, ends: &[&str]) -> PResult<Vec<Node>> {
        let pos = self.pos();
        let mut all_ends: Vec<&str> = ends.to_vec();
        all_ends.extend(["rescue", "ensure", "else"]);
        let body = self.stmts(&all_ends)?;
        if !(self.is_kw("rescue") || self.is_kw("ensure") || self.is_kw("else")) {
            return Ok(body);
        }
        let mut rescues = Vec::new();
        while self.eat_kw("rescue") {
            let mut classes = Vec::new();
            let mut var = None;
            while !matches!(self.peek(), Tok::Nl | Tok::Semi | Tok::Op("=>")) && !self.is_kw("then")
            {
                let cpos = self.pos();
                if self.eat_op("*") {
                    let e = self.ternary()?;
                    classes.push(node(Kind::Splat(Box::new(e)), cpos));
                } else {
                    classes.push(self.ternary()?);
                }
                if !self.eat_op(",") {
                    break;
                }
                self.skip_nl();
            }
            if self.eat_op("=>") {
                let vpos = self.pos();
                match self.peek().clone() {
                    Tok::Ident(n) => {
                        self.skip();
                        self.declare(&n);
                        var = Some(Box::new(node(Kind::LVar(n), vpos)));
                    }
                    Tok::IVar(n) => {
                        self.skip();
                        var = Some(Box::new(node(Kind::IVar(n), vpos)));
                    }
                    _ => return self.fail("expected a variable after `=>'"),
                }
            }
            self.eat_kw("then");
            let body = self.stmts(&all_ends)?;
            rescues.push(Rescue { classes, var, body });
        }
        let else_body = if self.eat_kw("else") {
            Some(self.stmts(&all_ends)?)
        } else {
            None
        };
        let ensure = if self.eat_kw("ensure") {
            Some(self.stmts(ends)?)
        } else {
            None
        };
        Ok(vec![node(
            Kind::Begin(body, rescues, else_body, ensure),
            pos,
        )])
    }

    fn ident_node(&mut self, name: String, pos: Pos) -> PResult<Node> {
        // `x [1]` with a local `x` is an index, `x -1` a subtraction: both are operators on
        // the variable, which the caller's postfix/binary handle; `x (1)` too.
        // A local followed by what can only start an argument (`type 'x'`, `f 1`) is a
        // command call all the same, as in Ruby.
        if (!self.is_op("(") || self.space_before())
            && self.is_local(&name)
            && !self.argument_follows()
        {
            return Ok(node(Kind::LVar(name), pos));
        }
        self.call_rest(None, name, pos, false)
    }

    #[inline]
    fn primary(&mut self) -> PResult<Node> {
        self.nested(|p| p.primary_inner())
    }

    fn primary_inner(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let mk = |kind| Node { kind, pos };
        match self.bump() {
            Tok::Int(n) => Ok(mk(Kind::Int(n))),
            Tok::Big(b) => Ok(mk(Kind::Big(b))),
            Tok::Float(f) => Ok(mk(Kind::Float(f))),
            Tok::Str(parts) => {
                let mut parts = self.parts(parts)?;
                // Adjacent string literals concatenate.
                while matches!(self.peek(), Tok::Str(_)) {
                    if let Tok::Str(more) = self.bump() {
                        parts.extend(self.parts(more)?);
                    }
                }
                Ok(mk(Kind::Str(parts)))
            }
            Tok::XStr(parts) => Ok(mk(Kind::XStr(self.parts(parts)?))),
            Tok::Sym(parts) => Ok(mk(Kind::Sym(self.parts(parts)?))),
            Tok::Regex(re) => {
                let (parts, flags) = *re;
                Ok(mk(Kind::Regex(self.parts(parts)?, flags)))
            }
            Tok::Words(words, sym) => {
                let mut items = Vec::with_capacity(words.len());
                for w in words {
                    let parts = self.parts(w)?;
                    items.push(Node {
                        kind: if sym {
                            Kind::Sym(parts)
                        } else {
                            Kind::Str(parts)
                        },
                        pos,
                    });
                }
                Ok(mk(Kind::Array(items)))
            }
            Tok::IVar(n) => Ok(mk(Kind::IVar(n))),
            Tok::CVar(n) => Ok(mk(Kind::CVar(n))),
            Tok::GVar(n) => {
                // `$1`...: the last match's groups; `$0` is the program's name.
                if let Some(k) = n.parse::<usize>().ok().filter(|k| *k > 0) {
                    Ok(mk(Kind::NthRef(k)))
                } else {
                    Ok(mk(Kind::GVar(n)))
                }
            }
            Tok::Label(l) => {
                // A label outside a hash/argument list: `cond ? a: b` style.
                self.i -= 1;
                self.fail(format!("unexpected label `{l}:'"))
            }
            Tok::Const(n) => {
                if self.is_op("(") && !self.space_before() {
                    return self.call_rest(None, n, pos, false);
                }
                if self.argument_follows() {
                    // `Integer "3"`, `Integer key`: a command call of a method named like a
                    // constant.
                    return self.call_rest(None, n, pos, false);
                }
                Ok(mk(Kind::Const(None, n)))
            }
            Tok::Op("::") => match self.bump() {
                Tok::Const(n) => Ok(mk(Kind::TopConst(n))),
                _ => self.fail("expected a constant after `::'"),
            },
            Tok::Op("(") => {
                self.skip_terms();
                if self.eat_op(")") {
                    return Ok(mk(Kind::Nil));
                }
                let saved = self.no_do;
                self.no_do = 0;
                let body = self.stmts(&[]);
                self.no_do = saved;
                let body = body?;
                self.skip_terms();
                self.expect_op(")")?;
                if body.len() == 1 {
                    Ok(body.into_iter().next().unwrap_or(mk(Kind::Nil)))
                } else {
                    Ok(mk(Kind::Seq(body)))
                }
            }
            Tok::Op("[") => {
                let items = self.call_args("]")?;
                Ok(mk(Kind::Array(
                    items
                        .into_iter()
                        .map(|n| match n.kind {
                            Kind::KwArgs(items) => Node {
                                kind: Kind::Hash(items),
                                pos: n.pos,
                            },
                            _ => n,
                        })
                        .collect(),
                )))
            }
            Tok::Op("{") => self.hash_literal(pos),
            Tok::Op("->") => {
                let b = self.lambda()?;
                Ok(mk(Kind::Lambda(b)))
            }
            Tok::Op(op @ (".." | "...")) => {
                // A beginless range (`..5`): its begin is nil.
                let excl = op == "...";
                let r = self.binary(0)?;
                Ok(mk(Kind::Range(
                    Box::new(node(Kind::Nil, pos)),
                    Box::new(r),
                    excl,
                )))
            }
            Tok::Op("*") => self.unsupported("splat outside an argument list"),
            Tok::Ident(name) => self.keyword_or_ident(name, pos),
            Tok::Put(_) | Tok::InsertBegin => {
                self.i -= 1;
                self.fail("template text inside an expression")
            }
            _ => {
                self.i -= 1;
                self.fail(format!("unexpected {}", self.describe()))
            }
        }
    }

    fn hash_literal(&mut self, pos: Pos) -> PResult<Node> {
        let mut items = Vec::new();
        let saved = self.no_do;
        self.no_do = 0;
        self.args_level += 1;
        let r = (|| -> PResult<()> {
            loop {
                self.skip_nl();
                if self.eat_op("}") {
                    return Ok(());
                }
                let kpos = self.pos();
                let str_key = matches!(self.peek(), Tok::Str(_))
                    && matches!(self.peek_n(1), Tok::Op(":"))
                    && !self.space_before_n(1);
                // Only a label or a `"str":` key is taken from the tokens here.
                let key = if matches!(self.peek(), Tok::Label(_)) || str_key {
                    self.bump()
                } else {
                    Tok::Eof
                };
                match key {
                    Tok::Label(l) => {
                        self.skip_nl();
                        let v = if matches!(self.peek(), Tok::Op(",") | Tok::Op("}")) {
                            self.ident_node(l.clone(), kpos)?
                        } else {
                            self.expr()?
                        };
                        items.push(HashItem::Pair(node(Kind::Sym(vec![Part::Lit(l)]), kpos), v));
                    }
                    Tok::Str(parts) => {
                        self.skip();
                        self.skip_nl();
                        let v = self.expr()?;
                        let parts = self.parts(parts)?;
                        items.push(HashItem::Pair(node(Kind::Sym(parts), kpos), v));
                    }
                    _ if self.is_op("**") => {
                        self.skip();
                        let e = self.ternary()?;
                        items.push(HashItem::Splat(e));
                    }
                    _ => {
                        let k = self.expr()?;
                        self.skip_nl();
                        self.expect_op("=>")?;
                        self.skip_nl();
                        let v = self.expr()?;
                        items.push(HashItem::Pair(k, v));
                    }
                }
                self.skip_nl();
                if self.eat_op(",") {
                    continue;
                }
                self.skip_nl();
                self.expect_op("}")?;
                return Ok(());
            }
        })();
        self.no_do = saved;
        self.args_level -= 1;
        r?;
        Ok(node(Kind::Hash(items), pos))
    }

    fn keyword_or_ident(&mut self, name: String, pos: Pos) -> PResult<Node> {
        let mk = |kind| Node { kind, pos };
        match name.as_str() {
            "nil" => Ok(mk(Kind::Nil)),
            "true" => Ok(mk(Kind::True)),
            "false" => Ok(mk(Kind::False)),
            "self" => Ok(mk(Kind::SelfRef)),
            "__FILE__" => {
                if self.wrapper_file {
                    Ok(call(None, "file", vec![], pos))
                } else {
                    Ok(mk(Kind::Str(vec![Part::Lit(self.file.to_string())])))
                }
            }
            "__LINE__" => Ok(mk(Kind::Int(i64::from(pos.line)))),
            "__method__" => Ok(mk(Kind::CurrentMethod)),
            // The source's encoding: always UTF-8 here.
            "__ENCODING__" => Ok(mk(Kind::Const(
                Some(Box::new(mk(Kind::Const(None, "Encoding".into())))),
                "UTF_8".into(),
            ))),
            "if" | "unless" => {
                let unless = name == "unless";
                let c = self.cond_expr()?;
                self.eat_then();
                let then = self.stmts(&["elsif", "else", "end"])?;
                let els = self.if_tail(unless)?;
                if unless {
                    Ok(mk(Kind::If(Box::new(c), els, then)))
                } else {
                    Ok(mk(Kind::If(Box::new(c), then, els)))
                }
            }
            "while" | "until" => {
                self.no_do += 1;
                let c = self.expr_stmt();
                self.no_do -= 1;
                let c = c?;
                self.eat_kw("do");
                let body = self.stmts(&["end"])?;
                self.expect_kw("end")?;
                Ok(mk(Kind::While {
                    cond: Box::new(c),
                    body,
                    until: name == "until",
                    do_while: false,
                }))
            }
            "for" => {
                let mut vars = Vec::new();
                loop {
                    match self.bump() {
                        Tok::Ident(n) => {
                            self.declare(&n);
                            vars.push(Param::Name(n));
                        }
                        Tok::Op("(") => vars.push(self.destructure()?),
                        _ => return self.fail("expected a loop variable"),
                    }
                    if !self.eat_op(",") {
                        break;
                    }
                }
                if !self.eat_kw("in") {
                    return self.fail("expected `in' in for loop");
                }
                self.no_do += 1;
                let it = self.expr_stmt();
                self.no_do -= 1;
                let it = it?;
                self.eat_kw("do");
                let body = self.stmts(&["end"])?;
                self.expect_kw("end")?;
                Ok(mk(Kind::For(vars, Box::new(it), body)))
            }
            "case" => {
                let subject = if matches!(self.peek(), Tok::Nl | Tok::Semi) {
                    None
                } else {
                    Some(Box::new(self.expr_stmt()?))
                };
                self.skip_terms();
                let mut whens = Vec::new();
                while self.eat_kw("when") {
                    let mut vals = Vec::new();
                    loop {
                        self.skip_nl();
                        let vpos = self.pos();
                        if self.eat_op("*") {
                            let e = self.ternary()?;
                            vals.push(node(Kind::Splat(Box::new(e)), vpos));
                        } else {
                            // A value may be an assignment (`when 'a', x[:k] = 1`).
                            vals.push(self.ternary_branch()?);
                        }
                        if !self.eat_op(",") {
                            break;
                        }
                    }
                    self.eat_then();
                    let body = self.stmts(&["when", "else", "end"])?;
                    whens.push((vals, body));
                }
                if self.is_kw("in") {
                    return match subject {
                        Some(subject) if whens.is_empty() => self.case_in(*subject, pos),
                        _ => self.fail("unexpected `in'"),
                    };
                }
                let els = if self.eat_kw("else") {
                    Some(self.stmts(&["end"])?)
                } else {
                    None
                };
                self.expect_kw("end")?;
                Ok(mk(Kind::Case(subject, whens, els)))
            }
            "begin" => {
                let body = self.body_with_rescue(&["end"])?;
                self.expect_kw("end")?;
                let n = match body.as_slice() {
                    [single] if matches!(single.kind, Kind::Begin(..)) => single.clone(),
                    // A plain `begin ... end` is kept as a `Begin` without clauses, so that a
                    // `while` modifier after it runs the body first.
                    _ => mk(Kind::Begin(body, Vec::new(), None, None)),
                };
                Ok(n)
            }
            "def" => self.def(pos),
            "class" => self.class_def(pos),
            "module" => self.module_def(pos),
            "return" | "next" | "break" => {
                let value = if matches!(
                    self.peek(),
                    Tok::Nl | Tok::Semi | Tok::Eof | Tok::Op("}") | Tok::Op(")") | Tok::InsertEnd
                ) || self.is_kw("if")
                    || self.is_kw("unless")
                    || self.is_kw("end")
                    || self.is_kw("while")
                    || self.is_kw("until")
                {
                    None
                } else {
                    let vpos = self.pos();
                    let v = self.rhs_item()?;
                    if self.is_op(",") || matches!(v.kind, Kind::Splat(_)) {
                        let mut items = vec![v];
                        while self.eat_op(",") {
                            self.skip_nl();
                            items.push(self.rhs_item()?);
                        }
                        Some(Box::new(node(Kind::Array(items), vpos)))
                    } else {
                        Some(Box::new(v))
                    }
                };
                Ok(mk(match name.as_str() {
                    "return" => Kind::Return(value),
                    "next" => Kind::Next(value),
                    _ => Kind::Break(value),
                }))
            }
            "retry" => Ok(mk(Kind::Retry)),
            "redo" => self.unsupported("`redo'"),
            "yield" => {
                let c = self.call_rest(None, name, pos, false)?;
                match c.kind {
                    Kind::Call {
                        args,
                        block: None,
                        block_arg: None,
                        ..
                    } => Ok(mk(Kind::Yield(args))),
                    _ => self.fail("block given to yield"),
                }
            }
            "super" => {
                let zsuper =
                    (!self.is_op("(") || self.space_before()) && !self.can_start_command_arg();
                let c = self.call_rest(None, name, pos, false)?;
                match c.kind {
                    Kind::Call {
                        args,
                        block,
                        block_arg,
                        ..
                    } => Ok(mk(Kind::Super {
                        args: if zsuper { None } else { Some(args) },
                        block,
                        block_arg,
                    })),
                    _ => self.fail("bad super"),
                }
            }
            "then" | "do" | "end" | "else" | "elsif" | "when" | "in" | "rescue" | "ensure"
            | "and" | "or" => {
                self.i -= 1;
                self.fail(format!("unexpected `{name}'"))
            }
            "alias" | "undef" => {
                self.i -= 1;
                self.fail(format!("unexpected `{name}'"))
            }
            _ => self.ident_node(name, pos),
        }
    }

    /// `def name(params) ... end`, `def self.name`, `def obj.name`, setters and operators.
    fn def(&mut self, pos: Pos) -> PResult<Node> {
        let mut recv: Option<Box<Node>> = None;
        let first_pos = self.pos();
        // `def @obj.name`: a singleton method of an instance variable's value.
        if let (Tok::IVar(n), Tok::Op(".")) = (self.peek(), self.peek_n(1)) {
            recv = Some(Box::new(node(Kind::IVar(n.clone()), first_pos)));
            self.skip();
            self.skip();
        }
        let mut fname = match self.bump() {
            Tok::Ident(n) => n,
            Tok::Const(n) => n,
            Tok::Op("[") => {
                self.expect_op("]")?;
                "[]".to_string()
            }
            Tok::Op(op)
                if matches!(
                    op,
                    "+" | "-"
                        | "*"
                        | "/"
                        | "%"
                        | "**"
                        | "=="
                        | "!="
                        | "==="
                        | "=~"
                        | "<=>"
                        | "<"
                        | ">"
                        | "<="
                        | ">="
                        | "<<"
                        | ">>"
                        | "&"
                        | "|"
                        | "^"
                        | "!"
                        | "~"
                ) =>
            {
                op.to_string()
            }
            Tok::Label(n) => {
                // `def x:` is not Ruby; `def self.x` lexes as Ident.
                return self.fail(format!("unexpected label `{n}:'"));
            }
            _ => return self.fail("expected a method name"),
        };
        if recv.is_none() && (self.is_op(".") || self.is_op("::")) && !self.space_before() {
            // `def self.x` / `def Const.x` / `def obj.x` (or `::` for `.`).
            self.skip();
            recv = Some(Box::new(match fname.as_str() {
                "self" => node(Kind::SelfRef, first_pos),
                n if n.starts_with(|c: char| c.is_uppercase()) => {
                    node(Kind::Const(None, n.to_string()), first_pos)
                }
                n if self.is_local(n) => node(Kind::LVar(n.to_string()), first_pos),
                _ => return self.unsupported("def on a method's result"),
            }));
            fname = match self.bump() {
                Tok::Ident(n) | Tok::Const(n) => n,
                Tok::Op("[") => {
                    self.expect_op("]")?;
                    "[]".to_string()
                }
                Tok::Op(op) if !matches!(op, "(" | "{" | "=" | ",") => op.to_string(),
                _ => return self.fail("expected a method name"),
            };
        }
        // A setter `def x=(v)`, `def x= v` (the lexer gives `x` then `=`): an `=` right
        // after the name is part of it (an endless `def x = v` has a space before it).
        if self.is_op("=") && !self.space_before() && is_ident_name(&fname) {
            self.skip();
            fname.push('=');
        } else if fname == "[]" && self.is_op("=") && !self.space_before() {
            self.skip();
            fname = "[]=".into();
        }
        // `def ~@`, `def !@` define `~` and `!` (only `+@`/`-@` keep their `@`).
        if fname == "~@" || fname == "!@" {
            fname.pop();
        }
        // Method body has its own local scope.
        self.locals.push(true);
        let r = (|| -> PResult<Def> {
            let params = if self.eat_op("(") {
                let p = self.param_list(&[")"], false)?;
                self.skip_nl();
                self.expect_op(")")?;
                p
            } else if matches!(
                self.peek(),
                Tok::Ident(_)
                    | Tok::Label(_)
                    | Tok::Op("*")
                    | Tok::Op("**")
                    | Tok::Op("&")
                    | Tok::Op("(")
            ) {
                self.param_list(&[], false)?
            } else {
                Params::default()
            };
            if self.eat_op("=") {
                // `def name(args) = expression`.
                self.skip_nl();
                let e = self.stmt()?;
                return Ok(Def {
                    name: fname.clone(),
                    params,
                    body: vec![e],
                    file: self.file.clone(),
                    frozen_literals: self.frozen_literals,
                });
            }
            let body = self.body_with_rescue(&["end"])?;
            self.expect_kw("end")?;
            Ok(Def {
                name: fname.clone(),
                params,
                body,
                file: self.file.clone(),
                frozen_literals: self.frozen_literals,
            })
        })();
        self.locals.pop();
        Ok(node(Kind::Def(recv, Arc::new(r?)), pos))
    }

    /// The constant path after `class`/`module`: `Foo`, `Foo::Bar`, `::Foo`.
    fn cpath(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let mut n = match self.bump() {
            Tok::Const(c) => node(Kind::Const(None, c), pos),
            Tok::Op("::") => match self.bump() {
                Tok::Const(c) => node(Kind::TopConst(c), pos),
                _ => return self.fail("expected a constant name"),
            },
            _ => {
                self.i -= 1;
                return self.fail("class/module name must be CONSTANT");
            }
        };
        while self.is_op("::") {
            self.skip();
            match self.bump() {
                Tok::Const(c) => n = node(Kind::Const(Some(Box::new(n)), c), pos),
                _ => return self.fail("expected a constant name"),
            }
        }
        Ok(n)
    }

    fn class_def(&mut self, pos: Pos) -> PResult<Node> {
        if self.is_op("<<") {
            self.skip();
            let target = self.expr()?;
            self.locals.push(true);
            let body = self.body_with_rescue(&["end"]);
            self.locals.pop();
            let body = body?;
            self.expect_kw("end")?;
            return Ok(node(Kind::SClass(Box::new(target), Arc::new(body)), pos));
        }
        let path = self.cpath()?;
        let superclass = if self.eat_op("<") {
            Some(self.expr()?)
        } else {
            None
        };
        self.locals.push(true);
        let body = self.body_with_rescue(&["end"]);
        self.locals.pop();
        let body = body?;
        self.expect_kw("end")?;
        Ok(node(
            Kind::Class(Arc::new(ModuleBody {
                path,
                superclass,
                body,
            })),
            pos,
        ))
    }

    fn module_def(&mut self, pos: Pos) -> PResult<Node> {
        let path = self.cpath()?;
        self.locals.push(true);
        let body = self.body_with_rescue(&["end"]);
        self.locals.pop();
        let body = body?;
        self.expect_kw("end")?;
        Ok(node(
            Kind::Module(Arc::new(ModuleBody {
                path,
                superclass: None,
                body,
            })),
            pos,
        ))
    }

    fn cond_expr(&mut self) -> PResult<Node> {
        match self.leaf_operand(false)? {
            Some(n) => Ok(n),
            None => self.expr_stmt(),
        }
    }

    /// The `in` clauses of `case subject` (pattern matching), from the first `in`.
    fn case_in(&mut self, subject: Node, pos: Pos) -> PResult<Node> {
        let mut clauses = Vec::new();
        while self.is_kw("in") {
            let cpos = self.pos();
            self.skip();
            let pat = self.top_pattern()?;
            let guard = if self.eat_kw("if") {
                Some((false, self.expr_stmt()?))
            } else if self.eat_kw("unless") {
                Some((true, self.expr_stmt()?))
            } else {
                None
            };
            self.eat_then();
            let body = self.stmts(&["in", "else", "end"])?;
            clauses.push(InClause {
                pat,
                guard,
                body,
                pos: cpos,
            });
        }
        let els = if self.eat_kw("else") {
            Some(self.stmts(&["end"])?)
        } else {
            None
        };
        self.expect_kw("end")?;
        Ok(node(Kind::CaseIn(Box::new(subject), clauses, els), pos))
    }

    /// Whether the next token ends a pattern element (`,`, a closing bracket, the guard,
    /// `then`, the line's end).
    fn pattern_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Nl
                | Tok::Semi
                | Tok::Eof
                | Tok::Op(",")
                | Tok::Op("]")
                | Tok::Op(")")
                | Tok::Op("}")
                | Tok::Op("|")
                | Tok::Op("=>")
        ) || self.is_kw("then")
            || self.is_kw("if")
            || self.is_kw("unless")
    }

    /// The pattern of an `in` clause: a pattern, or an array or hash pattern without its
    /// brackets (`in a, *rest`, `in name:, **nil`).
    fn top_pattern(&mut self) -> PResult<Pat> {
        if matches!(self.peek(), Tok::Label(_)) || self.is_op("**") {
            return self.hash_pattern(None, None);
        }
        let first = self.pattern_elem()?;
        if !self.is_op(",") {
            if let PatElem::Pat(p) = first {
                return Ok(p);
            }
        }
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.pattern_end() {
                // `in a,`: the rest is open.
                items.push(PatElem::Splat(None));
                break;
            }
            items.push(self.pattern_elem()?);
        }
        self.array_pattern(None, items)
    }

    fn pattern_elem(&mut self) -> PResult<PatElem> {
        if self.eat_op("*") {
            return Ok(match self.peek().clone() {
                Tok::Ident(n) if !is_reserved(&n) => {
                    self.skip();
                    self.declare(&n);
                    PatElem::Splat(Some(n))
                }
                _ => PatElem::Splat(None),
            });
        }
        Ok(PatElem::Pat(self.alt_pattern()?))
    }

    /// `pat | pat ... [=> name]`.
    fn alt_pattern(&mut self) -> PResult<Pat> {
        let mut alts = vec![self.primary_pattern()?];
        while self.eat_op("|") {
            self.skip_nl();
            alts.push(self.primary_pattern()?);
        }
        let mut p = match alts.len() {
            1 => alts.remove(0),
            _ => Pat::Alt(alts),
        };
        while self.eat_op("=>") {
            match self.bump() {
                Tok::Ident(n) if !is_reserved(&n) => {
                    self.declare(&n);
                    p = Pat::Capture(Box::new(p), n);
                }
                _ => {
                    self.i -= 1;
                    return self.fail("expected a variable name after `=>' in a pattern");
                }
            }
        }
        Ok(p)
    }

    fn primary_pattern(&mut self) -> PResult<Pat> {
        self.nested(|p| p.primary_pattern_inner())
    }

    fn primary_pattern_inner(&mut self) -> PResult<Pat> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Op("[") => {
                self.skip();
                let items = self.pattern_items("]")?;
                self.array_pattern(None, items)
            }
            Tok::Op("{") => {
                self.skip();
                self.hash_pattern(None, Some("}"))
            }
            Tok::Op("^") => {
                self.skip();
                match self.peek().clone() {
                    Tok::Ident(n) if !is_reserved(&n) => {
                        self.skip();
                        Ok(Pat::Pin(node(Kind::LVar(n), pos)))
                    }
                    Tok::IVar(n) => {
                        self.skip();
                        Ok(Pat::Pin(node(Kind::IVar(n), pos)))
                    }
                    Tok::Op("(") => Ok(Pat::Pin(self.primary()?)),
                    _ => self.unsupported("this pinned expression in a pattern"),
                }
            }
            Tok::Ident(n) if !is_reserved(&n) => {
                self.skip();
                self.declare(&n);
                Ok(Pat::Bind(n))
            }
            Tok::Const(_) => {
                let mut k = match self.bump() {
                    Tok::Const(n) => node(Kind::Const(None, n), pos),
                    _ => return self.fail("expected a constant"),
                };
                while self.is_op("::") && matches!(self.peek_n(1), Tok::Const(_)) {
                    self.skip();
                    if let Tok::Const(n) = self.bump() {
                        k = node(Kind::Const(Some(Box::new(k)), n), pos);
                    }
                }
                if !self.space_before() && (self.is_op("(") || self.is_op("[")) {
                    let close = if self.is_op("(") { ")" } else { "]" };
                    self.skip();
                    self.skip_nl();
                    if matches!(self.peek(), Tok::Label(_)) || self.is_op("**") {
                        return self.hash_pattern(Some(k), Some(close));
                    }
                    let items = self.pattern_items(close)?;
                    return self.array_pattern(Some(k), items);
                }
                self.range_pattern(k)
            }
            _ => {
                let v = self.binary(5)?;
                self.range_pattern(v)
            }
        }
    }

    /// A value pattern, or a range from it (`1..3`, `4..`).
    fn range_pattern(&mut self, v: Node) -> PResult<Pat> {
        if !(self.is_op("..") || self.is_op("...")) {
            return Ok(Pat::Value(v));
        }
        let pos = v.pos;
        let excl = self.is_op("...");
        self.skip();
        let end = if self.pattern_end() {
            node(Kind::Nil, pos)
        } else {
            self.binary(5)?
        };
        Ok(Pat::Value(node(
            Kind::Range(Box::new(v), Box::new(end), excl),
            pos,
        )))
    }

    /// The elements of a bracketed array pattern, through `close`.
    fn pattern_items(&mut self, close: &str) -> PResult<Vec<PatElem>> {
        let mut items = Vec::new();
        loop {
            self.skip_nl();
            if self.eat_op(close) {
                break;
            }
            items.push(self.pattern_elem()?);
            self.skip_nl();
            if !self.eat_op(",") {
                self.expect_op(close)?;
                break;
            }
        }
        Ok(items)
    }

    /// An array pattern (one splat at most) or a find pattern (`[*, x, *]`).
    fn array_pattern(&mut self, konst: Option<Node>, items: Vec<PatElem>) -> PResult<Pat> {
        let splats = items
            .iter()
            .filter(|e| matches!(e, PatElem::Splat(_)))
            .count();
        let konst = konst.map(Box::new);
        let n = items.len();
        if splats == 2 && n >= 3 {
            if let (Some(PatElem::Splat(_)), Some(PatElem::Splat(_))) =
                (items.first(), items.last())
            {
                let mut it = items.into_iter();
                let Some(PatElem::Splat(pre)) = it.next() else {
                    return self.fail("a find pattern");
                };
                let mut mid = Vec::new();
                let mut post = None;
                for e in it {
                    match e {
                        PatElem::Pat(p) => mid.push(p),
                        PatElem::Splat(s) => post = s,
                    }
                }
                return Ok(Pat::Find {
                    konst,
                    pre,
                    mid,
                    post,
                });
            }
        }
        if splats > 1 {
            return self.fail("more than one splat in an array pattern");
        }
        let mut pre = Vec::new();
        let mut post = Vec::new();
        let mut rest = None;
        for e in items {
            match e {
                PatElem::Splat(s) => rest = Some(s),
                PatElem::Pat(p) if rest.is_none() => pre.push(p),
                PatElem::Pat(p) => post.push(p),
            }
        }
        Ok(Pat::Array {
            konst,
            pre,
            rest,
            post,
        })
    }

    /// A hash pattern's pairs (`key: pat`, `key:`, `**rest`, `**nil`), through `close`
    /// when it has brackets.
    fn hash_pattern(&mut self, konst: Option<Node>, close: Option<&str>) -> PResult<Pat> {
        let mut pairs = Vec::new();
        let mut rest = HashRest::Open;
        loop {
            if let Some(c) = close {
                self.skip_nl();
                if self.eat_op(c) {
                    break;
                }
            }
            match self.peek().clone() {
                Tok::Label(l) => {
                    self.skip();
                    if self.pattern_end() && !self.is_op("|") && !self.is_op("=>") {
                        self.declare(&l);
                        pairs.push((l, None));
                    } else {
                        pairs.push((l, Some(self.alt_pattern()?)));
                    }
                }
                Tok::Op("**") => {
                    self.skip();
                    match self.bump() {
                        Tok::Ident(n) if n == "nil" => rest = HashRest::Nil,
                        Tok::Ident(n) if !is_reserved(&n) => {
                            self.declare(&n);
                            rest = HashRest::Named(n);
                        }
                        _ => {
                            self.i -= 1;
                            return self.unsupported("this `**' in a hash pattern");
                        }
                    }
                }
                _ => return self.unsupported("this key in a hash pattern (only `name:' keys)"),
            }
            if !self.eat_op(",") {
                if let Some(c) = close {
                    self.skip_nl();
                    self.expect_op(c)?;
                }
                break;
            }
        }
        Ok(Pat::Hash {
            konst: konst.map(Box::new),
            pairs,
            rest,
        })
    }

    fn eat_then(&mut self) {
        while matches!(self.peek(), Tok::Nl | Tok::Semi) {
            self.skip();
        }
        if self.eat_kw("then") {
            self.skip_terms();
        }
    }

    fn if_tail(&mut self, unless: bool) -> PResult<Vec<Node>> {
        self.skip_terms();
        let pos = self.pos();
        if self.eat_kw("elsif") {
            if unless {
                return self.fail("`elsif' in an `unless'");
            }
            let c = self.cond_expr()?;
            self.eat_then();
            let then = self.stmts(&["elsif", "else", "end"])?;
            let els = self.nested(|p| p.if_tail(false))?;
            return Ok(vec![node(Kind::If(Box::new(c), then, els), pos)]);
        }
        if self.eat_kw("else") {
            let els = self.stmts(&["end"])?;
            self.expect_kw("end")?;
            return Ok(els);
        }
        self.expect_kw("end")?;
        Ok(vec![])
    }

    /// Parses the code of interpolated parts.
    fn parts(&mut self, mut parts: Vec<StrPart>) -> PResult<Vec<Part>> {
        // Most literals are one piece of text: moved over without an iterator.
        if let [StrPart::Lit(s)] = parts.as_mut_slice() {
            return Ok(vec![Part::Lit(std::mem::take(s))]);
        }
        // Collected in place: a literal's parts become the node's without a new vector.
        parts.into_iter().map(|p| self.part(p)).collect()
    }

    /// One part of a literal: its text, or its code parsed in this scope.
    fn part(&mut self, p: StrPart) -> PResult<Part> {
        match p {
            StrPart::Lit(s) => Ok(Part::Lit(s)),
            StrPart::Code(mut toks) => {
                let end_pos = toks.last().map(|t| t.pos).unwrap_or_else(|| self.pos());
                toks.push(Token {
                    tok: Tok::Eof,
                    pos: end_pos,
                    space_before: true,
                });
                // The code sees this scope's locals and declares into it.
                let mut sub = Parser {
                    toks,
                    i: 0,
                    locals: std::mem::take(&mut self.locals),
                    depth: self.depth,
                    no_do: 0,
                    prev_pred: false,
                    file: self.file.clone(),
                    template: self.template,
                    wrapper_file: self.wrapper_file,
                    args_level: 0,
                    no_pipe: false,
                    frozen_literals: self.frozen_literals,
                };
                let body = sub.stmts(&[]);
                self.locals = std::mem::take(&mut sub.locals);
                let body = body?;
                if !sub.at_eof() {
                    return sub.fail(format!("unexpected {} in interpolation", sub.describe()));
                }
                Ok(Part::Code(body))
            }
        }
    }
}

fn kwargs_node(items: Vec<HashItem>) -> Node {
    let pos = match items.first() {
        Some(HashItem::Pair(k, _)) => k.pos,
        Some(HashItem::Splat(e)) => e.pos,
        None => Pos::default(),
    };
    node(Kind::KwArgs(items), pos)
}

/// The named groups of a regexp literal without interpolation (`(?<name>...)`,
/// `(?'name'...)`), which `re =~ s` assigns to local variables of those names, as Ruby
/// does; `None` for anything else (a regexp with `#{}` assigns nothing in Ruby either).
fn named_groups(n: &Node) -> Option<Vec<String>> {
    let Kind::Regex(parts, _) = &n.kind else {
        return None;
    };
    let [Part::Lit(src)] = parts.as_slice() else {
        return None;
    };
    let b = src.as_bytes();
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'(' if b.get(i + 1) == Some(&b'?') => {
                let close = match b.get(i + 2) {
                    Some(b'<') if !matches!(b.get(i + 3), Some(b'=' | b'!')) => b'>',
                    Some(b'\'') => b'\'',
                    _ => {
                        i += 1;
                        continue;
                    }
                };
                let start = i + 3;
                let len = b[start..].iter().position(|&c| c == close)?;
                let name = &src[start..start + len];
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c == '_' || c.is_alphabetic())
                    && name.chars().all(|c| c == '_' || c.is_alphanumeric());
                // Ruby assigns only names that can be local variables.
                if valid
                    && name.chars().next().is_some_and(|c| !c.is_uppercase())
                    && !is_reserved(name)
                    && !names.iter().any(|x| x == name)
                {
                    names.push(name.to_string());
                }
                i = start + len + 1;
            }
            _ => i += 1,
        }
    }
    (!names.is_empty()).then_some(names)
}

/// `re =~ s` with named groups: the match, then each group's text (nil when the match
/// failed) assigned to its local variable, the value being the match's.
fn match_assigning_groups(re: Node, subject: Node, names: Vec<String>, pos: Pos) -> Node {
    // A name no Ruby code can spell holds the match's value.
    let tmp = || node(Kind::LVar(" match".to_string()), pos);
    let mut seq = vec![node(
        Kind::Assign(
            Box::new(tmp()),
            Box::new(call(Some(re), "=~", vec![subject], pos)),
        ),
        pos,
    )];
    for n in names {
        let md = || node(Kind::GVar("~".to_string()), pos);
        let group = call(
            Some(md()),
            "[]",
            vec![node(Kind::Str(vec![Part::Lit(n.clone())]), pos)],
            pos,
        );
        let value = node(Kind::And(Box::new(md()), Box::new(group)), pos);
        seq.push(node(
            Kind::Assign(Box::new(node(Kind::LVar(n), pos)), Box::new(value)),
            pos,
        ));
    }
    seq.push(tmp());
    node(Kind::Seq(seq), pos)
}

fn call(recv: Option<Node>, name: &str, args: Vec<Node>, pos: Pos) -> Node {
    node(
        Kind::Call {
            recv: recv.map(Box::new),
            name: name.to_string(),
            args,
            block: None,
            block_arg: None,
            safe: false,
        },
        pos,
    )
}

fn is_assign_op(op: &str) -> bool {
    matches!(
        op,
        "+=" | "-="
            | "*="
            | "/="
            | "%="
            | "**="
            | "||="
            | "&&="
            | "|="
            | "&="
            | "^="
            | "<<="
            | ">>="
    )
}

/// The locals of a `...` parameter (rest, keywords, block): names no Ruby code can write.
const FORWARDED: [&str; 3] = ["...*", "...**", "...&"];

fn is_ident_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && !is_predicate_name(name)
}

/// Whether an identifier is a keyword. A match on the bytes: each arm compares the length and
/// a few bytes inline (a match on `str` calls `memcmp` per arm of the same length).
fn is_reserved(name: &str) -> bool {
    matches!(
        name.as_bytes(),
        b"if"
            | b"unless"
            | b"while"
            | b"until"
            | b"and"
            | b"or"
            | b"not"
            | b"then"
            | b"do"
            | b"end"
            | b"else"
            | b"elsif"
            | b"case"
            | b"when"
            | b"in"
            | b"for"
            | b"begin"
            | b"rescue"
            | b"ensure"
            | b"def"
            | b"return"
            | b"next"
            | b"break"
            | b"nil"
            | b"true"
            | b"false"
            | b"self"
            | b"defined?"
            | b"class"
            | b"module"
            | b"yield"
            | b"super"
            | b"alias"
            | b"undef"
            | b"retry"
            | b"redo"
            | b"__FILE__"
            | b"__LINE__"
            | b"__method__"
    )
}

fn make_assign(target: Node, op: &str, value: Node, pos: Pos) -> Node {
    if op == "=" {
        node(Kind::Assign(Box::new(target), Box::new(value)), pos)
    } else {
        let bare = op.trim_end_matches('=').to_string();
        node(Kind::OpAssign(Box::new(target), bare, Box::new(value)), pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Turns [`Parser::leaf_operand`] off, for the test that it changes nothing.
        pub(super) static NO_LEAF_FAST_PATH: std::cell::Cell<bool> =
            const { std::cell::Cell::new(false) };
    }

    /// Parses `src` as a file and as a template, with and without the leaf fast path: the
    /// trees and the errors must be the same.
    fn same_without_fast_path(src: &str) {
        let both = |f: &dyn Fn() -> PResult<Program>| {
            NO_LEAF_FAST_PATH.with(|c| c.set(true));
            let general = f();
            NO_LEAF_FAST_PATH.with(|c| c.set(false));
            assert_eq!(f(), general, "{src:?}");
        };
        both(&|| parse_file(src, "t.rb"));
        both(&|| {
            let toks = crate::lexer::lex_pieces(vec![
                crate::Piece::Text("a\n".into()),
                crate::Piece::Insert(src.to_string(), Pos { line: 2, column: 4 }),
                crate::Piece::Text("b\n".into()),
                crate::Piece::Code(src.to_string(), Pos { line: 3, column: 3 }),
            ])?;
            parse_program(toks, "t.erb", true)
        });
    }

    #[test]
    fn leaf_fast_path_changes_nothing() {
        let snippets = [
            "newparam(:name, :namevar => true)\nnewvalues(:a, 'b', \"c\", 1, 2.5, @x, @@y, Z)\n",
            "@x\n@@y\nZ\n1\n2.0\n:s\n'str'\n\"str\"\n",
            "f(@a, :b => @c, d: :e)\n[1, :two, 'three', @four]\n{ :a => 1, 'b' => @c }\n",
            "@a, @b = 1, 2\nX, Y = 3, 4\n@a = 1\n@b ||= :x\n:a ? 1 : 2\n",
            "x = \"a#{@b}c\"\nf(\"#{1}\", :\"s#{2}\")\ndefaultto :present\n",
            "Integer \"3\"\nFoo(1)\nFoo::Bar\n@x.y\n1 + 2\n@x if @y\n:a .. :b\n",
            "f(1,\n  2,\n)\ng 1, 2\nh :a => 1, :b => 2\n",
            "f(1 => 2, 3)\n",
            "x = 1\nf(x, y, z?, w!, $g, $1, /re/i, %w[a b], %i[c])\nx\ny\n[x, y]\n",
            "a, b = c\nd\ne, f\nputs x\nrequire 'y'\nself\nnil\ntrue\n__FILE__\n__method__\n",
            "def m(a)\n  a\n  b\n  yield\n  super\nend\n[1].each { |v| v }\n[2].map do |w|\n  w\nend\n",
            "f(not)\nf(end)\nx = y\n",
            "if @x\n  1\nelsif y then 2\nelse\n  3\nend\nwhile z; end\nunless /r/\nend\nif 1..2; end\n",
            "case x\nwhen 1 then :a\nwhen @b, C\n  d\nend\nuntil q do\nend\n",
            "f(:a, &b, :c)\n",
            "x = [1, 2]]\n",
            "(:a)\n[(@b)]\nbegin\n  @x\nrescue\n  :y\nend\n",
            "def f(a = 1, b: :c)\n  @x\nend\n",
            "\"#{@x}\" 'y'\n",
            "'a' 'b'\n",
            "@x =>\n",
            "1,\n",
        ];
        for s in snippets {
            same_without_fast_path(s);
        }
        // Nesting up to and past the bound (each level of these is about 11 deep).
        let mut errors = 0;
        let around = MAX_DEPTH / 11;
        for depth in around - 6..=around + 6 {
            for (open, close, leaf) in [("f(", ")", ":x"), ("[", "]", "@x"), ("g(1, ", ")", "2")] {
                let src = format!("{}{leaf}{}\n", open.repeat(depth), close.repeat(depth));
                same_without_fast_path(&src);
                errors += usize::from(parse_file(&src, "t.rb").is_err());
            }
        }
        assert!(errors > 0 && errors < 39, "{errors}");
        // The prelude, and the resource types of the module corpus when it is there.
        for text in [
            include_str!("prelude/set.rb"),
            include_str!("prelude/shellwords.rb"),
            include_str!("prelude/uri.rb"),
            include_str!("prelude/pathname.rb"),
            include_str!("prelude/ostruct.rb"),
            include_str!("prelude/forwardable.rb"),
            include_str!("prelude/rubygems.rb"),
            include_str!("prelude/resolv.rb"),
            include_str!("prelude/openssl.rb"),
        ] {
            same_without_fast_path(text);
        }
        let Ok(mods) = std::fs::read_dir("/usr/share/puppet/modules") else {
            return;
        };
        for m in mods.flatten() {
            let Ok(types) = std::fs::read_dir(m.path().join("lib/puppet/type")) else {
                continue;
            };
            for t in types.flatten() {
                if let Ok(text) = std::fs::read_to_string(t.path()) {
                    same_without_fast_path(&text);
                }
            }
        }
    }

    fn ok(src: &str) -> Program {
        match parse_file(src, "t.rb") {
            Ok(p) => p,
            Err(e) => panic!("{src:?}: {e:?}"),
        }
    }

    /// Whether the last statement of `src` reads a local variable (not a method call).
    fn last_is_local(src: &str) -> bool {
        matches!(ok(src).body.last().map(|n| &n.kind), Some(Kind::LVar(_)))
    }

    #[test]
    fn local_scopes() {
        // A block sees the locals around it; what it declares goes with it.
        assert!(last_is_local("x = 1\n[1].each { |y| x = y }\nx\n"));
        assert!(!last_is_local("[1].each { |y| z = y }\nz\n"));
        assert!(last_is_local(
            "[1].each do |y|\n  z = y\n  [2].map { z }\n  z\nend\nq = 1\nq\n"
        ));
        // A method body sees none of them.
        let p = ok("x = 1\ndef f\n  x\nend\n");
        let Some(Kind::Def(_, d)) = p.body.last().map(|n| &n.kind) else {
            panic!("{p:?}")
        };
        assert!(!matches!(
            d.body.last().map(|n| &n.kind),
            Some(Kind::LVar(_))
        ));
        // An interpolation declares into the scope it is in.
        assert!(last_is_local("s = \"#{w = 1}\"\nw\n"));
        assert!(!last_is_local("[1].each { \"#{v = 1}\" }\nv\n"));
    }

    #[test]
    fn module_shapes_parse() {
        ok("module A\n  module B\n    class C < D::E\n      X = 1\n      attr_reader :a, :b\n      def initialize(a, b = 2, *c, d:, e: 3, **f, &g)\n        @a = a\n        super\n      end\n      def self.x; end\n      class << self\n        def y; end\n      end\n      def ==(o)\n        o\n      end\n    end\n  end\nend\n").body.len();
    }

    #[test]
    fn heredocs_and_commands() {
        let p = ok("newfunction(:x, :type => :rvalue, :doc => <<-EOS\n  doc\n  EOS\n) do |args|\n  args[0]\nend\n");
        assert_eq!(p.body.len(), 1);
        let p = ok("x = <<~A + <<~B\n  one\nA\n  two\nB\ny = 1\n");
        assert_eq!(p.body.len(), 2);
    }

    #[test]
    fn multiple_assignment() {
        ok("a, b = 1, 2\n*a, b = x\n(a, b), c = [[1, 2], 3]\n@x, h[:k] = 1, 2\nfirst, *rest = list\n");
    }

    #[test]
    fn do_binds_to_the_command() {
        let p = ok("dispatch :foo do\n  param 'String', :x\nend\n");
        match &p.body[0].kind {
            Kind::Call { name, block, .. } => {
                assert_eq!(name, "dispatch");
                assert!(block.is_some());
            }
            other => panic!("{other:?}"),
        }
    }
}
