//! The translation of Ruby's (Onigmo's) regexp syntax into fancy-regex's (and
//! regex-syntax's), for [`crate::regexp`]: a scanner that reads the pattern as Onigmo does
//! and writes the pattern that matches the same, or refuses with a message naming the
//! construct our engines cannot express (never a pattern that matches differently).
//!
//! What differs and how it is written:
//! - `^`/`$` match at every line: a leading `(?m)`; Ruby's `m` option (dot matches newline)
//!   is Rust's `s`; extended mode (`x`) is applied here (white space and `#` comments
//!   dropped outside classes, kept inside them, as Onigmo does) and never handed on.
//! - `\w \d \s \h` and their negations are ASCII classes, as are Ruby's; POSIX brackets
//!   (`[[:alpha:]]`) and `\p{Alpha}`-style properties are Unicode ones.
//! - An option alone (`a(?i)b|c`) applies to the rest of its group, alternatives included:
//!   it becomes `a(?i:b|c)`.
//! - When a pattern has named groups, plain parentheses do not capture.
//! - Intervals: `{,n}` is `{0,n}`; an interval that is not one (`{`, `{x`, `{,}`) is
//!   literal text; `{n}?` is an optional `{n}` and `{n,m}+` a repeated one (no lazy or
//!   possessive exact intervals in Ruby); a quantifier on a quantifier or an anchor
//!   repeats a group around it.
//! - Escapes: octal (`\101`, `\0`), `\xHH` (UTF-8 sequences of them), `\u{...}`, `\cX`,
//!   `\e`, `\a`, `\v`, `\R`, `\/`, numbered back references as Onigmo tells them from octal
//!   codes.
//!
//! - Ignoring case, a class is written out with its case variants as Onigmo has them
//!   (`fold_class`: no variants from U+0080 to U+00FF, none across ASCII from `\w`).
//! - A greedy loop of a capturing group that can match empty ends, as Onigmo's does, with
//!   an empty iteration that sets the group: `(X)+` is written `(?:X)*(X)`.
//! - Look-behinds take what Onigmo takes (one length, no captures in negative ones).
//!
//! Refused: the absent operator `(?~...)`, subexpression calls `\g<...>`, `\X`, `\M-x`,
//! raw bytes that are not UTF-8, back reference levels (`\k<a+1>`), a group name used twice.
//!
//! Known differences left (scripts/regexp-diff.py finds them): Onigmo's multi-character
//! case folding (`/ss/i` matches "ß"), case-insensitive classes with intersections of
//! `\w`-like escapes, loops of zero-width groups, and Unicode versions (Ruby 3.1 has 13.0).

/// The translation of `src` with Ruby's options `flags` (`i`, `m`, `x`). With `for_test`, a
/// `\Z` that only closing groups follow consumes the final newline (see
/// `regexp::translate_for_test`); with `guard_caret`, `^` is Ruby's exact one (no match
/// after a newline that ends the text). `Err` names what Ruby or our engines refuse.
pub(crate) fn translate(
    src: &str,
    flags: &str,
    for_test: bool,
    guard_caret: bool,
) -> Result<String, String> {
    let chars: Vec<char> = src.chars().collect();
    let named = has_named_groups(&chars);
    let mut t = Tr {
        c: chars,
        i: 0,
        out: String::with_capacity(2 * src.len() + 16),
        named,
        groups: 0,
        x: flags.contains('x'),
        ci: flags.contains('i'),
        names: Vec::new(),
        frames: Vec::new(),
        top_extra: 0,
        atom: None,
        for_test,
        guard_caret,
    };
    t.out.push_str("(?m");
    if flags.contains('i') {
        t.out.push('i');
    }
    if flags.contains('m') {
        t.out.push('s');
    }
    t.out.push(')');
    t.run()?;
    Ok(t.out)
}

