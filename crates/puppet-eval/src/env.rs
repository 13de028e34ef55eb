//! The environment every compile of a node runs in, loaded on demand and shared.
//!
//! An [`Environment`] is built by a [`Session`](crate::Session) (or, for code given as text
//! with no modules, [`Environment::from_main`]). It holds the main manifest, lowered once,
//! and a [`puppet_loader::Loader`] through which everything else is found the first time a
//! compile needs it: classes, defined types, Puppet-language functions and type aliases by
//! Puppet's name -> file rules (parsed, lowered and cached here), the modules' Ruby functions
//! (their native implementations from puppet-stdlib, else the module's own Ruby run by
//! puppet-ruby, else a stub that fails naming the function), their resource types (`lib/puppet/type/*.rb`), their templates and files. What
//! was loaded is cached for every later compile, under locks, by pure functions of the files:
//! a compile's result does not depend on which files an earlier compile loaded (RFC 1), and
//! an `Arc<Environment>` is shared by compiles running on many threads.
//!
//! Nothing a compile does is stored here besides those caches.

mod functions;
mod listings;
mod ruby_files;

pub use functions::{FunctionInfo, FunctionOrigin};

use crate::ir::{SourceFile, Span};
use crate::lower::{
    lower_file, ClassDef, DefineDef, FunctionDef, LoweredFile, NodeDef, TypeAliasDef,
};
use indexmap::IndexMap;
use puppet_diagnostics::Diagnostic;
use puppet_functions::{Function, Registry};
use puppet_loader::{DefKind, EntryKind, Loader, SourceProvider};
use smol_str::SmolStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// What a session knows of an environment besides its files.
#[derive(Debug)]
pub(crate) struct Meta {
    pub name: SmolStr,
    pub notes: Vec<Diagnostic>,
    /// `Session::natives_for_any_version`.
    pub natives_for_any_version: bool,
}

impl Default for Meta {
    fn default() -> Meta {
        Meta {
            name: "production".into(),
            natives_for_any_version: false,
            notes: Vec::new(),
        }
    }
}

/// A module file lowered once (`None`: no such file). Threads that ask for a file another
/// thread is lowering (`compile_many`) wait for that one instead of lowering it again.
type LoweredCell = Arc<OnceLock<Option<Arc<LoweredFile>>>>;

/// A lazily filled map: `None` records that a name was looked for and not found.
type Cache<T> = RwLock<rustc_hash::FxHashMap<SmolStr, Option<T>>>;

/// What reading the files that define a name reported, by (kind, name).
type ErrorCache = RwLock<rustc_hash::FxHashMap<(DefKind, SmolStr), LoadReport>>;

/// What Puppet's autoloader reports reading the files it reads to find a name: the first
/// error, and the warnings of the files read before it (each with its file); and the files
/// read without such an error, whose validation the compile checks at its end.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadReport {
    pub error: Option<Diagnostic>,
    pub warnings: Arc<[Diagnostic]>,
    pub files: Arc<[Arc<puppet_loader::LoadedFile>]>,
}

/// Everything compiles share: the lowered main manifest, the definitions found so far, the
/// function registry, the resource types, Hiera and the source files. See the module docs.
#[derive(Debug)]
pub struct Environment {
    /// What is loaded on demand, shared with environments made by
    /// [`with_main_code`](Environment::with_main_code).
    shared: Arc<Shared>,
    /// The main manifest (and code given as text), lowered, in evaluation order.
    main: Vec<Arc<LoweredFile>>,
    nodes: Vec<Arc<NodeDef>>,
    /// Definitions of the main manifest, which shadow the modules' ones.
    main_classes: IndexMap<SmolStr, Arc<ClassDef>>,
    main_defines: IndexMap<SmolStr, Arc<DefineDef>>,
    main_functions: IndexMap<SmolStr, Arc<FunctionDef>>,
    main_aliases: IndexMap<SmolStr, Arc<TypeAliasDef>>,
    /// Problems of the main manifest (syntax, validation, second definitions), which every
    /// compile reports.
    main_diagnostics: Vec<Diagnostic>,
    /// Values of constant type expressions (`Stdlib::Absolutepath`, `Array[String]`,
    /// `File['/x']`: names, literals and accesses of those), evaluated once for every
    /// compile: they depend on the environment's definitions only, which this
    /// environment's main manifest can shadow (so the cache is not in `Shared`).
    const_types: RwLock<rustc_hash::FxHashMap<ConstKey, (Arc<SourceFile>, puppet_types::Value)>>,
    /// The most resources a compile of this environment has had so far: the next compile's
    /// catalog starts with room for that many (growing a map of resources copies them all
    /// each time). Only a size: no output depends on it.
    catalog_size: std::sync::atomic::AtomicUsize,
    /// The most scopes a compile of this environment has had so far (the next compile's
    /// arena starts with room for that many). Only a size: no output depends on it.
    scope_count: std::sync::atomic::AtomicUsize,
}

/// The key of a constant expression's value: (file, start, end, expression address). The
/// address tells apart expressions lowered with one span (in an interpolated heredoc), and
/// the entry keeps its file alive, so no other file's expressions can take the key.
pub(crate) type ConstKey = (usize, u32, u32, usize);

/// The part of an environment that does not depend on its main manifest: the loader and
/// everything found through it.
#[derive(Debug)]
struct Shared {
    loader: Loader,
    /// Module files lowered (or being lowered), by path.
    lowered: Mutex<rustc_hash::FxHashMap<PathBuf, LoweredCell>>,
    classes: Cache<Arc<ClassDef>>,
    defines: Cache<Arc<DefineDef>>,
    functions: Cache<Arc<FunctionDef>>,
    aliases: Cache<Arc<TypeAliasDef>>,
    load_errors: ErrorCache,
    /// Validates the module files compiles read, on a thread of its own (see
    /// `Environment::validate_ahead`).
    validator: OnceLock<Option<std::sync::mpsc::Sender<Arc<puppet_loader::LoadedFile>>>>,
    /// Functions the embedder registered (searched before the built-ins).
    custom: Option<Arc<Registry>>,
    /// A native implementation stands in for any version of a module's function file, or
    /// none (`Session::natives_for_any_version`).
    natives_for_any_version: bool,
    /// The modules' Ruby functions found so far (native implementations first, else the
    /// module's Ruby, else stubs).
    ruby_functions: Cache<Arc<Function>>,
    /// The same with the native implementations left out (`Settings::native_functions`
    /// false): the module's Ruby, else stubs.
    ruby_only_functions: Cache<Arc<Function>>,
    /// The modules' Ruby function files, found by name as calls need them.
    function_files: OnceLock<ruby_files::FunctionFiles>,
    /// Every module's Ruby function files, listed once for [`Environment::functions`].
    ruby_files: OnceLock<ruby_files::RubyFiles>,
    /// The modules' Ruby sources (`lib/`), each file parsed once for every interpreter.
    ruby_sources: OnceLock<Arc<puppet_ruby::Sources>>,
    /// The module directories' listings, read as `require` and the type autoloader probe
    /// them.
    listings: OnceLock<Arc<listings::Listings>>,
    /// Resource types: puppet-agent's, then module types as they are needed.
    types: RwLock<Arc<puppet_restypes::TypeDatabase>>,
    types_tried: Mutex<rustc_hash::FxHashMap<SmolStr, bool>>,
    /// What `Facter.value` answers while module type files load: the facts of the first
    /// node compiled in the environment (see [`Environment::note_type_facts`]).
    type_facts: OnceLock<Arc<IndexMap<SmolStr, puppet_types::Value>>>,
    templates: Cache<Template>,
    hiera: Option<Arc<puppet_hiera::Lookup>>,
    /// The environment's name (`production` unless the session gave another).
    name: SmolStr,
    /// What the session noted while reading the environment's configuration
    /// (`environment.conf`).
    notes: Vec<Diagnostic>,
}

