//! Puppet's language validation (`Checker4_0` of Puppet 7.23) over the typed AST.
//!
//! The checks, their issue codes, messages and severities are Puppet's. Puppet validates its
//! model after the parser's rewrites (a block of one statement is that statement, statement
//! calls, untitled resource bodies); those rewrites are applied here where they change the
//! outcome. Location-dependent checks (a definition's name must match the file it is in)
//! belong to the loader, which knows the module path; see [`validate_in_module`].
//!
//! Positions follow Puppet's: an operator expression is reported at its operator.
//!
//! ```
//! let parse = puppet_syntax::parse("class integer {}");
//! let diags = puppet_syntax::validate::validate(&parse);
//! assert_eq!(diags[0].code, "RESERVED_TYPE_NAME");
//! ```

use crate::ast::{self, AstNode, AttributeOperation, Expr, LiteralKind, Number};
use crate::SyntaxKind::*;
use crate::{Diagnostic, Parse, Severity, SyntaxNode, TextRange};

/// Runs Puppet's validation checks over a parse (a manifest or an EPP template).
pub fn validate(parse: &Parse) -> Vec<Diagnostic> {
    let mut v = Validator::default();
    let root = parse.syntax();
    v.root(&root);
    v.diags.sort_by_key(|d| d.start());
    v.diags
}

/// Like [`validate`], and also checks that a file inside a module only defines names in the
/// namespace its path gives (`namespace`, e.g. `apache::mod` for `apache/manifests/mod.pp`;
/// `None` for files outside the module's `manifests/` directory, where every definition is
/// unacceptable) and holds nothing but definitions at the top level. `file` is used in
/// messages.
pub fn validate_in_module(parse: &Parse, file: &str, namespace: Option<&str>) -> Vec<Diagnostic> {
    let mut diags = validate(parse);
    let root = parse.syntax();
    let statements: Vec<Expr> = root.children().filter_map(Expr::cast).collect();
    for s in &statements {
        let name = match s {
            Expr::ClassDef(d) => Some((d.name(), "Host Class Definition")),
            Expr::DefineDef(d) => Some((d.name(), "'define' expression")),
            Expr::FunctionDef(d) => Some((d.name(), "Function Definition")),
            Expr::TypeAlias(d) => Some((d.name(), "Type Alias")),
            Expr::NodeDef(_) | Expr::TypeDefinition(_) => None,
            _ => {
                diags.push(Diagnostic::error(
                    "ILLEGAL_TOP_CONSTRUCT_LOCATION",
                    format!(
                        "This {} is unacceptable as a top level construct in this location",
                        label(s)
                    ),
                    s.range(),
                ));
                None
            }
        };
        if let Some((name, _)) = name {
            let lower = name.to_ascii_lowercase();
            let ok = match namespace {
                Some(ns) => lower.trim_start_matches("::").starts_with(ns),
                None => false,
            };
            if !ok {
                diags.push(Diagnostic::error(
                    "ILLEGAL_DEFINITION_LOCATION",
                    format!(
                        "Unacceptable location. The name '{name}' is unacceptable in file '{file}'"
                    ),
                    s.range(),
                ));
            }
        }
    }
    diags.sort_by_key(|d| d.start());
    diags
}

#[derive(Default)]
struct Validator {
    diags: Vec<Diagnostic>,
    /// Tasks mode: Puppet's `TasksChecker` replaces the checks of class, define and node
    /// definitions (where they may appear is not checked).
    tasks: bool,
}

/// Runs Puppet's validation checks over a parse made in tasks mode
/// ([`crate::parse_tasks`]), as Puppet validates with `--tasks` (its `TasksChecker`): the
/// checks of [`validate`], and what only a catalog compilation has (resources, their
/// defaults, overrides and relationships, collectors, node definitions) only inside an
/// `apply` block; class and define definitions nowhere; an exported collector or another
/// `apply` not inside one.
///
/// ```
/// let parse = puppet_syntax::parse_tasks("plan m::p() {\n  notify { 'x': }\n  apply('h') { notify { 'y': } }\n}\n");
/// let diags = puppet_syntax::validate::validate_tasks(&parse);
/// assert_eq!(diags.len(), 1);
/// assert_eq!(diags[0].message, "A Resource Statement is only available when compiling a catalog");
/// ```
pub fn validate_tasks(parse: &Parse) -> Vec<Diagnostic> {
    let mut v = Validator {
        tasks: true,
        ..Validator::default()
    };
    let root = parse.syntax();
    v.root(&root);
    for node in root.descendants() {
        let Some(e) = Expr::cast(node.clone()) else {
            continue;
        };
        // Inside an apply block (its arguments are not).
        let in_apply = node
            .ancestors()
            .skip(1)
            .any(|a| a.kind() == BLOCK && a.parent().is_some_and(|p| p.kind() == APPLY_EXPR));
        // Only available when compiling a catalog (outside an apply block), or not
        // available then (inside one).
        let only_when_compiling = match &e {
            Expr::ClassDef(_) | Expr::DefineDef(_) => Some(true),
            Expr::Collect(c) if in_apply => {
                c.query().is_some_and(|q| q.is_exported()).then_some(false)
            }
            Expr::Apply(_) if in_apply => Some(false),
            Expr::Collect(_)
            | Expr::NodeDef(_)
            | Expr::Relationship(_)
            | Expr::ResourceDefaults(_)
            | Expr::Resource(_)
            | Expr::ResourceOverride(_)
                if !in_apply =>
            {
                Some(true)
            }
            _ => None,
        };
        let (code, is) = match only_when_compiling {
            Some(true) => ("EXPRESSION_NOT_SUPPORTED_WHEN_SCRIPTING", "is only"),
            Some(false) => ("EXPRESSION_NOT_SUPPORTED_WHEN_COMPILING", "is not"),
            None => continue,
        };
        v.error(
            code,
            format!(
                "{} {is} available when compiling a catalog",
                a_an_uc(&label(&e))
            ),
            position(&e),
        );
    }
    v.diags.sort_by_key(|d| d.start());
    v.diags
}

const RESERVED_TYPE_NAMES: &[&str] = &[
    "type",
    "any",
    "unit",
    "scalar",
    "boolean",
    "numeric",
    "integer",
    "float",
    "collection",
    "array",
    "hash",
    "tuple",
    "struct",
    "variant",
    "optional",
    "enum",
    "regexp",
    "pattern",
    "runtime",
    "init",
    "object",
    "sensitive",
    "semver",
    "semverrange",
    "string",
    "timestamp",
    "timespan",
    "typeset",
];

/// "a" or "an" for a label, as Puppet's label provider chooses it.
fn article(label: &str) -> &'static str {
    let mut chars = label.chars();
    let mut c = chars.next().unwrap_or('x');
    if c == '"' || c == '\'' {
        c = chars.next().unwrap_or('x');
    }
    if "aeiouyAEIOUY".contains(c) {
        "an"
    } else {
        "a"
    }
}

fn a_an(label: &str) -> String {
    format!("{} {}", article(label), label)
}

