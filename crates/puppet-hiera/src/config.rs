//! `hiera.yaml` parsing and validation (version 5), with Puppet's rules and error texts:
//! `defaults` (`datadir`, `data_hash`/`lookup_key`/`data_dig`, `options`), `hierarchy` /
//! `default_hierarchy` entries with exactly one of `path`, `paths`, `glob`, `globs`, `uri`,
//! `uris`, `mapped_paths`, unique names, reserved option keys. Versions 4 and 3 (deprecated)
//! are read into the same model: version 4's `backend` entries become `yaml_data`/`json_data`
//! entries; version 3's backends become one entry each over the whole hierarchy ([`Hiera3`];
//! Puppet reads it in the global layer only, the other layers ignore it).

use crate::error::{codes, HieraError};
use crate::yaml;
use puppet_types::types::{StringType, StructElement};
use puppet_types::{Type, Value};
use std::path::{Path, PathBuf};

/// The kind of function of a hierarchy entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// `data_hash`: the function returns the whole file as a hash.
    DataHash,
    /// `lookup_key`: the function is called per key (see [`crate::backend`]).
    LookupKey,
    /// `data_dig`: the function is called per dotted key (see [`crate::backend`]).
    DataDig,
    /// `hiera3_backend`, and a version 3 configuration's backends other than yaml, json and
    /// eyaml: a Hiera 3 backend class (global layer only; the lookup asks the
    /// [`FunctionBackend`](crate::FunctionBackend), which finds nothing when no module has
    /// the class, as Puppet).
    Hiera3Backend,
    /// `v4_data_hash` (deprecated; not supported here).
    V4DataHash,
}

impl FunctionKind {
    /// The `hiera.yaml` key.
    pub fn key(self) -> &'static str {
        match self {
            FunctionKind::DataHash => "data_hash",
            FunctionKind::LookupKey => "lookup_key",
            FunctionKind::DataDig => "data_dig",
            FunctionKind::Hiera3Backend => "hiera3_backend",
            FunctionKind::V4DataHash => "v4_data_hash",
        }
    }
}

const FUNCTION_KEYS: [FunctionKind; 4] = [
    FunctionKind::DataHash,
    FunctionKind::LookupKey,
    FunctionKind::DataDig,
    FunctionKind::Hiera3Backend,
];
const ALL_FUNCTION_KEYS: [FunctionKind; 5] = [
    FunctionKind::DataHash,
    FunctionKind::LookupKey,
    FunctionKind::DataDig,
    FunctionKind::Hiera3Backend,
    FunctionKind::V4DataHash,
];
const LOCATION_KEYS: [&str; 7] = [
    "path",
    "paths",
    "glob",
    "globs",
    "uri",
    "uris",
    "mapped_paths",
];

/// Where a hierarchy entry's data lives (before interpolation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// No location key.
    None,
    /// `path` (one element) or `paths`.
    Paths(Vec<String>),
    /// `glob` (one element) or `globs`.
    Globs(Vec<String>),
    /// `uri` / `uris` (kept, not resolvable by the file backends).
    Uris(Vec<String>),
    /// `mapped_paths: [scope_var, key, template]`.
    MappedPaths(String, String, String),
}

/// One entry of `hierarchy`.
#[derive(Debug, Clone, PartialEq)]
pub struct HierarchyEntry {
    /// `name`.
    pub name: String,
    /// The function (from the entry or from `defaults`).
    pub function: Option<(FunctionKind, String)>,
    /// The location.
    pub location: Location,
    /// `datadir` of the entry, if set.
    pub datadir: Option<String>,
    /// `options`.
    pub options: Option<Value>,
    /// What is appended to each interpolated path that does not already end with it
    /// (version 4's `backend`: `.yaml`, `.json`); `None` in version 5.
    pub extension: Option<String>,
}

/// A parsed `hiera.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct HieraConfig {
    /// 3, 4 or 5.
    pub version: u32,
    /// The directory holding the file: `datadir` is relative to it.
    pub dir: PathBuf,
    /// The path of the file (`dir/hiera.yaml`), used in messages.
    pub path: PathBuf,
    /// `defaults.datadir` (or `data`).
    pub datadir: String,
    /// `hierarchy` (Puppet's default `Common` entry when absent).
    pub hierarchy: Vec<HierarchyEntry>,
    /// `default_hierarchy` (module layer only).
    pub default_hierarchy: Option<Vec<HierarchyEntry>>,
    /// True for the built-in configuration used when a layer has no `hiera.yaml`: paths that
    /// do not exist are dropped.
    pub is_default: bool,
    /// What a version 3 configuration adds (`None` for versions 4 and 5).
    pub hiera3: Option<Hiera3>,
}

/// What a version 3 `hiera.yaml` (Hiera 3's format: `:backends:`, `:hierarchy:`, a section
/// per backend; deprecated, read by Puppet in the global layer only) adds to the model. Its
/// backends become hierarchy entries, backend by backend, each over the whole hierarchy:
/// `yaml` and `json` read with `yaml_data`/`json_data`, `eyaml` with `eyaml_lookup_key`
/// (the section's other keys its options), any other a Hiera 3 backend class
/// ([`FunctionKind::Hiera3Backend`]). A backend's `datadir` is interpolated (by default
/// `<codedir>/environments/%{::environment}/hieradata`); a relative one is taken from the
/// directory of `hiera.yaml` (Puppet takes it from the process's working directory).
#[derive(Debug, Clone, PartialEq)]
pub struct Hiera3 {
    /// The strategy the `hiera_*()` functions' hash merges use in this layer
    /// (`merge_behavior`: `deep` is `reverse_deep`, `deeper` is `unconstrained_deep`, with
    /// `deep_merge_options`); `None` for `native`.
    pub hiera_merge: Option<crate::MergeStrategy>,
    /// The file did not hold a YAML hash: Puppet's default configuration stands in.
    pub fell_back: bool,
}

fn s(v: &str) -> Value {
    Value::string(v)
}

fn get<'a>(h: &'a puppet_types::value::ValueMap, k: &str) -> Option<&'a Value> {
    h.get(&s(k)).filter(|v| !v.is_undef())
}

