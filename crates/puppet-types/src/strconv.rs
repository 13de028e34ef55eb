//! `String.new(value, format)`: Puppet's `StringConverter` — one-directive formats checked
//! against `%<flags><width>.<prec><format>`, per-type format maps
//! (`{ Array => { format => '%(a', separator => '|' } }`) and the per-type format letters
//! (`%y` for Booleans, `%h` for Hashes, `%u` for Binary ...).
//!

use crate::assign::{assignable, is_instance};
use crate::convert::format_value;
use crate::error::TypeError;
use crate::format::float_to_s;
use crate::infer::infer_set;
use crate::types::Type;
use crate::value::Value;
use base64::Engine;

/// One parsed format directive.
#[derive(Debug, Clone)]
struct Fmt {
    conv: char,
    alt: bool,
    left: bool,
    width: Option<usize>,
    prec: Option<usize>,
    delim: Option<char>,
    /// The directive without the container delimiter flags (for `format_value`).
    clean: String,
}

fn parse_fmt(fmt: &str) -> Result<Fmt, TypeError> {
    let bad = || TypeError::BadFormat {
        message: format!(
            "The format '{fmt}' is not a valid format on the form '%<flags><width>.<prec><format>'"
        ),
        offset: 0,
    };
    let cs: Vec<char> = fmt.chars().collect();
    if cs.first() != Some(&'%') {
        return Err(bad());
    }
    let mut i = 1;
    let mut flags = Vec::new();
    while i < cs.len() && " [+#0{<(|-".contains(cs[i]) {
        flags.push(cs[i]);
        i += 1;
    }
    let ws = i;
    if i < cs.len() && ('1'..='9').contains(&cs[i]) {
        while i < cs.len() && cs[i].is_ascii_digit() {
            i += 1;
        }
    }
    let width: Option<usize> = (i > ws)
        .then(|| cs[ws..i].iter().collect::<String>().parse().ok())
        .flatten();
    let mut prec: Option<usize> = None;
    if cs.get(i) == Some(&'.') {
        let ps = i + 1;
        let mut j = ps;
        while j < cs.len() && cs[j].is_ascii_digit() {
            j += 1;
        }
        if j == ps {
            return Err(bad());
        }
        prec = cs[ps..j].iter().collect::<String>().parse().ok();
        i = j;
    }
    if i + 1 != cs.len() || !cs[i].is_ascii_alphabetic() {
        return Err(bad());
    }
    let conv = cs[i];
    let mut seen = std::collections::BTreeSet::new();
    if !flags.iter().all(|f| seen.insert(*f)) {
        return Err(TypeError::BadFormat {
            message: format!("The same flag can only be used once, got '{fmt}'"),
            offset: 0,
        });
    }
    let delims: Vec<char> = flags
        .iter()
        .copied()
        .filter(|f| "[{(<|".contains(*f))
        .collect();
    if delims.len() > 1 {
        return Err(TypeError::BadFormat {
            message: format!(
                "Only one of the delimiters [ {{ ( < | can be given in the format flags, got '{fmt}'"
            ),
            offset: 0,
        });
    }
    let mut clean = String::from("%");
    clean.extend(flags.iter().filter(|f| "-+ 0#".contains(**f)));
    if let Some(w) = width {
        clean.push_str(&w.to_string());
    }
    if let Some(p) = prec {
        clean.push('.');
        clean.push_str(&p.to_string());
    }
    clean.push(conv);
    Ok(Fmt {
        conv,
        alt: flags.contains(&'#'),
        left: flags.contains(&'-'),
        width,
        prec,
        delim: delims.first().copied(),
        clean,
    })
}

impl Fmt {
    fn with_conv(&self, c: char) -> String {
        let mut s = self.clean.clone();
        s.pop();
        s.push(c);
        s
    }
    fn without_alt(&self, c: char) -> String {
        self.with_conv(c).replace('#', "")
    }
}

/// A format entry of a format map.
#[derive(Debug, Clone, Default)]
struct Entry {
    fmt: Option<Fmt>,
    sep: Option<String>,
    sep2: Option<String>,
    sf: Option<FMap>,
}

type FMap = Vec<(Type, Entry)>;

fn simple(f: &str) -> Entry {
    Entry {
        fmt: parse_fmt(f).ok(),
        ..Entry::default()
    }
}

fn container_defaults() -> FMap {
    vec![(Type::Any, simple("%p"))]
}

