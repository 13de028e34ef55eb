//! Native implementations of the remaining Ruby functions the corpus calls, from staging,
//! collectd, neutron, vswitch, nova, archive, ironic and stdlib (`get_module_path`), with
//! the semantics of their Ruby code under Puppet 7.23.
//!
//! Some of those functions need what a compile here does not have: archive's
//! `artifactory_*` and `go_md5` send HTTP requests, neutron's `convert_cert_to_string` reads a
//! file of the compiling host, augeas_core's `augeas` runs the Augeas library. They check
//! their arguments as the Ruby code does and then fail with an error that names the function
//! and what it would have needed; they never return made-up output.

use crate::modules::{ruby_integer, ruby_to_i};
use crate::ruby::{
    class_name, fail, inspect, inspect_str, no_implicit_string, no_method, no_method_hint, to_s,
};
use crate::stdlib4::json_of;
use crate::Native;
use puppet_functions::{codes, Args, CallContext, CallError, FunctionBuilder, Signature};
use puppet_types::Value;

type R = Result<Value, CallError>;

/// Adds the entries of this file.
pub(crate) fn table(out: &mut Vec<Native>) {
    let v4: &[(&'static str, &'static str, crate::V4Fn)] = &[
        ("neutron", "convert_to_json_string", convert_to_json_string),
        ("neutron", "convert_cert_to_string", convert_cert_to_string),
        ("neutron", "validate_vni_ranges", validate_vni_ranges),
        (
            "neutron",
            "validate_tunnel_id_ranges",
            validate_tunnel_id_ranges,
        ),
        (
            "neutron",
            "validate_vxlan_udp_port",
            validate_vxlan_udp_port,
        ),
        ("vswitch", "range_to_mask", range_to_mask),
        ("nova", "to_array_of_json_strings", to_array_of_json_strings),
        (
            "archive",
            "archive::parse_artifactory_url",
            parse_artifactory_url,
        ),
        (
            "archive",
            "archive::artifactory_checksum",
            artifactory_checksum,
        ),
        (
            "archive",
            "archive::artifactory_latest_url",
            artifactory_latest_url,
        ),
        ("augeas_core", "augeas", augeas),
        (
            "ironic",
            "ipv6_normalize_dnsmasq_ip_subnets",
            ipv6_normalize_dnsmasq_ip_subnets,
        ),
    ];
    out.extend(
        v4.iter()
            .map(|&(module, name, f)| Native::v4(module, name, f)),
    );
    let v3: &[(&'static str, &'static str, crate::V3Fn, i64)] = &[
        ("staging", "staging_parse", staging_parse, -1),
        ("staging", "scope_defaults", scope_defaults, -1),
        (
            "collectd",
            "collectd_convert_processes",
            collectd_convert_processes,
            1,
        ),
        ("archive", "assemble_nexus_url", assemble_nexus_url, -1),
        ("archive", "go_md5", go_md5, -1),
        ("stdlib", "get_module_path", get_module_path, -1),
    ];
    out.extend(
        v3.iter()
            .map(|&(module, name, f, arity)| Native::v3(module, name, f, arity)),
    );
}

/// Ruby's `String#dump` (the text of `URI must be ascii only`): `inspect` with non-ASCII
/// characters as `\uXXXX`.
fn dump_str(s: &str) -> String {
    let mut out = String::new();
    for c in inspect_str(s).chars() {
        match c as u32 {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xffff => out.push_str(&format!("\\u{n:04X}")),
            n => out.push_str(&format!("\\u{{{n:X}}}")),
        }
    }
    out
}

/// The error of a function that would need the network, a host file or a library.
fn cannot(message: String) -> CallError {
    CallError::new(codes::UNSUPPORTED, message)
}

// ---------------------------------------------------------------------------------------
// staging

