//! Lowering: the typed AST of a parsed file to the evaluator's IR and its definitions.
//!
//! Runs once per file. Literal values are computed here (unescaped strings, numbers,
//! compiled regexes, heredoc text), Puppet's parse-time rewrites are applied (adjacent
//! `k => v` arguments become one hash, untitled resource bodies of statement functions
//! become calls), and definitions are hoisted into [`Definitions`] with fully qualified,
//! lower-case names (a class nested in `a` is `a::b`). Problems become diagnostics.

use crate::ir::*;
use puppet_syntax::ast::{self, AstNode, AttributeOperation, LiteralKind, Number};
use puppet_syntax::{Diagnostic, SyntaxKind, TextRange};
use puppet_types::{Regexp, Value};
use smol_str::SmolStr;
use std::sync::Arc;

/// A class definition.
#[derive(Debug, Clone)]
pub struct ClassDef {
    /// Lower-case, fully qualified, without a leading `::`.
    pub name: SmolStr,
    pub params: Vec<Param>,
    pub parent: Option<SmolStr>,
    pub body: Vec<Expr>,
    pub span: Span,
}

/// A defined resource type.
#[derive(Debug, Clone)]
pub struct DefineDef {
    pub name: SmolStr,
    pub params: Vec<Param>,
    pub body: Vec<Expr>,
    pub span: Span,
}

/// A function written in Puppet.
#[derive(Debug, Clone)]
pub struct FunctionDef {
    pub name: SmolStr,
    pub params: Vec<Param>,
    pub return_type: Option<Expr>,
    pub body: Vec<Expr>,
    pub span: Span,
}

/// A type alias `type Name = T`.
#[derive(Debug, Clone)]
pub struct TypeAliasDef {
    /// As written (capitalised segments).
    pub name: SmolStr,
    pub type_expr: Expr,
    pub span: Span,
}

/// How a node definition matches a node name.
#[derive(Debug, Clone)]
pub enum HostMatch {
    Name(SmolStr),
    Regex(Regexp),
    Default,
}

/// A node definition.
#[derive(Debug, Clone)]
pub struct NodeDef {
    pub matches: Vec<HostMatch>,
    pub body: Vec<Expr>,
    pub span: Span,
}

/// Everything a file defines, shared across compiles.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    pub classes: Vec<Arc<ClassDef>>,
    pub defines: Vec<Arc<DefineDef>>,
    pub functions: Vec<Arc<FunctionDef>>,
    pub type_aliases: Vec<Arc<TypeAliasDef>>,
    pub nodes: Vec<Arc<NodeDef>>,
}

/// A lowered file: its top-level statements and its definitions.
#[derive(Debug, Clone)]
pub struct LoweredFile {
    pub file: Arc<SourceFile>,
    pub statements: Vec<Expr>,
    pub definitions: Definitions,
    /// For EPP templates: the parameter header, if any (`Some(vec![])` for `||`).
    pub epp_params: Option<Vec<Param>>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers a parsed manifest or template.
pub fn lower_file(file: Arc<SourceFile>, parse: &puppet_syntax::Parse) -> LoweredFile {
    let mut l = Lowerer {
        file: file.clone(),
        defs: Definitions::default(),
        namespace: Vec::new(),
        diags: Vec::new(),
        override_span: None,
    };
    let root = parse.syntax();
    let mut epp_params = None;
    if let Some(epp) = ast::EppFile::cast(root.clone()) {
        if epp.has_params() {
            epp_params = Some(epp.params().map(|p| l.params(&p)).unwrap_or_default());
        }
    }
    let statements: Vec<Expr> = root
        .children()
        .filter_map(ast::Expr::cast)
        .map(|e| l.expr(&e))
        .collect();
    LoweredFile {
        file,
        statements,
        definitions: l.defs,
        epp_params,
        diagnostics: l.diags,
    }
}

/// Lowers a single expression parse (e.g. a type string).
pub fn lower_expression(file: Arc<SourceFile>, parse: &puppet_syntax::Parse) -> Option<Expr> {
    let mut l = Lowerer {
        file,
        defs: Definitions::default(),
        namespace: Vec::new(),
        diags: Vec::new(),
        override_span: None,
    };
    let root = ast::ExprRoot::cast(parse.syntax())?;
    root.expr().map(|e| l.expr(&e))
}

struct Lowerer {
    file: Arc<SourceFile>,
    defs: Definitions,
    /// Names of the enclosing classes, for nested definitions.
    namespace: Vec<SmolStr>,
    diags: Vec<Diagnostic>,
    /// Inside a heredoc's sub-parse, every span is the heredoc's.
    override_span: Option<(u32, u32)>,
}

fn is_statement_call(name: &str) -> bool {
    matches!(
        name,
        "require"
            | "realize"
            | "include"
            | "contain"
            | "tag"
            | "debug"
            | "info"
            | "notice"
            | "warning"
            | "err"
            | "fail"
            | "import"
            | "break"
            | "next"
            | "return"
    )
}

impl Lowerer {
    fn span_of(&self, range: TextRange) -> Span {
        let (start, end) = match self.override_span {
            Some(s) => s,
            None => (range.start().into(), range.end().into()),
        };
        Span {
            file: self.file.clone(),
            start,
            end,
        }
    }

