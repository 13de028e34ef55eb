//! Native implementations of puppetlabs-stdlib 8.5's 3.x functions
//! (`lib/puppet/parser/functions/*.rb`), written from their documented behaviour and
//! messages. Each receives the argument array as Puppet 7.23 converts it for 3.x functions
//! (see [`crate::ruby::v3_args`]); Ruby's `raise` becomes a [`CallError`] with the same text.
//!
//! The functions that touch the catalog (`ensure_resource`, `ensure_resources`,
//! `defined_with_params`, `getparam`) use [`CallContext::catalog`]; `assert_private` reads
//! `$module_name` and `$caller_module_name`.

use crate::ruby::{
    as_list, class_name, fail, flatten, inspect, no_implicit_string, no_method, no_method_hint,
    ruby_array, to_s, truthy,
};
use crate::stdlib_checks::re;
use crate::Native;
use fancy_regex::Regex;
use puppet_functions::{codes, CallContext, CallError};
use puppet_types::{Regexp, TypeError, Value};
use std::sync::OnceLock;

type R = Result<Value, CallError>;

/// Adds the 3.x table entries (module `stdlib`).
pub(crate) fn table(out: &mut Vec<Native>) {
    let entries: &[(&'static str, crate::V3Fn, i64)] = &[
        ("pick", pick, -1),
        ("any2array", any2array, -1),
        ("ensure_resource", ensure_resource, -1),
        ("str2bool", str2bool, -1),
        ("has_key", has_key, -1),
        ("member", member, -1),
        ("prefix", prefix, -1),
        ("assert_private", assert_private, -1),
        ("delete_undef_values", delete_undef_values, -1),
        ("join_keys_to_values", join_keys_to_values, -1),
        ("concat", concat, -1),
        ("grep", grep, -1),
        ("dirname", dirname, -1),
        ("zip", zip, -1),
        ("deep_merge", deep_merge, -1),
        ("bool2str", bool2str, -1),
        ("delete", delete, -1),
        ("pick_default", pick_default, -1),
        ("basename", basename, -1),
        ("enclose_ipv6", enclose_ipv6, -1),
        ("getparam", getparam, -1),
        ("hash", hash, -1),
        ("reject", reject, -1),
        ("any2bool", any2bool, -1),
        ("bool2num", bool2num, -1),
        ("count", count, -2),
        ("delete_at", delete_at, -1),
        ("dig44", dig44, -2),
        ("is_hash", is_hash, -1),
        ("shell_join", shell_join, -1),
        ("uriescape", uriescape, -1),
        ("values_at", values_at, -1),
        ("defined_with_params", defined_with_params, -1),
        ("ensure_resources", ensure_resources, -1),
        ("suffix", suffix, -1),
        ("num2bool", num2bool, -1),
        ("union", union, -1),
        ("intersection", intersection, -1),
        ("difference", difference, -1),
        ("delete_values", delete_values, -1),
        ("base64", base64, -1),
        ("squeeze", squeeze, -1),
        ("swapcase", swapcase, -1),
        ("deprecation", deprecation3, -1),
        // Validators and predicates (also wrapped by stdlib's 4.x functions of the same name).
        ("validate_string", validate_string, -1),
        ("validate_absolute_path", validate_absolute_path, -1),
        ("validate_hash", validate_hash, -1),
        ("validate_array", validate_array, -1),
        ("validate_bool", validate_bool, -1),
        ("validate_re", validate_re, -1),
        ("validate_integer", validate_integer, -1),
        ("validate_slength", validate_slength, -1),
        ("is_absolute_path", is_absolute_path, 1),
        ("is_string", is_string, -1),
        ("is_array", is_array, -1),
        ("is_bool", is_bool, -1),
        ("is_integer", is_integer, -1),
        ("is_numeric", is_numeric, -1),
        ("is_float", is_float, -1),
        // Seeded randomness (Ruby's Random, see `puppet_functions::random`).
        ("fqdn_rotate", fqdn_rotate, -1),
        ("fqdn_rand_string", fqdn_rand_string, -2),
        ("seeded_rand", seeded_rand, 2),
    ];
    out.extend(
        entries
            .iter()
            .map(|&(name, f, arity)| Native::v3("stdlib", name, f, arity)),
    );
}

/// stdlib 8.5's 4.x `deprecation(key, message)`: the message gets the two innermost frames
/// of Puppet's call stack (`at ["file", line]:["file", line]`, as stdlib formats them) and
/// the Ruby location Puppet's `deprecation_warning` adds, and is logged once per key.
/// Returns what Ruby returns: the logged text, or undef when the key was logged before.
pub(crate) fn deprecation(ctx: &mut dyn CallContext, key: &str, message: &str) -> Value {
    let stack = ctx.puppet_stack();
    let frame = |i: usize| {
        stack
            .get(i)
            .map(|(f, l)| format!("[{}, {l}]", crate::ruby::inspect_str(f)))
            .unwrap_or_default()
    };
    let location = match ctx.module_directory("stdlib") {
        Some(dir) => {
            format!("(location: {dir}/lib/puppet/functions/deprecation.rb:36:in `deprecation')")
        }
        None => "(file & line not available)".to_string(),
    };
    let text = format!("{message} at {}:{}\n   {location}", frame(0), frame(1));
    if ctx.warn_once(key, &text) {
        Value::string(text)
    } else {
        Value::Undef
    }
}

/// The text stdlib's validators and predicates use for their deprecation.
pub(crate) fn compat_message(compat: &str) -> String {
    format!(
        "This method is deprecated, please use the stdlib validate_legacy function,\n                    with Stdlib::Compat::{compat}. There is further documentation for validate_legacy function in the README."
    )
}

fn is_empty_str(v: &Value) -> bool {
    matches!(v, Value::String(s) if s.is_empty())
}

fn arg(a: &[Value], i: usize) -> Value {
    a.get(i).cloned().unwrap_or(Value::Undef)
}

fn pick(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let first = a
        .into_iter()
        .find(|v| !v.is_undef() && !is_empty_str(v))
        .unwrap_or(Value::Undef);
    if to_s(&first).is_empty() {
        return Err(fail("pick(): must receive at least one non empty value"));
    }
    Ok(first)
}

fn pick_default(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let Some(default) = a.last().cloned() else {
        return Err(fail("Must receive at least one argument."));
    };
    Ok(a[..a.len() - 1]
        .iter()
        .find(|v| !v.is_undef() && !is_empty_str(v))
        .cloned()
        .unwrap_or(default))
}

fn any2array(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Ok(Value::array(a));
    }
    match &a[0] {
        Value::Array(_) => Ok(a[0].clone()),
        v if is_empty_str(v) => Ok(Value::array(vec![])),
        Value::Hash(h) => Ok(Value::array(
            h.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).collect(),
        )),
        _ => Ok(Value::array(a)),
    }
}

fn str2bool_value(v: &Value) -> R {
    match v {
        Value::Boolean(_) => Ok(v.clone()),
        Value::String(s) => {
            let l = s.to_ascii_lowercase();
            match l.as_str() {
                "" => Ok(Value::Boolean(false)),
                "1" | "t" | "y" | "true" | "yes" => Ok(Value::Boolean(true)),
                "0" | "f" | "n" | "false" | "no" => Ok(Value::Boolean(false)),
                _ if s.as_str() == "undef" || s.as_str() == "undefined" => {
                    Ok(Value::Boolean(false))
                }
                _ => Err(fail("str2bool(): Unknown type of boolean given")),
            }
        }
        _ => Err(fail("str2bool(): Requires string to work with")),
    }
}

fn str2bool(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail(
            "str2bool(): Wrong number of arguments given (0 for 1)",
        ));
    }
    str2bool_value(&a[0])
}

