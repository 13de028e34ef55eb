//! The evaluator's intermediate representation: an owned, compact expression tree.
//!
//! The typed AST is lowered once into this tree (see `lower.rs`); the evaluator never walks
//! the CST. Every node carries the byte range it came from and the file it came from, so
//! errors point at the source. Puppet's parse-time rewrites (statement calls, interpolated
//! names becoming variables, heredoc text) are already applied here, so the evaluator sees
//! the same shapes Puppet's evaluator sees. Definitions (classes, defines, functions, type
//! aliases, nodes) are collected separately and shared (`Arc`) across compiles.

use puppet_syntax::LineIndex;
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// A source file known to the evaluator: its path (as printed in messages) and text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as Puppet prints it in messages, or `None` for code given on the command
    /// line (`-e`), which Puppet reports with line and column only.
    pub path: Option<String>,
    pub text: Arc<str>,
    /// Made the first time a line is asked for: many loaded files (parameter classes,
    /// functions, type aliases) never place a resource or an error.
    lines: std::sync::OnceLock<LineIndex>,
}

impl PartialEq for SourceFile {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.text == other.text
    }
}

impl Eq for SourceFile {}

impl SourceFile {
    pub fn new(path: Option<String>, text: &str) -> Self {
        Self::from_arc(path, Arc::from(text))
    }

    /// A source file over shared text (no copy).
    pub fn from_arc(path: Option<String>, text: Arc<str>) -> Self {
        SourceFile {
            path,
            text,
            lines: std::sync::OnceLock::new(),
        }
    }

    /// 1-based line and character column of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let lines = self.lines.get_or_init(|| LineIndex::new(&self.text));
        let at = lines.line_col(&self.text, offset.into());
        (at.line, at.col)
    }

    /// The 1-based line of a byte offset (`line_col`'s line, without the column).
    pub fn line(&self, offset: u32) -> u32 {
        let lines = self.lines.get_or_init(|| LineIndex::new(&self.text));
        lines.line(&self.text, offset.into())
    }
}

/// Where an expression came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub file: Arc<SourceFile>,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn line_col(&self) -> (u32, u32) {
        self.file.line_col(self.start)
    }

    /// The 1-based line of the start (`line_col`'s line, without the column).
    pub fn line(&self) -> u32 {
        self.file.line(self.start)
    }

    /// The byte range.
    pub fn range(&self) -> puppet_syntax::TextRange {
        puppet_syntax::TextRange::new(self.start.into(), self.end.max(self.start).into())
    }
}

/// An expression with its source range.
#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Binary operators that evaluate both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Match,
    NoMatch,
    In,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Match => "=~",
            BinOp::NoMatch => "!~",
            BinOp::In => "in",
        }
    }
}

/// A part of an interpolated string.
#[derive(Debug, Clone)]
pub enum StrPart {
    Text(SmolStr),
    Expr(Expr),
}

/// A parameter of a lambda, function, class or define.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: SmolStr,
    pub type_expr: Option<Expr>,
    pub default: Option<Expr>,
    pub captures_rest: bool,
    pub span: Span,
}

/// A lambda (a block given to a call).
#[derive(Debug, Clone)]
pub struct LambdaDef {
    pub params: Vec<Param>,
    pub return_type: Option<Expr>,
    pub body: Vec<Expr>,
    pub span: Span,
}

/// An attribute operation in a resource body.
#[derive(Debug, Clone)]
pub struct AttrOp {
    /// The attribute name, or `None` for `* => $hash`.
    pub name: Option<SmolStr>,
    pub append: bool,
    pub value: Expr,
    pub span: Span,
}

/// One `title: attributes` body of a resource expression.
#[derive(Debug, Clone)]
pub struct ResourceBody {
    pub title: Expr,
    pub ops: Vec<AttrOp>,
    pub span: Span,
}

/// Regular, virtual (`@`) or exported (`@@`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceForm {
    Regular,
    Virtual,
    Exported,
}

