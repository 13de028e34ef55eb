//! ERB: the scanner that splits a template into text, code and output pieces (the one
//! owner; `puppet-erb` renders Puppet's templates through it), and ERB and bindings as
//! Ruby code uses them: `ERB.new(text, trim_mode: '-')` with `result(binding)`,
//! `result_with_hash`, `filename`/`lineno`/`location=`; `Kernel#binding` with
//! `local_variable_get`/`set`/`defined?`, `local_variables`, `receiver`, `eval` and
//! `source_location`; `eval(code, binding, file, line)`.
//!
//! Scanning follows Ruby 3.1's ERB (erb 2.2.3) scanner by scanner: without `%` lines, no trim
//! mode and `-` use its two StringScanner scanners (a `^` in `^[ \t]*<%-` also matches where
//! the previous tag ended); `>`, `<>` and every mode with `%` use its line scanner. Text after
//! an unterminated tag is output as text, as ERB does. A binding is the scope it was made in
//! (its `self`, constants, method frame and local variables) with a scope of its own for the
//! variables code given to it creates, as in Ruby.

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::methods::argc;
use crate::object::{Ctx, Env};
use crate::value::RValue;
use crate::{Piece, Pos};
use std::cell::RefCell;
use std::rc::Rc;

/// How ERB treats line breaks next to tags (`trim_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trim {
    /// Nothing trimmed.
    None,
    /// `>`: the line break after every `%>`.
    Gt,
    /// `<>`: the line break after a `%>` on a line that starts with a tag.
    LtGt,
    /// `-`: `<%-` drops the blanks before it, `-%>` the line break after it (Puppet's).
    Dash,
}

/// A trim mode: `%` lines (Ruby code lines starting with `%`) and the [`Trim`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrimMode {
    pub percent: bool,
    pub trim: Trim,
}

impl TrimMode {
    /// Puppet's `template()`/`inline_template()`: `trim_mode: '-'`.
    pub const PUPPET: TrimMode = TrimMode {
        percent: false,
        trim: Trim::Dash,
    };

    /// A mode given as a string, as ERB reads one: `%` anywhere adds `%` lines; then `-`,
    /// `<>` or `>`, the first of them that the text holds, in that order.
    ///
    /// ```
    /// use puppet_ruby::erb::{Trim, TrimMode};
    /// assert_eq!(TrimMode::parse("%<>"), TrimMode { percent: true, trim: Trim::LtGt });
    /// assert_eq!(TrimMode::parse(""), TrimMode { percent: false, trim: Trim::None });
    /// ```
    pub fn parse(mode: &str) -> TrimMode {
        let trim = if mode.contains('-') {
            Trim::Dash
        } else if mode.contains("<>") {
            Trim::LtGt
        } else if mode.contains('>') {
            Trim::Gt
        } else {
            Trim::None
        };
        TrimMode {
            percent: mode.contains('%'),
            trim,
        }
    }
}

/// Scans `src` into pieces as ERB's scanner for `mode` does. Never fails: an unterminated tag
/// runs to the end of the text (which ERB then outputs as text).
///
/// ```
/// use puppet_ruby::{erb::{scan, TrimMode}, Piece};
/// let p = scan("a <%= x -%>\n", TrimMode::PUPPET);
/// assert!(matches!(&p[..], [Piece::Text(t), Piece::Insert(c, _), Piece::Cr] if t == "a " && c == " x "));
/// ```
pub fn scan(src: &str, mode: TrimMode) -> Vec<Piece> {
    match (mode.percent, mode.trim) {
        (false, Trim::None) => scan_tags(src, false),
        (false, Trim::Dash) => scan_tags(src, true),
        _ => scan_lines(src, mode),
    }
}

/// Tracks line and column while walking the text.
struct Cursor<'a> {
    src: &'a str,
    at: usize,
    line: u32,
    column: u32,
}

