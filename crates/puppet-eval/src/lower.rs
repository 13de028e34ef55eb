//! Lowering: the typed AST of a parsed file to the evaluator's IR and its definitions.
//!
//! Runs once per file. Literal values are computed here (unescaped strings, numbers,
//! compiled regexes, heredoc text), Puppet's parse-time rewrites are applied (adjacent
//! `k => v` arguments become one hash, untitled resource bodies of statement functions
//! become calls), and definitions are hoisted into [`Definitions`] with fully qualified,
//! lower-case names (a class nested in `a` is `a::b`). Problems become diagnostics.
//!
//! It reads the flat tree of `puppet_syntax::flat` through `puppet_syntax::green` views (no
//! rowan tree is built for a file a compile loads): what each child of a node means follows
//! the typed AST's accessors in `puppet_syntax::ast`. A caller holding a rowan parse lowers
//! it with `FlatParse::from_parse`.

use crate::ir::*;
use puppet_syntax::ast::{self, AstNode, Number};
use puppet_syntax::flat::FlatParse;
use puppet_syntax::green::{Element, Node};
use puppet_syntax::SyntaxKind::{self, *};
use puppet_syntax::{Diagnostic, TextRange};
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
    /// [`crate::scope::assignments_in`] of the body, counted when first needed.
    pub(crate) assignments: std::sync::OnceLock<usize>,
}

impl ClassDef {
    /// How many variables the body may assign (for making room in its scope at once).
    pub(crate) fn body_assignments(&self) -> usize {
        *(self.assignments).get_or_init(|| crate::scope::assignments_in(&self.body))
    }
}

/// A defined resource type.
#[derive(Debug, Clone)]
pub struct DefineDef {
    pub name: SmolStr,
    pub params: Vec<Param>,
    pub body: Vec<Expr>,
    pub span: Span,
    /// [`crate::scope::assignments_in`] of the body, counted when first needed.
    pub(crate) assignments: std::sync::OnceLock<usize>,
}

impl DefineDef {
    /// How many variables the body may assign (for making room in its scope at once).
    pub(crate) fn body_assignments(&self) -> usize {
        *(self.assignments).get_or_init(|| crate::scope::assignments_in(&self.body))
    }
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
    /// Where the name is written: Puppet reports a redefinition at the first one's name.
    pub name_span: Span,
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
pub fn lower_file(file: Arc<SourceFile>, parse: &FlatParse) -> LoweredFile {
    let mut l = Lowerer::new(file.clone());
    let root = Node::root(parse);
    let mut epp_params = None;
    if root.kind() == EPP_FILE {
        if let Some(header) = root.child(EPP_PARAMS) {
            epp_params = Some(
                header
                    .child(PARAM_LIST)
                    .map(|p| l.params(p))
                    .unwrap_or_default(),
            );
        }
    }
    let statements = l.expr_list(root);
    LoweredFile {
        file,
        statements,
        definitions: l.defs,
        epp_params,
        diagnostics: l.diags,
    }
}

/// Lowers a single expression parse (e.g. a type string).
pub fn lower_expression(file: Arc<SourceFile>, parse: &FlatParse) -> Option<Expr> {
    let mut l = Lowerer::new(file);
    let root = Node::root(parse);
    if root.kind() != EXPR_ROOT {
        return None;
    }
    root.nth_expr(0).map(|e| l.expr(e))
}

struct Lowerer {
    file: Arc<SourceFile>,
    defs: Definitions,
    /// Names of the enclosing classes, for nested definitions.
    namespace: Vec<SmolStr>,
    diags: Vec<Diagnostic>,
    /// Inside a heredoc's sub-parse, every span is the heredoc's.
    override_span: Option<(u32, u32)>,
    /// Lowered expressions of the lists being built, innermost list last: a list is lowered
    /// onto it in one walk over the node's children, then moved into a vector of exactly its
    /// length (instead of a first walk that counts them).
    pending: Vec<Expr>,
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

/// The text of a node's first significant token (a name, variable or literal), or "".
fn token_text(n: Node<'_>) -> &str {
    n.first_significant_token().map_or("", |t| t.text())
}

/// The kind of a node's first significant token.
fn token_kind(n: Node<'_>) -> Option<SyntaxKind> {
    n.first_significant_token().map(|t| t.kind())
}

/// The name of a class, define or function definition (as `ast::ClassDef::name`): its
/// second significant token.
fn definition_name(n: Node<'_>) -> Option<&str> {
    n.children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia())
        .nth(1)
        .map(|t| t.text())
}

/// The string value of a literal (as `ast::Literal::string_value`).
fn literal_string(n: Node<'_>) -> Option<String> {
    let t = n.first_significant_token()?;
    match t.kind() {
        SQ_STRING => Some(ast::unescape_sq(t.text())),
        NUMBER | REGEX => None,
        _ => Some(t.text().to_string()),
    }
}

/// A resource expression's type names the `class` keyword (`class { 'x': }`).
fn is_class_keyword(n: Node<'_>) -> bool {
    n.kind() == NAME_EXPR && token_kind(n) == Some(CLASS_KW)
}

impl Lowerer {
    fn new(file: Arc<SourceFile>) -> Self {
        Lowerer {
            file,
            defs: Definitions::default(),
            namespace: Vec::new(),
            diags: Vec::new(),
            override_span: None,
            pending: Vec::new(),
        }
    }

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

