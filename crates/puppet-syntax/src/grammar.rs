//! The Puppet grammar, as recursive descent with a Pratt loop for operators.
//!
//! It follows Puppet 7's `egrammar.ra`: the levels statement > assignment > relationship >
//! resource > expression, operator precedences and associativity as declared there, and the
//! places where only an `expression` (no assignment, no resource) may appear. Semantic
//! rewrites Puppet does while parsing (statement calls without parentheses, untitled resource
//! bodies) are recognised here structurally; what they mean is left to the typed AST.

use crate::parser::{CompletedMarker, Parser};
use crate::SyntaxKind::{self, *};

/// Names that Puppet calls as functions when followed by arguments without parentheses.
pub(crate) const STATEMENT_CALLS: &[&str] = &[
    "require", "realize", "include", "contain", "tag", "debug", "info", "notice", "warning", "err",
    "fail", "import", "break", "next", "return",
];

/// Entry point: a manifest.
pub(crate) fn source_file(p: &mut Parser) {
    statements(p, false);
    while !p.at_eof() {
        // Stray closing braces and the like at the top level.
        p.err_and_bump();
        statements(p, false);
    }
}

/// Entry point: an EPP template.
pub(crate) fn epp_file(p: &mut Parser) {
    if p.at(PIPE) {
        let m = p.start();
        param_list_in_pipes(p);
        m.complete(p, EPP_PARAMS);
    }
    source_file(p);
}

/// Entry point: a single expression (also used for type expressions).
pub(crate) fn expression_root(p: &mut Parser) {
    if !p.at_eof() {
        assignment(p);
    }
    while !p.at_eof() {
        p.err_and_bump();
    }
}

/// Entry point: the content of an interpolating heredoc: text, variables and `${...}`.
pub(crate) fn interpolated_text(p: &mut Parser) {
    let m = p.start();
    while !p.at_eof() {
        string_part(p);
    }
    m.complete(p, STRING_EXPR);
}

fn at_statement_end(p: &mut Parser, in_block: bool) -> bool {
    p.at_eof() || (in_block && p.at(R_BRACE))
}

/// `statements`: a sequence of statements, optionally separated by one `;`. As in Puppet's
/// grammar a `;` must stand between two statements: a leading, doubled or trailing `;` is a
/// syntax error (`$x = 1;` at the end of a block or file is one).
pub(crate) fn statements(p: &mut Parser, in_block: bool) {
    let mut after_semi = false;
    loop {
        if p.at(SEMI) {
            // Report the stray `;` and keep it as a plain token.
            p.error_here();
            p.bump();
            after_semi = true;
            continue;
        }
        if at_statement_end(p, in_block) {
            if after_semi {
                p.error_here();
            }
            break;
        }
        if p.at(R_BRACE) || p.at(R_PAREN) || p.at(R_BRACK) {
            // Only reachable at the top level: let the caller report it.
            if !in_block {
                break;
            }
        }
        after_semi = false;
        if !can_start_expression(p.current()) {
            p.err_and_bump();
            continue;
        }
        statement(p);
        if p.eat(SEMI) {
            after_semi = true;
        }
    }
}

/// One statement: an assignment, or a statement call `name arg, arg`.
fn statement(p: &mut Parser) {
    let Some(first) = assignment(p) else {
        return;
    };
    let is_stmt_call = first.kind() == NAME_EXPR && {
        let text = p_prev_name_text(p);
        STATEMENT_CALLS.contains(&text.as_str())
    };
    if is_stmt_call && can_start_expression(p.current()) && !p.at(R_BRACE) {
        let m = first.precede(p);
        let args = p.start();
        assignment(p);
        while p.at(COMMA) {
            p.bump();
            if can_start_expression(p.current()) {
                assignment(p);
            } else {
                p.error_here();
                break;
            }
        }
        args.complete(p, ARG_LIST);
        m.complete(p, CALL_EXPR);
    } else if p.at(COMMA) {
        // `a, b` at the statement level is only valid after a statement call name.
        if first.kind() == NAME_EXPR {
            let name = p_prev_name_text(p);
            p.error(
                "SYNTAX_ERROR",
                format!("attempt to pass argument list to the function '{name}' which cannot be called without parentheses"),
            );
        } else {
            p.error("SYNTAX_ERROR", "illegal comma separated argument list");
        }
        let m = first.precede(p);
        while p.eat(COMMA) {
            if can_start_expression(p.current()) {
                assignment(p);
            }
        }
        m.complete(p, ERROR);
    }
}

/// The text of the name just parsed as a lone NAME_EXPR (the previous token).
fn p_prev_name_text(p: &Parser) -> String {
    p.prev_text().to_string()
}