/// A template file of a module.
#[derive(Debug, Clone)]
pub struct Template {
    /// The file's path (as Puppet prints it in messages).
    pub path: String,
    pub text: Arc<str>,
    /// The text parsed as ERB, once for every compile (and thread) that renders it.
    erb: Arc<OnceLock<Result<Arc<puppet_erb::Template>, puppet_erb::ErbError>>>,
}

impl Template {
    /// The template parsed as ERB (once; parsing is pure), or its syntax error.
    pub(crate) fn erb(&self) -> Result<Arc<puppet_erb::Template>, puppet_erb::ErbError> {
        self.erb
            .get_or_init(|| puppet_erb::Template::parse(&self.text, &self.path).map(Arc::new))
            .clone()
    }
}

/// The modules' `lib/` directories as Ruby's load path, read through the loader's provider:
/// `require` finds `lib/<name>.rb` in the first module that has it; other reads are
/// confined to the modules' directories and the environment directory (Hiera backends read
/// the environment's data files).
struct ModuleSources {
    provider: Arc<dyn SourceProvider>,
    /// The modules' directories, in module path order.
    modules: Vec<PathBuf>,
    /// What those directories hold ([`listings`]).
    listings: Arc<listings::Listings>,
    /// The environment directory, when there is one.
    env_dir: Option<PathBuf>,
    /// The modules' names (beside `modules`).
    names: Vec<SmolStr>,
    /// The module path as configured.
    modulepath: Vec<PathBuf>,
    /// Where the global and environment Hiera layers find their data
    /// ([`puppet_hiera::Lookup::data_roots`]): a backend function reads the paths Hiera
    /// hands it (`Puppet::FileSystem.read(options['path'])`).
    hiera_roots: Vec<PathBuf>,
}

impl ModuleSources {
    /// The absolute path Ruby code names, with `.` and `..` resolved as the file system
    /// would resolve them without symbolic links (`File.join(__dir__, '..', 'files')`), if
    /// it may look there: inside a module, the environment directory, the global Hiera
    /// layer's data, or (with `roots`) a module path directory.
    fn visible(&self, path: &str, roots: bool) -> Option<PathBuf> {
        use std::path::Component;
        let mut p = PathBuf::new();
        for c in Path::new(path).components() {
            match c {
                Component::RootDir => p.push("/"),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !p.pop() {
                        return None;
                    }
                }
                Component::Normal(n) => p.push(n),
                Component::Prefix(_) => return None,
            }
        }
        let inside = self
            .modules
            .iter()
            .chain(&self.env_dir)
            .chain(&self.hiera_roots)
            .any(|m| p.starts_with(m))
            || (roots && self.modulepath.iter().any(|m| p.starts_with(m)));
        (p.is_absolute() && inside).then_some(p)
    }
}

impl puppet_ruby::SourceHost for ModuleSources {
    fn find_lib(&self, name: &str) -> Option<(String, Arc<str>)> {
        let rel = format!("lib/{}.rb", name.trim_end_matches(".rb"));
        self.modules.iter().enumerate().find_map(|(i, m)| {
            if !self.listings.is_file(i, &rel) {
                return None;
            }
            let path = m.join(&rel);
            let text = self.provider.read_to_string(&path).ok()?;
            Some((path.to_string_lossy().into_owned(), Arc::from(text)))
        })
    }

    fn read(&self, path: &str) -> Option<Arc<str>> {
        let p = self.visible(path, false)?;
        self.provider.read_to_string(&p).ok().map(Arc::from)
    }

    fn kind(&self, path: &str) -> Option<puppet_ruby::PathKind> {
        let p = self.visible(path, true)?;
        match self.provider.kind(&p)? {
            puppet_loader::EntryKind::Dir => Some(puppet_ruby::PathKind::Directory),
            puppet_loader::EntryKind::File => Some(puppet_ruby::PathKind::File),
            puppet_loader::EntryKind::Refused(_) => None,
        }
    }

    fn list_dir(&self, path: &str) -> Option<Vec<(String, puppet_ruby::PathKind)>> {
        let p = self.visible(path, true)?;
        let entries = self.provider.list_dir(&p).ok()?;
        Some(
            entries
                .into_iter()
                .filter_map(|e| {
                    let kind = match e.kind {
                        puppet_loader::EntryKind::Dir => puppet_ruby::PathKind::Directory,
                        puppet_loader::EntryKind::File => puppet_ruby::PathKind::File,
                        puppet_loader::EntryKind::Refused(_) => return None,
                    };
                    Some((e.name, kind))
                })
                .collect(),
        )
    }

    fn modules(&self) -> Vec<(String, String)> {
        self.names
            .iter()
            .zip(&self.modules)
            .map(|(n, p)| (n.to_string(), p.to_string_lossy().into_owned()))
            .collect()
    }

    fn modulepath(&self) -> Vec<String> {
        self.modulepath
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }
}

impl Default for Environment {
    fn default() -> Environment {
        Environment::from_main(None, "")
    }
}

impl Environment {
    /// An environment with one main manifest given as text and no modules (`path` is used in
    /// messages; `None` for code given with `-e`). For module paths, environment
    /// directories, Hiera and files in memory, use a [`Session`](crate::Session).
    ///
    /// ```
    /// use puppet_eval::{compile, Environment, Settings};
    /// use std::sync::Arc;
    /// let env = Environment::from_main(None, "notify { 'hello': }");
    /// let catalog = compile(Arc::new(env), &Settings::default()).catalog.unwrap();
    /// assert!(catalog.find("Notify[hello]").is_some());
    /// ```
    pub fn from_main(path: Option<&str>, text: &str) -> Environment {
        let loader = Loader::open(
            &puppet_loader::EnvironmentConfig::default(),
            Arc::new(puppet_loader::MemoryProvider::new()),
        );
        Environment::open(
            loader,
            Some((path.map(str::to_string), text.to_string())),
            None,
            None,
            Meta::default(),
        )
    }

