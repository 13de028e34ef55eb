//! Hiera wired into the compiler, as Puppet 7.23 does it: building the layers of an
//! environment ([`lookup_for`]), the compiler's scopes seen by Hiera interpolation, Puppet's
//! `Lookup.lookup` behind `CallContext::lookup` (what the `lookup()` function and the
//! deprecated `hiera()`, `hiera_array()`, `hiera_hash()` and `hiera_include()` ask; their
//! call forms and signatures are puppet-functions' registry's), automatic class parameter
//! lookup, and the `convert_to` lookup option.
//!
//! Error texts follow Puppet: errors Puppet raises as `Puppet::DataBinding::LookupError`
//! (not found, data and configuration problems) are reported bare, without location;
//! type assertions, merge-argument errors and the global layer's `Lookup of key '...'
//! failed: ...` are wrapped as `Error while evaluating a Function Call, ...`.
//!
//! Hiera's warnings about data files (not a hash, a module's keys outside its namespace) are
//! logged once per compilation, by each compilation that uses the file (`Scope::warning`:
//! the `Lookup` is shared by every compile of an environment and reads a file once, so
//! `Lookup::take_warnings` would show them in whichever compile read it first). Its
//! warnings about configurations (deprecated `hiera.yaml` versions and data provider
//! settings, an ignored version 3 file) are logged as Puppet logs them when it makes the
//! layer (`Scope::config_warning`): the global and environment layers' at a compilation's
//! first lookup, a module's when a lookup first reaches the module; each once a
//! compilation, by Puppet's `warn_once` key.

use crate::error::{EvalError, Flow};
use crate::eval::Compiler;
use crate::ir::Span;
use crate::scope::ScopeId;
use indexmap::IndexMap;
use puppet_functions::{Block, LookupRequest};
use puppet_hiera::error::codes;
use puppet_hiera::{DataSource, FsSource, HieraConfig, HieraError, Lookup, MergeStrategy};
use puppet_types::{is_instance, Type, Value};
use smol_str::SmolStr;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

type R<T> = Result<T, Flow>;

/// Builds the Hiera layers of an environment from the file system, as Puppet 7.23 does:
/// the global layer from `global_hiera_yaml` (Puppet's default configuration, `data/` next
/// to it, when that file does not exist; without one, a global layer with nothing to read,
/// [`HieraConfig::empty_global`], since Puppet always has one), the environment layer from
/// `<env_dir>/hiera.yaml` (none when the file is absent: Puppet has no default there), and
/// a module layer for each module, made from its `hiera.yaml` when a lookup first reaches
/// the module (none when it has no such file; an error of the file fails that lookup, as
/// in Puppet). `None` when nothing could ever be found (no global `hiera.yaml`, no
/// environment layer, no module).
pub fn lookup_for(
    env_dir: Option<&Path>,
    global_hiera_yaml: Option<&Path>,
    modules: &IndexMap<SmolStr, PathBuf>,
) -> Result<Option<Lookup>, HieraError> {
    lookup_with_source(FsSource, env_dir, global_hiera_yaml, modules)
}

/// [`lookup_for`] over any data source (e.g. `puppet_hiera::MemorySource` in tests).
pub fn lookup_with_source(
    source: impl DataSource + 'static,
    env_dir: Option<&Path>,
    global_hiera_yaml: Option<&Path>,
    modules: &IndexMap<SmolStr, PathBuf>,
) -> Result<Option<Lookup>, HieraError> {
    let layers = LayerConfigs::read(&source, env_dir, global_hiera_yaml, None);
    layers.lookup(source, modules)
}

/// The global and environment layers' configurations of an environment, each read and
/// parsed once (loading needs them before Hiera is built: where their data lies decides
/// what the file-system provider serves). Errors are kept for [`LayerConfigs::lookup`].
#[derive(Debug)]
pub(crate) struct LayerConfigs {
    /// The global layer (Puppet's default configuration when its file does not exist).
    global: Result<Option<HieraConfig>, HieraError>,
    /// The environment layer (none without a `hiera.yaml`).
    environment: Result<Option<HieraConfig>, HieraError>,
    /// What Puppet warns about the environment's deprecated `environment_data_provider`.
    warnings: Vec<puppet_hiera::ConfigWarning>,
}

