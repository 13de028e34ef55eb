//! `JSON.parse` and `JSON.generate` for template use: standard JSON to and from Ruby values
//! (objects become hashes with string keys, in document order).

use crate::interp::{raise, unsupported, Ctrl};
use crate::value::{inspect_str, to_s, RHash, RValue};
use crate::Pos;

/// Parses a JSON document.
pub fn parse(s: &str) -> Result<RValue, String> {
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    let v = value(&cs, &mut i, 0)?;
    skip_ws(&cs, &mut i);
    if i != cs.len() {
        return Err(format!(
            "unexpected token at '{}'",
            cs[i..].iter().collect::<String>()
        ));
    }
    Ok(v)
}

/// Ruby's `JSON.parse` (json 2.6 of Ruby 3.1) of a text, for the interpreter and for
/// puppet-stdlib's `parsejson`: `Err((class, message))` is the exception Ruby raises:
/// `JSON::ParserError` with json 2.6's `451: unexpected token at '...'` (raised inside an
/// array) or `859: ...` (at the top level), the text from where Ruby's parser gave up
/// ([`ruby_error_at`]); `JSON::NestingError` past 100 levels.
pub fn parse_ruby(text: &str) -> Result<RValue, (&'static str, String)> {
    parse(text).map_err(|m| match m.strip_prefix("unexpected token at '") {
        Some(rest) => {
            let rest = rest.strip_suffix('\'').unwrap_or(rest);
            let (line, at) = ruby_error_at(text, text.len().saturating_sub(rest.len()));
            (
                "JSON::ParserError",
                format!("{line}: unexpected token at '{}'", &text[at..]),
            )
        }
        None => ("JSON::NestingError", m),
    })
}