impl<'a> Cursor<'a> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }
    fn rest(&self) -> &'a str {
        &self.src[self.at..]
    }
    fn advance(&mut self, n: usize) {
        let end = (self.at + n).min(self.src.len());
        let mut p = self.pos();
        p.advance_over(&self.src[self.at..end]);
        self.line = p.line;
        self.column = p.column;
        self.at = end;
    }
    fn at_line_start(&self, idx: usize) -> bool {
        idx == 0 || self.src.as_bytes().get(idx - 1) == Some(&b'\n')
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Stag {
    Code,
    Insert,
    Comment,
}

/// ERB's StringScanner scanners: `explicit` is trim mode `-` (Puppet's), else no trim mode.
///
/// Tags: `<%` code, `<%=` output, `<%#` comment, `<%%` (a literal `<%` in text), `%%>` (a
/// literal `%>` inside a tag); with `explicit`, `<%-` (which also drops the spaces and tabs
/// before it when they start a line or directly follow the previous tag: the scanner matches
/// `^[ \t]*<%-` with `^` anchored at its scan position, which is the end of the previous tag)
/// and `-%>` (which also drops one following line break). The pieces keep the line break
/// structure of the Ruby program ERB would generate, because a Ruby comment inside a code tag
/// swallows everything up to the next generated line break.
fn scan_tags(src: &str, explicit: bool) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut cur = Cursor {
        src,
        at: 0,
        line: 1,
        column: 1,
    };
    let mut content = String::new();
    let mut stag: Option<(Stag, Pos)> = None;
    while cur.at < src.len() {
        match stag {
            None => {
                // Find the earliest start tag.
                let rest = cur.rest();
                let mut found: Option<(usize, usize, &str)> = None; // (text_end, tag_len, tag)
                let bytes = rest.as_bytes();
                // The first `<%`; a `<%-` takes the spaces and tabs before it when they
                // start a line or the text after the previous tag (`^[ \t]*<%-`, `^` also
                // matching where Ruby's scanner resumes).
                let mut from = 0;
                while let Some(k) = memchr::memchr(b'<', &bytes[from..]) {
                    let i = from + k;
                    if !rest[i..].starts_with("<%") {
                        from = i + 1;
                        continue;
                    }
                    let tag = if explicit && rest[i..].starts_with("<%-") {
                        "<%-"
                    } else if rest[i..].starts_with("<%%") {
                        "<%%"
                    } else if rest[i..].starts_with("<%=") {
                        "<%="
                    } else if rest[i..].starts_with("<%#") {
                        "<%#"
                    } else {
                        "<%"
                    };
                    let mut ws = i;
                    if tag == "<%-" {
                        while ws > 0 && matches!(bytes[ws - 1], b' ' | b'\t') {
                            ws -= 1;
                        }
                        if ws == i || (ws > 0 && !cur.at_line_start(cur.at + ws)) {
                            ws = i;
                        }
                    }
                    found = Some((ws, i - ws + tag.len(), tag));
                    break;
                }
                match found {
                    None => {
                        content.push_str(rest);
                        cur.advance(rest.len());
                    }
                    Some((text_end, tag_len, tag)) => {
                        content.push_str(&rest[..text_end]);
                        cur.advance(text_end);
                        cur.advance(tag_len);
                        if tag == "<%%" {
                            content.push_str("<%");
                            continue;
                        }
                        if !content.is_empty() {
                            out.push(Piece::Text(std::mem::take(&mut content)));
                        }
                        let kind = match tag {
                            "<%=" => Stag::Insert,
                            "<%#" => Stag::Comment,
                            _ => Stag::Code,
                        };
                        stag = Some((kind, cur.pos()));
                    }
                }
            }
            Some((kind, start)) => {
                let rest = cur.rest();
                let mut found: Option<(usize, &str)> = None;
                let bytes = rest.as_bytes();
                // The first `%>`, `-%>` or `%%>`.
                let mut from = 0;
                while let Some(k) = memchr::memchr(b'%', &bytes[from..]) {
                    let i = from + k;
                    if rest[i..].starts_with("%>") {
                        found = Some(if explicit && i > 0 && bytes[i - 1] == b'-' {
                            (i - 1, "-%>")
                        } else {
                            (i, "%>")
                        });
                        break;
                    }
                    if rest[i..].starts_with("%%>") {
                        found = Some((i, "%%>"));
                        break;
                    }
                    from = i + 1;
                }
                let Some((end, tag)) = found else {
                    // Unterminated: ERB outputs what the tag holds as text.
                    content.push_str(rest);
                    cur.advance(rest.len());
                    break;
                };
                content.push_str(&rest[..end]);
                cur.advance(end + tag.len());
                if tag == "%%>" {
                    content.push_str("%>");
                    continue;
                }
                let code = std::mem::take(&mut content);
                push_content(&mut out, kind, code, start);
                stag = None;
                if tag == "-%>" {
                    let rest = cur.rest();
                    if rest.starts_with("\r\n") {
                        cur.advance(2);
                        out.push(Piece::Cr);
                    } else if rest.starts_with('\n') {
                        cur.advance(1);
                        out.push(Piece::Cr);
                    } else if rest.is_empty() {
                        out.push(Piece::Cr);
                    }
                }
            }
        }
    }
    if !content.is_empty() {
        out.push(Piece::Text(content));
    }
    out
}