impl LayerConfigs {
    /// Reads `global_hiera_yaml` and `<env_dir>/hiera.yaml` through `source`;
    /// `data_provider` is the environment's deprecated `environment_data_provider` setting
    /// and the environment's name, when it has one
    /// ([`puppet_hiera::config::with_data_provider`]).
    pub(crate) fn read(
        source: &dyn DataSource,
        env_dir: Option<&Path>,
        global_hiera_yaml: Option<&Path>,
        data_provider: Option<(&str, &str)>,
    ) -> LayerConfigs {
        let global = match global_hiera_yaml {
            Some(g) => {
                let dir = g.parent().unwrap_or(Path::new("/"));
                match source.read(g) {
                    Some(text) => HieraConfig::parse(&text, dir).map(Some),
                    None => Ok(Some(HieraConfig::default_for(dir))),
                }
            }
            None => Ok(None),
        };
        let mut warnings = Vec::new();
        let environment = match env_dir {
            Some(d) => match source.read(&d.join("hiera.yaml")) {
                Some(text) => HieraConfig::parse(&text, d).map(Some),
                None => Ok(None),
            }
            .and_then(|config| match data_provider {
                Some((provider, env)) => puppet_hiera::config::with_data_provider(
                    config,
                    Some(provider),
                    d,
                    puppet_hiera::config::DataProviderOwner::Environment(env),
                    &mut warnings,
                ),
                None => Ok(config),
            }),
            None => Ok(None),
        };
        LayerConfigs {
            global,
            environment,
            warnings,
        }
    }

    /// Where the layers read from files find their data ([`HieraConfig::data_roots`]; none
    /// for a layer whose file is absent or does not parse).
    pub(crate) fn data_roots(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        for c in [&self.global, &self.environment] {
            if let Ok(Some(c)) = c {
                if !c.is_default {
                    roots.extend(c.data_roots());
                }
            }
        }
        roots
    }

    /// The lookup over these layers and a module layer for each of `modules` (see
    /// [`lookup_for`]); the first error of the global, then the environment configuration.
    pub(crate) fn lookup(
        self,
        source: impl DataSource + 'static,
        modules: &IndexMap<SmolStr, PathBuf>,
    ) -> Result<Option<Lookup>, HieraError> {
        let global = self.global?;
        let env = self.environment?;
        if global.is_none() && env.is_none() && modules.is_empty() {
            return Ok(None);
        }
        let global = global.unwrap_or_else(HieraConfig::empty_global);
        let mut b = Lookup::builder(source)
            .global(global)
            .config_warnings(self.warnings);
        if let Some(e) = env {
            b = b.environment(e);
        }
        for (name, dir) in modules {
            b = b.module_dir(name, dir);
        }
        b.build().map(Some)
    }
}

/// A looked-up value as `puppet lookup KEY` prints it: the YAML document Ruby's Psych writes
/// (`--- value`, or a block sequence or mapping after `---`).
///
/// ```
/// use puppet_types::Value;
/// let v = Value::array(vec![Value::string("a"), Value::string("/srv")]);
/// assert_eq!(puppet_eval::hiera::render_lookup_value(&v).unwrap(), "---\n- a\n- \"/srv\"\n");
/// assert_eq!(puppet_eval::hiera::render_lookup_value(&Value::Integer(3)).unwrap(), "--- 3\n");
/// ```
pub fn render_lookup_value(value: &Value) -> Result<String, String> {
    puppet_erb::yaml_of_value(value)
}

