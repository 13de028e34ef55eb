//! The typed AST: zero-cost views over the untyped syntax tree.
//!
//! Each construct of the language has a type here wrapping a [`SyntaxNode`] of one kind.
//! Casting never allocates and every accessor returns an `Option` (or an iterator), because
//! the tree may come from broken input. Values of literals (unescaped strings, numbers,
//! heredoc text) are computed on demand by the helpers at the bottom.
//!
//! ```
//! use puppet_syntax::ast::{self, AstNode, Expr};
//! let parse = puppet_syntax::parse("$x = 1 + 2");
//! let file = ast::SourceFile::cast(parse.syntax()).unwrap();
//! let Some(Expr::Assign(a)) = file.statements().next() else { panic!() };
//! assert_eq!(a.lhs().unwrap().syntax().to_string(), "$x");
//! ```

use crate::lexer::{end_tag_parts, parse_heredoc_header, HeredocHeader};
use crate::SyntaxKind::{self, *};
use crate::{Diagnostic, Parse, SyntaxNode, SyntaxToken, TextRange, TextSize};

/// A typed view of a syntax node.
pub trait AstNode: Sized {
    fn can_cast(kind: SyntaxKind) -> bool;
    fn cast(node: SyntaxNode) -> Option<Self>;
    fn syntax(&self) -> &SyntaxNode;
    /// The byte range of the node, trivia excluded at both ends.
    fn range(&self) -> TextRange {
        trimmed_range(self.syntax())
    }
}

/// The range of a node without leading or trailing trivia. Steps in from both ends over the
/// green tree (no cursor is made), so it costs the trivia at the edges, not the size of the
/// node; a node that is all trivia gives its full range.
pub fn trimmed_range(node: &SyntaxNode) -> TextRange {
    crate::green::trimmed_range(&*node.green(), node.text_range())
}

