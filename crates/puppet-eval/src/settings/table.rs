//! Puppet 7.23's settings as a server compiling as root sees them: the table behind
//! `$settings::x`, `$settings::all_local`, `Puppet[:x]` and `Puppet.settings[:x]`, and how a
//! value is found (an override, the compile, an alias, the default), interpolated
//! (`$confdir/ssl`) and munged by the setting's kind (`30m` for a duration is 1800).
//!
//! The data, `puppet-7.23-server.jsonl`, is Puppet's own answer, written by
//! `scripts/gen-settings-table.py` (see its header); this module reads it once.

use super::Settings;
use puppet_types::Value;
use smol_str::SmolStr;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The data file, one setting a line, in Puppet's order (`$settings::all_local`'s).
pub(crate) const DATA: &str = include_str!("puppet-7.23-server.jsonl");

/// How Puppet munges a setting's value: its setting class (`DirectorySetting` is
/// `Directory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    String,
    Boolean,
    Integer,
    Port,
    Duration,
    Ttl,
    Array,
    Path,
    File,
    Directory,
    FileOrDirectory,
    Enum,
    SymbolicEnum,
    Priority,
    CertificateRevocation,
    ServerList,
    HttpExtraHeaders,
    Autosign,
    Terminus,
    Alias,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "string" => Kind::String,
            "boolean" => Kind::Boolean,
            "integer" => Kind::Integer,
            "port" => Kind::Port,
            "duration" => Kind::Duration,
            "ttl" => Kind::Ttl,
            "array" => Kind::Array,
            "path" => Kind::Path,
            "file" => Kind::File,
            "directory" => Kind::Directory,
            "file_or_directory" => Kind::FileOrDirectory,
            "enum" => Kind::Enum,
            "symbolic_enum" => Kind::SymbolicEnum,
            "priority" => Kind::Priority,
            "certificate_revocation" => Kind::CertificateRevocation,
            "server_list" => Kind::ServerList,
            "http_extra_headers" => Kind::HttpExtraHeaders,
            "autosign" => Kind::Autosign,
            "terminus" => Kind::Terminus,
            "alias" => Kind::Alias,
            _ => return None,
        })
    }

    /// Whether Ruby sees the value as a Symbol (`Puppet[:strict]` is `:warning`); manifests
    /// see its name. Ruby keeps its own list (`puppet_ruby::SYMBOL_SETTINGS`); a test
    /// checks it against this.
    #[cfg(test)]
    pub(crate) fn is_symbol(self) -> bool {
        matches!(
            self,
            Kind::SymbolicEnum | Kind::Terminus | Kind::CertificateRevocation
        )
    }
}

/// Where the compile, not the table, gives a setting's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum From {
    /// `certname`: the node name.
    Node,
    /// `srv_domain`: the node name's domain.
    NodeDomain,
    /// `environment`: the compile's environment.
    Environment,
    /// `strict_variables`: [`Settings::strict_variables`].
    StrictVariables,
    /// `modulepath`: the environment's module path.
    Modulepath,
    /// `manifest`: the environment's main manifest (`no_manifest` when none).
    Manifest,
    /// `code`: empty.
    Code,
    /// `environmentpath`: the directory holding the environment's directory, when the
    /// compile read one under the environment's name (else the default).
    EnvironmentPath,
}

/// A value before interpolation and munging, as Puppet looks it up.
#[derive(Debug, Clone, PartialEq)]
enum Raw {
    Nil,
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<Raw>),
}

impl Raw {
    fn from_json(v: &serde_json::Value) -> Option<Raw> {
        Some(match v {
            serde_json::Value::Null => Raw::Nil,
            serde_json::Value::Bool(b) => Raw::Bool(*b),
            serde_json::Value::Number(n) => Raw::Int(n.as_i64()?),
            serde_json::Value::String(s) => Raw::Str(s.clone()),
            serde_json::Value::Array(a) => {
                Raw::List(a.iter().map(Raw::from_json).collect::<Option<_>>()?)
            }
            serde_json::Value::Object(_) => return None,
        })
    }
}