/// Can this token start an expression (and so a statement or an argument)?
pub(crate) fn can_start_expression(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        VARIABLE
            | NUMBER
            | TRUE_KW
            | FALSE_KW
            | UNDEF_KW
            | DEFAULT_KW
            | REGEX
            | SQ_STRING
            | BARE_WORD
            | DQUOTE
            | HEREDOC_HEADER
            | NAME
            | TYPE_NAME
            | LIST_START
            | L_BRACK
            | L_BRACE
            | L_PAREN
            | WS_L_PAREN
            | IF_KW
            | UNLESS_KW
            | CASE_KW
            | CLASS_KW
            | DEFINE_KW
            | NODE_KW
            | FUNCTION_KW
            | TYPE_KW
            | PRIVATE_KW
            | ATTR_KW
            | PLAN_KW
            | APPLY_KW
            | MINUS
            | BANG
            | STAR
            | AT
            | ATAT
            | EPP_TEXT
            | EPP_RENDER_OPEN
    )
}

/// `assignment`: `relationship (= | += | -=) assignment`, right associative.
pub(crate) fn assignment(p: &mut Parser) -> Option<CompletedMarker> {
    if !p.enter() {
        skip_rest(p);
        return None;
    }
    let lhs = relationship(p);
    let result = match lhs {
        Some(lhs) if matches!(p.current(), EQ | PLUS_EQ | MINUS_EQ) => {
            let m = lhs.precede(p);
            p.bump();
            if can_start_expression(p.current()) {
                assignment(p);
            } else {
                p.error_here();
            }
            Some(m.complete(p, ASSIGN_EXPR))
        }
        other => other,
    };
    p.leave();
    result
}

/// After the nesting limit: swallow everything into an error node so no deeper parsing happens.
fn skip_rest(p: &mut Parser) {
    let m = p.start();
    while !p.at_eof() {
        p.bump();
    }
    m.complete(p, ERROR);
}

/// `relationship`: `resource ((-> | ~> | <- | <~) resource)*`, left associative.
fn relationship(p: &mut Parser) -> Option<CompletedMarker> {
    let mut lhs = resource(p)?;
    let mut chain = 0;
    while matches!(p.current(), IN_EDGE | IN_EDGE_SUB | OUT_EDGE | OUT_EDGE_SUB) {
        chain += 1;
        if chain > crate::parser::NESTING_LIMIT {
            p.error("NESTING_TOO_DEEP", "Relationship chain is too long");
            skip_rest(p);
            break;
        }
        let m = lhs.precede(p);
        p.bump();
        if can_start_expression(p.current()) {
            resource(p);
        } else {
            p.error_here();
        }
        lhs = m.complete(p, RELATIONSHIP_EXPR);
    }
    Some(lhs)
}

/// `resource`: an expression, optionally `@`/`@@`-prefixed, optionally followed by a resource
/// body block `{ ... }`.
fn resource(p: &mut Parser) -> Option<CompletedMarker> {
    if p.at(AT) || p.at(ATAT) {
        let m = p.start();
        // Puppet reports a misplaced `@`/`@@` at the sign, known only once what follows
        // has been parsed.
        let at = Virtual {
            slot: p.reserve_error(),
            message: if p.at(AT) {
                "Virtual (@) can only be applied to a Resource Expression"
            } else {
                "Exported (@@) can only be applied to a Resource Expression"
            },
        };
        p.bump();
        if p.at(CLASS_KW) && p.nth(1) == L_BRACE {
            class_resource(p, m);
            return None;
        }
        let lhs = if can_start_expression(p.current()) && !p.at(AT) && !p.at(ATAT) {
            expr(p, 0)
        } else {
            None
        };
        match lhs {
            Some(lhs) if p.at(L_BRACE) => return Some(resource_block(p, lhs, Some((m, at)))),
            _ => {
                p.error_at_reserved(at.slot, "SYNTAX_ERROR", at.message);
                return Some(m.complete(p, ERROR));
            }
        }
    }
    if p.at(CLASS_KW) && p.nth(1) == L_BRACE {
        let m = p.start();
        return Some(class_resource(p, m));
    }
    let lhs = expr(p, 0)?;
    if p.at(L_BRACE) {
        return Some(resource_block(p, lhs, None));
    }
    Some(lhs)
}

/// The `@`/`@@` before a resource expression: where its error goes, and which error.
struct Virtual {
    slot: usize,
    message: &'static str,
}

/// `class { 'x': ... }`, the current token being `class`.
fn class_resource(p: &mut Parser, m: crate::parser::Marker) -> CompletedMarker {
    let name = p.start();
    p.bump();
    name.complete(p, NAME_EXPR);
    p.bump(); // {
    resource_bodies(p);
    p.expect(R_BRACE);
    m.complete(p, RESOURCE_EXPR)
}

