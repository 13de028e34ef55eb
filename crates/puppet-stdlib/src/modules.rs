//! Native implementations of the Ruby functions of the other corpus modules: openstacklib,
//! translate, mysql, memcached, apache, postgresql, redis, mongodb, neutron and ssh. Signatures follow the
//! Ruby `dispatch` blocks; a 4.x function without one gets Puppet's default dispatch from
//! its method parameters (`*args` is `repeated_param 'Any'`, `arg` is `param 'Any'`).

use crate::ruby::{fail, lookupvar, to_s};
use crate::stdlib3::ip_kind;
use crate::Native;
use puppet_functions::digest::{hex, md5, sha1};
use puppet_functions::{Args, CallContext, CallError, FunctionBuilder, Signature};
use puppet_types::Value;

type R = Result<Value, CallError>;

/// Adds the entries of the other modules.
pub(crate) fn table(out: &mut Vec<Native>) {
    let v4: &[(&'static str, &'static str, crate::V4Fn)] = &[
        ("openstacklib", "is_service_default", is_service_default),
        ("translate", "translate", translate),
        ("mysql", "mysql::password", mysql_password),
        ("openstacklib", "normalize_ip_for_uri", normalize_ip_for_uri),
        ("openstacklib", "inet6_prefix", inet6_prefix),
        (
            "postgresql",
            "postgresql::postgresql_escape",
            postgresql_escape,
        ),
        (
            "postgresql",
            "postgresql::postgresql_password",
            postgresql_password,
        ),
        (
            "postgresql",
            "postgresql::postgresql_acls_to_resources_hash",
            postgresql_acls_to_resources_hash,
        ),
        ("memcached", "memcached::max_memory", max_memory),
        ("apache", "apache::bool2httpd", bool2httpd),
        (
            "neutron",
            "validate_network_vlan_ranges",
            validate_network_vlan_ranges,
        ),
    ];
    out.extend(
        v4.iter()
            .map(|&(module, name, f)| Native::v4(module, name, f)),
    );
    let v3: &[(&'static str, &'static str, crate::V3Fn, i64)] = &[
        ("redis", "getvar_emptystring", getvar_emptystring, -1),
        ("mongodb", "mongodb_password", mongodb_password, -1),
        ("ssh", "ipaddresses", ipaddresses, -1),
    ];
    out.extend(
        v3.iter()
            .map(|&(module, name, f, arity)| Native::v3(module, name, f, arity)),
    );
}

fn is_service_default(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        if a.len() != 1 {
            return Err(fail(format!(
                "is_service_default(): Wrong number of argumentsgiven ({} for 1)",
                a.len()
            )));
        }
        Ok(Value::Boolean(
            matches!(a.get(0), Value::String(s) if s.as_str() == "<SERVICE DEFAULT>"),
        ))
    })
}

fn translate(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "message")
            .optional_param("Hash", "interpolation_values"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let msg = to_s(&a.get(0));
            let Value::Hash(h) = a.get(1) else {
                return Ok(Value::string(msg));
            };
            // Ruby's `format` with named references: %{name} and %<name>s.
            let mut out = String::new();
            let mut rest = msg.as_str();
            while let Some(i) = rest.find('%') {
                out.push_str(&rest[..i]);
                let after = &rest[i + 1..];
                if let Some(x) = after.strip_prefix('%') {
                    out.push('%');
                    rest = x;
                } else if let Some(x) = after.strip_prefix('{') {
                    let Some(end) = x.find('}') else {
                        return Err(fail("malformed name - unmatched parenthesis"));
                    };
                    let key = &x[..end];
                    let v = h
                        .iter()
                        .find(|(k, _)| to_s(k) == key)
                        .map(|(_, v)| to_s(v))
                        .ok_or_else(|| fail(format!("key<{key}> not found")))?;
                    out.push_str(&v);
                    rest = &x[end + 1..];
                } else {
                    return Err(fail(format!(
                        "malformed format string - %{}",
                        after.chars().next().unwrap_or(' ')
                    )));
                }
            }
            out.push_str(rest);
            Ok(Value::string(out))
        },
    )
}

