//! Native implementations of puppetlabs-stdlib 8.5's validation, network-fact, crypto and
//! miscellaneous functions (`is_ip_address`, `validate_numeric`, `has_interface_with`,
//! `fqdn_uuid`, `pw_hash`, `str2saltedpbkdf2`, `load_module_metadata`...), with the semantics
//! and messages of their Ruby code under Puppet 7.23 and Ruby 3.1.
//!
//! [`ipaddr`] is Ruby's `IPAddr.new(string)` (puppet-ruby's `ipaddr`), the parser all of
//! stdlib's IP functions use. Functions that need the compiling host (`glob`, `validate_cmd`,
//! `validate_augeas`, `validate_x509_rsa_key_pair`, bcrypt in `pw_hash`) check their
//! arguments as the Ruby does and then fail naming what they would need; they never return
//! made-up output.

use crate::ruby::{class_name, fail, inspect, no_implicit_string, to_s};
use crate::stdlib3::{compat_message, ruby_float};
use crate::stdlib4::{run_wrapped_with, scoped};
use crate::Native;
use fancy_regex::Regex;
use puppet_functions::digest;
use puppet_functions::{codes, Args, CallContext, CallError, FunctionBuilder, Signature};
use puppet_types::Value;
use std::sync::OnceLock;

type R = Result<Value, CallError>;

