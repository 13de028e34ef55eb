//! The data model: what the compiler needs to know about one resource type
//! ([`ResourceTypeInfo`]), its attributes ([`Attribute`]), its title patterns
//! ([`TitlePattern`]), where the knowledge came from ([`TypeSource`]) and the
//! diagnostics produced when a type file cannot be read ([`Diagnostic`]).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use smol_str::SmolStr;

/// Puppet 7.23's metaparameters, in Puppet's own order
/// (`Puppet::Type.metaparams`).
///
/// `export` and `consume` (application orchestration) were removed in Puppet 6:
/// Puppet 7 rejects them with "no parameter named 'export'", so they are not here.
pub const METAPARAMETERS: &[&str] = &[
    "noop",
    "schedule",
    "audit",
    "loglevel",
    "alias",
    "tag",
    "require",
    "subscribe",
    "before",
    "notify",
    "stage",
];

/// Whether `name` is one of Puppet's [`METAPARAMETERS`].
///
/// ```
/// assert!(puppet_restypes::is_metaparameter("require"));
/// assert!(!puppet_restypes::is_metaparameter("export"));
/// ```
pub fn is_metaparameter(name: &str) -> bool {
    METAPARAMETERS.contains(&name)
}

/// Whether an attribute is a plain parameter or a property (a managed state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AttrKind {
    /// `newparam`: configures how the resource is managed.
    Parameter,
    /// `newproperty` (and `ensurable`): a state Puppet manages.
    Property,
}

/// One parameter or property of a resource type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attribute {
    /// The attribute's name (`path`, `ensure`, ...).
    pub name: SmolStr,
    /// Parameter or property.
    pub kind: AttrKind,
    /// Whether it is a key attribute (a namevar: marked so, or named `name`).
    pub is_namevar: bool,
    /// The allowed values when they are a simple list (`newvalues(:a, :b)`
    /// without any regex); `None` when any value is accepted, or when the
    /// values are not a simple literal list.
    pub values: Option<Vec<SmolStr>>,
}

impl Attribute {
    /// A parameter or property with no value restriction.
    pub fn new(name: &str, kind: AttrKind) -> Self {
        Attribute {
            name: SmolStr::new(name),
            kind,
            is_namevar: false,
            values: None,
        }
    }
}

/// One of a type's `self.title_patterns`: a (Ruby) regular expression and, for
/// each capture group in order, the key attribute it sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitlePattern {
    /// The regex source, as Ruby's `Regexp#source` gives it.
    pub regex: SmolStr,
    /// Ruby's `m` option (`.` also matches a newline).
    pub multiline: bool,
    /// Ruby's `i` option.
    pub ignore_case: bool,
    /// Ruby's `x` option (extended: whitespace and comments ignored).
    pub extended: bool,
    /// Capture group `i + 1` sets the attribute `captures[i]`.
    pub captures: Vec<SmolStr>,
}

impl TitlePattern {
    /// Puppet's default pattern for a type with one key attribute: `/(.*)/m`.
    pub fn default_for(namevar: &str) -> Self {
        TitlePattern {
            regex: SmolStr::new("(.*)"),
            multiline: true,
            ignore_case: false,
            extended: false,
            captures: vec![SmolStr::new(namevar)],
        }
    }
}

/// Where a type's description came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TypeSource {
    /// Built into Puppet 7.23 (`lib/puppet/type/*.rb`).
    Core,
    /// A core module vendored in puppet-agent 7.23 (cron_core, host_core, ...).
    Vendored {
        /// The module that provides it (`cron_core`).
        module: SmolStr,
    },
    /// Read by running a module's `lib/puppet/type/<name>.rb`.
    RubySource {
        /// The module name.
        module: SmolStr,
        /// The file it was read from.
        path: String,
    },
    /// Read from `puppet generate types` output (`.resource_types/<name>.pp`).
    Generated {
        /// The module or environment name given by the caller.
        module: SmolStr,
        /// The file it was read from.
        path: String,
    },
}

/// Everything the catalog compiler needs to know about one resource type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTypeInfo {
    /// The type name, lower case (`file`, `ini_setting`).
    pub name: SmolStr,
    /// Parameters and properties (not metaparameters), in declaration order.
    pub attributes: IndexMap<SmolStr, Attribute, rustc_hash::FxBuildHasher>,
    /// The key attributes (namevars) in Puppet's order (the parameter
    /// declaration order): several for a composite key (`package`: name,
    /// provider, command).
    pub namevars: Vec<SmolStr>,
    /// The title patterns, tried in order; the first that matches sets the
    /// key attributes from the title.
    pub title_patterns: Vec<TitlePattern>,
    /// Whether the type is isomorphic (uniqueness by namevar, not title).
    pub isomorphic: bool,
    /// Provider features the type declares (`feature :x, ...`) or that its
    /// attributes require.
    pub features: Vec<SmolStr>,
    /// Types this type autorequires (`autorequire(:file)`).
    pub autorequires: Vec<SmolStr>,
    /// Types this type autobefores.
    pub autobefores: Vec<SmolStr>,
    /// Types this type autosubscribes.
    pub autosubscribes: Vec<SmolStr>,
    /// Types this type autonotifies.
    pub autonotifies: Vec<SmolStr>,
    /// Where the description came from.
    pub source: TypeSource,
    /// `false` when its attribute list may miss some (a description made by
    /// hand for a type that could not be read), so
    /// [`TypeDatabase::check_parameter`](crate::TypeDatabase::check_parameter)
    /// does not reject unknown names for it. Types read from Ruby are complete.
    pub complete: bool,
}

