//! A small matcher for the Ruby regular expressions used in title patterns
//! (`^(.*?)/*\Z`, `^([^:]+)::(.*)$`, `(?-mix:...)` groups, classes,
//! alternation, counted repetition), with Ruby's semantics: `^`/`$` are line
//! anchors, `\A`/`\z`/`\Z` string anchors, and the `m` option lets `.` match
//! a newline. It is a backtracking matcher over a compiled program that
//! never revisits a (state, position) pair, so it runs in time proportional
//! to pattern size times input size and cannot blow up. Unsupported syntax
//! (backreferences, lookbehind, possessive quantifiers, ...) is an error.

use std::fmt;

/// A compile error: the construct that is not supported or malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError(pub String);

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RegexError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    LineStart,
    LineEnd,
    TextStart,
    TextEnd,
    TextEndNewline,
    WordBoundary,
    NotWordBoundary,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ClassItem {
    Range(char, char),
    Perl(char),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Empty,
    Char(char, bool),
    Any(bool),
    Class(Vec<ClassItem>, bool, bool),
    Group(Box<Node>, Option<usize>),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>, bool),
    Assert(Anchor),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Inst {
    Char(char, bool),
    Any(bool),
    Class(Vec<ClassItem>, bool, bool),
    Split(usize, usize),
    Jmp(usize),
    Save(usize),
    Assert(Anchor),
    Match,
}

const MAX_PROGRAM: usize = 20_000;
const MAX_STATES: usize = 50_000_000;
const MAX_DEPTH: usize = 200;

/// A compiled Ruby regular expression (the subset title patterns use).
///
/// ```
/// use puppet_restypes::RubyRegex;
/// let re = RubyRegex::new(r"^(/|.+:/|.*[^/])/*\Z", true, false, false).unwrap();
/// let caps = re.captures("/tmp/x//").unwrap();
/// assert_eq!(caps[1].as_deref(), Some("/tmp/x"));
/// ```
#[derive(Debug, Clone)]
pub struct RubyRegex {
    prog: Vec<Inst>,
    groups: usize,
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    groups: usize,
    src: &'a str,
    depth: usize,
}

#[derive(Clone, Copy)]
struct Flags {
    dotall: bool,
    icase: bool,
    extended: bool,
}