/// Adds the entries of this file (module `stdlib`).
pub(crate) fn table(out: &mut Vec<Native>) {
    let v4: &[(&'static str, crate::V4Fn)] = &[
        ("is_ip_address", |b| wrapper(b, "is_ip_address")),
        ("is_ipv4_address", |b| wrapper(b, "is_ipv4_address")),
        ("is_ipv6_address", |b| wrapper(b, "is_ipv6_address")),
        ("validate_ip_address", |b| wrapper(b, "validate_ip_address")),
        ("validate_ipv4_address", |b| {
            wrapper(b, "validate_ipv4_address")
        }),
        ("validate_ipv6_address", |b| {
            wrapper(b, "validate_ipv6_address")
        }),
        ("validate_numeric", |b| wrapper(b, "validate_numeric")),
        ("stdlib::ip_in_range", ip_in_range),
        ("os_version_gte", os_version_gte),
    ];
    out.extend(v4.iter().map(|&(name, f)| Native::v4("stdlib", name, f)));
    let mut v3 = Vec::new();
    table3(&mut v3);
    out.extend(v3);
}

/// The 3.x functions of this file, also run by the 4.x wrappers and `validate_legacy`.
pub(crate) fn table3(out: &mut Vec<Native>) {
    let v3: &[(&'static str, crate::V3Fn, i64)] = &[
        ("is_ip_address", is_ip_address, -1),
        ("is_ipv4_address", is_ipv4_address, -1),
        ("is_ipv6_address", is_ipv6_address, -1),
        ("validate_ip_address", validate_ip_address, -1),
        ("validate_ipv4_address", validate_ipv4_address, -1),
        ("validate_ipv6_address", validate_ipv6_address, -1),
        ("validate_numeric", validate_numeric, -1),
        ("is_domain_name", is_domain_name, -1),
        ("is_email_address", is_email_address, -1),
        ("is_mac_address", is_mac_address, -1),
        ("validate_domain_name", validate_domain_name, -1),
        ("validate_email_address", validate_email_address, -1),
        ("has_interface_with", has_interface_with, -1),
        ("has_ip_address", has_ip_address, -1),
        ("has_ip_network", has_ip_network, -1),
        ("fqdn_uuid", fqdn_uuid, -1),
        ("pw_hash", pw_hash, 3),
        ("str2saltedpbkdf2", str2saltedpbkdf2, -1),
        ("str2saltedsha512", str2saltedsha512, -1),
        ("load_module_metadata", load_module_metadata, -1),
        ("is_function_available", is_function_available, -1),
        ("glob", glob, -1),
        ("validate_cmd", validate_cmd, -1),
        ("validate_augeas", validate_augeas, -1),
        ("validate_x509_rsa_key_pair", validate_x509_rsa_key_pair, -1),
        ("private", private, -1),
        ("type3x", type3x, -1),
    ];
    out.extend(
        v3.iter()
            .map(|&(name, f, arity)| Native::v3("stdlib", name, f, arity)),
    );
}

/// The deprecation key and text of a 4.x wrapper (stdlib's own, typos included:
/// `is_ipv6_address` logs under the key `is_ipv4_address`).
fn wrapper_deprecation(name: &str) -> (&'static str, String) {
    let matching = |c: &str| {
        format!("This method is deprecated, please use match expressions with Stdlib::Compat::{c} instead. They are described at https://docs.puppet.com/puppet/latest/reference/lang_data_type.html#match-expressions.")
    };
    match name {
        "is_ip_address" => ("is_ip_address", matching("Ip_address")),
        "is_ipv4_address" => ("is_ipv4_address", matching("Ipv4")),
        "is_ipv6_address" => ("is_ipv4_address", matching("Ipv6")),
        "validate_ip_address" => ("validate_ip_address", compat_message("Ip_Address")),
        "validate_ipv4_address" => ("validate_ipv4_address", compat_message("Ipv4_Address")),
        "validate_ipv6_address" => ("validate_ipv6_address", compat_message("Ipv6_address")),
        _ => ("validate_numeric", compat_message("Numeric")),
    }
}

fn wrapper<'r>(b: FunctionBuilder<'r>, name: &'static str) -> FunctionBuilder<'r> {
    let sig = Signature::new()
        .param("Any", "scope")
        .repeated_param("Any", "args");
    fn run(ctx: &mut dyn CallContext, name: &str, a: Vec<Value>) -> R {
        let (key, message) = wrapper_deprecation(name);
        let f = crate::stdlib_v3(name).ok_or_else(|| fail(format!("no 3.x function {name}")))?;
        run_wrapped_with(ctx, key, &message, f, a)
    }
    let body: fn(&mut dyn CallContext, Vec<Value>) -> R = match name {
        "is_ip_address" => |c, a| run(c, "is_ip_address", a),
        "is_ipv4_address" => |c, a| run(c, "is_ipv4_address", a),
        "is_ipv6_address" => |c, a| run(c, "is_ipv6_address", a),
        "validate_ip_address" => |c, a| run(c, "validate_ip_address", a),
        "validate_ipv4_address" => |c, a| run(c, "validate_ipv4_address", a),
        "validate_ipv6_address" => |c, a| run(c, "validate_ipv6_address", a),
        _ => |c, a| run(c, "validate_numeric", a),
    };
    scoped(b, name, vec![sig], body)
}

// ---------------------------------------------------------------------------------------
// Ruby's IPAddr (puppet-ruby's implementation)

use puppet_ruby::ipaddr::IpAddr;

/// A constant pattern of a built-in function, compiled the first time it is used.
pub(crate) fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// Ruby's `IPAddr.new(text)`: `None` when Ruby raises one of its `ArgumentError`s
/// (`InvalidAddressError`, `InvalidPrefixError`, `AddressFamilyError`).
pub(crate) fn ipaddr(text: &str) -> Option<IpAddr> {
    puppet_ruby::ipaddr::parse(text).ok()
}

fn ipaddr_of(v: &Value) -> Option<IpAddr> {
    match v {
        Value::String(s) => ipaddr(s),
        _ => None,
    }
}

fn one_arg(name: &str, a: &[Value]) -> Result<Value, CallError> {
    if a.len() != 1 {
        return Err(fail(format!(
            "{name}(): Wrong number of arguments given {} for 1",
            a.len()
        )));
    }
    Ok(a[0].clone())
}

fn is_ip_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg("is_ip_address", &a)?;
    Ok(Value::Boolean(ipaddr_of(&v).is_some()))
}

fn is_ipv4_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg("is_ipv4_address", &a)?;
    Ok(Value::Boolean(ipaddr_of(&v).is_some_and(|i| !i.v6)))
}

fn is_ipv6_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg("is_ipv6_address", &a)?;
    Ok(Value::Boolean(ipaddr_of(&v).is_some_and(|i| i.v6)))
}

