//! What Puppet's compiler does once the code has run: defined-type instances evaluated lazily,
//! collectors until nothing changes, pending realizations and overrides (only from the
//! declaring class or a subclass), resource defaults along the declaration chain, tags and
//! metaparameters passed down, chaining arrows turned into `before`/`notify`, and the checks
//! of every resource (parameter names of core types, relationship targets).

use super::{location, tag_values};
use crate::catalog::{
    AttrSpans, CollectQuery, Defaults, Override, RelEnd, Resource, ResourceKey, ResourceKind,
};
use crate::error::{ErrorKind, EvalError, Flow, R};
use crate::eval::Compiler;
use crate::ir::*;
use crate::ops;
use crate::scope::ScopeId;
use indexmap::IndexSet;
use puppet_graph::RelationKind;
use puppet_types::types::ResourceType;
use puppet_types::{Type, Value};
use smol_str::SmolStr;
use std::sync::Arc;

impl Compiler {
    /// What Puppet's compiler does once the code has run: evaluates pending defined-type
    /// instances and collectors until nothing changes, applies overrides and resource
    /// defaults, and turns chaining arrows into `before`/`notify` parameters.
    pub fn finish(&mut self) -> R<()> {
        let mut guard = 0;
        loop {
            let mut progress = false;
            while let Some(key) = self.catalog.next_pending_define() {
                guard += 1;
                if guard > 1_000_000 {
                    break;
                }
                self.evaluate_define_instance(&key)?;
                progress = true;
            }
            if self.apply_collectors()? {
                progress = true;
            }
            if self.apply_pending_realize() {
                progress = true;
            }
            if !progress || guard > 1_000_000 {
                break;
            }
        }
        // Puppet's `finish`: relationships first, then the overrides still pending, then
        // each resource's finish (scope tags), then the inherited metaparameters.
        self.apply_relationships()?;
        self.apply_pending_overrides()?;
        self.merge_scope_tags();
        self.inherit_metaparameters();
        // Puppet's `fail_on_unevaluated`: overrides (above), then collections.
        if !self.catalog.pending_realize.is_empty() {
            let refs: Vec<String> = self
                .catalog
                .pending_realize
                .iter()
                .map(ToString::to_string)
                .collect();
            return Err(Flow::Error(EvalError {
                code: crate::error::codes::EVAL_ERROR,
                kind: ErrorKind::Complete,
                message: format!("Failed to realize virtual resources {}", refs.join(", ")),
                span: None,
            }));
        }
        self.validate_resources()?;
        self.env.note_catalog_size(self.catalog.resources.len());
        Ok(())
    }

    /// Puppet's check of a finished resource of a built-in type (virtual ones are not
    /// checked): every attribute is one the type has.
    pub(super) fn check_parameter_names(&self, index: usize) -> R<()> {
        let Some((key, r)) = self.catalog.resources.get_index(index) else {
            return Ok(());
        };
        if r.virtual_ || r.kind != ResourceKind::Builtin {
            return Ok(());
        }
        let db = self.types();
        let info = db.get(&r.type_name);
        for name in r.params.keys() {
            let checked = match info {
                Some(info) => info.check_parameter(name),
                None => db.check_parameter(&r.type_name.to_ascii_lowercase(), name),
            };
            if let Err(m) = checked {
                let at = r.span.as_ref().map(location).unwrap_or_default();
                return Err(Flow::Error(EvalError {
                    code: crate::error::codes::EVAL_ERROR,
                    kind: ErrorKind::Complete,
                    // Puppet appends the resource's location once more.
                    message: format!("{m} {at} on {key} {at}"),
                    span: None,
                }));
            }
        }
        Ok(())
    }