/// The path of a URI as Ruby 3.1's `URI.parse(s).path` (RFC 3986 parser): `Ok(None)` for an
/// opaque URI (`mailto:x`), `Err(())` when Ruby raises `URI::InvalidURIError`.
fn uri_path(s: &str) -> Result<Option<String>, ()> {
    fn pct_ok(t: &str, extra: &str) -> bool {
        let b = t.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c == b'%' {
                if i + 2 >= b.len()
                    || !(b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
                {
                    return false;
                }
                i += 3;
                continue;
            }
            let ok = c.is_ascii_alphanumeric()
                || b"-._~!$&'()*+,;=".contains(&c)
                || extra.as_bytes().contains(&c);
            if !ok {
                return false;
            }
            i += 1;
        }
        true
    }
    let scheme_end = s.find(':').filter(|&i| {
        let sch = &s[..i];
        sch.starts_with(|c: char| c.is_ascii_alphabetic())
            && sch
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    let (has_scheme, rest) = match scheme_end {
        Some(i) => (true, &s[i + 1..]),
        None => (false, s),
    };
    let (before_frag, frag) = match rest.split_once('#') {
        Some((a, f)) => (a, Some(f)),
        None => (rest, None),
    };
    if frag.is_some_and(|f| !pct_ok(f, ":@/?")) {
        return Err(());
    }
    let (hier, query) = match before_frag.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (before_frag, None),
    };
    if query.is_some_and(|q| !pct_ok(q, ":@/?")) {
        return Err(());
    }
    let path_ok = |p: &str| p.split('/').all(|seg| pct_ok(seg, ":@"));
    if let Some(after) = hier.strip_prefix("//") {
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let hostport = match authority.rsplit_once('@') {
            Some((user, hp)) => {
                if !pct_ok(user, ":") {
                    return Err(());
                }
                hp
            }
            None => authority,
        };
        let host_ok = if let Some(lit) = hostport.strip_prefix('[') {
            match lit.split_once(']') {
                Some((ip, port)) => {
                    ip.chars()
                        .all(|c| c.is_ascii_hexdigit() || ":.vV".contains(c))
                        && (port.is_empty()
                            || port
                                .strip_prefix(':')
                                .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit())))
                }
                None => false,
            }
        } else {
            let (host, port) = match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            };
            pct_ok(host, "") && port.is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()))
        };
        if !host_ok || !path_ok(path) {
            return Err(());
        }
        return Ok(Some(path.to_string()));
    }
    if !path_ok(hier) {
        return Err(());
    }
    if has_scheme && !hier.is_empty() && !hier.starts_with('/') {
        return Ok(None);
    }
    if !has_scheme && !hier.starts_with('/') && hier.split('/').next().unwrap_or("").contains(':') {
        return Err(());
    }
    Ok(Some(hier.to_string()))
}

/// Ruby's `File.extname` (POSIX): the last `.ext` of the last component, leading dots of the
/// component not counting; `"."` for a name ending with a dot.
pub(crate) fn file_extname(p: &str) -> String {
    let trimmed = p.trim_end_matches('/');
    let base_start = trimmed.rfind('/').map_or(0, |i| i + 1);
    let comp = if trimmed.is_empty() {
        ""
    } else {
        &p[base_start..]
    };
    let name = comp.trim_start_matches('.');
    let mut e = None;
    let mut end = name.len();
    for (i, c) in name.char_indices() {
        if c == '/' {
            end = i;
            break;
        }
        if c == '.' {
            e = Some(i);
        }
    }
    match e {
        None => String::new(),
        Some(i) if i + 1 == end => ".".into(),
        Some(i) => name[i..end].to_string(),
    }
}

