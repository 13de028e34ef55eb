//! Native implementations of puppetlabs-stdlib 8.5's 4.x functions
//! (`lib/puppet/functions/**/*.rb`), with the signatures of their Ruby `dispatch` blocks.
//!
//! The deprecated validators and predicates (`validate_string`, `is_array`...) are 4.x
//! wrappers that log stdlib's deprecation and run the 3.x function of the same name with the
//! arguments unchanged; `validate_legacy` checks a value against a type and the previous
//! validation. Functions whose Ruby `call` prepends the scope to the arguments see it as a
//! first `Any` parameter, so their mismatch messages count it as Puppet's do.

use crate::ruby::{fail, to_s};
use crate::stdlib3::{compat_message, deprecation};
use crate::Native;
use puppet_functions::{
    Args, CallContext, CallError, FunctionBuilder, LogLevel, Registry, Signature,
};
use puppet_types::{describe_mismatch, infer_set, is_instance, Type, Value};

type R = Result<Value, CallError>;

/// Adds the 4.x table entries (module `stdlib`).
pub(crate) fn table(out: &mut Vec<Native>) {
    let entries: &[(&'static str, crate::V4Fn)] = &[
        ("validate_legacy", validate_legacy),
        ("ensure_packages", ensure_packages),
        ("validate_string", |b| wrapper(b, "validate_string")),
        ("merge", merge),
        ("validate_absolute_path", |b| {
            wrapper(b, "validate_absolute_path")
        }),
        ("fact", fact),
        ("validate_hash", |b| wrapper(b, "validate_hash")),
        ("deprecation", deprecation4),
        ("is_array", |b| wrapper(b, "is_array")),
        ("validate_bool", |b| wrapper(b, "validate_bool")),
        ("validate_re", |b| wrapper(b, "validate_re")),
        ("is_a", is_a),
        ("is_string", |b| wrapper(b, "is_string")),
        ("validate_array", |b| wrapper(b, "validate_array")),
        ("validate_integer", |b| wrapper(b, "validate_integer")),
        ("validate_slength", |b| wrapper(b, "validate_slength")),
        ("is_absolute_path", |b| wrapper(b, "is_absolute_path")),
        ("is_bool", |b| wrapper(b, "is_bool")),
        ("is_float", |b| wrapper(b, "is_float")),
        ("is_numeric", |b| wrapper(b, "is_numeric")),
        ("stdlib::start_with", start_with),
        ("stdlib::end_with", end_with),
        ("shell_escape", shell_escape),
        ("to_json", to_json),
        ("seeded_rand_string", seeded_rand_string),
    ];
    out.extend(
        entries
            .iter()
            .map(|&(name, f)| Native::v4("stdlib", name, f)),
    );
}

/// The `Stdlib::Compat` type a wrapper's deprecation names, `None` for wrappers without one.
fn compat_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "validate_string" | "is_string" => "String",
        "validate_absolute_path" | "is_absolute_path" => "Absolute_Path",
        "validate_hash" => "Hash",
        "validate_array" | "is_array" => "Array",
        "validate_bool" | "is_bool" => "Bool",
        "validate_integer" => "Integer",
        "is_float" => "Float",
        "is_numeric" => "Numeric",
        _ => return None,
    })
}

/// The deprecation texts of the wrappers without a Compat type.
fn other_message(name: &str) -> &'static str {
    match name {
        "validate_re" => "This method is deprecated, please use the stdlib validate_legacy function,\n                    with Pattern[]. There is further documentation for validate_legacy function in the README.",
        _ => "This method is deprecated, please use the stdlib validate_legacy function,\n                    with String[]. There is further documentation for validate_legacy function in the README.",
    }
}