fn has_key(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "has_key(): wrong number of arguments ({}; must be 2)",
            a.len()
        )));
    }
    match &a[0] {
        Value::Hash(h) => Ok(Value::Boolean(h.contains_key(&a[1]))),
        other => Err(fail(format!(
            "has_key(): expects the first argument to be a hash, got {} which is of type {}",
            inspect(other),
            class_name(other)
        ))),
    }
}

fn member(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "member(): Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    let Value::Array(arr) = &a[0] else {
        return Err(fail("member(): Requires array to work with"));
    };
    let items = match &a[1] {
        Value::String(_) | Value::Integer(_) => vec![a[1].clone()],
        Value::Array(x) => x.to_vec(),
        _ => {
            return Err(fail(
                "member(): Item to search for must be a string, fixnum, or array",
            ))
        }
    };
    if items.is_empty() {
        return Err(fail(
            "member(): You must provide item to search for within array given",
        ));
    }
    Ok(Value::Boolean(items.iter().all(|i| arr.contains(i))))
}

fn affix(a: &[Value], name: &str, before: bool) -> R {
    if a.is_empty() {
        return Err(fail(format!(
            "{name}(): Wrong number of arguments given (0 for 1)"
        )));
    }
    if !matches!(a[0], Value::Array(_) | Value::Hash(_)) {
        return Err(fail(format!(
            "{name}(): expected first argument to be an Array or a Hash, got {}",
            inspect(&a[0])
        )));
    }
    let fix = match a.get(1) {
        Some(v) if truthy(v) => match v {
            Value::String(s) => Some(s.clone()),
            other => {
                return Err(fail(format!(
                    "{name}(): expected second argument to be a String, got {}",
                    inspect(other)
                )))
            }
        },
        _ => None,
    };
    // Ruby's `prefix + i` / `i + suffix`: the text and its encoding.
    let apply = |i: &Value| -> R {
        let Some(f) = &fix else {
            return Ok(i.string_like(to_s(i)));
        };
        let item = (to_s(i), matches!(i, Value::String(s) if s.is_binary()));
        let fix = (f.to_string(), f.is_binary());
        let (first, second) = if before { (fix, item) } else { (item, fix) };
        let mut text = first.0;
        let mut encoding = puppet_types::string::JoinEncoding::default();
        encoding.push(&text, 0, first.1).map_err(fail)?;
        let start = text.len();
        text.push_str(&second.0);
        encoding.push(&text, start, second.1).map_err(fail)?;
        Ok(Value::String(puppet_types::Str::with_binary(
            text,
            encoding.is_binary(),
        )))
    };
    match &a[0] {
        Value::Array(arr) => Ok(Value::array(
            arr.iter().map(apply).collect::<Result<_, _>>()?,
        )),
        Value::Hash(h) => Ok(Value::hash(
            h.iter()
                .map(|(k, v)| Ok((apply(k)?, v.clone())))
                .collect::<Result<Vec<_>, CallError>>()?,
        )),
        other => Err(fail(format!(
            "{name}(): expected first argument to be an Array or a Hash, got {}",
            inspect(other)
        ))),
    }
}

fn prefix(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    affix(&a, "prefix", true)
}

fn suffix(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    affix(&a, "suffix", false)
}

fn assert_private(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() > 1 {
        return Err(fail(format!(
            "assert_private(): Wrong number of arguments given ({}}}) for 0 or 1)",
            a.len()
        )));
    }
    let module = ctx.variable("module_name").unwrap_or(Value::Undef);
    let caller = ctx.variable("caller_module_name").unwrap_or(Value::Undef);
    if module != caller {
        let message = match a.first() {
            Some(Value::String(s)) => s.to_string(),
            _ => match ctx.catalog().and_then(|c| c.current_resource()) {
                Some((t, title)) if t == "Class" => format!("Class {title} is private"),
                Some((t, _)) => format!("Definition {} is private", t.to_lowercase()),
                None => "Class  is private".to_string(),
            },
        };
        return Err(fail(message));
    }
    Ok(Value::Undef)
}

fn delete_undef_values(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    match a.first() {
        None => Err(fail(
            "delete_undef_values(): Wrong number of arguments given (0)",
        )),
        Some(Value::Hash(h)) => Ok(Value::hash(
            h.iter()
                .filter(|(_, v)| !v.is_undef())
                .map(|(k, v)| (k.clone(), v.clone())),
        )),
        Some(Value::Array(arr)) => Ok(Value::array(
            arr.iter().filter(|v| !v.is_undef()).cloned().collect(),
        )),
        Some(other) => Err(fail(format!(
            "delete_undef_values(): expected an array or hash, got {} type  {} ",
            to_s(other),
            class_name(other)
        ))),
    }
}

fn join_keys_to_values(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "join_keys_to_values(): Takes exactly two arguments, but {} given.",
            a.len()
        )));
    }
    let Value::Hash(h) = &a[0] else {
        return Err(fail(format!(
            "join_keys_to_values(): The first argument must be a hash, but a {} was given.",
            class_name(&a[0])
        )));
    };
    let Value::String(sep) = &a[1] else {
        return Err(fail(format!(
            "join_keys_to_values(): The second argument must be a string, but a {} was given.",
            class_name(&a[1])
        )));
    };
    let mut out = Vec::new();
    for (k, v) in h.iter() {
        let k = to_s(k);
        match v {
            Value::Array(vs) => {
                for x in vs.iter() {
                    out.push(Value::string(format!("{k}{sep}{}", to_s(x))));
                }
            }
            v if to_s(v) == "undef" => out.push(Value::string(k)),
            v => out.push(Value::string(format!("{k}{sep}{}", to_s(v)))),
        }
    }
    Ok(Value::array(out))
}

fn concat(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "concat(): Wrong number of arguments given ({} for < 2)",
            a.len()
        )));
    }
    let Value::Array(first) = &a[0] else {
        return Err(fail("concat(): Requires array to work with"));
    };
    let mut out = first.to_vec();
    for x in &a[1..] {
        out.extend(as_list(x));
    }
    Ok(Value::array(out))
}

/// A Ruby `Regexp.new(x)` from a 3.x argument (a string, or a regexp passed as `/.../`):
/// Ruby's syntax and anchors (`^` and `$` at every line), compiled once per process through
/// puppet-types' one regexp cache.
fn ruby_regex(v: &Value, fname: &str) -> Result<Regexp, CallError> {
    let src = match v {
        Value::String(s) => s,
        other => return Err(no_implicit_string(other)),
    };
    Regexp::new(src).map_err(|e| match e {
        TypeError::BadRegexp { message, .. } => {
            fail(format!("{fname}(): invalid regular expression: {message}"))
        }
        other => fail(format!("{fname}(): invalid regular expression: {other}")),
    })
}

fn grep_like(a: Vec<Value>, name: &str, keep: bool) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "{name}(): Wrong number of arguments given {} for 2",
            a.len()
        )));
    }
    let re = ruby_regex(&a[1], name)?;
    let hit = |e: &Value| matches!(e, Value::String(s) if re.is_match(s));
    let items = match &a[0] {
        Value::Array(x) => x.to_vec(),
        Value::Hash(h) if keep => h
            .iter()
            .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
            .collect(),
        Value::Hash(h) => {
            return Ok(Value::hash(
                h.iter()
                    .filter(|(k, _)| !hit(k))
                    .map(|(k, v)| (k.clone(), v.clone())),
            ))
        }
        other => return Err(no_method_hint(if keep { "grep" } else { "reject" }, other)),
    };
    Ok(Value::array(
        items
            .into_iter()
            .filter(|e| {
                let m = matches!(e, Value::String(s) if re.is_match(s));
                m == keep
            })
            .collect(),
    ))
}

fn grep(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    grep_like(a, "grep", true)
}

fn reject(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    grep_like(a, "reject", false)
}

