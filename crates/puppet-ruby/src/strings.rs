//! Ruby `String` methods used by templates: case, stripping, splitting, regexp substitution
//! (`gsub`/`sub` with `\1` back references, hash or block replacements), matching, slicing,
//! padding and conversions. Indices are character based, as for Ruby's UTF-8 strings.

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::methods::{argc, int_arg, norm_index as norm, str_arg};
use crate::methods::{call_method, regex_match};
use crate::object::Blk;
use crate::value::Shared;
use crate::value::{self, compare, to_s, RValue};
use crate::Pos;
use std::cmp::Ordering;
use std::rc::Rc;

/// Ruby's `String#succ`: increments the rightmost alphanumeric with carry (`"az"` ->
/// `"ba"`, `"zz"` -> `"aaa"`, `"a9"` -> `"b0"`, `"1.9"` -> `"2.0"`); without alphanumerics,
/// the last character.
pub(crate) fn str_succ(s: &str) -> String {
    let mut cs: Vec<char> = s.chars().collect();
    if cs.is_empty() {
        return String::new();
    }
    if !cs.iter().any(|c| c.is_ascii_alphanumeric()) {
        let last = cs.len() - 1;
        cs[last] = char::from_u32(cs[last] as u32 + 1).unwrap_or(cs[last]);
        return cs.into_iter().collect();
    }
    let mut i = cs.len();
    let mut last_alnum = cs.len() - 1;
    loop {
        let mut found = None;
        while i > 0 {
            i -= 1;
            if cs[i].is_ascii_alphanumeric() {
                found = Some(i);
                break;
            }
        }
        let Some(k) = found else {
            let ins = match cs[last_alnum] {
                '0'..='9' => '1',
                'a'..='z' => 'a',
                _ => 'A',
            };
            cs.insert(last_alnum, ins);
            break;
        };
        last_alnum = k;
        match cs[k] {
            'z' => cs[k] = 'a',
            'Z' => cs[k] = 'A',
            '9' => cs[k] = '0',
            c => {
                cs[k] = (c as u8 + 1) as char;
                break;
            }
        }
    }
    cs.into_iter().collect()
}

fn capitalize(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(f) => f.to_uppercase().collect::<String>() + &cs.as_str().to_lowercase(),
        None => String::new(),
    }
}

/// `capitalize` of a binary string: its ASCII letters only.
fn capitalize_ascii(s: &str) -> String {
    let mut out = s.to_ascii_lowercase();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\0')
}