    fn span(&self, node: Node<'_>) -> Span {
        self.span_of(node.trimmed_range())
    }

    fn mk(&self, kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    fn invalid(&mut self, node: Node<'_>, msg: &str) -> Expr {
        let span = self.span(node);
        self.mk(ExprKind::Invalid(msg.to_string()), span)
    }

    /// The `n`-th expression child of `node` lowered, or an invalid expression saying `msg`.
    fn nth_or(&mut self, node: Node<'_>, n: usize, msg: &str) -> Expr {
        match node.nth_expr(n) {
            Some(x) => self.expr(x),
            None => self.invalid(node, msg),
        }
    }

    fn qualify(&self, name: &str) -> SmolStr {
        let name = name.trim_start_matches("::").to_ascii_lowercase();
        if self.namespace.is_empty() {
            SmolStr::new(name)
        } else {
            SmolStr::new(format!("{}::{}", self.namespace.join("::"), name))
        }
    }

    fn block(&mut self, b: Option<Node<'_>>) -> Vec<Expr> {
        match b {
            Some(b) => self.expr_list(b),
            None => Vec::new(),
        }
    }

    /// The expression children of `node`, lowered, in a vector with no spare room.
    fn expr_list(&mut self, node: Node<'_>) -> Vec<Expr> {
        let base = self.pending.len();
        for e in node.exprs() {
            let x = self.expr(e);
            self.pending.push(x);
        }
        // `Drain` knows its length: the vector is allocated once, at exactly that size.
        self.pending.drain(base..).collect()
    }

    /// Lowers a list of arguments or elements (the expressions of `list` after the first
    /// `skip`), merging adjacent `k => v` into one hash.
    fn args(&mut self, list: Node<'_>, skip: usize) -> Vec<Expr> {
        // One element per expression, one per run of `k => v`, lowered onto `self.pending`.
        let base = self.pending.len();
        let mut pending: Vec<(Expr, Expr)> = Vec::new();
        let mut pending_span: Option<Span> = None;
        for item in list.exprs().skip(skip) {
            if item.kind() == HASH_ENTRY {
                let k = self.nth_or(item, 0, "missing key");
                let v = self.nth_or(item, 1, "missing value");
                if pending_span.is_none() {
                    pending_span = Some(self.span(item));
                }
                pending.push((k, v));
                continue;
            }
            if !pending.is_empty() {
                let span = pending_span.take().expect("set with pending");
                let hash = self.mk(ExprKind::Hash(std::mem::take(&mut pending)), span);
                self.pending.push(hash);
            }
            let x = self.expr(item);
            self.pending.push(x);
        }
        if !pending.is_empty() {
            let span = pending_span.take().expect("set with pending");
            let hash = self.mk(ExprKind::Hash(pending), span);
            self.pending.push(hash);
        }
        self.pending.drain(base..).collect()
    }

    /// The arguments of a call or method call: the expressions of its `ARG_LIST`.
    fn call_args(&mut self, call: Node<'_>) -> Vec<Expr> {
        match call.child(ARG_LIST) {
            Some(list) => self.args(list, 0),
            None => Vec::new(),
        }
    }

    /// The parameters and the return type of a lambda or function definition.
    fn signature(&mut self, def: Node<'_>) -> (Vec<Param>, Option<Expr>) {
        let params = def
            .child(PARAM_LIST)
            .map(|p| self.params(p))
            .unwrap_or_default();
        let return_type = def
            .child(RETURN_TYPE)
            .and_then(|r| r.nth_expr(0))
            .map(|t| self.expr(t));
        (params, return_type)
    }

    fn lambda(&mut self, l: Option<Node<'_>>) -> Option<Arc<LambdaDef>> {
        let l = l?;
        let (params, return_type) = self.signature(l);
        let body = self.block(l.child(BLOCK));
        Some(Arc::new(LambdaDef {
            params,
            return_type,
            body,
            span: self.span(l),
        }))
    }

    fn params(&mut self, list: Node<'_>) -> Vec<Param> {
        let len = list.children_of(PARAM).count();
        let params = list.children_of(PARAM).map(|p| {
            let name = p
                .token(VARIABLE)
                .map_or("", |t| t.text().trim_start_matches('$'));
            // The type comes before the variable token, the default after `=`.
            let mut type_expr = None;
            for e in p.children_with_tokens() {
                match e {
                    Element::Node(n) => {
                        type_expr = Some(n).filter(|n| ast::Expr::can_cast(n.kind()));
                        break;
                    }
                    Element::Token(t) if t.kind() == VARIABLE => break,
                    _ => {}
                }
            }
            let mut default = None;
            let mut after_eq = false;
            for e in p.children_with_tokens() {
                match e {
                    Element::Token(t) if t.kind() == EQ => after_eq = true,
                    Element::Node(n) if after_eq => {
                        default = Some(n).filter(|n| ast::Expr::can_cast(n.kind()));
                        break;
                    }
                    _ => {}
                }
            }
            Param {
                name: SmolStr::new(name),
                type_expr: type_expr.map(|t| self.expr(t)),
                default: default.map(|d| self.expr(d)),
                captures_rest: p.token(STAR).is_some(),
                span: self.span(p),
            }
        });
        exact(len, params)
    }

    /// The attribute operations (`k => v`, `k +> v`, `* => h`) among `node`'s children.
    fn attr_ops(&mut self, node: Node<'_>) -> Vec<AttrOp> {
        let len = node
            .children()
            .filter(|op| matches!(op.kind(), ATTRIBUTE_OP | ATTRIBUTES_OP))
            .count();
        let ops = node.children().filter_map(|op| match op.kind() {
            ATTRIBUTE_OP => Some(AttrOp {
                name: Some(SmolStr::new(token_text(op))),
                append: op.token(PARROW).is_some(),
                value: self.nth_or(op, 0, "missing value"),
                span: self.span(op),
            }),
            ATTRIBUTES_OP => Some(AttrOp {
                name: None,
                append: false,
                value: self.nth_or(op, 0, "missing value"),
                span: self.span(op),
            }),
            _ => None,
        });
        exact(len, ops)
    }

    fn string_parts(
        &mut self,
        s: Node<'_>,
        heredoc: Option<&puppet_syntax::lexer::HeredocHeader>,
    ) -> Vec<StrPart> {
        let len = s
            .children_with_tokens()
            .filter(|p| match p {
                Element::Token(t) => t.kind() == STRING_TEXT,
                Element::Node(n) => matches!(n.kind(), VARIABLE_EXPR | INTERPOLATION),
            })
            .count();
        let parts = s.children_with_tokens().filter_map(|p| match p {
            Element::Token(t) if t.kind() == STRING_TEXT => {
                Some(StrPart::Text(SmolStr::new(match heredoc {
                    Some(h) => std::borrow::Cow::Owned(ast::unescape_heredoc(t.text(), h)),
                    None => ast::unescape_dq_cow(t.text(), ast::DQ_ESCAPES),
                })))
            }
            Element::Node(v) if v.kind() == VARIABLE_EXPR => {
                let span = self.span(v);
                let name = token_text(v).trim_start_matches('$');
                Some(StrPart::Expr(
                    self.mk(ExprKind::Var(SmolStr::new(name)), span),
                ))
            }
            Element::Node(i) if i.kind() == INTERPOLATION => {
                Some(StrPart::Expr(self.nth_or(i, 0, "empty interpolation")))
            }
            _ => None,
        });
        exact(len, parts)
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
            return self.mk(ExprKind::Literal(Box::new(Value::string(text))), span);
        }
        self.mk(ExprKind::Concat(parts), span)
    }