/// What a closed tag makes: code (ending the generated line when it ends with a line
/// break), an output, or nothing (a comment).
fn push_content(out: &mut Vec<Piece>, kind: Stag, mut code: String, start: Pos) {
    match kind {
        Stag::Code => {
            if code.ends_with('\n') {
                code.pop();
                out.push(Piece::Code(code, start));
                out.push(Piece::Cr);
            } else {
                out.push(Piece::Code(code, start));
            }
        }
        Stag::Insert => out.push(Piece::Insert(code, start)),
        Stag::Comment => {}
    }
}

/// A token of ERB's line scanner, as its compiler receives it.
enum Tok<'a> {
    Text(&'a str),
    /// A generated line break (no output).
    Cr,
}

/// ERB's compiler over the line scanner's tokens (its `compile_stag`/`compile_etag`).
struct Compiler {
    out: Vec<Piece>,
    content: String,
    stag: Option<(Stag, Pos)>,
}

impl Compiler {
    fn flush(&mut self) {
        if !self.content.is_empty() {
            self.out
                .push(Piece::Text(std::mem::take(&mut self.content)));
        }
    }

    /// One token; `after` is the source position after it.
    fn token(&mut self, t: Tok, after: Pos) {
        match (self.stag, t) {
            (None, Tok::Cr) => self.out.push(Piece::Cr),
            (None, Tok::Text(s)) => match s {
                "<%" | "<%=" | "<%#" => {
                    let kind = match s {
                        "<%=" => Stag::Insert,
                        "<%#" => Stag::Comment,
                        _ => Stag::Code,
                    };
                    self.flush();
                    self.stag = Some((kind, after));
                }
                "\n" => {
                    self.content.push('\n');
                    self.flush();
                }
                "<%%" => self.content.push_str("<%"),
                other => self.content.push_str(other),
            },
            (Some((kind, start)), Tok::Text(s)) => match s {
                "%>" => {
                    let code = std::mem::take(&mut self.content);
                    push_content(&mut self.out, kind, code, start);
                    self.stag = None;
                }
                "%%>" => self.content.push_str("%>"),
                other => self.content.push_str(other),
            },
            // (The scanner makes a line break only after a closing tag.)
            (Some(_), Tok::Cr) => {}
        }
    }
}

/// ERB's line scanner (`TrimScanner`): trim modes `>` and `<>`, and every mode with `%`
/// lines, whose lines are scanned one by one.
fn scan_lines(src: &str, mode: TrimMode) -> Vec<Piece> {
    let mut c = Compiler {
        out: Vec::new(),
        content: String::new(),
        stag: None,
    };
    let mut pos = Pos { line: 1, column: 1 };
    if !mode.percent {
        scan_line(src, &mut pos, mode.trim, &mut c);
    } else {
        for line in src.split_inclusive('\n') {
            if c.stag.is_some() || !line.starts_with('%') {
                scan_line(line, &mut pos, mode.trim, &mut c);
                continue;
            }
            pos.advance_over("%");
            let rest = &line[1..];
            if rest.starts_with('%') {
                // `%%`: a line of text starting with `%`.
                scan_line(rest, &mut pos, mode.trim, &mut c);
                continue;
            }
            let code = rest.strip_suffix('\n').unwrap_or(rest);
            let code = code.strip_suffix('\r').unwrap_or(code);
            c.flush();
            c.out.push(Piece::Code(code.to_string(), pos));
            c.out.push(Piece::Cr);
            pos.advance_over(rest);
        }
    }
    c.flush();
    c.out
}

