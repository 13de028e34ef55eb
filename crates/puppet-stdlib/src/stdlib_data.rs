//! Native implementations of puppetlabs-stdlib 8.5's data-format and string functions that
//! the corpus does not call (issue 8, set A): `to_yaml`, `to_json_pretty`, `to_toml`,
//! `to_python`, `to_ruby`, `parsejson`, `parseyaml`, `parsepson`, `sprintf_hash`,
//! `shell_split`, `regexpescape`, `convert_base`, `to_bytes`, `range`, `clamp`... with the
//! semantics and messages of their Ruby code under Puppet 7.23 (Ruby 3.1).
//!
//! YAML output is puppet-erb's Psych emitter and YAML input puppet-hiera's Psych-like loader,
//! so there is one of each. What needs the compiling host (`loadjson` and `loadyaml` read
//! files or URLs) or a parser this workspace lacks (`parsehocon`) checks its arguments as
//! the Ruby code does and then fails naming what it would have needed. `shuffle` and `time`
//! are what Puppet does: unseeded randomness and the clock, so a catalog using them is not
//! deterministic.

use crate::ruby::{
    class_name, fail, flatten, inspect, inspect_str, no_implicit_string, no_method, no_method_hint,
};
use crate::ruby::{ruby_array, to_s, truthy};
use crate::stdlib3::deprecation;
use crate::Native;
use puppet_functions::{codes, Args, CallContext, CallError, FunctionBuilder, LogLevel, Signature};
use puppet_types::{Type, Value};

type R = Result<Value, CallError>;

/// Adds the entries of this file (module `stdlib`).
pub(crate) fn table(out: &mut Vec<Native>) {
    let v4: &[(&'static str, crate::V4Fn)] = &[
        ("to_yaml", to_yaml),
        ("to_json_pretty", to_json_pretty),
        ("to_toml", to_toml),
        ("to_python", to_python),
        ("to_ruby", to_ruby),
        ("parsehocon", parsehocon),
        ("parsepson", parsepson),
        ("sprintf_hash", sprintf_hash),
        ("batch_escape", batch_escape),
        ("powershell_escape", powershell_escape),
        ("type_of", type_of),
        ("stdlib::xml_encode", xml_encode),
        ("stdlib::extname", extname),
        ("stdlib::str2resource", str2resource),
    ];
    out.extend(v4.iter().map(|&(name, f)| Native::v4("stdlib", name, f)));
    let v3: &[(&'static str, crate::V3Fn, i64)] = &[
        ("parsejson", parsejson, -1),
        ("parseyaml", parseyaml, -1),
        ("loadjson", loadjson, -2),
        ("loadyaml", loadyaml, -2),
        ("shell_split", shell_split, -1),
        ("regexpescape", regexpescape, -1),
        ("dos2unix", dos2unix, 1),
        ("unix2dos", unix2dos, 1),
        ("convert_base", convert_base, 2),
        ("to_bytes", to_bytes, -1),
        ("try_get_value", try_get_value, -2),
        ("delete_regex", delete_regex, -1),
        ("clamp", clamp, -2),
        ("range", range, -1),
        ("reverse", reverse, -1),
        ("shuffle", shuffle, -1),
        ("time", time, -1),
    ];
    out.extend(
        v3.iter()
            .map(|&(name, f, arity)| Native::v3("stdlib", name, f, arity)),
    );
}

fn arg(a: &[Value], i: usize) -> Value {
    a.get(i).cloned().unwrap_or(Value::Undef)
}

fn unsupported(message: String) -> CallError {
    CallError::new(codes::UNSUPPORTED, message)
}

/// Does some line of `s` match `^pattern$` (Ruby's anchors are line anchors)?
fn some_line(s: &str, f: impl Fn(&str) -> bool) -> bool {
    s.split('\n').any(f)
}

fn all_digits(l: &str) -> bool {
    !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit())
}

/// Ruby's `String#to_i` (base 10, leading whitespace, sign, digits and underscores).
fn str_to_i(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut n: i64 = 0;
    let mut prev_us = true;
    for c in t.chars() {
        match c {
            '0'..='9' => {
                n = n.saturating_mul(10).saturating_add(c as i64 - '0' as i64);
                prev_us = false;
            }
            '_' if !prev_us => prev_us = true,
            _ => break,
        }
    }
    if neg {
        -n
    } else {
        n
    }
}

/// Ruby's `String#to_f` for plain decimal texts.
fn str_to_f(s: &str) -> f64 {
    let b = s.trim_start().as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let ds = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut has_digits = i > ds;
    if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        has_digits = true;
    }
    if !has_digits {
        return 0.0;
    }
    let mut end = i;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            end = j;
        }
    }
    std::str::from_utf8(&b[..end])
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0)
}

// ---------------------------------------------------------------------------------------
// Serializers

fn to_yaml(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("Any", "data")
            .optional_param("Hash", "options"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let out = puppet_ruby::yaml_of_value(&a.get(0))
                .map_err(|e| unsupported(format!("to_yaml(): {e} is not supported natively")))?;
            if let Value::Hash(h) = a.get(1) {
                for (k, v) in h.iter() {
                    let k = to_s(k);
                    let changes = match k.as_str() {
                        "indentation" => {
                            *v != Value::Integer(2) && out.lines().any(|l| l.starts_with(' '))
                        }
                        "line_width" => match v {
                            Value::Integer(w) => {
                                *w > 0 && out.lines().any(|l| l.chars().count() as i64 > *w)
                            }
                            _ => true,
                        },
                        _ => true,
                    };
                    if changes {
                        return Err(unsupported(format!(
                            "to_yaml(): the Psych option '{k}' => {} is not supported natively",
                            inspect(v)
                        )));
                    }
                }
            }
            Ok(Value::string(out))
        },
    )
}