/// What `puppet lookup` is asked (its command line, less the node and facts, which are the
/// [`Settings`](crate::Settings) of [`puppet_lookup`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LookupCommand {
    /// The key (a dotted key digs into the value).
    pub key: String,
    /// `--merge first|unique|hash|deep`: overrides the strategy of `lookup_options`.
    pub merge: Option<String>,
    /// `--knock-out-prefix`, with `--merge deep`.
    pub knock_out_prefix: Option<String>,
    /// `--sort-merged-arrays`, with `--merge deep`.
    pub sort_merged_arrays: bool,
    /// `--merge-hash-arrays`, with `--merge deep`.
    pub merge_hash_arrays: bool,
    /// `--explain`: print how the value was found instead of the value.
    pub explain: bool,
}

/// What `puppet lookup` prints and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupOutput {
    /// Standard output: the value as YAML (`--- value`), or the explanation.
    pub stdout: String,
    /// The error Puppet prints on standard error (`Error: Could not run: ...`), without
    /// that prefix.
    pub error: Option<String>,
    /// 0 when a value was found (always with `--explain`, unless the command is wrong),
    /// 1 otherwise.
    pub status: u8,
}

/// The merge options `puppet lookup` builds from its command line, with its errors.
fn command_merge(cmd: &LookupCommand) -> Result<Option<MergeStrategy>, String> {
    const RUN_HELP: &str = "Run 'puppet lookup --help' for more details";
    let deep_only =
        cmd.sort_merged_arrays || cmd.merge_hash_arrays || cmd.knock_out_prefix.is_some();
    if deep_only && cmd.merge.as_deref() != Some("deep") {
        return Err(format!("The options --knock-out-prefix, --sort-merged-arrays, and --merge-hash-arrays are only available with '--merge deep'\n{RUN_HELP}"));
    }
    let Some(merge) = cmd.merge.as_deref() else {
        return Ok(None);
    };
    if !["first", "hash", "unique", "deep"].contains(&merge) {
        return Err(format!(
            "The --merge option only accepts 'first', 'hash', 'unique', or 'deep'\n{RUN_HELP}"
        ));
    }
    let mut options = vec![(Value::string("strategy"), Value::string(merge))];
    if merge == "deep" {
        options.push((
            Value::string("sort_merged_arrays"),
            Value::Boolean(cmd.sort_merged_arrays),
        ));
        options.push((
            Value::string("merge_hash_arrays"),
            Value::Boolean(cmd.merge_hash_arrays),
        ));
        if let Some(prefix) = &cmd.knock_out_prefix {
            options.push((Value::string("knockout_prefix"), Value::string(prefix)));
        }
    }
    MergeStrategy::from_value(&Value::hash(options))
        .map(Some)
        .map_err(|e| e.to_string())
}

/// `puppet lookup` for a node of an environment: the value as Puppet prints it, or with
/// [`explain`](LookupCommand::explain) Puppet's explanation, looked up in the top scope of
/// a compile of the node (its facts, `$trusted`, `$server_facts`), as Puppet's
/// `generate_scope` makes it. The global layer is always there, as in Puppet (see
/// [`HieraConfig::empty_global`]).
///
/// ```
/// use puppet_eval::hiera::{puppet_lookup, LookupCommand};
/// use puppet_eval::Session;
/// use puppet_loader::MemoryProvider;
/// let files = MemoryProvider::new()
///     .with_file("/env/hiera.yaml", "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n")
///     .with_file("/env/data/common.yaml", "ntp::servers: [a, b]\n");
/// let env = Session::new().files(files).environment("/env").load().unwrap();
/// let node = env.agent("web01", Default::default());
/// let out = puppet_lookup(&env, &node, &LookupCommand { key: "ntp::servers".into(), ..Default::default() });
/// assert_eq!((out.stdout.as_str(), out.status), ("---\n- a\n- b\n", 0));
/// let missing = puppet_lookup(&env, &node, &LookupCommand { key: "nope".into(), ..Default::default() });
/// assert_eq!((missing.stdout.as_str(), missing.status), ("", 1));
/// let explained = puppet_lookup(&env, &node, &LookupCommand { key: "nope".into(), explain: true, ..Default::default() });
/// assert!(explained.stdout.contains("Searching for \"nope\"\n  Global Data Provider (hiera configuration version 5)\n"));
/// ```
pub fn puppet_lookup(
    env: &Arc<crate::Environment>,
    settings: &crate::Settings,
    cmd: &LookupCommand,
) -> LookupOutput {
    let failed = |error: String| LookupOutput {
        stdout: String::new(),
        error: Some(error),
        status: 1,
    };
    let merge = match command_merge(cmd) {
        Ok(m) => m,
        Err(e) => return failed(e),
    };
    let global_only;
    let lookup = match env.hiera() {
        Some(l) => l.as_ref(),
        None => {
            global_only = Lookup::builder(puppet_hiera::MemorySource::new())
                .global(HieraConfig::empty_global())
                .build();
            match &global_only {
                Ok(l) => l,
                Err(e) => return failed(e.to_string()),
            }
        }
    };
    let mut compiler = Compiler::new(env.clone(), settings.clone());
    let top = compiler.top;
    HieraScope::lend(&mut compiler, top, |scope| {
        run_lookup_command(lookup, cmd, merge, scope)
    })
}