    /// An environment over a loader: its main manifest, plus `code` (given as text, after
    /// the manifest's files).
    pub(crate) fn open(
        loader: Loader,
        code: Option<(Option<String>, String)>,
        custom: Option<Arc<Registry>>,
        hiera: Option<puppet_hiera::Lookup>,
        meta: Meta,
    ) -> Environment {
        let hiera = hiera.map(Arc::new);
        let shared = Arc::new(Shared {
            lowered: Mutex::new(rustc_hash::FxHashMap::default()),
            classes: RwLock::default(),
            defines: RwLock::default(),
            functions: RwLock::default(),
            aliases: RwLock::default(),
            load_errors: RwLock::default(),
            validator: OnceLock::new(),
            custom,
            ruby_functions: RwLock::default(),
            ruby_only_functions: RwLock::default(),
            function_files: OnceLock::new(),
            ruby_files: OnceLock::new(),
            ruby_sources: OnceLock::new(),
            listings: OnceLock::new(),
            types: RwLock::new(crate::eval::known_types().clone()),
            types_tried: Mutex::new(rustc_hash::FxHashMap::default()),
            type_facts: OnceLock::new(),
            templates: RwLock::default(),
            hiera,
            loader,
            name: meta.name,
            notes: meta.notes,
            natives_for_any_version: meta.natives_for_any_version,
        });
        let mut env = Environment::with_shared(shared);
        let mains: Vec<(Option<String>, Arc<str>, Arc<puppet_syntax::Parse>)> = env
            .shared
            .loader
            .main_files()
            .iter()
            .map(|f| {
                (
                    Some(f.path.to_string_lossy().into_owned()),
                    f.text.clone(),
                    f.parse(),
                )
            })
            .collect();
        for (path, text, parse) in mains {
            env.add_main_parse(path, text, &parse);
        }
        if let Some((path, text)) = code {
            let parse = puppet_syntax::parse(&text);
            env.add_main_parse(path, Arc::from(text), &parse);
        }
        env
    }

    fn with_shared(shared: Arc<Shared>) -> Environment {
        Environment {
            shared,
            main: Vec::new(),
            nodes: Vec::new(),
            main_classes: IndexMap::new(),
            main_defines: IndexMap::new(),
            main_functions: IndexMap::new(),
            main_aliases: IndexMap::new(),
            main_diagnostics: Vec::new(),
            const_types: RwLock::default(),
            catalog_size: Default::default(),
            scope_count: Default::default(),
        }
    }

