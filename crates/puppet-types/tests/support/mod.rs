//! A small test-only reader for type strings and literal values, standing in for the syntax
//! crate and the evaluator in this crate's tests.
//!
//! It reads numbers, strings, regexps, arrays, hashes, `undef`, `default`, booleans, bare words,
//! type names with `[...]` access, a few constructor calls (`Timespan(1)`, `SemVer('1.0.0')`,
//! `Sensitive('s')`, `Binary('...')`, `URI('...')`, `Timestamp(0)`) and the `reverse_each` and
//! `step(n)` methods. It is not a Puppet parser: operators, variables and everything else are
//! rejected with the message Puppet's type parser gives.

#![allow(dead_code)]

use puppet_types::types::Type;
use puppet_types::{convert, parameterize_value, resolve_type_name, Value};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(i64),
    Float(f64),
    Str(String),
    Regex(String),
    Word(String),
    Punct(char),
    Arrow,
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    toks: Vec<(Tok, usize, usize)>,
}

fn lex(src: &str) -> Result<Vec<(Tok, usize, usize)>, String> {
    let mut l = Lexer {
        src,
        pos: 0,
        toks: Vec::new(),
    };
    let b = src.as_bytes();
    while l.pos < b.len() {
        let c = b[l.pos] as char;
        let start = l.pos;
        if c.is_whitespace() {
            l.pos += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let mut end = l.pos;
            let mut is_float = false;
            if src[end..].starts_with("0x") || src[end..].starts_with("0X") {
                end += 2;
                while end < b.len() && (b[end] as char).is_ascii_hexdigit() {
                    end += 1;
                }
                let v = i64::from_str_radix(&src[start + 2..end], 16).map_err(|e| e.to_string())?;
                l.toks.push((Tok::Int(v), start, end));
                l.pos = end;
                continue;
            }
            while end < b.len() && (b[end] as char).is_ascii_digit() {
                end += 1;
            }
            if end + 1 < b.len() && b[end] == b'.' && (b[end + 1] as char).is_ascii_digit() {
                is_float = true;
                end += 1;
                while end < b.len() && (b[end] as char).is_ascii_digit() {
                    end += 1;
                }
            }
            if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
                is_float = true;
                end += 1;
                if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
                    end += 1;
                }
                while end < b.len() && (b[end] as char).is_ascii_digit() {
                    end += 1;
                }
            }
            let text = &src[start..end];
            let tok = if is_float {
                Tok::Float(text.parse().map_err(|e| format!("{e}"))?)
            } else if text.len() > 1 && text.starts_with('0') {
                Tok::Int(
                    i64::from_str_radix(&text[1..], 8).map_err(|_| format!("bad octal {text}"))?,
                )
            } else {
                Tok::Int(
                    text.parse()
                        .map_err(|_| format!("Integer overflow: {text}"))?,
                )
            };
            l.toks.push((tok, start, end));
            l.pos = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || (c == ':' && src[l.pos..].starts_with("::")) {
            let mut end = l.pos;
            loop {
                if end < b.len() && ((b[end] as char).is_ascii_alphanumeric() || b[end] == b'_') {
                    end += 1;
                } else if src[end..].starts_with("::") {
                    end += 2;
                } else {
                    break;
                }
            }
            l.toks
                .push((Tok::Word(src[start..end].to_string()), start, end));
            l.pos = end;
            continue;
        }
        match c {
            '\'' => {
                let mut s = String::new();
                let mut i = l.pos + 1;
                let chars: Vec<(usize, char)> =
                    src[i..].char_indices().map(|(o, c)| (o + i, c)).collect();
                let mut k = 0;
                let mut closed = false;
                while k < chars.len() {
                    let (_, ch) = chars[k];
                    if ch == '\\'
                        && k + 1 < chars.len()
                        && (chars[k + 1].1 == '\'' || chars[k + 1].1 == '\\')
                    {
                        s.push(chars[k + 1].1);
                        k += 2;
                        continue;
                    }
                    if ch == '\'' {
                        i = chars[k].0 + 1;
                        closed = true;
                        break;
                    }
                    s.push(ch);
                    k += 1;
                }
                if !closed {
                    return Err("unterminated string".into());
                }
                l.toks.push((Tok::Str(s), start, i));
                l.pos = i;
            }
            '"' => {
                let mut s = String::new();
                let mut it = src[l.pos + 1..].char_indices();
                let mut end = None;
                while let Some((o, ch)) = it.next() {
                    match ch {
                        '"' => {
                            end = Some(l.pos + 1 + o + 1);
                            break;
                        }
                        '$' => return Err("interpolation is not supported".into()),
                        '\\' => match it.next() {
                            Some((_, 'n')) => s.push('\n'),
                            Some((_, 't')) => s.push('\t'),
                            Some((_, 'r')) => s.push('\r'),
                            Some((_, '"')) => s.push('"'),
                            Some((_, '\\')) => s.push('\\'),
                            Some((_, '$')) => s.push('$'),
                            Some((_, 'u')) => {
                                return Err("unicode escapes are not supported".into())
                            }
                            Some((_, other)) => {
                                s.push('\\');
                                s.push(other)
                            }
                            None => return Err("unterminated string".into()),
                        },
                        other => s.push(other),
                    }
                }
                let end = end.ok_or("unterminated string")?;
                l.toks.push((Tok::Str(s), start, end));
                l.pos = end;
            }
            '/' => {
                let mut i = l.pos + 1;
                let mut s = String::new();
                let mut closed = false;
                while i < b.len() {
                    let ch = src[i..].chars().next().unwrap_or('/');
                    if ch == '\\' && i + 1 < b.len() {
                        let n = src[i + 1..].chars().next().unwrap_or('\\');
                        if n != '/' {
                            s.push('\\');
                        }
                        s.push(n);
                        i += 1 + n.len_utf8();
                        continue;
                    }
                    if ch == '/' {
                        closed = true;
                        i += 1;
                        break;
                    }
                    s.push(ch);
                    i += ch.len_utf8();
                }
                if !closed {
                    return Err("unterminated regexp".into());
                }
                l.toks.push((Tok::Regex(s), start, i));
                l.pos = i;
            }
            '=' if src[l.pos..].starts_with("=>") => {
                l.toks.push((Tok::Arrow, start, start + 2));
                l.pos += 2;
            }
            '[' | ']' | '{' | '}' | '(' | ')' | ',' | '.' | '-' | '+' | '*' | '<' | '>' | '='
            | '!' => {
                l.toks.push((Tok::Punct(c), start, start + 1));
                l.pos += 1;
            }
            _ => return Err(format!("unexpected character {c:?}")),
        }
    }
    Ok(l.toks)
}