    fn literal(&mut self, l: Node<'_>) -> ExprKind {
        let Some(t) = l.first_significant_token() else {
            return ExprKind::Literal(Box::new(Value::string("")));
        };
        match t.kind() {
            NUMBER => match ast::parse_number(t.text()) {
                Some(Number::Integer { value, .. }) => {
                    ExprKind::Literal(Box::new(Value::Integer(value)))
                }
                Some(Number::Float(f)) => ExprKind::Literal(Box::new(Value::Float(f))),
                _ => ExprKind::Invalid("Integer value out of range".into()),
            },
            TRUE_KW => ExprKind::Literal(Box::new(Value::Boolean(true))),
            FALSE_KW => ExprKind::Literal(Box::new(Value::Boolean(false))),
            UNDEF_KW => ExprKind::Literal(Box::new(Value::Undef)),
            DEFAULT_KW => ExprKind::Literal(Box::new(Value::Default)),
            REGEX => match Regexp::new(&ast::regex_literal_pattern(t.text())) {
                Ok(r) => ExprKind::Literal(Box::new(Value::Regexp(r))),
                Err(err) => ExprKind::Invalid(format!("Illegal regular expression: {err}")),
            },
            SQ_STRING => ExprKind::Literal(Box::new(Value::string(ast::unescape_sq_cow(t.text())))),
            _ => ExprKind::Literal(Box::new(Value::string(t.text()))),
        }
    }