impl Parser<'_> {
    fn err<T>(&self, what: &str) -> Result<T, RegexError> {
        Err(RegexError(format!(
            "{what} at offset {} in /{}/",
            self.pos, self.src
        )))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn parse_alt(&mut self, flags: Flags) -> Result<Node, RegexError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nesting too deep");
        }
        let mut alts = vec![self.parse_concat(flags)?];
        while self.eat('|') {
            alts.push(self.parse_concat(flags)?);
        }
        self.depth -= 1;
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alts)
        })
    }

    fn parse_concat(&mut self, mut flags: Flags) -> Result<Node, RegexError> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            if flags.extended && c.is_whitespace() {
                self.pos += 1;
                continue;
            }
            if flags.extended && c == '#' {
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == '\n' {
                        break;
                    }
                }
                continue;
            }
            // inline flags without a group body: (?i) applies to the rest
            if c == '(' && self.chars.get(self.pos + 1) == Some(&'?') {
                let save = self.pos;
                self.pos += 2;
                if let Some(f) = self.parse_flag_letters(flags)? {
                    if self.eat(')') {
                        flags = f;
                        continue;
                    }
                }
                self.pos = save;
            }
            let atom = self.parse_atom(flags)?;
            let atom = self.parse_quant(atom)?;
            items.push(atom);
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(items),
        })
    }

    /// Parses `[imx]*(-[imx]*)?` after `(?`; `None` when not flag letters.
    fn parse_flag_letters(&mut self, flags: Flags) -> Result<Option<Flags>, RegexError> {
        let start = self.pos;
        let mut f = flags;
        let mut on = true;
        while let Some(c) = self.peek() {
            match c {
                'i' => f.icase = on,
                'm' => f.dotall = on,
                'x' => f.extended = on,
                '-' if on => on = false,
                _ => break,
            }
            self.pos += 1;
        }
        if self.pos == start || !matches!(self.peek(), Some(':' | ')')) {
            self.pos = start;
            return Ok(None);
        }
        Ok(Some(f))
    }

    fn parse_quant(&mut self, atom: Node) -> Result<Node, RegexError> {
        let mut atom = atom;
        loop {
            let (min, max) = match self.peek() {
                Some('*') => {
                    self.pos += 1;
                    (0, None)
                }
                Some('+') => {
                    self.pos += 1;
                    (1, None)
                }
                Some('?') => {
                    self.pos += 1;
                    (0, Some(1))
                }
                Some('{') => {
                    let save = self.pos;
                    self.pos += 1;
                    match self.parse_counts() {
                        Some(mm) => mm,
                        None => {
                            self.pos = save;
                            return Ok(atom);
                        }
                    }
                }
                _ => return Ok(atom),
            };
            if let Some(m) = max {
                if m < min || m > 1000 {
                    return self.err("bad repetition count");
                }
            }
            if min > 1000 {
                return self.err("bad repetition count");
            }
            let mut greedy = true;
            if self.eat('?') {
                greedy = false;
            } else if self.peek() == Some('+') {
                return self.err("possessive quantifier not supported");
            }
            if matches!(atom, Node::Assert(_)) {
                return self.err("quantified anchor");
            }
            atom = Node::Repeat(Box::new(atom), min, max, greedy);
        }
    }

    fn parse_num(&mut self) -> Option<u32> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        let s: String = self.chars[start..self.pos].iter().collect();
        s.parse().ok()
    }

    fn parse_counts(&mut self) -> Option<(u32, Option<u32>)> {
        let min = self.parse_num();
        if self.eat('}') {
            let m = min?;
            return Some((m, Some(m)));
        }
        if !self.eat(',') {
            return None;
        }
        let max = self.parse_num();
        if !self.eat('}') {
            return None;
        }
        Some((min.unwrap_or(0), max))
    }

    fn parse_atom(&mut self, flags: Flags) -> Result<Node, RegexError> {
        let Some(c) = self.peek() else {
            return self.err("unexpected end");
        };
        self.pos += 1;
        match c {
            '.' => Ok(Node::Any(flags.dotall)),
            '^' => Ok(Node::Assert(Anchor::LineStart)),
            '$' => Ok(Node::Assert(Anchor::LineEnd)),
            '[' => self.parse_class(flags),
            '(' => self.parse_group(flags),
            '*' | '+' | '?' => self.err("nothing to repeat"),
            '\\' => self.parse_escape(flags),
            c => Ok(Node::Char(c, flags.icase)),
        }
    }

    fn parse_group(&mut self, flags: Flags) -> Result<Node, RegexError> {
        if self.eat('?') {
            if self.eat(':') {
                let inner = self.parse_alt(flags)?;
                return self.close(Node::Group(Box::new(inner), None));
            }
            if self.peek() == Some('<')
                && self
                    .chars
                    .get(self.pos + 1)
                    .is_some_and(|c| c.is_alphabetic() || *c == '_')
            {
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == '>' {
                        break;
                    }
                }
                self.groups += 1;
                let idx = self.groups;
                let inner = self.parse_alt(flags)?;
                return self.close(Node::Group(Box::new(inner), Some(idx)));
            }
            if let Some(f) = self.parse_flag_letters(flags)? {
                if self.eat(':') {
                    let inner = self.parse_alt(f)?;
                    return self.close(Node::Group(Box::new(inner), None));
                }
            }
            return self.err("unsupported group syntax");
        }
        self.groups += 1;
        let idx = self.groups;
        let inner = self.parse_alt(flags)?;
        self.close(Node::Group(Box::new(inner), Some(idx)))
    }

    fn close(&mut self, node: Node) -> Result<Node, RegexError> {
        if self.eat(')') {
            Ok(node)
        } else {
            self.err("missing )")
        }
    }

    fn escape_char(&mut self) -> Result<Result<char, ClassItem>, RegexError> {
        let Some(c) = self.peek() else {
            return self.err("trailing backslash");
        };
        self.pos += 1;
        Ok(match c {
            'w' | 'W' | 'd' | 'D' | 's' | 'S' | 'h' | 'H' => Err(ClassItem::Perl(c)),
            'n' => Ok('\n'),
            't' => Ok('\t'),
            'r' => Ok('\r'),
            'f' => Ok('\u{c}'),
            'v' => Ok('\u{b}'),
            'e' => Ok('\u{1b}'),
            'a' => Ok('\u{7}'),
            '0' => Ok('\0'),
            c if c.is_ascii_alphanumeric() => {
                return self.err(&format!("unsupported escape \\{c}"));
            }
            c => Ok(c),
        })
    }

    fn parse_escape(&mut self, flags: Flags) -> Result<Node, RegexError> {
        match self.peek() {
            Some('A') => {
                self.pos += 1;
                return Ok(Node::Assert(Anchor::TextStart));
            }
            Some('z') => {
                self.pos += 1;
                return Ok(Node::Assert(Anchor::TextEnd));
            }
            Some('Z') => {
                self.pos += 1;
                return Ok(Node::Assert(Anchor::TextEndNewline));
            }
            Some('b') => {
                self.pos += 1;
                return Ok(Node::Assert(Anchor::WordBoundary));
            }
            Some('B') => {
                self.pos += 1;
                return Ok(Node::Assert(Anchor::NotWordBoundary));
            }
            _ => {}
        }
        Ok(match self.escape_char()? {
            Ok(c) => Node::Char(c, flags.icase),
            Err(item) => Node::Class(vec![item], false, false),
        })
    }

    fn parse_class(&mut self, flags: Flags) -> Result<Node, RegexError> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return self.err("missing ]");
            };
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            if c == '[' && self.chars.get(self.pos + 1) == Some(&':') {
                let rest: String = self.chars[self.pos..].iter().take(12).collect();
                let classes = [
                    ("[:alpha:]", 'a'),
                    ("[:digit:]", 'd'),
                    ("[:alnum:]", 'n'),
                    ("[:space:]", 's'),
                    ("[:upper:]", 'u'),
                    ("[:lower:]", 'l'),
                    ("[:word:]", 'w'),
                ];
                if let Some((name, k)) = classes.iter().find(|(n, _)| rest.starts_with(n)) {
                    self.pos += name.chars().count();
                    items.push(ClassItem::Perl(k.to_ascii_uppercase()));
                    continue;
                }
                return self.err("unsupported POSIX class");
            }
            if c == '[' || (c == '&' && self.chars.get(self.pos + 1) == Some(&'&')) {
                return self.err("nested class not supported");
            }
            self.pos += 1;
            let lo = if c == '\\' {
                match self.escape_char()? {
                    Ok(ch) => ch,
                    Err(item) => {
                        items.push(item);
                        continue;
                    }
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|c| *c != ']') {
                self.pos += 1;
                let Some(hc) = self.peek() else {
                    return self.err("missing ]");
                };
                self.pos += 1;
                let hi = if hc == '\\' {
                    match self.escape_char()? {
                        Ok(ch) => ch,
                        Err(_) => return self.err("bad class range"),
                    }
                } else {
                    hc
                };
                if hi < lo {
                    return self.err("bad class range");
                }
                items.push(ClassItem::Range(lo, hi));
            } else {
                items.push(ClassItem::Range(lo, lo));
            }
        }
        Ok(Node::Class(items, negated, flags.icase))
    }
}