/// `staging_parse(source, info = 'filename', extension = File.extname(path))`.
fn staging_parse(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() || a.len() > 3 {
        return Err(fail(format!(
            "staging_parse(): Wrong number of arguments given ({} for 1, 2, 3)",
            a.len()
        )));
    }
    let Value::String(source) = &a[0] else {
        return Err(no_method("gsub", &a[0]));
    };
    let text = source.replace('\\', "/");
    if !text.is_ascii() {
        return Err(fail(format!("URI must be ascii only {}", dump_str(&text))));
    }
    let path = match uri_path(&text) {
        Err(()) => {
            return Err(fail(format!(
                "bad URI(is not URI?): {}",
                inspect_str(&text)
            )))
        }
        Ok(None) => {
            return Err(fail(format!(
                "staging_parse(): {} has no URI 'path' component",
                inspect_str(source)
            )))
        }
        Ok(Some(p)) => p,
    };
    let truthy = |i: usize| a.get(i).filter(|v| crate::ruby::truthy(v)).cloned();
    let info = truthy(1).unwrap_or_else(|| Value::string("filename"));
    let extension = truthy(2).unwrap_or_else(|| Value::string(file_extname(&path)));
    let info_text = match &info {
        Value::String(s) => s.to_string(),
        _ => String::new(),
    };
    let out = match info_text.as_str() {
        "filename" => crate::stdlib3::file_basename(&path, None),
        "basename" => {
            let Value::String(ext) = &extension else {
                return Err(no_implicit_string(&extension));
            };
            crate::stdlib3::file_basename(&path, Some(ext))
        }
        "extname" => file_extname(&path),
        "parent" => expand_parent(&path)?,
        _ => {
            return Err(fail(format!(
                "staging_parse(), unknown parse info {}.",
                to_s(&info)
            )))
        }
    };
    Ok(Value::string(out))
}

/// `File.expand_path(File.join(path, '..'))` for an absolute path; a relative one (or one
/// starting with `~`) depends on the compiling host's working or home directory.
fn expand_parent(path: &str) -> Result<String, CallError> {
    if !path.starts_with('/') {
        return Err(cannot(format!(
            "staging_parse(): the parent of the relative path {} depends on the working directory of the compiling host, which this compiler does not use",
            inspect_str(path)
        )));
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/').chain(std::iter::once("..")) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// `scope_defaults(type, attribute)`: whether resource defaults of the calling scope (or
/// the scopes it takes defaults from) set the attribute. A context without a catalog has no
/// resource defaults.
fn scope_defaults(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "scope_defaults(): Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    let Value::String(t) = &a[0] else {
        return Err(no_method("split", &a[0]));
    };
    let type_name: Vec<String> = t
        .split("::")
        .map(|seg| {
            let mut c = seg.chars();
            match c.next() {
                Some(f) => f
                    .to_uppercase()
                    .chain(c.flat_map(|x| x.to_lowercase()))
                    .collect(),
                None => String::new(),
            }
        })
        .collect();
    // Ruby's `split` drops trailing empty fields.
    let mut type_name = type_name;
    while type_name.last().is_some_and(|s| s.is_empty()) {
        type_name.pop();
    }
    let type_name = type_name.join("::");
    let names = ctx
        .catalog()
        .map(|c| c.default_attributes(&type_name))
        .unwrap_or_default();
    let attr = match &a[1] {
        Value::String(s) => s.to_string(),
        other => return Err(no_method_hint("to_sym", other)),
    };
    Ok(Value::Boolean(names.contains(&attr)))
}

// ---------------------------------------------------------------------------------------
// collectd

fn collectd_convert_processes(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    match &a[0] {
        Value::Hash(_) => Ok(a[0].clone()),
        Value::Array(items) => {
            let mut out: Vec<(Value, Value)> = Vec::new();
            let mut put = |k: Value, v: Value| {
                if let Some(slot) = out.iter_mut().find(|(x, _)| *x == k) {
                    slot.1 = v;
                } else {
                    out.push((k, v));
                }
            };
            for p in items.iter() {
                match p {
                    Value::String(_) => put(p.clone(), Value::hash(Vec::new())),
                    Value::Hash(h) => {
                        let key = Value::string("name");
                        let name = h.get(&key).cloned().unwrap_or(Value::Undef);
                        let rest: Vec<(Value, Value)> = h
                            .iter()
                            .filter(|(k, _)| **k != key)
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        put(name, Value::hash(rest));
                    }
                    _ => {
                        return Err(fail(
                            "convert_process_array(): array element must be string or hash",
                        ))
                    }
                }
            }
            Ok(Value::hash(out))
        }
        _ => Err(fail("convert_process_array(): Needs an array as argument")),
    }
}

// ---------------------------------------------------------------------------------------
// neutron

/// Ruby's `include?(":")` on a value of the array.
fn includes_colon(v: &Value) -> Result<bool, CallError> {
    let colon = Value::string(":");
    match v {
        Value::String(s) => Ok(s.contains(':')),
        Value::Array(items) => Ok(items.contains(&colon)),
        Value::Hash(h) => Ok(h.get(&colon).is_some()),
        other => Err(no_method("include?", other)),
    }
}

/// Ruby's `String#split(/:/)`: trailing empty fields dropped.
fn split_colon(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(':').collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// `convert_to_json_string(value)`: an array of `key:value` strings as a JSON object, any
/// other value as its JSON.
fn convert_to_json_string(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        let value = a.get(0);
        if let Value::Array(items) = &value {
            let mut all = true;
            for x in items.iter() {
                if !includes_colon(x)? {
                    all = false;
                    break;
                }
            }
            if all {
                let mut h: Vec<(Value, Value)> = Vec::new();
                for s in items.iter() {
                    let Value::String(s) = s else {
                        return Err(no_method("split", s));
                    };
                    let parts = split_colon(s);
                    let k = parts.first().map_or(Value::Undef, |p| Value::string(*p));
                    let v = parts.get(1).map_or(Value::Undef, |p| Value::string(*p));
                    if let Some(slot) = h.iter_mut().find(|(x, _)| *x == k) {
                        slot.1 = v;
                    } else {
                        h.push((k, v));
                    }
                }
                return Ok(Value::string(json_of(&Value::hash(h))?));
            }
        }
        Ok(Value::string(json_of(&value)?))
    })
}