fn mysql_password(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "password")
            .return_type("String"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let p = to_s(&a.get(0));
            if p.is_empty() {
                return Ok(Value::string(""));
            }
            let bytes = p.as_bytes();
            let hashed = bytes.len() >= 41
                && bytes[bytes.len() - 41] == b'*'
                && bytes[bytes.len() - 40..]
                    .iter()
                    .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c));
            if hashed {
                return Ok(Value::string(p));
            }
            Ok(Value::string(format!(
                "*{}",
                hex(&sha1(&sha1(bytes))).to_uppercase()
            )))
        },
    )
}

fn ip_list(a: &Args<'_>) -> (Vec<Value>, bool) {
    match a.get(0) {
        Value::Array(x) => {
            let single = x.len() == 1;
            (x.to_vec(), single)
        }
        _ => (a.values.clone(), a.values.len() == 1),
    }
}

fn normalize_ip_for_uri(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        let (ips, single) = ip_list(&a);
        let out: Vec<Value> = ips
            .into_iter()
            .map(|ip| match &ip {
                Value::String(s) if matches!(ip_kind(s), Some((true, _))) => {
                    let bracketed = s
                        .find('[')
                        .is_some_and(|i| s[i + 1..].find(']').is_some_and(|j| j > 0));
                    if bracketed {
                        ip.clone()
                    } else {
                        Value::string(format!("[{s}]"))
                    }
                }
                _ => ip,
            })
            .collect();
        Ok(if single {
            out.into_iter().next().unwrap_or(Value::Undef)
        } else {
            Value::array(out)
        })
    })
}

fn inet6_prefix(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        let (ips, single) = ip_list(&a);
        let out: Vec<Value> = ips
            .into_iter()
            .map(|ip| match &ip {
                Value::String(s) if !(s.starts_with("inet6:") && s.len() > 6) => {
                    let parts: Vec<&str> = s
                        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
                        .filter(|p| !p.is_empty())
                        .collect();
                    match parts.first() {
                        Some(first) if matches!(ip_kind(first), Some((true, _))) => {
                            Value::string(format!("inet6:[{first}]{}", parts[1..].concat()))
                        }
                        _ => ip.clone(),
                    }
                }
                _ => ip,
            })
            .collect();
        Ok(if single {
            out.into_iter().next().unwrap_or(Value::Undef)
        } else {
            Value::array(out)
        })
    })
}

fn postgresql_password(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("Variant[String[1],Integer]", "username")
            .param("Variant[String[1],Integer]", "password"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let text = format!("{}{}", to_s(&a.get(1)), to_s(&a.get(0)));
            Ok(Value::string(format!("md5{}", hex(&md5(text.as_bytes())))))
        },
    )
}

fn postgresql_escape(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("String[1]", "input_string"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let s = to_s(&a.get(0));
            if !(s.contains("$$") || s.ends_with('$')) {
                return Ok(Value::string(format!("$${s}$$")));
            }
            let tag_of = |t: &str| -> String {
                hex(&md5(t.as_bytes()))[..6]
                    .chars()
                    .filter(|c| !c.is_ascii_digit())
                    .collect()
            };
            let mut tag = tag_of(&s);
            let mut guard = 0;
            while s.contains(&tag) && guard < 10_000 {
                tag = tag_of(&tag);
                guard += 1;
            }
            Ok(Value::string(format!("${tag}${s}${tag}$")))
        },
    )
}

