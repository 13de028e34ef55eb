//! The parser for template code: a recursive-descent parser for the Ruby subset templates
//! use, with Ruby's operator precedence (`not`/`and`/`or` below assignment, `!`/`&&`/`||`
//! above it), modifiers, blocks, command calls without parentheses and `def` helpers.
//!
//! Like Ruby, it decides at parse time whether a bare identifier is a local variable (it was
//! assigned before, or is a block or method parameter) or a method call. Constructs outside
//! the subset produce an error flagged as unsupported, so the caller can tell "Ruby would
//! reject this" from "we do not implement this". Nesting depth is bounded, so no input can
//! overflow the stack.

use crate::ast::{Block, Def, Kind, Node, Param, Part, Rescue};
use crate::lexer::{StrPart, Tok, Token};
use crate::Pos;
use std::collections::HashSet;
use std::rc::Rc;

/// A parse error.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub pos: Pos,
    pub message: String,
    pub unsupported: bool,
}

type PResult<T> = Result<T, ParseError>;

const MAX_DEPTH: usize = 200;

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
    /// The template's own code (run by `eval`).
    Top,
    /// A `def` body outside any loop or block.
    Def,
    /// A `while`/`until`/`for` body or a block: jumps are fine.
    Loop,
}

/// Checks of the whole tree after parsing. Ruby refuses to compile `break` and `next` outside
/// a loop or a block ("Can't escape from eval with break" in the template's code, "Invalid
/// break" in a `def`), so the whole template fails even when the statement is never reached;
/// so do we. Conditions are checked with [`check_cond`].
fn check_jumps(nodes: &[Node], in_loop: JumpCtx) -> PResult<()> {
    nodes.iter().try_for_each(|n| check_jump(n, in_loop))
}

fn check_jump(n: &Node, in_loop: JumpCtx) -> PResult<()> {
    let one = |x: &Node| check_jump(x, in_loop);
    let parts = |ps: &[Part]| {
        ps.iter().try_for_each(|p| match p {
            Part::Lit(_) => Ok(()),
            Part::Code(c) => check_jumps(c, in_loop),
        })
    };
    match &n.kind {
        Kind::Next(_) | Kind::Break(_) if in_loop != JumpCtx::Loop => {
            let what = if matches!(n.kind, Kind::Next(_)) {
                "next"
            } else {
                "break"
            };
            Err(ParseError {
                pos: n.pos,
                message: if in_loop == JumpCtx::Top {
                    format!("Can't escape from eval with {what}")
                } else {
                    format!("Invalid {what}")
                },
                unsupported: false,
            })
        }
        Kind::Next(v) | Kind::Break(v) | Kind::Return(v) => v.as_deref().map_or(Ok(()), one),
        Kind::Str(ps) | Kind::Sym(ps) | Kind::Regex(ps, _) => parts(ps),
        Kind::Array(xs) | Kind::Seq(xs) | Kind::Insert(xs) => check_jumps(xs, in_loop),
        Kind::Hash(kv) => kv.iter().try_for_each(|(k, v)| {
            one(k)?;
            one(v)
        }),
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
            recv, args, block, ..
        } => {
            recv.as_deref().map_or(Ok(()), one)?;
            check_jumps(args, in_loop)?;
            match block {
                Some(b) => check_jumps(&b.body, JumpCtx::Loop),
                None => Ok(()),
            }
        }
        Kind::MultiAssign(xs, v) => {
            check_jumps(xs, in_loop)?;
            one(v)
        }
        Kind::If(c, a, b) => {
            check_cond(c)?;
            one(c)?;
            check_jumps(a, in_loop)?;
            check_jumps(b, in_loop)
        }
        Kind::While(c, body, _) => {
            check_cond(c)?;
            one(c)?;
            check_jumps(body, JumpCtx::Loop)
        }
        Kind::For(_, e, body) => {
            one(e)?;
            check_jumps(body, JumpCtx::Loop)
        }
        Kind::Case(subject, whens, other) => {
            subject.as_deref().map_or(Ok(()), one)?;
            for (tests, body) in whens {
                check_jumps(tests, in_loop)?;
                check_jumps(body, in_loop)?;
            }
            other.as_deref().map_or(Ok(()), |o| check_jumps(o, in_loop))
        }
        Kind::Begin(body, rescues, other, ensure) => {
            check_jumps(body, in_loop)?;
            for r in rescues {
                check_jumps(&r.classes, in_loop)?;
                check_jumps(&r.body, in_loop)?;
            }
            other
                .as_deref()
                .map_or(Ok(()), |o| check_jumps(o, in_loop))?;
            ensure
                .as_deref()
                .map_or(Ok(()), |o| check_jumps(o, in_loop))
        }
        Kind::Def(d) => {
            for (_, default) in &d.params {
                default
                    .as_ref()
                    .map_or(Ok(()), |x| check_jump(x, JumpCtx::Def))?;
            }
            check_jumps(&d.body, JumpCtx::Def)
        }
        Kind::Nil
        | Kind::True
        | Kind::False
        | Kind::SelfRef
        | Kind::Int(_)
        | Kind::Float(_)
        | Kind::LVar(_)
        | Kind::IVar(_)
        | Kind::GVar(_)
        | Kind::NthRef(_)
        | Kind::Const(None, _)
        | Kind::Put(_) => Ok(()),
    }
}

/// The parser state.
#[derive(Debug)]
pub struct Parser {
    toks: Vec<Token>,
    i: usize,
    locals: Vec<HashSet<String>>,
    depth: usize,
    no_do: usize,
    /// Whether the last consumed token was a `name?` or `name!` identifier.
    prev_pred: bool,
}