    /// How many scopes a compile of this environment is likely to have: the most one has
    /// had so far.
    pub(crate) fn scope_count_hint(&self) -> usize {
        self.scope_count.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Notes how many scopes a compile had (see [`Environment::scope_count_hint`]).
    pub(crate) fn note_scope_count(&self, scopes: usize) {
        (self.scope_count).fetch_max(scopes, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many resources the catalog of a compile of this environment is likely to have:
    /// the most one has had so far (see [`Environment::note_catalog_size`]).
    pub(crate) fn catalog_size_hint(&self) -> usize {
        self.catalog_size.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Records how many resources a compile's catalog had.
    pub(crate) fn note_catalog_size(&self, resources: usize) {
        (self.catalog_size).fetch_max(resources, std::sync::atomic::Ordering::Relaxed);
    }

    /// The value of a constant type expression, if a compile evaluated it before.
    pub(crate) fn const_type(&self, key: &ConstKey) -> Option<puppet_types::Value> {
        let cache = self.const_types.read().ok()?;
        cache.get(key).map(|(_, v)| v.clone())
    }

    /// Keeps the value of a constant type expression for every later compile.
    pub(crate) fn keep_const_type(
        &self,
        key: ConstKey,
        file: &Arc<SourceFile>,
        value: &puppet_types::Value,
    ) {
        if let Ok(mut cache) = self.const_types.write() {
            cache.insert(key, (file.clone(), value.clone()));
        }
    }

    /// The same modules, Hiera and functions (and what was loaded of them so far) with
    /// another main manifest, given as text: for tools that compile many small programs
    /// against one module path (each class of a module, generated test programs).
    ///
    /// ```
    /// use puppet_eval::{compile, Session, Settings};
    /// use puppet_loader::MemoryProvider;
    /// let env = Session::new()
    ///     .files(MemoryProvider::new().with_file("/m/a/manifests/init.pp", "class a { notify { 'a': } }"))
    ///     .modulepath(["/m"])
    ///     .load()
    ///     .unwrap();
    /// let one = env.with_main_code(None, "include a");
    /// let catalog = compile(one.into(), &Settings::default()).catalog.unwrap();
    /// assert!(catalog.find("Notify[a]").is_some());
    /// ```
    pub fn with_main_code(&self, path: Option<&str>, text: &str) -> Environment {
        let mut env = Environment::with_shared(self.shared.clone());
        let parse = puppet_syntax::parse(text);
        env.add_main_parse(path.map(str::to_string), Arc::from(text), &parse);
        env
    }

    /// Lowers and validates a main manifest file and registers its definitions.
    fn add_main_parse(
        &mut self,
        path: Option<String>,
        text: Arc<str>,
        parse: &puppet_syntax::Parse,
    ) {
        let flat = puppet_syntax::flat::FlatParse::from_parse(&text, parse);
        let file = Arc::new(SourceFile::from_arc(path.clone(), text));
        let mut lowered = lower_file(file, &flat);
        for d in parse
            .errors()
            .iter()
            .chain(puppet_syntax::validate::validate(parse).iter())
        {
            lowered.diagnostics.push(d.clone());
        }
        let lowered = Arc::new(lowered);
        for d in &lowered.diagnostics {
            self.main_diagnostics.push(
                d.clone()
                    .with_file_opt(path.as_deref())
                    .with_source(&lowered.file.text),
            );
        }
        let defs = &lowered.definitions;
        for c in &defs.classes {
            if let Some(prev) = self.main_classes.get(&c.name).map(|p| p.span.clone()) {
                self.redefinition("Class", &c.name, &prev, &c.span);
                continue;
            }
            self.main_classes.insert(c.name.clone(), c.clone());
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
                    self.redefinition("Node", &name, &prev, &n.span);
                }
                node_names.push((name, n.span.clone()));
            }
        }
        for d in &defs.defines {
            self.main_defines
                .entry(d.name.clone())
                .or_insert_with(|| d.clone());
        }
        for f in &defs.functions {
            if let Some(prev) = self.main_functions.get(&f.name).map(|p| p.span.clone()) {
                let origin = origin_uri(&prev);
                self.main_diagnostics.push(
                    Diagnostic::error(
                        REDEFINED_ENTITY,
                        format!(
                            "Attempt to redefine entity 'http://puppet.com/2016.1/runtime/function/{}'. Originally set at {origin}.",
                            f.name
                        ),
                        f.span.range(),
                    )
                    .with_file_opt(f.span.file.path.as_deref())
                    .with_source(&f.span.file.text),
                );
                continue;
            }
            self.main_functions.insert(f.name.clone(), f.clone());
        }
        for t in &defs.type_aliases {
            let key = SmolStr::new(t.name.to_ascii_lowercase());
            // Puppet's loader refuses a name it already holds: one of its own types, or an
            // alias defined before (reported at the first one's name).
            let origin = match self.main_aliases.get(&key) {
                Some(prev) => Some(format!(
                    "Originally set at {}.",
                    origin_uri(&prev.name_span)
                )),
                None => puppet_types::params::static_type_origin(&key).map(str::to_owned),
            };
            if let Some(origin) = origin {
                self.main_diagnostics.push(
                    Diagnostic::error(
                        REDEFINED_ENTITY,
                        format!(
                            "Attempt to redefine entity 'http://puppet.com/2016.1/runtime/type/{key}'. {origin}"
                        ),
                        t.span.range(),
                    )
                    .with_file_opt(t.span.file.path.as_deref())
                    .with_source(&t.span.file.text),
                );
                continue;
            }
            self.main_aliases.insert(key, t.clone());
        }
        self.nodes.extend(defs.nodes.iter().cloned());
        self.main.push(lowered);
    }

    /// Records Puppet's error for a second definition of a class or node.
    fn redefinition(&mut self, what: &str, name: &str, first: &Span, second: &Span) {
        let (line, _) = first.line_col();
        let at = match &first.file.path {
            Some(p) => format!("(file: {p}, line: {line})"),
            None => format!("(line: {line})"),
        };
        self.main_diagnostics.push(
            Diagnostic::error(
                "DUPLICATE_DEFINITION",
                format!("{what} '{name}' is already defined {at}; cannot redefine"),
                second.range(),
            )
            .with_file_opt(second.file.path.as_deref())
            .with_source(&second.file.text),
        );
    }

    /// The main manifest's files (and code given as text), lowered, in evaluation order.
    pub(crate) fn main_files(&self) -> &[Arc<LoweredFile>] {
        &self.main
    }

    /// The node definitions of the main manifest.
    ///
    /// ```
    /// let env = puppet_eval::Environment::from_main(None, "node 'a', /^web/ { }\nnode default { }");
    /// assert_eq!(env.nodes().len(), 2);
    /// ```
    pub fn nodes(&self) -> &[Arc<NodeDef>] {
        &self.nodes
    }

    /// Problems found while loading: the environment's configuration (`environment.conf`),
    /// module discovery (`metadata.json`, invalid module directories), then the main
    /// manifest's syntax and validation problems and second definitions.
    ///
    /// ```
    /// use puppet_eval::Session;
    /// use puppet_loader::MemoryProvider;
    /// let env = Session::new()
    ///     .files(MemoryProvider::new().with_file("/m/Bad-Name/manifests/init.pp", ""))
    ///     .modulepath(["/m"])
    ///     .code("class a {}\nclass a {}")
    ///     .load()
    ///     .unwrap();
    /// let codes: Vec<String> = env.diagnostics().map(|d| d.code.to_string()).collect();
    /// assert_eq!(codes, ["LOADER_INVALID_MODULE_NAME", "DUPLICATE_DEFINITION"]);
    /// ```
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.shared
            .notes
            .iter()
            .chain(self.shared.loader.diagnostics())
            .chain(&self.main_diagnostics)
    }

    /// The environment's name: what `$environment`, `$server_facts['environment']` and the
    /// catalog's `environment` say in compiles of [`agent`](Environment::agent) settings.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// [`Settings::agent`](crate::Settings::agent) for a node compiled in this environment
    /// (its [`name`](Environment::name) as the node's environment).
    ///
    /// ```
    /// use puppet_eval::Session;
    /// let env = Session::new().code("notify { $environment: }").environment_name("staging").load().unwrap();
    /// let catalog = env.compile(&env.agent("web01", Default::default())).catalog.unwrap();
    /// assert!(catalog.find("Notify[staging]").is_some());
    /// assert_eq!(catalog.environment.as_deref(), Some("staging"));
    /// ```
    pub fn agent(
        &self,
        certname: &str,
        facts: IndexMap<SmolStr, puppet_types::Value>,
    ) -> crate::Settings {
        crate::Settings::agent(certname, facts).with_environment(self.name())
    }

    /// The main manifest's problems: every compile logs its warnings and fails with its
    /// first error.
    ///
    /// ```
    /// let env = puppet_eval::Environment::from_main(None, "notice('a' 'b')");
    /// assert_eq!(env.main_diagnostics()[0].code, "SYNTAX_ERROR");
    /// ```
    pub fn main_diagnostics(&self) -> &[Diagnostic] {
        &self.main_diagnostics
    }

    /// The loader everything is read through (module path, provider, loaded files).
    ///
    /// ```
    /// let env = puppet_eval::Environment::from_main(None, "");
    /// assert_eq!(env.loader().loaded_files(), 0);
    /// ```
    pub fn loader(&self) -> &Loader {
        &self.shared.loader
    }

    /// The modules on the module path: (name, directory), in module path order.
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/m/ntp/manifests/init.pp", "class ntp {}")
    ///     .with_file("/m/apt/manifests/init.pp", "class apt {}");
    /// let env = puppet_eval::Session::new().files(files).modulepath(["/m"]).load().unwrap();
    /// let names: Vec<&str> = env.modules().map(|(n, _)| n).collect();
    /// assert_eq!(names, ["apt", "ntp"]);
    /// assert_eq!(env.module_dir("ntp").unwrap(), std::path::Path::new("/m/ntp"));
    /// ```
    pub fn modules(&self) -> impl Iterator<Item = (&str, &Path)> {
        self.shared
            .loader
            .modules()
            .map(|m| (m.name.as_str(), m.path.as_path()))
    }

    /// The module whose directory holds the file at `path`, if any.
    pub(crate) fn module_of_path(&self, path: &str) -> Option<&str> {
        for dir in &self.shared.loader.config().modulepath {
            let Some(dir) = dir.to_str() else { continue };
            let Some(rest) = path.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) else {
                continue;
            };
            let name = rest.split('/').next().unwrap_or("");
            if let Some(m) = self.shared.loader.module(name) {
                if m.path.as_os_str().len() == dir.len() + 1 + name.len() {
                    return Some(m.name.as_str());
                }
            }
        }
        None
    }

    /// A module's directory.
    pub fn module_dir(&self, name: &str) -> Option<&Path> {
        self.shared.loader.module(name).map(|m| m.path.as_path())
    }

    /// Hiera, when the environment has any layer.
    ///
    /// ```
    /// assert!(puppet_eval::Environment::from_main(None, "").hiera().is_none());
    /// ```
    pub fn hiera(&self) -> Option<&Arc<puppet_hiera::Lookup>> {
        self.shared.hiera.as_ref()
    }

