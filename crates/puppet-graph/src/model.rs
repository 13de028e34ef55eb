//! The catalog model: resources, containment edges, classes and explicit relationships,
//! read from and written to Puppet's catalog JSON (`Puppet::Resource::Catalog#to_data_hash`,
//! what `puppet catalog compile --render-as json` prints).
//!
//! This module only holds data and does the JSON round trip; it resolves nothing. Keys it
//! does not know (`metadata`, `sensitive_parameters`, ...) are kept and written back, so a
//! catalog read and written again keeps Puppet's content. Building the graph is
//! [`crate::GraphBuilder`]'s job.

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use smol_str::SmolStr;

use crate::error::Error;
use crate::reference;

/// A compiled catalog, in the shape of Puppet's catalog JSON.
///
/// ```
/// use puppet_graph::Catalog;
/// let cat = Catalog::from_json(r#"{
///   "name": "node", "resources": [{"type": "Notify", "title": "a", "line": 3}],
///   "edges": [], "classes": []}"#).unwrap();
/// assert_eq!(cat.resources[0].reference(), "Notify[a]");
/// let again = Catalog::from_json(&cat.to_json()).unwrap();
/// assert_eq!(again, cat);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Catalog {
    /// Catalog tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The node name.
    #[serde(default)]
    pub name: String,
    /// `version` (a number or a string in Puppet's output).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub version: Option<Value>,
    /// `code_id`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub code_id: Option<Value>,
    /// `catalog_uuid`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub catalog_uuid: Option<Value>,
    /// `catalog_format`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub catalog_format: Option<Value>,
    /// The environment name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// Resources in catalog (insertion) order: this order is what breaks ties in the
    /// apply order.
    #[serde(default)]
    pub resources: Vec<Resource>,
    /// Containment edges (`Class[main] -> Notify[a]`), in catalog order.
    #[serde(default)]
    pub edges: Vec<ContainmentEdge>,
    /// Declared classes.
    #[serde(default)]
    pub classes: Vec<String>,
    /// Relationships whose origin the compiler recorded (chaining arrows, the `require`
    /// function). Not part of Puppet's format (Puppet folds arrows into `before`/`notify`
    /// parameters); Puppet ignores the key, so such a catalog still loads there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relationships: Vec<Relationship>,
    /// Every other top-level key, kept in order.
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// One resource of a catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Resource {
    /// The type as written in the catalog (`Notify`, `Class`, `Apache::Vhost`).
    #[serde(rename = "type")]
    pub type_name: SmolStr,
    /// The title (`main`, `/etc/motd`).
    #[serde(deserialize_with = "string_or_number")]
    pub title: SmolStr,
    /// Tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<SmolStr>,
    /// The manifest that declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line of the declaration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Exported (`@@`) resources stay in the catalog but never reach the graph.
    #[serde(default)]
    pub exported: bool,
    /// Puppet's `kind` (`compilable_type`, `defined_type`, `unknown` for classes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<SmolStr>,
    /// Parameters, relationship metaparameters included, in catalog order.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub parameters: Parameters,
    /// Every other key (`sensitive_parameters`, `ext_parameters`, ...).
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// The parameters of a [`Resource`], in catalog order (an `IndexMap`: the hasher only
/// speeds up lookups, it never decides an order). Keyed with FxHash, not the standard
/// SipHash: a compiler fills one such map per resource, and hashing the short names with
/// SipHash was a large part of that. Make one with `Parameters::default()` or `collect()`.
pub type Parameters = IndexMap<SmolStr, Value, rustc_hash::FxBuildHasher>;

/// A containment edge: `source` contains `target`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContainmentEdge {
    /// The container (`Class[main]`).
    pub source: SmolStr,
    /// The contained resource.
    pub target: SmolStr,
    /// Other keys (`event`, `callback` if present).
    #[serde(flatten)]
    pub extra: IndexMap<String, Value>,
}

/// The four relationship metaparameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelationKind {
    /// `before`: the holder is applied before the target.
    Before,
    /// `require`: the target is applied before the holder.
    Require,
    /// `notify`: `before`, and the target is refreshed when the holder changes.
    Notify,
    /// `subscribe`: `require`, and the holder is refreshed when the target changes.
    Subscribe,
}

impl RelationKind {
    /// The parameter name.
    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::Before => "before",
            RelationKind::Require => "require",
            RelationKind::Notify => "notify",
            RelationKind::Subscribe => "subscribe",
        }
    }

    /// The relationship metaparameter `name` denotes, if any (the inverse of
    /// [`RelationKind::as_str`]).
    ///
    /// ```
    /// use puppet_graph::RelationKind;
    /// assert_eq!(RelationKind::from_param("notify"), Some(RelationKind::Notify));
    /// assert_eq!(RelationKind::from_param("tag"), None);
    /// assert_eq!(RelationKind::from_param("Notify"), None);
    /// assert_eq!(RelationKind::from_param("notifys"), None);
    /// assert!(RelationKind::PUPPET_ORDER.iter().all(|k| RelationKind::from_param(k.as_str()) == Some(*k)));
    /// ```
    pub fn from_param(name: &str) -> Option<RelationKind> {
        // A match (on the length first), not a scan of the table: this runs for every
        // parameter of every resource. The doc test checks it against `as_str`.
        match name {
            "before" => Some(RelationKind::Before),
            "require" => Some(RelationKind::Require),
            "notify" => Some(RelationKind::Notify),
            "subscribe" => Some(RelationKind::Subscribe),
            _ => None,
        }
    }

    /// The four kinds, in the order Puppet turns them into edges.
    pub const PUPPET_ORDER: [RelationKind; 4] = [
        RelationKind::Require,
        RelationKind::Subscribe,
        RelationKind::Before,
        RelationKind::Notify,
    ];

    /// Whether the edge carries refresh events.
    pub fn refreshes(self) -> bool {
        matches!(self, RelationKind::Notify | RelationKind::Subscribe)
    }

    /// Whether the holder of the parameter is the edge's target (`require`, `subscribe`).
    pub(crate) fn incoming(self) -> bool {
        matches!(self, RelationKind::Require | RelationKind::Subscribe)
    }
}