/// Whether the reader acts as Puppet's type parser (access on unknown names makes a
/// `TypeReference` of the whole text) or as the evaluator.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    TypeParser,
    Evaluator,
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, usize, usize)>,
    i: usize,
    mode: Mode,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.0)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.i).map(|t| t.0.clone());
        self.i += 1;
        t
    }
    fn expect(&mut self, c: char) -> Result<(), String> {
        match self.next() {
            Some(Tok::Punct(p)) if p == c => Ok(()),
            other => Err(format!("expected {c:?}, got {other:?}")),
        }
    }
    fn start_of(&self, i: usize) -> usize {
        self.toks.get(i).map_or(self.src.len(), |t| t.1)
    }
    fn end_of(&self, i: usize) -> usize {
        self.toks.get(i).map_or(self.src.len(), |t| t.2)
    }

    fn expr(&mut self) -> Result<Value, String> {
        let v = self.postfix()?;
        if let Some(Tok::Punct('+' | '-' | '*' | '<' | '>' | '=' | '!')) = self.peek() {
            return Err("operators are not supported".into());
        }
        Ok(v)
    }

    fn args(&mut self, close: char) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        if self.peek() == Some(&Tok::Punct(close)) {
            self.next();
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            match self.next() {
                Some(Tok::Punct(',')) => {
                    if self.peek() == Some(&Tok::Punct(close)) {
                        self.next();
                        return Ok(out);
                    }
                }
                Some(Tok::Punct(c)) if c == close => return Ok(out),
                other => return Err(format!("expected ',' or {close:?}, got {other:?}")),
            }
        }
    }

    fn postfix(&mut self) -> Result<Value, String> {
        let start_tok = self.i;
        let mut v = self.primary()?;
        loop {
            match self.peek() {
                Some(Tok::Punct('[')) => {
                    self.next();
                    let args = self.args(']')?;
                    let text = &self.src[self.start_of(start_tok)..self.end_of(self.i - 1)];
                    v = match &v {
                        Value::Type(Type::TypeReference(_)) if self.mode == Mode::TypeParser => {
                            Value::Type(Type::TypeReference(text.into()))
                        }
                        Value::Type(t) => {
                            parameterize_value(t, &args).map_err(|e| e.to_string())?
                        }
                        _ => return Err("access on a non-type is not supported".into()),
                    };
                }
                Some(Tok::Punct('.')) => {
                    self.next();
                    let name = match self.next() {
                        Some(Tok::Word(w)) => w,
                        other => return Err(format!("expected method name, got {other:?}")),
                    };
                    let args = if self.peek() == Some(&Tok::Punct('(')) {
                        self.next();
                        self.args(')')?
                    } else {
                        vec![]
                    };
                    v = match (name.as_str(), args.as_slice()) {
                        ("reverse_each", []) => v.reverse_each().ok_or("not iterable")?,
                        ("step", [Value::Integer(n)]) => v.step(*n).ok_or("bad step")?,
                        _ => return Err(format!("method {name} is not supported")),
                    };
                }
                _ => return Ok(v),
            }
        }
    }

    fn primary(&mut self) -> Result<Value, String> {
        match self.next() {
            Some(Tok::Int(i)) => Ok(Value::Integer(i)),
            Some(Tok::Float(f)) => Ok(Value::Float(f)),
            Some(Tok::Str(s)) => Ok(Value::string(s)),
            Some(Tok::Regex(r)) => Ok(Value::Regexp(
                puppet_types::Regexp::new(&r).map_err(|e| e.to_string())?,
            )),
            Some(Tok::Punct('-')) => match self.primary()? {
                Value::Integer(i) => Ok(Value::Integer(-i)),
                Value::Float(f) => Ok(Value::Float(-f)),
                _ => Err("unary minus on a non-number".into()),
            },
            Some(Tok::Punct('[')) => Ok(Value::array(self.args(']')?)),
            Some(Tok::Punct('{')) => {
                let mut pairs = Vec::new();
                if self.peek() == Some(&Tok::Punct('}')) {
                    self.next();
                    return Ok(Value::hash(pairs));
                }
                loop {
                    let k = self.expr()?;
                    match self.next() {
                        Some(Tok::Arrow) => {}
                        other => return Err(format!("expected =>, got {other:?}")),
                    }
                    let v = self.expr()?;
                    pairs.push((k, v));
                    match self.next() {
                        Some(Tok::Punct(',')) => {
                            if self.peek() == Some(&Tok::Punct('}')) {
                                self.next();
                                break;
                            }
                        }
                        Some(Tok::Punct('}')) => break,
                        other => return Err(format!("expected , or }}, got {other:?}")),
                    }
                }
                Ok(Value::hash(pairs))
            }
            Some(Tok::Word(w)) => {
                match w.as_str() {
                    "undef" => return Ok(Value::Undef),
                    "default" => return Ok(Value::Default),
                    "true" => return Ok(Value::Boolean(true)),
                    "false" => return Ok(Value::Boolean(false)),
                    _ => {}
                }
                let bare = w.strip_prefix("::").unwrap_or(&w);
                if bare.starts_with(|c: char| c.is_ascii_uppercase()) {
                    if self.peek() == Some(&Tok::Punct('(')) {
                        self.next();
                        let args = self.args(')')?;
                        return convert::new_value(&resolve_type_name(&w), &args)
                            .map_err(|e| e.to_string());
                    }
                    Ok(Value::Type(resolve_type_name(&w)))
                } else {
                    Ok(Value::string(w))
                }
            }
            other => Err(format!("unexpected token {other:?}")),
        }
    }
}

/// Reads one expression.
pub fn parse_value(src: &str, mode: Mode) -> Result<Value, String> {
    let toks = lex(src)?;
    let mut p = Parser {
        src,
        toks,
        i: 0,
        mode,
    };
    let v = p.expr()?;
    if p.i < p.toks.len() {
        return Err(format!("trailing input at token {}", p.i));
    }
    Ok(v)
}

/// Reads a type string (type-parser mode); a non-type result is Puppet's type parser error.
pub fn parse_type(src: &str) -> Result<Type, String> {
    match parse_value(src, Mode::TypeParser)? {
        Value::Type(t) => Ok(t),
        _ => Err(format!(
            "The expression <{src}> is not a valid type specification."
        )),
    }
}
