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

/// The keys of `metadata.json` that the loader and Puppet's refusal check read (an absent key
/// `None`), read in one pass: the other keys (descriptions, supported systems...) are skipped
/// without building values, and of these only what is used is kept (no JSON tree).
#[derive(Default)]
struct Raw {
    /// How many keys the object has (Puppet accepts an empty object).
    keys: usize,
    name: Option<Text>,
    version: Option<Text>,
    dependencies: Option<Deps>,
    source: Option<Presence>,
    author: Option<Presence>,
    license: Option<Presence>,
}

/// A value of which only whether it is `null` matters.
#[derive(Debug, PartialEq)]
enum Presence {
    Null,
    Present,
}

/// A value that should be a string.
#[derive(Debug, PartialEq)]
enum Text {
    Null,
    Str(String),
    Other,
}

/// The value of `dependencies`.
#[derive(Debug, PartialEq)]
enum Deps {
    Null,
    Array(Vec<RawDependency>),
    /// Not an array: kept whole, Puppet's refusal prints it.
    Other(serde_json::Value),
}

/// An entry of `dependencies`: its `name` and `version_requirement` when they are strings
/// (the last of a key given twice, as in Ruby's JSON), whatever the entry is.
#[derive(Debug, PartialEq, Default)]
struct RawDependency {
    name: Option<String>,
    version_requirement: Option<String>,
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

type Ignored = serde::de::IgnoredAny;

/// Consumes the rest of a sequence.
fn drain_seq<'de, A: serde::de::SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Ignored>()?.is_some() {}
    Ok(())
}

/// Consumes the rest of a map.
fn drain_map<'de, A: serde::de::MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Ignored, Ignored>()?.is_some() {}
    Ok(())
}