    /// Puppet's check of the catalog (after each resource's own, see
    /// [`Compiler::check_parameter_names`]): every relationship metaparameter names a
    /// resource in the catalog.
    pub(super) fn validate_resources(&self) -> R<()> {
        for r in self.catalog.resources.values() {
            if r.virtual_ {
                continue;
            }
            // In the resource's parameter order, as Puppet's relationship validator.
            let relationships = r
                .params
                .iter()
                .filter(|(k, _)| RelationKind::from_param(k).is_some());
            for (param, v) in relationships {
                // Puppet locates these errors at the attribute that was written (in the
                // body, a defaults or override block); an attribute that no code wrote
                // (create_resources, functions) has no location.
                // Made only for an error (this runs for every relationship of the catalog).
                let at = || match r.param_spans.get(param) {
                    Some(s) => format!(" {}", location(s)),
                    None => String::new(),
                };
                let mut check = |target: &Value| -> R<()> {
                    let tkey = match target {
                        Value::String(s) => match parse_reference(s) {
                            Some(k) => k,
                            None => {
                                return Err(Flow::Error(EvalError {
 code: crate::error::codes::EVAL_ERROR,
 kind: ErrorKind::Complete,
                                    message: format!(
                                        "No title provided and {:?} is not a valid resource reference{}",
                                        s.as_str(),
                                        at()
                                    ),
                                    span: None,
                                }))
                            }
                        },
                        // What `refs_of` finds in a value that is not an array.
                        Value::Type(Type::Resource(r)) => match (&r.type_name, &r.title) {
                            (Some(t), Some(title)) => ResourceKey::of(t, title),
                            _ => return Ok(()),
                        },
                        Value::Type(Type::Class(Some(name))) => ResourceKey::class(name),
                        _ => return Ok(()),
                    };
                    // Virtual resources count, realized or not (see apply_relationships).
                    if !self.catalog.resources.contains_key(&tkey)
                        && self.resolve_ref(&tkey).is_none()
                    {
                        return Err(Flow::Error(EvalError {
                            code: crate::error::codes::MISSING_RELATIONSHIP_TARGET,
                            kind: ErrorKind::Complete,
                            message: format!(
                                "Could not find resource '{tkey}' in parameter '{param}'{}",
                                at()
                            ),
                            span: None,
                        }));
                    }
                    Ok(())
                };
                each_leaf(v, &mut check)?;
            }
        }
        Ok(())
    }

    /// Realizes the virtual resources that collectors select and queues their attribute
    /// operations as overrides; true when something new was collected.
    pub(super) fn apply_collectors(&mut self) -> R<bool> {
        let mut changed = false;
        for i in 0..self.catalog.collectors.len() {
            let c = &self.catalog.collectors[i];
            if c.exported {
                continue;
            }
            // `<| |>` selects exported resources of this compile too (Puppet's catalog
            // collector looks at every resource of the type). A query that selects every
            // resource starts after those it collected in an earlier pass; any other looks
            // at all of them again, as their tags and parameters may have changed.
            let of_type = self.catalog.of_type(&c.type_name);
            let all = matches!(c.query, CollectQuery::All);
            let start = if all { c.scanned.min(of_type.len()) } else { 0 };
            let keys: Vec<ResourceKey> = of_type[start..]
                .iter()
                .filter_map(|&j| self.catalog.resources.get_index(j))
                .filter(|(k, r)| !c.collected.contains(*k) && query_matches(&c.query, r))
                .map(|(k, _)| k.clone())
                .collect();
            let seen = of_type.len();
            if all {
                self.catalog.collectors[i].scanned = seen;
            }
            if keys.is_empty() {
                continue;
            }
            changed = true;
            let c = &self.catalog.collectors[i];
            let (attrs, scope, span) = (c.attrs.clone(), c.scope, c.span.clone());
            let attr_spans = c.attr_spans.clone();
            if !attrs.is_empty() {
                // Puppet lets a collector's overrides through by redefining `child_of?` to
                // true on the code that wrote the collector, for good: from now on that
                // code may override anything.
                let source = self.scopes.container_of(scope);
                self.catalog.override_anything.insert(source);
            }
            for k in keys {
                self.catalog.realize(&k);
                if !attrs.is_empty() {
                    if self.build.evaluated_defines.contains(&k) {
                        let at = self
                            .catalog
                            .get(&k)
                            .and_then(|r| r.span.as_ref())
                            .map(location)
                            .unwrap_or_default();
                        self.warn(format!(
                            "Attempt to override an already evaluated resource, defined at {at}, with new values {}",
                            location(&span)
                        ));
                    }
                    self.apply_override(&k, &attrs, &attr_spans, scope, &span, true)?;
                }
                self.catalog.collectors[i].collected.insert(k);
            }
        }
        Ok(changed)
    }

