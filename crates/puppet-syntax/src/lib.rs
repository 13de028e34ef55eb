//! A lossless, error-recovering parser for the Puppet language (Puppet 7 grammar).
//!
//! Parsing never fails: every entry point returns a [`Parse`] holding a rowan syntax tree
//! that contains every byte of the input (`parse.syntax().to_string() == input`) and a list
//! of [`Diagnostic`]s. The tree is untyped ([`SyntaxNode`]); the [`ast`] module gives typed,
//! allocation-free views over it, [`green`] cursor-free ones for passes that only read
//! downwards, [`validate`] runs Puppet's semantic checks, and [`dump`] prints a tree the way
//! `puppet parser dump` does.
//!
//! ```
//! let parse = puppet_syntax::parse("file { '/tmp/x': ensure => file }\n");
//! assert!(parse.errors().is_empty());
//! assert_eq!(parse.syntax().to_string(), "file { '/tmp/x': ensure => file }\n");
//! ```
//!
//! What it is not: an evaluator. Values, scopes and catalogs live in other crates.

pub mod ast;
pub mod dump;
pub mod flat;
mod grammar;
pub mod green;
pub mod lexer;
mod parser;
mod syntax_kind;
pub mod validate;

pub use puppet_diagnostics::{Diagnostic, LineCol, LineIndex, Severity};
pub use rowan::{TextRange, TextSize};
pub use syntax_kind::{PuppetLanguage, SyntaxKind};

/// A node of the untyped syntax tree.
pub type SyntaxNode = rowan::SyntaxNode<PuppetLanguage>;
/// A token of the untyped syntax tree.
pub type SyntaxToken = rowan::SyntaxToken<PuppetLanguage>;
/// A node or a token.
pub type SyntaxElement = rowan::NodeOrToken<SyntaxNode, SyntaxToken>;

/// The result of parsing: a tree that keeps every byte, and the syntax problems found.
#[derive(Debug, Clone)]
pub struct Parse {
    green: rowan::GreenNode,
    errors: Vec<Diagnostic>,
}

impl Parse {
    /// The root of the syntax tree.
    pub fn syntax(&self) -> SyntaxNode {
        SyntaxNode::new_root(self.green.clone())
    }

    /// The green (immutable, shareable) tree.
    pub fn green(&self) -> &rowan::GreenNode {
        &self.green
    }

    /// Lexical and syntax problems, in source order (warnings included).
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    /// True when there is no error (warnings allowed).
    pub fn is_ok(&self) -> bool {
        !self.errors.iter().any(|d| d.severity == Severity::Error)
    }

    /// A debug rendering of the tree, one node or token per line.
    pub fn debug_tree(&self) -> String {
        let mut out = String::new();
        debug_tree_into(&self.syntax(), 0, &mut out);
        out
    }
}