fn defaults() -> FMap {
    vec![
        (crate::resolve_type_name("Object"), simple("%p")),
        (Type::any_float(), simple("%f")),
        (Type::Numeric, simple("%d")),
        (
            Type::array_of_any(),
            Entry {
                fmt: parse_fmt("%a").ok(),
                sep: Some(", ".into()),
                sep2: Some(", ".into()),
                sf: Some(container_defaults()),
            },
        ),
        (
            crate::resolve_type_name("Hash"),
            Entry {
                fmt: parse_fmt("%h").ok(),
                sep: Some(", ".into()),
                sep2: Some(" => ".into()),
                sf: Some(container_defaults()),
            },
        ),
        (Type::Binary, simple("%B")),
        (Type::Any, simple("%s")),
    ]
}

fn merge_entry(lower: Option<&Entry>, higher: Option<&Entry>) -> Entry {
    match (lower, higher) {
        (Some(l), Some(h)) => Entry {
            fmt: h.fmt.clone().or_else(|| l.fmt.clone()),
            sep: h.sep.clone().or_else(|| l.sep.clone()),
            sep2: h.sep2.clone().or_else(|| l.sep2.clone()),
            sf: merge_maps(l.sf.as_ref(), h.sf.as_ref()),
        },
        (l, h) => l.or(h).cloned().unwrap_or_default(),
    }
}

fn merge_maps(lower: Option<&FMap>, higher: Option<&FMap>) -> Option<FMap> {
    let (lower, higher) = match (lower, higher) {
        (Some(l), Some(h)) => (l, h),
        (l, h) => return l.or(h).cloned(),
    };
    let kept: Vec<&(Type, Entry)> = lower
        .iter()
        .filter(|(lk, _)| !higher.iter().any(|(hk, _)| hk != lk && assignable(hk, lk)))
        .collect();
    let mut out: FMap = Vec::new();
    for (k, _) in kept
        .iter()
        .map(|e| (&e.0, &e.1))
        .chain(higher.iter().map(|e| (&e.0, &e.1)))
    {
        if out.iter().any(|(ok, _)| ok == k) {
            continue;
        }
        let l = kept.iter().find(|(lk, _)| lk == k).map(|e| &e.1);
        let h = higher.iter().find(|(hk, _)| hk == k).map(|e| &e.1);
        out.push((k.clone(), merge_entry(l, h)));
    }
    Some(out)
}

fn parse_entry(v: &Value) -> Result<Entry, TypeError> {
    match v {
        Value::String(s) => Ok(Entry {
            fmt: Some(parse_fmt(s)?),
            ..Entry::default()
        }),
        Value::Hash(h) => {
            let mut e = Entry::default();
            for (k, x) in h.iter() {
                match (k.as_str(), x) {
                    (Some("format"), Value::String(s)) => e.fmt = Some(parse_fmt(s)?),
                    (Some("separator"), Value::String(s)) => e.sep = Some(s.to_string()),
                    (Some("separator2"), Value::String(s)) => e.sep2 = Some(s.to_string()),
                    (Some("string_formats"), m) => e.sf = Some(parse_map(m)?),
                    _ => {
                        return Err(TypeError::Conversion(format!(
                            "only 'separator', 'separator2', 'format', 'string_formats' are allowed in a container format, got {v}"
                        )))
                    }
                }
            }
            Ok(e)
        }
        other => Err(TypeError::Conversion(format!(
            "expected a hash with type to format mappings, got instance of '{}'",
            ruby_class(other)
        ))),
    }
}

fn ruby_class(v: &Value) -> &'static str {
    match v {
        Value::Integer(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Array(_) => "Array",
        Value::Undef => "NilClass",
        _ => "Object",
    }
}

fn parse_map(v: &Value) -> Result<FMap, TypeError> {
    let Value::Hash(h) = v else {
        return Err(TypeError::Conversion(format!(
            "expected a hash with type to format mappings, got instance of '{}'",
            ruby_class(v)
        )));
    };
    let mut out = Vec::new();
    for (k, x) in h.iter() {
        let Value::Type(t) = k else {
            return Err(TypeError::Conversion(format!(
                "top level keys in the format hash must be data types, got instance of '{}'",
                ruby_class(k)
            )));
        };
        out.push((t.clone(), parse_entry(x)?));
    }
    Ok(out)
}

