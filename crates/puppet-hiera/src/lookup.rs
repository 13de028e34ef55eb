//! The lookup engine: layers (global, environment, module), hierarchies, data files, merge
//! strategies across all of them, `lookup_options`, dotted keys, interpolation and explain.
//! A [`Lookup`] is immutable apart from its caches (file texts, globs, parsed data, parsed
//! interpolations, and the hierarchy locations and merged `lookup_options` of the `cache`
//! module, keyed by what they depend on), so one can be shared by several compilations
//! (`Send + Sync`) and answers each lookup as if it were fresh; each file is read at most
//! once.

use crate::backend::{BackendCall, BackendContext, BackendError, FunctionBackend};
use crate::cache::{self, Dep, OptionsKey, Recording, Resolution, Slot, Snapshot};
use crate::config::{ConfigWarning, FunctionKind, HieraConfig, HierarchyEntry, Location};
use crate::error::{codes, HieraError};
use crate::explain::{Event, Outcome, Recorder, Tree};
use crate::interp::{self, ExprKind, Method, Piece, Segment};
use crate::merge::MergeStrategy;
use crate::source::DataSource;
use crate::yaml;
use indexmap::IndexMap;
use puppet_types::value::ValueMap;
use puppet_types::{Regexp, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

mod eyaml;

/// Variables visible to interpolation, implemented by the evaluator. `name` is passed as
/// written in the data: `facts`, `trusted`, `x`, `::x` (top scope), `ns::x`. A variable
/// may be read any number of times during one lookup and must have one value throughout
/// it (it may change between lookups).
pub trait Scope {
    /// The value of a variable, `None` when it is not defined.
    fn variable(&self, name: &str) -> Option<Value>;
    /// What runs the backend functions of `data_hash`, `lookup_key` and `data_dig` entries
    /// other than `yaml_data` and `json_data` ([`crate::backend`]). `None` (the default):
    /// such an entry fails as for a function that does not exist.
    fn backend(&self) -> Option<&dyn FunctionBackend> {
        None
    }
    /// The compilation's [`LookupAdapter`], which keeps each module's `lookup_options` from
    /// the first lookup of one of its keys to the end of the compilation, as Puppet's
    /// adapter does. `None` (the default): every lookup retrieves them anew.
    fn adapter(&self) -> Option<&LookupAdapter> {
        None
    }
    /// Applies the `convert_to` lookup option of `key` (`options` are the key's
    /// `lookup_options`) to a value found by a lookup that Hiera makes itself: the
    /// `lookup()`, `hiera()` and `alias()` of an interpolation, which Puppet converts as it
    /// converts the `lookup()` function's answer (`new(T, value, args...)`, owned by the
    /// evaluator). The default: the value unchanged. An error carries Puppet's text.
    fn convert_to(&self, key: &str, value: Value, options: &Value) -> Result<Value, HieraError> {
        let _ = (key, options);
        Ok(value)
    }
    /// A file of the host that a backend reads by path and the lookup's [`DataSource`] does
    /// not serve (`eyaml_lookup_key`'s key and certificate, usually outside the
    /// environment): `Some(Ok(text))`, `Some(Err(ruby_message))` when it cannot be read,
    /// `None` (the default) when the host's files are not read.
    fn host_file(&self, path: &Path) -> Option<Result<String, String>> {
        let _ = path;
        None
    }
    /// A warning Puppet logs when a lookup reads a data file (`PATH: file does not contain
    /// a valid yaml hash`, a module's data with keys outside its namespace), given each time
    /// the file's data is used (files are read once per [`Lookup`], and one lookup serves
    /// many compilations): a compiler logs each text once per compilation. The default:
    /// ignored (they are also kept for [`Lookup::take_warnings`]).
    fn warning(&self, message: &str) {
        let _ = message;
    }
    /// True while a deprecated `hiera()`, `hiera_array()`, `hiera_hash()` or
    /// `hiera_include()` makes the lookup: a version 3 global layer then gives hash merges
    /// its `merge_behavior`, requires a Hash for hash and deep merges and refuses dotted keys
    /// with hash and unique merges (Puppet's `hiera_xxx_call?`). The default: false.
    fn hiera_function_call(&self) -> bool {
        false
    }
    /// The class the lookup is made from, as Hiera 3's scope names it for a version 3
    /// global layer's `%{calling_class}` (and `calling_class_path`): the class whose body
    /// runs, or for a defined type's body the class it was declared from; `None` at top
    /// scope. The default: `None`.
    fn calling_class(&self) -> Option<String> {
        None
    }
    /// A warning Puppet logs about a configuration when a lookup first reaches its layer (a
    /// deprecated `hiera.yaml` version or data provider; the global and environment
    /// layers' at every search, a module's when a lookup reaches the module), given each
    /// time: a compiler logs each [`ConfigWarning::key`] once per compilation. The default:
    /// ignored (they are also kept for [`Lookup::take_warnings`]).
    fn config_warning(&self, warning: &ConfigWarning) {
        let _ = warning;
    }
}

/// What Puppet's `LookupAdapter` keeps for one compilation: the merged `lookup_options` of
/// each module (and of keys outside modules), retrieved the first time a key of that module
/// is looked up and used unchanged by every later lookup of the compilation, also when the
/// variables their hierarchy interpolates have changed since (Puppet never recomputes
/// them during a compilation). A compiler makes one per compilation and hands it out
/// through [`Scope::adapter`]; it must not outlive the compilation.
///
/// ```
/// use puppet_hiera::{Lookup, LookupAdapter, MapScope, MemorySource, Scope};
/// use puppet_types::Value;
/// struct Compiling<'a>(&'a MapScope, &'a LookupAdapter);
/// impl Scope for Compiling<'_> {
///     fn variable(&self, name: &str) -> Option<Value> { self.0.variable(name) }
///     fn adapter(&self) -> Option<&LookupAdapter> { Some(self.1) }
/// }
/// let src = MemorySource::new().with(
///     "/env/data/common.yaml",
///     "lookup_options:\n  a:\n    merge: unique\na: [1]\n",
/// );
/// let l = Lookup::from_dirs(src, None, Some("/env".as_ref()), &[]).unwrap();
/// let adapter = LookupAdapter::default();
/// let scope = Compiling(&MapScope::new(), &adapter);
/// assert!(l.lookup("a", None, None, &scope).unwrap().is_some());
/// assert!(l.lookup_options("a", &scope).unwrap().is_some()); // kept from the lookup
/// ```
#[derive(Debug, Default)]
pub struct LookupAdapter {
    options: RefCell<AdapterOptions>,
    /// The resolutions of every hierarchy entry of a layer, as last found valid during
    /// this compilation, by [`Lookup`] and provider (see [`Lookup::layer_memo`]): while
    /// their root variables keep their values, a lookup checks those once per layer
    /// instead of each entry's variables.
    layers: RefCell<Vec<(LayerId, Arc<LayerSnapshot>)>>,
    /// `eyaml_lookup_key`'s answers of this compilation ([`eyaml::EyamlAnswers`]).
    eyaml: RefCell<eyaml::EyamlAnswers>,
}

/// The merged `lookup_options` a compilation found, by module (asked for by every lookup:
/// a map, not a list to search).
#[derive(Debug, Default)]
struct AdapterOptions {
    /// Those of keys outside modules.
    outside: Option<MergedOptions>,
    by_module: HashMap<String, MergedOptions, BuildHasherDefault<Fnv>>,
}

impl AdapterOptions {
    fn get(&self, module: Option<&str>) -> Option<MergedOptions> {
        match module {
            None => self.outside.clone(),
            Some(m) => self.by_module.get(m).cloned(),
        }
    }

    /// Keeps `o` for `module` unless it has some already.
    fn keep(&mut self, module: Option<&str>, o: MergedOptions) {
        match module {
            None => {
                self.outside.get_or_insert(o);
            }
            Some(m) => {
                self.by_module.entry(m.to_string()).or_insert(o);
            }
        }
    }
}

/// A layer of one [`Lookup`]: its id and the address of the provider in it.
type LayerId = (u64, usize);
/// The resolutions of a layer's hierarchy entries, in order, with what makes them hold.
type LayerSnapshot = Snapshot<()>;

/// A [`Scope`] over a map of top-scope variables; `::x` and `x` are the same variable.
///
/// ```
/// use puppet_hiera::{MapScope, Scope};
/// use puppet_types::Value;
/// let s = MapScope::new().with("env", Value::string("prod"));
/// assert_eq!(s.variable("::env"), Some(Value::string("prod")));
/// ```
#[derive(Debug, Clone, Default)]
pub struct MapScope {
    vars: IndexMap<String, Value>,
}

impl MapScope {
    /// An empty scope.
    pub fn new() -> MapScope {
        MapScope::default()
    }

    /// Adds a variable (builder style).
    pub fn with(mut self, name: &str, value: Value) -> MapScope {
        self.vars
            .insert(name.trim_start_matches("::").to_string(), value);
        self
    }
}

impl Scope for MapScope {
    fn variable(&self, name: &str) -> Option<Value> {
        self.vars
            .get(name.strip_prefix("::").unwrap_or(name))
            .cloned()
    }
}

struct Overlay<'a> {
    base: &'a dyn Scope,
    name: &'a str,
    value: Value,
}

impl Scope for Overlay<'_> {
    fn variable(&self, name: &str) -> Option<Value> {
        if name == self.name {
            Some(self.value.clone())
        } else {
            self.base.variable(name)
        }
    }

    fn backend(&self) -> Option<&dyn FunctionBackend> {
        self.base.backend()
    }

    fn warning(&self, message: &str) {
        self.base.warning(message)
    }
}

/// FNV-1a, for the module layers looked up by name on every lookup (short local names:
/// cheaper than SipHash, and no untrusted input).
#[derive(Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Which layer a configuration belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Layer {
    /// The global `hiera.yaml` (`$confdir/hiera.yaml`).
    Global,
    /// The environment's `hiera.yaml`.
    Environment,
    /// A module's `hiera.yaml`.
    Module(String),
}

impl Layer {
    fn provider_name(&self, config: &HieraConfig) -> String {
        match self {
            Layer::Global => format!("Global Data Provider ({})", config.name()),
            Layer::Environment => format!("Environment Data Provider ({})", config.name()),
            Layer::Module(m) => format!("Module \"{m}\" Data Provider ({})", config.name()),
        }
    }
}

#[derive(Debug)]
struct Provider {
    layer: Layer,
    config: HieraConfig,
    /// The cached locations of each `hierarchy` entry, then of each `default_hierarchy`
    /// entry.
    slots: Vec<Slot>,
    /// For a module layer: the merged `lookup_options` of the module's keys as last found
    /// valid.
    snapshot: RwLock<Option<Arc<OptionsSnapshot>>>,
}

/// Merged `lookup_options` (`None`: there are none).
type MergedOptions = Option<Arc<LookupOptions>>;
type OptionsSnapshot = Snapshot<MergedOptions>;
/// A resolution found valid, by the address of its slot.
type Memo = (usize, Arc<Resolution>);

impl Provider {
    fn new(layer: Layer, config: HieraConfig) -> Provider {
        let n = config.hierarchy.len() + config.default_hierarchy.as_ref().map_or(0, Vec::len);
        Provider {
            layer,
            config,
            slots: (0..n).map(|_| Slot::default()).collect(),
            snapshot: RwLock::new(None),
        }
    }
}

type Parsed = Result<Arc<DataFile>, HieraError>;

/// A data file as a `data_hash` function read it: its hash, and the warnings Puppet logs
/// each compilation that reads it (a file that is not a hash; a module's key outside the
/// module's namespace), given to [`Scope::warning`] at each use.
#[derive(Debug, Default)]
struct DataFile {
    map: ValueMap,
    warnings: Vec<String>,
}

/// Parsed-data cache key: file, data_hash function, module (for the namespace filter).
type ParsedKey = (PathBuf, String, Option<String>);

/// Hiera 5 lookups over the configured layers. Build with [`Lookup::builder`] or
/// [`Lookup::from_dirs`].
///
/// ```
/// use puppet_hiera::{Lookup, MapScope, MemorySource, MergeStrategy};
/// use puppet_types::Value;
/// let src = MemorySource::new()
///     .with("/env/hiera.yaml", "version: 5\nhierarchy:\n  - name: Node\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: Common\n    path: common.yaml\n")
///     .with("/env/data/nodes/web.yaml", "ntp::servers: [a]\nmotd: \"on %{facts.os.family}\"\n")
///     .with("/env/data/common.yaml", "ntp::servers: [b, a]\n");
/// let lookup = Lookup::from_dirs(src, None, Some("/env".as_ref()), &[]).unwrap();
/// let scope = MapScope::new()
///     .with("trusted", Value::hash([(Value::string("certname"), Value::string("web"))]))
///     .with("facts", Value::hash([(Value::string("os"), Value::hash([(Value::string("family"), Value::string("Debian"))]))]));
/// let v = lookup.lookup("ntp::servers", Some(MergeStrategy::Unique), None, &scope).unwrap();
/// assert_eq!(v.unwrap().to_string(), "['a', 'b']");
/// assert_eq!(lookup.lookup("motd", None, None, &scope).unwrap(), Some(Value::string("on Debian")));
/// assert_eq!(lookup.lookup("nope", None, None, &scope).unwrap(), None);
/// assert_eq!(
///     lookup.lookup_function(&["nope"], None, None, &scope).unwrap_err().to_string(),
///     "Function lookup() did not find a value for the name 'nope'"
/// );
/// ```
#[derive(Debug)]
pub struct Lookup {
    global: Option<Provider>,
    environment: Option<Provider>,
    modules: IndexMap<String, ModuleLayer, BuildHasherDefault<Fnv>>,
    /// Every module of the environment (with data or not), for explaining a key of a module
    /// without data (`Module data provider for module "x" not found`) apart from a key of
    /// no module (`Module "x" not found`).
    module_names: std::collections::HashSet<String>,
    source: Box<dyn DataSource>,
    texts: RwLock<HashMap<PathBuf, Option<Arc<str>>>>,
    /// Whether a path that is not a readable file exists (a directory).
    dirs: RwLock<HashMap<PathBuf, bool>>,
    globs: RwLock<HashMap<PathBuf, Arc<Vec<PathBuf>>>>,
    parsed: RwLock<HashMap<ParsedKey, Parsed>>,
    /// Strings to interpolate, parsed once (parsing is pure; hierarchy paths and data values
    /// are interpolated on every lookup).
    templates: RwLock<HashMap<String, Arc<Template>>>,
    /// Merged `lookup_options`, by what they were merged from (see [`OptionsKey`]).
    options: RwLock<HashMap<OptionsKey, MergedOptions>>,
    /// The merged `lookup_options` of keys outside module layers as last found valid, of
    /// all layers, then of the global layer only.
    snapshots: [RwLock<Option<Arc<OptionsSnapshot>>>; 2],
    /// False: every lookup resolves the hierarchies and merges `lookup_options` anew (the
    /// reference the caches are tested against).
    caching: bool,
    /// Unique in the process: what a compilation's [`LookupAdapter`] keys this lookup's
    /// layers by.
    id: u64,
    warnings: Mutex<Vec<String>>,
    /// What Puppet warns about the global and environment configurations, handed to the
    /// scope at each search ([`Scope::config_warning`]).
    config_warnings: Vec<ConfigWarning>,
}

