//! The finished catalog in Puppet's shape: `puppet-graph`'s catalog model, which writes
//! Puppet's catalog JSON (`Puppet::Resource::Catalog#to_data_hash`).
//!
//! Unrealised virtual and exported resources are left out, as for an agent's catalog;
//! parameter values use Puppet's rich-data JSON form: references become strings
//! (`"Notify[b]"`), `undef` parameters are dropped, `Sensitive` values are unwrapped and
//! named in `sensitive_parameters`, and non-JSON values are tagged with `__ptype`.

use crate::catalog::{ResourceKey, ResourceKind};
use crate::eval::Compiler;
use puppet_graph::{Catalog, ContainmentEdge, RelationKind, Resource};
use puppet_types::{Type, Value};
use serde_json::{json, Map, Value as Json};
use smol_str::SmolStr;

impl Compiler {
    /// The references of exported resources that nothing collected: they are in the
    /// compiled catalog but an agent never sees them.
    pub fn unrealized_exports(&self) -> Vec<String> {
        self.catalog
            .resources
            .iter()
            .filter(|(_, r)| r.virtual_ && r.exported)
            .map(|(k, _)| k.reference())
            .collect()
    }

    /// The catalog built so far, as Puppet would ship it (call after the compile finished).
    pub fn to_catalog(&self) -> Catalog {
        let mut cat = Catalog {
            name: self.settings.node_name.clone(),
            environment: Some(self.settings.environment.clone()),
            catalog_format: Some(json!(2)),
            ..Catalog::default()
        };
        cat.resources.reserve(self.catalog.resources.len());
        cat.edges.reserve(self.catalog.edges.len());
        // The reference of each resource in the output, by index (for the edges).
        let mut refs: Vec<Option<SmolStr>> = Vec::with_capacity(self.catalog.resources.len());
        let types = self.types();
        // The type of each built-in type's resources met so far, and the attributes its
        // title patterns set whatever the title (when each pattern has the same one
        // capture: every core type's), else `None`: each title is parsed.
        type TypeOut<'a> = (&'a puppet_restypes::ResourceTypeInfo, Option<Vec<SmolStr>>);
        let mut infos: crate::Map<&str, Option<TypeOut>> = Default::default();
        let define_keys = [SmolStr::new_static("name")];
        // Where each reference is written before it becomes a `SmolStr` (one allocation
        // at most, none for a short one).
        let mut text = String::new();
        for (key, r) in &self.catalog.resources {
            // Exported resources stay in the compiled catalog (marked); other virtual
            // resources that were not realised do not.
            if r.virtual_ && !r.exported {
                refs.push(None);
                continue;
            }
            text.clear();
            text.push_str(&key.type_name);
            text.push('[');
            text.push_str(&key.title);
            text.push(']');
            refs.push(Some(SmolStr::new(&text)));
            // The names are shared with the compiler's catalog, not copied.
            let mut out = Resource::new(key.type_name.clone(), key.title.clone());
            out.tags = r.tags.iter().cloned().collect();
            // A class has a file and line when it was declared like a resource, a node
            // never: Puppet's resources for them have none otherwise. A stage declared in
            // the code has its declaration's (`Stage[main]` has no declaration).
            let located = match r.kind {
                ResourceKind::Class => r.resource_like,
                ResourceKind::Node => false,
                ResourceKind::Builtin | ResourceKind::Define | ResourceKind::Stage => true,
            };
            if let (Some(span), true) = (&r.span, located) {
                out.file = Some(span.file.path.clone().unwrap_or_default());
                out.line = Some(span.line());
            }
            out.exported = r.exported;
            out.kind = Some(SmolStr::new_static(match r.kind {
                ResourceKind::Builtin | ResourceKind::Stage => "compilable_type",
                ResourceKind::Define => "defined_type",
                ResourceKind::Class if r.resource_like => "class",
                ResourceKind::Class | ResourceKind::Node => "unknown",
            }));
            // Puppet writes `to_hash`, i.e. the key attributes its title patterns give
            // first (`parse_title`), then the parameters in the order they were set; `name`
            // stands for a built-in type's only key attribute (`Puppet::Resource#[]=`), and
            // that namevar (a define instance's `name`) is left out when equal to the title.
            // `Class[main]` and `Stage[main]` keep theirs: Puppet's titles of those are symbols.
            let out_type = match r.kind {
                ResourceKind::Builtin => infos
                    .entry(key.type_name.as_str())
                    .or_insert_with(|| {
                        let info = types.get(&key.type_name)?;
                        let fixed = match info.title_patterns.as_slice() {
                            [] => Some(
                                info.single_namevar()
                                    .map(SmolStr::new)
                                    .into_iter()
                                    .collect(),
                            ),
                            [first, rest @ ..]
                                if first.captures.len() == 1
                                    && rest.iter().all(|p| p.captures == first.captures) =>
                            {
                                Some(first.captures.clone())
                            }
                            _ => None,
                        };
                        Some((info, fixed))
                    })
                    .as_ref(),
                _ => None,
            };
            let info = out_type.map(|(i, _)| *i);
            let single = info.and_then(|i| i.single_namevar());
            let namevar = match r.kind {
                ResourceKind::Define => Some("name"),
                ResourceKind::Builtin => info.map(|i| i.single_namevar().unwrap_or("name")),
                _ => None,
            };
            // The value set for attribute `name`, `name` winning for the only namevar.
            let given = |name: &str| -> Option<&Value> {
                let set = |n: &str| r.params.get(n).filter(|v| !v.is_undef());
                match single {
                    Some(nv) if nv == name && nv != "name" => set("name").or_else(|| set(name)),
                    _ => set(name),
                }
            };
            // What the title patterns give, when each title is parsed: Puppet's `to_hash`
            // is `parse_title.merge(parameters)`, so a part of a composite key that was not
            // set is written from the title.
            let mut parsed_title = None;
            let title_keys: std::borrow::Cow<'_, [SmolStr]> = match (r.kind, out_type) {
                (ResourceKind::Define, _) => define_keys.as_slice().into(),
                (_, Some((_, Some(fixed)))) => fixed.as_slice().into(),
                (_, Some((info, None))) => match info.parse_title(&r.title) {
                    Ok(parsed) if !parsed.is_empty() => {
                        let keys = parsed.keys().cloned().collect();
                        parsed_title = Some(parsed);
                        keys
                    }
                    _ => single.map(SmolStr::new).into_iter().collect(),
                },
                _ => std::borrow::Cow::Borrowed(&[]),
            };
            let mut sensitive = Vec::new();
            out.parameters.reserve(r.params.len());
            let mut write = |name: &SmolStr, v: &Value| {
                if namevar == Some(name.as_str()) && !r.title_not_string && is_string(v, &r.title) {
                    return;
                }
                // A relationship metaparameter's list is written flat, without undef
                // (Puppet's `to_hash`: `[File[$dirs], Exec[e]]` is one list of references).
                let flat;
                let v = match v {
                    Value::Array(a)
                        if RelationKind::from_param(name).is_some()
                            && a.iter()
                                .any(|x| matches!(x, Value::Array(_) | Value::Undef)) =>
                    {
                        let items = crate::compile::flatten(v).into_iter();
                        flat = Value::array(items.filter(|x| !x.is_undef()).collect());
                        &flat
                    }
                    _ => v,
                };
                if let Value::Sensitive(inner) = v {
                    sensitive.push(Json::String(name.as_str().to_owned()));
                    out.parameters.insert(name.clone(), to_data(inner));
                } else {
                    out.parameters.insert(name.clone(), to_data(v));
                }
            };
            for k in title_keys.iter() {
                if let Some(v) = given(k) {
                    write(k, v);
                } else if let Some(v) = parsed_title.as_ref().and_then(|p| p.get(k)) {
                    write(k, &Value::string(v));
                }
            }
            let renamed = single.is_some_and(|nv| nv != "name");
            for (name, v) in &r.params {
                if v.is_undef() || title_keys.contains(name) || (renamed && name.as_str() == "name")
                {
                    continue;
                }
                write(name, v);
            }
            if !sensitive.is_empty() {
                out.extra
                    .insert("sensitive_parameters".into(), Json::Array(sensitive));
            }
            cat.resources.push(out);
        }
        // An edge whose ends are both in the output; a container's edges mostly follow
        // each other, so its reference is looked up once for them.
        let resources = &self.catalog.resources;
        let reference = |i: Option<usize>| i.and_then(|i| refs[i].as_ref());
        let mut last: Option<(&ResourceKey, Option<&SmolStr>)> = None;
        // Edges are mostly added as their targets are declared, so the next edge's target
        // is most often the resource after the last one's: that guess is checked against
        // the key (keys are unique), and only a wrong guess hashes.
        let mut next = 0;
        // Each written edge's target, by index: Puppet's graph lists the edges by target,
        // in the order the targets were added (its `edges`: the in-edges of each vertex),
        // so a `contain`ed class's edge comes before those of its own resources.
        let mut targets: Vec<usize> = Vec::with_capacity(self.catalog.edges.len());
        for (source, target) in &self.catalog.edges {
            let s = match last {
                Some((k, s)) if k == source => s,
                _ => {
                    let s = reference(resources.get_index_of(source));
                    last = Some((source, s));
                    s
                }
            };
            let t = match resources.get_index(next) {
                Some((k, _)) if k == target => Some(next),
                _ => resources.get_index_of(target),
            };
            if let Some(t) = t {
                next = t + 1;
            }
            if let (Some(s), Some(i), Some(t)) = (s, t, reference(t)) {
                targets.push(i);
                cat.edges.push(ContainmentEdge {
                    source: s.clone(),
                    target: t.clone(),
                    extra: Default::default(),
                });
            }
        }
        if targets.windows(2).any(|w| w[0] > w[1]) {
            let mut order: Vec<usize> = (0..targets.len()).collect();
            order.sort_by_key(|&i| targets[i]);
            let mut edges: Vec<Option<ContainmentEdge>> = std::mem::take(&mut cat.edges)
                .into_iter()
                .map(Some)
                .collect();
            cat.edges = order.into_iter().filter_map(|i| edges[i].take()).collect();
        }
        let mut classes: Vec<String> = vec!["settings".into()];
        classes.extend(
            self.evaluated_classes()
                .iter()
                .map(|c| c.as_str().to_owned()),
        );
        // The catalog's tags as Puppet's `to_catalog` makes them: the classes' names (as
        // tags) first, then the other tags the compile gathered (those of the class and
        // node resources as they were added).
        let mut tags: crate::Set<SmolStr> = Default::default();
        for c in &classes {
            crate::catalog::add_tag(&mut tags, c);
        }
        tags.extend(self.catalog_tags());
        tags.extend(self.catalog.tags.iter().cloned());
        cat.tags = tags.iter().map(|t| t.to_string()).collect();
        cat.classes = classes;
        cat
    }
}