fn validate_ip_like(a: &[Value], name: &str, ok: fn(&IpAddr) -> bool, what: &str) -> R {
    if a.is_empty() {
        return Err(fail(format!(
            "{name}(): wrong number of arguments (0; must be > 0)"
        )));
    }
    for v in a {
        if !matches!(v, Value::String(_)) {
            return Err(fail(format!("{} is not a string.", inspect(v))));
        }
        if !ipaddr_of(v).is_some_and(|i| ok(&i)) {
            return Err(fail(format!("{} is not a valid {what}.", inspect(v))));
        }
    }
    Ok(Value::Undef)
}

fn validate_ip_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_ip_like(&a, "validate_ip_address", |_| true, "IP address")
}

fn validate_ipv4_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_ip_like(&a, "validate_ipv4_address", |i| !i.v6, "IPv4 address")
}

fn validate_ipv6_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_ip_like(&a, "validate_ipv6_address", |i| i.v6, "IPv6 address")
}

fn ip_in_range(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "ipaddress")
            .param("Variant[String, Array]", "range")
            .return_type("Boolean"),
        |_: &mut dyn CallContext, a: Args<'_>| {
            let parse = |v: &Value| -> Result<IpAddr, CallError> {
                match v {
                    Value::String(s) => {
                        ipaddr(s).ok_or_else(|| fail(format!("invalid address: {s}")))
                    }
                    other => Err(fail(format!(
                        "address family must be specified: {}",
                        to_s(other)
                    ))),
                }
            };
            let ip = parse(&a.get(0))?;
            let ranges: Vec<Value> = match a.get(1) {
                Value::Array(x) => x.to_vec(),
                other => vec![other],
            };
            let mut parsed = Vec::new();
            for r in &ranges {
                parsed.push(parse(r)?);
            }
            Ok(Value::Boolean(parsed.iter().any(|r| r.include(&ip))))
        },
    )
}

// ---------------------------------------------------------------------------------------
// Domain names, e-mail and MAC addresses

fn domain_name(v: &Value) -> bool {
    static LABEL: OnceLock<Regex> = OnceLock::new();
    static TLD: OnceLock<Regex> = OnceLock::new();
    let Value::String(s) = v else {
        return false;
    };
    if s.as_str() == "." {
        return true;
    }
    let domain = s.strip_suffix('.').unwrap_or(s);
    if domain.is_empty() || domain.chars().count() > 255 {
        return false;
    }
    if domain.contains('.')
        && !re(&TLD, r"(?m)\.[A-Za-z]+$")
            .is_match(domain)
            .unwrap_or(false)
    {
        return false;
    }
    let mut labels: Vec<&str> = domain.split('.').collect();
    while labels.last().is_some_and(|l| l.is_empty()) {
        labels.pop();
    }
    let label = re(&LABEL, r"(?mi)^[a-z0-9-]+$");
    labels.iter().all(|l| {
        let n = l.chars().count();
        (1..=63).contains(&n)
            && !l.ends_with('-')
            && !l.starts_with('-')
            && label.is_match(l).unwrap_or(false)
    })
}

fn is_domain_name(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg("is_domain_name", &a)?;
    Ok(Value::Boolean(domain_name(&v)))
}

fn email_address(v: &Value) -> bool {
    static EMAIL: OnceLock<Regex> = OnceLock::new();
    let Value::String(s) = v else {
        return false;
    };
    re(&EMAIL, r"\A([\w+\-].?)+@[a-z0-9\-]+(\.[a-z]+)*\.[a-z]+\z")
        .is_match(s)
        .unwrap_or(false)
}

fn is_email_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let v = one_arg("is_email_address", &a)?;
    Ok(Value::Boolean(email_address(&v)))
}