/// Ruby's `File.dirname` (POSIX).
fn file_dirname(p: &str) -> String {
    let squeezed;
    let p = if p.starts_with("//") {
        squeezed = format!("/{}", p.trim_start_matches('/'));
        squeezed.as_str()
    } else {
        p
    };
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return if p.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        };
    }
    match trimmed.rfind('/') {
        None => ".".into(),
        Some(i) => {
            let d = trimmed[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".into()
            } else {
                d.into()
            }
        }
    }
}

/// Ruby's `File.basename(p, suffix)` (POSIX).
pub(crate) fn file_basename(p: &str, suffix: Option<&str>) -> String {
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return if p.is_empty() {
            String::new()
        } else {
            "/".into()
        };
    }
    let base = trimmed.rsplit('/').next().unwrap_or(trimmed).to_string();
    match suffix {
        Some(".*") => match base.rfind('.') {
            Some(i) if i > 0 => base[..i].to_string(),
            _ => base,
        },
        Some(s) if !s.is_empty() && base.ends_with(s) && base != s => {
            base[..base.len() - s.len()].to_string()
        }
        _ => base,
    }
}

fn dirname(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail("dirname(): No arguments given"));
    }
    if a.len() > 1 {
        return Err(fail(format!(
            "dirname(): Too many arguments given ({})",
            a.len()
        )));
    }
    match &a[0] {
        Value::String(s) if s.is_empty() => {
            Err(fail("dirname(): Requires a non-empty string as argument"))
        }
        Value::String(s) => Ok(Value::string(file_dirname(s))),
        _ => Err(fail("dirname(): Requires string as argument")),
    }
}

fn basename(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail("basename(): No arguments given"));
    }
    if a.len() > 2 {
        return Err(fail(format!(
            "basename(): Too many arguments given ({})",
            a.len()
        )));
    }
    let Value::String(p) = &a[0] else {
        return Err(fail("basename(): Requires string as first argument"));
    };
    match a.get(1) {
        None => Ok(Value::string(file_basename(p, None))),
        Some(Value::String(s)) => Ok(Value::string(file_basename(p, Some(s)))),
        Some(_) => Err(fail("basename(): Requires string as second argument")),
    }
}

fn zip(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "zip(): Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    let (Value::Array(x), Value::Array(y)) = (&a[0], &a[1]) else {
        return Err(fail("zip(): Requires array to work with"));
    };
    let flat = match a.get(2) {
        Some(v) if truthy(v) => truthy(&str2bool(ctx, vec![v.clone()])?),
        _ => false,
    };
    let pairs: Vec<Value> = x
        .iter()
        .enumerate()
        .map(|(i, e)| Value::array(vec![e.clone(), y.get(i).cloned().unwrap_or(Value::Undef)]))
        .collect();
    if flat {
        let mut out = Vec::new();
        pairs.iter().for_each(|p| flatten(p, &mut out));
        Ok(Value::array(out))
    } else {
        Ok(Value::array(pairs))
    }
}

fn deep_merge_into(acc: &mut puppet_types::value::ValueMap, h: &puppet_types::value::ValueMap) {
    for (k, v) in h.iter() {
        match (acc.get_mut(k), v) {
            (Some(Value::Hash(old)), Value::Hash(new)) => {
                let mut m = (**old).clone();
                deep_merge_into(&mut m, new);
                *old = std::sync::Arc::new(m);
            }
            _ => {
                acc.insert(k.clone(), v.clone());
            }
        }
    }
}

fn deep_merge(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "deep_merge(): wrong number of arguments ({}; must be at least 2)",
            a.len()
        )));
    }
    let mut acc = puppet_types::value::ValueMap::default();
    for x in &a {
        match x {
            v if is_empty_str(v) => {}
            Value::Hash(h) => deep_merge_into(&mut acc, h),
            other => {
                return Err(fail(format!(
                    "deep_merge: unexpected argument type {}, only expects hash arguments",
                    class_name(other)
                )))
            }
        }
    }
    Ok(Value::Hash(std::sync::Arc::new(acc)))
}

fn bool2str(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 && a.len() != 3 {
        return Err(fail(format!(
            "bool2str(): Wrong number of arguments given ({} for 3)",
            a.len()
        )));
    }
    let t = a
        .get(1)
        .filter(|v| truthy(v))
        .cloned()
        .unwrap_or(Value::string("true"));
    let f = a
        .get(2)
        .filter(|v| truthy(v))
        .cloned()
        .unwrap_or(Value::string("false"));
    let Value::Boolean(b) = a[0] else {
        return Err(fail("bool2str(): Requires a boolean to work with"));
    };
    if !matches!((&t, &f), (Value::String(_), Value::String(_))) {
        return Err(fail("bool2str(): Requires strings to convert to"));
    }
    Ok(if b { t } else { f })
}

fn delete(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "delete(): Wrong number of arguments given {} for 2",
            a.len()
        )));
    }
    let items = ruby_array(&a[1]);
    if items.is_empty() {
        return Ok(a[0].clone());
    }
    match &a[0] {
        Value::Array(arr) => Ok(Value::array(
            arr.iter().filter(|e| !items.contains(e)).cloned().collect(),
        )),
        Value::Hash(h) => Ok(Value::hash(
            h.iter()
                .filter(|(k, _)| !items.contains(k))
                .map(|(k, v)| (k.clone(), v.clone())),
        )),
        Value::String(whole) => {
            let mut s = whole.to_string();
            for i in &items {
                match i {
                    Value::String(x) if !x.is_empty() => s = s.replace(x.as_str(), ""),
                    Value::String(_) => {}
                    other => {
                        return Err(fail(format!(
                            "wrong argument type {} (expected Regexp)",
                            class_name(other)
                        )))
                    }
                }
            }
            Ok(Value::String(whole.derive(s)))
        }
        other => Err(fail(format!(
            "delete(): First argument must be an Array, String, or Hash. Given an argument of class {}.",
            class_name(other)
        ))),
    }
}

/// Parses an IPv4 or IPv6 address as Ruby's `IPAddr.new` (with an optional `/prefix`):
/// whether it is IPv6, and Ruby's `to_s` of the (masked) address.
pub(crate) fn ip_kind(s: &str) -> Option<(bool, String)> {
    let ip = crate::stdlib_checks::ipaddr(s)?;
    let masked = ip.addr & ip.mask;
    Some(if ip.v6 {
        (true, ruby_ipv6_to_s(masked))
    } else {
        (false, std::net::Ipv4Addr::from(masked as u32).to_string())
    })
}

/// Ruby's `IPAddr#to_s` of an IPv6 address (puppet-ruby's).
pub(crate) fn ruby_ipv6_to_s(addr: u128) -> String {
    puppet_ruby::ipaddr::ipv6_to_s(addr)
}

#[cfg(test)]
mod ipv6_text_tests {
    /// Ruby 3.1's `IPAddr.new(a).to_s` for each address.
    #[test]
    fn as_ruby_writes_them() {
        for (a, ruby) in [
            ("::", "::"),
            ("::1", "::1"),
            ("::1:2", "::0.1.0.2"),
            ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
            ("::ffff:1", "::255.255.0.1"),
            ("1::", "1::"),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
            ("1:0:0:0:2:0:0:3", "1::2:0:0:3"),
            ("fe80::1", "fe80::1"),
            ("0:0:1:0:0:0:0:0", "0:0:1::"),
            ("1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7:0"),
            ("1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"),
            ("::102:304", "::1.2.3.4"),
            ("2001:DB8:0:0:8:800:200C:417A", "2001:db8::8:800:200c:417a"),
            ("fe80::1/64", "fe80::"),
            ("::ffff:0:0", "::ffff:0.0.0.0"),
        ] {
            assert_eq!(super::ip_kind(a), Some((true, ruby.to_string())), "{a}");
        }
    }
}

