//! The typed AST's lookups and the flat tree's views, checked against plain cursor walks on
//! every node of a rowan tree.
//!
//! `ast::trimmed_range` and the child/token lookups of the typed AST work on the green tree
//! and only make a cursor for what they return; `green::Node` reads the flat tree that the
//! compile path builds instead of a rowan tree (`puppet_syntax::flat`, replaying the same
//! parser events). Here the flat tree of a text must equal the rowan tree of the same text
//! replayed into the flat form (same nodes, tokens, ranges and diagnostics), and each lookup
//! is compared, node by node, with the obvious walk over rowan's red cursors
//! (`first_token`/`next_token`, `children`, `children_with_tokens`), heredoc bodies with the
//! typed AST's, on the dump fixtures, on the conformance sources and the installed modules
//! when present, on hand-picked broken input and on random text glued from Puppet fragments.
//! This is a test of agreement, not of what the trees look like (the dump fixtures do that).

use std::path::Path;

mod common;

use proptest::prelude::*;
use puppet_syntax::ast::{self, AstNode, Expr};
use puppet_syntax::flat::FlatParse;
use puppet_syntax::green::{self, Node};
use puppet_syntax::{Parse, SyntaxKind, SyntaxNode, SyntaxToken, TextRange};
use std::sync::Arc;

/// The trimmed range as a walk over red cursors computes it.
fn cursor_trimmed_range(node: &SyntaxNode) -> TextRange {
    let full = node.text_range();
    let mut first = node.first_token();
    while let Some(t) = &first {
        if !t.kind().is_trivia() || t.text_range().start() >= full.end() {
            break;
        }
        first = t.next_token();
    }
    let mut last = node.last_token();
    while let Some(t) = &last {
        if !t.kind().is_trivia() || t.text_range().end() <= full.start() {
            break;
        }
        last = t.prev_token();
    }
    match (first, last) {
        (Some(f), Some(l))
            if f.text_range().start() < l.text_range().end()
                && !f.kind().is_trivia()
                && full.contains_range(TextRange::new(
                    f.text_range().start(),
                    l.text_range().end(),
                )) =>
        {
            TextRange::new(f.text_range().start(), l.text_range().end())
        }
        _ => full,
    }
}

fn cursor_exprs(node: &SyntaxNode) -> Vec<Expr> {
    node.children().filter_map(Expr::cast).collect()
}

fn cursor_tokens(node: &SyntaxNode) -> Vec<SyntaxToken> {
    node.children_with_tokens()
        .filter_map(|e| e.into_token())
        .collect()
}

fn cursor_first_significant(node: &SyntaxNode) -> Option<SyntaxToken> {
    cursor_tokens(node)
        .into_iter()
        .find(|t| !t.kind().is_trivia())
}

fn cursor_operator(node: &SyntaxNode) -> Option<SyntaxToken> {
    node.children_with_tokens()
        .skip_while(|e| e.as_token().is_some_and(|t| t.kind().is_trivia()))
        .skip(1)
        .filter_map(|e| e.into_token())
        .find(|t| !t.kind().is_trivia())
}

fn red(t: Option<SyntaxToken>) -> Option<(SyntaxKind, TextRange)> {
    t.map(|t| (t.kind(), t.text_range()))
}

fn grn(t: Option<green::Token<'_>>) -> Option<(SyntaxKind, TextRange)> {
    t.map(|t| (t.kind(), t.text_range()))
}

/// A heredoc body as the typed AST or the flat view finds it: token range, text, errors,
/// and the debug tree of an interpolating body's parse.
fn heredoc_red(r: &SyntaxNode) -> Option<String> {
    let b = ast::HeredocExpr::cast(r.clone())?.body()?;
    let parse = b.parse.as_ref().map(|p| {
        let text: Arc<str> = Arc::from(p.syntax().to_string());
        FlatParse::from_parse(&text, p)
    });
    Some(format!(
        "{:?} {:?} {:?} {:?}",
        b.token.map(|t| t.text_range()),
        b.text,
        b.errors,
        parse
    ))
}

fn heredoc_flat(g: Node<'_>) -> Option<String> {
    if g.kind() != SyntaxKind::HEREDOC_EXPR {
        return None;
    }
    let b = g.heredoc_body()?;
    Some(format!(
        "{:?} {:?} {:?} {:?}",
        b.token.map(|t| t.text_range()),
        b.text,
        b.errors,
        b.parse
    ))
}