/// `convert_cert_to_string(cert_file)` reads a file of the compiling host.
fn convert_cert_to_string(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("String", "cert_file"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            Err(cannot(format!(
                "convert_cert_to_string(): would read the certificate file {} of the compiling host; this compiler reads no host files",
                to_s(&a.get(0))
            )))
        },
    )
}

/// The first line of a value matching `^(\d+):(\d+)$` (Ruby's line anchors), as the two
/// numbers' texts; `Ok(None)` for `nil` or no match; Ruby's `TypeError` for a non-String.
fn id_range(range: &Value) -> Result<Option<(String, String)>, CallError> {
    let text = match range {
        Value::Undef => return Ok(None),
        Value::String(s) => s.to_string(),
        other => return Err(no_implicit_string(other)),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    Ok(text.split('\n').find_map(|line| {
        let (x, y) = line.split_once(':')?;
        (digits(x) && digits(y)).then(|| (x.to_string(), y.to_string()))
    }))
}

fn validate_ranges(a: &Args<'_>, check: fn(i64, i64) -> Result<(), CallError>, what: &str) -> R {
    let value = match a.get(0) {
        Value::Array(items) => items.to_vec(),
        other => vec![other],
    };
    for range in &value {
        match id_range(range)? {
            Some((x, y)) => check(ruby_integer(&x)?, ruby_integer(&y)?)?,
            None if crate::ruby::truthy(range) => {
                return Err(fail(format!("{what} ranges are invalid.")))
            }
            None => {}
        }
    }
    Ok(Value::array(value))
}

/// neutron's `validate_vni_ranges(ranges)`: each `first:last` within 0..16777215, ordered.
fn validate_vni_ranges(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        validate_ranges(
            &a,
            |x, y| {
                let ok = |v: i64| (0..=16_777_215).contains(&v);
                if !ok(x) || !ok(y) || y < x {
                    return Err(fail("vni ranges are invalid."));
                }
                Ok(())
            },
            "vni",
        )
    })
}

/// neutron's `validate_tunnel_id_ranges(ranges)`: each `first:last` ordered and spanning at
/// most 1000000 ids.
fn validate_tunnel_id_ranges(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        validate_ranges(
            &a,
            |x, y| {
                if y - x > 1_000_000 {
                    return Err(fail("tunnel id ranges are to large."));
                }
                if y - x < 0 {
                    return Err(fail("tunnel id ranges are invalid."));
                }
                Ok(())
            },
            "tunnel id",
        )
    })
}