/// One setting.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) name: SmolStr,
    pub(crate) kind: Kind,
    default: Raw,
    /// The allowed values of an enum.
    values: Vec<String>,
    alias_for: Option<usize>,
    from: Option<From>,
}

/// The settings, in Puppet's order.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub(crate) entries: Vec<Entry>,
    index: HashMap<SmolStr, usize>,
}

/// The table (read from [`DATA`] on first use).
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse(DATA).unwrap_or_default())
}

/// Reads the data file; `None` when a line is not what the generator writes.
pub(crate) fn parse(data: &str) -> Option<Table> {
    let mut t = Table::default();
    let mut aliases = Vec::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let name = SmolStr::new(v.get("name")?.as_str()?);
        let kind = Kind::parse(v.get("kind")?.as_str()?)?;
        let default = Raw::from_json(v.get("default")?)?;
        let values = match v.get("values") {
            Some(a) => (a.as_array()?.iter())
                .map(|s| s.as_str().map(str::to_string))
                .collect::<Option<_>>()?,
            None => Vec::new(),
        };
        let from = match v.get("from").map(|f| f.as_str()) {
            None => None,
            Some(Some("node")) => Some(From::Node),
            Some(Some("node_domain")) => Some(From::NodeDomain),
            Some(Some("environment")) => Some(From::Environment),
            Some(Some("strict_variables")) => Some(From::StrictVariables),
            Some(Some("modulepath")) => Some(From::Modulepath),
            Some(Some("manifest")) => Some(From::Manifest),
            Some(Some("code")) => Some(From::Code),
            Some(Some("environmentpath")) => Some(From::EnvironmentPath),
            Some(_) => return None,
        };
        if let Some(a) = v.get("alias_for") {
            aliases.push((t.entries.len(), a.as_str()?.to_string()));
        }
        t.index.insert(name.clone(), t.entries.len());
        t.entries.push(Entry {
            name,
            kind,
            default,
            values,
            alias_for: None,
            from,
        });
    }
    for (i, target) in aliases {
        let j = *t.index.get(target.as_str())?;
        t.entries[i].alias_for = Some(j);
    }
    Some(t)
}

/// What a compile adds to the settings: its environment's module path, main manifest and
/// where its directory lies.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvPaths {
    /// The module path's directories joined by `:`.
    pub(crate) modulepath: String,
    /// The main manifest; `None`: Puppet's `no_manifest`.
    pub(crate) manifest: Option<String>,
    /// The directory holding the environment's directory when that is named after the
    /// environment (a Puppet server finds `<environmentpath>/<name>`); `None`: the default.
    pub(crate) environmentpath: Option<String>,
}

/// Interpolation deeper than this is a cycle (`confdir=$vardir`, `vardir=$confdir`).
const MAX_DEPTH: usize = 32;