fn enclose_ipv6(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "enclose_ipv6(): Wrong number of arguments given {} for 1",
            a.len()
        )));
    }
    if !matches!(a[0], Value::String(_) | Value::Array(_)) {
        return Err(fail(format!(
            "enclose_ipv6(): Wrong argument type given {} expected String or Array",
            class_name(&a[0])
        )));
    }
    let mut items = Vec::new();
    flatten(&a[0], &mut items);
    let mut out: Vec<Value> = Vec::new();
    for v in items.into_iter().filter(|v| !v.is_undef()) {
        let r = match &v {
            Value::String(s) if s.as_str() == "*" => v.clone(),
            _ => {
                let s = to_s(&v);
                match ip_kind(&s) {
                    Some((true, text)) => Value::string(format!("[{text}]")),
                    Some((false, _)) => v.clone(),
                    None => {
                        return Err(fail(format!(
                            "enclose_ipv6(): Wrong argument given {s} is not an ip address."
                        )))
                    }
                }
            }
        };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(Value::array(out))
}

/// Splits a resource reference (`Type[title]` value or `"Type[title]"` text) into
/// (capitalized type, title).
pub(crate) fn reference(v: &Value) -> Option<(String, String)> {
    let text = match v {
        Value::String(s) => s.to_string(),
        Value::Type(t) => t.to_string(),
        _ => return None,
    };
    let open = text.find('[')?;
    let inner = text[open + 1..].strip_suffix(']')?;
    let title = inner
        .trim()
        .trim_matches(|c| c == '\'' || c == '"')
        .to_string();
    let ty =
        puppet_types::format::capitalize_segments(text[..open].trim().trim_start_matches("::"));
    Some((ty, title))
}

fn no_catalog(name: &str) -> CallError {
    CallError::new(
        codes::UNSUPPORTED,
        format!("{name}(): needs the catalog, which this call context does not provide"),
    )
}

fn getparam(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let r = arg(&a, 0);
    if !truthy(&r) {
        return Err(fail("Must specify a reference"));
    }
    let Some(Value::String(param)) = a.get(1) else {
        return Err(fail("Must specify name of a parameter"));
    };
    if param.is_empty() {
        return Ok(Value::string(""));
    }
    let Some((ty, title)) = reference(&r) else {
        return Ok(Value::string(""));
    };
    let cat = ctx.catalog().ok_or_else(|| no_catalog("getparam"))?;
    Ok(cat
        .resource(&ty, &title)
        .and_then(|ps| ps.into_iter().find(|(k, _)| k == param.as_str()))
        .map(|(_, v)| v)
        .filter(|v| !v.is_undef())
        .unwrap_or(Value::string("")))
}

fn defined_with_params(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let r = arg(&a, 0);
    if !truthy(&r) {
        return Err(fail("Must specify a reference"));
    }
    let params: Vec<(Value, Value)> = match a.get(1) {
        Some(Value::Hash(h)) => h.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => Vec::new(),
    };
    let Some((ty, title)) = reference(&r) else {
        return Err(fail(format!(
            "Reference is not understood: '{}'",
            class_name(&r)
        )));
    };
    let cat = ctx
        .catalog()
        .ok_or_else(|| no_catalog("defined_with_params"))?;
    let current = cat.current_resource();
    let titles = if title.is_empty() {
        cat.titles(&ty)
    } else {
        vec![title.clone()]
    };
    for t in titles {
        let Some(res) = cat.resource(&ty, &t) else {
            continue;
        };
        if current.as_ref() == Some(&(ty.clone(), t.clone())) {
            continue;
        }
        let all = params.iter().all(|(k, v)| {
            let have = res
                .iter()
                .find(|(n, _)| Value::string(n) == *k)
                .map(|(_, v)| v.clone())
                .unwrap_or(Value::Undef);
            (have.is_undef() && v.is_undef()) || have == *v
        });
        if all {
            return Ok(Value::Boolean(true));
        }
    }
    Ok(Value::Boolean(false))
}

fn ensure_resource(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let ty = arg(&a, 0);
    let title = arg(&a, 1);
    if !truthy(&ty) {
        return Err(fail("Must specify a type"));
    }
    if !truthy(&title) {
        return Err(fail("Must specify a title"));
    }
    let params = match a.get(2) {
        Some(v @ Value::Hash(_)) => v.clone(),
        _ => Value::hash([]),
    };
    let mut items = Vec::new();
    flatten(&title, &mut items);
    let tname = to_s(&ty);
    for item in items {
        let reference = Value::string(format!("{tname}[{}]", to_s(&item)));
        if truthy(&defined_with_params(ctx, vec![reference, params.clone()])?) {
            continue;
        }
        let ps: Vec<(String, Value)> = match &params {
            Value::Hash(h) => h.iter().map(|(k, v)| (to_s(k), v.clone())).collect(),
            _ => Vec::new(),
        };
        let cap = puppet_types::format::capitalize_segments(tname.trim_start_matches("::"));
        let cat = ctx.catalog().ok_or_else(|| no_catalog("ensure_resource"))?;
        match &item {
            Value::String(t) => cat.declare_resource(&cap, t, ps)?,
            other => cat.declare_resource_titled(&cap, other, ps)?,
        }
    }
    Ok(Value::Undef)
}

fn ensure_resources(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let ty = arg(&a, 0);
    let title = arg(&a, 1);
    if !truthy(&ty) {
        return Err(fail("Must specify a type"));
    }
    if !truthy(&title) {
        return Err(fail("Must specify a title"));
    }
    let Value::Hash(h) = &title else {
        return Err(fail(
            "ensure_resources(): Requires second argument to be a Hash",
        ));
    };
    let defaults = match a.get(2) {
        Some(Value::Hash(d)) => (**d).clone(),
        _ => Default::default(),
    };
    for (name, ps) in h.iter() {
        let mut merged = defaults.clone();
        if let Value::Hash(p) = ps {
            for (k, v) in p.iter() {
                merged.insert(k.clone(), v.clone());
            }
        }
        ensure_resource(
            ctx,
            vec![
                ty.clone(),
                name.clone(),
                Value::Hash(std::sync::Arc::new(merged)),
            ],
        )?;
    }
    Ok(Value::Undef)
}

fn hash(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail("hash(): Wrong number of arguments given (0 for 1)"));
    }
    if !matches!(a[0], Value::Array(_)) {
        return Err(fail("hash(): Requires array to work with"));
    }
    let mut items = Vec::new();
    flatten(&a[0], &mut items);
    if items.len() % 2 != 0 {
        return Err(fail("hash(): Unable to compute hash from array given"));
    }
    Ok(Value::hash(
        items.chunks(2).map(|p| (p[0].clone(), p[1].clone())),
    ))
}

/// Ruby's `Float(string)`: decimal or exponent notation, hex integers, underscores between
/// digits, surrounding whitespace.
pub(crate) fn ruby_float(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    if let Some(i) = ruby_integer(t) {
        return Some(i as f64);
    }
    let c = t.replace('_', "");
    let body = c.trim_start_matches(['+', '-']);
    if body.starts_with('.') || body.ends_with('.') || body.contains(".e") || body.contains(".E") {
        return None;
    }
    if !body
        .chars()
        .all(|ch| ch.is_ascii_digit() || matches!(ch, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    c.parse::<f64>().ok()
}

/// Ruby's `Integer(string)` (puppet-types', the one of the workspace).
pub(crate) fn ruby_integer(s: &str) -> Option<i64> {
    puppet_types::ruby::integer(s, None)
}

fn num2bool(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "num2bool(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    let n: f64 = match &a[0] {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        Value::String(s) => match ruby_float(s) {
            Some(f) => f,
            None => {
                return Err(fail(format!(
                    "num2bool(): '{s}' does not look like a number: invalid value for Float(): {}",
                    crate::ruby::inspect_str(s)
                )))
            }
        },
        other => {
            // Ruby: `to_s.to_i` of anything else.
            let s = to_s(other);
            let digits: String = s
                .trim_start()
                .chars()
                .enumerate()
                .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
                .map(|(_, c)| c)
                .collect();
            digits.parse::<i64>().unwrap_or(0) as f64
        }
    };
    Ok(Value::Boolean(n.trunc() > 0.0))
}