/// A visitor answering `null`, a string, or anything else (consumed), for the value kinds
/// below.
macro_rules! kinds_visitor {
    ($name:ident, $out:ty, null => $null:expr, str($s:ident) => $str:expr, other => $other:expr) => {
        struct $name;
        impl<'de> serde::de::Visitor<'de> for $name {
            type Value = $out;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<$out, E> {
                Ok($null)
            }
            fn visit_str<E: serde::de::Error>(self, $s: &str) -> Result<$out, E> {
                Ok($str)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<$out, E> {
                Ok($other)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<$out, E> {
                Ok($other)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<$out, E> {
                Ok($other)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<$out, E> {
                Ok($other)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<$out, A::Error> {
                drain_seq(seq)?;
                Ok($other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<$out, A::Error> {
                drain_map(map)?;
                Ok($other)
            }
        }
    };
}

kinds_visitor!(PresenceVisitor, Presence, null => Presence::Null, str(_s) => Presence::Present, other => Presence::Present);
kinds_visitor!(TextVisitor, Text, null => Text::Null, str(s) => Text::Str(s.to_string()), other => Text::Other);
kinds_visitor!(StringVisitor, Option<String>, null => None, str(s) => Some(s.to_string()), other => None);

impl<'de> serde::Deserialize<'de> for Presence {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Presence, D::Error> {
        d.deserialize_any(PresenceVisitor)
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        d.deserialize_any(TextVisitor)
    }
}

/// A string, or `None` for any other value (consumed).
struct MaybeString(Option<String>);

impl<'de> serde::Deserialize<'de> for MaybeString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MaybeString, D::Error> {
        d.deserialize_any(StringVisitor).map(MaybeString)
    }
}

impl<'de> serde::Deserialize<'de> for RawDependency {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RawDependency, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RawDependency;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawDependency, A::Error> {
                let mut dep = RawDependency::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "name" => dep.name = map.next_value::<MaybeString>()?.0,
                        "version_requirement" => {
                            dep.version_requirement = map.next_value::<MaybeString>()?.0
                        }
                        _ => {
                            map.next_value::<Ignored>()?;
                        }
                    }
                }
                Ok(dep)
            }
            // Any other entry has neither.
            fn visit_unit<E: serde::de::Error>(self) -> Result<RawDependency, E> {
                Ok(RawDependency::default())
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<RawDependency, E> {
                Ok(RawDependency::default())
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<RawDependency, E> {
                Ok(RawDependency::default())
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<RawDependency, E> {
                Ok(RawDependency::default())
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<RawDependency, E> {
                Ok(RawDependency::default())
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<RawDependency, E> {
                Ok(RawDependency::default())
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<RawDependency, A::Error> {
                drain_seq(seq)?;
                Ok(RawDependency::default())
            }
        }
        d.deserialize_any(Visit)
    }
}

impl<'de> serde::Deserialize<'de> for Deps {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Deps, D::Error> {
        use serde_json::Value as J;
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Deps;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Deps, E> {
                Ok(Deps::Null)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Deps, A::Error> {
                let mut deps = Vec::new();
                while let Some(d) = seq.next_element::<RawDependency>()? {
                    deps.push(d);
                }
                Ok(Deps::Array(deps))
            }
            // Anything else is kept as serde_json reads it.
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Deps, E> {
                Ok(Deps::Other(J::String(s.to_string())))
            }
            fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Deps, E> {
                Ok(Deps::Other(J::Bool(b)))
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Deps, E> {
                Ok(Deps::Other(J::from(i)))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Deps, E> {
                Ok(Deps::Other(J::from(u)))
            }
            fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Deps, E> {
                Ok(Deps::Other(J::from(f)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Deps, A::Error> {
                use serde::Deserialize;
                J::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Deps::Other)
            }
        }
        d.deserialize_any(Visit)
    }
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
                    match key {
                        Key::Name => raw.name = Some(map.next_value()?),
                        Key::Version => raw.version = Some(map.next_value()?),
                        Key::Dependencies => raw.dependencies = Some(map.next_value()?),
                        Key::Source => raw.source = Some(map.next_value()?),
                        Key::Author => raw.author = Some(map.next_value()?),
                        Key::License => raw.license = Some(map.next_value()?),
                        Key::Other => {
                            map.next_value::<Ignored>()?;
                        }
                    }
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
        let presence = |p: &Option<Presence>| matches!(p, Some(Presence::Present));
        for (key, present) in [
            ("source", presence(&self.source)),
            ("author", presence(&self.author)),
            (
                "version",
                matches!(self.version, Some(Text::Str(_) | Text::Other)),
            ),
            ("license", presence(&self.license)),
            (
                "dependencies",
                matches!(self.dependencies, Some(Deps::Array(_) | Deps::Other(_))),
            ),
        ] {
            if !present {
                return Some(format!("No {key} module metadata provided for {module}"));
            }
        }
        if let Some(Deps::Other(other)) = &self.dependencies {
            return Some(format!(
                "The value for the key dependencies in the file metadata.json of the module {module} must be an array, not: '{}'",
                ruby_to_s(other)
            ));
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
        let string = |key: &str, v: Option<Text>, diags: &mut Vec<Diagnostic>| match v {
            None | Some(Text::Null) => None,
            Some(Text::Str(s)) => Some(s),
            Some(Text::Other) => {
                diags.push(bad(format!("`{key}` in metadata.json must be a string")));
                None
            }
        };
        let name = string("name", raw.name, &mut diags);
        let version = string("version", raw.version, &mut diags);
        let dependencies = match raw.dependencies {
            None => None,
            Some(Deps::Array(items)) => Some(
                items
                    .into_iter()
                    .filter_map(|d| {
                        if d.name.is_none() {
                            diags.push(bad("a dependency in metadata.json has no `name`".into()));
                        }
                        Some(Dependency {
                            name: d.name?,
                            version_requirement: d
                                .version_requirement
                                .unwrap_or_else(|| ">= 0.0.0".to_string()),
                        })
                    })
                    .collect(),
            ),
            Some(other) => {
                let other = match other {
                    Deps::Other(v) => v,
                    _ => serde_json::Value::Null,
                };
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value as J;

    /// What `Metadata::read` answered when every key it reads was first made a JSON value:
    /// the reference the typed reading is checked against.
    fn through_json_values(
        text: &str,
        module: &str,
    ) -> Result<(Option<Metadata>, Vec<Diagnostic>), String> {
        let file = Path::new("m/metadata.json");
        let doc: J = match serde_json::from_str(text) {
            Ok(J::Object(o)) => J::Object(o),
            Ok(_) | Err(_) => return Ok(Metadata::parse(text, file)),
        };
        let get = |k: &str| doc.get(k);
        if doc.as_object().is_some_and(|o| !o.is_empty()) {
            for key in ["source", "author", "version", "license", "dependencies"] {
                match get(key) {
                    None | Some(J::Null) => {
                        return Err(format!("No {key} module metadata provided for {module}"))
                    }
                    Some(J::Array(_)) => {}
                    Some(other) if key == "dependencies" => return Err(format!(
                        "The value for the key dependencies in the file metadata.json of the module {module} must be an array, not: '{}'",
                        ruby_to_s(other)
                    )),
                    Some(_) => {}
                }
            }
        }
        let mut diags = Vec::new();
        let bad = |msg: String| {
            crate::diagnostic::error(codes::BAD_METADATA, msg, Some(file.to_path_buf()), None)
        };
        let mut string = |key: &str| match get(key) {
            None | Some(J::Null) => None,
            Some(J::String(s)) => Some(s.clone()),
            Some(_) => {
                diags.push(bad(format!("`{key}` in metadata.json must be a string")));
                None
            }
        };
        let name = string("name");
        let version = string("version");
        let dependencies = match get("dependencies") {
            None => None,
            Some(J::Array(items)) => Some(
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
        Ok((
            Some(Metadata {
                name,
                version,
                dependencies,
            }),
            diags,
        ))
    }

    const FULL: &str = r#""source": "s", "author": ["a"], "license": {"x": 1}, "version": "1.0""#;

    #[test]
    fn typed_reading_agrees_with_json_values() {
        let mut texts: Vec<String> = [
            "{}",
            "[]",
            "3",
            "{",
            r#"{"name": "me-m"}"#,
            r#"{"source": null, "author": "a"}"#,
            r#"{"version": 3, "name": ["x"], "dependencies": []}"#,
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        for deps in [
            r#"[]"#,
            r#"[{"name": "a-b", "version_requirement": ">= 1.0.0"}, {"name": "c/d"}]"#,
            r#"[{"name": 3}, "x", null, [1], {"version_requirement": "1"}, {"name": "a", "name": "b"}]"#,
            r#"[{"name": "a", "name": 3}, {"name": "e", "version_requirement": 2, "x": {"y": [1]}}]"#,
            r#"null"#,
            r#""a string""#,
            r#"{"name": "a", "b": [1, 2.5, -3, true, null]}"#,
            r#"12345678901234567890"#,
            r#"-1.5e3"#,
            r#"false"#,
        ] {
            texts.push(format!(r#"{{{FULL}, "dependencies": {deps}}}"#));
            texts.push(format!(
                r#"{{"dependencies": {deps}, "name": "x-y", {FULL}, "name": null}}"#
            ));
        }
        texts.push(format!(
            r#"{{{FULL}, "dependencies": [], "version": null}}"#
        ));
        texts.push(format!(
            r#"{{{FULL}, "dependencies": [], "license": null}}"#
        ));
        texts.push(format!(
            r#"{{{FULL}, "dependencies": [], "source": [null]}}"#
        ));
        texts.push(format!(
            r#"{{{FULL}, "dependencies": [], "version": {{"a": 1}}}}"#
        ));
        // The corpus, where it is installed.
        if let Ok(dirs) = std::fs::read_dir("/usr/share/puppet/modules") {
            for d in dirs.flatten() {
                if let Ok(t) = std::fs::read_to_string(d.path().join("metadata.json")) {
                    texts.push(t);
                }
            }
        }
        for text in &texts {
            let file = Path::new("m/metadata.json");
            assert_eq!(
                Metadata::read(text, file, "m"),
                through_json_values(text, "m"),
                "{text}"
            );
        }
    }
}