fn is_mac_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    static SIX: OnceLock<Regex> = OnceLock::new();
    static TWENTY: OnceLock<Regex> = OnceLock::new();
    let v = one_arg("is_mac_address", &a)?;
    let s = match &v {
        Value::String(s) => s.to_string(),
        // `Regexp#match?(nil)` is false; other values are no strings.
        Value::Undef => return Ok(Value::Boolean(false)),
        other => return Err(no_implicit_string(other)),
    };
    let six = re(&SIX, r"(?mi)^[a-f0-9]{1,2}(:[a-f0-9]{1,2}){5}$");
    let twenty = re(&TWENTY, r"(?mi)^[a-f0-9]{1,2}(:[a-f0-9]{1,2}){19}$");
    Ok(Value::Boolean(
        six.is_match(&s).unwrap_or(false) || twenty.is_match(&s).unwrap_or(false),
    ))
}

fn validate_by(a: &[Value], name: &str, ok: fn(&Value) -> bool, what: &str) -> R {
    if a.is_empty() {
        return Err(fail(format!(
            "{name}(): wrong number of arguments (0; must be > 0)"
        )));
    }
    for v in a {
        if !matches!(v, Value::String(_)) {
            return Err(fail(format!("{} is not a string.", inspect(v))));
        }
        if !ok(v) {
            return Err(fail(format!("{} is not {what}", inspect(v))));
        }
    }
    Ok(Value::Undef)
}

fn validate_domain_name(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_by(
        &a,
        "validate_domain_name",
        domain_name,
        "a syntactically correct domain name",
    )
}

fn validate_email_address(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    validate_by(
        &a,
        "validate_email_address",
        email_address,
        "a valid email address",
    )
}

// ---------------------------------------------------------------------------------------
// validate_numeric

/// Ruby's `Float#to_s`.
fn float_s(f: f64) -> String {
    puppet_types::format::float_to_s(f)
}

fn validate_numeric(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    const N: &str = "validate_numeric()";
    if a.is_empty() || a.len() >= 4 {
        return Err(fail(format!(
            "{N}: Wrong number of arguments; must be 1, 2 or 3, got {}",
            a.len()
        )));
    }
    let input = a[0].clone();
    let max = if a.len() > 1 {
        let m = to_s(&a[1]);
        if a.len() > 2 && m.is_empty() {
            None
        } else {
            Some(ruby_float(&m).ok_or_else(|| {
                fail(format!(
                    "{N}: Expected second argument to be unset or a Numeric, got {m}:String"
                ))
            })?)
        }
    } else {
        None
    };
    let min = if a.len() > 2 {
        Some(ruby_float(&to_s(&a[2])).ok_or_else(|| {
            fail(format!(
                "{N}: Expected third argument to be unset or a Numeric, got {}:{}",
                to_s(&a[2]),
                class_name(&a[2])
            ))
        })?)
    } else {
        None
    };
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(fail(format!(
                "{N}: Expected second argument to be larger than third argument, got {} < {}",
                float_s(hi),
                float_s(lo)
            )));
        }
    }
    let check = |num: f64, shown: &str| -> Result<(), CallError> {
        if let Some(hi) = max {
            if num > hi {
                return Err(fail(format!(
                    "{N}: Expected {shown} to be smaller or equal to {}, got {shown}.",
                    float_s(hi)
                )));
            }
        }
        if let Some(lo) = min {
            if num < lo {
                return Err(fail(format!(
                    "{N}: Expected {shown} to be greater or equal to {}, got {shown}.",
                    float_s(lo)
                )));
            }
        }
        Ok(())
    };
    match &input {
        Value::Array(items) => {
            let shown = inspect(&input);
            for (pos, x) in items.iter().enumerate() {
                let f = match x {
                    Value::Hash(_) => None,
                    other => ruby_float(&to_s(other)),
                };
                match f {
                    Some(f) => check(f, &shown)?,
                    None => {
                        return Err(fail(format!(
                            "{N}: Expected element at array position {pos} to be a Numeric, got {}",
                            class_name(x)
                        )))
                    }
                }
            }
        }
        Value::Hash(_) => {
            return Err(fail(
                "validate_integer(): Expected first argument to be a Numeric or Array, got Hash",
            ))
        }
        other => match ruby_float(&to_s(other)) {
            Some(f) => check(f, &float_s(f))?,
            None => {
                return Err(fail(format!(
                    "{N}: Expected first argument to be a Numeric or Array, got {}",
                    class_name(other)
                )))
            }
        },
    }
    Ok(Value::Undef)
}

