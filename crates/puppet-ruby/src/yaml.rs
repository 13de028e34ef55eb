//! `to_yaml` with the output of Ruby 3.1's Psych (libyaml emitter, default options) for
//! strings, numbers, booleans, nil, symbols, arrays, hashes and their nesting.
//!
//! Strings follow Psych's style choice (literal block for multi-line text, quoting of text
//! that would read back as another type, double quotes for text where a line starts with a
//! non-word character) and libyaml's plain-scalar checks; plain, single- and double-quoted
//! scalars are folded at libyaml's width of 80 columns as its writers fold them, and a
//! literal block that keeps trailing blank lines ends the document with `...`. Complex
//! keys and binary data are reported as unsupported.

use crate::interp::{unsupported, Ctrl};
use crate::value::{float_to_s, RValue};
use crate::Pos;

thread_local! {
    /// libyaml's `open_ended`: a literal block kept its trailing blank lines (`|+`), so the
    /// document ends with `...`.
    static OPEN_ENDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `obj.to_yaml`.
pub fn to_yaml(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    OPEN_ENDED.with(|o| o.set(false));
    let mut out = emit_document(v, pos)?;
    if OPEN_ENDED.with(|o| o.replace(false)) {
        out.push_str("...\n");
    }
    Ok(out)
}

fn emit_document(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    let mut out = String::from("---");
    match v {
        RValue::Array(a) if !a.borrow().is_empty() => {
            out.push('\n');
            emit_seq(v, 0, &mut out, pos, 0)?;
        }
        RValue::Hash(h) if !h.borrow().map.is_empty() => {
            out.push('\n');
            emit_map(v, 0, &mut out, pos, 0)?;
        }
        _ => {
            // A scalar at the root: after `--- `, continued at two spaces.
            let s = scalar(v, 2, Some(4), pos)?;
            if s.is_empty() {
                out.push('\n');
            } else {
                out.push(' ');
                out.push_str(&s);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

fn emit_seq(
    v: &RValue,
    indent: usize,
    out: &mut String,
    pos: Pos,
    depth: usize,
) -> Result<(), Ctrl> {
    crate::with_stack(|| {
        if depth > 64 {
            return unsupported("to_yaml of a structure nested deeper than 64", pos);
        }
        let RValue::Array(a) = v else { return Ok(()) };
        let items = a.borrow().clone();
        for x in items {
            if !crate::value::walk_step() {
                return crate::interp::too_large(pos);
            }
            out.push_str(&" ".repeat(indent));
            out.push('-');
            emit_child(&x, indent, indent + 2, true, out, pos, depth)?;
        }
        Ok(())
    })
}

fn emit_map(
    v: &RValue,
    indent: usize,
    out: &mut String,
    pos: Pos,
    depth: usize,
) -> Result<(), Ctrl> {
    crate::with_stack(|| {
        if depth > 64 {
            return unsupported("to_yaml of a structure nested deeper than 64", pos);
        }
        let RValue::Hash(h) = v else { return Ok(()) };
        let pairs = h.borrow().pairs();
        for (k, x) in pairs {
            if !crate::value::walk_step() {
                return crate::interp::too_large(pos);
            }
            out.push_str(&" ".repeat(indent));
            let key = match &k {
                RValue::Array(_) | RValue::Hash(_) => {
                    return unsupported("to_yaml with a complex key", pos)
                }
                RValue::Nil => "! ''".to_string(),
                // A key is a simple key: never folded.
                other => scalar(other, indent, None, pos)?,
            };
            if key.contains('\n') {
                return unsupported("to_yaml with a multi-line key", pos);
            }
            if key.chars().count() > 128 {
                return unsupported("to_yaml with a key longer than 128 characters", pos);
            }
            out.push_str(&key);
            out.push(':');
            let col = indent + key.chars().count() + 2;
            emit_child(&x, indent, col, false, out, pos, depth)?;
        }
        Ok(())
    })
}

/// Emits a value after `-` or `key:` (a scalar would start at column `col`).
fn emit_child(
    x: &RValue,
    indent: usize,
    col: usize,
    in_seq: bool,
    out: &mut String,
    pos: Pos,
    depth: usize,
) -> Result<(), Ctrl> {
    match x {
        RValue::Array(a) if !a.borrow().is_empty() => {
            if in_seq {
                // `- - x`: nested sequence starts on the same line.
                let mut inner = String::new();
                emit_seq(x, indent + 2, &mut inner, pos, depth + 1)?;
                out.push(' ');
                out.push_str(inner.trim_start_matches(' '));
            } else {
                out.push('\n');
                emit_seq(x, indent, out, pos, depth + 1)?;
            }
        }
        RValue::Hash(h) if !h.borrow().map.is_empty() => {
            if in_seq {
                let mut inner = String::new();
                emit_map(x, indent + 2, &mut inner, pos, depth + 1)?;
                out.push(' ');
                out.push_str(inner.trim_start_matches(' '));
            } else {
                out.push('\n');
                emit_map(x, indent + 2, out, pos, depth + 1)?;
            }
        }
        _ => {
            let s = scalar(x, indent + 2, Some(col), pos)?;
            if !s.is_empty() {
                out.push(' ');
                out.push_str(&s);
            }
            out.push('\n');
        }
    }
    Ok(())
}

/// A scalar's text: `indent` is where its continuation lines start, `col` the column it
/// starts at (`None`: a key, which is never folded).
fn scalar(v: &RValue, indent: usize, col: Option<usize>, pos: Pos) -> Result<String, Ctrl> {
    Ok(match v {
        RValue::Nil => String::new(),
        RValue::Bool(b) => b.to_string(),
        RValue::Int(i) => i.to_string(),
        RValue::Big(b) => b.to_string(),
        RValue::Float(f) => {
            if f.is_nan() {
                ".nan".into()
            } else if f.is_infinite() {
                if *f > 0.0 { ".inf" } else { "-.inf" }.into()
            } else {
                float_to_s(*f)
            }
        }
        RValue::Sym(s) => {
            let t = string_scalar(s, indent, None);
            if t != **s {
                return unsupported("to_yaml of a symbol that needs quoting", pos);
            }
            format!(":{s}")
        }
        RValue::Str(s) => string_scalar(&s.borrow(), indent, col),
        RValue::Array(_) => "[]".into(),
        RValue::Hash(_) => "{}".into(),
        other => return unsupported(format!("to_yaml of {}", other.class_name()), pos),
    })
}

/// Would Psych's scalar scanner read this text back as something other than a string?
fn reads_as_non_string(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    let word_start = s.chars().next().is_some_and(|c| {
        c.is_alphabetic() || c == '_' || c.is_whitespace() || "!@#$%^&*(){}<>|/\\~;=".contains(c)
    });
    if word_start
        && !s.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == ':' || c == '-')
    {
        if s.len() > 5 {
            return false;
        }
        return s == "~"
            || lower == "null"
            || matches!(
                lower.as_str(),
                "yes" | "true" | "on" | "no" | "false" | "off"
            );
    }
    let b = s.as_bytes();
    let all = |f: fn(u8) -> bool, t: &[u8]| !t.is_empty() && t.iter().all(|c| f(*c));
    let digits = |t: &[u8]| all(|c| c.is_ascii_digit(), t);
    // Dates yyyy-mm-dd.
    if b.len() >= 8
        && s.split('-').count() == 3
        && s.split('-').all(|p| digits(p.as_bytes()))
        && s.split('-').next().is_some_and(|p| p.len() == 4)
    {
        return true;
    }
    if lower.trim_start_matches('+').trim_start_matches('-') == ".inf" || lower == ".nan" {
        return true;
    }
    if s.starts_with(':') && s.len() > 1 {
        return true;
    }
    let unsigned = s.trim_start_matches(['-', '+']);
    if unsigned.len() + 1 < s.len() {
        return false;
    }
    // Sexagesimal.
    if unsigned.contains(':') {
        let mut parts = unsigned.split(':');
        let first = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        let first_ok = first.starts_with(|c: char| c.is_ascii_digit())
            && first.bytes().all(|c| c.is_ascii_digit() || c == b'_');
        if first_ok && (1..=2).contains(&rest.len()) {
            let (last, mid) = rest
                .split_last()
                .map(|(l, m)| (*l, m.to_vec()))
                .unwrap_or(("", vec![]));
            let sixty = |p: &str| {
                (1..=2).contains(&p.len())
                    && digits(p.as_bytes())
                    && (p.len() == 1 || p.as_bytes()[0] <= b'5')
            };
            if mid.iter().all(|p| sixty(p)) {
                let (int_part, frac) = match last.split_once('.') {
                    Some((a, f)) => (a, Some(f)),
                    None => (last, None),
                };
                if sixty(int_part)
                    && frac.is_none_or(|f| f.bytes().all(|c| c.is_ascii_digit() || c == b'_'))
                {
                    return true;
                }
            }
        }
        return false;
    }
    // Float: digits with , _ then '.' digits, optional exponent with sign.
    if let Some((ip, fp)) = unsigned.split_once('.') {
        let ip_ok = ip.is_empty()
            || (ip.starts_with(|c: char| c.is_ascii_digit())
                && ip
                    .bytes()
                    .all(|c| c.is_ascii_digit() || c == b',' || c == b'_'));
        let (frac, exp) = match fp.find(['e', 'E']) {
            Some(i) => (&fp[..i], Some(&fp[i + 1..])),
            None => (fp, None),
        };
        let frac_ok = frac.bytes().all(|c| c.is_ascii_digit());
        let exp_ok = exp.is_none_or(|e| {
            (e.starts_with('-') || e.starts_with('+')) && digits(&e.as_bytes()[1..])
        });
        if ip_ok && frac_ok && exp_ok {
            return unsigned != ".";
        }
        return false;
    }
    // Integers (legacy form).
    let u = unsigned.as_bytes();
    if let Some(r) = unsigned.strip_prefix("0b") {
        return all(
            |c| c == b'0' || c == b'1' || c == b'_' || c == b',',
            r.as_bytes(),
        );
    }
    if let Some(r) = unsigned.strip_prefix("0x") {
        return all(
            |c| c.is_ascii_hexdigit() || c == b'_' || c == b',',
            r.as_bytes(),
        );
    }
    if u.len() > 1 && u[0] == b'0' {
        return all(
            |c| (b'0'..=b'7').contains(&c) || c == b'_' || c == b',',
            &u[1..],
        ) || (digits(u));
    }
    if u == b"0" {
        return true;
    }
    if u.first().is_some_and(|c| (b'1'..=b'9').contains(c)) {
        let mut i = 1;
        while i < u.len() {
            if u[i].is_ascii_digit() {
                i += 1;
            } else if (u[i] == b',' || u[i] == b'_')
                && u.get(i + 1).is_some_and(|c| c.is_ascii_digit())
            {
                i += 2;
            } else {
                return false;
            }
        }
        return true;
    }
    false
}

fn printable(c: char) -> bool {
    c == '\n' || (' '..='~').contains(&c) || (c as u32 >= 0xa0 && c != '\u{feff}') || c == '\u{85}'
}

/// libyaml's best width: plain and quoted scalars break at a space past this column.
const BEST_WIDTH: usize = 80;

/// libyaml's writer over one scalar: the column (in characters), the indentation of
/// continuation lines, and its `indention`/`whitespace` flags (what `write_indent` reads).
struct Writer {
    out: String,
    col: usize,
    indent: usize,
    indention: bool,
    whitespace: bool,
    /// Breaking at spaces is allowed (not a simple key).
    breaks: bool,
}

impl Writer {
    fn new(col: Option<usize>, indent: usize) -> Writer {
        Writer {
            out: String::new(),
            col: col.unwrap_or(0),
            indent,
            indention: false,
            whitespace: false,
            breaks: col.is_some(),
        }
    }
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.col += 1;
    }
    fn put_str(&mut self, t: &str) {
        for c in t.chars() {
            self.put(c);
        }
    }
    fn put_break(&mut self) {
        self.out.push('\n');
        self.col = 0;
    }
    /// libyaml's `yaml_emitter_write_indent`.
    fn write_indent(&mut self) {
        if !self.indention
            || self.col > self.indent
            || (self.col == self.indent && !self.whitespace)
        {
            self.put_break();
        }
        while self.col < self.indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }
    /// Whether the line may break at the space being written (libyaml's writers: breaks
    /// allowed, past the best width, `spaces` false when the previous character was not a
    /// space); each writer adds its own conditions on the neighbours.
    fn may_break(&self, spaces: bool) -> bool {
        self.breaks && !spaces && self.col > BEST_WIDTH
    }
}

/// libyaml's plain scalar writer.
fn plain_folded(s: &str, indent: usize, col: Option<usize>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut w = Writer::new(col, indent);
    let mut spaces = false;
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            if w.may_break(spaces) && chars.get(i + 1) != Some(&' ') {
                w.write_indent();
            } else {
                w.put(c);
            }
            spaces = true;
        } else {
            w.put(c);
            w.indention = false;
            spaces = false;
        }
    }
    w.out
}

/// libyaml's single-quoted scalar writer (`'` doubled, a line break written twice).
fn single_quoted(s: &str, indent: usize, col: Option<usize>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut w = Writer::new(col, indent);
    w.put('\'');
    let (mut spaces, mut breaks) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            if w.may_break(spaces)
                && i != 0
                && i + 1 != chars.len()
                && chars.get(i + 1) != Some(&' ')
            {
                w.write_indent();
            } else {
                w.put(c);
            }
            spaces = true;
        } else if c == '\n' {
            if !breaks {
                w.put_break();
            }
            w.put_break();
            w.indention = true;
            breaks = true;
        } else {
            if breaks {
                w.write_indent();
            }
            if c == '\'' {
                w.put('\'');
            }
            w.put(c);
            w.indention = false;
            spaces = false;
            breaks = false;
        }
    }
    if breaks {
        w.write_indent();
    }
    w.put('\'');
    w.out
}