    /// A class by lower-case name (no leading `::`), loading its file the first time;
    /// [`define`](Self::define), [`puppet_function`](Self::puppet_function) and
    /// [`type_alias`](Self::type_alias) find the other kinds of definition.
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/m/web/manifests/init.pp", "class web($port = 80) {}")
    ///     .with_file("/m/web/manifests/vhost.pp", "define web::vhost {}")
    ///     .with_file("/m/web/functions/url.pp", "function web::url($h) { \"http://${h}\" }")
    ///     .with_file("/m/web/types/port.pp", "type Web::Port = Integer[1, 65535]");
    /// let env = puppet_eval::Session::new().files(files).modulepath(["/m"]).load().unwrap();
    /// assert_eq!(env.class("web").unwrap().params[0].name, "port");
    /// assert!(env.define("web::vhost").is_some());
    /// assert!(env.puppet_function("web::url").is_some());
    /// assert!(env.type_alias("web::port").is_some());
    /// assert!(env.class("web::nope").is_none());
    /// ```
    pub fn class(&self, name: &str) -> Option<Arc<ClassDef>> {
        if let Some(c) = self.main_classes.get(name) {
            return Some(c.clone());
        }
        self.cached(&self.shared.classes, DefKind::Class, name, |f, n| {
            f.definitions.classes.iter().find(|c| c.name == n).cloned()
        })
    }

    /// A defined type by lower-case name.
    pub fn define(&self, name: &str) -> Option<Arc<DefineDef>> {
        if let Some(d) = self.main_defines.get(name) {
            return Some(d.clone());
        }
        self.cached(&self.shared.defines, DefKind::Define, name, |f, n| {
            f.definitions.defines.iter().find(|d| d.name == n).cloned()
        })
    }

    /// A Puppet-language function by lower-case name.
    /// Whether the main manifest defines function `name`.
    pub(crate) fn is_main_function(&self, name: &str) -> bool {
        self.main_functions.contains_key(name)
    }

    pub fn puppet_function(&self, name: &str) -> Option<Arc<FunctionDef>> {
        if let Some(f) = self.main_functions.get(name) {
            return Some(f.clone());
        }
        if !crate::names::is_qualified(name) && self.shared.loader.config().env_dir.is_none() {
            // Only the environment's loader is global: a module cannot hold a global name.
            return None;
        }
        self.cached(&self.shared.functions, DefKind::Function, name, |f, n| {
            f.definitions
                .functions
                .iter()
                .find(|d| d.name == n)
                .cloned()
        })
    }

    /// A type alias by lower-case name.
    pub fn type_alias(&self, name: &str) -> Option<Arc<TypeAliasDef>> {
        if let Some(t) = self.main_aliases.get(name) {
            return Some(t.clone());
        }
        self.cached(&self.shared.aliases, DefKind::TypeAlias, name, |f, n| {
            f.definitions
                .type_aliases
                .iter()
                .find(|t| t.name.eq_ignore_ascii_case(n))
                .cloned()
        })
    }

    /// Looks `name` up in `cache`, else resolves it through the loader and finds it in the
    /// lowered file.
    fn cached<T: Clone>(
        &self,
        cache: &Cache<T>,
        kind: DefKind,
        name: &str,
        find: impl Fn(&LoweredFile, &str) -> Option<T>,
    ) -> Option<T> {
        if let Ok(map) = cache.read() {
            if let Some(v) = map.get(name) {
                return v.clone();
            }
        }
        let found = self
            .shared
            .loader
            .resolve(kind, name)
            .and_then(|def| self.lowered_file(&def.file))
            .and_then(|f| find(&f, name));
        match cache.write() {
            Ok(mut map) => map.entry(SmolStr::new(name)).or_insert(found).clone(),
            Err(_) => found,
        }
    }

    /// A module file loaded by the loader, lowered (once).
    fn lowered_file(&self, path: &Path) -> Option<Arc<LoweredFile>> {
        let cell = match self.shared.lowered.lock() {
            Ok(mut map) => match map.get(path) {
                Some(cell) => cell.clone(),
                None => map.entry(path.to_path_buf()).or_default().clone(),
            },
            Err(_) => Arc::default(),
        };
        cell.get_or_init(|| {
            let def_file = self.shared.loader.loaded_file(path)?;
            let source = Arc::new(SourceFile::from_arc(
                Some(path.to_string_lossy().into_owned()),
                def_file.text.clone(),
            ));
            let mut lowered = lower_file(source, &def_file.flat());
            // The compile keeps the lowered form only: the tree's memory goes (a tool that
            // asks the loader for it later gets it parsed again).
            def_file.release_tree();
            lowered
                .diagnostics
                .extend(def_file.diagnostics.iter().cloned());
            Some(Arc::new(lowered))
        })
        .clone()
    }

    /// What reading the files Puppet reads to find `name` (of `kind`) reported: each
    /// candidate file, general to specific, up to the one that defines it (all of them when
    /// none does). `None` for a definition of the main manifests (no file is read). Its
    /// error fails the compile as Puppet's autoloader does (a syntax error, or a definition
    /// or statement that is not allowed in that file); its warnings are what Puppet logs
    /// parsing those files (lexer warnings, duplicate keys of hash literals).
    pub(crate) fn load_report(&self, kind: DefKind, name: &str) -> Option<LoadReport> {
        let in_main = match kind {
            DefKind::Class => self.main_classes.contains_key(name),
            DefKind::Define => self.main_defines.contains_key(name),
            DefKind::Function => self.main_functions.contains_key(name),
            DefKind::TypeAlias => self.main_aliases.contains_key(name),
        };
        (!in_main).then(|| self.module_load_report(kind, name))
    }

    fn module_load_report(&self, kind: DefKind, name: &str) -> LoadReport {
        let key = (kind, SmolStr::new(name));
        if let Ok(map) = self.shared.load_errors.read() {
            if let Some(r) = map.get(&key) {
                return r.clone();
            }
        }
        let found = self.read_candidates(kind, name);
        match self.shared.load_errors.write() {
            Ok(mut map) => map.entry(key).or_insert(found).clone(),
            Err(_) => found,
        }
    }

