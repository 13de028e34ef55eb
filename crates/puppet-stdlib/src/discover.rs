//! Discovery of a module's Ruby functions from the text of its `.rb` files.
//!
//! The caller reads the files (`lib/puppet/functions/**/*.rb` for the 4.x API, namespaced by
//! path; `lib/puppet/parser/functions/*.rb` for the 3.x API) and passes (path, source) pairs;
//! this module only reads text. It finds the function name, the API, and for 4.x functions the
//! `dispatch` blocks with their parameter types, so that the native implementations can be
//! checked against the Ruby signatures. When a module defines a name in both APIs, the 4.x
//! definition wins, as in Puppet 7.23. It does not evaluate Ruby: a dispatch built by Ruby
//! code rather than the DSL is not seen.

/// The function API a Ruby file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Api {
    /// `Puppet::Parser::Functions.newfunction` (3.x): one array of arguments.
    V3,
    /// `Puppet::Functions.create_function` (4.x): typed dispatch.
    V4,
}

/// How a 4.x dispatch parameter takes its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RubyParamKind {
    /// `param` / `required_param`.
    Required,
    /// `optional_param`.
    Optional,
    /// `repeated_param`.
    Repeated,
    /// `required_repeated_param`.
    RequiredRepeated,
    /// `block_param`.
    Block,
    /// `optional_block_param`.
    OptionalBlock,
}

/// One parameter of a `dispatch` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RubyParam {
    /// How it takes arguments.
    pub kind: RubyParamKind,
    /// The type text (`Callable` for a block parameter without a type).
    pub ty: String,
    /// The parameter name (without `:`).
    pub name: String,
}

/// One `dispatch :method do ... end` (or `argument_mismatch`) block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RubyDispatch {
    /// The Ruby method it dispatches to.
    pub method: String,
    /// True for an `argument_mismatch` block.
    pub argument_mismatch: bool,
    /// True when the block declares `scope_param` (an internal function).
    pub scope_param: bool,
    /// The parameters in order.
    pub params: Vec<RubyParam>,
    /// The `return_type` text.
    pub return_type: Option<String>,
}

/// A Ruby function found in a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RubyFunction {
    /// The function name, lower case, namespaced for 4.x functions under a folder.
    pub name: String,
    /// The module it belongs to.
    pub module: String,
    /// The API.
    pub api: Api,
    /// The file, as the caller named it.
    pub file: String,
    /// The 4.x dispatches in declaration order (empty for 3.x functions and for 4.x
    /// functions that define a method of their name only, which Puppet dispatches as
    /// `repeated_param 'Any'`).
    pub dispatches: Vec<RubyDispatch>,
    /// The 3.x `arity` option (`-1`, the default, when absent); `None` for 4.x functions.
    pub arity: Option<i64>,
    /// The 3.x `type` option: true for `:rvalue`, false for `:statement` (the default).
    pub rvalue: bool,
    /// Notable Ruby APIs the source uses (`scope_param`, `call_function`, `lookupvar`,
    /// `catalog`, `findresource`, `function_<name>`...), sorted.
    pub uses: Vec<String>,
}

/// Where a file lies: `Some((api, name from path))` for function files.
fn classify(path: &str) -> Option<(Api, String)> {
    let p = path.replace('\\', "/");
    let stem = p.strip_suffix(".rb")?;
    if let Some(i) = stem.find("lib/puppet/parser/functions/") {
        let rest = &stem[i + "lib/puppet/parser/functions/".len()..];
        return (!rest.is_empty() && !rest.contains('/')).then(|| (Api::V3, rest.to_lowercase()));
    }
    if let Some(i) = stem.find("lib/puppet/functions/") {
        let rest = &stem[i + "lib/puppet/functions/".len()..];
        return (!rest.is_empty()).then(|| (Api::V4, rest.replace('/', "::").to_lowercase()));
    }
    None
}

/// The first symbol or quoted name after `marker` (`:name`, `:'ns::name'`, `"name"`).
fn name_after(src: &str, marker: &str) -> Option<String> {
    let i = src.find(marker)?;
    let rest = src[i + marker.len()..].trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let rest = rest.trim_start_matches(['\'', '"']);
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    (!name.is_empty()).then(|| name.to_lowercase())
}

/// The value of a 3.x option (`arity: -2`, `:arity => 1`, `type: :rvalue`).
fn option_after<'a>(header: &'a str, option: &str) -> Option<&'a str> {
    for pat in [
        format!("{option}:"),
        format!(":{option} =>"),
        format!(":{option}=>"),
    ] {
        if let Some(i) = header.find(&pat) {
            let rest = header[i + pat.len()..].trim_start();
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == ':' || c == '_'))
                .unwrap_or(rest.len());
            return Some(&rest[..end]);
        }
    }
    None
}