    /// Gives every resource the final tags of its container (in catalog order, so a
    /// container is complete before what it contains), as Puppet does when it finishes a
    /// resource: a `tag()` call tags what its class declared before the call too.
    pub(super) fn merge_scope_tags(&mut self) {
        let resources = &mut self.catalog.resources;
        // The index of the last container looked up: resources of one container mostly
        // follow each other, and comparing the key is cheaper than hashing it.
        let mut last: Option<usize> = None;
        for i in 0..resources.len() {
            let r = &mut resources[i];
            // The tags an override or a collector gave a resource of a built-in type go
            // before those of its scope (Puppet merges these when it finishes the resource;
            // a define instance and a class take them when they are evaluated).
            let (start, n) = r.inherited_tags;
            if r.kind == ResourceKind::Builtin && n > 0 && r.tags.len() > start + n {
                let later = r.tags.len() - (start + n);
                for (k, from) in (start + n..r.tags.len()).enumerate() {
                    r.tags.move_index(from, start + k);
                }
                r.inherited_tags.0 += later;
            }
            let Some(c) = resources[i].container.as_ref() else {
                continue;
            };
            if c.type_name == "Stage" {
                continue;
            }
            let found = match last {
                Some(j) if resources.get_index(j).is_some_and(|(k, _)| k == c) => Some(j),
                _ => resources.get_index_of(c),
            };
            last = found.or(last);
            // A resource's own tags are all it has already.
            let Some(j) = found.filter(|&j| j != i) else {
                continue;
            };
            let Ok([(_, r), (_, container)]) = resources.get_disjoint_indices_mut([i, j]) else {
                continue;
            };
            // Those it took when it was declared are still the container's first ones.
            for t in container.tags.iter().skip(r.container_tags) {
                if !r.tags.contains(t) {
                    r.tags.insert(t.clone());
                }
            }
        }
    }

    /// Puppet's last step of `finish` (`add_resource_metaparams`): walking the containment
    /// tree breadth first from `Class[main]`, each resource gets the non-relationship
    /// metaparameters (`noop`, `schedule`, `audit`, `loglevel`, `alias`, `tag`, `stage`) of
    /// its container that it does not set itself, and every tag its container has at that
    /// point of the walk (a class first declared elsewhere and then contained by a define
    /// instance of the main class takes the instance's tags, and passes them on to what it
    /// contains). Only what `Class[main]` contains is walked: classes hang from
    /// `Stage[main]`, so what a class (or a define instance declared in one) contains
    /// inherits nothing.
    pub(super) fn inherit_metaparameters(&mut self) {
        const INHERITED: &[&str] = &[
            "noop", "schedule", "audit", "loglevel", "alias", "tag", "stage",
        ];
        let mut children: crate::Map<&ResourceKey, Vec<&ResourceKey>> = Default::default();
        // A container's edges mostly follow each other: its entry is looked up once for them.
        let mut run: Option<(&ResourceKey, usize)> = None;
        let resources = &mut self.catalog.resources;
        for (container, child) in &self.catalog.edges {
            let i = match run {
                Some((k, i)) if k == container => i,
                _ => {
                    let entry = children.entry(container);
                    let i = entry.index();
                    entry.or_default();
                    run = Some((container, i));
                    i
                }
            };
            children[i].push(child);
        }
        let main = ResourceKey::class("main");
        let mut queue = std::collections::VecDeque::from([main.clone()]);
        let mut seen: IndexSet<ResourceKey, rustc_hash::FxBuildHasher> = Default::default();
        let mut updates: Vec<(ResourceKey, SmolStr, Value)> = Vec::new();
        // Values as they are after the walk: what a container passes on includes what it
        // inherited itself.
        let mut inherited: crate::Map<ResourceKey, Vec<(SmolStr, Value)>> = Default::default();
        while let Some(source) = queue.pop_front() {
            if !seen.insert(source.clone()) {
                continue;
            }
            let Some(targets) = children.get(&source) else {
                continue;
            };
            let mut data: Vec<(SmolStr, Value)> =
                inherited.get(&source).cloned().unwrap_or_default();
            let mut tags: Vec<SmolStr> = Vec::new();
            if let Some(r) = resources.get(&source) {
                tags.extend(r.tags.iter().cloned());
                for m in INHERITED {
                    if let Some(v) = r.params.get(*m).filter(|v| !v.is_undef()) {
                        if !data.iter().any(|(k, _)| k == m) {
                            data.push((SmolStr::new(m), v.clone()));
                        }
                    }
                }
            }
            for t in targets {
                if let Some(tr) = resources.get_mut(*t) {
                    for tag in &tags {
                        if !tr.tags.contains(tag) {
                            tr.tags.insert(tag.clone());
                        }
                    }
                }
                if let Some(tr) = resources.get(*t) {
                    let mut own: Vec<(SmolStr, Value)> = Vec::new();
                    for (k, v) in &data {
                        match tr.params.get(k.as_str()).filter(|v| !v.is_undef()) {
                            Some(mine) => own.push((k.clone(), mine.clone())),
                            None => {
                                updates.push(((*t).clone(), k.clone(), v.clone()));
                                own.push((k.clone(), v.clone()));
                            }
                        }
                    }
                    inherited.insert((*t).clone(), own);
                }
                queue.push_back((*t).clone());
            }
        }
        for (key, k, v) in updates {
            if let Some(r) = resources.get_mut(&key) {
                r.params.insert(k, v);
            }
        }
    }