macro_rules! ast_node {
    ($(#[$doc:meta])* $name:ident, $kind:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(SyntaxNode);
        impl AstNode for $name {
            fn can_cast(kind: SyntaxKind) -> bool {
                kind == $kind
            }
            fn cast(node: SyntaxNode) -> Option<Self> {
                if node.kind() == $kind {
                    Some(Self(node))
                } else {
                    None
                }
            }
            fn syntax(&self) -> &SyntaxNode {
                &self.0
            }
        }
    };
}

// The helpers below look children up by kind on the green tree first (rowan's `*_by_kind`),
// so only the child that is returned gets a cursor; skipped tokens and nodes cost nothing.
// Matchers that count (`nth_expr`, `operator_token`) rely on rowan asking about the children
// once each, in order, until one matches; the AST tests pin that down.

fn child<N: AstNode>(node: &SyntaxNode) -> Option<N> {
    node.first_child_by_kind(&N::can_cast).and_then(N::cast)
}

fn children<N: AstNode>(node: &SyntaxNode) -> impl Iterator<Item = N> {
    node.children().by_kind(N::can_cast).filter_map(N::cast)
}

fn exprs(node: &SyntaxNode) -> impl Iterator<Item = Expr> {
    node.children()
        .by_kind(Expr::can_cast)
        .filter_map(Expr::cast)
}

/// The `n`-th (from 0) expression child, without a cursor for the ones before it.
fn nth_expr(node: &SyntaxNode, n: usize) -> Option<Expr> {
    let seen = std::cell::Cell::new(0usize);
    node.first_child_by_kind(&|k| {
        if !Expr::can_cast(k) {
            return false;
        }
        let i = seen.get();
        seen.set(i + 1);
        i == n
    })
    .and_then(Expr::cast)
}

fn token(node: &SyntaxNode, kind: SyntaxKind) -> Option<SyntaxToken> {
    node.first_child_or_token_by_kind(&|k| k == kind)
        .and_then(|e| e.into_token())
}

fn first_significant_token(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.first_child_or_token_by_kind(&|k| k.is_token() && !k.is_trivia())
        .and_then(|e| e.into_token())
}

ast_node!(
    /// The root of a manifest.
    SourceFile, SOURCE_FILE
);
ast_node!(
    /// The root of an EPP template.
    EppFile, EPP_FILE
);
ast_node!(
    /// The root of an expression parse.
    ExprRoot, EXPR_ROOT
);
ast_node!(
    /// `{ statements }`.
    Block, BLOCK
);

impl SourceFile {
    pub fn statements(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
}

impl EppFile {
    /// The `|$x, $y|` header, if any.
    pub fn params(&self) -> Option<ParamList> {
        child::<EppParams>(&self.0).and_then(|p| child(&p.0))
    }
    /// Whether the template has a parameter header (even an empty `||`).
    pub fn has_params(&self) -> bool {
        child::<EppParams>(&self.0).is_some()
    }
    pub fn statements(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
}

ast_node!(
    /// `<%- | $x | -%>`.
    EppParams, EPP_PARAMS
);

impl ExprRoot {
    pub fn expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

impl Block {
    pub fn statements(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
}

/// Any expression (every statement is an expression in Puppet).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    Literal(Literal),
    String(StringExpr),
    Heredoc(HeredocExpr),
    Name(NameExpr),
    TypeRef(TypeRef),
    Variable(VariableExpr),
    Reserved(ReservedWord),
    Array(ArrayExpr),
    Hash(HashExpr),
    /// `k => v` inside an argument list, array or access: part of an unfolded hash.
    HashEntry(HashEntry),
    Binary(BinaryExpr),
    Unary(UnaryExpr),
    Assign(AssignExpr),
    Relationship(RelationshipExpr),
    Access(AccessExpr),
    Selector(SelectorExpr),
    Paren(ParenExpr),
    Call(CallExpr),
    MethodCall(MethodCallExpr),
    If(IfExpr),
    Unless(UnlessExpr),
    Case(CaseExpr),
    Resource(ResourceExpr),
    ResourceDefaults(ResourceDefaultsExpr),
    ResourceOverride(ResourceOverrideExpr),
    Collect(CollectExpr),
    ClassDef(ClassDef),
    DefineDef(DefineDef),
    NodeDef(NodeDef),
    FunctionDef(FunctionDef),
    /// `plan name(params) { body }` (tasks mode).
    PlanDef(PlanDef),
    /// `apply(args) { body }` (tasks mode).
    Apply(ApplyExpr),
    TypeAlias(TypeAlias),
    TypeDefinition(TypeDefinition),
    EppRenderText(EppRenderText),
    EppRenderExpr(EppRenderExpr),
    Error(ErrorNode),
}

impl AstNode for Expr {
    fn can_cast(kind: SyntaxKind) -> bool {
        matches!(
            kind,
            LITERAL
                | STRING_EXPR
                | HEREDOC_EXPR
                | NAME_EXPR
                | TYPE_REF
                | VARIABLE_EXPR
                | RESERVED_WORD
                | ARRAY_EXPR
                | HASH_EXPR
                | HASH_ENTRY
                | BINARY_EXPR
                | UNARY_EXPR
                | ASSIGN_EXPR
                | RELATIONSHIP_EXPR
                | ACCESS_EXPR
                | SELECTOR_EXPR
                | PAREN_EXPR
                | CALL_EXPR
                | METHOD_CALL_EXPR
                | IF_EXPR
                | UNLESS_EXPR
                | CASE_EXPR
                | RESOURCE_EXPR
                | RESOURCE_DEFAULTS_EXPR
                | RESOURCE_OVERRIDE_EXPR
                | COLLECT_EXPR
                | CLASS_DEF
                | DEFINE_DEF
                | NODE_DEF
                | FUNCTION_DEF
                | PLAN_DEF
                | APPLY_EXPR
                | TYPE_ALIAS
                | TYPE_DEFINITION
                | EPP_RENDER_TEXT
                | EPP_RENDER_EXPR
                | ERROR
        )
    }

    fn cast(node: SyntaxNode) -> Option<Self> {
        Some(match node.kind() {
            LITERAL => Expr::Literal(Literal(node)),
            STRING_EXPR => Expr::String(StringExpr(node)),
            HEREDOC_EXPR => Expr::Heredoc(HeredocExpr(node)),
            NAME_EXPR => Expr::Name(NameExpr(node)),
            TYPE_REF => Expr::TypeRef(TypeRef(node)),
            VARIABLE_EXPR => Expr::Variable(VariableExpr(node)),
            RESERVED_WORD => Expr::Reserved(ReservedWord(node)),
            ARRAY_EXPR => Expr::Array(ArrayExpr(node)),
            HASH_EXPR => Expr::Hash(HashExpr(node)),
            HASH_ENTRY => Expr::HashEntry(HashEntry(node)),
            BINARY_EXPR => Expr::Binary(BinaryExpr(node)),
            UNARY_EXPR => Expr::Unary(UnaryExpr(node)),
            ASSIGN_EXPR => Expr::Assign(AssignExpr(node)),
            RELATIONSHIP_EXPR => Expr::Relationship(RelationshipExpr(node)),
            ACCESS_EXPR => Expr::Access(AccessExpr(node)),
            SELECTOR_EXPR => Expr::Selector(SelectorExpr(node)),
            PAREN_EXPR => Expr::Paren(ParenExpr(node)),
            CALL_EXPR => Expr::Call(CallExpr(node)),
            METHOD_CALL_EXPR => Expr::MethodCall(MethodCallExpr(node)),
            IF_EXPR => Expr::If(IfExpr(node)),
            UNLESS_EXPR => Expr::Unless(UnlessExpr(node)),
            CASE_EXPR => Expr::Case(CaseExpr(node)),
            RESOURCE_EXPR => Expr::Resource(ResourceExpr(node)),
            RESOURCE_DEFAULTS_EXPR => Expr::ResourceDefaults(ResourceDefaultsExpr(node)),
            RESOURCE_OVERRIDE_EXPR => Expr::ResourceOverride(ResourceOverrideExpr(node)),
            COLLECT_EXPR => Expr::Collect(CollectExpr(node)),
            CLASS_DEF => Expr::ClassDef(ClassDef(node)),
            DEFINE_DEF => Expr::DefineDef(DefineDef(node)),
            NODE_DEF => Expr::NodeDef(NodeDef(node)),
            FUNCTION_DEF => Expr::FunctionDef(FunctionDef(node)),
            PLAN_DEF => Expr::PlanDef(PlanDef(node)),
            APPLY_EXPR => Expr::Apply(ApplyExpr(node)),
            TYPE_ALIAS => Expr::TypeAlias(TypeAlias(node)),
            TYPE_DEFINITION => Expr::TypeDefinition(TypeDefinition(node)),
            EPP_RENDER_TEXT => Expr::EppRenderText(EppRenderText(node)),
            EPP_RENDER_EXPR => Expr::EppRenderExpr(EppRenderExpr(node)),
            ERROR => Expr::Error(ErrorNode(node)),
            _ => return None,
        })
    }

    fn syntax(&self) -> &SyntaxNode {
        match self {
            Expr::Literal(n) => &n.0,
            Expr::String(n) => &n.0,
            Expr::Heredoc(n) => &n.0,
            Expr::Name(n) => &n.0,
            Expr::TypeRef(n) => &n.0,
            Expr::Variable(n) => &n.0,
            Expr::Reserved(n) => &n.0,
            Expr::Array(n) => &n.0,
            Expr::Hash(n) => &n.0,
            Expr::HashEntry(n) => &n.0,
            Expr::Binary(n) => &n.0,
            Expr::Unary(n) => &n.0,
            Expr::Assign(n) => &n.0,
            Expr::Relationship(n) => &n.0,
            Expr::Access(n) => &n.0,
            Expr::Selector(n) => &n.0,
            Expr::Paren(n) => &n.0,
            Expr::Call(n) => &n.0,
            Expr::MethodCall(n) => &n.0,
            Expr::If(n) => &n.0,
            Expr::Unless(n) => &n.0,
            Expr::Case(n) => &n.0,
            Expr::Resource(n) => &n.0,
            Expr::ResourceDefaults(n) => &n.0,
            Expr::ResourceOverride(n) => &n.0,
            Expr::Collect(n) => &n.0,
            Expr::ClassDef(n) => &n.0,
            Expr::DefineDef(n) => &n.0,
            Expr::NodeDef(n) => &n.0,
            Expr::FunctionDef(n) => &n.0,
            Expr::PlanDef(n) => &n.0,
            Expr::Apply(n) => &n.0,
            Expr::TypeAlias(n) => &n.0,
            Expr::TypeDefinition(n) => &n.0,
            Expr::EppRenderText(n) => &n.0,
            Expr::EppRenderExpr(n) => &n.0,
            Expr::Error(n) => &n.0,
        }
    }
}

ast_node!(
    /// A part of the tree the parser could not make sense of.
    ErrorNode, ERROR
);

// ---- literals and names ----

ast_node!(
    /// A number, boolean, `undef`, `default`, regex, single-quoted string or bare word.
    Literal, LITERAL
);

/// What kind of literal a [`Literal`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LiteralKind {
    Number,
    True,
    False,
    Undef,
    Default,
    Regex,
    /// A single-quoted string.
    String,
    /// A bare word such as `foo-bar` (a string).
    BareWord,
    /// The keyword `type` or `function` used as a string in a collection.
    Keyword,
}

impl Literal {
    pub fn token(&self) -> Option<SyntaxToken> {
        first_significant_token(&self.0)
    }

    pub fn kind(&self) -> Option<LiteralKind> {
        Some(match self.token()?.kind() {
            NUMBER => LiteralKind::Number,
            TRUE_KW => LiteralKind::True,
            FALSE_KW => LiteralKind::False,
            UNDEF_KW => LiteralKind::Undef,
            DEFAULT_KW => LiteralKind::Default,
            REGEX => LiteralKind::Regex,
            SQ_STRING => LiteralKind::String,
            BARE_WORD => LiteralKind::BareWord,
            _ => LiteralKind::Keyword,
        })
    }

    /// The string value of a string, bare word or keyword literal.
    pub fn string_value(&self) -> Option<String> {
        let t = self.token()?;
        match t.kind() {
            SQ_STRING => Some(unescape_sq(t.text())),
            NUMBER | REGEX => None,
            _ => Some(t.text().to_string()),
        }
    }

    /// The number of a number literal.
    pub fn number(&self) -> Option<Number> {
        let t = self.token()?;
        if t.kind() == NUMBER {
            parse_number(t.text())
        } else {
            None
        }
    }

    /// The pattern of a regex literal, as Puppet keeps it: the text between the slashes,
    /// with `\/` turned into `/`.
    pub fn regex_pattern(&self) -> Option<String> {
        let t = self.token()?;
        if t.kind() != REGEX {
            return None;
        }
        Some(regex_literal_pattern(t.text()))
    }
}

/// A number literal's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An integer with the radix it was written in (8, 10 or 16).
    Integer {
        value: i64,
        radix: u32,
    },
    Float(f64),
    /// An integer too large for 64 bits (Puppet reports this when evaluating).
    Overflow,
}

/// Parses a NUMBER token's text.
pub fn parse_number(text: &str) -> Option<Number> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return Some(match i64::from_str_radix(hex, 16) {
            Ok(v) => Number::Integer {
                value: v,
                radix: 16,
            },
            Err(_) if hex.bytes().all(|b| b.is_ascii_hexdigit()) && !hex.is_empty() => {
                Number::Overflow
            }
            Err(_) => return None,
        });
    }
    if text.contains(['.', 'e', 'E']) {
        return text.parse::<f64>().ok().map(Number::Float);
    }
    if text.len() > 1 && text.starts_with('0') {
        return Some(match i64::from_str_radix(&text[1..], 8) {
            Ok(v) => Number::Integer { value: v, radix: 8 },
            Err(_) if text.bytes().all(|b| (b'0'..=b'7').contains(&b)) => Number::Overflow,
            Err(_) => return None,
        });
    }
    Some(match text.parse::<i64>() {
        Ok(v) => Number::Integer {
            value: v,
            radix: 10,
        },
        Err(_) if text.bytes().all(|b| b.is_ascii_digit()) && !text.is_empty() => Number::Overflow,
        Err(_) => return None,
    })
}