/// [`puppet_lookup`] once the compiler is lent to Hiera.
fn run_lookup_command(
    lookup: &Lookup,
    cmd: &LookupCommand,
    merge: Option<MergeStrategy>,
    scope: &HieraScope<'_, '_>,
) -> LookupOutput {
    let failed = |error: String| LookupOutput {
        stdout: String::new(),
        error: Some(error),
        status: 1,
    };
    if cmd.explain {
        let text = lookup.explain(&cmd.key, merge, scope).to_string();
        return LookupOutput {
            stdout: text,
            error: None,
            status: 0,
        };
    }
    match lookup.lookup(&cmd.key, merge, None, scope) {
        Ok(Some(v)) => match render_lookup_value(&v) {
            Ok(text) => LookupOutput {
                stdout: text,
                error: None,
                status: 0,
            },
            Err(e) => failed(e),
        },
        Ok(None) => LookupOutput {
            stdout: String::new(),
            error: None,
            status: 1,
        },
        // Puppet's `LookupError`s end the command with status 1 and nothing printed but
        // the error.
        Err(e) => failed(e.to_string()),
    }
}

/// Hiera's files read through the environment's source provider (the loader's), so that an
/// environment held in memory has its data in memory too, and nothing outside the
/// provider's roots is read.
#[derive(Debug, Clone)]
pub struct ProviderSource(Arc<dyn puppet_loader::SourceProvider>);

impl ProviderSource {
    /// A data source over `provider`.
    pub fn new(provider: Arc<dyn puppet_loader::SourceProvider>) -> ProviderSource {
        ProviderSource(provider)
    }
}

impl DataSource for ProviderSource {
    fn read(&self, path: &Path) -> Option<String> {
        self.0.read_to_string(path).ok()
    }

    fn exists(&self, path: &Path) -> bool {
        matches!(
            self.0.kind(path),
            Some(puppet_loader::EntryKind::File | puppet_loader::EntryKind::Dir)
        )
    }

    fn glob(&self, pattern: &Path) -> Vec<PathBuf> {
        puppet_hiera::glob_with(pattern, &|dir: &Path| {
            let entries = self.0.list_dir(dir).ok()?;
            Some(
                entries
                    .into_iter()
                    .filter_map(|e| match e.kind {
                        puppet_loader::EntryKind::File => Some((e.name, false)),
                        puppet_loader::EntryKind::Dir => Some((e.name, true)),
                        puppet_loader::EntryKind::Refused(_) => None,
                    })
                    .collect(),
            )
        })
    }
}

