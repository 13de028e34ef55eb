//! The environment an evaluation runs in: the parsed and lowered code, indexed by name.
//!
//! An [`Environment`] is immutable once built and shared (`Arc`) by every compile that uses
//! it; nothing a compile does is stored here (RFC 1: compiles are isolated). It is built from
//! in-memory sources; the loader crate feeds it from module paths.

use crate::ir::{SourceFile, Span};
use crate::lower::{
    lower_file, ClassDef, DefineDef, FunctionDef, LoweredFile, NodeDef, TypeAliasDef,
};
use indexmap::IndexMap;
use puppet_syntax::Diagnostic;
use smol_str::SmolStr;
use std::sync::Arc;

/// Code to evaluate: lowered files and their definitions by (lower-case) name.
#[derive(Debug, Default, Clone)]
pub struct Environment {
    /// The main manifests, in evaluation order.
    pub main: Vec<Arc<LoweredFile>>,
    pub classes: IndexMap<SmolStr, Arc<ClassDef>>,
    pub defines: IndexMap<SmolStr, Arc<DefineDef>>,
    pub functions: IndexMap<SmolStr, Arc<FunctionDef>>,
    /// Type aliases by lower-case name.
    pub type_aliases: IndexMap<SmolStr, Arc<TypeAliasDef>>,
    pub nodes: Vec<Arc<NodeDef>>,
    /// Syntax and lowering problems of every file.
    pub diagnostics: Vec<(Option<String>, Diagnostic)>,
    /// The modules on the module path, by name, with their directories (for templates,
    /// files and module data).
    pub modules: IndexMap<SmolStr, std::path::PathBuf>,
    /// The first syntax error of each module file that has one (reported when code of that
    /// file is used, as Puppet reports it when autoloading).
    pub file_errors: IndexMap<String, Diagnostic>,
    /// Hiera 5 data for `lookup()` and automatic class parameter lookup; `None` is an empty
    /// hierarchy (build one with [`crate::hiera::lookup_for`]).
    pub hiera: Option<Arc<puppet_hiera::Lookup>>,
    /// The functions of this environment: the pure built-ins, then the Ruby functions of the
    /// modules on the module path (native implementations, or stubs that fail naming the
    /// function). `None`: the built-ins only (an environment without modules).
    pub registry: Option<Arc<puppet_functions::Registry>>,
    /// The resource types: puppet-agent's (built-in and vendored) and those the modules'
    /// `lib/puppet/type/*.rb` define. `None`: puppet-agent's only.
    pub resource_types: Option<Arc<puppet_restypes::TypeDatabase>>,
    /// The modules' templates (`<module dir>/templates/**`), by `module/path below templates`
    /// (`webapp/vhost.conf.erb`), read once when the environment is loaded.
    pub templates: IndexMap<String, Template>,
    /// What module files (`file()`, `find_file()`, `binary_file()`) are read through at
    /// compile time: the provider the modules were loaded with. `None`: no files.
    pub source: Option<Arc<dyn puppet_loader::SourceProvider>>,
}

/// A template file of a module.
#[derive(Debug, Clone)]
pub struct Template {
    /// The file's path (as Puppet prints it in messages).
    pub path: String,
    pub text: Arc<str>,
}

impl Environment {
    /// An environment with one main manifest given as text (`path` is used in messages;
    /// `None` for code given with `-e`).
    pub fn from_main(path: Option<&str>, text: &str) -> Environment {
        let mut env = Environment::default();
        env.add_main(path, text);
        env
    }

    /// The same environment with Hiera data (see [`crate::hiera::lookup_for`]).
    pub fn with_hiera(mut self, lookup: puppet_hiera::Lookup) -> Environment {
        self.hiera = Some(Arc::new(lookup));
        self
    }

    /// Parses and adds a main manifest.
    pub fn add_main(&mut self, path: Option<&str>, text: &str) {
        let lowered = self.add_file(path, text, false);
        self.main.push(lowered);
    }