/// `LHS { ... }` after an expression: titled resource bodies, or attribute operations for
/// defaults, overrides and untitled bodies.
fn resource_block(
    p: &mut Parser,
    lhs: CompletedMarker,
    outer: Option<(crate::parser::Marker, Virtual)>,
) -> CompletedMarker {
    let (m, virtual_at) = match outer {
        Some((m, at)) => (m, Some(at)),
        None => (lhs.precede(p), None),
    };
    p.bump(); // {
    let untitled = p.at(R_BRACE)
        || p.at(COMMA)
        || (p.at(STAR) && p.nth(1) == FARROW)
        || (is_attribute_name(p.current()) && matches!(p.nth(1), FARROW | PARROW));
    if untitled {
        if let (Some(at), NAME_EXPR) = (&virtual_at, lhs.kind()) {
            p.error_at_reserved(at.slot, "SYNTAX_ERROR", at.message);
        }
        attribute_operations(p);
        p.expect(R_BRACE);
        let kind = match lhs.kind() {
            TYPE_REF => RESOURCE_DEFAULTS_EXPR,
            ACCESS_EXPR => RESOURCE_OVERRIDE_EXPR,
            _ => RESOURCE_EXPR,
        };
        if !matches!(lhs.kind(), TYPE_REF | ACCESS_EXPR | NAME_EXPR) {
            p.error(
                "SYNTAX_ERROR",
                "Expression is not valid as a resource, resource-default, or resource-override",
            );
        }
        return m.complete(p, kind);
    }
    resource_bodies(p);
    p.expect(R_BRACE);
    m.complete(p, RESOURCE_EXPR)
}

fn is_attribute_name(kind: SyntaxKind) -> bool {
    kind == NAME || kind.is_keyword()
}

/// `title: attrs; title: attrs;`
fn resource_bodies(p: &mut Parser) {
    loop {
        if p.at(R_BRACE) || p.at_eof() {
            break;
        }
        let body = p.start();
        if can_start_expression(p.current()) {
            expr(p, 0);
        } else {
            p.error_here();
        }
        if !p.eat(COLON) {
            p.error_here();
            // Recover: skip to the end of the block.
            while !p.at(R_BRACE) && !p.at_eof() && !p.at(SEMI) {
                if p.at(L_BRACE) {
                    balanced(p);
                } else {
                    p.bump();
                }
            }
            body.complete(p, RESOURCE_BODY);
            if !p.eat(SEMI) {
                break;
            }
            continue;
        }
        attribute_operations(p);
        body.complete(p, RESOURCE_BODY);
        if !p.eat(SEMI) {
            break;
        }
    }
}

/// Skips a balanced `{ ... }` group (error recovery).
fn balanced(p: &mut Parser) {
    let mut depth = 0u32;
    loop {
        match p.current() {
            L_BRACE | SEL_BRACE => depth += 1,
            R_BRACE => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    p.bump();
                    return;
                }
            }
            __LAST_TOKEN => return,
            _ => {}
        }
        p.bump();
    }
}

/// `name => expr, name +> expr, * => expr` with an optional trailing comma.
fn attribute_operations(p: &mut Parser) {
    // Puppet's grammar starts the list with an empty one (`attribute_operations :
    // /* empty */ | ... | attribute_operations COMMA attribute_operation`), so one comma may
    // come first: `title: , }` and `title:, message => x`.
    if p.at(COMMA) {
        p.bump();
        if matches!(p.current(), R_BRACE | SEMI) {
            return;
        }
    }
    loop {
        if p.at(R_BRACE) || p.at(SEMI) || p.at_eof() {
            break;
        }
        let m = p.start();
        if p.at(STAR) && p.nth(1) == FARROW {
            p.bump();
            p.bump();
            if can_start_expression(p.current()) {
                expr(p, 0);
            } else {
                p.error_here();
            }
            m.complete(p, ATTRIBUTES_OP);
        } else if is_attribute_name(p.current()) && matches!(p.nth(1), FARROW | PARROW) {
            p.bump();
            p.bump();
            if can_start_expression(p.current()) {
                expr(p, 0);
            } else {
                p.error_here();
            }
            m.complete(p, ATTRIBUTE_OP);
        } else {
            // Puppet's parser takes an attribute name (or `*`) and fails at what follows
            // it when that is no arrow: `owner = 'root'` is a syntax error at '='.
            if is_attribute_name(p.current()) || p.at(STAR) {
                p.bump();
            }
            p.error_here();
            // Recover to the next comma or the end of the body.
            while !matches!(p.current(), COMMA | SEMI | R_BRACE | __LAST_TOKEN) {
                if p.at(L_BRACE) {
                    balanced(p);
                } else {
                    p.bump();
                }
            }
            m.complete(p, ERROR);
        }
        if !p.eat(COMMA) {
            break;
        }
    }
}