// ---------------------------------------------------------------------------------------
// Network facts

/// The 3.x `lookupvar` of a fact: an unknown one is nil ([`crate::ruby::lookupvar`]).
fn lookupvar(ctx: &mut dyn CallContext, name: &str) -> Result<Value, CallError> {
    Ok(crate::ruby::lookupvar(ctx, name)?.unwrap_or(Value::Undef))
}

/// The deprecation Puppet logs when a 3.x function asks the autoloader whether another 3.x
/// function is loaded (`has_ip_address`, `has_ip_network`).
fn autoloader_deprecation(ctx: &mut dyn CallContext, name: &str) {
    let text = format!("The method 'Puppet::Parser::Functions.autoloader#loaded?(\"{name}\")' is deprecated in favor of using 'Scope#call_function'.");
    ctx.warn_once_unlocated(&text.clone(), &text);
}

fn has_interface_with(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() || a.len() > 2 {
        return Err(fail(format!(
            "has_interface_with(): Wrong number of arguments given ({} for 1 or 2)",
            a.len()
        )));
    }
    let interfaces = match lookupvar(ctx, "interfaces")? {
        Value::Undef => return Ok(Value::Boolean(false)),
        Value::String(s) => s.to_string(),
        other => return Err(crate::ruby::no_method("split", &other)),
    };
    // Ruby's `split(',')` drops trailing empty fields.
    let mut names: Vec<String> = interfaces.split(',').map(String::from).collect();
    while names.last().is_some_and(|x| x.is_empty()) {
        names.pop();
    }
    if a.len() == 1 {
        return Ok(Value::Boolean(
            names.iter().any(|n| a[0] == Value::string(n.as_str())),
        ));
    }
    let (kind, value) = (to_s(&a[0]), &a[1]);
    // These lookups run inside `catch :undefined_variable`: a missing fact is nil, silently.
    let fact = |ctx: &mut dyn CallContext, name: &str| ctx.variable(name).unwrap_or(Value::Undef);
    if fact(ctx, &kind) == *value {
        return Ok(Value::Boolean(true));
    }
    for iface in names {
        if *value == fact(ctx, &format!("{kind}_{}", iface.to_lowercase())) {
            return Ok(Value::Boolean(true));
        }
    }
    Ok(Value::Boolean(false))
}

fn has_ip_address(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "has_ip_address(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    autoloader_deprecation(ctx, "has_interface_with");
    has_interface_with(ctx, vec![Value::string("ipaddress"), a[0].clone()])
}

fn has_ip_network(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "has_ip_network(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    autoloader_deprecation(ctx, "has_interface_with");
    has_interface_with(ctx, vec![Value::string("network"), a[0].clone()])
}

fn os_version_gte(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String[1]", "os")
            .param("String[1]", "version")
            .return_type("Boolean"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            let facts = ctx.variable("facts").unwrap_or(Value::Undef);
            let fact = |k: &str| match &facts {
                Value::Hash(h) => h.get(&Value::string(k)).cloned().unwrap_or(Value::Undef),
                _ => Value::Undef,
            };
            if fact("operatingsystem") != a.get(0) {
                return Ok(Value::Boolean(false));
            }
            let release = fact("operatingsystemmajrelease");
            let cmp = ctx.call_function("versioncmp", vec![release, a.get(1)], None)?;
            Ok(Value::Boolean(matches!(cmp, Value::Integer(i) if i >= 0)))
        },
    )
}

// ---------------------------------------------------------------------------------------
// Digests and password hashes

fn fqdn_uuid(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail("fqdn_uuid: No arguments given"));
    }
    if a.len() != 1 {
        return Err(fail(format!(
            "fqdn_uuid: Too many arguments given ({})",
            a.len()
        )));
    }
    let Value::String(fqdn) = &a[0] else {
        return Err(no_implicit_string(&a[0]));
    };
    let mut data = vec![
        0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30,
        0xc8,
    ];
    data.extend_from_slice(fqdn.as_bytes());
    let mut b = digest::sha1(&data)[..16].to_vec();
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = digest::hex(&b);
    Ok(Value::string(format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )))
}

