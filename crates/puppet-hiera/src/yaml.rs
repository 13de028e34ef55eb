//! YAML text to Puppet values, resolving plain scalars the way Ruby's Psych (YAML 1.1) does
//! under Puppet's `safe_load`: `0644` is the Integer 420, `'0644'` the String, `yes`/`on` are
//! `true`, `~`/`null`/empty are `undef`, `1_000` is 1000, `1:20` is 4800, `1.5e3` (no exponent
//! sign) stays a String, dates and times are refused ("Tried to load unspecified class: Date").
//! Mapping order is kept; anchors, aliases and `<<` merge keys are honoured. The event parser
//! of `yaml-rust2` is used so that quoting style and tags are known for each scalar.

use puppet_types::value::ValueMap;
use puppet_types::Value;
use std::collections::HashMap;
use std::sync::Arc;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Why a YAML text could not be turned into a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// Human readable text (Psych-like where it matters, e.g. disallowed classes).
    pub message: String,
    /// True when the error is Psych's `DisallowedClass` (Date, Time, unknown tags).
    pub disallowed_class: bool,
}

/// How a plain scalar that Psych reads as a Symbol (`:name`, `:"a b"`) loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbols {
    /// As the String of its name (Hiera's data, where Puppet makes symbol keys strings).
    AsStrings,
    /// As a String of the name after [`SYMBOL_MARK`], for a caller that turns them back into
    /// Symbols (Ruby's `YAML.load`, which permits Symbol).
    Marked,
    /// Refused as Psych refuses a class it was not given: `Psych::DisallowedClass`
    /// (`YAML.safe_load` without `permitted_classes: [Symbol]`).
    Refused,
}

/// What a [`Symbols::Marked`] Symbol's string starts with: two noncharacters around `sym`
/// (U+FDD0 never comes out of YAML text meant for interchange).
pub const SYMBOL_MARK: &str = "\u{FDD0}sym\u{FDD0}";

enum Frame {
    Seq(Vec<Value>, usize),
    Map(ValueMap, Option<Value>, usize, bool),
}

struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Value>,
    docs: Vec<Value>,
    error: Option<YamlError>,
    depth_limit: usize,
    /// Aliases are allowed (else the first one fails, at this character index).
    aliases: bool,
    alias_at: Option<usize>,
    symbols: Symbols,
}

impl Builder {
    fn push_value(&mut self, v: Value, anchor: usize, merge_key: bool) {
        if anchor != 0 {
            self.anchors.insert(anchor, v.clone());
        }
        match self.stack.last_mut() {
            None => self.docs.push(v),
            Some(Frame::Seq(items, _)) => items.push(v),
            Some(Frame::Map(map, pending, _, pending_merge)) => match pending.take() {
                None => {
                    *pending = Some(v);
                    *pending_merge = merge_key;
                }
                Some(k) => {
                    if *pending_merge {
                        *pending_merge = false;
                        merge_into(map, &v);
                    } else {
                        map.insert(k, v);
                    }
                }
            },
        }
    }

    fn fail(&mut self, message: String, disallowed_class: bool) {
        if self.error.is_none() {
            self.error = Some(YamlError {
                message,
                disallowed_class,
            });
        }
    }
}