    /// A heredoc: its body is found among the file's tokens (it lies after the expression's
    /// line, outside its node), then lowered from its own parse.
    fn heredoc(&mut self, h: Node<'_>, span: Span) -> Expr {
        let Some(body) = h.heredoc_body() else {
            return self.invalid(h, "Heredoc without body");
        };
        match &body.parse {
            Some(p) => {
                let saved = self.override_span.replace((span.start, span.end));
                let parts = Node::root(p)
                    .child(STRING_EXPR)
                    .map(|s| self.string_parts(s, Some(&body.header)))
                    .unwrap_or_default();
                self.override_span = saved;
                self.concat(parts, span)
            }
            None => self.mk(
                ExprKind::Literal(Box::new(Value::string(ast::unescape_heredoc(
                    &body.text,
                    &body.header,
                )))),
                span,
            ),
        }
    }

    /// A binary or relationship expression, located at its operator (Puppet's position for
    /// it), or at the whole expression inside a heredoc or without an operator.
    fn operator_expr(&mut self, e: Node<'_>) -> Expr {
        match e.kind() {
            BINARY_EXPR => {
                let l = Box::new(self.nth_or(e, 0, "missing operand"));
                let r = Box::new(self.nth_or(e, 1, "missing operand"));
                let op_token = e.operator_token();
                let op = match op_token.map(|t| t.kind()) {
                    Some(AND_KW) => return self.mk(ExprKind::And(l, r), self.span(e)),
                    Some(OR_KW) => return self.mk(ExprKind::Or(l, r), self.span(e)),
                    Some(PLUS) => BinOp::Add,
                    Some(MINUS) => BinOp::Sub,
                    Some(STAR) => BinOp::Mul,
                    Some(SLASH) => BinOp::Div,
                    Some(PERCENT) => BinOp::Mod,
                    Some(LSHIFT) => BinOp::Shl,
                    Some(RSHIFT) => BinOp::Shr,
                    Some(EQ2) => BinOp::Eq,
                    Some(NEQ) => BinOp::Ne,
                    Some(LT) => BinOp::Lt,
                    Some(LTEQ) => BinOp::Le,
                    Some(GT) => BinOp::Gt,
                    Some(GTEQ) => BinOp::Ge,
                    Some(MATCH) => BinOp::Match,
                    Some(NOMATCH) => BinOp::NoMatch,
                    Some(IN_KW) => BinOp::In,
                    _ => return self.invalid(e, "unknown operator"),
                };
                // Puppet reports a match's left operand that is not a String at the
                // operand, which for `(x) =~ y` is the parenthesis.
                let l = match (op, e.nth_expr(0)) {
                    (BinOp::Match | BinOp::NoMatch, Some(p)) if p.kind() == PAREN_EXPR => {
                        let span = self.span(p);
                        Box::new(self.mk(ExprKind::Paren(l), span))
                    }
                    _ => l,
                };
                // Puppet locates an operator expression at its operator.
                let span = match op_token {
                    Some(t) if self.override_span.is_none() => self.span_of(t.text_range()),
                    _ => self.span(e),
                };
                self.mk(ExprKind::Binary(op, l, r), span)
            }
            RELATIONSHIP_EXPR => {
                let lhs = self.nth_or(e, 0, "missing operand");
                let rhs = self.nth_or(e, 1, "missing operand");
                let op_token = e.operator_token();
                let op = match op_token.map(|t| t.kind()) {
                    Some(IN_EDGE) => RelOp::Before,
                    Some(IN_EDGE_SUB) => RelOp::Notify,
                    Some(OUT_EDGE) => RelOp::Require,
                    _ => RelOp::Subscribe,
                };
                let span = match op_token {
                    Some(t) if self.override_span.is_none() => self.span_of(t.text_range()),
                    _ => self.span(e),
                };
                self.mk(
                    ExprKind::Relationship(op, Box::new(lhs), Box::new(rhs)),
                    span,
                )
            }
            _ => self.invalid(e, "unknown operator"),
        }
    }