    /// Realizes the resources `realize` named before they were declared; true when one
    /// was found.
    pub(super) fn apply_pending_realize(&mut self) -> bool {
        let pending = std::mem::take(&mut self.catalog.pending_realize);
        let mut found = false;
        for k in pending {
            match self.resolve_ref(&k) {
                Some(key) => {
                    self.catalog.realize(&key);
                    found = true;
                }
                None => self.catalog.pending_realize.push(k),
            }
        }
        found
    }

    /// Applies the overrides whose resource did not exist when they were evaluated, as
    /// Puppet's `finish` does: resource by resource in catalog order, each taking the
    /// overrides written with its exact reference (an alias no longer finds it). Those
    /// left are one error, without a location.
    pub(super) fn apply_pending_overrides(&mut self) -> R<()> {
        let pending = std::mem::take(&mut self.catalog.overrides);
        let mut by_ref: crate::Map<ResourceKey, Vec<Override>> = Default::default();
        for o in pending {
            by_ref.entry(o.key.clone()).or_default().push(o);
        }
        // Puppet's finish takes the resources in order: each one's pending overrides, then
        // its own checks; the overrides whose resource never came are reported after all.
        // (Overrides add no resources: the indexes stay those of the resources.)
        for i in 0..self.catalog.resources.len() {
            if !by_ref.is_empty() {
                let Some((key, _)) = self.catalog.resources.get_index(i) else {
                    break;
                };
                if let Some(list) = by_ref.shift_remove(key) {
                    let key = key.clone();
                    for o in list {
                        self.check_override_source(&key, o.scope, &o.span)?;
                        self.apply_override(
                            &key,
                            &o.attrs,
                            &o.attr_spans,
                            o.scope,
                            &o.span,
                            false,
                        )?;
                    }
                }
            }
            self.check_parameter_names(i)?;
        }
        if by_ref.is_empty() {
            return Ok(());
        }
        let refs: Vec<String> = by_ref
            .values()
            .flatten()
            .map(|o| o.key.to_string())
            .collect();
        Err(Flow::Error(EvalError {
            code: crate::error::codes::EVAL_ERROR,
            kind: ErrorKind::Complete,
            message: format!(
                "Could not find resource(s) {} for overriding",
                refs.join(", ")
            ),
            span: None,
        }))
    }

    /// Puppet's rule for `Type[title] { ... }`: only code of the class (or define) that
    /// declared the resource, or of a class inheriting from it, may override it.
    pub(super) fn check_override_source(
        &self,
        key: &ResourceKey,
        scope: ScopeId,
        span: &Span,
    ) -> R<()> {
        let Some(target) = self.catalog.get(key) else {
            return Ok(());
        };
        let Some(source) = target.container.clone() else {
            return Ok(());
        };
        let container = self.scopes.container_of(scope);
        if container == source || self.inherits(&container, &source) {
            return Ok(());
        }
        Err(Flow::Error(EvalError {
            code: crate::error::codes::EVAL_ERROR,
            kind: ErrorKind::Complete,
            message: format!("Only subclasses can override parameters {}", location(span)),
            span: Some(span.clone()),
        }))
    }