/// A function whose Ruby `call` passes the scope as the first argument: its signature has a
/// leading `Any $scope` that the caller never fills; mismatch texts count it like Puppet.
pub(crate) fn scoped<'r>(
    b: FunctionBuilder<'r>,
    name: &'static str,
    sigs: Vec<Signature>,
    body: fn(&mut dyn CallContext, Vec<Value>) -> R,
) -> FunctionBuilder<'r> {
    b.dispatch(
        Signature::new()
            .repeated_param("Any", "args")
            .optional_block_param("Callable", "block"),
        move |ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut inner = Registry::new();
            let mut fb = inner.function(name);
            for s in &sigs {
                fb = fb.dispatch(s.clone(), move |ctx: &mut dyn CallContext, a: Args<'_>| {
                    body(ctx, a.values.into_iter().skip(1).collect())
                });
            }
            fb.register().map_err(|e| fail(e.to_string()))?;
            let mut values = vec![Value::Undef];
            values.extend(a.values);
            inner.call(ctx, name, values, a.block)
        },
    )
}

fn wrapper<'r>(b: FunctionBuilder<'r>, name: &'static str) -> FunctionBuilder<'r> {
    let sig = Signature::new()
        .param("Any", "scope")
        .repeated_param("Any", "args");
    let body: fn(&mut dyn CallContext, Vec<Value>) -> R = match name {
        "validate_string" => |c, a| run_wrapped(c, "validate_string", a),
        "validate_absolute_path" => |c, a| run_wrapped(c, "validate_absolute_path", a),
        "validate_hash" => |c, a| run_wrapped(c, "validate_hash", a),
        "validate_array" => |c, a| run_wrapped(c, "validate_array", a),
        "validate_bool" => |c, a| run_wrapped(c, "validate_bool", a),
        "validate_re" => |c, a| run_wrapped(c, "validate_re", a),
        "validate_integer" => |c, a| run_wrapped(c, "validate_integer", a),
        "validate_slength" => |c, a| run_wrapped(c, "validate_slength", a),
        "is_absolute_path" => |c, a| run_wrapped(c, "is_absolute_path", a),
        "is_array" => |c, a| run_wrapped(c, "is_array", a),
        "is_bool" => |c, a| run_wrapped(c, "is_bool", a),
        "is_float" => |c, a| run_wrapped(c, "is_float", a),
        "is_numeric" => |c, a| run_wrapped(c, "is_numeric", a),
        _ => |c, a| run_wrapped(c, "is_string", a),
    };
    scoped(b, name, vec![sig], body)
}

fn run_wrapped(ctx: &mut dyn CallContext, name: &str, args: Vec<Value>) -> R {
    let message = match compat_of(name) {
        // The `is_*` wrappers point to match expressions, the `validate_*` ones to
        // validate_legacy.
        Some(c) if name.starts_with("is_") => format!(
            "This method is deprecated, please use match expressions with Stdlib::Compat::{c} instead. They are described at https://docs.puppet.com/puppet/latest/reference/lang_data_type.html#match-expressions."
        ),
        Some(c) => compat_message(c),
        None => other_message(name).to_string(),
    };
    let (f, arity) =
        crate::stdlib_v3(name).ok_or_else(|| fail(format!("no 3.x function {name}")))?;
    run_wrapped_with(ctx, name, &message, (f, arity), args)
}

/// A 4.x wrapper's body: logs the deprecation under `key` with `message`, then runs the
/// 3.x function `f` (of arity `arity`) named `name` on the arguments unchanged.
pub(crate) fn run_wrapped_with(
    ctx: &mut dyn CallContext,
    key: &str,
    message: &str,
    (f, arity): (crate::V3Fn, i64),
    args: Vec<Value>,
) -> R {
    deprecation(ctx, key, message);
    let name = key;
    if arity >= 0 && args.len() as i64 != arity {
        return Err(fail(format!(
            "{name}(): Wrong number of arguments given ({} for {arity})",
            args.len()
        )));
    }
    f(ctx, args)
}

fn validate_legacy(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    let typed = Signature::new()
        .param("Any", "scope")
        .param("Type", "target_type")
        .param("String", "function_name")
        .param("Any", "value")
        .repeated_param("Any", "args");
    let text = Signature::new()
        .param("Any", "scope")
        .param("String", "type_string")
        .param("String", "function_name")
        .param("Any", "value")
        .repeated_param("Any", "args");
    scoped(
        b,
        "validate_legacy",
        vec![typed, text],
        validate_legacy_body,
    )
}

