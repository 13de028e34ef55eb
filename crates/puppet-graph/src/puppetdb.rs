//! A catalog in PuppetDB's catalog wire format, version 9: what a Puppet server sends to
//! PuppetDB in a `replace catalog` command, and what tools that read PuppetDB exports expect.
//!
//! The differences from Puppet's own catalog JSON ([`crate::Catalog`]), as PuppetDB's
//! documentation of the format states them: every relationship is an edge (`contains` from
//! containment, `before` / `required-by` / `notifies` / `subscription-of` from the
//! relationship metaparameters and chaining arrows, normalised so that the source is
//! applied first), with both ends written as `{"type", "title"}` of a resource of the
//! catalog; every resource has all eight keys (`type`, `title`, `aliases`, `exported`,
//! `file`, `line`, `tags`, `parameters`), its aliases include the namevar when it differs
//! from the title; parameters whose value is undef are left out (and sensitive ones, as
//! Puppet's PuppetDB terminus redacts them); the arrays of the unordered metaparameters are
//! sorted; the top level has `certname`, `version` (a string), `environment`,
//! `transaction_uuid`, `catalog_uuid`, `code_id`, `job_id`, `producer_timestamp` and
//! `producer`.
//!
//! Not here: sending it anywhere, or reading the format back.
//!
//! ```
//! use puppet_graph::{Catalog, PuppetDbOptions};
//! let cat = Catalog::from_json(r#"{"name": "web01", "version": 1700000000, "environment": "production",
//!   "resources": [
//!     {"type": "Class", "title": "main", "tags": ["class"]},
//!     {"type": "Package", "title": "nginx", "tags": ["package"], "file": "/m.pp", "line": 1,
//!      "parameters": {"ensure": "installed", "before": "Service[nginx]"}},
//!     {"type": "Service", "title": "nginx", "tags": ["service"], "file": "/m.pp", "line": 2,
//!      "parameters": {"name": "nginx.service", "subscribe": ["Package[nginx]"]}}],
//!   "edges": [{"source": "Class[main]", "target": "Package[nginx]"},
//!             {"source": "Class[main]", "target": "Service[nginx]"}]}"#).unwrap();
//! let options = PuppetDbOptions { producer_timestamp: Some("2024-05-01T12:00:00.000Z".into()),
//!                                 ..PuppetDbOptions::default() };
//! let wire = cat.to_puppetdb(&options).unwrap();
//! assert_eq!(wire["certname"], "web01");
//! assert_eq!(wire["version"], "1700000000");
//! assert_eq!(wire["edges"].as_array().unwrap().len(), 4);
//! assert_eq!(wire["edges"][3], serde_json::json!({"source": {"type": "Package", "title": "nginx"},
//!     "target": {"type": "Service", "title": "nginx"}, "relationship": "subscription-of"}));
//! assert_eq!(wire["resources"][2]["aliases"], serde_json::json!(["nginx.service"]));
//! assert_eq!(wire["resources"][0]["file"], serde_json::Value::Null);
//! ```

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Map, Value};
use smol_str::SmolStr;

use crate::error::Error;
use crate::model::{Catalog, RelationKind, Resource};
use crate::reference;

/// What the wire format needs that a catalog does not hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PuppetDbOptions {
    /// `producer_timestamp` (ISO 8601, `2024-05-01T12:00:00.000Z`): when the catalog is sent.
    /// `None`: now.
    pub producer_timestamp: Option<String>,
    /// `producer`: the certname of the server that sends it (`null` when `None`).
    pub producer: Option<String>,
    /// `transaction_uuid` of the agent run. `None`: the catalog's `catalog_uuid`, else a
    /// UUID-shaped hash of the certname and version.
    pub transaction_uuid: Option<String>,
    /// `job_id` of an orchestrator job (`null` when `None`).
    pub job_id: Option<String>,
    /// `environment`, when the catalog has none (else `production`).
    pub environment: Option<String>,
}

/// Which way an edge made by a metaparameter points, and its name in the format.
fn relationship(kind: RelationKind) -> (bool, &'static str) {
    match kind {
        RelationKind::Before => (true, "before"),
        RelationKind::Require => (false, "required-by"),
        RelationKind::Notify => (true, "notifies"),
        RelationKind::Subscribe => (false, "subscription-of"),
    }
}

