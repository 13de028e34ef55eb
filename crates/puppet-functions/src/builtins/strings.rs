//! String built-ins: `camelcase`, `capitalize`, `downcase`, `upcase`, `chomp`, `chop`,
//! `strip`, `lstrip`, `rstrip`, `split`, `match`, `regsubst`, `sprintf`, `versioncmp`,
//! `strftime`, `scanf`.

use super::regex::{compile, pattern_with};
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{RegistryError, Signature};
use puppet_types::{Type, Value};
use std::cmp::Ordering;

fn ruby_capitalize(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(f) => f
            .to_uppercase()
            .chain(cs.as_str().to_lowercase().chars())
            .collect(),
        None => String::new(),
    }
}

fn ruby_strip_chars(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r' | '\0')
}

fn chomp(s: &str) -> String {
    s.strip_suffix("\r\n")
        .or_else(|| s.strip_suffix('\n'))
        .or_else(|| s.strip_suffix('\r'))
        .unwrap_or(s)
        .to_string()
}

fn chop(s: &str) -> String {
    if let Some(x) = s.strip_suffix("\r\n") {
        return x.to_string();
    }
    let mut cs = s.chars();
    cs.next_back();
    cs.as_str().to_string()
}

type StrFn = fn(&str) -> String;

/// Registers a function with Puppet's `on_numeric` / `on_string` / `on_iterable` dispatches.
fn simple(
    reg: &mut Registry,
    name: &str,
    doc: &str,
    ex: (&str, &str),
    f: StrFn,
) -> Result<(), RegistryError> {
    reg.function(name)
        .doc(doc)
        .example(ex.0, ex.1)
        .dispatch(Signature::new().param("Numeric", "arg"), |_c, a| {
            Ok(a.get(0))
        })
        .dispatch(Signature::new().param("String", "arg"), move |_c, a| {
            Ok(match a.get(0) {
                Value::String(s) => Value::String(s.map_text(f)),
                _ => Value::string(""),
            })
        })
        .dispatch(
            Signature::new().param("Iterable[Variant[String, Numeric]]", "arg"),
            move |_c, a| {
                let out = super::elements(&a.get(0))?
                    .into_iter()
                    .map(|v| match &v {
                        Value::String(s) => Value::String(s.map_text(f)),
                        _ => v,
                    })
                    .collect();
                Ok(Value::array(out))
            },
        )
        .register()
}

fn deep(v: &Value, f: StrFn, depth: usize) -> Value {
    match v {
        Value::String(s) => Value::String(s.map_text(f)),
        Value::Array(a) if depth < 1000 => {
            Value::array(a.iter().map(|e| deep(e, f, depth + 1)).collect())
        }
        Value::Hash(h) if depth < 1000 => Value::hash(
            h.iter()
                .map(|(k, e)| (deep(k, f, depth + 1), deep(e, f, depth + 1))),
        ),
        other => other.clone(),
    }
}

fn case_fn(
    reg: &mut Registry,
    name: &str,
    doc: &str,
    ex: (&str, &str),
    f: StrFn,
) -> Result<(), RegistryError> {
    reg.function(name)
        .doc(doc)
        .example(ex.0, ex.1)
        .local_type(
            "StringData",
            "Variant[String, Numeric, Array[StringData], Hash[StringData, StringData]]",
        )
        .dispatch(Signature::new().param("Numeric", "arg"), |_c, a| {
            Ok(a.get(0))
        })
        .dispatch(Signature::new().param("String", "arg"), move |_c, a| {
            Ok(deep(&a.get(0), f, 0))
        })
        .dispatch(
            Signature::new().param("Array[StringData]", "arg"),
            move |_c, a| Ok(deep(&a.get(0), f, 0)),
        )
        .dispatch(
            Signature::new().param("Hash[StringData, StringData]", "arg"),
            move |_c, a| Ok(deep(&a.get(0), f, 0)),
        )
        .register()
}

fn split_chars_if_empty(s: &str, src: &str) -> Option<Vec<Value>> {
    src.is_empty()
        .then(|| s.chars().map(|c| Value::string(c.to_string())).collect())
}

fn pattern_source(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.to_string()),
        Value::Regexp(r) => Some(r.source().to_string()),
        Value::Type(Type::Regexp(Some(r))) => Some(r.source().to_string()),
        Value::Type(Type::Regexp(None)) => Some(String::new()),
        Value::Type(Type::Pattern(ps)) => ps.first().map(|r| r.source().to_string()),
        _ => None,
    }
}