/// The earliest match at or after `at` of the line scanner's pattern for `trim`: its start
/// and length (ERB's `(.*?)(alternatives)`; at one position the first alternative wins).
fn next_token(s: &str, at: usize, trim: Trim) -> (usize, usize) {
    const TAGS: [&str; 6] = ["<%%", "<%=", "<%#", "<%", "%%>", "%>"];
    let b = s.as_bytes();
    for i in at..b.len() {
        let r = &s[i..];
        if !matches!(b[i], b'<' | b'%' | b'-' | b'\n' | b' ' | b'\t') {
            continue;
        }
        match trim {
            Trim::Dash => {
                if i == 0 || b[i - 1] == b'\n' {
                    let blanks = r.len() - r.trim_start_matches([' ', '\t']).len();
                    if r[blanks..].starts_with("<%-") {
                        return (i, blanks + 3);
                    }
                }
                if r.starts_with("<%-") {
                    return (i, 3);
                }
                for t in ["-%>\r\n", "-%>\n", "-%>"] {
                    if r.starts_with(t) {
                        return (i, t.len());
                    }
                }
            }
            Trim::Gt | Trim::LtGt => {
                for t in ["%>\r\n", "%>\n"] {
                    if r.starts_with(t) {
                        return (i, t.len());
                    }
                }
            }
            Trim::None => {}
        }
        if let Some(t) = TAGS.iter().find(|t| r.starts_with(**t)) {
            return (i, t.len());
        }
        if trim != Trim::Dash && b[i] == b'\n' {
            return (i, 1);
        }
    }
    (b.len(), 0)
}

/// Scans one line (or, without `%` lines, the whole text) for [`scan_lines`].
fn scan_line(s: &str, pos: &mut Pos, trim: Trim, c: &mut Compiler) {
    let mut at = 0;
    let mut head: Option<&str> = None;
    while at < s.len() {
        let (i, n) = next_token(s, at, trim);
        for tok in [&s[at..i], &s[i..i + n]] {
            if tok.is_empty() {
                continue;
            }
            pos.advance_over(tok);
            let after = *pos;
            let closes_line = matches!(tok, "%>\n" | "%>\r\n");
            match trim {
                Trim::None => c.token(Tok::Text(tok), after),
                Trim::Gt if closes_line => {
                    c.token(Tok::Text("%>"), after);
                    c.token(Tok::Cr, after);
                }
                Trim::Gt => c.token(Tok::Text(tok), after),
                Trim::LtGt => {
                    let first = *head.get_or_insert(tok);
                    if closes_line {
                        c.token(Tok::Text("%>"), after);
                        if matches!(first, "<%=" | "<%#" | "<%") {
                            c.token(Tok::Cr, after);
                        } else {
                            c.token(Tok::Text("\n"), after);
                        }
                        head = None;
                    } else {
                        c.token(Tok::Text(tok), after);
                        if tok == "\n" {
                            head = None;
                        }
                    }
                }
                Trim::Dash => {
                    if c.stag.is_none() && tok.trim_start_matches([' ', '\t']).starts_with("<%-") {
                        c.token(Tok::Text("<%"), after);
                    } else if c.stag.is_some() && matches!(tok, "-%>\n" | "-%>\r\n") {
                        c.token(Tok::Text("%>"), after);
                        c.token(Tok::Cr, after);
                    } else if c.stag.is_some() && tok == "-%>" {
                        c.token(Tok::Text("%>"), after);
                    } else {
                        c.token(Tok::Text(tok), after);
                    }
                }
            }
        }
        at = i + n;
    }
}

/// An `ERB` object: the template text and how to scan it; `filename` and `lineno` are where
/// its errors are reported (`(erb)` and 0 unless set).
pub(crate) struct ErbData {
    text: String,
    mode: TrimMode,
    filename: RefCell<RValue>,
    lineno: RefCell<RValue>,
}

/// A `Binding`: the scope it was made in, with a scope of its own for new variables.
pub(crate) struct BindingData {
    ctx: Ctx,
    pos: Pos,
}