    /// Sets attributes on an existing resource, as an override (`+>` appends). A plain
    /// override may only change an attribute set by code the overriding scope inherits
    /// from; collectors may always.
    pub(super) fn apply_override(
        &mut self,
        key: &ResourceKey,
        attrs: &[(SmolStr, Value, bool)],
        attr_spans: &AttrSpans,
        scope: ScopeId,
        span: &Span,
        from_collector: bool,
    ) -> R<()> {
        let source = self.scopes.container_of(scope);
        let Some(r) = self.catalog.get(key) else {
            return Ok(());
        };
        // Puppet's `override_parameter`, per parameter already set: a new value equal to
        // the resource's default for it is ignored; otherwise code of a subclass of the
        // code that set the value (the declaring code, the defaults statement, or the
        // override that set it last) may replace it, and the same code only while the
        // value is the default. Collectors may always.
        let mut ignored = Vec::new();
        for (i, (name, v, _)) in attrs.iter().enumerate() {
            let Some(current) = r.params.get(name) else {
                continue;
            };
            let default = self.default_value(r, name);
            if default.as_ref() == Some(v) {
                ignored.push(i);
                continue;
            }
            if from_collector {
                continue;
            }
            let (setter, at) = match r.overridden_by.get(name) {
                Some((setter, at)) => (setter.clone(), Some(at)),
                None => (r.container.clone(), r.span.as_ref()),
            };
            let same = setter.as_ref() == Some(&source);
            let allowed = match &setter {
                Some(s) => self.inherits(&source, s),
                None => true,
            } || (same && default.as_ref() == Some(current));
            if !allowed {
                let at = at.map(location).unwrap_or_default();
                return Err(Flow::Error(EvalError {
                    code: crate::error::codes::EVAL_ERROR,
                    kind: ErrorKind::Complete,
                    message: format!(
                        "Parameter '{name}' is already set on {key} by #<Puppet::Resource::Type> at {at}; cannot redefine {}",
                        location(span)
                    ),
                    span: Some(span.clone()),
                }));
            }
        }
        let Some(r) = self.catalog.resources.get_mut(key) else {
            return Ok(());
        };
        for (i, (name, v, append)) in attrs.iter().enumerate() {
            if ignored.contains(&i) {
                continue;
            }
            let new = match (r.params.get(name), append) {
                (Some(old), true) => {
                    let mut all: Vec<Value> = match old {
                        Value::Array(a) => (**a).clone(),
                        other => vec![other.clone()],
                    };
                    match v {
                        Value::Array(more) => all.extend(more.iter().cloned()),
                        other => all.push(other.clone()),
                    }
                    Value::array(all)
                }
                _ => v.clone(),
            };
            if name == "tag" {
                for t in tag_values(&new) {
                    r.tag_checked(&t).or_else(|m| super::invalid_tag(m, span))?;
                }
            }
            r.params.insert(name.clone(), new);
            r.overridden_by
                .insert(name.clone(), (Some(source.clone()), span.clone()));
            if let Some(s) = attr_spans.get(name) {
                r.param_spans.insert(name.clone(), s.clone());
            }
        }
        Ok(())
    }

    /// Whether class `child` inherits (directly or not) from `ancestor`: Puppet's
    /// `child_of?` (false for the class itself, and for anything but classes; true for
    /// code whose collector has overridden something, see `Catalog::override_anything`).
    pub(super) fn inherits(&self, child: &ResourceKey, ancestor: &ResourceKey) -> bool {
        if self.catalog.override_anything.contains(child) {
            return true;
        }
        let mut cur = child.clone();
        for _ in 0..1000 {
            if cur.type_name != "Class" {
                return false;
            }
            let name = cur.title.to_ascii_lowercase();
            let Some(parent) = self.env.class(name.as_str()).and_then(|d| d.parent.clone()) else {
                return false;
            };
            cur = ResourceKey::class(&parent);
            if &cur == ancestor {
                return true;
            }
        }
        false
    }

    /// The defaults that apply to a resource for the attributes it does not set.
    pub(crate) fn defaults_for(&self, res: &Resource) -> Vec<(SmolStr, Value)> {
        self.defaults_with_spans(res)
            .into_iter()
            .map(|(k, v, _, _)| (k, v))
            .collect()
    }

    /// The resource default for `name` that applies to `res` (set or not), as Puppet's
    /// `scope.is_default?` looks it up: the nearest defaults statement along the
    /// declaration chain.
    pub(super) fn default_value(&self, res: &Resource, name: &str) -> Option<Value> {
        let statements = self.defaults_statements(&res.type_name);
        if statements.is_empty() {
            return None;
        }
        for id in self.scopes.defaults_chain(res.scope) {
            for (sid, _, attrs, _) in statements.iter().rev() {
                if *sid == id {
                    if let Some((_, v, _)) = attrs.iter().rev().find(|(k, _, _)| k == name) {
                        return (!v.is_undef()).then(|| v.clone());
                    }
                }
            }
        }
        None
    }

    /// The resource defaults statements evaluated so far for the type `type_name` (any
    /// case), in order: most resources have none, and the others few, so the declaration
    /// chain is then walked over these only.
    fn defaults_statements(&self, type_name: &str) -> Vec<&Defaults> {
        self.catalog.defaults_of(type_name)
    }

    /// [`Compiler::defaults_for`], with where each default is written and the scope of its
    /// defaults statement.
    pub(super) fn defaults_with_spans(
        &self,
        res: &Resource,
    ) -> Vec<(SmolStr, Value, Option<Span>, ScopeId)> {
        let statements = self.defaults_statements(&res.type_name);
        if statements.is_empty() {
            return Vec::new();
        }
        // Puppet's `lookupdefaults`: the outermost scope's first, each scope's in the order
        // set, an inner scope's value replacing an outer one's in its place.
        let chain: Vec<ScopeId> = self.scopes.defaults_chain(res.scope).collect();
        let mut out: crate::Map<SmolStr, (Value, Option<Span>, ScopeId)> = Default::default();
        for &id in chain.iter().rev() {
            for (sid, _, attrs, spans) in statements.iter() {
                if *sid == id {
                    for (k, v, _) in attrs.iter() {
                        if !res.params.contains_key(k) {
                            out.insert(k.clone(), (v.clone(), spans.get(k).cloned(), *sid));
                        }
                    }
                }
            }
        }
        out.into_iter()
            .filter(|(_, (v, _, _))| !v.is_undef())
            .map(|(k, (v, s, sid))| (k, v, s, sid))
            .collect()
    }

