//! The one way in: a [`Session`] describes an environment (module path or files in memory,
//! main manifest or code, environment directory, Hiera, custom functions) and loads it into
//! an [`Environment`] that compiles nodes.
//!
//! Loading reads almost nothing: the module path's listing, each module's `metadata.json`,
//! the main manifest and the Hiera configuration files. Everything else is read the first time
//! a compile needs it (see [`crate::env`]). All reads go through one
//! [`SourceProvider`]: the file system below the session's directories
//! ([`puppet_loader::FsProvider`]), or whatever [`Session::files`] gives, e.g. a
//! [`MemoryProvider`](puppet_loader::MemoryProvider).
//!
//! ```
//! use puppet_eval::{Session, Settings};
//! use puppet_loader::MemoryProvider;
//! let files = MemoryProvider::new()
//!     .with_file("/env/manifests/site.pp", "node default { include motd }")
//!     .with_file("/env/modules/motd/manifests/init.pp",
//!                "class motd($text = lookup('motd::text')) { file { '/etc/motd': content => \"${text}\\n\" } }")
//!     .with_file("/env/modules/motd/hiera.yaml", "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n")
//!     .with_file("/env/modules/motd/data/common.yaml", "motd::text: Welcome\n")
//!     .with_file("/env/modules/unused/manifests/init.pp", "class unused { this is not puppet");
//! let env = Session::new()
//!     .files(files)
//!     .modulepath(["/env/modules"])
//!     .manifest("/env/manifests/site.pp")
//!     .load()
//!     .unwrap();
//! let out = env.compile(&Settings::agent("web01.example.com", Default::default()));
//! let catalog = out.catalog.unwrap();
//! let motd = &catalog.resources[catalog.find("File[/etc/motd]").unwrap()];
//! assert_eq!(motd.parameters["content"], "Welcome\n");
//! // The module that no compile needed was never read.
//! assert!(env.loader().loaded_files() < 4);
//! ```

use crate::env::Environment;
use puppet_diagnostics::{Diagnostic, Severity};
use puppet_functions::Registry;
use puppet_loader::{EnvironmentConfig, FsProvider, Loader, SourceProvider};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Diagnostic codes of loading an environment.
pub mod codes {
    /// The main manifest (a file or a directory) does not exist.
    pub const MANIFEST_NOT_FOUND: &str = "SESSION_MANIFEST_NOT_FOUND";
}

/// A description of an environment to load. Build it with the methods, then
/// [`load`](Session::load) it. See the module docs for an example.
#[derive(Debug, Default)]
pub struct Session {
    config: EnvironmentConfig,
    /// A directory environment ([`Session::environment`]) and what was given explicitly
    /// besides (which wins over its `environment.conf`).
    directory: Option<PathBuf>,
    basemodulepath: Vec<PathBuf>,
    explicit_modulepath: bool,
    explicit_manifest: bool,
    name: Option<String>,
    provider: Option<Arc<dyn SourceProvider>>,
    code: Option<(Option<String>, String)>,
    hiera_config: Option<PathBuf>,
    hiera: Option<puppet_hiera::Lookup>,
    functions: Option<Registry>,
    natives_for_any_version: bool,
}

impl Session {
    /// An empty description: no modules, no manifest.
    ///
    /// ```
    /// let env = puppet_eval::Session::new().load().unwrap();
    /// assert_eq!(env.modules().count(), 0);
    /// ```
    pub fn new() -> Session {
        Session::default()
    }

