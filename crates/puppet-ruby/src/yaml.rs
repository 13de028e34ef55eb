//! `to_yaml` with the output of Ruby 3.1's Psych (libyaml emitter, default options) for
//! strings, numbers, booleans, nil, symbols, arrays, hashes and their nesting.
//!
//! Strings follow Psych's style choice (literal block for multi-line text, quoting of text
//! that would read back as another type, double quotes for text starting with a non-word
//! character) and libyaml's plain-scalar checks. What would need libyaml's line folding
//! (long strings with spaces), complex keys or binary data is reported as unsupported.

use crate::interp::{unsupported, Ctrl};
use crate::value::{float_to_s, RValue};
use crate::Pos;

/// `obj.to_yaml`.
pub fn to_yaml(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
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
            let s = scalar(v, 0, pos)?;
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
            emit_child(&x, indent, true, out, pos, depth)?;
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
                other => scalar(other, indent, pos)?,
            };
            if key.contains('\n') {
                return unsupported("to_yaml with a multi-line key", pos);
            }
            out.push_str(&key);
            out.push(':');
            emit_child(&x, indent, false, out, pos, depth)?;
        }
        Ok(())
    })
}

/// Emits a value after `-` or `key:`.
fn emit_child(
    x: &RValue,
    indent: usize,
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
            let s = scalar(x, indent + 2, pos)?;
            if !s.is_empty() {
                out.push(' ');
                out.push_str(&s);
            }
            out.push('\n');
        }
    }
    Ok(())
}

fn scalar(v: &RValue, indent: usize, pos: Pos) -> Result<String, Ctrl> {
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
            let t = string_scalar(s, indent, pos)?;
            if t != **s {
                return unsupported("to_yaml of a symbol that needs quoting", pos);
            }
            format!(":{s}")
        }
        RValue::Str(s) => string_scalar(&s.borrow(), indent, pos)?,
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

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            c if !printable(c) => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn string_scalar(s: &str, indent: usize, pos: Pos) -> Result<String, Ctrl> {
    let chars: Vec<char> = s.chars().collect();
    let special = chars.iter().any(|c| !printable(*c));
    let multiline = s.find('\n').is_some_and(|i| i + 1 < s.len());
    if multiline && !special {
        let space_break = s.contains(" \n");
        let break_space = s.contains("\n ");
        if !space_break && !s.ends_with(' ') && !break_space {
            let keep = if s.ends_with('\n') { "" } else { "-" };
            let ind = if s.starts_with(' ') { "2" } else { "" };
            let mut out = format!("|{ind}{keep}");
            for line in s.trim_end_matches('\n').split('\n') {
                out.push('\n');
                if !line.is_empty() {
                    out.push_str(&" ".repeat(indent.max(2)));
                    out.push_str(line);
                }
            }
            if s.ends_with("\n\n") {
                return unsupported("to_yaml of a string ending in blank lines", pos);
            }
            return Ok(out);
        }
        if break_space && !space_break && !s.starts_with(' ') {
            return unsupported("to_yaml of multi-line text with indented lines", pos);
        }
        return Ok(double_quoted(s));
    }
    if special {
        return Ok(double_quoted(s));
    }
    if s.contains('\n') {
        return unsupported("to_yaml of a string with a trailing line break", pos);
    }
    if s == "<<" {
        return Ok("!!str '<<'".into());
    }
    if matches!(s, "y" | "Y" | "n" | "N") {
        return Ok(format!("\"{s}\""));
    }
    if s.len() > 80 && s.contains(' ') {
        return unsupported("to_yaml of a long string (libyaml line folding)", pos);
    }
    if chars
        .first()
        .is_some_and(|c| !(c.is_alphanumeric() || *c == '_'))
        && !s.contains('"')
    {
        return Ok(double_quoted(s));
    }
    let single = |s: &str| format!("'{}'", s.replace('\'', "''"));
    if reads_as_non_string(s) {
        return Ok(single(s));
    }
    // libyaml's plain-scalar checks.
    let first = chars[0];
    let last = chars[chars.len() - 1];
    let mut plain = !(s.starts_with("---") || s.starts_with("...") || first == ' ' || last == ' ');
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
        Ok(s.to_string())
    } else {
        Ok(single(s))
    }
}