    /// Turns the chaining arrows into `before`/`notify` parameters of their sources, after
    /// checking that both ends exist.
    pub(super) fn apply_relationships(&mut self) -> R<()> {
        let rels = std::mem::take(&mut self.catalog.relationships);
        for rel in &rels {
            let sources = self.rel_end_keys(&rel.source);
            let targets = self.rel_end_keys(&rel.target);
            for s in &sources {
                for t in &targets {
                    // A virtual resource is in the compiler's catalog (it is only left
                    // out of the finished one), so it is a valid end, realized or not.
                    // Puppet gives no location; the arrow's span is kept for tools.
                    let missing = |missing: &ResourceKey, other: &ResourceKey, word: &str| {
                        Flow::Error(EvalError {
                            code: crate::error::codes::MISSING_RELATIONSHIP_TARGET,
                            kind: ErrorKind::Complete,
                            message: format!(
                                "Could not find resource '{missing}' for relationship {word} '{other}'"
                            ),
                            span: Some(rel.span.clone()),
                        })
                    };
                    let Some(source) = self.resolve_ref(s) else {
                        return Err(missing(s, t, "on"));
                    };
                    if self.resolve_ref(t).is_none() {
                        return Err(missing(t, s, "from"));
                    }
                    let param = if rel.notify { "notify" } else { "before" };
                    let target_ref = Value::Type(Type::Resource(Arc::new(ResourceType {
                        type_name: Some(t.type_name.clone()),
                        title: Some(t.title.clone()),
                    })));
                    let shared = match self.catalog.resources.get(&source) {
                        Some(r) => match r.params.get(param) {
                            Some(Value::Array(a)) if Arc::strong_count(a) > 1 => Some(a.clone()),
                            _ => None,
                        },
                        None => None,
                    };
                    if let Some(old) = shared {
                        // Puppet appends to the Ruby array itself: every resource holding
                        // the same list (one body's titles, one resource default, one
                        // override: `own_relation_lists`) gets the target too.
                        let mut list = old.as_ref().clone();
                        list.push(target_ref);
                        let longer = Arc::new(list);
                        for r in self.catalog.resources.values_mut() {
                            if let Some(Value::Array(a)) = r.params.get_mut(param) {
                                if Arc::ptr_eq(a, &old) {
                                    *a = longer.clone();
                                }
                            }
                        }
                        continue;
                    }
                    if let Some(r) = self.catalog.resources.get_mut(&source) {
                        match r.params.get_mut(param) {
                            Some(Value::Array(a)) => Arc::make_mut(a).push(target_ref),
                            Some(Value::Undef) | None => {
                                r.params
                                    .insert(param.into(), Value::array(vec![target_ref]));
                            }
                            Some(other) => {
                                let list = vec![std::mem::replace(other, Value::Undef), target_ref];
                                *other = Value::array(list);
                            }
                        }
                    }
                }
            }
        }
        self.catalog.relationships = rels;
        Ok(())
    }

    /// The resource a reference denotes: by title, by alias, or by the namevar its title
    /// gives through the type's title patterns (`File['/tmp/x/']` is `File['/tmp/x']`).
    pub(crate) fn resolve_ref(&self, key: &ResourceKey) -> Option<ResourceKey> {
        if let Some(k) = self.catalog.resolve(key) {
            return Some(k);
        }
        let tname = key.type_name.to_ascii_lowercase();
        if !self.env.resource_type_known(&tname) {
            return None;
        }
        let db = self.types();
        let info = db.get(&tname)?;
        // A title no pattern matches finds nothing.
        let parsed = info.parse_title(&key.title).ok()?;
        if info.namevars.len() == 1 {
            if let Some(k) = parsed
                .get(info.namevars[0].as_str())
                .and_then(|v| self.catalog.resolve(&ResourceKey::new(&key.type_name, v)))
            {
                return Some(k);
            }
        }
        // Puppet's catalog then looks the reference up by its uniqueness key, the namevar
        // values its title gives: `Package[x]` is the package named `x` (whatever its
        // title) with no provider.
        if !info.isomorphic {
            return None;
        }
        use puppet_restypes::NamevarValue as N;
        let values = info.namevar_values_parsed(&key.title, &parsed, |_| None::<String>);
        let ukey: Vec<Option<String>> = values
            .into_iter()
            .map(|(_, v)| match v {
                N::Given(s) | N::FromTitle(s) => Some(s),
                N::Missing => None,
            })
            .collect();
        self.catalog
            .uniqueness
            .get(&(key.type_name.clone(), ukey))
            .cloned()
    }

