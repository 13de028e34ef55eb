//! Puppet's environment and modules as module Ruby reaches them: `Puppet::Module.find(name,
//! env)` and its module objects (`path`, `name`, `file(f)`, `templates`, `metadata`...), the
//! environment's `module(name)`, `modules`, `modulepath`, `full_modulepath` and
//! `each_plugin_directory`, `Puppet.lookup(:environments).get(name)` and
//! `Puppet::Parser::Files.find_file`/`find_template`, after
//! puppet/module.rb and puppet/node/environment.rb of Puppet 7.23. What a module holds is
//! read through the [`SourceHost`](crate::SourceHost), so these reads stay inside the
//! environment's source like every other file read of Ruby code.

use crate::interp::{unsupported, Interp, R};
use crate::object::{Blk, Object};
use crate::source::PathKind;
use crate::value::{to_s, RHash, RValue};
use crate::Pos;
use std::rc::Rc;

/// A `Puppet::Module`: its name and directory.
#[derive(Debug)]
pub(crate) struct ModuleObj {
    name: String,
    path: String,
}

/// `Puppet.lookup(:environments)`: the environments the compile knows (its own).
#[derive(Debug)]
pub(crate) struct EnvironmentsObj;

/// The compile's environment name (`production` when the scope does not say).
fn env_name(it: &Interp) -> Option<String> {
    match it.scope.setting("environment") {
        Some(puppet_types::Value::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

/// `metadata.json` of a module directory: Puppet's `read_metadata` (`{}` when the file is
/// absent; a file that is not JSON is a warning and `{}`, as under `strict=warning`).
fn metadata(it: &mut Interp, path: &str, name: &str) -> RValue {
    let file = format!("{path}/metadata.json");
    let Some(text) = it.sources.host().read(&file) else {
        return RValue::hash(RHash::default());
    };
    match crate::json::parse_ruby(&text) {
        Ok(v @ RValue::Hash(_)) => v,
        Ok(_) => RValue::hash(RHash::default()),
        Err((_, e)) => {
            it.scope.log(
                "warning",
                &format!(
                    "{name} has an invalid and unparsable metadata.json file. The parse error: {e}"
                ),
            );
            RValue::hash(RHash::default())
        }
    }
}

fn hash_get(h: &RValue, key: &str) -> RValue {
    match h {
        RValue::Hash(h) => h
            .borrow()
            .get(&RValue::str(key))
            .cloned()
            .unwrap_or(RValue::Nil),
        _ => RValue::Nil,
    }
}

/// Why Puppet refuses to make a module of this directory (`load_metadata`: a non-empty
/// metadata.json must give source, author, version, license and an Array of dependencies).
fn metadata_problem(md: &RValue, name: &str) -> Option<String> {
    let RValue::Hash(h) = md else { return None };
    if h.borrow().map.is_empty() {
        return None;
    }
    for attr in ["source", "author", "version", "license", "dependencies"] {
        let v = hash_get(md, attr);
        if matches!(v, RValue::Nil) {
            return Some(format!("No {attr} module metadata provided for {name}"));
        }
        if attr == "dependencies" && !matches!(v, RValue::Array(_)) {
            return Some(format!("The value for the key dependencies in the file metadata.json of the module {name} must be an array, not: '{}'", to_s(&v)));
        }
    }
    None
}

/// The environment's modules that Puppet makes objects of: those whose metadata it
/// accepts (the others are logged, as `Puppet.log_exception` does, and left out).
fn env_modules(it: &mut Interp) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, path) in it.sources.host().modules() {
        let md = metadata(it, &path, &name);
        if let Some(problem) = metadata_problem(&md, &name) {
            it.scope.log("err", &problem);
            continue;
        }
        out.push((name, path));
    }
    out
}

fn module_object(it: &mut Interp, name: String, path: String) -> RValue {
    it.new_native("Puppet::Module", ModuleObj { name, path })
}

/// The environment's module `name` as a `Puppet::Module`, or nil.
fn find_module(it: &mut Interp, name: &RValue) -> RValue {
    let RValue::Str(s) = name else {
        return RValue::Nil;
    };
    let want = s.borrow().clone();
    match env_modules(it).into_iter().find(|(n, _)| *n == want) {
        Some((n, p)) => module_object(it, n, p),
        None => RValue::Nil,
    }
}

/// The environment named `name` (Puppet's `Environments#get!`): only the compile's own is
/// known here; another one is unsupported (Puppet would look in its environmentpath).
fn named_environment(it: &mut Interp, name: &RValue, pos: Pos) -> R {
    let want = to_s(name);
    match env_name(it) {
        Some(n) if n == want => crate::puppet::current_environment(it, pos),
        Some(_) => unsupported(
            format!("an environment other than the compile's ('{want}')"),
            pos,
        ),
        None => unsupported("the environments (no compile to ask)", pos),
    }
}

/// Class methods of `Puppet::Module`. `None`: not one of them.
/// `Puppet::Parser::Files.find_file(path, env)` and `find_template(path, env)`: an absolute
/// path as it is; `module/rest` as the module's `files/rest` (`templates/rest`) when it
/// exists, else nil; nil for a bare module name or a module the environment does not have
/// (Puppet's `find_in_module`). `env` is an environment object (only the compile's is made
/// here).
pub(crate) fn files_class_method(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let dir = match name {
        "find_file" => "files",
        "find_template" => "templates",
        _ => return None,
    };
    Some((|| {
        crate::methods::argc(args, 2, 2, pos)?;
        let path = to_s(&args[0]);
        // The environment is an environment object (the compile's: no other is made here);
        // Puppet calls its `module` only for a relative path.
        if !matches!(&args[1], RValue::Object(_)) && !path.starts_with('/') && !path.is_empty() {
            return crate::interp::raise(
                "NoMethodError",
                format!(
                    "undefined method `module' for {}:{}",
                    crate::value::inspect(&args[1]),
                    args[1].class_name()
                ),
                pos,
            );
        }
        if path.starts_with('/') {
            return Ok(RValue::string(path));
        }
        if path.is_empty() {
            return Ok(RValue::Nil);
        }
        // A bare module name names no file of it.
        let Some((module, rest)) = path.split_once('/') else {
            return Ok(RValue::Nil);
        };
        let Some((_, mpath)) = env_modules(it).into_iter().find(|(n, _)| n == module) else {
            return Ok(RValue::Nil);
        };
        let full = format!("{mpath}/{dir}/{rest}");
        Ok(if it.sources.host().kind(&full).is_some() {
            RValue::string(full)
        } else {
            RValue::Nil
        })
    })())
}

pub(crate) fn module_class_method(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "find" => (|| {
            crate::methods::argc(args, 1, 2, pos)?;
            if !args[0].truthy() {
                return Ok(RValue::Nil);
            }
            if let Some(env) = args.get(1).filter(|e| e.truthy()) {
                named_environment(it, env, pos)?;
            } else if env_name(it).is_none() {
                return unsupported("the current environment (no compile to ask)", pos);
            }
            Ok(find_module(it, &args[0]))
        })(),
        "is_module_directory_name?" => Ok(RValue::Bool(
            args.first().is_some_and(|a| is_module_name(&to_s(a))),
        )),
        "is_module_namespaced_name?" => Ok(RValue::Bool(args.first().is_some_and(|a| {
            let s = to_s(a);
            s.split_once('-').is_some_and(|(owner, m)| {
                !owner.is_empty()
                    && owner.chars().all(|c| c.is_ascii_alphanumeric())
                    && is_module_name(m)
            })
        }))),
        _ => return None,
    })
}