fn a_an_uc(label: &str) -> String {
    let a = article(label);
    let mut uc = a.to_string();
    uc[..1].make_ascii_uppercase();
    format!("{uc} {label}")
}

/// Puppet's label for an expression (`ModelLabelProvider`).
pub fn label(e: &Expr) -> String {
    match e {
        Expr::Literal(l) => match l.kind() {
            Some(LiteralKind::Number) => match l.number() {
                Some(Number::Float(_)) => "Literal Float".into(),
                _ => "Literal Integer".into(),
            },
            Some(LiteralKind::True | LiteralKind::False) => "Boolean".into(),
            Some(LiteralKind::Undef) => "'undef' expression".into(),
            Some(LiteralKind::Default) => "'default' expression".into(),
            Some(LiteralKind::Regex) => "Regular Expression".into(),
            _ => "String".into(),
        },
        Expr::String(s) => {
            if s.is_interpolated() {
                "Double Quoted String".into()
            } else {
                "String".into()
            }
        }
        Expr::Heredoc(h) => format!(
            "'@({})' expression",
            h.header().map(|h| h.syntax).unwrap_or_default()
        ),
        Expr::Name(_) => "Name".into(),
        Expr::TypeRef(_) => "Type-Name".into(),
        Expr::Variable(_) => "Variable".into(),
        Expr::Reserved(r) => format!("Reserved Word '{}'", r.text()),
        Expr::Array(_) => "Array Expression".into(),
        Expr::Hash(_) => "Hash Expression".into(),
        Expr::HashEntry(_) => "Hash Entry".into(),
        Expr::Binary(b) => match b.op().map(|t| t.kind()) {
            Some(AND_KW) => "'and' expression".into(),
            Some(OR_KW) => "'or' expression".into(),
            Some(IN_KW) => "'in' expression".into(),
            _ => format!(
                "'{}' expression",
                b.op().map(|t| t.text().to_string()).unwrap_or_default()
            ),
        },
        Expr::Unary(u) => match u.op().map(|t| t.kind()) {
            Some(BANG) => "'not' expression".into(),
            Some(MINUS) => "Unary Minus".into(),
            _ => "Unfold".into(),
        },
        Expr::Assign(a) => format!(
            "'{}' expression",
            a.op().map(|t| t.text().to_string()).unwrap_or_default()
        ),
        Expr::Relationship(r) => {
            format!(
                "'{}' expression",
                r.op().map(|t| t.text().to_string()).unwrap_or_default()
            )
        }
        Expr::Access(_) => "'[]' expression".into(),
        Expr::Selector(_) => "Selector Expression".into(),
        Expr::Paren(_) => "Parenthesized Expression".into(),
        Expr::Call(_) => "Function Call".into(),
        Expr::MethodCall(_) => "Method call".into(),
        Expr::If(_) => "'if' statement".into(),
        Expr::Unless(_) => "'unless' Statement".into(),
        Expr::Case(_) => "'case' statement".into(),
        Expr::Resource(r) if r.is_untitled() => "Block Expression".into(),
        Expr::Resource(_) => "Resource Statement".into(),
        Expr::ResourceDefaults(_) => "Resource Defaults Expression".into(),
        Expr::ResourceOverride(_) => "Resource Override".into(),
        Expr::Collect(c) => match c.query() {
            Some(q) if q.is_exported() => "Exported Query".into(),
            _ => "Virtual Query".into(),
        },
        Expr::ClassDef(_) => "Host Class Definition".into(),
        Expr::DefineDef(_) => "'define' expression".into(),
        Expr::NodeDef(_) => "Node Definition".into(),
        Expr::FunctionDef(_) => "Function Definition".into(),
        Expr::PlanDef(_) => "Plan Definition".into(),
        Expr::Apply(_) => "'apply' expression".into(),
        Expr::TypeAlias(_) => "Type Alias".into(),
        Expr::TypeDefinition(_) => "Type Definition".into(),
        Expr::EppRenderText(_) => "Epp Text".into(),
        Expr::EppRenderExpr(_) => "Epp Interpolated Expression".into(),
        Expr::Error(_) => "Expression".into(),
    }
}

/// Where Puppet locates an expression: operator expressions at their operator.
fn position(e: &Expr) -> TextRange {
    let op = match e {
        Expr::Binary(b) => b.op(),
        Expr::Assign(a) => a.op(),
        Expr::Relationship(r) => r.op(),
        Expr::HashEntry(h) => h
            .syntax()
            .children_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| t.kind() == FARROW),
        _ => None,
    };
    match op {
        Some(t) => t.text_range(),
        None => e.range(),
    }
}

/// Does evaluating this expression have no effect (Puppet's `idem`)?
fn idem(e: &Expr) -> bool {
    match e {
        Expr::Literal(_)
        | Expr::Name(_)
        | Expr::TypeRef(_)
        | Expr::Reserved(_)
        | Expr::Variable(_) => true,
        Expr::Array(_) | Expr::Hash(_) | Expr::Access(_) | Expr::String(_) | Expr::Heredoc(_) => {
            true
        }
        Expr::Selector(_) | Expr::Unary(_) => true,
        Expr::Binary(b) => !matches!(b.op().map(|t| t.kind()), Some(MATCH | NOMATCH)),
        Expr::Paren(p) => p.expr().is_none_or(|e| idem(&e)),
        Expr::If(i) => {
            i.condition().is_some_and(|c| idem(&c))
                && i.then_block().is_none_or(|b| block_idem(&b))
                && else_idem(i.elsif(), i.else_clause())
        }
        Expr::Unless(u) => {
            u.condition().is_some_and(|c| idem(&c))
                && u.then_block().is_none_or(|b| block_idem(&b))
                && else_idem(None, u.else_clause())
        }
        Expr::Case(c) => {
            c.test().is_some_and(|t| idem(&t))
                && c.options().all(|o| {
                    o.values().all(|v| idem(&v)) && o.body().is_none_or(|b| block_idem(&b))
                })
        }
        Expr::Resource(r) if r.is_untitled() => untitled_is_block(r),
        _ => false,
    }
}

fn else_idem(elsif: Option<ast::ElsifClause>, els: Option<ast::ElseClause>) -> bool {
    if let Some(e) = elsif {
        return e.condition().is_some_and(|c| idem(&c))
            && e.then_block().is_none_or(|b| block_idem(&b))
            && else_idem(e.elsif(), e.else_clause());
    }
    match els.and_then(|e| e.block()) {
        Some(b) => block_idem(&b),
        None => true,
    }
}

fn block_idem(b: &ast::Block) -> bool {
    b.statements().all(|s| idem(&s))
}

/// An untitled `name { attrs }` whose name is no statement call becomes, in Puppet's model,
/// a block of a name and a hash (the "resource without title" shape).
fn untitled_is_block(r: &ast::ResourceExpr) -> bool {
    match r.type_expr() {
        Some(Expr::Name(n)) => {
            !crate::grammar::STATEMENT_CALLS.contains(&n.text().as_str())
                && !r
                    .untitled_operations()
                    .any(|o| matches!(o, AttributeOperation::Op(op) if op.is_append()))
        }
        _ => false,
    }
}