impl Table {
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The value of setting `i` as Puppet has it (Ruby's `Puppet[:name]`; manifests see a
    /// Symbol as its name, which is what this gives).
    pub(crate) fn value(&self, s: &Settings, env: &EnvPaths, i: usize) -> Result<Value, String> {
        self.resolve(s, env, i, 0)
    }

    /// `$settings::all_local`: every setting's value, in Puppet's order (a setting that
    /// cannot be resolved is `undef`).
    pub(crate) fn all(&self, s: &Settings, env: &EnvPaths) -> Value {
        Value::hash((0..self.entries.len()).map(|i| {
            (
                Value::string(self.entries[i].name.as_str()),
                self.value(s, env, i).unwrap_or(Value::Undef),
            )
        }))
    }

    /// The value before interpolation: an override, else what the compile gives, else an
    /// alias's target, else the default.
    fn lookup(&self, s: &Settings, env: &EnvPaths, i: usize) -> Raw {
        let e = &self.entries[i];
        if let Some(v) = s.overrides.get(e.name.as_str()) {
            return Raw::Str(v.clone());
        }
        match e.from {
            Some(From::Node) => return Raw::Str(s.node_name.clone()),
            Some(From::NodeDomain) => {
                return match s.node_name.split_once('.') {
                    Some((_, d)) if !d.is_empty() => Raw::Str(d.to_string()),
                    _ => Raw::Nil,
                }
            }
            Some(From::Environment) => return Raw::Str(s.environment.clone()),
            Some(From::StrictVariables) => return Raw::Bool(s.strict_variables),
            Some(From::Modulepath) => return Raw::Str(env.modulepath.clone()),
            Some(From::Manifest) => {
                return Raw::Str(env.manifest.clone().unwrap_or_else(|| "no_manifest".into()))
            }
            Some(From::Code) => return Raw::Str(String::new()),
            Some(From::EnvironmentPath) => {
                if let Some(p) = &env.environmentpath {
                    return Raw::Str(p.clone());
                }
            }
            None => {}
        }
        if let Some(j) = e.alias_for {
            return self.lookup(s, env, j);
        }
        e.default.clone()
    }

    fn resolve(
        &self,
        s: &Settings,
        env: &EnvPaths,
        i: usize,
        depth: usize,
    ) -> Result<Value, String> {
        let e = &self.entries[i];
        let mut raw = self.lookup(s, env, i);
        if let Raw::Str(text) = &raw {
            if e.name != "code" && text.contains('$') {
                raw = Raw::Str(
                    self.interpolate(s, env, &e.name, text, depth)
                        .map_err(|m| {
                            format!("Error converting value for param '{}': {m}", e.name)
                        })?,
                );
            }
        }
        let kind_of = match e.alias_for {
            Some(j) => &self.entries[j],
            None => e,
        };
        munge(kind_of, &e.name, raw)
    }

    /// Puppet's `$name` / `${name}` interpolation of a setting's text: `$run_mode` is
    /// `server`, `$environment` the compile's environment in `config_version` only (left as
    /// it is elsewhere, as Puppet does with directory environments), any other name the
    /// value of that setting.
    fn interpolate(
        &self,
        s: &Settings,
        env: &EnvPaths,
        setting: &str,
        text: &str,
        depth: usize,
    ) -> Result<String, String> {
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        while let Some(off) = text[at..].find('$') {
            let start = at + off;
            out.push_str(&text[at..start]);
            let (name, end) = if bytes.get(start + 1) == Some(&b'{') {
                let n = bytes[start + 2..].iter().take_while(|b| word(**b)).count();
                if n > 0 && bytes.get(start + 2 + n) == Some(&b'}') {
                    (&text[start + 2..start + 2 + n], start + 3 + n)
                } else {
                    ("", start + 1)
                }
            } else {
                let n = bytes[start + 1..].iter().take_while(|b| word(**b)).count();
                (&text[start + 1..start + 1 + n], start + 1 + n)
            };
            if name.is_empty() {
                out.push('$');
                at = start + 1;
                continue;
            }
            let expr = &text[start..end];
            match name {
                "environment" if setting == "config_version" => out.push_str(&s.environment),
                "environment" => out.push_str(expr),
                "run_mode" => out.push_str("server"),
                _ => {
                    let missing = || format!("Could not find value for {expr}");
                    let j = self.get(name).ok_or_else(missing)?;
                    if depth >= MAX_DEPTH {
                        return Err(format!("{expr} refers back to itself"));
                    }
                    let v = self.resolve(s, env, j, depth + 1)?;
                    if v == Value::Undef {
                        return Err(missing());
                    }
                    ruby_to_s(&v, &mut out);
                }
            }
            at = end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }
}

/// Ruby's `to_s` of a setting's value, as interpolation inserts it.
fn ruby_to_s(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => out.push_str(s),
        Value::Float(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" })
        }
        Value::Array(a) => {
            out.push('[');
            for (n, e) in a.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                match e {
                    Value::String(s) => {
                        out.push('"');
                        out.push_str(s);
                        out.push('"');
                    }
                    Value::Undef => out.push_str("nil"),
                    other => ruby_to_s(other, out),
                }
            }
            out.push(']');
        }
        Value::Undef => {}
        other => out.push_str(&other.to_string()),
    }
}