/// Compares the flat view of `g` (and its subtree) with the red node `r`.
fn green_disagreement(r: &SyntaxNode, g: Node<'_>) -> Option<String> {
    let at = format!("{:?}@{:?}", r.kind(), r.text_range());
    let checks = [
        ("kind", format!("{:?}", r.kind()), format!("{:?}", g.kind())),
        (
            "range",
            format!("{:?}", r.text_range()),
            format!("{:?}", g.text_range()),
        ),
        (
            "trimmed range",
            format!("{:?}", cursor_trimmed_range(r)),
            format!("{:?}", g.trimmed_range()),
        ),
        (
            "first significant token",
            format!("{:?}", red(cursor_first_significant(r))),
            format!("{:?}", grn(g.first_significant_token())),
        ),
        (
            "operator",
            format!("{:?}", red(cursor_operator(r))),
            format!("{:?}", grn(g.operator_token())),
        ),
        (
            "first token",
            format!("{:?}", red(r.first_token())),
            format!("{:?}", grn(g.first_token())),
        ),
        (
            "expressions",
            format!(
                "{:?}",
                cursor_exprs(r)
                    .iter()
                    .map(|e| e.syntax().text_range())
                    .collect::<Vec<_>>()
            ),
            format!(
                "{:?}",
                g.exprs().map(|e| e.text_range()).collect::<Vec<_>>()
            ),
        ),
        (
            "second expression",
            format!(
                "{:?}",
                cursor_exprs(r).get(1).map(|e| e.syntax().text_range())
            ),
            format!("{:?}", g.nth_expr(1).map(|e| e.text_range())),
        ),
        ("text", r.text().to_string(), g.text().to_string()),
        (
            "heredoc body",
            format!("{:?}", heredoc_red(r)),
            format!("{:?}", heredoc_flat(g)),
        ),
    ];
    for (what, want, got) in checks {
        if want != got {
            return Some(format!("{at}: green {what} {got}, cursor walk {want}"));
        }
    }
    for t in cursor_tokens(r) {
        let want = red(cursor_tokens(r).into_iter().find(|u| u.kind() == t.kind()));
        let got = grn(g.token(t.kind()));
        if want != got {
            return Some(format!("{at}: green token {got:?}, cursor walk {want:?}"));
        }
    }
    let reds: Vec<SyntaxNode> = r.children().collect();
    let greens: Vec<Node<'_>> = g.children().collect();
    if reds.len() != greens.len() {
        return Some(format!(
            "{at}: {} green children, {} red",
            greens.len(),
            reds.len()
        ));
    }
    reds.iter()
        .zip(greens)
        .find_map(|(r, g)| green_disagreement(r, g))
}

/// Compares the flat tree `flat` of a text with its rowan tree `parse`, and every lookup on
/// every node of `parse`; the first disagreement, if any.
fn disagreement(parse: &Parse, flat: &FlatParse) -> Option<String> {
    let root = parse.syntax();
    let text: Arc<str> = Arc::from(root.to_string());
    if *flat != FlatParse::from_parse(&text, parse) {
        return Some(format!(
            "the flat tree differs from the rowan tree:\n{flat:#?}\n{:#?}",
            FlatParse::from_parse(&text, parse)
        ));
    }
    if flat.errors() != parse.errors() {
        return Some(format!(
            "diagnostics {:?}, rowan {:?}",
            flat.errors(),
            parse.errors()
        ));
    }
    if let Some(d) = green_disagreement(&root, Node::root(flat)) {
        return Some(d);
    }
    let descendants: Vec<_> = root
        .descendants()
        .map(|n| (n.kind(), n.text_range()))
        .collect();
    let flat_descendants: Vec<_> = Node::root(flat)
        .descendants()
        .map(|n| (n.kind(), n.text_range()))
        .collect();
    if descendants != flat_descendants {
        return Some(format!(
            "descendants {flat_descendants:?}, rowan {descendants:?}"
        ));
    }
    for node in parse.syntax().descendants() {
        let at = format!("{:?}@{:?}", node.kind(), node.text_range());
        let range = ast::trimmed_range(&node);
        let want = cursor_trimmed_range(&node);
        if range != want {
            return Some(format!(
                "{at}: trimmed range {range:?}, cursor walk {want:?}"
            ));
        }
        let exprs = cursor_exprs(&node);
        let Some(e) = Expr::cast(node.clone()) else {
            continue;
        };
        let (got, want): (Option<SyntaxToken>, Option<SyntaxToken>) = match &e {
            Expr::Binary(b) => (b.op(), cursor_operator(&node)),
            Expr::Assign(a) => (a.op(), cursor_operator(&node)),
            Expr::Relationship(r) => (r.op(), cursor_operator(&node)),
            Expr::Unary(u) => (u.op(), cursor_first_significant(&node)),
            Expr::Literal(l) => (l.token(), cursor_first_significant(&node)),
            Expr::Variable(v) => (v.token(), cursor_first_significant(&node)),
            _ => (None, None),
        };
        if got != want {
            return Some(format!("{at}: token {got:?}, cursor walk {want:?}"));
        }
        let (got, want) = match &e {
            Expr::Binary(b) => (vec![b.lhs(), b.rhs()], exprs.iter().take(2)),
            Expr::Assign(a) => (vec![a.lhs(), a.rhs()], exprs.iter().take(2)),
            Expr::Relationship(r) => (vec![r.lhs(), r.rhs()], exprs.iter().take(2)),
            Expr::HashEntry(h) => (vec![h.key(), h.value()], exprs.iter().take(2)),
            Expr::Access(a) => (
                std::iter::once(a.target())
                    .chain(a.keys().map(Some))
                    .collect(),
                exprs.iter().take(usize::MAX),
            ),
            Expr::Array(a) => (
                a.elements().map(Some).collect(),
                exprs.iter().take(usize::MAX),
            ),
            _ => continue,
        };
        let mut want: Vec<Option<Expr>> = want.cloned().map(Some).collect();
        want.resize(got.len().max(want.len()), None);
        let mut got = got;
        got.resize(want.len(), None);
        if got != want {
            return Some(format!("{at}: children {got:?}, cursor walk {want:?}"));
        }
    }
    None
}

