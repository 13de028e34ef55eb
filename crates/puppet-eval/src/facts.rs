//! Facts files as the tools people already have write them, read into [`NodeFacts`].
//!
//! Accepted shapes, in JSON or YAML:
//! * a plain hash of facts (`puppet facts show`, `facter --json`);
//! * `{"name": CERTNAME, "values": {...}}` (`puppet facts find`, and the YAML of
//!   `puppet facts --render-as yaml`, whose Ruby object tag is ignored);
//! * a PuppetDB factset, `{"certname": .., "facts": {"data": [{"name": .., "value": ..}]}}`
//!   (or `"facts"` as a plain hash), and an array of them (a `/pdb/query/v4/factsets`
//!   export), which gives one node per entry.
//!
//! JSON is read straight into Puppet values (no intermediate JSON tree); a plain hash's
//! facts go straight into [`NodeFacts::facts`] (the top level is never made a Puppet hash
//! first). This module does no IO: callers give the text.

use indexmap::IndexMap;
use puppet_diagnostics::{Diagnostic, Severity};
use puppet_types::Value;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use smol_str::SmolStr;
use std::fmt;

/// The facts of one node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeFacts {
    /// The certname the file names (`name`, `certname`), if it names one.
    pub certname: Option<String>,
    /// The facts, in the file's order.
    pub facts: IndexMap<SmolStr, Value>,
}

/// The code of the diagnostic for a facts file that cannot be read.
pub const BAD_FACTS: &str = "FACTS_INVALID";

/// Reads a facts file's text (`path` is named in diagnostics; its extension `.yaml`/`.yml`
/// selects YAML, anything else JSON).
///
/// ```
/// let nodes = puppet_eval::facts::read_facts(
///     "web01.json",
///     r#"{"name": "web01.example.com", "values": {"os": {"family": "Debian"}}}"#,
/// ).unwrap();
/// assert_eq!(nodes[0].certname.as_deref(), Some("web01.example.com"));
/// assert_eq!(nodes[0].facts["os"].to_string(), "{'family' => 'Debian'}");
/// let pdb = puppet_eval::facts::read_facts(
///     "export.json",
///     r#"[{"certname": "a", "facts": {"data": [{"name": "kernel", "value": "Linux"}]}},
///         {"certname": "b", "facts": {"data": []}}]"#,
/// ).unwrap();
/// assert_eq!(pdb.len(), 2);
/// assert_eq!(pdb[0].facts["kernel"].to_string(), "'Linux'");
/// ```
pub fn read_facts(path: &str, text: &str) -> Result<Vec<NodeFacts>, Diagnostic> {
    let bad = |message: String| {
        Diagnostic::new(Severity::Error, BAD_FACTS, message).with_file(path.to_string())
    };
    let yaml = path.ends_with(".yaml") || path.ends_with(".yml");
    let doc = if yaml {
        match puppet_hiera::yaml::load(&untagged_facts(text)) {
            Ok(Some(v)) => v,
            Ok(None) => return Err(bad("the facts file is empty".into())),
            Err(e) => return Err(bad(format!("not valid YAML: {}", e.message))),
        }
    } else {
        let mut de = serde_json::Deserializer::from_str(text);
        match TopLevel::deserialize(&mut de).and_then(|v| de.end().map(|_| v)) {
            Ok(TopLevel::Object(entries)) => {
                return node_of_entries(entries)
                    .map(|n| vec![n])
                    .ok_or_else(|| bad("the facts file is not a hash".into()))
            }
            Ok(TopLevel::Other(v)) => v,
            Err(e) => return Err(bad(format!("not valid JSON: {e}"))),
        }
    };
    match doc {
        Value::Array(items) => items
            .iter()
            .map(|item| {
                node_of(item).ok_or_else(|| bad("an entry of the array is not a facts hash".into()))
            })
            .collect(),
        other => node_of(&other)
            .map(|n| vec![n])
            .ok_or_else(|| bad("the facts file is not a hash".into())),
    }
}