/// Where and how Ruby's JSON parser reports an error found at byte `at`: json 2.6's
/// object machine gives up back to the `{` of the outermost object of the innermost run of
/// enclosing objects, and the error is raised by what encloses that (an array: the
/// source line 451 of json's parser, in its message; the top level: 859); inside an array
/// the array raises where the bad token is.
fn ruby_error_at(text: &str, at: usize) -> (u32, usize) {
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < at.min(b.len()) {
        match (in_str, b[i]) {
            (true, b'\\') => i += 1,
            (true, b'"') => in_str = false,
            (false, b'"') => in_str = true,
            (false, b'{') | (false, b'[') => stack.push((b[i], i)),
            (false, b'}') | (false, b']') => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    let mut pos = at;
    while let Some(&(b'{', p)) = stack.last() {
        pos = p;
        stack.pop();
    }
    (if stack.is_empty() { 859 } else { 451 }, pos)
}

fn skip_ws(cs: &[char], i: &mut usize) {
    while *i < cs.len() && cs[*i].is_whitespace() {
        *i += 1;
    }
}

fn value(cs: &[char], i: &mut usize, depth: usize) -> Result<RValue, String> {
    crate::with_stack(|| {
        if depth > 100 {
            return Err("nesting of 101 is too deep".into());
        }
        skip_ws(cs, i);
        let err = |i: usize| {
            format!(
                "unexpected token at '{}'",
                cs[i.min(cs.len())..].iter().collect::<String>()
            )
        };
        match cs.get(*i) {
            Some('{') => {
                *i += 1;
                let mut h = RHash::default();
                skip_ws(cs, i);
                if cs.get(*i) == Some(&'}') {
                    *i += 1;
                    return Ok(RValue::hash(h));
                }
                loop {
                    skip_ws(cs, i);
                    let k = match value(cs, i, depth + 1)? {
                        RValue::Str(s) => RValue::Str(s),
                        _ => return Err(err(*i)),
                    };
                    skip_ws(cs, i);
                    if cs.get(*i) != Some(&':') {
                        return Err(err(*i));
                    }
                    *i += 1;
                    let v = value(cs, i, depth + 1)?;
                    h.insert(k, v);
                    skip_ws(cs, i);
                    match cs.get(*i) {
                        Some(',') => *i += 1,
                        Some('}') => {
                            *i += 1;
                            return Ok(RValue::hash(h));
                        }
                        _ => return Err(err(*i)),
                    }
                }
            }
            Some('[') => {
                *i += 1;
                let mut a = Vec::new();
                skip_ws(cs, i);
                if cs.get(*i) == Some(&']') {
                    *i += 1;
                    return Ok(RValue::array(a));
                }
                loop {
                    a.push(value(cs, i, depth + 1)?);
                    skip_ws(cs, i);
                    match cs.get(*i) {
                        Some(',') => *i += 1,
                        Some(']') => {
                            *i += 1;
                            return Ok(RValue::array(a));
                        }
                        _ => return Err(err(*i)),
                    }
                }
            }
            Some('"') => {
                // A string that does not end: Ruby's parser reports it from its quote.
                let start = *i;
                *i += 1;
                let mut s = String::new();
                loop {
                    match cs.get(*i) {
                        None => return Err(err(start)),
                        Some('"') => {
                            *i += 1;
                            return Ok(RValue::string(s));
                        }
                        Some('\\') => {
                            *i += 1;
                            let c = cs.get(*i).copied().ok_or_else(|| err(*i))?;
                            *i += 1;
                            match c {
                                'n' => s.push('\n'),
                                't' => s.push('\t'),
                                'r' => s.push('\r'),
                                'b' => s.push('\u{8}'),
                                'f' => s.push('\u{c}'),
                                'u' => {
                                    let hex: String =
                                        cs.get(*i..*i + 4).ok_or_else(|| err(*i))?.iter().collect();
                                    *i += 4;
                                    let n = u32::from_str_radix(&hex, 16).map_err(|_| err(*i))?;
                                    s.push(char::from_u32(n).unwrap_or('\u{fffd}'));
                                }
                                other => s.push(other),
                            }
                        }
                        Some(c) => {
                            s.push(*c);
                            *i += 1;
                        }
                    }
                }
            }
            Some(c) if *c == '-' || c.is_ascii_digit() => {
                let start = *i;
                while *i < cs.len() && (cs[*i].is_ascii_digit() || "+-.eE".contains(cs[*i])) {
                    *i += 1;
                }
                let t: String = cs[start..*i].iter().collect();
                if t.contains(['.', 'e', 'E']) {
                    t.parse::<f64>().map(RValue::Float).map_err(|_| err(start))
                } else {
                    // Beyond 64 bits, an Integer all the same (Ruby's Bignum).
                    t.parse::<i64>()
                        .ok()
                        .map(RValue::Int)
                        .or_else(|| {
                            let digits = t.strip_prefix('-').unwrap_or(&t);
                            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                                .then(|| crate::bigint::parse_digits(&t, 10))
                                .flatten()
                        })
                        .ok_or_else(|| err(start))
                }
            }
            _ => {
                for (lit, v) in [
                    ("true", RValue::Bool(true)),
                    ("false", RValue::Bool(false)),
                    ("null", RValue::Nil),
                ] {
                    let n = lit.len();
                    if cs
                        .get(*i..*i + n)
                        .is_some_and(|w| w.iter().copied().eq(lit.chars()))
                    {
                        *i += n;
                        return Ok(v);
                    }
                }
                Err(err(*i))
            }
        }
    })
}

/// The options of a generator call (`JSON.generate(v, opts)`): a Hash's entries with
/// Symbol or String keys, by name.
fn options(opts: Option<&RValue>) -> Vec<(String, RValue)> {
    let Some(RValue::Hash(h)) = opts else {
        return Vec::new();
    };
    h.borrow()
        .pairs()
        .into_iter()
        .filter_map(|(k, v)| match &k {
            RValue::Sym(s) => Some((s.to_string(), v)),
            RValue::Str(_) => Some((to_s(&k), v)),
            _ => None,
        })
        .collect()
}

/// The json gem's `max_nesting` check of `JSON.generate(v, opts)` and
/// `JSON.pretty_generate(v, opts)`: containers nested deeper than `opts[:max_nesting]`
/// (100 by default; `false`, `nil` or 0 for no limit) are its `JSON::NestingError`.
pub fn check_nesting(v: &RValue, opts: Option<&RValue>, pos: Pos) -> Result<(), Ctrl> {
    let mut max = 100i64;
    for (key, x) in options(opts) {
        if key == "max_nesting" {
            max = match x {
                RValue::Int(n) => n,
                _ => 0,
            };
        }
    }
    if max <= 0 {
        return Ok(());
    }
    fn depth(v: &RValue, limit: i64, at: i64) -> i64 {
        if at > limit {
            return at;
        }
        match v {
            RValue::Array(a) => a
                .borrow()
                .iter()
                .map(|x| depth(x, limit, at + 1))
                .max()
                .unwrap_or(at + 1)
                .max(at + 1),
            RValue::Hash(h) => h
                .borrow()
                .pairs()
                .iter()
                .map(|(_, x)| depth(x, limit, at + 1))
                .max()
                .unwrap_or(at + 1)
                .max(at + 1),
            _ => at,
        }
    }
    if crate::with_stack(|| depth(v, max, 0)) > max {
        return raise(
            "JSON::NestingError",
            format!("nesting of {max} is too deep"),
            pos,
        );
    }
    Ok(())
}

/// json 2.6's message for a Float JSON cannot hold: it names the line of its C generator
/// that raised.
pub(crate) fn not_allowed(f: f64) -> String {
    let shown = if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    };
    format!(
        "{}: {shown} not allowed in JSON",
        if f.is_nan() { 1003 } else { 1000 }
    )
}

/// `JSON.generate` (compact form).
pub fn generate(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    let mut out = String::new();
    gen(v, &mut out, pos, 0)?;
    Ok(out)
}

fn gen(v: &RValue, out: &mut String, pos: Pos, depth: usize) -> Result<(), Ctrl> {
    crate::with_stack(|| {
        if depth > 100 {
            return unsupported("JSON nesting deeper than 100", pos);
        }
        if !crate::value::walk_step() {
            return crate::interp::too_large(pos);
        }
        match v {
            RValue::Nil => out.push_str("null"),
            RValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            RValue::Float(f) if !f.is_finite() => {
                return crate::interp::raise("JSON::GeneratorError", not_allowed(*f), pos);
            }
            RValue::Int(_) | RValue::Big(_) | RValue::Float(_) => out.push_str(&to_s(v)),
            RValue::Array(a) => {
                out.push('[');
                for (i, x) in a.borrow().iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    gen(x, out, pos, depth + 1)?;
                }
                out.push(']');
            }
            RValue::Hash(h) => {
                out.push('{');
                for (i, (k, x)) in h.borrow().map.values().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&json_str(&to_s(k)));
                    out.push(':');
                    gen(x, out, pos, depth + 1)?;
                }
                out.push('}');
            }
            other => out.push_str(&json_str(&to_s(other))),
        }
        Ok(())
    })
}