/// `String.new(value, formats)`; `formats` is a format string, a type-to-format hash, or absent.
pub fn string_new(v: &Value, formats: Option<&Value>) -> Result<String, TypeError> {
    let user: Option<FMap> = match formats {
        None | Some(Value::Default) | Some(Value::Undef) => None,
        Some(Value::String(s)) => {
            let key = match v {
                Value::Array(_) => Type::array_of_any(),
                Value::Hash(_) => crate::resolve_type_name("Hash"),
                _ => infer_set(v),
            };
            let e = match v {
                Value::Array(_) | Value::Hash(_) => Entry {
                    fmt: Some(parse_fmt(s)?),
                    ..Entry::default()
                },
                _ => Entry {
                    fmt: Some(parse_fmt(s)?),
                    ..Entry::default()
                },
            };
            Some(vec![(key, e)])
        }
        Some(other) => Some(parse_map(other)?),
    };
    let map = merge_maps(Some(&defaults()), user.as_ref()).unwrap_or_default();
    convert(v, &map)
}

fn get_format<'a>(v: &Value, map: &'a FMap) -> Option<&'a Entry> {
    let cands: Vec<&(Type, Entry)> = map.iter().filter(|(k, _)| is_instance(k, v)).collect();
    cands
        .iter()
        .find(|(k, _)| cands.iter().all(|(o, _)| assignable(o, k)))
        .or(cands.first())
        .map(|e| &e.1)
}

fn flags(f: &Fmt, s: &str) -> String {
    if f.left || f.width.is_some() || f.prec.is_some() {
        let body: String = match f.prec {
            Some(p) => s.chars().take(p).collect(),
            None => s.to_string(),
        };
        let n = body.chars().count();
        match f.width {
            Some(w) if w > n => {
                if f.left {
                    format!("{body}{}", " ".repeat(w - n))
                } else {
                    format!("{}{body}", " ".repeat(w - n))
                }
            }
            _ => body,
        }
    } else {
        s.to_string()
    }
}

fn illegal(conv: char, ty: &str, expected: &str) -> TypeError {
    TypeError::BadFormat {
        message: format!(
            "Illegal format '{conv}' specified for value of {ty} type - expected one of the characters '{expected}'"
        ),
        offset: 0,
    }
}