impl ResourceTypeInfo {
    /// An empty description of type `name` (no attributes yet).
    pub fn new(name: &str, source: TypeSource) -> Self {
        ResourceTypeInfo {
            name: SmolStr::new(name.to_ascii_lowercase()),
            attributes: Default::default(),
            namevars: Vec::new(),
            title_patterns: Vec::new(),
            isomorphic: true,
            features: Vec::new(),
            autorequires: Vec::new(),
            autobefores: Vec::new(),
            autosubscribes: Vec::new(),
            autonotifies: Vec::new(),
            source,
            complete: true,
        }
    }

    /// The parameter names (not properties), in Puppet's `parameters` order.
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// let exec = db.get("exec").unwrap();
    /// assert_eq!(exec.parameters().next(), Some("command"));
    /// ```
    pub fn parameters(&self) -> impl Iterator<Item = &str> + '_ {
        self.attributes
            .values()
            .filter(|a| a.kind == AttrKind::Parameter)
            .map(|a| a.name.as_str())
    }

    /// The property names, in Puppet's `properties` order (`ensure` first).
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// let props: Vec<_> = db.get("notify").unwrap().properties().collect();
    /// assert_eq!(props, ["message"]);
    /// ```
    pub fn properties(&self) -> impl Iterator<Item = &str> + '_ {
        let ensure = self
            .attributes
            .get("ensure")
            .filter(|a| a.kind == AttrKind::Property)
            .map(|a| a.name.as_str());
        ensure.into_iter().chain(
            self.attributes
                .values()
                .filter(|a| a.kind == AttrKind::Property && a.name != "ensure")
                .map(|a| a.name.as_str()),
        )
    }

    /// Whether the type has an `ensure` property.
    pub fn has_ensure(&self) -> bool {
        self.attributes
            .get("ensure")
            .is_some_and(|a| a.kind == AttrKind::Property)
    }

    /// Whether `name` is a parameter or property of this type (not counting
    /// metaparameters nor Puppet's always-accepted `name`).
    pub fn has_attribute(&self, name: &str) -> bool {
        self.attributes.contains_key(name)
    }

    /// Whether Puppet accepts `name` as an attribute of a resource of this
    /// type: a parameter, a property, a metaparameter, or `name` (which Puppet
    /// always accepts; it stands for the namevar when that is not `name`).
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// let file = db.get("file").unwrap();
    /// assert!(file.accepts("mode") && file.accepts("name") && file.accepts("before"));
    /// assert!(!file.accepts("bogus") && !file.accepts("title"));
    /// ```
    pub fn accepts(&self, name: &str) -> bool {
        name == "name" || self.has_attribute(name) || is_metaparameter(name)
    }

    /// The sole namevar when the type has exactly one key attribute.
    pub fn single_namevar(&self) -> Option<&str> {
        match self.namevars.as_slice() {
            [one] => Some(one.as_str()),
            _ => None,
        }
    }

    /// The attribute name Puppet stores `param` under: `name` is an alias of
    /// the namevar when the type has a single key attribute other than `name`
    /// (`file { x: name => '/tmp/b' }` sets `path`).
    ///
    /// ```
    /// let db = puppet_restypes::TypeDatabase::core();
    /// assert_eq!(db.get("file").unwrap().canonical_parameter("name"), "path");
    /// assert_eq!(db.get("file").unwrap().canonical_parameter("mode"), "mode");
    /// ```
    pub fn canonical_parameter<'a>(&'a self, param: &'a str) -> &'a str {
        if param == "name" {
            if let Some(nv) = self.single_namevar() {
                return nv;
            }
        }
        param
    }

    /// Recomputes [`namevars`](Self::namevars) from the attributes as Puppet
    /// does: every parameter marked namevar or named `name`, in order.
    pub fn recompute_namevars(&mut self) {
        self.namevars = self
            .attributes
            .values()
            .filter(|a| a.kind == AttrKind::Parameter && (a.is_namevar || a.name == "name"))
            .map(|a| a.name.clone())
            .collect();
        for nv in self.namevars.clone() {
            if let Some(a) = self.attributes.get_mut(&nv) {
                a.is_namevar = true;
            }
        }
    }
}

/// How much a [`Diagnostic`] matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Severity {
    /// The type could not be read: it is not described.
    Error,
    /// The type is described, but its description leaves something out (a
    /// title value transformation).
    Warning,
}

/// Why a type file could not be read (fully).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct Diagnostic {
    /// Error (type not read) or warning (something left out).
    pub severity: Severity,
    /// A stable code: puppet-ruby's (`RUBY_UNSUPPORTED`, `RUBY_RUNTIME`,
    /// `RUBY_SYNTAX`) or this crate's (`RESTYPE_...`).
    pub code: SmolStr,
    /// The file read.
    pub path: String,
    /// 1-based line of the construct (0 when not tied to a line).
    pub line: u32,
    /// What could not be understood, naming the construct.
    pub message: String,
}
