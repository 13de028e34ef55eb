//! What an environment consists of (configuration, modules, loaded files) and the
//! whole-environment [`Index`].
//!
//! [`Index::build`] lists every Puppet-language file of a [`Loader`]'s environment, reads and
//! parses them in parallel through the loader (deterministically: results are placed by
//! file, not by finishing order), and indexes every class, defined type, function and type
//! alias. Resolving a name through the index gives what the lazy [`Loader`] gives. Changes
//! on disk are seen by loading a new snapshot; a shared [`ParseCache`] makes that cheap for
//! files that did not change.
//!
//! Precedence when a (kind, name) is defined more than once: the main manifest first (in
//! load order), then a module file the name autoloads from, general to specific
//! (`init.pp`, then `mod.pp`, then `mod/passenger.pp`: RFC 1 solution II). A definition in
//! any other file is reported (`LOADER_NOT_AUTOLOADABLE`) and never resolved. Modules with
//! the same name: the first on the module path wins.

use crate::defs::{display, scan_file, DefKind, Definition};
use crate::diagnostic::{codes, Diagnostic, ProviderError};
use crate::loader::Loader;
use crate::metadata::Metadata;
use crate::names::{self, FileNamespace, NamePath, Owner};
use crate::provider::{EntryKind, SourceProvider};
use indexmap::IndexMap;
use puppet_syntax::flat::FlatParse;
use puppet_syntax::{Parse, SyntaxNode};
use serde::Serialize;
use smol_str::SmolStr;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Where an environment's files are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvironmentConfig {
    /// Module path directories, first wins.
    pub modulepath: Vec<PathBuf>,
    /// The main manifest: a `.pp` file, or a directory whose `.pp` files are read in sorted
    /// order (recursively).
    pub manifest: Option<PathBuf>,
    /// The environment directory, for environment functions (`<dir>/functions`, named
    /// `environment::...`) and type aliases (`<dir>/types`).
    pub env_dir: Option<PathBuf>,
    /// The environment's deprecated `environment_data_provider` setting (`none`, `hiera`,
    /// `function`), which Hiera applies to the environment layer; `None` when unset.
    pub data_provider: Option<String>,
}

impl EnvironmentConfig {
    /// A configuration with only a module path.
    pub fn with_modulepath(modulepath: impl IntoIterator<Item = impl Into<PathBuf>>) -> Self {
        EnvironmentConfig {
            modulepath: modulepath.into_iter().map(Into::into).collect(),
            ..Default::default()
        }
    }

    /// Every directory or file the environment reads below (the roots an
    /// [`FsProvider`](crate::FsProvider) should serve).
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut r = self.modulepath.clone();
        r.extend(self.manifest.clone());
        r.extend(self.env_dir.clone());
        r
    }
}

/// A module found on the module path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Module {
    /// The directory name, which is the module's name.
    pub name: SmolStr,
    pub path: PathBuf,
    /// `metadata.json`, when present and readable.
    pub metadata: Option<Metadata>,
}

impl Module {
    /// Whether this module may see functions of module `other` under the rule of seed 003:
    /// itself always; the modules listed in `dependencies`; every module when there is no
    /// `dependencies` entry.
    pub fn sees(&self, other: &str) -> bool {
        if other == self.name {
            return true;
        }
        match self.metadata.as_ref().and_then(|m| m.dependencies.as_ref()) {
            None => true,
            Some(deps) => deps.iter().any(|d| d.module_name() == other),
        }
    }
}

/// Why a file is part of the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileRole {
    /// Part of the main manifest.
    MainManifest,
    /// A module's `manifests/**.pp`.
    Manifest,
    /// A module's or the environment's `functions/**.pp`.
    Function,
    /// A module's or the environment's `types/**.pp`.
    TypeAlias,
}

/// A parsed file of the environment, shareable across threads. Its fields do not change;
/// its syntax tree may be released and is then parsed again on demand ([`LoadedFile::parse`]).
#[derive(Debug)]
pub struct LoadedFile {
    pub path: Arc<Path>,
    pub role: FileRole,
    /// The owning module (`None` for the main manifest and environment files).
    pub module: Option<SmolStr>,
    /// Path below the module (or environment) directory, e.g. `manifests/mod/passenger.pp`.
    pub relative: PathBuf,
    pub text: Arc<str>,
    /// The parse tree (shared with other snapshots through the [`ParseCache`]); `None`
    /// once released (see [`release_tree`](Self::release_tree)) and, for a loader that
    /// shares no parses, until a tool asks for it: the compile path reads the flat tree.
    tree: RwLock<Option<Arc<Parse>>>,
    /// The flat tree the loader scanned and a compile lowers; `None` once released.
    flat: RwLock<Option<Arc<FlatParse>>>,
    /// Definitions that passed the location check, in source order.
    pub definitions: Vec<Definition>,
    /// Syntax and location problems of this file.
    pub diagnostics: Vec<Diagnostic>,
    /// What Puppet warns about when it parses this file, each with the file: the lexer's
    /// warnings (an unrecognised escape), then hash literals' keys given twice
    /// (`DUPLICATE_KEY`). A compile logs them for the files it reads ([`parse_warnings`]).
    pub warnings: Vec<Diagnostic>,
    /// What Puppet's validator says of this file ([`validation`](Self::validation)).
    validation: OnceLock<Vec<Diagnostic>>,
    /// Whether someone took on computing `validation` ([`start_validation`](Self::start_validation)).
    validation_started: std::sync::atomic::AtomicBool,
}