/// The options of Ruby's `JSON::State` that `to_json_pretty` can set.
struct JsonState {
    indent: String,
    space: String,
    space_before: String,
    object_nl: String,
    array_nl: String,
    max_nesting: i64,
    depth: i64,
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn json_gen(v: &Value, st: &mut JsonState, out: &mut String) -> Result<(), CallError> {
    match v {
        Value::Undef => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Float(f) => {
            if !f.is_finite() {
                return Err(fail(puppet_ruby::json_not_allowed(*f)));
            }
            out.push_str(&puppet_types::format::float_to_s(*f));
        }
        Value::Array(a) => {
            st.depth += 1;
            if st.max_nesting != 0 && st.depth > st.max_nesting {
                st.depth -= 1;
                return Err(fail(format!("nesting of {} is too deep", st.depth)));
            }
            out.push('[');
            out.push_str(&st.array_nl);
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    out.push_str(&st.array_nl);
                }
                out.push_str(&st.indent.repeat(st.depth as usize));
                json_gen(x, st, out)?;
            }
            st.depth -= 1;
            out.push_str(&st.array_nl);
            out.push_str(&st.indent.repeat(st.depth as usize));
            out.push(']');
        }
        Value::Hash(h) => {
            st.depth += 1;
            if st.max_nesting != 0 && st.depth > st.max_nesting {
                st.depth -= 1;
                return Err(fail(format!("nesting of {} is too deep", st.depth)));
            }
            out.push('{');
            for (i, (k, x)) in h.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&st.object_nl);
                out.push_str(&st.indent.repeat(st.depth as usize));
                out.push_str(&json_str(&to_s(k)));
                out.push_str(&st.space_before);
                out.push(':');
                out.push_str(&st.space);
                json_gen(x, st, out)?;
            }
            st.depth -= 1;
            out.push_str(&st.object_nl);
            out.push_str(&st.indent.repeat(st.depth as usize));
            out.push('}');
        }
        other => out.push_str(&json_str(&to_s(other))),
    }
    Ok(())
}

fn to_json_pretty(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("Variant[Hash, Array]", "data")
            .optional_param("Optional[Boolean]", "skip_undef")
            .optional_param(
                "Struct[{indent => Optional[String], space => Optional[String], space_before => Optional[String], object_nl => Optional[String], array_nl => Optional[String], allow_nan => Optional[Boolean], max_nesting => Optional[Integer[-1,default]]}]",
                "opts",
            ),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut data = a.get(0);
            if a.get(1) == Value::Boolean(true) {
                data = match &data {
                    Value::Array(x) => {
                        Value::array(x.iter().filter(|v| !v.is_undef()).cloned().collect())
                    }
                    Value::Hash(h) => Value::hash(
                        h.iter()
                            .filter(|(_, v)| !v.is_undef())
                            .map(|(k, v)| (k.clone(), v.clone())),
                    ),
                    other => other.clone(),
                };
            }
            let mut st = JsonState {
                indent: "  ".into(),
                space: " ".into(),
                space_before: String::new(),
                object_nl: "\n".into(),
                array_nl: "\n".into(),
                max_nesting: 100,
                depth: 0,
            };
            if let Value::Hash(o) = a.get(2) {
                for (k, v) in o.iter() {
                    let s = v.as_str().map(str::to_string);
                    match (to_s(k).as_str(), s) {
                        ("indent", Some(s)) => st.indent = s,
                        ("space", Some(s)) => st.space = s,
                        ("space_before", Some(s)) => st.space_before = s,
                        ("object_nl", Some(s)) => st.object_nl = s,
                        ("array_nl", Some(s)) => st.array_nl = s,
                        ("max_nesting", _) => {
                            if let Value::Integer(n) = v {
                                st.max_nesting = if *n == -1 { 0 } else { *n };
                            }
                        }
                        _ => {}
                    }
                }
            }
            let mut out = String::new();
            json_gen(&data, &mut st, &mut out)?;
            out.push('\n');
            Ok(Value::string(out))
        },
    )
}

/// `PuppetX::Stdlib::TomlDumper`.
struct Toml {
    out: String,
}