fn debug_tree_into(node: &SyntaxNode, indent: usize, out: &mut String) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "{:indent$}{:?}@{:?}",
        "",
        node.kind(),
        node.text_range(),
        indent = indent
    );
    for child in node.children_with_tokens() {
        match child {
            rowan::NodeOrToken::Node(n) => debug_tree_into(&n, indent + 2, out),
            rowan::NodeOrToken::Token(t) => {
                let _ = writeln!(
                    out,
                    "{:indent$}{:?}@{:?} {:?}",
                    "",
                    t.kind(),
                    t.text_range(),
                    t.text(),
                    indent = indent + 2
                );
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    Manifest,
    /// A manifest in tasks mode (Bolt's plans): `plan` and `apply` are keywords.
    Tasks,
    Epp,
    Expression,
    InterpolatedText,
    /// An interpolating heredoc body whose escapes do not include `$`.
    InterpolatedTextNoDollarEscape,
}

impl Entry {
    /// Whether heredoc expressions (whose bodies are parsed on their own) can occur.
    fn has_heredocs(self) -> bool {
        matches!(
            self,
            Entry::Manifest | Entry::Tasks | Entry::Epp | Entry::Expression
        )
    }
}

/// Lexes and parses `text`, then has `build` replay the events into a tree. Gives the
/// tree, the lexical and syntax diagnostics (not yet sorted), and whether the text has a
/// heredoc.
fn run_with<T>(
    text: &str,
    entry: Entry,
    build: impl FnOnce(
        &[lexer::Token],
        &[bool],
        &mut [parser::Event],
        Vec<(&'static str, String)>,
        SyntaxKind,
        &mut parser::Scratch,
    ) -> (T, Vec<parser::PlacedError>),
) -> (T, Vec<Diagnostic>, bool) {
    let mut scratch = parser::Scratch::take();
    let tokens = std::mem::take(&mut scratch.tokens);
    let mut lexed = match entry {
        Entry::Epp => lexer::lex_into(text, true, tokens),
        Entry::InterpolatedText => lexer::lex_interpolated_text(text),
        Entry::InterpolatedTextNoDollarEscape => lexer::lex_interpolated_text_with(text, false),
        _ => lexer::lex_into(text, false, tokens),
    };
    if entry == Entry::Tasks {
        // Puppet's lexer in tasks mode has two more keywords.
        let mut at = 0usize;
        for t in &mut lexed.tokens {
            if t.kind == SyntaxKind::NAME {
                match &text[at..at + t.len as usize] {
                    "plan" => t.kind = SyntaxKind::PLAN_KW,
                    "apply" => t.kind = SyntaxKind::APPLY_KW,
                    _ => {}
                }
            }
            at += t.len as usize;
        }
    }
    let mut skip = std::mem::take(&mut scratch.skip);
    let mut p = parser::Parser::new(text, &lexed.tokens, &mut skip, &mut scratch);
    let root = match entry {
        Entry::Manifest | Entry::Tasks => {
            grammar::source_file(&mut p);
            SyntaxKind::SOURCE_FILE
        }
        Entry::Epp => {
            grammar::epp_file(&mut p);
            SyntaxKind::EPP_FILE
        }
        Entry::Expression => {
            grammar::expression_root(&mut p);
            SyntaxKind::EXPR_ROOT
        }
        Entry::InterpolatedText | Entry::InterpolatedTextNoDollarEscape => {
            grammar::interpolated_text(&mut p);
            SyntaxKind::HEREDOC_ROOT
        }
    };
    // A heredoc expression only exists where the lexer produced a header, so most files
    // skip the walk over the tree below.
    let has_heredoc = p.has_heredoc && entry.has_heredocs();
    let (mut events, messages) = p.finish(&mut scratch);
    let (tree, placed) = build(
        &lexed.tokens,
        &skip,
        &mut events,
        messages,
        root,
        &mut scratch,
    );
    let lexer::Lexed {
        tokens,
        errors: lex_errors,
    } = lexed;
    scratch.tokens = tokens;
    scratch.skip = skip;
    scratch.events = events;
    scratch.put_back();
    let lex_error_tokens: Vec<u32> = lex_errors.iter().map(|e| e.token).collect();
    let mut errors: Vec<Diagnostic> = lex_errors
        .into_iter()
        .map(|e| {
            let severity = if e.is_warning {
                Severity::Warning
            } else {
                Severity::Error
            };
            Diagnostic::new(severity, e.code, e.message)
                .with_range(TextRange::at(e.offset.into(), e.len.into()))
        })
        .collect();
    for e in placed {
        // A syntax error right at a token the lexer already complained about adds nothing.
        if lex_error_tokens.contains(&e.offset) {
            continue;
        }
        errors.push(Diagnostic::error(
            e.code,
            e.message,
            TextRange::empty(e.offset.into()),
        ));
    }
    (tree, errors, has_heredoc)
}

fn run(text: &str, entry: Entry) -> Parse {
    let (green, mut errors, has_heredoc) = run_with(
        text,
        entry,
        |tokens, skip, events, messages, root, scratch| {
            parser::build_tree(text, tokens, skip, events, messages, root, scratch)
        },
    );
    // Interpolating heredoc bodies are parsed on their own; their problems belong here too.
    if has_heredoc {
        let root_node = SyntaxNode::new_root(green.clone());
        for h in root_node
            .descendants()
            .filter_map(<ast::HeredocExpr as ast::AstNode>::cast)
        {
            if let Some(body) = h.body() {
                errors.extend(body.errors);
            }
        }
    }
    errors.sort_by_key(|e| e.start());
    Parse { green, errors }
}

/// [`run`] into a flat tree: the same events, nodes, tokens and diagnostics.
pub(crate) fn run_flat(text: std::sync::Arc<str>, entry: Entry) -> flat::FlatParse {
    let (tree, mut errors, has_heredoc) =
        run_with(&text, entry, |tokens, skip, events, messages, root, _| {
            let mut sink = flat::FlatSink::new(text.clone(), tokens.len());
            let placed = parser::replay(tokens, skip, events, messages, root, &mut sink);
            (sink.finish(), placed)
        });
    let mut parse = flat::FlatParse::new(tree, Vec::new());
    if has_heredoc {
        for h in parse.root().descendants() {
            if h.kind() == SyntaxKind::HEREDOC_EXPR {
                if let Some(body) = h.heredoc_body() {
                    errors.extend(body.errors);
                }
            }
        }
    }
    errors.sort_by_key(|e| e.start());
    parse.set_errors(errors);
    parse
}

/// Parses a manifest (`.pp` file).
pub fn parse(text: &str) -> Parse {
    run(text, Entry::Manifest)
}

/// Parses a manifest in tasks mode, as Puppet does with `--tasks` (Bolt's plans, the files
/// of a module's `plans/`): `plan` and `apply` are keywords, for plan definitions
/// (`plan name(params) { ... }`) and apply expressions (`apply(targets) { ... }`).
///
/// ```
/// let parse = puppet_syntax::parse_tasks("plan m::go(TargetSpec $t) {\n  apply($t) { notify { 'x': } }\n}\n");
/// assert!(parse.errors().is_empty());
/// assert!(!puppet_syntax::parse("plan m::go(TargetSpec $t) { }").errors().is_empty());
/// ```
pub fn parse_tasks(text: &str) -> Parse {
    run(text, Entry::Tasks)
}

/// Parses an EPP template.
///
/// ```
/// let parse = puppet_syntax::parse_epp("<%- | $x | -%>\nHello <%= $x %>!\n");
/// assert!(parse.errors().is_empty());
/// ```
pub fn parse_epp(text: &str) -> Parse {
    run(text, Entry::Epp)
}

/// Parses a single expression, such as `$x + 1` or `Hash[String, Integer]`.
pub fn parse_expression(text: &str) -> Parse {
    run(text, Entry::Expression)
}

/// Parses a type expression, such as `Hash[String, Array[Integer, 1]]`, as Puppet parses
/// type strings: with the expression grammar.
///
/// ```
/// let parse = puppet_syntax::parse_type_expression("Struct[{ Optional[a] => Integer }]");
/// assert!(parse.errors().is_empty());
/// ```
pub fn parse_type_expression(text: &str) -> Parse {
    run(text, Entry::Expression)
}

/// Parses the text of an interpolating heredoc body (margin already removed); `dollar_escape` tells whether the
/// heredoc's escapes include `$` (otherwise `\$x` still interpolates `$x`).
pub(crate) fn parse_interpolated_text_with(text: &str, dollar_escape: bool) -> Parse {
    if dollar_escape {
        run(text, Entry::InterpolatedText)
    } else {
        run(text, Entry::InterpolatedTextNoDollarEscape)
    }
}