impl LoadedFile {
    /// The parse tree of the text (parsed again when it was released).
    pub fn parse(&self) -> Arc<Parse> {
        if let Ok(tree) = self.tree.read() {
            if let Some(p) = &*tree {
                return p.clone();
            }
        }
        let parse = Arc::new(puppet_syntax::parse(&self.text));
        if let Ok(mut tree) = self.tree.write() {
            return tree.get_or_insert(parse).clone();
        }
        parse
    }

    /// What Puppet's validator (`Checker4_0`, [`puppet_syntax::validate::validate`]) finds
    /// in this file, errors and warnings in source order, each with the file and its line
    /// and column: what Puppet's autoloader reports when it parses the file (an error fails
    /// the compile). Computed once, on the first call, from a parse made for it and not kept
    /// (the tree is not [`parse`](Self::parse)'s, which a compile never builds). Empty for a
    /// file with a syntax error: Puppet stops at that.
    pub fn validation(&self) -> &[Diagnostic] {
        self.validation.get_or_init(|| {
            let parse = match self.tree.read().ok().and_then(|t| t.clone()) {
                Some(kept) => kept,
                None => Arc::new(puppet_syntax::parse(&self.text)),
            };
            if parse.errors().iter().any(|d| d.is_error()) {
                return Vec::new();
            }
            let file = self.path.display().to_string();
            puppet_syntax::validate::validate(&parse)
                .into_iter()
                .map(|d| d.with_file(file.clone()).with_source(&self.text))
                .collect()
        })
    }

    /// True for the first caller only: who may compute [`validation`](Self::validation)
    /// ahead of need (on another thread); the others just read it when they need it.
    pub fn start_validation(&self) -> bool {
        !self
            .validation_started
            .swap(true, std::sync::atomic::Ordering::AcqRel)
    }

    /// The flat tree of the text, for passes that read it once downwards (lowering); parsed
    /// again when it was released.
    pub fn flat(&self) -> Arc<FlatParse> {
        if let Ok(tree) = self.flat.read() {
            if let Some(p) = &*tree {
                return p.clone();
            }
        }
        let parse = Arc::new(puppet_syntax::flat::parse(self.text.clone()));
        if let Ok(mut tree) = self.flat.write() {
            return tree.get_or_insert(parse).clone();
        }
        parse
    }

    /// Lets the parse trees go (a compiler that has lowered the file keeps only its own
    /// form): their memory is freed unless a [`ParseCache`] shared with other loaders holds
    /// the rowan one. A later [`parse`](Self::parse) or [`flat`](Self::flat) parses the
    /// text again.
    pub fn release_tree(&self) {
        if let Ok(mut tree) = self.tree.write() {
            *tree = None;
        }
        if let Ok(mut tree) = self.flat.write() {
            *tree = None;
        }
    }

    /// The syntax node of a definition of this file (class, define, function or type
    /// alias), for evaluators that need its AST.
    pub fn syntax_of(&self, def: &Definition) -> Option<SyntaxNode> {
        let root = self.parse().syntax();
        let range = puppet_syntax::TextRange::new(def.range.0.into(), def.range.1.into());
        if range.end() > root.text_range().end() {
            return None;
        }
        let mut node = match root.covering_element(range) {
            puppet_syntax::SyntaxElement::Node(n) => n,
            puppet_syntax::SyntaxElement::Token(t) => t.parent()?,
        };
        use puppet_syntax::SyntaxKind as K;
        let want = match def.kind {
            DefKind::Class => K::CLASS_DEF,
            DefKind::Define => K::DEFINE_DEF,
            DefKind::Function => K::FUNCTION_DEF,
            DefKind::TypeAlias => K::TYPE_ALIAS,
        };
        loop {
            if node.kind() == want {
                return Some(node);
            }
            node = node.parent()?;
        }
    }
}

/// A cached parse and the text it was made from.
type CachedParse = (Arc<str>, Arc<Parse>);

/// The precedence key of a definition (lower wins).
type Precedence = (u8, usize, usize);

