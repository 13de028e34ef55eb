//! The reader of `puppet generate types` output: the files
//! `<environment>/.resource_types/<name>.pp`, each holding one
//! `Puppet::Resource::ResourceType3.new(name, properties, parameters,
//! title_patterns, isomorphic, capability)` expression in the Puppet
//! language. Attribute kinds, namevars, `Enum[...]` value lists, title
//! patterns and the isomorphic flag are read from it.

use smol_str::SmolStr;

use crate::model::{
    AttrKind, Attribute, Diagnostic, ResourceTypeInfo, Severity, TitlePattern, TypeSource,
};

/// A value of the small Puppet expression language the generated files use.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Str(String),
    Regex(String),
    Bool(bool),
    Num(String),
    /// `Name` or `Name[args]` (a type or `Puppet::Resource::Param(...)` call).
    Name(String, Vec<Val>),
    Call(String, Vec<Val>),
    Array(Vec<Val>),
    Hash(Vec<(Val, Val)>),
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    src: &'a str,
}

type PResult<T> = Result<T, String>;

impl P<'_> {
    fn line(&self) -> u32 {
        let upto = self.i.min(self.s.len());
        1 + self.s[..upto].iter().filter(|b| **b == b'\n').count() as u32
    }

    fn ws(&mut self) {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b' ' | b'\t' | b'\r' | b'\n' => self.i += 1,
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i.min(self.s.len())..].starts_with(t.as_bytes()) {
            self.i += t.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &str) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(format!("expected `{t}`"))
        }
    }

    fn list(&mut self, close: &str, depth: usize) -> PResult<Vec<Val>> {
        let mut out = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(out);
            }
            out.push(self.val(depth + 1)?);
            if !self.eat(",") {
                self.expect(close)?;
                return Ok(out);
            }
        }
    }

    fn string(&mut self, q: u8) -> PResult<String> {
        let mut out = String::new();
        let start = self.i;
        let mut raw = Vec::new();
        while self.i < self.s.len() {
            let c = self.s[self.i];
            self.i += 1;
            if c == b'\\' && self.i < self.s.len() {
                let n = self.s[self.i];
                self.i += 1;
                match (q, n) {
                    (_, b'\\') => raw.push(b'\\'),
                    (b'\'', b'\'') | (b'"', b'"') => raw.push(n),
                    (b'"', b'n') => raw.push(b'\n'),
                    (b'"', b't') => raw.push(b'\t'),
                    (b'"', b'$') => raw.push(b'$'),
                    _ => {
                        raw.push(b'\\');
                        raw.push(n);
                    }
                }
                continue;
            }
            if c == q {
                out.push_str(&String::from_utf8_lossy(&raw));
                return Ok(out);
            }
            raw.push(c);
        }
        self.i = start;
        Err("unterminated string".into())
    }

    fn val(&mut self, depth: usize) -> PResult<Val> {
        if depth > 64 {
            return Err("nesting too deep".into());
        }
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return Err("unexpected end".into());
        };
        match c {
            b'\'' | b'"' => {
                self.i += 1;
                Ok(Val::Str(self.string(c)?))
            }
            b'/' => {
                self.i += 1;
                let mut raw = Vec::new();
                while self.i < self.s.len() && self.s[self.i] != b'/' {
                    if self.s[self.i] == b'\\' && self.s.get(self.i + 1) == Some(&b'/') {
                        raw.push(b'/');
                        self.i += 2;
                        continue;
                    }
                    if self.s[self.i] == b'\\' && self.i + 1 < self.s.len() {
                        raw.push(b'\\');
                        self.i += 1;
                    }
                    raw.push(self.s[self.i]);
                    self.i += 1;
                }
                if self.i >= self.s.len() {
                    return Err("unterminated regex".into());
                }
                self.i += 1;
                Ok(Val::Regex(String::from_utf8_lossy(&raw).into_owned()))
            }
            b'[' => {
                self.i += 1;
                Ok(Val::Array(self.list("]", depth)?))
            }
            b'{' => {
                self.i += 1;
                let mut out = Vec::new();
                loop {
                    if self.eat("}") {
                        break;
                    }
                    let k = self.val(depth + 1)?;
                    self.expect("=>")?;
                    let v = self.val(depth + 1)?;
                    out.push((k, v));
                    if !self.eat(",") {
                        self.expect("}")?;
                        break;
                    }
                }
                Ok(Val::Hash(out))
            }
            b'-' | b'0'..=b'9' => {
                let start = self.i;
                self.i += 1;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'.')
                {
                    self.i += 1;
                }
                Ok(Val::Num(self.src[start..self.i].to_string()))
            }
            c if c.is_ascii_alphabetic() || c == b':' || c == b'_' => {
                let start = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric()
                        || self.s[self.i] == b'_'
                        || self.s[self.i] == b':'
                        || self.s[self.i] == b'.')
                {
                    self.i += 1;
                }
                let name = self.src[start..self.i].to_string();
                match name.as_str() {
                    "true" => return Ok(Val::Bool(true)),
                    "false" => return Ok(Val::Bool(false)),
                    _ => {}
                }
                if self.s.get(self.i) == Some(&b'(') {
                    self.i += 1;
                    let args = self.list(")", depth)?;
                    return Ok(Val::Call(name, args));
                }
                if self.s.get(self.i) == Some(&b'[') {
                    self.i += 1;
                    let args = self.list("]", depth)?;
                    return Ok(Val::Name(name, args));
                }
                Ok(Val::Name(name, Vec::new()))
            }
            _ => Err(format!("unexpected `{}`", c as char)),
        }
    }
}