/// One node from a hash in any of the accepted shapes.
fn node_of(v: &Value) -> Option<NodeFacts> {
    let Value::Hash(h) = v else {
        return None;
    };
    let get = |k: &str| h.get(&Value::string(k));
    let name = |k: &str| match get(k) {
        Some(Value::String(s)) => Some(s.to_string()),
        _ => None,
    };
    // PuppetDB: {"certname", "facts": {"data": [{"name", "value"}]}} or "facts": {hash}.
    if let (Some(certname), Some(facts)) = (name("certname"), get("facts")) {
        let mut out = IndexMap::new();
        match facts {
            Value::Hash(fh) => match fh.get(&Value::string("data")) {
                Some(Value::Array(data)) => {
                    for entry in data.iter() {
                        if let Value::Hash(e) = entry {
                            if let (Some(Value::String(n)), Some(val)) = (
                                e.get(&Value::string("name")),
                                e.get(&Value::string("value")),
                            ) {
                                out.insert(SmolStr::new(n.as_str()), val.clone());
                            }
                        }
                    }
                }
                _ => out = hash_facts(fh),
            },
            _ => return None,
        }
        return Some(NodeFacts {
            certname: Some(certname),
            facts: out,
        });
    }
    // Puppet's Node::Facts: {"name", "values"}.
    if let Some(Value::Hash(values)) = get("values") {
        return Some(NodeFacts {
            certname: name("name"),
            facts: hash_facts(values),
        });
    }
    Some(NodeFacts {
        certname: None,
        facts: hash_facts(h),
    })
}

/// [`node_of`] of the hash of `entries` (a JSON object's, in order), without making that
/// hash when it is a plain hash of facts: each fact goes straight into the facts map
/// (a key given twice keeps its first position and its last value, as in the hash).
fn node_of_entries(entries: Vec<(SmolStr, Value)>) -> Option<NodeFacts> {
    let last = |k: &str| {
        entries
            .iter()
            .rev()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v)
    };
    let puppetdb = matches!(last("certname"), Some(Value::String(_))) && last("facts").is_some();
    let legacy = matches!(last("values"), Some(Value::Hash(_)));
    if puppetdb || legacy {
        let hash = Value::hash(
            entries
                .into_iter()
                .map(|(k, v)| (Value::string(k.as_str()), v)),
        );
        return node_of(&hash);
    }
    Some(NodeFacts {
        certname: None,
        facts: entries.into_iter().collect(),
    })
}

fn hash_facts(h: &puppet_types::ValueMap) -> IndexMap<SmolStr, Value> {
    h.iter()
        .filter_map(|(k, v)| match k {
            Value::String(s) => Some((SmolStr::new(s.as_str()), v.clone())),
            _ => None,
        })
        .collect()
}