/// Whether `v` is the string `text` (Ruby's `==`: the number 443 is not the title "443").
fn is_string(v: &Value, text: &str) -> bool {
    matches!(v, Value::String(s) if s.as_str() == text)
}

/// A value in Puppet's rich-data JSON form, as catalog parameters are serialised.
pub fn to_data(v: &Value) -> Json {
    match v {
        Value::Undef => Json::Null,
        Value::Default => json!({"__ptype": "Default"}),
        Value::Boolean(b) => Json::Bool(*b),
        Value::Integer(i) => json!(i),
        Value::Float(f) => json!(f),
        // A binary string (Ruby's ASCII-8BIT) is written as Binary, as Puppet's rich data.
        Value::String(s) if s.is_binary() => json!({
            "__ptype": "Binary",
            "__pvalue": Value::Binary(s.to_bytes().into()).to_plain_string()
        }),
        Value::String(s) => Json::String(s.as_str().to_owned()),
        Value::Array(a) => Json::Array(a.iter().map(to_data).collect()),
        Value::Hash(h) => {
            if h.iter().all(|(k, _)| matches!(k, Value::String(_))) {
                let mut m = Map::with_capacity(h.len());
                for (k, v) in h.iter() {
                    // A string key's plain text is the string itself.
                    let key = match k {
                        Value::String(s) => s.as_str().to_owned(),
                        other => other.to_plain_string(),
                    };
                    m.insert(key, to_data(v));
                }
                Json::Object(m)
            } else {
                let mut items = Vec::with_capacity(2 * h.len());
                for (k, v) in h.iter() {
                    items.push(to_data(k));
                    items.push(to_data(v));
                }
                json!({"__ptype": "Hash", "__pvalue": items})
            }
        }
        Value::Type(t) => type_data(t),
        Value::Regexp(r) => json!({"__ptype": "Regexp", "__pvalue": r.to_ruby_s()}),
        // Inside a structure (a parameter's own Sensitive value is unwrapped and named in
        // `sensitive_parameters` by the caller), as Puppet's rich data writes it.
        Value::Sensitive(inner) => json!({"__ptype": "Sensitive", "__pvalue": to_data(inner)}),
        Value::SemVer(_) => json!({"__ptype": "SemVer", "__pvalue": v.to_plain_string()}),
        Value::SemVerRange(_) => {
            json!({"__ptype": "SemVerRange", "__pvalue": v.to_plain_string()})
        }
        Value::Timespan(_) => json!({"__ptype": "Timespan", "__pvalue": v.to_plain_string()}),
        Value::Timestamp(_) => {
            json!({"__ptype": "Timestamp", "__pvalue": v.to_plain_string()})
        }
        Value::Binary(_) => json!({"__ptype": "Binary", "__pvalue": v.to_plain_string()}),
        Value::Uri(_) => json!({"__ptype": "URI", "__pvalue": v.to_plain_string()}),
        Value::Iterator(it) => Json::Array(it.iter().map(|x| to_data(&x)).collect()),
        Value::Object(o) => {
            let mut m = Map::new();
            m.insert("__ptype".into(), Json::String(o.type_name().to_string()));
            for (k, v) in o.init_hash() {
                m.insert(k.as_str().to_owned(), to_data(&v));
            }
            Json::Object(m)
        }
        _ => Json::String(v.to_plain_string()),
    }
}