/// The variables Hiera interpolation sees from a scope of the compile: `x` through the
/// scope chain, `::x` in the top scope, `ns::x` in the scope of class `ns` (and the classes
/// it inherits from). A variable that is not defined is noted, and the compiler warns
/// about it after the lookup (`Undefined variable 'x'`, once per name, as Puppet does).
///
/// Hiera holds its scope shared while it looks up, but a backend function may call Puppet
/// functions (`call_function` in Ruby), which need the compiler exclusively: the compiler
/// is lent in a `RefCell` for the lookup ([`HieraScope::lend`]), and a backend's call takes
/// it for the time of the call ([`crate::hiera_ruby`]). Nothing reads the scope during
/// such a call (the lookup waits for the backend), so the shared reads below always find
/// the compiler; were one to come, it would see no variables rather than fail.
pub(crate) struct HieraScope<'a, 'c> {
    pub(crate) c: &'a RefCell<&'c mut Compiler>,
    pub(crate) scope: ScopeId,
    /// The compilation's adapter, outside the cell so that Hiera may hold it.
    adapter: Rc<puppet_hiera::LookupAdapter>,
    /// Hiera's warnings about the data files read, logged when the lookup is over.
    warnings: RefCell<Vec<String>>,
    /// A deprecated `hiera_*()` function makes the lookup.
    pub(crate) hiera_call: std::cell::Cell<bool>,
    /// Hiera's warnings about the modules' configurations, logged when the lookup is over
    /// (each key once a compilation).
    config_warnings: RefCell<Vec<puppet_hiera::ConfigWarning>>,
}

impl HieraScope<'_, '_> {
    /// Runs `f` with the scope `scope` of `c` as Hiera's scope.
    pub(crate) fn lend<T>(
        c: &mut Compiler,
        scope: ScopeId,
        f: impl FnOnce(&HieraScope<'_, '_>) -> T,
    ) -> T {
        let adapter = c.hiera_adapter.clone();
        let cell = RefCell::new(c);
        let lent = HieraScope {
            c: &cell,
            scope,
            adapter,
            warnings: RefCell::default(),
            hiera_call: std::cell::Cell::new(false),
            config_warnings: RefCell::default(),
        };
        let out = f(&lent);
        let warnings = lent.warnings.take();
        let config_warnings = lent.config_warnings.take();
        drop(lent);
        let c = cell.into_inner();
        for w in config_warnings {
            if c.warned_once.insert(format!("hiera-config:{}", w.key)) {
                c.warn(w.message);
            }
        }
        // Puppet reads a data file once a compilation, and warns then.
        for w in warnings {
            if c.warned_once.insert(format!("hiera-data:{w}")) {
                c.warn(w);
            }
        }
        out
    }

    /// The compiler, shared (`None` only while a backend function's call holds it).
    pub(crate) fn compiler(&self) -> Option<std::cell::Ref<'_, &mut Compiler>> {
        self.c.try_borrow().ok()
    }
}

impl puppet_hiera::Scope for HieraScope<'_, '_> {
    fn variable(&self, name: &str) -> Option<Value> {
        let c = self.compiler()?;
        let v = c.peek_var(name, self.scope);
        if v.is_none() {
            c.hiera_backends.note_undefined(name);
        }
        v
    }

    fn backend(&self) -> Option<&dyn puppet_hiera::FunctionBackend> {
        Some(self)
    }

    fn adapter(&self) -> Option<&puppet_hiera::LookupAdapter> {
        Some(&self.adapter)
    }

    fn hiera_function_call(&self) -> bool {
        self.hiera_call.get()
    }

    fn config_warning(&self, warning: &puppet_hiera::ConfigWarning) {
        self.config_warnings.borrow_mut().push(warning.clone());
    }