/// `/^[a-z][a-z0-9_]*$/` (a module's name, or a type name the autoloader looks up).
pub(crate) fn is_module_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_lowercase())
        && c.all(|x| x.is_ascii_lowercase() || x.is_ascii_digit() || x == '_')
}

/// Methods of the environment (`Puppet::Node::Environment`) beyond its name.
pub(crate) fn environment_method(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "module" => (|| {
            crate::methods::argc(args, 1, 1, pos)?;
            Ok(find_module(it, &args[0]))
        })(),
        "modules" => {
            let mods = env_modules(it);
            let v = mods
                .into_iter()
                .map(|(n, p)| module_object(it, n, p))
                .collect();
            Ok(RValue::array(v))
        }
        "full_modulepath" => Ok(RValue::array(
            it.sources
                .host()
                .modulepath()
                .into_iter()
                .map(RValue::string)
                .collect(),
        )),
        "modulepath" => {
            let host = it.sources.host();
            Ok(RValue::array(
                host.modulepath()
                    .into_iter()
                    .filter(|p| host.kind(p) == Some(PathKind::Directory))
                    .map(RValue::string)
                    .collect(),
            ))
        }
        "each_plugin_directory" => (|| {
            let Some(b) = block else {
                return unsupported("each_plugin_directory without a block", pos);
            };
            for (_, p) in env_modules(it) {
                let lib = format!("{p}/lib");
                if it.sources.host().kind(&lib) == Some(PathKind::Directory) {
                    it.call_block(b, vec![RValue::string(lib)], pos)?;
                }
            }
            Ok(RValue::Nil)
        })(),
        "==" | "eql?" => Ok(RValue::Bool(
            matches!(args.first(), Some(RValue::Object(o)) if crate::puppet::is_environment(o)),
        )),
        _ => return None,
    })
}