/// Parses a whole template's tokens into statements.
pub fn parse_program(toks: Vec<Token>) -> PResult<Vec<Node>> {
    let mut p = Parser {
        toks,
        i: 0,
        locals: vec![HashSet::new()],
        depth: 0,
        no_do: 0,
        prev_pred: false,
    };
    let body = p.stmts(&[])?;
    if !p.at_eof() {
        return p.fail(format!("unexpected {}", p.describe()));
    }
    check_jumps(&body, JumpCtx::Top)?;
    Ok(body)
}

fn is_kw(t: &Tok, kw: &str) -> bool {
    matches!(t, Tok::Ident(k) if k == kw)
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.i).map(|t| &t.tok).unwrap_or(&Tok::Eof)
    }
    fn peek_tok(&self) -> Option<&Token> {
        self.toks.get(self.i)
    }
    fn peek_n(&self, n: usize) -> &Tok {
        self.toks
            .get(self.i + n)
            .map(|t| &t.tok)
            .unwrap_or(&Tok::Eof)
    }
    fn pos(&self) -> Pos {
        self.toks
            .get(self.i)
            .or_else(|| self.toks.last())
            .map(|t| t.pos)
            .unwrap_or_default()
    }
    fn space_before(&self) -> bool {
        self.toks.get(self.i).is_some_and(|t| t.space_before)
    }
    /// Consumes the current token. Tokens are moved out, not cloned: the parser never looks
    /// at a consumed token again (only whether it was a `name?`/`name!`, kept aside).
    fn bump(&mut self) -> Tok {
        let Some(t) = self.toks.get_mut(self.i) else {
            return Tok::Eof;
        };
        self.i += 1;
        let tok = std::mem::replace(&mut t.tok, Tok::Eof);
        self.prev_pred = matches!(&tok, Tok::Ident(n) if n.ends_with('?') || n.ends_with('!'));
        tok
    }
    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }
    fn is_kw(&self, kw: &str) -> bool {
        is_kw(self.peek(), kw)
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::Eof => "end of template".into(),
            Tok::Op(o) => format!("`{o}'"),
            Tok::Ident(i) | Tok::Const(i) => format!("`{i}'"),
            Tok::Nl => "line break".into(),
            Tok::Semi => "`;'".into(),
            Tok::Put(_) => "template text".into(),
            Tok::InsertBegin => "`<%='".into(),
            Tok::InsertEnd => "`%>'".into(),
            other => format!("{other:?}"),
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
    fn skip_nl(&mut self) {
        while matches!(self.peek(), Tok::Nl) {
            self.bump();
        }
    }
    fn skip_terms(&mut self) {
        while matches!(self.peek(), Tok::Nl | Tok::Semi) {
            self.bump();
        }
    }
    fn is_local(&self, name: &str) -> bool {
        self.locals.last().is_some_and(|s| s.contains(name))
    }
    fn declare(&mut self, name: &str) {
        if let Some(s) = self.locals.last_mut() {
            s.insert(name.to_string());
        }
    }
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.unsupported("nesting deeper than 200 levels");
        }
        Ok(())
    }

    /// Statements until one of the keywords `ends` (not consumed), `}`, `)` or the end.
    fn stmts(&mut self, ends: &[&str]) -> PResult<Vec<Node>> {
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

    fn stmt(&mut self) -> PResult<Node> {
        self.enter()?;
        let r = self.stmt_inner();
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if let Tok::Put(text) = self.peek() {
            let text = text.clone();
            self.bump();
            return Ok(Node {
                kind: Kind::Put(text),
                pos,
            });
        }
        if matches!(self.peek(), Tok::InsertBegin) {
            self.bump();
            let body = self.stmts(&[])?;
            if !matches!(self.peek(), Tok::InsertEnd) {
                return self.fail(format!("unexpected {} in <%= %>", self.describe()));
            }
            self.bump();
            return Ok(Node {
                kind: Kind::Insert(body),
                pos,
            });
        }
        let mut node = self.expr_stmt()?;
        loop {
            let mpos = self.pos();
            if self.eat_kw("if") {
                let c = self.expr_stmt()?;
                node = Node {
                    kind: Kind::If(Box::new(c), vec![node], vec![]),
                    pos: mpos,
                };
            } else if self.eat_kw("unless") {
                let c = self.expr_stmt()?;
                node = Node {
                    kind: Kind::If(Box::new(c), vec![], vec![node]),
                    pos: mpos,
                };
            } else if self.is_kw("while") || self.is_kw("until") {
                let until = self.is_kw("until");
                self.bump();
                let c = self.expr_stmt()?;
                node = Node {
                    kind: Kind::While(Box::new(c), vec![node], until),
                    pos: mpos,
                };
            } else if self.eat_kw("rescue") {
                let r = self.expr_stmt()?;
                node = Node {
                    kind: Kind::RescueMod(Box::new(node), Box::new(r)),
                    pos: mpos,
                };
            } else {
                break;
            }
        }
        Ok(node)
    }

    /// `not`, `and`, `or` level.
    fn expr_stmt(&mut self) -> PResult<Node> {
        let mut left = self.not_expr()?;
        loop {
            let pos = self.pos();
            if self.eat_kw("and") {
                self.skip_nl();
                let r = self.not_expr()?;
                left = Node {
                    kind: Kind::And(Box::new(left), Box::new(r)),
                    pos,
                };
            } else if self.eat_kw("or") {
                self.skip_nl();
                let r = self.not_expr()?;
                left = Node {
                    kind: Kind::Or(Box::new(left), Box::new(r)),
                    pos,
                };
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
            self.enter()?;
            let e = self.not_expr();
            self.depth -= 1;
            return Ok(Node {
                kind: Kind::Not(Box::new(e?)),
                pos,
            });
        }
        if self.looks_like_multi_assign() {
            if let Tok::Ident(n) = self.peek().clone() {
                self.declare(&n);
            }
            let e = match self.bump() {
                Tok::Ident(n) => Node {
                    kind: Kind::LVar(n),
                    pos,
                },
                Tok::IVar(n) => Node {
                    kind: Kind::IVar(n),
                    pos,
                },
                _ => return self.fail("bad assignment target"),
            };
            return self.multi_assign_rest(e, pos);
        }
        let e = self.expr()?;
        // `a, b = x` multiple assignment.
        if self.is_op(",")
            && matches!(e.kind, Kind::LVar(_) | Kind::IVar(_))
            && self.names_then_assign()
        {
            let mut targets = vec![e.clone()];
            while self.eat_op(",") {
                match self.bump() {
                    Tok::Ident(n) => {
                        targets.push(Node {
                            kind: Kind::LVar(n),
                            pos,
                        });
                    }
                    Tok::IVar(n) => targets.push(Node {
                        kind: Kind::IVar(n),
                        pos,
                    }),
                    _ => return self.fail("bad assignment target"),
                }
            }
            if !self.eat_op("=") {
                return self.fail("expected '=' after the assignment targets");
            }
            for t in &targets {
                if let Kind::LVar(n) = &t.kind {
                    self.declare(n);
                }
            }
            let v = self.expr()?;
            let v = if self.is_op(",") {
                let mut items = vec![v];
                while self.eat_op(",") {
                    items.push(self.expr()?);
                }
                Node {
                    kind: Kind::Array(items),
                    pos,
                }
            } else {
                v
            };
            return Ok(Node {
                kind: Kind::MultiAssign(targets, Box::new(v)),
                pos,
            });
        }
        Ok(e)
    }

    /// Whether `, name (, name)* =` follows (the rest of `a, b = x`), looked at before
    /// anything is consumed.
    fn names_then_assign(&self) -> bool {
        let tok = |k: usize| self.toks.get(k).map(|t| &t.tok);
        let mut k = self.i;
        loop {
            if !matches!(tok(k), Some(Tok::Op(","))) {
                return false;
            }
            if !matches!(tok(k + 1), Some(Tok::Ident(_) | Tok::IVar(_))) {
                return false;
            }
            k += 2;
            match tok(k) {
                Some(Tok::Op("=")) => return true,
                Some(Tok::Op(",")) => {}
                _ => return false,
            }
        }
    }

    fn looks_like_multi_assign(&self) -> bool {
        let mut k = self.i;
        let mut n = 0;
        loop {
            match self.toks.get(k).map(|t| &t.tok) {
                Some(Tok::Ident(name)) if !is_reserved(name) => {}
                Some(Tok::IVar(_)) => {}
                _ => return false,
            }
            n += 1;
            match self.toks.get(k + 1).map(|t| &t.tok) {
                Some(Tok::Op(",")) => k += 2,
                Some(Tok::Op("=")) => return n > 1,
                _ => return false,
            }
        }
    }

    fn multi_assign_rest(&mut self, e: Node, pos: Pos) -> PResult<Node> {
        let mut targets = vec![e];
        while self.eat_op(",") {
            match self.bump() {
                Tok::Ident(n) => {
                    self.declare(&n);
                    targets.push(Node {
                        kind: Kind::LVar(n),
                        pos,
                    });
                }
                Tok::IVar(n) => targets.push(Node {
                    kind: Kind::IVar(n),
                    pos,
                }),
                _ => return self.fail("bad assignment target"),
            }
        }
        self.expect_op("=")?;
        self.skip_nl();
        let v = self.expr()?;
        let v = if self.is_op(",") {
            let mut items = vec![v];
            while self.eat_op(",") {
                self.skip_nl();
                items.push(self.expr()?);
            }
            Node {
                kind: Kind::Array(items),
                pos,
            }
        } else {
            v
        };
        Ok(Node {
            kind: Kind::MultiAssign(targets, Box::new(v)),
            pos,
        })
    }

    /// Assignment level (and everything below).
    fn expr(&mut self) -> PResult<Node> {
        self.enter()?;
        let r = self.expr_inner();
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self) -> PResult<Node> {
        let pos = self.pos();
        // `x = ...` where x is a new local.
        if let (Tok::Ident(name), Tok::Op(op)) = (self.peek().clone(), self.peek_n(1).clone()) {
            if (op == "=" || (op.ends_with('=') && is_assign_op(op)))
                && !is_reserved(&name)
                && !name.ends_with('?')
                && !name.ends_with('!')
            {
                self.bump();
                self.bump();
                self.skip_nl();
                self.declare(&name);
                let target = Node {
                    kind: Kind::LVar(name),
                    pos,
                };
                let value = self.assign_rhs()?;
                return Ok(make_assign(target, op, value, pos));
            }
        }
        let left = self.ternary()?;
        if let Tok::Op(op) = self.peek().clone() {
            if op == "=" || is_assign_op(op) {
                let assignable = match &left.kind {
                    Kind::LVar(_) | Kind::IVar(_) | Kind::GVar(_) => true,
                    Kind::Call {
                        recv: Some(_),
                        name,
                        block: None,
                        ..
                    } => name == "[]" || is_ident_name(name),
                    _ => false,
                };
                if assignable {
                    self.bump();
                    self.skip_nl();
                    let value = self.assign_rhs()?;
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
            self.bump();
            let r = self.expr()?;
            return Ok(Node {
                kind: Kind::RescueMod(Box::new(v), Box::new(r)),
                pos,
            });
        }
        Ok(v)
    }

    fn ternary(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let c = self.range()?;
        if self.is_op("?") {
            self.bump();
            self.skip_nl();
            let a = self.ternary_branch()?;
            self.skip_nl();
            // `a ? b :c` may have lexed `:c` as a symbol.
            if let Tok::Sym(parts) = self.peek().clone() {
                if !self.space_before() || self.peek_tok().is_some_and(|t| t.space_before) {
                    if let [StrPart::Lit(name)] = parts.as_slice() {
                        let spos = self.pos();
                        self.bump();
                        let b = self.ident_node(name.clone(), spos)?;
                        let b = self.postfix(b)?;
                        return Ok(Node {
                            kind: Kind::If(Box::new(c), vec![a], vec![b]),
                            pos,
                        });
                    }
                }
            }
            if let Tok::Label(_) = self.peek() {
                return self.fail("unexpected label in ternary");
            }
            self.expect_op(":")?;
            self.skip_nl();
            let b = self.ternary_branch()?;
            return Ok(Node {
                kind: Kind::If(Box::new(c), vec![a], vec![b]),
                pos,
            });
        }
        Ok(c)
    }

    fn ternary_branch(&mut self) -> PResult<Node> {
        // A branch may itself be an assignment (`x ? a = 1 : b`), rarely used; accept
        // ternaries only.
        self.enter()?;
        let r = self.ternary();
        self.depth -= 1;
        let r = r?;
        if let Tok::Op(op) = self.peek().clone() {
            if op == "=" || is_assign_op(op) {
                return self.unsupported("assignment inside a ternary branch");
            }
        }
        Ok(r)
    }

    fn range(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let l = self.binary(0)?;
        if self.is_op("..") || self.is_op("...") {
            let excl = self.is_op("...");
            self.bump();
            let endless = matches!(
                self.peek(),
                Tok::Op("]") | Tok::Op(")") | Tok::Nl | Tok::Semi | Tok::Eof | Tok::InsertEnd
            ) || self.is_kw("then");
            let r = if endless {
                Node {
                    kind: Kind::Nil,
                    pos,
                }
            } else {
                self.binary(0)?
            };
            return Ok(Node {
                kind: Kind::Range(Box::new(l), Box::new(r), excl),
                pos,
            });
        }
        Ok(l)
    }

    /// Binary operators by precedence level (0 = `||`).
    fn binary(&mut self, level: usize) -> PResult<Node> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["<=>", "==", "===", "!=", "=~", "!~"],
            &["<", "<=", ">", ">="],
            &["|", "^"],
            &["&"],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level >= LEVELS.len() {
            return self.unary_minus();
        }
        self.enter()?;
        let mut left = match self.binary(level + 1) {
            Ok(l) => l,
            Err(e) => {
                self.depth -= 1;
                return Err(e);
            }
        };
        while let Tok::Op(op) = self.peek().clone() {
            if !LEVELS[level].contains(&op) {
                break;
            }
            let pos = self.pos();
            self.bump();
            self.skip_nl();
            let right = match self.binary(level + 1) {
                Ok(r) => r,
                Err(e) => {
                    self.depth -= 1;
                    return Err(e);
                }
            };
            left = match op {
                "||" => Node {
                    kind: Kind::Or(Box::new(left), Box::new(right)),
                    pos,
                },
                "&&" => Node {
                    kind: Kind::And(Box::new(left), Box::new(right)),
                    pos,
                },
                "!=" => Node {
                    kind: Kind::Not(Box::new(call(Some(left), "==", vec![right], pos))),
                    pos,
                },
                "!~" => Node {
                    kind: Kind::Not(Box::new(call(Some(left), "=~", vec![right], pos))),
                    pos,
                },
                _ => call(Some(left), op, vec![right], pos),
            };
            if level == 2 {
                // Non-associative.
                break;
            }
        }
        self.depth -= 1;
        Ok(left)
    }

    fn unary_minus(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.is_op("-") {
            self.bump();
            // Negative numeric literals bind tighter than `**`.
            match self.peek().clone() {
                Tok::Int(n) if !self.space_before() => {
                    self.bump();
                    let lit = Node {
                        kind: Kind::Int(n.checked_neg().unwrap_or(i64::MIN)),
                        pos,
                    };
                    let lit = self.postfix(lit)?;
                    return self.pow(lit);
                }
                Tok::Float(f) if !self.space_before() => {
                    self.bump();
                    let lit = Node {
                        kind: Kind::Float(-f),
                        pos,
                    };
                    let lit = self.postfix(lit)?;
                    return self.pow(lit);
                }
                _ => {}
            }
            self.enter()?;
            let e = self.unary_minus();
            self.depth -= 1;
            return Ok(call(Some(e?), "-@", vec![], pos));
        }
        let base = self.unary()?;
        self.pow(base)
    }

    fn pow(&mut self, base: Node) -> PResult<Node> {
        if self.is_op("**") {
            let pos = self.pos();
            self.bump();
            self.enter()?;
            let e = self.unary_minus();
            self.depth -= 1;
            return Ok(call(Some(base), "**", vec![e?], pos));
        }
        Ok(base)
    }

    fn unary(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.is_op("!") {
            self.bump();
            self.enter()?;
            // `!-x` is `!(-x)`.
            let e = if self.is_op("-") {
                self.unary_minus()
            } else {
                self.unary()
            };
            self.depth -= 1;
            return Ok(Node {
                kind: Kind::Not(Box::new(e?)),
                pos,
            });
        }
        if self.is_op("~") || self.is_op("+") {
            let op = if self.is_op("~") { "~" } else { "+@" };
            self.bump();
            self.enter()?;
            let e = self.unary();
            self.depth -= 1;
            return Ok(call(Some(e?), op, vec![], pos));
        }
        if self.is_op("&") {
            return self.unsupported("`&' block argument outside an argument list");
        }
        if self.is_kw("defined?") {
            self.bump();
            let paren = self.eat_op("(");
            self.skip_nl();
            let e = if paren {
                let e = self.expr_stmt()?;
                self.skip_nl();
                self.expect_op(")")?;
                e
            } else {
                self.enter()?;
                let e = self.unary();
                self.depth -= 1;
                e?
            };
            let d = Node {
                kind: Kind::Defined(Box::new(e)),
                pos,
            };
            return if paren { self.postfix(d) } else { Ok(d) };
        }
        let p = self.primary()?;
        self.postfix(p)
    }

    /// Method calls, indexing and `::` after a primary.
    fn postfix(&mut self, mut node: Node) -> PResult<Node> {
        loop {
            let pos = self.pos();
            if self.is_op(".") || self.is_op("&.") {
                let safe = self.is_op("&.");
                self.bump();
                self.skip_nl();
                let name = match self.bump() {
                    Tok::Ident(n) | Tok::Const(n) => n,
                    Tok::Label(n) => {
                        // `x.y:` never happens in valid code; treat as error.
                        return self.fail(format!("unexpected label `{n}:'"));
                    }
                    Tok::Op("(") => {
                        return self.unsupported("`.()' call");
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
                                | "[]"
                        ) =>
                    {
                        op.to_string()
                    }
                    // `x.[](i)`, `x&.[](i)`: the lexer gives `[` and `]`.
                    Tok::Op("[") if self.is_op("]") => {
                        self.bump();
                        "[]".to_string()
                    }
                    _ => return self.fail("expected a method name after `.'"),
                };
                // Attribute assignment `x.y = v` is handled by the caller.
                node = self.call_rest(Some(node), name, pos, safe)?;
            } else if self.is_op("::") {
                self.bump();
                match self.bump() {
                    Tok::Const(n) if !self.is_op("(") => {
                        node = Node {
                            kind: Kind::Const(Some(Box::new(node)), n),
                            pos,
                        }
                    }
                    Tok::Const(n) | Tok::Ident(n) => {
                        node = self.call_rest(Some(node), n, pos, false)?;
                    }
                    _ => return self.fail("expected a name after `::'"),
                }
            } else if self.is_op("[") && !self.space_before() {
                self.bump();
                let args = self.call_args("]")?;
                node = call(Some(node), "[]", args, pos);
            } else {
                return Ok(node);
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
        let mut block = None;
        if self.is_op("(") && !self.space_before() {
            self.bump();
            args = self.call_args(")")?;
        } else if self.can_start_command_arg() {
            args = self.command_args()?;
        }
        // `&blk` / `&:sym` arguments.
        if let Some(Node {
            kind: Kind::Sym(parts),
            ..
        }) = args.last().filter(|n| is_block_pass(n))
        {
            let parts = parts.clone();
            args.pop();
            if let [Part::Lit(s)] = parts.as_slice() {
                block = Some(Rc::new(Block {
                    params: vec![],
                    body: vec![],
                    symbol: Some(s.clone()),
                }));
            }
        }
        if self.is_op("{") {
            block = Some(self.brace_block()?);
        } else if self.is_kw("do") && self.no_do == 0 {
            block = Some(self.do_block()?);
        }
        Ok(Node {
            kind: Kind::Call {
                recv: recv.map(Box::new),
                name,
                args,
                block,
                safe,
            },
            pos,
        })
    }

    fn can_start_command_arg(&self) -> bool {
        if !self.space_before() {
            return self.prev_pred
                && matches!(
                    self.peek(),
                    Tok::Ident(_) | Tok::IVar(_) | Tok::Str(_) | Tok::Const(_) | Tok::Int(_)
                );
        }
        let next_space = self.toks.get(self.i + 1).is_some_and(|t| t.space_before);
        match self.peek() {
            Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Sym(_)
            | Tok::Regex(..)
            | Tok::Words(..)
            | Tok::IVar(_)
            | Tok::GVar(_)
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
            Tok::Op("[") | Tok::Op("(") | Tok::Op("!") | Tok::Op("::") | Tok::Op("->") => true,
            Tok::Op("-") | Tok::Op("*") | Tok::Op("&") | Tok::Op(":") => !next_space,
            _ => false,
        }
    }

    fn command_args(&mut self) -> PResult<Vec<Node>> {
        let mut args = Vec::new();
        let mut pairs = Vec::new();
        loop {
            self.arg_item(&mut args, &mut pairs)?;
            if !self.eat_op(",") {
                break;
            }
            self.skip_nl();
        }
        if !pairs.is_empty() {
            let pos = pairs
                .first()
                .map(|(k, _): &(Node, Node)| k.pos)
                .unwrap_or_default();
            args.push(Node {
                kind: Kind::Hash(pairs),
                pos,
            });
        }
        Ok(args)
    }

    /// One argument: `*x`, `&x`, `key: v`, `k => v` or an expression.
    fn arg_item(&mut self, args: &mut Vec<Node>, pairs: &mut Vec<(Node, Node)>) -> PResult<()> {
        let pos = self.pos();
        if let Tok::Label(l) = self.peek().clone() {
            self.bump();
            self.skip_nl();
            let v = self.expr()?;
            pairs.push((
                Node {
                    kind: Kind::Sym(vec![Part::Lit(l)]),
                    pos,
                },
                v,
            ));
            return Ok(());
        }
        if self.is_op("*") {
            self.bump();
            let e = self.ternary()?;
            args.push(Node {
                kind: Kind::Splat(Box::new(e)),
                pos,
            });
            return Ok(());
        }
        if self.is_op("&") {
            self.bump();
            let e = self.ternary()?;
            if let Kind::Sym(parts) = e.kind {
                args.push(Node {
                    kind: Kind::Sym(parts),
                    pos: Pos { line: 0, column: 0 },
                });
                return Ok(());
            }
            return self.unsupported("`&' block argument other than `&:symbol'");
        }
        let e = self.expr_no_stmt()?;
        if self.eat_op("=>") {
            self.skip_nl();
            let v = self.expr()?;
            pairs.push((e, v));
        } else {
            if !pairs.is_empty() {
                return self.fail("positional argument after keyword arguments");
            }
            args.push(e);
        }
        Ok(())
    }

    fn expr_no_stmt(&mut self) -> PResult<Node> {
        let pos = self.pos();
        if self.is_kw("not") {
            self.bump();
            if self.is_op("{") {
                return self.fail("unexpected `{'");
            }
            let e = self.expr()?;
            return Ok(Node {
                kind: Kind::Not(Box::new(e)),
                pos,
            });
        }
        self.expr()
    }

    fn call_args(&mut self, close: &str) -> PResult<Vec<Node>> {
        let mut args = Vec::new();
        let mut pairs = Vec::new();
        self.no_do += 0;
        loop {
            self.skip_nl();
            if self.eat_op(close) {
                break;
            }
            self.arg_item(&mut args, &mut pairs)?;
            self.skip_nl();
            if self.eat_op(",") {
                continue;
            }
            self.skip_nl();
            self.expect_op(close)?;
            break;
        }
        if !pairs.is_empty() {
            let pos = pairs.first().map(|(k, _)| k.pos).unwrap_or_default();
            args.push(Node {
                kind: Kind::Hash(pairs),
                pos,
            });
        }
        Ok(args)
    }

    fn block_params(&mut self) -> PResult<Vec<Param>> {
        let mut params = Vec::new();
        if !self.eat_op("|") {
            if self.is_op("||") {
                self.bump();
            }
            return Ok(params);
        }
        loop {
            if self.eat_op("|") {
                break;
            }
            params.push(self.block_param()?);
            if self.eat_op(",") {
                continue;
            }
            self.expect_op("|")?;
            break;
        }
        Ok(params)
    }

    fn block_param(&mut self) -> PResult<Param> {
        match self.bump() {
            Tok::Ident(n) => {
                self.declare(&n);
                Ok(Param::Name(n))
            }
            Tok::Op("*") => match self.bump() {
                Tok::Ident(n) => {
                    self.declare(&n);
                    Ok(Param::Splat(n))
                }
                _ => self.fail("expected a name after `*'"),
            },
            Tok::Op("(") => {
                let mut inner = Vec::new();
                loop {
                    inner.push(self.block_param()?);
                    if self.eat_op(",") {
                        continue;
                    }
                    self.expect_op(")")?;
                    break;
                }
                Ok(Param::Destructure(inner))
            }
            _ => self.fail("expected a block parameter"),
        }
    }

    fn with_block_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let outer = self.locals.last().cloned().unwrap_or_default();
        self.locals.push(outer);
        let saved_no_do = self.no_do;
        self.no_do = 0;
        let r = f(self);
        self.no_do = saved_no_do;
        self.locals.pop();
        r
    }

    fn brace_block(&mut self) -> PResult<Rc<Block>> {
        self.expect_op("{")?;
        self.enter()?;
        let r = self.with_block_scope(|p| {
            p.skip_nl();
            let params = p.block_params()?;
            let body = p.stmts(&[])?;
            p.skip_terms();
            p.expect_op("}")?;
            Ok(Rc::new(Block {
                params,
                body,
                symbol: None,
            }))
        });
        self.depth -= 1;
        r
    }

    fn do_block(&mut self) -> PResult<Rc<Block>> {
        self.bump(); // do
        self.enter()?;
        let r = self.with_block_scope(|p| {
            p.skip_nl();
            let params = p.block_params()?;
            let body = p.body_with_rescue(&["end"])?;
            p.expect_kw("end")?;
            Ok(Rc::new(Block {
                params,
                body,
                symbol: None,
            }))
        });
        self.depth -= 1;
        r
    }

    /// A body that may carry `rescue`/`else`/`ensure` clauses (def, do-block, begin).
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
                classes.push(self.ternary()?);
                if !self.eat_op(",") {
                    break;
                }
            }
            if self.eat_op("=>") {
                match self.bump() {
                    Tok::Ident(n) => {
                        self.declare(&n);
                        var = Some(n);
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
        Ok(vec![Node {
            kind: Kind::Begin(body, rescues, else_body, ensure),
            pos,
        }])
    }

    fn ident_node(&mut self, name: String, pos: Pos) -> PResult<Node> {
        if self.is_local(&name) && !self.is_op("(") {
            return Ok(Node {
                kind: Kind::LVar(name),
                pos,
            });
        }
        if self.is_local(&name) && self.is_op("(") && self.space_before() {
            return Ok(Node {
                kind: Kind::LVar(name),
                pos,
            });
        }
        self.call_rest(None, name, pos, false)
    }

    fn primary(&mut self) -> PResult<Node> {
        self.enter()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> PResult<Node> {
        let pos = self.pos();
        let node = |kind| Node { kind, pos };
        match self.bump() {
            Tok::Int(n) => Ok(node(Kind::Int(n))),
            Tok::Float(f) => Ok(node(Kind::Float(f))),
            Tok::Str(parts) => {
                let mut parts = self.parts(parts)?;
                // Adjacent string literals concatenate.
                while let Tok::Str(more) = self.peek().clone() {
                    self.bump();
                    parts.extend(self.parts(more)?);
                }
                Ok(node(Kind::Str(parts)))
            }
            Tok::Sym(parts) => Ok(node(Kind::Sym(self.parts(parts)?))),
            Tok::Regex(parts, flags) => Ok(node(Kind::Regex(self.parts(parts)?, flags))),
            Tok::Words(words, sym) => Ok(node(Kind::Array(
                words
                    .into_iter()
                    .map(|w| Node {
                        kind: if sym {
                            Kind::Sym(vec![Part::Lit(w)])
                        } else {
                            Kind::Str(vec![Part::Lit(w)])
                        },
                        pos,
                    })
                    .collect(),
            ))),
            Tok::IVar(n) => Ok(node(Kind::IVar(n))),
            Tok::GVar(n) => {
                if let Ok(k) = n.parse::<usize>() {
                    Ok(node(Kind::NthRef(k)))
                } else {
                    Ok(node(Kind::GVar(n)))
                }
            }
            Tok::Label(l) => {
                // A label outside a hash/argument list: `cond ? a: b` style.
                self.fail(format!("unexpected label `{l}:'"))
            }
            Tok::Const(n) => {
                if self.is_op("(") && !self.space_before() {
                    return self.call_rest(None, n, pos, false);
                }
                if self.is_op("[") && !self.space_before() {
                    // `Hash[...]`, `Set[...]`.
                    self.bump();
                    let args = self.call_args("]")?;
                    return Ok(call(Some(node(Kind::Const(None, n))), "[]", args, pos));
                }
                if matches!(self.peek(), Tok::Str(_)) && self.space_before() {
                    // `Integer "3"` style command call on Kernel conversion functions.
                    return self.call_rest(None, n, pos, false);
                }
                Ok(node(Kind::Const(None, n)))
            }
            Tok::Op("::") => match self.bump() {
                Tok::Const(n) => Ok(node(Kind::Const(None, n))),
                _ => self.fail("expected a constant after `::'"),
            },
            Tok::Op("(") => {
                self.skip_terms();
                if self.eat_op(")") {
                    return Ok(node(Kind::Nil));
                }
                let saved = self.no_do;
                self.no_do = 0;
                let body = self.stmts(&[]);
                self.no_do = saved;
                let body = body?;
                self.skip_terms();
                self.expect_op(")")?;
                if body.len() == 1 {
                    Ok(body.into_iter().next().unwrap_or(node(Kind::Nil)))
                } else {
                    Ok(node(Kind::Seq(body)))
                }
            }
            Tok::Op("[") => {
                let items = self.call_args("]")?;
                Ok(node(Kind::Array(items)))
            }
            Tok::Op("{") => {
                let mut pairs = Vec::new();
                loop {
                    self.skip_nl();
                    if self.eat_op("}") {
                        break;
                    }
                    let kpos = self.pos();
                    match self.peek().clone() {
                        Tok::Label(l) => {
                            self.bump();
                            self.skip_nl();
                            let v = self.expr()?;
                            pairs.push((
                                Node {
                                    kind: Kind::Sym(vec![Part::Lit(l)]),
                                    pos: kpos,
                                },
                                v,
                            ));
                        }
                        Tok::Str(parts)
                            if matches!(self.peek_n(1), Tok::Op(":"))
                                && self.toks.get(self.i + 1).is_some_and(|t| !t.space_before) =>
                        {
                            self.bump();
                            self.bump();
                            self.skip_nl();
                            let v = self.expr()?;
                            let parts = self.parts(parts)?;
                            pairs.push((
                                Node {
                                    kind: Kind::Sym(parts),
                                    pos: kpos,
                                },
                                v,
                            ));
                        }
                        _ => {
                            let k = self.expr()?;
                            self.skip_nl();
                            self.expect_op("=>")?;
                            self.skip_nl();
                            let v = self.expr()?;
                            pairs.push((k, v));
                        }
                    }
                    self.skip_nl();
                    if self.eat_op(",") {
                        continue;
                    }
                    self.skip_nl();
                    self.expect_op("}")?;
                    break;
                }
                Ok(node(Kind::Hash(pairs)))
            }
            Tok::Op("->") => self.unsupported("lambda literal `->'"),
            Tok::Op("..") | Tok::Op("...") => self.unsupported("beginless range"),
            Tok::Ident(name) => self.keyword_or_ident(name, pos),
            Tok::Put(_) | Tok::InsertBegin => {
                self.i -= 1;
                self.fail("template text inside an expression")
            }
            other => {
                self.i -= 1;
                let _ = other;
                self.fail(format!("unexpected {}", self.describe()))
            }
        }
    }

    fn keyword_or_ident(&mut self, name: String, pos: Pos) -> PResult<Node> {
        let node = |kind| Node { kind, pos };
        match name.as_str() {
            "nil" => Ok(node(Kind::Nil)),
            "true" => Ok(node(Kind::True)),
            "false" => Ok(node(Kind::False)),
            "self" => Ok(node(Kind::SelfRef)),
            "__FILE__" => Ok(node(Kind::Call {
                recv: None,
                name: "file".into(),
                args: vec![],
                block: None,
                safe: false,
            })),
            "if" | "unless" => {
                let unless = name == "unless";
                let c = self.cond_expr()?;
                self.eat_then();
                let then = self.stmts(&["elsif", "else", "end"])?;
                let els = self.if_tail(unless)?;
                if unless {
                    Ok(node(Kind::If(Box::new(c), els, then)))
                } else {
                    Ok(node(Kind::If(Box::new(c), then, els)))
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
                Ok(node(Kind::While(Box::new(c), body, name == "until")))
            }
            "for" => {
                let mut vars = Vec::new();
                loop {
                    vars.push(self.block_param()?);
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
                Ok(node(Kind::For(vars, Box::new(it), body)))
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
                            vals.push(Node {
                                kind: Kind::Splat(Box::new(e)),
                                pos: vpos,
                            });
                        } else {
                            vals.push(self.ternary()?);
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
                    return self.unsupported("pattern matching `case ... in'");
                }
                let els = if self.eat_kw("else") {
                    Some(self.stmts(&["end"])?)
                } else {
                    None
                };
                self.expect_kw("end")?;
                Ok(node(Kind::Case(subject, whens, els)))
            }
            "begin" => {
                let body = self.body_with_rescue(&["end"])?;
                self.expect_kw("end")?;
                let n = match body.as_slice() {
                    [single] if matches!(single.kind, Kind::Begin(..)) => single.clone(),
                    _ => node(Kind::Seq(body)),
                };
                if self.is_kw("while") || self.is_kw("until") {
                    return self.unsupported("begin ... end while loop");
                }
                Ok(n)
            }
            "def" => {
                let fname = match self.bump() {
                    Tok::Ident(n) | Tok::Const(n) => n,
                    Tok::Label(_) => return self.fail("bad method name"),
                    Tok::Op("self") => return self.unsupported("def self.x"),
                    _ => return self.fail("expected a method name"),
                };
                if fname == "self" {
                    return self.unsupported("def self.method");
                }
                // Method body has its own local scope.
                self.locals.push(HashSet::new());
                let r = (|| {
                    let mut params = Vec::new();
                    let paren = self.eat_op("(");
                    if paren || matches!(self.peek(), Tok::Ident(_)) {
                        loop {
                            self.skip_nl();
                            if paren && self.eat_op(")") {
                                break;
                            }
                            match self.bump() {
                                Tok::Ident(p) => {
                                    self.declare(&p);
                                    let default = if self.eat_op("=") {
                                        Some(self.ternary()?)
                                    } else {
                                        None
                                    };
                                    params.push((p, default));
                                }
                                Tok::Op("*") | Tok::Op("&") | Tok::Op("**") | Tok::Label(_) => {
                                    return self.unsupported("splat, block or keyword parameters");
                                }
                                _ => return self.fail("expected a parameter name"),
                            }
                            if self.eat_op(",") {
                                continue;
                            }
                            if paren {
                                self.skip_nl();
                                self.expect_op(")")?;
                            }
                            break;
                        }
                    }
                    let body = self.body_with_rescue(&["end"])?;
                    self.expect_kw("end")?;
                    Ok(Def {
                        name: fname.clone(),
                        params,
                        body,
                    })
                })();
                self.locals.pop();
                Ok(node(Kind::Def(Rc::new(r?))))
            }
            "return" | "next" | "break" => {
                let value = if matches!(
                    self.peek(),
                    Tok::Nl | Tok::Semi | Tok::Eof | Tok::Op("}") | Tok::Op(")") | Tok::InsertEnd
                ) || self.is_kw("if")
                    || self.is_kw("unless")
                    || self.is_kw("end")
                {
                    None
                } else {
                    Some(Box::new(self.expr()?))
                };
                Ok(node(match name.as_str() {
                    "return" => Kind::Return(value),
                    "next" => Kind::Next(value),
                    _ => Kind::Break(value),
                }))
            }
            "then" | "do" | "end" | "else" | "elsif" | "when" | "in" | "rescue" | "ensure"
            | "and" | "or" => {
                self.i -= 1;
                self.fail(format!("unexpected `{name}'"))
            }
            "class"
            | "module"
            | "alias"
            | "undef"
            | "yield"
            | "super"
            | "redo"
            | "retry"
            | "BEGIN"
            | "END"
            | "__method__"
            | "lambda"
            | "proc"
            | "loop"
            | "catch"
            | "throw"
            | "eval"
            | "instance_eval"
            | "binding"
            | "send"
            | "__send__"
            | "instance_variable_get"
            | "instance_variable_set"
            | "instance_variables"
            | "define_method"
            | "method" => {
                self.i -= 1;
                self.unsupported(format!("`{name}'"))
            }
            _ => self.ident_node(name, pos),
        }
    }

    fn cond_expr(&mut self) -> PResult<Node> {
        self.no_do += 0;
        self.expr_stmt()
    }

    fn eat_then(&mut self) {
        while matches!(self.peek(), Tok::Nl | Tok::Semi) {
            self.bump();
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
            let els = self.if_tail(false)?;
            return Ok(vec![Node {
                kind: Kind::If(Box::new(c), then, els),
                pos,
            }]);
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
    fn parts(&mut self, parts: Vec<StrPart>) -> PResult<Vec<Part>> {
        let mut out = Vec::with_capacity(parts.len());
        for p in parts {
            match p {
                StrPart::Lit(s) => out.push(Part::Lit(s)),
                StrPart::Code(mut toks) => {
                    let end_pos = toks.last().map(|t| t.pos).unwrap_or_else(|| self.pos());
                    toks.push(Token {
                        tok: Tok::Eof,
                        pos: end_pos,
                        space_before: true,
                    });
                    let mut sub = Parser {
                        toks,
                        i: 0,
                        locals: vec![self.locals.last().cloned().unwrap_or_default()],
                        depth: self.depth,
                        no_do: 0,
                        prev_pred: false,
                    };
                    let body = sub.stmts(&[])?;
                    if !sub.at_eof() {
                        return sub.fail(format!("unexpected {} in interpolation", sub.describe()));
                    }
                    if let (Some(mine), Some(theirs)) = (self.locals.last_mut(), sub.locals.pop()) {
                        mine.extend(theirs);
                    }
                    out.push(Part::Code(body));
                }
            }
        }
        Ok(out)
    }
}

fn is_block_pass(n: &Node) -> bool {
    matches!(n.kind, Kind::Sym(_)) && n.pos.line == 0
}

fn call(recv: Option<Node>, name: &str, args: Vec<Node>, pos: Pos) -> Node {
    Node {
        kind: Kind::Call {
            recv: recv.map(Box::new),
            name: name.to_string(),
            args,
            block: None,
            safe: false,
        },
        pos,
    }
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

fn is_ident_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && !name.ends_with('?')
        && !name.ends_with('!')
}

fn is_reserved(name: &str) -> bool {
    matches!(
        name,
        "if" | "unless"
            | "while"
            | "until"
            | "and"
            | "or"
            | "not"
            | "then"
            | "do"
            | "end"
            | "else"
            | "elsif"
            | "case"
            | "when"
            | "in"
            | "for"
            | "begin"
            | "rescue"
            | "ensure"
            | "def"
            | "return"
            | "next"
            | "break"
            | "nil"
            | "true"
            | "false"
            | "self"
            | "defined?"
            | "class"
            | "module"
            | "yield"
            | "super"
    )
}

fn make_assign(target: Node, op: &str, value: Node, pos: Pos) -> Node {
    if op == "=" {
        Node {
            kind: Kind::Assign(Box::new(target), Box::new(value)),
            pos,
        }
    } else {
        let bare = op.trim_end_matches('=').to_string();
        Node {
            kind: Kind::OpAssign(Box::new(target), bare, Box::new(value)),
            pos,
        }
    }
}