ast_node!(
    /// A lower-case name: `foo`, `foo::bar`, `::foo`.
    NameExpr, NAME_EXPR
);

impl NameExpr {
    pub fn token(&self) -> Option<SyntaxToken> {
        first_significant_token(&self.0)
    }
    /// The name as written.
    pub fn text(&self) -> String {
        self.token()
            .map(|t| t.text().to_string())
            .unwrap_or_default()
    }
}

ast_node!(
    /// A type name: `File`, `Foo::Bar`.
    TypeRef, TYPE_REF
);

impl TypeRef {
    pub fn token(&self) -> Option<SyntaxToken> {
        first_significant_token(&self.0)
    }
    pub fn text(&self) -> String {
        self.token()
            .map(|t| t.text().to_string())
            .unwrap_or_default()
    }
}

ast_node!(
    /// `$x`, `$::x`, `$a::b`.
    VariableExpr, VARIABLE_EXPR
);

impl VariableExpr {
    pub fn token(&self) -> Option<SyntaxToken> {
        first_significant_token(&self.0)
    }
    /// The variable's name without `$`.
    pub fn name(&self) -> String {
        self.token()
            .map(|t| t.text().trim_start_matches('$').to_string())
            .unwrap_or_default()
    }
}

ast_node!(
    /// A reserved word used as an expression (`private`, `attr`).
    ReservedWord, RESERVED_WORD
);

impl ReservedWord {
    pub fn text(&self) -> String {
        first_significant_token(&self.0)
            .map(|t| t.text().to_string())
            .unwrap_or_default()
    }
}

// ---- strings ----

ast_node!(
    /// A double-quoted string, possibly with interpolation.
    StringExpr, STRING_EXPR
);

ast_node!(
    /// `${ expr }` inside a string.
    Interpolation, INTERPOLATION
);

/// A segment of a double-quoted string or interpolating heredoc.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StringPart {
    /// Literal text, escapes still raw (see [`unescape_dq`]).
    Text(SyntaxToken),
    /// `$name`.
    Var(VariableExpr),
    /// `${ expr }`.
    Interp(Interpolation),
}