/// `ERB.new(text, safe_level, trim_mode, eoutvar, trim_mode:, eoutvar:)`.
pub(crate) fn new(it: &mut Interp, args: &[RValue], kw: Option<&RValue>, pos: Pos) -> R {
    let mut kw_trim = RValue::Nil;
    if let Some(RValue::Hash(h)) = kw {
        for (k, v) in h.borrow().map.values() {
            match k {
                RValue::Sym(s) if &**s == "trim_mode" => kw_trim = v.clone(),
                RValue::Sym(s) if &**s == "eoutvar" => {
                    if !matches!(v, RValue::Str(s) if *s.borrow() == "_erbout") {
                        return unsupported("ERB.new with another `eoutvar'", pos);
                    }
                }
                other => {
                    return raise(
                        "ArgumentError",
                        format!("unknown keyword: {}", crate::value::inspect(other)),
                        pos,
                    )
                }
            }
        }
    }
    argc(args, 1, 4, pos)?;
    if args.len() == 4 && !matches!(&args[3], RValue::Str(s) if *s.borrow() == "_erbout") {
        return unsupported("ERB.new with another `eoutvar'", pos);
    }
    let trim = args.get(2).unwrap_or(&kw_trim);
    let mode = match trim {
        RValue::Int(1) => TrimMode::parse(">"),
        RValue::Int(2) => TrimMode::parse("<>"),
        RValue::Str(s) => TrimMode::parse(&s.borrow()),
        // 0, nil, and (after a warning) anything else.
        _ => TrimMode::parse(""),
    };
    let text = match &args[0] {
        RValue::Str(s) => s.borrow().clone(),
        other => {
            return raise(
                "NoMethodError",
                format!(
                    "undefined method `encoding' for {}",
                    crate::methods::describe(other)
                ),
                pos,
            )
        }
    };
    Ok(it.new_native(
        "ERB",
        ErbData {
            text,
            mode,
            filename: RefCell::new(RValue::Nil),
            lineno: RefCell::new(RValue::Int(0)),
        },
    ))
}

/// `Kernel#binding`: this scope.
pub(crate) fn binding_here(it: &mut Interp, pos: Pos) -> RValue {
    let mut ctx = it.ctx.clone();
    ctx.env = Env::child(&ctx.env);
    it.new_native("Binding", BindingData { ctx, pos })
}

/// The binding `v` is, if it is one.
pub(crate) fn as_binding(v: &RValue) -> Option<Rc<BindingData>> {
    match v {
        RValue::Object(o) => crate::puppet::native::<BindingData>(o),
        _ => None,
    }
}

/// `eval(code, binding, file, line)`: the code runs in the binding's scope.
pub(crate) fn eval_in(
    it: &mut Interp,
    b: &BindingData,
    code: &str,
    file: Option<&str>,
    line: u32,
    pos: Pos,
) -> R {
    let file = file.unwrap_or("(eval)");
    let locals = crate::call::visible_locals(&b.ctx.env);
    let prog = match crate::parser::parse_eval(code, file, line, &locals) {
        Ok(p) => p,
        Err(e) => return crate::call::eval_parse_error(e, file, pos),
    };
    it.run_eval_program(&prog, b.ctx.clone(), pos).0
}

/// A binding's scope for `ERB#result`: `TOPLEVEL_BINDING`'s (`self` is `main`, no
/// variables) when none is given.
fn toplevel(it: &mut Interp) -> Ctx {
    let mut ctx = it.ctx.clone();
    ctx.self_v = it.main();
    ctx.cref = Rc::new(crate::object::CRef {
        module: it.object_class(),
        parent: None,
    });
    ctx.def_target = it.object_class();
    ctx.env = Rc::new(Env::default());
    let f = &ctx.frame;
    ctx.frame = Rc::new(crate::object::Frame {
        name: None,
        owner: None,
        args: Vec::new(),
        block: None,
        file: f.file.clone(),
        frozen_literals: false,
        def: None,
        last_match: Default::default(),
    });
    ctx
}

/// Runs the template in `ctx`: its output.
fn render(it: &mut Interp, e: &ErbData, ctx: Ctx, pos: Pos) -> R {
    let file = match &*e.filename.borrow() {
        RValue::Nil => "(erb)".to_string(),
        RValue::Str(s) => s.borrow().clone(),
        other => return crate::interp::no_implicit_conversion(other, "String", pos),
    };
    // ERB's program starts with a `#coding:` line: the template's first line is `lineno + 1`.
    let lineno = match &*e.lineno.borrow() {
        RValue::Int(n) => u32::try_from(*n).unwrap_or(0),
        other => return crate::interp::no_implicit_conversion(other, "Integer", pos),
    };
    let locals = crate::call::visible_locals(&ctx.env);
    let pieces = scan(&e.text, e.mode);
    let prog = match crate::parser::parse_template_eval(pieces, &file, lineno + 1, &locals) {
        Ok(p) => p,
        Err(err) => return crate::call::eval_parse_error(err, &file, pos),
    };
    let out = std::mem::take(&mut it.out);
    let binary = std::mem::replace(&mut it.out_binary, false);
    let r = it.run_eval_program(&prog, ctx, pos).0;
    let text = std::mem::replace(&mut it.out, out);
    let text_binary = std::mem::replace(&mut it.out_binary, binary);
    r?;
    let s = RValue::string(text);
    if let RValue::Str(c) = &s {
        c.set_binary_to(text_binary);
    }
    Ok(s)
}

