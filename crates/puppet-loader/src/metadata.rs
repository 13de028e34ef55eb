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

/// The keys of `metadata.json` that the loader and Puppet's refusal check read, as JSON (a
/// key present with `null` is `Some(Null)`, an absent key `None`), read in one pass: the
/// other keys (descriptions, supported systems...) are skipped without building values.
#[derive(Default)]
struct Raw {
    /// How many keys the object has (Puppet accepts an empty object).
    keys: usize,
    name: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    dependencies: Option<serde_json::Value>,
    source: Option<serde_json::Value>,
    author: Option<serde_json::Value>,
    license: Option<serde_json::Value>,
}

#[derive(serde::Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Name,
    Version,
    Dependencies,
    Source,
    Author,
    License,
    #[serde(other)]
    Other,
}

impl<'de> serde::Deserialize<'de> for Raw {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Raw, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Raw;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
                let mut raw = Raw::default();
                while let Some(key) = map.next_key::<Key>()? {
                    raw.keys += 1;
                    // A repeated key: the last one wins, as in Ruby's JSON.
                    let slot = match key {
                        Key::Name => &mut raw.name,
                        Key::Version => &mut raw.version,
                        Key::Dependencies => &mut raw.dependencies,
                        Key::Source => &mut raw.source,
                        Key::Author => &mut raw.author,
                        Key::License => &mut raw.license,
                        Key::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value()?);
                }
                Ok(raw)
            }
        }
        d.deserialize_map(Visit)
    }
}

impl Raw {
    /// Puppet's refusal (see [`Metadata::puppet_refusal`]).
    fn refusal(&self, module: &str) -> Option<String> {
        if self.keys == 0 {
            return None;
        }
        for (key, value) in [
            ("source", &self.source),
            ("author", &self.author),
            ("version", &self.version),
            ("license", &self.license),
            ("dependencies", &self.dependencies),
        ] {
            match value {
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
        serde_json::from_str::<Raw>(text).ok()?.refusal(module)
    }

    /// Reads a module's `metadata.json` in one pass: `Err` with Puppet's message when
    /// Puppet refuses the module ([`puppet_refusal`](Self::puppet_refusal)), else what
    /// [`parse`](Self::parse) gives.
    ///
    /// ```
    /// use puppet_loader::Metadata;
    /// let path = std::path::Path::new("m/metadata.json");
    /// assert!(Metadata::read(r#"{"name": "me-m"}"#, path, "m").is_err());
    /// let (m, diags) = Metadata::read("{}", path, "m").unwrap();
    /// assert!(diags.is_empty() && m.unwrap().name.is_none());
    /// ```
    pub fn read(
        text: &str,
        file: &Path,
        module: &str,
    ) -> Result<(Option<Metadata>, Vec<Diagnostic>), String> {
        match serde_json::from_str::<Raw>(text) {
            Ok(raw) => match raw.refusal(module) {
                Some(refusal) => Err(refusal),
                None => Ok(Metadata::from_raw(raw, file)),
            },
            Err(e) => Ok((None, vec![Metadata::invalid(&e, file)])),
        }
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
        match serde_json::from_str::<Raw>(text) {
            Ok(raw) => Metadata::from_raw(raw, file),
            Err(e) => (None, vec![Metadata::invalid(&e, file)]),
        }
    }

    /// The diagnostic for text that is not a JSON object.
    fn invalid(e: &serde_json::Error, file: &Path) -> Diagnostic {
        let msg = if e.classify() == serde_json::error::Category::Data {
            "metadata.json is not a JSON object".to_string()
        } else {
            format!("metadata.json is not valid JSON: {e}")
        };
        crate::diagnostic::error(codes::BAD_METADATA, msg, Some(file.to_path_buf()), None)
    }

    fn from_raw(raw: Raw, file: &Path) -> (Option<Metadata>, Vec<Diagnostic>) {
        let bad = |msg: String| {
            crate::diagnostic::error(codes::BAD_METADATA, msg, Some(file.to_path_buf()), None)
        };
        let mut diags = Vec::new();
        let string = |key: &str, v: Option<serde_json::Value>, diags: &mut Vec<Diagnostic>| match v
        {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s),
            Some(_) => {
                diags.push(bad(format!("`{key}` in metadata.json must be a string")));
                None
            }
        };
        let name = string("name", raw.name, &mut diags);
        let version = string("version", raw.version, &mut diags);
        let dependencies = match &raw.dependencies {
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