// ---- expressions (Pratt) ----

/// Binding power of an infix operator: (left, right). Higher binds tighter.
fn infix_bp(kind: SyntaxKind) -> Option<(u8, u8)> {
    Some(match kind {
        OR_KW => (1, 2),
        AND_KW => (3, 4),
        QMARK => (5, 6),
        GT | GTEQ | LT | LTEQ => (7, 8),
        EQ2 | NEQ => (9, 10),
        LSHIFT | RSHIFT => (11, 12),
        PLUS | MINUS => (13, 14),
        STAR | SLASH | PERCENT => (15, 16),
        MATCH | NOMATCH => (17, 18),
        IN_KW => (19, 20),
        _ => return None,
    })
}

/// Binding power of the operand of a prefix operator: only postfix operators bind tighter.
const PREFIX_BP: u8 = 21;

/// `expression` with operators binding at least `min_bp`.
pub(crate) fn expr(p: &mut Parser, min_bp: u8) -> Option<CompletedMarker> {
    if !p.enter() {
        skip_rest(p);
        return None;
    }
    let r = expr_inner(p, min_bp);
    p.leave();
    r
}

fn expr_inner(p: &mut Parser, min_bp: u8) -> Option<CompletedMarker> {
    let mut lhs = prefix(p)?;
    let mut chain = 0u32;
    loop {
        chain += 1;
        if chain > crate::parser::NESTING_LIMIT * 4 {
            p.error("NESTING_TOO_DEEP", "Expression is too long");
            skip_rest(p);
            return Some(lhs);
        }
        let kind = p.current();
        // Postfix operators bind tightest.
        match kind {
            L_BRACK => {
                let m = lhs.precede(p);
                p.bump();
                access_args(p);
                p.expect(R_BRACK);
                lhs = m.complete(p, ACCESS_EXPR);
                continue;
            }
            DOT => {
                lhs = method_call(p, lhs);
                continue;
            }
            L_PAREN => {
                lhs = call(p, lhs);
                continue;
            }
            LCOLLECT | LLCOLLECT => {
                lhs = collector(p, lhs);
                continue;
            }
            _ => {}
        }
        let Some((l_bp, r_bp)) = infix_bp(kind) else {
            break;
        };
        if l_bp < min_bp {
            break;
        }
        let m = lhs.precede(p);
        p.bump();
        if kind == QMARK {
            selector_entries(p);
            lhs = m.complete(p, SELECTOR_EXPR);
            continue;
        }
        if can_start_expression(p.current()) {
            expr(p, r_bp);
        } else {
            p.error_here();
        }
        lhs = m.complete(p, BINARY_EXPR);
    }
    Some(lhs)
}

fn prefix(p: &mut Parser) -> Option<CompletedMarker> {
    // The first word of `${...}` names a variable when it stands alone or is followed by
    // an access or a method call: `${x}`, `${x[1]}`, `${x.foo}`, `${3}`.
    if std::mem::take(&mut p.interp_first) {
        let k = p.current();
        if (matches!(k, NAME | NUMBER | BARE_WORD) || k.is_keyword())
            && matches!(p.nth(1), INTERP_END | L_BRACK | DOT)
        {
            let m = p.start();
            p.bump();
            return Some(m.complete(p, VARIABLE_EXPR));
        }
    }
    match p.current() {
        MINUS | BANG | STAR => {
            let m = p.start();
            p.bump();
            if can_start_expression(p.current()) {
                expr(p, PREFIX_BP);
            } else {
                p.error_here();
            }
            Some(m.complete(p, UNARY_EXPR))
        }
        _ => primary(p),
    }
}

fn selector_entries(p: &mut Parser) {
    if p.eat(SEL_BRACE) {
        loop {
            if p.at(R_BRACE) || p.at_eof() {
                break;
            }
            selector_entry(p);
            if !p.eat(COMMA) {
                break;
            }
        }
        p.expect(R_BRACE);
    } else {
        selector_entry(p);
    }
}

fn selector_entry(p: &mut Parser) {
    let m = p.start();
    if can_start_expression(p.current()) {
        expr(p, 0);
    } else {
        p.error_here();
    }
    if p.expect(FARROW) {
        if can_start_expression(p.current()) {
            expr(p, 0);
        } else {
            p.error_here();
        }
    }
    m.complete(p, SELECTOR_ENTRY);
}