/// The `Enum[...]` strings of a parameter type (also inside `Optional[...]`).
fn enum_values(t: &Val) -> Option<Vec<SmolStr>> {
    match t {
        Val::Name(n, args) if n == "Enum" => args
            .iter()
            .map(|a| match a {
                Val::Str(s) => Some(SmolStr::new(s)),
                _ => None,
            })
            .collect(),
        Val::Name(n, args) if n == "Optional" && args.len() == 1 => enum_values(&args[0]),
        _ => None,
    }
}

fn attrs(list: &Val, kind: AttrKind, info: &mut ResourceTypeInfo) -> PResult<()> {
    let Val::Array(items) = list else {
        return Err("attribute list is not an array".into());
    };
    for it in items {
        let Val::Call(f, args) = it else {
            return Err("attribute is not `Puppet::Resource::Param(...)`".into());
        };
        if !f.ends_with("Param") {
            return Err(format!("unexpected `{f}(...)`"));
        }
        let (ty, name, nv) = match args.as_slice() {
            [ty, Val::Str(n)] => (ty, n, false),
            [ty, Val::Str(n), Val::Bool(b)] => (ty, n, *b),
            _ => return Err(format!("unexpected arguments of `{f}`")),
        };
        let mut a = Attribute::new(name, kind);
        a.is_namevar = nv;
        a.values = enum_values(ty);
        info.attributes.insert(SmolStr::new(name), a);
    }
    Ok(())
}

fn regex_parts(src: &str) -> (String, bool, bool, bool) {
    // Ruby's Regexp#to_s form `(?m-ix:...)` when Puppet printed one.
    if let Some(rest) = src.strip_prefix("(?") {
        if let Some(colon) = rest.find(':') {
            let flags = &rest[..colon];
            if src.ends_with(')') && flags.chars().all(|c| "mix-".contains(c)) {
                let on = flags.split('-').next().unwrap_or("");
                let inner = &rest[colon + 1..rest.len() - 1];
                return (
                    inner.to_string(),
                    on.contains('m'),
                    on.contains('i'),
                    on.contains('x'),
                );
            }
        }
    }
    (src.to_string(), false, false, false)
}

fn build(v: Val, path: &str, module: &str) -> PResult<ResourceTypeInfo> {
    let Val::Call(f, args) = v else {
        return Err("not a `Puppet::Resource::ResourceType3.new(...)` expression".into());
    };
    if !f.ends_with("ResourceType3.new") {
        return Err(format!("unexpected `{f}(...)`"));
    }
    let [name, props, params, patterns, iso, ..] = args.as_slice() else {
        return Err("`ResourceType3.new` needs at least 5 arguments".into());
    };
    let Val::Str(name) = name else {
        return Err("type name is not a string".into());
    };
    let mut info = ResourceTypeInfo::new(
        name,
        TypeSource::Generated {
            module: SmolStr::new(module),
            path: path.to_string(),
        },
    );
    attrs(params, AttrKind::Parameter, &mut info)?;
    attrs(props, AttrKind::Property, &mut info)?;
    info.recompute_namevars();
    let Val::Hash(pats) = patterns else {
        return Err("title patterns are not a hash".into());
    };
    for (re, caps) in pats {
        let (Val::Regex(re), Val::Array(caps)) = (re, caps) else {
            return Err("title pattern is not `/regex/ => [names]`".into());
        };
        let (regex, multiline, ignore_case, extended) = regex_parts(re);
        let captures = caps
            .iter()
            .map(|c| match c {
                Val::Str(s) => Ok(SmolStr::new(s)),
                _ => Err("title pattern capture is not a string".to_string()),
            })
            .collect::<PResult<Vec<_>>>()?;
        info.title_patterns.push(TitlePattern {
            regex: SmolStr::new(regex),
            multiline,
            ignore_case,
            extended,
            captures,
        });
    }
    info.isomorphic = !matches!(iso, Val::Bool(false));
    Ok(info)
}

/// Reads one `puppet generate types` file (`.resource_types/<name>.pp`).
///
/// ```
/// let src = "Puppet::Resource::ResourceType3.new(\n  'sshkey',\n  [\n    Puppet::Resource::Param(Enum['present', 'absent'], 'ensure'),\n    Puppet::Resource::Param(Any, 'key')\n  ],\n  [\n    Puppet::Resource::Param(Any, 'type', true),\n    Puppet::Resource::Param(Any, 'name', true)\n  ],\n  {\n    /^(.*?)@(.*)$/ => ['name', 'type'],\n    /^([^@]+)$/ => ['name']\n  },\n  true,\n  false)\n";
/// let t = puppet_restypes::parse_generated_type(src, ".resource_types/sshkey.pp").unwrap();
/// assert_eq!(t.namevars, ["type", "name"]);
/// assert_eq!(t.attributes["ensure"].values.as_deref().unwrap(), ["present", "absent"]);
/// assert_eq!(t.title_patterns[0].captures, ["name", "type"]);
/// ```
pub fn parse_generated_type(source: &str, path: &str) -> Result<ResourceTypeInfo, Diagnostic> {
    parse_generated_type_in(source, path, "")
}

pub(crate) fn parse_generated_type_in(
    source: &str,
    path: &str,
    module: &str,
) -> Result<ResourceTypeInfo, Diagnostic> {
    let mut p = P {
        s: source.as_bytes(),
        i: 0,
        src: source,
    };
    let res = p.val(0).and_then(|v| {
        p.ws();
        if p.i < p.s.len() {
            return Err("unexpected text after the expression".into());
        }
        build(v, path, module)
    });
    res.map_err(|message| Diagnostic {
        severity: Severity::Error,
        code: SmolStr::new("RESTYPE_GENERATED"),
        path: path.to_string(),
        line: p.line(),
        message: format!("cannot read `puppet generate types` output: {message}"),
    })
}