/// Parses shared between environment snapshots (and threads): a file whose text did not
/// change is not parsed again.
#[derive(Debug)]
pub struct ParseCache {
    map: Mutex<HashMap<PathBuf, CachedParse>>,
    /// False for a loader's private cache ([`Loader::open`](crate::Loader::open)): no
    /// other loader can ask for its parses, so its files get flat trees only (the compile
    /// path), and a tool asking one for its rowan tree gets it parsed then.
    retain: bool,
}

impl Default for ParseCache {
    fn default() -> Self {
        ParseCache {
            map: Mutex::default(),
            retain: true,
        }
    }
}

impl ParseCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// A cache that keeps nothing, for a loader that shares its parses with no other.
    pub(crate) fn private() -> Self {
        ParseCache {
            map: Mutex::default(),
            retain: false,
        }
    }

    /// The rowan parse of `text`, from the cache when it holds one of the same text.
    fn get_or_parse(&self, path: &Path, text: &Arc<str>) -> Arc<Parse> {
        if let Ok(map) = self.map.lock() {
            if let Some((t, p)) = map.get(path) {
                if **t == **text {
                    return p.clone();
                }
            }
        }
        let parse = Arc::new(puppet_syntax::parse(text));
        if let Ok(mut map) = self.map.lock() {
            map.insert(path.to_path_buf(), (text.clone(), parse.clone()));
        }
        parse
    }

    /// Number of cached parses.
    pub fn len(&self) -> usize {
        self.map.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How a relative name is looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionMode {
    /// Puppet 4+: every name is absolute (`foo` means `::foo`).
    #[default]
    Absolute,
    /// Puppet 3 compatibility: `foo` inside namespace `a::b` tries `a::b::foo`, `a::foo`,
    /// then `foo`; `::foo` forces the top-level name.
    Relative,
}

/// The whole-environment index: every Puppet-language file of the main manifest, the
/// modules and the environment directory parsed (in parallel), and every definition
/// indexed by (kind, canonical name). Built over a [`Loader`] (which it fills), for the tools
/// that want everything (validation, listings, the hazard and visibility reports); a
/// compile uses the [`Loader`] alone and reads only what it needs. Both answer every name
/// the same way.
#[derive(Debug)]
pub struct Index {
    config: EnvironmentConfig,
    modules: IndexMap<SmolStr, Module>,
    files: IndexMap<Arc<Path>, Arc<LoadedFile>>,
    index: IndexMap<(DefKind, SmolStr), Definition>,
    diagnostics: Vec<Diagnostic>,
}

/// A file found while listing (or by a name rule), before reading.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub(crate) path: PathBuf,
    pub(crate) role: FileRole,
    pub(crate) module: Option<SmolStr>,
    pub(crate) relative: PathBuf,
}

const MAX_DEPTH: usize = 64;