/// Ruby's `Integer(value)` of a value Puppet passes.
fn kernel_integer(v: &Value) -> Result<i64, CallError> {
    match v {
        Value::Integer(i) => Ok(*i),
        Value::Float(f) if f.is_finite() => Ok(f.trunc() as i64),
        Value::Float(f) => Err(fail(puppet_types::format::float_to_s(*f))),
        Value::String(s) => {
            let t = s.as_str();
            crate::stdlib3::ruby_integer(t)
                .filter(|_| !t.contains('\0'))
                .ok_or_else(|| fail(format!("invalid value for Integer(): {}", inspect_str(t))))
        }
        Value::Undef => Err(fail("can't convert nil into Integer")),
        Value::Boolean(b) => Err(fail(format!("can't convert {b} into Integer"))),
        other => Err(fail(format!(
            "can't convert {} into Integer",
            class_name(other)
        ))),
    }
}

/// neutron's `validate_vxlan_udp_port(port)`: 4789 or a port in 49152..65535.
fn validate_vxlan_udp_port(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        let value = kernel_integer(&a.get(0))?;
        if value != 4789 && (value <= 49151 || value > 65535) {
            return Err(fail("vxlan udp port is invalid."));
        }
        Ok(Value::Undef)
    })
}

// ---------------------------------------------------------------------------------------
// vswitch

/// The most bits `range_to_mask` computes (Ruby would build any Bignum).
const MAX_MASK_BIT: i64 = 1 << 20;

/// vswitch's `range_to_mask(range)`: a CPU list (`0-3,8`) as a hexadecimal bit mask; `undef`
/// for an empty string or `undef`.
fn range_to_mask(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Pattern[/^$/]", "range"),
        |_: &mut dyn CallContext, _: Args<'_>| Ok(Value::Undef),
    )
    .dispatch(
        Signature::new().param("Pattern[/^[0-9\\-\\,]/]", "range"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let text = to_s(&a.get(0));
            let too_big = |n: i64| {
                cannot(format!(
                    "range_to_mask(): bit {n} of {} is beyond the {MAX_MASK_BIT} bits this implementation computes",
                    inspect_str(&text)
                ))
            };
            // `split(",")` drops trailing empty fields.
            let fields = |s: &str| -> Vec<String> {
                let mut v: Vec<String> = s.split(',').map(String::from).collect();
                while v.last().is_some_and(|x| x.is_empty()) {
                    v.pop();
                }
                v
            };
            let mut expanded: Vec<String> = Vec::new();
            for c in fields(&text) {
                if c.contains('-') {
                    // `split("-")` drops trailing empty fields; a missing end is an endless
                    // range, which Ruby cannot turn into an array.
                    let mut ends: Vec<&str> = c.split('-').collect();
                    while ends.last().is_some_and(|e| e.is_empty()) {
                        ends.pop();
                    }
                    if ends.len() < 2 {
                        return Err(fail("cannot convert endless range to an array"));
                    }
                    let (x, y) = (ruby_to_i(ends[0]), ruby_to_i(ends[1]));
                    if y.saturating_sub(x) > MAX_MASK_BIT {
                        return Err(too_big(y));
                    }
                    let items: Vec<String> = (x..=y).map(|i| i.to_string()).collect();
                    expanded.push(items.join(","));
                } else {
                    expanded.push(c);
                }
            }
            let mut words: Vec<u64> = Vec::new();
            for c in fields(&expanded.join(",")) {
                let bit = ruby_to_i(&c);
                if bit < 0 {
                    return Err(fail("negative shift"));
                }
                if bit > MAX_MASK_BIT {
                    return Err(too_big(bit));
                }
                let (w, o) = ((bit / 64) as usize, bit % 64);
                if words.len() <= w {
                    words.resize(w + 1, 0);
                }
                words[w] |= 1 << o;
            }
            while words.len() > 1 && words.last() == Some(&0) {
                words.pop();
            }
            let mut hex = String::new();
            for (i, w) in words.iter().rev().enumerate() {
                if i == 0 {
                    hex.push_str(&format!("{w:x}"));
                } else {
                    hex.push_str(&format!("{w:016x}"));
                }
            }
            if hex.is_empty() {
                hex.push('0');
            }
            Ok(Value::string(hex))
        },
    )
    .dispatch(
        Signature::new().param("Undef", "range"),
        |_: &mut dyn CallContext, _: Args<'_>| Ok(Value::Undef),
    )
}

// ---------------------------------------------------------------------------------------
// nova

