//! `metadata.json`: a module's forge name, version and dependencies.
//!
//! Only the fields the loader uses are read; everything else is ignored. A file that is not
//! JSON, or has fields of the wrong shape, gives a diagnostic and is treated as absent
//! (which means "sees every module", Puppet's behaviour for modules without metadata).
//! [`Metadata::puppet_refusal`] is Puppet's own check, which drops a module whose metadata
//! lacks a required key.

use crate::diagnostic::{codes, Diagnostic};
use serde::Serialize;
use std::path::Path;

/// One entry of `dependencies`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dependency {
    /// The forge name as written, `puppetlabs-stdlib` or `puppetlabs/stdlib`.
    pub name: String,
    /// The version requirement, `>= 0.0.0` when absent (as Puppet does).
    pub version_requirement: String,
}

impl Dependency {
    /// The module (directory) name this dependency refers to: the part after the author.
    pub fn module_name(&self) -> &str {
        module_part(&self.name)
    }
}

fn module_part(forge_name: &str) -> &str {
    forge_name
        .rsplit_once(['-', '/'])
        .map(|(_, m)| m)
        .unwrap_or(forge_name)
}

/// The keys of `metadata.json` the loader reads, as JSON (a key present with `null` is
/// `Some(Null)`, an absent key `None`).
#[derive(serde::Deserialize)]
struct Raw {
    #[serde(default, deserialize_with = "present")]
    name: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    version: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    dependencies: Option<serde_json::Value>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// The parts of `metadata.json` the loader uses.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Metadata {
    /// Forge name as written (`puppetlabs-apache`).
    pub name: Option<String>,
    pub version: Option<String>,
    /// `None` when there is no `dependencies` key: the module then sees every module.
    pub dependencies: Option<Vec<Dependency>>,
}

impl Metadata {
    /// Why Puppet 7 refuses the module `module` with this `metadata.json` text
    /// (`Puppet::Module#load_metadata`): a non-empty JSON object must have `source`,
    /// `author`, `version`, `license` and `dependencies` (in that order of checking), and
    /// `dependencies` must be an array. The message is the error Puppet logs; Puppet then
    /// leaves the module out of the environment. Text that is not a JSON object is read
    /// as empty, which Puppet accepts.
    ///
    /// ```
    /// use puppet_loader::Metadata;
    /// assert_eq!(
    ///     Metadata::puppet_refusal(r#"{"name": "me-m", "version": "1.0.0"}"#, "m").as_deref(),
    ///     Some("No source module metadata provided for m"),
    /// );
    /// let full = r#"{"source": "s", "author": "a", "version": "1", "license": "l"}"#;
    /// assert_eq!(
    ///     Metadata::puppet_refusal(full, "m").as_deref(),
    ///     Some("No dependencies module metadata provided for m"),
    /// );
    /// assert_eq!(Metadata::puppet_refusal("{}", "m"), None);
    /// assert_eq!(Metadata::puppet_refusal("not json", "m"), None);
    /// ```
    pub fn puppet_refusal(text: &str, module: &str) -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        let obj = value.as_object().filter(|o| !o.is_empty())?;
        for key in ["source", "author", "version", "license", "dependencies"] {
            match obj.get(key) {
                None | Some(serde_json::Value::Null) => {
                    return Some(format!("No {key} module metadata provided for {module}"))
                }
                Some(serde_json::Value::Array(_)) => {}
                Some(other) if key == "dependencies" => {
                    return Some(format!(
                        "The value for the key dependencies in the file metadata.json of the module {module} must be an array, not: '{}'",
                        ruby_to_s(other)
                    ))
                }
                Some(_) => {}
            }
        }
        None
    }

    /// The module part of the forge name (`apache` for `puppetlabs-apache`).
    pub fn module_name(&self) -> Option<&str> {
        self.name.as_deref().map(module_part)
    }

    /// Parses the text of a `metadata.json`; problems are reported against `file`.
    ///
    /// ```
    /// let (m, diags) = puppet_loader::Metadata::parse(
    ///     r#"{"name":"puppetlabs-apache","version":"1.0.0",
    ///        "dependencies":[{"name":"puppetlabs/stdlib","version_requirement":">= 4.0.0"}]}"#,
    ///     "metadata.json".as_ref());
    /// let m = m.unwrap();
    /// assert!(diags.is_empty());
    /// assert_eq!(m.module_name(), Some("apache"));
    /// assert_eq!(m.dependencies.unwrap()[0].module_name(), "stdlib");
    /// ```
    pub fn parse(text: &str, file: &Path) -> (Option<Metadata>, Vec<Diagnostic>) {
        let bad = |msg: String| {
            crate::diagnostic::error(codes::BAD_METADATA, msg, Some(file.to_path_buf()), None)
        };
        // Only the keys used are kept; the rest (descriptions, supported systems...) is
        // skipped without building values.
        let raw: Raw = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) if e.classify() == serde_json::error::Category::Data => {
                return (None, vec![bad("metadata.json is not a JSON object".into())]);
            }
            Err(e) => {
                return (
                    None,
                    vec![bad(format!("metadata.json is not valid JSON: {e}"))],
                )
            }
        };
        let mut obj = serde_json::Map::new();
        for (k, v) in [
            ("name", raw.name),
            ("version", raw.version),
            ("dependencies", raw.dependencies),
        ] {
            if let Some(v) = v {
                obj.insert(k.to_string(), v);
            }
        }
        let mut diags = Vec::new();
        let string = |key: &str, diags: &mut Vec<Diagnostic>| match obj.get(key) {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(_) => {
                diags.push(bad(format!("`{key}` in metadata.json must be a string")));
                None
            }
        };
        let name = string("name", &mut diags);
        let version = string("version", &mut diags);
        let dependencies = match obj.get("dependencies") {
            None => None,
            Some(serde_json::Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(|d| {
                        let name = d.get("name").and_then(|n| n.as_str());
                        if name.is_none() {
                            diags.push(bad("a dependency in metadata.json has no `name`".into()));
                        }
                        Some(Dependency {
                            name: name?.to_string(),
                            version_requirement: d
                                .get("version_requirement")
                                .and_then(|v| v.as_str())
                                .unwrap_or(">= 0.0.0")
                                .to_string(),
                        })
                    })
                    .collect(),
            ),
            Some(other) => {
                diags.push(bad(format!(
                    "the value for the key dependencies in metadata.json must be an array, not: '{other}'"
                )));
                None
            }
        };
        (
            Some(Metadata {
                name,
                version,
                dependencies,
            }),
            diags,
        )
    }
}

/// What Ruby's `"#{value}"` prints for a parsed JSON value (Ruby 3.1: strings as they
/// are, hashes and arrays inspected).
fn ruby_to_s(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => ruby_inspect(other),
    }
}

fn ruby_inspect(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => "nil".into(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e16 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        // Ruby's String#inspect for the common case (JSON's escapes are a superset).
        J::String(s) => serde_json::to_string(s).unwrap_or_default(),
        J::Array(a) => format!(
            "[{}]",
            a.iter().map(ruby_inspect).collect::<Vec<_>>().join(", ")
        ),
        J::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!(
                    "{}=>{}",
                    ruby_inspect(&J::String(k.clone())),
                    ruby_inspect(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