fn any2bool(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail(
            "any2bool(): Wrong number of arguments given (0 for 1)",
        ));
    }
    match &a[0] {
        Value::Boolean(_) => Ok(a[0].clone()),
        Value::Undef => Ok(Value::Boolean(false)),
        Value::Integer(_) | Value::Float(_) => num2bool(ctx, vec![a[0].clone()]),
        Value::String(s) => {
            if ruby_float(s).is_some() {
                num2bool(ctx, vec![a[0].clone()])
            } else {
                str2bool_value(&a[0])
            }
        }
        _ => Ok(Value::Boolean(true)),
    }
}

fn bool2num(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail(
            "bool2num(): Wrong number of arguments given (0 for 1)",
        ));
    }
    let b = str2bool_value(&a[0])?;
    Ok(Value::Integer(i64::from(truthy(&b))))
}

fn count(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() > 2 {
        return Err(fail(format!(
            "count(): Wrong number of arguments given {} for 1 or 2.",
            a.len()
        )));
    }
    let items: Vec<Value> = match &a[0] {
        Value::Array(x) => x.to_vec(),
        Value::Hash(h) => h
            .iter()
            .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
            .collect(),
        Value::String(s) => {
            return match a.get(1).filter(|v| truthy(v)) {
                None => Err(fail("wrong number of arguments (given 0, expected 1+)")),
                Some(Value::String(set)) => Ok(Value::Integer(
                    s.chars().filter(|c| set.contains(*c)).count() as i64,
                )),
                Some(other) => Err(no_implicit_string(other)),
            };
        }
        other => return Err(no_method("count", other)),
    };
    let n = match a.get(1).filter(|v| truthy(v)) {
        Some(item) => items.iter().filter(|x| *x == item).count(),
        None => items
            .iter()
            .filter(|x| !x.is_undef() && !is_empty_str(x))
            .count(),
    };
    Ok(Value::Integer(n as i64))
}

fn delete_at(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "delete_at(): Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    let Value::Array(arr) = &a[0] else {
        return Err(fail("delete_at(): Requires array to work with"));
    };
    let index: i64 = match &a[1] {
        Value::String(s) => {
            if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
                return Err(fail(
                    "delete_at(): You must provide non-negative numeric index",
                ));
            }
            s.parse().unwrap_or(i64::MAX)
        }
        Value::Integer(i) => *i,
        Value::Float(f) => f.trunc() as i64,
        other => return Err(no_method("to_i", other)),
    };
    if index > arr.len() as i64 - 1 {
        return Err(fail("delete_at(): Given index exceeds size of array given"));
    }
    let mut out = arr.to_vec();
    let idx = if index < 0 {
        arr.len() as i64 + index
    } else {
        index
    };
    if idx >= 0 && (idx as usize) < out.len() {
        out.remove(idx as usize);
    }
    Ok(Value::array(out))
}

fn dig44(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "dig44(): Wrong number of arguments given ({} for at least 2)",
            a.len()
        )));
    }
    let data = &a[0];
    if !matches!(data, Value::Hash(_) | Value::Array(_)) {
        return Err(fail(format!(
            "dig44(): first argument must be a hash or an array, given {}",
            class_name(data)
        )));
    }
    let Value::Array(path) = &a[1] else {
        return Err(fail(format!(
            "dig44(): second argument must be an array, given {}",
            class_name(&a[1])
        )));
    };
    let default = arg(&a, 2);
    let mut cur = data.clone();
    for key in path.iter() {
        let next = match &cur {
            Value::Hash(h) => h.get(key).cloned(),
            Value::Array(arr) => {
                let i = match key {
                    Value::Integer(i) => Some(*i),
                    Value::String(s) => ruby_integer(s),
                    Value::Float(f) => Some(f.trunc() as i64),
                    _ => None,
                };
                let Some(i) = i else { return Ok(default) };
                let idx = if i < 0 { arr.len() as i64 + i } else { i };
                (idx >= 0).then(|| arr.get(idx as usize).cloned()).flatten()
            }
            _ => return Ok(default),
        };
        match next {
            Some(v) if !v.is_undef() => cur = v,
            _ => return Ok(default),
        }
    }
    Ok(cur)
}

fn is_hash(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "is_hash(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    Ok(Value::Boolean(matches!(a[0], Value::Hash(_))))
}

/// Ruby's `Shellwords.escape`.
pub(crate) fn shell_escape(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    let mut out = String::new();
    for c in s.chars() {
        if c == '\n' {
            out.push_str("'\n'");
        } else if c.is_ascii_alphanumeric() || "_-.,:+/@".contains(c) || !c.is_ascii() {
            out.push(c);
        } else {
            out.push('\\');
            out.push(c);
        }
    }
    out
}

fn shell_join(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "shell_join(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    let Value::Array(arr) = &a[0] else {
        return Err(fail(format!(
            "First argument is not an Array: {}",
            inspect(&a[0])
        )));
    };
    Ok(Value::string(
        arr.iter()
            .map(|x| shell_escape(&to_s(x)))
            .collect::<Vec<_>>()
            .join(" "),
    ))
}

/// Ruby's `URI::DEFAULT_PARSER.escape` (RFC 2396 unsafe characters).
fn uri_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        let c = b as char;
        if c.is_ascii_alphanumeric() || "-_.!~*'();/?:@&=+$,[]".contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn uriescape(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    match a.first() {
        None => Err(fail(
            "uriescape(): Wrong number of arguments given (0 for 1)",
        )),
        Some(Value::String(s)) => Ok(Value::string(uri_escape(s))),
        Some(Value::Array(arr)) => Ok(Value::array(
            arr.iter()
                .map(|i| match i {
                    Value::String(s) => Value::string(uri_escape(s)),
                    other => other.clone(),
                })
                .collect(),
        )),
        Some(_) => Err(fail(
            "uriescape(): Requires either array or string to work with",
        )),
    }
}