/// A string to interpolate, parsed: its pieces and, for each scope expression (`%{x.y}`,
/// `%{scope('x.y')}`), the key split into segments (or the splitting error) and the name
/// the expression is pushed on the recursion stack with.
#[derive(Debug)]
struct Template {
    pieces: Vec<Piece>,
    scope_keys: Vec<Option<ScopeKey>>,
}

#[derive(Debug)]
struct ScopeKey {
    segments: Result<Arc<[Segment]>, HieraError>,
    check: String,
}

/// A module's layer. Its provider is made from the module's `hiera.yaml` the first time a
/// lookup reaches the module (a key of its namespace, or the `lookup_options` of one), as
/// Puppet's `LookupAdapter#module_provider` makes it: a module whose `hiera.yaml` is broken
/// fails the lookups that reach it, not the environment. What is made (or the error) is
/// kept for every later lookup: the file is read once and the answer is the same whichever
/// thread or compilation asks first.
#[derive(Debug)]
struct ModuleLayer {
    /// The module's directory, whose `hiera.yaml` is read on first use (`None`: the
    /// configuration was given to the builder).
    dir: Option<PathBuf>,
    /// The provider (`None`: no `hiera.yaml`, or one of version 3, which is ignored).
    provider: OnceLock<Result<Option<Provider>, HieraError>>,
    /// What Puppet warns about the layer's configuration when a lookup first reaches the
    /// module (set with the provider).
    warnings: OnceLock<Vec<ConfigWarning>>,
}

/// How the builder was given a module layer.
#[derive(Debug)]
enum ModuleSpec {
    /// Its parsed configuration.
    Config(HieraConfig),
    /// Its directory: the `hiera.yaml` there is read and parsed on first use.
    Dir(PathBuf),
}

/// At most this many parsed strings are kept (interpolated variable values may contain
/// `%{` too, so the set is not bounded by the data).
const TEMPLATE_CACHE_LIMIT: usize = 4096;

/// The variables Hiera 3's scope adds to Puppet's for a version 3 global layer: the class
/// the lookup is made from (`Scope::calling_class`), as a path, and the module.
const HIERA3_VARIABLES: [&str; 3] = ["calling_class", "calling_class_path", "calling_module"];

/// Collects the layers of a [`Lookup`].
#[derive(Debug)]
pub struct LookupBuilder {
    source: Box<dyn DataSource>,
    global: Option<HieraConfig>,
    environment: Option<HieraConfig>,
    modules: Vec<(String, ModuleSpec)>,
    module_names: Vec<String>,
    config_warnings: Vec<ConfigWarning>,
}

impl LookupBuilder {
    /// The names of all modules of the environment, those without Hiera data included
    /// (only explanations use them: they tell a module without data from no module).
    pub fn module_names(
        mut self,
        names: impl IntoIterator<Item = impl Into<String>>,
    ) -> LookupBuilder {
        self.module_names.extend(names.into_iter().map(Into::into));
        self
    }

    /// Sets the global layer's configuration.
    pub fn global(mut self, config: HieraConfig) -> LookupBuilder {
        self.global = Some(config);
        self
    }

    /// Adds what Puppet warns about the environment's configuration when a compilation makes
    /// its layers (its deprecated `environment_data_provider`,
    /// [`crate::config::with_data_provider`]); see [`Scope::config_warning`].
    pub fn config_warnings(mut self, warnings: Vec<ConfigWarning>) -> LookupBuilder {
        self.config_warnings.extend(warnings);
        self
    }

    /// Sets the environment layer's configuration.
    pub fn environment(mut self, config: HieraConfig) -> LookupBuilder {
        self.environment = Some(config);
        self
    }

    /// Adds a module layer (a module with a `hiera.yaml`), checked by [`Self::build`].
    pub fn module(mut self, name: &str, config: HieraConfig) -> LookupBuilder {
        self.modules
            .push((name.to_string(), ModuleSpec::Config(config)));
        self
    }

    /// Adds a module whose layer is made from `dir/hiera.yaml`, read through the lookup's
    /// source the first time a lookup reaches the module, as Puppet reads it: no layer when
    /// the file does not exist, and an error of the file (it does not parse, or is not a
    /// valid configuration) fails the lookups that reach the module, with Puppet's text
    /// then. [`Lookup::load_module_layers`] makes them all at once.
    ///
    /// ```
    /// use puppet_hiera::{Lookup, MapScope, MemorySource};
    /// let src = MemorySource::new()
    ///     .with("/m/good/hiera.yaml", "version: 5\n")
    ///     .with("/m/good/data/common.yaml", "good::x: 1\n")
    ///     .with("/m/bad/hiera.yaml", "version: 6\n");
    /// let l = Lookup::builder(src)
    ///     .module_dir("good", "/m/good")
    ///     .module_dir("bad", "/m/bad")
    ///     .build()
    ///     .unwrap();
    /// let scope = MapScope::new();
    /// assert_eq!(l.lookup("good::x", None, None, &scope).unwrap().unwrap().to_string(), "1");
    /// assert_eq!(
    ///     l.lookup("bad::x", None, None, &scope).unwrap_err().to_string(),
    ///     "This runtime does not support hiera.yaml version 6 (file: /m/bad/hiera.yaml)"
    /// );
    /// assert!(l.load_module_layers().is_err());
    /// ```
    pub fn module_dir(mut self, name: &str, dir: impl Into<PathBuf>) -> LookupBuilder {
        self.modules
            .push((name.to_string(), ModuleSpec::Dir(dir.into())));
        self
    }

    /// Checks the layer rules (versions, `default_hierarchy` only in modules) and builds.
    pub fn build(self) -> Result<Lookup, HieraError> {
        let mut warnings: Vec<String> = Vec::new();
        let mut config_warnings: Vec<ConfigWarning> = Vec::new();
        let global = match self.global {
            None => None,
            Some(c) => match c.version {
                5 => {
                    if c.default_hierarchy.is_some() {
                        return Err(not_in_module(&c));
                    }
                    Some(Provider::new(Layer::Global, c))
                }
                4 => {
                    return Err(HieraError::new(
                        "HIERA_UNSUPPORTED_VERSION_IN_GLOBAL",
                        "hiera.yaml version 4 cannot be used in the global layer",
                    )
                    .in_file(c.path))
                }
                _ => {
                    if c.hiera3.as_ref().is_some_and(|h| h.fell_back) {
                        // (Puppet's plain warning: logged at every compilation.)
                        let message = format!(
                            "{}: File exists but does not contain a valid YAML hash. Falling back to Hiera version 3 default config",
                            c.path.display()
                        );
                        config_warnings.push(ConfigWarning {
                            key: message.clone(),
                            message,
                        });
                    }
                    config_warnings.push(deprecated_version(&c));
                    Some(Provider::new(Layer::Global, c))
                }
            },
        };
        let environment = match self.environment {
            Some(c) => layer_provider(c, Layer::Environment, &mut config_warnings)?,
            None => None,
        };
        config_warnings.extend(self.config_warnings);
        warnings.extend(config_warnings.iter().map(|w| w.message.clone()));
        let mut modules = IndexMap::default();
        let mut module_names: std::collections::HashSet<String> =
            self.module_names.into_iter().collect();
        for (name, spec) in self.modules {
            module_names.insert(name.clone());
            let layer = match spec {
                ModuleSpec::Config(c) => {
                    let mut layer_warnings = Vec::new();
                    let p = layer_provider(c, Layer::Module(name.clone()), &mut layer_warnings)?;
                    warnings.extend(layer_warnings.iter().map(|w| w.message.clone()));
                    ModuleLayer {
                        dir: None,
                        provider: OnceLock::from(Ok(p)),
                        warnings: OnceLock::from(layer_warnings),
                    }
                }
                ModuleSpec::Dir(dir) => ModuleLayer {
                    dir: Some(dir),
                    provider: OnceLock::new(),
                    warnings: OnceLock::new(),
                },
            };
            // A later module of the same name replaces the earlier, as before.
            modules.insert(name, layer);
        }
        Ok(Lookup {
            global,
            environment,
            modules,
            module_names,
            source: self.source,
            texts: RwLock::new(HashMap::new()),
            dirs: RwLock::new(HashMap::new()),
            globs: RwLock::new(HashMap::new()),
            parsed: RwLock::new(HashMap::new()),
            templates: RwLock::new(HashMap::new()),
            options: RwLock::new(HashMap::new()),
            snapshots: [RwLock::new(None), RwLock::new(None)],
            caching: true,
            id: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            warnings: Mutex::new(warnings),
            config_warnings,
        })
    }
}

/// The provider of a layer other than the global one (checked: versions, `default_hierarchy`
/// only in modules); `None` for a version 3 configuration, which Puppet ignores there with
/// a warning (added to `warnings`, with the deprecation its configuration logs).
fn layer_provider(
    c: HieraConfig,
    layer: Layer,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<Option<Provider>, HieraError> {
    match c.version {
        5 => {
            if c.default_hierarchy.is_some() && !matches!(layer, Layer::Module(_)) {
                return Err(not_in_module(&c));
            }
            Ok(Some(Provider::new(layer, c)))
        }
        4 => {
            warnings.push(deprecated_version(&c));
            Ok(Some(Provider::new(layer, c)))
        }
        _ => {
            warnings.push(deprecated_version(&c));
            let (kind, root) = match layer {
                Layer::Module(_) => ("hiera_v3_at_module_root", "module root"),
                _ => ("hiera_v3_at_env_root", "the environment root"),
            };
            warnings.push(ConfigWarning::about(
                format!("{kind}:{}", c.path.display()),
                format!("hiera.yaml version 3 found at {root} was ignored"),
                &c.path,
            ));
            Ok(None)
        }
    }
}

/// Puppet's deprecation of a `hiera.yaml` of version 3 or 4 (logged once: the same key for
/// both).
fn deprecated_version(c: &HieraConfig) -> ConfigWarning {
    ConfigWarning::about(
        "deprecations:hiera.yaml",
        format!(
            "{}: Use of 'hiera.yaml' version {} is deprecated. It should be converted to version 5",
            c.path.display(),
            c.version
        ),
        &c.path,
    )
}

/// A module's `hiera.yaml` error as Puppet raises it at the lookup that reaches the module:
/// an error with an issue code is a `LookupError` naming the file (`(file: PATH)` or
/// `(file: PATH, line: N)` after the text, as Puppet prints it); the others (YAML syntax,
/// the configuration's type) are [`codes::MODULE_CONFIG`], with their text.
fn module_config_error(e: HieraError) -> HieraError {
    let located = match (&e.file, e.line) {
        (Some(f), Some(l)) => format!("(file: {}, line: {l})", f.display()),
        (Some(f), None) => format!("(file: {})", f.display()),
        (None, _) => return e,
    };
    match e.has_issue_code() {
        true => HieraError {
            message: format!("{} {located}", e.message),
            ..e
        },
        false => HieraError {
            code: codes::MODULE_CONFIG,
            ..e
        },
    }
}

/// A hierarchy entry whose backend is a function, and the key looked up through it.
struct FunctionEntry<'a> {
    p: &'a Provider,
    e: &'a HierarchyEntry,
    kind: FunctionKind,
    name: &'a str,
    /// The whole (dotted) key.
    key: &'a str,
    /// Its first segment.
    root: &'a str,
}

/// Puppet's `HIERA_DATA_PROVIDER_FUNCTION_NOT_FOUND` (its text names the `hiera.yaml`).
fn function_not_found(p: &Provider, kind: FunctionKind, name: &str) -> HieraError {
    let e = HieraError::new(
        "HIERA_DATA_PROVIDER_FUNCTION_NOT_FOUND",
        format!("Unable to find '{}' function named '{name}'", kind.key()),
    );
    // A configuration Puppet made itself has no file to name.
    match p.config.is_default {
        true => e,
        false => HieraError {
            message: format!("{} (file: {})", e.message, p.config.path.display()),
            ..e
        }
        .in_file(p.config.path.clone()),
    }
}

/// The `context` of a backend function call, seen from the lookup.
struct CallContext<'a, 'b> {
    lookup: &'a Lookup,
    inv: &'a Inv<'b>,
}

impl BackendContext for CallContext<'_, '_> {
    fn interpolate(&mut self, value: &Value) -> Result<Value, HieraError> {
        self.lookup
            .interpolate(self.inv, value, true, self.inv.scope)
    }

    fn explaining(&self) -> bool {
        self.inv.explaining()
    }

    fn explain(&mut self, text: String) {
        self.inv.text(|| text);
    }
}

fn not_in_module(c: &HieraConfig) -> HieraError {
    HieraError::new(
        "HIERA_DEFAULT_HIERARCHY_NOT_IN_MODULE",
        "'default_hierarchy' is only allowed in the module layer",
    )
    .in_file(c.path.clone())
}

/// The result of [`Lookup::explain`]: the answer and the tree of steps. `Display` is what
/// `puppet lookup --explain KEY` prints: the tree, then, when nothing was found or the
/// lookup failed, the error.
#[derive(Debug, Clone)]
pub struct Explanation {
    /// What [`Lookup::lookup`] would return.
    pub result: Result<Option<Value>, HieraError>,
    /// The steps taken (the error text included).
    pub tree: Tree,
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tree)
    }
}

#[derive(Debug)]
struct LookupOptions {
    keys: IndexMap<String, Value>,
    patterns: Vec<(Regexp, Value)>,
}

impl LookupOptions {
    fn for_key(&self, root: &str) -> Option<Value> {
        if let Some(v) = self.keys.get(root) {
            return Some(v.clone());
        }
        self.patterns
            .iter()
            .find(|(re, _)| re.is_match(root))
            .map(|(_, v)| v.clone())
    }
}

