//! Introspection of the functions an environment can call, for tools (a language server, a
//! `describe`-like listing): every name with where it comes from, its signatures in Puppet's
//! `signature_string` form and its documentation text. See [`Environment::functions`].
//!
//! This lists; it does not call. Signatures come from the same places a call binds against
//! (the registry's dispatches, the loaded Ruby function, a Puppet function's parameters);
//! where none exists yet (the evaluator's own built-ins, a Ruby file puppet-ruby cannot
//! load) they are `None`, never made up.

use super::Environment;
use crate::lower::FunctionDef;
use puppet_functions::{Function, Registry};
use std::collections::BTreeMap;

/// Where a function visible in an environment comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FunctionOrigin {
    /// Registered by the embedder ([`Session::functions`](crate::Session::functions)).
    Custom,
    /// A built-in of puppet-functions' registry (those bound to the compiler included).
    BuiltIn,
    /// A module's Ruby function replaced by puppet-stdlib's native implementation.
    Native {
        /// The module whose function it implements.
        module: String,
    },
    /// A module's Ruby function file, run by puppet-ruby.
    Ruby {
        /// The module.
        module: String,
        /// The file, relative to the module (`lib/puppet/functions/...rb` or
        /// `lib/puppet/parser/functions/...rb`).
        file: String,
    },
    /// A function written in Puppet (`functions/*.pp` of a module or the environment, or
    /// the main manifest).
    Puppet {
        /// The file that defines it, as Puppet prints it in messages.
        file: String,
    },
}

impl std::fmt::Display for FunctionOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FunctionOrigin::Custom => f.write_str("custom"),
            FunctionOrigin::BuiltIn => f.write_str("built-in"),
            FunctionOrigin::Native { module } => write!(f, "native: {module}"),
            FunctionOrigin::Ruby { module, file } => write!(f, "ruby: {module}/{file}"),
            FunctionOrigin::Puppet { file } => write!(f, "puppet: {file}"),
        }
    }
}

/// One function of [`Environment::functions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionInfo {
    /// The name a call uses (lower case, namespaced for module and Puppet functions).
    pub name: String,
    pub origin: FunctionOrigin,
    /// Puppet's `signature_string` of each dispatch, in dispatch order; `None` where no
    /// signature is known (a Ruby file puppet-ruby cannot load).
    pub signatures: Option<Vec<String>>,
    /// The documentation text (empty when there is none).
    pub doc: String,
}

impl FunctionInfo {
    fn of(name: &str, origin: FunctionOrigin, f: &Function) -> FunctionInfo {
        FunctionInfo {
            name: name.to_string(),
            origin,
            signatures: Some(signatures(f)),
            doc: f.doc().to_string(),
        }
    }
}

/// A registry function's signatures (argument-mismatch dispatches left out, as Puppet
/// leaves them out of its "expects one of" text).
fn signatures(f: &Function) -> Vec<String> {
    f.dispatches()
        .iter()
        .filter(|d| !d.is_argument_mismatch())
        .map(|d| d.signature_string())
        .collect()
}

impl Environment {
    /// Every function a call in this environment can reach, sorted by name, each as the
    /// call would find it: Puppet-language functions first, then the embedder's functions,
    /// the registry's built-ins, then the modules' Ruby
    /// functions (in module path order; a native implementation wins over the Ruby file).
    /// Loads every module's functions (Ruby files through puppet-ruby).
    ///
    /// ```
    /// use puppet_eval::{FunctionOrigin, Session};
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/m/web/functions/url.pp", "function web::url(String $host, Integer $port = 80) { \"http://${host}:${port}\" }");
    /// let env = Session::new().files(files).modulepath(["/m"]).load().unwrap();
    /// let all = env.functions();
    /// let url = all.iter().find(|f| f.name == "web::url").unwrap();
    /// assert_eq!(url.origin, FunctionOrigin::Puppet { file: "/m/web/functions/url.pp".into() });
    /// assert_eq!(url.signatures, Some(vec!["String host, Integer port?".to_string()]));
    /// let join = all.iter().find(|f| f.name == "join").unwrap();
    /// assert_eq!(join.origin, FunctionOrigin::BuiltIn);
    /// assert_eq!(join.signatures.as_ref().unwrap()[0], "Array arg, String delimiter?");
    /// let include = all.iter().find(|f| f.name == "include").unwrap();
    /// assert_eq!((&include.origin, &include.signatures), (&FunctionOrigin::BuiltIn, &Some(vec!["Any names+".to_string()])));
    /// ```
    pub fn functions(&self) -> Vec<FunctionInfo> {
        let mut out: BTreeMap<String, FunctionInfo> = BTreeMap::new();
        let defs = self.all_puppet_functions();
        // Parameter types are evaluated as a compile of this environment would, with no
        // scope of its own.
        let mut compiler = (!defs.is_empty()).then(|| {
            let env = std::sync::Arc::new(self.with_main_code(None, ""));
            crate::Compiler::new(env, crate::Settings::default())
        });
        for def in defs {
            let file = def.span.file.path.clone().unwrap_or_default();
            out.entry(def.name.to_string())
                .or_insert_with(|| FunctionInfo {
                    name: def.name.to_string(),
                    origin: FunctionOrigin::Puppet { file },
                    signatures: compiler.as_mut().map(|c| vec![puppet_signature(c, &def)]),
                    doc: String::new(),
                });
        }
        let registries = [
            (self.shared.custom.as_deref(), FunctionOrigin::Custom),
            (
                Some(puppet_functions::builtins::registry()),
                FunctionOrigin::BuiltIn,
            ),
        ];
        for (reg, origin) in registries {
            for f in reg.into_iter().flat_map(Registry::functions) {
                out.entry(f.name().to_string())
                    .or_insert_with(|| FunctionInfo::of(f.name(), origin.clone(), f));
            }
        }
        let files = self.ruby_files();
        for (module, found) in &files.by_module {
            for n in puppet_stdlib::natives()
                .iter()
                .filter(|n| n.module == module)
            {
                if out.contains_key(n.name) {
                    continue;
                }
                // As a call resolves it: the native for the file it was checked against.
                let stands_in = self.shared.natives_for_any_version
                    || found
                        .get(n.name)
                        .is_some_and(|rel| self.module_file_is_verified(module, n.name, rel));
                if !stands_in {
                    continue;
                }
                let origin = FunctionOrigin::Native {
                    module: module.to_string(),
                };
                let info = match puppet_stdlib::native_function(n) {
                    Some(f) => FunctionInfo::of(n.name, origin, &f),
                    None => FunctionInfo {
                        name: n.name.to_string(),
                        origin,
                        signatures: None,
                        doc: String::new(),
                    },
                };
                out.insert(n.name.to_string(), info);
            }
            let mut names: Vec<(&String, &String)> = found.iter().collect();
            names.sort();
            for (name, rel) in names {
                if out.contains_key(name.as_str()) {
                    continue;
                }
                let origin = FunctionOrigin::Ruby {
                    module: module.to_string(),
                    file: rel.clone(),
                };
                let info = match self.ruby_function(module, name, rel) {
                    Some(f) => FunctionInfo::of(name, origin, &f),
                    None => FunctionInfo {
                        name: name.clone(),
                        origin,
                        signatures: None,
                        doc: String::new(),
                    },
                };
                out.insert(name.clone(), info);
            }
        }
        out.into_values().collect()
    }

