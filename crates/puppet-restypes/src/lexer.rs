//! A tolerant tokenizer for the Ruby found in Puppet type files, enough to
//! find the type DSL statically: strings (with interpolation), heredocs,
//! `%w`/`%i`/`%q`/`%r` literals, regex literals, symbols, hash labels,
//! comments and `=begin`/`=end`, plus the matching of `do`/`def`/`if`/...
//! with `end` and of brackets. It never fails: unknown bytes become
//! punctuation, and an unterminated construct runs to the end of the file.

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// Identifier or keyword (may end in `?` or `!`).
    Ident(String),
    /// Constant (capitalised identifier).
    Const(String),
    /// `@x`, `@@x` or `$x`.
    Var(String),
    /// `:sym`, `:"sym"`.
    Sym(String),
    /// A string; `true` when it has no interpolation.
    Str(String, bool),
    /// `%w[...]` / `%i[...]` words.
    Words(Vec<String>),
    /// A regex literal: source (as Ruby's `Regexp#source`), options, and
    /// whether it has no interpolation.
    Regex(String, String, bool),
    /// A number.
    Num(String),
    /// `key:` in a hash or keyword argument.
    Label(String),
    /// Punctuation / operator.
    Punct(String),
    /// End of a line (statement separator).
    Newline,
}

/// A token with its 1-based line.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: u32,
    pub(crate) space_before: bool,
}

const KEYWORDS: &[&str] = &[
    "if", "unless", "while", "until", "case", "when", "then", "else", "elsif", "do", "end", "def",
    "class", "module", "begin", "rescue", "ensure", "return", "and", "or", "not", "yield", "for",
    "in", "super", "defined?", "break", "next", "redo", "retry",
];

fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

impl Token {
    /// Whether the token ends an expression (so a following `/` divides,
    /// `if` is a modifier, ...).
    fn ends_expr(&self) -> bool {
        match &self.tok {
            Tok::Ident(s) => {
                !is_keyword(s)
                    || matches!(
                        s.as_str(),
                        "end" | "return" | "break" | "next" | "redo" | "retry" | "super" | "yield"
                    )
            }
            Tok::Const(_)
            | Tok::Var(_)
            | Tok::Sym(_)
            | Tok::Str(..)
            | Tok::Words(_)
            | Tok::Regex(..)
            | Tok::Num(_) => true,
            Tok::Punct(p) => matches!(p.as_str(), ")" | "]" | "}"),
            Tok::Label(_) | Tok::Newline => false,
        }
    }
}

struct Lexer<'a> {
    s: Vec<char>,
    i: usize,
    line: u32,
    out: Vec<Token>,
    pending_heredocs: Vec<(String, bool, usize)>,
    _src: &'a str,
}