/// Whether a pattern has a named group (`(?<name>` or `(?'name'`): then plain parentheses
/// do not capture and numbered back references are errors.
fn has_named_groups(c: &[char]) -> bool {
    let mut i = 0;
    let mut class = 0usize;
    while i < c.len() {
        match c[i] {
            '\\' => i += 1,
            '[' => class += 1,
            ']' if class > 0 => class -= 1,
            '(' if class == 0 && c.get(i + 1) == Some(&'?') => match c.get(i + 2) {
                Some('\'') => return true,
                Some('<') if !matches!(c.get(i + 3), Some('=' | '!')) => return true,
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    false
}

/// An open group.
struct Frame {
    /// Where its text starts in the output (a quantifier after it repeats from there).
    start: usize,
    /// The extended mode outside it.
    x: bool,
    /// Groups opened by options alone (`(?i)`), closed with it.
    extra: usize,
    /// A look-around.
    look: bool,
    /// A look-behind; negative.
    behind: bool,
    negative_behind: bool,
    /// Case-insensitive outside it.
    ci: bool,
    /// Where its body starts in the output.
    body: usize,
    /// A capturing group, and the groups opened up to it (itself included).
    capture: bool,
    groups: usize,
}

/// The last thing written that a quantifier may repeat.
#[derive(Clone, Copy)]
struct Atom {
    start: usize,
    /// A quantifier on it needs a group around it: it is already quantified.
    wrap: bool,
    /// It matches no text (an anchor, a look-around): a quantifier with a minimum of 0
    /// leaves nothing (it may always match empty), any other leaves it as it is.
    zero_width: bool,
    /// For a capturing group without capturing groups inside: where its body starts.
    capture_body: Option<usize>,
}

struct Tr {
    c: Vec<char>,
    i: usize,
    out: String,
    named: bool,
    /// Capturing groups opened so far (Onigmo's count, for telling `\12` from octal).
    groups: usize,
    x: bool,
    /// Case-insensitive now.
    ci: bool,
    /// The group names so far.
    names: Vec<String>,
    frames: Vec<Frame>,
    /// Groups opened by options alone at the top level.
    top_extra: usize,
    atom: Option<Atom>,
    for_test: bool,
    guard_caret: bool,
}

/// Characters written with a backslash as literals (meta characters of regex-syntax,
/// in or out of a class).
fn push_literal(out: &mut String, c: char) {
    if matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    ) {
        out.push('\\');
        out.push(c);
    } else if c.is_control() {
        out.push_str(&format!("\\x{{{:x}}}", c as u32));
    } else {
        out.push(c);
    }
}

/// Ruby's white space of extended mode.
fn x_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

const ASCII_WORD: &str = "a-zA-Z0-9_";
const ASCII_SPACE: &str = " \\t\\n\\x0B\\x0C\\r";
const ASCII_HEX: &str = "0-9a-fA-F";

/// The class (inside brackets, without them) of a POSIX bracket or Onigmo property that
/// regex-syntax names differently, by Onigmo's Unicode definitions.
fn posix_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "\\p{Alphabetic}",
        "alnum" => "\\p{Alphabetic}\\p{Nd}",
        "digit" => "\\p{Nd}",
        "upper" => "\\p{Uppercase}",
        "lower" => "\\p{Lowercase}",
        "space" => "\\p{White_Space}",
        "blank" => "\\p{Zs}\\t",
        "cntrl" => "\\p{Cc}",
        "punct" => "\\p{P}$+<=>^`|~",
        "xdigit" => ASCII_HEX,
        "word" => "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}",
        "ascii" => "\\x00-\\x7F",
        // (Surrogates, also not graphic, never occur in a Rust string.)
        "graph" => "[^\\p{White_Space}\\p{Cc}\\p{Cn}]",
        "print" => "[^\\p{White_Space}\\p{Cc}\\p{Cn}]\\p{Zs}",
        _ => return None,
    })
}

impl Tr {
    fn peek(&self, k: usize) -> Option<char> {
        self.c.get(self.i + k).copied()
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(what.to_string())
    }

    /// Writes a quantifiable piece.
    fn atom_text(&mut self, text: &str, zero_width: bool) {
        let start = self.out.len();
        self.out.push_str(text);
        self.atom = Some(Atom {
            start,
            wrap: false,
            zero_width,
            capture_body: None,
        });
    }

    fn run(&mut self) -> Result<(), String> {
        while self.i < self.c.len() {
            let c = self.c[self.i];
            if self.x && x_space(c) {
                self.i += 1;
                continue;
            }
            if self.x && c == '#' {
                while self.i < self.c.len() && self.c[self.i] != '\n' {
                    self.i += 1;
                }
                continue;
            }
            match c {
                '\\' => self.escape()?,
                '[' => {
                    let (class, alt) = self.class()?;
                    let text = match self.ci {
                        true => fold_class(&class, &alt).unwrap_or(class),
                        false => class,
                    };
                    self.atom_text(&text, false);
                }
                '(' => self.open_group()?,
                ')' => {
                    let Some(f) = self.frames.pop() else {
                        return self.err("unmatched close parenthesis");
                    };
                    for _ in 0..f.extra {
                        self.out.push(')');
                    }
                    self.out.push(')');
                    self.x = f.x;
                    self.ci = f.ci;
                    self.i += 1;
                    self.atom = Some(Atom {
                        start: f.start,
                        wrap: false,
                        zero_width: f.look,
                        capture_body: (f.capture && self.groups == f.groups).then_some(f.body),
                    });
                }
                '|' => {
                    self.out.push('|');
                    self.i += 1;
                    self.atom = None;
                }
                '*' | '+' | '?' => {
                    self.i += 1;
                    self.quantifier(c.to_string(), true)?;
                }
                '{' => match self.interval()? {
                    Some((q, exact)) => self.quantifier(q, !exact)?,
                    None => {
                        self.i += 1;
                        self.atom_text("\\{", false);
                    }
                },
                '^' => {
                    self.i += 1;
                    let text = if self.guard_caret {
                        "(?:\\A|^(?!\\z))"
                    } else {
                        "^"
                    };
                    self.atom_text(text, true);
                }
                '$' => {
                    self.i += 1;
                    self.atom_text("$", true);
                }
                '.' => {
                    self.i += 1;
                    self.atom_text(".", false);
                }
                _ => {
                    self.i += 1;
                    self.literal_char(c);
                }
            }
        }
        if !self.frames.is_empty() {
            return self.err("end pattern with unmatched parenthesis");
        }
        for _ in 0..self.top_extra {
            self.out.push(')');
        }
        Ok(())
    }