    /// Hiera 3's `find_hostclass`: the class of the scope, or of the scope a defined type
    /// was declared from, up to the top scope (the main class, which has no name).
    fn calling_class(&self) -> Option<String> {
        let c = self.compiler()?;
        let mut id = self.scope;
        // (Bounded: scopes form a tree, this guards against a broken one.)
        for _ in 0..10_000 {
            let s = c.scopes.get(id);
            let next = match &s.kind {
                crate::scope::ScopeKind::Class(name) => return Some(name.to_lowercase()),
                crate::scope::ScopeKind::Top => return None,
                crate::scope::ScopeKind::Define(..) => s.dyn_parent.or(s.parent),
                crate::scope::ScopeKind::Node | crate::scope::ScopeKind::Local => s.parent,
            };
            id = next?;
        }
        None
    }

    /// `convert_to` for a lookup made by an interpolation: the built-in `new`, called
    /// without the compiler (no lambda, nothing logged), as the `lookup()` function's
    /// answer is converted.
    fn convert_to(&self, key: &str, value: Value, options: &Value) -> Result<Value, HieraError> {
        let args = match convert_to_args(key, value.clone(), options) {
            Ok(Some(args)) => args,
            Ok(None) => return Ok(value),
            Err(msg) => return Err(HieraError::new(codes::CONVERT_TO, msg)),
        };
        let mut ctx = puppet_functions::NullContext::default();
        puppet_functions::builtins::registry()
            .call(&mut ctx, "new", args, None)
            .map_err(|e| HieraError::new(codes::CONVERT_TO, convert_to_failed(key, &e.to_string())))
    }

    /// `eyaml_lookup_key`'s key files outside the environment, when the host's files may
    /// be read (`Settings::allow_host_files`), as `file()` reads them.
    fn host_file(&self, path: &Path) -> Option<Result<String, String>> {
        if !self.compiler()?.settings.allow_host_files {
            return None;
        }
        let shown = path.to_string_lossy();
        Some(match crate::host::read_file(&shown) {
            Ok(Some(bytes)) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Ok(None) => Err(format!("No such file or directory @ rb_sysopen - {shown}")),
            Err(e) => Err(e),
        })
    }

    fn warning(&self, message: &str) {
        let mut w = self.warnings.borrow_mut();
        if !w.iter().any(|x| x == message) {
            w.push(message.to_string());
        }
    }
}

fn error(message: impl Into<String>, span: Option<&Span>) -> Flow {
    Flow::Error(EvalError {
        code: crate::error::codes::EVAL_ERROR,
        kind: Default::default(),
        message: message.into(),
        span: span.cloned(),
    })
}

/// A `Puppet::DataBinding::LookupError`: Puppet prints its message as it is, without
/// `Evaluation Error:` or a location.
fn bare_error(message: String) -> Flow {
    Flow::Error(EvalError::complete(message, None))
}

/// A Hiera error as Puppet reports it: `Puppet::DataBinding::LookupError`s bare, the others
/// (merge arguments, the global layer's wrapped errors, Ruby's file errors) as runtime
/// errors of the call.
fn hiera_error(e: HieraError, label: &str, span: &Span) -> Flow {
    match e.code {
        codes::GLOBAL_FAILED
        | codes::MERGE
        | codes::MERGE_ARGUMENT
        | codes::SUB_LOOKUP_NO_METHOD
        | codes::MERGE_TYPE
        | codes::BACKEND_RAISED
        | codes::BACKEND_RUBY_ERROR
        | codes::READ_FAILED
        | codes::FUNCTION_ARGUMENT
        | codes::MODULE_CONFIG => error(
            format!("Error while evaluating a {label}, {}", e.message),
            Some(span),
        ),
        _ => bare_error(e.message),
    }
}