/// Ruby's JSON text of a parsed JSON document (the values `JSON.load` builds).
fn json_text(v: &serde_json::Value) -> Result<String, CallError> {
    Ok(match v {
        serde_json::Value::Null => "null".into(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => puppet_types::format::float_to_s(f),
            _ => n.to_string(),
        },
        serde_json::Value::String(s) => {
            serde_json::to_string(s).map_err(|e| fail(e.to_string()))?
        }
        serde_json::Value::Array(a) => {
            let parts: Result<Vec<String>, CallError> = a.iter().map(json_text).collect();
            format!("[{}]", parts?.join(","))
        }
        serde_json::Value::Object(o) => {
            let mut parts = Vec::new();
            for (k, x) in o {
                let key = serde_json::to_string(k).map_err(|e| fail(e.to_string()))?;
                parts.push(format!("{key}:{}", json_text(x)?));
            }
            format!("{{{}}}", parts.join(","))
        }
    })
}

/// nova's `to_array_of_json_strings(list)`: an array of hashes (or its JSON text, single
/// quotes accepted with a deprecation warning) as an array of JSON texts, one per hash.
fn to_array_of_json_strings(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |ctx: &mut dyn CallContext, a: Args<'_>| {
        if a.len() != 1 {
            return Err(fail(
                "to_array_of_json_strings(): Wrong number of arguments",
            ));
        }
        let arg = a.get(0);
        let not_list = || {
            fail(format!(
                "Syntax error: {} is not an Array or JSON encoded String",
                to_s(&arg)
            ))
        };
        if let Value::String(s) = &arg {
            // `JSON.load`: an empty source is `null`.
            let load = |t: &str| -> Option<serde_json::Value> {
                if t.is_empty() {
                    Some(serde_json::Value::Null)
                } else {
                    serde_json::from_str(t).ok()
                }
            };
            let parsed = match load(s) {
                Some(v) => v,
                None => match load(&s.replace('\'', "\"")) {
                    Some(v) => {
                        ctx.log(
                            puppet_functions::LogLevel::Warning,
                            &format!("{s} is not valid JSON. Support for this format is deprecated and may be removed in future."),
                        );
                        v
                    }
                    None => return Err(fail(format!("Syntax error: {s} is not valid"))),
                },
            };
            let list = match parsed {
                serde_json::Value::Array(items) => items,
                other => vec![other],
            };
            if !list.iter().all(|e| e.is_object()) {
                return Err(not_list());
            }
            let out: Result<Vec<Value>, CallError> = list
                .iter()
                .map(|e| json_text(e).map(Value::string))
                .collect();
            return Ok(Value::array(out?));
        }
        let Value::Array(items) = &arg else {
            return Err(not_list());
        };
        if !items.iter().all(|e| matches!(e, Value::Hash(_))) {
            return Err(not_list());
        }
        let out: Result<Vec<Value>, CallError> =
            items.iter().map(|e| json_of(e).map(Value::string)).collect();
        Ok(Value::array(out?))
    })
}

// ---------------------------------------------------------------------------------------
// archive

fn http_url(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.local_type("Stdlib::HTTPUrl", "Pattern[/(?i:\\Ahttps?:\\/\\/.*\\z)/]")
        .local_type("Stdlib::HTTPSUrl", "Pattern[/(?i:\\Ahttps:\\/\\/.*\\z)/]")
}

/// The `parse_artifactory_url` pattern (Ruby's extended regexp, written out).
const ARTIFACTORY_URL: &str = concat!(
    r"(?<base_url>.*/artifactory)/(?<repository>[^/]+)/(?<org_path>.+?)/(?<module>[^/]+)/",
    r"(?<base_rev>[^/]+?)(?:-(?<folder_iteg_rev>SNAPSHOT))?/\k<module>-\k<base_rev>",
    r"(?:-(?<file_iteg_rev>SNAPSHOT|(?:(?:[0-9]{8}.[0-9]{6})-(?:[0-9]+))))?",
    r"(?:-(?<classifier>[^/]+?))?\.(?<ext>(?:(?!\d))[^\-/]+|7z)"
);