    /// The Puppet-language functions of the main manifest, then of the environment's and
    /// the modules' `functions` directories (each file loaded; a file that does not define
    /// the function its path names is left out, as a call would not find it).
    fn all_puppet_functions(&self) -> Vec<std::sync::Arc<FunctionDef>> {
        let mut out: Vec<_> = self.main_functions.values().cloned().collect();
        let loader = &self.shared.loader;
        let provider = &**loader.provider();
        let mut dirs: Vec<(String, std::path::PathBuf)> = Vec::new();
        if let Some(dir) = &loader.config().env_dir {
            dirs.push(("environment".into(), dir.clone()));
        }
        for m in loader.modules() {
            dirs.push((m.name.to_string(), m.path.clone()));
        }
        for (namespace, dir) in dirs {
            for rel in super::list_tree(provider, &dir, "functions", 16) {
                let Some(stem) = rel
                    .strip_prefix("functions/")
                    .and_then(|r| r.strip_suffix(".pp"))
                else {
                    continue;
                };
                // The environment's names are its whole paths (`environment/f` is
                // `environment::f`, `f` the global `f`); a module's start with its name.
                let name = match namespace.as_str() {
                    "environment" => stem.replace('/', "::"),
                    m => format!("{m}::{}", stem.replace('/', "::")),
                }
                .to_ascii_lowercase();
                if let Some(def) = self.puppet_function(&name) {
                    out.push(def);
                }
            }
        }
        out
    }
}

/// A Puppet-language function's signature as Puppet prints it: each parameter's declared
/// type (`Any` when none; evaluated by `compiler`, so that the environment's type aliases
/// print by name) and name, `?` for one with a default, `*` for a captures-rest one; a last
/// `Callable` parameter is the block. When a type cannot be evaluated (an unknown alias, a
/// malformed type), the parameters are shown as written.
fn puppet_signature(compiler: &mut crate::Compiler, def: &FunctionDef) -> String {
    let top = compiler.top;
    let mut params = Vec::new();
    let mut evaluated = true;
    for p in &def.params {
        let ty = match &p.type_expr {
            None => Some(puppet_types::Type::Any),
            Some(t) => match compiler.eval(t, top) {
                Ok(puppet_types::Value::Type(ty)) => Some(ty),
                _ => None,
            },
        };
        match ty {
            Some(ty) => params.push((p.name.clone(), ty, p.default.is_some(), p.captures_rest)),
            None => evaluated = false,
        }
    }
    if !evaluated {
        return def
            .params
            .iter()
            .map(|p| {
                let text = match &p.type_expr {
                    Some(t) => {
                        let raw = t
                            .span
                            .file
                            .text
                            .get(t.span.start as usize..t.span.end as usize)
                            .unwrap_or("Any");
                        raw.split_whitespace().collect::<Vec<_>>().join(" ")
                    }
                    None => "Any".to_string(),
                };
                let mark = match (p.captures_rest, p.default.is_some()) {
                    (true, _) => "*",
                    (false, true) => "?",
                    (false, false) => "",
                };
                format!("{text} {}{mark}", p.name)
            })
            .collect::<Vec<_>>()
            .join(", ");
    }
    let sig = puppet_functions::puppet_signature(&params, None);
    let mut reg = Registry::new();
    let registered = reg
        .function("f")
        .dispatch(sig, |_ctx, _args| Ok(puppet_types::Value::Undef))
        .register();
    match (registered, reg.get("f")) {
        (Ok(()), Some(f)) => f
            .dispatches()
            .first()
            .map(|d| d.signature_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}