    /// Starts Puppet's validation of a file a compile read (`LoadedFile::validation`, which
    /// costs about as much as parsing and lowering it) on the environment's validating
    /// thread, so that it is done, or nearly, when the compile checks it at its end
    /// (`Compiler::validation_failure`). One thread, so that it takes one core at most from
    /// the compiles; the compile computes a validation itself when it gets there first.
    fn validate_ahead(&self, file: &Arc<puppet_loader::LoadedFile>) {
        if !file.start_validation() {
            return;
        }
        let sender = self.shared.validator.get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Arc<puppet_loader::LoadedFile>>();
            let worker = std::thread::Builder::new()
                .name("puppet-validate".into())
                .spawn(move || {
                    for f in rx {
                        f.validation();
                    }
                });
            // Without a thread (none may be started here) the compile validates each file
            // when it checks it.
            worker.ok().map(|_| tx)
        });
        if let Some(tx) = sender {
            let _ = tx.send(file.clone());
        }
    }

    fn read_candidates(&self, kind: DefKind, name: &str) -> LoadReport {
        let mut warnings = Vec::new();
        let mut read = Vec::new();
        for file in self.shared.loader.candidate_files(kind, name) {
            warnings.extend(file.warnings.iter().cloned());
            if let Some(d) = file.diagnostics.iter().find(|d| d.is_error()) {
                return LoadReport {
                    error: Some(d.clone().with_source(&file.text)),
                    warnings: warnings.into(),
                    files: read.into(),
                };
            }
            self.validate_ahead(&file);
            read.push(file.clone());
            if file
                .definitions
                .iter()
                .any(|d| d.kind == kind && d.name == name)
            {
                break;
            }
        }
        LoadReport {
            error: None,
            warnings: warnings.into(),
            files: read.into(),
        }
    }

    /// A function that is not written in Puppet: the embedder's, a built-in, else a module's
    /// Ruby function (its native implementation, or a stub that fails naming it).
    ///
    /// ```
    /// let env = puppet_eval::Environment::from_main(None, "");
    /// let f = env.function("join").unwrap();
    /// assert_eq!(f.dispatches()[0].signature_string(), "Array arg, String delimiter?");
    /// assert!(env.function("pick").is_none()); // stdlib's: only with the stdlib module
    /// ```
    pub fn function(&self, name: &str) -> Option<Arc<Function>> {
        self.function_with(name, true)
    }

    /// [`function`](Self::function), with the native implementations of the modules' Ruby
    /// functions left out when `native` is false (`Settings::native_functions`): the
    /// module's own Ruby runs instead, so that it can be checked against the natives.
    pub(crate) fn function_with(&self, name: &str, native: bool) -> Option<Arc<Function>> {
        if let Some(f) = self.shared.custom.as_ref().and_then(|r| r.get_shared(name)) {
            return Some(f);
        }
        if let Some(f) = puppet_functions::builtins::registry().get_shared(name) {
            return Some(f);
        }
        let key = crate::names::lower_bare(name);
        let cache = if native {
            &self.shared.ruby_functions
        } else {
            &self.shared.ruby_only_functions
        };
        if let Ok(map) = cache.read() {
            if let Some(f) = map.get(&*key) {
                return f.clone();
            }
        }
        let found = self.module_function(&key, native);
        match cache.write() {
            Ok(mut map) => map.entry(SmolStr::new(&key)).or_insert(found).clone(),
            Err(_) => found,
        }
    }

    /// The function `name` of the first module (in module path order) with a Ruby file
    /// defining it: the native implementation when there is one (and `native`) and the file
    /// is one it was checked against ([`puppet_stdlib::verified_source`]), else the file
    /// run by puppet-ruby; a file this interpreter cannot load falls back to the native of
    /// another version of the function when there is one, else to a stub that fails naming
    /// it.
    fn module_function(&self, name: &str, native: bool) -> Option<Arc<Function>> {
        let loader = &self.shared.loader;
        if let Some(f) = self.environment_ruby_function(name) {
            return f;
        }
        let files = self.function_files();
        for (index, m) in loader.modules().enumerate() {
            let module = &m.name;
            if native && self.shared.natives_for_any_version {
                if let Some(imp) = puppet_stdlib::native(module, name) {
                    return puppet_stdlib::native_function(&imp);
                }
            }
            let Some(rel) = files.in_module(loader, index, name) else {
                continue;
            };
            let imp = puppet_stdlib::native(module, name).filter(|_| native);
            if let Some(imp) = imp {
                if self.file_is_verified(module, name, &m.path.join(&rel)) {
                    return puppet_stdlib::native_function(&imp);
                }
            }
            let failure = match self.load_ruby_function(module, name, &rel) {
                Some(Ok(f)) => return registered(f),
                Some(Err(e)) => Some(e),
                None => None,
            };
            if let Some(imp) = imp {
                return puppet_stdlib::native_function(&imp);
            }
            return match failure {
                Some(e) => load_failure(name, &e),
                None => puppet_stdlib::stub_function(module, name, &rel),
            };
        }
        // A 3.x function of a shadowed module directory, as Puppet's autoloader finds it.
        let found = files.elsewhere(loader, name)?;
        let (dir_name, rel) = (&found.name, &found.rel);
        let path = found.dir.join(rel);
        let imp = puppet_stdlib::native(dir_name, name).filter(|_| native);
        if let Some(imp) = imp {
            if self.file_is_verified(dir_name, name, &path) {
                return puppet_stdlib::native_function(&imp);
            }
        }
        let failure = match self.load_ruby_file(&path, name) {
            Some(Ok(f)) => return registered(f),
            Some(Err(e)) => Some(e),
            None => None,
        };
        if let Some(imp) = imp {
            return puppet_stdlib::native_function(&imp);
        }
        match failure {
            Some(e) => load_failure(name, &e),
            None => puppet_stdlib::stub_function(dir_name, name, rel),
        }
    }

    /// A Ruby function of the environment directory itself, which Puppet's environment
    /// loader (global, after Puppet's own functions and before the modules) finds: a global
    /// `f` in `lib/puppet/functions/f.rb` (else the 3.x `lib/puppet/parser/functions/f.rb`),
    /// `environment::f` in `lib/puppet/functions/environment/f.rb`. `None` when there is no
    /// such file; `Some(None)` for a file that defines nothing usable, as for a module's.
    fn environment_ruby_function(&self, name: &str) -> Option<Option<Arc<Function>>> {
        let env_dir = self.shared.loader.config().env_dir.as_ref()?;
        // (A name that can name no file, as for the modules' files.)
        if !ruby_files::valid_name(name) {
            return None;
        }
        let candidates: Vec<String> = match name.split("::").collect::<Vec<_>>().as_slice() {
            [global] => vec![
                format!("lib/puppet/functions/{global}.rb"),
                format!("lib/puppet/parser/functions/{global}.rb"),
            ],
            ["environment", rest @ ..] => {
                vec![format!(
                    "lib/puppet/functions/environment/{}.rb",
                    rest.join("/")
                )]
            }
            _ => return None,
        };
        let provider = self.shared.loader.provider();
        let path = candidates
            .iter()
            .map(|rel| env_dir.join(rel))
            .find(|p| provider.kind(p) == Some(puppet_loader::EntryKind::File))?;
        Some(match self.load_ruby_file(&path, name) {
            Some(Ok(f)) => registered(f),
            Some(Err(e)) => load_failure(name, &e),
            None => None,
        })
    }

    /// The modules' Ruby function files, found by name ([`ruby_files`]).
    fn function_files(&self) -> &ruby_files::FunctionFiles {
        self.shared
            .function_files
            .get_or_init(|| ruby_files::FunctionFiles::new(self.listings().clone()))
    }

    /// Every module's Ruby function files, listed (for [`functions`](Self::functions)).
    fn ruby_files(&self) -> &ruby_files::RubyFiles {
        self.shared
            .ruby_files
            .get_or_init(|| ruby_files::list(&self.shared.loader))
    }

    /// Whether module `module`'s file `rel` for function `name` is one its native
    /// implementation was checked against.
    fn module_file_is_verified(&self, module: &str, name: &str, rel: &str) -> bool {
        let loader = &self.shared.loader;
        match loader.modules().find(|m| m.name == module) {
            Some(m) => self.file_is_verified(module, name, &m.path.join(rel)),
            None => false,
        }
    }

    /// Whether the file at `path` is one the native implementation of module `module`'s
    /// function `name` was checked against.
    fn file_is_verified(&self, module: &str, name: &str, path: &Path) -> bool {
        match self.shared.loader.provider().read_to_string(path) {
            Ok(text) => puppet_stdlib::verified_source(module, name, text.as_bytes()),
            Err(_) => false,
        }
    }

    /// Loads the module's Ruby function file `rel` with puppet-ruby (the file's tree is
    /// parsed once and shared; every call runs it in an interpreter of its own) and makes
    /// it a registry function, so that argument errors read as Puppet's. `None` when the
    /// file cannot be read or loaded, or defines another name.
    fn ruby_function(&self, module: &str, name: &str, rel: &str) -> Option<Arc<Function>> {
        registered(self.load_ruby_function(module, name, rel)?.ok()?)
    }

    /// Loads the module's Ruby function file `rel` (which must define `name`) with
    /// puppet-ruby: `None` when the file cannot be read, `Err` when puppet-ruby cannot load
    /// it or it defines another name.
    fn load_ruby_function(
        &self,
        module: &str,
        name: &str,
        rel: &str,
    ) -> Option<Result<puppet_ruby::functions::RubyFunction, FunctionLoadError>> {
        let loader = &self.shared.loader;
        let m = loader.modules().find(|m| m.name == module)?;
        self.load_ruby_file(&m.path.join(rel), name)
    }

    /// Loads the Ruby function file at `path` (which must define `name`) with puppet-ruby,
    /// as [`load_ruby_function`](Self::load_ruby_function).
    fn load_ruby_file(
        &self,
        path: &Path,
        name: &str,
    ) -> Option<Result<puppet_ruby::functions::RubyFunction, FunctionLoadError>> {
        let text = self.shared.loader.provider().read_to_string(path).ok()?;
        let sources = self.ruby_sources();
        let file = path.to_string_lossy();
        match puppet_ruby::functions::load(&file, &text, sources) {
            Ok(f) if f.name().eq_ignore_ascii_case(name) => Some(Ok(f)),
            // Puppet's loaders check the name the file's code defined last (the value the
            // file evaluates to).
            Ok(f) => Some(Err(FunctionLoadError::Misnamed(match f.api() {
                puppet_ruby::functions::Api::V3 => format!(
                    "The code loaded from {file} produced mis-matched name, expected 'function_{name}', got 'function_{}'",
                    f.name()
                ),
                _ => format!(
                    "The code loaded from {file} produced mis-matched name, expected '{name}', got {}",
                    f.name()
                ),
            }))),
            Err(e) => Some(Err(FunctionLoadError::Ruby(e))),
        }
    }

    /// The Ruby function `name` of the modules, for a Hiera backend (`data_hash`,
    /// `lookup_key`, `data_dig` in a `hiera.yaml`): a qualified name is looked for in its
    /// module first, then, as any function, in the modules in module path order. `None`
    /// when no module has a file for it; `Err` when puppet-ruby cannot load the file.
    pub(crate) fn ruby_backend_function(
        &self,
        name: &str,
    ) -> Option<Result<puppet_ruby::functions::RubyFunction, String>> {
        let key = crate::names::strip_root(name).to_ascii_lowercase();
        let loader = &self.shared.loader;
        let files = self.function_files();
        // A qualified name can only be in its own module (Puppet's module loaders); an
        // unqualified one in any module, in module path order.
        for (index, m) in loader.modules().enumerate() {
            if let Some(rel) = files.in_module(loader, index, &key) {
                if let Some(f) = self.load_ruby_function(&m.name, &key, &rel) {
                    return Some(f.map_err(|e| match e {
                        FunctionLoadError::Ruby(e) => e.to_string(),
                        FunctionLoadError::Misnamed(m) => m,
                    }));
                }
            }
        }
        None
    }

    /// The resource types known so far (puppet-agent's and the module types loaded). Use
    /// [`resource_type_known`](Self::resource_type_known) to load a module type first.
    pub(crate) fn types(&self) -> Arc<puppet_restypes::TypeDatabase> {
        match self.shared.types.read() {
            Ok(t) => t.clone(),
            Err(_) => crate::eval::known_types().clone(),
        }
    }

    /// Whether resource type `name` (lower case) exists, loading a module's
    /// `lib/puppet/type/<name>.rb` the first time.
    pub(crate) fn resource_type_known(&self, name: &str) -> bool {
        if self.types().get(name).is_some() {
            return true;
        }
        if let Ok(tried) = self.shared.types_tried.lock() {
            if let Some(known) = tried.get(name) {
                return *known;
            }
        }
        let info = self.load_module_type(name);
        let known = info.is_some();
        if let Some(info) = info {
            if let Ok(mut db) = self.shared.types.write() {
                if db.get(name).is_none() {
                    let mut next = (**db).clone();
                    next.insert(info);
                    *db = Arc::new(next);
                }
            }
        }
        if let Ok(mut tried) = self.shared.types_tried.lock() {
            tried.insert(SmolStr::new(name), known);
        }
        known
    }

    /// The modules' Ruby sources (`lib/` as the load path), each file parsed once for every
    /// interpreter: functions and type files.
    pub(crate) fn ruby_sources(&self) -> &Arc<puppet_ruby::Sources> {
        let loader = &self.shared.loader;
        self.shared.ruby_sources.get_or_init(|| {
            let modules = loader.modules().map(|m| m.path.clone()).collect::<Vec<_>>();
            let names = loader.modules().map(|m| m.name.clone()).collect();
            puppet_ruby::Sources::new(Arc::new(ModuleSources {
                provider: loader.provider().clone(),
                modules,
                listings: self.listings().clone(),
                env_dir: loader.config().env_dir.clone(),
                names,
                modulepath: loader.config().modulepath.clone(),
                hiera_roots: (self.hiera()).map(|l| l.data_roots()).unwrap_or_default(),
            }))
        })
    }

    /// The module directories' listings, read as they are needed.
    fn listings(&self) -> &Arc<listings::Listings> {
        let loader = &self.shared.loader;
        self.shared
            .listings
            .get_or_init(|| Arc::new(listings::Listings::of_modules(loader)))
    }

    /// Keeps `facts` as what `Facter.value` answers while module type files load, unless a
    /// compile did so before. Puppet asks the Facter of the host that loads the type (the
    /// server, or the node itself with `puppet apply`); the first node compiled in the
    /// environment stands for it. Only a few types ask (`firewall`, `mount`), for allowed
    /// values and munging.
    pub(crate) fn note_type_facts(&self, facts: &IndexMap<SmolStr, puppet_types::Value>) {
        self.shared
            .type_facts
            .get_or_init(|| Arc::new(facts.clone()));
    }

    /// Reads a module type: the first module (in path order) with
    /// `lib/puppet/type/<name>.rb`, run by puppet-ruby's type recorder (the helpers it
    /// `require`s come from the modules' `lib/`), with `provider` when some module has
    /// providers for it.
    fn load_module_type(&self, name: &str) -> Option<puppet_restypes::ResourceTypeInfo> {
        // A qualified name (`apache::vhost`) is never a Ruby type: Puppet skips the search
        // for built-in types when the name has a `:` (they are all top-level), so no
        // module's `lib/puppet/type` is probed for a defined type's name.
        if name.is_empty() || name.contains(['/', '.', ':']) {
            return None;
        }
        let provider = &**self.shared.loader.provider();
        let rel = format!("lib/puppet/type/{name}.rb");
        let listings = self.listings();
        let modules = || self.shared.loader.modules().enumerate();
        let (module, path, text) = modules().find_map(|(i, m)| {
            if !listings.is_file(i, &rel) {
                return None;
            }
            let path = m.path.join(&rel);
            let text = provider.read_to_string(&path).ok()?;
            Some((
                m.name.to_string(),
                path.to_string_lossy().into_owned(),
                text,
            ))
        })?;
        let mut files = vec![(module, path, text)];
        let providers = format!("lib/puppet/provider/{name}");
        for (i, m) in modules() {
            if !listings.is_dir(i, &providers) {
                continue;
            }
            for p in list_tree(provider, &m.path, &providers, 0) {
                if p.ends_with(".rb") {
                    let full = m.path.join(&p).to_string_lossy().into_owned();
                    files.push((m.name.to_string(), full, String::new()));
                    break;
                }
            }
        }
        let mut reader = puppet_restypes::RubyTypeReader::new(self.ruby_sources().clone());
        if let Some(facts) = self.shared.type_facts.get() {
            reader = reader.with_facts(facts.clone());
        }
        let mut db = puppet_restypes::TypeDatabase::new();
        db.load_modules_with(&reader, files);
        db.get(name).cloned()
    }

    /// A module template by the name `template()`/`epp()` are given: `module/path` below the
    /// module's `templates` directory, or the absolute path of such a file. Read once.
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new().with_file("/m/motd/templates/motd.erb", "Hi <%= @fqdn %>\n");
    /// let env = puppet_eval::Session::new().files(files).modulepath(["/m"]).load().unwrap();
    /// assert_eq!(&*env.template("motd/motd.erb").unwrap().text, "Hi <%= @fqdn %>\n");
    /// assert!(env.template("motd/none.erb").is_none());
    /// ```
    pub fn template(&self, name: &str) -> Option<Template> {
        if let Ok(map) = self.shared.templates.read() {
            if let Some(t) = map.get(name) {
                return t.clone();
            }
        }
        let found = self.read_template(name);
        match self.shared.templates.write() {
            Ok(mut map) => map.entry(SmolStr::new(name)).or_insert(found).clone(),
            Err(_) => found,
        }
    }

    fn read_template(&self, name: &str) -> Option<Template> {
        let path = if name.starts_with('/') {
            let p = PathBuf::from(name);
            // Only a file inside a module's templates directory.
            self.shared
                .loader
                .modules()
                .any(|m| p.starts_with(m.path.join("templates")))
                .then_some(p)?
        } else {
            let (module, below) = name.split_once('/')?;
            if below.is_empty() {
                return None;
            }
            self.module_dir(module)?.join("templates").join(below)
        };
        if self.shared.loader.provider().kind(&path) != Some(EntryKind::File) {
            return None;
        }
        let text = self.shared.loader.provider().read_to_string(&path).ok()?;
        Some(Template {
            path: path.to_string_lossy().into_owned(),
            text: Arc::from(text),
            erb: Arc::default(),
        })
    }

    /// The bytes of a file (an absolute path), read through the environment's provider.
    pub(crate) fn read_module_file(&self, path: &str) -> Option<Vec<u8>> {
        self.shared
            .loader
            .provider()
            .read_bytes(Path::new(path))
            .ok()
    }

    /// The provider files are read through.
    pub(crate) fn source(&self) -> &Arc<dyn SourceProvider> {
        self.shared.loader.provider()
    }
}