fn unwrap_sensitive(v: &Value) -> Value {
    match v {
        Value::Sensitive(inner) => (**inner).clone(),
        other => other.clone(),
    }
}

fn pw_hash(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let a: Vec<Value> = a.iter().map(unwrap_sensitive).collect();
    if !matches!(a[0], Value::String(_) | Value::Undef) {
        return Err(fail("pw_hash(): first argument must be a string"));
    }
    let Value::String(kind) = &a[1] else {
        return Err(fail("pw_hash(): second argument must be a string"));
    };
    let lower = kind.to_lowercase();
    let bcrypt = match lower.as_str() {
        "md5" | "sha-256" | "sha-512" => false,
        "bcrypt" | "bcrypt-a" | "bcrypt-x" | "bcrypt-y" => true,
        _ => return Err(fail(format!("pw_hash(): {kind} is not a valid hash type"))),
    };
    let Value::String(salt) = &a[2] else {
        return Err(fail("pw_hash(): third argument must be a string"));
    };
    if salt.is_empty() {
        return Err(fail("pw_hash(): third argument must not be empty"));
    }
    if bcrypt {
        static BC: OnceLock<Regex> = OnceLock::new();
        if !re(&BC, r"(?m)^[0-9]{2}\$[./A-Za-z0-9]{22}")
            .is_match(salt)
            .unwrap_or(false)
        {
            return Err(fail(
                "pw_hash(): characters in salt must match (?-mix:^[0-9]{2}\\$[.\\/A-Za-z0-9]{22})",
            ));
        }
    } else if !salt
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'/')
    {
        return Err(fail(
            "pw_hash(): characters in salt must be in the set [a-zA-Z0-9./]",
        ));
    }
    let pw = match &a[0] {
        Value::String(s) if !s.is_empty() => s.to_string(),
        _ => return Ok(Value::Undef),
    };
    if pw.contains('\0') {
        return Err(fail("string contains null byte"));
    }
    // Ruby's `String#crypt` answers a binary (ASCII-8BIT) string.
    Ok(Value::String(puppet_types::Str::binary(match lower.as_str() {
        "md5" => digest::md5_crypt(pw.as_bytes(), salt.as_bytes()),
        "sha-256" => digest::sha_crypt(pw.as_bytes(), salt.as_bytes(), false),
        "sha-512" => digest::sha_crypt(pw.as_bytes(), salt.as_bytes(), true),
        _ => {
            return Err(CallError::new(
                codes::UNSUPPORTED,
                format!("pw_hash(): {kind} (bcrypt) needs the host's crypt(3) with bcrypt support, which this implementation does not have"),
            ))
        }
    })))
}

fn str2saltedpbkdf2(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    const N: &str = "str2saltedpbkdf2()";
    if a.len() != 3 {
        return Err(fail(format!(
            "{N}: wrong number of arguments ({} for 3)",
            a.len()
        )));
    }
    let a: Vec<Value> = a.iter().map(unwrap_sensitive).collect();
    let Value::String(pw) = &a[0] else {
        return Err(fail(format!("{N}: first argument must be a string")));
    };
    let Value::String(salt) = &a[1] else {
        return Err(fail(format!("{N}: second argument must be a string")));
    };
    if salt.len() < 8 {
        return Err(fail(format!(
            "{N}: second argument must be at least 8 bytes long"
        )));
    }
    let Value::Integer(iterations) = a[2] else {
        return Err(fail(format!("{N}: third argument must be an integer")));
    };
    if !(iterations > 40_000 && iterations < 70_000) {
        return Err(fail(format!(
            "{N}: third argument must be between 40,000 and 70,000"
        )));
    }
    let hash = digest::pbkdf2_hmac_sha512(pw.as_bytes(), salt.as_bytes(), iterations as u32, 128);
    Ok(Value::hash([
        (
            Value::string("password_hex"),
            Value::string(digest::hex(&hash)),
        ),
        (
            Value::string("salt_hex"),
            Value::string(digest::hex(salt.as_bytes())),
        ),
        (Value::string("iterations"), Value::Integer(iterations)),
    ]))
}