/// A local variable's name given to a binding's methods (a Symbol or String), checked.
fn local_name(b: &BindingData, v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    let name = match v {
        RValue::Sym(s) => s.to_string(),
        RValue::Str(s) => s.borrow().clone(),
        other => {
            return raise(
                "TypeError",
                format!(
                    "{} is not a symbol nor a string",
                    crate::value::inspect(other)
                ),
                pos,
            )
        }
    };
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c == '_' || c.is_lowercase() || !c.is_ascii())
        && chars.all(|c| c == '_' || c.is_alphanumeric());
    if !valid {
        return raise(
            "NameError",
            format!("wrong local variable name `{name}' for {}", inspect(b)),
            pos,
        );
    }
    Ok(name)
}

fn inspect(_b: &BindingData) -> String {
    "#<Binding>".to_string()
}

/// Methods of `ERB` objects (`library::object_method` finds `e` in the receiver); `None` for
/// other methods.
pub(crate) fn erb_method(
    it: &mut Interp,
    e: &ErbData,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "result" => (|| {
            argc(args, 0, 1, pos)?;
            let ctx = match args.first() {
                None => toplevel(it),
                Some(v) => match as_binding(v) {
                    Some(b) => b.ctx.clone(),
                    None => return wrong_binding(v, pos),
                },
            };
            render(it, e, ctx, pos)
        })(),
        "result_with_hash" => (|| {
            argc(args, 1, 1, pos)?;
            let RValue::Hash(h) = &args[0] else {
                return raise(
                    "NoMethodError",
                    format!(
                        "undefined method `keys' for {}",
                        crate::methods::describe(&args[0])
                    ),
                    pos,
                );
            };
            let ctx = toplevel(it);
            let pairs: Vec<(RValue, RValue)> = h.borrow().map.values().cloned().collect();
            let b = BindingData { ctx, pos };
            for (k, v) in pairs {
                let name = local_name(&b, &k, pos)?;
                b.ctx.env.set(&name, v);
            }
            render(it, e, b.ctx, pos)
        })(),
        "filename" => Ok(e.filename.borrow().clone()),
        "lineno" => Ok(e.lineno.borrow().clone()),
        "filename=" | "lineno=" => (|| {
            argc(args, 1, 1, pos)?;
            let slot = if name == "filename=" {
                &e.filename
            } else {
                &e.lineno
            };
            *slot.borrow_mut() = args[0].clone();
            Ok(args[0].clone())
        })(),
        "location=" => (|| {
            argc(args, 1, 1, pos)?;
            let (file, line) = match &args[0] {
                RValue::Array(a) => {
                    let a = a.borrow();
                    (a.first().cloned().unwrap_or_default(), a.get(1).cloned())
                }
                other => (other.clone(), None),
            };
            *e.filename.borrow_mut() = file;
            if let Some(l) = line.filter(|l| !matches!(l, RValue::Nil)) {
                *e.lineno.borrow_mut() = l;
            }
            Ok(args[0].clone())
        })(),
        "run" | "src" | "def_method" | "def_module" | "def_class" | "set_eoutvar" | "encoding" => {
            unsupported(format!("ERB#{name}"), pos)
        }
        _ => return None,
    })
}

fn wrong_binding(v: &RValue, pos: Pos) -> R {
    raise(
        "TypeError",
        format!("wrong argument type {} (expected binding)", v.class_name()),
        pos,
    )
}