/// The files of the main manifest (a file, or a directory read recursively in sorted order).
pub(crate) fn main_manifest_files(
    config: &EnvironmentConfig,
    provider: &dyn SourceProvider,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Found> {
    let mut found = Vec::new();
    let Some(manifest) = &config.manifest else {
        return found;
    };
    match provider.kind(manifest) {
        Some(EntryKind::Dir) => {
            let mut files = Vec::new();
            walk(
                provider,
                manifest,
                &mut Vec::new(),
                0,
                &mut files,
                diagnostics,
            );
            for p in files {
                let relative = p.strip_prefix(manifest).unwrap_or(&p).to_path_buf();
                found.push(Found {
                    path: p,
                    role: FileRole::MainManifest,
                    module: None,
                    relative,
                });
            }
        }
        Some(EntryKind::File) => found.push(Found {
            path: manifest.clone(),
            role: FileRole::MainManifest,
            module: None,
            relative: manifest.file_name().map(PathBuf::from).unwrap_or_default(),
        }),
        _ => diagnostics.push(ProviderError::NotFound(manifest.clone()).to_diagnostic()),
    }
    found
}

impl Index {
    /// Loads and indexes a whole environment through `provider`.
    ///
    /// ```
    /// use puppet_loader::{DefKind, Index, EnvironmentConfig, MemoryProvider};
    /// use std::sync::Arc;
    /// let provider = MemoryProvider::new()
    ///     .with_file("/mp/apache/manifests/init.pp", "class apache { }")
    ///     .with_file("/mp/apache/manifests/mod/passenger.pp",
    ///                "class apache::mod::passenger { }")
    ///     .with_file("/mp/apache/functions/bool2httpd.pp",
    ///                "function apache::bool2httpd($x) { $x }");
    /// let env = Index::load(&EnvironmentConfig::with_modulepath(["/mp"]), Arc::new(provider));
    /// let def = env.resolve(DefKind::Class, "::Apache::Mod::Passenger").unwrap();
    /// assert_eq!(&*def.file, std::path::Path::new("/mp/apache/manifests/mod/passenger.pp"));
    /// assert!(env.resolve(DefKind::Function, "apache::bool2httpd").is_some());
    /// assert!(env.resolve(DefKind::Class, "nginx").is_none());
    /// ```
    pub fn load(config: &EnvironmentConfig, provider: Arc<dyn SourceProvider>) -> Index {
        Index::build(&Loader::open(config, provider))
    }

    /// Loads an environment, reusing (and filling) `cache`.
    pub fn load_with_cache(
        config: &EnvironmentConfig,
        provider: Arc<dyn SourceProvider>,
        cache: Arc<ParseCache>,
    ) -> Index {
        Index::build(&Loader::open_with_cache(config, provider, cache))
    }

    /// Reads every remaining file of `loader`'s environment (in parallel) and indexes it.
    pub fn build(loader: &Loader) -> Index {
        let config = loader.config();
        let provider = &**loader.provider();
        let mut diagnostics = loader.diagnostics().to_vec();
        let mut found = Vec::new();
        for module in loader.modules() {
            for (dir, role) in [
                ("manifests", FileRole::Manifest),
                ("functions", FileRole::Function),
                ("types", FileRole::TypeAlias),
            ] {
                collect_role(
                    provider,
                    &module.path,
                    dir,
                    role,
                    Some(&module.name),
                    &mut found,
                    &mut diagnostics,
                );
            }
        }
        if let Some(env_dir) = &config.env_dir {
            for (dir, role) in [
                ("functions", FileRole::Function),
                ("types", FileRole::TypeAlias),
            ] {
                collect_role(
                    provider,
                    env_dir,
                    dir,
                    role,
                    None,
                    &mut found,
                    &mut diagnostics,
                );
            }
        }

        // Read, parse and scan in parallel, placing each result at its file's index, so the
        // outcome does not depend on which worker finished first.
        let loaded = parse_all(loader, &found);

        let mut files = IndexMap::new();
        for f in loader.main_files() {
            files.insert(f.path.clone(), f.clone());
        }
        for (f, r) in found.iter().zip(loaded) {
            match r {
                Some(lf) => {
                    files.insert(lf.path.clone(), lf);
                }
                None => diagnostics.push(
                    ProviderError::Io {
                        path: f.path.clone(),
                        message: "could not be read".into(),
                    }
                    .to_diagnostic(),
                ),
            }
        }
        let index = build_index(&files, &mut diagnostics);
        Index {
            config: config.clone(),
            modules: loader
                .modules()
                .map(|m| (m.name.clone(), m.clone()))
                .collect(),
            files,
            index,
            diagnostics,
        }
    }

    /// The configuration this snapshot was loaded from.
    pub fn config(&self) -> &EnvironmentConfig {
        &self.config
    }

    /// Modules in module path order (within one directory, sorted by name).
    pub fn modules(&self) -> impl Iterator<Item = &Module> {
        self.modules.values()
    }

    /// A module by name.
    pub fn module(&self, name: &str) -> Option<&Module> {
        self.modules.get(name)
    }

    /// Every parsed file, main manifest first, then modules in order, then environment files.
    pub fn files(&self) -> impl Iterator<Item = &Arc<LoadedFile>> {
        self.files.values()
    }

    /// A parsed file by path.
    pub fn file(&self, path: &Path) -> Option<&Arc<LoadedFile>> {
        self.files.get(path)
    }

    /// Environment-level diagnostics (module discovery, metadata, IO, duplicates).
    /// Per-file problems are in [`LoadedFile::diagnostics`]; [`Index::all_diagnostics`]
    /// gives both.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Environment diagnostics followed by every file's diagnostics, in file order.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .chain(self.files.values().flat_map(|f| f.diagnostics.iter()))
    }

    /// Every indexed definition: sorted by kind, then name.
    pub fn definitions(&self) -> impl Iterator<Item = &Definition> {
        self.index.values()
    }

    /// Resolves an absolute name (modern Puppet): case-insensitive, leading `::` allowed.
    pub fn resolve(&self, kind: DefKind, name: &str) -> Option<&Definition> {
        let canon = names::canonical(name)?;
        self.index.get(&(kind, SmolStr::from(canon)))
    }

    /// Resolves `name` as written inside `namespace` (the enclosing class or define; empty
    /// at top scope) under `mode`.
    ///
    /// ```
    /// use puppet_loader::{DefKind, Index, EnvironmentConfig, MemoryProvider, ResolutionMode};
    /// use std::sync::Arc;
    /// let provider = MemoryProvider::new()
    ///     .with_file("/mp/a/manifests/init.pp", "class a { include b }")
    ///     .with_file("/mp/a/manifests/b.pp", "class a::b { }")
    ///     .with_file("/mp/b/manifests/init.pp", "class b { }");
    /// let env = Index::load(&EnvironmentConfig::with_modulepath(["/mp"]), Arc::new(provider));
    /// let abs = env.resolve_in(DefKind::Class, "b", "a", ResolutionMode::Absolute).unwrap();
    /// let rel = env.resolve_in(DefKind::Class, "b", "a", ResolutionMode::Relative).unwrap();
    /// assert_eq!((abs.name.as_str(), rel.name.as_str()), ("b", "a::b"));
    /// ```
    pub fn resolve_in(
        &self,
        kind: DefKind,
        name: &str,
        namespace: &str,
        mode: ResolutionMode,
    ) -> Option<&Definition> {
        match mode {
            ResolutionMode::Absolute => self.resolve(kind, name),
            ResolutionMode::Relative => names::relative_candidates(namespace, name)
                .iter()
                .find_map(|c| self.resolve(kind, c)),
        }
    }

    /// The parsed file holding a definition.
    pub fn file_of(&self, def: &Definition) -> Option<&Arc<LoadedFile>> {
        self.files.get(&def.file)
    }

    /// The directory of a name's owner: a module's directory or the environment directory.
    pub fn owner_dir(&self, owner: &Owner) -> Option<&Path> {
        match owner {
            Owner::Module(m) => self.modules.get(m.as_str()).map(|m| m.path.as_path()),
            Owner::Environment => self.config.env_dir.as_deref(),
        }
    }

    /// The absolute path a [`NamePath`] denotes in this environment, if its owner exists.
    pub fn path_of(&self, np: &NamePath) -> Option<PathBuf> {
        self.owner_dir(&np.owner).map(|d| d.join(&np.path))
    }
}