    /// Writes the quantifier `q` (`*`, `{1,2}`, ...; the text after it not yet read) on
    /// the last atom; `modifiers`: a `?` after it makes it lazy and a `+` possessive (not
    /// after an exact interval, where they are quantifiers of their own).
    fn quantifier(&mut self, q: String, modifiers: bool) -> Result<(), String> {
        let Some(atom) = self.atom else {
            return self.err("target of repeat operator is not specified");
        };
        let exact = q.starts_with('{') && {
            let inner = &q[1..q.len() - 1];
            !inner.contains(',')
                || inner
                    .split_once(',')
                    .is_some_and(|(a, b)| a == b && !a.is_empty())
        };
        self.look_behind_check(exact)?;
        let (mut lazy, mut possessive) = (false, false);
        if modifiers && matches!(self.peek(0), Some('?' | '+')) {
            // `{n,m}+` is a repeat of its own in Ruby, not a possessive interval.
            if self.peek(0) == Some('?') {
                lazy = true;
                self.i += 1;
            } else if !q.starts_with('{') {
                possessive = true;
                self.i += 1;
            }
        }
        if atom.zero_width {
            // Repeating what matches no text: as often as it must, once; with a minimum
            // of 0, once or not at all (its groups set when it is taken).
            let min_zero = q == "*" || q == "?" || q.starts_with("{0") || q.starts_with("{,");
            if min_zero {
                let body = self.out.split_off(atom.start);
                self.out.push_str(&match (lazy, possessive) {
                    (true, _) => format!("(?:|{body})"),
                    (_, true) => format!("(?>{body}|)"),
                    _ => format!("(?:{body}|)"),
                });
            }
            self.atom = Some(atom);
            return Ok(());
        }
        if q == "{0}" || q == "{0,0}" {
            // Never the text, but its groups stay (unset); fancy-regex drops a group
            // repeated zero times.
            self.out.insert_str(atom.start, "(?:[^\\x00-\\x{10FFFF}]");
            self.out.push_str(")?");
            self.atom = Some(Atom {
                start: atom.start,
                wrap: true,
                zero_width: false,
                capture_body: None,
            });
            return Ok(());
        }
        if let (Some(body), false, false) = (atom.capture_body, lazy, possessive) {
            // Onigmo ends a greedy loop with the iteration that matched empty, its groups
            // kept: `"/a/" =~ /\/(.*)+\//` sets `$1` to "", where the automata keep the
            // last iteration that took text. When the group can match empty, its loop is
            // written as the loop of a copy that captures nothing, then the group once.
            let star = q == "*" || q == "{0,}";
            if star || q == "+" || q == "{1,}" {
                let group = self.out[atom.start..].to_string();
                let inner = &self.out[body..self.out.len() - 1];
                let nullable = regex_syntax::ParserBuilder::new()
                    .build()
                    .parse(&format!("(?:{inner})"))
                    .is_ok_and(|h| h.properties().minimum_len() == Some(0));
                if nullable {
                    let copy = format!("(?:{inner})*");
                    let text = if star {
                        format!("(?:{copy}{group})?")
                    } else {
                        format!("{copy}{group}")
                    };
                    self.out.truncate(atom.start);
                    self.out.push_str(&text);
                    self.atom = Some(Atom {
                        start: atom.start,
                        wrap: true,
                        zero_width: false,
                        capture_body: None,
                    });
                    return Ok(());
                }
            }
        }
        if atom.wrap {
            self.out.insert_str(atom.start, "(?:");
            self.out.push(')');
        }
        if possessive {
            self.out.insert_str(atom.start, "(?>");
        }
        self.out.push_str(&q);
        if lazy {
            self.out.push('?');
        }
        if possessive {
            // An atomic group: regex-syntax would read `a++` as `(?:a+)+`.
            self.out.push(')');
        }
        self.atom = Some(Atom {
            start: atom.start,
            wrap: true,
            zero_width: false,
            capture_body: None,
        });
        Ok(())
    }

    /// At a `{`: the interval quantifier it starts in Rust's syntax and whether it is an
    /// exact one (`{n}`), `None` when it is literal text (Onigmo's rules).
    fn interval(&mut self) -> Result<Option<(String, bool)>, String> {
        let mut j = self.i + 1;
        let digits = |j: &mut usize, c: &[char]| -> Option<u64> {
            let s = *j;
            let mut n: u64 = 0;
            while *j < c.len() && c[*j].is_ascii_digit() {
                n = n
                    .saturating_mul(10)
                    .saturating_add(c[*j] as u64 - '0' as u64);
                *j += 1;
            }
            (*j > s).then_some(n)
        };
        let low = digits(&mut j, &self.c);
        let (high, comma) = if self.c.get(j) == Some(&',') {
            j += 1;
            (digits(&mut j, &self.c), true)
        } else {
            (low, false)
        };
        if self.c.get(j) != Some(&'}') || (low.is_none() && (!comma || high.is_none())) {
            return Ok(None);
        }
        let low = low.unwrap_or(0);
        if low > 100_000 || high.is_some_and(|h| h > 100_000) {
            return self.err("too big number for repeat range");
        }
        if high.is_some_and(|h| h < low) {
            return self.err("upper is smaller than lower in repeat range");
        }
        self.i = j + 1;
        Ok(Some(match (comma, high) {
            (false, _) => (format!("{{{low}}}"), true),
            (true, None) => (format!("{{{low},}}"), false),
            (true, Some(h)) => (format!("{{{low},{h}}}"), false),
        }))
    }