/// The chaining arrows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelOp {
    /// `->`
    Before,
    /// `~>`
    Notify,
    /// `<-`
    Require,
    /// `<~`
    Subscribe,
}

/// A query of a collector.
#[derive(Debug, Clone)]
pub enum Query {
    All,
    Eq(SmolStr, Box<Expr>),
    Ne(SmolStr, Box<Expr>),
    And(Box<Query>, Box<Query>),
    Or(Box<Query>, Box<Query>),
}

/// What an expression is.
#[derive(Debug, Clone)]
pub enum ExprKind {
    /// A constant: numbers, strings, booleans, `undef`, `default`, regexes. Boxed: a
    /// `Value` is five words and most expressions are not literals.
    Literal(Box<Value>),
    /// A bare lower-case name used as a value (a string), e.g. `foo` in `include foo`.
    Name(SmolStr),
    /// A capitalised type name: `Integer`, `File`, `Foo::Bar`.
    TypeName(SmolStr),
    /// A double-quoted string with interpolation.
    Concat(Vec<StrPart>),
    /// `$x`
    Var(SmolStr),
    /// `[a, *b]`
    Array(Vec<Expr>),
    /// `{k => v}`
    Hash(Vec<(Expr, Expr)>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A parenthesised expression, kept as a node of its own only where Puppet reports the
    /// parenthesis' location rather than the inner expression's: the left operand of `=~` and
    /// `!~` ("Left match operand must result in a String value" is at the `(`). Elsewhere the
    /// lowering drops the parentheses.
    Paren(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    /// `*x` (splat)
    Unfold(Box<Expr>),
    /// `$x = v`, `[$a, $b] = v`
    Assign(Box<Expr>, Box<Expr>),
    /// `x[a, b]`
    Access(Box<Expr>, Vec<Expr>),
    /// `x ? { m => v, ... }`
    Selector(Box<Expr>, Vec<(Expr, Expr)>),
    If {
        cond: Box<Expr>,
        then: Vec<Expr>,
        els: Option<Vec<Expr>>,
    },
    Unless {
        cond: Box<Expr>,
        then: Vec<Expr>,
        els: Option<Vec<Expr>>,
    },
    Case {
        test: Box<Expr>,
        options: Vec<(Vec<Expr>, Vec<Expr>)>,
    },
    /// A named function call. `rvalue` is false for statement calls (`notice 'x'`).
    Call {
        name: SmolStr,
        args: Vec<Expr>,
        lambda: Option<Arc<LambdaDef>>,
        rvalue: bool,
    },
    /// `Type(args)` or `Type[...](args)`: a call of `new` on a type.
    CallType {
        target: Box<Expr>,
        args: Vec<Expr>,
        lambda: Option<Arc<LambdaDef>>,
    },
    /// `recv.name(args) |..| {}`
    MethodCall {
        receiver: Box<Expr>,
        name: SmolStr,
        args: Vec<Expr>,
        lambda: Option<Arc<LambdaDef>>,
    },
    /// A sequence of statements; its value is the last one's.
    Block(Vec<Expr>),
    /// `type { title: ... }`
    Resource {
        form: ResourceForm,
        type_expr: Box<Expr>,
        bodies: Vec<ResourceBody>,
    },
    /// `Type { attrs }`
    ResourceDefaults {
        type_expr: Box<Expr>,
        ops: Vec<AttrOp>,
    },
    /// `Type['x'] { attrs }`
    ResourceOverride {
        target: Box<Expr>,
        ops: Vec<AttrOp>,
    },
    /// `Type <| query |> { attrs }`
    Collect {
        type_name: SmolStr,
        exported: bool,
        query: Box<Query>,
        ops: Vec<AttrOp>,
    },
    Relationship(RelOp, Box<Expr>, Box<Expr>),
    /// Text of an EPP template.
    RenderText(SmolStr),
    /// `<%= expr %>`
    Render(Box<Expr>),
    /// A definition (hoisted; evaluates to undef where it stands).
    Definition,
    /// Something that could not be lowered; evaluating it raises this message.
    Invalid(String),
}