/// A JSON document's top level: an object's entries, in order, or any other value.
enum TopLevel {
    Object(Vec<(SmolStr, Value)>),
    Other(Value),
}

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<TopLevel, E> {
        ValueVisitor.visit_unit().map(TopLevel::Other)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<TopLevel, E> {
        ValueVisitor.visit_none().map(TopLevel::Other)
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<TopLevel, E> {
        ValueVisitor.visit_bool(b).map(TopLevel::Other)
    }
    fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<TopLevel, E> {
        ValueVisitor.visit_i64(i).map(TopLevel::Other)
    }
    fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<TopLevel, E> {
        ValueVisitor.visit_u64(u).map(TopLevel::Other)
    }
    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<TopLevel, E> {
        ValueVisitor.visit_f64(f).map(TopLevel::Other)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<TopLevel, E> {
        ValueVisitor.visit_str(s).map(TopLevel::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TopLevel, A::Error> {
        ValueVisitor.visit_seq(seq).map(TopLevel::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((k, PuppetValue(v))) =
            map.next_entry::<std::borrow::Cow<'de, str>, PuppetValue>()?
        {
            entries.push((SmolStr::new(k), v));
        }
        Ok(TopLevel::Object(entries))
    }
}

/// A Puppet value deserialised directly from JSON (null is undef; integers that fit are
/// Integer, other numbers Float).
struct PuppetValue(Value);

impl<'de> Deserialize<'de> for PuppetValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor).map(PuppetValue)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Undef)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Undef)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Boolean(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Integer(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => Value::Integer(i),
            Err(_) => Value::Float(u as f64),
        })
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::string(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(PuppetValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((k, PuppetValue(v))) =
            map.next_entry::<std::borrow::Cow<'de, str>, PuppetValue>()?
        {
            pairs.push((Value::string(k), v));
        }
        Ok(Value::hash(pairs))
    }
}

/// The facts YAML that `puppet facts show --render-as yaml` and a server's facts cache write
/// tags its document `!ruby/object:Puppet::Node::Facts`, a class Puppet's own loader
/// permits; the YAML loader refuses Ruby classes as Psych's `safe_load` does, so that one
/// tag, where it opens the document, is dropped.
fn untagged_facts(text: &str) -> std::borrow::Cow<'_, str> {
    const TAG: &str = "!ruby/object:Puppet::Node::Facts";
    let body = text.trim_start_matches('\u{feff}').trim_start();
    let body = body
        .strip_prefix("---")
        .unwrap_or(body)
        .trim_start_matches([' ', '\t']);
    match body.strip_prefix(TAG) {
        Some(rest) => std::borrow::Cow::Owned(format!("---{rest}")),
        None => std::borrow::Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_yaml_and_tagged_yaml() {
        let plain = read_facts("a.yaml", "os:\n  family: RedHat\nprocessorcount: 4\n").unwrap();
        assert_eq!(plain[0].facts["processorcount"], Value::Integer(4));
        let tagged = read_facts(
            "b.yaml",
            "--- !ruby/object:Puppet::Node::Facts\nname: b.example.com\nvalues:\n  kernel: Linux\n",
        )
        .unwrap();
        assert_eq!(tagged[0].certname.as_deref(), Some("b.example.com"));
        assert_eq!(tagged[0].facts["kernel"], Value::string("Linux"));
    }

    #[test]
    fn json_matches_the_generic_conversion() {
        let text = r#"{"a": [1, 2.5, null, true, {"b": "c"}], "big": 18446744073709551615}"#;
        let direct = read_facts("x.json", text).unwrap().remove(0).facts;
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(direct, crate::facts_from_data(&json));
    }

    /// The facts of a JSON text as read before the top level had its own path: the whole
    /// document made a Puppet value, then [`node_of`].
    fn through_a_hash(text: &str) -> Option<NodeFacts> {
        let mut de = serde_json::Deserializer::from_str(text);
        node_of(&PuppetValue::deserialize(&mut de).unwrap().0)
    }

    #[test]
    fn top_level_entries_agree_with_the_hash() {
        for text in [
            r#"{"a": 1, "b": {"c": [2]}, "a": 3, "values": 4, "certname": "x"}"#,
            r#"{"name": "n", "values": {"k": 1, "k": 2, "j": null}, "name": "m"}"#,
            r#"{"values": {"k": 1}, "values": [1]}"#,
            r#"{"certname": "c", "facts": {"data": [{"name": "k", "value": 1}]}}"#,
            r#"{"certname": "c", "facts": {"k": 1}, "x": 2}"#,
            r#"{"certname": "c", "facts": 3}"#,
            r#"{"certname": 3, "facts": {"k": 1}}"#,
            r#"{"certname": "c", "facts": null, "certname": 1}"#,
            r#"{}"#,
        ] {
            let direct = read_facts("x.json", text).ok().map(|mut n| n.remove(0));
            assert_eq!(direct, through_a_hash(text), "{text}");
        }
        let real = r#"{"os": {"family": "Debian", "release": {"full": "12.11", "major": "12"}},
            "networking": {"interfaces": {"eth0": {"ip": "192.0.2.10", "mtu": 1500}},
            "fqdn": "web01.example.com"}, "processors": {"count": 4, "models": ["x", "y"]},
            "memory": {"system": {"total_bytes": 8589934592}}, "load_averages": {"1m": 0.25},
            "is_virtual": true, "ec2_metadata": null, "path": "/usr/bin:/bin"}"#;
        assert_eq!(
            read_facts("r.json", real).unwrap()[0],
            through_a_hash(real).unwrap()
        );
    }

    #[test]
    fn errors_name_the_file() {
        let e = read_facts("bad.json", "{").unwrap_err();
        assert_eq!(e.code, BAD_FACTS);
        assert_eq!(e.file.as_deref(), Some("bad.json"));
        assert!(read_facts("n.json", "3").is_err());
    }
}