fn compile(node: &Node, prog: &mut Vec<Inst>) -> Result<(), RegexError> {
    if prog.len() > MAX_PROGRAM {
        return Err(RegexError("pattern too large".into()));
    }
    match node {
        Node::Empty => {}
        Node::Char(c, i) => prog.push(Inst::Char(*c, *i)),
        Node::Any(d) => prog.push(Inst::Any(*d)),
        Node::Class(items, neg, i) => prog.push(Inst::Class(items.clone(), *neg, *i)),
        Node::Assert(a) => prog.push(Inst::Assert(*a)),
        Node::Group(inner, cap) => {
            if let Some(n) = cap {
                prog.push(Inst::Save(2 * n));
                compile(inner, prog)?;
                prog.push(Inst::Save(2 * n + 1));
            } else {
                compile(inner, prog)?;
            }
        }
        Node::Concat(items) => {
            for n in items {
                compile(n, prog)?;
            }
        }
        Node::Alt(alts) => {
            let mut jumps = Vec::new();
            for (i, a) in alts.iter().enumerate() {
                if i + 1 < alts.len() {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    compile(a, prog)?;
                    jumps.push(prog.len());
                    prog.push(Inst::Jmp(0));
                    let next = prog.len();
                    prog[split] = Inst::Split(split + 1, next);
                } else {
                    compile(a, prog)?;
                }
            }
            let end = prog.len();
            for j in jumps {
                prog[j] = Inst::Jmp(end);
            }
        }
        Node::Repeat(inner, min, max, greedy) => {
            for _ in 0..*min {
                compile(inner, prog)?;
            }
            let split = |a: usize, b: usize| {
                if *greedy {
                    Inst::Split(a, b)
                } else {
                    Inst::Split(b, a)
                }
            };
            match max {
                None => {
                    let l1 = prog.len();
                    prog.push(Inst::Jmp(0));
                    compile(inner, prog)?;
                    prog.push(Inst::Jmp(l1));
                    let l3 = prog.len();
                    prog[l1] = split(l1 + 1, l3);
                }
                Some(max) => {
                    let mut holes = Vec::new();
                    for _ in *min..*max {
                        holes.push(prog.len());
                        prog.push(Inst::Jmp(0));
                        compile(inner, prog)?;
                    }
                    let end = prog.len();
                    for h in holes {
                        prog[h] = split(h + 1, end);
                    }
                }
            }
        }
    }
    Ok(())
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn perl_match(k: char, c: char) -> bool {
    let base = match k.to_ascii_lowercase() {
        'w' => is_word(c),
        'd' => c.is_ascii_digit(),
        's' => matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}'),
        'h' => c.is_ascii_hexdigit(),
        'a' => c.is_alphabetic(),
        'n' => c.is_alphanumeric(),
        'u' => c.is_uppercase(),
        'l' => c.is_lowercase(),
        _ => false,
    };
    // Upper case: \W \D \S \H negate; the POSIX kinds (A, N, U, L) are stored
    // upper case too but are positive.
    match k {
        'W' | 'D' | 'S' | 'H' => !base,
        _ => base,
    }
}