/// Ruby's `%a`: hexadecimal floating point.
fn hex_float(f: f64, upper: bool) -> String {
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let a = f.abs();
    let s = if a == 0.0 {
        "0x0p+0".to_string()
    } else if !a.is_finite() {
        return float_to_s(f);
    } else {
        let bits = a.to_bits();
        let raw_exp = ((bits >> 52) & 0x7ff) as i64;
        let mant = bits & ((1u64 << 52) - 1);
        let (lead, exp) = if raw_exp == 0 {
            (0, -1022)
        } else {
            (1, raw_exp - 1023)
        };
        let mut frac = format!("{mant:013x}");
        while frac.ends_with('0') {
            frac.pop();
        }
        let dot = if frac.is_empty() {
            String::new()
        } else {
            format!(".{frac}")
        };
        format!(
            "0x{lead}{dot}p{}{}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    };
    let s = format!("{sign}{s}");
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

fn float_fmt(f: &Fmt, x: f64) -> Result<String, TypeError> {
    match f.conv {
        'a' | 'A' => Ok(flags(f, &hex_float(x, f.conv == 'A'))),
        'p' => Ok(flags(f, &float_to_s(x))),
        c => format_value(&Value::Float(x), Some(&f.with_conv(c))),
    }
}

/// Puppet's `StringConverter::Indentation`: how deep a container is and whether it is
/// pretty printed (the `#` flag of `%a`/`%h`, inherited by nested containers).
#[derive(Debug, Clone, Copy)]
struct Ind {
    level: usize,
    first: bool,
    indenting: bool,
}

impl Ind {
    const TOP: Ind = Ind {
        level: 0,
        first: true,
        indenting: false,
    };
    fn subsequent(self) -> Ind {
        Ind {
            first: false,
            ..self
        }
    }
    fn indenting(self, indenting: bool) -> Ind {
        Ind { indenting, ..self }
    }
    fn increase(self, indenting: bool) -> Ind {
        Ind {
            level: self.level + 1,
            first: true,
            indenting,
        }
    }
    fn breaks(self) -> bool {
        self.indenting && self.level > 0 && !self.first
    }
    fn padding(self) -> String {
        " ".repeat(2 * self.level)
    }
}

fn is_a_or_h(v: &Value) -> bool {
    matches!(v, Value::Array(_) | Value::Hash(_))
}

fn convert(v: &Value, map: &FMap) -> Result<String, TypeError> {
    convert_ind(v, map, Ind::TOP)
}

fn convert_ind(v: &Value, map: &FMap, ind: Ind) -> Result<String, TypeError> {
    let entry = get_format(v, map).cloned().unwrap_or_default();
    let f = match entry.fmt.clone() {
        Some(f) => f,
        None => parse_fmt("%s")?,
    };
    let c = f.conv;
    match v {
        Value::Undef => Ok(flags(
            &f,
            match c {
                'n' => {
                    if f.alt {
                        "null"
                    } else {
                        "nil"
                    }
                }
                'u' => {
                    if f.alt {
                        "undefined"
                    } else {
                        "undef"
                    }
                }
                'd' | 'x' | 'X' | 'o' | 'b' | 'B' | 'e' | 'E' | 'f' | 'g' | 'G' | 'a' | 'A' => {
                    "NaN"
                }
                'v' => "n/a",
                'V' => "N/A",
                's' => {
                    if f.alt {
                        "\"\""
                    } else {
                        ""
                    }
                }
                'p' => {
                    if f.alt {
                        "\"undef\""
                    } else {
                        "undef"
                    }
                }
                _ => return Err(illegal(c, "Undef", "nudxXobBeEfgGaAvVsp")),
            },
        )),
        Value::Default => Ok(flags(
            &f,
            match c {
                'd' | 's' | 'p' => {
                    if f.alt {
                        "\"default\""
                    } else {
                        "default"
                    }
                }
                'D' => {
                    if f.alt {
                        "\"Default\""
                    } else {
                        "Default"
                    }
                }
                _ => return Err(illegal(c, "Default", "dDsp")),
            },
        )),
        Value::Boolean(b) => {
            let b = *b;
            let pick = |s: &str| {
                if f.alt {
                    s[..1].to_string()
                } else {
                    s.to_string()
                }
            };
            match c {
                't' => Ok(flags(&f, &pick(if b { "true" } else { "false" }))),
                'T' => Ok(flags(&f, &pick(if b { "True" } else { "False" }))),
                'y' => Ok(flags(&f, &pick(if b { "yes" } else { "no" }))),
                'Y' => Ok(flags(&f, &pick(if b { "Yes" } else { "No" }))),
                'd' | 'x' | 'X' | 'o' | 'b' | 'B' => {
                    format_value(&Value::Integer(b as i64), Some(&f.clean))
                }
                'e' | 'E' | 'f' | 'g' | 'G' | 'a' | 'A' => float_fmt(&f, b as i64 as f64),
                's' | 'p' => Ok(flags(&f, if b { "true" } else { "false" })),
                _ => Err(illegal(c, "Boolean", "tTyYdxXobBeEfgGaAsp")),
            }
        }
        Value::Integer(i) => match c {
            'd' | 'x' | 'X' | 'o' | 'b' | 'B' => format_value(v, Some(&f.clean)),
            'p' => format_value(v, Some(&f.with_conv('d'))),
            'e' | 'E' | 'f' | 'g' | 'G' | 'a' | 'A' => float_fmt(&f, *i as f64),
            // Puppet packs the code point (`[i].pack('U')`), which refuses a negative one.
            'c' if *i < 0 => Err(TypeError::Conversion("pack(U): value out of range".into())),
            'c' => {
                let ch = u32::try_from(*i)
                    .ok()
                    .and_then(char::from_u32)
                    .map(String::from)
                    .unwrap_or_default();
                let ch = if f.alt { format!("\"{ch}\"") } else { ch };
                Ok(flags(&f, &ch))
            }
            's' => {
                let s = i.to_string();
                let s = if f.alt { format!("\"{s}\"") } else { s };
                Ok(flags(&f, &s))
            }
            _ => Err(illegal(c, "Integer", "dxXobBeEfgGaAspc")),
        },
        Value::Float(x) => match c {
            'd' | 'x' | 'X' | 'o' | 'b' | 'B' => {
                format_value(&Value::Integer(*x as i64), Some(&f.clean))
            }
            'e' | 'E' | 'f' | 'g' | 'G' | 'a' | 'A' | 'p' => float_fmt(&f, *x),
            's' => {
                let s = float_to_s(*x);
                let s = if f.alt { format!("\"{s}\"") } else { s };
                Ok(flags(&f, &s))
            }
            _ => Err(illegal(c, "Float", "dxXobBeEfgGaAsp")),
        },
        Value::String(_) => match c {
            'c' | 'C' | 'u' | 'd' | 's' | 'p' | 't' => format_value(v, Some(&f.clean)),
            _ => Err(illegal(c, "String", "cCudspt")),
        },
        Value::Binary(b) => {
            use base64::engine::general_purpose::{STANDARD, URL_SAFE};
            let s = match c {
                's' => String::from_utf8_lossy(b).into_owned(),
                'p' => return Ok(format!("Binary(\"{}\")", flags(&f, &STANDARD.encode(b)))),
                'b' => {
                    let enc = STANDARD.encode(b);
                    let mut out = String::new();
                    for chunk in enc.as_bytes().chunks(60) {
                        out.push_str(&String::from_utf8_lossy(chunk));
                        out.push('\n');
                    }
                    out
                }
                'B' => STANDARD.encode(b),
                'u' => URL_SAFE.encode(b),
                't' => "Binary".into(),
                'T' => "BINARY".into(),
                _ => return Err(illegal(c, "Binary", "bButTsp")),
            };
            if f.alt {
                format_value(&Value::string(s), Some(&f.without_alt('p')))
            } else {
                Ok(flags(&f, &s))
            }
        }
        Value::Array(a) => {
            if !matches!(c, 'a' | 's' | 'p') {
                return Err(illegal(c, "Array", "asp"));
            }
            let sep = entry.sep.clone().unwrap_or_else(|| ", ".into());
            let sf = entry.sf.clone().unwrap_or_else(container_defaults);
            let (open, close) = delims(f.delim, ('[', ']'));
            let ind = ind.indenting(f.alt || ind.indenting);
            let mut buf = String::new();
            if ind.breaks() {
                buf.push('\n');
                buf.push_str(&ind.padding());
            }
            buf.push(open);
            let mut children = ind.increase(f.alt);
            let mut mapped = Vec::with_capacity(a.len());
            for x in a.iter() {
                if children.first {
                    children = children.subsequent();
                }
                let m = if is_container(x) { map } else { &sf };
                mapped.push(convert_ind(x, m, children)?);
            }
            // With a width, a run of scalars wider than it puts each on its own line.
            let sz_break = match (f.alt, f.width) {
                (true, Some(w)) => {
                    let mut runs = vec![0usize];
                    for (x, m) in a.iter().zip(&mapped) {
                        if is_a_or_h(x) {
                            runs.push(0);
                        } else if let Some(last) = runs.last_mut() {
                            *last += m.chars().count();
                        }
                    }
                    runs.into_iter().max().unwrap_or(0) > w
                }
                _ => false,
            };
            let mut children = ind.increase(f.alt);
            for (i, (x, m)) in a.iter().zip(&mapped).enumerate() {
                if children.first {
                    children = children.subsequent();
                    if sz_break && !is_a_or_h(x) {
                        buf.push(' ');
                    }
                } else {
                    buf.push_str(&sep);
                    if (sz_break && !is_a_or_h(x))
                        || (f.alt && i > 0 && is_a_or_h(&a[i - 1]) && !is_a_or_h(x))
                    {
                        if !buf.ends_with('\n') {
                            buf.truncate(buf.trim_end().len());
                        }
                        buf.push('\n');
                        buf.push_str(&children.padding());
                    }
                }
                if buf.ends_with(' ') && m.starts_with('\n') {
                    buf.truncate(buf.trim_end().len());
                }
                buf.push_str(m);
            }
            buf.push(close);
            Ok(buf)
        }
        Value::Hash(h) => {
            if c == 'a' {
                let arr = Value::array(
                    h.iter()
                        .map(|(k, x)| Value::array(vec![k.clone(), x.clone()]))
                        .collect(),
                );
                return convert_ind(&arr, map, ind);
            }
            if !matches!(c, 'h' | 's' | 'p') {
                return Err(illegal(c, "Hash", "hasp"));
            }
            let mut sep = entry.sep.clone().unwrap_or_else(|| ", ".into());
            let assoc = entry.sep2.clone().unwrap_or_else(|| " => ".into());
            let sf = entry.sf.clone().unwrap_or_else(container_defaults);
            let (open, close) = delims(f.delim, ('{', '}'));
            if f.alt {
                if !sep.ends_with('\n') {
                    sep.truncate(sep.trim_end().len());
                }
                sep.push('\n');
            }
            let ind = ind.indenting(f.alt || ind.indenting);
            let mut buf = String::new();
            if ind.breaks() {
                buf.push('\n');
                buf.push_str(&ind.padding());
            }
            let children = ind.increase(false);
            let (cond_break, padding) = if f.alt {
                ("\n", children.padding())
            } else {
                ("", String::new())
            };
            buf.push(open);
            buf.push_str(cond_break);
            let mut parts = Vec::with_capacity(h.len());
            for (k, x) in h.iter() {
                let ks = convert_ind(k, if is_container(k) { map } else { &sf }, children)?;
                let xs = convert_ind(x, if is_container(x) { map } else { &sf }, children)?;
                parts.push(format!("{padding}{ks}{assoc}{xs}"));
            }
            buf.push_str(&parts.join(&sep));
            if f.alt {
                buf.push_str(cond_break);
                buf.push_str(&ind.padding());
            }
            buf.push(close);
            Ok(buf)
        }
        other => match c {
            's' | 'p' => format_value(other, Some(&f.clean)),
            _ => format_value(other, Some(&f.clean)),
        },
    }
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Array(_) | Value::Hash(_) | Value::Object(_))
}

fn delims(d: Option<char>, dflt: (char, char)) -> (char, char) {
    match d {
        Some('[') => ('[', ']'),
        Some('{') => ('{', '}'),
        Some('(') => ('(', ')'),
        Some('<') => ('<', '>'),
        Some('|') => ('|', '|'),
        _ => dflt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: Value, f: &str) -> String {
        string_new(&v, Some(&Value::string(f))).unwrap_or_else(|e| e.to_string())
    }

    /// Puppet 7.23's answers for the `#` (pretty printing) flag of containers.
    #[test]
    fn pretty_printed_containers() {
        let a = Value::array(vec![
            Value::Integer(1),
            Value::array(vec![
                Value::Integer(2),
                Value::array(vec![Value::Integer(3), Value::Integer(4)]),
            ]),
            Value::Integer(5),
            Value::hash([(
                Value::string("a"),
                Value::array(vec![Value::Integer(1), Value::Integer(2)]),
            )]),
        ]);
        assert_eq!(
            s(a, "%#a"),
            "[1,\n  [2,\n    [3, 4]],\n  5,\n  {'a' => [1, 2]}]"
        );
        let h = Value::hash([
            (
                Value::string("a"),
                Value::array(vec![
                    Value::Integer(1),
                    Value::hash([(Value::string("b"), Value::Integer(2))]),
                ]),
            ),
            (Value::string("c"), Value::Integer(3)),
        ]);
        assert_eq!(
            s(h, "%#h"),
            "{\n  'a' => [1,\n    {\n      'b' => 2\n    }],\n  'c' => 3\n}"
        );
    }

    #[test]
    fn scalars() {
        assert_eq!(s(Value::Boolean(true), "%y"), "yes");
        assert_eq!(s(Value::Boolean(false), "%#T"), "F");
        assert_eq!(s(Value::Undef, "%u"), "undef");
        assert_eq!(s(Value::Float(1.0), "%a"), "0x1p+0");
        assert_eq!(s(Value::Float(3.0), "%a"), "0x1.8p+1");
        assert_eq!(
            s(Value::Integer(1), "%k"),
            "Illegal format 'k' specified for value of Integer type - expected one of the characters 'dxXobBeEfgGaAspc'"
        );
        assert_eq!(
            s(Value::Integer(1), "%-5d|"),
            "The format '%-5d|' is not a valid format on the form '%<flags><width>.<prec><format>'"
        );
    }

    #[test]
    fn containers() {
        let a = Value::array(vec![Value::Integer(1), Value::Integer(2)]);
        assert_eq!(s(a.clone(), "%(a"), "(1, 2)");
        assert_eq!(string_new(&a, None).unwrap(), "[1, 2]");
        let h = Value::hash(vec![(Value::string("a"), Value::Integer(1))]);
        assert_eq!(s(h, "%h"), "{'a' => 1}");
    }
}
