//! The `%{...}` interpolation sub-language of Hiera, parsed with chumsky: a string is split
//! into literal text and expressions; an expression is empty (`%{}`, `%{::}`, `%{''}`), a
//! scope variable with an optional dotted path (`%{facts.os.family}`, `%{::fqdn}`), or a
//! method call with one quoted argument (`%{lookup('k')}`, `%{hiera("k")}`, `%{alias('k')}`,
//! `%{literal('%')}`, `%{scope('v')}`). Also the dotted-key splitter used by lookup keys and
//! scope expressions (`a.b."c.d".0`). Evaluation lives in the lookup module; this module only
//! parses and reports errors with byte spans into the string.

use crate::error::{codes, HieraError};
use chumsky::prelude::*;
use std::ops::Range;

/// One piece of a parsed string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// A `%{...}` expression.
    Expr(Interpolation),
}

/// A parsed `%{...}` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpolation {
    /// What the expression asks for.
    pub kind: ExprKind,
    /// Byte span of the whole `%{...}` in the string.
    pub span: Range<usize>,
}

/// The kinds of interpolation expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprKind {
    /// `%{}`, `%{::}`, `%{""}`, `%{''}`, `%{"::"}`, `%{'::'}`: the empty string.
    Empty,
    /// A scope variable (possibly dotted): the text between the braces, trimmed.
    Scope(String),
    /// `name('arg')`; `name_span` is the byte span of `name` in the string.
    Method {
        /// The method name as written.
        name: String,
        /// The quoted argument without its quotes.
        arg: String,
        /// Byte span of the method name.
        name_span: Range<usize>,
    },
}

/// The interpolation methods Hiera knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `lookup('k')` (and its synonym `hiera('k')`).
    Lookup,
    /// `alias('k')`: the value itself, not a string; must be the whole string.
    Alias,
    /// `scope('v')`.
    Scope,
    /// `literal('x')`.
    Literal,
}

impl Method {
    /// The method for a name, if known.
    pub fn from_name(name: &str) -> Option<Method> {
        match name {
            "lookup" | "hiera" => Some(Method::Lookup),
            "alias" => Some(Method::Alias),
            "scope" => Some(Method::Scope),
            "literal" => Some(Method::Literal),
            _ => None,
        }
    }
}

enum Raw<'a> {
    Char(char),
    Expr(&'a str, SimpleSpan),
}

fn outer<'a>() -> impl Parser<'a, &'a str, Vec<Raw<'a>>, extra::Err<Rich<'a, char>>> {
    let expr = just("%{")
        .ignore_then(none_of('}').repeated().to_slice())
        .then_ignore(just('}'))
        .map_with(|inner: &str, e| Raw::Expr(inner, e.span()));
    choice((expr, any().map(Raw::Char))).repeated().collect()
}

fn method<'a>(
) -> impl Parser<'a, &'a str, ((&'a str, SimpleSpan), &'a str), extra::Err<Rich<'a, char>>> {
    let word = any()
        .filter(|c: &char| c.is_ascii_alphanumeric() || *c == '_')
        .repeated()
        .at_least(1)
        .to_slice()
        .map_with(|w: &str, e| (w, e.span()));
    let dq = just('"')
        .ignore_then(none_of('"').repeated().at_least(1).to_slice())
        .then_ignore(just('"'));
    let sq = just('\'')
        .ignore_then(none_of('\'').repeated().at_least(1).to_slice())
        .then_ignore(just('\''));
    word.then_ignore(just('('))
        .then(dq.or(sq))
        .then_ignore(just(')'))
        .then_ignore(end())
}

fn classify(inner: &str, inner_start: usize, span: Range<usize>) -> Interpolation {
    let trimmed = inner.trim();
    let lead = inner.len() - inner.trim_start().len();
    let kind = if matches!(trimmed, "" | "::" | "\"\"" | "''" | "\"::\"" | "'::'") {
        ExprKind::Empty
    } else {
        match method().parse(trimmed).into_result() {
            Ok(((name, nspan), arg)) => {
                let start = inner_start + lead + nspan.start;
                ExprKind::Method {
                    name: name.to_string(),
                    arg: arg.to_string(),
                    name_span: start..inner_start + lead + nspan.end,
                }
            }
            Err(_) => ExprKind::Scope(trimmed.to_string()),
        }
    };
    Interpolation { kind, span }
}