/// Where a relationship came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationOrigin {
    /// A `before`/`require`/`notify`/`subscribe` metaparameter (also what Puppet's own
    /// catalogs record for arrows and the `require` function).
    Metaparameter,
    /// A chaining arrow (`->`, `~>`, `<-`, `<~`).
    Arrow,
    /// The `require` function.
    RequireFunction,
}

/// A relationship recorded with its origin (the `relationships` extension of the JSON).
///
/// ```
/// use puppet_graph::{Relationship, RelationKind, RelationOrigin};
/// let r: Relationship = serde_json::from_str(
///     r#"{"source":"Notify[a]","target":"Notify[b]","kind":"before","origin":"arrow","line":4}"#).unwrap();
/// assert_eq!((r.kind, r.origin), (RelationKind::Before, RelationOrigin::Arrow));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relationship {
    /// Source reference (applied first).
    pub source: String,
    /// Target reference.
    pub target: String,
    /// Which metaparameter the relationship is equivalent to, seen from the source
    /// (`before` or `notify`; `require`/`subscribe` are accepted and mean the reverse).
    pub kind: RelationKind,
    /// Where it came from.
    #[serde(default = "default_origin")]
    pub origin: RelationOrigin,
    /// Manifest of the arrow or call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Line of the arrow or call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

fn default_origin() -> RelationOrigin {
    RelationOrigin::Arrow
}

/// A key that is present (even `null`) is `Some`, so `null` survives a round trip.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn string_or_number<'de, D: Deserializer<'de>>(d: D) -> Result<SmolStr, D::Error> {
    let v = Value::deserialize(d)?;
    match v {
        Value::String(s) => Ok(s.into()),
        Value::Number(n) => Ok(n.to_string().into()),
        Value::Bool(b) => Ok(b.to_string().into()),
        other => Err(serde::de::Error::custom(format!(
            "resource title must be a string, got {other}"
        ))),
    }
}

impl Catalog {
    /// Reads Puppet's catalog JSON. Malformed input is an [`Error::Json`], never a panic.
    pub fn from_json(text: &str) -> Result<Catalog, Error> {
        serde_json::from_str(text).map_err(|e| Error::Json {
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })
    }

    /// Converts an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Catalog, Error> {
        serde_json::from_value(value).map_err(|e| Error::Json {
            message: e.to_string(),
            line: 0,
            column: 0,
        })
    }

    /// Writes the catalog as Puppet's catalog JSON (one line).
    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Writes the catalog as indented JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The index of the resource named by `reference` (`Notify[a]`, `Class[foo]`,
    /// `File[/tmp/]`), using Puppet's matching rules (class titles ignore case, file
    /// paths are normalised).
    pub fn find(&self, reference: &str) -> Option<usize> {
        let (ty, title) = reference::parse_ref(reference)?;
        let key = reference::lookup_key(ty, title);
        self.resources
            .iter()
            .position(|r| reference::lookup_key(&r.type_name, &r.title) == key)
    }
}

impl Resource {
    /// A resource of `type_name` titled `title`, with nothing else set.
    pub fn new(type_name: impl Into<SmolStr>, title: impl Into<SmolStr>) -> Resource {
        Resource {
            type_name: type_name.into(),
            title: title.into(),
            ..Resource::default()
        }
    }

    /// The reference as the Puppet agent prints it (`Notify[a]`, `Class[Main]`).
    pub fn reference(&self) -> String {
        reference::display_ref(&self.type_name, &self.title)
    }

    /// `file:line` of the declaration, when known.
    pub fn location(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
            (Some(f), None) => Some(f.clone()),
            (None, Some(l)) => Some(format!("line {l}")),
            (None, None) => None,
        }
    }

    /// A parameter, if set. Resources carry few parameters, so a scan of the keys beats
    /// hashing the name.
    #[inline]
    pub(crate) fn param(&self, name: &str) -> Option<&Value> {
        if self.parameters.len() <= 12 {
            self.parameters
                .iter()
                .find(|(k, _)| k.as_str() == name)
                .map(|(_, v)| v)
        } else {
            self.parameters.get(name)
        }
    }

    /// A parameter as a string, if it is one.
    pub(crate) fn param_str(&self, name: &str) -> Option<&str> {
        self.param(name).and_then(Value::as_str)
    }

    /// The lower-cased type name without a leading `::`.
    pub(crate) fn type_key(&self) -> String {
        self.type_name
            .strip_prefix("::")
            .unwrap_or(&self.type_name)
            .to_ascii_lowercase()
    }
}