fn is_var_name(name: &str) -> bool {
    // \A(?:::)?(?:[a-z]\w*::)*[a-z_]\w*\z
    let n = name.strip_prefix("::").unwrap_or(name);
    let segs: Vec<&str> = n.split("::").collect();
    let word = |s: &str, first: fn(u8) -> bool| {
        let b = s.as_bytes();
        !b.is_empty() && first(b[0]) && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let (last, init) = match segs.split_last() {
        Some(x) => x,
        None => return false,
    };
    init.iter().all(|s| word(s, |c| c.is_ascii_lowercase()))
        && word(last, |c| c.is_ascii_lowercase() || c == b'_')
}

fn is_numeric_var_name(name: &str) -> bool {
    name == "0"
        || (!name.starts_with('0') && !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()))
}

fn is_classref_decl(name: &str) -> bool {
    // \A[a-z][\w]*(?:::[a-z][\w]*)*\z
    name.split("::").all(|s| {
        let b = s.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_lowercase()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    })
}

fn is_classref_ext_decl(name: &str) -> bool {
    name.split("::").all(|s| {
        let b = s.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_uppercase()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    })
}

impl Validator {
    fn error(&mut self, code: &'static str, message: String, range: TextRange) {
        self.diags.push(Diagnostic::error(code, message, range));
    }

    fn warning(&mut self, code: &'static str, message: String, range: TextRange) {
        self.diags.push(Diagnostic::warning(code, message, range));
    }

    fn root(&mut self, root: &SyntaxNode) {
        let statements: Vec<Expr> = root.children().filter_map(Expr::cast).collect();
        self.statement_list(&statements);
        if let Some(epp) = ast::EppFile::cast(root.clone()) {
            if let Some(params) = epp.params() {
                self.params(&params, None, true);
            }
        }
        for s in &statements {
            self.expr(s, &[]);
        }
    }

    /// Checks a list of statements the way Puppet checks a block (when there are several).
    fn statement_list(&mut self, statements: &[Expr]) {
        if statements.len() < 2 {
            return;
        }
        for s in &statements[..statements.len() - 1] {
            if idem(s) {
                self.error(
                    "IDEM_EXPRESSION_NOT_LAST",
                    format!(
                        "This {} has no effect. A value was produced and then forgotten (one or more preceding expressions may have the wrong form)",
                        label(s)
                    ),
                    position(s),
                );
                break;
            }
        }
    }

    fn block(&mut self, b: &ast::Block, ctx: &[Ctx]) {
        let statements: Vec<Expr> = b.statements().collect();
        self.statement_list(&statements);
        let mut inner = ctx.to_vec();
        if statements.len() > 1 {
            inner.push(Ctx::Block);
        }
        for s in &statements {
            self.expr(s, &inner);
        }
    }

    fn rvalue(&mut self, e: &Expr) {
        match e {
            Expr::Collect(_)
            | Expr::ClassDef(_)
            | Expr::DefineDef(_)
            | Expr::FunctionDef(_)
            | Expr::NodeDef(_)
            | Expr::TypeAlias(_)
            | Expr::TypeDefinition(_) => self.error(
                "NOT_RVALUE",
                format!(
                    "Invalid use of expression. {} does not produce a value",
                    a_an_uc(&label(e))
                ),
                position(e),
            ),
            Expr::Unary(u) => {
                if let Some(o) = u.operand() {
                    self.rvalue(&o);
                }
            }
            _ => {}
        }
    }

    fn assign(&mut self, e: &Expr, via_index: bool) {
        match e {
            Expr::Variable(v) => {
                let name = v.name();
                if is_numeric_var_name(&name) {
                    self.error(
                        "ILLEGAL_NUMERIC_ASSIGNMENT",
                        format!("Illegal attempt to assign to the numeric match result variable '${name}'. Numeric variables are not assignable"),
                        v.range(),
                    );
                }
                if name.contains("::") {
                    self.error(
                        "CROSS_SCOPE_ASSIGNMENT",
                        format!("Illegal attempt to assign to '{name}'. Cannot assign to variables in other namespaces"),
                        v.range(),
                    );
                }
            }
            Expr::Access(a) => self.error(
                "ILLEGAL_INDEXED_ASSIGNMENT",
                "Illegal attempt to assign via [index/key]. Not an assignable reference".into(),
                a.range(),
            ),
            Expr::Array(a) => {
                for x in a.elements() {
                    self.assign(&x, false);
                }
            }
            _ => {
                let (code, msg) = if via_index {
                    (
                        "ILLEGAL_ASSIGNMENT_VIA_INDEX",
                        format!("Illegal attempt to assign to {} via [index/key]. Not an assignable reference", a_an(&label(e))),
                    )
                } else {
                    (
                        "ILLEGAL_ASSIGNMENT",
                        format!(
                            "Illegal attempt to assign to '{}'. Not an assignable reference",
                            a_an(&label(e))
                        ),
                    )
                };
                self.error(code, msg, position(e));
            }
        }
    }

    fn definition_top(&mut self, e: &Expr, ctx: &[Ctx]) {
        if self.tasks && matches!(e, Expr::ClassDef(_) | Expr::DefineDef(_) | Expr::NodeDef(_)) {
            return;
        }
        let absolute = matches!(
            e,
            Expr::FunctionDef(_) | Expr::PlanDef(_) | Expr::TypeAlias(_) | Expr::TypeDefinition(_)
        );
        for (i, c) in ctx.iter().enumerate().rev() {
            match c {
                Ctx::Class => return,
                Ctx::Block => {
                    let parent = if i == 0 { None } else { Some(ctx[i - 1]) };
                    if absolute && parent.is_some() {
                        self.error(
                            "NOT_ABSOLUTE_TOP_LEVEL",
                            format!("{} may only appear at toplevel", a_an_uc(&label(e))),
                            e.range(),
                        );
                        return;
                    }
                }
                Ctx::Other => {
                    self.error(
                        "NOT_TOP_LEVEL",
                        "Classes, definitions, and nodes may only appear at toplevel or inside other classes".into(),
                        e.range(),
                    );
                    return;
                }
            }
        }
    }

    /// The checks of a function definition (and of a plan, which is one to Puppet).
    fn function_definition(
        &mut self,
        e: &Expr,
        name: &str,
        params: Option<ast::ParamList>,
        return_type: Option<Expr>,
        body: Option<ast::Block>,
        ctx: &[Ctx],
    ) {
        let mut other = ctx.to_vec();
        other.push(Ctx::Other);
        self.named_definition(e, name, ctx);
        if let Some(p) = params {
            self.params(&p, Some((e, false)), false);
            self.param_exprs(&p, &other);
        }
        if let Some(r) = return_type {
            self.type_ref_check(e, &r);
        }
        if let Some(b) = body {
            self.block(&b, &other);
        }
    }