fn values_at(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 {
        return Err(fail(format!(
            "values_at(): Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    let Value::Array(arr) = &a[0] else {
        return Err(fail("values_at(): Requires array to work with"));
    };
    let mut indices = Vec::new();
    flatten(&a[1], &mut indices);
    if indices.is_empty() {
        return Err(fail(
            "values_at(): You must provide at least one positive index to collect",
        ));
    }
    let size = arr.len() as i64;
    let mut list: Vec<i64> = Vec::new();
    static RANGE: OnceLock<Regex> = OnceLock::new();
    let range_re = re(&RANGE, r"^(\d+)(\.\.\.?|\-)(\d+)$");
    for i in indices {
        let s = to_s(&i);
        if let Ok(Some(m)) = range_re.captures(&s) {
            let start: i64 = m.get(1).and_then(|x| x.as_str().parse().ok()).unwrap_or(0);
            let stop: i64 = m.get(3).and_then(|x| x.as_str().parse().ok()).unwrap_or(0);
            if start > stop {
                return Err(fail("values_at(): Stop index in given indices range is smaller than the start index"));
            }
            if stop > size - 1 {
                return Err(fail(
                    "values_at(): Stop index in given indices range exceeds array size",
                ));
            }
            let exclusive = m.get(2).is_some_and(|x| x.as_str() == "...");
            let end = if exclusive { stop } else { stop + 1 };
            list.extend(start..end);
        } else {
            if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) {
                return Err(fail("values_at(): Unknown format of given index"));
            }
            let n: i64 = s.parse().unwrap_or(i64::MAX);
            if n > size - 1 {
                return Err(fail("values_at(): Given index exceeds array size"));
            }
            list.push(n);
        }
    }
    Ok(Value::array(
        list.into_iter()
            .filter_map(|i| arr.get(i as usize).cloned())
            .filter(|v| !v.is_undef())
            .collect(),
    ))
}

fn array_op(a: &[Value], name: &str, exact: bool, msg: &str) -> Result<Vec<Vec<Value>>, CallError> {
    if (exact && a.len() != 2) || (!exact && a.len() < 2) {
        return Err(fail(format!(
            "{name}(): Wrong number of arguments given ({} for {})",
            a.len(),
            if exact { "2" } else { "< 2" }
        )));
    }
    let mut out = Vec::new();
    for x in a {
        match x {
            Value::Array(v) => out.push(v.to_vec()),
            _ => return Err(fail(msg.to_string())),
        }
    }
    Ok(out)
}

fn uniq(v: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn union(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let arrays = array_op(
        &a,
        "union",
        false,
        "union(): Every parameter must be an array",
    )?;
    Ok(Value::array(uniq(arrays.into_iter().flatten().collect())))
}

fn intersection(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let msg = if a.len() == 2 {
        format!(
            "intersection(): Requires 2 arrays, got {} and {}",
            class_name(&a[0]),
            class_name(&a[1])
        )
    } else {
        String::new()
    };
    let arrays = array_op(&a, "intersection", true, &msg)?;
    Ok(Value::array(uniq(
        arrays[0]
            .iter()
            .filter(|x| arrays[1].contains(x))
            .cloned()
            .collect(),
    )))
}

fn difference(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let arrays = array_op(&a, "difference", true, "difference(): Requires 2 arrays")?;
    Ok(Value::array(
        arrays[0]
            .iter()
            .filter(|x| !arrays[1].contains(x))
            .cloned()
            .collect(),
    ))
}

fn delete_values(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "delete_values(): Wrong number of arguments given ({} of 2)",
            a.len()
        )));
    }
    let Value::Hash(h) = &a[0] else {
        return Err(fail(format!(
            "delete_values(): First argument must be a Hash. Given an argument of class {}.",
            class_name(&a[0])
        )));
    };
    Ok(Value::hash(
        h.iter()
            .filter(|(_, v)| **v != a[1])
            .map(|(k, v)| (k.clone(), v.clone())),
    ))
}

fn base64(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    use base64::Engine;
    if a.len() < 2 {
        return Err(fail(format!(
            "base64(): Wrong number of arguments ({}; must be >= 2)",
            a.len()
        )));
    }
    let action = to_s(&a[0]);
    if !matches!(a[0], Value::String(_)) || (action != "encode" && action != "decode") {
        return Err(fail(
            "base64(): the first argument must be one of 'encode' or 'decode'",
        ));
    }
    let Value::String(data) = &a[1] else {
        return Err(fail(
            "base64(): the second argument must be a string to base64",
        ));
    };
    let method = match a.get(2) {
        None => "default".to_string(),
        Some(Value::String(m)) => m.to_string(),
        Some(_) => String::new(),
    };
    if !["default", "strict", "urlsafe"].contains(&method.as_str()) {
        return Err(fail(
            "base64(): the third argument must be one of 'default', 'strict', or 'urlsafe'",
        ));
    }
    let std = base64::engine::general_purpose::STANDARD;
    let url = base64::engine::general_purpose::URL_SAFE;
    // Ruby's Base64 decodes to a binary (ASCII-8BIT) string and encodes its bytes.
    let bytes_to_value = |b: Vec<u8>| Value::String(puppet_types::Str::from_bytes(&b));
    let data_bytes = data.to_bytes();
    Ok(match (action.as_str(), method.as_str()) {
        ("encode", "default") => {
            let enc = std.encode(&data_bytes);
            let mut out = String::new();
            for chunk in enc.as_bytes().chunks(60) {
                out.push_str(&String::from_utf8_lossy(chunk));
                out.push('\n');
            }
            Value::string(out)
        }
        ("encode", "strict") => Value::string(std.encode(&data_bytes)),
        ("encode", _) => Value::string(url.encode(&data_bytes)),
        ("decode", "default") => {
            let clean: String = data
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '+' || *c == '/')
                .collect();
            let usable = clean.len() - clean.len() % 4;
            let mut bytes = base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(&clean[..usable])
                .unwrap_or_default();
            let rest = &clean[usable..];
            if rest.len() >= 2 {
                if let Ok(b) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(rest) {
                    bytes.extend(b);
                }
            }
            bytes_to_value(bytes)
        }
        ("decode", "strict") => bytes_to_value(
            std.decode(data.as_bytes())
                .map_err(|_| fail("invalid base64"))?,
        ),
        _ => {
            let padded = if data.len() % 4 != 0 && !data.ends_with('=') {
                format!("{data}{}", "=".repeat((4 - data.len() % 4) % 4))
            } else {
                data.to_string()
            };
            bytes_to_value(
                url.decode(padded.as_bytes())
                    .map_err(|_| fail("invalid base64"))?,
            )
        }
    })
}

fn squeeze_str(s: &str, set: Option<&str>) -> String {
    let mut out = String::new();
    let mut last: Option<char> = None;
    for c in s.chars() {
        let in_set = set.is_none_or(|x| x.contains(c));
        if Some(c) == last && in_set {
            continue;
        }
        out.push(c);
        last = Some(c);
    }
    out
}

fn squeeze(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 && a.len() != 2 {
        return Err(fail(format!(
            "squeeze(): Wrong number of arguments given {} for 2 or 1",
            a.len()
        )));
    }
    let set = match a.get(1).filter(|v| truthy(v)) {
        None => None,
        Some(Value::String(s)) => Some(s.to_string()),
        Some(other) => {
            if matches!(a[0], Value::String(_) | Value::Array(_)) {
                return Err(no_implicit_string(other));
            }
            None
        }
    };
    let one = |v: &Value| match v {
        Value::String(s) => Ok(Value::string(squeeze_str(s, set.as_deref()))),
        other => Err(no_method("squeeze", other)),
    };
    match &a[0] {
        Value::Array(arr) => Ok(Value::array(
            arr.iter().map(one).collect::<Result<Vec<_>, _>>()?,
        )),
        v => one(v),
    }
}

fn swapcase(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let sw = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_uppercase() {
                    c.to_lowercase().collect::<String>()
                } else {
                    c.to_uppercase().collect::<String>()
                }
            })
            .collect()
    };
    match a.first() {
        None => Err(fail(
            "swapcase(): Wrong number of arguments given (0 for 1)",
        )),
        Some(Value::String(s)) => Ok(Value::string(sw(s))),
        Some(Value::Array(arr)) => Ok(Value::array(
            arr.iter()
                .map(|i| match i {
                    Value::String(s) => Value::string(sw(s)),
                    other => other.clone(),
                })
                .collect(),
        )),
        Some(_) => Err(fail(
            "swapcase(): Requires either array or string to work with",
        )),
    }
}

fn deprecation3(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "deprecation: Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    // stdlib logs 3.x deprecations only when STDLIB_LOG_DEPRECATIONS is 'true'.
    Ok(Value::Undef)
}

fn validate_each(a: &[Value], name: &str, ok: impl Fn(&Value) -> bool, what: &str) -> R {
    if a.is_empty() {
        return Err(fail(format!(
            "{name}(): wrong number of arguments (0; must be > 0)"
        )));
    }
    for x in a {
        if !ok(x) {
            return Err(fail(format!(
                "{} is not {what}.  It looks to be a {}",
                inspect(x),
                class_name(x)
            )));
        }
    }
    Ok(Value::Undef)
}

fn validate_string(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_each(
        &a,
        "validate_string",
        |v| matches!(v, Value::String(_) | Value::Undef),
        "a string",
    )
}

fn validate_hash(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_each(
        &a,
        "validate_hash",
        |v| matches!(v, Value::Hash(_)),
        "a Hash",
    )
}

fn validate_array(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_each(
        &a,
        "validate_array",
        |v| matches!(v, Value::Array(_)),
        "an Array",
    )
}

fn validate_bool(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_each(
        &a,
        "validate_bool",
        |v| matches!(v, Value::Boolean(_)),
        "a boolean",
    )
}

