//! The typed syntax tree of the Ruby subset: the statements and expressions of module files
//! (`lib/**/*.rb`) and of ERB templates, plus the two template-only statements (literal text
//! output and `<%= %>` output).
//!
//! Every node carries the position (line, column) of its first token, which runtime errors
//! report. Binary operators are method calls (`a + b` is `a.+(b)`), as in Ruby. The tree is
//! immutable and `Send + Sync` (shared parts are behind [`Arc`]), so that a parsed file can be
//! cached in a shared environment and run by many interpreters at once; it holds no runtime
//! value.

use crate::Pos;
use std::sync::Arc;

/// A parsed file (or template): its statements and the file name errors report.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The file name as errors and `__FILE__` show it (empty for an inline template).
    pub file: Arc<str>,
    /// The top-level statements.
    pub body: Vec<Node>,
    /// The file has the magic comment `# frozen_string_literal: true`.
    pub frozen_literals: bool,
}

/// A node with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the node is.
    pub kind: Kind,
    /// Where it starts.
    pub pos: Pos,
}

/// A part of an interpolated literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Literal characters (escapes processed).
    Lit(String),
    /// `#{...}`: statements whose last value is interpolated with `to_s`.
    Code(Vec<Node>),
}

/// A parameter taking one positional argument (possibly destructured, in blocks).
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// `x`.
    Name(String),
    /// `*x` inside a destructuring group (`|(a, *b)|`); the name may be empty (`*`).
    Splat(String),
    /// `(a, b)`.
    Destructure(Vec<Param>),
}

/// The parameter list of a method, block or lambda.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params {
    /// Leading required parameters.
    pub required: Vec<Param>,
    /// Optional parameters with their default expressions.
    pub optional: Vec<(String, Node)>,
    /// `*rest` (the name may be empty for a bare `*`).
    pub rest: Option<String>,
    /// Required parameters after the rest parameter.
    pub post: Vec<Param>,
    /// Keyword parameters, with their default (`None`: a required keyword).
    pub keywords: Vec<(String, Option<Node>)>,
    /// `**opts` (the name may be empty for a bare `**`).
    pub kwrest: Option<String>,
    /// `&blk`.
    pub block: Option<String>,
    /// A block's `|a, |`: auto-splats like two parameters.
    pub trailing_comma: bool,
}

impl Params {
    /// The number of positional parameters before and after the rest (required + optional +
    /// post).
    pub fn positional(&self) -> usize {
        self.required.len() + self.optional.len() + self.post.len()
    }

    /// Ruby's `arity`: the number of required positional arguments, negated minus one when
    /// optional or rest parameters exist (required keywords count as one more argument).
    pub fn arity(&self) -> i64 {
        let req = (self.required.len() + self.post.len()) as i64
            + i64::from(self.keywords.iter().any(|(_, d)| d.is_none()));
        if self.rest.is_some() || !self.optional.is_empty() {
            -req - 1
        } else {
            req
        }
    }

    /// Every name the parameters bind.
    pub fn names(&self) -> Vec<String> {
        fn walk(p: &Param, out: &mut Vec<String>) {
            match p {
                Param::Name(n) | Param::Splat(n) => {
                    if !n.is_empty() {
                        out.push(n.clone())
                    }
                }
                Param::Destructure(ps) => ps.iter().for_each(|q| walk(q, out)),
            }
        }
        let mut out = Vec::new();
        self.required.iter().for_each(|p| walk(p, &mut out));
        out.extend(self.optional.iter().map(|(n, _)| n.clone()));
        out.extend(self.rest.iter().filter(|n| !n.is_empty()).cloned());
        self.post.iter().for_each(|p| walk(p, &mut out));
        out.extend(self.keywords.iter().map(|(n, _)| n.clone()));
        out.extend(self.kwrest.iter().filter(|n| !n.is_empty()).cloned());
        out.extend(self.block.iter().cloned());
        out
    }
}

/// A block (`{ |x| ... }` / `do |x| ... end`) or a lambda literal's body.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The parameters.
    pub params: Params,
    /// Whether the parameters were written (`||` or `|x|`), which matters for auto-splat.
    pub has_params: bool,
    /// The statements.
    pub body: Vec<Node>,
}

/// A method definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Def {
    /// The method name (`x`, `x=`, `[]`, `<=>`...).
    pub name: String,
    /// The parameters.
    pub params: Params,
    /// The statements.
    pub body: Vec<Node>,
    /// The file it was defined in.
    pub file: Arc<str>,
    /// String literals are frozen (`# frozen_string_literal: true`).
    pub frozen_literals: bool,
}

/// A `rescue` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Rescue {
    /// The exception classes (none: `StandardError`).
    pub classes: Vec<Node>,
    /// `=> e`: where the exception goes (a variable or other assignable).
    pub var: Option<Box<Node>>,
    /// The handler.
    pub body: Vec<Node>,
}

/// An entry of a hash literal or of a call's keyword arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum HashItem {
    /// `k => v` / `k: v`.
    Pair(Node, Node),
    /// `**h`.
    Splat(Node),
}