/// A quoted Ruby string at the start of `s`: (content, rest).
fn quoted(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in s[1..].char_indices() {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == q {
            return Some((out, &s[1 + i + 1..]));
        } else {
            out.push(c);
        }
    }
    None
}

/// A Ruby symbol `:name` at the start of `s`.
fn symbol(s: &str) -> Option<String> {
    let s = s.trim_start().trim_start_matches(',').trim_start();
    let s = s.strip_prefix(':')?;
    let name: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Reads the `dispatch` / `argument_mismatch` blocks of a 4.x source.
fn dispatches(src: &str) -> Vec<RubyDispatch> {
    let mut out = Vec::new();
    let mut current: Option<RubyDispatch> = None;
    // A quoted type may span lines (stdlib's `to_json_pretty` has a multi-line `Struct`):
    // such lines are joined into one logical line.
    let mut logical: Vec<String> = Vec::new();
    let mut open = false;
    for raw in src.lines() {
        if open {
            if let Some(last) = logical.last_mut() {
                last.push('\n');
                last.push_str(raw);
            }
        } else {
            logical.push(raw.to_string());
        }
        let code = raw.split(" #").next().unwrap_or(raw);
        if !code.trim_start().starts_with('#') && code.matches('\'').count() % 2 == 1 {
            open = !open;
        }
    }
    for raw in &logical {
        let raw = raw.as_str();
        let line = raw.split(" #").next().unwrap_or(raw).trim();
        if line.starts_with('#') {
            continue;
        }
        let head = |kw: &str| {
            line.strip_prefix(kw)
                .filter(|r| r.starts_with(' ') || r.starts_with('('))
                .map(|r| r.trim_start_matches('(').trim_start())
        };
        if let Some(rest) = head("dispatch").or_else(|| head("argument_mismatch")) {
            if let Some(d) = current.take() {
                out.push(d);
            }
            current = Some(RubyDispatch {
                method: symbol(rest).unwrap_or_default(),
                argument_mismatch: line.starts_with("argument_mismatch"),
                ..RubyDispatch::default()
            });
            continue;
        }
        let Some(d) = current.as_mut() else { continue };
        if line == "end" {
            out.extend(current.take());
            continue;
        }
        if line == "scope_param" || line.starts_with("scope_param ") {
            d.scope_param = true;
            continue;
        }
        let kinds = [
            ("required_repeated_param", RubyParamKind::RequiredRepeated),
            ("optional_block_param", RubyParamKind::OptionalBlock),
            ("repeated_param", RubyParamKind::Repeated),
            ("optional_param", RubyParamKind::Optional),
            ("required_param", RubyParamKind::Required),
            ("block_param", RubyParamKind::Block),
            ("param", RubyParamKind::Required),
        ];
        if let Some(rest) = head("return_type") {
            d.return_type = quoted(rest).map(|(t, _)| t);
            continue;
        }
        for (kw, kind) in kinds {
            let Some(rest) = head(kw).or_else(|| (line == kw).then_some("")) else {
                continue;
            };
            let block = matches!(kind, RubyParamKind::Block | RubyParamKind::OptionalBlock);
            let (ty, after) = match quoted(rest) {
                Some((t, after)) => (t, after),
                None if block => ("Callable".to_string(), rest),
                None => break,
            };
            let name = symbol(after).unwrap_or_else(|| "block".into());
            d.params.push(RubyParam { kind, ty, name });
            break;
        }
    }
    out.extend(current);
    out
}

fn uses(src: &str) -> Vec<String> {
    let mut out: Vec<String> = [
        "scope_param",
        "call_function",
        "closure_scope",
        "lookupvar",
        "catalog",
        "findresource",
        "function_create_resources",
        "Puppet.warning",
        "deprecation",
        "File.",
        "Facter",
    ]
    .iter()
    .filter(|k| src.contains(**k))
    .map(|k| k.trim_end_matches('.').to_string())
    .collect();
    let mut rest = src;
    while let Some(i) = rest.find("function_") {
        let name: String = rest[i + 9..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let before = rest[..i].chars().last();
        if !name.is_empty()
            && name != "create_resources"
            && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            out.push(format!("function_{name}"));
        }
        rest = &rest[i + 9..];
    }
    out.sort();
    out.dedup();
    out
}

/// Lists the Ruby functions of `module` from its files, given as (path, source text).
///
/// Paths are matched on their `lib/puppet/functions/` or `lib/puppet/parser/functions/`
/// part; other files are ignored. One entry per name: a 4.x definition replaces a 3.x one.
/// The result is sorted by name.
///
/// ```
/// use puppet_stdlib::{discover_ruby_functions, Api};
/// let files = vec![
///     ("lib/puppet/functions/mymod/twice.rb".to_string(),
///      "Puppet::Functions.create_function(:'mymod::twice') do\n  dispatch :twice do\n    param 'Integer', :x\n  end\nend\n".to_string()),
///     ("lib/puppet/parser/functions/old.rb".to_string(),
///      "module Puppet::Parser::Functions\n  newfunction(:old, type: :rvalue, arity: 1) do |args|\n  end\nend\n".to_string()),
/// ];
/// let found = discover_ruby_functions("mymod", &files);
/// assert_eq!(found[0].name, "mymod::twice");
/// assert_eq!(found[0].dispatches[0].params[0].ty, "Integer");
/// assert_eq!((found[1].api, found[1].arity, found[1].rvalue), (Api::V3, Some(1), true));
/// ```
pub fn discover_ruby_functions(module: &str, files: &[(String, String)]) -> Vec<RubyFunction> {
    let mut found: Vec<RubyFunction> = Vec::new();
    let mut sorted: Vec<&(String, String)> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, src) in sorted {
        let Some((api, path_name)) = classify(path) else {
            continue;
        };
        let f = match api {
            Api::V4 => {
                if !src.contains("create_function") {
                    continue;
                }
                let name = name_after(src, "create_function(").unwrap_or(path_name);
                RubyFunction {
                    name,
                    module: module.to_string(),
                    api,
                    file: path.clone(),
                    dispatches: dispatches(src),
                    arity: None,
                    rvalue: true,
                    uses: uses(src),
                }
            }
            Api::V3 => {
                let Some(i) = src.find("newfunction(") else {
                    continue;
                };
                let name = name_after(&src[i..], "newfunction(").unwrap_or(path_name);
                let header_end = src[i..]
                    .find("doc:")
                    .or_else(|| src[i..].find(":doc"))
                    .or_else(|| src[i..].find(") do"))
                    .map_or(src.len(), |e| i + e);
                let header = &src[i..header_end];
                let arity = option_after(header, "arity")
                    .and_then(|a| a.parse::<i64>().ok())
                    .unwrap_or(-1);
                let rvalue = option_after(header, "type").is_some_and(|t| t == ":rvalue");
                RubyFunction {
                    name,
                    module: module.to_string(),
                    api,
                    file: path.clone(),
                    dispatches: Vec::new(),
                    arity: Some(arity),
                    rvalue,
                    uses: uses(src),
                }
            }
        };
        match found.iter_mut().find(|g| g.name == f.name) {
            Some(g) if g.api == Api::V4 && f.api == Api::V3 => {}
            Some(g) => *g = f,
            None => found.push(f),
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_x_wins_and_dispatches_parse() {
        let v4 = r#"
Puppet::Functions.create_function(:merge) do
  dispatch :merge2hashes do
    repeated_param 'Variant[Hash[Scalar,Any], Undef, String[0,0]]', :args # compat
    return_type 'Hash[Scalar,Any]'
  end
  dispatch :merge_iterable3 do
    repeated_param 'Iterable', :args
    block_param 'Callable[3,3]', :block
  end
  argument_mismatch :oops do
    param 'String', :x
  end
  def merge2hashes(*h); end
end
"#;
        let v3 = "module Puppet::Parser::Functions\n newfunction(:merge, :type => :rvalue) do |args|\n end\nend";
        let files = vec![
            (
                "m/lib/puppet/parser/functions/merge.rb".to_string(),
                v3.to_string(),
            ),
            (
                "m/lib/puppet/functions/merge.rb".to_string(),
                v4.to_string(),
            ),
        ];
        let f = discover_ruby_functions("stdlib", &files);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].api, Api::V4);
        assert_eq!(f[0].dispatches.len(), 3);
        assert_eq!(
            f[0].dispatches[0].params[0].ty,
            "Variant[Hash[Scalar,Any], Undef, String[0,0]]"
        );
        assert_eq!(
            f[0].dispatches[0].return_type.as_deref(),
            Some("Hash[Scalar,Any]")
        );
        assert_eq!(f[0].dispatches[1].params[1].kind, RubyParamKind::Block);
        assert!(f[0].dispatches[2].argument_mismatch);
    }

    #[test]
    fn garbage_is_ignored() {
        let files = vec![
            (
                "lib/puppet/functions/x.rb".to_string(),
                "create_function(".to_string(),
            ),
            (
                "lib/puppet/parser/functions/y.rb".to_string(),
                "newfunction(".to_string(),
            ),
            ("README.md".to_string(), "newfunction(:z)".to_string()),
        ];
        let f = discover_ruby_functions("m", &files);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].name, "x");
        assert_eq!(f[1].name, "y");
    }
}