/// The layout of `JSON.pretty_generate` (the json gem's generator state): `indent` per
/// level, `space` after and `space_before` before a `:`, `object_nl` and `array_nl` after an
/// opening bracket and each element.
#[derive(Debug, Clone)]
pub struct PrettyStyle {
    pub indent: String,
    pub space: String,
    pub space_before: String,
    pub object_nl: String,
    pub array_nl: String,
}

impl Default for PrettyStyle {
    /// `pretty_generate`'s defaults: two spaces, `"key": value`, one element a line.
    fn default() -> PrettyStyle {
        PrettyStyle {
            indent: "  ".into(),
            space: " ".into(),
            space_before: String::new(),
            object_nl: "\n".into(),
            array_nl: "\n".into(),
        }
    }
}

impl PrettyStyle {
    /// The defaults with the layout options of `opts` (a Hash with Symbol or String keys:
    /// `indent`, `space`, `space_before`, `object_nl`, `array_nl`; others, such as
    /// `allow_nan`, do not change the text of what they accept, and `max_nesting` is
    /// [`check_nesting`]'s).
    pub fn from_options(opts: Option<&RValue>) -> PrettyStyle {
        let mut style = PrettyStyle::default();
        for (key, v) in options(opts) {
            let text = to_s(&v);
            match key.as_str() {
                "indent" => style.indent = text,
                "space" => style.space = text,
                "space_before" => style.space_before = text,
                "object_nl" => style.object_nl = text,
                "array_nl" => style.array_nl = text,
                _ => {}
            }
        }
        style
    }
}

/// `JSON.pretty_generate(v, opts)`: the layout of `style` (by default two-space indentation,
/// `"key": value`, empty containers as `[\n\n]` and `{\n}`, as the json gem of Ruby 3.1
/// writes them).
pub fn pretty_generate_with(v: &RValue, style: &PrettyStyle, pos: Pos) -> Result<String, Ctrl> {
    let mut out = String::new();
    pretty(v, &mut out, style, pos, 0)?;
    Ok(out)
}

fn pretty(
    v: &RValue,
    out: &mut String,
    style: &PrettyStyle,
    pos: Pos,
    depth: usize,
) -> Result<(), Ctrl> {
    crate::with_stack(|| {
        if !crate::value::walk_step() {
            return crate::interp::too_large(pos);
        }
        if depth > 100 {
            return unsupported("JSON nesting deeper than 100", pos);
        }
        let ind = |out: &mut String, n: usize| {
            for _ in 0..n {
                out.push_str(&style.indent);
            }
        };
        match v {
            RValue::Array(a) => {
                let a = a.borrow().clone();
                out.push('[');
                out.push_str(&style.array_nl);
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                        out.push_str(&style.array_nl);
                    }
                    ind(out, depth + 1);
                    pretty(x, out, style, pos, depth + 1)?;
                }
                out.push_str(&style.array_nl);
                ind(out, depth);
                out.push(']');
            }
            RValue::Hash(h) => {
                let pairs = h.borrow().pairs();
                out.push('{');
                for (i, (k, x)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&style.object_nl);
                    ind(out, depth + 1);
                    out.push_str(&json_str(&to_s(k)));
                    out.push_str(&style.space_before);
                    out.push(':');
                    out.push_str(&style.space);
                    pretty(x, out, style, pos, depth + 1)?;
                }
                out.push_str(&style.object_nl);
                ind(out, depth);
                out.push('}');
            }
            other => gen(other, out, pos, depth)?,
        }
        Ok(())
    })
}

fn json_str(s: &str) -> String {
    let _ = inspect_str;
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