impl Toml {
    fn sort_pairs(h: &Value) -> Result<[Vec<(Value, Value)>; 3], CallError> {
        let Value::Hash(h) = h else {
            return Err(no_method("keys", h));
        };
        let mut keys: Vec<Value> = h.iter().map(|(k, _)| k.clone()).collect();
        let mut err = None;
        keys.sort_by(|a, b| match (a, b) {
            (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
            (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
            _ => {
                err.get_or_insert_with(|| {
                    fail(format!(
                        "comparison of {} with {} failed",
                        class_name(a),
                        inspect(b)
                    ))
                });
                std::cmp::Ordering::Equal
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        let (mut simple, mut nested, mut tables) = (vec![], vec![], vec![]);
        for k in keys {
            let v = h.get(&k).cloned().unwrap_or(Value::Undef);
            match &v {
                Value::Hash(_) => nested.push((k, v)),
                Value::Array(a) if matches!(a.first(), Some(Value::Hash(_))) => tables.push((k, v)),
                _ => simple.push((k, v)),
            }
        }
        Ok([simple, nested, tables])
    }

    fn visit(&mut self, h: &Value, prefix: &[String], extra: bool) -> Result<(), CallError> {
        let [simple, nested, tables] = Self::sort_pairs(h)?;
        let empty = matches!(h, Value::Hash(x) if x.is_empty());
        if !prefix.is_empty() && (!simple.is_empty() || empty) {
            self.print_prefix(prefix, extra);
        }
        self.dump_pairs(simple, nested, tables, prefix)
    }

    fn dump_pairs(
        &mut self,
        simple: Vec<(Value, Value)>,
        nested: Vec<(Value, Value)>,
        tables: Vec<(Value, Value)>,
        prefix: &[String],
    ) -> Result<(), CallError> {
        for (k, v) in simple {
            let key = key_text(&k)?;
            self.out.push_str(&format!("{key} = {}\n", toml_value(&v)));
        }
        for (k, v) in nested {
            let mut p = prefix.to_vec();
            p.push(key_text(&k)?);
            self.visit(&v, &p, false)?;
        }
        for (k, v) in tables {
            let mut p = prefix.to_vec();
            p.push(key_text(&k)?);
            if let Value::Array(items) = v {
                for child in items.iter() {
                    self.print_prefix(&p, true);
                    let [s, n, t] = Self::sort_pairs(child)?;
                    self.dump_pairs(s, n, t, &p)?;
                }
            }
        }
        Ok(())
    }

    fn print_prefix(&mut self, prefix: &[String], extra: bool) {
        let p = prefix.join(".");
        if extra {
            self.out.push_str(&format!("[[{p}]]\n"));
        } else {
            self.out.push_str(&format!("[{p}]\n"));
        }
    }
}

fn key_text(k: &Value) -> Result<String, CallError> {
    let s = to_s(k);
    let bare = some_line(&s, |l| {
        l.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    });
    if bare {
        return Ok(s);
    }
    match k {
        Value::String(s) => Ok(format!("\"{}\"", s.replace('"', "\\\""))),
        other => Err(no_method("gsub", other)),
    }
}

fn toml_value(v: &Value) -> String {
    match v {
        Value::String(s) => inspect_str(s)
            .replace("\\#{", "#{")
            .replace("\\#$", "#$")
            .replace("\\#@", "#@"),
        Value::Regexp(_) => inspect_str(&inspect(v)),
        other => inspect(other),
    }
}

fn to_toml(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Hash", "data"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut t = Toml { out: String::new() };
            t.visit(&a.get(0), &[], false)?;
            Ok(Value::string(t.out))
        },
    )
}

/// `Puppet::Pops::Serialization::ToDataConverter.convert(v, rich_data: true)` (puppet-ruby
/// owns it); other rich values are reported as unsupported.
fn to_data(v: &Value, f: &str) -> Result<Value, CallError> {
    puppet_ruby::to_rich_data(v).map_err(|other| {
        unsupported(format!(
            "{f}(): the rich data serialization of {} is not supported natively",
            class_name(&other)
        ))
    })
}

fn serialized(v: &Value, python: bool) -> String {
    match v {
        Value::Boolean(true) if python => "True".into(),
        Value::Boolean(false) if python => "False".into(),
        Value::Undef if python => "None".into(),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().map(|x| serialized(x, python)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Hash(h) => {
            let sep = if python { ": " } else { " => " };
            let parts: Vec<String> = h
                .iter()
                .map(|(k, x)| format!("{}{sep}{}", serialized(k, python), serialized(x, python)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => inspect(other),
    }
}

fn to_python(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "object"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            Ok(Value::string(serialized(
                &to_data(&a.get(0), "to_python")?,
                true,
            )))
        },
    )
}

fn to_ruby(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "object"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            Ok(Value::string(serialized(
                &to_data(&a.get(0), "to_ruby")?,
                false,
            )))
        },
    )
}

// ---------------------------------------------------------------------------------------
// Parsers

/// The 3.x `parsejson`/`parseyaml` pattern: `parse(text) || default`, errors replaced by
/// the default when one (truthy) was given.
fn parse_with_default(a: &[Value], parse: impl Fn(&str) -> Result<Value, CallError>) -> R {
    if a.is_empty() {
        return Err(fail(
            "Wrong number of arguments. 1 or 2 arguments should be provided.",
        ));
    }
    let default = arg(a, 1);
    let result = match &a[0] {
        Value::String(s) => parse(s),
        other => Err(no_implicit_string(other)),
    };
    match result {
        Ok(v) if truthy(&v) => Ok(v),
        Ok(_) => Ok(default),
        Err(e) if e.code() == codes::UNSUPPORTED => Err(e),
        Err(_) if truthy(&default) => Ok(default),
        Err(e) => Err(e),
    }
}

fn json_value(text: &str) -> Result<Value, CallError> {
    puppet_ruby::json_parse_ruby(text).map_err(|(class, message)| {
        if class.is_empty() {
            unsupported(format!("parsejson(): {message}"))
        } else {
            fail(message)
        }
    })
}

fn parsejson(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    parse_with_default(&a, json_value)
}

fn yaml_value(text: &str) -> Result<Value, CallError> {
    match puppet_ruby::yaml_load_ruby(text) {
        Ok(v) => Ok(v.unwrap_or(Value::Undef)),
        Err((_, message)) => Err(fail(message)),
    }
}

fn parseyaml(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    parse_with_default(&a, yaml_value)
}

fn parsepson(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String[1]", "pson_string")
            .optional_param("Any", "default"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let text = a.get(0).as_str().unwrap_or_default().to_string();
            let result = puppet_ruby::pson_load_ruby(&text).map_err(|(class, message)| {
                if class.is_empty() {
                    unsupported(format!("parsepson(): {message}"))
                } else {
                    fail(message)
                }
            });
            match result {
                Ok(v) => Ok(v),
                Err(_) if a.values.len() > 1 => Ok(a.get(1)),
                Err(e) => Err(e),
            }
        },
    )
}

fn parsehocon(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "hocon_string")
            .optional_param("Any", "default"),
        |_ctx: &mut dyn CallContext, _a: Args<'_>| {
            Err(unsupported(
                "parsehocon(): parsing HOCON (Ruby's hocon gem) is not supported natively"
                    .to_string(),
            ))
        },
    )
}