struct Inv<'a> {
    scope: &'a dyn Scope,
    stack: RefCell<Vec<String>>,
    top_key: RefCell<std::borrow::Cow<'a, str>>,
    rec: Option<RefCell<Recorder>>,
    /// The merged `lookup_options` of each module (`None`: outside modules).
    lo_cache: RefCell<Vec<(Option<String>, MergedOptions)>>,
    depth: RefCell<usize>,
    /// Only the global layer is searched (Puppet's `set_global_only`, used by `hiera()`,
    /// and by the lookups that a version 3 global layer's data interpolates when the
    /// environment has no layer).
    global_only: Cell<bool>,
    /// A deprecated `hiera_*()` function makes the lookup (Puppet's `hiera_xxx_call?`):
    /// a version 3 global layer applies its `merge_behavior` to hash merges and checks
    /// what it finds.
    hiera_call: bool,
    /// Set while a version 3 global layer is searched: its scope is Hiera 3's, which also
    /// has `calling_class`, `calling_class_path` and `calling_module`.
    hiera3: Cell<bool>,
    /// Set while an entry's locations are resolved for the cache.
    recording: RefCell<Option<Recording>>,
    /// The cached resolutions found valid for `scope` in this invocation, by slot address
    /// (the scope does not change during one lookup).
    resolved: RefCell<Vec<Memo>>,
    /// Set when a value found in data was interpolated, or a backend function was called
    /// (what was found may not hold for another lookup).
    data_interpolated: Cell<bool>,
    /// Variables read to check cached resolutions, by name.
    variables: RefCell<Vec<(Arc<str>, Option<Value>)>>,
    /// Above zero while nothing is recorded (interpolation of hierarchy paths, which Puppet
    /// does outside the explained invocation).
    quiet: Cell<u32>,
    /// The options of the merge being explained, besides its strategy.
    merge_options: RefCell<Option<Value>>,
    /// The merged global and environment `lookup_options`, once retrieved (Puppet's
    /// adapter retrieves them once per compilation; later modules only add their own).
    env_options: RefCell<Option<Option<Value>>>,
}

impl<'a> Inv<'a> {
    fn new(scope: &'a dyn Scope, explain: bool) -> Inv<'a> {
        Inv {
            scope,
            stack: RefCell::new(Vec::new()),
            top_key: RefCell::new(std::borrow::Cow::Borrowed("")),
            rec: explain.then(|| RefCell::new(Recorder::default())),
            lo_cache: RefCell::new(Vec::new()),
            depth: RefCell::new(0),
            global_only: Cell::new(false),
            hiera_call: scope.hiera_function_call(),
            hiera3: Cell::new(false),
            recording: RefCell::new(None),
            resolved: RefCell::new(Vec::new()),
            data_interpolated: Cell::new(false),
            variables: RefCell::new(Vec::new()),
            quiet: Cell::new(0),
            merge_options: RefCell::new(None),
            env_options: RefCell::new(None),
        }
    }

    fn recorder(&self) -> Option<std::cell::RefMut<'_, Recorder>> {
        match &self.rec {
            Some(r) if self.quiet.get() == 0 => Some(r.borrow_mut()),
            _ => None,
        }
    }

    /// Whether steps are being recorded.
    fn explaining(&self) -> bool {
        self.rec.is_some() && self.quiet.get() == 0
    }

    /// Runs `f` without recording.
    fn silently<T>(&self, f: impl FnOnce() -> T) -> T {
        self.quiet.set(self.quiet.get() + 1);
        let r = f();
        self.quiet.set(self.quiet.get() - 1);
        r
    }

    fn outcome(&self, o: impl FnOnce() -> Outcome) {
        if let Some(mut r) = self.recorder() {
            r.outcome(o());
        }
    }

    fn text(&self, t: impl FnOnce() -> String) {
        if let Some(mut r) = self.recorder() {
            r.text(t());
        }
    }

    /// Runs `f` inside a node for `event` (Puppet's `Invocation#with`).
    fn with<T>(&self, event: impl FnOnce() -> Event, f: impl FnOnce() -> T) -> T {
        let recording = self.explaining();
        if recording {
            self.enter(event);
        }
        let r = f();
        if recording {
            self.leave();
        }
        r
    }

    /// `scope.variable(name)`, read once per invocation.
    fn variable(&self, name: &str) -> Option<Value> {
        self.variable_named(name, || Arc::from(name))
    }

    /// [`Inv::variable`] of a name held as shared text.
    fn shared_variable(&self, name: &Arc<str>) -> Option<Value> {
        self.variable_named(name, || name.clone())
    }

    fn variable_named(&self, name: &str, shared: impl FnOnce() -> Arc<str>) -> Option<Value> {
        if let Some((_, v)) = self.variables.borrow().iter().find(|(n, _)| **n == *name) {
            return v.clone();
        }
        let v = self.read_variable(name);
        self.variables.borrow_mut().push((shared(), v.clone()));
        v
    }

    /// The name a variable is read and cached by: while a version 3 global layer is
    /// searched, the variables Hiera 3's scope adds ([`HIERA3_VARIABLES`]) under a name of
    /// their own (a NUL, then the name), which always reads Hiera 3's value, so that a
    /// resolution cached for them is checked against them wherever it is checked.
    fn variable_name<'n>(&self, name: &'n str) -> std::borrow::Cow<'n, str> {
        match self.hiera3.get() && HIERA3_VARIABLES.contains(&name) {
            true => format!("\0{name}").into(),
            false => name.into(),
        }
    }

    /// A variable of the scope, or (for a name made by [`Inv::variable_name`]) of Hiera
    /// 3's scope: an empty text is `nil` there.
    fn read_variable(&self, name: &str) -> Option<Value> {
        let Some(hiera3) = name.strip_prefix('\0') else {
            return self.scope.variable(name);
        };
        let text = match hiera3 {
            "calling_class" => self.scope.calling_class(),
            "calling_class_path" => self.scope.calling_class().map(|c| c.replace("::", "/")),
            _ => match self.scope.variable("module_name") {
                Some(Value::String(m)) => Some(m.to_string()),
                _ => None,
            },
        };
        text.filter(|t| !t.is_empty()).map(Value::string)
    }

    fn enter(&self, e: impl FnOnce() -> Event) {
        if let Some(mut r) = self.recorder() {
            r.enter(e());
        }
    }

    fn leave(&self) {
        if let Some(mut r) = self.recorder() {
            r.leave();
        }
    }

    fn add(&self, e: impl FnOnce() -> Event) {
        if let Some(mut r) = self.recorder() {
            r.add(e());
        }
    }

    /// Runs `f` with `name` pushed on the recursion stack (Puppet's `Invocation#check`).
    fn check<T>(
        &self,
        name: &str,
        f: impl FnOnce() -> Result<T, HieraError>,
    ) -> Result<T, HieraError> {
        self.guard(name)?;
        self.stack.borrow_mut().push(name.to_string());
        let r = f();
        self.stack.borrow_mut().pop();
        r
    }

    /// What [`Inv::check`] checks before pushing `name`: the error when `name` is already
    /// on the stack or the stack is full (recorded while resolving for the cache).
    fn guard(&self, name: &str) -> Result<(), HieraError> {
        let stack = self.stack.borrow();
        if let Some(r) = self.recording.borrow_mut().as_mut() {
            r.check(name, stack.len());
        }
        if stack.iter().any(|n| n == name) || stack.len() > cache::STACK_LIMIT {
            return Err(HieraError::new(
                codes::RECURSIVE,
                format!("Recursive lookup detected in [{}]", stack.join(", ")),
            ));
        }
        Ok(())
    }

    fn nest<T>(&self, f: impl FnOnce() -> Result<T, HieraError>) -> Result<T, HieraError> {
        {
            let mut d = self.depth.borrow_mut();
            if let Some(r) = self.recording.borrow_mut().as_mut() {
                r.nest(*d);
            }
            if *d > cache::DEPTH_LIMIT {
                return Err(HieraError::new(
                    codes::RECURSIVE,
                    format!(
                        "Recursive lookup detected in [{}]",
                        self.stack.borrow().join(", ")
                    ),
                ));
            }
            *d += 1;
        }
        let r = f();
        *self.depth.borrow_mut() -= 1;
        r
    }
}

/// Combines the values found for a list of variants with a merge strategy, as Puppet's
/// `MergeStrategy#lookup`: `first` stops at the first found, others merge all found.
/// The variants are `0..n`.
fn merge_lookup(
    strategy: &MergeStrategy,
    n: usize,
    mut f: impl FnMut(usize) -> Result<Option<Value>, HieraError>,
) -> Result<Option<Value>, HieraError> {
    if strategy.is_first() {
        for v in 0..n {
            if let Some(found) = f(v)? {
                return Ok(Some(found));
            }
        }
        return Ok(None);
    }
    if n == 1 {
        return Ok(f(0)?.map(|v| strategy.merge_single(v)));
    }
    let mut memo: Option<Value> = None;
    for v in 0..n {
        if let Some(found) = f(v)? {
            memo = Some(match memo {
                None => strategy.convert_first(found),
                Some(m) => strategy.merge(&m, &found)?,
            });
        }
    }
    Ok(memo)
}

/// [`merge_lookup`] as Puppet explains it: a merge of several variants by a strategy other
/// than `first` is a node of its own, with the merged result when something was found.
/// A backend function called once per existing location, merged, each call explained
/// under its location (`Path`/`URI`); a location that does not exist is explained as not
/// found and not called.
fn each_location(
    inv: &Inv<'_>,
    merge: &MergeStrategy,
    locations: &[Resolved],
    mut call: impl FnMut(&Resolved) -> Result<Option<Value>, HieraError>,
) -> Result<Option<Value>, HieraError> {
    explained_merge(inv, merge, locations.len(), |i| {
        let loc = &locations[i];
        inv.enter(|| match loc.uri {
            true => Event::Uri {
                uri: loc.path.to_string_lossy().into_owned(),
                original: loc.original.clone(),
            },
            false => Event::Location {
                path: loc.path.clone(),
                original: loc.original.clone(),
            },
        });
        let r = if loc.exists {
            call(loc)
        } else {
            inv.outcome(|| Outcome::LocationNotFound);
            Ok(None)
        };
        inv.leave();
        r
    })
}

fn explained_merge(
    inv: &Inv<'_>,
    strategy: &MergeStrategy,
    n: usize,
    f: impl FnMut(usize) -> Result<Option<Value>, HieraError>,
) -> Result<Option<Value>, HieraError> {
    if strategy.is_first() || n <= 1 || !inv.explaining() {
        return merge_lookup(strategy, n, f);
    }
    let options = inv.merge_options.borrow().clone();
    inv.enter(|| Event::Merge {
        strategy: strategy.name().to_string(),
        options,
    });
    let r = merge_lookup(strategy, n, f);
    if let Ok(Some(v)) = &r {
        inv.outcome(|| Outcome::Result(v.clone()));
    }
    inv.leave();
    r
}

/// The options `puppet lookup --merge` gives a strategy besides its name (for `deep`, both
/// flags, and the knockout prefix when there is one).
fn cli_merge_options(m: &MergeStrategy) -> Option<Value> {
    match m {
        MergeStrategy::Deep(o) => {
            let mut entries = vec![
                (
                    s("sort_merged_arrays"),
                    Value::Boolean(o.sort_merged_arrays),
                ),
                (s("merge_hash_arrays"), Value::Boolean(o.merge_hash_arrays)),
            ];
            if let Some(p) = &o.knockout_prefix {
                entries.push((s("knockout_prefix"), s(p)));
            }
            Some(Value::hash(entries))
        }
        _ => None,
    }
}

/// The options of a `merge` lookup option besides `strategy` (`None` when there are none).
fn given_merge_options(m: &Value) -> Option<Value> {
    let Value::Hash(h) = m else { return None };
    let rest: Vec<(Value, Value)> = h
        .iter()
        .filter(|(k, _)| k.as_str() != Some("strategy"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!rest.is_empty()).then(|| Value::hash(rest))
}

/// A segment of a dotted key as Puppet prints it.
fn segment_text(seg: &Segment) -> String {
    match seg {
        Segment::Key(k) => k.to_string(),
        Segment::Index(i) => i.to_string(),
    }
}

#[derive(Debug)]
pub(crate) struct Resolved {
    original: String,
    path: PathBuf,
    exists: bool,
    /// A `uri`/`uris` location (for backend functions: passed as the `uri` option).
    uri: bool,
    /// The file's data, once read through this location.
    data: OnceLock<Parsed>,
}

impl Resolved {
    fn new(original: String, path: PathBuf, exists: bool) -> Resolved {
        Resolved {
            original,
            path,
            exists,
            uri: false,
            data: OnceLock::new(),
        }
    }
}

/// The first segment of a split key, as text.
fn root_of(segs: &[Segment]) -> std::borrow::Cow<'_, str> {
    match &segs[0] {
        Segment::Key(k) => k.into(),
        other => other.to_string().into(),
    }
}

/// The recursion stack `retrieve_options` resolves hierarchy entries with.
fn options_stack() -> &'static [String] {
    static STACK: OnceLock<[String; 1]> = OnceLock::new();
    STACK.get_or_init(|| ["lookup_options".to_string()])
}

/// The text before the first `::` (a byte scan: this runs for every lookup).
fn module_of(root: &str) -> Option<&str> {
    let b = root.as_bytes();
    (1..b.len())
        .find(|&i| b[i] == b':' && b[i - 1] == b':')
        .map(|i| &root[..i - 1])
}