/// Searches Hiera for `key` (Puppet's `Lookup.search_and_merge`): the layers, then the
/// `convert_to` lookup option. `Ok(None)` when not found; `global_only` restricts the search
/// to the global layer (the `hiera_*()` functions without environment data).
fn search(
    c: &mut Compiler,
    key: &str,
    merge: Option<MergeStrategy>,
    legacy: bool,
    scope: ScopeId,
    label: &str,
    span: &Span,
) -> R<Option<Value>> {
    let Some(lookup) = c.env.hiera().cloned() else {
        return Ok(None);
    };
    // The `hiera_*()` functions search only the global layer when the environment has none.
    let global_only = legacy && !lookup.has_environment_layer();
    if c.hiera_calling.iter().any(|k| k == key) {
        // A backend function looking up a key it is being asked for (through Puppet
        // functions): Puppet's invocation finds the key on its stack, in the global layer
        // (always searched first), which wraps the error.
        let e = HieraError::new(
            codes::GLOBAL_FAILED,
            format!(
                "Lookup of key '{key}' failed: Recursive lookup detected in [{}]",
                c.hiera_calling.join(", ")
            ),
        );
        return Err(hiera_error(e, label, span));
    }
    let found = HieraScope::lend(c, scope, |s| {
        s.hiera_call.set(legacy);
        if global_only {
            match lookup.lookup_global_only(key, merge, s) {
                // The options of every layer, as Puppet applies them.
                Ok(Some(v)) => lookup.lookup_options(key, s).map(|o| Some((v, o))),
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            }
        } else {
            lookup.lookup_with_options(key, merge, s)
        }
    });
    crate::hiera_ruby::take_logs(c);
    let Some((value, options)) = found.map_err(|e| hiera_error(e, label, span))? else {
        return Ok(None);
    };
    convert_to(c, key, value, options, scope, span).map(Some)
}

/// The arguments of `new` for the `convert_to` lookup option in `options` (`[T, value,
/// extra args...]`), `Ok(None)` without one, or Puppet's error for a type string that does
/// not parse.
fn convert_to_args(key: &str, value: Value, options: &Value) -> Result<Option<Vec<Value>>, String> {
    let Value::Hash(opts) = options else {
        return Ok(None);
    };
    let spec = match opts.get(&Value::string("convert_to")) {
        None | Some(Value::Undef) => return Ok(None),
        Some(Value::Array(a)) => a.to_vec(),
        Some(other) => vec![other.clone()],
    };
    let mut args = Vec::with_capacity(spec.len() + 1);
    let mut rest = spec.into_iter();
    match rest.next() {
        Some(Value::String(text)) => match crate::parse_type_string(&text) {
            Ok(t) => args.push(Value::Type(t)),
            Err(msg) => return Err(format!(
                "Invalid data type in lookup_options for key '{key}' could not parse '{text}', error: '{msg}"
            )),
        },
        Some(other) => args.push(other),
        None => return Ok(None),
    }
    args.push(value);
    args.extend(rest);
    Ok(Some(args))
}

/// Puppet's text for a `convert_to` whose `new` failed with `msg`.
fn convert_to_failed(key: &str, msg: &str) -> String {
    format!("The convert_to lookup_option for key '{key}' raised error: {msg}")
}

/// Applies the `convert_to` lookup option: `new(T, value, extra args...)`.
fn convert_to(
    c: &mut Compiler,
    key: &str,
    value: Value,
    options: Option<Value>,
    scope: ScopeId,
    span: &Span,
) -> R<Value> {
    let Some(options) = options else {
        return Ok(value);
    };
    let args = match convert_to_args(key, value.clone(), &options) {
        Ok(Some(args)) => args,
        Ok(None) => return Ok(value),
        Err(msg) => return Err(error(msg, None)),
    };
    match c.call_named("new", args, None, scope, span) {
        Ok(v) => Ok(v),
        Err(Flow::Error(e)) => Err(error(convert_to_failed(key, e.call_message()), None)),
        Err(other) => Err(other),
    }
}