/// `loadjson` and `loadyaml`: the argument checks of the Ruby code; reading a file of the
/// compiling host or a URL is not something a native call can do here.
/// `loadjson` / `loadyaml`: a file read through the environment's file source and parsed;
/// the default (second argument) when it does not exist (with Ruby's warning), when its
/// data is nil or false, or when it cannot be parsed (an error without a default). A URL
/// would need the network: a clear error.
fn load_file(
    ctx: &mut dyn CallContext,
    name: &str,
    a: &[Value],
    parse: fn(&str) -> Result<Value, CallError>,
) -> R {
    let Value::String(s) = &a[0] else {
        return Err(no_method("start_with?", &a[0]));
    };
    if s.starts_with("http://") || s.starts_with("https://") {
        return Err(unsupported(format!(
            "{name}(): fetching '{s}' needs the network, which native functions do not use"
        )));
    }
    let default = a.get(1).cloned().unwrap_or(Value::Undef);
    let bytes = match ctx.read_file(s) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            ctx.log(
                LogLevel::Warning,
                &format!("Can't load '{s}' File does not exist!"),
            );
            return Ok(default);
        }
        Err(reason) => {
            return Err(unsupported(format!(
                "{name}(): cannot read '{s}': {reason}"
            )))
        }
    };
    match parse(&String::from_utf8_lossy(&bytes)) {
        // Ruby's `data || default`.
        Ok(Value::Undef | Value::Boolean(false)) => Ok(default),
        Ok(v) => Ok(v),
        Err(_) if a.len() > 1 && !default.is_undef() => Ok(default),
        Err(e) => Err(e),
    }
}

fn loadjson(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    load_file(ctx, "loadjson", &a, json_value)
}

fn loadyaml(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    load_file(ctx, "loadyaml", &a, yaml_value)
}

// ---------------------------------------------------------------------------------------
// Strings

fn sprintf_hash(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "format")
            .param("Hash", "arguments"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            deprecation(
                ctx,
                "sprintf_hash",
                "This method is deprecated. From Puppet 4.10.10/5.3.4 please use the built-in sprintf instead",
            );
            let format = a.get(0).as_str().unwrap_or_default().to_string();
            let Value::Hash(h) = a.get(1) else {
                return Ok(Value::Undef);
            };
            // Puppet's sprintf takes the hash as named arguments; `%{name}` is `to_s`.
            let mut fmt = String::new();
            let mut used_hash = false;
            let mut rest = format.as_str();
            while let Some(p) = rest.find('%') {
                fmt.push_str(&rest[..p]);
                let tail = &rest[p..];
                if let Some(t) = tail.strip_prefix("%%") {
                    fmt.push_str("%%");
                    rest = t;
                } else if let Some(t) = tail.strip_prefix("%{") {
                    let Some(end) = t.find('}') else {
                        fmt.push_str("%{");
                        rest = t;
                        continue;
                    };
                    let key = &t[..end];
                    let v = h
                        .iter()
                        .find(|(k, _)| to_s(k) == key)
                        .map(|(_, v)| v.clone())
                        .ok_or_else(|| fail(format!("key{{{key}}} not found")))?;
                    fmt.push_str(&to_s(&v).replace('%', "%%"));
                    rest = &t[end + 1..];
                } else if let Some(t) = tail.strip_prefix("%<") {
                    if let Some(end) = t.find('>') {
                        let key = &t[..end];
                        if !h.iter().any(|(k, _)| to_s(k) == key) {
                            return Err(fail(format!("key<{key}> not found")));
                        }
                    }
                    fmt.push_str("%<");
                    rest = t;
                } else if let (Some(t), false) = (tail.strip_prefix("%s"), used_hash) {
                    // An unnamed `%s` formats the Ruby hash itself (symbol keys).
                    used_hash = true;
                    fmt.push_str(&ruby_symbol_hash(&h).replace('%', "%%"));
                    rest = t;
                } else {
                    // Other unnamed directives format the hash itself.
                    return Err(unsupported(
                        "sprintf_hash(): an unnamed directive (formatting the Ruby hash) is not supported natively".to_string(),
                    ));
                }
            }
            fmt.push_str(rest);
            let named = Value::hash(h.iter().map(|(k, v)| (Value::string(to_s(k)), v.clone())));
            ctx.call_function("sprintf", vec![Value::string(fmt), named], None)
        },
    )
}