/// A type in Puppet's rich-data JSON form: a resource or class reference becomes its
/// reference text, any other type its `Pcore` type name.
fn type_data(t: &Type) -> Json {
    match t {
        Type::Resource(r) => {
            if let (Some(t), Some(title)) = (&r.type_name, &r.title) {
                return Json::String(ResourceKey::of(t, title).reference());
            }
        }
        Type::Class(Some(name)) => {
            let name = crate::names::capitalize_smol(name);
            let mut s = String::with_capacity(name.len() + 7);
            s.push_str("Class[");
            s.push_str(&name);
            s.push(']');
            return Json::String(s);
        }
        _ => {}
    }
    let text = t.to_string();
    let base = text.split('[').next().unwrap_or(&text);
    json!({ "__ptype": format!("Pcore::{base}Type") })
}

/// The value a JSON document denotes (facts, ENC data): objects become hashes in document
/// order, numbers Integer or Float.
pub fn from_data(j: &Json) -> Value {
    match j {
        Json::Null => Value::Undef,
        Json::Bool(b) => Value::Boolean(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => Value::string(s),
        Json::Array(a) => Value::array(a.iter().map(from_data).collect()),
        Json::Object(m) => Value::hash(m.iter().map(|(k, v)| (Value::string(k), from_data(v)))),
    }
}

/// Facts from a JSON document: a plain object, or `puppet facts show`'s
/// `{"name": .., "values": {..}}`; anything else gives no facts.
///
/// ```
/// let facts = puppet_eval::facts_from_data(&serde_json::json!({"values": {"fqdn": "a.example"}}));
/// assert_eq!(facts["fqdn"].to_string(), "'a.example'");
/// ```
pub fn facts_from_data(j: &Json) -> indexmap::IndexMap<smol_str::SmolStr, Value> {
    let j = j.get("values").filter(|v| v.is_object()).unwrap_or(j);
    j.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str().into(), from_data(v)))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Environment, Settings};
    use std::sync::Arc;

    /// The containment edges of `to_catalog` (whose target lookup guesses the resource
    /// after the last target) are those of looking up both ends of every edge.
    #[test]
    fn edges_are_those_of_looking_up_every_end() {
        // Classes declared out of order, a define, virtual and realised resources, a
        // class contained from two places: edges whose targets jump around the catalog.
        let code = "\
            define d($x = 1) { notify { \"d-${title}\": } file { \"/tmp/${title}\": } }
            class b { notify { 'b1': } d { 'in-b': } @notify { 'virt': } }
            class a { include b notify { 'a1': } d { 'in-a': } }
            class c { notify { 'c1': } realize(Notify['virt']) }
            node default { include c include a notify { 'top': } d { 'top': } @@file { '/exp': } }
        ";
        let env = Arc::new(Environment::from_main(Some("site.pp"), code));
        let mut compiler = Compiler::new(env, Settings::default());
        compiler.evaluate_main().expect("compiles");
        let cat = compiler.to_catalog();
        let resources = &compiler.catalog.resources;
        let shown = |k: &ResourceKey| {
            let r = &resources[k];
            (!r.virtual_ || r.exported).then(|| k.reference())
        };
        let want: Vec<(String, String)> = (compiler.catalog.edges.iter())
            .filter_map(|(s, t)| Some((shown(s)?, shown(t)?)))
            .collect();
        let got: Vec<(String, String)> = (cat.edges.iter())
            .map(|e| (e.source.to_string(), e.target.to_string()))
            .collect();
        assert_eq!(got, want);
        assert!(got.len() > 10, "{got:?}");
    }
}