pub(crate) fn discover_modules(
    config: &EnvironmentConfig,
    provider: &dyn SourceProvider,
    diagnostics: &mut Vec<Diagnostic>,
) -> IndexMap<SmolStr, Module> {
    let mut modules: IndexMap<SmolStr, Module> = IndexMap::new();
    // Modules Puppet refused for their metadata: they still hide later ones of the name.
    let mut refused: Vec<SmolStr> = Vec::new();
    for dir in &config.modulepath {
        let mut entries = match provider.list_dir(dir) {
            Ok(e) => e,
            // Puppet ignores module path entries that do not exist.
            Err(ProviderError::NotFound(_)) => continue,
            Err(e) => {
                diagnostics.push(e.to_diagnostic());
                continue;
            }
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        for entry in entries {
            let path = dir.join(&entry.name);
            match entry.kind {
                EntryKind::File => continue,
                EntryKind::Refused(reason) => {
                    diagnostics.push(crate::diagnostic::error(
                        codes::PATH_ESCAPE,
                        format!("refused {}: {reason}", path.display()),
                        Some(path),
                        None,
                    ));
                    continue;
                }
                EntryKind::Dir => {}
            }
            if !names::is_valid_module_name(&entry.name) {
                diagnostics.push(crate::diagnostic::warning(
                    codes::INVALID_MODULE_NAME,
                    format!(
                        "ignoring directory '{}' on the module path: '{}' is not a valid module name (it must match /^[a-z][a-z0-9_]*$/)",
                        path.display(),
                        entry.name
                    ),
                    Some(path),
                    None,
                ));
                continue;
            }
            let name = SmolStr::from(entry.name.as_str());
            if refused.contains(&name) {
                continue;
            }
            if let Some(first) = modules.get(&name) {
                diagnostics.push(crate::diagnostic::warning(
                    codes::SHADOWED_MODULE,
                    format!(
                        "module '{}' at {} is shadowed by {} earlier on the module path",
                        name,
                        path.display(),
                        first.path.display()
                    ),
                    Some(path),
                    None,
                ));
                continue;
            }
            let meta_path = path.join("metadata.json");
            // Read without asking for the file's kind first (one system call less per
            // module): a missing file is no metadata, and any other failure is what it was
            // when the kind was asked first (nothing for what is not a file, else the error).
            let read = match provider.read_to_string(&meta_path) {
                Err(ProviderError::NotFound(_)) => None,
                Err(e) => match provider.kind(&meta_path) {
                    Some(EntryKind::File) => Some(Err(e)),
                    _ => None,
                },
                Ok(text) => Some(Ok(text)),
            };
            let metadata = match read {
                Some(read) => match read {
                    Ok(text) => match Metadata::read(&text, &meta_path, &name) {
                        Ok((m, d)) => {
                            diagnostics.extend(d);
                            m
                        }
                        Err(refusal) => {
                            let d = crate::diagnostic::error(
                                codes::MISSING_METADATA,
                                refusal,
                                Some(meta_path),
                                None,
                            );
                            diagnostics.push(d);
                            refused.push(name);
                            continue;
                        }
                    },
                    Err(e) => {
                        diagnostics.push(e.to_diagnostic());
                        None
                    }
                },
                None => None,
            };
            modules.insert(
                name.clone(),
                Module {
                    name,
                    path,
                    metadata,
                },
            );
        }
    }
    modules
}

fn collect_role(
    provider: &dyn SourceProvider,
    owner_dir: &Path,
    dir: &str,
    role: FileRole,
    module: Option<&SmolStr>,
    found: &mut Vec<Found>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let root = owner_dir.join(dir);
    if provider.kind(&root) != Some(EntryKind::Dir) {
        return;
    }
    let mut files = Vec::new();
    walk(provider, &root, &mut Vec::new(), 0, &mut files, diagnostics);
    for p in files {
        let relative = p.strip_prefix(owner_dir).unwrap_or(&p).to_path_buf();
        found.push(Found {
            path: p,
            role,
            module: module.cloned(),
            relative,
        });
    }
}

/// Collects `.pp` files below `dir`, sorted, refusing loops (by directory identity) and
/// excessive depth.
fn walk(
    provider: &dyn SourceProvider,
    dir: &Path,
    chain: &mut Vec<PathBuf>,
    depth: usize,
    out: &mut Vec<PathBuf>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if depth > MAX_DEPTH {
        diagnostics.push(crate::diagnostic::error(
            codes::PATH_ESCAPE,
            format!(
                "directory nesting deeper than {MAX_DEPTH} levels at {}",
                dir.display()
            ),
            Some(dir.to_path_buf()),
            None,
        ));
        return;
    }
    let mut entries = match provider.list_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            diagnostics.push(e.to_diagnostic());
            return;
        }
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for e in entries {
        let path = dir.join(&e.name);
        match e.kind {
            EntryKind::File => {
                if e.name.ends_with(".pp") {
                    out.push(path);
                }
            }
            EntryKind::Dir => {
                if let Some(id) = &e.identity {
                    if chain.contains(id) {
                        diagnostics.push(crate::diagnostic::error(
                            codes::PATH_ESCAPE,
                            format!("refused {}: symlink loop", path.display()),
                            Some(path),
                            None,
                        ));
                        continue;
                    }
                    chain.push(id.clone());
                }
                walk(provider, &path, chain, depth + 1, out, diagnostics);
                if e.identity.is_some() {
                    chain.pop();
                }
            }
            EntryKind::Refused(reason) => diagnostics.push(crate::diagnostic::error(
                codes::PATH_ESCAPE,
                format!("refused {}: {reason}", path.display()),
                Some(path),
                None,
            )),
        }
    }
}