impl StringExpr {
    pub fn parts(&self) -> impl Iterator<Item = StringPart> {
        self.0.children_with_tokens().filter_map(|e| match e {
            rowan::NodeOrToken::Token(t) if t.kind() == STRING_TEXT => Some(StringPart::Text(t)),
            rowan::NodeOrToken::Node(n) => match n.kind() {
                VARIABLE_EXPR => Some(StringPart::Var(VariableExpr(n))),
                INTERPOLATION => Some(StringPart::Interp(Interpolation(n))),
                _ => None,
            },
            _ => None,
        })
    }

    /// Whether the string has interpolated parts.
    pub fn is_interpolated(&self) -> bool {
        self.parts().any(|p| !matches!(p, StringPart::Text(_)))
    }
}

impl Interpolation {
    pub fn expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

ast_node!(
    /// A heredoc `@(TAG)`; its text is on the following lines.
    HeredocExpr, HEREDOC_EXPR
);

/// The body of a heredoc, computed from the source. `T` is the body token and `P` the parse
/// of an interpolating body: rowan's for the typed AST, the flat ones for
/// [`crate::green`] views.
#[derive(Debug, Clone)]
pub struct HeredocBody<T = SyntaxToken, P = Parse> {
    /// The header's parts.
    pub header: HeredocHeader,
    /// The raw body token (lines and end tag) when found.
    pub token: Option<T>,
    /// The text after removing the margin and the last line break when `-` asks for it,
    /// escapes still raw.
    pub text: String,
    /// For interpolating heredocs: the parse of `text` (rooted at `HEREDOC_ROOT`).
    pub parse: Option<P>,
    /// Problems in the body (text in the margin, interpolation errors), located in the file.
    pub errors: Vec<Diagnostic>,
}

/// How many heredoc headers come before a header on its line, given the tokens before it,
/// nearest first, as (kind, whether its text has a line break): its body is the one after
/// that many other bodies.
pub(crate) fn heredoc_headers_before(prev: impl Iterator<Item = (SyntaxKind, bool)>) -> usize {
    let mut before = 0usize;
    for (kind, line_break) in prev {
        match kind {
            HEREDOC_BODY => break,
            HEREDOC_HEADER => before += 1,
            WHITESPACE | STRING_TEXT | COMMENT | ML_COMMENT if line_break => break,
            _ => {}
        }
    }
    before
}

/// A heredoc's body from its header, its body token (with the token's text and start) and
/// the end of its expression; `parse` parses an interpolating body's text (`dollar_escape`
/// as for [`crate::parse_interpolated_text_with`]), `errors` reads that parse's problems.
pub(crate) fn heredoc_body_of<T, P>(
    header: HeredocHeader,
    token: Option<(T, &str, TextSize)>,
    end: TextSize,
    parse: impl FnOnce(&str, bool) -> P,
    parse_errors: impl FnOnce(&P) -> &[Diagnostic],
) -> HeredocBody<T, P> {
    let mut errors = Vec::new();
    let (text, base, token) = match token {
        Some((tok, text, base)) => (heredoc_text(text, &header.tag), base, Some(tok)),
        None => (String::new(), end, None),
    };
    let parse = if header.interpolate {
        // `\$` only escapes a `$` when the heredoc's escapes include `$`.
        let dollar_escape = header
            .escapes
            .as_deref()
            .is_some_and(|e| e.is_empty() || e.contains('$'));
        let p = parse(&text, dollar_escape);
        for e in parse_errors(&p) {
            let mut e = e.clone();
            e.range = e.range.map(|r| TextRange::at(base + r.start(), r.len()));
            errors.push(e);
        }
        Some(p)
    } else {
        None
    };
    HeredocBody {
        header,
        token,
        text,
        parse,
        errors,
    }
}

impl HeredocExpr {
    pub fn header_token(&self) -> Option<SyntaxToken> {
        token(&self.0, HEREDOC_HEADER)
    }

    pub fn header(&self) -> Option<HeredocHeader> {
        parse_heredoc_header(self.header_token()?.text())
    }

    /// Finds the body token: the n-th heredoc body after the header, where n counts the
    /// heredoc headers before this one on the same line.
    pub fn body_token(&self) -> Option<SyntaxToken> {
        let header = self.header_token()?;
        let prev = std::iter::successors(header.prev_token(), |t| t.prev_token());
        let before = heredoc_headers_before(prev.map(|t| (t.kind(), t.text().contains('\n'))));
        std::iter::successors(header.next_token(), |t| t.next_token())
            .filter(|t| t.kind() == HEREDOC_BODY)
            .nth(before)
    }