/// libyaml's double-quoted scalar writer: escapes, and folding at spaces (a `\` keeps a
/// space that follows the break).
fn double_quoted(s: &str, indent: usize, col: Option<usize>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut w = Writer::new(col, indent);
    w.put('"');
    let mut spaces = false;
    for (i, &c) in chars.iter().enumerate() {
        let escape = match c {
            '"' => Some("\\\"".to_string()),
            '\\' => Some("\\\\".to_string()),
            '\0' => Some("\\0".to_string()),
            '\u{7}' => Some("\\a".to_string()),
            '\u{8}' => Some("\\b".to_string()),
            '\t' => Some("\\t".to_string()),
            '\n' => Some("\\n".to_string()),
            '\u{b}' => Some("\\v".to_string()),
            '\u{c}' => Some("\\f".to_string()),
            '\r' => Some("\\r".to_string()),
            '\u{1b}' => Some("\\e".to_string()),
            c if !printable(c) => Some(format!("\\x{:02X}", c as u32)),
            _ => None,
        };
        if let Some(e) = escape {
            w.put_str(&e);
            w.indention = false;
            spaces = false;
        } else if c == ' ' {
            if w.may_break(spaces) && i != 0 && i + 1 != chars.len() {
                w.write_indent();
                if chars.get(i + 1) == Some(&' ') {
                    w.put('\\');
                }
            } else {
                w.put(c);
            }
            spaces = true;
        } else {
            w.put(c);
            w.indention = false;
            spaces = false;
        }
    }
    w.put('"');
    w.out
}