fn class_match(items: &[ClassItem], neg: bool, icase: bool, c: char) -> bool {
    let test = |c: char| {
        items.iter().any(|it| match it {
            ClassItem::Range(lo, hi) => *lo <= c && c <= *hi,
            ClassItem::Perl(k) => perl_match(*k, c),
        })
    };
    let mut m = test(c);
    if !m && icase {
        m = c.to_lowercase().any(test) || c.to_uppercase().any(test);
    }
    m != neg
}

fn chars_eq(a: char, b: char, icase: bool) -> bool {
    a == b || (icase && a.to_lowercase().eq(b.to_lowercase()))
}

impl RubyRegex {
    /// Compiles `source` (Ruby's `Regexp#source`) with Ruby's options:
    /// `multiline` is Ruby's `m` (`.` matches `\n`), `ignore_case` is `i`,
    /// `extended` is `x`.
    pub fn new(
        source: &str,
        multiline: bool,
        ignore_case: bool,
        extended: bool,
    ) -> Result<Self, RegexError> {
        let mut p = Parser {
            chars: source.chars().collect(),
            pos: 0,
            groups: 0,
            src: source,
            depth: 0,
        };
        let flags = Flags {
            dotall: multiline,
            icase: ignore_case,
            extended,
        };
        let node = p.parse_alt(flags)?;
        if p.pos != p.chars.len() {
            return p.err("unbalanced )");
        }
        let mut prog = vec![Inst::Save(0)];
        compile(&node, &mut prog)?;
        prog.push(Inst::Save(1));
        prog.push(Inst::Match);
        Ok(RubyRegex {
            prog,
            groups: p.groups,
        })
    }

    /// Number of capture groups.
    pub fn group_count(&self) -> usize {
        self.groups
    }