/// What Puppet's validator requires of the definitions in `file`, given the module path
/// and the main manifest (files of the main manifest and outside the module path: no rule).
pub fn namespace_for_file(
    file: &Path,
    modulepath: &[PathBuf],
    manifest: Option<&Path>,
) -> FileNamespace {
    if let Some(m) = manifest {
        if file.starts_with(m) {
            return FileNamespace::Free;
        }
    }
    for dir in modulepath {
        if let Ok(rel) = file.strip_prefix(dir) {
            // Borrowed where the path is UTF-8 (a copy per component only otherwise).
            let comps: Vec<std::borrow::Cow<'_, str>> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect();
            if comps.is_empty() {
                continue;
            }
            let refs: Vec<&str> = comps.iter().map(|c| &**c).collect();
            return names::namespace_for_relative_path(&refs);
        }
    }
    FileNamespace::Free
}

fn parse_all(loader: &Loader, found: &[Found]) -> Vec<Option<Arc<LoadedFile>>> {
    let n = found.len();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16)
        .min(n.max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Arc<LoadedFile>>> = vec![None; n];
    if workers > 1 {
        let chunks: Vec<Vec<(usize, Option<Arc<LoadedFile>>)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    s.spawn(|| {
                        let mut local = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if i >= n {
                                break;
                            }
                            local.push((i, loader.load(&found[i])));
                        }
                        local
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for (i, r) in chunks.into_iter().flatten() {
            results[i] = r;
        }
    }
    // Sequential mode, and any hole a failed worker left.
    results
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.or_else(|| loader.load(&found[i])))
        .collect()
}

