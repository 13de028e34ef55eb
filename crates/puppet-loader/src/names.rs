//! Name rules as pure functions: which file holds a name, and which names a file may hold.
//!
//! Names are `::` separated, case-insensitive and may start with `::` (which means "top
//! scope" and is dropped by [`canonical`]). These functions never touch a file system; the
//! [`Loader`](crate::Loader) and [`Index`](crate::Index) apply them to the files they read.
//!
//! | name | file (relative to the module directory) |
//! | --- | --- |
//! | `apache` | `manifests/init.pp` |
//! | `apache::mod` | `manifests/mod.pp` |
//! | `apache::mod::passenger` | `manifests/mod/passenger.pp` |
//! | function `apache::bool2httpd` | `functions/bool2httpd.pp` |
//! | function `apache::a::b` | `functions/a/b.pp` |
//! | function `environment::f` | `<environment>/functions/environment/f.pp` |
//! | function `f` (one segment) | `<environment>/functions/f.pp` |
//! | type `Apache::LogLevel` | `types/loglevel.pp` |
//! | type `Foo` (one segment) | `<environment>/types/foo.pp` |
//!
//! The environment is a module named `environment` whose loader is global (Puppet 7.23's
//! `ModuleLoaders::FileBased` for it): its files are found from the whole name, so
//! `environment::f` lies in `functions/environment/f.pp`, and only it can hold global
//! (one-segment) names. A module's files are found from the name after the module's.

use std::path::PathBuf;

/// The owner of a file a name maps to: a module (by name) or the environment directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Owner {
    Module(String),
    Environment,
}

/// A file a name maps to: its owner and the path relative to the owner's directory.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NamePath {
    pub owner: Owner,
    pub path: PathBuf,
}

impl NamePath {
    fn module(module: &str, parts: &[&str]) -> Self {
        NamePath {
            owner: Owner::Module(module.to_string()),
            path: parts.iter().collect(),
        }
    }
}

/// True for a valid name segment: an ASCII letter, then letters, digits or `_`
/// (Puppet's `CLASSREF_DECL` pattern, applied case-insensitively).
pub fn is_valid_segment(segment: &str) -> bool {
    let mut chars = segment.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// True when `name` is a valid module directory name (`^[a-z][a-z0-9_]*$`, Puppet's rule
/// for installed module directories).
///
/// ```
/// assert!(puppet_loader::names::is_valid_module_name("cron_core"));
/// assert!(!puppet_loader::names::is_valid_module_name("saz-rsyslog"));
/// ```
pub fn is_valid_module_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The canonical form of a class, define, function or type name: lower case, without a
/// leading `::`; `None` when a segment is empty or not a valid segment.
///
/// ```
/// use puppet_loader::names::canonical;
/// assert_eq!(canonical("::Apache::Mod").as_deref(), Some("apache::mod"));
/// assert_eq!(canonical("apache::"), None);
/// ```
pub fn canonical(name: &str) -> Option<String> {
    let trimmed = name.strip_prefix("::").unwrap_or(name);
    if trimmed.is_empty() {
        return None;
    }
    let lower = trimmed.to_ascii_lowercase();
    lower.split("::").all(is_valid_segment).then_some(lower)
}

/// The segments of a canonical name.
fn segments(canonical_name: &str) -> Vec<&str> {
    canonical_name.split("::").collect()
}

/// The manifest that holds class or defined type `name` by Puppet's naming rule.
///
/// ```
/// use puppet_loader::names::{manifest_path, Owner};
/// let p = manifest_path("Apache::Mod::Passenger").unwrap();
/// assert_eq!(p.owner, Owner::Module("apache".into()));
/// assert_eq!(p.path, std::path::Path::new("manifests/mod/passenger.pp"));
/// ```
pub fn manifest_path(name: &str) -> Option<NamePath> {
    let name = canonical(name)?;
    let segs = segments(&name);
    Some(manifest_path_for(&segs))
}

fn manifest_path_for(segs: &[&str]) -> NamePath {
    if segs.len() == 1 {
        return NamePath::module(segs[0], &["manifests", "init.pp"]);
    }
    let mut parts = vec!["manifests"];
    parts.extend_from_slice(&segs[1..segs.len() - 1]);
    let file = format!("{}.pp", segs[segs.len() - 1]);
    let mut p = NamePath::module(segs[0], &parts);
    p.path.push(file);
    p
}

/// Every manifest that may hold class or defined type `name`, general to specific: the
/// module's `init.pp`, then the file of each enclosing namespace, then the name's own file
/// (RFC 1, solution II). The first file that defines the name wins.
///
/// ```
/// use puppet_loader::names::autoload_candidates;
/// let c: Vec<_> = autoload_candidates("a::b::c").iter().map(|p| p.path.clone()).collect();
/// assert_eq!(c, ["manifests/init.pp", "manifests/b.pp", "manifests/b/c.pp"]
///     .map(std::path::PathBuf::from));
/// ```
pub fn autoload_candidates(name: &str) -> Vec<NamePath> {
    let Some(name) = canonical(name) else {
        return Vec::new();
    };
    let segs = segments(&name);
    (1..=segs.len())
        .map(|n| manifest_path_for(&segs[..n]))
        .collect()
}

/// The file of Puppet-language function `name`: `<module>/functions/<rest>.pp` for
/// `<module>::<rest>`; in the environment, `functions/<name>.pp` for a global
/// (one-segment) name and `functions/environment/<rest>.pp` for `environment::<rest>`.
///
/// ```
/// use puppet_loader::names::{function_path, Owner};
/// let p = function_path("environment::hello").unwrap();
/// assert_eq!((p.owner, p.path), (Owner::Environment, "functions/environment/hello.pp".into()));
/// let p = function_path("hello").unwrap();
/// assert_eq!((p.owner, p.path), (Owner::Environment, "functions/hello.pp".into()));
/// ```
pub fn function_path(name: &str) -> Option<NamePath> {
    namespaced_path(name, "functions")
}

/// The file of type alias `name` (any case): `<module>/types/<rest>.pp` for
/// `<Module>::<Rest>`, and `<environment>/types/<name>.pp` for a one-segment name.
///
/// ```
/// use puppet_loader::names::{type_alias_path, Owner};
/// let p = type_alias_path("Stdlib::Compat::Re").unwrap();
/// assert_eq!(p.owner, Owner::Module("stdlib".into()));
/// assert_eq!(p.path, std::path::Path::new("types/compat/re.pp"));
/// ```
pub fn type_alias_path(name: &str) -> Option<NamePath> {
    namespaced_path(name, "types")
}

/// The file of `name` under `dir` of its owner: the environment's (global names and
/// `environment::` ones, found from the whole name) or a module's (found from the name
/// after the module's).
fn namespaced_path(name: &str, dir: &str) -> Option<NamePath> {
    let canon = canonical(name)?;
    let segs = segments(&canon);
    let (owner, rest) = match segs.as_slice() {
        [] => return None,
        [_] | ["environment", ..] => (Owner::Environment, &segs[..]),
        [module, rest @ ..] => (Owner::Module(module.to_string()), rest),
    };
    let (last, dirs) = rest.split_last()?;
    let mut path = PathBuf::from(dir);
    for s in dirs {
        path.push(s);
    }
    path.push(format!("{last}.pp"));
    Some(NamePath { owner, path })
}

/// What Puppet's validator requires of the definitions in a file, from the file's path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileNamespace {
    /// Not an autoloaded location (outside the module path, or the main manifest): no rule.
    Free,
    /// Definitions' lower-cased names must start with this string (Puppet compares strings,
    /// so `apache::modx` is accepted in `apache/manifests/mod.pp`), and only definitions
    /// may appear at the top.
    Namespace(String),
    /// Inside the module path but not in `manifests/`, `functions/`, `types/` or `plans/`
    /// (for example `examples/`): every definition and every top-level statement is refused.
    BadModuleFile,
}