/// `[match, captures...]` of `re` in the string `v` (its encoding kept), or undef.
fn match_one(v: &Value, re: &fancy_regex::Regex) -> Value {
    match re.captures(v.as_str().unwrap_or_default()) {
        Ok(Some(caps)) => Value::array(
            (0..caps.len())
                .map(|i| {
                    caps.get(i)
                        .map_or(Value::Undef, |m| v.string_like(m.as_str()))
                })
                .collect(),
        ),
        _ => Value::Undef,
    }
}

fn substitute(
    s: &str,
    re: &super::regex::Pattern,
    repl: &Value,
    global: bool,
) -> Result<String, CallError> {
    let mut out = String::new();
    let mut last = 0;
    for (start, end, groups) in re.all_matches(s)? {
        if start < last {
            continue;
        }
        out.push_str(&s[last..start]);
        match repl {
            Value::Hash(h) => {
                let whole = groups.first().cloned().flatten().unwrap_or_default();
                if let Some(Value::String(r)) = h.get(&Value::string(&whole)) {
                    out.push_str(r);
                }
            }
            other => {
                let strings: Vec<Option<&str>> = groups.iter().map(|g| g.as_deref()).collect();
                let expanded = puppet_types::regexp::ruby_replacement(
                    other.as_str().unwrap_or_default(),
                    &strings,
                    &s[..start],
                    &s[end..],
                    &re.ruby.group_names(),
                )
                .map_err(|e| CallError::new(codes::BAD_ARGUMENT, e))?;
                out.push_str(&expanded);
            }
        }
        last = end;
        if !global {
            break;
        }
    }
    out.push_str(&s[last..]);
    Ok(out)
}

fn regsubst(a: Args<'_>, pattern_is_string: bool) -> Result<Value, CallError> {
    let flags = a.get(3).as_str().unwrap_or_default().to_string();
    let src = if pattern_is_string {
        a.get(1).as_str().unwrap_or_default().to_string()
    } else {
        pattern_source(&a.get(1)).unwrap_or_default()
    };
    let re = if pattern_is_string {
        pattern_with(&src, &flags)?
    } else {
        pattern_with(&src, "")?
    };
    let global = flags.contains('G');
    let repl = a.get(2);
    Ok(match a.get(0) {
        Value::Array(arr) => Value::array(
            arr.iter()
                .map(|t| {
                    substitute(t.as_str().unwrap_or_default(), &re, &repl, global)
                        .map(|s| t.string_like(s))
                })
                .collect::<Result<_, _>>()?,
        ),
        t => t.string_like(substitute(
            t.as_str().unwrap_or_default(),
            &re,
            &repl,
            global,
        )?),
    })
}

/// Puppet's `versioncmp` (Puppet::Util::Package.versioncmp): the versions' tokens
/// ([`version_tokens`]) compared in turn, numbers by value, other text without case; the
/// first difference decides, else the texts' order.
pub(crate) fn versioncmp(a: &str, b: &str, ignore_trailing_zeroes: bool) -> i64 {
    fn normalize(v: &str) -> String {
        let mut parts: Vec<String> = v.split('-').map(str::to_string).collect();
        if let Some(first) = parts.first_mut() {
            let trimmed = first.trim_end_matches(['.', '0']).to_string();
            *first = trimmed;
        }
        parts.join("-")
    }
    let (a, b): (std::borrow::Cow<str>, std::borrow::Cow<str>) = if ignore_trailing_zeroes {
        (normalize(a).into(), normalize(b).into())
    } else {
        (a.into(), b.into())
    };
    for (x, y) in version_tokens(&a).zip(version_tokens(&b)) {
        if x == y {
            continue;
        }
        if x == "-" {
            return -1;
        }
        if y == "-" {
            return 1;
        }
        if x == "." {
            return -1;
        }
        if y == "." {
            return 1;
        }
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let o = if digits(x) && digits(y) && !x.starts_with('0') && !y.starts_with('0') {
            let (p, q) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
            p.len().cmp(&q.len()).then_with(|| p.cmp(q))
        } else {
            x.to_uppercase().cmp(&y.to_uppercase())
        };
        return o as i64;
    }
    a.cmp(&b) as i64
}