    /// Parses and adds a file whose definitions become known (a module manifest).
    pub fn add_file(&mut self, path: Option<&str>, text: &str, epp: bool) -> Arc<LoweredFile> {
        let parse = if epp {
            puppet_syntax::parse_epp(text)
        } else {
            puppet_syntax::parse(text)
        };
        let file = Arc::new(SourceFile::new(path.map(str::to_string), text));
        let mut lowered = lower_file(file, &parse);
        for d in parse
            .errors()
            .iter()
            .chain(puppet_syntax::validate::validate(&parse).iter())
        {
            lowered.diagnostics.push(d.clone());
        }
        let lowered = Arc::new(lowered);
        for d in &lowered.diagnostics {
            self.diagnostics.push((path.map(str::to_string), d.clone()));
        }
        let defs = &lowered.definitions;
        for c in &defs.classes {
            // A second definition in code given as text is an error; one that replaces a
            // module's class is not (Puppet knows the main manifest's before autoloading).
            if let Some(prev) = self.classes.get(&c.name).map(|p| p.span.clone()) {
                if !self.is_module_file(&prev) {
                    self.redefinition(&path, "Class", &c.name, &prev, &c.span);
                    continue;
                }
            }
            self.classes.insert(c.name.clone(), c.clone());
        }
        let mut node_names: Vec<(SmolStr, Span)> = self
            .nodes
            .iter()
            .flat_map(|n| n.matches.iter().map(|m| (host_name(m), n.span.clone())))
            .collect();
        for n in &defs.nodes {
            for m in &n.matches {
                let name = host_name(m);
                if let Some((_, prev)) = node_names.iter().find(|(x, _)| *x == name) {
                    let prev = prev.clone();
                    self.redefinition(&path, "Node", &name, &prev, &n.span);
                }
                node_names.push((name, n.span.clone()));
            }
        }
        for d in &defs.defines {
            self.defines
                .entry(d.name.clone())
                .or_insert_with(|| d.clone());
        }
        for f in &defs.functions {
            if let Some(prev) = self.functions.get(&f.name).map(|p| p.span.clone()) {
                let (line, pos) = prev.line_col();
                let origin = match &prev.file.path {
                    Some(p) => format!("file://{p}?line={line}&pos={pos}"),
                    None => format!("string:?line={line}&pos={pos}"),
                };
                self.diagnostics.push((
                    path.map(str::to_string),
                    Diagnostic::error(
                        "DUPLICATE_DEFINITION",
                        format!(
                            "Attempt to redefine entity 'http://puppet.com/2016.1/runtime/function/{}'. Originally set at {origin}.",
                            f.name
                        ),
                        puppet_syntax::TextRange::new(f.span.start.into(), f.span.end.into()),
                    ),
                ));
                continue;
            }
            self.functions.insert(f.name.clone(), f.clone());
        }
        for t in &defs.type_aliases {
            self.type_aliases
                .entry(SmolStr::new(t.name.to_ascii_lowercase()))
                .or_insert_with(|| t.clone());
        }
        self.nodes.extend(defs.nodes.iter().cloned());
        lowered
    }

    /// An environment of a module path and a main manifest given as text (`path` is used
    /// in messages). Module files are read from disk through puppet-loader.
    pub fn from_modulepath(
        modulepath: &[std::path::PathBuf],
        path: Option<&str>,
        text: &str,
    ) -> Environment {
        let config = puppet_loader::EnvironmentConfig::with_modulepath(modulepath.iter().cloned());
        let provider = Arc::new(puppet_loader::FsProvider::new(config.roots()));
        let loaded = puppet_loader::Environment::load(&config, &*provider);
        let mut env = Environment::default();
        env.add_main(path, text);
        env.add_loaded(&loaded);
        env.add_module_code(&loaded, &*provider);
        env.source = Some(provider);
        env
    }