/// A random number below `n`, from the process's randomly keyed hasher (Ruby's `rand`
/// draws from an unpredictable seed too; nothing here is for security use).
fn random_below(n: u64) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish() % n
}

fn str2saltedsha512(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "str2saltedsha512(): Wrong number of arguments passed ({} but we require 1)",
            a.len()
        )));
    }
    let Value::String(pw) = &a[0] else {
        return Err(fail(format!(
            "str2saltedsha512(): Requires a String argument, you passed: {}",
            class_name(&a[0])
        )));
    };
    let seed = (random_below((1u64 << 31) - 1) as u32).to_le_bytes();
    let salted = digest::sha512(&[&seed[..], pw.as_bytes()].concat());
    Ok(Value::string(digest::hex(
        &[&seed[..], &salted[..]].concat(),
    )))
}

// ---------------------------------------------------------------------------------------
// Modules and functions

fn json_value(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::string(s.as_str()),
        serde_json::Value::Array(a) => Value::array(a.iter().map(json_value).collect()),
        serde_json::Value::Object(o) => Value::hash(
            o.iter()
                .map(|(k, v)| (Value::string(k.as_str()), json_value(v))),
        ),
    }
}

fn load_module_metadata(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if !(1..=2).contains(&a.len()) {
        return Err(fail(
            "load_module_metadata(): Wrong number of arguments, expects one or two",
        ));
    }
    crate::extra::get_module_path(ctx, vec![a[0].clone()])?;
    let name = to_s(&a[0]);
    match ctx.module_file(&name, "metadata.json") {
        Some(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let j: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                fail(format!(
                    "load_module_metadata(): metadata.json of module {name}: {e}"
                ))
            })?;
            Ok(json_value(&j))
        }
        None if a.get(1).is_some_and(crate::ruby::truthy) => Ok(Value::hash([])),
        None => Err(fail(format!(
            "load_module_metadata(): No metadata.json file for module {name}"
        ))),
    }
}

/// `is_function_available(name)`: whether a 3.x function of that name exists
/// (`Puppet::Parser::Functions.function`, which knows only 3.x functions): Puppet's own, or
/// one of a module on the module path.
fn is_function_available(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "is_function_available?(): Wrong number of arguments given {} for 1",
            a.len()
        )));
    }
    let Value::String(name) = &a[0] else {
        return Ok(Value::Boolean(false));
    };
    let name = name.as_str();
    let found = puppet_ruby::is_puppet_3x_function(name)
        || (crate::stdlib_v3(name).is_some() && ctx.module_directory("stdlib").is_some())
        || crate::known::KNOWN.iter().any(|(m, n, api, _)| {
            *n == name && *api == crate::Api::V3 && ctx.module_directory(m).is_some()
        });
    Ok(Value::Boolean(found))
}

// ---------------------------------------------------------------------------------------
// Functions that need the compiling host

fn host_needed(name: &str, what: &str) -> CallError {
    CallError::new(
        codes::UNSUPPORTED,
        format!("{name}(): {what}; this implementation does not do that"),
    )
}

fn glob(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "glob(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    if !matches!(a[0], Value::String(_) | Value::Array(_)) {
        return Err(fail("glob(): Requires either array or string to work"));
    }
    Err(host_needed(
        "glob",
        "it lists files of the compiling host's file system (Ruby's Dir.glob)",
    ))
}

fn validate_cmd(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() < 2 || a.len() > 3 {
        return Err(fail(format!(
            "validate_cmd(): wrong number of arguments ({}; must be 2 or 3)",
            a.len()
        )));
    }
    Err(host_needed(
        "validate_cmd",
        "it runs a command on the compiling host",
    ))
}

fn validate_augeas(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    // Ruby checks the augeas feature first; Puppet hosts with it then check the arity.
    if a.len() < 2 || a.len() > 4 {
        return Err(fail(format!(
            "validate_augeas(): wrong number of arguments ({}; must be 2, 3, or 4)",
            a.len()
        )));
    }
    Err(host_needed(
        "validate_augeas",
        "it needs the Augeas library (the augeas feature) on the compiling host",
    ))
}