fn check(text: &str) -> Result<(), String> {
    for (name, parse, flat) in [
        (
            "parse",
            puppet_syntax::parse as fn(&str) -> Parse,
            puppet_syntax::flat::parse as fn(Arc<str>) -> FlatParse,
        ),
        (
            "parse_epp",
            puppet_syntax::parse_epp,
            puppet_syntax::flat::parse_epp,
        ),
        (
            "parse_expression",
            puppet_syntax::parse_expression,
            puppet_syntax::flat::parse_expression,
        ),
    ] {
        if let Some(d) = disagreement(&parse(text), &flat(Arc::from(text))) {
            return Err(format!("{name} {text:?}: {d}"));
        }
    }
    Ok(())
}

#[test]
fn lookups_agree_on_broken_input() {
    for text in [
        "",
        " ",
        "# only a comment\n",
        "$x = ",
        "$x = # c\n",
        "1 + ",
        "1 +\n# trailing\n",
        "f(",
        "foo { 'a': ensure => , }",
        "[1, 2,",
        "{ a => }",
        "@@file { 'x': }",
        "class { 'a': } -> ",
        "$a = @(END)\n  text\n  END\n",
        "$a = \"${}\"",
        "if $x { } elsif { }",
        "case $x { 1, : { } }",
        "$x = !",
        "$x[1,]",
        "node /a/, 'b', default inherits { }",
        "<%= %>",
        "<% | $x | %>text",
        "$a = @(A)\n$b = @(B)\n",
        "f(@(A), @(\"B\"))\na\nA\nb ${x}\nB\n$c = @(C/L)\n  c\\\n  -C\n",
        "$a = @(\"A\")\n${\nA\n",
        "@(A) # c\n/* m\n*/ x\nA\n",
    ] {
        check(text).unwrap();
    }
}

#[test]
fn lookups_agree_on_the_fixtures() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources_under(&crate_dir.join("tests/dump"), &mut files);
    sources_under(&crate_dir.join("test_data"), &mut files);
    files.sort();
    assert!(files.len() > 100, "only {} fixtures", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = check(&text) {
            panic!("{}: {e}", path.display());
        }
    }
}

#[test]
fn lookups_agree_on_the_conformance_sources() {
    let Some(sources) = common::conformance_sources(&["parse", "parse_errors", "eval", "catalog"])
    else {
        eprintln!("skipped: no conformance directory");
        return;
    };
    let failures: Vec<String> = sources
        .iter()
        .filter_map(|(at, source)| check(source).err().map(|e| format!("{at}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `.pp` and `.epp` file under `dir` (following links), sorted.
fn sources_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "pp" || e == "epp") {
            out.push(path);
        }
    }
}

#[test]
fn lookups_agree_on_the_installed_modules() {
    let dir = Path::new("/usr/share/puppet/modules");
    let mut files = Vec::new();
    sources_under(dir, &mut files);
    if files.is_empty() {
        eprintln!("skipped: no modules under {}", dir.display());
        return;
    }
    files.sort();
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            check(&text)
                .err()
                .map(|e| format!("{}: {}", path.display(), &e[..e.len().min(2000)]))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pieces that make trivia at node edges, unfinished constructs and empty nodes.
const FRAGMENTS: &[&str] = &[
    " ", "\n", "# c\n", "/* c */", "$x", "1", "'s'", "\"a${", "}", "{", "(", ")", "[", "]", ",",
    "=>", "=", "+", "-", "!", "->", "~>", "?", ":", ";", "if", "else", "case", "foo", "File", "@",
    "@@", "|", "class", "define", "@(E)\n", "E\n", "<%", "%>", ".", "each", "and", "=~", "/r/",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn lookups_agree_on_fragment_soup(
        parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40)
    ) {
        let text: String = parts.concat();
        check(&text).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn kinds_used_here_exist() {
    // Guards the match above against a renamed kind silently making it vacuous.
    let parse = puppet_syntax::parse("$a = 1 + 2 -> $b[3]");
    let kinds: Vec<SyntaxKind> = parse.syntax().descendants().map(|n| n.kind()).collect();
    for k in [
        SyntaxKind::ASSIGN_EXPR,
        SyntaxKind::BINARY_EXPR,
        SyntaxKind::RELATIONSHIP_EXPR,
        SyntaxKind::ACCESS_EXPR,
    ] {
        assert!(kinds.contains(&k), "{k:?} not in {kinds:?}");
    }
    let flat = puppet_syntax::flat::parse(Arc::from("$a = 1 + 2 -> $b[3]"));
    assert!(disagreement(&parse, &flat).is_none());
}
