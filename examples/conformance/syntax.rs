//! The syntax part of the `conformance` example: `parse.jsonl` (our dump equals Puppet's
//! `puppet parser dump`), `parse_errors.jsonl` (we fail in the same phase, on the same line)
//! and `lex.jsonl` (how far our token kinds map onto Puppet's `Lexer2` token names).
//!
//! The lexer figure is a measure, not a target: string, heredoc and EPP tokens are shaped
//! differently by design (we keep quotes and text pieces as tokens; Puppet folds them into
//! `STRING`/`DQPRE`/`DQMID`/`DQPOST`), so those tokens are left out on both sides.

use crate::common::{first_difference, read_jsonl, str_field, Tally};
use puppet_lang::syntax::{self, LineIndex, Severity, SyntaxKind};
use serde_json::Value;
use std::path::Path;

fn is_epp(case: &Value) -> bool {
    str_field(case, "syntax") == "epp"
}

fn parse_case(source: &str, epp: bool) -> syntax::Parse {
    if epp {
        syntax::parse_epp(source)
    } else {
        syntax::parse(source)
    }
}

fn first_error(parse: &syntax::Parse) -> Option<&syntax::Diagnostic> {
    parse
        .errors()
        .iter()
        .find(|d| d.severity == Severity::Error)
}

/// `parse.jsonl`: pass when our dump is exactly Puppet's.
pub fn run_parse(dir: &Path, verbose: bool) -> (usize, usize) {
    let mut t = Tally::new(verbose);
    for case in read_jsonl(dir, "parse.jsonl") {
        let id = str_field(&case, "id");
        let source = str_field(&case, "source");
        let expected = str_field(&case, "dump");
        let parse = parse_case(source, is_epp(&case));
        if let Some(e) = first_error(&parse) {
            let msg = e.message.clone();
            t.fail(id, || format!("syntax error: {msg}"));
            continue;
        }
        let ours = syntax::dump::dump(&parse);
        if ours == expected {
            t.pass();
        } else {
            t.fail(id, || first_difference(expected, &ours));
        }
    }
    t.result()
}

/// `parse_errors.jsonl`: pass when we report an error in the same phase (a syntax error from
/// `parse`, or none but an error from `validate`), on Puppet's line when it gives one.
pub fn run_parse_errors(dir: &Path, verbose: bool) -> (usize, usize) {
    let mut t = Tally::new(verbose);
    for case in read_jsonl(dir, "parse_errors.jsonl") {
        let id = str_field(&case, "id");
        let source = str_field(&case, "source");
        let phase = str_field(&case, "phase");
        let want_line = case.get("line").and_then(Value::as_u64);
        let parse = parse_case(source, is_epp(&case));
        let found = match (phase, first_error(&parse)) {
            ("syntax", Some(e)) => Ok(e.clone()),
            ("syntax", None) => Err("no syntax error".to_string()),
            (_, Some(e)) => Err(format!("syntax error instead: {}", e.message)),
            (_, None) => syntax::validate::validate(&parse)
                .into_iter()
                .find(|d| d.severity == Severity::Error)
                .ok_or_else(|| "no validation error".to_string()),
        };
        match found {
            Err(reason) => {
                let expected = str_field(&case, "error").to_string();
                t.fail(id, || format!("{reason} (Puppet: {expected})"));
            }
            Ok(d) => {
                let line = LineIndex::new(source).line_col(source, d.start()).line;
                match want_line {
                    Some(w) if w != u64::from(line) => {
                        let expected = str_field(&case, "error").to_string();
                        t.fail(id, || {
                            format!("line {line} ({}), Puppet: {expected}", d.message)
                        });
                    }
                    _ => t.pass(),
                }
            }
        }
    }
    t.result()
}

/// Puppet token names whose shape differs from ours by design.
const PUPPET_SHAPED: &[&str] = &[
    "STRING",
    "DQPRE",
    "DQMID",
    "DQPOST",
    "HEREDOC",
    "SUBLOCATE",
    "EPP_START",
    "RENDER_STRING",
    "RENDER_EXPR",
    "EPP_END",
    "EPP_END_TRIM",
];

/// Our token kinds left out of the comparison (the counterparts of [`PUPPET_SHAPED`]).
fn ours_shaped(kind: SyntaxKind) -> bool {
    use SyntaxKind::*;
    kind.is_trivia()
        || matches!(
            kind,
            SQ_STRING
                | DQUOTE
                | STRING_TEXT
                | INTERP_START
                | INTERP_END
                | HEREDOC_HEADER
                | EPP_TEXT
                | EPP_OPEN
                | EPP_RENDER_OPEN
                | EPP_CLOSE
                | EPP_CLOSE_TRIM
                | EPP_COMMENT
        )
}

/// `lex.jsonl`: pass when the significant token kinds map 1:1 onto Puppet's token names
/// (via `SyntaxKind::puppet_token_name`), or, for the cases where Puppet's lexer fails, when
/// ours reports an error too.
pub fn run_lex(dir: &Path, verbose: bool) -> (usize, usize) {
    let mut t = Tally::new(verbose);
    for case in read_jsonl(dir, "lex.jsonl") {
        let id = str_field(&case, "id");
        let source = str_field(&case, "source");
        let lexed = if is_epp(&case) {
            syntax::lexer::lex_epp(source)
        } else {
            syntax::lexer::lex(source)
        };
        let Some(tokens) = case.get("tokens").and_then(Value::as_array) else {
            if lexed.errors.iter().any(|e| !e.is_warning) {
                t.pass();
            } else {
                t.fail(id, || "Puppet's lexer fails, ours does not".to_string());
            }
            continue;
        };
        let theirs: Vec<&str> = tokens
            .iter()
            .filter_map(|tok| tok.get(0).and_then(Value::as_str))
            .filter(|name| !PUPPET_SHAPED.contains(name))
            .collect();
        let ours: Vec<&str> = lexed
            .tokens
            .iter()
            .filter(|tok| !ours_shaped(tok.kind))
            .map(|tok| tok.kind.puppet_token_name())
            .collect();
        if ours == theirs {
            t.pass();
        } else {
            t.fail(id, || format!("Puppet {theirs:?}, ours {ours:?}"));
        }
    }
    t.result()
}