pub(crate) fn load_one(
    config: &EnvironmentConfig,
    f: &Found,
    text: Arc<str>,
    cache: &ParseCache,
) -> LoadedFile {
    // A cache shared with other loaders keeps rowan trees for the tools; a compile's own
    // loader builds only the flat tree, which is all its scan and lowering read.
    let (parse, flat) = if cache.retain {
        let parse = cache.get_or_parse(&f.path, &text);
        let flat = FlatParse::from_parse(&text, &parse);
        (Some(parse), flat)
    } else {
        (None, puppet_syntax::flat::parse(text.clone()))
    };
    let path: Arc<Path> = Arc::from(f.path.as_path());
    let ns = match f.role {
        FileRole::MainManifest => FileNamespace::Free,
        _ if f.module.is_none() => FileNamespace::Free,
        _ => namespace_for_file(&f.path, &config.modulepath, config.manifest.as_deref()),
    };
    let scan = scan_file(&flat, &path, f.module.as_ref(), &ns, &display(&f.path));
    let mut diagnostics: Vec<Diagnostic> = flat
        .errors()
        .iter()
        .filter(|e| e.severity == puppet_syntax::Severity::Error)
        .map(|e| e.clone().with_file(f.path.display().to_string()))
        .collect();
    diagnostics.extend(scan.diagnostics);
    // Which definitions a file may contribute depends on its role.
    let expected = match (f.role, &f.module) {
        (FileRole::Function | FileRole::TypeAlias, owner) => {
            let stem = f.relative.with_extension("");
            let mut parts: Vec<String> = stem
                .components()
                .skip(1)
                .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
                .collect();
            // A module's names start with the module's; the environment's are its whole
            // path (`functions/environment/f.pp` is `environment::f`, `functions/f.pp` the
            // global `f`), as its loader is global in Puppet.
            if let Some(m) = owner {
                parts.insert(0, m.to_string());
            }
            Some(parts.join("::"))
        }
        _ => None,
    };
    let mut definitions = Vec::new();
    for d in scan.definitions {
        let keep = match f.role {
            FileRole::MainManifest => true,
            FileRole::Manifest => matches!(d.kind, DefKind::Class | DefKind::Define),
            FileRole::Function => {
                d.kind == DefKind::Function && Some(d.name.as_str()) == expected.as_deref()
            }
            FileRole::TypeAlias => {
                d.kind == DefKind::TypeAlias && Some(d.name.as_str()) == expected.as_deref()
            }
        };
        if keep {
            definitions.push(d);
        }
    }
    if let Some(exp) = &expected {
        let kind = if f.role == FileRole::Function {
            DefKind::Function
        } else {
            DefKind::TypeAlias
        };
        if !definitions.iter().any(|d| d.kind == kind) {
            diagnostics.push(crate::diagnostic::error(
                codes::MISSING_DEFINITION,
                format!(
                    "the file {} does not define the {} '{}' that its path names",
                    f.path.display(),
                    kind.label(),
                    exp
                ),
                Some(f.path.clone()),
                None,
            ));
        }
    }
    let warnings = parse_warnings(&f.path, &text, &flat);
    LoadedFile {
        path,
        role: f.role,
        module: f.module.clone(),
        relative: f.relative.clone(),
        text,
        tree: RwLock::new(parse),
        warnings,
        flat: RwLock::new(Some(Arc::new(flat))),
        definitions,
        diagnostics,
        validation: OnceLock::new(),
        validation_started: Default::default(),
    }
}