    fn open_group(&mut self) -> Result<(), String> {
        let start = self.out.len();
        if self.peek(1) != Some('?') {
            self.i += 1;
            if !self.named && self.frames.iter().any(|f| f.negative_behind) {
                return self.err("invalid pattern in look-behind");
            }
            if self.named {
                self.out.push_str("(?:");
            } else {
                self.groups += 1;
                self.out.push('(');
            }
            self.push_frame(start);
            return Ok(());
        }
        match self.peek(2) {
            Some('#') => {
                // A comment: up to the first `)`; a quantifier after it repeats what came
                // before.
                while self.i < self.c.len() && self.c[self.i] != ')' {
                    if self.c[self.i] == '\\' {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                if self.i >= self.c.len() {
                    return self.err("end pattern in group");
                }
                self.i += 1;
                Ok(())
            }
            Some(':' | '=' | '!' | '>') => {
                self.look_behind_check(self.peek(2) == Some(':'))?;
                let text: String = self.c[self.i..self.i + 3].iter().collect();
                self.out.push_str(&text);
                self.i += 3;
                self.push_frame(start);
                Ok(())
            }
            Some('<') if matches!(self.peek(3), Some('=' | '!')) => {
                let text: String = self.c[self.i..self.i + 4].iter().collect();
                self.out.push_str(&text);
                self.i += 4;
                self.push_frame(start);
                Ok(())
            }
            Some(open @ ('<' | '\'')) => {
                let close = if open == '<' { '>' } else { '\'' };
                let mut j = self.i + 3;
                let mut name = String::new();
                while j < self.c.len() && self.c[j] != close {
                    name.push(self.c[j]);
                    j += 1;
                }
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                if j >= self.c.len() || !valid {
                    return self.err("invalid group name");
                }
                if self.names.contains(&name) {
                    return self.err("a group name used twice is not supported");
                }
                self.names.push(name.clone());
                if self.frames.iter().any(|f| f.negative_behind) {
                    return self.err("invalid pattern in look-behind");
                }
                self.out.push_str(&format!("(?<{name}>"));
                self.i = j + 1;
                self.groups += 1;
                self.push_frame(start);
                Ok(())
            }
            Some('~') => self.err("the absent operator (?~...) is not supported"),
            Some('(') => {
                // A conditional: `(?(1)yes|no)`, `(?(<name>)...)`.
                let mut j = self.i + 3;
                while j < self.c.len() && self.c[j] != ')' {
                    j += 1;
                }
                if j >= self.c.len() {
                    return self.err("invalid conditional pattern");
                }
                let cond: String = self.c[self.i + 3..j].iter().collect();
                if self.named && cond.chars().all(|c| c.is_ascii_digit()) {
                    return self.err("numbered backref/call is not allowed. (use name)");
                }
                let cond = cond
                    .strip_prefix('<')
                    .and_then(|c| c.strip_suffix('>'))
                    .or_else(|| cond.strip_prefix('\'').and_then(|c| c.strip_suffix('\'')))
                    .unwrap_or(&cond)
                    .to_string();
                self.out.push_str(&format!("(?({cond})"));
                self.i = j + 1;
                self.push_frame(start);
                Ok(())
            }
            _ => self.options(start),
        }
    }

    /// Inside a look-behind, where Onigmo takes only what has one length: no repeats
    /// but exact ones, no look-ahead, atomic group, back reference or `\\Z`, and no group
    /// that captures in a negative one.
    fn in_look_behind(&self) -> bool {
        self.frames.iter().any(|f| f.behind)
    }

    fn look_behind_check(&self, ok: bool) -> Result<(), String> {
        if !ok && self.in_look_behind() {
            return self.err("invalid pattern in look-behind");
        }
        Ok(())
    }

    fn push_frame(&mut self, start: usize) {
        self.frames.push(Frame {
            start,
            x: self.x,
            extra: 0,
            ci: self.ci,
            look: matches!(self.out.get(start..start + 3), Some("(?=" | "(?!"))
                || matches!(self.out.get(start..start + 4), Some("(?<=" | "(?<!")),
            behind: matches!(self.out.get(start..start + 4), Some("(?<=" | "(?<!")),
            negative_behind: self.out.get(start..start + 4) == Some("(?<!"),
            body: self.out.len(),
            capture: {
                let t = &self.out[start..];
                t == "("
                    || (t.starts_with("(?<") && !t.starts_with("(?<=") && !t.starts_with("(?<!"))
            },
            groups: self.groups,
        });
        self.atom = None;
    }

    /// `(?imx-imx)` or `(?imx-imx:...)`.
    fn options(&mut self, start: usize) -> Result<(), String> {
        let mut j = self.i + 2;
        let (mut on, mut off, mut neg, mut x) = (String::new(), String::new(), false, self.x);
        let mut ci = self.ci;
        while let Some(&c) = self.c.get(j) {
            match c {
                '-' if !neg => neg = true,
                'i' | 'm' | 'x' => {
                    if c == 'x' {
                        x = !neg;
                    } else {
                        if c == 'i' {
                            ci = !neg;
                        }
                        let r = if c == 'm' { 's' } else { 'i' };
                        if neg { &mut off } else { &mut on }.push(r);
                    }
                }
                _ => break,
            }
            j += 1;
        }
        let flags = match (on.is_empty(), off.is_empty()) {
            (_, true) => on,
            _ => format!("{on}-{off}"),
        };
        match self.c.get(j) {
            Some(':') => {
                self.out.push_str(&format!("(?{flags}:"));
                self.i = j + 1;
                self.push_frame(start);
                self.x = x;
                self.ci = ci;
                Ok(())
            }
            Some(')') => {
                // Alone: up to the end of the enclosing group, its alternatives included.
                self.out.push_str(&format!("(?{flags}:"));
                match self.frames.last_mut() {
                    Some(f) => f.extra += 1,
                    None => self.top_extra += 1,
                }
                self.i = j + 1;
                self.x = x;
                self.ci = ci;
                self.atom = None;
                Ok(())
            }
            _ => self.err("undefined group option"),
        }
    }

    /// A back reference by number (`\1`, `\k<1>`, `\k<-1>`).
    fn numbered_backref(&mut self, n: usize) -> Result<(), String> {
        self.look_behind_check(false)?;
        if self.named {
            return self.err("numbered backref/call is not allowed. (use name)");
        }
        if n == 0 || n > self.groups_total() {
            return self.err("invalid backref number/name");
        }
        self.atom_text(&format!("(?:\\{n})"), false);
        Ok(())
    }

    /// The number of capturing groups of the whole pattern.
    fn groups_total(&self) -> usize {
        let c = &self.c;
        let (mut i, mut class, mut n) = (0, 0usize, 0);
        while i < c.len() {
            match c[i] {
                '\\' => i += 1,
                '[' => class += 1,
                ']' if class > 0 => class -= 1,
                '(' if class == 0 && c.get(i + 1) != Some(&'?') => n += 1,
                _ => {}
            }
            i += 1;
        }
        n
    }

    /// An escape outside a class (`self.i` at the backslash).
    fn escape(&mut self) -> Result<(), String> {
        let Some(n) = self.peek(1) else {
            return self.err("too short escape sequence");
        };
        match n {
            'A' | 'z' | 'b' | 'B' | 'G' => {
                self.i += 2;
                self.atom_text(&format!("\\{n}"), true);
            }
            'Z' => {
                self.look_behind_check(false)?;
                let rest_closes = self.c[self.i + 2..].iter().all(|c| *c == ')');
                self.i += 2;
                let text = if self.for_test && rest_closes {
                    "\\n?\\z"
                } else {
                    "(?=\\n?\\z)"
                };
                self.atom_text(text, true);
            }
            'K' => {
                self.i += 2;
                self.out.push_str("\\K");
                self.atom = None;
            }
            'h' | 'H' | 'w' | 'W' | 'd' | 'D' | 's' | 'S' => {
                self.i += 2;
                let set = match n.to_ascii_lowercase() {
                    'h' => ASCII_HEX,
                    'w' => ASCII_WORD,
                    'd' => "0-9",
                    _ => ASCII_SPACE,
                };
                let neg = if n.is_ascii_uppercase() { "^" } else { "" };
                // Ruby's ASCII classes stay ASCII when ignoring case (no Kelvin sign in
                // `/\\w/i`); their ASCII members are closed under case already.
                let text = if self.ci {
                    format!("(?-i:[{neg}{set}])")
                } else {
                    format!("[{neg}{set}]")
                };
                self.atom_text(&text, false);
            }
            'R' => {
                self.i += 2;
                self.atom_text(
                    "(?>\\r\\n|[\\n\\x0B\\x0C\\r\\x{85}\\x{2028}\\x{2029}])",
                    false,
                );
            }
            'p' | 'P' => {
                let class = self.property()?;
                let text = match self.ci {
                    true => fold_class(&class, &class).unwrap_or(class),
                    false => class,
                };
                self.atom_text(&text, false);
            }
            'X' => return self.err("\\X (an extended grapheme cluster) is not supported"),
            'g' => return self.err("subexpression calls (\\g<...>) are not supported"),
            'k' => {
                let open = self.peek(2);
                let close = match open {
                    Some('<') => '>',
                    Some('\'') => '\'',
                    _ => return self.err("invalid backref number/name"),
                };
                let mut j = self.i + 3;
                let mut name = String::new();
                while j < self.c.len() && self.c[j] != close {
                    name.push(self.c[j]);
                    j += 1;
                }
                if j >= self.c.len() || name.is_empty() {
                    return self.err("invalid backref number/name");
                }
                self.i = j + 1;
                if let Ok(k) = name.parse::<i64>() {
                    let n = if k < 0 { self.groups as i64 + 1 + k } else { k };
                    return self.numbered_backref(usize::try_from(n).unwrap_or(0));
                }
                if name.contains(['+', '-']) {
                    return self.err("back reference levels (\\k<name+n>) are not supported");
                }
                self.look_behind_check(false)?;
                self.atom_text(&format!("\\k<{name}>"), false);
            }
            '1'..='9' => {
                let mut j = self.i + 1;
                let mut num: usize = 0;
                while j < self.c.len() && self.c[j].is_ascii_digit() {
                    num = num
                        .saturating_mul(10)
                        .saturating_add(self.c[j] as usize - '0' as usize);
                    j += 1;
                }
                if num <= 9 || num <= self.groups {
                    self.i = j;
                    return self.numbered_backref(num);
                }
                if n == '8' || n == '9' {
                    self.i += 2;
                    self.atom_text(&n.to_string(), false);
                } else {
                    self.i += 1;
                    let c = self.octal(3)?;
                    self.literal_char(c);
                }
            }
            '0' => {
                self.i += 1;
                let c = self.octal(3)?;
                self.literal_char(c);
            }
            _ => {
                let c = self.char_escape()?;
                self.literal_char(c);
            }
        }
        Ok(())
    }

    fn literal_char(&mut self, c: char) {
        let start = self.out.len();
        push_literal(&mut self.out, c);
        self.atom = Some(Atom {
            start,
            wrap: false,
            zero_width: false,
            capture_body: None,
        });
    }

    /// Up to `max` octal digits at `self.i` (at least one there): the character.
    fn octal(&mut self, max: usize) -> Result<char, String> {
        let mut code = 0u32;
        let mut k = 0;
        while k < max && self.i < self.c.len() && ('0'..='7').contains(&self.c[self.i]) {
            code = code * 8 + (self.c[self.i] as u32 - '0' as u32);
            self.i += 1;
            k += 1;
        }
        if code > 0x7f {
            return self.err("invalid multibyte escape");
        }
        char::from_u32(code).ok_or_else(|| "invalid code point".to_string())
    }

    /// A character escape at `self.i` (the backslash) other than the classes, anchors,
    /// back references and octal codes: the character it stands for.
    fn char_escape(&mut self) -> Result<char, String> {
        let n = self.peek(1).ok_or("too short escape sequence")?;
        self.i += 2;
        Ok(match n {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\x0c',
            'v' => '\x0b',
            'a' => '\x07',
            'e' => '\x1b',
            'x' => return self.hex_bytes(),
            'u' => return self.unicode(),
            'c' => return self.control(),
            'C' => {
                if self.peek(0) != Some('-') {
                    return self.err("invalid control-code syntax");
                }
                self.i += 1;
                return self.control();
            }
            'M' => return self.err("meta escapes (\\M-x) are not supported"),
            'p' | 'P' => return self.err("a property where a character is needed"),
            other => other,
        })
    }

    /// `\cX`: the control character of X (after the `c` or `C-`).
    fn control(&mut self) -> Result<char, String> {
        let Some(c) = self.peek(0) else {
            return self.err("end pattern at control");
        };
        if !c.is_ascii() || c == '\\' {
            return self.err("control escapes of this character are not supported");
        }
        self.i += 1;
        Ok(if c == '?' {
            '\x7f'
        } else {
            char::from(c as u8 & 0x1f)
        })
    }

    /// `\xHH` (after the `x`): one or two hex digits, a byte; bytes above ASCII must form a
    /// UTF-8 character with the `\xHH` escapes that follow.
    fn hex_bytes(&mut self) -> Result<char, String> {
        let byte = |t: &mut Tr| -> Option<u8> {
            let mut v = 0u32;
            let mut k = 0;
            while k < 2 {
                match t.peek(0).and_then(|c| c.to_digit(16)) {
                    Some(d) => {
                        v = v * 16 + d;
                        t.i += 1;
                        k += 1;
                    }
                    None => break,
                }
            }
            (k > 0).then_some(v as u8)
        };
        if self.peek(0) == Some('{') {
            let mut j = self.i + 1;
            let mut v = 0u32;
            while j < self.c.len() && self.c[j].is_ascii_hexdigit() && j < self.i + 10 {
                v = v * 16 + self.c[j].to_digit(16).unwrap_or(0);
                j += 1;
            }
            if self.c.get(j) != Some(&'}') || j == self.i + 1 {
                return self.err("invalid code point value");
            }
            self.i = j + 1;
            return char::from_u32(v).ok_or_else(|| "invalid code point value".to_string());
        }
        let Some(first) = byte(self) else {
            return self.err("invalid hex escape");
        };
        if first < 0x80 {
            return Ok(char::from(first));
        }
        let len = match first {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return self.err("invalid multibyte escape"),
        };
        let mut bytes = vec![first];
        while bytes.len() < len {
            if self.peek(0) != Some('\\') || self.peek(1) != Some('x') {
                return self.err("invalid multibyte escape");
            }
            self.i += 2;
            match byte(self) {
                Some(b) => bytes.push(b),
                None => return self.err("invalid hex escape"),
            }
        }
        std::str::from_utf8(&bytes)
            .ok()
            .and_then(|s| s.chars().next())
            .ok_or_else(|| "invalid multibyte escape".to_string())
    }

    /// `\uHHHH` or `\u{H...}` (after the `u`; one code point).
    fn unicode(&mut self) -> Result<char, String> {
        if self.peek(0) == Some('{') {
            let mut j = self.i + 1;
            let mut hex = String::new();
            while j < self.c.len() && self.c[j] != '}' {
                hex.push(self.c[j]);
                j += 1;
            }
            let hex = hex.trim();
            if j >= self.c.len() || hex.is_empty() {
                return self.err("invalid Unicode escape");
            }
            if hex.contains(char::is_whitespace) {
                return self.err("several code points in one \\u{...} are not supported");
            }
            self.i = j + 1;
            return u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| "invalid Unicode escape".to_string());
        }
        let hex: String = self.c[self.i..].iter().take(4).collect();
        if hex.len() != 4 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return self.err("invalid Unicode escape");
        }
        self.i += 4;
        u32::from_str_radix(&hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| "invalid Unicode escape".to_string())
    }

