//! The lazy loader: an environment's files read and parsed the first time a name needs them.
//!
//! A [`Loader`] is what a compile sees of an environment. Opening one lists the module path
//! (module names and `metadata.json`) and parses the main manifest; nothing else. A class,
//! defined type, function or type alias is found by Puppet's name -> file rules
//! ([`names::autoload_candidates`], [`names::function_path`], [`names::type_alias_path`]):
//! its candidate files are read through the [`SourceProvider`], parsed, checked against
//! Puppet's location rules and cached, general to specific, until one defines the name.
//!
//! Results never depend on what was loaded before: a name resolves only through the main
//! manifest or its own candidate files, never through a file that happened to be loaded for
//! another name (Puppet would find `x::wz` defined in `x/manifests/w.pp` only after
//! something loaded `x::w`; here it is never found, and [`Index`](crate::Index) reports such
//! definitions as `LOADER_NOT_AUTOLOADABLE`). Caches are filled under locks by pure
//! functions of the files, so concurrent compiles get the same answers in any order: a
//! [`Loader`] is `Send + Sync` and meant to be shared (`Arc`) by every compile of an
//! environment.
//!
//! ```
//! use puppet_loader::{DefKind, EnvironmentConfig, Loader, MemoryProvider};
//! use std::sync::Arc;
//! let provider = MemoryProvider::new()
//!     .with_file("/env/site.pp", "include ntp")
//!     .with_file("/env/modules/ntp/manifests/init.pp", "class ntp { include ntp::config }")
//!     .with_file("/env/modules/ntp/manifests/config.pp", "class ntp::config { }")
//!     .with_file("/env/modules/apache/manifests/init.pp", "class apache { }");
//! let mut config = EnvironmentConfig::with_modulepath(["/env/modules"]);
//! config.manifest = Some("/env/site.pp".into());
//! let loader = Loader::open(&config, Arc::new(provider));
//! assert_eq!(loader.loaded_files(), 1); // the main manifest only
//! let def = loader.resolve(DefKind::Class, "::NTP::Config").unwrap();
//! assert_eq!(&*def.file, std::path::Path::new("/env/modules/ntp/manifests/config.pp"));
//! // init.pp was read first (general to specific), apache's files never.
//! assert_eq!(loader.loaded_files(), 3);
//! assert!(loader.resolve(DefKind::Class, "ntp::missing").is_none());
//! ```

use crate::defs::{DefKind, Definition};
use crate::diagnostic::{Diagnostic, ProviderError};
use crate::env::{
    discover_modules, load_one, main_manifest_files, EnvironmentConfig, FileRole, Found,
    LoadedFile, Module, ParseCache,
};
use crate::names::{self, NamePath, Owner};
use crate::provider::SourceProvider;
use indexmap::IndexMap;
use rustc_hash::FxHashMap;
use smol_str::SmolStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// A file cache entry: the loaded file, or `None` when there is no such file.
type FileSlot = Option<Arc<LoadedFile>>;

/// A file cache cell, filled once. Threads that ask for a file another thread is loading
/// wait for that load instead of parsing the file a second time (a compile's load-ahead
/// on another core hands its work over this way).
type FileCell = Arc<OnceLock<FileSlot>>;

/// An environment's module path and main manifest, loaded on demand. See the module docs.
#[derive(Debug)]
pub struct Loader {
    config: EnvironmentConfig,
    provider: Arc<dyn SourceProvider>,
    parses: Arc<ParseCache>,
    modules: IndexMap<SmolStr, Module>,
    diagnostics: Vec<Diagnostic>,
    main: Vec<Arc<LoadedFile>>,
    /// The main manifest's definitions (first in file order wins), which shadow module ones.
    main_defs: FxHashMap<(DefKind, SmolStr), Definition>,
    /// Keyed by path with a fast hasher: every resolution looks its candidate files up here
    /// (std's SipHash over a path's components cost ~1K instructions a lookup).
    files: Mutex<FxHashMap<PathBuf, FileCell>>,
    resolved: RwLock<FxHashMap<(DefKind, SmolStr), Option<Definition>>>,
}