fn validate_legacy_body(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    let target = match a.first() {
        Some(Value::Type(t)) => t.clone(),
        Some(Value::String(s)) => {
            // Resolve the names the text mentions first: the lookup must be Sync.
            let mut known = std::collections::HashMap::new();
            for word in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')) {
                if word.starts_with(|c: char| c.is_ascii_uppercase()) {
                    if let Some(t) = ctx.type_alias(word) {
                        known.insert(word.to_string(), t);
                    }
                }
            }
            let lookup = |n: &str| known.get(n).cloned();
            puppet_functions::parse_type(s, &lookup).map_err(fail)?
        }
        _ => Type::Any,
    };
    let fname = a.get(1).map(to_s).unwrap_or_default();
    let value = a.get(2).cloned().unwrap_or(Value::Undef);
    let rest: Vec<Value> = a.iter().skip(3).cloned().collect();
    let previous = |ctx: &mut dyn CallContext| -> Result<bool, CallError> {
        match crate::stdlib_v3(&fname) {
            Some((f, _)) => {
                let mut args = vec![value.clone()];
                args.extend(rest.iter().cloned());
                Ok(f(ctx, args).is_ok())
            }
            None => Err(fail(format!(
                "undefined method `function_{fname}' for Scope(Class[main])"
            ))),
        }
    };
    if is_instance(&target, &value) {
        if !previous(ctx)? {
            // Ruby returns the logged text (the value of `Puppet.notice`).
            let text = format!("Accepting previously invalid value for target type '{target}'");
            ctx.log(LogLevel::Notice, &text);
            return Ok(Value::string(text));
        }
    } else {
        let msg = describe_mismatch(
            &format!("validate_legacy({fname})"),
            &target,
            &infer_set(&value),
        );
        if previous(ctx)? {
            return Ok(deprecation(ctx, "validate_legacy", &msg));
        } else {
            return Err(fail(msg));
        }
    }
    Ok(Value::Undef)
}

fn ensure_packages(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param(
                "Variant[String[1], Array[String[1]], Hash[String[1], Any]]",
                "packages",
            )
            .optional_param("Hash", "default_attributes")
            .return_type("Undef"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut defaults = puppet_types::value::ValueMap::default();
            defaults.insert(Value::string("ensure"), Value::string("installed"));
            if let Value::Hash(h) = a.get(1) {
                for (k, v) in h.iter() {
                    defaults.insert(k.clone(), v.clone());
                }
                if defaults.get(&Value::string("ensure")) == Some(&Value::string("present")) {
                    defaults.insert(Value::string("ensure"), Value::string("installed"));
                }
            }
            let defaults = Value::Hash(std::sync::Arc::new(defaults));
            let v3 = |n: &str| crate::stdlib_v3(n).map(|(f, _)| f);
            match a.get(0) {
                h @ Value::Hash(_) => {
                    if let Some(f) = v3("ensure_resources") {
                        f(ctx, vec![Value::string("package"), h, defaults])?;
                    }
                }
                other => {
                    if let Some(f) = v3("ensure_resource") {
                        for p in crate::ruby::as_list(&other) {
                            f(ctx, vec![Value::string("package"), p, defaults.clone()])?;
                        }
                    }
                }
            }
            Ok(Value::Undef)
        },
    )
}