/// Puppet's `Puppet::Util.absolute_path?` for POSIX or Windows paths.
pub(crate) fn absolute_path(p: &str) -> bool {
    if p.starts_with('/') {
        return true;
    }
    let b = p.as_bytes();
    let drive = b.len() >= 3
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b[2] == b'/' || b[2] == b'\\');
    if drive {
        return true;
    }
    let sep = |c: u8| c == b'/' || c == b'\\';
    if b.len() >= 2 && sep(b[0]) && sep(b[1]) {
        // \\server\share or \\?\...
        let rest = &p[2..];
        let parts: Vec<&str> = rest.split(['/', '\\']).collect();
        if parts.first() == Some(&"?") {
            return parts.len() >= 2 && !parts[1].is_empty();
        }
        return parts.len() >= 2 && !parts[0].is_empty() && !parts[1].is_empty();
    }
    false
}

fn is_absolute_path_value(v: &Value) -> bool {
    match v {
        Value::String(s) => absolute_path(s),
        _ => false,
    }
}

fn validate_absolute_path(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail(
            "validate_absolute_path(): wrong number of arguments (0; must be > 0)",
        ));
    }
    for x in &a {
        for p in as_list(x) {
            if !is_absolute_path_value(&p) {
                return Err(fail(format!("{} is not an absolute path.", inspect(&p))));
            }
        }
    }
    Ok(Value::Undef)
}

fn is_absolute_path(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    Ok(Value::Boolean(is_absolute_path_value(&arg(&a, 0))))
}

fn validate_re(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 || a.len() > 3 {
        return Err(fail(format!(
            "validate_re(): wrong number of arguments ({}; must be 2 or 3)",
            a.len()
        )));
    }
    let Value::String(s) = &a[0] else {
        return Err(fail(format!(
            "validate_re(): input needs to be a String, not a {}",
            class_name(&a[0])
        )));
    };
    let msg = match a.get(2).filter(|v| truthy(v)) {
        Some(m) => to_s(m),
        None => format!(
            "validate_re(): {} does not match {}",
            inspect(&a[0]),
            inspect(&a[1])
        ),
    };
    let mut pats = Vec::new();
    flatten(&a[1], &mut pats);
    for p in pats {
        let re = ruby_regex(&p, "validate_re")?;
        if re.is_match(s) {
            return Ok(Value::Undef);
        }
    }
    Err(fail(msg))
}

fn integer_of(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        Value::Hash(_) => None,
        other => ruby_integer(&to_s(other)),
    }
}

fn validate_integer(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() || a.len() > 3 {
        return Err(fail(format!(
            "validate_integer(): Wrong number of arguments; must be 1, 2 or 3, got {}",
            a.len()
        )));
    }
    let input = &a[0];
    let max = if a.len() > 1 {
        let m = to_s(&a[1]);
        if a.len() > 2 && m.is_empty() {
            None
        } else {
            Some(ruby_integer(&m).ok_or_else(|| {
                fail(format!(
                    "validate_integer(): Expected second argument to be unset or an Integer, got {m}:String"
                ))
            })?)
        }
    } else {
        None
    };
    let min = if a.len() > 2 {
        let m = to_s(&a[2]);
        Some(ruby_integer(&m).ok_or_else(|| {
            fail(format!(
                "validate_integer(): Expected third argument to be unset or an Integer, got {}:{}",
                to_s(&a[2]),
                class_name(&a[2])
            ))
        })?)
    } else {
        None
    };
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(fail(format!("validate_integer(): Expected second argument to be larger than third argument, got {hi} < {lo}")));
        }
    }
    let check = |n: i64| -> Result<(), CallError> {
        if let Some(hi) = max {
            if n > hi {
                return Err(fail(format!(
                    "validate_integer(): Expected {} to be smaller or equal to {hi}, got {}.",
                    inspect(input),
                    inspect(input)
                )));
            }
        }
        if let Some(lo) = min {
            if n < lo {
                return Err(fail(format!(
                    "validate_integer(): Expected {} to be greater or equal to {lo}, got {}.",
                    inspect(input),
                    inspect(input)
                )));
            }
        }
        Ok(())
    };
    match input {
        Value::Array(arr) => {
            for (pos, x) in arr.iter().enumerate() {
                let n = integer_of(x).ok_or_else(|| {
                    fail(format!(
                        "validate_integer(): Expected element at array position {pos} to be an Integer, got {}",
                        class_name(x)
                    ))
                })?;
                check(n)?;
            }
        }
        Value::Hash(_) => {
            return Err(fail(
                "validate_integer(): Expected first argument to be an Integer or Array, got Hash",
            ))
        }
        other => {
            let n = integer_of(other).ok_or_else(|| {
                fail(format!(
                    "validate_integer(): Expected first argument to be an Integer or Array, got {}",
                    class_name(other)
                ))
            })?;
            check(n)?;
        }
    }
    Ok(Value::Undef)
}

fn validate_slength(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 && a.len() != 3 {
        return Err(fail(format!(
            "validate_slength(): Wrong number of arguments ({}; must be 2 or 3)",
            a.len()
        )));
    }
    let int = |v: &Value| match v {
        Value::Integer(i) => Some(*i),
        Value::Float(f) => Some(f.trunc() as i64),
        Value::String(s) => ruby_integer(s),
        _ => None,
    };
    let max = int(&a[1]).filter(|m| *m > 0).ok_or_else(|| {
        fail(format!(
            "validate_slength(): Expected second argument to be a positive Numeric, got {}:{}",
            to_s(&a[1]),
            class_name(&a[1])
        ))
    })?;
    let min = match a.get(2).filter(|v| truthy(v)) {
        Some(v) => int(v).filter(|m| *m >= 0).ok_or_else(|| {
            fail(format!(
                "validate_slength(): Expected third argument to be unset or a positive Numeric, got {}:{}",
                to_s(v),
                class_name(v)
            ))
        })?,
        None => 0,
    };
    if max < min {
        return Err(fail("validate_slength(): Expected second argument to be equal to or larger than third argument"));
    }
    let check = |s: &str| -> Result<(), CallError> {
        let n = s.chars().count() as i64;
        if n > max || n < min {
            let input_len = match &a[0] {
                Value::Array(x) => x.len(),
                Value::String(x) => x.chars().count(),
                _ => 0,
            };
            return Err(fail(format!(
                "validate_slength(): Expected length of {} to be between {min} and {max}, was {input_len}",
                inspect(&a[0])
            )));
        }
        Ok(())
    };
    match &a[0] {
        Value::String(s) => check(s)?,
        Value::Array(arr) => {
            for (pos, x) in arr.iter().enumerate() {
                let Value::String(s) = x else {
                    return Err(fail(format!(
                        "validate_slength(): Expected element at array position {pos} to be a String, got {}",
                        class_name(x)
                    )));
                };
                check(s)?;
            }
        }
        other => {
            return Err(fail(format!(
                "validate_slength(): Expected first argument to be a String or Array, got {}",
                class_name(other)
            )))
        }
    }
    Ok(Value::Undef)
}