fn merge_into(map: &mut ValueMap, v: &Value) {
    match v {
        Value::Hash(h) => {
            for (k, val) in h.iter() {
                map.insert(k.clone(), val.clone());
            }
        }
        Value::Array(items) => {
            for item in items.iter().rev() {
                if let Value::Hash(h) = item {
                    for (k, val) in h.iter() {
                        map.insert(k.clone(), val.clone());
                    }
                }
            }
        }
        _ => {}
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let merge_key = matches!(style, TScalarStyle::Plain)
                    && tag.is_none()
                    && text == "<<"
                    && matches!(self.stack.last(), Some(Frame::Map(_, None, _, _)));
                match resolve_scalar(&text, style, tag.as_ref(), self.symbols) {
                    Ok(v) => self.push_value(v, anchor, merge_key),
                    Err(e) => self.fail(e.message, e.disallowed_class),
                }
            }
            Event::SequenceStart(anchor, tag) => {
                if let Some(class) = tag.as_ref().and_then(|t| ruby_class_tag(t, false)) {
                    self.fail(format!("Tried to load unspecified class: {class}"), true);
                    return;
                }
                if self.stack.len() >= self.depth_limit {
                    self.fail(format!("nesting too deep at line {}", mark.line()), false);
                    return;
                }
                self.stack.push(Frame::Seq(Vec::new(), anchor));
            }
            Event::MappingStart(anchor, tag) => {
                if let Some(class) = tag.as_ref().and_then(|t| ruby_class_tag(t, true)) {
                    self.fail(format!("Tried to load unspecified class: {class}"), true);
                    return;
                }
                if self.stack.len() >= self.depth_limit {
                    self.fail(format!("nesting too deep at line {}", mark.line()), false);
                    return;
                }
                self.stack
                    .push(Frame::Map(ValueMap::default(), None, anchor, false));
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq(items, anchor)) = self.stack.pop() {
                    self.push_value(Value::Array(Arc::new(items)), anchor, false);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map(map, _, anchor, _)) = self.stack.pop() {
                    self.push_value(Value::Hash(Arc::new(map)), anchor, false);
                }
            }
            Event::Alias(_) if !self.aliases => {
                self.alias_at = Some(mark.index());
                self.fail("Unknown alias".to_string(), false);
            }
            Event::Alias(id) => match self.anchors.get(&id).cloned() {
                Some(v) => self.push_value(v, 0, false),
                None => self.fail(format!("Unknown alias at line {}", mark.line()), false),
            },
            _ => {}
        }
    }
}

/// Parses the first YAML document of `text`; an empty stream (or a document that is only
/// `~`) gives `Ok(None)`, which Puppet treats as "not a hash".
pub fn load(text: &str) -> Result<Option<Value>, YamlError> {
    load_with(text, true)
}

/// [`load`], with aliases refused when `aliases` is false, as Psych 4's `YAML.load` and
/// `YAML.safe_load` refuse them without `aliases: true` (`Unknown alias: NAME`).
pub fn load_with(text: &str, aliases: bool) -> Result<Option<Value>, YamlError> {
    load_ruby(text, aliases, Symbols::AsStrings)
}

/// [`load_with`], with Symbols loaded as `symbols` says (Ruby's `YAML.load` and
/// `YAML.safe_load` in module code).
pub fn load_ruby(text: &str, aliases: bool, symbols: Symbols) -> Result<Option<Value>, YamlError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder {
        stack: Vec::new(),
        anchors: HashMap::new(),
        docs: Vec::new(),
        error: None,
        depth_limit: 256,
        aliases,
        alias_at: None,
        symbols,
    };
    let mut parser = Parser::new_from_str(text);
    let res = parser.load(&mut builder, false);
    if let Some(mut e) = builder.error {
        if let Some(at) = builder.alias_at {
            let name: String = text
                .chars()
                .skip(at)
                .skip_while(|c| *c == '*')
                .take_while(|c| !c.is_whitespace() && !",[]{}".contains(*c))
                .collect();
            e.message = format!("Unknown alias: {name}");
        }
        return Err(e);
    }
    if let Err(e) = res {
        return Err(YamlError {
            message: e.to_string(),
            disallowed_class: false,
        });
    }
    Ok(builder.docs.into_iter().next().filter(|v| !v.is_undef()))
}