    fn span(&self, node: &impl AstNode) -> Span {
        self.span_of(node.range())
    }

    fn mk(&self, kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    fn invalid(&mut self, node: &impl AstNode, msg: &str) -> Expr {
        let span = self.span(node);
        self.mk(ExprKind::Invalid(msg.to_string()), span)
    }

    fn qualify(&self, name: &str) -> SmolStr {
        let name = name.trim_start_matches("::").to_ascii_lowercase();
        if self.namespace.is_empty() {
            SmolStr::new(name)
        } else {
            SmolStr::new(format!("{}::{}", self.namespace.join("::"), name))
        }
    }

    fn block(&mut self, b: Option<ast::Block>) -> Vec<Expr> {
        match b {
            Some(b) => b.statements().map(|s| self.expr(&s)).collect(),
            None => Vec::new(),
        }
    }

    /// Lowers a list of arguments or elements, merging adjacent `k => v` into one hash.
    fn args(&mut self, items: impl Iterator<Item = ast::Expr>) -> Vec<Expr> {
        let mut out: Vec<Expr> = Vec::new();
        let mut pending: Vec<(Expr, Expr)> = Vec::new();
        let mut pending_span: Option<Span> = None;
        for item in items {
            if let ast::Expr::HashEntry(h) = &item {
                let k = h
                    .key()
                    .map(|k| self.expr(&k))
                    .unwrap_or_else(|| self.invalid(h, "missing key"));
                let v = h
                    .value()
                    .map(|v| self.expr(&v))
                    .unwrap_or_else(|| self.invalid(h, "missing value"));
                if pending_span.is_none() {
                    pending_span = Some(self.span(h));
                }
                pending.push((k, v));
                continue;
            }
            if !pending.is_empty() {
                let span = pending_span.take().expect("set with pending");
                out.push(self.mk(ExprKind::Hash(std::mem::take(&mut pending)), span));
            }
            out.push(self.expr(&item));
        }
        if !pending.is_empty() {
            let span = pending_span.take().expect("set with pending");
            out.push(self.mk(ExprKind::Hash(pending), span));
        }
        out
    }

    fn lambda(&mut self, l: Option<ast::Lambda>) -> Option<Arc<LambdaDef>> {
        let l = l?;
        let params = l.params().map(|p| self.params(&p)).unwrap_or_default();
        let return_type = l
            .return_type()
            .and_then(|r| r.type_expr())
            .map(|t| self.expr(&t));
        let body = self.block(l.body());
        Some(Arc::new(LambdaDef {
            params,
            return_type,
            body,
            span: self.span(&l),
        }))
    }

    fn params(&mut self, list: &ast::ParamList) -> Vec<Param> {
        list.params()
            .map(|p| Param {
                name: SmolStr::new(p.name()),
                type_expr: p.type_expr().map(|t| self.expr(&t)),
                default: p.default_value().map(|d| self.expr(&d)),
                captures_rest: p.captures_rest(),
                span: self.span(&p),
            })
            .collect()
    }

    fn attr_ops(&mut self, ops: impl Iterator<Item = AttributeOperation>) -> Vec<AttrOp> {
        ops.map(|op| match op {
            AttributeOperation::Op(o) => AttrOp {
                name: Some(SmolStr::new(o.name())),
                append: o.is_append(),
                value: o
                    .value()
                    .map(|v| self.expr(&v))
                    .unwrap_or_else(|| self.invalid(&o, "missing value")),
                span: self.span(&o),
            },
            AttributeOperation::Splat(s) => AttrOp {
                name: None,
                append: false,
                value: s
                    .value()
                    .map(|v| self.expr(&v))
                    .unwrap_or_else(|| self.invalid(&s, "missing value")),
                span: self.span(&s),
            },
        })
        .collect()
    }

    fn string_parts(
        &mut self,
        s: &ast::StringExpr,
        heredoc: Option<&puppet_syntax::lexer::HeredocHeader>,
    ) -> Vec<StrPart> {
        s.parts()
            .map(|p| match p {
                ast::StringPart::Text(t) => StrPart::Text(SmolStr::new(match heredoc {
                    Some(h) => ast::unescape_heredoc(t.text(), h),
                    None => ast::unescape_dq(t.text(), ast::DQ_ESCAPES),
                })),
                ast::StringPart::Var(v) => {
                    let span = self.span(&v);
                    StrPart::Expr(self.mk(ExprKind::Var(SmolStr::new(v.name())), span))
                }
                ast::StringPart::Interp(i) => StrPart::Expr(match i.expr() {
                    Some(e) => self.expr(&e),
                    None => self.invalid(&i, "empty interpolation"),
                }),
            })
            .collect()
    }

    fn concat(&mut self, parts: Vec<StrPart>, span: Span) -> Expr {
        if parts.iter().all(|p| matches!(p, StrPart::Text(_))) {
            let text: String = parts
                .iter()
                .map(|p| match p {
                    StrPart::Text(t) => t.as_str(),
                    StrPart::Expr(_) => "",
                })
                .collect();
            return self.mk(ExprKind::Literal(Value::string(text)), span);
        }
        self.mk(ExprKind::Concat(parts), span)
    }

    pub(crate) fn expr(&mut self, e: &ast::Expr) -> Expr {
        let span = self.span(e);
        let kind = match e {
            ast::Expr::Literal(l) => match l.kind() {
                Some(LiteralKind::Number) => match l.number() {
                    Some(Number::Integer { value, .. }) => ExprKind::Literal(Value::Integer(value)),
                    Some(Number::Float(f)) => ExprKind::Literal(Value::Float(f)),
                    _ => ExprKind::Invalid("Integer value out of range".into()),
                },
                Some(LiteralKind::True) => ExprKind::Literal(Value::Boolean(true)),
                Some(LiteralKind::False) => ExprKind::Literal(Value::Boolean(false)),
                Some(LiteralKind::Undef) => ExprKind::Literal(Value::Undef),
                Some(LiteralKind::Default) => ExprKind::Literal(Value::Default),
                Some(LiteralKind::Regex) => {
                    let pattern = l.regex_pattern().unwrap_or_default();
                    match Regexp::new(&pattern) {
                        Ok(r) => ExprKind::Literal(Value::Regexp(r)),
                        Err(err) => ExprKind::Invalid(format!("Illegal regular expression: {err}")),
                    }
                }
                _ => ExprKind::Literal(Value::string(l.string_value().unwrap_or_default())),
            },
            ast::Expr::String(s) => {
                let parts = self.string_parts(s, None);
                return self.concat(parts, span);
            }
            ast::Expr::Heredoc(h) => {
                let Some(body) = h.body() else {
                    return self.invalid(h, "Heredoc without body");
                };
                match &body.parse {
                    Some(p) => {
                        let saved = self.override_span.replace((span.start, span.end));
                        let parts = p
                            .syntax()
                            .children()
                            .find_map(ast::StringExpr::cast)
                            .map(|s| self.string_parts(&s, Some(&body.header)))
                            .unwrap_or_default();
                        self.override_span = saved;
                        return self.concat(parts, span);
                    }
                    None => ExprKind::Literal(Value::string(ast::unescape_heredoc(
                        &body.text,
                        &body.header,
                    ))),
                }
            }
            ast::Expr::Name(n) => ExprKind::Name(SmolStr::new(n.text())),
            ast::Expr::TypeRef(t) => ExprKind::TypeName(SmolStr::new(t.text())),
            ast::Expr::Variable(v) => ExprKind::Var(SmolStr::new(v.name())),
            ast::Expr::Reserved(r) => {
                ExprKind::Invalid(format!("Use of reserved word: {}", r.text()))
            }
            ast::Expr::Array(a) => ExprKind::Array(self.args(a.elements())),
            ast::Expr::Hash(h) => ExprKind::Hash(
                h.entries()
                    .map(|en| {
                        let k = en
                            .key()
                            .map(|k| self.expr(&k))
                            .unwrap_or_else(|| self.invalid(&en, "missing key"));
                        let v = en
                            .value()
                            .map(|v| self.expr(&v))
                            .unwrap_or_else(|| self.invalid(&en, "missing value"));
                        (k, v)
                    })
                    .collect(),
            ),
            ast::Expr::HashEntry(h) => {
                // A lone `k => v` where a value is expected: an unfolded hash of one entry.
                let k = h
                    .key()
                    .map(|k| self.expr(&k))
                    .unwrap_or_else(|| self.invalid(h, "missing key"));
                let v = h
                    .value()
                    .map(|v| self.expr(&v))
                    .unwrap_or_else(|| self.invalid(h, "missing value"));
                ExprKind::Hash(vec![(k, v)])
            }
            ast::Expr::Binary(b) => {
                let lhs = b
                    .lhs()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(b, "missing operand"));
                let rhs = b
                    .rhs()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(b, "missing operand"));
                let (l, r) = (Box::new(lhs), Box::new(rhs));
                let op = match b.op().map(|t| t.kind()) {
                    Some(SyntaxKind::AND_KW) => return self.mk(ExprKind::And(l, r), span),
                    Some(SyntaxKind::OR_KW) => return self.mk(ExprKind::Or(l, r), span),
                    Some(SyntaxKind::PLUS) => BinOp::Add,
                    Some(SyntaxKind::MINUS) => BinOp::Sub,
                    Some(SyntaxKind::STAR) => BinOp::Mul,
                    Some(SyntaxKind::SLASH) => BinOp::Div,
                    Some(SyntaxKind::PERCENT) => BinOp::Mod,
                    Some(SyntaxKind::LSHIFT) => BinOp::Shl,
                    Some(SyntaxKind::RSHIFT) => BinOp::Shr,
                    Some(SyntaxKind::EQ2) => BinOp::Eq,
                    Some(SyntaxKind::NEQ) => BinOp::Ne,
                    Some(SyntaxKind::LT) => BinOp::Lt,
                    Some(SyntaxKind::LTEQ) => BinOp::Le,
                    Some(SyntaxKind::GT) => BinOp::Gt,
                    Some(SyntaxKind::GTEQ) => BinOp::Ge,
                    Some(SyntaxKind::MATCH) => BinOp::Match,
                    Some(SyntaxKind::NOMATCH) => BinOp::NoMatch,
                    Some(SyntaxKind::IN_KW) => BinOp::In,
                    _ => return self.invalid(b, "unknown operator"),
                };
                // Puppet reports a match's left operand that is not a String at the
                // operand, which for `(x) =~ y` is the parenthesis.
                let l = match (op, b.lhs()) {
                    (BinOp::Match | BinOp::NoMatch, Some(ast::Expr::Paren(p))) => {
                        let span = self.span(&p);
                        Box::new(self.mk(ExprKind::Paren(l), span))
                    }
                    _ => l,
                };
                // Puppet locates an operator expression at its operator.
                let span = match b.op() {
                    Some(t) if self.override_span.is_none() => self.span_of(t.text_range()),
                    _ => span,
                };
                return self.mk(ExprKind::Binary(op, l, r), span);
            }
            ast::Expr::Unary(u) => {
                let x = u
                    .operand()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(u, "missing operand"));
                match u.op().map(|t| t.kind()) {
                    Some(SyntaxKind::BANG) => ExprKind::Not(Box::new(x)),
                    Some(SyntaxKind::MINUS) => ExprKind::Neg(Box::new(x)),
                    _ => ExprKind::Unfold(Box::new(x)),
                }
            }
            ast::Expr::Assign(a) => {
                let lhs = a
                    .lhs()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(a, "missing target"));
                let rhs = a
                    .rhs()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(a, "missing value"));
                let op_span = match a.op() {
                    Some(t) if self.override_span.is_none() => self.span_of(t.text_range()),
                    _ => span.clone(),
                };
                match a.op().map(|t| t.kind()) {
                    Some(SyntaxKind::EQ) => {
                        return self.mk(ExprKind::Assign(Box::new(lhs), Box::new(rhs)), op_span)
                    }
                    _ => ExprKind::Invalid("The operator is no longer supported".into()),
                }
            }
            ast::Expr::Relationship(r) => {
                let lhs = r
                    .lhs()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(r, "missing operand"));
                let rhs = r
                    .rhs()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(r, "missing operand"));
                let op = match r.op().map(|t| t.kind()) {
                    Some(SyntaxKind::IN_EDGE) => RelOp::Before,
                    Some(SyntaxKind::IN_EDGE_SUB) => RelOp::Notify,
                    Some(SyntaxKind::OUT_EDGE) => RelOp::Require,
                    _ => RelOp::Subscribe,
                };
                let span = match r.op() {
                    Some(t) if self.override_span.is_none() => self.span_of(t.text_range()),
                    _ => span,
                };
                return self.mk(
                    ExprKind::Relationship(op, Box::new(lhs), Box::new(rhs)),
                    span,
                );
            }
            ast::Expr::Access(a) => {
                let target = a
                    .target()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(a, "missing target"));
                let keys = self.args(a.keys());
                ExprKind::Access(Box::new(target), keys)
            }
            ast::Expr::Selector(s) => {
                let target = s
                    .target()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(s, "missing target"));
                let entries = s
                    .entries()
                    .map(|en| {
                        let m = en
                            .matching()
                            .map(|x| self.expr(&x))
                            .unwrap_or_else(|| self.invalid(&en, "missing"));
                        let v = en
                            .value()
                            .map(|x| self.expr(&x))
                            .unwrap_or_else(|| self.invalid(&en, "missing"));
                        (m, v)
                    })
                    .collect();
                ExprKind::Selector(Box::new(target), entries)
            }
            ast::Expr::Paren(p) => match p.expr() {
                Some(x) => return self.expr(&x),
                None => ExprKind::Invalid("empty parentheses".into()),
            },
            ast::Expr::Call(c) => {
                let args = self.args(c.args());
                let lambda = self.lambda(c.lambda());
                match c.callee() {
                    Some(ast::Expr::Name(n)) => ExprKind::Call {
                        name: SmolStr::new(n.text().trim_start_matches("::")),
                        args,
                        lambda,
                        rvalue: c.has_parens(),
                    },
                    Some(t @ (ast::Expr::TypeRef(_) | ast::Expr::Access(_))) => {
                        ExprKind::CallType {
                            target: Box::new(self.expr(&t)),
                            args,
                            lambda,
                        }
                    }
                    _ => ExprKind::Invalid("Illegal expression as function name".into()),
                }
            }
            ast::Expr::MethodCall(m) => {
                let receiver = m
                    .receiver()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(m, "missing receiver"));
                let name = m.name().map(|n| n.text()).unwrap_or_default();
                let args = self.args(m.args());
                let lambda = self.lambda(m.lambda());
                ExprKind::MethodCall {
                    receiver: Box::new(receiver),
                    name: SmolStr::new(name),
                    args,
                    lambda,
                }
            }
            ast::Expr::If(i) => {
                let cond = i
                    .condition()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(i, "missing condition"));
                let then = self.block(i.then_block());
                let els = self.else_part(i.elsif(), i.else_clause());
                ExprKind::If {
                    cond: Box::new(cond),
                    then,
                    els,
                }
            }
            ast::Expr::Unless(u) => {
                let cond = u
                    .condition()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(u, "missing condition"));
                let then = self.block(u.then_block());
                let els = u.else_clause().map(|e| self.block(e.block()));
                ExprKind::Unless {
                    cond: Box::new(cond),
                    then,
                    els,
                }
            }
            ast::Expr::Case(c) => {
                let test = c
                    .test()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(c, "missing test"));
                let options = c
                    .options()
                    .map(|o| {
                        let values = o.values().map(|v| self.expr(&v)).collect();
                        (values, self.block(o.body()))
                    })
                    .collect();
                ExprKind::Case {
                    test: Box::new(test),
                    options,
                }
            }
            ast::Expr::Resource(r) => return self.resource(r, span),
            ast::Expr::ResourceDefaults(d) => {
                let t = d
                    .type_ref()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(d, "missing type"));
                let ops = self.attr_ops(d.operations());
                ExprKind::ResourceDefaults {
                    type_expr: Box::new(t),
                    ops,
                }
            }
            ast::Expr::ResourceOverride(o) => {
                let t = o
                    .target()
                    .map(|x| self.expr(&x))
                    .unwrap_or_else(|| self.invalid(o, "missing target"));
                let ops = self.attr_ops(o.operations());
                ExprKind::ResourceOverride {
                    target: Box::new(t),
                    ops,
                }
            }
            ast::Expr::Collect(c) => {
                let type_name = match c.type_expr() {
                    Some(ast::Expr::TypeRef(t)) => SmolStr::new(t.text()),
                    _ => return self.invalid(c, "Illegal collector type"),
                };
                let q = c.query();
                let exported = q.as_ref().is_some_and(|q| q.is_exported());
                let query = match q.and_then(|q| q.expr()) {
                    Some(e) => match self.query(&e) {
                        Some(q) => q,
                        None => return self.invalid(c, "Illegal query expression"),
                    },
                    None => Query::All,
                };
                let ops = self.attr_ops(c.operations());
                ExprKind::Collect {
                    type_name,
                    exported,
                    query,
                    ops,
                }
            }
            ast::Expr::ClassDef(d) => {
                let name = self.qualify(&d.name());
                let params = d.params().map(|p| self.params(&p)).unwrap_or_default();
                let parent = d
                    .inherits()
                    .map(|i| SmolStr::new(i.name().trim_start_matches("::").to_ascii_lowercase()));
                let saved = std::mem::replace(&mut self.namespace, vec![name.clone()]);
                let body = self.block(d.body());
                self.namespace = saved;
                self.defs.classes.push(Arc::new(ClassDef {
                    name,
                    params,
                    parent,
                    body,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            ast::Expr::DefineDef(d) => {
                let name = self.qualify(&d.name());
                let params = d.params().map(|p| self.params(&p)).unwrap_or_default();
                let body = self.block(d.body());
                self.defs.defines.push(Arc::new(DefineDef {
                    name,
                    params,
                    body,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            ast::Expr::FunctionDef(d) => {
                let name = SmolStr::new(d.name().trim_start_matches("::").to_ascii_lowercase());
                let params = d.params().map(|p| self.params(&p)).unwrap_or_default();
                let return_type = d
                    .return_type()
                    .and_then(|r| r.type_expr())
                    .map(|t| self.expr(&t));
                let body = self.block(d.body());
                self.defs.functions.push(Arc::new(FunctionDef {
                    name,
                    params,
                    return_type,
                    body,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            ast::Expr::TypeAlias(t) => {
                let name = SmolStr::new(t.name());
                let type_expr = match t.type_expr() {
                    Some(ast::Expr::HashEntry(h)) => {
                        // `Object { ... }`: the type applied to the hash.
                        let base = h.key().map(|k| self.expr(&k));
                        let hash = h.value().map(|v| self.expr(&v));
                        match (base, hash) {
                            (Some(b), Some(hv)) => {
                                self.mk(ExprKind::Access(Box::new(b), vec![hv]), span.clone())
                            }
                            _ => self.invalid(t, "invalid type alias"),
                        }
                    }
                    Some(ast::Expr::Hash(h)) => {
                        let hash = self.expr(&ast::Expr::Hash(h));
                        let obj = self.mk(ExprKind::TypeName("Object".into()), span.clone());
                        self.mk(ExprKind::Access(Box::new(obj), vec![hash]), span.clone())
                    }
                    Some(x) => self.expr(&x),
                    None => self.invalid(t, "invalid type alias"),
                };
                self.defs.type_aliases.push(Arc::new(TypeAliasDef {
                    name,
                    type_expr,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            ast::Expr::TypeDefinition(_) => ExprKind::Definition,
            ast::Expr::NodeDef(n) => {
                let matches = n
                    .matches()
                    .filter_map(|m| match m.kind()? {
                        ast::HostMatchKind::Name(s) => {
                            Some(HostMatch::Name(SmolStr::new(s.to_ascii_lowercase())))
                        }
                        ast::HostMatchKind::Default => Some(HostMatch::Default),
                        ast::HostMatchKind::Regex(r) => Regexp::new(&r).ok().map(HostMatch::Regex),
                        ast::HostMatchKind::String(node) => {
                            let text = if let Some(s) = ast::StringExpr::cast(node.clone()) {
                                s.parts()
                                    .filter_map(|p| match p {
                                        ast::StringPart::Text(t) => {
                                            Some(ast::unescape_dq(t.text(), ast::DQ_ESCAPES))
                                        }
                                        _ => None,
                                    })
                                    .collect()
                            } else {
                                m.sq_string()
                                    .map(|t| ast::unescape_sq(t.text()))
                                    .unwrap_or_default()
                            };
                            Some(HostMatch::Name(SmolStr::new(text.to_ascii_lowercase())))
                        }
                    })
                    .collect();
                let body = self.block(n.body());
                self.defs.nodes.push(Arc::new(NodeDef {
                    matches,
                    body,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            ast::Expr::EppRenderText(t) => ExprKind::RenderText(SmolStr::new(t.text())),
            ast::Expr::EppRenderExpr(r) => {
                let inner = if let Some(b) = r.block() {
                    let stmts = self.block(Some(b));
                    self.mk(ExprKind::Block(stmts), span.clone())
                } else {
                    r.expr()
                        .map(|x| self.expr(&x))
                        .unwrap_or_else(|| self.invalid(r, "empty render"))
                };
                ExprKind::Render(Box::new(inner))
            }
            ast::Expr::Error(_) => ExprKind::Invalid("Syntax error".into()),
        };
        let mut span = span;
        if let (ast::Expr::MethodCall(m), None) = (e, self.override_span) {
            // Puppet places a method call at its `(`, or at the `.` when it has none.
            let paren = m
                .arg_list()
                .filter(|a| {
                    a.syntax()
                        .first_token()
                        .is_some_and(|t| t.kind() == SyntaxKind::L_PAREN)
                })
                .map(|a| a.syntax().text_range().start());
            let dot = m
                .syntax()
                .children_with_tokens()
                .find(|t| t.kind() == SyntaxKind::DOT)
                .map(|t| t.text_range().start());
            if let Some(start) = paren.or(dot) {
                span.start = start.into();
            }
        }
        self.mk(kind, span)
    }

    fn else_part(
        &mut self,
        elsif: Option<ast::ElsifClause>,
        els: Option<ast::ElseClause>,
    ) -> Option<Vec<Expr>> {
        if let Some(e) = elsif {
            let span = self.span(&e);
            let cond = e
                .condition()
                .map(|x| self.expr(&x))
                .unwrap_or_else(|| self.invalid(&e, "missing condition"));
            let then = self.block(e.then_block());
            let inner = self.else_part(e.elsif(), e.else_clause());
            return Some(vec![self.mk(
                ExprKind::If {
                    cond: Box::new(cond),
                    then,
                    els: inner,
                },
                span,
            )]);
        }
        els.map(|e| self.block(e.block()))
    }

    fn resource(&mut self, r: &ast::ResourceExpr, span: Span) -> Expr {
        let form = match r.form() {
            ast::ResourceForm::Regular => ResourceForm::Regular,
            ast::ResourceForm::Virtual => ResourceForm::Virtual,
            ast::ResourceForm::Exported => ResourceForm::Exported,
        };
        let type_expr = match r.type_expr() {
            Some(ast::Expr::Name(n))
                if n.token().is_some_and(|t| t.kind() == SyntaxKind::CLASS_KW) =>
            {
                self.mk(ExprKind::Name("class".into()), self.span(&n))
            }
            Some(t) => self.expr(&t),
            None => return self.invalid(r, "missing resource type"),
        };
        if r.is_untitled() {
            // `name { k => v }`: a call with a hash for statement functions, else an error.
            let ops = self.attr_ops(r.untitled_operations());
            if let ExprKind::Name(n) = &type_expr.kind {
                if is_statement_call(n) {
                    let entries = ops
                        .into_iter()
                        .filter_map(|o| {
                            let key = self.mk(
                                ExprKind::Literal(Value::string(o.name?.as_str())),
                                o.span.clone(),
                            );
                            Some((key, o.value))
                        })
                        .collect();
                    let hash = self.mk(ExprKind::Hash(entries), span.clone());
                    return self.mk(
                        ExprKind::Call {
                            name: n.clone(),
                            args: vec![hash],
                            lambda: None,
                            rvalue: false,
                        },
                        span,
                    );
                }
                return self.mk(
                    ExprKind::Invalid(format!(
                        "This expression is invalid. Did you try declaring a '{n}' resource without a title?"
                    )),
                    span,
                );
            }
            return self.mk(ExprKind::Invalid("resource without title".into()), span);
        }
        let bodies = r
            .bodies()
            .map(|b| ResourceBody {
                title: b
                    .title()
                    .map(|t| self.expr(&t))
                    .unwrap_or_else(|| self.invalid(&b, "missing title")),
                ops: self.attr_ops(b.operations()),
                span: self.span(&b),
            })
            .collect();
        self.mk(
            ExprKind::Resource {
                form,
                type_expr: Box::new(type_expr),
                bodies,
            },
            span,
        )
    }

    fn query(&mut self, e: &ast::Expr) -> Option<Query> {
        match e {
            ast::Expr::Paren(p) => self.query(&p.expr()?),
            ast::Expr::Binary(b) => {
                let kind = b.op()?.kind();
                match kind {
                    SyntaxKind::AND_KW | SyntaxKind::OR_KW => {
                        let l = self.query(&b.lhs()?)?;
                        let r = self.query(&b.rhs()?)?;
                        Some(if kind == SyntaxKind::AND_KW {
                            Query::And(Box::new(l), Box::new(r))
                        } else {
                            Query::Or(Box::new(l), Box::new(r))
                        })
                    }
                    SyntaxKind::EQ2 | SyntaxKind::NEQ => {
                        let attr = match b.lhs()? {
                            ast::Expr::Name(n) => SmolStr::new(n.text()),
                            ast::Expr::Literal(l) => SmolStr::new(l.string_value()?),
                            _ => return None,
                        };
                        let value = self.expr(&b.rhs()?);
                        Some(if kind == SyntaxKind::EQ2 {
                            Query::Eq(attr, Box::new(value))
                        } else {
                            Query::Ne(attr, Box::new(value))
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