    /// An environment loaded through a provider: the main manifest of `config` (a file or a
    /// directory of `.pp` files), its modules' Puppet code, and their Ruby functions, Ruby
    /// resource types and templates (see [`add_module_code`]). The environment keeps the
    /// provider to read module files at compile time (`file()`, `find_file()`).
    ///
    /// ```
    /// use puppet_eval::{compile, Environment, Settings};
    /// use puppet_loader::{EnvironmentConfig, MemoryProvider};
    /// use std::sync::Arc;
    /// let provider = MemoryProvider::new()
    ///     .with_file("/env/site.pp", "include motd")
    ///     .with_file("/env/modules/motd/manifests/init.pp",
    ///                "class motd { file { '/etc/motd': content => template('motd/motd.erb') } }")
    ///     .with_file("/env/modules/motd/templates/motd.erb", "Welcome to <%= @fqdn %>\n");
    /// let mut config = EnvironmentConfig::with_modulepath(["/env/modules"]);
    /// config.manifest = Some("/env/site.pp".into());
    /// let env = Environment::load(&config, Arc::new(provider));
    /// let mut settings = Settings::default();
    /// settings.facts.insert("fqdn".into(), "web01".into());
    /// let catalog = compile(Arc::new(env), &settings).catalog.unwrap();
    /// let motd = &catalog.resources[catalog.find("File[/etc/motd]").unwrap()];
    /// assert_eq!(motd.parameters["content"], "Welcome to web01\n");
    /// ```
    ///
    /// [`add_module_code`]: Environment::add_module_code
    pub fn load(
        config: &puppet_loader::EnvironmentConfig,
        provider: Arc<dyn puppet_loader::SourceProvider>,
    ) -> Environment {
        let loaded = puppet_loader::Environment::load(config, &*provider);
        let mut env = Environment::default();
        env.add_loaded(&loaded);
        env.add_module_code(&loaded, &*provider);
        env.source = Some(provider);
        env
    }

    /// The bytes of a file (an absolute path), read through [`Environment::source`].
    pub fn read_module_file(&self, path: &str) -> Option<Vec<u8>> {
        self.source
            .as_ref()?
            .read_bytes(std::path::Path::new(path))
            .ok()
    }

    /// Reads what the modules of a loaded environment bring besides Puppet code: their Ruby
    /// functions (`lib/puppet/functions/**.rb`, `lib/puppet/parser/functions/*.rb`) become
    /// this environment's function registry (puppet-stdlib's native implementations, stubs
    /// for the others; built-ins shadow them), their resource types
    /// (`lib/puppet/type/*.rb`, read statically) are added to puppet-agent's, and their
    /// templates are read. Does nothing for an environment without modules.
    pub fn add_module_code(
        &mut self,
        loaded: &puppet_loader::Environment,
        provider: &dyn puppet_loader::SourceProvider,
    ) {
        let modules: Vec<&puppet_loader::Module> = loaded.modules().collect();
        if modules.is_empty() {
            return;
        }
        let mut registry = puppet_functions::builtins::registry().clone();
        let mut type_files: Vec<(String, String, String)> = Vec::new();
        for m in &modules {
            // The native implementations (and known stubs) of the module, then whatever else
            // its Ruby files define; the first module (and the built-ins) win a name.
            puppet_stdlib::register_module(&m.name, &mut registry);
            let mut rb = Vec::new();
            read_tree(provider, &m.path, "lib/puppet/functions", 16, &mut rb);
            read_tree(provider, &m.path, "lib/puppet/parser/functions", 0, &mut rb);
            rb.retain(|(p, _)| p.ends_with(".rb"));
            let found = puppet_stdlib::discover_ruby_functions(&m.name, &rb);
            puppet_stdlib::register_discovered(&found, &mut registry);
            let mut types = Vec::new();
            read_tree(provider, &m.path, "lib/puppet/type", 0, &mut types);
            let full = |rel: &str| m.path.join(rel).to_string_lossy().into_owned();
            for (p, text) in types.into_iter().filter(|(p, _)| p.ends_with(".rb")) {
                type_files.push((m.name.to_string(), full(&p), text));
            }
            // Helper code types call for computed title patterns (`PuppetX::...`).
            let mut helpers = Vec::new();
            read_tree(provider, &m.path, "lib/puppet_x", 16, &mut helpers);
            read_tree(provider, &m.path, "lib/puppetx", 16, &mut helpers);
            for (p, text) in helpers.into_iter().filter(|(p, _)| p.ends_with(".rb")) {
                type_files.push((m.name.to_string(), full(&p), text));
            }
            // Only the presence of a provider matters (the type gets `provider`).
            for p in list_tree(provider, &m.path, "lib/puppet/provider", 1) {
                if p.ends_with(".rb") {
                    type_files.push((m.name.to_string(), full(&p), String::new()));
                }
            }
            let mut templates = Vec::new();
            read_tree(provider, &m.path, "templates", 16, &mut templates);
            for (rel, text) in templates {
                let below = rel.trim_start_matches("templates/");
                let path = m.path.join(&rel).to_string_lossy().into_owned();
                self.templates
                    .entry(format!("{}/{below}", m.name))
                    .or_insert_with(|| Template {
                        path,
                        text: Arc::from(text),
                    });
            }
        }
        self.registry = Some(Arc::new(registry));
        // A later type replaces an earlier one of the same name: the modules go in reverse
        // order so that the first module on the path wins, and after puppet-agent's own.
        let mut db = puppet_restypes::TypeDatabase::with_vendored();
        let mut by_module: Vec<Vec<(String, String, String)>> = Vec::new();
        for m in &modules {
            by_module.push(
                type_files
                    .iter()
                    .filter(|(n, _, _)| n == m.name.as_str())
                    .cloned()
                    .collect(),
            );
        }
        db.load_modules(by_module.into_iter().rev().flatten());
        self.resource_types = Some(Arc::new(db));
    }