/// Splits a string into literal text and `%{...}` expressions. An unclosed `%{` is text,
/// as in Puppet. Never fails.
///
/// ```
/// use puppet_hiera::interp::{parse, ExprKind, Piece};
/// let pieces = parse("a-%{facts.os}-%{lookup('k')}");
/// assert_eq!(pieces[0], Piece::Text("a-".into()));
/// let Piece::Expr(e) = &pieces[1] else { panic!() };
/// assert_eq!(e.kind, ExprKind::Scope("facts.os".into()));
/// assert_eq!(e.span, 2..13);
/// let Piece::Expr(e) = &pieces[3] else { panic!() };
/// assert!(matches!(&e.kind, ExprKind::Method { name, arg, name_span }
///     if name == "lookup" && arg == "k" && *name_span == (16..22)));
/// ```
pub fn parse(s: &str) -> Vec<Piece> {
    let raws = outer().parse(s).into_result().unwrap_or_default();
    let mut out: Vec<Piece> = Vec::new();
    if raws.is_empty() && !s.is_empty() {
        out.push(Piece::Text(s.to_string()));
        return out;
    }
    for raw in raws {
        match raw {
            Raw::Char(c) => {
                if let Some(Piece::Text(t)) = out.last_mut() {
                    t.push(c);
                } else {
                    out.push(Piece::Text(c.to_string()));
                }
            }
            Raw::Expr(inner, span) => {
                out.push(Piece::Expr(classify(
                    inner,
                    span.start + 2,
                    span.start..span.end,
                )));
            }
        }
    }
    out
}

/// One segment of a dotted key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A hash key.
    Key(String),
    /// An array index (or an integer hash key).
    Index(i64),
}

impl std::fmt::Display for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Segment::Key(k) => f.write_str(k),
            Segment::Index(i) => write!(f, "{i}"),
        }
    }
}

/// Splits a key on unquoted dots, as Puppet's `split_key`: `a.b` is `[a, b]`, `a."b.c"` is
/// `[a, b.c]`, `a.0` is `[a, 0]`. The first segment is always a [`Segment::Key`].
/// `problem_suffix` builds the error text from `Syntax error`.
///
/// ```
/// use puppet_hiera::interp::{split_key, Segment};
/// let segs = split_key("a.'b.c'.1", |p| format!("{p} in key")).unwrap();
/// assert_eq!(segs, vec![Segment::Key("a".into()), Segment::Key("b.c".into()), Segment::Index(1)]);
/// assert_eq!(split_key("a..b", |p| format!("{p} in key: 'a..b'")).unwrap_err().to_string(),
///     "Syntax error in key: 'a..b'");
/// ```
pub fn split_key(key: &str, problem: impl Fn(&str) -> String) -> Result<Vec<Segment>, HieraError> {
    if !key.contains(['\'', '"', '.']) {
        return Ok(vec![Segment::Key(key.to_string())]);
    }
    let err = || HieraError::new(codes::KEY_SYNTAX, problem("Syntax error"));
    let chars: Vec<char> = key.chars().collect();
    let mut i = 0;
    let mut segs = Vec::new();
    loop {
        // One segment.
        let start = i;
        let mut j = i;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        let mut seg: Option<Segment> = None;
        if j < chars.len() && (chars[j] == '"' || chars[j] == '\'') {
            let q = chars[j];
            let mut k = j + 1;
            while k < chars.len() && chars[k] != q {
                k += 1;
            }
            if k < chars.len() && k > j + 1 {
                let inner: String = chars[j + 1..k].iter().collect();
                k += 1;
                while k < chars.len() && chars[k].is_whitespace() {
                    k += 1;
                }
                seg = Some(Segment::Key(inner));
                i = k;
            }
        }
        if seg.is_none() {
            let mut k = start;
            while k < chars.len() && !matches!(chars[k], '\'' | '"' | '.') {
                k += 1;
            }
            if k == start {
                return Err(err());
            }
            let text: String = chars[start..k].iter().collect();
            let t = text.trim();
            let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
            seg = Some(
                if !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
                    && !segs.is_empty()
                {
                    match t.parse::<i64>() {
                        Ok(n) => Segment::Index(n),
                        Err(_) => Segment::Key(t.to_string()),
                    }
                } else {
                    Segment::Key(t.to_string())
                },
            );
            i = k;
        }
        segs.extend(seg);
        if i == chars.len() {
            break;
        }
        if chars[i] != '.' {
            return Err(err());
        }
        i += 1;
        if i == chars.len() {
            return Err(err());
        }
    }
    Ok(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empties_and_unclosed() {
        let p = parse("x%{}y%{ '::' }z%{abc");
        assert_eq!(p.len(), 5);
        assert!(matches!(
            &p[1],
            Piece::Expr(Interpolation {
                kind: ExprKind::Empty,
                ..
            })
        ));
        assert!(matches!(
            &p[3],
            Piece::Expr(Interpolation {
                kind: ExprKind::Empty,
                ..
            })
        ));
        assert_eq!(p[4], Piece::Text("z%{abc".into()));
    }

    #[test]
    fn scope_keys() {
        let p = parse("%{ ::fqdn }");
        assert_eq!(
            p,
            vec![Piece::Expr(Interpolation {
                kind: ExprKind::Scope("::fqdn".into()),
                span: 0..11
            })]
        );
    }

    #[test]
    fn split_errors() {
        for bad in [".a", "a.", "a..b", "a\"b", "a.\"\".b"] {
            assert!(split_key(bad, |p| p.to_string()).is_err(), "{bad}");
        }
        assert_eq!(split_key("a", |p| p.to_string()).unwrap().len(), 1);
        assert_eq!(
            split_key("a.\"b\" . c", |p| p.to_string()).unwrap(),
            vec![
                Segment::Key("a".into()),
                Segment::Key("b".into()),
                Segment::Key("c".into())
            ]
        );
    }
}