impl Loader {
    /// Opens an environment: lists the module path and parses the main manifest.
    pub fn open(config: &EnvironmentConfig, provider: Arc<dyn SourceProvider>) -> Loader {
        Loader::open_with_cache(config, provider, Arc::new(ParseCache::private()))
    }

    /// [`open`](Loader::open), sharing parses with other loaders through `parses` (files
    /// whose text did not change are not parsed again).
    pub fn open_with_cache(
        config: &EnvironmentConfig,
        provider: Arc<dyn SourceProvider>,
        parses: Arc<ParseCache>,
    ) -> Loader {
        let mut diagnostics = Vec::new();
        let modules = discover_modules(config, &*provider, &mut diagnostics);
        let mut main = Vec::new();
        let mut main_defs = FxHashMap::default();
        for found in main_manifest_files(config, &*provider, &mut diagnostics) {
            match provider.read_to_arc(&found.path) {
                Ok(text) => {
                    let file = Arc::new(load_one(config, &found, text, &parses));
                    for d in &file.definitions {
                        main_defs
                            .entry((d.kind, d.name.clone()))
                            .or_insert_with(|| d.clone());
                    }
                    main.push(file);
                }
                Err(e) => diagnostics.push(e.to_diagnostic()),
            }
        }
        Loader {
            config: config.clone(),
            provider,
            parses,
            modules,
            diagnostics,
            main,
            main_defs,
            files: Mutex::new(FxHashMap::default()),
            resolved: RwLock::new(FxHashMap::default()),
        }
    }

    /// The configuration this loader was opened with.
    pub fn config(&self) -> &EnvironmentConfig {
        &self.config
    }

    /// The provider every read goes through.
    pub fn provider(&self) -> &Arc<dyn SourceProvider> {
        &self.provider
    }

    /// The parse cache this loader was opened with ([`open`](Loader::open) makes a private
    /// one that keeps nothing; [`open_with_cache`](Loader::open_with_cache) shares one).
    pub fn parse_cache(&self) -> &Arc<ParseCache> {
        &self.parses
    }

    /// Modules in module path order (within one directory, sorted by name).
    pub fn modules(&self) -> impl Iterator<Item = &Module> {
        self.modules.values()
    }