    /// The module path: directories searched in order (the first module of a name wins).
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/a/ntp/manifests/init.pp", "class ntp { notify { 'from a': } }")
    ///     .with_file("/b/ntp/manifests/init.pp", "class ntp { notify { 'from b': } }");
    /// let env = puppet_eval::Session::new().files(files).modulepath(["/a", "/b"]).code("include ntp").load().unwrap();
    /// let catalog = env.compile(&Default::default()).catalog.unwrap();
    /// assert!(catalog.find("Notify[from a]").is_some());
    /// ```
    pub fn modulepath(mut self, dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> Session {
        self.config.modulepath = dirs.into_iter().map(Into::into).collect();
        self.explicit_modulepath = true;
        self
    }

    /// The main manifest: a `.pp` file, or a directory whose `.pp` files are read in sorted
    /// order (recursively).
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/env/manifests/b.pp", "notify { 'b': }")
    ///     .with_file("/env/manifests/a.pp", "notify { 'a': }");
    /// let env = puppet_eval::Session::new().files(files).manifest("/env/manifests").load().unwrap();
    /// let catalog = env.compile(&Default::default()).catalog.unwrap();
    /// assert!(catalog.find("Notify[a]").unwrap() < catalog.find("Notify[b]").unwrap());
    /// ```
    pub fn manifest(mut self, path: impl Into<PathBuf>) -> Session {
        self.config.manifest = Some(path.into());
        self.explicit_manifest = true;
        self
    }

    /// Code to evaluate as (the end of) the main manifest, like `puppet apply -e`.
    ///
    /// ```
    /// let env = puppet_eval::Session::new().code("notice(1 + 1)").load().unwrap();
    /// let out = env.compile(&Default::default());
    /// assert_eq!(out.logs[0].message, "2");
    /// ```
    pub fn code(mut self, text: impl Into<String>) -> Session {
        self.code = Some((None, text.into()));
        self
    }

    /// A main manifest given as text (an editor's buffer, a generated program), reported
    /// under `path` in messages.
    ///
    /// ```
    /// let env = puppet_eval::Session::new().manifest_text("site.pp", "\nfail('x')").load().unwrap();
    /// let e = env.compile(&Default::default()).catalog.unwrap_err();
    /// assert!(e.to_string().ends_with("(file: site.pp, line: 2, column: 1)"), "{e}");
    /// ```
    pub fn manifest_text(mut self, path: impl Into<String>, text: impl Into<String>) -> Session {
        self.code = Some((Some(path.into()), text.into()));
        self
    }

    /// Hiera built by the embedder (over its own [`DataSource`](puppet_hiera::DataSource)),
    /// instead of the layers the session's files give.
    ///
    /// ```
    /// use puppet_hiera::{HieraConfig, Lookup, MemorySource};
    /// let data = MemorySource::new().with("/h/data/common.yaml", "greeting: hello\n");
    /// let config = HieraConfig::parse("version: 5\n", std::path::Path::new("/h")).unwrap();
    /// let lookup = Lookup::builder(data).environment(config).build().unwrap();
    /// let env = puppet_eval::Session::new().code("notice(lookup('greeting'))").hiera(lookup).load().unwrap();
    /// assert_eq!(env.compile(&Default::default()).logs[0].message, "hello");
    /// ```
    pub fn hiera(mut self, lookup: puppet_hiera::Lookup) -> Session {
        self.hiera = Some(lookup);
        self
    }

    /// The environment directory: its `hiera.yaml` (the environment layer of Hiera, with
    /// `data/`), its `functions/` (`environment::f` in `functions/environment/f.pp`, global
    /// functions beside) and `types/`. The module path
    /// and main manifest are given apart; [`environment`](Session::environment) reads them
    /// from the directory's `environment.conf` instead.
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/env/hiera.yaml", "version: 5\n")
    ///     .with_file("/env/data/common.yaml", "role: web\n")
    ///     .with_file("/env/functions/environment/greet.pp", "function environment::greet() { 'hi' }");
    /// let env = puppet_eval::Session::new()
    ///     .files(files)
    ///     .environment_dir("/env")
    ///     .code("notice(lookup('role'))\nnotice(environment::greet())")
    ///     .load()
    ///     .unwrap();
    /// let out = env.compile(&Default::default());
    /// assert_eq!((out.logs[0].message.as_str(), out.logs[1].message.as_str()), ("web", "hi"));
    /// ```
    pub fn environment_dir(mut self, dir: impl Into<PathBuf>) -> Session {
        self.config.env_dir = Some(dir.into());
        self
    }

    /// A directory environment, as a Puppet server reads one from its environmentpath (a
    /// control repository's checkout): `environment.conf` gives the module path (default
    /// `modules:$basemodulepath`, relative entries against the directory) and the main
    /// manifest (default `manifests`, a file or a directory); the directory's `hiera.yaml`
    /// and `data/` are the environment layer of Hiera, its `functions/` and `types/` are
    /// the environment's. The name is the directory's name when Puppet accepts it as an
    /// environment name (`\w+`), else `production` ([`environment_name`](Session::environment_name)
    /// sets another). A [`modulepath`](Session::modulepath) or [`manifest`](Session::manifest)
    /// given as well wins over `environment.conf`. What the file holds that is not used
    /// (`config_version`, unknown settings) is in [`Environment::diagnostics`]. When the
    /// directory is named after the environment, the setting `environmentpath`
    /// (`Puppet[:environmentpath]` in module Ruby) is the directory holding it, as on a
    /// server that found it there.
    ///
    /// ```
    /// use puppet_eval::Session;
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new()
    ///     .with_file("/code/staging/environment.conf", "modulepath = site:$basemodulepath\n")
    ///     .with_file("/code/staging/manifests/site.pp", "node default { include role }")
    ///     .with_file("/code/staging/site/role/manifests/init.pp", "class role { notify { $environment: } }");
    /// let env = Session::new().files(files).environment("/code/staging").load().unwrap();
    /// assert_eq!(env.name(), "staging");
    /// let catalog = env.compile(&env.agent("web01", Default::default())).catalog.unwrap();
    /// assert!(catalog.find("Notify[staging]").is_some());
    /// ```
    pub fn environment(mut self, dir: impl Into<PathBuf>) -> Session {
        self.directory = Some(dir.into());
        self
    }

    /// The server's `basemodulepath`: what `$basemodulepath` in a directory environment's
    /// module path stands for (empty by default).
    pub fn basemodulepath(mut self, dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> Session {
        self.basemodulepath = dirs.into_iter().map(Into::into).collect();
        self
    }

    /// The environment's name ([`Environment::name`]), instead of the directory's name
    /// (or `production`).
    pub fn environment_name(mut self, name: impl Into<String>) -> Session {
        self.name = Some(name.into());
        self
    }

    /// The global `hiera.yaml` (Puppet's `hiera_config`); Puppet's default hierarchy over
    /// `data/` next to it when the file does not exist.
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new().with_file("/etc/puppet/data/common.yaml", "x: 1\n");
    /// let env = puppet_eval::Session::new()
    ///     .files(files)
    ///     .hiera_config("/etc/puppet/hiera.yaml")
    ///     .code("notice(lookup('x'))")
    ///     .load()
    ///     .unwrap();
    /// assert_eq!(env.compile(&Default::default()).logs[0].message, "1");
    /// ```
    pub fn hiera_config(mut self, path: impl Into<PathBuf>) -> Session {
        self.hiera_config = Some(path.into());
        self
    }

    /// Reads every file through `provider` instead of the file system (for example a
    /// [`MemoryProvider`](puppet_loader::MemoryProvider) holding the whole environment);
    /// see the module docs.
    pub fn files(mut self, provider: impl SourceProvider + 'static) -> Session {
        self.provider = Some(Arc::new(provider));
        self
    }

    /// [`files`](Session::files) with a shared provider.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let shared: Arc<dyn puppet_loader::SourceProvider> =
    ///     Arc::new(puppet_loader::MemoryProvider::new().with_file("/m/a/manifests/init.pp", "class a {}"));
    /// let env = puppet_eval::Session::new().provider(shared.clone()).modulepath(["/m"]).load().unwrap();
    /// assert!(env.class("a").is_some());
    /// ```
    pub fn provider(mut self, provider: Arc<dyn SourceProvider>) -> Session {
        self.provider = Some(provider);
        self
    }

    /// Adds functions of the embedder's own (searched before Puppet's built-ins, so one may
    /// replace a built-in).
    ///
    /// ```
    /// use puppet_eval::{Session, Settings};
    /// use puppet_functions::Signature;
    /// use puppet_types::Value;
    /// let env = Session::new()
    ///     .code("notify { 'x': message => double(21) }")
    ///     .functions(|reg| {
    ///         reg.function("double")
    ///             .dispatch(Signature::new().param("Integer", "x"), |_, args| match args.get(0) {
    ///                 Value::Integer(i) => Ok(Value::Integer(i * 2)),
    ///                 _ => Ok(Value::Undef),
    ///             })
    ///             .register()
    ///             .unwrap();
    ///     })
    ///     .load()
    ///     .unwrap();
    /// let catalog = env.compile(&Settings::default()).catalog.unwrap();
    /// let x = &catalog.resources[catalog.find("Notify[x]").unwrap()];
    /// assert_eq!(x.parameters["message"], 42);
    /// ```
    pub fn functions(mut self, register: impl FnOnce(&mut Registry)) -> Session {
        register(self.functions.get_or_insert_with(Registry::new));
        self
    }

    /// Uses puppet-stdlib's native implementation of a module's function whatever the
    /// module holds: another version of the function's file, or no file at all (a module
    /// of the name on the path is enough). Off by default: a native then stands in only for
    /// the file it was checked against, and another version runs its own Ruby. For tests of
    /// the natives and for embedders who vendor the modules the natives were written for.
    ///
    /// ```
    /// use puppet_loader::MemoryProvider;
    /// let files = MemoryProvider::new().with_file("/m/stdlib/manifests/init.pp", "class stdlib {}");
    /// let session = || puppet_eval::Session::new().files(files.clone()).modulepath(["/m"]).code("notice(pick(undef, 1))");
    /// assert!(session().load().unwrap().compile(&Default::default()).catalog.is_err());
    /// let env = session().natives_for_any_version(true).load().unwrap();
    /// assert!(env.compile(&Default::default()).catalog.is_ok());
    /// ```
    pub fn natives_for_any_version(mut self, on: bool) -> Session {
        self.natives_for_any_version = on;
        self
    }

    /// Every directory (or file) the session reads below: what a file-system provider
    /// serves.
    ///
    /// ```
    /// let s = puppet_eval::Session::new().modulepath(["/m"]).manifest("/env/site.pp");
    /// assert_eq!(s.roots(), [std::path::PathBuf::from("/m"), "/env/site.pp".into()]);
    /// ```
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut roots = self.config.roots();
        if let Some(h) = &self.hiera_config {
            roots.push(h.parent().unwrap_or(Path::new("/")).to_path_buf());
            roots.extend(hiera_data_roots(h));
        }
        roots
    }

    /// Loads the environment. Fails (with diagnostics) when no compile could succeed: the
    /// main manifest does not exist, `environment.conf` cannot be parsed, or a `hiera.yaml`
    /// is not valid. Other problems (a module directory with an invalid name, a syntax
    /// error in the main manifest, settings of `environment.conf` not used) are in
    /// [`Environment::diagnostics`]; compiles report the errors among them.
    pub fn load(self) -> Result<Arc<Environment>, Vec<Diagnostic>> {
        let mut config = self.config.clone();
        config.modulepath = config.modulepath.iter().map(|p| absolute(p)).collect();
        config.manifest = config.manifest.as_deref().map(absolute);
        config.env_dir = config.env_dir.as_deref().map(absolute);
        let hiera_config = self.hiera_config.as_deref().map(absolute);
        let mut notes = Vec::new();
        let mut name = self.name.clone();
        if let Some(dir) = self.directory.as_deref().map(absolute) {
            let base: Vec<PathBuf> = self.basemodulepath.iter().map(|p| absolute(p)).collect();
            let dir_name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .filter(|n| puppet_loader::valid_environment_name(n));
            let env_name = name
                .clone()
                .or(dir_name)
                .unwrap_or_else(|| "production".into());
            let conf_reader: Arc<dyn SourceProvider> = match &self.provider {
                Some(p) => p.clone(),
                // What the configuration names may lie anywhere (`../shared`, globs, the
                // base module path): read, listed and checked for existence only.
                None => Arc::new(FsProvider::new([PathBuf::from("/")])),
            };
            let (from_conf, diagnostics) =
                EnvironmentConfig::from_directory(&dir, &base, &env_name, conf_reader.as_ref());
            if let Some(e) = diagnostics.iter().find(|d| d.is_error()) {
                return Err(vec![e.clone()]);
            }
            notes = diagnostics;
            if !self.explicit_modulepath {
                config.modulepath = from_conf.modulepath;
            }
            if !self.explicit_manifest {
                // Puppet's default manifest directory may be absent: no main manifest then.
                // A main manifest that does not exist is an empty program to Puppet (its
                // lexer reads a missing file as empty).
                config.manifest = from_conf.manifest.filter(|m| conf_reader.kind(m).is_some());
            }
            config.env_dir = Some(dir);
            config.data_provider = from_conf.data_provider;
            name = Some(env_name);
        }
        let env_name = name.clone().unwrap_or_else(|| "production".into());
        let env_data_provider = config
            .data_provider
            .as_deref()
            .map(|p| (p, env_name.as_str()));
        // The global and environment hiera.yaml, read and parsed once (for their data
        // roots, then for Hiera unless it is given).
        let mut layer_configs = None;
        let provider: Arc<dyn SourceProvider> = match self.provider.clone() {
            Some(p) => p,
            None => {
                let mut roots = config.roots();
                let mut config_dirs = Vec::new();
                if let Some(h) = &hiera_config {
                    let dir = h.parent().unwrap_or(Path::new("/")).to_path_buf();
                    roots.push(dir.clone());
                    config_dirs.push(dir);
                }
                config_dirs.extend(config.env_dir.iter().cloned());
                // The two files, and nothing else, are read here.
                let reader =
                    crate::hiera::ProviderSource::new(Arc::new(FsProvider::new(config_dirs)));
                let layers = crate::hiera::LayerConfigs::read(
                    &reader,
                    config.env_dir.as_deref(),
                    hiera_config.as_deref(),
                    env_data_provider,
                );
                // The data of the global and environment layers may lie outside their
                // directories (`datadir: /var/lib/hiera`): Puppet reads it there.
                roots.extend(layers.data_roots());
                layer_configs = Some(layers);
                Arc::new(FsProvider::new(roots))
            }
        };
        let mut errors = Vec::new();
        if let Some(m) = &config.manifest {
            if provider.kind(m).is_none() {
                errors.push(
                    Diagnostic::new(
                        Severity::Error,
                        codes::MANIFEST_NOT_FOUND,
                        format!(
                            "Could not find the main manifest '{}': no such file or directory",
                            m.display()
                        ),
                    )
                    .with_file(m.display().to_string()),
                );
            }
        }
        let loader = Loader::open(&config, provider.clone());
        let modules: Vec<(smol_str::SmolStr, PathBuf)> = loader
            .modules()
            .map(|m| (m.name.clone(), m.path.clone()))
            .collect();
        let hiera = match self.hiera {
            Some(lookup) => Ok(Some(lookup)),
            None => {
                let source = crate::hiera::ProviderSource::new(provider);
                let layers = layer_configs.unwrap_or_else(|| {
                    crate::hiera::LayerConfigs::read(
                        &source,
                        config.env_dir.as_deref(),
                        hiera_config.as_deref(),
                        env_data_provider,
                    )
                });
                layers.lookup(source, &modules.into_iter().collect())
            }
        };
        let hiera = match hiera {
            Ok(h) => h,
            Err(e) => {
                // Hiera's own code (HIERA_INVALID_CONFIG, ...) and text, with the file.
                errors.push(Diagnostic::from(&e));
                None
            }
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let meta = crate::env::Meta {
            name: name.unwrap_or_else(|| "production".into()).into(),
            notes,
            natives_for_any_version: self.natives_for_any_version,
        };
        let env = Environment::open(loader, self.code, self.functions.map(Arc::new), hiera, meta);
        Ok(Arc::new(env))
    }
}

/// `p` made absolute against the current directory, with `.` and `..` resolved lexically
/// (as a user means `--modulepath ../modules`).
fn absolute(p: &Path) -> PathBuf {
    puppet_loader::absolute_path(p)
}

/// Where the `hiera.yaml` at `file` finds its data (nothing when it is absent or does not
/// parse: loading reports that).
fn hiera_data_roots(file: &Path) -> Vec<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new("/"));
    let reader = FsProvider::new([dir.to_path_buf()]);
    let Ok(text) = reader.read_to_string(file) else {
        return Vec::new();
    };
    puppet_hiera::HieraConfig::parse(&text, dir)
        .map(|c| c.data_roots())
        .unwrap_or_default()
}