fn closing(c: char) -> char {
    match c {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    }
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn push(&mut self, tok: Tok, space_before: bool) {
        let line = self.line;
        self.out.push(Token {
            tok,
            line,
            space_before,
        });
    }

    fn prev_ends_expr(&self) -> bool {
        self.out.last().is_some_and(|t| t.ends_expr())
    }

    fn at_line_start(&self) -> bool {
        self.i == 0 || self.s.get(self.i - 1) == Some(&'\n')
    }

    /// Reads a delimited body starting after the opening delimiter `open`;
    /// returns the raw text and whether it interpolates.
    fn delimited(&mut self, open: char, interp: bool) -> (String, bool) {
        let close = closing(open);
        let nests = close != open;
        let mut depth = 0usize;
        let mut text = String::new();
        let mut has_interp = false;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == '\n' {
                self.line += 1;
            }
            if c == '\\' {
                if let Some(n) = self.peek(0) {
                    self.i += 1;
                    if n == '\n' {
                        self.line += 1;
                    }
                    text.push('\\');
                    text.push(n);
                }
                continue;
            }
            if interp && c == '#' && self.peek(0) == Some('{') {
                has_interp = true;
                self.i += 1;
                text.push_str("#{");
                self.skip_interpolation(&mut text);
                continue;
            }
            if nests && c == open {
                depth += 1;
            } else if c == close {
                if depth == 0 {
                    return (text, has_interp);
                }
                depth -= 1;
            }
            text.push(c);
        }
        (text, has_interp)
    }

    fn skip_interpolation(&mut self, text: &mut String) {
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == '\n' {
                self.line += 1;
            }
            text.push(c);
            match c {
                '{' => depth += 1,
                '}' => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                '"' | '\'' => {
                    let (t, _) = self.delimited(c, c == '"');
                    text.push_str(&t);
                    text.push(c);
                }
                _ => {}
            }
        }
    }

    fn unescape_single(raw: &str) -> String {
        let mut out = String::new();
        let mut it = raw.chars().peekable();
        while let Some(c) = it.next() {
            if c == '\\' && matches!(it.peek(), Some('\\' | '\'')) {
                if let Some(n) = it.next() {
                    out.push(n);
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    fn unescape_double(raw: &str) -> String {
        let mut out = String::new();
        let mut it = raw.chars();
        while let Some(c) = it.next() {
            if c == '\\' {
                match it.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('s') => out.push(' '),
                    Some('0') => out.push('\0'),
                    Some(n) => out.push(n),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    fn regex_source(raw: &str, delim: char) -> String {
        // Ruby's Regexp#source drops the backslash of an escaped delimiter.
        let mut out = String::new();
        let mut it = raw.chars().peekable();
        while let Some(c) = it.next() {
            if c == '\\' && it.peek() == Some(&delim) && delim == '/' {
                if let Some(n) = it.next() {
                    out.push(n);
                }
            } else {
                out.push(c);
                if c == '\\' {
                    if let Some(n) = it.next() {
                        out.push(n);
                    }
                }
            }
        }
        out
    }

    fn regex_flags(&mut self) -> String {
        let mut f = String::new();
        while let Some(c) = self.peek(0) {
            if matches!(c, 'i' | 'm' | 'x' | 'o' | 'u' | 'n' | 'e' | 's') {
                f.push(c);
                self.i += 1;
            } else {
                break;
            }
        }
        f
    }

    fn read_heredoc_bodies(&mut self) {
        let docs = std::mem::take(&mut self.pending_heredocs);
        for (id, squiggly_or_dash, idx) in docs {
            let mut body = String::new();
            loop {
                if self.i >= self.s.len() {
                    break;
                }
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != '\n' {
                    self.i += 1;
                }
                let line: String = self.s[start..self.i].iter().collect();
                if self.i < self.s.len() {
                    self.i += 1;
                }
                self.line += 1;
                let done = if squiggly_or_dash {
                    line.trim() == id
                } else {
                    line.trim_end_matches('\r') == id
                };
                if done {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if let Some(t) = self.out.get_mut(idx) {
                t.tok = Tok::Str(body, false);
            }
        }
    }

    fn run(&mut self) {
        let mut space = false;
        while let Some(c) = self.peek(0) {
            if c == '\n' {
                self.i += 1;
                let continues = matches!(self.out.last(), Some(Token { tok: Tok::Punct(p), .. })
                    if matches!(p.as_str(), "," | "=>" | "." | "&&" | "||" | "(" | "[" | "{" | "|" | "+" | "-" | "=" | "?" | ":" | "\\" | "&." | "<<" | "+=" | "||="))
                    || matches!(self.out.last(), Some(Token { tok: Tok::Ident(k), .. }) if k == "and" || k == "or");
                if !self.pending_heredocs.is_empty() {
                    self.line += 1;
                    self.read_heredoc_bodies();
                } else {
                    self.line += 1;
                }
                if !continues
                    && !matches!(
                        self.out.last(),
                        Some(Token {
                            tok: Tok::Newline,
                            ..
                        }) | None
                    )
                {
                    self.push(Tok::Newline, false);
                    if let Some(t) = self.out.last_mut() {
                        t.line = t.line.saturating_sub(1);
                    }
                }
                space = true;
                continue;
            }
            if c == ' ' || c == '\t' || c == '\r' {
                self.i += 1;
                space = true;
                continue;
            }
            if c == '\\' && self.peek(1) == Some('\n') {
                self.i += 2;
                self.line += 1;
                space = true;
                continue;
            }
            if c == '#' {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                continue;
            }
            if self.at_line_start() {
                let rest: String = self.s[self.i..].iter().take(7).collect();
                if rest.starts_with("=begin") {
                    while self.i < self.s.len() {
                        let start = self.i;
                        while self.i < self.s.len() && self.s[self.i] != '\n' {
                            self.i += 1;
                        }
                        let l: String = self.s[start..self.i].iter().collect();
                        if self.i < self.s.len() {
                            self.i += 1;
                            self.line += 1;
                        }
                        if l.starts_with("=end") {
                            break;
                        }
                    }
                    continue;
                }
                if rest.starts_with("__END__") {
                    break;
                }
            }
            let sp = space;
            space = false;
            self.token(c, sp);
        }
    }

    fn token(&mut self, c: char, sp: bool) {
        // identifiers, keywords, constants, labels
        if c.is_alphabetic() || c == '_' {
            let start = self.i;
            while self
                .peek(0)
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                self.i += 1;
            }
            if matches!(self.peek(0), Some('?' | '!')) && self.peek(1) != Some('=') {
                self.i += 1;
            }
            let word: String = self.s[start..self.i].iter().collect();
            let after_dot = matches!(self.out.last(), Some(Token { tok: Tok::Punct(p), .. }) if p == "." || p == "&.");
            if self.peek(0) == Some(':') && self.peek(1) != Some(':') && !after_dot {
                let prev_q =
                    matches!(self.out.last(), Some(Token { tok: Tok::Punct(p), .. }) if p == "?");
                if !prev_q {
                    self.i += 1;
                    self.push(Tok::Label(word), sp);
                    return;
                }
            }
            let tok = if c.is_uppercase() {
                Tok::Const(word)
            } else {
                Tok::Ident(word)
            };
            self.push(tok, sp);
            return;
        }
        if c.is_ascii_digit() {
            let start = self.i;
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                || (self.peek(0) == Some('.') && self.peek(1).is_some_and(|c| c.is_ascii_digit()))
            {
                self.i += 1;
            }
            let n: String = self.s[start..self.i].iter().collect();
            self.push(Tok::Num(n), sp);
            return;
        }
        match c {
            '@' | '$' => {
                let start = self.i;
                self.i += 1;
                if self.peek(0) == Some('@') {
                    self.i += 1;
                }
                if c == '$'
                    && self
                        .peek(0)
                        .is_some_and(|c| !c.is_alphanumeric() && c != '_')
                {
                    self.i += 1;
                } else {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                    {
                        self.i += 1;
                    }
                }
                let v: String = self.s[start..self.i].iter().collect();
                self.push(Tok::Var(v), sp);
            }
            '\'' | '"' | '`' => {
                self.i += 1;
                let (raw, interp) = self.delimited(c, c != '\'');
                let text = if c == '\'' {
                    Self::unescape_single(&raw)
                } else {
                    Self::unescape_double(&raw)
                };
                let tok = Tok::Str(text, !interp);
                self.push(tok, sp);
            }
            ':' if self.peek(1) == Some(':') => {
                self.i += 2;
                self.push(Tok::Punct("::".into()), sp);
            }
            ':' if self.peek(1) == Some('"') || self.peek(1) == Some('\'') => {
                let q = self.peek(1).unwrap_or('"');
                self.i += 2;
                let (raw, _) = self.delimited(q, q == '"');
                self.push(Tok::Sym(raw), sp);
            }
            ':' if self.peek(1).is_some_and(|c| c.is_alphabetic() || c == '_') => {
                self.i += 1;
                let start = self.i;
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
                {
                    self.i += 1;
                }
                if matches!(self.peek(0), Some('?' | '!' | '='))
                    && self.peek(1) != Some('>')
                    && self.peek(1) != Some('=')
                {
                    self.i += 1;
                }
                let s: String = self.s[start..self.i].iter().collect();
                self.push(Tok::Sym(s), sp);
            }
            '/' if !self.prev_ends_expr()
                || (sp
                    && matches!(
                        self.out.last(),
                        Some(Token {
                            tok: Tok::Ident(_),
                            ..
                        })
                    )
                    && self.peek(1).is_some_and(|c| c != ' ' && c != '=')) =>
            {
                self.i += 1;
                let (raw, interp) = self.delimited('/', true);
                let flags = self.regex_flags();
                self.push(
                    Tok::Regex(Self::regex_source(&raw, '/'), flags, !interp),
                    sp,
                );
            }
            '%' if (!self.prev_ends_expr()
                || (sp && self.peek(1).is_some_and(|c| c != ' ' && c != '=')))
                && self.percent_literal(sp) => {}
            '<' if self.peek(1) == Some('<') && self.heredoc_start(sp) => {}
            _ => {
                const OPS: &[&str] = &[
                    "**=", "<=>", "===", "...", "||=", "&&=", "<<=", ">>=", "=>", "==", "=~", "!=",
                    "!~", "<=", ">=", "&&", "||", "<<", ">>", "**", "->", "..", "+=", "-=", "*=",
                    "/=", "&.",
                ];
                for op in OPS {
                    let n = op.chars().count();
                    if self.s.len() >= self.i + n
                        && self.s[self.i..self.i + n].iter().copied().eq(op.chars())
                    {
                        self.i += n;
                        self.push(Tok::Punct((*op).to_string()), sp);
                        return;
                    }
                }
                self.i += 1;
                self.push(Tok::Punct(c.to_string()), sp);
            }
        }
    }

    fn percent_literal(&mut self, sp: bool) -> bool {
        let (kind, delim_at) = match self.peek(1) {
            Some(k @ ('w' | 'W' | 'i' | 'I' | 'q' | 'Q' | 'r' | 's')) => (k, 2),
            Some(d) if "([{<|!/".contains(d) => ('Q', 1),
            _ => return false,
        };
        let Some(delim) = self.peek(delim_at) else {
            return false;
        };
        if delim.is_alphanumeric() || delim.is_whitespace() {
            return false;
        }
        self.i += delim_at + 1;
        let interp = matches!(kind, 'W' | 'I' | 'Q' | 'r');
        let (raw, has_interp) = self.delimited(delim, interp);
        let tok = match kind {
            'w' | 'W' | 'i' | 'I' => {
                Tok::Words(raw.split_whitespace().map(str::to_string).collect())
            }
            'r' => {
                let flags = self.regex_flags();
                Tok::Regex(raw, flags, !has_interp)
            }
            's' => Tok::Sym(raw),
            'q' => Tok::Str(Self::unescape_single(&raw), true),
            _ => Tok::Str(Self::unescape_double(&raw), !has_interp),
        };
        self.push(tok, sp);
        true
    }

    fn heredoc_start(&mut self, sp: bool) -> bool {
        let mut k = 2;
        let mut indent = false;
        if matches!(self.peek(k), Some('~' | '-')) {
            indent = true;
            k += 1;
        }
        let quote = match self.peek(k) {
            Some(q @ ('\'' | '"' | '`')) => {
                k += 1;
                Some(q)
            }
            _ => None,
        };
        let start = self.i + k;
        let mut j = start;
        while self
            .s
            .get(j)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            j += 1;
        }
        if j == start {
            return false;
        }
        let id: String = self.s[start..j].iter().collect();
        if quote.is_none() && !indent && !id.chars().next().is_some_and(|c| c.is_uppercase()) {
            return false;
        }
        if quote.is_none() && !indent && self.prev_ends_expr() && !sp {
            return false;
        }
        if let Some(q) = quote {
            if self.s.get(j) != Some(&q) {
                return false;
            }
            j += 1;
        }
        self.i = j;
        let idx = self.out.len();
        self.push(Tok::Str(String::new(), quote == Some('\'')), sp);
        self.pending_heredocs.push((id, indent, idx));
        true
    }
}

/// Tokenizes `src`.
pub(crate) fn tokenize(src: &str) -> Vec<Token> {
    let mut lx = Lexer {
        s: src.chars().collect(),
        i: 0,
        line: 1,
        out: Vec::new(),
        pending_heredocs: Vec::new(),
        _src: src,
    };
    lx.run();
    lx.out
}

/// For every opener (`do`, `def`, block `if`, `(`, `{`, ...), the index of
/// its closer (`end`, `)`, `}`), or `tokens.len()` when unterminated.
pub(crate) fn match_blocks(tokens: &[Token]) -> Vec<Option<usize>> {
    let n = tokens.len();
    let mut close = vec![None; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut loop_pending_do = false;
    for i in 0..n {
        let prev = if i > 0 { Some(&tokens[i - 1]) } else { None };
        let after_dot = matches!(prev, Some(Token { tok: Tok::Punct(p), .. }) if p == "." || p == "&." || p == "::");
        let stmt_start = match prev {
            None => true,
            Some(t) => !t.ends_expr() || matches!(&t.tok, Tok::Newline),
        };
        match &tokens[i].tok {
            Tok::Ident(k) if !after_dot => match k.as_str() {
                "class" | "module" | "def" | "begin" | "case" => stack.push(i),
                "do" => {
                    if loop_pending_do {
                        loop_pending_do = false;
                    } else {
                        stack.push(i);
                    }
                }
                "if" | "unless" if stmt_start => stack.push(i),
                "while" | "until" | "for" if stmt_start => {
                    stack.push(i);
                    loop_pending_do = true;
                }
                "end" => {
                    // close the innermost keyword opener (brackets left open
                    // by broken code are abandoned)
                    while let Some(o) = stack.pop() {
                        if matches!(tokens[o].tok, Tok::Ident(_)) {
                            close[o] = Some(i);
                            break;
                        }
                        close[o] = Some(i);
                    }
                }
                _ => {}
            },
            Tok::Newline => loop_pending_do = false,
            Tok::Punct(p) => match p.as_str() {
                "(" | "[" | "{" => stack.push(i),
                ")" | "]" | "}" => {
                    if let Some(&o) = stack.last() {
                        if matches!(tokens[o].tok, Tok::Punct(_)) {
                            stack.pop();
                            close[o] = Some(i);
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    for o in stack {
        close[o] = Some(n);
    }
    close
}