/// The tokens `versioncmp` compares, as slices of `v`: each `-` and `.` alone, runs of ASCII
/// digits, and runs of anything else. (Those three kinds of characters are single bytes
/// that never occur inside another character's UTF-8 encoding, so scanning bytes splits
/// where scanning characters would.)
fn version_tokens(v: &str) -> impl Iterator<Item = &str> {
    let bytes = v.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let start = i;
        let first = *bytes.get(i)?;
        i += 1;
        if first == b'-' || first == b'.' {
            return Some(&v[start..i]);
        }
        let digits = first.is_ascii_digit();
        while let Some(&c) = bytes.get(i) {
            let ends = match digits {
                true => !c.is_ascii_digit(),
                false => c.is_ascii_digit() || c == b'-' || c == b'.',
            };
            if ends {
                break;
            }
            i += 1;
        }
        Some(&v[start..i])
    })
}

/// `sprintf(format, args...)`: Ruby's `format` of the arguments as a 3.x function receives
/// them; each directive formats the next argument as `String(v, spec)` does, but `%p` and
/// `%s` of a container are Ruby's texts.
fn sprintf(fmt: &str, args: &[Value]) -> Result<String, CallError> {
    // Puppet's sprintf is a 3.x function: a top-level undef is '', a regexp its /text/ ...
    let args = &puppet_types::ruby::v3_args(args.to_vec())[..];
    let mut out = String::new();
    let mut it = args.iter();
    // Ruby's `%N$s` takes the Nth argument; it cannot be mixed with unnumbered ones.
    let mut numbered = false;
    let mut unnumbered = 0usize;
    let cs: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        if cs[i] != '%' {
            out.push(cs[i]);
            i += 1;
            continue;
        }
        if cs.get(i + 1) == Some(&'%') {
            out.push('%');
            i += 2;
            continue;
        }
        let mut start = i;
        i += 1;
        let digits = cs[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut position: Option<usize> = None;
        if digits > 0 && cs.get(i + digits) == Some(&'$') {
            let n: usize = cs[i..i + digits]
                .iter()
                .collect::<String>()
                .parse()
                .unwrap_or(usize::MAX);
            if unnumbered > 0 {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    format!("numbered({n}) after unnumbered({unnumbered})"),
                ));
            }
            numbered = true;
            position = Some(n);
            // The spec without its `N$`: `%` and what follows.
            i += digits;
            start = i;
            i += 1;
        }
        // Ruby's named references: `%<name>s` formats the hash entry, `%{name}` inserts it.
        let mut named: Option<Value> = None;
        let mut spec_start = start;
        let mut bare = false;
        if matches!(cs.get(i), Some('<') | Some('{')) {
            let close = if cs[i] == '<' { '>' } else { '}' };
            let end = cs[i..].iter().position(|c| *c == close).map(|p| p + i);
            let hash = match args.first() {
                Some(Value::Hash(h)) if args.len() == 1 => h.clone(),
                _ => return Err(CallError::new(codes::BAD_ARGUMENT, "one hash required")),
            };
            let Some(end) = end else {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    "malformed name - unmatched parenthesis",
                ));
            };
            let name: String = cs[i + 1..end].iter().collect();
            let v = hash
                .get(&Value::string(name.clone()))
                .cloned()
                .ok_or_else(|| {
                    CallError::new(codes::BAD_ARGUMENT, format!("key<{name}> not found"))
                })?;
            bare = close == '}';
            named = Some(v);
            i = end + 1;
            spec_start = i - 1;
        }
        if bare {
            let v = named.unwrap_or(Value::Undef);
            out.push_str(&puppet_types::convert::format_value(&v, Some("%s"))?);
            continue;
        }
        while i < cs.len() && !cs[i].is_ascii_alphabetic() {
            i += 1;
        }
        if i >= cs.len() {
            return Err(CallError::new(
                codes::BAD_ARGUMENT,
                "malformed format string - %",
            ));
        }
        let spec: String = if named.is_some() {
            std::iter::once('%')
                .chain(cs[spec_start + 1..=i].iter().copied())
                .collect()
        } else if position.is_some() {
            // `start` is at the `$` of `%N$`.
            std::iter::once('%')
                .chain(cs[start + 1..=i].iter().copied())
                .collect()
        } else {
            cs[start..=i].iter().collect()
        };
        i += 1;
        // Ruby's `*` width or precision: the next argument, an integer (a negative width
        // left-justifies, as the `-` flag does).
        let spec = if named.is_none() && spec.contains('*') {
            let mut expanded = String::with_capacity(spec.len() + 4);
            let mut left = false;
            let mut in_precision = false;
            for c in spec.chars() {
                match c {
                    '*' => {
                        let n = match it.next() {
                            Some(Value::Integer(n)) => *n,
                            Some(other) => {
                                return Err(CallError::new(
                                    codes::BAD_ARGUMENT,
                                    format!(
                                        "no implicit conversion of {} into Integer",
                                        puppet_types::ruby::class_name(other)
                                    ),
                                ))
                            }
                            None => {
                                return Err(CallError::new(
                                    codes::BAD_ARGUMENT,
                                    "too few arguments",
                                ))
                            }
                        };
                        if n < 0 && !in_precision {
                            left = true;
                        }
                        expanded.push_str(&n.unsigned_abs().to_string());
                    }
                    '.' => {
                        in_precision = true;
                        expanded.push(c);
                    }
                    _ => expanded.push(c),
                }
            }
            if left && !expanded.contains('-') {
                expanded.insert(1, '-');
            }
            expanded
        } else {
            spec
        };
        let arg = match (&named, position) {
            (Some(v), _) => v,
            (None, Some(n)) => args
                .get(n.wrapping_sub(1))
                .ok_or_else(|| CallError::new(codes::BAD_ARGUMENT, "too few arguments"))?,
            (None, None) => {
                unnumbered += 1;
                if numbered {
                    return Err(CallError::new(
                        codes::BAD_ARGUMENT,
                        format!("unnumbered({unnumbered}) mixed with numbered"),
                    ));
                }
                it.next()
                    .ok_or_else(|| CallError::new(codes::BAD_ARGUMENT, "too few arguments"))?
            }
        };
        let conv = spec.chars().last().unwrap_or('s');
        // Ruby's `Integer()`/`Float()` of a string argument, with their messages; what is
        // not a number or a string (a container, a boolean, a type) cannot be converted.
        let integral = matches!(conv, 'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'b' | 'B');
        let floating = matches!(conv, 'f' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A');
        let arg = match (conv, arg) {
            (_, Value::String(t)) if integral => {
                Value::Integer(puppet_types::ruby::integer(t, None).ok_or_else(|| {
                    CallError::new(
                        codes::BAD_ARGUMENT,
                        format!(
                            "invalid value for Integer(): {}",
                            puppet_types::ruby::inspect_str(t)
                        ),
                    )
                })?)
            }
            (_, Value::String(t)) if floating => Value::Float(
                puppet_types::ruby::float(t).map_err(|m| CallError::new(codes::BAD_ARGUMENT, m))?,
            ),
            (_, Value::Integer(_)) if floating => {
                Value::Float(puppet_types::convert::float_from(arg, false)?)
            }
            (_, v)
                if (integral || floating)
                    && !matches!(v, Value::Integer(_) | Value::Float(_) | Value::String(_)) =>
            {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    format!(
                        "can't convert {} into {}",
                        match arg {
                            Value::Boolean(b) => b.to_string(),
                            other => puppet_types::ruby::class_name(other),
                        },
                        if integral { "Integer" } else { "Float" }
                    ),
                ))
            }
            // `%p` is Ruby's inspect and `%s` Ruby's to_s of what a 3.x function receives
            // (`[1, "a", nil]`, `{"k"=>[1.5]}`, `:default`), padded as a string.
            ('p', v) => Value::string(puppet_types::ruby::inspect(v)),
            ('s', v @ (Value::Array(_) | Value::Hash(_) | Value::Default)) => {
                Value::string(puppet_types::ruby::to_s(v))
            }
            // Ruby's `%c`: one character, or the character of a code point.
            ('c', Value::String(t)) if t.chars().count() == 1 => arg.clone(),
            ('c', Value::String(_)) => {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    "%c requires a character",
                ))
            }
            ('c', Value::Undef) => {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    "%c requires a character",
                ))
            }
            ('c', Value::Integer(_) | Value::Float(_)) => {
                let n = match arg {
                    Value::Float(f) => f.trunc() as i64,
                    Value::Integer(n) => *n,
                    _ => 0,
                };
                Value::string(
                    u32::try_from(n)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| CallError::new(codes::BAD_ARGUMENT, "invalid character"))?
                        .to_string(),
                )
            }
            ('c', v) => {
                return Err(CallError::new(
                    codes::BAD_ARGUMENT,
                    format!(
                        "no implicit conversion of {} into Integer",
                        match v {
                            Value::Boolean(b) => b.to_string(),
                            other => puppet_types::ruby::class_name(other),
                        }
                    ),
                ))
            }
            _ => arg.clone(),
        };
        let spec = match conv {
            'p' | 'c' => format!("{}s", &spec[..spec.len() - 1]),
            // Ruby's `%i` and `%u` are `%d`.
            'i' | 'u' => format!("{}d", &spec[..spec.len() - 1]),
            _ => spec,
        };
        out.push_str(&puppet_types::convert::format_value(&arg, Some(&spec))?);
    }
    Ok(out)
}