impl HieraConfig {
    /// The directories under which this configuration's hierarchy finds its data: for every
    /// entry, its data directory joined with each of its location templates, cut before the
    /// first component that interpolates or globs (`/etc/puppet/data/nodes` for
    /// `nodes/%{trusted.certname}.yaml`; an absolute path stands for itself). What a reader
    /// of the file system must serve for this layer.
    ///
    /// ```
    /// use puppet_hiera::HieraConfig;
    /// use std::path::{Path, PathBuf};
    /// let yaml = "version: 5\ndefaults: {datadir: /var/lib/hiera, data_hash: yaml_data}\nhierarchy:\n  - name: n\n    path: nodes/%{trusted.certname}.yaml\n  - name: s\n    path: /srv/secrets/all.yaml\n";
    /// let config = HieraConfig::parse(yaml, Path::new("/etc/puppet")).unwrap();
    /// assert_eq!(
    ///     config.data_roots(),
    ///     vec![PathBuf::from("/var/lib/hiera/nodes"), PathBuf::from("/srv/secrets/all.yaml")]
    /// );
    /// ```
    pub fn data_roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = Vec::new();
        for e in self
            .hierarchy
            .iter()
            .chain(self.default_hierarchy.iter().flatten())
        {
            let datadir = self.dir.join(e.datadir.as_deref().unwrap_or(&self.datadir));
            let templates: Vec<&str> = match &e.location {
                Location::Paths(v) | Location::Globs(v) => v.iter().map(String::as_str).collect(),
                Location::MappedPaths(_, _, t) => vec![t.as_str()],
                Location::None | Location::Uris(_) => vec![""],
            };
            for t in templates {
                let mut root = PathBuf::new();
                for c in datadir.join(t).components() {
                    if c.as_os_str()
                        .to_string_lossy()
                        .contains(['{', '*', '?', '['])
                    {
                        break;
                    }
                    root.push(c);
                }
                if !roots.contains(&root) {
                    roots.push(root);
                }
            }
        }
        roots
    }

    /// Parses `hiera.yaml` text; `dir` is the directory the file is in.
    ///
    /// ```
    /// use puppet_hiera::HieraConfig;
    /// let c = HieraConfig::parse(
    ///     "version: 5\ndefaults: {datadir: data, data_hash: yaml_data}\n\
    ///      hierarchy:\n  - name: Nodes\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: Common\n    path: common.yaml\n",
    ///     "/etc/puppetlabs/code/environments/production",
    /// ).unwrap();
    /// assert_eq!(c.version, 5);
    /// assert_eq!(c.hierarchy.len(), 2);
    /// let err = HieraConfig::parse("version: 6\n", "/x").unwrap_err();
    /// assert_eq!(err.to_string(), "This runtime does not support hiera.yaml version 6");
    /// assert_eq!(err.code, "HIERA_UNSUPPORTED_VERSION");
    /// ```
    pub fn parse(yaml_text: &str, dir: impl AsRef<Path>) -> Result<HieraConfig, HieraError> {
        let dir = dir.as_ref().to_path_buf();
        let path = dir.join("hiera.yaml");
        let fail =
            |code: &'static str, msg: String| Err(HieraError::new(code, msg).in_file(path.clone()));
        let loaded = yaml::load(yaml_text).map_err(|e| {
            HieraError::new(
                codes::INVALID_CONFIG,
                format!("({}): {}", path.display(), e.message),
            )
            .in_file(path.clone())
        })?;
        let Some(Value::Hash(map)) = loaded else {
            // Puppet warns and falls back to a version 3 default configuration.
            return parse_v3(None, yaml_text, dir, path);
        };
        let version = match get(&map, "version") {
            None => 3,
            Some(Value::Integer(i)) => *i,
            Some(Value::Float(f)) => *f as i64,
            Some(Value::String(t)) => ruby_to_i(t),
            Some(_) => 0,
        };
        match version {
            4 => return parse_v4(&map, yaml_text, dir, path),
            3 => return parse_v3(Some(&map), yaml_text, dir, path),
            5 => {}
            other => {
                return fail(
                    "HIERA_UNSUPPORTED_VERSION",
                    format!("This runtime does not support hiera.yaml version {other}"),
                )
            }
        }
        // Puppet's type assertion of the whole configuration: `SUBJECT has wrong type,`
        // then where (`entry 'hierarchy' index 0`) and what.
        let subject = format!(
            "The Lookup Configuration at '{}' has wrong type,",
            path.display()
        );
        let type_err = |detail: String| -> Result<HieraConfig, HieraError> {
            fail(codes::INVALID_CONFIG, format!("{subject} {detail}"))
        };
        match map.get(&s("version")) {
            Some(Value::Integer(5)) => {}
            // A String or Float that Ruby's `to_i` makes 5.
            other => {
                let got = other.map_or("Undef", kind);
                return type_err(format!(
                    "entry 'version' expects an Integer value, got {got}"
                ));
            }
        }
        for k in map.keys() {
            let ks = k.to_plain_string();
            if !matches!(
                ks.as_str(),
                "version" | "defaults" | "hierarchy" | "plan_hierarchy" | "default_hierarchy"
            ) {
                return type_err(format!("unrecognized key '{ks}'"));
            }
        }
        // defaults
        let mut datadir = "data".to_string();
        let mut default_function: Option<(FunctionKind, String)> = None;
        let mut default_options: Option<Value> = None;
        match map.get(&s("defaults")) {
            None | Some(Value::Undef) => {
                default_function = Some((FunctionKind::DataHash, "yaml_data".into()));
            }
            Some(Value::Hash(d)) => {
                for k in d.keys() {
                    let ks = k.to_plain_string();
                    if !matches!(
                        ks.as_str(),
                        "data_hash" | "lookup_key" | "data_dig" | "datadir" | "options"
                    ) {
                        return type_err(format!("entry 'defaults' unrecognized key '{ks}'"));
                    }
                }
                if let Some(v) = get(d, "datadir") {
                    match v {
                        Value::String(t) if !t.is_empty() => datadir = t.to_string(),
                        other => {
                            return type_err(format!(
                                "entry 'defaults' entry 'datadir' {}",
                                string1_mismatch(other)
                            ))
                        }
                    }
                }
                let count = FUNCTION_KEYS
                    .iter()
                    .filter(|k| d.contains_key(&s(k.key())))
                    .count();
                if count > 1 {
                    return fail(
                        "HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS_IN_DEFAULT",
                        "Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined in defaults".into(),
                    );
                }
                for k in FUNCTION_KEYS {
                    if let Some(v) = get(d, k.key()) {
                        match v {
                            Value::String(t) if !t.is_empty() => {
                                default_function = Some((k, t.to_string()));
                            }
                            other => {
                                return type_err(format!(
                                    "entry 'defaults' entry '{}' {}",
                                    k.key(),
                                    string1_mismatch(other)
                                ))
                            }
                        }
                    }
                }
                if let Some(o) = get(d, "options") {
                    let Value::Hash(oh) = o else {
                        return type_err(format!(
                            "entry 'defaults' entry 'options' expects a Hash value, got {}",
                            kind(o)
                        ));
                    };
                    for key in ["path", "uri"] {
                        if oh.contains_key(&s(key)) {
                            return fail(
                                "HIERA_DEFAULT_OPTION_RESERVED_BY_PUPPET",
                                format!(
                                    "Option key '{key}' used in defaults is reserved by Puppet"
                                ),
                            );
                        }
                    }
                    default_options = Some(o.clone());
                }
            }
            Some(other) => {
                return type_err(format!(
                    "entry 'defaults' expects a Struct value, got {}",
                    kind(other)
                ))
            }
        }
        let parse_list = |key: &str| -> Result<Option<Vec<HierarchyEntry>>, HieraError> {
            match map.get(&s(key)) {
                None | Some(Value::Undef) => Ok(None),
                Some(Value::Array(items)) => {
                    let mut out: Vec<HierarchyEntry> = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        let e = parse_entry(
                            item,
                            &format!("{subject} entry '{key}' index {i}"),
                            &default_function,
                            &default_options,
                            &path,
                        )?;
                        if out.iter().any(|o| o.name == e.name) {
                            return Err(name_defined_twice(yaml_text, &e.name, &path));
                        }
                        out.push(e);
                    }
                    Ok(Some(out))
                }
                Some(other) => Err(HieraError::new(
                    codes::INVALID_CONFIG,
                    format!(
                        "{subject} entry '{key}' expects an Array value, got {}",
                        kind(other)
                    ),
                )
                .in_file(path.clone())),
            }
        };
        let hierarchy = parse_list("hierarchy")?.unwrap_or_else(|| {
            vec![HierarchyEntry {
                name: "Common".into(),
                function: default_function.clone(),
                location: Location::Paths(vec!["common.yaml".into()]),
                datadir: None,
                options: None,
                extension: None,
            }]
        });
        let _plan = parse_list("plan_hierarchy")?;
        let default_hierarchy = parse_list("default_hierarchy")?;
        Ok(HieraConfig {
            version: 5,
            dir,
            path,
            datadir,
            hierarchy,
            default_hierarchy,
            is_default: false,
            hiera3: None,
        })
    }

    /// The configuration Puppet uses for a layer without `hiera.yaml`: `data/common.yaml`
    /// with `yaml_data`, used only if the file exists.
    pub fn default_for(dir: impl AsRef<Path>) -> HieraConfig {
        let dir = dir.as_ref().to_path_buf();
        HieraConfig {
            version: 5,
            path: dir.join("hiera.yaml"),
            dir,
            datadir: "data".into(),
            hierarchy: vec![HierarchyEntry {
                name: "Common".into(),
                function: Some((FunctionKind::DataHash, "yaml_data".into())),
                location: Location::Paths(vec!["common.yaml".into()]),
                datadir: None,
                options: None,
                extension: None,
            }],
            default_hierarchy: None,
            is_default: true,
            hiera3: None,
        }
    }

    /// The configuration Puppet makes for a deprecated data provider function (a module's
    /// `"data_provider": "function"`, an environment's `environment_data_provider =
    /// function`): one entry calling `function` without arguments (`v4_data_hash`), no
    /// file behind it.
    pub fn legacy_function(dir: impl AsRef<Path>, function: &str) -> HieraConfig {
        HieraConfig {
            hierarchy: vec![HierarchyEntry {
                name: format!("Legacy function '{function}'"),
                function: Some((FunctionKind::V4DataHash, function.to_string())),
                location: Location::None,
                datadir: None,
                options: None,
                extension: None,
            }],
            ..HieraConfig::default_for(dir)
        }
    }

    /// The global layer of a Puppet whose `$confdir` holds neither `hiera.yaml` nor
    /// `data/`: Puppet's default configuration with nothing to read. Puppet always has a
    /// global layer (its `hiera_config` setting always names a file), so an environment
    /// without a global `hiera.yaml` still explains a lookup with a `Global Data Provider`
    /// that finds nothing.
    ///
    /// ```
    /// use puppet_hiera::{HieraConfig, Lookup, MapScope, MemorySource};
    /// let lookup = Lookup::builder(MemorySource::new()).global(HieraConfig::empty_global()).build().unwrap();
    /// let text = lookup.explain("x", None, &MapScope::new()).to_string();
    /// assert!(text.contains("Searching for \"x\"\n  Global Data Provider (hiera configuration version 5)\n    No such key: \"x\"\n"));
    /// ```
    pub fn empty_global() -> HieraConfig {
        HieraConfig {
            hierarchy: Vec::new(),
            ..HieraConfig::default_for("/")
        }
    }

    /// A name for explanations: `hiera configuration version 5`.
    pub fn name(&self) -> String {
        format!("hiera configuration version {}", self.version)
    }
}