/// `[a, b, k => v]` contents of an access (at least one).
fn access_args(p: &mut Parser) {
    if p.at(R_BRACK) {
        p.error_here();
        return;
    }
    loop {
        if p.at(R_BRACK) || p.at_eof() {
            break;
        }
        if !can_start_expression(p.current()) {
            p.error_here();
            break;
        }
        let e = expr(p, 0);
        if p.at(FARROW) {
            if let Some(e) = e {
                let m = e.precede(p);
                p.bump();
                if can_start_expression(p.current()) {
                    expr(p, 0);
                } else {
                    p.error_here();
                }
                m.complete(p, HASH_ENTRY);
            }
        }
        if !p.eat(COMMA) {
            break;
        }
    }
}

/// `expr . name (args)? lambda?`
fn method_call(p: &mut Parser, lhs: CompletedMarker) -> CompletedMarker {
    let m = lhs.precede(p);
    p.bump(); // .
    if p.at(NAME) || p.at(TYPE_KW) {
        let n = p.start();
        p.bump();
        n.complete(p, NAME_EXPR);
    } else {
        p.error_here();
        return m.complete(p, METHOD_CALL_EXPR);
    }
    if p.at(L_PAREN) {
        let args = p.start();
        p.bump();
        arguments(p, R_PAREN);
        p.expect(R_PAREN);
        args.complete(p, ARG_LIST);
    }
    if p.at(PIPE) {
        lambda(p);
    }
    m.complete(p, METHOD_CALL_EXPR)
}

/// `expr ( args ) lambda?`
fn call(p: &mut Parser, lhs: CompletedMarker) -> CompletedMarker {
    let m = lhs.precede(p);
    let args = p.start();
    p.bump(); // (
    arguments(p, R_PAREN);
    p.expect(R_PAREN);
    args.complete(p, ARG_LIST);
    if p.at(PIPE) {
        lambda(p);
    }
    m.complete(p, CALL_EXPR)
}

/// Comma-separated arguments: assignments or `k => v` pairs, with an optional trailing comma.
fn arguments(p: &mut Parser, close: SyntaxKind) {
    loop {
        if p.at(close) || p.at_eof() {
            break;
        }
        if !can_start_expression(p.current()) {
            p.error_here();
            while !p.at(close) && !p.at_eof() && !p.at(R_BRACE) {
                p.bump();
            }
            break;
        }
        argument(p);
        if !p.eat(COMMA) {
            break;
        }
    }
}

/// One argument or collection entry: an assignment or a `key => value` pair.
fn argument(p: &mut Parser) {
    let e = if matches!(p.current(), TYPE_KW | FUNCTION_KW)
        && matches!(p.nth(1), COMMA | R_BRACK | R_PAREN | FARROW)
    {
        keyword_literal(p)
    } else {
        assignment(p)
    };
    if p.at(FARROW) {
        if let Some(e) = e {
            let m = e.precede(p);
            p.bump();
            hash_value(p);
            m.complete(p, HASH_ENTRY);
        }
    }
}

/// `type` or `function` as a plain string in a collection.
fn keyword_literal(p: &mut Parser) -> Option<CompletedMarker> {
    let m = p.start();
    p.bump();
    Some(m.complete(p, LITERAL))
}

fn hash_value(p: &mut Parser) {
    if matches!(p.current(), TYPE_KW | FUNCTION_KW)
        && matches!(p.nth(1), COMMA | R_BRACE | R_BRACK | R_PAREN)
    {
        keyword_literal(p);
    } else if can_start_expression(p.current()) {
        assignment(p);
    } else {
        p.error_here();
    }
}

/// `expr <| query |> { attrs }?`
fn collector(p: &mut Parser, lhs: CompletedMarker) -> CompletedMarker {
    let m = lhs.precede(p);
    let q = p.start();
    let close = if p.at(LLCOLLECT) { RRCOLLECT } else { RCOLLECT };
    p.bump();
    if !p.at(close) {
        if can_start_expression(p.current()) {
            expr(p, 0);
        } else {
            p.error_here();
        }
    }
    p.expect(close);
    q.complete(p, COLLECT_QUERY);
    if p.at(L_BRACE) {
        p.bump();
        attribute_operations(p);
        p.expect(R_BRACE);
    }
    m.complete(p, COLLECT_EXPR)
}

/// `|params| >> Type { body }`
fn lambda(p: &mut Parser) {
    let m = p.start();
    param_list_in_pipes(p);
    if p.at(RSHIFT) {
        return_type(p);
    }
    block(p);
    m.complete(p, LAMBDA);
}