    fn named_definition(&mut self, e: &Expr, name: &str, ctx: &[Ctx]) {
        self.definition_top(e, ctx);
        if !is_classref_decl(name) {
            self.error(
                "ILLEGAL_DEFINITION_NAME",
                format!(
                    "Unacceptable name. The name '{name}' is unacceptable as the name of {}",
                    a_an(&label(e))
                ),
                e.range(),
            );
        }
        if RESERVED_TYPE_NAMES.contains(&name) {
            self.error(
                "RESERVED_TYPE_NAME",
                format!(
                    "The name: '{name}' is already defined by Puppet and can not be used as the name of {}.",
                    a_an(&label(e))
                ),
                e.range(),
            );
        }
        if name == "plan" {
            self.warning(
                "FUTURE_RESERVED_WORD",
                format!("Use of future reserved word: '{name}'"),
                e.range(),
            );
        }
    }

    /// Parameter checks; `container` is the label for "not supported in ..." messages (None
    /// for lambdas and functions, where captures-rest is allowed when last).
    fn params(&mut self, list: &ast::ParamList, container: Option<(&Expr, bool)>, epp: bool) {
        let params: Vec<ast::Param> = list.params().collect();
        let mut seen = std::collections::HashSet::new();
        for (i, p) in params.iter().enumerate() {
            let name = p.name();
            if p.captures_rest() {
                match container {
                    Some((c, _)) if !matches!(c, Expr::FunctionDef(_)) => self.error(
                        "CAPTURES_REST_NOT_SUPPORTED",
                        format!("Parameter ${name} has 'captures rest' - not supported in {}", a_an(&label(c))),
                        p.range(),
                    ),
                    _ if epp => self.error(
                        "CAPTURES_REST_NOT_SUPPORTED",
                        format!("Parameter ${name} has 'captures rest' - not supported in an Epp Template"),
                        p.range(),
                    ),
                    _ if i + 1 != params.len() => self.error(
                        "CAPTURES_REST_NOT_LAST",
                        format!("Parameter ${name} is not last, and has 'captures rest'"),
                        p.range(),
                    ),
                    _ => {}
                }
            }
            if !seen.insert(name.clone()) && (container.is_some() || epp) {
                self.error(
                    "DUPLICATE_PARAMETER",
                    format!(
                        "The parameter '{name}' is declared more than once in the parameter list"
                    ),
                    p.range(),
                );
            }
            if let Some((c, reserved)) = container {
                if reserved && (name == "name" || name == "title") {
                    self.error(
                        "RESERVED_PARAMETER",
                        format!(
                            "The parameter ${name} redefines a built in parameter in the {}",
                            label(c)
                        ),
                        p.range(),
                    );
                }
            }
            if name
                .strip_prefix("0x")
                .unwrap_or(&name)
                .bytes()
                .all(|b| b.is_ascii_digit())
                && !name.is_empty()
            {
                self.warning(
                    "ILLEGAL_NUMERIC_PARAMETER",
                    format!("The numeric parameter name '${name}' cannot be used (clashes with numeric match result variables)"),
                    p.range(),
                );
            }
            let b = name.as_bytes();
            let ok = !b.is_empty()
                && (b[0].is_ascii_lowercase() || b[0] == b'_')
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
            if !ok {
                self.error(
                    "ILLEGAL_PARAM_NAME",
                    format!("Illegal parameter name. The given name '{name}' does not conform to the naming rule /^[a-z_]\\w*$/"),
                    p.range(),
                );
            }
            if let Some(d) = p.default_value() {
                self.no_assignment(&d);
            }
        }
    }

    fn no_assignment(&mut self, e: &Expr) {
        if let Expr::Assign(a) = e {
            self.error(
                "ILLEGAL_ASSIGNMENT_CONTEXT",
                "Assignment not allowed here".into(),
                position(&Expr::Assign(a.clone())),
            );
            return;
        }
        for c in e.syntax().children() {
            if c.kind() == LAMBDA {
                continue;
            }
            if let Some(x) = Expr::cast(c.clone()) {
                self.no_assignment(&x);
            } else {
                for cc in c.children().filter_map(Expr::cast) {
                    self.no_assignment(&cc);
                }
            }
        }
    }

    fn no_idem_last(&mut self, e: &Expr, body: Option<ast::Block>) {
        let Some(body) = body else { return };
        let statements: Vec<Expr> = body.statements().collect();
        if let Some(last) = statements.last() {
            let resource_without_title =
                matches!(last, Expr::Resource(r) if r.is_untitled() && untitled_is_block(r));
            if idem(last) && !resource_without_title {
                self.error(
                    "IDEM_NOT_ALLOWED_LAST",
                    format!(
                        "This {} has no effect. {} can not end with a value-producing expression without other effect",
                        label(last),
                        a_an_uc(&label(e))
                    ),
                    position(last),
                );
            }
        }
    }

    fn type_ref_check(&mut self, container: &Expr, r: &Expr) {
        let n = match r {
            Expr::Access(a) => a.target(),
            other => Some(other.clone()),
        };
        if !matches!(n, Some(Expr::TypeRef(_))) {
            self.error(
                "ILLEGAL_EXPRESSION",
                format!(
                    "Illegal expression. {} is unacceptable as a type reference in {}",
                    a_an_uc(&label(r)),
                    a_an(&label(container))
                ),
                r.range(),
            );
        }
    }

    fn query(&mut self, e: &Expr) {
        match e {
            Expr::Binary(b) => match b.op().map(|t| t.kind()) {
                Some(EQ2 | NEQ) => {}
                Some(AND_KW | OR_KW) => {
                    if let Some(l) = b.lhs() {
                        self.query(&l);
                    }
                    if let Some(r) = b.rhs() {
                        self.query(&r);
                    }
                }
                _ => self.illegal_query(e),
            },
            Expr::Paren(p) => {
                if let Some(x) = p.expr() {
                    self.query(&x);
                }
            }
            Expr::Variable(_) | Expr::Name(_) => {}
            Expr::Literal(l)
                if matches!(
                    l.kind(),
                    Some(
                        LiteralKind::Number
                            | LiteralKind::String
                            | LiteralKind::True
                            | LiteralKind::False
                    )
                ) => {}
            Expr::String(s) if !s.is_interpolated() => {}
            _ => self.illegal_query(e),
        }
    }

    fn illegal_query(&mut self, e: &Expr) {
        self.error(
            "ILLEGAL_QUERY_EXPRESSION",
            format!(
                "Illegal query expression. {} cannot be used in a query",
                a_an_uc(&label(e))
            ),
            position(e),
        );
    }