fn validate_x509_rsa_key_pair(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "validate_x509_rsa_key_pair(): wrong number of arguments ({}; must be 2)",
            a.len()
        )));
    }
    for v in &a {
        if !matches!(v, Value::String(_)) {
            return Err(fail(format!("{} is not a string.", inspect(v))));
        }
    }
    Err(host_needed(
        "validate_x509_rsa_key_pair",
        "it parses X.509 certificates and RSA keys with OpenSSL",
    ))
}

fn private(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    ctx.log(
        puppet_functions::LogLevel::Warning,
        "private() DEPRECATED: This function will cease to function on Puppet 4; please use assert_private() before upgrading to puppet 4 for backwards-compatibility, or migrate to the new parser's typing system.",
    );
    let f = crate::stdlib_v3("assert_private")
        .map(|(f, _)| f)
        .ok_or_else(|| fail("assert_private is not available"))?;
    f(ctx, vec![a.first().cloned().unwrap_or(Value::Undef)])
}

fn type3x(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "type3x(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    let out = match &a[0] {
        Value::Boolean(_) => "boolean".to_string(),
        Value::Integer(_) => "integer".to_string(),
        Value::Float(_) => "float".to_string(),
        Value::Array(_) => "array".to_string(),
        Value::Hash(_) => "hash".to_string(),
        Value::String(s) => {
            let s = s.as_str();
            if s == crate::modules::ruby_to_i(s).to_string() {
                "integer".into()
            } else if s == float_s(ruby_to_f(s)) {
                "float".into()
            } else {
                "string".into()
            }
        }
        _ => return Err(fail("type3x(): Unknown type")),
    };
    Ok(Value::string(out))
}

/// Ruby's `String#to_f`: the longest leading float, 0.0 when none.
fn ruby_to_f(s: &str) -> f64 {
    let t = s.trim_start();
    let mut best = 0.0;
    for end in (1..=t.len()).rev() {
        if !t.is_char_boundary(end) {
            continue;
        }
        if let Some(f) = ruby_float(&t[..end]) {
            if !t[..end].contains(['x', 'X', 'b', 'B', 'o', 'O']) {
                best = f;
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_ipaddr() {
        assert!(ipaddr("192.0.2.1").is_some_and(|i| !i.v6));
        assert!(ipaddr("01.2.3.4").is_none());
        assert!(ipaddr("::ffff:1.2.3.4").is_some_and(|i| i.v6));
        assert!(ipaddr("1::2::3").is_none());
        assert!(ipaddr("[1.2.3.4]").is_none());
        let net = ipaddr("10.0.0.0/255.0.0.0").unwrap();
        assert!(net.include(&ipaddr("10.1.2.3").unwrap()));
        assert!(ipaddr("1.2.3.4/255.0.255.0").is_none());
    }

    #[test]
    fn crypt_vectors() {
        use puppet_functions::digest::{md5_crypt, sha_crypt};
        // Made with Ruby 3.1's String#crypt (glibc/libxcrypt).
        assert_eq!(md5_crypt(b"test", b"1"), "$1$1$Bp8CU9Oujr9SSEw53WV6G.");
        assert_eq!(
            md5_crypt(b"password", b"saltsaltsalt"),
            "$1$saltsalt$qjXMvbEw8oaL.CzflDtaK/"
        );
        assert_eq!(
            md5_crypt(&[b'x'; 70], b"ab"),
            "$1$ab$xYxcg6Ku8Fq4wHdUunBv1."
        );
        assert_eq!(sha_crypt(b"password", b"salt", true), "$6$salt$IxDD3jeSOb5eB1CX5LBsqZFVkJdido3OUILO5Ifz5iwMuTS4XMS130MTSuDDl3aCI6WouIL9AjRbLCelDCy.g.");
        assert_eq!(
            sha_crypt(b"password", b"saltsaltsaltsaltsalt", false),
            "$5$saltsaltsaltsalt$WsFBeg1qQ90JL3VkUTuM7xVV/5njhLngIVm6ftSnBR2"
        );
    }
}