/// The code of Puppet's loader refusing a second entry of a name (a function or type alias
/// defined twice, an alias taking a built-in type's name): its message has no location.
pub(crate) const REDEFINED_ENTITY: &str = "REDEFINED_ENTITY";

/// Where Puppet's loader says a definition was set: `file:///path?line=L&pos=C`, or
/// `string:?line=L&pos=C` for code given as a string.
fn origin_uri(at: &Span) -> String {
    let (line, pos) = at.line_col();
    match &at.file.path {
        Some(p) => format!("file://{p}?line={line}&pos={pos}"),
        None => format!("string:?line={line}&pos={pos}"),
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
pub(crate) fn list_tree(
    provider: &dyn SourceProvider,
    dir: &Path,
    sub: &str,
    depth: usize,
) -> Vec<String> {
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

/// A loaded Ruby function as a registry function (its argument errors read as Puppet's).
fn registered(f: puppet_ruby::functions::RubyFunction) -> Option<Arc<Function>> {
    let mut reg = Registry::new();
    f.register(&mut reg).ok()?;
    reg.get_shared(f.name())
}

/// The function `name` whose Ruby file puppet-ruby cannot load: every call fails with the
/// load error, which names the file, line and construct. A syntax error is reported as
/// Puppet reports Ruby's `SyntaxError`, alone (no evaluation error, no location); a construct
/// this interpreter does not have, or an exception raised while the file runs, as the
/// call's error.
fn load_failure(name: &str, e: &FunctionLoadError) -> Option<Arc<Function>> {
    use puppet_functions::codes;
    let (code, message) = match e {
        FunctionLoadError::Ruby(e @ puppet_ruby::RubyError::Syntax { .. }) => {
            (codes::UNRESCUED, e.to_string())
        }
        FunctionLoadError::Ruby(e @ puppet_ruby::RubyError::Unsupported { .. }) => {
            (codes::UNSUPPORTED, e.to_string())
        }
        FunctionLoadError::Ruby(e) => (codes::FAILED, e.to_string()),
        FunctionLoadError::Misnamed(m) => (codes::FAILED, m.clone()),
    };
    puppet_stdlib::failing_function(name, code, message)
}

/// Why a module's Ruby function file gives no function.
#[derive(Debug)]
enum FunctionLoadError {
    /// puppet-ruby cannot load the file.
    Ruby(puppet_ruby::RubyError),
    /// The file defines a function of another name: Puppet's message.
    Misnamed(String),
}