/// `postgresql::postgresql_acls_to_resources_hash(acls, id, offset)`: pg_hba.conf rule lines
/// as `postgresql::server::pg_hba_rule` parameters. As the Ruby code, a line's number is the
/// index of its first occurrence (`acls.index(acl)`), so a repeated line replaces the entry of
/// the first one; fields are split on ASCII whitespace (`String#split`); a missing
/// `auth_method` is `undef`.
fn postgresql_acls_to_resources_hash(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("Array[String]", "acls")
            .param("String[1]", "id")
            .param("Integer[0]", "offset"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let acls: Vec<String> = match a.get(0) {
                Value::Array(x) => x.iter().map(to_s).collect(),
                _ => Vec::new(),
            };
            let id = to_s(&a.get(1));
            let offset = match a.get(2) {
                Value::Integer(i) => i,
                _ => 0,
            };
            let text = |s: &str| Value::string(s);
            let mut resources: Vec<(Value, Value)> = Vec::new();
            for acl in &acls {
                let index = acls.iter().position(|x| x == acl).unwrap_or(0);
                let parts: Vec<&str> = acl
                    .split([' ', '\t', '\n', '\u{b}', '\u{c}', '\r'])
                    .filter(|p| !p.is_empty())
                    .collect();
                if parts.len() < 4 {
                    return Err(fail(format!(
                        "postgresql::postgresql_acls_to_resources_hash(): acl line {index} does not have enough parts"
                    )));
                }
                let part = |i: usize| parts.get(i).map_or(Value::Undef, |p| text(p));
                let rest = |from: usize| text(&parts[from..].join(" "));
                let mut r: Vec<(Value, Value)> = vec![
                    (text("type"), part(0)),
                    (text("database"), part(1)),
                    (text("user"), part(2)),
                    (
                        text("order"),
                        Value::string(format!("{:03}", offset as i128 + index as i128)),
                    ),
                ];
                if parts[0] == "local" {
                    r.push((text("auth_method"), part(3)));
                    if parts.len() > 4 {
                        r.push((text("auth_option"), rest(4)));
                    }
                } else if parts
                    .get(4)
                    .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
                {
                    r.push((text("address"), text(&format!("{} {}", parts[3], parts[4]))));
                    r.push((text("auth_method"), part(5)));
                    if parts.len() > 6 {
                        r.push((text("auth_option"), rest(6)));
                    }
                } else {
                    r.push((text("address"), part(3)));
                    r.push((text("auth_method"), part(4)));
                    if parts.len() > 5 {
                        r.push((text("auth_option"), rest(5)));
                    }
                }
                resources.push((
                    Value::string(format!("postgresql class generated rule {id} {index}")),
                    Value::hash(r),
                ));
            }
            Ok(Value::hash(resources))
        },
    )
}

fn max_memory(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "arg").return_type("Integer"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            let arg = a.get(0);
            let truthy = crate::ruby::truthy(&arg);
            if truthy && !to_s(&arg).ends_with('%') {
                return Ok(Value::Integer(ruby_to_i(&to_s(&arg))));
            }
            let percent = if truthy { to_s(&arg) } else { "95%".into() };
            let memsize = match ctx.variable("facts") {
                Some(Value::Hash(h)) => h
                    .get(&Value::string("memorysize"))
                    .map(to_s)
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let num: String = memsize
                .chars()
                .take_while(|c| c.is_ascii_digit() || ".e+-".contains(*c))
                .collect();
            let after = memsize[num.len()..].trim_start();
            let prefix = after.chars().next().filter(|c| *c != 'b' && *c != 'B');
            let mut value = ruby_to_f(&num);
            value *= match prefix {
                None => 1.0,
                Some('k') => 1024.0,
                Some('M') => 1_048_576.0,
                Some('G') => 1_073_741_824.0,
                Some('T') => 1_099_511_627_776.0,
                Some('E') => 1_125_899_906_842_624.0,
                Some(p) => return Err(fail(format!("memcached_max_memory(): Unknown prefix {p}"))),
            };
            let bytes = value as i64;
            let mb = bytes / (1 << 20);
            Ok(Value::Integer(
                (mb as f64 * (ruby_to_f(&percent) / 100.0)).floor() as i64,
            ))
        },
    )
}

pub(crate) fn ruby_to_i(s: &str) -> i64 {
    let t = s.trim_start();
    let n: String = t
        .chars()
        .enumerate()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
        .map(|(_, c)| c)
        .collect();
    n.parse().unwrap_or(0)
}

fn ruby_to_f(s: &str) -> f64 {
    let t = s.trim_start();
    let mut best = 0.0;
    for end in (1..=t.len()).rev() {
        if !t.is_char_boundary(end) {
            continue;
        }
        if let Ok(f) = t[..end].parse::<f64>() {
            best = f;
            break;
        }
    }
    best
}

fn bool2httpd(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "arg"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let v = a.get(0);
            let text =
                |needle: &str| matches!(&v, Value::String(s) if s.to_lowercase().contains(needle));
            if matches!(v, Value::Undef | Value::Boolean(false)) || text("false") {
                return Ok(Value::string("Off"));
            }
            if matches!(v, Value::Boolean(true)) || text("true") {
                return Ok(Value::string("On"));
            }
            Ok(Value::string(crate::ruby::to_s(&v)))
        },
    )
}