/// Puppet's rule for a `.pp` file at `relative` (path components below the module path
/// directory, first the module directory name): `apache/manifests/mod/passenger.pp` gives
/// `apache::mod::passenger`, `apache/manifests/init.pp` gives `apache`,
/// `apache/examples/init.pp` is a bad module file. Case-insensitive.
///
/// ```
/// use puppet_loader::names::{namespace_for_relative_path, FileNamespace};
/// assert_eq!(namespace_for_relative_path(&["apache", "manifests", "mod", "passenger.pp"]),
///            FileNamespace::Namespace("apache::mod::passenger".into()));
/// assert_eq!(namespace_for_relative_path(&["apache", "examples", "init.pp"]),
///            FileNamespace::BadModuleFile);
/// ```
pub fn namespace_for_relative_path(relative: &[&str]) -> FileNamespace {
    let Some(last) = relative.last() else {
        return FileNamespace::Free;
    };
    let bytes = last.as_bytes();
    let ext = bytes.len().checked_sub(3).map(|i| &bytes[i..]);
    if !ext.is_some_and(|e| e.eq_ignore_ascii_case(b".pp")) {
        return FileNamespace::Free;
    }
    let lower: Vec<String> = relative.iter().map(|s| s.to_ascii_lowercase()).collect();
    let dir = lower.get(1).map(String::as_str);
    if !matches!(dir, Some("manifests" | "functions" | "types" | "plans")) || lower.len() < 3 {
        return FileNamespace::BadModuleFile;
    }
    let mut names: Vec<&str> = vec![&lower[0]];
    names.extend(lower[2..lower.len() - 1].iter().map(String::as_str));
    let file = &lower[lower.len() - 1];
    if !(lower.len() == 3 && file == "init.pp") {
        names.push(&file[..file.len() - 3]);
    }
    FileNamespace::Namespace(names.join("::"))
}

/// Puppet 3's relative lookup: the names tried for reference `name` made inside namespace
/// `namespace` (the enclosing class or define; empty at top scope), most specific first.
/// A leading `::` forces the top-level name only.
///
/// ```
/// use puppet_loader::names::relative_candidates;
/// assert_eq!(relative_candidates("a::b", "c::d"), ["a::b::c::d", "a::c::d", "c::d"]);
/// assert_eq!(relative_candidates("a::b", "::c"), ["c"]);
/// ```
pub fn relative_candidates(namespace: &str, name: &str) -> Vec<String> {
    let Some(canon) = canonical(name) else {
        return Vec::new();
    };
    if name.starts_with("::") {
        return vec![canon];
    }
    let ns = canonical(namespace).unwrap_or_default();
    let mut out = Vec::new();
    let mut parts: Vec<&str> = if ns.is_empty() {
        Vec::new()
    } else {
        ns.split("::").collect()
    };
    while !parts.is_empty() {
        out.push(format!("{}::{}", parts.join("::"), canon));
        parts.pop();
    }
    out.push(canon);
    out
}