/// Ruby's `inspect` of a hash whose keys were made symbols (`{:a=>1}`).
fn ruby_symbol_hash(h: &puppet_types::value::ValueMap) -> String {
    let parts: Vec<String> = h
        .iter()
        .map(|(k, v)| {
            let k = to_s(k);
            let plain = k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let key = if plain {
                format!(":{k}")
            } else {
                format!(":{}", inspect_str(&k))
            };
            format!("{key}=>{}", inspect(v))
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn batch_escape(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "string"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut out = String::from("\"");
            for c in to_s(&a.get(0)).chars() {
                match c {
                    '"' => out.push_str("\"\""),
                    '$' | '\\' => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
            Ok(Value::string(out))
        },
    )
}

fn powershell_escape(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "string"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let mut out = String::new();
            for c in to_s(&a.get(0)).chars() {
                match c {
                    ' ' | '\'' | '`' | '|' | '\n' | '$' => {
                        out.push('`');
                        out.push(c);
                    }
                    '"' => out.push_str("\\`\""),
                    c => out.push(c),
                }
            }
            Ok(Value::string(out))
        },
    )
}

fn ruby_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}' | '\u{b}')
}

/// Ruby's `Shellwords.shellsplit`.
fn shellsplit(line: &str) -> Result<Vec<String>, CallError> {
    let cs: Vec<char> = line.chars().collect();
    let mut i = 0;
    let mut words = Vec::new();
    let mut field = String::new();
    loop {
        while i < cs.len() && ruby_space(cs[i]) {
            i += 1;
        }
        if i >= cs.len() {
            break;
        }
        let c = cs[i];
        if !ruby_space(c) && c != '\\' && c != '\'' && c != '"' {
            while i < cs.len() && !matches!(cs[i], '\\' | '\'' | '"') && !ruby_space(cs[i]) {
                field.push(cs[i]);
                i += 1;
            }
        } else if c == '\'' {
            match cs[i + 1..].iter().position(|&x| x == '\'') {
                Some(n) => {
                    field.extend(&cs[i + 1..i + 1 + n]);
                    i += n + 2;
                }
                None => return Err(fail(format!("Unmatched quote: {}", inspect_str(line)))),
            }
        } else if c == '"' {
            let mut j = i + 1;
            let mut body = Vec::new();
            let mut closed = false;
            while j < cs.len() {
                match cs[j] {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' if j + 1 < cs.len() => {
                        body.push('\\');
                        body.push(cs[j + 1]);
                        j += 2;
                    }
                    '\\' => break,
                    x => {
                        body.push(x);
                        j += 1;
                    }
                }
            }
            if !closed {
                return Err(fail(format!("Unmatched quote: {}", inspect_str(line))));
            }
            let mut k = 0;
            while k < body.len() {
                if body[k] == '\\'
                    && k + 1 < body.len()
                    && matches!(body[k + 1], '$' | '`' | '"' | '\\' | '\n')
                {
                    field.push(body[k + 1]);
                    k += 2;
                } else {
                    field.push(body[k]);
                    k += 1;
                }
            }
            i = j + 1;
        } else {
            // `\\.?`: an escaped character (or a lone trailing backslash).
            if i + 1 < cs.len() {
                field.push(cs[i + 1]);
                i += 2;
            } else {
                field.push('\\');
                i += 1;
            }
        }
        if i >= cs.len() || ruby_space(cs[i]) {
            words.push(std::mem::take(&mut field));
            if i < cs.len() {
                i += 1;
            }
        }
    }
    Ok(words)
}

fn shell_split(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "shell_split(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    Ok(Value::array(
        shellsplit(&to_s(&a[0]))?
            .into_iter()
            .map(Value::string)
            .collect(),
    ))
}

fn regexpescape(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail(
            "regexpescape(): Wrong number of arguments given (0 for 1)",
        ));
    }
    match &a[0] {
        Value::String(s) => Ok(Value::string(puppet_types::convert::ruby_regexp_escape(s))),
        Value::Array(x) => Ok(Value::array(
            x.iter()
                .map(|v| match v {
                    Value::String(s) => Value::string(puppet_types::convert::ruby_regexp_escape(s)),
                    other => other.clone(),
                })
                .collect(),
        )),
        _ => Err(fail(
            "regexpescape(): Requires either array or string to work with",
        )),
    }
}

fn dos2unix(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    match &a[0] {
        Value::String(s) => Ok(Value::string(s.replace("\r\n", "\n"))),
        _ => Err(fail("dos2unix(): Requires string as argument")),
    }
}

fn unix2dos(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let Value::String(s) = &a[0] else {
        return Err(fail("unix2dos(): Requires string as argument"));
    };
    // gsub(/\r*\n/, "\r\n")
    let mut out = String::new();
    let mut pending_cr = 0;
    for c in s.chars() {
        match c {
            '\r' => pending_cr += 1,
            '\n' => {
                pending_cr = 0;
                out.push_str("\r\n");
            }
            c => {
                out.push_str(&"\r".repeat(pending_cr));
                pending_cr = 0;
                out.push(c);
            }
        }
    }
    out.push_str(&"\r".repeat(pending_cr));
    Ok(Value::string(out))
}