    pub(super) fn rel_end_keys(&self, end: &RelEnd) -> Vec<ResourceKey> {
        match end {
            RelEnd::Refs(k) => k.clone(),
            RelEnd::Collector(i, before) => {
                let collected: Vec<ResourceKey> = self
                    .catalog
                    .collectors
                    .get(*i)
                    .map(|c| c.collected.iter().cloned().collect())
                    .unwrap_or_default();
                // A collector that collected nothing closes the gap in a chain: what came
                // before it is related to what comes after (`a -> C<||> ~> b` is `a ~> b`).
                match (collected.is_empty(), before) {
                    (true, Some(b)) => self.rel_end_keys(b),
                    _ => collected,
                }
            }
        }
    }
}

/// Calls `f` with each leaf of nested arrays, in order ([`super::flatten`] without copying).
fn each_leaf(v: &Value, f: &mut impl FnMut(&Value) -> R<()>) -> R<()> {
    match v {
        Value::Array(a) => a.iter().try_for_each(|x| each_leaf(x, f)),
        other => f(other),
    }
}

/// A reference written as a string: `Notify[x]`, `Foo::Bar[a b]`.
pub(super) fn parse_reference(s: &str) -> Option<ResourceKey> {
    let s = s.trim();
    let open = s.find('[')?;
    if !s.ends_with(']') || open == 0 {
        return None;
    }
    let t = &s[..open];
    let title = s[open + 1..s.len() - 1].trim_matches(|c| c == '\'' || c == '"');
    if !t.chars().next()?.is_ascii_alphabetic() {
        return None;
    }
    Some(ResourceKey::new(t, title))
}

/// Whether a resource matches a collector's query (`title == 'x'`, `tag == 'y'`, and/or).
/// Nothing is copied: this runs for every resource of the collected type, for every
/// collector, on every pass of `finish`'s loop.
pub(super) fn query_matches(q: &CollectQuery, r: &Resource) -> bool {
    use CollectQuery as Q;
    // `title` and each tag are strings: `ops::equals` (`Value::puppet_eq`) of a string and
    // a string ignores the case of ASCII letters, of a string and anything else is false.
    let str_eq = |s: &str, v: &Value| matches!(v, Value::String(y) if s.eq_ignore_ascii_case(y));
    let eq = |attr: &str, v: &Value| match attr {
        "title" => str_eq(&r.title, v),
        // The tags are an array attribute: it matches when any element does.
        "tag" => r.tags.iter().any(|t| str_eq(t, v)),
        _ => match r.params.get(attr) {
            // An array attribute matches when any element does.
            Some(Value::Array(items)) => items.iter().any(|x| ops::equals(x, v)),
            Some(x) => ops::equals(x, v),
            None => false,
        },
    };
    match q {
        Q::All => true,
        Q::Eq(a, v) => eq(a, v),
        Q::Ne(a, v) => !eq(a, v),
        Q::And(a, b) => query_matches(a, r) && query_matches(b, r),
        Q::Or(a, b) => query_matches(a, r) || query_matches(b, r),
    }
}

#[cfg(test)]
mod query_tests {
    use super::query_matches;
    use crate::catalog::{CollectQuery as Q, Resource};
    use crate::ops;
    use puppet_types::Value;

    /// The query as Puppet words it: the attribute's value (the title, the tags as an
    /// array, a parameter) compared with `==`, an array when any element is equal.
    fn reference(q: &Q, r: &Resource) -> bool {
        let value_of = |attr: &str| -> Option<Value> {
            match attr {
                "title" => Some(Value::String(r.title.clone().into())),
                "tag" => Some(Value::array(
                    r.tags
                        .iter()
                        .map(|t| Value::String(t.clone().into()))
                        .collect(),
                )),
                _ => r.params.get(attr).cloned(),
            }
        };
        let eq = |attr: &str, v: &Value| match value_of(attr) {
            Some(Value::Array(items)) => items.iter().any(|x| ops::equals(x, v)),
            Some(x) => ops::equals(&x, v),
            None => false,
        };
        match q {
            Q::All => true,
            Q::Eq(a, v) => eq(a, v),
            Q::Ne(a, v) => !eq(a, v),
            Q::And(a, b) => reference(a, r) && reference(b, r),
            Q::Or(a, b) => reference(a, r) || reference(b, r),
        }
    }