pub(crate) fn ruby_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = f.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        let s = format!("{f:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.to_string()
        } else {
            format!("{m}.0")
        };
        let (sign, digits) = match e.strip_prefix('-') {
            Some(d) => ("-", d),
            None => ("+", e),
        };
        return format!("{m}e{sign}{digits:0>2}");
    }
    let s = format!("{f}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

fn ruby_inspect(v: &Value) -> String {
    match v {
        Value::Undef => "nil".into(),
        Value::String(s) => format!("{:?}", s.as_str()),
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(ruby_inspect)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Hash(h) => format!(
            "{{{}}}",
            h.iter()
                .map(|(k, v)| format!("{}=>{}", ruby_inspect(k), ruby_inspect(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => ruby_to_s(other),
    }
}

/// Ruby's `to_s` of a value, as Hiera uses when interpolating into a string.
fn ruby_to_s(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::String(s) => s.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => ruby_float(*f),
        Value::Boolean(b) => b.to_string(),
        Value::Array(_) | Value::Hash(_) => ruby_inspect(v),
        other => other.to_plain_string(),
    }
}

fn type_name(v: &Value) -> String {
    match v {
        Value::Undef => "NilClass".into(),
        Value::Boolean(true) => "TrueClass".into(),
        Value::Boolean(false) => "FalseClass".into(),
        Value::Integer(_) => "Integer".into(),
        Value::Float(_) => "Float".into(),
        Value::String(_) => "String".into(),
        Value::Array(_) => "Array".into(),
        Value::Hash(_) => "Hash".into(),
        other => puppet_types::infer(other).to_string(),
    }
}

/// Digs into `value` along `segments` (Puppet's `sub_lookup`); `Ok(None)` when a segment is
/// missing.
fn sub_lookup(key: &str, segments: &[Segment], value: Value) -> Result<Option<Value>, HieraError> {
    let mut value = value;
    for seg in segments {
        if value.is_undef() {
            return Ok(None);
        }
        value = match (&value, seg) {
            (Value::Array(items), Segment::Index(i)) => {
                if *i < 0 || *i as usize >= items.len() {
                    return Ok(None);
                }
                items[*i as usize].clone()
            }
            (Value::Hash(h), seg) => {
                let k = match seg {
                    Segment::Key(k) => Value::string(k),
                    Segment::Index(i) => Value::Integer(*i),
                };
                match h.get(&k) {
                    Some(v) => v.clone(),
                    None => return Ok(None),
                }
            }
            // An Integer answers Ruby's `[]` (its bits), so Puppet's type check lets it
            // through to `value.include?(segment)`, which raises (sub_lookup.rb, line 78;
            // the text is Ruby 3.1's, with its error_highlight snippet).
            (Value::Integer(n), _) => {
                return Err(HieraError::new(
                    codes::SUB_LOOKUP_NO_METHOD,
                    format!(
                        "undefined method `include?' for {n}:Integer\n\n            unless value.include?(segment)\n                        ^^^^^^^^^"
                    ),
                ))
            }
            (other, seg) => {
                return Err(HieraError::new(
                    codes::SUB_LOOKUP_TYPE,
                    format!(
                        "Data Provider type mismatch: Got {} when a hash-like object was expected to access value using '{seg}' from key '{key}'",
                        type_name(other)
                    ),
                ))
            }
        };
    }
    Ok(Some(value))
}

fn s(x: &str) -> Value {
    Value::string(x)
}

impl Lookup {
    /// Starts a builder over a data source.
    pub fn builder(source: impl DataSource + 'static) -> LookupBuilder {
        LookupBuilder {
            source: Box::new(source),
            global: None,
            environment: None,
            modules: Vec::new(),
            module_names: Vec::new(),
            config_warnings: Vec::new(),
        }
    }

    /// Builds the layers from directories, reading each `hiera.yaml` through `source`:
    /// `global` is the path of the global `hiera.yaml` (skipped when the file is missing),
    /// `environment` the environment directory (Puppet's default configuration,
    /// `data/common.yaml`, when it has no `hiera.yaml`), `modules` pairs of module name and
    /// module directory (modules without `hiera.yaml` have no data; a module's `hiera.yaml`
    /// is read when a lookup first reaches the module, and its errors fail that lookup, as
    /// in Puppet).
    pub fn from_dirs(
        source: impl DataSource + 'static,
        global: Option<&Path>,
        environment: Option<&Path>,
        modules: &[(&str, &Path)],
    ) -> Result<Lookup, HieraError> {
        let mut global_cfg = None;
        if let Some(g) = global {
            if let Some(text) = source.read(g) {
                let dir = g.parent().unwrap_or(Path::new("/"));
                global_cfg = Some(HieraConfig::parse(&text, dir)?);
            }
        }
        let env_cfg = match environment {
            Some(dir) => Some(match source.read(&dir.join("hiera.yaml")) {
                Some(text) => HieraConfig::parse(&text, dir)?,
                None => HieraConfig::default_for(dir),
            }),
            None => None,
        };
        let mut b = Lookup::builder(source);
        b.global = global_cfg;
        b.environment = env_cfg;
        for (name, dir) in modules {
            b = b.module_dir(name, *dir);
        }
        b.build()
    }

    /// Looks a key up (dotted keys dig into the value). `merge` overrides the strategy from
    /// `lookup_options`. Returns `Ok(None)` only when nothing was found and `default` is
    /// `None`; a value found as `~` is `Some(Value::Undef)`.
    pub fn lookup(
        &self,
        key: &str,
        merge: Option<MergeStrategy>,
        default: Option<Value>,
        scope: &dyn Scope,
    ) -> Result<Option<Value>, HieraError> {
        let inv = Inv::new(scope, false);
        *inv.top_key.borrow_mut() = key.into();
        Ok(self.adapter_lookup(&inv, key, merge)?.or(default))
    }

    /// [`Lookup::lookup`] (without a default) and, when a value is found, the
    /// [`Lookup::lookup_options`] of the key: what that would answer after the lookup in the
    /// same scope, as found for the lookup itself.
    pub fn lookup_with_options(
        &self,
        key: &str,
        merge: Option<MergeStrategy>,
        scope: &dyn Scope,
    ) -> Result<Option<(Value, Option<Value>)>, HieraError> {
        let inv = Inv::new(scope, false);
        *inv.top_key.borrow_mut() = key.into();
        self.search(&inv, key, merge)
    }

    /// Puppet's `lookup()` function: the first of `names` that has a value, else `default`,
    /// else the error `Function lookup() did not find a value for the name '...'`.
    pub fn lookup_function(
        &self,
        names: &[&str],
        merge: Option<MergeStrategy>,
        default: Option<Value>,
        scope: &dyn Scope,
    ) -> Result<Value, HieraError> {
        for name in names {
            if let Some(v) = self.lookup(name, merge.clone(), None, scope)? {
                return Ok(v);
            }
        }
        default.ok_or_else(|| HieraError::not_found(names))
    }

    /// Automatic class parameter lookup: the key `class::param`; `Ok(None)` when not found.
    pub fn class_parameter(
        &self,
        class: &str,
        param: &str,
        scope: &dyn Scope,
    ) -> Result<Option<Value>, HieraError> {
        let mut class = class;
        while let Some(rest) = class.strip_prefix("::") {
            class = rest;
        }
        // Not `format!`: this runs for every class parameter without a given value.
        let mut key = String::with_capacity(class.len() + 2 + param.len());
        key.push_str(class);
        key.push_str("::");
        key.push_str(param);
        self.lookup(&key, None, None, scope)
    }

    /// This lookup without the caches of hierarchy locations and `lookup_options` (each
    /// lookup computes them anew, as when explaining); for testing the caches.
    #[doc(hidden)]
    pub fn without_caches(mut self) -> Lookup {
        self.caching = false;
        self
    }

    /// The directories under which the global and environment layers find their data
    /// ([`HieraConfig::data_roots`]): a backend function handed such a path may read it
    /// (module layers' data lies in the modules).
    ///
    /// ```
    /// use puppet_hiera::{HieraConfig, Lookup, MemorySource};
    /// use std::path::{Path, PathBuf};
    /// let yaml = "version: 5\nhierarchy:\n  - name: n\n    path: nodes/%{trusted.certname}.yaml\n";
    /// let global = HieraConfig::parse(yaml, Path::new("/etc/puppet")).unwrap();
    /// let lookup = Lookup::builder(MemorySource::new()).global(global).build().unwrap();
    /// assert_eq!(lookup.data_roots(), vec![PathBuf::from("/etc/puppet/data/nodes")]);
    /// ```
    pub fn data_roots(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        for p in self.global.iter().chain(&self.environment) {
            for r in p.config.data_roots() {
                if !roots.contains(&r) {
                    roots.push(r);
                }
            }
        }
        roots
    }

    /// Makes the layer of every module added with [`LookupBuilder::module_dir`] now (as
    /// the first lookup reaching each would, in the order they were added); the first
    /// error, if any. Lookups answer the same afterwards: for testing that reading the
    /// layers on first use equals reading them up front.
    pub fn load_module_layers(&self) -> Result<(), HieraError> {
        let mut first = Ok(());
        for name in self.modules.keys() {
            if let (Err(e), Ok(())) = (self.module_provider(name), &first) {
                first = Err(e);
            }
        }
        first
    }

    /// The provider of module `name`'s layer, made from its `hiera.yaml` on first use (see
    /// [`ModuleLayer`]); `None` when the module has none.
    fn module_provider(&self, name: &str) -> Result<Option<&Provider>, HieraError> {
        let Some(layer) = self.modules.get(name) else {
            return Ok(None);
        };
        let made = layer.provider.get_or_init(|| {
            let Some(dir) = &layer.dir else {
                return Ok(None);
            };
            let mut warnings: Vec<ConfigWarning> = Vec::new();
            let r = (|| {
                let config = match self.source.read(&dir.join("hiera.yaml")) {
                    Some(text) => Some(HieraConfig::parse(&text, dir)?),
                    None => None,
                };
                // The deprecated `data_provider` of the module's metadata.json.
                let provider = self
                    .source
                    .read(&dir.join("metadata.json"))
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                    .and_then(|m| m.get("data_provider")?.as_str().map(str::to_string));
                let owner = crate::config::DataProviderOwner::Module(name);
                let config = crate::config::with_data_provider(
                    config,
                    provider.as_deref(),
                    dir,
                    owner,
                    &mut warnings,
                )?;
                match config {
                    Some(c) => layer_provider(c, Layer::Module(name.to_string()), &mut warnings),
                    None => Ok(None),
                }
            })()
            .map_err(module_config_error);
            for w in &warnings {
                self.warn(w.message.clone());
            }
            let _ = layer.warnings.set(warnings);
            r
        });
        match made {
            Ok(p) => Ok(p.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }

    /// True when the environment layer has a (version 4 or 5) configuration.
    pub fn has_environment_layer(&self) -> bool {
        self.environment.is_some()
    }

    /// Looks a key up in the global layer only, as Puppet's deprecated `hiera()` functions
    /// do when the environment has no `hiera.yaml` (no environment or module data, no
    /// `default_hierarchy`).
    pub fn lookup_global_only(
        &self,
        key: &str,
        merge: Option<MergeStrategy>,
        scope: &dyn Scope,
    ) -> Result<Option<Value>, HieraError> {
        let inv = Inv::new(scope, false);
        inv.global_only.set(true);
        *inv.top_key.borrow_mut() = key.into();
        self.adapter_lookup(&inv, key, merge)
    }

    /// The `lookup_options` that apply to `key` (exact key first, then regex keys), e.g. for
    /// the caller to apply `convert_to`.
    pub fn lookup_options(
        &self,
        key: &str,
        scope: &dyn Scope,
    ) -> Result<Option<Value>, HieraError> {
        let inv = Inv::new(scope, false);
        match self.split_unless_plain(key)? {
            Some(segs) => self.options_for(&inv, &root_of(&segs)),
            None => self.options_for(&inv, key),
        }
    }

    /// Looks a key up recording every step, as `puppet lookup --explain KEY [--merge M]`
    /// does: a `merge` given here is explained with the options that command gives it.
    ///
    /// ```
    /// use puppet_hiera::{Lookup, MapScope, MemorySource};
    /// let src = MemorySource::new().with("/env/data/common.yaml", "a: 1\n");
    /// let l = Lookup::from_dirs(src, None, Some("/env".as_ref()), &[]).unwrap();
    /// let e = l.explain("a", None, &MapScope::new());
    /// let text = e.to_string();
    /// assert!(text.contains("Path \"/env/data/common.yaml\""));
    /// assert!(text.contains("Found key: \"a\" value: 1"));
    /// let missing = l.explain("b", None, &MapScope::new()).to_string();
    /// assert!(missing.ends_with("No such key: \"b\"\nFunction lookup() did not find a value for the name 'b'\n"));
    /// ```
    pub fn explain(
        &self,
        key: &str,
        merge: Option<MergeStrategy>,
        scope: &dyn Scope,
    ) -> Explanation {
        let inv = Inv::new(scope, true);
        *inv.top_key.borrow_mut() = key.into();
        let result = self.adapter_lookup(&inv, key, merge);
        match &result {
            Ok(Some(_)) => {}
            Ok(None) => inv.text(|| HieraError::not_found(&[key]).to_string()),
            Err(e) => inv.text(|| e.to_string()),
        }
        let tree = inv.rec.map(|r| r.into_inner().tree).unwrap_or_default();
        Explanation { result, tree }
    }

    /// Warnings emitted so far (ignored version 3 configs, module keys outside the module's
    /// namespace, data files that are not hashes), each once; drains the list.
    pub fn take_warnings(&self) -> Vec<String> {
        match self.warnings.lock() {
            Ok(mut w) => std::mem::take(&mut *w),
            Err(_) => Vec::new(),
        }
    }

    fn warn(&self, msg: String) {
        if let Ok(mut w) = self.warnings.lock() {
            if !w.contains(&msg) {
                w.push(msg);
            }
        }
    }

    fn split(&self, key: &str) -> Result<Vec<Segment>, HieraError> {
        interp::split_key(key, |p| format!("{p} in key: '{key}'"))
    }

    fn adapter_lookup(
        &self,
        inv: &Inv<'_>,
        key: &str,
        merge: Option<MergeStrategy>,
    ) -> Result<Option<Value>, HieraError> {
        Ok(self.search(inv, key, merge)?.map(|(v, _)| v))
    }

    /// `key` split into segments, `None` for a key of one plain segment (what
    /// [`interp::split_key`] gives as one key segment, without allocating).
    fn split_unless_plain(&self, key: &str) -> Result<Option<Vec<Segment>>, HieraError> {
        match key.bytes().any(|b| matches!(b, b'\'' | b'"' | b'.')) {
            true => self.split(key).map(Some),
            false => Ok(None),
        }
    }

    /// [`Lookup::adapter_lookup`], with the `lookup_options` that apply to the key (as
    /// [`Lookup::lookup_options`] answers) when a value is found.
    fn search(
        &self,
        inv: &Inv<'_>,
        key: &str,
        merge: Option<MergeStrategy>,
    ) -> Result<Option<(Value, Option<Value>)>, HieraError> {
        // What Puppet warns about the global and environment configurations when a
        // compilation makes their layers (its first lookup); the scope logs each once.
        for w in &self.config_warnings {
            inv.scope.config_warning(w);
        }
        if key == "lookup_options" || key.starts_with("lookup_options.") {
            inv.add(|| Event::InvalidKey("lookup_options".into()));
            return Ok(None);
        }
        let segs = self.split_unless_plain(key)?;
        let (root, rest) = match &segs {
            Some(segs) => (root_of(segs), &segs[1..]),
            None => (std::borrow::Cow::Borrowed(key), &[][..]),
        };
        let opts = self.options_for(inv, &root)?;
        let (merge, shown) = match merge {
            Some(m) => {
                let shown = cli_merge_options(&m);
                (m, shown)
            }
            None => match opts.as_ref().and_then(|o| match o {
                Value::Hash(h) => h.get(&s("merge")).cloned(),
                _ => None,
            }) {
                Some(m) => {
                    inv.add(|| Event::MergeSource("lookup_options".into()));
                    (MergeStrategy::from_value(&m)?, given_merge_options(&m))
                }
                None => (MergeStrategy::First, None),
            },
        };
        let saved = inv.merge_options.replace(shown);
        inv.enter(|| Event::Search(key.to_string()));
        // The key's module: its layer is made when the search reaches it.
        let module = module_of(&root);
        let r = inv.nest(|| {
            let found = match self.do_lookup(inv, key, &root, module, &merge)? {
                Some(v) => Some(v),
                None if inv.global_only.get() => None,
                None => self.default_hierarchy_lookup(inv, key, &root, module)?,
            };
            match found {
                Some(v) if !rest.is_empty() => self.explained_sub_lookup(inv, key, rest, v),
                other => Ok(other),
            }
        });
        inv.leave();
        inv.merge_options.replace(saved);
        Ok(r?.map(|v| (v, opts)))
    }

    /// [`sub_lookup`], explained as Puppet's `SubLookup#sub_lookup`: a node for the
    /// segments, and one per segment with what was found.
    fn explained_sub_lookup(
        &self,
        inv: &Inv<'_>,
        key: &str,
        segments: &[Segment],
        value: Value,
    ) -> Result<Option<Value>, HieraError> {
        if !inv.explaining() {
            return sub_lookup(key, segments, value);
        }
        inv.with(
            || Event::SubLookup(segments.iter().map(segment_text).collect()),
            || {
                let mut value = value;
                for seg in segments {
                    inv.enter(|| Event::Segment);
                    let r = sub_lookup(key, std::slice::from_ref(seg), value.clone());
                    match &r {
                        Ok(Some(v)) => inv.outcome(|| Outcome::Found(segment_text(seg), v.clone())),
                        Ok(None) => inv.outcome(|| Outcome::NotFound(segment_text(seg))),
                        Err(_) => {}
                    }
                    inv.leave();
                    match r? {
                        Some(v) => value = v,
                        None => return Ok(None),
                    }
                }
                Ok(Some(value))
            },
        )
    }

    fn do_lookup(
        &self,
        inv: &Inv<'_>,
        key: &str,
        root: &str,
        module: Option<&str>,
        merge: &MergeStrategy,
    ) -> Result<Option<Value>, HieraError> {
        // Puppet's provider stack: the global layer, the environment, the key's module; each
        // contributes nothing when absent (a module that is not found says so).
        let global_lookup = |inv: &Inv<'_>, p: &Provider| match self
            .global_layer_lookup(inv, p, key, root, merge)
        {
            Err(e) if !e.has_issue_code() => Err(HieraError {
                message: format!(
                    "Lookup of key '{}' failed: {}",
                    inv.top_key.borrow(),
                    e.message
                ),
                code: codes::GLOBAL_FAILED,
                ..e
            }),
            r => r,
        };
        if inv.global_only.get() {
            return match &self.global {
                Some(p) => global_lookup(inv, p),
                None => Ok(None),
            };
        }
        explained_merge(inv, merge, 3, |i| match i {
            0 => match &self.global {
                Some(p) => global_lookup(inv, p),
                None => Ok(None),
            },
            1 => match &self.environment {
                Some(p) => self.layer_lookup(inv, p, key, root, merge, false),
                None => Ok(None),
            },
            _ => self.module_lookup(inv, module, key, root, merge),
        })
    }

    /// The global layer's part of a lookup. A version 3 layer searches with Hiera 3's
    /// scope, confined to the global layer (for what its data interpolates) when the
    /// environment has no layer, and, for the `hiera_*()` functions, merges hashes as its
    /// `merge_behavior` says and checks what it found (Puppet's `GlobalDataProvider`).
    fn global_layer_lookup(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        key: &str,
        root: &str,
        merge: &MergeStrategy,
    ) -> Result<Option<Value>, HieraError> {
        let Some(h3) = &p.config.hiera3 else {
            return self.layer_lookup(inv, p, key, root, merge, false);
        };
        let hash_merge = matches!(merge, MergeStrategy::Hash);
        let merge = match &h3.hiera_merge {
            Some(m) if inv.hiera_call && hash_merge => m,
            _ => merge,
        };
        let found = self.layer_lookup(inv, p, key, root, merge, false)?;
        if let (true, Some(v)) = (inv.hiera_call, &found) {
            if matches!(merge, MergeStrategy::Hash | MergeStrategy::Deep(_))
                && !matches!(v, Value::Hash(_))
            {
                return Err(HieraError::new(
                    codes::DATA_TYPE,
                    puppet_types::describe_mismatch(
                        "value has wrong type,",
                        &puppet_types::Type::hash_of_any(),
                        &puppet_types::infer_set(v),
                    ),
                ));
            }
            let resolution = match merge {
                MergeStrategy::Hash => Some("hash"),
                MergeStrategy::Unique => Some("array"),
                _ => None,
            };
            let dotted = self
                .split_unless_plain(key)?
                .is_some_and(|segs| segs.len() > 1);
            if let (Some(r), true) = (resolution, dotted) {
                return Err(HieraError::new(
                    codes::V3_RESOLUTION,
                    format!(
                        "Resolution type :{r} is illegal when accessing values using dotted keys. Offending key was '{key}'"
                    ),
                ));
            }
        }
        Ok(found)
    }

    /// The module layer of `module` (Puppet's `lookup_in_module`): its provider, made on
    /// first use, if the module has one.
    fn module_lookup(
        &self,
        inv: &Inv<'_>,
        module: Option<&str>,
        key: &str,
        root: &str,
        merge: &MergeStrategy,
    ) -> Result<Option<Value>, HieraError> {
        let Some(m) = module else {
            return Ok(None);
        };
        let provider = self.module_provider(m);
        self.module_warnings(inv, m);
        match provider? {
            Some(p) => self.layer_lookup(inv, p, key, root, merge, false),
            None => {
                inv.add(|| match self.module_names.contains(m) {
                    true => Event::ModuleProviderNotFound(m.to_string()),
                    false => Event::ModuleNotFound(m.to_string()),
                });
                Ok(None)
            }
        }
    }

    /// Hands the scope what Puppet warns about module `m`'s configuration when a lookup
    /// reaches the module ([`Scope::config_warning`]).
    fn module_warnings(&self, inv: &Inv<'_>, m: &str) {
        let warnings = self.modules.get(m).and_then(|l| l.warnings.get());
        for w in warnings.into_iter().flatten() {
            inv.scope.config_warning(w);
        }
    }

    /// The `default_hierarchy` of the key's module, searched when no layer has the key.
    fn default_hierarchy_lookup(
        &self,
        inv: &Inv<'_>,
        key: &str,
        root: &str,
        module: Option<&str>,
    ) -> Result<Option<Value>, HieraError> {
        let Some(m) = module else {
            return Ok(None);
        };
        let Some(p) = self.module_provider(m)? else {
            return Ok(None);
        };
        if p.config.default_hierarchy.is_none() {
            return Ok(None);
        }
        inv.enter(|| Event::Scope(format!("Searching default_hierarchy of module \"{m}\"")));
        let r = (|| {
            let opts = inv.with(
                || Event::Scope("Searching for \"lookup_options\"".into()),
                || {
                    self.layer_lookup(
                        inv,
                        p,
                        "lookup_options",
                        "lookup_options",
                        &MergeStrategy::Hash,
                        true,
                    )
                },
            )?;
            let opts = match opts {
                Some(o) => Some(self.compile_options(&o, Some(m))?),
                None => None,
            };
            let merge = match opts.and_then(|o| o.for_key(root)) {
                Some(Value::Hash(h)) => match h.get(&s("merge")) {
                    Some(m) => MergeStrategy::from_value(m)?,
                    None => MergeStrategy::First,
                },
                _ => MergeStrategy::First,
            };
            inv.with(
                || Event::Scope(format!("Searching for \"{key}\"")),
                || self.layer_lookup(inv, p, key, root, &merge, true),
            )
        })();
        inv.leave();
        r
    }

    fn options_for(&self, inv: &Inv<'_>, root: &str) -> Result<Option<Value>, HieraError> {
        let module = module_of(root);
        let cached = inv
            .lo_cache
            .borrow()
            .iter()
            .find(|(m, _)| m.as_deref() == module)
            .map(|(_, o)| o.clone());
        // The compilation's adapter, except when explaining (an explanation shows the
        // search). `hiera()` shares it: the options it retrieves for a module while
        // searching the global layer alone (the global layer's options only) are what
        // every later lookup of that module's keys gets, and the other way round, as in
        // Puppet (`LookupAdapter#lookup_lookup_options` caches them by module name).
        let adapter = match inv.scope.adapter() {
            Some(a) if inv.rec.is_none() => Some(a),
            _ => None,
        };
        let cached = cached.or_else(|| adapter?.options.borrow().get(module));
        let opts = match cached {
            Some(o) => o,
            None => {
                let saved = inv.top_key.replace("lookup_options".into());
                let saved_stack = inv.stack.replace(Vec::new());
                inv.enter(|| Event::Search("lookup_options".into()));
                let r = self.shared_options(inv, module);
                inv.leave();
                inv.top_key.replace(saved);
                inv.stack.replace(saved_stack);
                let o = r?;
                inv.lo_cache
                    .borrow_mut()
                    .push((module.map(str::to_string), o.clone()));
                if let Some(a) = adapter {
                    a.options.borrow_mut().keep(module, o.clone());
                }
                // Puppet keeps the environment's options for keys outside modules too.
                if module.is_some() && !inv.lo_cache.borrow().iter().any(|(m, _)| m.is_none()) {
                    let env = inv.env_options.borrow().clone();
                    if let Some(env) = env {
                        let compiled = match env {
                            Some(v) => Some(Arc::new(self.compile_options(&v, None)?)),
                            None => None,
                        };
                        inv.lo_cache.borrow_mut().push((None, compiled));
                    }
                }
                o
            }
        };
        Ok(opts.and_then(|o| o.for_key(root)))
    }

    /// [`Lookup::retrieve_options`], from the cache when every hierarchy entry it reads
    /// resolves to the same locations as when they were merged (and no value of them was
    /// interpolated: the data files do not change).
    fn shared_options(
        &self,
        inv: &Inv<'_>,
        module: Option<&str>,
    ) -> Result<MergedOptions, HieraError> {
        let caching = self.caching && inv.rec.is_none();
        // A module layer that cannot be made is never cached: retrieving its options
        // fails where Puppet's retrieval does (after the global and environment layers).
        let broken = || match (inv.global_only.get(), module) {
            (false, Some(m)) => self.module_provider(m).is_err(),
            _ => false,
        };
        if !caching || broken() {
            return self.retrieve_options(inv, module).map(|o| o.map(Arc::new));
        }
        if let Some(o) = self.options_from_snapshot(inv, module) {
            return Ok(o);
        }
        let cell = self.snapshot_cell(inv, module);
        if let Some((ids, resolved)) = self.options_key(inv, module) {
            let key = (module.map(str::to_string), inv.global_only.get(), ids);
            let hit = self.options.read().ok().and_then(|m| m.get(&key).cloned());
            if let Some(o) = hit {
                self.take_snapshot(inv, cell, resolved, o.clone());
                return Ok(o);
            }
        }
        let outer = inv.data_interpolated.replace(false);
        let r = self.retrieve_options(inv, module).map(|o| o.map(Arc::new));
        let interpolated = inv.data_interpolated.replace(outer);
        inv.data_interpolated.set(outer || interpolated);
        if let (false, Ok(o)) = (interpolated, &r) {
            if let Some((ids, resolved)) = self.options_key(inv, module) {
                let key = (module.map(str::to_string), inv.global_only.get(), ids);
                if let Ok(mut m) = self.options.write() {
                    if m.len() >= cache::OPTIONS_LIMIT {
                        m.clear();
                    }
                    m.insert(key, o.clone());
                }
                self.take_snapshot(inv, cell, resolved, o.clone());
            }
        }
        r
    }

    /// The `lookup_options` for `module`'s keys as last merged, when the snapshot taken then
    /// still holds; its resolutions of the hierarchy entries are then also valid for this
    /// invocation, which keeps them (a key lookup that follows checks none of them again).
    /// (Seeding them also when the compilation's adapter already has the options costs more
    /// than the key lookup's own checks: measured with callgrind on the ntp node.)
    fn options_from_snapshot(&self, inv: &Inv<'_>, module: Option<&str>) -> Option<MergedOptions> {
        let cell = self.snapshot_cell(inv, module);
        let depth = *inv.depth.borrow();
        let s = cell.read().ok().and_then(|s| s.clone())?;
        if !s.holds(options_stack(), depth, |name| inv.shared_variable(name)) {
            return None;
        }
        let mut memo = inv.resolved.borrow_mut();
        for (addr, r) in &s.resolved {
            if !memo.iter().any(|(a, _)| a == addr) {
                memo.push((*addr, r.clone()));
            }
        }
        Some(s.value.clone())
    }

    /// Where the snapshot of the `lookup_options` for `module`'s keys is kept.
    fn snapshot_cell(
        &self,
        inv: &Inv<'_>,
        module: Option<&str>,
    ) -> &RwLock<Option<Arc<OptionsSnapshot>>> {
        if inv.global_only.get() {
            return &self.snapshots[1];
        }
        // (`shared_options` has made the module's layer: an error is not cached.)
        match module.and_then(|m| self.module_provider(m).ok().flatten()) {
            Some(p) => &p.snapshot,
            None => &self.snapshots[0],
        }
    }

    /// Remembers `value` as valid while the root variables the `resolved` entries read keep
    /// their values (as read now).
    fn take_snapshot(
        &self,
        inv: &Inv<'_>,
        cell: &RwLock<Option<Arc<OptionsSnapshot>>>,
        resolved: Vec<Memo>,
        value: MergedOptions,
    ) {
        let s = Snapshot::new(resolved, value, |name| inv.variable(name));
        if let Ok(mut c) = cell.write() {
            *c = Some(Arc::new(s));
        }
    }

    /// What the `lookup_options` for `module` depend on now, when every entry of the
    /// layers searched has a cached resolution that holds (checked against the recursion
    /// stack `retrieve_options` resolves them with: `["lookup_options"]`).
    /// Also returns the resolutions, by slot address.
    fn options_key(&self, inv: &Inv<'_>, module: Option<&str>) -> Option<(Vec<u64>, Vec<Memo>)> {
        let stack = options_stack();
        let more = match (inv.global_only.get(), module) {
            (true, _) | (false, None) => None,
            (false, Some(m)) => self.module_provider(m).ok().flatten(),
        };
        let providers = self.global.iter().chain(if inv.global_only.get() {
            None
        } else {
            self.environment.as_ref()
        });
        let mut ids = Vec::with_capacity(8);
        let mut resolved = Vec::with_capacity(8);
        for p in providers.chain(more) {
            for i in 0..p.config.hierarchy.len() {
                let r = self.cached_locations(inv, p, i, stack)?;
                ids.push(r.id);
                resolved.push((&p.slots[i] as *const Slot as usize, r));
            }
        }
        Some((ids, resolved))
    }

    fn retrieve_options(
        &self,
        inv: &Inv<'_>,
        module: Option<&str>,
    ) -> Result<Option<LookupOptions>, HieraError> {
        let hash = MergeStrategy::Hash;
        let layer_opts = |p: Option<&Provider>| -> Result<Option<Value>, HieraError> {
            let Some(p) = p else { return Ok(None) };
            let r = self.layer_lookup(inv, p, "lookup_options", "lookup_options", &hash, false);
            let r = match (&p.layer, r) {
                (Layer::Global, Err(e)) if !e.has_issue_code() => Err(HieraError {
                    message: format!("Lookup of key 'lookup_options' failed: {}", e.message),
                    code: codes::GLOBAL_FAILED,
                    ..e
                }),
                (_, r) => r,
            };
            match r? {
                Some(v @ Value::Hash(_)) => Ok(Some(v)),
                Some(_) => Err(HieraError::new(
                    codes::LOOKUP_OPTIONS,
                    "value of lookup_options must be a hash",
                )),
                None => Ok(None),
            }
        };
        if inv.global_only.get() {
            return match layer_opts(self.global.as_ref())? {
                Some(o) => Ok(Some(self.compile_options(&o, None)?)),
                None => Ok(None),
            };
        }
        // The global and environment options, once per explained invocation (as Puppet's
        // adapter does; without explaining, the shared caches above decide).
        let cached = if inv.rec.is_some() {
            inv.env_options.borrow().clone()
        } else {
            None
        };
        let env_opts = match cached {
            Some(o) => o,
            None => {
                let global = layer_opts(self.global.as_ref())?;
                let env = layer_opts(self.environment.as_ref())?;
                let o = match (global, env) {
                    (Some(g), Some(e)) => Some(hash.merge(&g, &e)?),
                    (g, e) => g.or(e),
                };
                if inv.rec.is_some() {
                    *inv.env_options.borrow_mut() = Some(o.clone());
                }
                o
            }
        };
        let mut opts = env_opts;
        if let Some(m) = module {
            let provider = self.module_provider(m);
            self.module_warnings(inv, m);
            let module_opts = match provider? {
                Some(p) => layer_opts(Some(p))?,
                None => {
                    if self.module_names.contains(m) {
                        inv.add(|| Event::ModuleProviderNotFound(m.to_string()));
                    } else {
                        inv.add(|| Event::ModuleNotFound(m.to_string()));
                    }
                    None
                }
            };
            if let Some(mv) = module_opts {
                self.validate_module_options(&mv, m)?;
                opts = Some(match opts {
                    Some(o) => {
                        // Explained as Puppet merges them: two found values, merged.
                        let both = [
                            (String::from("Global and Environment"), o),
                            (format!("Module {m}"), mv),
                        ];
                        let saved = inv.merge_options.replace(None);
                        let r = explained_merge(inv, &hash, 2, |i| {
                            let (name, v) = &both[i];
                            inv.with(
                                || Event::Scope(name.clone()),
                                || {
                                    inv.outcome(|| {
                                        Outcome::Found("lookup_options".into(), v.clone())
                                    });
                                    Ok(Some(v.clone()))
                                },
                            )
                        });
                        inv.merge_options.replace(saved);
                        r?.unwrap_or(Value::Undef)
                    }
                    None => mv,
                });
            }
        }
        match opts {
            Some(o) => Ok(Some(self.compile_options(&o, None)?)),
            None => Ok(None),
        }
    }

    fn validate_module_options(&self, v: &Value, module: &str) -> Result<(), HieraError> {
        let Value::Hash(h) = v else { return Ok(()) };
        let pfx = format!("{module}::");
        for k in h.keys() {
            let k = k.to_plain_string();
            if let Some(rest) = k.strip_prefix('^') {
                if !rest.starts_with(&pfx) {
                    return Err(HieraError::new(
                        codes::LOOKUP_OPTIONS,
                        format!("all lookup_options patterns must match a key starting with module name '{module}'"),
                    ));
                }
            } else if !k.starts_with(&pfx) {
                return Err(HieraError::new(
                    codes::LOOKUP_OPTIONS,
                    format!("all lookup_options keys must start with module name '{module}'"),
                ));
            }
        }
        Ok(())
    }

    fn compile_options(
        &self,
        v: &Value,
        module: Option<&str>,
    ) -> Result<LookupOptions, HieraError> {
        if let Some(m) = module {
            self.validate_module_options(v, m)?;
        }
        let mut out = LookupOptions {
            keys: IndexMap::new(),
            patterns: Vec::new(),
        };
        if let Value::Hash(h) = v {
            for (k, val) in h.iter() {
                let k = k.to_plain_string();
                if k.starts_with('^') {
                    let re = Regexp::new(&k).map_err(|e| {
                        HieraError::new(
                            codes::LOOKUP_OPTIONS,
                            format!(
                                "lookup_options key '{k}' is not a valid regular expression: {e}"
                            ),
                        )
                    })?;
                    out.patterns.push((re, val.clone()));
                } else {
                    out.keys.insert(k, val.clone());
                }
            }
        }
        Ok(out)
    }

    fn layer_lookup(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        key: &str,
        root: &str,
        merge: &MergeStrategy,
        default_hierarchy: bool,
    ) -> Result<Option<Value>, HieraError> {
        if p.config.hiera3.is_none() || inv.hiera3.get() {
            return self.entries_lookup(inv, p, key, root, merge, default_hierarchy);
        }
        // A version 3 global layer is searched with Hiera 3's scope, and what its data
        // interpolates stays in the global layer when the environment has none (Puppet's
        // `GlobalDataProvider` and the invocations made under it).
        let global_only = inv.global_only.get();
        inv.hiera3.set(true);
        if self.environment.is_none() {
            inv.global_only.set(true);
        }
        let r = self.entries_lookup(inv, p, key, root, merge, default_hierarchy);
        inv.hiera3.set(false);
        inv.global_only.set(global_only);
        r
    }

    /// [`Lookup::layer_lookup`] in the layer's scope.
    fn entries_lookup(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        key: &str,
        root: &str,
        merge: &MergeStrategy,
        default_hierarchy: bool,
    ) -> Result<Option<Value>, HieraError> {
        let entries = match default_hierarchy {
            true => p.config.default_hierarchy.as_ref().map_or(0, Vec::len),
            false => p.config.hierarchy.len(),
        };
        if entries == 0 && !inv.explaining() {
            // All that a layer without entries does when nothing is recorded (as the
            // global layer of an installation without a global `hiera.yaml`).
            return inv.guard(key).map(|()| None);
        }
        inv.check(key, || {
            let config = (!p.config.is_default).then(|| p.config.path.clone());
            inv.enter(|| Event::Provider {
                name: p.layer.provider_name(&p.config),
                config,
            });
            let r = (|| {
                let (entries, first_slot): (&[HierarchyEntry], usize) = if default_hierarchy {
                    (
                        p.config.default_hierarchy.as_deref().unwrap_or(&[]),
                        p.config.hierarchy.len(),
                    )
                } else {
                    (&p.config.hierarchy, 0)
                };
                // The entries with locations (a default configuration drops an entry none
                // of whose files exist).
                let mut live = Vec::with_capacity(entries.len());
                let memo = match default_hierarchy {
                    false => self.layer_memo(inv, p),
                    true => None,
                };
                if let Some(snapshot) = memo {
                    for (e, (_, r)) in entries.iter().zip(&snapshot.resolved) {
                        if r.locations.is_some() {
                            live.push((e, r.clone()));
                        }
                    }
                } else {
                    // Every entry's resolution, by slot, while all of them are cached ones.
                    let mut all = Some(Vec::with_capacity(entries.len()));
                    for (i, e) in entries.iter().enumerate() {
                        let resolution = self.locations(inv, p, first_slot + i, e)?;
                        match (&mut all, resolution.id) {
                            (_, 0) => all = None,
                            (Some(all), _) => all.push((
                                &p.slots[first_slot + i] as *const Slot as usize,
                                resolution.clone(),
                            )),
                            (None, _) => {}
                        }
                        if resolution.locations.is_some() {
                            live.push((e, resolution));
                        }
                    }
                    if let (false, Some(all)) = (default_hierarchy, all) {
                        self.keep_layer(inv, p, all);
                    }
                }
                if live.is_empty() {
                    inv.outcome(|| Outcome::NotFound(key.to_string()));
                    return Ok(None);
                }
                explained_merge(inv, merge, live.len(), |i| {
                    let (e, resolution) = &live[i];
                    self.entry_lookup(inv, p, e, resolution, key, root, merge)
                })
            })();
            inv.leave();
            r
        })
    }

    /// The compilation's adapter and this layer's key in it, when resolutions may be
    /// taken from it or kept in it (caching, not explaining, not recording).
    fn layer_adapter<'i>(
        &self,
        inv: &'i Inv<'_>,
        p: &Provider,
    ) -> Option<(&'i LookupAdapter, LayerId)> {
        if !self.caching || inv.rec.is_some() || inv.recording.borrow().is_some() {
            return None;
        }
        let adapter = inv.scope.adapter()?;
        Some((adapter, (self.id, p as *const Provider as usize)))
    }

    /// The resolutions of every `hierarchy` entry of `p` as last found valid in this
    /// compilation, when the root variables they read still have the same values (the
    /// very same hash or array, an identical scalar, or still none) and the recursion
    /// guards would let them be recomputed from here: then every entry's deps give what
    /// they gave, so each resolution holds (as [`Lookup::cached_locations`] would find
    /// entry by entry).
    fn layer_memo(&self, inv: &Inv<'_>, p: &Provider) -> Option<Arc<LayerSnapshot>> {
        let (adapter, id) = self.layer_adapter(inv, p)?;
        let snapshot = (adapter.layers.borrow().iter())
            .find(|(l, _)| *l == id)
            .map(|(_, s)| s.clone())?;
        let depth = *inv.depth.borrow();
        // The scope directly: a variable has one value throughout a lookup, and these
        // reads need not be kept for later ones.
        let holds = snapshot.holds(&inv.stack.borrow(), depth, |name| inv.read_variable(name));
        holds.then_some(snapshot)
    }

    /// Keeps the (cached) resolutions of every `hierarchy` entry of `p`, just found valid,
    /// in the compilation's adapter for [`Lookup::layer_memo`].
    fn keep_layer(&self, inv: &Inv<'_>, p: &Provider, resolved: Vec<Memo>) {
        let Some((adapter, id)) = self.layer_adapter(inv, p) else {
            return;
        };
        let snapshot = Arc::new(Snapshot::new(resolved, (), |name| inv.variable(name)));
        let mut layers = adapter.layers.borrow_mut();
        match layers.iter_mut().find(|(l, _)| *l == id) {
            Some((_, s)) => *s = snapshot,
            None => layers.push((id, snapshot)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn entry_lookup(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        e: &HierarchyEntry,
        resolution: &Resolution,
        key: &str,
        root: &str,
        merge: &MergeStrategy,
    ) -> Result<Option<Value>, HieraError> {
        inv.enter(|| Event::Provider {
            name: format!("Hierarchy entry \"{}\"", e.name),
            config: None,
        });
        let r = (|| {
            let Some(locations) = &resolution.locations else {
                return Ok(None);
            };
            let func = match &e.function {
                Some((FunctionKind::DataHash, name))
                    if name == "yaml_data" || name == "json_data" =>
                {
                    name.as_str()
                }
                Some((FunctionKind::LookupKey, name)) if name == "eyaml_lookup_key" => {
                    return self.eyaml_entry_lookup(inv, p, e, locations, root, merge);
                }
                Some((kind, name)) => {
                    let call = FunctionEntry {
                        p,
                        e,
                        kind: *kind,
                        name,
                        key,
                        root,
                    };
                    return self.function_entry_lookup(inv, &call, locations, merge);
                }
                None => return Ok(None),
            };
            if matches!(e.location, Location::None | Location::Uris(_)) {
                return Err(HieraError::new(
                    codes::INVALID_CONFIG,
                    "one of 'path', 'paths' 'glob', 'globs' or 'mapped_paths' must be declared in hiera.yaml when using this data_hash function",
                )
                .in_file(p.config.path.clone()));
            }
            explained_merge(inv, merge, locations.len(), |i| {
                self.location_lookup(inv, p, func, &locations[i], root)
            })
        })();
        inv.leave();
        r
    }

    /// A hierarchy entry whose backend is a function of the environment (Puppet's
    /// `DataHashFunctionProvider`, `LookupKeyFunctionProvider`, `DataDigFunctionProvider`):
    /// once without a location, else once per location that exists, merged.
    fn function_entry_lookup(
        &self,
        inv: &Inv<'_>,
        f: &FunctionEntry<'_>,
        locations: &[Resolved],
        merge: &MergeStrategy,
    ) -> Result<Option<Value>, HieraError> {
        let Some(backend) = inv.scope.backend() else {
            return Err(function_not_found(f.p, f.kind, f.name));
        };
        // Puppet interpolates the options when it creates the providers (no methods, not
        // explained).
        let options = match &f.e.options {
            Some(o) => match inv.silently(|| self.interpolate(inv, o, false, inv.scope))? {
                Value::Hash(h) => (*h).clone(),
                _ => ValueMap::default(),
            },
            None => ValueMap::default(),
        };
        let segments: Vec<Value> = if f.kind == FunctionKind::DataDig {
            self.split(f.key)?
                .iter()
                .map(|seg| match seg {
                    Segment::Key(k) => s(k),
                    Segment::Index(i) => Value::Integer(*i),
                })
                .collect()
        } else {
            Vec::new()
        };
        let call =
            |loc: Option<&Resolved>| self.function_call(inv, backend, f, &options, loc, &segments);
        // A Hiera 3 backend class searches the hierarchy itself.
        if matches!(f.e.location, Location::None) || f.kind == FunctionKind::Hiera3Backend {
            return call(None);
        }
        each_location(inv, merge, locations, |loc| call(Some(loc)))
    }

    /// One call of a backend function, its answer checked (a `data_hash` function must
    /// answer a hash) and reported: the key's value (interpolated, for `data_hash`), a
    /// `data_dig` value put back in place for the segments after the root.
    fn function_call(
        &self,
        inv: &Inv<'_>,
        backend: &dyn FunctionBackend,
        f: &FunctionEntry<'_>,
        options: &ValueMap,
        loc: Option<&Resolved>,
        segments: &[Value],
    ) -> Result<Option<Value>, HieraError> {
        let mut opts = options.clone();
        if let Some(l) = loc {
            let name = if l.uri { "uri" } else { "path" };
            opts.insert(s(name), s(&l.path.to_string_lossy()));
        }
        let opts = Value::Hash(Arc::new(opts));
        let module = match &f.p.layer {
            Layer::Module(m) => Some(m.as_str()),
            _ => None,
        };
        let context = format!(
            "{:?}\u{0}{}\u{0}{}",
            f.p.layer,
            f.e.name,
            loc.map(|l| l.path.to_string_lossy()).unwrap_or_default()
        );
        let reported = match f.kind {
            FunctionKind::LookupKey | FunctionKind::DataHash | FunctionKind::V4DataHash => f.root,
            _ => f.key,
        };
        let call = BackendCall {
            kind: f.kind,
            function: f.name,
            options: &opts,
            key: reported,
            segments,
            module,
            context: &context,
        };
        // What a function answers may depend on anything (the scope, its cache): merged
        // `lookup_options` read through one are not shared with other lookups.
        inv.data_interpolated.set(true);
        let mut ctx = CallContext { lookup: self, inv };
        let answer = match backend.call(&call, &mut ctx) {
            Ok(a) => a,
            Err(BackendError::NoSuchFunction) => {
                return Err(function_not_found(f.p, f.kind, f.name))
            }
            Err(BackendError::Failed(e)) => return Err(e),
        };
        let Some(value) = answer else {
            inv.outcome(|| Outcome::NotFound(reported.to_string()));
            return Ok(None);
        };
        let value = match f.kind {
            FunctionKind::DataHash | FunctionKind::V4DataHash => {
                let Value::Hash(h) = &value else {
                    let at = loc
                        .map(|l| format!(", when using location '{}',", l.path.display()))
                        .unwrap_or_default();
                    // Puppet's provider's `full_name`.
                    let what = match f.kind {
                        FunctionKind::V4DataHash => "deprecated API function",
                        _ => "data_hash function",
                    };
                    let subject = format!(
                        "Value returned from {what} '{}'{at} has wrong type,",
                        f.name
                    );
                    let any = puppet_types::Type::hash(
                        puppet_types::Type::Any,
                        puppet_types::Type::Any,
                        None,
                    );
                    let msg =
                        puppet_types::mismatch::describe_value_mismatch(&subject, &any, &value)
                            .unwrap_or(subject);
                    return Err(HieraError::new(codes::DATA_TYPE, msg));
                };
                let Some(v) = h.get(&s(f.root)) else {
                    inv.outcome(|| Outcome::NotFound(f.root.to_string()));
                    return Ok(None);
                };
                if cache::needs_interpolation(v) {
                    inv.data_interpolated.set(true);
                    self.interpolate(inv, v, true, inv.scope)?
                } else {
                    v.clone()
                }
            }
            _ => value,
        };
        inv.outcome(|| Outcome::Found(reported.to_string(), value.clone()));
        Ok(Some(match f.kind {
            FunctionKind::DataDig => crate::backend::undig(segments, value),
            _ => value,
        }))
    }

    /// The entry's locations ([`Lookup::resolve_locations`]), cached in the provider's
    /// `slot` for the values of the variables their interpolation reads (not when
    /// explaining).
    fn locations(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        slot: usize,
        e: &HierarchyEntry,
    ) -> Result<Arc<Resolution>, HieraError> {
        let cacheable = self.caching && inv.rec.is_none() && inv.recording.borrow().is_none();
        if cacheable {
            let hit = self.cached_locations(inv, p, slot, &inv.stack.borrow());
            if let Some(r) = hit {
                return Ok(r);
            }
            let start = Recording::new(inv.stack.borrow().len(), *inv.depth.borrow());
            *inv.recording.borrow_mut() = Some(start);
        }
        // Puppet resolves hierarchy paths outside the explained invocation.
        let r = inv.silently(|| self.resolve_locations(inv, p, e));
        let rec = if cacheable {
            inv.recording.borrow_mut().take()
        } else {
            None
        };
        let locations = r?;
        match rec.filter(|r| r.cacheable) {
            Some(rec) => {
                let res = Arc::new(Resolution::recorded(rec, locations));
                p.slots[slot].insert(res.clone());
                let addr = &p.slots[slot] as *const Slot as usize;
                inv.resolved.borrow_mut().push((addr, res.clone()));
                Ok(res)
            }
            None => Ok(Arc::new(Resolution::uncached(locations))),
        }
    }

    /// A cached resolution of the entry whose variables have the same values in
    /// `inv.scope`, if the recursion guards would let it be recomputed from here.
    fn cached_locations(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        slot: usize,
        stack: &[String],
    ) -> Option<Arc<Resolution>> {
        let addr = &p.slots[slot] as *const Slot as usize;
        let memo = inv
            .resolved
            .borrow()
            .iter()
            .find(|(a, _)| *a == addr)
            .map(|(_, r)| r.clone());
        let found = match memo {
            Some(r) => r,
            None => {
                let r = p.slots[slot].find(|r| self.deps_hold(inv, &r.deps))?;
                inv.resolved.borrow_mut().push((addr, r.clone()));
                r
            }
        };
        let allowed = found.guard.allows(stack, *inv.depth.borrow());
        allowed.then_some(found)
    }

    /// Do the scope expressions read give the same values now? A dotted expression into
    /// the very hash (or array) it was last checked against holds without digging.
    fn deps_hold(&self, inv: &Inv<'_>, deps: &[Dep]) -> bool {
        deps.iter().all(|d| {
            let Some(Segment::Key(name)) = d.segments.first() else {
                return false;
            };
            let root = inv.variable(name);
            let held = d.root.lock().ok();
            if held
                .as_deref()
                .is_some_and(|h| cache::same_container(h, &root))
            {
                return true;
            }
            drop(held);
            let now = match &root {
                Some(v) if !v.is_undef() && d.segments.len() > 1 => {
                    sub_lookup("", &d.segments[1..], v.clone())
                }
                other => Ok(other.clone()),
            };
            let holds = match (now, &d.value) {
                (Ok(Some(now)), Some(then)) => cache::identical(&now, then),
                (Ok(None), None) => true,
                _ => false,
            };
            if holds && d.segments.len() > 1 {
                if let (Ok(mut held), Some(c @ (Value::Hash(_) | Value::Array(_)))) =
                    (d.root.lock(), &root)
                {
                    *held = Some(c.clone());
                }
            }
            holds
        })
    }

    /// The entry's locations; `None` when the default configuration drops the entry.
    fn resolve_locations(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        e: &HierarchyEntry,
    ) -> Result<Option<Vec<Resolved>>, HieraError> {
        let dd = pathname_plus(
            &p.config.dir,
            e.datadir.as_deref().unwrap_or(&p.config.datadir),
        );
        // (Version 4 does not interpolate its data directories.)
        let dd = match p.config.version {
            4 => dd,
            _ => PathBuf::from(self.interpolate_text(inv, &dd.to_string_lossy(), inv.scope)?),
        };
        let mut out = Vec::new();
        match &e.location {
            Location::None => {}
            Location::Uris(uris) => {
                // Only backend functions use them (Puppet's `expand_uris`: interpolated,
                // always taken to exist).
                for decl in uris {
                    let uri = self.interpolate_text(inv, decl, inv.scope)?;
                    let mut r = Resolved::new(decl.clone(), PathBuf::from(uri), true);
                    r.uri = true;
                    out.push(r);
                }
            }
            Location::Paths(paths) => {
                for decl in paths {
                    let mut text = self.interpolate_text(inv, decl, inv.scope)?;
                    if let Some(ext) = e.extension.as_deref().filter(|x| !text.ends_with(x)) {
                        text.push_str(ext);
                    }
                    let path = pathname_plus(&dd, &text);
                    let exists = self.location_exists(&path);
                    if p.config.is_default && !exists {
                        continue;
                    }
                    out.push(Resolved::new(decl.clone(), path, exists));
                }
                if p.config.is_default && out.is_empty() {
                    return Ok(None);
                }
            }
            Location::Globs(globs) => {
                for decl in globs {
                    let pattern = pathname_plus(&dd, &self.interpolate_text(inv, decl, inv.scope)?);
                    for path in self.glob_cached(&pattern).iter() {
                        if self.read_cached(path).is_some() {
                            out.push(Resolved::new(
                                pattern.to_string_lossy().to_string(),
                                path.clone(),
                                true,
                            ));
                        }
                    }
                }
            }
            Location::MappedPaths(var, key, template) => {
                let segs = interp::split_key(var, |p| format!("{p} in string: mapped_path[0]"))?;
                let vals = self.scope_lookup(inv, var, &segs, inv.scope)?;
                let vals: Vec<Value> = match vals {
                    None | Some(Value::Undef) => Vec::new(),
                    Some(Value::String(x)) if x.is_empty() => Vec::new(),
                    Some(Value::Array(items)) => items.to_vec(),
                    Some(other) => vec![other],
                };
                for v in vals {
                    let overlay = Overlay {
                        base: inv.scope,
                        name: key,
                        value: v,
                    };
                    let set_overlay = |name: Option<&String>| {
                        if let Some(r) = inv.recording.borrow_mut().as_mut() {
                            r.overlay = name.cloned();
                        }
                    };
                    set_overlay(Some(key));
                    let text = self.interpolate_text(inv, template, &overlay);
                    set_overlay(None);
                    let path = pathname_plus(&dd, &text?);
                    let exists = self.location_exists(&path);
                    out.push(Resolved::new(template.clone(), path, exists));
                }
            }
        }
        Ok(Some(out))
    }

    fn location_lookup(
        &self,
        inv: &Inv<'_>,
        p: &Provider,
        func: &str,
        loc: &Resolved,
        root: &str,
    ) -> Result<Option<Value>, HieraError> {
        inv.enter(|| Event::Location {
            path: loc.path.clone(),
            original: loc.original.clone(),
        });
        let r = (|| {
            if !loc.exists {
                inv.outcome(|| Outcome::LocationNotFound);
                return Ok(None);
            }
            let module = match &p.layer {
                Layer::Module(m) => Some(m.as_str()),
                _ => None,
            };
            let data = match loc.data.get() {
                Some(d) => d.clone(),
                None => loc
                    .data
                    .get_or_init(|| self.data_hash(&loc.path, func, module))
                    .clone(),
            }?;
            for w in &data.warnings {
                inv.scope.warning(w);
            }
            match data.map.get(&s(root)) {
                None => {
                    inv.outcome(|| Outcome::NotFound(root.to_string()));
                    Ok(None)
                }
                Some(v) => {
                    let v = if cache::needs_interpolation(v) {
                        inv.data_interpolated.set(true);
                        self.interpolate(inv, v, true, inv.scope)?
                    } else {
                        v.clone()
                    };
                    inv.outcome(|| Outcome::Found(root.to_string(), v.clone()));
                    Ok(Some(v))
                }
            }
        })();
        inv.leave();
        r
    }

    /// Whether a hierarchy location exists: a readable file, or else a directory
    /// (remembered as the file texts are: `None` text and an entry in `dirs`).
    fn location_exists(&self, path: &Path) -> bool {
        if self.read_cached(path).is_some() {
            return true;
        }
        if let Ok(d) = self.dirs.read() {
            if let Some(e) = d.get(path) {
                return *e;
            }
        }
        let e = self.source.exists(path);
        if let Ok(mut d) = self.dirs.write() {
            d.insert(path.to_path_buf(), e);
        }
        e
    }

    fn read_cached(&self, path: &Path) -> Option<Arc<str>> {
        if let Ok(t) = self.texts.read() {
            if let Some(v) = t.get(path) {
                return v.clone();
            }
        }
        let text: Option<Arc<str>> = self.source.read(path).map(Arc::from);
        if let Ok(mut t) = self.texts.write() {
            t.entry(path.to_path_buf()).or_insert(text).clone()
        } else {
            text
        }
    }

    fn glob_cached(&self, pattern: &Path) -> Arc<Vec<PathBuf>> {
        if let Ok(g) = self.globs.read() {
            if let Some(v) = g.get(pattern) {
                return v.clone();
            }
        }
        let found = Arc::new(self.source.glob(pattern));
        if let Ok(mut g) = self.globs.write() {
            g.entry(pattern.to_path_buf()).or_insert(found).clone()
        } else {
            found
        }
    }

    fn data_hash(&self, path: &Path, func: &str, module: Option<&str>) -> Parsed {
        let key = (
            path.to_path_buf(),
            func.to_string(),
            module.map(str::to_string),
        );
        if let Ok(p) = self.parsed.read() {
            if let Some(v) = p.get(&key) {
                return v.clone();
            }
        }
        let parsed = self.parse_data(path, func, module);
        if let Ok(mut p) = self.parsed.write() {
            p.entry(key).or_insert(parsed).clone()
        } else {
            parsed
        }
    }

    fn parse_data(&self, path: &Path, func: &str, module: Option<&str>) -> Parsed {
        let shown = path.display();
        let Some(text) = self.read_cached(path) else {
            // The location exists (else it is not read) but is no file: Ruby's read error.
            return Err(HieraError::new(
                codes::READ_FAILED,
                format!("Is a directory @ io_fread - {shown}"),
            )
            .in_file(path));
        };
        let (value, mut warnings) =
            data_file_value(func, &text, &shown.to_string()).map_err(|e| e.in_file(path))?;
        let map: ValueMap = match value {
            Value::Hash(h) => (*h).clone(),
            other => {
                return Err(HieraError::new(
                    codes::DATA_TYPE,
                    format!(
                        "Value returned from data_hash function 'json_data', when using location '{shown}', expects a Hash value, got {}",
                        type_name(&other).replace("NilClass", "Undef")
                    ),
                )
                .in_file(path))
            }
        };
        let map = match module {
            None => map,
            Some(m) => {
                let pfx = format!("{m}::");
                let mut out = ValueMap::default();
                for (k, v) in map {
                    let ks = k.to_plain_string();
                    if ks == "lookup_options" || ks.starts_with(&pfx) {
                        out.insert(k, v);
                    } else {
                        let w = format!(
                            "Module '{m}': Value returned from data_hash function '{func}', when using location '{shown}', must use keys qualified with the name of the module"
                        );
                        if !warnings.contains(&w) {
                            warnings.push(w);
                        }
                    }
                }
                out
            }
        };
        for w in &warnings {
            self.warn(w.clone());
        }
        Ok(Arc::new(DataFile { map, warnings }))
    }

    fn interpolate(
        &self,
        inv: &Inv<'_>,
        v: &Value,
        allow_methods: bool,
        scope: &dyn Scope,
    ) -> Result<Value, HieraError> {
        match v {
            Value::String(t) if t.contains("%{") => {
                inv.nest(|| self.interpolate_string(inv, t, allow_methods, scope))
            }
            Value::Array(items) => Ok(Value::array(
                items
                    .iter()
                    .map(|i| self.interpolate(inv, i, allow_methods, scope))
                    .collect::<Result<Vec<_>, _>>()?,
            )),
            Value::Hash(h) => {
                let mut out = ValueMap::default();
                for (k, val) in h.iter() {
                    out.insert(
                        self.interpolate(inv, k, allow_methods, scope)?,
                        self.interpolate(inv, val, allow_methods, scope)?,
                    );
                }
                Ok(Value::Hash(Arc::new(out)))
            }
            other => Ok(other.clone()),
        }
    }

    fn interpolate_text(
        &self,
        inv: &Inv<'_>,
        text: &str,
        scope: &dyn Scope,
    ) -> Result<String, HieraError> {
        Ok(ruby_to_s(&self.interpolate(inv, &s(text), false, scope)?))
    }

    fn interpolate_string(
        &self,
        inv: &Inv<'_>,
        subject: &str,
        allow_methods: bool,
        scope: &dyn Scope,
    ) -> Result<Value, HieraError> {
        let template = self.template(subject);
        let pieces = &template.pieces;
        inv.enter(|| Event::Interpolate(subject.to_string()));
        let r = (|| {
            let mut out = String::new();
            for (piece, scope_key) in pieces.iter().zip(&template.scope_keys) {
                let e = match piece {
                    Piece::Text(t) => {
                        out.push_str(t);
                        continue;
                    }
                    Piece::Expr(e) => e,
                };
                let value = match &e.kind {
                    ExprKind::Empty => continue,
                    ExprKind::Scope(key) => {
                        let Some(sk) = scope_key else { continue };
                        let v = self.scope_lookup(inv, key, &sk.segments.clone()?, scope)?;
                        inv.check(&sk.check, || {
                            self.interpolate(inv, &v.unwrap_or(Value::Undef), allow_methods, scope)
                        })?
                    }
                    ExprKind::Method {
                        name,
                        arg,
                        name_span,
                    } => {
                        if !allow_methods {
                            return Err(HieraError::new(
                                "HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED",
                                "Interpolation using method syntax is not allowed in this context",
                            )
                            .at(e.span.clone()));
                        }
                        let Some(method) = Method::from_name(name) else {
                            return Err(HieraError::new(
                                "HIERA_INTERPOLATION_UNKNOWN_INTERPOLATION_METHOD",
                                format!("Unknown interpolation method '{name}'"),
                            )
                            .at(name_span.clone()));
                        };
                        match method {
                            Method::Alias => {
                                if pieces.len() != 1 {
                                    return Err(HieraError::new(
                                        "HIERA_INTERPOLATION_ALIAS_NOT_ENTIRE_STRING",
                                        "'alias' interpolation is only permitted if the expression is equal to the entire string",
                                    )
                                    .at(e.span.clone()));
                                }
                                return self.global_lookup(inv, arg);
                            }
                            Method::Lookup => {
                                let v = self.global_lookup(inv, arg)?;
                                inv.check(arg, || self.interpolate(inv, &v, allow_methods, scope))?
                            }
                            Method::Scope => {
                                let Some(sk) = scope_key else { continue };
                                let v =
                                    self.scope_lookup(inv, arg, &sk.segments.clone()?, scope)?;
                                inv.check(&sk.check, || {
                                    self.interpolate(
                                        inv,
                                        &v.unwrap_or(Value::Undef),
                                        allow_methods,
                                        scope,
                                    )
                                })?
                            }
                            Method::Literal => inv.check(arg, || {
                                self.interpolate(inv, &s(arg), allow_methods, scope)
                            })?,
                        }
                    }
                };
                out.push_str(&ruby_to_s(&value));
            }
            Ok(Value::string(out))
        })();
        inv.leave();
        r
    }

    /// `subject` parsed, from the cache.
    fn template(&self, subject: &str) -> Arc<Template> {
        if let Ok(m) = self.templates.read() {
            if let Some(t) = m.get(subject) {
                return t.clone();
            }
        }
        let pieces = interp::parse(subject);
        let scope_keys = pieces
            .iter()
            .map(|p| {
                let key = match p {
                    Piece::Expr(e) => match &e.kind {
                        ExprKind::Scope(key) => key,
                        ExprKind::Method { name, arg, .. } if name == "scope" => arg,
                        _ => return None,
                    },
                    Piece::Text(_) => return None,
                };
                Some(ScopeKey {
                    segments: interp::split_key(key, |p| format!("{p} in string: {subject}"))
                        .map(Arc::from),
                    check: format!("scope:{key}"),
                })
            })
            .collect();
        let t = Arc::new(Template { pieces, scope_keys });
        if let Ok(mut m) = self.templates.write() {
            if m.len() >= TEMPLATE_CACHE_LIMIT {
                m.clear();
            }
            m.insert(subject.to_string(), t.clone());
        }
        t
    }

    /// `lookup('k')` inside data: a full lookup, `''` when not found.
    fn global_lookup(&self, inv: &Inv<'_>, key: &str) -> Result<Value, HieraError> {
        let saved = inv.top_key.replace(key.to_string().into());
        // A lookup that may leave the global layer leaves Hiera 3's scope too (Puppet
        // unwraps its `Hiera::Scope` then).
        let hiera3 = inv
            .hiera3
            .replace(inv.hiera3.get() && inv.global_only.get());
        let r = self.search(inv, key, None);
        inv.hiera3.set(hiera3);
        inv.top_key.replace(saved);
        Ok(match r? {
            Some((v, Some(options))) => inv.scope.convert_to(key, v, &options)?,
            Some((v, None)) => v,
            None => s(""),
        })
    }

    /// The value of the scope expression `key` (split into `segs`).
    fn scope_lookup(
        &self,
        inv: &Inv<'_>,
        key: &str,
        segs: &[Segment],
        scope: &dyn Scope,
    ) -> Result<Option<Value>, HieraError> {
        let root = root_of(segs);
        let of_inv_scope = std::ptr::addr_eq(scope, inv.scope);
        let renamed = match of_inv_scope {
            true => inv.variable_name(&root),
            false => std::borrow::Cow::Borrowed(&*root),
        };
        let v = match renamed {
            std::borrow::Cow::Owned(ref hiera3) => inv.read_variable(hiera3),
            std::borrow::Cow::Borrowed(_) => scope.variable(&root),
        };
        inv.with(
            || Event::Scope("Global Scope".into()),
            || {
                if let Some(v) = &v {
                    inv.outcome(|| Outcome::Found(root.to_string(), v.clone()));
                }
            },
        );
        let root_value = match (&v, inv.recording.borrow().is_some()) {
            (Some(c @ (Value::Hash(_) | Value::Array(_))), true) if segs.len() > 1 => {
                Some(c.clone())
            }
            _ => None,
        };
        let r = match v {
            Some(v) if !v.is_undef() && segs.len() > 1 => {
                self.explained_sub_lookup(inv, key, &segs[1..], v)
            }
            other => Ok(other),
        };
        if let Some(rec) = inv.recording.borrow_mut().as_mut() {
            // Reads through a mapped path's overlay are reads of the scope, except of the
            // overlay's own variable (which comes from a read recorded before).
            let own = rec.overlay.as_deref() == Some(&*root);
            let of_scope = std::ptr::addr_eq(scope, inv.scope) || rec.overlay.is_some();
            match &r {
                Ok(_) if own => {}
                Ok(v) if of_scope && matches!(segs.first(), Some(Segment::Key(_))) => {
                    let segments: Arc<[Segment]> = match &renamed {
                        std::borrow::Cow::Owned(name) => {
                            std::iter::once(Segment::Key(name.clone()))
                                .chain(segs[1..].iter().cloned())
                                .collect()
                        }
                        std::borrow::Cow::Borrowed(_) => segs.into(),
                    };
                    rec.deps.push(Dep {
                        segments,
                        value: v.clone(),
                        root: Mutex::new(root_value),
                    })
                }
                _ => rec.cacheable = false,
            }
        }
        r
    }
}

/// What Hiera's own `data_hash` functions make of a data file's text, as Puppet 7.23's
/// `yaml_data` and `json_data` do (`func` names which; `shown` is the path in messages):
/// the YAML file's hash, or an empty hash and the warning Puppet logs when the file holds
/// something else; the JSON document's value, whatever it is (the caller checks that it is
/// a hash). The error is Puppet's "Unable to parse" text. The one parser of data files: the
/// lookups use it and so do modules' Ruby backends that call `yaml_data` themselves.
///
/// ```
/// use puppet_hiera::lookup::data_file_value;
/// let (v, warning) = data_file_value("yaml_data", "a: 1\n", "common.yaml").unwrap();
/// assert_eq!(v.to_string(), "{'a' => 1}");
/// assert!(warning.is_empty());
/// let (v, warning) = data_file_value("yaml_data", "- 1\n", "common.yaml").unwrap();
/// assert_eq!(v.to_string(), "{}");
/// assert_eq!(warning, ["common.yaml: file does not contain a valid yaml hash"]);
/// ```
pub fn data_file_value(
    func: &str,
    text: &str,
    shown: &str,
) -> Result<(Value, Vec<String>), HieraError> {
    if func == "json_data" {
        let json: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            HieraError::new(codes::DATA_PARSE, format!("Unable to parse ({shown}): {e}"))
        })?;
        return Ok((json_to_value(&json, 0), Vec::new()));
    }
    match yaml::load(text) {
        Err(e) => Err(HieraError::new(
            codes::DATA_PARSE,
            format!("Unable to parse ({shown}): {}", e.message),
        )),
        Ok(Some(v @ Value::Hash(_))) => Ok((v, Vec::new())),
        Ok(_) => Ok((
            Value::hash(Vec::new()),
            vec![format!("{shown}: file does not contain a valid yaml hash")],
        )),
    }
}

fn json_to_value(j: &serde_json::Value, depth: usize) -> Value {
    if depth > 256 {
        return Value::Undef;
    }
    match j {
        serde_json::Value::Null => Value::Undef,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(t) => Value::string(t),
        serde_json::Value::Array(items) => {
            Value::array(items.iter().map(|i| json_to_value(i, depth + 1)).collect())
        }
        serde_json::Value::Object(m) => Value::hash(
            m.iter()
                .map(|(k, v)| (Value::string(k), json_to_value(v, depth + 1))),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruby_strings() {
        assert_eq!(ruby_float(1.0), "1.0");
        assert_eq!(ruby_float(1e20), "1.0e+20");
        assert_eq!(ruby_float(0.00001), "1.0e-05");
        let v = Value::hash([(s("a"), Value::array(vec![Value::from(1), Value::Undef]))]);
        assert_eq!(ruby_to_s(&v), "{\"a\"=>[1, nil]}");
    }

    #[test]
    fn modules_of_keys() {
        assert_eq!(module_of("ntp::servers"), Some("ntp"));
        assert_eq!(module_of("a::b::c"), Some("a"));
        assert_eq!(module_of("::x"), Some(""));
        assert_eq!(module_of("a:b"), None);
        assert_eq!(module_of("a:::b"), Some("a"));
        assert_eq!(module_of("é::x"), Some("é"));
        assert_eq!(module_of(""), None);
        assert_eq!(module_of("x::"), Some("x"));
    }

    #[test]
    fn lookup_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Lookup>();
    }
}

/// Ruby's `Pathname#+` as Hiera joins a data directory and a path: an absolute `rel` as it
/// is; leading `.` segments of `rel` dropped and each leading `..` taking the last segment
/// off `base` (at the root they are dropped), the rest of `rel` appended as written
/// (`/env/data` + `../../site/x.yaml` is `/site/x.yaml`).
pub(crate) fn pathname_plus(base: &std::path::Path, rel: &str) -> PathBuf {
    use std::path::Component;
    if rel.starts_with('/') {
        return PathBuf::from(rel);
    }
    let mut rest = rel;
    let mut base = base.to_path_buf();
    loop {
        let trimmed = rest.trim_start_matches('/');
        let (seg, after) = match trimmed.find('/') {
            Some(i) => (&trimmed[..i], &trimmed[i..]),
            None => (trimmed, ""),
        };
        match seg {
            "." => rest = after,
            ".." => {
                // Drop base's `.` segments, then one real segment; stop at a `..`.
                while base.components().next_back() == Some(Component::CurDir) {
                    base.pop();
                }
                match base.components().next_back() {
                    Some(Component::Normal(_)) => {
                        base.pop();
                        rest = after;
                    }
                    Some(Component::RootDir) => rest = after,
                    _ => break,
                }
            }
            _ => break,
        }
    }
    let rest = rest.trim_start_matches('/');
    if rest.is_empty() {
        base
    } else {
        base.join(rest)
    }
}

#[cfg(test)]
mod pathname_plus_tests {
    use super::pathname_plus;
    use std::path::Path;

    #[test]
    fn as_ruby_pathname_plus() {
        // Ruby: Pathname("/a/b/c") + "../../x" => /a/x, and so on.
        let cases = [
            ("/a/b/c", "../../x", "/a/x"),
            ("/a/b", "c/../d", "/a/b/c/../d"),
            ("/a/b", "./c/./d", "/a/b/c/./d"),
            ("/a/b/./c", "../x", "/a/b/x"),
            ("/a", "../../../x", "/x"),
            ("/a/b", "/abs/y", "/abs/y"),
            ("/a/b", "x.yaml", "/a/b/x.yaml"),
            ("/a/../b", "../x", "/a/../x"),
        ];
        for (base, rel, want) in cases {
            assert_eq!(
                pathname_plus(Path::new(base), rel),
                Path::new(want),
                "{base} + {rel}"
            );
        }
    }
}