    /// A module by name.
    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.get(name)
    }

    /// Problems found when opening: module discovery, `metadata.json`, the main manifest
    /// (its syntax and location problems are in its files' diagnostics).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The main manifest's files, in evaluation order.
    pub fn main_files(&self) -> &[Arc<LoadedFile>] {
        &self.main
    }

    /// The number of files parsed so far (main manifest included).
    pub fn loaded_files(&self) -> usize {
        let cached = self
            .files
            .lock()
            .map(|m| {
                m.values()
                    .filter(|f| matches!(f.get(), Some(Some(_))))
                    .count()
            })
            .unwrap_or(0);
        self.main.len() + cached
    }

    /// The directory of a name's owner: a module's directory or the environment directory.
    pub fn owner_dir(&self, owner: &Owner) -> Option<&Path> {
        match owner {
            Owner::Module(m) => self.modules.get(m.as_str()).map(|m| m.path.as_path()),
            Owner::Environment => self.config.env_dir.as_deref(),
        }
    }

    /// Resolves an absolute name (case-insensitive, leading `::` allowed): the main
    /// manifest's definition, else the first candidate file (general to specific) that
    /// defines it. Reads and parses candidate files the first time.
    pub fn resolve(&self, kind: DefKind, name: &str) -> Option<Definition> {
        let canon = SmolStr::from(names::canonical(name)?);
        let key = (kind, canon);
        if let Some(d) = self.main_defs.get(&key) {
            return Some(d.clone());
        }
        if let Ok(map) = self.resolved.read() {
            if let Some(found) = map.get(&key) {
                return found.clone();
            }
        }
        let found = self.search(kind, &key.1);
        if let Ok(mut map) = self.resolved.write() {
            return map.entry(key).or_insert(found).clone();
        }
        found
    }

    /// The candidate files of `name` (of `kind`), general to specific, that exist, loaded.
    /// A compile reports their problems when it needs the name.
    pub fn candidate_files(&self, kind: DefKind, name: &str) -> Vec<Arc<LoadedFile>> {
        self.candidates(kind, name)
            .into_iter()
            .filter_map(|(np, role)| self.load_named(&np, role))
            .collect()
    }

    /// A file already loaded (by a resolution or an [`Index`](crate::Index) build), by path.
    pub fn loaded_file(&self, path: &Path) -> Option<Arc<LoadedFile>> {
        if let Some(f) = self.main.iter().find(|f| &*f.path == path) {
            return Some(f.clone());
        }
        self.cached_file(path)
    }

    /// A file whose load has finished, by path.
    fn cached_file(&self, path: &Path) -> Option<Arc<LoadedFile>> {
        let cell = self.files.lock().ok()?.get(path).cloned()?;
        cell.get().cloned().flatten()
    }

    /// The loaded file of a definition.
    pub fn file_of(&self, def: &Definition) -> Option<Arc<LoadedFile>> {
        if let Some(f) = self.main.iter().find(|f| f.path == def.file) {
            return Some(f.clone());
        }
        self.cached_file(&def.file)
    }

    fn candidates(&self, kind: DefKind, name: &str) -> Vec<(NamePath, FileRole)> {
        match kind {
            DefKind::Class | DefKind::Define => names::autoload_candidates(name)
                .into_iter()
                .map(|np| (np, FileRole::Manifest))
                .collect(),
            DefKind::Function => names::function_path(name)
                .map(|np| (np, FileRole::Function))
                .into_iter()
                .collect(),
            DefKind::TypeAlias => names::type_alias_path(name)
                .map(|np| (np, FileRole::TypeAlias))
                .into_iter()
                .collect(),
        }
    }

    fn search(&self, kind: DefKind, canon: &str) -> Option<Definition> {
        for (np, role) in self.candidates(kind, canon) {
            let Some(file) = self.load_named(&np, role) else {
                continue;
            };
            if let Some(d) = file
                .definitions
                .iter()
                .find(|d| d.kind == kind && d.name == canon)
            {
                return Some(d.clone());
            }
        }
        None
    }

    fn load_named(&self, np: &NamePath, role: FileRole) -> Option<Arc<LoadedFile>> {
        let dir = self.owner_dir(&np.owner)?;
        let module = match &np.owner {
            Owner::Module(m) => Some(SmolStr::from(m.as_str())),
            Owner::Environment => None,
        };
        let found = Found {
            path: dir.join(&np.path),
            role,
            module,
            relative: np.path.clone(),
        };
        self.load(&found)
    }

    /// Loads (once) a file found by listing or by a name rule.
    pub(crate) fn load(&self, found: &Found) -> Option<Arc<LoadedFile>> {
        let cell = match self.files.lock() {
            Ok(mut map) => match map.get(&found.path) {
                Some(cell) => cell.clone(),
                None => map.entry(found.path.clone()).or_default().clone(),
            },
            Err(_) => Arc::default(),
        };
        // A candidate that is missing, or is not a file, cannot be read: no separate
        // question of what is at the path first.
        cell.get_or_init(|| match self.provider.read_to_arc(&found.path) {
            Ok(text) => Some(Arc::new(load_one(&self.config, found, text, &self.parses))),
            Err(_) => None,
        })
        .clone()
    }

    /// Reads a file below the module path or the environment (templates, data, Ruby code)
    /// through the provider.
    pub fn read_to_string(&self, path: &Path) -> Result<String, ProviderError> {
        self.provider.read_to_string(path)
    }
}