    /// `\p{Name}`, `\p{^Name}`, `\P{Name}` at `self.i`: a class (with brackets).
    fn property(&mut self) -> Result<String, String> {
        let upper = self.peek(1) == Some('P');
        if self.peek(2) != Some('{') {
            return self.err("invalid character property name {p}");
        }
        let mut j = self.i + 3;
        let mut name = String::new();
        while j < self.c.len() && self.c[j] != '}' {
            name.push(self.c[j]);
            j += 1;
        }
        if j >= self.c.len() {
            return self.err("invalid character property name");
        }
        self.i = j + 1;
        let mut neg = upper;
        let name = match name.strip_prefix('^') {
            Some(n) => {
                neg = !neg;
                n.to_string()
            }
            None => name,
        };
        let key: String = name
            .chars()
            .filter(|c| !matches!(c, ' ' | '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect();
        let neg = if neg { "^" } else { "" };
        if let Some(set) = posix_class(&key) {
            return Ok(format!("[{neg}{set}]"));
        }
        if key == "any" {
            return Ok(format!("[{neg}\\x00-\\x{{10FFFF}}]"));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-'))
        {
            return self.err("invalid character property name");
        }
        Ok(format!("[{neg}\\p{{{name}}}]"))
    }

    /// A bracket class at `self.i` (the `[`), written as regex-syntax's, and the same
    /// class without its ASCII-only escapes (`\\w`, `\\d`, `\\s`, `\\h` and their negations;
    /// see [`fold_class`]).
    fn class(&mut self) -> Result<(String, String), String> {
        self.i += 1;
        let mut out = String::from("[");
        let mut alt = String::from("[");
        if self.peek(0) == Some('^') {
            out.push('^');
            alt.push('^');
            self.i += 1;
        }
        let mut first = true;
        loop {
            let Some(c) = self.peek(0) else {
                return self.err("premature end of char-class");
            };
            match c {
                ']' if !first => {
                    self.i += 1;
                    break;
                }
                '[' if self.peek(1) == Some(':') => {
                    if let Some(set) = self.posix_bracket()? {
                        out.push_str(&set);
                        alt.push_str(&set);
                    } else {
                        let (o, a) = self.class()?;
                        out.push_str(&o);
                        alt.push_str(&a);
                    }
                }
                '[' => {
                    let (o, a) = self.class()?;
                    out.push_str(&o);
                    alt.push_str(&a);
                }
                '&' if self.peek(1) == Some('&') => {
                    self.i += 2;
                    out.push_str("&&");
                    alt.push_str("&&");
                }
                _ => {
                    let item = self.class_item()?;
                    match item {
                        ClassItem::Set(s, ascii) => {
                            if self.peek(0) == Some('-')
                                && !matches!(self.peek(1), Some(']') | None)
                                && !(self.peek(1) == Some('&') && self.peek(2) == Some('&'))
                            {
                                return self.err("unmatched range specifier in char-class");
                            }
                            out.push_str(&s);
                            alt.push_str(if ascii { EMPTY_CLASS } else { &s });
                        }
                        ClassItem::Char(a) => {
                            let from = out.len();
                            let piece = &mut out;
                            if self.peek(0) == Some('-')
                                && !matches!(self.peek(1), Some(']') | None)
                                && !(self.peek(1) == Some('&') && self.peek(2) == Some('&'))
                            {
                                self.i += 1;
                                if self.peek(0) == Some('[') && self.peek(1) == Some(':') {
                                    return self.err("char-class value at end of range");
                                }
                                if self.peek(0) == Some('[') {
                                    // `[a-[b]]`: the `-` is literal.
                                    push_literal(piece, a);
                                    piece.push_str("\\-");
                                } else {
                                    match self.class_item()? {
                                        ClassItem::Char(b) => {
                                            if b < a {
                                                return self.err("empty range in char class");
                                            }
                                            push_literal(piece, a);
                                            piece.push('-');
                                            push_literal(piece, b);
                                        }
                                        ClassItem::Set(..) => {
                                            return self.err("char-class value at end of range")
                                        }
                                    }
                                }
                            } else {
                                push_literal(piece, a);
                            }
                            alt.push_str(&out[from..]);
                        }
                    }
                }
            }
            first = false;
        }
        out.push(']');
        alt.push(']');
        Ok((out, alt))
    }

    /// `[:name:]` or `[:^name:]` at `self.i`: its class, or `None` when this is not a POSIX
    /// bracket (a nested class that starts with `:`).
    fn posix_bracket(&mut self) -> Result<Option<String>, String> {
        let mut j = self.i + 2;
        let neg = self.c.get(j) == Some(&'^');
        if neg {
            j += 1;
        }
        let mut name = String::new();
        while j < self.c.len() && self.c[j].is_ascii_alphabetic() {
            name.push(self.c[j]);
            j += 1;
        }
        if self.c.get(j) != Some(&':') || self.c.get(j + 1) != Some(&']') {
            return Ok(None);
        }
        let Some(set) = posix_class(&name) else {
            return self.err("invalid POSIX bracket type");
        };
        self.i = j + 2;
        Ok(Some(format!("[{}{set}]", if neg { "^" } else { "" })))
    }

    /// One member of a class that is not a nested class.
    fn class_item(&mut self) -> Result<ClassItem, String> {
        let c = self.c[self.i];
        if c != '\\' {
            self.i += 1;
            return Ok(ClassItem::Char(c));
        }
        let Some(n) = self.peek(1) else {
            return self.err("premature end of char-class");
        };
        Ok(match n {
            'h' | 'H' | 'w' | 'W' | 'd' | 'D' | 's' | 'S' => {
                self.i += 2;
                let set = match n.to_ascii_lowercase() {
                    'h' => ASCII_HEX,
                    'w' => ASCII_WORD,
                    'd' => "0-9",
                    _ => ASCII_SPACE,
                };
                if n.is_ascii_uppercase() {
                    ClassItem::Set(format!("[^{set}]"), true)
                } else {
                    ClassItem::Set(set.to_string(), true)
                }
            }
            'p' | 'P' => ClassItem::Set(self.property()?, false),
            'b' => {
                self.i += 2;
                ClassItem::Char('\x08')
            }
            '0'..='7' => {
                self.i += 1;
                ClassItem::Char(self.octal(3)?)
            }
            'R' | 'X' | 'g' | 'k' | 'K' | 'G' | 'A' | 'z' | 'Z' | 'B' => {
                return self.err(&format!("\\{n} in a character class is not supported"))
            }
            _ => ClassItem::Char(self.char_escape()?),
        })
    }
}

enum ClassItem {
    Char(char),
    /// A class; whether it is one of Ruby's ASCII-only ones (`\\w`).
    Set(String, bool),
}

/// A class that matches nothing.
const EMPTY_CLASS: &str = "[^\\x00-\\x{10FFFF}]";

/// The class `full` (with brackets, regex-syntax's syntax) as Onigmo matches it when
/// ignoring case, written out with case-insensitivity off: its members, and the case
/// variants (simple folding) of its members but those Onigmo loses: variants from U+0080
/// to U+00FF (its case-folded classes keep code points below 256 in a table that only
/// single-byte characters reach: `/[éa]/i` does not match `É`, `/[ωa]/i` matches `Ω`), and
/// the variant across ASCII (the Kelvin sign and `k`, the long s and `s`) of a member that
/// only an ASCII-only escape brought (`alt` is the class without those: `/[\\w]/i` has no
/// Kelvin sign, `/[a-z]/i` has). A class of one character is a string to Onigmo, folded
/// fully: `None`, as for a class regex-syntax cannot read (the caller keeps `full`).
fn fold_class(full: &str, alt: &str) -> Option<String> {
    use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};
    let negated = full.starts_with("[^");
    let positive = |t: &str| {
        if negated {
            format!("[{}", &t[2..])
        } else {
            t.to_string()
        }
    };
    let parse = |t: &str| -> Option<ClassUnicode> {
        let hir = regex_syntax::ParserBuilder::new().build().parse(t).ok()?;
        match hir.kind() {
            HirKind::Class(Class::Unicode(c)) => Some(c.clone()),
            // An empty class (regex-syntax's "fail").
            HirKind::Class(Class::Bytes(b)) if b.ranges().is_empty() => Some(ClassUnicode::empty()),
            _ => None,
        }
    };
    let set = parse(&positive(full))?;
    let asc = parse(&positive(alt)).unwrap_or_else(|| set.clone());
    let single = set.ranges().len() == 1 && set.ranges()[0].start() == set.ranges()[0].end();
    if single && !negated {
        return None;
    }
    let mut added = set.clone();
    added.try_case_fold_simple().ok()?;
    added.difference(&set);
    // (But for the sharp s of the capital one, U+1E9E, which Onigmo folds apart.)
    let latin1 = ClassUnicode::new([
        ClassUnicodeRange::new('\u{80}', '\u{de}'),
        ClassUnicodeRange::new('\u{e0}', '\u{ff}'),
    ]);
    added.difference(&latin1);
    let has =
        |c: &ClassUnicode, ch: char| c.ranges().iter().any(|r| r.start() <= ch && ch <= r.end());
    let one = |ch: char| ClassUnicode::new([ClassUnicodeRange::new(ch, ch)]);
    for (wide, lower, upper) in [('\u{212a}', 'k', 'K'), ('\u{17f}', 's', 'S')] {
        if has(&added, wide) && !has(&asc, lower) && !has(&asc, upper) {
            added.difference(&one(wide));
        }
        for (ascii, other) in [(lower, upper), (upper, lower)] {
            if has(&added, ascii) && !has(&set, other) && !has(&asc, wide) {
                added.difference(&one(ascii));
            }
        }
    }
    let mut folded = set;
    folded.union(&added);
    let mut out = String::from(if negated { "(?-i:[^" } else { "(?-i:[" });
    for r in folded.ranges() {
        out.push_str(&format!("\\x{{{:x}}}", r.start() as u32));
        if r.end() > r.start() {
            out.push_str(&format!("-\\x{{{:x}}}", r.end() as u32));
        }
    }
    if folded.ranges().is_empty() {
        return Some(if negated {
            "(?s:.)".to_string()
        } else {
            EMPTY_CLASS.to_string()
        });
    }
    out.push_str("])");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn forms() {
        let t = |p: &str, f: &str| translate(p, f, false, false);
        assert_eq!(t("a(?i)b|c", "").unwrap(), "(?m)a(?i:b|c)");
        assert_eq!(t("(?<n>a)(b)", "").unwrap(), "(?m)(?<n>a)(?:b)");
        assert_eq!(t("a{,2}b{x", "").unwrap(), "(?m)a{0,2}b\\{x");
        assert_eq!(t("a{2}?", "").unwrap(), "(?m)(?:a{2})?");
        assert_eq!(t("a b # c\n[ ]", "x").unwrap(), "(?m)ab[ ]");
        assert!(t("a{2,1}", "").is_err());
        assert!(t("(?~a)", "").is_err());
        assert!(t("(?<a>x)\\1", "").is_err());
    }
}