/// archive's `archive::parse_artifactory_url(url)`: the parts of an Artifactory artifact URL,
/// `undef` when it is not one.
fn parse_artifactory_url(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    http_url(b).dispatch(
        Signature::new().param("Variant[Stdlib::HTTPUrl, Stdlib::HTTPSUrl]", "url"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let url = to_s(&a.get(0));
            let re = fancy_regex::Regex::new(ARTIFACTORY_URL).map_err(|e| fail(e.to_string()))?;
            let caps = match re.captures(&url) {
                Ok(Some(c)) => c,
                Ok(None) => return Ok(Value::Undef),
                Err(e) => return Err(fail(e.to_string())),
            };
            let names = [
                "base_url",
                "repository",
                "org_path",
                "module",
                "base_rev",
                "folder_iteg_rev",
                "file_iteg_rev",
                "classifier",
                "ext",
            ];
            Ok(Value::hash(names.iter().map(|n| {
                (
                    Value::string(*n),
                    caps.name(n)
                        .map_or(Value::Undef, |m| Value::string(m.as_str())),
                )
            })))
        },
    )
}

fn artifactory_checksum(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    http_url(b).dispatch(
        Signature::new()
            .param("Stdlib::HTTPUrl", "url")
            .optional_param("Enum['sha1','sha256','md5']", "checksum_type")
            .return_type("String"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let url = to_s(&a.get(0)).replacen("/artifactory/", "/artifactory/api/storage/", 1);
            Err(cannot(format!(
                "archive::artifactory_checksum(): would send an HTTP request to {url}; this compiler makes no network requests"
            )))
        },
    )
}

fn artifactory_latest_url(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    http_url(b).dispatch(
        Signature::new()
            .param("Variant[Stdlib::HTTPUrl, Stdlib::HTTPSUrl]", "url")
            .param("Hash", "maven_data"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let url = to_s(&a.get(0)).replacen("/artifactory/", "/artifactory/api/storage/", 1);
            Err(cannot(format!(
                "archive::artifactory_latest_url(): would send an HTTP request to {url}; this compiler makes no network requests"
            )))
        },
    )
}

/// Ruby 3.1's `CGI.escape`: bytes other than `a-zA-Z0-9_.-~` and space as `%XX`, space as `+`.
fn cgi_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b' ' => out.push('+'),
            b if b.is_ascii_alphanumeric() || b"_.-~".contains(&b) => out.push(b as char),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Ruby's `x[i]` on an element of the parameter list.
fn ruby_index(x: &Value, i: usize) -> Result<Value, CallError> {
    match x {
        Value::Array(items) => Ok(items.get(i).cloned().unwrap_or(Value::Undef)),
        Value::String(s) => Ok(s
            .chars()
            .nth(i)
            .map_or(Value::Undef, |c| Value::string(c.to_string()))),
        other => Err(no_method("[]", other)),
    }
}

/// archive's `assemble_nexus_url(nexus_url, params)`: the Nexus artifact content URL.
fn assemble_nexus_url(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let nexus_url = a.first().map(to_s).unwrap_or_default();
    let pairs: Vec<Value> = match a.get(1) {
        None | Some(Value::Undef) => Vec::new(),
        Some(v @ (Value::Array(_) | Value::Hash(_))) => crate::ruby::ruby_array(v),
        Some(other) => return Err(no_method_hint("to_a", other)),
    };
    let mut parts = Vec::new();
    for x in &pairs {
        let k = ruby_index(x, 0)?;
        let v = ruby_index(x, 1)?;
        let Value::String(v) = &v else {
            return Err(no_implicit_string(&v));
        };
        parts.push(format!("{}={}", to_s(&k), cgi_escape(v)));
    }
    Ok(Value::string(format!(
        "{nexus_url}/service/local/artifact/maven/content?{}",
        parts.join("&")
    )))
}

/// archive's `go_md5(username, password, file, url)` reads a checksum file over HTTP.
fn go_md5(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 4 {
        return Err(fail(format!(
            "Invalid go md5 info url {}",
            inspect(&Value::array(a))
        )));
    }
    Err(cannot(format!(
        "go_md5(): would send an HTTP request to {}; this compiler makes no network requests",
        to_s(&a[3])
    )))
}