/// The Ruby class that Psych's `safe_load` would have to make for a tagged mapping
/// (`mapping`) or sequence: `!ruby/object:Foo`, `!ruby/hash:Foo`, `!ruby/struct:S`,
/// `!ruby/exception:E`, `!!set` (Psych::Set); `!ruby/array:Foo` on a sequence. Other tags
/// (`!foo`, `!!map`) load as plain hashes and arrays.
fn ruby_class_tag(tag: &Tag, mapping: bool) -> Option<String> {
    if mapping && is_core_tag(tag, "set") {
        return Some("Psych::Set".into());
    }
    if tag.handle != "!" {
        return None;
    }
    let suffix = tag.suffix.as_str();
    let (kind, class) = match suffix.split_once(':') {
        Some((k, c)) => (k, Some(c)),
        None => (suffix, None),
    };
    let default = match (kind, mapping) {
        ("ruby/object", true) => Some("Object"),
        ("ruby/struct", true) => Some("Struct"),
        ("ruby/exception", true) => Some("Exception"),
        ("ruby/hash" | "ruby/hash-with-ivars", true) | ("ruby/array", false) => None,
        _ => return None,
    };
    class
        .filter(|c| !c.is_empty())
        .or(default)
        .map(str::to_string)
}

fn is_core_tag(tag: &Tag, name: &str) -> bool {
    (tag.handle == "!!" && tag.suffix == name)
        || (tag.handle.is_empty() && tag.suffix == format!("tag:yaml.org,2002:{name}"))
        || (tag.handle == "tag:yaml.org,2002:" && tag.suffix == name)
}

fn resolve_scalar(
    text: &str,
    style: TScalarStyle,
    tag: Option<&Tag>,
    symbols: Symbols,
) -> Result<Value, YamlError> {
    if let Some(tag) = tag {
        if is_core_tag(tag, "str") {
            return Ok(Value::string(text));
        }
        if is_core_tag(tag, "float") {
            // Psych: `!!float 1` is 1.0.
            if let Ok(Some(Value::Integer(i))) = tokenize(text) {
                return Ok(Value::Float(i as f64));
            }
        }
        for known in ["int", "float", "bool", "null"] {
            if is_core_tag(tag, known) {
                return Ok(tokenize(text)?.unwrap_or(Value::Undef));
            }
        }
        if tag.handle == "!" && tag.suffix.is_empty() {
            return Ok(Value::string(text));
        }
        let class = tag
            .suffix
            .strip_prefix("ruby/object:")
            .or_else(|| tag.suffix.strip_prefix("ruby/"))
            .unwrap_or(&tag.suffix);
        return Err(YamlError {
            message: format!("Tried to load unspecified class: {class}"),
            disallowed_class: true,
        });
    }
    if !matches!(style, TScalarStyle::Plain) {
        return Ok(Value::string(text));
    }
    let v = tokenize(text)?.unwrap_or(Value::Undef);
    if symbols != Symbols::AsStrings && text.len() > 1 && text.starts_with(':') {
        if let Value::String(_) = &v {
            // Psych's `/^:./` branch (tokenize only makes a String there): the name is the
            // text after the colon, or the quoted text with one more leading colon taken off.
            if symbols == Symbols::Refused {
                return Err(YamlError {
                    message: "Tried to load unspecified class: Symbol".into(),
                    disallowed_class: true,
                });
            }
            // `/^:(["'])(.*)\1/`: up to the last matching quote.
            let inner = &text[1..];
            let quoted = inner
                .chars()
                .next()
                .filter(|q| *q == '"' || *q == '\'')
                .and_then(|q| inner[1..].rfind(q).map(|end| &inner[1..1 + end]));
            let name = match quoted {
                Some(q) => q.strip_prefix(':').unwrap_or(q),
                None => inner,
            };
            return Ok(Value::string(format!("{SYMBOL_MARK}{name}")));
        }
    }
    Ok(v)
}

fn is_alpha_class(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c.is_whitespace() || "!@#$%^&*(){}<>|/\\~;=".contains(c)
}