fn merge(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    fn put(acc: &mut puppet_types::value::ValueMap, r: &Value) {
        if let Value::Hash(h) = r {
            for (k, v) in h.iter() {
                acc.insert(k.clone(), v.clone());
            }
        }
    }
    fn yielded(r: Result<Value, CallError>) -> Result<Option<Value>, CallError> {
        match r {
            Ok(v) | Err(CallError::Next(v)) => Ok(Some(v)),
            Err(CallError::Break) => Ok(None),
            Err(e) => Err(e),
        }
    }
    fn iterate(ctx: &mut dyn CallContext, a: Args<'_>, three: bool) -> R {
        let mut acc = puppet_types::value::ValueMap::default();
        let Some(block) = a.block else {
            return Ok(Value::hash([]));
        };
        let src = a.get(0);
        let items: Vec<(Value, Value)> = match &src {
            Value::Hash(h) => h.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Value::Array(x) => x
                .iter()
                .enumerate()
                .map(|(i, v)| (Value::Integer(i as i64), v.clone()))
                .collect(),
            other => match other.reverse_each().and_then(|r| r.reverse_each()) {
                Some(Value::Iterator(it)) => it
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (Value::Integer(i as i64), v))
                    .collect(),
                _ => Vec::new(),
            },
        };
        let hash_style = matches!(src, Value::Hash(_));
        for (k, v) in items {
            let cur = Value::Hash(std::sync::Arc::new(acc.clone()));
            let args = if three {
                vec![cur, k, v]
            } else if hash_style {
                vec![cur, Value::array(vec![k, v])]
            } else {
                vec![cur, v]
            };
            match yielded(ctx.call_block(block, args))? {
                Some(r) => put(&mut acc, &r),
                None => break,
            }
        }
        Ok(Value::Hash(std::sync::Arc::new(acc)))
    }
    b.dispatch(
        Signature::new()
            .repeated_param("Variant[Hash[Scalar,Any], Undef, String[0,0]]", "args")
            .return_type("Hash[Scalar,Any]"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut acc = puppet_types::value::ValueMap::default();
            for h in &a.values {
                put(&mut acc, h);
            }
            Ok(Value::Hash(std::sync::Arc::new(acc)))
        },
    )
    .dispatch(
        Signature::new()
            .repeated_param("Iterable", "args")
            .block_param("Callable[3,3]", "block")
            .return_type("Hash"),
        |ctx: &mut dyn CallContext, a: Args<'_>| iterate(ctx, a, true),
    )
    .dispatch(
        Signature::new()
            .repeated_param("Iterable", "args")
            .block_param("Callable[2,2]", "block")
            .return_type("Hash"),
        |ctx: &mut dyn CallContext, a: Args<'_>| iterate(ctx, a, false),
    )
}

fn fact(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("String", "fact_name"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            let name = to_s(&a.get(0));
            let facts = ctx.variable("facts").unwrap_or(Value::Undef);
            // Path segments: runs of non-dot, non-quote characters, or "quoted" segments.
            let mut path = Vec::new();
            let mut chars = name.chars().peekable();
            while let Some(&c) = chars.peek() {
                if c == '"' {
                    chars.next();
                    let seg: String = chars.by_ref().take_while(|x| *x != '"').collect();
                    if !seg.is_empty() {
                        path.push(seg);
                    }
                } else if c == '.' {
                    chars.next();
                } else {
                    let mut seg = String::new();
                    while let Some(&x) = chars.peek() {
                        if x == '.' || x == '"' {
                            break;
                        }
                        seg.push(x);
                        chars.next();
                    }
                    path.push(seg);
                }
            }
            let dotted = |walked: &[String]| {
                walked
                    .iter()
                    .map(|s| {
                        if s.contains('.') {
                            format!("\"{s}\"")
                        } else {
                            s.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(".")
            };
            let mut cur = facts;
            let mut walked: Vec<String> = Vec::new();
            for k in path {
                if cur.is_undef() {
                    return Ok(Value::Undef);
                }
                cur = match &cur {
                    Value::Array(arr) => match crate::stdlib3::ruby_integer(&k) {
                        Some(i) => {
                            let idx = if i < 0 { arr.len() as i64 + i } else { i };
                            (idx >= 0)
                                .then(|| arr.get(idx as usize).cloned())
                                .flatten()
                                .unwrap_or(Value::Undef)
                        }
                        None => {
                            ctx.log(LogLevel::Warning, &format!("fact request for {name} returning nil: '{}' is an array; cannot index to '{k}'", dotted(&walked)));
                            Value::Undef
                        }
                    },
                    Value::Hash(h) => h.get(&Value::string(&k)).cloned().unwrap_or(Value::Undef),
                    _ => {
                        ctx.log(LogLevel::Warning, &format!("fact request for {name} returning nil: '{}' is not a collection; cannot walk to '{k}'", dotted(&walked)));
                        Value::Undef
                    }
                };
                walked.push(k);
            }
            Ok(cur)
        },
    )
}

fn deprecation4(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "key")
            .param("String", "message"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            Ok(deprecation(ctx, &to_s(&a.get(0)), &to_s(&a.get(1))))
        },
    )
}