/// Methods of bindings (found by `library::object_method`); `None` for other methods.
pub(crate) fn binding_method(
    it: &mut Interp,
    b: &BindingData,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "local_variable_get" => (|| {
            argc(args, 1, 1, pos)?;
            let n = local_name(b, &args[0], pos)?;
            match b.ctx.env.get(&n) {
                Some(v) => Ok(v),
                None => raise(
                    "NameError",
                    format!("local variable `{n}' is not defined for {}", inspect(b)),
                    pos,
                ),
            }
        })(),
        "local_variable_set" => (|| {
            argc(args, 2, 2, pos)?;
            let n = local_name(b, &args[0], pos)?;
            b.ctx.env.set(&n, args[1].clone());
            Ok(args[1].clone())
        })(),
        "local_variable_defined?" => (|| {
            argc(args, 1, 1, pos)?;
            let n = local_name(b, &args[0], pos)?;
            Ok(RValue::Bool(b.ctx.env.get(&n).is_some()))
        })(),
        "local_variables" => (|| {
            argc(args, 0, 0, pos)?;
            let names = crate::call::visible_locals(&b.ctx.env);
            Ok(RValue::array(
                names.iter().map(|n| RValue::sym(n)).collect(),
            ))
        })(),
        "receiver" => Ok(b.ctx.self_v.clone()),
        "source_location" => Ok(RValue::array(vec![
            RValue::str(&b.ctx.frame.file),
            RValue::Int(i64::from(b.pos.line)),
        ])),
        "eval" => (|| {
            argc(args, 1, 3, pos)?;
            if !matches!(&args[0], RValue::Str(_)) {
                return crate::interp::no_implicit_conversion(&args[0], "String", pos);
            }
            let (code, file, line) = crate::kernel::eval_string_args(&args[0], &args[1..], pos)?;
            eval_in(it, b, &code, file.as_deref(), line, pos)
        })(),
        "inspect" | "to_s" => Ok(RValue::string(inspect(b))),
        "irb" => unsupported("Binding#irb", pos),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str, mode: &str) -> Vec<String> {
        scan(src, TrimMode::parse(mode))
            .into_iter()
            .map(|p| match p {
                Piece::Text(t) => format!("T{t:?}"),
                Piece::Code(c, _) => format!("C{c:?}"),
                Piece::Insert(c, _) => format!("I{c:?}"),
                Piece::Cr => "CR".to_string(),
            })
            .collect()
    }

    #[test]
    fn puppets_trim_mode() {
        let t = |s| texts(s, "-");
        assert_eq!(
            t("a\n  <%- x -%>\nb"),
            vec!["T\"a\\n\"", "C\" x \"", "CR", "T\"b\""]
        );
        assert_eq!(t("a <%- x %>"), vec!["T\"a \"", "C\" x \""]);
        assert_eq!(t("<%% x %%> <%# c -%>\n"), vec!["T\"<% x %%> \"", "CR"]);
        assert_eq!(t("<%= 1 %%> %>"), vec!["I\" 1 %> \""]);
        // Right after a tag, `^` matches too (Puppet 7.23: "x<%= 1 %> <%- 2 -%>\ny" is "x1y").
        assert_eq!(
            t("x<%= 1 %> \t<%- 2 -%>\ny"),
            vec!["T\"x\"", "I\" 1 \"", "C\" 2 \"", "CR", "T\"y\""]
        );
        assert_eq!(t("<%% \t<%- 2 %>"), vec!["T\"<%\"", "C\" 2 \""]);
        assert_eq!(
            t("<% 1 %>a <%- 2 %>"),
            vec!["C\" 1 \"", "T\"a \"", "C\" 2 \""]
        );
        // An unterminated tag's text is output (Puppet 7.23: "a<% b" is "a b").
        assert_eq!(t("a<% b"), vec!["T\"a\"", "T\" b\""]);
    }

    #[test]
    fn other_trim_modes() {
        // No trim mode: `<%-` and `-%>` are plain tags holding a `-`.
        assert_eq!(texts("<%- x -%>", ""), vec!["C\"- x -\""]);
        assert_eq!(
            texts("<% a %>\nb<%= c %>\n", ">"),
            vec!["C\" a \"", "CR", "T\"b\"", "I\" c \"", "CR"]
        );
        // `<>`: only on a line that starts with a tag.
        assert_eq!(
            texts("<% a %>\nb<%= c %>\n", "<>"),
            vec!["C\" a \"", "CR", "T\"b\"", "I\" c \"", "T\"\\n\""]
        );
        assert_eq!(
            texts("% x = 1\n%% y\n<%= x %>\n", "%"),
            vec!["C\" x = 1\"", "CR", "T\"% y\\n\"", "I\" x \"", "T\"\\n\""]
        );
        // With `%` lines, `-` uses the line scanner: `^` only at a line's start.
        assert_eq!(
            texts("x<%= 1 %> \t<%- 2 -%>\ny", "%-"),
            vec![
                "T\"x\"",
                "I\" 1 \"",
                "T\" \\t\"",
                "C\" 2 \"",
                "CR",
                "T\"y\""
            ]
        );
    }
}