/// neutron's `validate_network_vlan_ranges(ranges)`: each `[physnet:]first:last` must have
/// VLAN ids up to 4094 with `first <= last`; `physnet` and `physnet:id` are accepted as is.
/// Ruby's `^`/`$` match at line ends, so any line of a value may match.
fn validate_network_vlan_ranges(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(crate::any_args(), |_: &mut dyn CallContext, a: Args<'_>| {
        let value = match a.get(0) {
            Value::Array(items) => items.to_vec(),
            other => vec![other],
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        // `^(.+:)?(\d+):(\d+)$`: the last two `:` fields of a line.
        let range_of = |line: &str| -> Option<(String, String)> {
            let mut parts = line.rsplitn(3, ':');
            let (last, first) = (parts.next()?, parts.next()?);
            let prefix_ok = parts.next().is_none_or(|p| !p.is_empty());
            (digits(first) && digits(last) && prefix_ok).then(|| (first.into(), last.into()))
        };
        // `^([^:]+)?(:\d+)?$`.
        let plain = |line: &str| match line.split_once(':') {
            None => true,
            Some((_, id)) => digits(id),
        };
        for range in &value {
            let text = match range {
                Value::Undef => continue,
                Value::String(s) => s.to_string(),
                other => return Err(crate::ruby::no_implicit_string(other)),
            };
            if let Some((first, last)) = text.split('\n').find_map(range_of) {
                let (first, last) = (ruby_integer(&first)?, ruby_integer(&last)?);
                if first > 4094 || last > 4094 {
                    return Err(fail("vlan id are invalid."));
                }
                if last < first {
                    return Err(fail("network vlan ranges are invalid."));
                }
            } else if !text.split('\n').any(plain) {
                return Err(fail("network vlan ranges are invalid."));
            }
        }
        Ok(Value::array(value))
    })
}

/// Ruby's `Integer(text)` (a leading `0` makes it octal), with its error.
pub(crate) fn ruby_integer(s: &str) -> Result<i64, CallError> {
    crate::stdlib3::ruby_integer(s).ok_or_else(|| {
        fail(format!(
            "invalid value for Integer(): {}",
            crate::ruby::inspect_str(s)
        ))
    })
}

/// ssh's `ipaddresses()`: the `ipaddress_IF` and `ipaddress6_IF` facts of every interface
/// of the `interfaces` fact whose name does not contain `lo`; false without that fact.
fn ipaddresses(ctx: &mut dyn CallContext, _: Vec<Value>) -> R {
    let interfaces = match lookupvar(ctx, "interfaces")? {
        None | Some(Value::Undef) => return Ok(Value::Boolean(false)),
        Some(v) => to_s(&v),
    };
    // Split only when there is a comma; Ruby's `split(',')` drops trailing empty fields.
    let mut names: Vec<&str> = vec![interfaces.as_str()];
    if interfaces.contains(',') {
        names = interfaces.split(',').collect();
        while names.last().is_some_and(|n| n.is_empty()) {
            names.pop();
        }
    }
    let mut out = Vec::new();
    for iface in names.into_iter().filter(|i| !i.contains("lo")) {
        for fact in [format!("ipaddress_{iface}"), format!("ipaddress6_{iface}")] {
            match lookupvar(ctx, &fact)? {
                None | Some(Value::Undef) => {}
                Some(v) => out.push(v),
            }
        }
    }
    Ok(Value::array(out))
}

fn getvar_emptystring(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "getvar_emptystring(): wrong number of arguments ({}; must be 1)",
            a.len()
        )));
    }
    let name = to_s(&a[0]);
    let Some(v) = lookupvar(ctx, name.trim_start_matches("::"))? else {
        return Ok(Value::string(""));
    };
    Ok(if v.is_undef() { Value::string("") } else { v })
}

fn mongodb_password(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "mongodb_password(): Wrong number of arguments given ({} for 2)",
            a.len()
        )));
    }
    let text = format!("{}:mongo:{}", to_s(&a[0]), to_s(&a[1]));
    Ok(Value::string(hex(&md5(text.as_bytes()))))
}
