//! `Catalog::to_puppetdb` against PuppetDB's documentation of the catalog wire format,
//! version 9 (`documentation/api/wire_format/catalog_format_v9.markdown` in PuppetDB's
//! repository): the schema's rules are written out below as checks, and every catalog we
//! have is converted and checked: Puppet's own catalogs of the control repository's nodes
//! (with file and line), Puppet's catalogs of the five public nodes and of `examples/env`
//! (the oracle's canonical form), and our compile of the control repository.

mod support;

use puppet_lang::eval::{compile, Session};
use puppet_lang::graph::{Catalog, PuppetDbOptions};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The violations of the v9 format in `wire` ("Unless otherwise noted, `null` is not allowed
/// anywhere in the catalog").
fn check_v9(wire: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let mut err = |m: String| errors.push(m);
    let Some(top) = wire.as_object() else {
        return vec!["the catalog is not a JSON object".into()];
    };
    // Main data type: Catalog. Its keys, all required.
    let keys: BTreeSet<&str> = top.keys().map(String::as_str).collect();
    let expected: BTreeSet<&str> = [
        "certname",
        "version",
        "environment",
        "transaction_uuid",
        "catalog_uuid",
        "code_id",
        "job_id",
        "producer_timestamp",
        "producer",
        "edges",
        "resources",
    ]
    .into();
    if keys != expected {
        err(format!("catalog keys {keys:?}, expected {expected:?}"));
    }
    for k in ["certname", "version", "environment", "transaction_uuid"] {
        if !top.get(k).is_some_and(Value::is_string) {
            err(format!("{k} must be a string, got {:?}", top.get(k)));
        }
    }
    // "This field may be `null`."
    for k in ["catalog_uuid", "code_id", "job_id", "producer"] {
        if !top.get(k).is_some_and(|v| v.is_string() || v.is_null()) {
            err(format!(
                "{k} must be a string or null, got {:?}",
                top.get(k)
            ));
        }
    }
    // <datetime>: ISO 8601 with a time zone (`YYYY-MM-DDThh:mm:ss.sssZ` or `±hh:mm`).
    match top.get("producer_timestamp").and_then(Value::as_str) {
        Some(t) if is_datetime(t) => {}
        other => err(format!("producer_timestamp is not a <datetime>: {other:?}")),
    }

    // <resource>: the eight keys, all required.
    let mut specs = BTreeSet::new();
    let resources = top.get("resources").and_then(Value::as_array);
    if resources.is_none() {
        err("resources must be a list".into());
    }
    for r in resources.into_iter().flatten() {
        let Some(o) = r.as_object() else {
            err(format!("resource {r} is not an object"));
            continue;
        };
        let keys: BTreeSet<&str> = o.keys().map(String::as_str).collect();
        let eight: BTreeSet<&str> = [
            "type",
            "title",
            "aliases",
            "exported",
            "file",
            "line",
            "tags",
            "parameters",
        ]
        .into();
        if keys != eight {
            err(format!("resource keys {keys:?}, expected {eight:?}"));
            continue;
        }
        let (Some(ty), Some(title)) = (o["type"].as_str(), o["title"].as_str()) else {
            err(format!("type and title must be strings: {r}"));
            continue;
        };
        // "The type of the resource, capitalized ... every segment must be capitalized."
        if !ty
            .split("::")
            .all(|seg| seg.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        {
            err(format!("type '{ty}' is not capitalized in every segment"));
        }
        if !specs.insert((ty.to_string(), title.to_string())) {
            err(format!("{ty}[{title}] appears twice"));
        }
        if !o["aliases"]
            .as_array()
            .is_some_and(|a| a.iter().all(Value::is_string))
        {
            err(format!("{ty}[{title}]: aliases must be a list of strings"));
        }
        if !o["exported"].is_boolean() {
            err(format!("{ty}[{title}]: exported must be a boolean"));
        }
        // file: a string; line: a positive integer. PuppetDB's own schema takes null for
        // resources that have no declaration (Class[main], Class[Settings], Stage[main]).
        if !(o["file"].is_string() || o["file"].is_null()) {
            err(format!("{ty}[{title}]: file must be a string"));
        }
        if !(o["line"].as_u64().is_some_and(|l| l > 0) || o["line"].is_null()) {
            err(format!("{ty}[{title}]: line must be a positive integer"));
        }
        if o["file"].is_null() != o["line"].is_null() {
            err(format!("{ty}[{title}]: file and line are known together"));
        }
        // Tags: PuppetDB's validation pattern (lower case, digits, `_`, then also `:.-`).
        match o["tags"].as_array() {
            Some(tags) => {
                for t in tags {
                    if !t.as_str().is_some_and(is_tag) {
                        err(format!("{ty}[{title}]: invalid tag {t}"));
                    }
                }
            }
            None => err(format!("{ty}[{title}]: tags must be a list")),
        }
        // "Attributes with undef values are not added to the catalog."
        match o["parameters"].as_object() {
            Some(p) => {
                for (k, v) in p {
                    if v.is_null() {
                        err(format!("{ty}[{title}]: parameter {k} is null"));
                    }
                }
            }
            None => err(format!("{ty}[{title}]: parameters must be an object")),
        }
    }

    // <edge>: source, target and relationship, all required; the ends must be resources
    // of the catalog, by their actual title.
    let relationships: BTreeSet<&str> = [
        "contains",
        "before",
        "required-by",
        "notifies",
        "subscription-of",
    ]
    .into();
    match top.get("edges").and_then(Value::as_array) {
        None => err("edges must be a list".into()),
        Some(edges) => {
            for e in edges {
                let keys: BTreeSet<&str> = e
                    .as_object()
                    .map(|o| o.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                if keys != ["relationship", "source", "target"].into() {
                    err(format!("edge keys {keys:?}: {e}"));
                    continue;
                }
                if !e["relationship"]
                    .as_str()
                    .is_some_and(|r| relationships.contains(r))
                {
                    err(format!("edge with invalid relationship: {e}"));
                }
                for end in ["source", "target"] {
                    let spec = &e[end];
                    let keys: BTreeSet<&str> = spec
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    let (Some(ty), Some(title)) = (spec["type"].as_str(), spec["title"].as_str())
                    else {
                        err(format!("edge {end} is not a resource-spec: {e}"));
                        continue;
                    };
                    if keys != ["title", "type"].into() {
                        err(format!("edge {end} keys {keys:?}"));
                    }
                    if !specs.contains(&(ty.to_string(), title.to_string())) {
                        err(format!("edge {end} {ty}[{title}] is not in the catalog"));
                    }
                }
            }
        }
    }
    errors
}

fn is_datetime(t: &str) -> bool {
    let b = t.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || b[10] != b'T'
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let mut rest = &t[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    rest == "Z"
        || (rest.len() == 6
            && (rest.starts_with('+') || rest.starts_with('-'))
            && rest.as_bytes()[3] == b':'
            && rest[1..3]
                .bytes()
                .chain(rest[4..].bytes())
                .all(|c| c.is_ascii_digit()))
}

fn is_tag(t: &str) -> bool {
    let ok = |c: char, first: bool| {
        (c.is_alphabetic() && !c.is_uppercase())
            || c.is_numeric()
            || c == '_'
            || (!first && matches!(c, ':' | '.' | '-'))
    };
    let mut chars = t.chars();
    chars.next().is_some_and(|c| ok(c, true)) && chars.all(|c| ok(c, false))
}

/// The edges the catalog must have: each containment edge, and one per reference in a
/// relationship metaparameter, as (source, target, relationship) of resource references.
fn expected_edges(cat: &Catalog) -> BTreeSet<(String, String, String)> {
    let reference = |text: &str| -> String {
        let i = cat
            .find(text)
            .unwrap_or_else(|| panic!("{text} is not in the catalog"));
        cat.resources[i].reference()
    };
    let mut out = BTreeSet::new();
    for e in &cat.edges {
        out.insert((
            reference(&e.source),
            reference(&e.target),
            "contains".into(),
        ));
    }
    for r in &cat.resources {
        for (param, forward, rel) in [
            ("before", true, "before"),
            ("require", false, "required-by"),
            ("notify", true, "notifies"),
            ("subscribe", false, "subscription-of"),
        ] {
            let refs: Vec<String> = match r.parameters.get(param) {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect(),
                _ => continue,
            };
            for other in refs {
                let (s, t) = if forward {
                    (r.reference(), reference(&other))
                } else {
                    (reference(&other), r.reference())
                };
                out.insert((s, t, rel.into()));
            }
        }
    }
    out
}

fn got_edges(wire: &Value) -> BTreeSet<(String, String, String)> {
    let spec = |v: &Value| {
        let cat = Catalog::from_json(&format!(
            r#"{{"resources":[{{"type":{},"title":{}}}]}}"#,
            v["type"], v["title"]
        ))
        .unwrap();
        cat.resources[0].reference()
    };
    wire["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                spec(&e["source"]),
                spec(&e["target"]),
                e["relationship"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn check_catalog(what: &str, cat: &Catalog) {
    let options = PuppetDbOptions {
        producer_timestamp: Some("2024-05-01T12:00:00.000Z".into()),
        producer: Some("puppet.example.com".into()),
        ..PuppetDbOptions::default()
    };
    let wire = cat
        .to_puppetdb(&options)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let errors = check_v9(&wire);
    assert!(errors.is_empty(), "{what}:\n{}", errors.join("\n"));
    assert_eq!(
        wire["resources"].as_array().unwrap().len(),
        cat.resources.len(),
        "{what}: every resource"
    );
    assert_eq!(
        got_edges(&wire),
        expected_edges(cat),
        "{what}: every relationship"
    );
    // Without a timestamp the current time is used, in the same format.
    let now = cat.to_puppetdb(&PuppetDbOptions::default()).unwrap();
    assert!(check_v9(&now).is_empty(), "{what}: {now}");
}

fn read(path: &Path) -> Catalog {
    let mut cat = Catalog::from_json(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{path:?}: {e}"));
    // The oracle's canonical form names the node `node`.
    if cat.name.is_empty() {
        if let Some(Value::String(n)) = cat.extra.get("node") {
            cat.name = n.clone();
        }
    }
    cat
}

#[test]
fn the_checks_catch_what_the_format_forbids() {
    let cat = read(&fixtures().join("control-repo/raw/web01.example.com.json"));
    let good = cat
        .to_puppetdb(&PuppetDbOptions {
            producer_timestamp: Some("2024-05-01T12:00:00+02:00".into()),
            ..PuppetDbOptions::default()
        })
        .unwrap();
    assert!(check_v9(&good).is_empty());
    type Breaker = fn(&mut Value);
    let broken: [(&str, Breaker); 7] = [
        ("a missing top-level key", |w| {
            w.as_object_mut().unwrap().remove("code_id");
        }),
        ("a version that is a number", |w| w["version"] = 1.into()),
        ("a bad timestamp", |w| {
            w["producer_timestamp"] = "2024-05-01 12:00".into()
        }),
        ("a resource without aliases", |w| {
            w["resources"][3].as_object_mut().unwrap().remove("aliases");
        }),
        ("a null parameter", |w| {
            w["resources"][4]["parameters"]["x"] = Value::Null;
        }),
        ("an unknown relationship", |w| {
            w["edges"][0]["relationship"] = "requires".into()
        }),
        ("an edge to a resource not in the catalog", |w| {
            w["edges"][0]["target"]["title"] = "nope".into()
        }),
    ];
    for (what, f) in broken {
        let mut w = good.clone();
        f(&mut w);
        assert!(!check_v9(&w).is_empty(), "not caught: {what}");
    }
}

#[test]
fn puppets_catalogs_convert_to_valid_v9() {
    let mut n = 0;
    for dir in ["control-repo/raw", "catalogs", "control-repo/catalogs"] {
        for entry in std::fs::read_dir(fixtures().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            check_catalog(&path.display().to_string(), &read(&path));
            n += 1;
        }
    }
    // 4 control-repository nodes twice, 5 public nodes and examples/env.
    assert!(n >= 14, "{n} catalogs");
}

#[test]
fn relationships_and_namevars_in_the_control_repository() {
    let cat = read(&fixtures().join("control-repo/raw/web01.example.com.json"));
    let wire = cat.to_puppetdb(&PuppetDbOptions::default()).unwrap();
    let edges = got_edges(&wire);
    for (s, t, rel) in [
        (
            "Class[Timesync::Install]",
            "Class[Timesync::Config]",
            "before",
        ),
        (
            "Class[Timesync::Config]",
            "Class[Timesync::Service]",
            "notifies",
        ),
        (
            "Package[nginx]",
            "File[/etc/nginx/nginx.conf]",
            "required-by",
        ),
        ("Group[alice]", "User[alice]", "required-by"),
        (
            "Class[Profile::Web]",
            "Nginx_lite::Vhost[default]",
            "contains",
        ),
    ] {
        assert!(
            edges.contains(&(s.into(), t.into(), rel.into())),
            "{s} {rel} {t} missing"
        );
    }
    assert_eq!(wire["certname"], "web01.example.com");
    assert_eq!(wire["version"], "1700000000");
    assert_eq!(wire["catalog_uuid"], "00000000-0000-4000-8000-000000000000");
    assert_eq!(wire["transaction_uuid"], wire["catalog_uuid"]);
    let motd = wire["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["title"] == "/etc/motd")
        .unwrap();
    assert_eq!(motd["file"], "site-modules/profile/manifests/base.pp");
    assert_eq!(motd["line"], 16);
}

#[test]
fn our_catalogs_of_the_control_repository_convert_to_valid_v9() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/control-repo");
    let env = Session::new()
        .modulepath([repo.join("site-modules"), repo.join("modules")])
        .manifest(repo.join("manifests"))
        .environment_dir(&repo)
        .load()
        .unwrap_or_else(|d| panic!("{d:?}"));
    for node in ["web01.example.com", "db01.example.com"] {
        let settings = support::agent_settings(node, &repo.join(format!("facts/{node}.json")));
        let cat = compile(env.clone(), &settings)
            .catalog
            .unwrap_or_else(|e| panic!("{node}: {}", e.located()));
        check_catalog(node, &cat);
    }
}