    /// The body, with margin handling done and, for `@("TAG")`, its interpolation parsed.
    pub fn body(&self) -> Option<HeredocBody> {
        let header = self.header()?;
        let token = self.body_token();
        Some(heredoc_body_of(
            header,
            token
                .as_ref()
                .map(|t| (t.clone(), t.text(), t.text_range().start())),
            self.0.text_range().end(),
            crate::parse_interpolated_text_with,
            |p: &Parse| p.errors(),
        ))
    }
}

/// Removes the margin and the final line break (with `-`) from a heredoc body token's text.
fn heredoc_text(raw: &str, tag: &str) -> String {
    let mut lines: Vec<&str> = raw.split_inclusive('\n').collect();
    let end_line = lines
        .last()
        .copied()
        .filter(|l| end_tag_parts(l, tag).is_some());
    let (leading, margin, trim) = match end_line.and_then(|l| end_tag_parts(l, tag)) {
        Some(parts) => {
            lines.pop();
            parts
        }
        None => (0, false, false),
    };
    let mut out = String::with_capacity(raw.len());
    if margin && leading > 0 {
        let margin_text = &end_line.unwrap_or("")[..leading];
        for line in &lines {
            // Puppet strips the margin where a line starts with it, and keeps other lines.
            out.push_str(line.strip_prefix(margin_text).unwrap_or(line));
        }
    } else {
        for line in &lines {
            out.push_str(line);
        }
    }
    if trim {
        if out.ends_with("\r\n") {
            out.truncate(out.len() - 2);
        } else if out.ends_with('\n') {
            out.truncate(out.len() - 1);
        }
    }
    out
}

// ---- collections ----

ast_node!(
    /// `[a, b]`.
    ArrayExpr, ARRAY_EXPR
);
ast_node!(
    /// `{ k => v }`.
    HashExpr, HASH_EXPR
);
ast_node!(
    /// `k => v`.
    HashEntry, HASH_ENTRY
);

impl ArrayExpr {
    /// The elements; `k => v` elements are [`Expr::HashEntry`].
    pub fn elements(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
}

impl HashExpr {
    pub fn entries(&self) -> impl Iterator<Item = HashEntry> {
        children(&self.0)
    }
}

impl HashEntry {
    pub fn key(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn value(&self) -> Option<Expr> {
        nth_expr(&self.0, 1)
    }
}

// ---- operators ----

ast_node!(
    /// `a op b` for arithmetic, comparison, matching, `in`, `and`, `or`.
    BinaryExpr, BINARY_EXPR
);
ast_node!(
    /// `-a`, `!a`, `*a`.
    UnaryExpr, UNARY_EXPR
);
ast_node!(
    /// `a = b`, `a += b`, `a -= b`.
    AssignExpr, ASSIGN_EXPR
);
ast_node!(
    /// `a -> b`, `a ~> b`, `a <- b`, `a <~ b`.
    RelationshipExpr, RELATIONSHIP_EXPR
);

/// The operator token of a binary-shaped node: the first token between its operands.
fn operator_token(node: &SyntaxNode) -> Option<SyntaxToken> {
    // The first significant token after the first significant element (the left operand).
    let past_lhs = std::cell::Cell::new(false);
    node.first_child_or_token_by_kind(&|k| {
        if past_lhs.get() {
            return k.is_token() && !k.is_trivia();
        }
        past_lhs.set(!k.is_trivia());
        false
    })
    .and_then(|e| e.into_token())
}

impl BinaryExpr {
    pub fn lhs(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn rhs(&self) -> Option<Expr> {
        nth_expr(&self.0, 1)
    }
    pub fn op(&self) -> Option<SyntaxToken> {
        operator_token(&self.0)
    }
}

impl UnaryExpr {
    pub fn op(&self) -> Option<SyntaxToken> {
        first_significant_token(&self.0)
    }
    pub fn operand(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

impl AssignExpr {
    pub fn lhs(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn rhs(&self) -> Option<Expr> {
        nth_expr(&self.0, 1)
    }
    pub fn op(&self) -> Option<SyntaxToken> {
        operator_token(&self.0)
    }
}

impl RelationshipExpr {
    pub fn lhs(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn rhs(&self) -> Option<Expr> {
        nth_expr(&self.0, 1)
    }
    pub fn op(&self) -> Option<SyntaxToken> {
        operator_token(&self.0)
    }
}

ast_node!(
    /// `a[b, c]`.
    AccessExpr, ACCESS_EXPR
);

impl AccessExpr {
    pub fn target(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    /// The keys; `k => v` keys are [`Expr::HashEntry`].
    pub fn keys(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0).skip(1)
    }
}

ast_node!(
    /// `a ? { x => y, default => z }`.
    SelectorExpr, SELECTOR_EXPR
);
ast_node!(
    /// `x => y` of a selector.
    SelectorEntry, SELECTOR_ENTRY
);

impl SelectorExpr {
    pub fn target(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn entries(&self) -> impl Iterator<Item = SelectorEntry> {
        children(&self.0)
    }
}

impl SelectorEntry {
    pub fn matching(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn value(&self) -> Option<Expr> {
        nth_expr(&self.0, 1)
    }
}

ast_node!(
    /// `( expr )`.
    ParenExpr, PAREN_EXPR
);

impl ParenExpr {
    pub fn expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

// ---- calls and lambdas ----

ast_node!(
    /// A named function call: `f(1)`, `include foo`, `f(1) |$x| { }`.
    CallExpr, CALL_EXPR
);
ast_node!(
    /// The arguments of a call.
    ArgList, ARG_LIST
);
ast_node!(
    /// `x.f(1) |$y| { }`.
    MethodCallExpr, METHOD_CALL_EXPR
);
ast_node!(
    /// `|$x| { }`.
    Lambda, LAMBDA
);
ast_node!(
    /// Parameters of a definition or lambda.
    ParamList, PARAM_LIST
);
ast_node!(
    /// `Type $name = default`.
    Param, PARAM
);
ast_node!(
    /// `>> Type`.
    ReturnType, RETURN_TYPE
);

impl CallExpr {
    /// What is called (a [`NameExpr`] for valid calls).
    pub fn callee(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn arg_list(&self) -> Option<ArgList> {
        child(&self.0)
    }
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        self.arg_list()
            .into_iter()
            .flat_map(|a| exprs(&a.0).collect::<Vec<_>>())
    }
    /// Whether the arguments were given in parentheses (`f(x)` rather than `include x`).
    pub fn has_parens(&self) -> bool {
        self.arg_list()
            .is_some_and(|a| token(&a.0, L_PAREN).is_some())
    }
    pub fn lambda(&self) -> Option<Lambda> {
        child(&self.0)
    }
}

impl ArgList {
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
}

impl MethodCallExpr {
    pub fn receiver(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn name(&self) -> Option<NameExpr> {
        nth_expr(&self.0, 1).and_then(|e| match e {
            Expr::Name(n) => Some(n),
            _ => None,
        })
    }
    pub fn arg_list(&self) -> Option<ArgList> {
        child(&self.0)
    }
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        self.arg_list()
            .into_iter()
            .flat_map(|a| exprs(&a.0).collect::<Vec<_>>())
    }
    pub fn lambda(&self) -> Option<Lambda> {
        child(&self.0)
    }
}

impl Lambda {
    pub fn params(&self) -> Option<ParamList> {
        child(&self.0)
    }
    pub fn return_type(&self) -> Option<ReturnType> {
        child(&self.0)
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.0)
    }
}

impl ParamList {
    pub fn params(&self) -> impl Iterator<Item = Param> {
        children(&self.0)
    }
}

impl Param {
    pub fn type_expr(&self) -> Option<Expr> {
        let mut it = self.0.children_with_tokens();
        // The type comes before the variable token.
        for e in it.by_ref() {
            match e {
                rowan::NodeOrToken::Node(n) => return Expr::cast(n),
                rowan::NodeOrToken::Token(t) if t.kind() == VARIABLE => return None,
                _ => {}
            }
        }
        None
    }
    pub fn variable(&self) -> Option<SyntaxToken> {
        token(&self.0, VARIABLE)
    }
    /// The parameter name without `$`.
    pub fn name(&self) -> String {
        self.variable()
            .map(|t| t.text().trim_start_matches('$').to_string())
            .unwrap_or_default()
    }
    /// `*$rest`.
    pub fn captures_rest(&self) -> bool {
        token(&self.0, STAR).is_some()
    }
    /// The default value expression, after `=`.
    pub fn default_value(&self) -> Option<Expr> {
        let mut after_eq = false;
        for e in self.0.children_with_tokens() {
            match e {
                rowan::NodeOrToken::Token(t) if t.kind() == EQ => after_eq = true,
                rowan::NodeOrToken::Node(n) if after_eq => return Expr::cast(n),
                _ => {}
            }
        }
        None
    }
}

impl ReturnType {
    pub fn type_expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

// ---- conditionals ----

ast_node!(
    /// `if c { } elsif c { } else { }`.
    IfExpr, IF_EXPR
);
ast_node!(
    /// `elsif c { } ...` (shaped like an `if`).
    ElsifClause, ELSIF_CLAUSE
);
ast_node!(
    /// `else { }`.
    ElseClause, ELSE_CLAUSE
);
ast_node!(
    /// `unless c { } else { }`.
    UnlessExpr, UNLESS_EXPR
);

macro_rules! if_like {
    ($t:ident) => {
        impl $t {
            pub fn condition(&self) -> Option<Expr> {
                exprs(&self.0).next()
            }
            pub fn then_block(&self) -> Option<Block> {
                child(&self.0)
            }
            pub fn elsif(&self) -> Option<ElsifClause> {
                child(&self.0)
            }
            pub fn else_clause(&self) -> Option<ElseClause> {
                child(&self.0)
            }
        }
    };
}
if_like!(IfExpr);
if_like!(ElsifClause);
if_like!(UnlessExpr);

impl ElseClause {
    pub fn block(&self) -> Option<Block> {
        child(&self.0)
    }
}

ast_node!(
    /// `case x { a, b: { } default: { } }`.
    CaseExpr, CASE_EXPR
);
ast_node!(
    /// `a, b: { }`.
    CaseOption, CASE_OPTION
);

impl CaseExpr {
    pub fn test(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn options(&self) -> impl Iterator<Item = CaseOption> {
        children(&self.0)
    }
}

impl CaseOption {
    pub fn values(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.0)
    }
}

// ---- resources ----

/// Regular, virtual (`@`) or exported (`@@`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceForm {
    Regular,
    Virtual,
    Exported,
}

fn resource_form(node: &SyntaxNode) -> ResourceForm {
    match first_significant_token(node).map(|t| t.kind()) {
        Some(AT) => ResourceForm::Virtual,
        Some(ATAT) => ResourceForm::Exported,
        _ => ResourceForm::Regular,
    }
}

ast_node!(
    /// `type { title: attrs; ... }` (also `class { 'x': }` and untitled `name { attrs }`).
    ResourceExpr, RESOURCE_EXPR
);
ast_node!(
    /// `title: attrs`.
    ResourceBody, RESOURCE_BODY
);
ast_node!(
    /// `Type { attrs }`.
    ResourceDefaultsExpr, RESOURCE_DEFAULTS_EXPR
);
ast_node!(
    /// `Type['x'] { attrs }`.
    ResourceOverrideExpr, RESOURCE_OVERRIDE_EXPR
);
ast_node!(
    /// `name => value` or `name +> value`.
    AttributeOp, ATTRIBUTE_OP
);
ast_node!(
    /// `* => $hash`.
    AttributesOp, ATTRIBUTES_OP
);

/// An operation in a resource body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttributeOperation {
    Op(AttributeOp),
    Splat(AttributesOp),
}

fn attribute_operations(node: &SyntaxNode) -> impl Iterator<Item = AttributeOperation> {
    node.children().filter_map(|n| match n.kind() {
        ATTRIBUTE_OP => Some(AttributeOperation::Op(AttributeOp(n))),
        ATTRIBUTES_OP => Some(AttributeOperation::Splat(AttributesOp(n))),
        _ => None,
    })
}

impl ResourceExpr {
    pub fn form(&self) -> ResourceForm {
        resource_form(&self.0)
    }
    /// The resource type: a name (`file`), `class`, or another expression.
    pub fn type_expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn bodies(&self) -> impl Iterator<Item = ResourceBody> {
        children(&self.0)
    }
    /// For the untitled form `name { attrs }`: its operations.
    pub fn untitled_operations(&self) -> impl Iterator<Item = AttributeOperation> {
        attribute_operations(&self.0)
    }
    /// Whether this is the untitled form `name { attrs }` (no `title:`).
    pub fn is_untitled(&self) -> bool {
        self.bodies().next().is_none()
            && token(&self.0, L_BRACE).is_some()
            && {
                // `class { }` with no bodies is a titled form with nothing in it.
                !matches!(self.type_expr(), Some(Expr::Name(n)) if n.token().is_some_and(|t| t.kind() == CLASS_KW))
            }
    }
}

impl ResourceBody {
    pub fn title(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn operations(&self) -> impl Iterator<Item = AttributeOperation> {
        attribute_operations(&self.0)
    }
}

impl ResourceDefaultsExpr {
    pub fn form(&self) -> ResourceForm {
        resource_form(&self.0)
    }
    pub fn type_ref(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn operations(&self) -> impl Iterator<Item = AttributeOperation> {
        attribute_operations(&self.0)
    }
}

impl ResourceOverrideExpr {
    pub fn form(&self) -> ResourceForm {
        resource_form(&self.0)
    }
    pub fn target(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn operations(&self) -> impl Iterator<Item = AttributeOperation> {
        attribute_operations(&self.0)
    }
}

impl AttributeOp {
    pub fn name_token(&self) -> Option<SyntaxToken> {
        first_significant_token(&self.0)
    }
    pub fn name(&self) -> String {
        self.name_token()
            .map(|t| t.text().to_string())
            .unwrap_or_default()
    }
    /// `=>` or `+>`.
    pub fn op(&self) -> Option<SyntaxToken> {
        token(&self.0, FARROW).or_else(|| token(&self.0, PARROW))
    }
    pub fn is_append(&self) -> bool {
        token(&self.0, PARROW).is_some()
    }
    pub fn value(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

impl AttributesOp {
    pub fn value(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

ast_node!(
    /// `Type <| query |> { attrs }`.
    CollectExpr, COLLECT_EXPR
);
ast_node!(
    /// `<| query |>` or `<<| query |>>`.
    CollectQuery, COLLECT_QUERY
);

impl CollectExpr {
    pub fn type_expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn query(&self) -> Option<CollectQuery> {
        child(&self.0)
    }
    pub fn operations(&self) -> impl Iterator<Item = AttributeOperation> {
        attribute_operations(&self.0)
    }
}

impl CollectQuery {
    pub fn is_exported(&self) -> bool {
        token(&self.0, LLCOLLECT).is_some()
    }
    pub fn expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
}

// ---- definitions ----

ast_node!(
    /// `class name(params) inherits parent { body }`.
    ClassDef, CLASS_DEF
);
ast_node!(
    /// `inherits parent`.
    InheritsClause, INHERITS_CLAUSE
);
ast_node!(
    /// `define name(params) { body }`.
    DefineDef, DEFINE_DEF
);
ast_node!(
    /// `function name(params) >> Type { body }`.
    FunctionDef, FUNCTION_DEF
);
ast_node!(
    /// `plan name(params) { body }` (tasks mode).
    PlanDef, PLAN_DEF
);
ast_node!(
    /// `apply(targets, options) { body }` (tasks mode).
    ApplyExpr, APPLY_EXPR
);
ast_node!(
    /// `node 'a', /b/ inherits c { body }`.
    NodeDef, NODE_DEF
);
ast_node!(
    /// One host matcher of a node.
    HostMatch, HOST_MATCH
);
ast_node!(
    /// `type Name = Type`.
    TypeAlias, TYPE_ALIAS
);
ast_node!(
    /// `type Name inherits Parent { body }`.
    TypeDefinition, TYPE_DEFINITION
);

/// The name token after the keyword of a definition.
fn definition_name_token(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia())
        .nth(1)
}

macro_rules! named_definition {
    ($t:ident) => {
        impl $t {
            pub fn name_token(&self) -> Option<SyntaxToken> {
                definition_name_token(&self.0)
            }
            /// The name as written (may start with `::`).
            pub fn name(&self) -> String {
                self.name_token()
                    .map(|t| t.text().to_string())
                    .unwrap_or_default()
            }
            pub fn params(&self) -> Option<ParamList> {
                child(&self.0)
            }
            pub fn body(&self) -> Option<Block> {
                child(&self.0)
            }
        }
    };
}
named_definition!(ClassDef);
named_definition!(DefineDef);
named_definition!(FunctionDef);
named_definition!(PlanDef);

impl ApplyExpr {
    /// The arguments in parentheses (the targets, then options).
    pub fn args(&self) -> impl Iterator<Item = Expr> {
        exprs(&self.0)
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.0)
    }
}

impl ClassDef {
    pub fn inherits(&self) -> Option<InheritsClause> {
        child(&self.0)
    }
}

impl FunctionDef {
    pub fn return_type(&self) -> Option<ReturnType> {
        child(&self.0)
    }
}

impl InheritsClause {
    /// The parent's name token (classes).
    pub fn name_token(&self) -> Option<SyntaxToken> {
        definition_name_token(&self.0).or_else(|| first_significant_token(&self.0))
    }
    pub fn name(&self) -> String {
        self.name_token()
            .map(|t| t.text().to_string())
            .unwrap_or_default()
    }
    /// The parent matcher (nodes).
    pub fn host_match(&self) -> Option<HostMatch> {
        child(&self.0)
    }
}

impl NodeDef {
    pub fn matches(&self) -> impl Iterator<Item = HostMatch> {
        children(&self.0)
    }
    pub fn parent(&self) -> Option<InheritsClause> {
        child(&self.0)
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.0)
    }
}

/// What a host matcher is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HostMatchKind {
    /// A dotted name or number sequence, already joined: `web01.example.com`.
    Name(String),
    /// A quoted string (single- or double-quoted).
    String(SyntaxNode),
    Regex(String),
    Default,
}

impl HostMatch {
    pub fn kind(&self) -> Option<HostMatchKind> {
        if let Some(s) = child::<StringExpr>(&self.0) {
            return Some(HostMatchKind::String(s.0));
        }
        let first = first_significant_token(&self.0)?;
        Some(match first.kind() {
            DEFAULT_KW => HostMatchKind::Default,
            REGEX => HostMatchKind::Regex(regex_literal_pattern(first.text())),
            SQ_STRING => HostMatchKind::String(self.0.clone()),
            _ => {
                let text: String = self
                    .0
                    .children_with_tokens()
                    .filter_map(|e| e.into_token())
                    .filter(|t| !t.kind().is_trivia())
                    .map(|t| t.text().to_string())
                    .collect();
                HostMatchKind::Name(text)
            }
        })
    }

    /// For single-quoted host names: the string token.
    pub fn sq_string(&self) -> Option<SyntaxToken> {
        token(&self.0, SQ_STRING)
    }
}

impl TypeAlias {
    /// The left side: `Name` or `Name[...]`.
    pub fn lhs(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    /// The alias name.
    pub fn name(&self) -> String {
        match self.lhs() {
            Some(Expr::TypeRef(t)) => t.text(),
            Some(Expr::Access(a)) => match a.target() {
                Some(Expr::TypeRef(t)) => t.text(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }
    /// The right side.
    pub fn type_expr(&self) -> Option<Expr> {
        nth_expr(&self.0, 1)
    }
}

impl TypeDefinition {
    pub fn name(&self) -> String {
        self.0
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| t.kind() == TYPE_NAME)
            .map(|t| t.text().to_string())
            .unwrap_or_default()
    }
    pub fn parent(&self) -> Option<String> {
        let mut after = false;
        for t in self.0.children_with_tokens().filter_map(|e| e.into_token()) {
            if t.kind() == INHERITS_KW {
                after = true;
            } else if after && t.kind() == TYPE_NAME {
                return Some(t.text().to_string());
            }
        }
        None
    }
    pub fn body(&self) -> Option<Block> {
        child(&self.0)
    }
}

// ---- EPP ----

ast_node!(
    /// Literal text of a template.
    EppRenderText, EPP_RENDER_TEXT
);
ast_node!(
    /// `<%= expr %>`.
    EppRenderExpr, EPP_RENDER_EXPR
);

impl EppRenderText {
    pub fn token(&self) -> Option<SyntaxToken> {
        token(&self.0, EPP_TEXT)
    }
    /// The text to render: `<%%` becomes `<%` and `%%>` becomes `%>`.
    pub fn text(&self) -> String {
        self.token()
            .map(|t| unescape_epp_text(t.text()))
            .unwrap_or_default()
    }
}

impl EppRenderExpr {
    pub fn expr(&self) -> Option<Expr> {
        exprs(&self.0).next()
    }
    pub fn block(&self) -> Option<Block> {
        child(&self.0)
    }
}

// ---- value helpers ----

/// The pattern of a REGEX token, as Puppet keeps it: the text between the slashes, with `\/`
/// turned into `/`.
pub fn regex_literal_pattern(token_text: &str) -> String {
    let inner = token_text
        .get(1..token_text.len().saturating_sub(1))
        .unwrap_or("");
    inner.replace("\\/", "/")
}

/// The text an EPP_TEXT token renders: `<%%` and `%%>` stand for `<%` and `%>`.
pub fn unescape_epp_text(token_text: &str) -> String {
    token_text.replace("<%%", "<%").replace("%%>", "%>")
}

/// The value of a single-quoted string token (quotes included): `\\` and `\'` unescaped.
pub fn unescape_sq(token_text: &str) -> String {
    unescape_sq_cow(token_text).into_owned()
}

/// [`unescape_sq`], borrowing the token's text when it has no backslash (most strings), so
/// a caller that copies the value anyway (into a `SmolStr`) allocates nothing here.
///
/// ```
/// use puppet_syntax::ast::unescape_sq_cow;
/// assert!(matches!(unescape_sq_cow("'present'"), std::borrow::Cow::Borrowed("present")));
/// assert_eq!(unescape_sq_cow(r"'it\'s \\ \n'"), r"it's \ \n");
/// ```
pub fn unescape_sq_cow(token_text: &str) -> std::borrow::Cow<'_, str> {
    let inner = token_text.strip_prefix('\'').unwrap_or(token_text);
    let inner = inner.strip_suffix('\'').unwrap_or(inner);
    if !inner.contains('\\') {
        return std::borrow::Cow::Borrowed(inner);
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\\') | Some('\'') => {
                    out.push(chars.next().unwrap_or('\\'));
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Escapes understood in double-quoted strings.
pub const DQ_ESCAPES: &str = "\\$'\"rntsu\n";

/// Unescapes text of a double-quoted string (or an interpolating heredoc with `escapes`):
/// `\n \t \r \s \u{..} \uXXXX \\ \$ \" \'` and escaped line breaks. Unknown escapes stay as
/// written (Puppet warns about them in double-quoted strings).
pub fn unescape_dq(text: &str, escapes: &str) -> String {
    unescape_dq_cow(text, escapes).into_owned()
}

/// [`unescape_dq`], borrowing `text` when it has no backslash.
///
/// ```
/// use puppet_syntax::ast::{unescape_dq_cow, DQ_ESCAPES};
/// assert!(matches!(unescape_dq_cow("a b", DQ_ESCAPES), std::borrow::Cow::Borrowed("a b")));
/// assert_eq!(unescape_dq_cow(r"a\tb\q", DQ_ESCAPES), "a\tb\\q");
/// ```
pub fn unescape_dq_cow<'a>(text: &'a str, escapes: &str) -> std::borrow::Cow<'a, str> {
    if !text.contains('\\') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&(_, n)) = chars.peek() else {
            out.push('\\');
            break;
        };
        if n == 'u' && escapes.contains('u') {
            if let Some((ch, len)) = unicode_escape(&text[i + 2..]) {
                out.push(ch);
                chars.next();
                for _ in 0..len {
                    chars.next();
                }
                continue;
            }
        }
        let handled = match n {
            'r' if escapes.contains('r') => Some("\r"),
            'n' if escapes.contains('n') => Some("\n"),
            't' if escapes.contains('t') => Some("\t"),
            's' if escapes.contains('s') => Some(" "),
            '\n' if escapes.contains('\n') => Some(""),
            '\r' if escapes.contains('\n') && text[i + 2..].starts_with('\n') => {
                chars.next();
                Some("")
            }
            '\\' => Some("\\"),
            '$' if escapes.contains('$') => Some("$"),
            '"' if escapes.contains('"') => Some("\""),
            '\'' if escapes.contains('\'') => Some("'"),
            _ => None,
        };
        match handled {
            Some(s) => {
                chars.next();
                out.push_str(s);
            }
            None => out.push('\\'),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `XXXX` or `{X..}` after `\u`: the char and how many bytes after the `u` were used.
fn unicode_escape(s: &str) -> Option<(char, usize)> {
    if let Some(rest) = s.strip_prefix('{') {
        let end = rest.find('}')?;
        let hex = &rest[..end];
        if hex.is_empty() || hex.len() > 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
        return Some((c, end + 2));
    }
    let hex = s.get(..4)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, 4))
}

/// The escapes active in a heredoc body, from its header (`None` = no `/`: only `\\`? no:
/// nothing is unescaped).
pub fn heredoc_escapes(header: &HeredocHeader) -> String {
    match &header.escapes {
        None => String::new(),
        Some(e) => {
            let e = if e.is_empty() { "trnsuL$" } else { e.as_str() };
            let mut out = String::from("\\");
            for c in e.chars() {
                if c == 'L' {
                    out.push('\n');
                } else {
                    out.push(c);
                }
            }
            out
        }
    }
}

/// Unescapes heredoc text with the escapes of its header. Without `/escapes`, text is kept
/// exactly as written.
pub fn unescape_heredoc(text: &str, header: &HeredocHeader) -> String {
    if header.escapes.is_none() {
        return text.to_string();
    }
    unescape_dq(text, &heredoc_escapes(header))
}