    fn hostname(&mut self, m: &ast::HostMatch) {
        use ast::HostMatchKind;
        let bad = |s: &str| {
            s.chars()
                .any(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        };
        match m.kind() {
            Some(HostMatchKind::Name(n)) if bad(&n) => {
                self.error(
                    "ILLEGAL_HOSTNAME_CHARS",
                    format!("The hostname '{n}' contains illegal characters (only letters, digits, '_', '-', and '.' are allowed)"),
                    m.range(),
                );
            }
            Some(HostMatchKind::String(node)) => {
                if let Some(s) = ast::StringExpr::cast(node.clone()) {
                    if let Some(part) = s.parts().find(|p| !matches!(p, ast::StringPart::Text(_))) {
                        let range = match part {
                            ast::StringPart::Var(v) => v.range(),
                            ast::StringPart::Interp(i) => {
                                i.expr().map(|e| e.range()).unwrap_or(i.range())
                            }
                            ast::StringPart::Text(t) => t.text_range(),
                        };
                        self.error(
                            "ILLEGAL_HOSTNAME_INTERPOLATION",
                            "An interpolated expression is not allowed in a hostname of a node"
                                .into(),
                            range,
                        );
                        return;
                    }
                    let text: String = s
                        .parts()
                        .filter_map(|p| match p {
                            ast::StringPart::Text(t) => {
                                Some(ast::unescape_dq(t.text(), ast::DQ_ESCAPES))
                            }
                            _ => None,
                        })
                        .collect();
                    if bad(&text) {
                        self.error(
                            "ILLEGAL_HOSTNAME_CHARS",
                            format!("The hostname '{text}' contains illegal characters (only letters, digits, '_', '-', and '.' are allowed)"),
                            m.range(),
                        );
                    }
                } else if let Some(t) = m.sq_string() {
                    let text = ast::unescape_sq(t.text());
                    if bad(&text) {
                        self.error(
                            "ILLEGAL_HOSTNAME_CHARS",
                            format!("The hostname '{text}' contains illegal characters (only letters, digits, '_', '-', and '.' are allowed)"),
                            m.range(),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    fn attribute_ops(
        &mut self,
        ops: Vec<AttributeOperation>,
        parent_label: &str,
        append_ok: bool,
        ctx: &[Ctx],
    ) {
        let mut seen_unfold = false;
        for op in ops {
            match op {
                AttributeOperation::Op(o) => {
                    if o.is_append() && !append_ok {
                        self.error(
                            "ILLEGAL_ATTRIBUTE_APPEND",
                            format!(
                                "Illegal +> operation on attribute {}. This operator can not be used in {}",
                                o.name(),
                                a_an(parent_label)
                            ),
                            o.range(),
                        );
                    }
                    if let Some(v) = o.value() {
                        self.rvalue(&v);
                        self.expr(&v, ctx);
                    }
                }
                AttributeOperation::Splat(s) => {
                    if seen_unfold && parent_label == "Resource Instance Definition" {
                        self.error(
                            "MULTIPLE_ATTRIBUTES_UNFOLD",
                            "Unfolding of attributes from Hash can only be used once per resource body".into(),
                            s.range(),
                        );
                    }
                    seen_unfold = true;
                    if let Some(v) = s.value() {
                        self.rvalue(&v);
                        self.expr(&v, ctx);
                    }
                }
            }
        }
    }

    /// Checks an expression and everything in it. `ctx` is the chain of containers that
    /// matter for where definitions may appear.
    fn expr(&mut self, e: &Expr, ctx: &[Ctx]) {
        let mut other = ctx.to_vec();
        other.push(Ctx::Other);
        let other = &other[..];
        match e {
            Expr::Literal(l) => {
                if let Some(Number::Overflow) = l.number() {
                    let text = l.token().map(|t| t.text().to_string()).unwrap_or_default();
                    let hex = overflow_hex(&text);
                    self.error(
                        "NUMERIC_OVERFLOW",
                        format!("A Literal Integer resulted in a value outside of Puppet Integer max range, got '{hex}'"),
                        l.range(),
                    );
                }
            }
            Expr::Variable(v) => {
                let name = v.name();
                if name.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) {
                    if !is_numeric_var_name(&name) {
                        self.error(
                            "ILLEGAL_NUMERIC_VAR_NAME",
                            format!("Illegal numeric variable name, The given name '{name}' must be a decimal value if it starts with a digit 0-9"),
                            v.range(),
                        );
                    }
                } else if !name.is_empty() && !is_var_name(&name) {
                    self.error(
                        "ILLEGAL_VAR_NAME",
                        format!("Illegal variable name, The given name '{name}' does not conform to the naming rule /^((::)?[a-z]\\w*)*((::)?[a-z_]\\w*)$/"),
                        v.range(),
                    );
                }
            }
            Expr::TypeRef(t) => {
                let name = t.text();
                let ok = name
                    .trim_start_matches("::")
                    .split("::")
                    .all(|s| s.as_bytes().first().is_some_and(|c| c.is_ascii_uppercase()));
                if !ok {
                    self.error(
                        "ILLEGAL_CLASSREF",
                        format!("Illegal type reference. The given name '{name}' does not conform to the naming rule"),
                        t.range(),
                    );
                }
            }
            Expr::Reserved(r) => {
                let word = r.text();
                self.error(
                    "RESERVED_WORD",
                    format!("Use of reserved word: {word}, must be quoted if intended to be a String value"),
                    r.range(),
                );
            }
            Expr::String(s) => {
                for part in s.parts() {
                    match part {
                        ast::StringPart::Interp(i) => {
                            if let Some(x) = i.expr() {
                                self.expr(&x, other);
                            }
                        }
                        ast::StringPart::Var(v) => self.expr(&Expr::Variable(v), other),
                        ast::StringPart::Text(_) => {}
                    }
                }
            }
            Expr::Heredoc(h) => {
                if let Some(body) = h.body() {
                    if let Some(p) = &body.parse {
                        for x in p
                            .syntax()
                            .descendants()
                            .filter_map(ast::Interpolation::cast)
                        {
                            if let Some(x) = x.expr() {
                                self.expr(&x, other);
                            }
                        }
                    } else {
                        let at = body
                            .token
                            .as_ref()
                            .map(|t| TextRange::empty(t.text_range().start()))
                            .unwrap_or(h.range());
                        let text = ast::unescape_heredoc(&body.text, &body.header);
                        if let Some(msg) = external_syntax_error(&body.header.syntax, &text) {
                            let code =
                                format!("ILLEGAL_{}", body.header.syntax.to_ascii_uppercase());
                            self.diags.push(Diagnostic::error(code, msg, at));
                        }
                    }
                }
            }
            Expr::Array(a) => {
                for x in a.elements() {
                    self.rvalue(&x);
                    self.expr(&x, other);
                }
            }
            Expr::Hash(h) => {
                let mut keys = std::collections::HashSet::new();
                for entry in h.entries() {
                    if let Some((kind, k)) = entry.key().and_then(|k| literal_key(&k)) {
                        if !keys.insert((kind, k.clone())) {
                            self.warning(
                                "DUPLICATE_KEY",
                                format!("The key '{k}' is declared more than once"),
                                position(&Expr::HashEntry(entry.clone())),
                            );
                        }
                    }
                    self.expr(&Expr::HashEntry(entry), other);
                }
            }
            Expr::HashEntry(h) => {
                for x in [h.key(), h.value()].into_iter().flatten() {
                    self.rvalue(&x);
                    self.expr(&x, other);
                }
            }
            Expr::Binary(b) => {
                for x in [b.lhs(), b.rhs()].into_iter().flatten() {
                    self.rvalue(&x);
                    self.expr(&x, other);
                }
            }
            Expr::Unary(u) => {
                if let Some(x) = u.operand() {
                    self.rvalue(&x);
                    self.expr(&x, other);
                }
            }
            Expr::Assign(a) => {
                let op = a.op().map(|t| t.kind());
                match op {
                    Some(EQ) => {
                        if let Some(l) = a.lhs() {
                            self.assign(&l, false);
                        }
                        if let Some(r) = a.rhs() {
                            self.rvalue(&r);
                        }
                    }
                    _ => {
                        let text = a.op().map(|t| t.text().to_string()).unwrap_or_default();
                        self.error(
                            "APPENDS_DELETES_NO_LONGER_SUPPORTED",
                            format!("The operator '{text}' is no longer supported. See http://links.puppet.com/remove-plus-equals"),
                            position(e),
                        );
                    }
                }
                for x in [a.lhs(), a.rhs()].into_iter().flatten() {
                    self.expr(&x, other);
                }
            }
            Expr::Relationship(r) => {
                for x in [r.lhs(), r.rhs()].into_iter().flatten() {
                    if !matches!(x, Expr::Collect(_) | Expr::Relationship(_)) {
                        self.rvalue(&x);
                    }
                    self.expr(&x, other);
                }
            }
            Expr::Access(a) => {
                if a.keys().next().is_none() {
                    self.error(
                        "MISSING_INDEX",
                        "Missing key/index in access".into(),
                        a.range(),
                    );
                }
                for x in a.syntax().children().filter_map(Expr::cast) {
                    self.expr(&x, other);
                }
            }
            Expr::Selector(s) => {
                if let Some(t) = s.target() {
                    self.rvalue(&t);
                    self.expr(&t, other);
                }
                let mut defaults = 0;
                for entry in s.entries() {
                    if let Some(m) = entry.matching() {
                        if matches!(&m, Expr::Literal(l) if l.kind() == Some(LiteralKind::Default))
                        {
                            defaults += 1;
                            if defaults == 2 {
                                self.error(
                                    "DUPLICATE_DEFAULT",
                                    "This Selector Expression already has a 'default' entry - this is a duplicate".into(),
                                    m.range(),
                                );
                            }
                        }
                        self.rvalue(&m);
                        self.expr(&m, other);
                    }
                    if let Some(v) = entry.value() {
                        self.expr(&v, other);
                    }
                }
            }
            Expr::Paren(p) => {
                if let Some(x) = p.expr() {
                    self.expr(&x, other);
                }
            }
            Expr::Call(c) => {
                match c.callee() {
                    Some(Expr::Name(_) | Expr::TypeRef(_)) | None => {}
                    Some(Expr::Access(a)) if matches!(a.target(), Some(Expr::TypeRef(_))) => {}
                    Some(f) => self.error(
                        "ILLEGAL_EXPRESSION",
                        format!("Illegal expression. {} is unacceptable as function name in a Function Call", a_an_uc(&label(&f))),
                        f.range(),
                    ),
                }
                for x in c.args() {
                    self.expr(&x, other);
                }
                if let Some(callee) = c.callee() {
                    if !matches!(callee, Expr::Name(_)) {
                        self.expr(&callee, other);
                    }
                }
                if let Some(l) = c.lambda() {
                    self.lambda(&l, other);
                }
            }
            Expr::MethodCall(m) => {
                if let Some(r) = m.receiver() {
                    self.expr(&r, other);
                }
                for x in m.args() {
                    self.expr(&x, other);
                }
                if let Some(l) = m.lambda() {
                    self.lambda(&l, other);
                }
            }
            Expr::If(i) => {
                self.if_like(
                    i.condition(),
                    i.then_block(),
                    i.elsif(),
                    i.else_clause(),
                    other,
                );
            }
            Expr::Unless(u) => {
                self.if_like(u.condition(), u.then_block(), None, u.else_clause(), other);
            }
            Expr::Case(c) => {
                if let Some(t) = c.test() {
                    self.rvalue(&t);
                    self.expr(&t, other);
                }
                let mut found_default = false;
                for o in c.options() {
                    for v in o.values() {
                        if matches!(&v, Expr::Literal(l) if l.kind() == Some(LiteralKind::Default))
                        {
                            if found_default {
                                self.error(
                                    "DUPLICATE_DEFAULT",
                                    "This 'case' statement already has a 'default' entry - this is a duplicate".into(),
                                    v.range(),
                                );
                            }
                            found_default = true;
                        }
                        self.rvalue(&v);
                        self.expr(&v, other);
                    }
                    if let Some(b) = o.body() {
                        self.block(&b, other);
                    }
                }
            }
            Expr::Resource(r) => {
                if r.is_untitled() {
                    if untitled_is_block(r) {
                        let name = match r.type_expr() {
                            Some(Expr::Name(n)) => n.text(),
                            _ => String::new(),
                        };
                        self.warning(
                            "RESOURCE_WITHOUT_TITLE",
                            format!("This expression is invalid. Did you try declaring a '{name}' resource without a title?"),
                            r.range(),
                        );
                        self.diags.last_mut().expect("just pushed").severity = Severity::Error;
                    }
                    let ops: Vec<_> = r.untitled_operations().collect();
                    self.attribute_ops(ops, "Resource Instance Definition", false, other);
                    return;
                }
                let is_class = matches!(r.type_expr(), Some(Expr::Name(n)) if n.token().is_some_and(|t| t.kind() == CLASS_KW));
                if is_class && r.form() != ast::ResourceForm::Regular {
                    self.error(
                        "CLASS_NOT_VIRTUALIZABLE",
                        "Classes are not virtualizable".into(),
                        r.range(),
                    );
                }
                if let Some(t) = r.type_expr() {
                    if !is_class {
                        self.expr(&t, other);
                    }
                }
                for body in r.bodies() {
                    if let Some(t) = body.title() {
                        self.expr(&t, other);
                    }
                    let ops: Vec<_> = body.operations().collect();
                    self.attribute_ops(ops, "Resource Instance Definition", false, other);
                }
            }
            Expr::ResourceDefaults(d) => {
                if d.form() != ast::ResourceForm::Regular {
                    self.error(
                        "NOT_VIRTUALIZEABLE",
                        "Resource Defaults are not virtualizable".into(),
                        d.range(),
                    );
                }
                let ops: Vec<_> = d.operations().collect();
                self.attribute_ops(ops, "Resource Defaults Expression", false, other);
            }
            Expr::ResourceOverride(o) => {
                if o.form() != ast::ResourceForm::Regular {
                    self.error(
                        "NOT_VIRTUALIZEABLE",
                        "Resource Defaults are not virtualizable".into(),
                        o.range(),
                    );
                }
                if let Some(t) = o.target() {
                    self.expr(&t, other);
                }
                let ops: Vec<_> = o.operations().collect();
                self.attribute_ops(ops, "Resource Override", true, other);
            }
            Expr::Collect(c) => {
                match c.type_expr() {
                    Some(Expr::TypeRef(_)) => {}
                    Some(t) => self.error(
                        "ILLEGAL_EXPRESSION",
                        format!(
                            "Illegal expression. {} is unacceptable as type name in {}",
                            a_an_uc(&label(&t)),
                            a_an(&label(e))
                        ),
                        t.range(),
                    ),
                    None => {}
                }
                if let Some(q) = c.query().and_then(|q| q.expr()) {
                    self.query(&q);
                    self.expr(&q, other);
                }
                let ops: Vec<_> = c.operations().collect();
                self.attribute_ops(ops, "Collect", true, other);
            }
            Expr::ClassDef(d) => {
                self.named_definition(e, &d.name(), ctx);
                if let Some(p) = d.params() {
                    self.params(&p, Some((e, true)), false);
                    self.param_exprs(&p, other);
                }
                self.no_idem_last(e, d.body());
                if let Some(b) = d.body() {
                    let mut inner = ctx.to_vec();
                    inner.push(Ctx::Class);
                    self.block(&b, &inner);
                }
            }
            Expr::DefineDef(d) => {
                self.named_definition(e, &d.name(), ctx);
                if let Some(p) = d.params() {
                    self.params(&p, Some((e, true)), false);
                    self.param_exprs(&p, other);
                }
                self.no_idem_last(e, d.body());
                if let Some(b) = d.body() {
                    self.block(&b, other);
                }
            }
            Expr::FunctionDef(d) => {
                let return_type = d.return_type().and_then(|r| r.type_expr());
                self.function_definition(e, &d.name(), d.params(), return_type, d.body(), ctx);
            }
            // A plan is a function definition to Puppet's checks.
            Expr::PlanDef(d) => {
                self.function_definition(e, &d.name(), d.params(), None, d.body(), ctx)
            }
            // Definitions may appear in an apply block as in a class body.
            Expr::Apply(a) => {
                for arg in a.args() {
                    self.expr(&arg, other);
                }
                if let Some(b) = a.body() {
                    let mut inner = ctx.to_vec();
                    inner.push(Ctx::Class);
                    self.block(&b, &inner);
                }
            }
            Expr::NodeDef(n) => {
                for m in n.matches() {
                    self.hostname(&m);
                }
                self.definition_top(e, ctx);
                self.no_idem_last(e, n.body());
                if let Some(p) = n.parent() {
                    self.error(
                        "ILLEGAL_NODE_INHERITANCE",
                        "Node inheritance is not supported in Puppet >= 4.0.0. See http://links.puppet.com/puppet-node-inheritance-deprecation".into(),
                        p.range(),
                    );
                }
                if let Some(b) = n.body() {
                    self.block(&b, other);
                }
            }
            Expr::TypeAlias(t) => {
                self.definition_top(e, ctx);
                let name = t.name();
                if let Some(Expr::Access(lhs)) = t.lhs() {
                    self.type_mapping(t, &lhs);
                    return;
                }
                if !is_classref_ext_decl(&name) {
                    self.error(
                        "ILLEGAL_DEFINITION_NAME",
                        format!("Unacceptable name. The name '{name}' is unacceptable as the name of a Type Alias"),
                        t.range(),
                    );
                }
                if RESERVED_TYPE_NAMES.contains(&name.to_ascii_lowercase().as_str())
                    && name.to_ascii_lowercase() == name
                {
                    self.error(
                        "RESERVED_TYPE_NAME",
                        format!("The name: '{name}' is already defined by Puppet and can not be used as the name of a Type Alias."),
                        t.range(),
                    );
                }
                if let Some(rhs) = t.type_expr() {
                    // A hash is shorthand for `Object[{...}]`.
                    if !matches!(rhs, Expr::HashEntry(_) | Expr::Hash(_)) {
                        self.type_ref_check(e, &rhs);
                    }
                    // `Parent { ... }` adds `parent => Parent` to the hash: a `parent` key
                    // of its own is then given twice (`Object { ... }` adds none).
                    if let Expr::HashEntry(entry) = &rhs {
                        let base_is_object = entry
                            .key()
                            .is_some_and(|k| k.syntax().text().to_string().trim() == "Object");
                        if let (Some(Expr::Hash(h)), false) = (entry.value(), base_is_object) {
                            for en in h.entries() {
                                if en.key().and_then(|k| literal_key(&k))
                                    == Some((KeyKind::String, "parent".into()))
                                {
                                    self.warning(
                                        "DUPLICATE_KEY",
                                        "The key 'parent' is declared more than once".into(),
                                        position(&Expr::HashEntry(en.clone())),
                                    );
                                }
                            }
                        }
                    }
                    self.expr(&rhs, other);
                }
            }
            Expr::TypeDefinition(t) => {
                self.definition_top(e, ctx);
                self.error(
                    "UNSUPPORTED_EXPRESSION",
                    "Expressions of type a Type Definition are not supported in this version of Puppet".into(),
                    t.range(),
                );
            }
            Expr::EppRenderExpr(r) => {
                if let Some(x) = r.expr() {
                    self.expr(&x, other);
                }
                if let Some(b) = r.block() {
                    self.block(&b, other);
                }
            }
            Expr::EppRenderText(_) | Expr::Name(_) | Expr::Error(_) => {}
        }
    }

    /// `type Runtime[...] = ...`: a type mapping (Puppet's `check_TypeMapping`).
    fn type_mapping(&mut self, t: &ast::TypeAlias, lhs: &ast::AccessExpr) {
        let keys: Vec<Expr> = lhs.keys().collect();
        let is_runtime = matches!(lhs.target(), Some(Expr::TypeRef(r)) if r.text() == "Runtime");
        let e = Expr::TypeAlias(t.clone());
        let at = lhs.range();
        if !is_runtime {
            self.error(
                "UNSUPPORTED_EXPRESSION",
                "Expressions of type a Type Mapping are not supported in this version of Puppet"
                    .into(),
                at,
            );
            return;
        }
        let regexp = keys.len() == 2 && pattern_with_replacement(&keys[1]);
        let rhs = t.type_expr();
        let single_msg =
            "Illegal type mapping. Expected a Type on the left side, got A Type Mapping";
        let regexp_msg = "Illegal type mapping. Expected a Tuple[Regexp,String] on the left side, got A Type Mapping";
        let _ = e;
        match rhs {
            Some(r) if pattern_with_replacement(&r) => {
                if !regexp {
                    self.error("ILLEGAL_TYPE_MAPPING", single_msg.into(), at);
                }
            }
            Some(r) if is_type_ref(&r) => {
                if regexp {
                    self.error("ILLEGAL_TYPE_MAPPING", regexp_msg.into(), at);
                }
            }
            _ => self.error(
                "ILLEGAL_TYPE_MAPPING",
                if regexp { regexp_msg } else { single_msg }.into(),
                at,
            ),
        }
    }

    fn param_exprs(&mut self, p: &ast::ParamList, ctx: &[Ctx]) {
        for param in p.params() {
            if let Some(t) = param.type_expr() {
                self.expr(&t, ctx);
            }
            if let Some(d) = param.default_value() {
                self.expr(&d, ctx);
            }
        }
    }

    fn lambda(&mut self, l: &ast::Lambda, ctx: &[Ctx]) {
        if let Some(p) = l.params() {
            self.params(&p, None, false);
            self.param_exprs(&p, ctx);
        }
        if let Some(r) = l.return_type().and_then(|r| r.type_expr()) {
            if !matches!(&r, Expr::TypeRef(_))
                && !matches!(&r, Expr::Access(a) if matches!(a.target(), Some(Expr::TypeRef(_))))
            {
                self.error(
                    "ILLEGAL_EXPRESSION",
                    format!(
                        "Illegal expression. {} is unacceptable as a type reference in a Lambda",
                        a_an_uc(&label(&r))
                    ),
                    r.range(),
                );
            }
        }
        let mut inner = ctx.to_vec();
        inner.push(Ctx::Other);
        if let Some(b) = l.body() {
            self.block(&b, &inner);
        }
    }

    fn if_like(
        &mut self,
        cond: Option<Expr>,
        then: Option<ast::Block>,
        elsif: Option<ast::ElsifClause>,
        els: Option<ast::ElseClause>,
        ctx: &[Ctx],
    ) {
        if let Some(c) = cond {
            self.rvalue(&c);
            self.expr(&c, ctx);
        }
        if let Some(b) = then {
            self.block(&b, ctx);
        }
        if let Some(e) = elsif {
            self.if_like(
                e.condition(),
                e.then_block(),
                e.elsif(),
                e.else_clause(),
                ctx,
            );
        }
        if let Some(b) = els.and_then(|e| e.block()) {
            self.block(&b, ctx);
        }
    }
}

/// Puppet's checks of heredoc text with a known syntax (`json`, `base64`, `pp`, `epp`):
/// the message when the text is not valid.
fn external_syntax_error(syntax: &str, text: &str) -> Option<String> {
    // A syntax may be a `+`-separated list; the last segment names the checker.
    let checker = syntax.rsplit('+').next().unwrap_or(syntax);
    let prefix = format!("Invalid produced text having syntax: '{syntax}'.");
    match checker {
        "json" => serde_json::from_str::<serde_json::Value>(text).err().map(|_| {
            format!("{prefix} JSON syntax checker: Cannot parse invalid JSON string. \"unexpected token at '{}'\"", text.trim_end())
        }),
        "base64" => {
            let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            let valid_chars = t.trim_end_matches('=').chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/');
            if !valid_chars || t.len() % 4 != 0 || t.len() - t.trim_end_matches('=').len() > 2 {
                Some(format!("{prefix} Base64 syntax checker: Cannot parse invalid Base64 string - padding is not correct"))
            } else {
                None
            }
        }
        "pp" | "epp" => {
            let parse = if checker == "pp" { crate::parse(text) } else { crate::parse_epp(text) };
            let e = parse.errors().iter().find(|d| d.severity == Severity::Error)?;
            let lc = crate::LineIndex::new(text).line_col(text, e.start());
            let name = if checker == "pp" { "PP" } else { "EPP" };
            Some(format!("{prefix} {name} syntax checker: \"{} (line: {}, column: {})\"", e.message, lc.line, lc.col))
        }
        _ => None,
    }
}

/// `[/regex/, 'replacement']`.
fn pattern_with_replacement(e: &Expr) -> bool {
    match e {
        Expr::Array(a) => {
            let v: Vec<Expr> = a.elements().collect();
            v.len() == 2
                && matches!(&v[0], Expr::Literal(l) if l.kind() == Some(LiteralKind::Regex))
                && matches!(&v[1], Expr::Literal(l) if l.kind() == Some(LiteralKind::String))
        }
        _ => false,
    }
}

fn is_type_ref(e: &Expr) -> bool {
    match e {
        Expr::Access(a) => matches!(a.target(), Some(Expr::TypeRef(_))),
        Expr::TypeRef(_) => true,
        _ => false,
    }
}

/// The value of a hash key when it is a literal (for duplicate-key warnings).
/// What a literal hash key is, as Puppet's validator compares keys (the literal's Ruby
/// value): `1` and `0x1` are the same key, `true` and `'true'` are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum KeyKind {
    String,
    Integer,
    Float,
    Boolean,
}

/// A literal hash key: its kind and its value as the duplicate-key warning prints it.
fn literal_key(e: &Expr) -> Option<(KeyKind, String)> {
    match e {
        Expr::Literal(l) => match l.kind()? {
            LiteralKind::String | LiteralKind::BareWord => {
                Some((KeyKind::String, l.string_value()?))
            }
            LiteralKind::Number => match ast::parse_number(l.token()?.text())? {
                ast::Number::Integer { value, .. } => Some((KeyKind::Integer, value.to_string())),
                ast::Number::Float(f) => Some((KeyKind::Float, ruby_float(f))),
                _ => None,
            },
            LiteralKind::True => Some((KeyKind::Boolean, "true".into())),
            LiteralKind::False => Some((KeyKind::Boolean, "false".into())),
            _ => None,
        },
        Expr::String(s) if !s.is_interpolated() => Some((
            KeyKind::String,
            s.parts()
                .filter_map(|p| match p {
                    ast::StringPart::Text(t) => Some(ast::unescape_dq(t.text(), ast::DQ_ESCAPES)),
                    _ => None,
                })
                .collect(),
        )),
        Expr::Name(n) => Some((KeyKind::String, n.text())),
        _ => None,
    }
}

/// A float as Ruby's `Float#to_s` prints it in the common cases (`1.0`, `0.5`, `1.0e+20`).
fn ruby_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

/// `'%#+x'` of an overflowing integer literal, as Puppet prints it.
fn overflow_hex(text: &str) -> String {
    // Decimal, octal or hex text of a non-negative number too big for i64.
    let (digits, radix) =
        if let Some(h) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            (h, 16)
        } else if text.len() > 1 && text.starts_with('0') {
            (&text[1..], 8)
        } else {
            (text, 10)
        };
    // Arbitrary precision: base conversion on a digit vector (little endian, base 16).
    let mut out: Vec<u32> = vec![0];
    for c in digits.chars() {
        let d = c.to_digit(radix).unwrap_or(0);
        let mut carry = d;
        for x in out.iter_mut() {
            let v = *x * radix + carry;
            *x = v % 16;
            carry = v / 16;
        }
        while carry > 0 {
            out.push(carry % 16);
            carry /= 16;
        }
    }
    while out.len() > 1 && out.last() == Some(&0) {
        out.pop();
    }
    let hex: String = out
        .iter()
        .rev()
        .map(|d| std::char::from_digit(*d, 16).unwrap_or('0'))
        .collect();
    format!("+0x{hex}")
}

/// What contains a definition, for Puppet's "only at top level" rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// A block of several statements.
    Block,
    /// A class body.
    Class,
    /// Any other expression.
    Other,
}