    #[test]
    fn in_place_comparison_agrees_with_the_reference() {
        let mut r = Resource::new("Package", "Keystone-Pkg");
        r.tag("package");
        r.tag("keystone::install");
        r.tag("é");
        r.params.insert("ensure".into(), Value::string("present"));
        r.params.insert(
            "tag".into(),
            Value::array(vec![Value::string("x"), Value::Integer(1)]),
        );
        let untagged = Resource::new("Package", "p");
        let values = [
            Value::string("keystone-pkg"),
            Value::string("KEYSTONE"),
            Value::string("install"),
            Value::string("É"),
            Value::string("é"),
            Value::string("Present"),
            Value::string("x"),
            Value::Integer(1),
            Value::Float(1.0),
            Value::Undef,
            Value::array(vec![Value::string("package")]),
        ];
        let mut queries = vec![Q::All];
        for attr in ["title", "tag", "ensure", "tag", "missing"] {
            for v in &values {
                queries.push(Q::Eq(attr.into(), v.clone()));
                queries.push(Q::Ne(attr.into(), v.clone()));
            }
        }
        let pairs: Vec<Q> = queries
            .iter()
            .zip(queries.iter().rev())
            .flat_map(|(a, b)| {
                [
                    Q::And(Box::new(a.clone()), Box::new(b.clone())),
                    Q::Or(Box::new(a.clone()), Box::new(b.clone())),
                ]
            })
            .collect();
        let mut matched = 0;
        for q in queries.iter().chain(&pairs) {
            for res in [&r, &untagged] {
                assert_eq!(
                    query_matches(q, res),
                    reference(q, res),
                    "{q:?} on {}",
                    res.title
                );
                matched += usize::from(query_matches(q, res));
            }
        }
        assert!(matched > 0);
    }
}

#[cfg(test)]
mod collector_tests {
    use crate::{Session, Settings};

    /// The catalog JSON (or the error) and the log lines of a compile of `code`.
    fn compile(code: &str) -> (String, Vec<String>) {
        let env = Session::new().code(code).load().unwrap();
        let out = env.compile(&Settings::default());
        let logs = out.logs.iter().map(|l| l.message.clone()).collect();
        let catalog = match out.catalog {
            Ok(c) => c.to_json(),
            Err(e) => format!("error: {}", e.message),
        };
        (catalog, logs)
    }

    /// A collector of every resource of its type (`<| |>`) starts each pass after what it
    /// collected before; a query that matches everything too goes the general way, looking
    /// at every resource again. Both collect the same resources in the same order, across
    /// passes where defined-type instances declare more virtual resources.
    #[test]
    fn a_collector_of_everything_agrees_with_the_general_path() {
        let code = r#"
define inner() { @notify { "v-${title}": } @file { "/tmp/${title}": } }
define outer() { inner { "i-${title}": } @outer2 { "o2-${title}": } }
define outer2() { @notify { "w-${title}": } inner { "j-${title}": } }
@outer { 'a': }
outer { 'b': }
Notify <| QUERY |> { message => 'collected' }
Outer <| QUERY |>
Outer2 <| QUERY |>
File <| QUERY |> -> Notify['z']
notify { 'z': }
class c { @notify { 'from-c': } Notify <| QUERY |> }
include c
@notify { 'last': }
"#;
        let all = compile(&code.replace("QUERY", ""));
        let general = compile(&code.replace("QUERY", "title != 'never-a-title'"));
        for title in [
            "v-i-a",
            "w-o2-b",
            "v-j-o2-a",
            "/tmp/j-o2-b",
            "from-c",
            "last",
        ] {
            assert!(
                all.0.contains(&format!("\"{title}\"")),
                "{title}: {}",
                all.0
            );
        }
        assert_eq!(all, general);
    }

    /// The second compile of an environment starts with room for the first one's
    /// resources; its catalog is the same.
    #[test]
    fn a_catalog_made_with_room_is_the_same() {
        let code = "class c { notify { [a, b, c]: } } include c\nfile { '/x': }\n";
        let env = Session::new().code(code).load().unwrap();
        assert_eq!(env.catalog_size_hint(), 0);
        let first = env.compile(&Settings::default()).catalog.unwrap();
        // Stage[main], Class[Settings], Class[main], Class[C], three notifies and the file.
        assert_eq!(env.catalog_size_hint(), 8);
        let second = env.compile(&Settings::default()).catalog.unwrap();
        assert_eq!(first.to_json(), second.to_json());
    }
}