fn is_a(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "value").param("Type", "type"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| match a.get(1) {
            Value::Type(t) => Ok(Value::Boolean(is_instance(&t, &a.get(0)))),
            _ => Ok(Value::Boolean(false)),
        },
    )
}

fn affix_test(b: FunctionBuilder<'_>, suffix: bool) -> FunctionBuilder<'_> {
    let (p, f): (&str, fn(&str, &str) -> bool) = if suffix {
        ("suffixes", |s, x| s.ends_with(x))
    } else {
        ("prefixes", |s, x| s.starts_with(x))
    };
    b.dispatch(
        Signature::new()
            .param("String", "test_string")
            .param("Variant[String[1],Array[String[1], 1]]", p)
            .return_type("Boolean"),
        move |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let s = to_s(&a.get(0));
            Ok(Value::Boolean(
                crate::ruby::as_list(&a.get(1))
                    .iter()
                    .any(|x| f(&s, &to_s(x))),
            ))
        },
    )
}

fn start_with(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    affix_test(b, false)
}

fn end_with(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    affix_test(b, true)
}

fn shell_escape(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "string"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let v = a.get(0);
            Ok(v.string_like(crate::stdlib3::shell_escape(&to_s(&v))))
        },
    )
}

/// Ruby's `to_json` of a value (compact), as used by stdlib's `to_json` and others.
pub(crate) fn json_of(v: &Value) -> Result<String, CallError> {
    Ok(match v {
        Value::Undef => "null".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => {
            if f.is_finite() {
                puppet_types::format::float_to_s(*f)
            } else {
                return Err(fail(puppet_ruby::json_not_allowed(*f)));
            }
        }
        Value::String(s) => serde_json::to_string(s.as_str()).map_err(|e| fail(e.to_string()))?,
        Value::Array(a) => {
            let parts: Result<Vec<String>, CallError> = a.iter().map(json_of).collect();
            format!("[{}]", parts?.join(","))
        }
        Value::Hash(h) => {
            let mut parts = Vec::new();
            for (k, x) in h.iter() {
                let key = serde_json::to_string(&to_s(k)).map_err(|e| fail(e.to_string()))?;
                parts.push(format!("{key}:{}", json_of(x)?));
            }
            format!("{{{}}}", parts.join(","))
        }
        other => serde_json::to_string(&to_s(other)).map_err(|e| fail(e.to_string()))?,
    })
}

fn to_json(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "data"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| Ok(Value::string(json_of(&a.get(0))?)),
    )
}

/// `seeded_rand_string(length, seed, charset?)`: characters of the charset drawn by
/// `Random.new(Digest::SHA256.hexdigest(seed).to_i(16))`.
fn seeded_rand_string(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("Integer[1]", "length")
            .param("String", "seed")
            .optional_param("String[2]", "charset"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let length = match a.get(0) {
                Value::Integer(i) => i,
                _ => 0,
            };
            let seed = a.get(1).as_str().unwrap_or_default().to_string();
            let charset: Vec<char> = match a.get(2) {
                Value::String(s) => s.chars().collect(),
                _ => "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    .chars()
                    .collect(),
            };
            let digest =
                puppet_functions::digest::hex(&puppet_functions::digest::sha256(seed.as_bytes()));
            let mut rng = puppet_functions::random::RubyRandom::from_hex(&digest);
            let mut out = String::new();
            for _ in 0..length {
                let i = rng.rand_int(charset.len() as i64).unwrap_or(0);
                out.push(charset[i as usize]);
            }
            Ok(Value::string(out))
        },
    )
}