    /// Whether the regex matches anywhere in `text` (as Ruby's `=~`).
    pub fn is_match(&self, text: &str) -> bool {
        self.captures(text).is_some()
    }

    /// The first (leftmost, Ruby priority) match: element 0 is the whole
    /// match, element `i` capture group `i` (`None` when it did not take
    /// part). `None` when there is no match (or the input is too large to
    /// search within the matcher's bounded work).
    pub fn captures(&self, text: &str) -> Option<Vec<Option<String>>> {
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let states = self.prog.len().checked_mul(n + 1)?;
        if states > MAX_STATES {
            return None;
        }
        let mut visited = vec![0u64; states / 64 + 1];
        let nslots = 2 * (self.groups + 1);
        for start in 0..=n {
            let mut slots: Vec<Option<usize>> = vec![None; nslots];
            if self.run(&chars, start, &mut visited, &mut slots) {
                let get = |i: usize| -> Option<String> {
                    match (
                        slots.get(2 * i).copied().flatten(),
                        slots.get(2 * i + 1).copied().flatten(),
                    ) {
                        (Some(a), Some(b)) if a <= b => Some(chars[a..b].iter().collect()),
                        _ => None,
                    }
                };
                return Some((0..=self.groups).map(get).collect());
            }
        }
        None
    }

    fn assert(&self, a: Anchor, chars: &[char], pos: usize) -> bool {
        let n = chars.len();
        match a {
            Anchor::LineStart => pos == 0 || chars[pos - 1] == '\n',
            Anchor::LineEnd => pos == n || chars[pos] == '\n',
            Anchor::TextStart => pos == 0,
            Anchor::TextEnd => pos == n,
            Anchor::TextEndNewline => pos == n || (pos + 1 == n && chars[pos] == '\n'),
            Anchor::WordBoundary | Anchor::NotWordBoundary => {
                let before = pos > 0 && is_word(chars[pos - 1]);
                let after = pos < n && is_word(chars[pos]);
                (before != after) == (a == Anchor::WordBoundary)
            }
        }
    }

    fn run(
        &self,
        chars: &[char],
        start: usize,
        visited: &mut [u64],
        slots: &mut [Option<usize>],
    ) -> bool {
        enum Job {
            Try(usize, usize),
            Restore(usize, Option<usize>),
        }
        let n = chars.len();
        let mut stack = vec![Job::Try(0, start)];
        while let Some(job) = stack.pop() {
            let (mut pc, mut pos) = match job {
                Job::Restore(slot, v) => {
                    slots[slot] = v;
                    continue;
                }
                Job::Try(pc, pos) => (pc, pos),
            };
            loop {
                let key = pc * (n + 1) + pos;
                let (w, b) = (key / 64, key % 64);
                if visited[w] & (1 << b) != 0 {
                    break;
                }
                visited[w] |= 1 << b;
                match &self.prog[pc] {
                    Inst::Match => return true,
                    Inst::Char(c, i) => {
                        if pos < n && chars_eq(chars[pos], *c, *i) {
                            pc += 1;
                            pos += 1;
                        } else {
                            break;
                        }
                    }
                    Inst::Any(dotall) => {
                        if pos < n && (*dotall || chars[pos] != '\n') {
                            pc += 1;
                            pos += 1;
                        } else {
                            break;
                        }
                    }
                    Inst::Class(items, neg, i) => {
                        if pos < n && class_match(items, *neg, *i, chars[pos]) {
                            pc += 1;
                            pos += 1;
                        } else {
                            break;
                        }
                    }
                    Inst::Assert(a) => {
                        if self.assert(*a, chars, pos) {
                            pc += 1;
                        } else {
                            break;
                        }
                    }
                    Inst::Jmp(t) => pc = *t,
                    Inst::Split(a, b) => {
                        stack.push(Job::Try(*b, pos));
                        pc = *a;
                    }
                    Inst::Save(s) => {
                        if let Some(slot) = slots.get_mut(*s) {
                            stack.push(Job::Restore(*s, *slot));
                            *slot = Some(pos);
                        }
                        pc += 1;
                    }
                }
            }
        }
        false
    }
}