/// Automatic parameter lookup of a class parameter: the key `<class>::<param>`, honouring
/// `lookup_options` (merge, `convert_to`). `Ok(None)` when Hiera has no value; a value
/// found as `~` is `Some(Undef)`. `label` names the declaration in errors (`Function Call`
/// for `include`, `Resource Statement` for `class { ... }`).
pub(crate) fn class_parameter(
    c: &mut Compiler,
    class: &str,
    param: &str,
    scope: ScopeId,
    label: &str,
    span: &Span,
) -> R<Option<Value>> {
    let Some(lookup) = c.env.hiera().cloned() else {
        return Ok(None);
    };
    let class = crate::names::strip_root(class);
    // Not `format!`: this runs for every class parameter without a given value (the
    // compile's buffer, put back below; a lookup made while this one runs makes its own).
    let mut key = std::mem::take(&mut c.key_buf);
    key.clear();
    key.push_str(class);
    key.push_str("::");
    key.push_str(param);
    // What `Lookup::class_parameter` looks up, without making the key again.
    let found = HieraScope::lend(c, scope, |s| lookup.lookup_with_options(&key, None, s));
    crate::hiera_ruby::take_logs(c);
    let found = match found {
        Ok(Some(found)) => found,
        Ok(None) => {
            c.key_buf = key;
            return Ok(None);
        }
        Err(e) => return Err(hiera_error(e, label, span)),
    };
    let (value, options) = found;
    let r = convert_to(c, &key, value, options, scope, span).map(Some);
    c.key_buf = key;
    r
}

// ---- the functions ----

fn hash_get(h: &Value, key: &str) -> Option<Value> {
    match h {
        Value::Hash(m) => m.get(&Value::string(key)).cloned(),
        _ => None,
    }
}

/// Puppet's `TypeAsserter.assert_instance_of(subject, type, value)`.
fn assert_type(subject: &str, ty: Option<&Type>, v: Value, span: &Span) -> R<Value> {
    let Some(t) = ty else { return Ok(v) };
    if is_instance(t, &v) {
        return Ok(v);
    }
    let detail = puppet_types::mismatch::describe_value_mismatch(
        &format!("{subject} has wrong type,"),
        t,
        &v,
    )
    .unwrap_or_default();
    Err(error(
        format!("Error while evaluating a Function Call, {detail}"),
        Some(span),
    ))
}

/// Puppet's `Lookup.lookup`, the compiler's side of `CallContext::lookup` (what `lookup()`
/// and the deprecated `hiera_*()` functions ask, whatever the call's form): overrides, then
/// Hiera for each name in turn, then the default values hash, the default block, the
/// default value, else the not-found error. The `hiera_*()` functions search only the
/// global layer when the environment has no `hiera.yaml`.
pub(crate) fn lookup(
    c: &mut Compiler,
    req: &LookupRequest,
    default_block: Option<&dyn Block>,
    scope: ScopeId,
    span: &Span,
) -> R<Value> {
    let names: Vec<String> = match &req.name {
        Value::Array(a) => a.iter().map(|v| v.to_plain_string()).collect(),
        other => vec![other.to_plain_string()],
    };
    let vt = req.value_type.as_ref();
    let mut merge: Option<Option<MergeStrategy>> = None;
    for name in &names {
        if let Some(v) = hash_get(&req.overrides, name) {
            return assert_type(
                &format!("Value found for key '{name}' in override hash"),
                vt,
                v,
                span,
            );
        }
        if merge.is_none() {
            merge = Some(match &req.merge {
                Value::Undef => None,
                m => Some(
                    MergeStrategy::from_value(m)
                        .map_err(|e| hiera_error(e, "Function Call", span))?,
                ),
            });
        }
        let m = merge.clone().flatten();
        if let Some(v) = search(c, name, m, req.legacy_hiera, scope, "Function Call", span)? {
            return assert_type("Found value", vt, v, span);
        }
    }
    for name in &names {
        if let Some(v) = hash_get(&req.default_values, name) {
            return assert_type(
                &format!("Value found for key '{name}' in default values hash"),
                vt,
                v,
                span,
            );
        }
    }
    if let Some(b) = default_block {
        let v = c.call_block_in(b, vec![req.name.clone()])?;
        return assert_type("Value returned from default block", vt, v, span);
    }
    if let Some(d) = req.default_value.clone() {
        return assert_type("Default value", vt, d, span);
    }
    Err(bare_error(HieraError::not_found(&names).message))
}