/// Puppet's `Timestamp#format`: Ruby's `Time#strftime` of the time, in UTC or at the UTC
/// offset of `timezone` (Puppet's `Time#localtime` of it: the zone's name is then empty).
fn strftime_timestamp(nanos: i128, fmt: &str, timezone: &Value) -> Result<String, CallError> {
    let offset = match timezone.as_str() {
        None | Some("") => None,
        Some(tz) => Some(utc_offset(tz)?),
    };
    let secs = nanos.div_euclid(1_000_000_000);
    let nsec = nanos.rem_euclid(1_000_000_000) as i64;
    let secs = secs.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    let t = match offset {
        Some(off) => puppet_types::strftime::CivilTime::at(secs, nsec, off as i32),
        None => puppet_types::strftime::CivilTime::utc(secs, nsec),
    };
    Ok(puppet_types::strftime::strftime(&t, fmt))
}

/// Puppet's `Timestamp.utc_offset`: `current` is the local zone (UTC here: nothing reads a
/// time zone source), anything else what Ruby's `DateTime._strptime(tz, '%z')` reads
/// (`+05:30`, `-0800`, `EST`, `UTC`); an unknown zone is Puppet's error.
fn utc_offset(tz: &str) -> Result<i64, CallError> {
    if tz.eq_ignore_ascii_case("current") {
        return Ok(0);
    }
    puppet_types::strptime::strptime(tz, "%z")
        .and_then(|p| p.offset)
        .ok_or_else(|| CallError::new(codes::BAD_ARGUMENT, format!("Illegal timezone '{tz}'")))
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &[
    "camelcase",
    "capitalize",
    "downcase",
    "upcase",
    "chomp",
    "chop",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "match",
    "regsubst",
    "sprintf",
    "versioncmp",
    "strftime",
    "scanf",
];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    simple(
        reg,
        "camelcase",
        "Converts snake_case to CamelCase (numbers are returned as is; Iterables element-wise).",
        ("'abc_def'.camelcase", "'AbcDef'"),
        |s| s.split('_').map(ruby_capitalize).collect(),
    )?;
    simple(
        reg,
        "capitalize",
        "Upcases the first character and downcases the rest.",
        ("'abc'.capitalize", "'Abc'"),
        ruby_capitalize,
    )?;
    case_fn(
        reg,
        "downcase",
        "Downcases a String (recursively inside Arrays and Hashes).",
        ("'ABC'.downcase", "'abc'"),
        |s| s.to_lowercase(),
    )?;
    case_fn(
        reg,
        "upcase",
        "Upcases a String (recursively inside Arrays and Hashes).",
        ("'abc'.upcase", "'ABC'"),
        |s| s.to_uppercase(),
    )?;
    simple(
        reg,
        "chomp",
        "Removes one trailing line break (\\n, \\r or \\r\\n).",
        ("\"abc\\n\".chomp", "'abc'"),
        chomp,
    )?;
    simple(
        reg,
        "chop",
        "Removes the last character (or a trailing \\r\\n).",
        ("'abc'.chop", "'ab'"),
        chop,
    )?;
    simple(
        reg,
        "strip",
        "Removes leading and trailing whitespace.",
        ("' abc '.strip", "'abc'"),
        |s| s.trim_matches(ruby_strip_chars).to_string(),
    )?;
    simple(
        reg,
        "lstrip",
        "Removes leading whitespace.",
        ("' abc '.lstrip", "'abc '"),
        |s| s.trim_start_matches(ruby_strip_chars).to_string(),
    )?;
    simple(
        reg,
        "rstrip",
        "Removes trailing whitespace.",
        ("' abc '.rstrip", "' abc'"),
        |s| s.trim_end_matches(ruby_strip_chars).to_string(),
    )?;
    let split_fn = |_c: &mut dyn crate::CallContext, a: Args<'_>| {
        let s = a.get(0).as_str().unwrap_or_default().to_string();
        let src = pattern_source(&a.get(1)).unwrap_or_default();
        if let Some(chars) = split_chars_if_empty(&s, &src) {
            return Ok(Value::array(chars));
        }
        let parts = puppet_types::regexp::RubyPattern::new(&src, "")
            .and_then(|p| p.split(&s))
            .map_err(|e| {
                CallError::new(
                    codes::BAD_ARGUMENT,
                    format!("Invalid regular expression /{src}/: {e}"),
                )
            })?;
        let whole = match a.get(0) {
            Value::String(s) => s,
            _ => Default::default(),
        };
        Ok(Value::array(
            parts
                .into_iter()
                .map(|p| Value::String(whole.derive(p)))
                .collect(),
        ))
    };
    reg.function("split")
        .doc("Splits a String by a regular expression (given as a String, Regexp or Regexp type).")
        .example("split('a,b,c', ',')", "['a', 'b', 'c']")
        .dispatch(
            Signature::new()
                .param("String", "str")
                .param("String", "pattern"),
            split_fn,
        )
        .dispatch(
            Signature::new()
                .param("String", "str")
                .param("Regexp", "pattern"),
            split_fn,
        )
        .dispatch(
            Signature::new()
                .param("String", "str")
                .param("Type[Regexp]", "pattern"),
            split_fn,
        )
        .register()?;
    reg.function("match")
        .doc("Matches a String (or each String of an Array) against a regexp; returns `[match, captures...]` (undef for unmatched groups) or undef.")
        .example("'abc1'.match(/([a-z]+)(\\d)/)", "['abc1', 'abc', '1']")
        .dispatch(Signature::new().param("String", "string").param("Variant[Any, Type]", "pattern"), |_c, a| {
            let src = pattern_source(&a.get(1)).ok_or_else(|| CallError::new(codes::BAD_ARGUMENT, format!("match() expects pattern of T, where T is String, Regexp, Regexp[r], Pattern[p], or Array[T]. Got {}", super::label(&a.get(1)))))?;
            Ok(match_one(&a.get(0), &*compile(&src)?))
        })
        .dispatch(Signature::new().param("Array[String]", "string").param("Variant[Any, Type]", "pattern"), |_c, a| {
            let src = pattern_source(&a.get(1)).unwrap_or_default();
            let re = compile(&src)?;
            Ok(Value::array(super::elements(&a.get(0))?.iter().map(|s| match_one(s, &re)).collect()))
        })
        .register()?;
    reg.function("regsubst")
        .doc("Replaces the first (or with flag G every) match of a regexp in a String or each String of an Array; the replacement may use \\0-\\9 or be a Hash of match to replacement.")
        .example("regsubst('abc', 'b', 'x')", "'axc'")
        .dispatch(Signature::new()
            .param("Variant[Array[String],String]", "target")
            .param("String", "pattern")
            .param("Variant[String,Hash[String,String]]", "replacement")
            .optional_param("Optional[Pattern[/^[GEIM]*$/]]", "flags")
            .optional_param("Enum['N','E','S','U']", "encoding"), |_c, a| regsubst(a, true))
        .dispatch(Signature::new()
            .param("Variant[Array[String],String]", "target")
            .param("Variant[Regexp,Type[Regexp]]", "pattern")
            .param("Variant[String,Hash[String,String]]", "replacement")
            .optional_param("Pattern[/^G?$/]", "flags"), |_c, a| regsubst(a, false))
        .register()?;
    reg.function("sprintf")
        .doc("Formats values with a printf-style format string (each directive as `String(value, directive)`).")
        .example("sprintf('%s-%03d', 'a', 7)", "'a-007'")
        .dispatch(Signature::new().param("String", "format").repeated_param("Any", "args"), |_c, a| {
            Ok(Value::string(sprintf(a.get(0).as_str().unwrap_or_default(), &a.values[1..])?))
        })
        .register()?;
    reg.function("versioncmp")
        .doc("Compares two version strings the way Puppet's package providers do: -1, 0 or 1.")
        .example("versioncmp('1.2.10', '1.2.9')", "1")
        .dispatch(
            Signature::new()
                .param("String", "a")
                .param("String", "b")
                .optional_param("Boolean", "ignore_trailing_zeroes"),
            |_c, a| {
                Ok(Value::Integer(versioncmp(
                    a.get(0).as_str().unwrap_or_default(),
                    a.get(1).as_str().unwrap_or_default(),
                    matches!(a.get(2), Value::Boolean(true)),
                )))
            },
        )
        .register()?;
    reg.function("strftime")
        .doc("Formats a Timespan or Timestamp (in UTC or a given zone offset) with strftime directives. The legacy form (format only) reads the clock and is left to the evaluator.")
        .example("Timestamp('2020-01-02T03:04:05Z').strftime('%Y-%m-%d %H:%M')", "'2020-01-02 03:04'")
        .dispatch(Signature::new().param("Timespan", "time_object").param("String", "format"), |_c, a| match a.get(0) {
            Value::Timespan(t) => Ok(Value::string(t.format(a.get(1).as_str().unwrap_or_default())?)),
            _ => Ok(Value::Undef),
        })
        .dispatch(Signature::new().param("Timestamp", "time_object").param("String", "format").optional_param("String", "timezone"), |_c, a| {
            match a.get(0) {
                Value::Timestamp(t) => Ok(Value::string(strftime_timestamp(t.0, a.get(1).as_str().unwrap_or_default(), &a.get(2))?)),
                _ => Ok(Value::Undef),
            }
        })
        .dispatch(Signature::new().param("String", "format").optional_param("String", "timezone"), |_c, _a| {
            Err(CallError::new(codes::UNSUPPORTED, "strftime(format) reads the clock; the evaluator provides it"))
        })
        .register()?;
    reg.function("scanf")
        .doc("Puppet 7.23 on Ruby 3.1 cannot load Ruby's scanf library, so every call fails with Ruby's message; kept so that the failure is the same.")
        .example("'42'.scanf('%i')", "error: cannot load such file -- scanf")
        .dispatch(Signature::new().param("String", "data").param("String", "format").optional_block_param("Callable", "block"), |_c, _a| {
            Err(CallError::new(codes::UNSUPPORTED, "cannot load such file -- scanf"))
        })
        .register()?;
    let _ = Ordering::Equal;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{version_tokens, versioncmp};

    /// The tokens as the character-by-character scan makes them (the general form).
    fn tokens_by_chars(v: &str) -> Vec<String> {
        let mut out = Vec::new();
        let cs: Vec<char> = v.chars().collect();
        let mut i = 0;
        while i < cs.len() {
            let s = i;
            if cs[i] == '-' || cs[i] == '.' {
                i += 1;
            } else if cs[i].is_ascii_digit() {
                while i < cs.len() && cs[i].is_ascii_digit() {
                    i += 1;
                }
            } else {
                while i < cs.len() && !(cs[i].is_ascii_digit() || cs[i] == '-' || cs[i] == '.') {
                    i += 1;
                }
            }
            out.push(cs[s..i].iter().collect());
        }
        out
    }

    #[test]
    fn version_tokens_split_as_the_character_scan_does() {
        let versions = [
            "",
            "1",
            "1.2.10",
            "1.2.9",
            "1.2-3",
            "2.4.6-1ubuntu2",
            "10.0.0+dfsg-é1",
            "ä.ö-ü9",
            "--..",
            "abc",
            "0.010",
            "1.0.0rc1",
            "7.23.0",
            "1:2.3~beta",
            "€100.5€",
        ];
        for v in versions {
            let got: Vec<&str> = version_tokens(v).collect();
            assert_eq!(got, tokens_by_chars(v), "{v}");
        }
    }

    #[test]
    fn versioncmp_orders_as_puppet_does() {
        let cases = [
            ("1.2.10", "1.2.9", false, 1),
            ("1.2.9", "1.2.10", false, -1),
            ("1.2", "1.2", false, 0),
            ("1.2-1", "1.2.1", false, -1),
            ("1.0a", "1.0B", false, -1),
            ("1.01", "1.1", false, -1),
            ("1.2.0", "1.2", true, 0),
            ("1.2.0", "1.2", false, 1),
            ("ä1", "ä2", false, -1),
        ];
        for (a, b, zeroes, want) in cases {
            assert_eq!(versioncmp(a, b, zeroes), want, "{a} {b} {zeroes}");
        }
    }
}