fn string_scalar(s: &str, indent: usize, col: Option<usize>) -> String {
    let chars: Vec<char> = s.chars().collect();
    let special = chars.iter().any(|c| !printable(*c));
    // Psych's literal block: a line break that is not the text's last character (nor the
    // one before a final line break: Ruby's `\Z`).
    let body = s.strip_suffix('\n').unwrap_or(s);
    let multiline = body.contains('\n');
    if multiline && !special {
        // libyaml allows a block unless a space ends a line or the text.
        let space_break = s.contains(" \n");
        if !space_break && !s.ends_with(' ') {
            // Chomping: `-` strips the missing final break, `+` keeps trailing blank lines
            // (and the document then ends with `...`).
            let keep = if s.ends_with("\n\n") {
                OPEN_ENDED.with(|o| o.set(true));
                "+"
            } else if s.ends_with('\n') {
                ""
            } else {
                "-"
            };
            // An indentation indicator when the text starts with a space or a line break.
            let ind = if s.starts_with([' ', '\n']) { "2" } else { "" };
            let mut out = format!("|{ind}{keep}");
            let text = if keep == "+" {
                &s[..s.len() - 1]
            } else {
                s.trim_end_matches('\n')
            };
            for line in text.split('\n') {
                out.push('\n');
                if !line.is_empty() {
                    out.push_str(&" ".repeat(indent.max(2)));
                    out.push_str(line);
                }
            }
            return out;
        }
        return double_quoted(s, indent, col);
    }
    if special {
        return double_quoted(s, indent, col);
    }
    if s == "<<" {
        return "!!str '<<'".into();
    }
    if matches!(s, "y" | "Y" | "n" | "N") {
        return format!("\"{s}\"");
    }
    // Psych's `/^[^[:word:]][^"]*$/`: at a line start (not the end of the text after a
    // final line break), a non-word character (a line break is one), then characters other
    // than `"` up to an end of line or of the text.
    let non_word = |c: char| !(c.is_alphanumeric() || c == '_');
    let line_starts_non_word = std::iter::once(0)
        .chain(s.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < s.len())
        .any(|i| {
            let mut cs = s[i..].chars();
            if !cs.next().is_some_and(non_word) {
                return false;
            }
            let rest = cs.as_str();
            match rest.find('"') {
                None => true,
                Some(q) => rest[..q].contains('\n'),
            }
        });
    if line_starts_non_word {
        return double_quoted(s, indent, col);
    }
    if reads_as_non_string(s) {
        return single_quoted(s, indent, col);
    }
    // libyaml's plain-scalar checks.
    let first = chars[0];
    let last = chars[chars.len() - 1];
    let mut plain = !(s.starts_with("---")
        || s.starts_with("...")
        || first == ' '
        || last == ' '
        || s.contains('\n'));
    if "#,[]{}&*!|>'\"%@`".contains(first)
        || (matches!(first, '-' | '?' | ':') && (chars.len() == 1 || chars[1] == ' '))
    {
        plain = false;
    }
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        if c == ':' && (next.is_none() || next == Some(' ')) {
            plain = false;
        }
        if c == '#' && i > 0 && chars[i - 1] == ' ' {
            plain = false;
        }
    }
    if plain {
        plain_folded(s, indent, col)
    } else {
        single_quoted(s, indent, col)
    }
}

