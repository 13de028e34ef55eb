//! The typed syntax tree of template code: the Ruby subset templates use, plus the two
//! template-only statements (literal text output and `<%= %>` output).
//!
//! Every node carries the template position (line, column) of its first token, which runtime
//! errors report. Binary operators are method calls (`a + b` is `a.+(b)`), as in Ruby.

use crate::Pos;
use std::rc::Rc;

/// A node with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: Kind,
    pub pos: Pos,
}

/// A part of an interpolated literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Lit(String),
    Code(Vec<Node>),
}

/// A block parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Name(String),
    Splat(String),
    Destructure(Vec<Param>),
}

/// A block (`{ |x| ... }` / `do |x| ... end`) or `&:sym`.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub params: Vec<Param>,
    pub body: Vec<Node>,
    /// `&:sym`: calls the method on the first argument.
    pub symbol: Option<String>,
}

/// A `def` helper.
#[derive(Debug, Clone, PartialEq)]
pub struct Def {
    pub name: String,
    /// (name, default value).
    pub params: Vec<(String, Option<Node>)>,
    pub body: Vec<Node>,
}

/// A `rescue` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Rescue {
    pub classes: Vec<Node>,
    pub var: Option<String>,
    pub body: Vec<Node>,
}

/// Node kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Nil,
    True,
    False,
    SelfRef,
    Int(i64),
    Float(f64),
    Str(Vec<Part>),
    Sym(Vec<Part>),
    Regex(Vec<Part>, String),
    Array(Vec<Node>),
    Hash(Vec<(Node, Node)>),
    Range(Box<Node>, Box<Node>, bool),
    LVar(String),
    IVar(String),
    GVar(String),
    /// `$1`..: the group number.
    NthRef(usize),
    /// A constant, possibly scoped (`A::B`).
    Const(Option<Box<Node>>, String),
    /// A method call; `recv` is `None` for calls on the template itself.
    Call {
        recv: Option<Box<Node>>,
        name: String,
        args: Vec<Node>,
        block: Option<Rc<Block>>,
        safe: bool,
    },
    /// `*x` in an argument or array list.
    Splat(Box<Node>),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Defined(Box<Node>),
    Assign(Box<Node>, Box<Node>),
    /// `a op= b` (op without `=`, e.g. `+`, `||`, `&&`).
    OpAssign(Box<Node>, String, Box<Node>),
    /// `a, b = x`.
    MultiAssign(Vec<Node>, Box<Node>),
    If(Box<Node>, Vec<Node>, Vec<Node>),
    While(Box<Node>, Vec<Node>, bool),
    For(Vec<Param>, Box<Node>, Vec<Node>),
    Case(
        Option<Box<Node>>,
        Vec<(Vec<Node>, Vec<Node>)>,
        Option<Vec<Node>>,
    ),
    Begin(Vec<Node>, Vec<Rescue>, Option<Vec<Node>>, Option<Vec<Node>>),
    /// `x rescue y`.
    RescueMod(Box<Node>, Box<Node>),
    Def(Rc<Def>),
    Return(Option<Box<Node>>),
    Next(Option<Box<Node>>),
    Break(Option<Box<Node>>),
    Seq(Vec<Node>),
    /// Literal template text.
    Put(String),
    /// `<%= ... %>`.
    Insert(Vec<Node>),
}