fn to_base(mut n: i64, base: u32) -> String {
    if n == 0 {
        return "0".into();
    }
    let neg = n < 0;
    let mut digits = Vec::new();
    while n != 0 {
        let d = (n % base as i64).unsigned_abs() as u32;
        digits.push(std::char::from_digit(d, base).unwrap_or('?'));
        n /= base as i64;
    }
    if neg {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

fn convert_base(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let ok = |v: &Value| matches!(v, Value::Integer(_) | Value::String(_));
    if !ok(&a[0]) {
        return Err(fail(
            "convert_base(): First argument must be either a string or an integer",
        ));
    }
    if !ok(&a[1]) {
        return Err(fail(
            "convert_base(): Second argument must be either a string or an integer",
        ));
    }
    let to_i = |v: &Value| -> Result<i64, CallError> {
        match v {
            Value::Integer(i) => Ok(*i),
            Value::String(s) if some_line(s, all_digits) => Ok(str_to_i(s)),
            _ => Err(fail("convert_base(): First argument must be an integer or a string corresponding to an integer in base 10")),
        }
    };
    let n = to_i(&a[0])?;
    let base = to_i(&a[1])?;
    if !(2..=36).contains(&base) {
        return Err(fail(
            "convert_base(): base must be at least 2 and must not be greater than 36",
        ));
    }
    Ok(Value::string(to_base(n, base as u32)))
}

fn to_bytes(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 1 {
        return Err(fail(format!(
            "to_bytes(): Wrong number of arguments given ({} for 1)",
            a.len()
        )));
    }
    let s = match &a[0] {
        Value::Integer(_) | Value::Float(_) => return Ok(a[0].clone()),
        Value::String(s) => s.to_string(),
        other => return Err(no_implicit_string(other)),
    };
    let value_len = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-')))
        .unwrap_or(s.len());
    let value = str_to_f(&s[..value_len]);
    let rest = s[value_len..].trim_start_matches(ruby_space);
    let prefix = rest.chars().next().filter(|c| *c != 'b' && *c != 'B');
    let shift = match prefix {
        None => 0,
        Some('k') => 10,
        Some('M') => 20,
        Some('G') => 30,
        Some('T') => 40,
        Some('P') => 50,
        Some('E') => 60,
        Some(c) => return Err(fail(format!("to_bytes(): Unknown prefix {c}"))),
    };
    let v = (value * (1u64 << shift) as f64).trunc();
    if v.is_nan() || v < i64::MIN as f64 || v >= i64::MAX as f64 {
        return Err(unsupported(format!(
            "to_bytes(): the result of '{s}' is outside the Integer range"
        )));
    }
    Ok(Value::Integer(v as i64))
}

fn reverse(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail("reverse(): Wrong number of arguments given (0 for 1)"));
    }
    match &a[0] {
        Value::String(s) => Ok(Value::String(s.derive(s.chars().rev().collect::<String>()))),
        Value::Array(x) => Ok(Value::array(x.iter().rev().cloned().collect())),
        _ => Err(fail(
            "reverse(): Requires either array or string to work with",
        )),
    }
}

/// An unseeded random number below `n` (Ruby's `Kernel#rand` is unseeded too).
fn random_below(n: usize) -> usize {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(n);
    (h.finish() % n as u64) as usize
}

fn shuffle(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.is_empty() {
        return Err(fail("shuffle(): Wrong number of arguments given (0 for 1)"));
    }
    let (mut items, string) = match &a[0] {
        Value::String(s) => (
            s.chars().map(|c| Value::string(c.to_string())).collect(),
            true,
        ),
        Value::Array(x) => (x.to_vec(), false),
        _ => {
            return Err(fail(
                "shuffle(): Requires either array or string to work with",
            ))
        }
    };
    let n = items.len();
    for i in 0..n {
        let j = random_below(n - i) + i;
        items.swap(i, j);
    }
    Ok(if string {
        Value::string(items.iter().map(to_s).collect::<String>())
    } else {
        Value::array(items)
    })
}

fn time(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() > 1 {
        return Err(fail(format!(
            "time(): Wrong number of arguments given {} for 0 or 1",
            a.len()
        )));
    }
    // `strftime('%s')` is the epoch whatever the time zone argument.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    Ok(Value::Integer(now))
}

fn xml_encode(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new()
            .param("String", "str")
            .optional_param("Enum['text','attr']", "type"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            let s = a.get(0).as_str().unwrap_or_default().to_string();
            let attr = a.get(1).as_str() == Some("attr");
            let mut out = String::new();
            if attr {
                out.push('"');
            }
            for c in s.chars() {
                match c {
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '"' if attr => out.push_str("&quot;"),
                    '\'' if attr => out.push_str("&apos;"),
                    c => out.push(c),
                }
            }
            if attr {
                out.push('"');
            }
            Ok(Value::string(out))
        },
    )
}

/// Ruby's `File.extname` (POSIX).
fn file_extname(name: &str) -> String {
    let trimmed = name.trim_end_matches('/');
    let base = trimmed.rsplit('/').next().unwrap_or_default();
    let base = base.trim_start_matches('.');
    match base.rfind('.') {
        Some(i) => base[i..].to_string(),
        None => String::new(),
    }
}

fn extname(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("String", "filename"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            Ok(Value::string(file_extname(
                a.get(0).as_str().unwrap_or_default(),
            )))
        },
    )
}

fn str2resource(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("String", "res_string"),
        |ctx: &mut dyn CallContext, a: Args<'_>| {
            let s = a.get(0).as_str().unwrap_or_default().to_string();
            // Puppet::Resource.type_and_title: `Type[title]`.
            let parsed = s
                .find('[')
                .filter(|&i| i > 0 && s.ends_with(']') && s.len() > i + 2)
                .map(|i| (&s[..i], &s[i + 1..s.len() - 1]))
                .filter(|(t, _)| !t.contains(['[', ']']));
            let Some((ty, title)) = parsed else {
                return Err(fail(format!(
                    "No title provided and {} is not a valid resource reference",
                    inspect_str(&s)
                )));
            };
            let ty = puppet_types::format::capitalize_segments(ty.trim_start_matches("::"));
            let cat = ctx.catalog().ok_or_else(|| {
                unsupported(
                    "stdlib::str2resource(): needs the catalog, which this call context does not provide".to_string(),
                )
            })?;
            if cat.resource(&ty, title).is_none() {
                return Err(fail(format!("stdlib::str2resource(): could not find {ty}[{title}], this is parse order dependent and values should not be quoted")));
            }
            Ok(Value::Type(Type::resource(Some(&ty), Some(title))))
        },
    )
}