// ---------------------------------------------------------------------------------------
// augeas_core

fn augeas(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "content")
            .param("String", "lens")
            .param("Array[String]", "changes"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            Err(cannot(format!(
                "augeas(): would run the Augeas library with lens {}; this compiler does not embed Augeas",
                to_s(&a.get(1))
            )))
        },
    )
}

// ---------------------------------------------------------------------------------------
// stdlib

/// stdlib's `get_module_path(name)`: the directory of a module of the environment.
pub(crate) fn get_module_path(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(
            "get_module_path(): Wrong number of arguments, expects one",
        ));
    }
    if let Value::String(name) = &a[0] {
        if let Some(path) = ctx.module_directory(name) {
            return Ok(Value::string(path));
        }
    }
    let env = ctx
        .variable("::environment")
        .map(|v| to_s(&v))
        .unwrap_or_else(|| "production".into());
    Err(fail(format!(
        "Could not find module {} in environment {env}",
        to_s(&a[0])
    )))
}

// ---------------------------------------------------------------------------------------
// ironic

/// Ruby's `IPAddr.new(text)` when it is IPv6: the address as a number, `None` when Ruby
/// raises one of the `IPAddr` errors or the address is IPv4.
fn ipaddr_v6(text: &str) -> Option<u128> {
    puppet_ruby::ipaddr::parse(text)
        .ok()
        .filter(|i| i.v6)
        .map(|i| i.addr)
}

/// ironic's `ipv6_normalize_dnsmasq_ip_subnets(subnets)`: an IPv6 `netmask` becomes its
/// prefix length (the number of one bits), an IPv6 `gateway` is removed.
fn ipv6_normalize_dnsmasq_ip_subnets(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "args"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let subnets = match a.get(0) {
                Value::Array(items) => items.to_vec(),
                Value::Hash(h) if !h.is_empty() => {
                    return Err(fail("no implicit conversion of String into Integer"))
                }
                Value::Hash(_) => Vec::new(),
                other => return Err(no_method("each", &other)),
            };
            let mut out = Vec::new();
            for s in subnets {
                let Value::Hash(h) = &s else {
                    match &s {
                        Value::String(_) => {
                            out.push(s.clone());
                            continue;
                        }
                        Value::Array(_) | Value::Integer(_) => {
                            return Err(fail("no implicit conversion of String into Integer"))
                        }
                        other => return Err(no_method("[]", other)),
                    }
                };
                let text_of = |k: &str| match h.get(&Value::string(k)) {
                    Some(Value::String(t)) => Some(t.to_string()),
                    _ => None,
                };
                let mut entries: Vec<(Value, Value)> =
                    h.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                if let Some(m) = text_of("netmask").and_then(|t| ipaddr_v6(&t)) {
                    let key = Value::string("netmask");
                    if let Some(slot) = entries.iter_mut().find(|(k, _)| *k == key) {
                        slot.1 = Value::Integer(i64::from(m.count_ones()));
                    }
                }
                if text_of("gateway").and_then(|t| ipaddr_v6(&t)).is_some() {
                    let key = Value::string("gateway");
                    entries.retain(|(k, _)| *k != key);
                }
                out.push(Value::hash(entries));
            }
            Ok(Value::array(out))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_paths() {
        assert_eq!(uri_path("/tmp/a.tar.gz"), Ok(Some("/tmp/a.tar.gz".into())));
        assert_eq!(
            uri_path("http://h.example:80/a/b.tgz?x=1#f"),
            Ok(Some("/a/b.tgz".into()))
        );
        assert_eq!(uri_path("C:/x"), Ok(Some("/x".into())));
        assert_eq!(uri_path("mailto:x"), Ok(None));
        assert_eq!(uri_path("a b"), Err(()));
    }

    #[test]
    fn extnames() {
        assert_eq!(file_extname("/a/b.tar.gz"), ".gz");
        assert_eq!(file_extname(".profile"), "");
        assert_eq!(file_extname("a."), ".");
        assert_eq!(file_extname("/a.b/"), ".b");
        assert_eq!(file_extname("/a.b/c"), "");
    }
}