fn param_list_in_pipes(p: &mut Parser) {
    let m = p.start();
    p.expect(PIPE);
    loop {
        if p.at(PIPE) || p.at_eof() {
            break;
        }
        if !param(p) {
            break;
        }
        if !p.eat(COMMA) {
            break;
        }
    }
    p.expect(PIPE);
    m.complete(p, PARAM_LIST);
}

/// `( params )` of a class, define or function.
fn param_list_in_parens(p: &mut Parser) {
    let m = p.start();
    p.bump(); // ( or WS (
    loop {
        if p.at(R_PAREN) || p.at_eof() {
            break;
        }
        if !param(p) {
            break;
        }
        if !p.eat(COMMA) {
            break;
        }
    }
    p.expect(R_PAREN);
    m.complete(p, PARAM_LIST);
}

/// `Type[...]? *? $name (= default)?`; false when nothing parameter-like was found.
fn param(p: &mut Parser) -> bool {
    let m = p.start();
    if p.at(TYPE_NAME) {
        type_expr(p);
    }
    p.eat(STAR);
    if !p.eat(VARIABLE) {
        p.error_here();
        // Recover to the next comma or closing delimiter.
        while !matches!(p.current(), COMMA | R_PAREN | PIPE | L_BRACE | __LAST_TOKEN) {
            p.bump();
        }
        m.complete(p, PARAM);
        return p.at(COMMA);
    }
    if p.eat(EQ) {
        if can_start_expression(p.current()) {
            expr(p, 0);
        } else {
            p.error_here();
        }
    }
    m.complete(p, PARAM);
    true
}

/// `TypeName` or `TypeName[args]` (a parameter type or return type).
fn type_expr(p: &mut Parser) -> Option<CompletedMarker> {
    let m = p.start();
    p.bump();
    let mut t = m.complete(p, TYPE_REF);
    if p.at(L_BRACK) {
        let a = t.precede(p);
        p.bump();
        access_args(p);
        p.expect(R_BRACK);
        t = a.complete(p, ACCESS_EXPR);
    }
    Some(t)
}

fn return_type(p: &mut Parser) {
    let m = p.start();
    p.bump(); // >>
    if p.at(TYPE_NAME) {
        type_expr(p);
    } else {
        p.error_here();
    }
    m.complete(p, RETURN_TYPE);
}

/// `{ statements }`
fn block(p: &mut Parser) {
    let m = p.start();
    if p.expect(L_BRACE) {
        statements(p, true);
        p.expect(R_BRACE);
    }
    m.complete(p, BLOCK);
}

// ---- primaries ----