    /// The function registry compiles of this environment call into.
    pub fn registry(&self) -> &puppet_functions::Registry {
        match &self.registry {
            Some(r) => r,
            None => puppet_functions::builtins::registry(),
        }
    }

    /// The resource types compiles of this environment know.
    pub fn types(&self) -> &Arc<puppet_restypes::TypeDatabase> {
        match &self.resource_types {
            Some(t) => t,
            None => crate::eval::known_types(),
        }
    }

    /// A module template by the name `template()`/`epp()` are given: `module/path` below the
    /// module's `templates` directory, or the absolute path of such a file.
    pub fn template(&self, name: &str) -> Option<&Template> {
        if let Some(t) = self.templates.get(name) {
            return Some(t);
        }
        if name.starts_with('/') {
            return self.templates.values().find(|t| t.path == name);
        }
        None
    }

    /// The code of an environment loaded by puppet-loader: its main manifest files in
    /// order, and every definition the loader indexed (those that passed Puppet's location
    /// rules), lowered once. Definitions of the main manifest shadow module ones.
    pub fn from_loader(loaded: &puppet_loader::Environment) -> Environment {
        let mut env = Environment::default();
        env.add_loaded(loaded);
        env
    }

    /// Adds the files of an environment loaded by puppet-loader (see [`from_loader`]).
    ///
    /// [`from_loader`]: Environment::from_loader
    pub fn add_loaded(&mut self, loaded: &puppet_loader::Environment) {
        use puppet_loader::{DefKind, FileRole};
        let env = self;
        for m in loaded.modules() {
            env.modules.insert(m.name.clone(), m.path.clone());
        }
        for f in loaded.files() {
            let path = f.path.to_string_lossy().to_string();
            let source = Arc::new(SourceFile::new(Some(path.clone()), &f.text));
            let mut lowered = lower_file(source, &f.parse);
            for d in f.parse.errors() {
                lowered.diagnostics.push(d.clone());
            }
            // The main manifest is validated as a whole before anything is evaluated.
            if f.role == FileRole::MainManifest {
                lowered
                    .diagnostics
                    .extend(puppet_syntax::validate::validate(&f.parse));
            }
            let lowered = Arc::new(lowered);
            if f.role == FileRole::MainManifest {
                for d in &lowered.diagnostics {
                    env.diagnostics.push((Some(path.clone()), d.clone()));
                }
                env.register(&lowered, |_, _| true);
                env.main.push(lowered);
                continue;
            }
            if let Some(d) = lowered
                .diagnostics
                .iter()
                .find(|d| d.severity == puppet_syntax::Severity::Error)
            {
                env.file_errors.insert(path.clone(), d.clone());
            }
            let indexed: Vec<(DefKind, SmolStr)> = f
                .definitions
                .iter()
                .map(|d| (d.kind, d.name.clone()))
                .collect();
            env.register(&lowered, |kind, name| {
                indexed.iter().any(|(k, n)| *k == kind && n == name)
            });
        }
    }