/// Metaparameters whose arrays are sets: PuppetDB's terminus sorts them.
const UNORDERED: [&str; 8] = [
    "alias",
    "audit",
    "before",
    "check",
    "notify",
    "require",
    "subscribe",
    "tag",
];

impl Catalog {
    /// The catalog in PuppetDB's catalog wire format v9 (see the module documentation).
    /// Fails, as Puppet's PuppetDB terminus does, when a relationship names a resource that
    /// is not in the catalog.
    pub fn to_puppetdb(&self, options: &PuppetDbOptions) -> Result<Value, Error> {
        // Resources by lookup key, then their aliases and namevars.
        let mut index: HashMap<String, usize> = HashMap::new();
        for (i, r) in self.resources.iter().enumerate() {
            index
                .entry(reference::lookup_key(&r.type_name, &r.title))
                .or_insert(i);
        }
        let aliases: Vec<Vec<String>> = self.resources.iter().map(aliases_of).collect();
        for (i, r) in self.resources.iter().enumerate() {
            for a in &aliases[i] {
                index
                    .entry(reference::lookup_key(&r.type_name, a))
                    .or_insert(i);
            }
        }
        let find = |text: &str| -> Option<usize> {
            let (ty, title) = reference::parse_ref(text)?;
            index.get(&reference::lookup_key(ty, title)).copied()
        };
        let spec = |i: usize| {
            let r = &self.resources[i];
            json!({"type": reference::capitalize_segments(&r.type_name), "title": r.title})
        };

        let mut edges: Vec<Value> = Vec::new();
        let mut seen: BTreeSet<(usize, usize, &'static str)> = BTreeSet::new();
        let mut push = |source: usize, target: usize, rel: &'static str, edges: &mut Vec<Value>| {
            if seen.insert((source, target, rel)) {
                edges.push(
                    json!({"source": spec(source), "target": spec(target), "relationship": rel}),
                );
            }
        };
        for e in &self.edges {
            let source = find(&e.source).ok_or_else(|| Error::MissingContainmentEnd {
                end: "source",
                reference: e.source.to_string(),
                other: e.target.to_string(),
            })?;
            let target = find(&e.target).ok_or_else(|| Error::MissingContainmentEnd {
                end: "target",
                reference: e.target.to_string(),
                other: e.source.to_string(),
            })?;
            push(source, target, "contains", &mut edges);
        }
        for (i, r) in self.resources.iter().enumerate() {
            for kind in [
                RelationKind::Before,
                RelationKind::Require,
                RelationKind::Notify,
                RelationKind::Subscribe,
            ] {
                let Some(value) = r.parameters.get(kind.as_str()) else {
                    continue;
                };
                let mut refs = Vec::new();
                collect_strings(value, &mut refs);
                for text in refs {
                    let other = find(&text).ok_or_else(|| Error::MissingInParameter {
                        target: text.clone(),
                        param: kind.as_str().to_string(),
                        resource: r.reference(),
                        file: r.file.clone(),
                        line: r.line,
                    })?;
                    let (forward, rel) = relationship(kind);
                    if forward {
                        push(i, other, rel, &mut edges);
                    } else {
                        push(other, i, rel, &mut edges);
                    }
                }
            }
        }
        for rel in &self.relationships {
            let (Some(source), Some(target)) = (find(&rel.source), find(&rel.target)) else {
                let (missing, other, missing_is_source) = match find(&rel.source) {
                    None => (&rel.source, &rel.target, true),
                    Some(_) => (&rel.target, &rel.source, false),
                };
                return Err(Error::MissingForRelationship {
                    missing: missing.clone(),
                    other: other.clone(),
                    missing_is_source,
                });
            };
            // An arrow is written as `before`/`notify` on its source (what Puppet's catalog
            // holds for it); `require`/`subscribe` name the reverse.
            let (forward, name) = relationship(rel.kind);
            if forward {
                push(source, target, name, &mut edges);
            } else {
                push(target, source, name, &mut edges);
            }
        }

        let resources: Vec<Value> = self
            .resources
            .iter()
            .zip(&aliases)
            .map(|(r, aliases)| resource(r, aliases))
            .collect();

        let version = match &self.version {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let text_or_null = |v: &Option<Value>| match v {
            Some(Value::String(s)) => Value::String(s.clone()),
            Some(Value::Null) | None => Value::Null,
            Some(other) => Value::String(other.to_string()),
        };
        let catalog_uuid = text_or_null(&self.catalog_uuid);
        let transaction_uuid = match (&options.transaction_uuid, &catalog_uuid) {
            (Some(t), _) => t.clone(),
            (None, Value::String(u)) => u.clone(),
            (None, _) => uuid_like(&format!("{}\u{0}{version}", self.name)),
        };
        let environment = self
            .environment
            .clone()
            .or_else(|| options.environment.clone())
            .unwrap_or_else(|| "production".to_string());
        let timestamp = options
            .producer_timestamp
            .clone()
            .unwrap_or_else(now_iso8601);
        Ok(json!({
            "certname": self.name,
            "version": version,
            "environment": environment,
            "transaction_uuid": transaction_uuid,
            "catalog_uuid": catalog_uuid,
            "code_id": text_or_null(&self.code_id),
            "job_id": options.job_id,
            "producer_timestamp": timestamp,
            "producer": options.producer,
            "edges": edges,
            "resources": resources,
        }))
    }
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        _ => {}
    }
}