/// The module directory types of Puppet::Module (FILETYPES): method name and subdirectory.
const FILETYPES: &[(&str, &str)] = &[
    ("manifests", "manifests"),
    ("files", "files"),
    ("templates", "templates"),
    ("plugins", "lib"),
    ("pluginfacts", "facts.d"),
    ("locales", "locales"),
    ("scripts", "scripts"),
];

/// Methods of a `Puppet::Module` object. `None`: not one of them.
pub(crate) fn module_method(
    it: &mut Interp,
    o: &Rc<Object>,
    m: &ModuleObj,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let exists = |it: &Interp, p: &str| it.sources.host().kind(p).is_some();
    let sub = |d: &str| format!("{}/{d}", m.path);
    if let Some((_, dir)) = FILETYPES.iter().find(|(t, _)| *t == name) {
        return Some(Ok(RValue::string(sub(dir))));
    }
    if let Some((_, dir)) = FILETYPES
        .iter()
        .find(|(t, _)| name.strip_suffix('?') == Some(*t))
    {
        return Some(Ok(RValue::Bool(exists(it, &sub(dir)))));
    }
    if let Some((_, dir)) = FILETYPES
        .iter()
        .find(|(t, _)| t.strip_suffix('s') == Some(name))
    {
        return Some((|| {
            crate::methods::argc(args, 1, 1, pos)?;
            let full = match &args[0] {
                RValue::Nil => sub(dir),
                f => format!("{}/{}", sub(dir), to_s(f)),
            };
            Ok(if exists(it, &full) {
                RValue::string(full)
            } else {
                RValue::Nil
            })
        })());
    }
    let md = |it: &mut Interp| metadata(it, &m.path, &m.name);
    Some(match name {
        "name" => Ok(RValue::str(&m.name)),
        "path" => Ok(RValue::str(&m.path)),
        "to_s" => Ok(RValue::string(format!("Module {}({})", m.name, m.path))),
        // File.dirname(path)
        "modulepath" => Ok(RValue::string(
            match m.path.trim_end_matches('/').rsplit_once('/') {
                Some(("", _)) => "/".to_string(),
                Some((d, _)) => d.to_string(),
                None => ".".to_string(),
            },
        )),
        "environment" => crate::puppet::current_environment(it, pos),
        "plugin_directory" => Ok(RValue::string(sub("lib"))),
        "plugin_fact_directory" => Ok(RValue::string(sub("facts.d"))),
        "locale_directory" => Ok(RValue::string(sub("locales"))),
        "metadata_file" => Ok(RValue::string(sub("metadata.json"))),
        "hiera_conf_file" => Ok(RValue::string(sub("hiera.yaml"))),
        "license_file" => Ok(RValue::string(sub("License"))),
        "has_hiera_conf?" => Ok(RValue::Bool(exists(it, &sub("hiera.yaml")))),
        "metadata" | "read_metadata" => Ok(md(it)),
        "has_metadata?" => Ok(RValue::Bool(
            matches!(md(it), RValue::Hash(h) if !h.borrow().map.is_empty()),
        )),
        "source" | "author" | "version" | "license" | "dependencies" => Ok(hash_get(&md(it), name)),
        "forge_name" => Ok(match hash_get(&md(it), "name") {
            RValue::Nil => RValue::Nil,
            n => RValue::string(to_s(&n).replace('-', "/")),
        }),
        "summary" | "description" | "project_page" | "puppetversion" => Ok(RValue::Nil),
        "==" => Ok(RValue::Bool(match args.first() {
            Some(RValue::Object(x)) => crate::puppet::native::<ModuleObj>(x)
                .is_some_and(|x| x.name == m.name && x.path == m.path),
            _ => false,
        })),
        "tasks"
        | "plans"
        | "all_manifests"
        | "match_manifests"
        | "dependencies_as_modules"
        | "required_by"
        | "unmet_dependencies" => unsupported(format!("Puppet::Module#{name}"), pos),
        _ => {
            let _ = o;
            return None;
        }
    })
}

/// Methods of `Puppet.lookup(:environments)`.
pub(crate) fn environments_method(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "get" | "get!" => (|| {
            crate::methods::argc(args, 1, 1, pos)?;
            let want = to_s(&args[0]);
            match env_name(it) {
                Some(n) if n == want => crate::puppet::current_environment(it, pos),
                Some(_) if name == "get" => Ok(RValue::Nil),
                _ => named_environment(it, &args[0], pos),
            }
        })(),
        "list" => (|| {
            Ok(RValue::array(vec![crate::puppet::current_environment(
                it, pos,
            )?]))
        })(),
        _ => return None,
    })
}

/// `Puppet.lookup(:environments)`.
pub(crate) fn environments(it: &mut Interp, pos: Pos) -> R {
    if env_name(it).is_none() {
        return unsupported("the environments (no compile to ask)", pos);
    }
    Ok(it.new_native("Puppet::Environments::Cached", EnvironmentsObj))
}