    /// Registers a lowered file's definitions that `accept` lets through (first wins).
    fn register(
        &mut self,
        lowered: &LoweredFile,
        accept: impl Fn(puppet_loader::DefKind, &str) -> bool,
    ) {
        use puppet_loader::DefKind;
        let defs = &lowered.definitions;
        for c in &defs.classes {
            if accept(DefKind::Class, &c.name) {
                self.classes
                    .entry(c.name.clone())
                    .or_insert_with(|| c.clone());
            }
        }
        for d in &defs.defines {
            if accept(DefKind::Define, &d.name) {
                self.defines
                    .entry(d.name.clone())
                    .or_insert_with(|| d.clone());
            }
        }
        for f in &defs.functions {
            if accept(DefKind::Function, &f.name) {
                self.functions
                    .entry(f.name.clone())
                    .or_insert_with(|| f.clone());
            }
        }
        for t in &defs.type_aliases {
            let lower = SmolStr::new(t.name.to_ascii_lowercase());
            if accept(DefKind::TypeAlias, &lower) {
                self.type_aliases.entry(lower).or_insert_with(|| t.clone());
            }
        }
        self.nodes.extend(defs.nodes.iter().cloned());
    }

    /// The syntax error of the file a definition comes from, if that file has one.
    pub fn file_error(&self, span: &crate::ir::Span) -> Option<crate::eval::EvalError> {
        let path = span.file.path.as_ref()?;
        let d = self.file_errors.get(path)?;
        Some(crate::eval::EvalError {
            kind: Default::default(),
            message: d.message.clone(),
            span: Some(crate::ir::Span {
                file: span.file.clone(),
                start: d.start().into(),
                end: d.range.unwrap_or_default().end().into(),
            }),
        })
    }

    /// Whether a definition comes from a module's file (not from code added as text).
    fn is_module_file(&self, span: &Span) -> bool {
        span.file.path.as_ref().is_some_and(|p| {
            self.modules
                .values()
                .any(|d| std::path::Path::new(p).starts_with(d))
        })
    }

    /// Records Puppet's error for a second definition of a class or node.
    fn redefinition(
        &mut self,
        path: &Option<&str>,
        what: &str,
        name: &str,
        first: &Span,
        second: &Span,
    ) {
        let (line, _) = first.line_col();
        let at = match &first.file.path {
            Some(p) => format!("(file: {p}, line: {line})"),
            None => format!("(line: {line})"),
        };
        self.diagnostics.push((
            path.map(str::to_string),
            Diagnostic::error(
                "DUPLICATE_DEFINITION",
                format!("{what} '{name}' is already defined {at}; cannot redefine"),
                puppet_syntax::TextRange::new(second.start.into(), second.end.into()),
            ),
        ));
    }

    /// The first error-level diagnostic, if any file failed to parse or validate.
    pub fn first_error(&self) -> Option<&(Option<String>, Diagnostic)> {
        self.diagnostics
            .iter()
            .find(|(_, d)| d.severity == puppet_syntax::Severity::Error)
    }
}

/// The name a node definition gives a host match (`__node_regexp__...` for regexes).
fn host_name(m: &crate::lower::HostMatch) -> SmolStr {
    match m {
        crate::lower::HostMatch::Name(n) => n.clone(),
        crate::lower::HostMatch::Default => SmolStr::new("default"),
        crate::lower::HostMatch::Regex(r) => crate::compile::node_regex_name(r.source()),
    }
}

/// The files below `<dir>/<sub>` (to `depth` levels of subdirectories), as paths relative to
/// `dir`, sorted; symlink loops and unreadable directories are skipped.
fn list_tree(
    provider: &dyn puppet_loader::SourceProvider,
    dir: &std::path::Path,
    sub: &str,
    depth: usize,
) -> Vec<String> {
    use puppet_loader::EntryKind;
    let mut out = Vec::new();
    let mut stack = vec![(sub.to_string(), depth)];
    while let Some((rel, left)) = stack.pop() {
        let Ok(mut entries) = provider.list_dir(&dir.join(&rel)) else {
            continue;
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for e in entries.into_iter().rev() {
            let path = format!("{rel}/{}", e.name);
            match e.kind {
                EntryKind::Dir if left > 0 => stack.push((path, left - 1)),
                EntryKind::File => out.push(path),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// Reads the files below `<dir>/<sub>` (see [`list_tree`]) as (relative path, text).
fn read_tree(
    provider: &dyn puppet_loader::SourceProvider,
    dir: &std::path::Path,
    sub: &str,
    depth: usize,
    out: &mut Vec<(String, String)>,
) {
    for rel in list_tree(provider, dir, sub, depth) {
        if let Ok(text) = provider.read_to_string(&dir.join(&rel)) {
            out.push((rel, text));
        }
    }
}