fn ruby_to_i(t: &str) -> i64 {
    let t = t.trim_start();
    let end = t
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().unwrap_or(0)
}

fn nes_list(v: &Value, what: &str, min: usize, max: Option<usize>) -> Result<Vec<String>, String> {
    let Value::Array(items) = v else {
        return Err(format!("{what} expects an Array value, got {}", kind(v)));
    };
    if items.len() < min || max.is_some_and(|m| items.len() > m) {
        return Err(format!(
            "{what} expects size to be {}, got {}",
            match max {
                Some(m) if m == min => format!("{m}"),
                Some(m) => format!("between {min} and {m}"),
                None => format!("at least {min}"),
            },
            items.len()
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, it)| match it {
            Value::String(t) if !t.is_empty() => Ok(t.to_string()),
            other => Err(format!("{what} index {i} {}", string1_mismatch(other))),
        })
        .collect()
}

/// Puppet's `HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED` for `name` in the `hiera.yaml` `text`
/// at `path` (see [`defined_twice`]).
fn name_defined_twice(text: &str, name: &str, path: &Path) -> HieraError {
    defined_twice(
        "HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED",
        format!("Hierarchy name '{name}' defined more than once."),
        |start| name_line(text, name, start),
        path,
    )
}

/// Puppet's error for something `hiera.yaml` at `path` defines twice (a hierarchy name, a
/// version 3 backend): `message`, then where it was first defined. The lines come from
/// searching the text as Puppet's `find_line_matching` does with `line_from` (the first
/// matching line from a line on): the first line, then the next after it; the error is at
/// the second, or at the first when there is no second.
fn defined_twice(
    code: &'static str,
    mut message: String,
    line_from: impl Fn(u32) -> Option<u32>,
    path: &Path,
) -> HieraError {
    let first = line_from(1);
    let second = first.and_then(|f| line_from(f + 1));
    let (first, line) = match second {
        Some(l) => (first, Some(l)),
        None => (None, first),
    };
    if let Some(f) = first {
        message.push_str(&format!(" First defined at (line: {f})"));
    }
    let mut e = HieraError::new(code, message).in_file(path.to_path_buf());
    e.line = line;
    e
}

/// A line of `hiera.yaml` without its comment (from a `#` outside quotes), as Puppet's
/// `find_line_matching` searches it.
fn uncommented(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match c {
            '"' | '\'' if quote == Some(c) => quote = None,
            '"' | '\'' if quote.is_none() => quote = Some(c),
            '#' if quote.is_none() => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The number of the first line from `start` (1-based) that, without its comment (from an
/// unquoted `#`), matches Puppet's `/\s+name:\s+['"]?NAME(?:[^\w]|$)/` (the name taken as
/// it is written).
fn name_line(text: &str, name: &str, start: u32) -> Option<u32> {
    let ruby_space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '\x0b');
    for (n, line) in (1u32..).zip(text.split('\n')) {
        if n < start {
            continue;
        }
        let stripped = uncommented(line);
        let found = stripped.match_indices("name:").any(|(i, _)| {
            let before = stripped[..i].chars().next_back().is_some_and(ruby_space);
            let rest = &stripped[i + "name:".len()..];
            let after = rest.trim_start_matches(ruby_space);
            if !before || after.len() == rest.len() {
                return false;
            }
            let after = after.strip_prefix(['\'', '"']).unwrap_or(after);
            // Without the optional quote, then with it (a regex would backtrack).
            [after, rest.trim_start_matches(ruby_space)]
                .iter()
                .any(|a| {
                    a.strip_prefix(name).is_some_and(|tail| {
                        tail.chars()
                            .next()
                            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'))
                    })
                })
        });
        if found {
            return Some(n);
        }
    }
    None
}

/// A warning Puppet logs about a configuration (a deprecated version or setting), with the
/// key Puppet's `warn_once` logs it under: a compilation logs each key once (the message
/// ends with the file Puppet names, as its log shows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// What makes two warnings the same one (Puppet's `warn_once` kind and key).
    pub key: String,
    /// The text.
    pub message: String,
}

impl ConfigWarning {
    /// A warning about `file`.
    pub fn about(
        key: impl Into<String>,
        message: impl std::fmt::Display,
        file: &Path,
    ) -> ConfigWarning {
        ConfigWarning {
            key: key.into(),
            message: format!("{message}\n   (file: {})", file.display()),
        }
    }
}

/// Whose deprecated data provider setting [`with_data_provider`] applies.
#[derive(Debug, Clone, Copy)]
pub enum DataProviderOwner<'a> {
    /// A module (its `metadata.json`'s `data_provider`), by name.
    Module(&'a str),
    /// An environment (its `environment.conf`'s `environment_data_provider`), by name.
    Environment(&'a str),
}

/// A layer's configuration after its owner's deprecated data provider setting, as Puppet
/// 7.23's `LookupAdapter` applies it: beside a `hiera.yaml` of version 5 the setting is
/// ignored; otherwise `none` leaves the layer without data, `hiera` keeps the file's
/// configuration or takes the default one (`data/common.yaml`), `function` replaces it by
/// a call of the owner's data function (`<module>::data`, `environment::data`) without
/// arguments ([`HieraConfig::legacy_function`]); another name is an error. `config` is the
/// layer's parsed `hiera.yaml` (`None` without one), `dir` the layer's directory. Puppet's
/// deprecation warnings are added to `warnings`.
///
/// ```
/// use puppet_hiera::config::{with_data_provider, DataProviderOwner};
/// use puppet_hiera::{FunctionKind, HieraConfig};
/// let mut warnings = Vec::new();
/// let c = with_data_provider(None, Some("function"), "/m/x".as_ref(), DataProviderOwner::Module("x"), &mut warnings)
///     .unwrap()
///     .unwrap();
/// assert_eq!(c.hierarchy[0].function, Some((FunctionKind::V4DataHash, "x::data".to_string())));
/// let v5 = HieraConfig::parse("version: 5\n", "/m/x").unwrap();
/// let kept = with_data_provider(Some(v5.clone()), Some("none"), "/m/x".as_ref(), DataProviderOwner::Module("x"), &mut warnings);
/// assert_eq!(kept.unwrap(), Some(v5));
/// ```
pub fn with_data_provider(
    config: Option<HieraConfig>,
    provider: Option<&str>,
    dir: &Path,
    owner: DataProviderOwner<'_>,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<Option<HieraConfig>, HieraError> {
    let Some(provider) = provider else {
        return Ok(config);
    };
    let (key, file) = match owner {
        DataProviderOwner::Module(m) => (
            format!("metadata.json#data_provider-{m}"),
            dir.join("metadata.json"),
        ),
        DataProviderOwner::Environment(_) => (
            "environment.conf#data_provider".to_string(),
            dir.join("environment.conf"),
        ),
    };
    if let Some(c) = config.as_ref().filter(|c| c.version >= 5) {
        match owner {
            DataProviderOwner::Module(_) => warnings.push(ConfigWarning::about(key, format!(
                "Defining \"data_provider\": \"{provider}\" in metadata.json is deprecated. It is ignored since a 'hiera.yaml' with version >= 5 is present"
            ), &file)),
            DataProviderOwner::Environment(_) => {
                warnings.push(ConfigWarning::about(key, format!(
                    "Defining environment_data_provider='{provider}' in environment.conf is deprecated"
                ), &file));
                if provider != "hiera" {
                    warnings.push(ConfigWarning::about(
                        "environment.conf#data_provider_overridden",
                        format!(
                            "The environment_data_provider='{provider}' setting is ignored since '{}' version >= 5",
                            c.path.display()
                        ),
                        &file,
                    ));
                }
            }
        }
        return Ok(config);
    }
    // A version 3 file is no configuration to Puppet here.
    let config = config.filter(|c| c.version != 3);
    let mut message = match owner {
        DataProviderOwner::Module(_) => {
            format!("Defining \"data_provider\": \"{provider}\" in metadata.json is deprecated.")
        }
        DataProviderOwner::Environment(_) => format!(
            "Defining environment_data_provider='{provider}' in environment.conf is deprecated."
        ),
    };
    if config.is_none() {
        message.push_str(" A 'hiera.yaml' file should be used instead");
    }
    warnings.push(ConfigWarning::about(key, message, &file));
    match provider {
        "none" => Ok(None),
        "hiera" => Ok(Some(config.unwrap_or_else(|| HieraConfig::default_for(dir)))),
        "function" => {
            let function = match owner {
                DataProviderOwner::Module(m) => format!("{m}::data"),
                DataProviderOwner::Environment(_) => "environment::data".to_string(),
            };
            warnings.push(ConfigWarning {
                key: "legacy_provider_function".into(),
                message: format!(
                    "Using of legacy data provider function '{function}'. Please convert to a 'data_hash' function\n   (file & line not available)"
                ),
            });
            Ok(Some(HieraConfig::legacy_function(dir, &function)))
        }
        other => Err(HieraError::new(
            codes::UNKNOWN_DATA_PROVIDER,
            match owner {
                // Puppet's text, as its code raises it (a NoMethodError of `%` on the
                // exception it meant to raise).
                DataProviderOwner::Module(_) => "undefined method `%' for #<Puppet::Error: Environment '%{env}', cannot find module_data_provider '%{provider}'>".to_string(),
                DataProviderOwner::Environment(env) => format!(
                    "Environment '{env}', cannot find environment_data_provider '{other}'"
                ),
            },
        )),
    }
}

/// How Puppet's type assertion describes a value that is not a `String[1]`: an empty
/// string is the wrong size, anything else the wrong type.
fn string1_mismatch(v: &Value) -> String {
    match v {
        Value::String(_) => "expects a String[1] value, got String".into(),
        other => format!("expects a String value, got {}", kind(other)),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Undef => "Undef",
        Value::Boolean(_) => "Boolean",
        Value::Integer(_) => "Integer",
        Value::Float(_) => "Float",
        Value::String(_) => "String",
        Value::Array(_) => "Array",
        Value::Hash(_) => "Hash",
        _ => "Any",
    }
}

fn parse_entry(
    item: &Value,
    subject: &str,
    default_function: &Option<(FunctionKind, String)>,
    default_options: &Option<Value>,
    path: &Path,
) -> Result<HierarchyEntry, HieraError> {
    let err = |msg: String| HieraError::new(codes::INVALID_CONFIG, msg).in_file(path.to_path_buf());
    let Value::Hash(h) = item else {
        return Err(err(format!(
            "{subject} expects a Struct value, got {}",
            kind(item)
        )));
    };
    const ALLOWED: [&str; 15] = [
        "name",
        "options",
        "data_hash",
        "lookup_key",
        "hiera3_backend",
        "v4_data_hash",
        "data_dig",
        "path",
        "paths",
        "glob",
        "globs",
        "uri",
        "uris",
        "mapped_paths",
        "datadir",
    ];
    for k in h.keys() {
        let ks = k.to_plain_string();
        if !ALLOWED.contains(&ks.as_str()) {
            return Err(err(format!("{subject} unrecognized key '{ks}'")));
        }
    }
    let name = match get(h, "name") {
        Some(Value::String(n)) if !n.is_empty() => n.to_string(),
        None => return Err(err(format!("{subject} expects a value for key 'name'"))),
        Some(other) => {
            return Err(err(format!(
                "{subject} entry 'name' {}",
                string1_mismatch(other)
            )))
        }
    };
    let string_key = |k: &str| -> Result<Option<String>, HieraError> {
        match get(h, k) {
            None => Ok(None),
            Some(Value::String(t)) if !t.is_empty() => Ok(Some(t.to_string())),
            Some(other) => Err(err(format!(
                "{subject} entry '{k}' {}",
                string1_mismatch(other)
            ))),
        }
    };
    let present: Vec<FunctionKind> = ALL_FUNCTION_KEYS
        .iter()
        .copied()
        .filter(|k| h.contains_key(&s(k.key())))
        .collect();
    let function = match present.len() {
        0 => match default_function {
            Some(f) => Some(f.clone()),
            None => {
                return Err(HieraError::new(
                    "HIERA_MISSING_DATA_PROVIDER_FUNCTION",
                    format!("One of data_hash, lookup_key, data_dig, or hiera3_backend must be defined in hierarchy '{name}'"),
                )
                .in_file(path.to_path_buf()))
            }
        },
        1 => {
            let k = present[0];
            Some((k, string_key(k.key())?.unwrap_or_default()))
        }
        _ => {
            return Err(HieraError::new(
                "HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS",
                format!("Only one of data_hash, lookup_key, data_dig, or hiera3_backend can be defined in hierarchy '{name}'"),
            )
            .in_file(path.to_path_buf()))
        }
    };
    if present.contains(&FunctionKind::Hiera3Backend) {
        return Err(HieraError::new(
            "HIERA_V3_BACKEND_NOT_GLOBAL",
            "'hiera3_backend' is only allowed in the global layer",
        )
        .in_file(path.to_path_buf()));
    }
    let locs: Vec<&str> = LOCATION_KEYS
        .iter()
        .copied()
        .filter(|k| h.contains_key(&s(k)))
        .collect();
    if locs.len() > 1 {
        return Err(HieraError::new(
            "HIERA_MULTIPLE_LOCATION_SPECS",
            format!("Only one of path, paths, glob, globs, uri, uris, or mapped_paths can be defined in hierarchy '{name}'"),
        )
        .in_file(path.to_path_buf()));
    }
    let location = match locs.first().copied() {
        None => Location::None,
        Some(k @ ("path" | "glob" | "uri")) => {
            let v = string_key(k)?.unwrap_or_default();
            match k {
                "path" => Location::Paths(vec![v]),
                "glob" => Location::Globs(vec![v]),
                _ => Location::Uris(vec![v]),
            }
        }
        Some(k) => {
            let v = h.get(&s(k)).cloned().unwrap_or(Value::Undef);
            let what = format!("{subject} entry '{k}'");
            let list = if k == "mapped_paths" {
                nes_list(&v, &what, 3, Some(3))
            } else {
                nes_list(&v, &what, 1, None)
            }
            .map_err(err)?;
            match k {
                "paths" => Location::Paths(list),
                "globs" => Location::Globs(list),
                "uris" => Location::Uris(list),
                _ => Location::MappedPaths(list[0].clone(), list[1].clone(), list[2].clone()),
            }
        }
    };
    let options = match get(h, "options") {
        None => default_options.clone(),
        Some(o @ Value::Hash(oh)) => {
            for key in ["path", "uri"] {
                if oh.contains_key(&s(key)) {
                    return Err(HieraError::new(
                        "HIERA_OPTION_RESERVED_BY_PUPPET",
                        format!(
                            "Option key '{key}' used in hierarchy '{name}' is reserved by Puppet"
                        ),
                    )
                    .in_file(path.to_path_buf()));
                }
            }
            Some(o.clone())
        }
        Some(other) => {
            return Err(err(format!(
                "{subject} entry 'options' expects a Hash value, got {}",
                kind(other)
            )))
        }
    };
    Ok(HierarchyEntry {
        name,
        function,
        location,
        datadir: string_key("datadir")?,
        options,
        extension: None,
    })
}

/// A version 4 `hiera.yaml` (deprecated, allowed in the environment and module layers), as
/// Puppet 7.23's `HieraConfigV4` reads it: `datadir` (default `data`) and `hierarchy`
/// (default one `common` entry with the `yaml` backend) of entries with `name`, `backend`
/// (`yaml` or `json`: `yaml_data`/`json_data` over the paths, each given the backend's
/// extension unless it has it), optional `datadir` (not interpolated), `path` or `paths`
/// (default: the name). Checked as Puppet's type assertion checks it, with its texts; an
/// unknown backend is Puppet's "No data provider is registered for backend" error, at its
/// line; `hocon` (which Puppet has when the hocon gem is installed) is refused as
/// unsupported.
fn parse_v4(
    map: &puppet_types::value::ValueMap,
    yaml_text: &str,
    dir: PathBuf,
    path: PathBuf,
) -> Result<HieraConfig, HieraError> {
    let subject = format!(
        "The Lookup Configuration at '{}' has wrong type,",
        path.display()
    );
    let err = |detail: String| {
        HieraError::new(codes::INVALID_CONFIG, format!("{subject} {detail}")).in_file(path.clone())
    };
    match map.get(&s("version")) {
        Some(Value::Integer(4)) => {}
        other => {
            let got = other.map_or("Undef", kind);
            return Err(err(format!(
                "entry 'version' expects an Integer value, got {got}"
            )));
        }
    }
    // Puppet's describer reports the struct's own entries first, then unrecognized keys.
    let unrecognized = |h: &puppet_types::value::ValueMap, allowed: &[&str]| {
        h.keys()
            .map(|k| k.to_plain_string())
            .find(|k| !allowed.contains(&k.as_str()))
    };
    // Puppet fills the defaults in before the assertion: a `datadir` or `hierarchy` that is
    // nil or false is the default.
    let datadir = match map.get(&s("datadir")) {
        None | Some(Value::Undef | Value::Boolean(false)) => "data".to_string(),
        Some(Value::String(t)) if !t.is_empty() => t.to_string(),
        Some(other) => return Err(err(format!("entry 'datadir' {}", string1_mismatch(other)))),
    };
    let default_list;
    let items: &[Value] = match map.get(&s("hierarchy")) {
        None | Some(Value::Undef | Value::Boolean(false)) => {
            default_list = [Value::hash([
                (s("name"), s("common")),
                (s("backend"), s("yaml")),
            ])];
            &default_list
        }
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(err(format!(
                "entry 'hierarchy' expects an Array value, got {}",
                kind(other)
            )))
        }
    };
    // The whole file is asserted first, then each entry made a provider in order (a name
    // defined twice, an unknown backend).
    let mut checked = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("entry 'hierarchy' index {i}");
        let Value::Hash(h) = item else {
            return Err(err(format!(
                "{at} expects a Struct value, got {}",
                kind(item)
            )));
        };
        let string_key = |k: &str, required: bool| -> Result<Option<String>, HieraError> {
            match h.get(&s(k)) {
                None if required => Err(err(format!("{at} expects a value for key '{k}'"))),
                None => Ok(None),
                Some(Value::String(t)) if !t.is_empty() => Ok(Some(t.to_string())),
                Some(other) => Err(err(format!("{at} entry '{k}' {}", string1_mismatch(other)))),
            }
        };
        let backend = string_key("backend", true)?.unwrap_or_default();
        let name = string_key("name", true)?.unwrap_or_default();
        let entry_datadir = string_key("datadir", false)?;
        let single = string_key("path", false)?;
        let paths = match h.get(&s("paths")) {
            None => vec![single.unwrap_or_else(|| name.clone())],
            Some(v) => nes_list(v, &format!("{subject} {at} entry 'paths'"), 0, None)
                .map_err(|m| HieraError::new(codes::INVALID_CONFIG, m).in_file(path.clone()))?,
        };
        if let Some(k) = unrecognized(h, &["backend", "name", "datadir", "path", "paths"]) {
            return Err(err(format!("{at} unrecognized key '{k}'")));
        }
        checked.push((name, backend, entry_datadir, paths));
    }
    if let Some(k) = unrecognized(map, &["version", "datadir", "hierarchy"]) {
        return Err(err(format!("unrecognized key '{k}'")));
    }
    let mut hierarchy: Vec<HierarchyEntry> = Vec::new();
    for (name, backend, datadir, paths) in checked {
        if hierarchy.iter().any(|o| o.name == name) {
            return Err(name_defined_twice(yaml_text, &name, &path));
        }
        if backend == "hocon" {
            return Err(HieraError::new(
                codes::UNSUPPORTED,
                "hiera.yaml version 4's 'hocon' backend (hocon_data) is not supported by this implementation",
            )
            .in_file(path.clone()));
        }
        if !matches!(backend.as_str(), "yaml" | "json") {
            let mut e = HieraError::new(
                "HIERA_NO_PROVIDER_FOR_BACKEND",
                format!("No data provider is registered for backend '{backend}'"),
            )
            .in_file(path.clone());
            e.line = backend_line(yaml_text, &backend);
            return Err(e);
        }
        hierarchy.push(HierarchyEntry {
            name,
            function: Some((FunctionKind::DataHash, format!("{backend}_data"))),
            location: Location::Paths(paths),
            datadir,
            options: None,
            extension: Some(format!(".{backend}")),
        });
    }
    Ok(HieraConfig {
        version: 4,
        dir,
        path,
        datadir,
        hierarchy,
        default_hierarchy: None,
        is_default: false,
        hiera3: None,
    })
}

/// The first line (1-based) matching Puppet's `/[^\w]NAME(?:[^\w]|$)/`, where a version 4
/// file names an unknown backend.
fn backend_line(text: &str, name: &str) -> Option<u32> {
    word_line(text, name, 1)
}

/// The number of the first line from `start` (1-based) where `name` stands as a word
/// outside a comment (Puppet's `find_line_matching(/[^\w]NAME(?:[^\w]|$)/)`).
fn word_line(text: &str, name: &str, start: u32) -> Option<u32> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    (1u32..)
        .zip(text.split('\n'))
        .skip(start as usize - 1)
        .find_map(|(n, line)| {
            let line = uncommented(line);
            line.match_indices(name)
                .any(|(i, _)| {
                    line[..i].chars().next_back().is_some_and(|c| !word(c))
                        && line[i + name.len()..]
                            .chars()
                            .next()
                            .is_none_or(|c| !word(c))
                })
                .then_some(n)
        })
}