/// A `class` or `module` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleBody {
    /// The constant path being defined (`Foo`, `Foo::Bar`, `::Foo`).
    pub path: Node,
    /// The superclass expression (classes only).
    pub superclass: Option<Node>,
    /// The statements.
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
    /// An integer literal beyond 64 bits.
    Big(Box<num_bigint::BigInt>),
    Float(f64),
    Str(Vec<Part>),
    /// A command (backticks, `%x()`): never run, an error when evaluated.
    XStr(Vec<Part>),
    Sym(Vec<Part>),
    Regex(Vec<Part>, String),
    Array(Vec<Node>),
    Hash(Vec<HashItem>),
    /// `a..b` / `a...b`; a missing end is `Nil`.
    Range(Box<Node>, Box<Node>, bool),
    LVar(String),
    IVar(String),
    GVar(String),
    /// `@@x`.
    CVar(String),
    /// `$1`..: the group number.
    NthRef(usize),
    /// A constant, possibly scoped (`A::B`); `TopConst` is `::A`.
    Const(Option<Box<Node>>, String),
    TopConst(String),
    /// A method call; `recv` is `None` for calls on `self` without a receiver.
    Call {
        recv: Option<Box<Node>>,
        name: String,
        args: Vec<Node>,
        /// A literal block.
        block: Option<Arc<Block>>,
        /// `&expr`: a block argument.
        block_arg: Option<Box<Node>>,
        /// `&.`.
        safe: bool,
    },
    /// `*x` in an argument list, array literal, `when` list or assignment.
    Splat(Box<Node>),
    /// The keyword arguments of a call (`f(a, k: 1, **opts)`), always its last argument.
    KwArgs(Vec<HashItem>),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Defined(Box<Node>),
    Assign(Box<Node>, Box<Node>),
    /// `a op= b` (op without `=`, e.g. `+`, `||`, `&&`).
    OpAssign(Box<Node>, String, Box<Node>),
    /// `a, (b, *c) = x`: targets (`Splat` and `Mlhs` allowed among them) and the value.
    MultiAssign(Vec<Node>, Box<Node>),
    /// A parenthesised group of assignment targets.
    Mlhs(Vec<Node>),
    If(Box<Node>, Vec<Node>, Vec<Node>),
    /// `while`/`until` (the bool is `until`); `do_while` runs the body first
    /// (`begin ... end while c`).
    While {
        cond: Box<Node>,
        body: Vec<Node>,
        until: bool,
        do_while: bool,
    },
    For(Vec<Param>, Box<Node>, Vec<Node>),
    Case(
        Option<Box<Node>>,
        Vec<(Vec<Node>, Vec<Node>)>,
        Option<Vec<Node>>,
    ),
    /// `case subject; in pattern [if guard] then ...; else ...; end` (pattern matching).
    CaseIn(Box<Node>, Vec<InClause>, Option<Vec<Node>>),
    Begin(Vec<Node>, Vec<Rescue>, Option<Vec<Node>>, Option<Vec<Node>>),
    /// `x rescue y`.
    RescueMod(Box<Node>, Box<Node>),
    /// `def name` (`None`) or `def recv.name` (`def self.x`).
    Def(Option<Box<Node>>, Arc<Def>),
    Class(Arc<ModuleBody>),
    Module(Arc<ModuleBody>),
    /// `class << target; ...; end`.
    SClass(Box<Node>, Arc<Vec<Node>>),
    Return(Option<Box<Node>>),
    Next(Option<Box<Node>>),
    Break(Option<Box<Node>>),
    Retry,
    Redo,
    Yield(Vec<Node>),
    /// `super` without arguments (`None`: the method's own arguments) or with them.
    Super {
        args: Option<Vec<Node>>,
        block: Option<Arc<Block>>,
        block_arg: Option<Box<Node>>,
    },
    /// `-> (x) { ... }`.
    Lambda(Arc<Block>),
    /// `alias new old` / `alias_method`.
    Alias(String, String),
    Undef(Vec<String>),
    /// `__method__`.
    CurrentMethod,
    Seq(Vec<Node>),
    /// Literal template text.
    Put(String),
    /// `<%= ... %>`.
    Insert(Vec<Node>),
}

impl Node {
    /// A node of `kind` at `pos`.
    pub fn new(kind: Kind, pos: Pos) -> Node {
        Node { kind, pos }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tree_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<super::Program>();
        check::<super::Node>();
    }
}

/// One `in` clause of `case ... in`.
#[derive(Debug, Clone, PartialEq)]
pub struct InClause {
    pub pat: Pat,
    /// `if cond` (false) or `unless cond` (true).
    pub guard: Option<(bool, Node)>,
    pub body: Vec<Node>,
    pub pos: Pos,
}

/// A pattern of `case ... in`.
#[derive(Debug, Clone, PartialEq)]
pub enum Pat {
    /// A value matched with `===` (a literal, constant, range, regexp).
    Value(Node),
    /// `^x`, `^@x`, `^(expr)`: the value, matched with `===`.
    Pin(Node),
    /// A bare name: binds the local variable (`_` too).
    Bind(String),
    /// `a | b`.
    Alt(Vec<Pat>),
    /// `pat => name`.
    Capture(Box<Pat>, String),
    /// `[a, *rest, b]`, `Const(a, b)`, `Const[a]`: `rest` is `Some(None)` for a bare `*`.
    Array {
        konst: Option<Box<Node>>,
        pre: Vec<Pat>,
        rest: Option<Option<String>>,
        post: Vec<Pat>,
    },
    /// `[*, a, b, *post]`.
    Find {
        konst: Option<Box<Node>>,
        pre: Option<String>,
        mid: Vec<Pat>,
        post: Option<String>,
    },
    /// `{name: pat, key:, **rest}`, `Const(name:)`.
    Hash {
        konst: Option<Box<Node>>,
        pairs: Vec<(String, Option<Pat>)>,
        rest: HashRest,
    },
}

/// What a hash pattern says of the keys it does not name.
#[derive(Debug, Clone, PartialEq)]
pub enum HashRest {
    /// Nothing said: other keys are allowed.
    Open,
    /// `**rest`: bound to a hash of them.
    Named(String),
    /// `**nil`: no other keys.
    Nil,
}