/// The warnings Puppet's parser and validator give a file (see [`LoadedFile::warnings`]).
/// Keys are compared by their text first (quotes and escapes removed, numbers by value):
/// only a file where two keys of one hash may be equal is validated in full, so the cost is
/// a walk of the flat tree's hashes.
///
/// ```
/// use puppet_loader::parse_warnings;
/// let text = "$h = {'a' => 1, \"a\" => 2, 0x1 => 3, 1 => 4, 1e1 => 5, 10.0 => 6}\nnotice(\"\\q\")\n";
/// let flat = puppet_syntax::flat::parse(text.into());
/// let w = parse_warnings(std::path::Path::new("/m/x.pp"), text, &flat);
/// let texts: Vec<&str> = w.iter().map(|d| &*d.message).collect();
/// assert_eq!(texts, ["Unrecognized escape sequence '\\q'", "The key 'a' is declared more than once", "The key '1' is declared more than once", "The key '10.0' is declared more than once"]);
/// assert_eq!(w[1].file.as_deref(), Some("/m/x.pp"));
/// ```
pub fn parse_warnings(path: &Path, text: &str, flat: &FlatParse) -> Vec<Diagnostic> {
    use puppet_syntax::ast::{parse_number, unescape_dq_cow, unescape_sq_cow, Number, DQ_ESCAPES};
    use puppet_syntax::SyntaxKind::{HASH_ENTRY, HASH_EXPR};
    use std::borrow::Cow;
    let path = path.to_string_lossy();
    let index = std::cell::OnceCell::new();
    let located = |d: &Diagnostic| {
        let mut d = d.clone().with_file(&*path);
        if let Some(r) = d.range {
            let index = index.get_or_init(|| puppet_diagnostics::LineIndex::new(text));
            d.location = Some(index.line_col(text, r.start()));
        }
        d
    };
    let mut out: Vec<Diagnostic> = (flat.errors().iter())
        .filter(|d| d.severity == puppet_syntax::Severity::Warning)
        .map(located)
        .collect();
    let root = puppet_syntax::green::Node::root(flat);
    let may_repeat = root.descendants_of_kind(HASH_EXPR).any(|h| {
        let mut keys = rustc_hash::FxHashSet::default();
        h.children_of(HASH_ENTRY).any(|en| {
            let Some(k) = en.nth_expr(0) else {
                return false;
            };
            let t = k.text().trim();
            // Only literals can be the same key (names, numbers, strings, booleans).
            let bare = |t: &str| {
                !t.is_empty()
                    && t.bytes().all(|b| {
                        b.is_ascii_alphanumeric()
                            || b == b'_'
                            || b == b':'
                            || b == b'.'
                            || b == b'-'
                    })
            };
            if !(t.starts_with('\'') || t.starts_with('"') || bare(t)) {
                return false;
            }
            let key = if t.starts_with('\'') {
                unescape_sq_cow(t)
            } else if let Some(inner) = t.strip_prefix('"') {
                unescape_dq_cow(inner.strip_suffix('"').unwrap_or(inner), DQ_ESCAPES)
            } else if let Some(n) = parse_number(t) {
                match n {
                    Number::Integer { value, .. } => Cow::Owned(value.to_string()),
                    Number::Float(f) => Cow::Owned(format!("{f:?}")),
                    Number::Overflow => Cow::Borrowed(t),
                }
            } else {
                Cow::Borrowed(t)
            };
            !keys.insert(key)
        })
    });
    if may_repeat {
        let parse = puppet_syntax::parse(text);
        let validated = puppet_syntax::validate::validate(&parse);
        out.extend(
            (validated.iter())
                .filter(|d| d.code == "DUPLICATE_KEY")
                .map(located),
        );
    }
    out
}

/// The precedence of a definition for its own name (lower wins), see the module docs.
fn precedence(file: &LoadedFile, def: &Definition, file_index: usize) -> Precedence {
    match file.role {
        FileRole::MainManifest => (0, file_index, def.range.0 as usize),
        FileRole::Function | FileRole::TypeAlias => (1, 0, def.range.0 as usize),
        FileRole::Manifest => {
            let candidates = names::autoload_candidates(&def.name);
            let pos = candidates.iter().position(|np| {
                np.owner == Owner::Module(file.module.as_deref().unwrap_or("").to_string())
                    && np.path == file.relative
            });
            match pos {
                Some(p) => (1, p, def.range.0 as usize),
                None => (2, file_index, def.range.0 as usize),
            }
        }
    }
}

fn build_index(
    files: &IndexMap<Arc<Path>, Arc<LoadedFile>>,
    diagnostics: &mut Vec<Diagnostic>,
) -> IndexMap<(DefKind, SmolStr), Definition> {
    let mut by_key: IndexMap<(DefKind, SmolStr), Vec<(Precedence, &Definition)>> = IndexMap::new();
    for (fi, file) in files.values().enumerate() {
        for d in &file.definitions {
            by_key
                .entry((d.kind, d.name.clone()))
                .or_default()
                .push((precedence(file, d, fi), d));
        }
    }
    let mut index = IndexMap::new();
    for (key, mut defs) in by_key {
        defs.sort_by_key(|(p, _)| *p);
        let (prec, winner) = defs[0];
        if prec.0 == 2 && files.get(&winner.file).map(|f| f.role) == Some(FileRole::Manifest) {
            // Not on the name's autoload path: Puppet finds it only when that file was loaded
            // for another name. Resolving it would make results depend on load order, so it
            // is never resolved (the lazy loader could not find it either).
            diagnostics.push(crate::diagnostic::warning(
                codes::NOT_AUTOLOADABLE,
                format!(
                    "{} '{}' is defined in {}, which is not a file Puppet autoloads for that name; Puppet finds it only when that file was loaded for another name (load-order dependent), so it is never resolved here",
                    key.0.label(),
                    winner.written_name,
                    winner.file.display()
                ),
                Some(winner.file.to_path_buf()),
                Some(winner.name_range),
            ));
            continue;
        }
        for (_, other) in &defs[1..] {
            diagnostics.push(crate::diagnostic::warning(
                codes::DUPLICATE_DEFINITION,
                format!(
                    "{} '{}' is defined again in {}; the definition in {} takes precedence",
                    key.0.label(),
                    other.written_name,
                    other.file.display(),
                    winner.file.display()
                ),
                Some(other.file.to_path_buf()),
                Some(other.name_range),
            ));
        }
        index.insert(key, winner.clone());
    }
    index.sort_keys();
    index
}