    pub(crate) fn expr(&mut self, e: Node<'_>) -> Expr {
        // Parentheses are dropped and an operator expression is located at its operator:
        // their own span is not needed (nor computed) unless that fails.
        match e.kind() {
            PAREN_EXPR => {
                if let Some(x) = e.nth_expr(0) {
                    return self.expr(x);
                }
            }
            BINARY_EXPR | RELATIONSHIP_EXPR => return self.operator_expr(e),
            _ => {}
        }
        let span = self.span(e);
        let kind = match e.kind() {
            LITERAL => self.literal(e),
            STRING_EXPR => {
                let parts = self.string_parts(e, None);
                return self.concat(parts, span);
            }
            HEREDOC_EXPR => return self.heredoc(e, span),
            NAME_EXPR => ExprKind::Name(SmolStr::new(token_text(e))),
            TYPE_REF => ExprKind::TypeName(SmolStr::new(token_text(e))),
            VARIABLE_EXPR => ExprKind::Var(SmolStr::new(token_text(e).trim_start_matches('$'))),
            RESERVED_WORD => ExprKind::Invalid(format!("Use of reserved word: {}", token_text(e))),
            ARRAY_EXPR => ExprKind::Array(self.args(e, 0)),
            HASH_EXPR => ExprKind::Hash(exact(
                e.children_of(HASH_ENTRY).count(),
                e.children_of(HASH_ENTRY).map(|en| {
                    let k = self.nth_or(en, 0, "missing key");
                    let v = self.nth_or(en, 1, "missing value");
                    (k, v)
                }),
            )),
            HASH_ENTRY => {
                // A lone `k => v` where a value is expected: an unfolded hash of one entry.
                let k = self.nth_or(e, 0, "missing key");
                let v = self.nth_or(e, 1, "missing value");
                ExprKind::Hash(vec![(k, v)])
            }
            UNARY_EXPR => {
                let x = self.nth_or(e, 0, "missing operand");
                match token_kind(e) {
                    Some(BANG) => ExprKind::Not(Box::new(x)),
                    Some(MINUS) => ExprKind::Neg(Box::new(x)),
                    _ => ExprKind::Unfold(Box::new(x)),
                }
            }
            ASSIGN_EXPR => {
                let lhs = self.nth_or(e, 0, "missing target");
                let rhs = self.nth_or(e, 1, "missing value");
                let op_token = e.operator_token();
                let op_span = match op_token {
                    Some(t) if self.override_span.is_none() => self.span_of(t.text_range()),
                    _ => span.clone(),
                };
                match op_token.map(|t| t.kind()) {
                    Some(EQ) => {
                        return self.mk(ExprKind::Assign(Box::new(lhs), Box::new(rhs)), op_span)
                    }
                    _ => ExprKind::Invalid("The operator is no longer supported".into()),
                }
            }
            ACCESS_EXPR => {
                let target = self.nth_or(e, 0, "missing target");
                let keys = self.args(e, 1);
                ExprKind::Access(Box::new(target), keys)
            }
            SELECTOR_EXPR => {
                let target = self.nth_or(e, 0, "missing target");
                let entries = exact(
                    e.children_of(SELECTOR_ENTRY).count(),
                    e.children_of(SELECTOR_ENTRY).map(|en| {
                        let m = self.nth_or(en, 0, "missing");
                        let v = self.nth_or(en, 1, "missing");
                        (m, v)
                    }),
                );
                ExprKind::Selector(Box::new(target), entries)
            }
            PAREN_EXPR => match e.nth_expr(0) {
                Some(x) => return self.expr(x),
                None => ExprKind::Invalid("empty parentheses".into()),
            },
            CALL_EXPR => {
                let args = self.call_args(e);
                let lambda = self.lambda(e.child(LAMBDA));
                match e.nth_expr(0) {
                    Some(n) if n.kind() == NAME_EXPR => ExprKind::Call {
                        name: SmolStr::new(token_text(n).trim_start_matches("::")),
                        args,
                        lambda,
                        rvalue: e
                            .child(ARG_LIST)
                            .is_some_and(|a| a.token(L_PAREN).is_some()),
                    },
                    Some(t) if matches!(t.kind(), TYPE_REF | ACCESS_EXPR) => ExprKind::CallType {
                        target: Box::new(self.expr(t)),
                        args,
                        lambda,
                    },
                    _ => ExprKind::Invalid("Illegal expression as function name".into()),
                }
            }
            METHOD_CALL_EXPR => {
                let receiver = self.nth_or(e, 0, "missing receiver");
                let name = e
                    .nth_expr(1)
                    .filter(|n| n.kind() == NAME_EXPR)
                    .map_or("", token_text);
                let args = self.call_args(e);
                let lambda = self.lambda(e.child(LAMBDA));
                ExprKind::MethodCall {
                    receiver: Box::new(receiver),
                    name: SmolStr::new(name),
                    args,
                    lambda,
                }
            }
            IF_EXPR => {
                let cond = self.nth_or(e, 0, "missing condition");
                let then = self.block(e.child(BLOCK));
                let els = self.else_part(e.child(ELSIF_CLAUSE), e.child(ELSE_CLAUSE));
                ExprKind::If {
                    cond: Box::new(cond),
                    then,
                    els,
                }
            }
            UNLESS_EXPR => {
                let cond = self.nth_or(e, 0, "missing condition");
                let then = self.block(e.child(BLOCK));
                let els = e.child(ELSE_CLAUSE).map(|c| self.block(c.child(BLOCK)));
                ExprKind::Unless {
                    cond: Box::new(cond),
                    then,
                    els,
                }
            }
            CASE_EXPR => {
                let test = self.nth_or(e, 0, "missing test");
                let options = exact(
                    e.children_of(CASE_OPTION).count(),
                    e.children_of(CASE_OPTION).map(|o| {
                        let values = self.expr_list(o);
                        (values, self.block(o.child(BLOCK)))
                    }),
                );
                ExprKind::Case {
                    test: Box::new(test),
                    options,
                }
            }
            RESOURCE_EXPR => return self.resource(e, span),
            RESOURCE_DEFAULTS_EXPR => {
                let t = self.nth_or(e, 0, "missing type");
                let ops = self.attr_ops(e);
                ExprKind::ResourceDefaults {
                    type_expr: Box::new(t),
                    ops,
                }
            }
            RESOURCE_OVERRIDE_EXPR => {
                let t = self.nth_or(e, 0, "missing target");
                let ops = self.attr_ops(e);
                ExprKind::ResourceOverride {
                    target: Box::new(t),
                    ops,
                }
            }
            COLLECT_EXPR => {
                let type_name = match e.nth_expr(0) {
                    Some(t) if t.kind() == TYPE_REF => SmolStr::new(token_text(t)),
                    _ => return self.invalid(e, "Illegal collector type"),
                };
                let q = e.child(COLLECT_QUERY);
                let exported = q.is_some_and(|q| q.token(LLCOLLECT).is_some());
                let query = match q.and_then(|q| q.nth_expr(0)) {
                    Some(x) => match self.query(x) {
                        Some(q) => q,
                        None => return self.invalid(e, "Illegal query expression"),
                    },
                    None => Query::All,
                };
                let ops = self.attr_ops(e);
                ExprKind::Collect {
                    type_name,
                    exported,
                    query: Box::new(query),
                    ops,
                }
            }
            CLASS_DEF => {
                let name = self.qualify(definition_name(e).unwrap_or(""));
                let params = e
                    .child(PARAM_LIST)
                    .map(|p| self.params(p))
                    .unwrap_or_default();
                let parent = e.child(INHERITS_CLAUSE).map(|i| {
                    let name = definition_name(i).unwrap_or_else(|| token_text(i));
                    SmolStr::new(name.trim_start_matches("::").to_ascii_lowercase())
                });
                let saved = std::mem::replace(&mut self.namespace, vec![name.clone()]);
                let body = self.block(e.child(BLOCK));
                self.namespace = saved;
                self.defs.classes.push(Arc::new(ClassDef {
                    name,
                    params,
                    parent,
                    body,
                    span: span.clone(),
                    assignments: Default::default(),
                }));
                ExprKind::Definition
            }
            DEFINE_DEF => {
                let name = self.qualify(definition_name(e).unwrap_or(""));
                let params = e
                    .child(PARAM_LIST)
                    .map(|p| self.params(p))
                    .unwrap_or_default();
                let body = self.block(e.child(BLOCK));
                self.defs.defines.push(Arc::new(DefineDef {
                    name,
                    params,
                    body,
                    span: span.clone(),
                    assignments: Default::default(),
                }));
                ExprKind::Definition
            }
            FUNCTION_DEF => {
                let name = definition_name(e).unwrap_or("");
                let name = SmolStr::new(name.trim_start_matches("::").to_ascii_lowercase());
                let (params, return_type) = self.signature(e);
                let body = self.block(e.child(BLOCK));
                self.defs.functions.push(Arc::new(FunctionDef {
                    name,
                    params,
                    return_type,
                    body,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            TYPE_ALIAS => {
                let name_node = match e.nth_expr(0) {
                    Some(t) if t.kind() == TYPE_REF => Some(t),
                    // `type Runtime[ruby, 'X'] = T`: a type mapping (Ruby implementation
                    // classes), which defines no type name.
                    Some(a) if a.kind() == ACCESS_EXPR => {
                        return self.mk(ExprKind::Definition, span);
                    }
                    _ => None,
                };
                let name = SmolStr::new(name_node.map_or("", token_text));
                let name_span = name_node.map_or_else(|| span.clone(), |n| self.span(n));
                let type_expr = match e.nth_expr(1) {
                    Some(h) if h.kind() == HASH_ENTRY => {
                        // `Object { ... }`: the type applied to the hash.
                        let base = h.nth_expr(0).map(|k| self.expr(k));
                        let hash = h.nth_expr(1).map(|v| self.expr(v));
                        match (base, hash) {
                            (Some(b), Some(hv)) => {
                                self.mk(ExprKind::Access(Box::new(b), vec![hv]), span.clone())
                            }
                            _ => self.invalid(e, "invalid type alias"),
                        }
                    }
                    Some(h) if h.kind() == HASH_EXPR => {
                        let hash = self.expr(h);
                        let obj = self.mk(ExprKind::TypeName("Object".into()), span.clone());
                        self.mk(ExprKind::Access(Box::new(obj), vec![hash]), span.clone())
                    }
                    Some(x) => self.expr(x),
                    None => self.invalid(e, "invalid type alias"),
                };
                self.defs.type_aliases.push(Arc::new(TypeAliasDef {
                    name,
                    type_expr,
                    span: span.clone(),
                    name_span,
                }));
                ExprKind::Definition
            }
            TYPE_DEFINITION => ExprKind::Definition,
            NODE_DEF => {
                let matches = e.children_of(HOST_MATCH).filter_map(host_match).collect();
                let body = self.block(e.child(BLOCK));
                self.defs.nodes.push(Arc::new(NodeDef {
                    matches,
                    body,
                    span: span.clone(),
                }));
                ExprKind::Definition
            }
            EPP_RENDER_TEXT => ExprKind::RenderText(SmolStr::new(
                e.token(EPP_TEXT)
                    .map(|t| ast::unescape_epp_text(t.text()))
                    .unwrap_or_default(),
            )),
            EPP_RENDER_EXPR => {
                let inner = if let Some(b) = e.child(BLOCK) {
                    let stmts = self.block(Some(b));
                    self.mk(ExprKind::Block(stmts), span.clone())
                } else {
                    self.nth_or(e, 0, "empty render")
                };
                ExprKind::Render(Box::new(inner))
            }
            // `ERROR`, and any node that is not an expression (never passed here).
            _ => ExprKind::Invalid("Syntax error".into()),
        };
        let mut span = span;
        if e.kind() == METHOD_CALL_EXPR && self.override_span.is_none() {
            // Puppet places a method call at its `(`, or at the `.` when it has none.
            let paren = e
                .child(ARG_LIST)
                .filter(|a| a.first_token().is_some_and(|t| t.kind() == L_PAREN))
                .map(|a| a.text_range().start());
            let dot = e.token(DOT).map(|t| t.text_range().start());
            if let Some(start) = paren.or(dot) {
                span.start = start.into();
            }
        }
        self.mk(kind, span)
    }

    fn else_part(&mut self, elsif: Option<Node<'_>>, els: Option<Node<'_>>) -> Option<Vec<Expr>> {
        if let Some(e) = elsif {
            let span = self.span(e);
            let cond = self.nth_or(e, 0, "missing condition");
            let then = self.block(e.child(BLOCK));
            let inner = self.else_part(e.child(ELSIF_CLAUSE), e.child(ELSE_CLAUSE));
            return Some(vec![self.mk(
                ExprKind::If {
                    cond: Box::new(cond),
                    then,
                    els: inner,
                },
                span,
            )]);
        }
        els.map(|e| self.block(e.child(BLOCK)))
    }

    fn resource(&mut self, r: Node<'_>, span: Span) -> Expr {
        let form = match token_kind(r) {
            Some(AT) => ResourceForm::Virtual,
            Some(ATAT) => ResourceForm::Exported,
            _ => ResourceForm::Regular,
        };
        let type_node = r.nth_expr(0);
        let type_expr = match type_node {
            Some(n) if is_class_keyword(n) => {
                let span = self.span(n);
                self.mk(ExprKind::Name("class".into()), span)
            }
            Some(t) => self.expr(t),
            None => return self.invalid(r, "missing resource type"),
        };
        let untitled = r.child(RESOURCE_BODY).is_none()
            && r.token(L_BRACE).is_some()
            // `class { }` with no bodies is a titled form with nothing in it.
            && !type_node.is_some_and(is_class_keyword);
        if untitled {
            // `name { k => v }`: a call with a hash for statement functions, else an error.
            let ops = self.attr_ops(r);
            if let ExprKind::Name(n) = &type_expr.kind {
                if is_statement_call(n) {
                    let entries = ops
                        .into_iter()
                        .filter_map(|o| {
                            let key = self.mk(
                                ExprKind::Literal(Box::new(Value::string(o.name?.as_str()))),
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
        let bodies = exact(
            r.children_of(RESOURCE_BODY).count(),
            r.children_of(RESOURCE_BODY).map(|b| ResourceBody {
                title: self.nth_or(b, 0, "missing title"),
                ops: self.attr_ops(b),
                span: self.span(b),
            }),
        );
        self.mk(
            ExprKind::Resource {
                form,
                type_expr: Box::new(type_expr),
                bodies,
            },
            span,
        )
    }

    fn query(&mut self, e: Node<'_>) -> Option<Query> {
        match e.kind() {
            PAREN_EXPR => self.query(e.nth_expr(0)?),
            BINARY_EXPR => {
                let kind = e.operator_token()?.kind();
                match kind {
                    AND_KW | OR_KW => {
                        let l = self.query(e.nth_expr(0)?)?;
                        let r = self.query(e.nth_expr(1)?)?;
                        Some(if kind == AND_KW {
                            Query::And(Box::new(l), Box::new(r))
                        } else {
                            Query::Or(Box::new(l), Box::new(r))
                        })
                    }
                    EQ2 | NEQ => {
                        let lhs = e.nth_expr(0)?;
                        let attr = match lhs.kind() {
                            NAME_EXPR => SmolStr::new(token_text(lhs)),
                            LITERAL => SmolStr::new(literal_string(lhs)?),
                            _ => return None,
                        };
                        let value = self.expr(e.nth_expr(1)?);
                        Some(if kind == EQ2 {
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

/// How a node definition's match reads (as `ast::HostMatch::kind`); `None` for an empty one
/// or a regex that does not compile.
fn host_match(m: Node<'_>) -> Option<HostMatch> {
    if let Some(s) = m.child(STRING_EXPR) {
        let text: String = s
            .children_with_tokens()
            .filter_map(|p| p.into_token())
            .filter(|t| t.kind() == STRING_TEXT)
            .map(|t| ast::unescape_dq(t.text(), ast::DQ_ESCAPES))
            .collect();
        return Some(HostMatch::Name(SmolStr::new(text.to_ascii_lowercase())));
    }
    let first = m.first_significant_token()?;
    Some(match first.kind() {
        DEFAULT_KW => HostMatch::Default,
        REGEX => {
            return Regexp::new(&ast::regex_literal_pattern(first.text()))
                .ok()
                .map(HostMatch::Regex)
        }
        SQ_STRING => {
            let text = m
                .token(SQ_STRING)
                .map(|t| ast::unescape_sq(t.text()))
                .unwrap_or_default();
            HostMatch::Name(SmolStr::new(text.to_ascii_lowercase()))
        }
        _ => {
            let text: String = m
                .children_with_tokens()
                .filter_map(|e| e.into_token())
                .filter(|t| !t.kind().is_trivia())
                .map(|t| t.text())
                .collect();
            HostMatch::Name(SmolStr::new(text.to_ascii_lowercase()))
        }
    })
}
/// `items` in a vector with room for `len` of them, `len` being their number. The IR lives
/// as long as its environment, and a vector grown from a filtering iterator starts with room
/// for four and doubles: for the short lists of a manifest (one statement, two arguments,
/// five attributes) much of that room would be memory touched for nothing, and page faults
/// are a large part of a whole-process compile.
fn exact<T>(len: usize, items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    v.extend(items);
    v
}

#[cfg(test)]
mod size_tests {
    /// Lowered files stay in memory for every compile, and expressions are most of them:
    /// a literal's `Value` and a collector's query are boxed to keep every `Expr` small.
    #[test]
    fn expressions_stay_small() {
        assert!(std::mem::size_of::<crate::ir::Expr>() <= 88);
    }

    /// The lists of the IR have no spare room: statements, arguments (a run of `k => v`
    /// counts once), attributes, bodies, array elements and string parts.
    #[test]
    fn lists_have_exact_room() {
        use crate::ir::{ExprKind, SourceFile};
        let text = r#"
            notice(1, a => 1, b => 2, 3)
            file { 'a': ensure => present, mode => '0644', owner => root; 'b': * => {} }
            $x = [1, [2, 3], "x${y}z"]
        "#;
        let parse = puppet_syntax::flat::parse(text.into());
        let lowered = super::lower_file(std::sync::Arc::new(SourceFile::new(None, text)), &parse);
        let s = &lowered.statements;
        assert_eq!((s.len(), s.capacity()), (3, 3));
        let ExprKind::Call { args, .. } = &s[0].kind else {
            panic!("{:?}", s[0].kind)
        };
        assert_eq!((args.len(), args.capacity()), (3, 3));
        let ExprKind::Resource { bodies, .. } = &s[1].kind else {
            panic!("{:?}", s[1].kind)
        };
        assert_eq!((bodies.len(), bodies.capacity()), (2, 2));
        assert_eq!((bodies[0].ops.len(), bodies[0].ops.capacity()), (3, 3));
        assert_eq!((bodies[1].ops.len(), bodies[1].ops.capacity()), (1, 1));
        let ExprKind::Assign(_, value) = &s[2].kind else {
            panic!("{:?}", s[2].kind)
        };
        let ExprKind::Array(items) = &value.kind else {
            panic!("{:?}", value.kind)
        };
        assert_eq!((items.len(), items.capacity()), (3, 3));
        let ExprKind::Concat(parts) = &items[2].kind else {
            panic!("{:?}", items[2].kind)
        };
        assert_eq!((parts.len(), parts.capacity()), (3, 3));
    }
}