/// A version 3 `hiera.yaml` (`map`; `None` when the file held no YAML hash, which Puppet
/// replaces by its default configuration) read into the model (see [`Hiera3`]), checked as
/// Puppet 7.23's `HieraConfigV3` checks it (its type assertion, a backend listed twice).
fn parse_v3(
    map: Option<&puppet_types::value::ValueMap>,
    yaml_text: &str,
    dir: PathBuf,
    path: PathBuf,
) -> Result<HieraConfig, HieraError> {
    let fell_back = map.is_none();
    let defaults = puppet_types::value::ValueMap::default();
    let map = map.unwrap_or(&defaults);
    // Puppet fills in the defaults, then asserts the whole configuration.
    let mut config = map.clone();
    let mut fill = |k: &str, v: Value| {
        if get(&config, k).is_none() {
            config.insert(s(k), v);
        }
    };
    fill("version", Value::Integer(3));
    fill("backends", Value::array(vec![s("yaml")]));
    fill(
        "hierarchy",
        Value::array(vec![s("nodes/%{::trusted.certname}"), s("common")]),
    );
    fill("merge_behavior", s("native"));
    fill("deep_merge_options", Value::hash([]));
    let list = |v: &Value| -> Vec<String> {
        match v {
            Value::Array(a) => a.iter().map(|x| x.to_plain_string()).collect(),
            other => vec![other.to_plain_string()],
        }
    };
    let backends: Vec<String> = get(&config, "backends").map(list).unwrap_or_default();
    let non_empty = || Type::string_sized(puppet_types::types::IntRange::new(Some(1), None));
    let one_or_many = || Type::variant_of(vec![non_empty(), Type::array(non_empty(), None)]);
    let optional = |name: &str, value: Type| StructElement {
        name: name.into(),
        key: Type::optional(Type::String(StringType::Value(name.into()))),
        value,
    };
    let mut elements = vec![
        optional("version", Type::integer(Some(3), Some(3))),
        optional("backends", one_or_many()),
        optional("logger", non_empty()),
        optional(
            "merge_behavior",
            Type::enumeration(["deep".into(), "deeper".into(), "native".into()], false),
        ),
        optional(
            "deep_merge_options",
            Type::hash(
                non_empty(),
                Type::variant_of(vec![Type::any_string(), Type::Boolean(None)]),
                None,
            ),
        ),
        optional("hierarchy", one_or_many()),
    ];
    for b in &backends {
        if !elements.iter().any(|e| e.name == b.as_str()) {
            elements.push(optional(b, Type::hash(non_empty(), Type::Any, None)));
        }
    }
    let config_value = Value::Hash(std::sync::Arc::new(config.clone()));
    let config_type = Type::structure(elements);
    if !puppet_types::is_instance(&config_type, &config_value) {
        let subject = format!(
            "The Lookup Configuration at '{}' has wrong type,",
            path.display()
        );
        return Err(HieraError::new(
            codes::INVALID_CONFIG,
            puppet_types::describe_mismatch(
                &subject,
                &config_type,
                &puppet_types::infer_set(&config_value),
            ),
        )
        .in_file(path));
    }
    let hierarchy_paths: Vec<String> = get(&config, "hierarchy").map(list).unwrap_or_default();
    let mut hierarchy: Vec<HierarchyEntry> = Vec::new();
    for backend in &backends {
        if hierarchy.iter().any(|e| &e.name == backend) {
            return Err(defined_twice(
                "HIERA_BACKEND_MULTIPLY_DEFINED",
                format!("Backend '{backend}' is defined more than once."),
                |start| word_line(yaml_text, backend, start),
                &path,
            ));
        }
        let section = match get(&config, backend) {
            Some(Value::Hash(h)) => (**h).clone(),
            _ => puppet_types::value::ValueMap::default(),
        };
        let datadir = match get(&section, "datadir") {
            Some(d) => d.to_plain_string(),
            None => "%{settings::codedir}/environments/%{::environment}/hieradata".to_string(),
        };
        let extension = match get(&section, "extension") {
            Some(x) => format!(".{}", x.to_plain_string()),
            None if backend == "hocon" => ".conf".to_string(),
            None => format!(".{backend}"),
        };
        let (function, options) = match backend.as_str() {
            "yaml" | "json" => ((FunctionKind::DataHash, format!("{backend}_data")), None),
            "eyaml" => {
                let mut options = section.clone();
                options.shift_remove(&s("datadir"));
                (
                    (FunctionKind::LookupKey, "eyaml_lookup_key".to_string()),
                    Some(Value::Hash(std::sync::Arc::new(options))),
                )
            }
            _ => ((FunctionKind::Hiera3Backend, backend.clone()), None),
        };
        hierarchy.push(HierarchyEntry {
            name: backend.clone(),
            function: Some(function),
            location: Location::Paths(hierarchy_paths.clone()),
            datadir: Some(datadir),
            options,
            extension: Some(extension),
        });
    }
    let hiera_merge = match get(&config, "merge_behavior").map(Value::to_plain_string) {
        Some(m) if m == "deep" || m == "deeper" => {
            let mut options = match get(&config, "deep_merge_options") {
                Some(Value::Hash(h)) => (**h).clone(),
                _ => puppet_types::value::ValueMap::default(),
            };
            let name = if m == "deep" {
                "reverse_deep"
            } else {
                "unconstrained_deep"
            };
            options.insert(s("strategy"), s(name));
            Some(crate::MergeStrategy::from_value(&Value::Hash(
                std::sync::Arc::new(options),
            ))?)
        }
        _ => None,
    };
    Ok(HieraConfig {
        version: 3,
        dir,
        path,
        datadir: "data".into(),
        hierarchy,
        default_hierarchy: None,
        is_default: false,
        hiera3: Some(Hiera3 {
            hiera_merge,
            fell_back,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_3_backends_become_entries_over_the_whole_hierarchy() {
        let text = ":backends: [yaml, eyaml, custom]\n:hierarchy: [\"nodes/%{::trusted.certname}\", common]\n:yaml:\n  :datadir: /d\n  :extension: yml\n:eyaml:\n  :pkcs7_private_key: /k.pem\n:merge_behavior: deep\n:deep_merge_options:\n  :knockout_prefix: '--'\n";
        let c = HieraConfig::parse(text, "/etc/puppet").unwrap();
        assert_eq!(c.version, 3);
        let names: Vec<_> = c.hierarchy.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["yaml", "eyaml", "custom"]);
        let yaml = &c.hierarchy[0];
        assert_eq!(
            yaml.function,
            Some((FunctionKind::DataHash, "yaml_data".into()))
        );
        assert_eq!(yaml.datadir.as_deref(), Some("/d"));
        assert_eq!(yaml.extension.as_deref(), Some(".yml"));
        assert_eq!(
            yaml.location,
            Location::Paths(vec!["nodes/%{::trusted.certname}".into(), "common".into()])
        );
        let eyaml = &c.hierarchy[1];
        assert_eq!(
            eyaml.function,
            Some((FunctionKind::LookupKey, "eyaml_lookup_key".into()))
        );
        assert_eq!(
            eyaml.options.as_ref().map(|o| o.to_string()).as_deref(),
            Some("{'pkcs7_private_key' => '/k.pem'}")
        );
        assert_eq!(
            eyaml.datadir.as_deref(),
            Some("%{settings::codedir}/environments/%{::environment}/hieradata")
        );
        assert_eq!(
            c.hierarchy[2].function,
            Some((FunctionKind::Hiera3Backend, "custom".into()))
        );
        let merge = c
            .hiera3
            .as_ref()
            .and_then(|h| h.hiera_merge.clone())
            .unwrap();
        assert_eq!(merge.name(), "reverse_deep");
        // Without a hash: Puppet's default configuration.
        let d = HieraConfig::parse("just text\n", "/etc/puppet").unwrap();
        assert!(d
            .hiera3
            .as_ref()
            .is_some_and(|h| h.fell_back && h.hiera_merge.is_none()));
        assert_eq!(d.hierarchy.len(), 1);
    }

    #[test]
    fn version_4() {
        // Puppet 7.23's texts for each file (a module's hiera.yaml looked up through).
        let e = |text: &str| HieraConfig::parse(text, "/d").unwrap_err().message;
        let at = "The Lookup Configuration at '/d/hiera.yaml' has wrong type,";
        for (text, want) in [
            (
                "version: 4\nhierarchy:\n  - name: a\n",
                "entry 'hierarchy' index 0 expects a value for key 'backend'",
            ),
            (
                "version: 4\nhierarchy:\n  - name: a\n    backend: yaml\n    paths: x\n",
                "entry 'hierarchy' index 0 entry 'paths' expects an Array value, got String",
            ),
            (
                "version: 4\nhierarchy:\n  - name: a\n    backend: yaml\n    glob: x\n",
                "entry 'hierarchy' index 0 unrecognized key 'glob'",
            ),
            (
                "version: '4'\n",
                "entry 'version' expects an Integer value, got String",
            ),
            (
                "version: 4\ndatadir: ''\n",
                "entry 'datadir' expects a String[1] value, got String",
            ),
            (
                "version: 4\ndatadir: 3\nfoo: 1\n",
                "entry 'datadir' expects a String value, got Integer",
            ),
            (
                "version: 4\nhierarchy: {}\n",
                "entry 'hierarchy' expects an Array value, got Hash",
            ),
        ] {
            assert_eq!(e(text), format!("{at} {want}"), "{text}");
        }
        let c = HieraConfig::parse("version: 4\nhierarchy:\n  - name: a\n    backend: json\n    paths: []\n  - {name: n, backend: yaml, datadir: x, path: p.yaml}\n", "/d").unwrap();
        assert_eq!(c.version, 4);
        assert_eq!(c.hierarchy[0].location, Location::Paths(vec![]));
        let n = &c.hierarchy[1];
        assert_eq!(
            n.function,
            Some((FunctionKind::DataHash, "yaml_data".into()))
        );
        assert_eq!(
            (n.datadir.as_deref(), n.extension.as_deref()),
            (Some("x"), Some(".yaml"))
        );
        let c = HieraConfig::parse("version: 4\n", "/d").unwrap();
        assert_eq!(
            c.hierarchy[0].location,
            Location::Paths(vec!["common".into()])
        );
        let bad = HieraConfig::parse(
            "version: 4\nhierarchy:\n  - name: x\n    backend: 'redis' # no\n",
            "/d",
        )
        .unwrap_err();
        assert_eq!(
            (bad.code, bad.line),
            ("HIERA_NO_PROVIDER_FOR_BACKEND", Some(4))
        );
    }

    #[test]
    fn errors() {
        let e = HieraConfig::parse(
            "version: 5\nhierarchy:\n  - name: a\n    path: x\n    glob: y\n",
            "/d",
        )
        .unwrap_err();
        assert_eq!(e.code, "HIERA_MULTIPLE_LOCATION_SPECS");
        let e = HieraConfig::parse(
            "version: 5\nhierarchy:\n  - name: a\n    path: x\n  - name: a\n    path: y\n",
            "/d",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Hierarchy name 'a' defined more than once. First defined at (line: 3)"
        );
        assert_eq!(e.line, Some(5));
        // Puppet's search of the text: a comment and quotes, and a name found once only.
        let e = HieraConfig::parse(
            "version: 5\nhierarchy:\n  - name: \"a\" # name: a\n    path: x\n  - {name: a, path: y}\n",
            "/d",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "Hierarchy name 'a' defined more than once.");
        assert_eq!(e.line, Some(3));
        let e = HieraConfig::parse(
            "version: 5\ndefaults: {datadir: d}\nhierarchy:\n  - name: a\n    path: x\n",
            "/d",
        )
        .unwrap_err();
        assert_eq!(e.code, "HIERA_MISSING_DATA_PROVIDER_FUNCTION");
        assert_eq!(HieraConfig::parse("{}", "/d").unwrap().version, 3);
    }
}