/// The `alias` metaparameter's names, then the namevar's value when it differs from the
/// title.
fn aliases_of(r: &Resource) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(v) = r.parameters.get("alias") {
        collect_strings(v, &mut out);
    }
    if let Some(name) = reference::namevar(&r.type_key())
        .and_then(|p| r.parameters.get(p))
        .and_then(Value::as_str)
    {
        if name != r.title && !out.iter().any(|a| a == name) {
            out.push(name.to_string());
        }
    }
    out
}

fn resource(r: &Resource, aliases: &[String]) -> Value {
    let sensitive: BTreeSet<&str> = r
        .extra
        .get("sensitive_parameters")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parameters = Map::new();
    for (name, value) in &r.parameters {
        if value.is_null() || sensitive.contains(name.as_str()) {
            continue;
        }
        let mut value = stringify_rich(value);
        if UNORDERED.contains(&name.as_str()) {
            if let Value::Array(items) = &mut value {
                items.sort_by_key(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            }
        }
        parameters.insert(name.to_string(), value);
    }
    let mut tags: Vec<&SmolStr> = Vec::new();
    for t in &r.tags {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    json!({
        "type": reference::capitalize_segments(&r.type_name),
        "title": r.title,
        "aliases": aliases,
        "exported": r.exported,
        "file": r.file,
        "line": r.line,
        "tags": tags,
        "parameters": parameters,
    })
}

/// Values of Puppet's rich-data form (`{"__ptype": "Timestamp", "__pvalue": "..."}`) as
/// the strings PuppetDB stores for them (their value; the JSON text for a structured one).
fn stringify_rich(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.contains_key("__ptype") => match m.get("__pvalue") {
            Some(Value::String(s)) => Value::String(s.clone()),
            Some(other) => Value::String(other.to_string()),
            None => Value::String(v.to_string()),
        },
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), stringify_rich(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(stringify_rich).collect()),
        other => other.clone(),
    }
}

/// A UUID-shaped text (version 4 layout) made from a 128-bit FNV-1a hash of `seed`, so that
/// the same catalog always gets the same one.
fn uuid_like(seed: &str) -> String {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in seed.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    let hex = format!("{h:032x}");
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// The current UTC time as `YYYY-MM-DDThh:mm:ss.sssZ`.
fn now_iso8601() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    iso8601(d.as_secs() as i64, d.subsec_millis())
}

/// Seconds since the epoch as `YYYY-MM-DDThh:mm:ss.sssZ` (proleptic Gregorian calendar).
fn iso8601(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_dates() {
        assert_eq!(iso8601(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(iso8601(1_700_000_000, 123), "2023-11-14T22:13:20.123Z");
        assert_eq!(iso8601(4_102_444_799, 999), "2099-12-31T23:59:59.999Z");
    }

    #[test]
    fn uuid_shape() {
        let u = uuid_like("web01\u{0}1");
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert_ne!(u, uuid_like("web02\u{0}1"));
    }
}