fn primary(p: &mut Parser) -> Option<CompletedMarker> {
    let m = p.start();
    let kind = match p.current() {
        VARIABLE => {
            p.bump();
            VARIABLE_EXPR
        }
        NUMBER | TRUE_KW | FALSE_KW | UNDEF_KW | DEFAULT_KW | REGEX | SQ_STRING | BARE_WORD => {
            p.bump();
            LITERAL
        }
        NAME => {
            p.bump();
            NAME_EXPR
        }
        TYPE_NAME => {
            p.bump();
            TYPE_REF
        }
        PRIVATE_KW | ATTR_KW => {
            p.bump();
            RESERVED_WORD
        }
        DQUOTE => {
            dq_string(p);
            STRING_EXPR
        }
        HEREDOC_HEADER => {
            p.bump();
            HEREDOC_EXPR
        }
        LIST_START | L_BRACK => {
            p.bump();
            arguments(p, R_BRACK);
            p.expect(R_BRACK);
            ARRAY_EXPR
        }
        L_BRACE => {
            p.bump();
            hash_entries(p);
            p.expect(R_BRACE);
            HASH_EXPR
        }
        L_PAREN | WS_L_PAREN => {
            p.bump();
            if can_start_expression(p.current()) {
                assignment(p);
            } else {
                p.error_here();
            }
            p.expect(R_PAREN);
            PAREN_EXPR
        }
        IF_KW => {
            p.bump();
            if_rest(p);
            IF_EXPR
        }
        UNLESS_KW => {
            p.bump();
            cond_and_block(p);
            if p.at(ELSIF_KW) {
                p.error_here();
            }
            if p.at(ELSE_KW) {
                let e = p.start();
                p.bump();
                block(p);
                e.complete(p, ELSE_CLAUSE);
            }
            UNLESS_EXPR
        }
        CASE_KW => {
            p.bump();
            case_rest(p);
            CASE_EXPR
        }
        CLASS_KW => {
            p.bump();
            definition_name(p);
            if p.at(L_PAREN) || p.at(WS_L_PAREN) {
                param_list_in_parens(p);
            }
            if p.at(INHERITS_KW) {
                let i = p.start();
                p.bump();
                if matches!(p.current(), NAME | BARE_WORD | TYPE_NAME | DEFAULT_KW) {
                    p.bump();
                } else {
                    p.error_here();
                }
                i.complete(p, INHERITS_CLAUSE);
            }
            block(p);
            CLASS_DEF
        }
        DEFINE_KW => {
            p.bump();
            definition_name(p);
            if p.at(L_PAREN) || p.at(WS_L_PAREN) {
                param_list_in_parens(p);
            }
            block(p);
            DEFINE_DEF
        }
        FUNCTION_KW => {
            p.bump();
            definition_name(p);
            if p.at(L_PAREN) || p.at(WS_L_PAREN) {
                param_list_in_parens(p);
            }
            if p.at(RSHIFT) {
                return_type(p);
            }
            block(p);
            FUNCTION_DEF
        }
        // Tasks mode only (the lexer makes these keywords then).
        PLAN_KW => {
            p.bump();
            definition_name(p);
            if p.at(L_PAREN) || p.at(WS_L_PAREN) {
                param_list_in_parens(p);
            }
            block(p);
            PLAN_DEF
        }
        APPLY_KW => {
            p.bump();
            p.expect(L_PAREN);
            arguments(p, R_PAREN);
            p.expect(R_PAREN);
            block(p);
            APPLY_EXPR
        }
        NODE_KW => {
            p.bump();
            node_rest(p);
            NODE_DEF
        }
        TYPE_KW => {
            if p.nth(1) == L_PAREN {
                // `type(...)`: a call of the function `type`.
                p.bump();
                let n = m.complete(p, NAME_EXPR);
                return Some(call(p, n));
            }
            p.bump();
            return Some(type_definition_rest(p, m));
        }
        EPP_TEXT => {
            p.bump();
            EPP_RENDER_TEXT
        }
        EPP_RENDER_OPEN => {
            p.bump();
            if p.at(L_BRACE) {
                block(p);
            } else if can_start_expression(p.current()) {
                expr(p, 0);
            } else {
                p.error_here();
            }
            if !p.eat(EPP_CLOSE) && !p.eat(EPP_CLOSE_TRIM) {
                p.error_here();
            }
            EPP_RENDER_EXPR
        }
        _ => {
            p.error_here();
            if !p.at_eof() {
                p.bump();
            }
            m.complete(p, ERROR);
            return None;
        }
    };
    Some(m.complete(p, kind))
}

/// The name of a class, define or function.
fn definition_name(p: &mut Parser) {
    match p.current() {
        NAME | BARE_WORD | TYPE_NAME => p.bump(),
        CLASS_KW => {
            p.error(
                "SYNTAX_ERROR",
                "'class' keyword not allowed at this location",
            );
            p.bump();
        }
        SQ_STRING => {
            p.error(
                "SYNTAX_ERROR",
                "A quoted string is not valid as a name here",
            );
            p.bump();
        }
        k if k.is_keyword() => {
            p.error_here();
            p.bump();
        }
        _ => p.error_here(),
    }
}

fn cond_and_block(p: &mut Parser) {
    if can_start_expression(p.current()) {
        expr(p, 0);
    } else {
        p.error_here();
    }
    block(p);
}

fn if_rest(p: &mut Parser) {
    cond_and_block(p);
    match p.current() {
        ELSIF_KW => {
            let e = p.start();
            p.bump();
            if_rest(p);
            e.complete(p, ELSIF_CLAUSE);
        }
        ELSE_KW => {
            let e = p.start();
            p.bump();
            block(p);
            e.complete(p, ELSE_CLAUSE);
        }
        _ => {}
    }
}

fn case_rest(p: &mut Parser) {
    if can_start_expression(p.current()) {
        expr(p, 0);
    } else {
        p.error_here();
    }
    if !p.expect(L_BRACE) {
        return;
    }
    let mut any = false;
    loop {
        if p.at(R_BRACE) || p.at_eof() {
            break;
        }
        let o = p.start();
        // options: expression (, expression)* :
        loop {
            if can_start_expression(p.current()) {
                expr(p, 0);
            } else {
                p.error_here();
                break;
            }
            if !p.eat(COMMA) {
                break;
            }
        }
        if p.expect(COLON) {
            block(p);
        } else {
            while !matches!(p.current(), R_BRACE | __LAST_TOKEN | L_BRACE) {
                p.bump();
            }
            if p.at(L_BRACE) {
                block(p);
            }
        }
        o.complete(p, CASE_OPTION);
        any = true;
    }
    if !any {
        p.error_here();
    }
    p.expect(R_BRACE);
}