fn one_arg(a: &[Value], name: &str, exact: bool) -> Result<Value, CallError> {
    if (exact && a.len() != 1) || a.is_empty() {
        return Err(fail(format!(
            "{name}(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    Ok(a[0].clone())
}

fn is_string(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg(&a, "is_string", false)?;
    Ok(Value::Boolean(match &v {
        Value::Undef => true,
        Value::String(s) => {
            ruby_float_to_s_of_to_f(s) != s.as_str() && ruby_to_i(s).to_string() != s.as_str()
        }
        _ => false,
    }))
}

/// Ruby's `String#to_i` (leading integer, else 0).
fn ruby_to_i(s: &str) -> i64 {
    let t = s.trim_start();
    let mut end = 0;
    for (i, c) in t.char_indices() {
        if c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+')) || (c == '_' && i > 0) {
            end = i + c.len_utf8();
        } else {
            break;
        }
    }
    t[..end].replace('_', "").parse().unwrap_or(0)
}

/// Ruby's `s.to_f.to_s`.
fn ruby_float_to_s_of_to_f(s: &str) -> String {
    let t = s.trim_start();
    let mut end = 0;
    let mut seen_dot = false;
    let mut seen_e = false;
    let bytes: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let ok = c.is_ascii_digit()
            || (i == 0 && (c == '-' || c == '+'))
            || (c == '.'
                && !seen_dot
                && !seen_e
                && bytes.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
            || ((c == 'e' || c == 'E')
                && !seen_e
                && i > 0
                && bytes
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_digit() || *d == '-' || *d == '+'))
            || ((c == '-' || c == '+') && i > 0 && matches!(bytes[i - 1], 'e' | 'E'));
        if !ok {
            break;
        }
        if c == '.' {
            seen_dot = true;
        }
        if c == 'e' || c == 'E' {
            seen_e = true;
        }
        i += 1;
        end = i;
    }
    let text: String = bytes[..end].iter().collect();
    let f: f64 = text.parse().unwrap_or(0.0);
    puppet_types::format::float_to_s(f)
}

fn is_array(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg(&a, "is_array", false)?;
    Ok(Value::Boolean(matches!(v, Value::Array(_))))
}

fn is_bool(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg(&a, "is_bool", true)?;
    Ok(Value::Boolean(matches!(v, Value::Boolean(_))))
}

fn is_integer(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "is_integer(): Wrong number of arguments given {} for 1",
            a.len()
        )));
    }
    static INTEGER: OnceLock<Regex> = OnceLock::new();
    let re = re(&INTEGER, r"^-?(?:(?:[1-9]\d*)|0)$");
    Ok(Value::Boolean(match &a[0] {
        Value::Integer(_) => true,
        Value::String(s) => s.lines().any(|l| re.is_match(l).unwrap_or(false)),
        _ => false,
    }))
}

fn is_numeric(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "is_numeric(): Wrong number of arguments given {} for 1",
            a.len()
        )));
    }
    static NUMERIC: OnceLock<Regex> = OnceLock::new();
    let re = re(&NUMERIC, r"^-?(?:(?:[1-9]\d*)|0)(?:\.\d+)?(?:[eE]-?\d+)?$");
    Ok(Value::Boolean(match &a[0] {
        Value::Integer(_) | Value::Float(_) => true,
        Value::String(s) => s.lines().any(|l| re.is_match(l).unwrap_or(false)),
        _ => false,
    }))
}

fn is_float(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "is_float(): Wrong number of arguments given {} for 1",
            a.len()
        )));
    }
    Ok(Value::Boolean(match &a[0] {
        Value::Float(_) => true,
        Value::String(s) => ruby_float_to_s_of_to_f(s) == s.as_str(),
        _ => false,
    }))
}

/// Ruby's `Array#join(':')` of 3.x argument values (nested arrays joined recursively).
fn colon_join(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| match v {
            Value::Array(a) => colon_join(a),
            other => to_s(other),
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// `Puppet::Util.deterministic_rand_int(Digest::MD5.hexdigest(text).hex, max)`.
fn md5_rand(text: &str, max: i64) -> Result<i64, CallError> {
    let seed = puppet_functions::digest::hex(&puppet_functions::digest::md5(text.as_bytes()));
    puppet_functions::random::deterministic_rand_int(&seed, max).map_err(fail)
}

fn fqdn_rotate(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail(
            "fqdn_rotate(): Wrong number of arguments given (0 for 1)",
        ));
    }
    let (mut items, string) = match &a[0] {
        Value::Array(x) => (x.to_vec(), false),
        Value::String(s) => (
            s.chars().map(|c| Value::string(c.to_string())).collect(),
            true,
        ),
        _ => {
            return Err(fail(
                "fqdn_rotate(): Requires either array or string to work with",
            ))
        }
    };
    if items.len() <= 1 {
        return Ok(a[0].clone());
    }
    let fqdn = match ctx.variable("::fqdn") {
        Some(v) => v,
        None => {
            ctx.warn_once_unlocated("undefined_variable:::fqdn", "Undefined variable '::fqdn'; ");
            Value::Undef
        }
    };
    let seed = colon_join(&[fqdn, Value::array(a[1..].to_vec())]);
    let offset = md5_rand(&seed, items.len() as i64)?;
    items.rotate_left(offset as usize);
    Ok(if string {
        Value::string(items.iter().map(to_s).collect::<String>())
    } else {
        Value::array(items)
    })
}

fn fqdn_rand_string(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let positive = matches!(is_integer(ctx, vec![arg(&a, 0)])?, Value::Boolean(true))
        && match &a[0] {
            Value::Integer(i) => *i > 0,
            Value::String(s) => ruby_to_i(s) > 0,
            _ => false,
        };
    if !positive {
        return Err(fail(
            "fqdn_rand_string(): first argument must be a positive integer",
        ));
    }
    if !matches!(arg(&a, 1), Value::Undef | Value::String(_)) {
        return Err(fail(
            "fqdn_rand_string(): second argument must be undef or a string",
        ));
    }
    let length = match &a[0] {
        Value::Integer(i) => *i,
        other => ruby_to_i(&to_s(other)),
    };
    let mut charset: Vec<String> = to_s(&arg(&a, 1)).chars().map(String::from).collect();
    if charset.is_empty() {
        charset = ('0'..='9')
            .chain('A'..='Z')
            .chain('a'..='z')
            .map(String::from)
            .collect();
    }
    let rest: Vec<Value> = a.iter().skip(2).cloned().collect();
    let mut out = String::new();
    for current in 1..=length {
        let mut parts = rest.clone();
        parts.push(Value::string(current.to_string()));
        let seed = Value::string(colon_join(&parts));
        let n = ctx.call_function(
            "fqdn_rand",
            vec![Value::Integer(charset.len() as i64), seed],
            None,
        )?;
        let i = match n {
            Value::Integer(i) => i,
            other => ruby_to_i(&to_s(&other)),
        };
        out.push_str(charset.get(i as usize).map(String::as_str).unwrap_or(""));
    }
    Ok(Value::string(out))
}

fn seeded_rand(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let positive = matches!(is_integer(ctx, vec![arg(&a, 0)])?, Value::Boolean(true))
        && match &a[0] {
            Value::Integer(i) => *i > 0,
            Value::String(s) => ruby_to_i(s) > 0,
            _ => false,
        };
    if !positive {
        return Err(fail(
            "seeded_rand(): first argument must be a positive integer",
        ));
    }
    let Value::String(seed) = &a[1] else {
        return Err(fail("seeded_rand(): second argument must be a string"));
    };
    let max = match &a[0] {
        Value::Integer(i) => *i,
        other => ruby_to_i(&to_s(other)),
    };
    Ok(Value::Integer(md5_rand(seed, max)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_numbers() {
        assert_eq!(ruby_integer("0x1A"), Some(26));
        assert_eq!(ruby_integer("010"), Some(8));
        assert_eq!(ruby_integer("1_000"), Some(1000));
        assert_eq!(ruby_integer("1.5"), None);
        assert_eq!(ruby_float("1.5e3"), Some(1500.0));
        assert_eq!(ruby_float("abc"), None);
        assert_eq!(ruby_float_to_s_of_to_f("1.50"), "1.5");
    }

    #[test]
    fn paths() {
        assert_eq!(file_dirname("/a/b/"), "/a");
        assert_eq!(file_dirname("a"), ".");
        assert_eq!(file_basename("/a/b.rb", Some(".rb")), "b");
        assert_eq!(file_basename("/a/b.rb", Some(".*")), "b");
        assert!(absolute_path("C:\\x"));
        assert!(!absolute_path("x/y"));
    }
}