/// Ruby's `inspect` of a raw value, for messages.
fn inspect(raw: &Raw) -> String {
    match raw {
        Raw::Nil => "nil".into(),
        Raw::Bool(b) => b.to_string(),
        Raw::Int(n) => n.to_string(),
        Raw::Str(s) => format!("{s:?}"),
        Raw::List(l) => format!("[{}]", l.iter().map(inspect).collect::<Vec<_>>().join(", ")),
    }
}

fn plain(raw: Raw) -> Value {
    match raw {
        Raw::Nil => Value::Undef,
        Raw::Bool(b) => Value::Boolean(b),
        Raw::Int(n) => Value::Integer(n),
        Raw::Str(s) => Value::string(s),
        Raw::List(l) => Value::array(l.into_iter().map(plain).collect()),
    }
}

/// Ruby's `File.expand_path` of an absolute path (`.`, `..`, repeated and trailing `/`
/// removed); other paths are left as they are (Puppet makes them absolute against the
/// server's working directory, which a compile does not have).
fn expand_path(p: &str) -> String {
    if !p.starts_with('/') {
        return p.to_string();
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Ruby's `Integer(text)` for the decimal and `0x` forms (with `_` between digits).
fn ruby_integer(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = match t.get(..2) {
        Some("0x" | "0X") => (16, &t[2..]),
        _ => (10, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let n = i64::from_str_radix(&digits.replace('_', ""), radix).ok()?;
    Some(if neg { -n } else { n })
}

/// `^(\d+)(y|d|h|m|s)?$`: a duration in seconds.
fn duration(text: &str) -> Option<i64> {
    let n = text.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let unit = match &text[n..] {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "y" => 365 * 86_400,
        _ => return None,
    };
    text[..n].parse::<i64>().ok()?.checked_mul(unit)
}

/// Ruby's `split(/\s*,\s*/)`: white space around each comma goes, trailing empty fields
/// are dropped.
fn split_commas(text: &str) -> Vec<String> {
    let fields: Vec<&str> = text.split(',').collect();
    let last = fields.len() - 1;
    let mut v: Vec<String> = (fields.iter().enumerate())
        .map(|(i, f)| {
            let f = if i > 0 { f.trim_start() } else { f };
            let f = if i < last { f.trim_end() } else { f };
            f.to_string()
        })
        .collect();
    while v.last().is_some_and(String::is_empty) {
        v.pop();
    }
    v
}

/// Puppet's munging of a setting's (interpolated) value by its kind.
fn munge(e: &Entry, name: &str, raw: Raw) -> Result<Value, String> {
    let text = match &raw {
        Raw::Str(s) => Some(s.as_str()),
        _ => None,
    };
    Ok(match e.kind {
        Kind::String | Kind::Alias => plain(raw),
        Kind::Boolean => match (&raw, text) {
            (Raw::Bool(b), _) => Value::Boolean(*b),
            (_, Some("true")) => Value::Boolean(true),
            (_, Some("false")) => Value::Boolean(false),
            _ => {
                return Err(format!(
                    "Invalid value '{}' for boolean parameter: {name}",
                    inspect(&raw)
                ))
            }
        },
        Kind::Integer | Kind::Port => {
            let n = match (&raw, text) {
                (Raw::Int(n), _) => Some(*n),
                (_, Some(t)) => ruby_integer(t),
                _ => None,
            };
            let Some(n) = n else {
                return Err(format!(
                    "Cannot convert '{}' to an integer for parameter: {name}",
                    inspect(&raw)
                ));
            };
            if e.kind == Kind::Port && !(0..=65535).contains(&n) {
                return Err(format!(
                    "Value '{n}' is not a valid port number for parameter: {name}"
                ));
            }
            Value::Integer(n)
        }
        Kind::Duration => match (&raw, text.and_then(duration)) {
            (Raw::Int(n), _) => Value::Integer(*n),
            (Raw::Nil, _) => Value::Undef,
            (_, Some(n)) => Value::Integer(n),
            _ => {
                return Err(format!(
                    "Invalid duration format '{}' for parameter: {name}",
                    inspect(&raw)
                ))
            }
        },
        Kind::Ttl => match (&raw, text) {
            (Raw::Int(n), _) if *n >= 0 => Value::Integer(*n),
            (Raw::Int(n), _) => {
                return Err(format!(
                    "Invalid negative 'time to live' {n} - did you mean 'unlimited'?"
                ))
            }
            (_, Some("unlimited")) => Value::Float(f64::INFINITY),
            (_, Some(t)) if duration(t).is_some() => Value::Integer(duration(t).unwrap_or(0)),
            _ => {
                return Err(format!(
                    "Invalid 'time to live' format '{}' for parameter: {name}",
                    inspect(&raw)
                ))
            }
        },
        Kind::Array => match raw {
            Raw::Str(s) => Value::array(split_commas(&s).into_iter().map(Value::string).collect()),
            Raw::List(_) => plain(raw),
            other => {
                return Err(format!(
                    "Expected an Array or String, got a {}",
                    ruby_class(&other)
                ))
            }
        },
        Kind::ServerList | Kind::HttpExtraHeaders => {
            let items = match raw {
                Raw::Str(s) => split_commas(&s).into_iter().map(Raw::Str).collect(),
                Raw::List(l) => l,
                other => {
                    return Err(format!(
                        "Expected an Array or String, got a {}",
                        ruby_class(&other)
                    ))
                }
            };
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(match item {
                    Raw::Str(s) => Value::array(
                        ruby_split_colon(&s).into_iter().map(Value::string).collect(),
                    ),
                    l @ Raw::List(_) => plain(l),
                    other => {
                        return Err(format!(
                            "Expected an Array of String, got a {}",
                            ruby_class(&other)
                        ))
                    }
                });
            }
            Value::array(out)
        }
        Kind::Path => match text {
            Some(t) => Value::string(
                ruby_split_colon(t)
                    .iter()
                    .map(|d| expand_path(d))
                    .collect::<Vec<_>>()
                    .join(":"),
            ),
            None => plain(raw),
        },
        Kind::File | Kind::Directory | Kind::FileOrDirectory => match text {
            Some(t) if t != ":memory:" => Value::string(expand_path(t)),
            _ => plain(raw),
        },
        Kind::Enum | Kind::SymbolicEnum => {
            let t = text.map(str::to_string).unwrap_or_else(|| inspect(&raw));
            if !e.values.contains(&t) {
                return Err(format!(
                    "Invalid value '{t}' for parameter {name}. Allowed values are '{}'",
                    e.values.join("', '")
                ));
            }
            Value::string(t)
        }
        Kind::Priority => match (&raw, text) {
            (Raw::Nil | Raw::Bool(false), _) => Value::Undef,
            (Raw::Int(n), _) => Value::Integer(*n),
            (_, Some(t)) if t.bytes().any(|b| b.is_ascii_digit()) => {
                // Ruby's `to_i`: the leading digits, 0 when there are none.
                let n = t.trim_start();
                let (neg, n) = match n.strip_prefix('-') {
                    Some(r) => (true, r),
                    None => (false, n.strip_prefix('+').unwrap_or(n)),
                };
                let d: String = n.chars().take_while(char::is_ascii_digit).collect();
                let v = d.parse::<i64>().unwrap_or(0);
                Value::Integer(if neg { -v } else { v })
            }
            (_, Some("high")) => Value::Integer(-10),
            (_, Some("normal")) => Value::Integer(0),
            (_, Some("low")) => Value::Integer(10),
            (_, Some("idle")) => Value::Integer(19),
            _ => {
                return Err(format!(
                    "Invalid priority format '{}' for parameter: {name}",
                    inspect(&raw)
                ))
            }
        },
        Kind::CertificateRevocation => match (&raw, text) {
            (Raw::Bool(true), _) | (_, Some("chain" | "true")) => Value::string("chain"),
            (_, Some("leaf")) => Value::string("leaf"),
            (Raw::Bool(false) | Raw::Nil, _) | (_, Some("false")) => Value::Boolean(false),
            _ => {
                return Err(format!(
                    "Invalid certificate revocation value {}: must be one of 'true', 'chain', 'leaf', or 'false'",
                    text.map(str::to_string).unwrap_or_else(|| inspect(&raw))
                ))
            }
        },
        Kind::Autosign => match (&raw, text) {
            (Raw::Bool(b), _) => Value::Boolean(*b),
            (_, Some("true")) => Value::Boolean(true),
            (Raw::Nil, _) | (_, Some("false")) => Value::Boolean(false),
            (_, Some(t)) if t.starts_with('/') => Value::string(t),
            _ => {
                return Err(format!(
                    "Invalid autosign value {}: must be 'true'/'false' or an absolute path",
                    text.map(str::to_string).unwrap_or_else(|| inspect(&raw))
                ))
            }
        },
        Kind::Terminus => match (&raw, text) {
            (Raw::Nil, _) | (_, Some("")) => Value::Undef,
            (_, Some(t)) => Value::string(t),
            _ => return Err(format!("Invalid terminus setting: {}", inspect(&raw))),
        },
    })
}

/// Ruby's `split(':')` (trailing empty fields dropped).
fn ruby_split_colon(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split(':').map(str::to_string).collect();
    while v.last().is_some_and(String::is_empty) {
        v.pop();
    }
    v
}

fn ruby_class(raw: &Raw) -> &'static str {
    match raw {
        Raw::Nil => "NilClass",
        Raw::Bool(true) => "TrueClass",
        Raw::Bool(false) => "FalseClass",
        Raw::Int(_) => "Integer",
        Raw::Str(_) => "String",
        Raw::List(_) => "Array",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_follow_ruby() {
        assert_eq!(expand_path("/a//b/./c/../d/"), "/a/b/d");
        assert_eq!(expand_path("/"), "/");
        assert_eq!(expand_path("rel/x"), "rel/x");
        assert_eq!(split_commas("a, b ,c"), vec!["a", "b", "c"]);
        assert_eq!(split_commas(""), Vec::<String>::new());
        assert_eq!(split_commas("a,,"), vec!["a"]);
        assert_eq!(ruby_split_colon("h:8140"), vec!["h", "8140"]);
        assert_eq!(duration("30m"), Some(1800));
        assert_eq!(duration("1y"), Some(31_536_000));
        assert_eq!(duration("m"), None);
        assert_eq!(ruby_integer(" 0x1f "), Some(31));
        assert_eq!(ruby_integer("1_000"), Some(1000));
        assert_eq!(ruby_integer("1x"), None);
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn the_data_reads() {
        let t = parse(DATA).expect("the settings table parses");
        assert_eq!(t.entries.len(), DATA.lines().count());
        assert_eq!(t.entries[0].name, "confdir");
        let serverport = t.get("serverport").unwrap();
        assert_eq!(t.entries[serverport].alias_for, t.get("masterport"));
    }

    #[test]
    fn ruby_knows_which_settings_are_symbols() {
        let t = table();
        let symbols: Vec<&str> = (t.entries.iter())
            .filter(|e| e.kind.is_symbol())
            .map(|e| e.name.as_str())
            .collect();
        let mut ruby = puppet_ruby::SYMBOL_SETTINGS.to_vec();
        let mut ours = symbols.clone();
        ruby.sort_unstable();
        ours.sort_unstable();
        assert_eq!(ruby, ours);
    }
}