fn node_rest(p: &mut Parser) {
    loop {
        host_match(p);
        if !p.eat(COMMA) {
            break;
        }
        if p.at(L_BRACE) || p.at(INHERITS_KW) {
            break;
        }
    }
    if p.at(INHERITS_KW) {
        let i = p.start();
        p.bump();
        host_match(p);
        i.complete(p, INHERITS_CLAUSE);
    }
    block(p);
}

fn host_match(p: &mut Parser) {
    let m = p.start();
    match p.current() {
        NAME | NUMBER => {
            p.bump();
            while p.at(DOT) && matches!(p.nth(1), NAME | NUMBER) {
                p.bump();
                p.bump();
            }
        }
        SQ_STRING | BARE_WORD | DEFAULT_KW | REGEX | HEREDOC_HEADER => p.bump(),
        DQUOTE => {
            let s = p.start();
            dq_string(p);
            s.complete(p, STRING_EXPR);
        }
        _ => p.error_here(),
    }
    m.complete(p, HOST_MATCH);
}

/// After `type`: an alias `type T = ...` or a definition `type T inherits U { }`.
fn type_definition_rest(p: &mut Parser, m: crate::parser::Marker) -> CompletedMarker {
    if !p.at(TYPE_NAME) {
        p.error_here();
        return m.complete(p, TYPE_ALIAS);
    }
    if p.nth(1) == L_BRACE || p.nth(1) == INHERITS_KW {
        p.bump();
        if p.eat(INHERITS_KW) {
            p.expect(TYPE_NAME);
        }
        block(p);
        return m.complete(p, TYPE_DEFINITION);
    }
    type_expr(p);
    if p.expect(EQ) {
        if matches!(p.current(), TYPE_NAME | L_BRACE | LIST_START | L_BRACK) {
            // The right side is a type (possibly with parameters), a hash or an array.
            let rhs = if p.at(TYPE_NAME) {
                type_expr(p)
            } else {
                primary(p)
            };
            // `Object { ... }`: a type followed by a hash.
            if let Some(rhs) = rhs {
                if rhs.kind() == TYPE_REF && p.at(L_BRACE) {
                    let e = rhs.precede(p);
                    let h = p.start();
                    p.bump();
                    hash_entries(p);
                    p.expect(R_BRACE);
                    h.complete(p, HASH_EXPR);
                    e.complete(p, HASH_ENTRY);
                }
            }
        } else {
            p.error_here();
        }
    }
    m.complete(p, TYPE_ALIAS)
}

fn hash_entries(p: &mut Parser) {
    loop {
        if p.at(R_BRACE) || p.at_eof() {
            break;
        }
        let m = p.start();
        if matches!(p.current(), TYPE_KW | FUNCTION_KW) && p.nth(1) == FARROW {
            keyword_literal(p);
        } else if can_start_expression(p.current()) {
            assignment(p);
        } else {
            p.error_here();
            while !matches!(p.current(), COMMA | R_BRACE | __LAST_TOKEN) {
                p.bump();
            }
            m.complete(p, ERROR);
            if !p.eat(COMMA) {
                break;
            }
            continue;
        }
        if p.expect(FARROW) {
            hash_value(p);
        }
        m.complete(p, HASH_ENTRY);
        if !p.eat(COMMA) {
            break;
        }
    }
}

/// `"text ${expr} $var text"`: the opening quote is the current token.
fn dq_string(p: &mut Parser) {
    p.bump(); // "
    loop {
        match p.current() {
            DQUOTE => {
                p.bump();
                return;
            }
            __LAST_TOKEN => return,
            _ => string_part(p),
        }
    }
}

/// One part of an interpolated string: text, `$var`, or `${ expr }`.
fn string_part(p: &mut Parser) {
    match p.current() {
        STRING_TEXT => p.bump(),
        VARIABLE => {
            let m = p.start();
            p.bump();
            m.complete(p, VARIABLE_EXPR);
        }
        INTERP_START => {
            let m = p.start();
            p.bump();
            if !p.at(INTERP_END) {
                if can_start_expression(p.current()) || p.current().is_keyword() {
                    p.interp_first = true;
                    assignment(p);
                    p.interp_first = false;
                    // Anything else before the closing brace is an error.
                    while !p.at(INTERP_END) && !p.at_eof() && !p.at(DQUOTE) {
                        p.err_and_bump();
                    }
                } else {
                    p.error_here();
                    while !p.at(INTERP_END) && !p.at_eof() && !p.at(DQUOTE) {
                        p.bump();
                    }
                }
            }
            p.expect(INTERP_END);
            m.complete(p, INTERPOLATION);
        }
        _ => p.err_and_bump(),
    }
}