/// Ruby 3.1's `YAML.load`/`safe_load`/`unsafe_load` (Psych 4) of `text` with its keyword
/// options: aliases only with `aliases: true` (or `unsafe_load`), Symbols (`:name`) loaded
/// by `load` and `unsafe_load` and by `safe_load` given `permitted_classes: [Symbol]` (else
/// Psych's `DisallowedClass`), `symbolize_names: true` makes hash keys Symbols; an empty
/// document is nil (`false` for `unsafe_load`).
pub(crate) fn load(text: &str, options: &[RValue], method: &str, pos: Pos) -> crate::interp::R {
    use crate::interp::raise;
    let keywords = match options {
        [] => None,
        [RValue::Hash(h)] => Some(h.clone()),
        _ => {
            return raise(
                "ArgumentError",
                format!(
                    "wrong number of arguments (given {}, expected 1)",
                    options.len() + 1
                ),
                pos,
            )
        }
    };
    let option = |name: &str| {
        keywords
            .as_ref()
            .and_then(|h| h.borrow().get(&RValue::sym(name)).cloned())
    };
    let unsafe_load = method.starts_with("unsafe_");
    let aliases = unsafe_load || option("aliases").is_some_and(|v| v.truthy());
    let permitted = |class: &str| match option("permitted_classes") {
        Some(RValue::Array(a)) => {
            a.borrow().iter().any(|c| match c {
                RValue::Module(m) => m.name() == class,
                other => crate::value::to_s(other) == class,
            }) && class != "Symbol"
        }
        _ => false,
    };
    let symbols = match option("permitted_classes") {
        _ if unsafe_load => true,
        None => matches!(method, "load" | "load_file"),
        Some(RValue::Array(a)) => a.borrow().iter().any(|c| match c {
            RValue::Module(m) => m.name_is("Symbol"),
            other => crate::value::to_s(other) == "Symbol",
        }),
        Some(_) => false,
    };
    let mode = if symbols {
        puppet_hiera::yaml::Symbols::Marked
    } else {
        puppet_hiera::yaml::Symbols::Refused
    };
    let symbolize = option("symbolize_names").is_some_and(|v| v.truthy());
    match crate::yaml_load_ruby_mode(text, aliases, mode) {
        Ok(Some(v)) => Ok(from_loaded(&v, symbolize, 0)),
        Ok(None) if unsafe_load => Ok(RValue::Bool(false)),
        Ok(None) => Ok(RValue::Nil),
        Err(("Psych::DisallowedClass", message))
            if unsafe_load
                || permitted(
                    &message["Tried to load unspecified class: ".len().min(message.len())..],
                ) =>
        {
            // Psych would make the object (the class is permitted): this engine makes no
            // Ruby objects from YAML.
            unsupported(
                format!("loading YAML that makes a Ruby object ({message})"),
                pos,
            )
        }
        Err((class, message)) => raise(class, message, pos),
    }
}

/// A loaded value as Ruby's: marked strings are Symbols; with `symbolize`, String keys too.
pub(crate) fn from_loaded(v: &puppet_types::Value, symbolize: bool, depth: usize) -> RValue {
    use puppet_types::Value;
    if depth > 300 {
        return crate::value::from_puppet(v);
    }
    match v {
        Value::String(s) => match s.strip_prefix(puppet_hiera::yaml::SYMBOL_MARK) {
            Some(name) => RValue::sym(name),
            None => crate::value::from_puppet(v),
        },
        Value::Array(items) => RValue::array(
            items
                .iter()
                .map(|x| from_loaded(x, symbolize, depth + 1))
                .collect(),
        ),
        Value::Hash(h) => {
            let mut out = crate::value::RHash::default();
            for (k, x) in h.iter() {
                let key = match (from_loaded(k, false, depth + 1), symbolize) {
                    (RValue::Str(s), true) => RValue::sym(&s.borrow()),
                    (k, _) => k,
                };
                out.insert(key, from_loaded(x, symbolize, depth + 1));
            }
            RValue::hash(out)
        }
        _ => crate::value::from_puppet(v),
    }
}