/// Psych's check that a plain scalar "looks like a word" (then it can only be a string,
/// boolean or null).
fn looks_like_word(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if is_alpha_class(first) {
        return true;
    }
    if first.is_ascii_digit() || first == '.' || first == ':' || first == '-' {
        return false;
    }
    chars.next().is_some_and(is_alpha_class)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_time(s: &str) -> bool {
    // -?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?
    let s = s.strip_prefix('-').unwrap_or(s);
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize, min: usize, max: usize| -> bool {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() && *i - start < max {
            *i += 1;
        }
        *i - start >= min
    };
    let lit = |i: &mut usize, c: u8| -> bool {
        if *i < b.len() && b[*i] == c {
            *i += 1;
            true
        } else {
            false
        }
    };
    if !(digits(&mut i, 4, 4) && lit(&mut i, b'-') && digits(&mut i, 1, 2) && lit(&mut i, b'-')) {
        return false;
    }
    if !digits(&mut i, 1, 2) {
        return false;
    }
    if i < b.len() && (b[i] == b'T' || b[i] == b't') {
        i += 1;
    } else {
        let start = i;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if !(digits(&mut i, 1, 2)
        && lit(&mut i, b':')
        && digits(&mut i, 2, 2)
        && lit(&mut i, b':')
        && digits(&mut i, 2, 2))
    {
        return false;
    }
    if lit(&mut i, b'.') {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    let save = i;
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if i == b.len() {
        return save == b.len() || i == b.len();
    }
    if lit(&mut i, b'Z') {
        return i == b.len();
    }
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
        if !digits(&mut i, 1, 2) {
            return false;
        }
        lit(&mut i, b':');
        let start = i;
        digits(&mut i, 0, 2);
        if i - start == 1 {
            return false;
        }
        return i == b.len();
    }
    false
}

fn is_date(s: &str) -> bool {
    // \d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)
    let parts: Vec<&str> = s.split('-').collect();
    if parts.len() != 3 || parts[0].len() != 4 || !all_digits(parts[0]) {
        return false;
    }
    let m = parts[1];
    let d = parts[2];
    let month_ok = all_digits(m)
        && match m.len() {
            1 => true,
            2 => m.starts_with('0') || matches!(m, "10" | "11" | "12"),
            _ => false,
        };
    let day_ok = all_digits(d)
        && match d.len() {
            1 => true,
            2 => matches!(d.as_bytes()[0], b'0' | b'1' | b'2') || matches!(d, "30" | "31"),
            _ => false,
        };
    month_ok && day_ok
}

fn sexagesimal(s: &str, float: bool) -> Option<Value> {
    // [-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}  (float form: then \.[0-9_]*)
    let (sign, body) = match s.as_bytes().first() {
        Some(b'-') => (-1i64, &s[1..]),
        Some(b'+') => (1, &s[1..]),
        _ => (1, s),
    };
    let (int_part, frac) = if float {
        let dot = body.rfind('.')?;
        let frac = &body[dot + 1..];
        if !frac.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
            return None;
        }
        (&body[..dot], Some(frac))
    } else {
        (body, None)
    };
    let parts: Vec<&str> = int_part.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let head = parts[0];
    if !head.starts_with(|c: char| c.is_ascii_digit())
        || !head.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    for p in &parts[1..] {
        let ok = match p.len() {
            1 => p.as_bytes()[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&p.as_bytes()[0]) && p.as_bytes()[1].is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    // Ruby's to_i/to_f per part, weighted by 60 ** |e - 2| (Psych's own quirk).
    let n = parts.len();
    if let Some(frac) = frac {
        let mut total = 0f64;
        for (e, p) in parts.iter().enumerate() {
            let mut text = p.replace('_', "");
            if e == n - 1 {
                text = format!("{text}.{}", frac.replace('_', ""));
            }
            let v: f64 = ruby_to_f(&text);
            total += v * 60f64.powi((e as i32 - 2).abs());
        }
        Some(Value::Float(total * sign as f64))
    } else {
        let mut total: i64 = 0;
        for (e, p) in parts.iter().enumerate() {
            let v: i64 = p.replace('_', "").parse().ok()?;
            let w = 60i64.checked_pow((e as i64 - 2).unsigned_abs() as u32)?;
            total = total.checked_add(v.checked_mul(w)?)?;
        }
        Some(Value::Integer(total.checked_mul(sign)?))
    }
}

fn ruby_to_f(s: &str) -> f64 {
    let t = s.trim_end_matches('.');
    t.parse().unwrap_or(0.0)
}

fn is_float(s: &str) -> bool {
    // [-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?
    let b = s.strip_prefix(['-', '+']).unwrap_or(s).as_bytes();
    let mut i = 0;
    if i < b.len() && b[i].is_ascii_digit() {
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_' || b[i] == b',') {
            i += 1;
        }
    }
    if i >= b.len() || b[i] != b'.' {
        return false;
    }
    i += 1;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == b.len() {
        return true;
    }
    if b[i] != b'e' && b[i] != b'E' {
        return false;
    }
    i += 1;
    if i >= b.len() || (b[i] != b'-' && b[i] != b'+') {
        return false;
    }
    i += 1;
    let start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i > start && i == b.len()
}

fn parse_float(s: &str) -> Option<f64> {
    // Psych removes `,` and `_` and a `.` directly before the exponent or at the end.
    let cleaned: String = s.chars().filter(|c| *c != ',' && *c != '_').collect();
    let cleaned = cleaned.replace(".e", "e").replace(".E", "E");
    let cleaned = cleaned.strip_suffix('.').unwrap_or(&cleaned).to_string();
    let cleaned = if cleaned.starts_with('.') {
        format!("0{cleaned}")
    } else if let Some(rest) = cleaned.strip_prefix("-.") {
        format!("-0.{rest}")
    } else if let Some(rest) = cleaned.strip_prefix("+.") {
        format!("0.{rest}")
    } else {
        cleaned
    };
    cleaned.parse().ok()
}

fn parse_int(s: &str) -> Option<Value> {
    // Matches Psych's INTEGER regex, then Ruby's Integer() on the text without `,` and `_`.
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits, matched) = if let Some(rest) = body.strip_prefix("0b") {
        let ok = !rest.is_empty() && rest.bytes().all(|b| matches!(b, b'0' | b'1' | b'_' | b','));
        (2, rest, ok)
    } else if let Some(rest) = body.strip_prefix("0x") {
        let ok = !rest.is_empty()
            && rest
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b'_' || b == b',');
        (16, rest, ok)
    } else if body.len() > 1 && body.starts_with('0') {
        let rest = &body[1..];
        let ok = rest.bytes().all(|b| matches!(b, b'0'..=b'7' | b'_' | b','));
        (8, rest, ok)
    } else if body == "0" {
        (10, body, true)
    } else {
        let b = body.as_bytes();
        let mut ok = !b.is_empty() && (b'1'..=b'9').contains(&b[0]);
        let mut i = 1;
        while ok && i < b.len() {
            if b[i].is_ascii_digit() {
                i += 1;
            } else if (b[i] == b',' || b[i] == b'_') && i + 1 < b.len() && b[i + 1].is_ascii_digit()
            {
                i += 2;
            } else {
                ok = false;
            }
        }
        (10, body, ok)
    };
    if !matched {
        return None;
    }
    let cleaned: String = digits.chars().filter(|c| *c != ',' && *c != '_').collect();
    // Ruby's Integer() refuses doubled or trailing underscores; commas were removed first.
    if digits.contains("__") || digits.ends_with('_') || digits.starts_with('_') {
        return Some(Value::string(s));
    }
    if cleaned.is_empty() {
        return if radix == 8 {
            Some(Value::Integer(0))
        } else {
            Some(Value::string(s))
        };
    }
    match i64::from_str_radix(&cleaned, radix) {
        Ok(v) => Some(Value::Integer(if neg { -v } else { v })),
        Err(_) => Some(Value::string(s)),
    }
}