/// Expands `\1`, `\0`, `\&`, `\k<name>`, `` \` ``, `\'`, `\\` in a substitution string.
fn expand_repl(repl: &str, caps: &value::Captures, pos: Pos) -> Result<String, Ctrl> {
    let mut out = String::new();
    let mut cs = repl.chars().peekable();
    while let Some(c) = cs.next() {
        if c == '\\' {
            match cs.peek().copied() {
                Some('k') => {
                    cs.next();
                    let rest: String = cs.clone().collect();
                    match rest.strip_prefix('<').and_then(|r| r.split_once('>')) {
                        Some((name, _)) => {
                            for _ in 0..name.chars().count() + 2 {
                                cs.next();
                            }
                            let Some(i) = caps.named(name) else {
                                return raise(
                                    "IndexError",
                                    format!("undefined group name reference: {name}"),
                                    pos,
                                );
                            };
                            if let Some(Some(g)) = caps.get(i) {
                                out.push_str(g);
                            }
                        }
                        None => out.push_str("\\k"),
                    }
                }
                Some('`') => {
                    cs.next();
                    out.push_str(caps.pre());
                }
                Some('\'') => {
                    cs.next();
                    out.push_str(caps.post());
                }
                Some(d) if d.is_ascii_digit() => {
                    cs.next();
                    let k = d as usize - '0' as usize;
                    if let Some(Some(g)) = caps.get(k) {
                        out.push_str(g);
                    }
                }
                Some('&') => {
                    cs.next();
                    if let Some(Some(g)) = caps.first() {
                        out.push_str(g);
                    }
                }
                Some('\\') => {
                    cs.next();
                    out.push('\\');
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn substitute(
    it: &mut Interp,
    s: &str,
    args: &[RValue],
    block: Option<&Blk>,
    global: bool,
    pos: Pos,
) -> Result<(String, bool), Ctrl> {
    let Some(pat) = args.first() else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (given 0, expected 1..2)",
            pos,
        );
    };
    let re = match pat {
        RValue::Regexp(r) => r.clone(),
        RValue::Str(p) => Rc::new(
            value::compile_regex(&crate::methods::escape_regex(&p.borrow()), "")
                .or_else(|e| unsupported(e, pos))?,
        ),
        other => {
            return raise(
                "TypeError",
                format!(
                    "wrong argument type {} (expected Regexp)",
                    other.class_name()
                ),
                pos,
            )
        }
    };
    // A plain text replaced by a plain text: no regexp, no match data (`$~` is only set
    // for a block).
    if let (RValue::Str(p), Some(RValue::Str(r)), true) = (pat, args.get(1), global) {
        let (p, r) = (p.borrow(), r.borrow());
        if !r.contains('\\') {
            return Ok((s.replace(p.as_str(), &r), s.contains(p.as_str())));
        }
    }
    let mut out = String::new();
    let subject: Rc<str> = Rc::from(s);
    let mut last = 0usize; // byte offset
    let mut changed = false;
    let mut start = 0usize;
    loop {
        if start > s.len() {
            break;
        }
        // `sub`'s one match is the first from the start: found on the automata the pattern
        // runs on when it does (see `RRegex::first_match_on_automata`), else by the regexp.
        let on_automata = match (global, start) {
            (false, 0) => re.first_match_on_automata(s),
            _ => None,
        };
        let (caps, first) = match on_automata {
            Some(Some(c)) => (None, Some(c)),
            Some(None) => break,
            None => match re.re(pos)?.captures_from_pos(s, start) {
                Ok(Some(c)) => (Some(c), None),
                Ok(None) => break,
                Err(e) => return unsupported(format!("regexp /{}/: {e}", re.source), pos),
            },
        };
        let (m_start, m_end) = match (&caps, &first) {
            (Some(c), _) => match c.get(0) {
                Some(m) => (m.start(), m.end()),
                None => break,
            },
            (None, Some(c)) => c.span(),
            (None, None) => break,
        };
        let matched = &s[m_start..m_end];
        // The match data (with copies of the text before and after the match) is built only
        // where the replacement uses it: per match it costs the length of the text.
        let full = |first: Option<value::Captures>| -> Result<value::Captures, Ctrl> {
            match (first, &caps) {
                (Some(c), _) => Ok(c),
                (None, Some(caps)) => Ok(value::Captures::of_shared(re.re(pos)?, caps, &subject)),
                (None, None) => Ok(value::Captures::whole(s, m_start, m_end)),
            }
        };
        out.push_str(&s[last..m_start]);
        let rep = match (args.get(1), block) {
            (Some(RValue::Str(r)), _) => {
                let r = r.borrow();
                if r.contains('\\') {
                    expand_repl(&r, &full(first)?, pos)?
                } else {
                    r.clone()
                }
            }
            (Some(RValue::Hash(h)), _) => {
                let k = RValue::str(matched);
                let found = h.borrow().get(&k).cloned();
                let defaulted = {
                    let hb = h.borrow();
                    hb.default_proc.is_some() || !matches!(hb.default, RValue::Nil)
                };
                match found {
                    Some(v) => to_s(&v),
                    // `hash[match]`: the hash's default (value or block) where it has one.
                    None if defaulted => {
                        let v = it.call_method(args[1].clone(), "[]", vec![k], None, pos)?;
                        to_s(&v)
                    }
                    None => String::new(),
                }
            }
            (Some(other), _) => str_arg(other, pos)?,
            (None, Some(b)) => {
                it.set_last_match(Some(Rc::new(full(first)?)));
                let v = it.call_block(b, vec![RValue::str(matched)], pos)?;
                to_s(&v)
            }
            (None, None) => return unsupported("gsub without replacement (Enumerator)", pos),
        };
        out.push_str(&rep);
        changed = true;
        last = m_end;
        if m_end == m_start {
            // Empty match: copy one char and move on.
            match s[m_end..].chars().next() {
                Some(c) => {
                    out.push(c);
                    last = m_end + c.len_utf8();
                    start = last;
                }
                None => {
                    start = s.len() + 1;
                }
            }
        } else {
            start = m_end;
        }
        if !global {
            break;
        }
    }
    if last <= s.len() {
        out.push_str(&s[last..]);
    }
    Ok((out, changed))
}

fn split(s: &str, sep: Option<&RValue>, limit: i64, pos: Pos) -> Result<Vec<String>, Ctrl> {
    let mut parts: Vec<String> = Vec::new();
    // An empty string splits into no fields, whatever the separator and limit.
    if s.is_empty() {
        return Ok(parts);
    }
    let awk = match sep {
        None | Some(RValue::Nil) => true,
        Some(RValue::Str(p)) => *p.borrow() == " ",
        _ => false,
    };
    if awk {
        let trimmed = s.trim_start_matches(is_space);
        if limit > 0 {
            let mut rest = trimmed;
            while !rest.is_empty() {
                if parts.len() as i64 == limit - 1 {
                    parts.push(rest.to_string());
                    rest = "";
                    break;
                }
                match rest.find(is_space) {
                    Some(i) => {
                        parts.push(rest[..i].to_string());
                        rest = rest[i..].trim_start_matches(is_space);
                    }
                    None => {
                        parts.push(rest.to_string());
                        rest = "";
                    }
                }
            }
            let _ = rest;
        } else {
            parts = trimmed
                .split(is_space)
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            if limit < 0 && s.ends_with(is_space) && !trimmed.is_empty() {
                parts.push(String::new());
            }
        }
        return Ok(parts);
    }
    match sep {
        Some(RValue::Str(p)) => {
            let p = p.borrow().clone();
            if p.is_empty() {
                parts = s.chars().map(|c| c.to_string()).collect();
            } else if limit > 0 {
                parts = s
                    .splitn(limit as usize, p.as_str())
                    .map(str::to_string)
                    .collect();
            } else {
                parts = s.split(p.as_str()).map(str::to_string).collect();
            }
        }
        Some(RValue::Regexp(re)) => {
            let mut last = 0;
            let mut start = 0;
            while start <= s.len() {
                if limit > 0 && parts.len() as i64 == limit - 1 {
                    break;
                }
                let caps = match re.re(pos)?.captures_from_pos(s, start) {
                    Ok(Some(c)) => c,
                    Ok(None) => break,
                    Err(e) => return unsupported(format!("regexp: {e}"), pos),
                };
                let Some(m) = caps.get(0) else { break };
                if m.end() == m.start() {
                    if m.start() >= s.len() {
                        break;
                    }
                    if m.start() == last {
                        // Split between characters.
                        let c = s[m.start()..]
                            .chars()
                            .next()
                            .map(char::len_utf8)
                            .unwrap_or(1);
                        if m.start() == 0 && last == 0 && start == 0 {
                            start = c;
                            continue;
                        }
                        parts.push(s[last..m.start() + c].to_string());
                        last = m.start() + c;
                        start = last;
                        continue;
                    }
                }
                parts.push(s[last..m.start()].to_string());
                for g in 1..caps.len() {
                    if let Some(gm) = caps.get(g) {
                        parts.push(gm.as_str().to_string());
                    }
                }
                last = m.end();
                start = if m.end() == m.start() {
                    m.end() + s[m.end()..].chars().next().map(char::len_utf8).unwrap_or(1)
                } else {
                    m.end()
                };
            }
            parts.push(s[last.min(s.len())..].to_string());
        }
        Some(other) => {
            return raise(
                "TypeError",
                format!(
                    "wrong argument type {} (expected Regexp)",
                    other.class_name()
                ),
                pos,
            )
        }
        None => {}
    }
    if limit == 0 {
        while parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
    }
    Ok(parts)
}

fn char_slice(s: &str, start: usize, len: usize) -> String {
    s.chars().skip(start).take(len).collect()
}

fn pad(s: &str, width: i64, padstr: &str, mode: u8) -> String {
    let len = s.chars().count() as i64;
    if width <= len || padstr.is_empty() {
        return s.to_string();
    }
    let total = (width - len) as usize;
    let fill = |n: usize| -> String { padstr.chars().cycle().take(n).collect() };
    match mode {
        0 => format!("{s}{}", fill(total)),
        1 => format!("{}{s}", fill(total)),
        _ => {
            let left = total / 2;
            let right = total - left;
            format!("{}{s}{}", fill(left), fill(right))
        }
    }
}

/// Dispatches a String method. The substrings and copies a binary string's methods answer
/// are binary too (`digest[0, 16].bytes` counts bytes, as Ruby's ASCII-8BIT strings do).
pub fn str_method(
    it: &mut Interp,
    recv: &RValue,
    cell: &Rc<Shared<String>>,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let r = str_method_of(it, recv, cell, name, args, block, pos)?;
    if cell.is_binary() && keeps_encoding(name) {
        mark_binary(&r);
    }
    Ok(r)
}

/// The String methods whose new strings have the receiver's encoding.
fn keeps_encoding(name: &str) -> bool {
    matches!(
        name,
        "[]" | "slice"
            | "slice!"
            | "upcase"
            | "downcase"
            | "capitalize"
            | "swapcase"
            | "sub"
            | "gsub"
            | "tr"
            | "tr_s"
            | "delete_prefix"
            | "delete_suffix"
            | "byteslice"
            | "dup"
            | "clone"
            | "+@"
            | "*"
            | "reverse"
            | "strip"
            | "lstrip"
            | "rstrip"
            | "chomp"
            | "chop"
            | "ljust"
            | "rjust"
            | "center"
            | "squeeze"
            | "delete"
            | "chars"
            | "split"
            | "each_char"
            | "lines"
            | "partition"
            | "rpartition"
            | "succ"
            | "next"
    )
}

/// Marks the new strings of a result (a string, or the strings of an array) binary.
fn mark_binary(r: &RValue) {
    match r {
        RValue::Str(s) => s.set_binary(),
        RValue::Array(a) => {
            for x in a.borrow().iter() {
                if let RValue::Str(s) = x {
                    s.set_binary();
                }
            }
        }
        _ => {}
    }
}

/// Whether two strings joined (`+`, `<<`) make a binary string, given each one's
/// (binary, ASCII only): [`puppet_types::string::joined_binary`], whose `None` (two non-ASCII
/// strings of different encodings) raises `Encoding::CompatibilityError`.
pub(crate) fn joined_binary(
    left: (bool, bool),
    right: (bool, bool),
    pos: Pos,
) -> Result<bool, Ctrl> {
    match puppet_types::string::joined_binary(left, right) {
        Some(binary) => Ok(binary),
        None => raise(
            "Encoding::CompatibilityError",
            puppet_types::string::incompatible_message(left.0),
            pos,
        ),
    }
}

#[allow(clippy::too_many_arguments)]
fn str_method_of(
    it: &mut Interp,
    recv: &RValue,
    cell: &Rc<Shared<String>>,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    // Appending and asking for the size do not copy the string.
    match (name, args.as_slice()) {
        ("<<" | "concat", [RValue::Str(add_cell)]) => {
            let add = add_cell.borrow().clone();
            it.charge(add.len(), pos)?;
            let binary = joined_binary(
                (cell.is_binary(), cell.borrow().is_ascii()),
                (add_cell.is_binary(), add.is_ascii()),
                pos,
            )?;
            cell.set_binary_to(binary);
            cell.borrow_mut().push_str(&add);
            return Ok(recv.clone());
        }
        ("length" | "size", []) => return Ok(RValue::Int(cell.borrow().chars().count() as i64)),
        ("empty?", []) => return Ok(RValue::Bool(cell.borrow().is_empty())),
        ("to_s" | "to_str", []) => return Ok(recv.clone()),
        // `s =~ re` is `re =~ s` (see below), matched in place.
        ("=~", [RValue::Regexp(re)]) => {
            let re = re.clone();
            let text = cell.borrow();
            return Ok(match crate::methods::regex_match(it, &re, &text, 0, pos)? {
                Some(at) => RValue::Int(at as i64),
                None => RValue::Nil,
            });
        }
        _ => {}
    }
    let s = cell.borrow().clone();
    let new = |x: String| Ok(RValue::string(x));
    let set = |x: String| {
        *cell.borrow_mut() = x;
    };
    match name {
        "to_s" | "to_str" => Ok(recv.clone()),
        "length" | "size" => Ok(RValue::Int(s.chars().count() as i64)),
        // A binary string's characters are its bytes.
        "bytesize" if cell.is_binary() => Ok(RValue::Int(s.chars().count() as i64)),
        "bytesize" => Ok(RValue::Int(s.len() as i64)),
        "empty?" => Ok(RValue::Bool(s.is_empty())),
        // A binary string's case is that of its ASCII letters only.
        "upcase" if cell.is_binary() => new(s.to_ascii_uppercase()),
        "downcase" if cell.is_binary() => new(s.to_ascii_lowercase()),
        "capitalize" if cell.is_binary() => new(capitalize_ascii(&s)),
        "swapcase" if cell.is_binary() => new(s
            .chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()),
        "upcase" => new(s.to_uppercase()),
        "downcase" => new(s.to_lowercase()),
        "capitalize" => new(capitalize(&s)),
        "swapcase" => new(s
            .chars()
            .map(|c| {
                if c.is_uppercase() {
                    c.to_lowercase().collect::<String>()
                } else {
                    c.to_uppercase().collect::<String>()
                }
            })
            .collect()),
        "upcase!" | "downcase!" | "capitalize!" | "swapcase!" | "strip!" | "chomp!" | "chop!"
        | "lstrip!" | "rstrip!" | "squeeze!" | "reverse!" | "tr!" | "tr_s!" | "delete!"
        | "succ!" | "next!" => {
            let base = &name[..name.len() - 1];
            let r = str_method(it, recv, cell, base, args, block, pos)?;
            let r = value::to_s(&r);
            if r == s {
                Ok(RValue::Nil)
            } else {
                set(r);
                Ok(recv.clone())
            }
        }
        "gsub!" | "sub!" => {
            let (r, changed) = substitute(it, &s, &args, block, name == "gsub!", pos)?;
            if changed {
                set(r);
                Ok(recv.clone())
            } else {
                Ok(RValue::Nil)
            }
        }
        "delete_prefix" | "delete_suffix" | "delete_prefix!" | "delete_suffix!" => {
            argc(&args, 1, 1, pos)?;
            let affix = str_arg(&args[0], pos)?;
            let cut = if name.starts_with("delete_prefix") {
                s.strip_prefix(affix.as_str())
            } else {
                s.strip_suffix(affix.as_str())
            };
            match (cut, name.ends_with('!')) {
                (Some(rest), false) => new(rest.to_string()),
                (None, false) => new(s.clone()),
                (Some(rest), true) => {
                    set(rest.to_string());
                    Ok(recv.clone())
                }
                (None, true) => Ok(RValue::Nil),
            }
        }
        "strip" => new(s.trim_matches(is_space).to_string()),
        "lstrip" => new(s.trim_start_matches(is_space).to_string()),
        "rstrip" => new(s.trim_end_matches(is_space).to_string()),
        "chomp" => {
            argc(&args, 0, 1, pos)?;
            match args.first() {
                Some(suffix) => {
                    let suffix = str_arg(suffix, pos)?;
                    new(s.strip_suffix(suffix.as_str()).unwrap_or(&s).to_string())
                }
                None => new(s
                    .strip_suffix("\r\n")
                    .or_else(|| s.strip_suffix('\n'))
                    .or_else(|| s.strip_suffix('\r'))
                    .unwrap_or(&s)
                    .to_string()),
            }
        }
        "chop" => {
            let mut t = s.clone();
            if t.ends_with("\r\n") {
                t.truncate(t.len() - 2);
            } else {
                t.pop();
            }
            new(t)
        }
        "chr" => new(s.chars().next().map(String::from).unwrap_or_default()),
        "chars" => Ok(RValue::array(
            s.chars().map(|c| RValue::string(c.to_string())).collect(),
        )),
        "bytes" => Ok(RValue::array(
            crate::methods::str_bytes(recv)
                .into_iter()
                .map(|b| RValue::Int(b as i64))
                .collect(),
        )),
        "ord" => match s.chars().next() {
            Some(c) => Ok(RValue::Int(c as i64)),
            None => raise("ArgumentError", "empty string", pos),
        },
        "lines" | "each_line" => {
            // `lines(sep = $/, chomp: false)`: a nil separator is the whole text, an empty
            // one is paragraph mode (lines end at a run of blank lines).
            let (sep, chomp) = match args.as_slice() {
                [] => (Some("\n".to_string()), false),
                [RValue::Hash(h)] => (Some("\n".to_string()), chomp_kwarg(h)),
                [RValue::Nil] => (None, false),
                [RValue::Nil, RValue::Hash(h)] => (None, chomp_kwarg(h)),
                [sep] => (Some(str_arg(sep, pos)?), false),
                [sep, RValue::Hash(h)] => (Some(str_arg(sep, pos)?), chomp_kwarg(h)),
                _ => return unsupported(format!("String#{name} with these arguments"), pos),
            };
            let lines: Vec<RValue> = split_lines(&s, sep.as_deref(), chomp)
                .into_iter()
                .map(RValue::string)
                .collect();
            if name == "each_line" {
                let Some(b) = block else {
                    return unsupported("each_line without a block", pos);
                };
                for l in lines {
                    it.call_block(b, vec![l], pos)?;
                }
                return Ok(recv.clone());
            }
            Ok(RValue::array(lines))
        }
        "each_char" => {
            let Some(b) = block else {
                return unsupported("each_char without a block", pos);
            };
            for c in s.chars() {
                it.call_block(b, vec![RValue::string(c.to_string())], pos)?;
            }
            Ok(recv.clone())
        }
        "split" => {
            argc(&args, 0, 2, pos)?;
            let limit = match args.get(1) {
                Some(l) => int_arg(l, pos)?,
                None => 0,
            };
            let parts = split(&s, args.first(), limit, pos)?;
            Ok(RValue::array(
                parts.into_iter().map(RValue::string).collect(),
            ))
        }
        "gsub" | "sub" => {
            argc(&args, 1, 2, pos)?;
            let (r, _) = substitute(it, &s, &args, block, name == "gsub", pos)?;
            new(r)
        }
        "tr" | "tr_s" => {
            argc(&args, 2, 2, pos)?;
            let from = CharSpec::parse(&str_arg(&args[0], pos)?, pos)?;
            // (A `^` starts a negation in the first set only: in the second it is itself.)
            let to = CharSpec::parse_with(&str_arg(&args[1], pos)?, false, pos)?;
            new(transliterate(&s, &from, &to, name == "tr_s", pos)?)
        }
        "delete" | "count" | "squeeze" => {
            argc(&args, usize::from(name != "squeeze"), usize::MAX, pos)?;
            // Several sets: the characters in all of them.
            let specs = args
                .iter()
                .map(|a| CharSpec::parse(&str_arg(a, pos)?, pos))
                .collect::<Result<Vec<_>, Ctrl>>()?;
            let member = |c: char| specs.iter().all(|sp| sp.contains(c));
            match name {
                "delete" => new(s.chars().filter(|c| !member(*c)).collect()),
                "count" => Ok(RValue::Int(s.chars().filter(|c| member(*c)).count() as i64)),
                _ => {
                    let mut out = String::new();
                    let mut prev: Option<char> = None;
                    for c in s.chars() {
                        if prev == Some(c) && member(c) {
                            continue;
                        }
                        out.push(c);
                        prev = Some(c);
                    }
                    new(out)
                }
            }
        }
        "include?" => {
            argc(&args, 1, 1, pos)?;
            let n = str_arg(&args[0], pos)?;
            Ok(RValue::Bool(s.contains(&n)))
        }
        "start_with?" | "end_with?" => {
            for a in &args {
                let hit = match a {
                    RValue::Regexp(re) if name == "start_with?" => {
                        matches!(regex_match(it, re, &s, 0, pos)?, Some(0))
                    }
                    other => {
                        let p = str_arg(other, pos)?;
                        if name == "start_with?" {
                            s.starts_with(&p)
                        } else {
                            s.ends_with(&p)
                        }
                    }
                };
                if hit {
                    return Ok(RValue::Bool(true));
                }
            }
            Ok(RValue::Bool(false))
        }
        "=~" | "match" | "match?" => {
            argc(&args, 1, 2, pos)?;
            let re = match &args[0] {
                RValue::Regexp(r) => r.clone(),
                RValue::Str(p) if name != "=~" => {
                    Rc::new(value::compile_regex(&p.borrow(), "").or_else(|e| unsupported(e, pos))?)
                }
                other => {
                    return raise(
                        "TypeError",
                        format!(
                            "wrong argument type {} (expected Regexp)",
                            other.class_name()
                        ),
                        pos,
                    )
                }
            };
            call_method(it, RValue::Regexp(re), name, vec![recv.clone()], None, pos)
        }
        "scan" => {
            argc(&args, 1, 1, pos)?;
            let re = match &args[0] {
                RValue::Regexp(r) => r.clone(),
                RValue::Str(p) => Rc::new(
                    value::compile_regex(&crate::methods::escape_regex(&p.borrow()), "")
                        .or_else(|e| unsupported(e, pos))?,
                ),
                _ => return raise("TypeError", "wrong argument type (expected Regexp)", pos),
            };
            let mut out = Vec::new();
            let mut start = 0;
            while start <= s.len() {
                let caps = match re.re(pos)?.captures_from_pos(&s, start) {
                    Ok(Some(c)) => c,
                    Ok(None) => break,
                    Err(e) => return unsupported(format!("regexp: {e}"), pos),
                };
                let Some(m) = caps.get(0) else { break };
                let item = if caps.len() > 1 {
                    RValue::array(
                        (1..caps.len())
                            .map(|i| {
                                caps.get(i)
                                    .map(|g| RValue::str(g.as_str()))
                                    .unwrap_or(RValue::Nil)
                            })
                            .collect(),
                    )
                } else {
                    RValue::str(m.as_str())
                };
                match block {
                    Some(b) => {
                        it.call_block(b, vec![item], pos)?;
                    }
                    None => out.push(item),
                }
                start = if m.end() == m.start() {
                    m.end() + s[m.end()..].chars().next().map(char::len_utf8).unwrap_or(1)
                } else {
                    m.end()
                };
            }
            if block.is_some() {
                return Ok(recv.clone());
            }
            Ok(RValue::array(out))
        }
        "index" | "rindex" => {
            argc(&args, 1, 2, pos)?;
            let chars = s.chars().count();
            // The start (a character position; negative from the end), nil where it is
            // before the start of the text.
            let start = match args.get(1) {
                None if name == "index" => 0,
                None => chars,
                Some(a) => {
                    let i = int_arg(a, pos)?;
                    match norm(i, chars) {
                        Some(i) => i,
                        None => {
                            if matches!(&args[0], RValue::Regexp(_)) {
                                it.set_last_match(None);
                            }
                            return Ok(RValue::Nil);
                        }
                    }
                }
            };
            let needle = match &args[0] {
                RValue::Regexp(re) if name == "index" => {
                    return Ok(match regex_match(it, re, &s, start, pos)? {
                        Some(at) => RValue::Int(at as i64),
                        None => RValue::Nil,
                    });
                }
                RValue::Regexp(re) => {
                    // The last match that starts at or before `start`: tried at each
                    // position from there back to the beginning.
                    let mut at = start.min(chars);
                    loop {
                        if let Some(found) = regex_match(it, re, &s, at, pos)? {
                            if found == at {
                                return Ok(RValue::Int(at as i64));
                            }
                        }
                        if at == 0 {
                            it.set_last_match(None);
                            return Ok(RValue::Nil);
                        }
                        it.tick(pos)?;
                        at -= 1;
                    }
                }
                other => str_arg(other, pos)?,
            };
            let found = if name == "index" {
                let start = match args.get(1) {
                    Some(a) => norm(int_arg(a, pos)?, s.chars().count()).unwrap_or(usize::MAX),
                    None => 0,
                };
                let bstart = s.char_indices().nth(start).map(|(b, _)| b);
                let bstart = match bstart {
                    Some(b) => Some(b),
                    None if start == s.chars().count() => Some(s.len()),
                    None => None,
                };
                bstart.and_then(|b| s[b..].find(&needle).map(|i| i + b))
            } else {
                // The last occurrence that starts at or before `start`.
                let limit = s.char_indices().nth(start).map_or(s.len(), |(b, _)| b);
                let end = limit.saturating_add(needle.len()).min(s.len());
                let end = (end..=s.len())
                    .find(|e| s.is_char_boundary(*e))
                    .unwrap_or(s.len());
                s[..end].rfind(&needle)
            };
            Ok(match found {
                Some(b) => RValue::Int(s[..b].chars().count() as i64),
                None => RValue::Nil,
            })
        }
        // `slice!`: what `slice` returns, cut out of the receiver (nil leaves it as it is).
        "slice!" => {
            let part = str_method(it, recv, cell, "slice", args.clone(), None, pos)?;
            let RValue::Str(p) = &part else {
                return Ok(part);
            };
            let count = p.borrow().chars().count();
            let len = s.chars().count();
            let start = match args.as_slice() {
                [RValue::Int(i)] | [RValue::Int(i), _] => norm(*i, len),
                [RValue::Range(r)] => norm(range_start(&r.0, pos)?, len),
                [RValue::Str(sub)] => s
                    .find(sub.borrow().as_str())
                    .map(|b| s[..b].chars().count()),
                [RValue::Regexp(_)] => it
                    .last_match()
                    .as_ref()
                    .map(|caps| s[..caps.span().0.min(s.len())].chars().count()),
                _ => return unsupported("String#slice! with these arguments", pos),
            };
            if let Some(start) = start {
                let rest: String = s
                    .chars()
                    .take(start)
                    .chain(s.chars().skip(start + count))
                    .collect();
                set(rest);
            }
            Ok(part)
        }
        "[]" | "slice" => {
            argc(&args, 1, 2, pos)?;
            let len = s.chars().count();
            match args.as_slice() {
                [RValue::Int(i)] => Ok(match norm(*i, len) {
                    Some(i) if i < len => RValue::string(char_slice(&s, i, 1)),
                    _ => RValue::Nil,
                }),
                [RValue::Str(sub)] => {
                    let sub = sub.borrow().clone();
                    Ok(if s.contains(&sub) {
                        RValue::string(sub)
                    } else {
                        RValue::Nil
                    })
                }
                [RValue::Regexp(re)]
                | [RValue::Regexp(re), RValue::Int(_) | RValue::Str(_) | RValue::Sym(_)] => {
                    if regex_match(it, re, &s, 0, pos)?.is_none() {
                        return Ok(RValue::Nil);
                    }
                    // The groups are `$~`'s, which the match just set.
                    let Some(caps) = it.last_match() else {
                        return Ok(RValue::Nil);
                    };
                    let group = match args.get(1) {
                        None => Some(0),
                        Some(RValue::Int(g)) if *g < 0 => {
                            let n = caps.len() as i64 + g;
                            (n > 0).then_some(n as usize)
                        }
                        Some(RValue::Int(g)) => Some(*g as usize),
                        Some(other) => {
                            let name = to_s(other);
                            match caps.named(&name) {
                                Some(i) => Some(i),
                                None => {
                                    return raise(
                                        "IndexError",
                                        format!("undefined group name reference: {name}"),
                                        pos,
                                    )
                                }
                            }
                        }
                    };
                    Ok(group
                        .and_then(|g| caps.get(g).cloned().flatten())
                        .map(RValue::string)
                        .unwrap_or(RValue::Nil))
                }
                [RValue::Range(r)] => {
                    let (a, b) = (
                        range_start(&r.0, pos)?,
                        match &r.1 {
                            RValue::Nil => -1,
                            v => int_arg(v, pos)?,
                        },
                    );
                    let Some(a) = norm(a, len) else {
                        return Ok(RValue::Nil);
                    };
                    if a > len {
                        return Ok(RValue::Nil);
                    }
                    let b = if b < 0 { len as i64 + b } else { b };
                    let b = if r.2 && !matches!(r.1, RValue::Nil) {
                        b
                    } else {
                        // Saturating: a range may end at Integer's max.
                        b.saturating_add(1)
                    };
                    let n = (b - a as i64).max(0) as usize;
                    new(char_slice(&s, a, n))
                }
                [a, b] => {
                    let (a, b) = (int_arg(a, pos)?, int_arg(b, pos)?);
                    let Some(a) = norm(a, len) else {
                        return Ok(RValue::Nil);
                    };
                    if a > len || b < 0 {
                        return Ok(RValue::Nil);
                    }
                    new(char_slice(&s, a, b as usize))
                }
                _ => unsupported("String#[] with this argument", pos),
            }
        }
        "+" => {
            argc(&args, 1, 1, pos)?;
            let o = str_arg(&args[0], pos)?;
            it.charge(s.len() + o.len(), pos)?;
            let other_binary = matches!(&args[0], RValue::Str(c) if c.is_binary());
            let binary = joined_binary(
                (cell.is_binary(), s.is_ascii()),
                (other_binary, o.is_ascii()),
                pos,
            )?;
            let r = new(s + &o)?;
            if binary {
                mark_binary(&r);
            }
            Ok(r)
        }
        "*" => {
            argc(&args, 1, 1, pos)?;
            let n = int_arg(&args[0], pos)?;
            if n < 0 {
                return raise("ArgumentError", "negative argument", pos);
            }
            let bytes = (n as u128) * (s.len() as u128);
            it.charge(bytes.min(usize::MAX as u128) as usize, pos)?;
            new(s.repeat(n as usize))
        }
        "%" => {
            argc(&args, 1, 1, pos)?;
            let fargs = match &args[0] {
                RValue::Array(a) => a.borrow().clone(),
                other => vec![other.clone()],
            };
            new(crate::format::sprintf_with(
                &s,
                &fargs,
                pos,
                &mut |v, inspect| crate::methods::show_value(it, v, inspect),
            )?)
        }
        "<<" | "concat" => {
            if name == "<<" {
                argc(&args, 1, 1, pos)?;
            }
            // `concat` takes any number of strings (or codepoints), all read first.
            let mut add = String::new();
            for a in &args {
                match a {
                    RValue::Int(i) if (0..0x110000).contains(i) => {
                        add.extend(char::from_u32(*i as u32))
                    }
                    other => add.push_str(&str_arg(other, pos)?),
                }
            }
            it.charge(add.len(), pos)?;
            cell.borrow_mut().push_str(&add);
            Ok(recv.clone())
        }
        "replace" => {
            argc(&args, 1, 1, pos)?;
            let o = str_arg(&args[0], pos)?;
            set(o);
            Ok(recv.clone())
        }
        "<=>" => {
            argc(&args, 1, 1, pos)?;
            Ok(match (&args[0], compare(recv, &args[0])) {
                (RValue::Str(_), Some(o)) => RValue::Int(o as i64),
                _ => RValue::Nil,
            })
        }
        "clamp" => {
            argc(&args, 2, 2, pos)?;
            let lo = str_arg(&args[0], pos)?;
            let hi = str_arg(&args[1], pos)?;
            if lo > hi {
                return raise(
                    "ArgumentError",
                    "min argument must be smaller than max argument",
                    pos,
                );
            }
            Ok(if s < lo {
                args[0].clone()
            } else if s > hi {
                args[1].clone()
            } else {
                recv.clone()
            })
        }
        "[]=" => {
            argc(&args, 2, 3, pos)?;
            let value = str_arg(args.last().unwrap_or(&RValue::Nil), pos)?;
            let len = s.chars().count();
            let (start, count) = match &args[..args.len() - 1] {
                [RValue::Int(i)] => match norm(*i, len).filter(|i| *i < len) {
                    Some(i) => (i, 1),
                    None => return raise("IndexError", format!("index {i} out of string"), pos),
                },
                [RValue::Int(i), RValue::Int(n)] => match norm(*i, len).filter(|i| *i <= len) {
                    Some(i) => (i, (*n).max(0) as usize),
                    None => return raise("IndexError", format!("index {i} out of string"), pos),
                },
                [RValue::Str(pat)] => {
                    let pat = pat.borrow().clone();
                    match s.find(&pat) {
                        Some(b) => (s[..b].chars().count(), pat.chars().count()),
                        None => return raise("IndexError", "string not matched", pos),
                    }
                }
                [RValue::Range(r)] => {
                    let a = range_start(&r.0, pos)?;
                    let b = match &r.1 {
                        RValue::Nil => -1,
                        v => int_arg(v, pos)?,
                    };
                    let Some(a) = norm(a, len).filter(|a| *a <= len) else {
                        return raise(
                            "RangeError",
                            format!("{} out of range", value::inspect(&args[0])),
                            pos,
                        );
                    };
                    let b = if b < 0 { len as i64 + b } else { b };
                    let b = if r.2 && !matches!(r.1, RValue::Nil) {
                        b
                    } else {
                        b + 1
                    };
                    (a, (b - a as i64).max(0) as usize)
                }
                [RValue::Regexp(re)] => match regex_match(it, re, &s, 0, pos)? {
                    Some(at) => (at, last_match_text(it).chars().count()),
                    None => return raise("IndexError", "regexp not matched", pos),
                },
                _ => return unsupported("String#[]= with these arguments", pos),
            };
            let chars: Vec<char> = s.chars().collect();
            let end = (start + count).min(chars.len());
            let mut out: String = chars[..start].iter().collect();
            out.push_str(&value);
            out.extend(chars[end..].iter());
            *cell.borrow_mut() = out;
            Ok(args.last().cloned().unwrap_or(RValue::Nil))
        }
        "<" | "<=" | ">" | ">=" | "between?" => {
            let cmp = |o: &RValue| -> Result<Ordering, Ctrl> {
                match (o, compare(recv, o)) {
                    (RValue::Str(_), Some(ord)) => Ok(ord),
                    _ => raise(
                        "ArgumentError",
                        format!(
                            "comparison of String with {} failed",
                            match o {
                                RValue::Nil => "nil".to_string(),
                                RValue::Int(_) | RValue::Big(_) | RValue::Float(_) => {
                                    value::inspect(o)
                                }
                                other => other.class_name(),
                            }
                        ),
                        pos,
                    ),
                }
            };
            if name == "between?" {
                argc(&args, 2, 2, pos)?;
                let lo = cmp(&args[0])?;
                let hi = cmp(&args[1])?;
                return Ok(RValue::Bool(
                    lo != Ordering::Less && hi != Ordering::Greater,
                ));
            }
            argc(&args, 1, 1, pos)?;
            let o = cmp(&args[0])?;
            Ok(RValue::Bool(match name {
                "<" => o == Ordering::Less,
                "<=" => o != Ordering::Greater,
                ">" => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        "casecmp" | "casecmp?" => {
            argc(&args, 1, 1, pos)?;
            let o = str_arg(&args[0], pos)?;
            let (a, b) = (s.to_lowercase(), o.to_lowercase());
            Ok(if name == "casecmp?" {
                RValue::Bool(a == b)
            } else {
                RValue::Int(a.cmp(&b) as i64)
            })
        }
        "to_i" => {
            let base = match args.first() {
                Some(b) => int_arg(b, pos)? as u32,
                None => 10,
            };
            if base == 0 {
                // Base from the prefix (`0x`, `0b`, `0o`/`0`), else 10.
                return Ok(crate::methods::str_to_int_prefixed(&s, 10));
            }
            if !(2..=36).contains(&base) {
                return raise("ArgumentError", format!("invalid radix {base}"), pos);
            }
            Ok(crate::methods::str_to_int(&s, base))
        }
        "hex" => Ok(crate::methods::str_to_int(&s, 16)),
        "oct" => Ok(crate::methods::str_to_int_prefixed(&s, 8)),
        "to_f" => Ok(RValue::Float(crate::methods::str_to_f(&s))),
        "to_sym" | "intern" => Ok(RValue::sym(&s)),
        // Ruby 1.9 took String#to_a away.
        "to_a" => raise(
            "NoMethodError",
            format!(
                "undefined method `to_a' for {}",
                crate::methods::describe(recv)
            ),
            pos,
        ),
        "reverse" => new(s.chars().rev().collect()),
        "ljust" | "rjust" | "center" => {
            argc(&args, 1, 2, pos)?;
            let w = int_arg(&args[0], pos)?;
            let p = match args.get(1) {
                Some(p) => str_arg(p, pos)?,
                None => " ".into(),
            };
            if p.is_empty() {
                return raise("ArgumentError", "zero width padding", pos);
            }
            it.charge(w.max(0) as usize, pos)?;
            new(pad(
                &s,
                w,
                &p,
                match name {
                    "ljust" => 0,
                    "rjust" => 1,
                    _ => 2,
                },
            ))
        }
        "succ" | "next" => new(str_succ(&s)),
        "b" => Ok(crate::methods::binary_string(&crate::methods::str_bytes(
            recv,
        ))),
        "force_encoding" => {
            let enc = args
                .first()
                .map(to_s)
                .unwrap_or_default()
                .to_ascii_uppercase();
            // In place: the same bytes, read in the other encoding.
            if enc == "BINARY" || enc == "ASCII-8BIT" {
                if !cell.is_binary() {
                    let bytes = crate::methods::str_bytes(recv);
                    *cell.borrow_mut() = bytes.iter().map(|b| *b as char).collect();
                    cell.set_binary_to(true);
                }
                return Ok(recv.clone());
            }
            if enc == "UTF-8" {
                if cell.is_binary() {
                    let bytes = crate::methods::str_bytes(recv);
                    let Ok(text) = String::from_utf8(bytes) else {
                        return unsupported("a string of invalid UTF-8", pos);
                    };
                    *cell.borrow_mut() = text;
                    cell.set_binary_to(false);
                }
                return Ok(recv.clone());
            }
            unsupported(format!("String#force_encoding({enc})"), pos)
        }
        "encoding" => Ok(crate::kernel::encoding_object(
            it,
            if cell.is_binary() {
                "ASCII-8BIT"
            } else {
                "UTF-8"
            },
        )),
        "encode" => {
            let enc = args
                .first()
                .map(to_s)
                .unwrap_or_default()
                .to_ascii_uppercase();
            let binary_name = enc == "BINARY" || enc == "ASCII-8BIT";
            if args.len() <= 1 && (enc.is_empty() || enc == "UTF-8" || binary_name) {
                // No encoding: Ruby's default internal one, which is none (a copy).
                let to_binary = binary_name || (enc.is_empty() && cell.is_binary());
                if to_binary == cell.is_binary() || s.is_ascii() {
                    let bytes = crate::methods::str_bytes(recv);
                    return Ok(if to_binary {
                        crate::methods::binary_string(&bytes)
                    } else {
                        RValue::string(s)
                    });
                }
                // Ruby converts between the two only what is ASCII.
                let c = s.chars().find(|c| !c.is_ascii()).unwrap_or_default();
                let message = if to_binary {
                    format!("U+{:04X} from UTF-8 to ASCII-8BIT", c as u32)
                } else {
                    format!("\"\\x{:02X}\" from ASCII-8BIT to UTF-8", c as u32)
                };
                return raise("Encoding::UndefinedConversionError", message, pos);
            }
            // `encode(xml: :text)` / `encode(xml: :attr)` within UTF-8: XML escapes.
            if let [RValue::Hash(h)] = args.as_slice() {
                let h = h.borrow();
                let xml = h.get(&RValue::sym("xml"));
                if h.map.len() == 1 {
                    let text = |s: &str| {
                        s.replace('&', "&amp;")
                            .replace('<', "&lt;")
                            .replace('>', "&gt;")
                    };
                    match xml.map(to_s).as_deref() {
                        Some("text") => return Ok(RValue::string(text(&s))),
                        Some("attr") => {
                            let a = text(&s).replace('"', "&quot;").replace('\'', "&apos;");
                            return Ok(RValue::string(format!("\"{a}\"")));
                        }
                        _ => {}
                    }
                }
            }
            unsupported("String#encode to another encoding", pos)
        }
        "dump" => {
            argc(&args, 0, 0, pos)?;
            if cell.is_binary() {
                return Ok(RValue::string(puppet_types::ruby::inspect_binary_str(&s)));
            }
            Ok(RValue::string(puppet_types::ruby::dump_str(&s)))
        }
        "valid_encoding?" => Ok(RValue::Bool(true)),
        "ascii_only?" => Ok(RValue::Bool(s.is_ascii())),
        "unicode_normalize" | "unicode_normalize!" | "unicode_normalized?" => {
            use unicode_normalization::UnicodeNormalization;
            argc(&args, 0, 1, pos)?;
            if cell.is_binary() {
                return raise(
                    "Encoding::CompatibilityError",
                    "Unicode Normalization not appropriate for ASCII-8BIT",
                    pos,
                );
            }
            let form = match args.first() {
                None => "nfc".to_string(),
                Some(RValue::Sym(f)) => f.to_string(),
                Some(other) => to_s(other),
            };
            let out: String = match (form.as_str(), args.first()) {
                ("nfc", None | Some(RValue::Sym(_))) => s.nfc().collect(),
                ("nfd", Some(RValue::Sym(_))) => s.nfd().collect(),
                ("nfkc", Some(RValue::Sym(_))) => s.nfkc().collect(),
                ("nfkd", Some(RValue::Sym(_))) => s.nfkd().collect(),
                _ => {
                    return raise(
                        "ArgumentError",
                        format!("Invalid normalization form {form}."),
                        pos,
                    )
                }
            };
            match name {
                "unicode_normalized?" => Ok(RValue::Bool(out == s)),
                "unicode_normalize!" => {
                    set(out);
                    Ok(recv.clone())
                }
                _ => new(out),
            }
        }
        "crypt" => {
            let setting = match args.first() {
                Some(RValue::Str(x)) => x.borrow().clone(),
                Some(other) => return crate::interp::no_implicit_conversion(other, "String", pos),
                None => {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (given 0, expected 1)",
                        pos,
                    )
                }
            };
            if s.contains('\0') {
                return raise("ArgumentError", "string contains null byte", pos);
            }
            // crypt(3) reads the salt as a C string: up to its first NUL byte.
            let setting = setting.split('\0').next().unwrap_or_default();
            if setting.len() < 2 {
                return raise("ArgumentError", "salt too short (need >=2 bytes)", pos);
            }
            // Ruby's crypt makes a binary (ASCII-8BIT) string of crypt(3)'s answer.
            match puppet_functions::digest::crypt(s.as_bytes(), setting) {
                Some(h) => Ok(crate::methods::binary_string(h.as_bytes())),
                None => unsupported(format!("String#crypt with the salt {setting:?}"), pos),
            }
        }
        "unpack" | "unpack1" => crate::pack::unpack(recv, name == "unpack1", &args, pos),
        // The bytes' sum modulo 2**bits (16 by default; no modulus for bits <= 0 or >= 64).
        "sum" => {
            argc(&args, 0, 1, pos)?;
            let bits = match args.first() {
                Some(b) => int_arg(b, pos)?,
                None => 16,
            };
            let total = crate::methods::str_bytes(recv)
                .iter()
                .fold(0i64, |acc, b| acc.wrapping_add(*b as i64));
            Ok(RValue::Int(if (1..64).contains(&bits) {
                total & ((1i64 << bits) - 1)
            } else {
                total
            }))
        }
        "codepoints" | "each_codepoint" => {
            argc(&args, 0, 0, pos)?;
            let points: Vec<RValue> = s.chars().map(|c| RValue::Int(c as i64)).collect();
            match (name, block) {
                ("codepoints", _) => Ok(RValue::array(points)),
                (_, Some(b)) => {
                    for x in points {
                        it.call_block(b, vec![x], pos)?;
                    }
                    Ok(recv.clone())
                }
                (_, None) => Ok(crate::kernel::make_enumerator(
                    it,
                    RValue::array(points),
                    "each",
                    Vec::new(),
                )),
            }
        }
        "each_byte" => {
            argc(&args, 0, 0, pos)?;
            let bytes: Vec<RValue> = crate::methods::str_bytes(recv)
                .into_iter()
                .map(|b| RValue::Int(b as i64))
                .collect();
            match block {
                Some(b) => {
                    for x in bytes {
                        it.call_block(b, vec![x], pos)?;
                    }
                    Ok(recv.clone())
                }
                None => Ok(crate::kernel::make_enumerator(
                    it,
                    RValue::array(bytes),
                    "each",
                    Vec::new(),
                )),
            }
        }
        "hash" => Ok(RValue::Int({
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            s.hash(&mut h);
            (h.finish() >> 2) as i64
        })),
        "+@" => Ok(if cell.is_frozen() {
            RValue::string(s)
        } else {
            recv.clone()
        }),
        "-@" | "dedup" => {
            let v = RValue::string(s);
            if let RValue::Str(x) = &v {
                x.freeze();
            }
            Ok(v)
        }
        "insert" => {
            argc(&args, 2, 2, pos)?;
            let i = int_arg(&args[0], pos)?;
            let ins = str_arg(&args[1], pos)?;
            let len = s.chars().count() as i64;
            let at = if i < 0 { len + i + 1 } else { i };
            if at < 0 || at > len {
                let shown = if i < 0 { i + 1 } else { i };
                return raise("IndexError", format!("index {shown} out of string"), pos);
            }
            let byte = s
                .char_indices()
                .nth(at as usize)
                .map(|(b, _)| b)
                .unwrap_or(s.len());
            cell.borrow_mut().insert_str(byte, &ins);
            Ok(recv.clone())
        }
        "prepend" => {
            let mut pre = String::new();
            for a in &args {
                pre.push_str(&str_arg(a, pos)?);
            }
            cell.borrow_mut().insert_str(0, &pre);
            Ok(recv.clone())
        }
        "empty" => raise(
            "NoMethodError",
            format!(
                "undefined method `empty' for {}:String",
                value::inspect_str(&s)
            ),
            pos,
        ),
        "each" | "map" | "join" | "keys" | "values" | "each_pair" | "first" | "last" | "sort"
        | "flatten" | "compact" | "uniq" | "has_key?" | "key?" | "fetch" | "each_with_index"
        | "select" | "reject" | "collect" | "any?" | "all?" | "min" | "max" | "zip" | "to_h"
        | "inject" | "sort_by" | "push" | "nil" => raise(
            "NoMethodError",
            format!(
                "undefined method `{name}' for {}:String",
                if s.len() > 60 {
                    "#<String>".to_string()
                } else {
                    value::inspect_str(&s)
                }
            ),
            pos,
        ),
        "getbyte" => {
            argc(&args, 1, 1, pos)?;
            let i = int_arg(&args[0], pos)?;
            let raw = crate::methods::str_bytes(recv);
            Ok(norm(i, raw.len())
                .and_then(|i| raw.get(i))
                .map_or(RValue::Nil, |b| RValue::Int(i64::from(*b))))
        }
        "byteslice" => {
            argc(&args, 1, 2, pos)?;
            let raw = crate::methods::str_bytes(recv);
            let len = raw.len();
            let (start, count) = match args.as_slice() {
                [RValue::Int(i)] => (norm(*i, len).filter(|i| *i < len), 1),
                [RValue::Int(i), n] => {
                    let n = int_arg(n, pos)?;
                    if n < 0 {
                        return Ok(RValue::Nil);
                    }
                    (norm(*i, len).filter(|i| *i <= len), n as usize)
                }
                [RValue::Range(r)] => {
                    let a = range_start(&r.0, pos)?;
                    let b = match &r.1 {
                        RValue::Nil => -1,
                        v => int_arg(v, pos)?,
                    };
                    let a = norm(a, len).filter(|a| *a <= len);
                    let b = if b < 0 { len as i64 + b } else { b };
                    let b = if r.2 && !matches!(r.1, RValue::Nil) {
                        b
                    } else {
                        b + 1
                    };
                    (a, a.map_or(0, |a| (b - a as i64).max(0) as usize))
                }
                _ => return unsupported("String#byteslice with these arguments", pos),
            };
            let Some(start) = start else {
                return Ok(RValue::Nil);
            };
            let end = start.saturating_add(count).min(len);
            let bytes = &raw[start..end];
            Ok(match std::str::from_utf8(bytes) {
                Ok(t) => RValue::str(t),
                Err(_) => crate::methods::binary_string(bytes),
            })
        }
        "partition" | "rpartition" if matches!(args.as_slice(), [RValue::Regexp(_)]) => {
            let RValue::Regexp(re) = &args[0] else {
                return Ok(RValue::Nil);
            };
            let chars: Vec<char> = s.chars().collect();
            // `partition`: the first match; `rpartition`: the match starting furthest right.
            let found = if name == "partition" {
                regex_match(it, re, &s, 0, pos)?
            } else {
                let mut hit = None;
                for start in (0..=chars.len()).rev() {
                    if regex_match(it, re, &s, start, pos)? == Some(start) {
                        hit = Some(start);
                        break;
                    }
                }
                hit
            };
            let parts = match found {
                Some(at) => {
                    let m = last_match_text(it);
                    let end = (at + m.chars().count()).min(chars.len());
                    vec![
                        chars[..at].iter().collect(),
                        m,
                        chars[end..].iter().collect(),
                    ]
                }
                None if name == "partition" => vec![s.clone(), String::new(), String::new()],
                None => vec![String::new(), String::new(), s.clone()],
            };
            Ok(RValue::array(
                parts.into_iter().map(RValue::string).collect(),
            ))
        }
        "partition" | "rpartition" => {
            argc(&args, 1, 1, pos)?;
            let sep = str_arg(&args[0], pos)?;
            let found = if name == "partition" {
                s.find(&sep)
            } else {
                s.rfind(&sep)
            };
            let parts = match found {
                Some(i) => vec![
                    s[..i].to_string(),
                    sep.clone(),
                    s[i + sep.len()..].to_string(),
                ],
                None if name == "partition" => vec![s.clone(), String::new(), String::new()],
                None => vec![String::new(), String::new(), s.clone()],
            };
            Ok(RValue::array(
                parts.into_iter().map(RValue::string).collect(),
            ))
        }
        _ => {
            let _ = to_s;
            crate::methods::no_method_pub(recv, name, pos)
        }
    }
}

/// The text the last match (`$~`) matched.
fn last_match_text(it: &Interp) -> String {
    it.last_match()
        .as_ref()
        .and_then(|c| c.first().cloned().flatten())
        .unwrap_or_default()
}

/// `chomp: true` among a method's keyword arguments.
fn chomp_kwarg(h: &Rc<Shared<value::RHash>>) -> bool {
    h.borrow()
        .get(&RValue::sym("chomp"))
        .is_some_and(|v| v.truthy())
}

/// `String#lines`: the text cut after each `sep` (kept unless `chomp`); `None` is the whole
/// text, `""` paragraph mode (a paragraph ends after its run of newlines; `chomp` keeps
/// the first of them, as Ruby 3.1 does).
fn split_lines(s: &str, sep: Option<&str>, chomp: bool) -> Vec<String> {
    let Some(sep) = sep else {
        return if s.is_empty() {
            vec![]
        } else {
            vec![s.to_string()]
        };
    };
    let mut out = Vec::new();
    let mut rest = s;
    if sep.is_empty() {
        while !rest.is_empty() {
            let Some(i) = rest.find("\n\n") else {
                out.push(rest.to_string());
                break;
            };
            let body_end = i + 1;
            let end = i + rest[i..].len() - rest[i..].trim_start_matches('\n').len();
            out.push(
                if chomp {
                    &rest[..body_end]
                } else {
                    &rest[..end]
                }
                .to_string(),
            );
            rest = &rest[end..];
        }
        return out;
    }
    while !rest.is_empty() {
        match rest.find(sep) {
            Some(i) => {
                let end = i + sep.len();
                // `chomp` of the default separator also drops a `\r` before the newline.
                let mut body = &rest[..if chomp { i } else { end }];
                if chomp && sep == "\n" {
                    body = body.strip_suffix('\r').unwrap_or(body);
                }
                out.push(body.to_string());
                rest = &rest[end..];
            }
            None => {
                out.push(rest.to_string());
                break;
            }
        }
    }
    out
}

/// A character set of `String#tr`, `delete`, `count` and `squeeze`: characters and ranges
/// (`a-z`), negated by a leading `^` (when more follows), a backslash escaping the next
/// character; a `-` at either end is itself.
struct CharSpec {
    /// The ranges in the order written (for `tr`'s positions).
    ranges: Vec<(char, char)>,
    negated: bool,
}

/// The most characters a `tr` set may expand to (its translation table).
const MAX_TR_CHARS: usize = 1 << 16;

impl CharSpec {
    fn parse(spec: &str, pos: Pos) -> Result<CharSpec, Ctrl> {
        CharSpec::parse_with(spec, true, pos)
    }

    /// [`CharSpec::parse`]; `negatable`: a leading `^` negates the set.
    fn parse_with(spec: &str, negatable: bool, pos: Pos) -> Result<CharSpec, Ctrl> {
        let cs: Vec<char> = spec.chars().collect();
        let negated = negatable && cs.len() > 1 && cs[0] == '^';
        let mut i = usize::from(negated);
        let mut ranges = Vec::new();
        // One character at `i` (an escaped one counts as itself) and where the next starts.
        let one = |i: usize| {
            if cs[i] == '\\' && i + 1 < cs.len() {
                (cs[i + 1], i + 2)
            } else {
                (cs[i], i + 1)
            }
        };
        while i < cs.len() {
            let (lo, next) = one(i);
            if next + 1 < cs.len() && cs[next] == '-' {
                let (hi, after) = one(next + 1);
                if hi < lo {
                    return raise(
                        "ArgumentError",
                        format!("invalid range \"{lo}-{hi}\" in string transliteration"),
                        pos,
                    );
                }
                ranges.push((lo, hi));
                i = after;
            } else {
                ranges.push((lo, lo));
                i = next;
            }
        }
        Ok(CharSpec { ranges, negated })
    }

    fn contains(&self, c: char) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != self.negated
    }

    /// The characters in the order written (ranges expanded).
    fn expanded(&self, pos: Pos) -> Result<Vec<char>, Ctrl> {
        let mut out = Vec::new();
        for &(lo, hi) in &self.ranges {
            if out.len() + (hi as usize - lo as usize) >= MAX_TR_CHARS {
                return unsupported("String#tr with a set of more than 65536 characters", pos);
            }
            out.extend(lo..=hi);
        }
        Ok(out)
    }
}

/// `tr`/`tr_s`: each character of `from` becomes the one at the same place in `to` (the
/// last of `to` past its end; every character outside a negated `from` becomes the last of
/// `to`); an empty `to` deletes them. `squeeze` (`tr_s`) leaves one of a run of the same
/// translated character.
fn transliterate(
    s: &str,
    from: &CharSpec,
    to: &CharSpec,
    squeeze: bool,
    pos: Pos,
) -> Result<String, Ctrl> {
    let to_chars = to.expanded(pos)?;
    let table: std::collections::HashMap<char, char> = if from.negated {
        std::collections::HashMap::new()
    } else {
        let mut t = std::collections::HashMap::new();
        for (i, c) in from.expanded(pos)?.into_iter().enumerate() {
            if let Some(&last) = to_chars.last() {
                t.insert(c, to_chars.get(i).copied().unwrap_or(last));
            }
        }
        t
    };
    let mut out = String::with_capacity(s.len());
    let mut last_translated: Option<char> = None;
    for c in s.chars() {
        if !from.contains(c) {
            out.push(c);
            last_translated = None;
            continue;
        }
        let Some(&last) = to_chars.last() else {
            continue; // an empty `to` deletes
        };
        let t = if from.negated {
            last
        } else {
            table.get(&c).copied().unwrap_or(last)
        };
        if squeeze && last_translated == Some(t) {
            continue;
        }
        out.push(t);
        last_translated = Some(t);
    }
    Ok(out)
}

/// The first index of a range of indexes: a beginless range (`..2`) starts at 0.
fn range_start(v: &RValue, pos: Pos) -> Result<i64, Ctrl> {
    match v {
        RValue::Nil => Ok(0),
        v => int_arg(v, pos),
    }
}