// ---------------------------------------------------------------------------------------
// Collections and numbers

fn type_of(b: FunctionBuilder<'_>) -> FunctionBuilder<'_> {
    b.dispatch(
        Signature::new().param("Any", "value"),
        |_ctx: &mut dyn CallContext, a: Args<'_>| {
            Ok(Value::Type(puppet_types::infer_set(&a.get(0))))
        },
    )
}

fn try_get_value(ctx: &mut dyn CallContext, a: Vec<Value>) -> R {
    ctx.log(
        LogLevel::Warning,
        "try_get_value() DEPRECATED: this function is deprecated, please use dig() instead.",
    );
    let data = arg(&a, 0);
    let path = a.get(1).cloned().unwrap_or(Value::string(""));
    let default = arg(&a, 2);
    let empty_path = matches!(&path, Value::String(s) if s.is_empty());
    if !matches!(data, Value::Hash(_) | Value::Array(_)) || empty_path {
        return Ok(if truthy(&default) { default } else { data });
    }
    let sep = match a.get(3) {
        Some(v) if truthy(v) => to_s(v),
        _ => "/".to_string(),
    };
    let Value::String(p) = &path else {
        return Err(no_method("split", &path));
    };
    let mut parts: Vec<&str> = if sep.is_empty() {
        p.chars()
            .map(|c| {
                let i = p.find(c).unwrap_or(0);
                &p[i..i + c.len_utf8()]
            })
            .collect()
    } else {
        p.split(sep.as_str()).collect()
    };
    while parts.last() == Some(&"") {
        parts.pop();
    }
    let keys: Vec<Value> = parts
        .into_iter()
        .map(|k| {
            if some_line(k, all_digits) {
                Value::Integer(str_to_i(k))
            } else {
                Value::string(k)
            }
        })
        .collect();
    ctx.log(
        LogLevel::Warning,
        "dig() DEPRECATED: This function has been replaced in Puppet 4.5.0, please use dig44() for backwards compatibility or use the new version.",
    );
    let (dig44, _) = crate::stdlib_v3("dig44").ok_or_else(|| fail("no dig44"))?;
    dig44(ctx, vec![data, Value::array(keys), default])
}

fn delete_regex(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    if a.len() != 2 {
        return Err(fail(format!(
            "delete_regex(): Wrong number of arguments given {} for 2",
            a.len()
        )));
    }
    let mut collection = a[0].clone();
    for item in ruby_array(&a[1]) {
        let re = fancy_regex::Regex::new(&format!("\\b{}\\b", to_s(&item)))
            .map_err(|e| fail(e.to_string()))?;
        let hit = |v: &Value| match v {
            Value::String(s) => re.is_match(s).unwrap_or(false),
            _ => false,
        };
        collection = match &collection {
            Value::Array(x) => Value::array(x.iter().filter(|v| !hit(v)).cloned().collect()),
            Value::Hash(h) => Value::hash(
                h.iter()
                    .filter(|(k, _)| !hit(k))
                    .map(|(k, v)| (k.clone(), v.clone())),
            ),
            Value::String(_) => return Err(no_method("reject!", &collection)),
            other => {
                return Err(fail(format!(
                    "delete_regex(): First argument must be an Array, Hash, or String. Given an argument of class {}.",
                    class_name(other)
                )))
            }
        };
    }
    Ok(collection)
}

fn clamp(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    let mut args = Vec::new();
    for v in &a {
        flatten(v, &mut args);
    }
    if args.len() != 3 {
        return Err(fail(
            "clamp(): Wrong number of arguments, need three to clamp",
        ));
    }
    for v in &args {
        match v {
            Value::String(s) if !some_line(s, all_digits) => {
                return Err(fail(format!(
                    "clamp(): Required explicit numeric ({s}:String)"
                )))
            }
            Value::Hash(_) => {
                return Err(fail(format!(
                    "clamp(): The Hash type is not allowed ({})",
                    inspect(v)
                )))
            }
            _ => {}
        }
    }
    let mut nums = Vec::new();
    for v in &args {
        nums.push(match v {
            Value::Integer(i) => *i,
            Value::Float(f) => f.trunc() as i64,
            Value::String(s) => str_to_i(s),
            Value::Undef => 0,
            Value::Boolean(_) => return Err(no_method_hint("to_i", v)),
            other => return Err(no_method("to_i", other)),
        });
    }
    nums.sort_unstable();
    Ok(Value::Integer(nums[1]))
}

/// Ruby's `String#succ`.
fn succ(s: &str) -> String {
    let mut cs: Vec<char> = s.chars().collect();
    if cs.is_empty() {
        return String::new();
    }
    let alnum = |c: char| c.is_ascii_alphanumeric();
    let Some(mut i) = cs.iter().rposition(|&c| alnum(c)) else {
        let last = cs.len() - 1;
        cs[last] = char::from_u32(cs[last] as u32 + 1).unwrap_or(cs[last]);
        return cs.into_iter().collect();
    };
    loop {
        let (next, carry, fresh) = match cs[i] {
            'z' => ('a', true, 'a'),
            'Z' => ('A', true, 'A'),
            '9' => ('0', true, '1'),
            c => (char::from_u32(c as u32 + 1).unwrap_or(c), false, c),
        };
        cs[i] = next;
        if !carry {
            break;
        }
        match cs[..i].iter().rposition(|&c| alnum(c)) {
            Some(j) => i = j,
            None => {
                cs.insert(i, fresh);
                break;
            }
        }
    }
    cs.into_iter().collect()
}