/// Psych's `ScalarScanner#tokenize` for an untagged plain scalar. `Ok(None)` is null.
pub fn tokenize(s: &str) -> Result<Option<Value>, YamlError> {
    if s.is_empty() {
        return Ok(None);
    }
    if looks_like_word(s) || s.contains('\n') {
        if s.chars().count() > 5 {
            return Ok(Some(Value::string(s)));
        }
        let lower = s.to_ascii_lowercase();
        let first = lower.chars().next().unwrap_or(' ');
        if !"ytonf~".contains(first) {
            return Ok(Some(Value::string(s)));
        }
        return Ok(match lower.as_str() {
            "~" | "null" => None,
            "yes" | "true" | "on" => Some(Value::Boolean(true)),
            "no" | "false" | "off" => Some(Value::Boolean(false)),
            _ => Some(Value::string(s)),
        });
    }
    if is_time(s) {
        return Err(YamlError {
            message: "Tried to load unspecified class: Time".into(),
            disallowed_class: true,
        });
    }
    if is_date(s) {
        return Err(YamlError {
            message: "Tried to load unspecified class: Date".into(),
            disallowed_class: true,
        });
    }
    let lower = s.to_ascii_lowercase();
    if lower == ".inf" || lower == "+.inf" {
        return Ok(Some(Value::Float(f64::INFINITY)));
    }
    if lower == "-.inf" {
        return Ok(Some(Value::Float(f64::NEG_INFINITY)));
    }
    if lower == ".nan" {
        return Ok(Some(Value::Float(f64::NAN)));
    }
    if s.len() > 1 && s.starts_with(':') {
        // A Symbol; Puppet turns symbol keys into strings, we do the same for values.
        let inner = &s[1..];
        let inner = if inner.len() >= 2
            && ((inner.starts_with('"') && inner.ends_with('"'))
                || (inner.starts_with('\'') && inner.ends_with('\'')))
        {
            &inner[1..inner.len() - 1]
        } else {
            inner
        };
        return Ok(Some(Value::string(
            inner.strip_prefix(':').unwrap_or(inner),
        )));
    }
    if let Some(v) = sexagesimal(s, false) {
        return Ok(Some(v));
    }
    if let Some(v) = sexagesimal(s, true) {
        return Ok(Some(v));
    }
    if is_float(s) {
        let bare = s.strip_prefix(['-', '+']).unwrap_or(s);
        if bare == "." {
            return Ok(Some(Value::string(s)));
        }
        return Ok(Some(match parse_float(s) {
            Some(f) => Value::Float(f),
            None => Value::string(s),
        }));
    }
    if let Some(v) = parse_int(s) {
        return Ok(Some(v));
    }
    Ok(Some(Value::string(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Value {
        let v = load(&format!("k: {text}\n")).unwrap().unwrap();
        match v {
            Value::Hash(h) => h.get(&Value::string("k")).cloned().unwrap(),
            _ => panic!("not a hash"),
        }
    }

    #[test]
    fn psych_scalars() {
        assert_eq!(one("0644"), Value::Integer(420));
        assert_eq!(one("'0644'"), Value::string("0644"));
        assert_eq!(one("yes"), Value::Boolean(true));
        assert_eq!(one("off"), Value::Boolean(false));
        assert_eq!(one("~"), Value::Undef);
        assert_eq!(one(""), Value::Undef);
        assert_eq!(one("1_000"), Value::Integer(1000));
        assert_eq!(one("0x1F"), Value::Integer(31));
        assert_eq!(one("1.5e3"), Value::string("1.5e3"));
        assert_eq!(one("1.5e+3"), Value::Float(1500.0));
        assert_eq!(one("1:20"), Value::Integer(4800));
        assert_eq!(one(".inf"), Value::Float(f64::INFINITY));
        assert_eq!(one("0o17"), Value::string("0o17"));
        assert_eq!(one("012.5"), Value::Float(12.5));
        assert_eq!(one("!!str 12"), Value::string("12"));
        assert_eq!(one("09"), Value::string("09"));
        assert_eq!(one("-12"), Value::Integer(-12));
        assert_eq!(one("yesno"), Value::string("yesno"));
        assert!(load("k: 2001-12-14\n").unwrap_err().disallowed_class);
    }

    #[test]
    fn anchors_and_merge_keys() {
        let v = load("a: &x {p: 1, q: 2}\nb:\n  <<: *x\n  q: 3\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            v.to_string(),
            "{'a' => {'p' => 1, 'q' => 2}, 'b' => {'p' => 1, 'q' => 3}}"
        );
    }
}