/// Ruby's `(a..b).step(n)` over strings (`String#upto`), at most `limit` items.
fn string_range(a: &str, b: &str, exclusive: bool, step: usize, limit: usize) -> Vec<String> {
    let mut all = Vec::new();
    let ac: Vec<char> = a.chars().collect();
    let bc: Vec<char> = b.chars().collect();
    if ac.len() == 1 && bc.len() == 1 && ac[0].is_ascii() && bc[0].is_ascii() {
        let (x, y) = (ac[0] as u32, bc[0] as u32);
        let mut c = x;
        while c < y || (!exclusive && c == y) {
            all.push(char::from_u32(c).unwrap_or('?').to_string());
            c += 1;
        }
    } else {
        let ord = a.as_bytes().cmp(b.as_bytes());
        if ord == std::cmp::Ordering::Greater || (exclusive && ord == std::cmp::Ordering::Equal) {
            return all;
        }
        let after_end = succ(b);
        let mut current = a.to_string();
        while current != after_end && all.len() < limit * step.max(1) {
            let next = if exclusive || current != b {
                Some(succ(&current))
            } else {
                None
            };
            all.push(current.clone());
            let Some(n) = next else { break };
            current = n;
            if exclusive && current == b {
                break;
            }
            if current.chars().count() > b.chars().count() || current.is_empty() {
                break;
            }
        }
    }
    all.into_iter().step_by(step.max(1)).take(limit).collect()
}

fn value_to_i(v: &Value) -> Result<i64, CallError> {
    match v {
        Value::Integer(i) => Ok(*i),
        Value::Float(f) => Ok(f.trunc() as i64),
        Value::String(s) => Ok(str_to_i(s)),
        Value::Undef => Ok(0),
        Value::Boolean(_) => Err(no_method_hint("to_i", v)),
        other => Err(no_method("to_i", other)),
    }
}

fn range(_: &mut dyn CallContext, a: Vec<Value>) -> R {
    const LIMIT: usize = 1_000_000;
    if a.is_empty() {
        return Err(fail("range(): Wrong number of arguments given (0 for 1)"));
    }
    let (start, stop, step, exclusive);
    if a.len() > 1 {
        start = a[0].clone();
        stop = a[1].clone();
        step = match a.get(2) {
            None => 1,
            Some(v) => value_to_i(v)?.unsigned_abs(),
        };
        if step == 0 {
            return Err(fail(
                "range(): 3rd arg (step size) must be a non zero integer (e.g. 1 or -1)",
            ));
        }
        exclusive = false;
    } else {
        let Value::String(value) = &a[0] else {
            return Err(no_method("match", &a[0]));
        };
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let parsed = some_line_match(value, |l| {
            let first = l.find(|c: char| !word(c))?;
            if first == 0 {
                return None;
            }
            let (s, rest) = l.split_at(first);
            for (op, excl) in [("...", true), ("..", false), ("-", false)] {
                if let Some(t) = rest.strip_prefix(op) {
                    if !t.is_empty() && t.chars().all(word) {
                        return Some((s.to_string(), t.to_string(), excl));
                    }
                }
            }
            None
        });
        match parsed {
            Some((s, t, excl)) => {
                start = Value::string(s);
                stop = Value::string(t);
                exclusive = excl;
                step = 1;
            }
            None if some_line(value, |l| !l.is_empty()) => {
                return Err(fail(format!(
                    "range(): Unable to compute range from the value: {value}"
                )))
            }
            None => return Err(fail(format!("range(): Unknown range format: {value}"))),
        }
    }
    let step = step as usize;
    if some_line(&to_s(&start), all_digits) {
        let s = value_to_i(&start)?;
        let e = value_to_i(&stop)?;
        let end = if exclusive { e - 1 } else { e };
        let mut out = Vec::new();
        let mut i = s;
        while i <= end && out.len() < LIMIT {
            out.push(Value::Integer(i));
            i = match i.checked_add(step as i64) {
                Some(n) => n,
                None => break,
            };
        }
        return Ok(Value::array(out));
    }
    Ok(Value::array(
        string_range(&to_s(&start), &to_s(&stop), exclusive, step, LIMIT)
            .into_iter()
            .map(Value::string)
            .collect(),
    ))
}

/// The first line of `s` for which `f` gives a match.
fn some_line_match<T>(s: &str, f: impl Fn(&str) -> Option<T>) -> Option<T> {
    s.split('\n').find_map(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_string_helpers() {
        assert_eq!(succ("az"), "ba");
        assert_eq!(succ("zz"), "aaa");
        assert_eq!(succ("host09"), "host10");
        assert_eq!(succ("1.9"), "2.0");
        assert_eq!(str_to_f("1.5e2"), 150.0);
        assert_eq!(str_to_f("-"), 0.0);
        assert_eq!(file_extname("a.b/"), ".b");
        assert_eq!(file_extname(".profile"), "");
        assert_eq!(
            shellsplit("a \"b c\" d\\ e").unwrap(),
            vec!["a", "b c", "d e"]
        );
        assert_eq!(to_base(-5, 2), "-101");
    }
}
