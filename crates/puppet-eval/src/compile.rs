//! Catalog compilation: the parts of the [`Compiler`] that build the catalog.
//!
//! Node matching, resource declarations (titles, per-expression defaults, virtual and
//! exported forms, tags, containment), classes (`include`/`require`/`contain` and the
//! resource-like form, inheritance, parameters, stages), defined-type instances evaluated
//! lazily after the code that declared them, and the work Puppet's compiler does when the
//! code has run: collectors until nothing changes, overrides, resource defaults along the
//! declaration chain, and chaining-arrow relationships turned into `before`/`notify`.

use crate::catalog::{
    AttrSpans, CollectQuery, Collector, Override, RelEnd, Relationship, Resource, ResourceKey,
    ResourceKind,
};
use crate::eval::{capitalize, Compiler, ErrorKind, EvalError, Flow, ParamGuard, PendingParams};
use crate::ir::*;
use crate::lower::{ClassDef, DefineDef, HostMatch};
use crate::ops;
use crate::scope::{Scope, ScopeId, ScopeKind};
use indexmap::{IndexMap, IndexSet};
use puppet_graph::RelationKind;
use puppet_types::types::ResourceType;
use puppet_types::{is_instance, Type, Value};
use smol_str::SmolStr;
use std::sync::Arc;

type R<T> = Result<T, Flow>;

/// The groups of a regex match (`$0`, `$1`, ...).
type MatchData = Vec<Option<String>>;

fn err<T>(message: impl Into<String>, span: &Span) -> R<T> {
    err_code(crate::eval::codes::EVAL_ERROR, message, span)
}

fn err_code<T>(code: &'static str, message: impl Into<String>, span: &Span) -> R<T> {
    Err(Flow::Error(EvalError {
        code,
        kind: Default::default(),
        message: message.into(),
        span: Some(span.clone()),
    }))
}

/// How a class is declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClassDecl {
    Include,
    Require,
    Contain,
    /// `class { 'x': ... }`
    ResourceLike,
}

impl Compiler {
    /// The resource whose code runs in `scope` (the nearest class, define instance or node;
    /// `Class[main]` at top level).
    pub(crate) fn container_of(&self, mut scope: ScopeId) -> ResourceKey {
        loop {
            let s = self.scopes.get(scope);
            if let Some(r) = &s.resource {
                return r.clone();
            }
            match s.parent {
                Some(p) => scope = p,
                None => return ResourceKey::new("Class", "main"),
            }
        }
    }

    /// The nearest scope that lives for the whole compile (lambda and function-call scopes
    /// are released when they return, so nothing kept past the call may name them).
    pub(crate) fn persistent_scope(&self, mut scope: ScopeId) -> ScopeId {
        loop {
            let s = self.scopes.get(scope);
            match (&s.kind, s.parent) {
                (ScopeKind::Local, Some(p)) => scope = p,
                _ => return scope,
            }
        }
    }

    /// Releases a finished lambda or function-call scope, with the resource defaults it
    /// declared.
    pub(crate) fn release_scope(&mut self, id: ScopeId) {
        self.catalog.defaults.retain(|(sid, _, _, _)| *sid != id);
        self.scopes.release(id);
    }

    /// Adds the tags of the resource `container` to `res` (Puppet copies the declaring
    /// scope's resource's tags into each resource it declares).
    fn inherit_tags(&self, res: &mut Resource, container: &ResourceKey) {
        if let Some(c) = self.catalog.get(container) {
            for t in &c.tags {
                res.tags.insert(t.clone());
            }
        }
    }

    /// Evaluates the node definition matching the node name, if the code has any: an exact
    /// name first, then regexes in order, then `default`. Its body runs in a node scope
    /// (whose resource is `Node[name]`), which the classes it declares see.
    pub(crate) fn evaluate_node(&mut self) -> R<()> {
        let env = self.env.clone();
        if env.nodes().is_empty() {
            return Ok(());
        }
        let name = self.settings.node_name.to_ascii_lowercase();
        // Puppet 7's candidate names (strict_hostname_checking is on): the certname, then
        // `default`; for each, an exact node, then a regex node matching it (so a regex may
        // match the word "default" before `node default` is used).
        let names = [name.clone(), "default".to_string()];
        // (node index, resource name, regex captures)
        let mut found: Option<(usize, SmolStr, Option<MatchData>)> = None;
        'names: for candidate in &names {
            for (i, n) in env.nodes().iter().enumerate() {
                for m in &n.matches {
                    let exact = match m {
                        HostMatch::Name(x) => *x == candidate.as_str(),
                        HostMatch::Default => candidate == "default",
                        HostMatch::Regex(_) => false,
                    };
                    if exact {
                        found = Some((i, SmolStr::new(candidate), None));
                        break 'names;
                    }
                }
            }
            for (i, n) in env.nodes().iter().enumerate() {
                for m in &n.matches {
                    if let HostMatch::Regex(r) = m {
                        if let Some(caps) = r.captures(candidate) {
                            found = Some((i, node_regex_name(r.source()), Some(caps)));
                            break 'names;
                        }
                    }
                }
            }
        }
        let Some((index, node_name, captures)) = found else {
            return Err(Flow::Error(EvalError {
                code: crate::eval::codes::NO_MATCHING_NODE,
                kind: ErrorKind::Complete,
                message: format!("Could not find node statement with name 'default' or '{name}'"),
                span: None,
            }));
        };
        let node = env.nodes()[index].clone();
        let key = ResourceKey {
            type_name: "Node".into(),
            title: node_name.clone(),
        };
        let main = ResourceKey::new("Class", "main");
        let mut res = Resource::new("Node", &node_name);
        res.kind = ResourceKind::Node;
        res.tags.insert("node".into());
        res.tag_title();
        self.inherit_tags(&mut res, &main);
        res.container = Some(main);
        res.span = Some(node.span.clone());
        self.catalog.add(res);
        self.node_classes.push(node_name.clone());
        let top = self.top;
        let mut scope = Scope::new(ScopeKind::Node, Some(top), key.to_string());
        scope.resource = Some(key);
        scope.dyn_parent = Some(top);
        if let Some(caps) = captures {
            scope.matches.push(caps);
        }
        let id = self.scopes.add(scope);
        self.node_scope = Some(id);
        self.eval_block(&node.body, id)?;
        Ok(())
    }

    /// Declares the classes an external node classifier gave, in the node scope (or top
    /// scope without a node definition): with parameters resource-like, else included.
    pub(crate) fn evaluate_enc_classes(&mut self) -> R<()> {
        let classes = self.settings.enc_classes.clone();
        if classes.is_empty() {
            return Ok(());
        }
        let scope = self.node_scope.unwrap_or(self.top);
        let span = Span {
            file: Arc::new(crate::ir::SourceFile::new(None, "")),
            start: 0,
            end: 0,
        };
        for (name, params) in classes {
            match params {
                Some(p) => {
                    self.declare_class(&name, Some(p), ClassDecl::ResourceLike, scope, &span)?
                }
                None => {
                    self.declare_classes(&[name.to_string()], ClassDecl::Include, scope, &span)?
                }
            }
        }
        Ok(())
    }

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
                code: crate::eval::codes::EVAL_ERROR,
                kind: ErrorKind::Complete,
                message: format!("Failed to realize virtual resources {}", refs.join(", ")),
                span: None,
            }));
        }
        self.validate_resources()?;
        Ok(())
    }

    /// Puppet's checks of the finished resources: every attribute of a built-in type is
    /// one it has, and every relationship metaparameter names a resource in the catalog.
    fn validate_resources(&self) -> R<()> {
        let db = self.types();
        for (key, r) in &self.catalog.resources {
            if r.virtual_ {
                continue;
            }
            let at = r.span.as_ref().map(location).unwrap_or_default();
            if r.kind == ResourceKind::Builtin {
                for name in r.params.keys() {
                    if let Err(m) = db.check_parameter(&r.type_name.to_ascii_lowercase(), name) {
                        return Err(Flow::Error(EvalError {
                            code: crate::eval::codes::EVAL_ERROR,
                            kind: ErrorKind::Complete,
                            // Puppet appends the resource's location once more.
                            message: format!("{m} {at} on {key} {at}"),
                            span: None,
                        }));
                    }
                }
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
                let at = match r.param_spans.get(param) {
                    Some(s) => format!(" {}", location(s)),
                    None => String::new(),
                };
                for target in flatten(v) {
                    let tkey = match &target {
                        Value::String(s) => match parse_reference(s) {
                            Some(k) => k,
                            None => {
                                return Err(Flow::Error(EvalError {
 code: crate::eval::codes::EVAL_ERROR,
 kind: ErrorKind::Complete,
                                    message: format!(
                                        "No title provided and {:?} is not a valid resource reference{at}",
                                        s.as_str()
                                    ),
                                    span: None,
                                }))
                            }
                        },
                        Value::Undef => continue,
                        other => match self.refs_of(other).into_iter().next() {
                            Some(k) => k,
                            None => continue,
                        },
                    };
                    // Virtual resources count, realized or not (see apply_relationships).
                    if self.resolve_ref(&tkey).is_none() {
                        return Err(Flow::Error(EvalError {
                            code: crate::eval::codes::MISSING_RELATIONSHIP_TARGET,
                            kind: ErrorKind::Complete,
                            message: format!(
                                "Could not find resource '{tkey}' in parameter '{param}'{at}"
                            ),
                            span: None,
                        }));
                    }
                }
            }
        }
        Ok(())
    }

    /// Realizes the virtual resources that collectors select and queues their attribute
    /// operations as overrides; true when something new was collected.
    fn apply_collectors(&mut self) -> R<bool> {
        let mut changed = false;
        for i in 0..self.catalog.collectors.len() {
            let c = &self.catalog.collectors[i];
            if c.exported {
                continue;
            }
            let type_name = c.type_name.clone();
            let keys: Vec<ResourceKey> = self
                .catalog
                .resources
                .iter()
                .filter(|(k, r)| {
                    k.type_name.eq_ignore_ascii_case(&type_name)
                        && !r.exported
                        && !c.collected.contains(*k)
                        && query_matches(&c.query, r)
                })
                .map(|(k, _)| k.clone())
                .collect();
            if keys.is_empty() {
                continue;
            }
            changed = true;
            let (attrs, scope, span) = (c.attrs.clone(), c.scope, c.span.clone());
            let attr_spans = c.attr_spans.clone();
            for k in keys {
                self.catalog.realize(&k);
                if !attrs.is_empty() {
                    if self.evaluated_defines.contains(&k) {
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
    fn merge_scope_tags(&mut self) {
        let keys: Vec<ResourceKey> = self.catalog.resources.keys().cloned().collect();
        for k in keys {
            let Some(c) = self.catalog.get(&k).and_then(|r| r.container.clone()) else {
                continue;
            };
            if matches!(c.type_name.as_str(), "Stage") {
                continue;
            }
            let tags = match self.catalog.get(&c) {
                Some(r) => r.tags.clone(),
                None => continue,
            };
            if let Some(r) = self.catalog.resources.get_mut(&k) {
                for t in tags {
                    r.tags.insert(t);
                }
            }
        }
    }

    /// Puppet's last step of `finish` (`add_resource_metaparams`): walking the containment
    /// tree breadth first from `Class[main]`, each resource gets the non-relationship
    /// metaparameters (`noop`, `schedule`, `audit`, `loglevel`, `alias`, `tag`, `stage`) of
    /// its container that it does not set itself. Only what `Class[main]` contains is
    /// walked: classes hang from `Stage[main]`, so what a class (or a define instance
    /// declared in one) contains inherits nothing.
    fn inherit_metaparameters(&mut self) {
        const INHERITED: &[&str] = &[
            "noop", "schedule", "audit", "loglevel", "alias", "tag", "stage",
        ];
        let mut children: IndexMap<&ResourceKey, Vec<&ResourceKey>> = IndexMap::new();
        for (container, child) in &self.catalog.edges {
            children.entry(container).or_default().push(child);
        }
        let main = ResourceKey::new("Class", "main");
        let mut queue = std::collections::VecDeque::from([main.clone()]);
        let mut seen: IndexSet<ResourceKey> = IndexSet::new();
        let mut updates: Vec<(ResourceKey, SmolStr, Value)> = Vec::new();
        // Values as they are after the walk: what a container passes on includes what it
        // inherited itself.
        let mut inherited: IndexMap<ResourceKey, Vec<(SmolStr, Value)>> = IndexMap::new();
        while let Some(source) = queue.pop_front() {
            if !seen.insert(source.clone()) {
                continue;
            }
            let Some(targets) = children.get(&source) else {
                continue;
            };
            let mut data: Vec<(SmolStr, Value)> =
                inherited.get(&source).cloned().unwrap_or_default();
            if let Some(r) = self.catalog.get(&source) {
                for m in INHERITED {
                    if let Some(v) = r.params.get(*m).filter(|v| !v.is_undef()) {
                        if !data.iter().any(|(k, _)| k == m) {
                            data.push((SmolStr::new(m), v.clone()));
                        }
                    }
                }
            }
            for t in targets {
                if let Some(tr) = self.catalog.get(t) {
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
            if let Some(r) = self.catalog.resources.get_mut(&key) {
                r.params.insert(k, v);
            }
        }
    }

    /// Realizes the resources `realize` named before they were declared; true when one
    /// was found.
    fn apply_pending_realize(&mut self) -> bool {
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
    fn apply_pending_overrides(&mut self) -> R<()> {
        let pending = std::mem::take(&mut self.catalog.overrides);
        let mut by_ref: IndexMap<ResourceKey, Vec<Override>> = IndexMap::new();
        for o in pending {
            by_ref.entry(o.key.clone()).or_default().push(o);
        }
        let keys: Vec<ResourceKey> = self.catalog.resources.keys().cloned().collect();
        for key in keys {
            let Some(overrides) = by_ref.shift_remove(&key) else {
                continue;
            };
            for o in overrides {
                self.check_override_source(&key, o.scope, &o.span)?;
                self.apply_override(&key, &o.attrs, &o.attr_spans, o.scope, &o.span, false)?;
            }
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
            code: crate::eval::codes::EVAL_ERROR,
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
    fn check_override_source(&self, key: &ResourceKey, scope: ScopeId, span: &Span) -> R<()> {
        let Some(target) = self.catalog.get(key) else {
            return Ok(());
        };
        let Some(source) = target.container.clone() else {
            return Ok(());
        };
        let container = self.container_of(scope);
        if container == source || self.inherits(&container, &source) {
            return Ok(());
        }
        Err(Flow::Error(EvalError {
            code: crate::eval::codes::EVAL_ERROR,
            kind: ErrorKind::Complete,
            message: format!("Only subclasses can override parameters {}", location(span)),
            span: Some(span.clone()),
        }))
    }

    /// Sets attributes on an existing resource, as an override (`+>` appends). A plain
    /// override may only change an attribute set by code the overriding scope inherits
    /// from; collectors may always.
    fn apply_override(
        &mut self,
        key: &ResourceKey,
        attrs: &[(SmolStr, Value, bool)],
        attr_spans: &AttrSpans,
        scope: ScopeId,
        span: &Span,
        from_collector: bool,
    ) -> R<()> {
        let source = self.container_of(scope);
        if !from_collector {
            // Puppet's rule per parameter: a value may be replaced by code of a subclass of
            // the code that set it (the declaring class, or the override that set it last);
            // the same code may only replace a value that came from resource defaults.
            if let Some(r) = self.catalog.get(key) {
                for (name, _, _) in attrs {
                    if !r.params.contains_key(name) {
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
                    } || (same && r.defaulted.contains(name));
                    if !allowed {
                        let at = at.map(location).unwrap_or_default();
                        return Err(Flow::Error(EvalError {
                            code: crate::eval::codes::EVAL_ERROR,
                            kind: ErrorKind::Complete,
                            message: format!(
                                "Parameter '{name}' is already set on {key} by #<Puppet::Resource::Type> at {at}; cannot redefine {}",
                                location(span)
                            ),
                            span: Some(span.clone()),
                        }));
                    }
                }
            }
        }
        let Some(r) = self.catalog.resources.get_mut(key) else {
            return Ok(());
        };
        for (name, v, append) in attrs {
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
                    r.tag(&t);
                }
            }
            r.params.insert(name.clone(), new);
            r.defaulted.shift_remove(name);
            r.overridden_by
                .insert(name.clone(), (Some(source.clone()), span.clone()));
            if let Some(s) = attr_spans.get(name) {
                r.param_spans.insert(name.clone(), s.clone());
            }
        }
        Ok(())
    }

    /// Whether class `child` inherits (directly or not) from `ancestor`: Puppet's
    /// `child_of?` (false for the class itself, and for anything but classes).
    fn inherits(&self, child: &ResourceKey, ancestor: &ResourceKey) -> bool {
        let mut cur = child.clone();
        for _ in 0..1000 {
            if cur.type_name != "Class" {
                return false;
            }
            let name = cur.title.to_ascii_lowercase();
            let Some(parent) = self.env.class(name.as_str()).and_then(|d| d.parent.clone()) else {
                return false;
            };
            cur = ResourceKey::new("Class", &parent);
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

    /// [`Compiler::defaults_for`], with where each default is written and the scope of its
    /// defaults statement.
    fn defaults_with_spans(&self, res: &Resource) -> Vec<(SmolStr, Value, Option<Span>, ScopeId)> {
        let mut out: IndexMap<SmolStr, (Value, Option<Span>, ScopeId)> = IndexMap::new();
        let mut scope = res.scope;
        let mut seen = 0;
        while let Some(id) = scope {
            seen += 1;
            if seen > 100_000 {
                break;
            }
            for (sid, tname, attrs, spans) in self.catalog.defaults.iter().rev() {
                if *sid == id && tname.eq_ignore_ascii_case(&res.type_name) {
                    for (k, v, _) in attrs.iter().rev() {
                        if !res.params.contains_key(k) && !out.contains_key(k) {
                            out.insert(k.clone(), (v.clone(), spans.get(k).cloned(), *sid));
                        }
                    }
                }
            }
            let s = self.scopes.get(id);
            scope = s.dyn_parent.or(s.parent);
        }
        out.into_iter()
            .filter(|(_, (v, _, _))| !v.is_undef())
            .map(|(k, (v, s, sid))| (k, v, s, sid))
            .collect()
    }

    /// Turns the chaining arrows into `before`/`notify` parameters of their sources, after
    /// checking that both ends exist.
    fn apply_relationships(&mut self) -> R<()> {
        let rels = std::mem::take(&mut self.catalog.relationships);
        for rel in &rels {
            let sources = self.rel_end_keys(&rel.source);
            let targets = self.rel_end_keys(&rel.target);
            for s in &sources {
                for t in &targets {
                    // A virtual resource is in the compiler's catalog (it is only left
                    // out of the finished one), so it is a valid end, realized or not.
                    for (missing, other, word) in [(s, t, "on"), (t, s, "from")] {
                        if self.resolve_ref(missing).is_none() {
                            // Puppet gives no location; the arrow's span is kept for tools.
                            return Err(Flow::Error(EvalError {
                                code: crate::eval::codes::MISSING_RELATIONSHIP_TARGET,
                                kind: ErrorKind::Complete,
                                message: format!(
                                    "Could not find resource '{missing}' for relationship {word} '{other}'"
                                ),
                                span: Some(rel.span.clone()),
                            }));
                        }
                    }
                    let s = &self.resolve_ref(s).unwrap_or_else(|| s.clone());
                    let param = if rel.notify { "notify" } else { "before" };
                    let target_ref = Value::Type(Type::Resource(Arc::new(ResourceType {
                        type_name: Some(t.type_name.clone()),
                        title: Some(t.title.clone()),
                    })));
                    if let Some(r) = self.catalog.resources.get_mut(s) {
                        let mut list = match r.params.get(param) {
                            Some(Value::Array(a)) => (**a).clone(),
                            Some(Value::Undef) | None => Vec::new(),
                            Some(other) => vec![other.clone()],
                        };
                        list.push(target_ref);
                        r.params.insert(param.into(), Value::array(list));
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
        if info.namevars.len() == 1 {
            let parsed = db.parse_title(&tname, &key.title).ok()?;
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
        let values = db
            .namevar_values(&tname, &key.title, |_| None::<String>)
            .ok()?;
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

    fn rel_end_keys(&self, end: &RelEnd) -> Vec<ResourceKey> {
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

    // ---- expressions that build the catalog ----

    pub(crate) fn eval_attr_ops(
        &mut self,
        ops: &[AttrOp],
        scope: ScopeId,
    ) -> R<Vec<(SmolStr, Value, bool)>> {
        let mut out = Vec::new();
        let mut unfolded = false;
        for op in ops {
            let v = self.eval(&op.value, scope)?;
            match &op.name {
                Some(n) => out.push((n.clone(), v, op.append)),
                None => {
                    if unfolded {
                        return err(
                            "Unfolding of attributes from Hash can only be used once per resource body",
                            &op.span,
                        );
                    }
                    unfolded = true;
                    if let Value::Hash(h) = v {
                        for (k, val) in h.iter() {
                            out.push((SmolStr::new(k.to_plain_string()), val.clone(), false));
                        }
                    } else if !v.is_undef() {
                        return err(
                            format!(
                                "Evaluation Error: '* =>' expects a Hash, got {}",
                                crate::eval::type_name_of(&v)
                            ),
                            &op.span,
                        );
                    }
                }
            }
        }
        Ok(out)
    }

    fn eval_query(&mut self, q: &Query, scope: ScopeId) -> R<CollectQuery> {
        use CollectQuery as Q;
        Ok(match q {
            Query::All => Q::All,
            Query::Eq(a, e) => Q::Eq(a.clone(), self.eval(e, scope)?),
            Query::Ne(a, e) => Q::Ne(a.clone(), self.eval(e, scope)?),
            Query::And(a, b) => Q::And(
                Box::new(self.eval_query(a, scope)?),
                Box::new(self.eval_query(b, scope)?),
            ),
            Query::Or(a, b) => Q::Or(
                Box::new(self.eval_query(a, scope)?),
                Box::new(self.eval_query(b, scope)?),
            ),
        })
    }

    /// `Type <| query |> { attrs }`: registers a collector; its index.
    pub(crate) fn collect_expr(
        &mut self,
        type_name: &SmolStr,
        exported: bool,
        query: &Query,
        ops: &[AttrOp],
        scope: ScopeId,
        span: &Span,
    ) -> R<usize> {
        let lname = type_name.trim_start_matches("::").to_ascii_lowercase();
        if lname == "class" {
            return err(
                "Error while evaluating a Virtual Query, Classes cannot be collected",
                span,
            );
        }
        if self.env.define(lname.as_str()).is_none()
            && !self.env.resource_type_known(&lname)
            && lname != "node"
        {
            return err(
                format!(
                    "Error while evaluating a Virtual Query, Resource type {lname} doesn't exist"
                ),
                span,
            );
        }
        let attrs = self.eval_attr_ops(ops, scope)?;
        let q = self.eval_query(query, scope)?;
        if exported {
            self.warn(
                "You cannot collect exported resources without storeconfigs being set; the collection will be ignored"
                    .into(),
            );
        }
        let scope = self.persistent_scope(scope);
        self.catalog.collectors.push(Collector {
            type_name: SmolStr::new(capitalize(&lname)),
            exported,
            query: q,
            attrs,
            attr_spans: relationship_spans(ops),
            scope,
            span: span.clone(),
            collected: Default::default(),
        });
        Ok(self.catalog.collectors.len() - 1)
    }

    /// `Type['x'] { attrs }`: applied at once when the resource exists, else at the end.
    pub(crate) fn override_expr(
        &mut self,
        target: &Expr,
        ops: &[AttrOp],
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        let t = self.eval(target, scope)?;
        let attrs = self.eval_attr_ops(ops, scope)?;
        if let Value::Type(Type::Class(_)) = &t {
            return err(
                format!(
                    "Resource Override can only operate on resources, got: {}-Type",
                    t
                ),
                span,
            );
        }
        let attr_spans = relationship_spans(ops);
        for key in self.refs_of(&t) {
            let key = self.resolve_ref(&key).unwrap_or(key);
            if self.catalog.get(&key).is_some() {
                self.check_override_source(&key, scope, span)?;
                self.apply_override(&key, &attrs, &attr_spans, scope, span, false)?;
            } else {
                self.catalog.overrides.push(Override {
                    key,
                    attrs: attrs.clone(),
                    attr_spans: attr_spans.clone(),
                    scope: self.persistent_scope(scope),
                    span: span.clone(),
                });
            }
        }
        Ok(Value::Undef)
    }

    /// `Type { attrs }`: resource defaults for the scope.
    pub(crate) fn defaults_expr(
        &mut self,
        type_expr: &Expr,
        ops: &[AttrOp],
        scope: ScopeId,
    ) -> R<Value> {
        let t = self.eval(type_expr, scope)?;
        let attrs = self.eval_attr_ops(ops, scope)?;
        let tname = match &t {
            Value::Type(Type::Resource(r)) => r.type_name.clone().unwrap_or_default(),
            other => SmolStr::new(other.to_plain_string()),
        };
        self.catalog
            .defaults
            .push((scope, tname, attrs, attribute_spans(ops)));
        Ok(t)
    }

    /// One operand of a chaining arrow: references, or a collector (what it collects).
    fn rel_operand(&mut self, e: &Expr, scope: ScopeId) -> R<(RelEnd, Value)> {
        match &e.kind {
            ExprKind::Collect {
                type_name,
                exported,
                query,
                ops,
            } => {
                let i = self.collect_expr(type_name, *exported, query, ops, scope, &e.span)?;
                Ok((RelEnd::Collector(i, None), Value::Undef))
            }
            ExprKind::Relationship(op, l, r) => self.relationship_expr(*op, l, r, scope, &e.span),
            _ => {
                let v = self.eval(e, scope)?;
                if !is_catalog_ref(&v) {
                    return err(
                        format!(
                            "Illegal relationship operand, can not form a relationship with {}. A Catalog type is required.",
                            ops::a_an_value(&v)
                        ),
                        &e.span,
                    );
                }
                Ok((RelEnd::Refs(self.refs_of(&v)), v))
            }
        }
    }

    /// `a -> b` (and `~>`, `<-`, `<~`): recorded, resolved when the compile finishes. The
    /// value is the right operand.
    pub(crate) fn relationship_expr(
        &mut self,
        op: RelOp,
        l: &Expr,
        r: &Expr,
        scope: ScopeId,
        span: &Span,
    ) -> R<(RelEnd, Value)> {
        let (a, av) = self.rel_operand(l, scope)?;
        let (b, bv) = self.rel_operand(r, scope)?;
        // An empty right operand closes the gap: the chain continues from the left one
        // (for a collector, once it is known to have collected nothing).
        if matches!(&b, RelEnd::Refs(k) if k.is_empty()) {
            return Ok((a, av));
        }
        // The chain goes on from the right operand; for a collector, with what preceded it
        // (for when it collects nothing). The relationship itself is to the collector only.
        let chain = match &b {
            RelEnd::Collector(i, _) => RelEnd::Collector(*i, Some(Box::new(a.clone()))),
            other => other.clone(),
        };
        let (source, target) = match op {
            RelOp::Before | RelOp::Notify => (a, b.clone()),
            RelOp::Require | RelOp::Subscribe => (b.clone(), a),
        };
        self.catalog.relationships.push(Relationship {
            source,
            target,
            notify: matches!(op, RelOp::Notify | RelOp::Subscribe),
            span: span.clone(),
        });
        let v = match bv {
            Value::Array(_) | Value::Undef => bv,
            other => Value::array(vec![other]),
        };
        Ok((chain, v))
    }

    /// The resource keys a value refers to (`File['a']`, arrays of references, `Class['x']`).
    pub(crate) fn refs_of(&self, v: &Value) -> Vec<ResourceKey> {
        match v {
            Value::Type(Type::Resource(r)) => match (&r.type_name, &r.title) {
                (Some(t), Some(title)) => vec![ResourceKey::new(t, title)],
                _ => vec![],
            },
            Value::Type(Type::Class(Some(name))) => vec![ResourceKey::new("Class", name)],
            Value::Array(a) => a.iter().flat_map(|x| self.refs_of(x)).collect(),
            _ => vec![],
        }
    }

    /// A resource expression: declares one resource per title of each body (classes for
    /// `class`), with the expression's `default:` body merged under each.
    pub(crate) fn resource_expr(
        &mut self,
        form: ResourceForm,
        type_expr: &Expr,
        bodies: &[ResourceBody],
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        let type_name: SmolStr = match &type_expr.kind {
            ExprKind::Name(n) => n.trim_start_matches("::").to_ascii_lowercase().into(),
            _ => match self.eval(type_expr, scope)? {
                Value::Type(Type::Resource(r)) if r.title.is_none() => r
                    .type_name
                    .clone()
                    .unwrap_or_default()
                    .to_ascii_lowercase()
                    .into(),
                Value::Type(Type::Class(None)) => "class".into(),
                other => {
                    return err(
                        format!("Illegal Resource Type expression, expected result to be a type name, or untitled Resource, got {}", value_type_label(&other)),
                        span,
                    )
                }
            },
        };
        // Evaluate every body first: titles and attributes, and the `default:` body.
        let mut evaluated = Vec::new();
        let mut defaults: Vec<(SmolStr, Value, bool)> = Vec::new();
        let mut seen_titles: IndexSet<String> = IndexSet::new();
        for body in bodies {
            // As Puppet: the titles are checked before the attributes are evaluated.
            let title = self.eval(&body.title, scope)?;
            let is_array = matches!(title, Value::Array(_));
            let titles: Vec<Value> = flatten(&title);
            let mut plain = Vec::new();
            let mut is_default = false;
            for (i, t) in titles.into_iter().enumerate() {
                let t = match t {
                    Value::String(s) => {
                        if s.is_empty() {
                            return err(
                                format!("Empty string title at {i}. Title strings must have a length greater than zero."),
                                &body.title.span,
                            );
                        }
                        s
                    }
                    Value::Default => SmolStr::new("\u{0}default"),
                    Value::Undef => {
                        return if is_array {
                            err(
                                format!("Missing title at index {i}. The title expression resulted in an undef title"),
                                &body.title.span,
                            )
                        } else {
                            err(
                                "Missing title. The title expression resulted in undef",
                                &body.title.span,
                            )
                        };
                    }
                    other => {
                        return err(
                            format!(
                                "Illegal title type at index {i}. Expected String, got {}",
                                value_type_label(&other)
                            ),
                            &body.title.span,
                        )
                    }
                };
                let shown = if t.as_str() == "\u{0}default" {
                    "default".to_string()
                } else {
                    t.to_string()
                };
                if !seen_titles.insert(t.to_string()) {
                    return err(
                        format!(
                            "The title '{shown}' has already been used in this resource expression"
                        ),
                        &body.title.span,
                    );
                }
                if t.as_str() == "\u{0}default" {
                    is_default = true;
                } else {
                    plain.push(t);
                }
            }
            let attrs = self.eval_attr_ops(&body.ops, scope)?;
            for (i, (name, _, _)) in attrs.iter().enumerate() {
                if attrs[..i].iter().any(|(n, _, _)| n == name) {
                    return err(
                        format!("The attribute '{name}' has already been set"),
                        &body.span,
                    );
                }
            }
            if is_default {
                defaults = attrs.clone();
            }
            evaluated.push((body, plain, attrs));
        }
        let mut refs = Vec::new();
        for (body, titles, attrs) in evaluated {
            let mut attrs = attrs;
            for d in &defaults {
                if !attrs.iter().any(|(n, _, _)| n == &d.0) {
                    attrs.push(d.clone());
                }
            }
            for t in titles {
                // Puppet locates every resource of the expression, and the statement's
                // errors, at the whole expression.
                let r = self.declare_resource(form, &type_name, &t, &attrs, scope, span)?;
                // Where each relationship attribute was written; those of a `* => hash`
                // are at the `*`.
                let key = ResourceKey::new(&type_name, &t);
                if let Some(res) = self.catalog.resources.get_mut(&key) {
                    let named = relationship_spans(&body.ops);
                    for op in body.ops.iter().filter(|op| op.name.is_none()) {
                        for p in RelationKind::PUPPET_ORDER.map(RelationKind::as_str) {
                            if res.params.contains_key(p) && !named.contains_key(p) {
                                res.param_spans.insert(SmolStr::new(p), op.span.clone());
                            }
                        }
                    }
                    res.param_spans.extend(named);
                }
                refs.push(r);
            }
        }
        Ok(Value::array(refs))
    }

    /// Declares one resource (or class) with evaluated attributes; its reference.
    pub(crate) fn declare_resource(
        &mut self,
        form: ResourceForm,
        type_name: &str,
        title: &str,
        attrs: &[(SmolStr, Value, bool)],
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        if type_name == "class" {
            let cname = SmolStr::new(title.trim_start_matches("::").to_ascii_lowercase());
            let params: IndexMap<SmolStr, Value> = attrs
                .iter()
                .map(|(k, v, _)| (k.clone(), v.clone()))
                .collect();
            self.declare_class(&cname, Some(params), ClassDecl::ResourceLike, scope, span)?;
            return Ok(Value::Type(Type::Resource(Arc::new(ResourceType {
                type_name: Some(SmolStr::new("Class")),
                title: Some(SmolStr::new(capitalize(&cname))),
            }))));
        }
        let is_define = self.find_define(type_name)?.is_some();
        if !is_define && !self.env.resource_type_known(type_name) {
            return err_code(
                crate::eval::codes::UNKNOWN_RESOURCE_TYPE,
                format!("Error while evaluating a Resource Statement, Unknown resource type: '{type_name}'"),
                span,
            );
        }
        let cap = capitalize(type_name);
        let mut res = Resource::new(&cap, title);
        res.kind = if is_define {
            ResourceKind::Define
        } else {
            ResourceKind::Builtin
        };
        res.virtual_ = form != ResourceForm::Regular;
        res.exported = form == ResourceForm::Exported;
        if res.exported {
            self.warn(
                "You cannot collect exported resources without storeconfigs being set; the export is ignored".into(),
            );
        }
        res.scope = Some(scope);
        res.span = Some(span.clone());
        res.tag(type_name);
        if !self.untagged_title {
            res.tag_title();
        }
        let container = self.container_of(scope);
        self.inherit_tags(&mut res, &container);
        for (k, v, _) in attrs {
            if k == "tag" {
                for t in tag_values(v) {
                    res.tag(&t);
                }
            }
            res.params.insert(k.clone(), v.clone());
        }
        // Stages are not contained in anything.
        if type_name != "stage" {
            res.container = Some(container);
        } else {
            res.kind = ResourceKind::Stage;
        }
        // Resource defaults are those evaluated before the declaration, along the
        // declaration chain (Puppet applies them when the resource is created).
        for (k, v, at, sid) in self.defaults_with_spans(&res) {
            if k == "tag" {
                for t in tag_values(&v) {
                    res.tag(&t);
                }
            }
            if !res.params.contains_key(&k) {
                if let Some(at) = at {
                    // Puppet's source of a default is the code of the defaults statement.
                    let setter = Some(self.container_of(sid));
                    res.overridden_by.insert(k.clone(), (setter, at.clone()));
                    if RelationKind::from_param(&k).is_some() {
                        res.param_spans.insert(k.clone(), at);
                    }
                }
                res.defaulted.insert(k.clone());
                res.params.insert(k, v);
            }
        }
        res.scope = Some(self.persistent_scope(scope));
        let key = res.key();
        if let Some(prev) = self.catalog.get(&key).or_else(|| {
            self.catalog
                .aliases
                .get(&key)
                .and_then(|k| self.catalog.get(k))
        }) {
            let at = match &prev.span {
                Some(s) => format!(" at {}", location(s)),
                None => String::new(),
            };
            return err_code(
                crate::eval::codes::DUPLICATE_DECLARATION,
                format!(
                    "Error while evaluating a Resource Statement, Duplicate declaration: {key} is already declared{at}; cannot redeclare {}",
                    location(span)
                ),
                span,
            );
        }
        if !is_define {
            self.register_names(&mut res, span)?;
        }
        self.catalog.add(res);
        Ok(Value::Type(Type::Resource(Arc::new(ResourceType {
            type_name: Some(SmolStr::new(&cap)),
            title: Some(SmolStr::new(title)),
        }))))
    }

    /// Puppet's uniqueness rules for a resource of a built-in type: the namevars its title
    /// patterns give become parameters, its uniqueness key (namevar values) must be free,
    /// and a namevar differing from the title, or an `alias`, is another name for it.
    fn register_names(&mut self, res: &mut Resource, span: &Span) -> R<()> {
        let db = self.types();
        let tname = res.type_name.to_ascii_lowercase();
        let Some(info) = db.get(&tname) else {
            return Ok(());
        };
        if let Ok(parsed) = db.parse_title(&tname, &res.title) {
            for (attr, v) in parsed {
                if v != res.title.as_str() && !res.params.contains_key(attr.as_str()) {
                    res.params.insert(attr, Value::string(v));
                }
            }
        }
        // Only isomorphic types (not exec, say) have uniqueness keys and namevar aliases.
        if !info.isomorphic {
            return Ok(());
        }
        let params = res.params.clone();
        let text_of = |p: &str| -> Option<String> {
            params
                .get(p)
                .filter(|v| !v.is_undef())
                .map(|v| v.to_plain_string())
        };
        let key = res.key();
        if let Ok(values) = db.namevar_values(&tname, &res.title, |p| text_of(p)) {
            use puppet_restypes::NamevarValue as N;
            let ukey: Vec<Option<String>> = values
                .iter()
                .map(|(_, v)| match v {
                    N::Given(s) => Some(s.clone()),
                    N::FromTitle(s) => Some(s.clone()),
                    N::Missing => None,
                })
                .collect();
            let uk = (res.type_name.clone(), ukey.clone());
            if let Some(other) = self.catalog.uniqueness.get(&uk) {
                if *other != key {
                    let existing = self
                        .catalog
                        .get(other)
                        .and_then(|r| r.span.as_ref())
                        .map(location);
                    let refs: Vec<Option<&str>> = ukey.iter().map(|k| k.as_deref()).collect();
                    let m = puppet_restypes::alias_conflict_message(
                        &res.type_name,
                        &key.to_string(),
                        &refs,
                        Some(&location(span)),
                        existing.as_deref(),
                    );
                    return err(
                        format!("Error while evaluating a Resource Statement, {m}"),
                        span,
                    );
                }
            }
            self.catalog.uniqueness.insert(uk, key.clone());
            if info.namevars.len() == 1 {
                if let Some(Some(v)) = ukey.first() {
                    if v != res.title.as_str() {
                        self.catalog
                            .aliases
                            .insert(ResourceKey::new(&res.type_name, v), key.clone());
                    }
                }
            }
        }
        if let Some(a) = res.params.get("alias") {
            for name in flatten(a) {
                let name = name.to_plain_string();
                self.catalog
                    .aliases
                    .insert(ResourceKey::new(&res.type_name, &name), key.clone());
            }
        }
        Ok(())
    }

    /// `include`/`require`/`contain` of several classes, as Puppet's `evaluate_classes`:
    /// every class is found (or the call fails) and put in the catalog first, then the new
    /// ones are evaluated in order.
    pub(crate) fn declare_classes(
        &mut self,
        names: &[String],
        how: ClassDecl,
        scope: ScopeId,
        span: &Span,
    ) -> R<()> {
        let mut fresh = Vec::new();
        for n in names {
            let name = n.trim_start_matches("::").to_ascii_lowercase();
            if self.class_started(&name) {
                continue;
            }
            let Some(def) = self.find_class(&name)? else {
                return err_code(
                    crate::eval::codes::UNKNOWN_CLASS,
                    format!(
                        "Error while evaluating a Function Call, Could not find class ::{name} for {}",
                        self.settings.node_name
                    ),
                    span,
                );
            };
            self.add_class_resource(&def, None, how, scope, span)?;
            fresh.push(def);
        }
        for def in fresh {
            if !self.class_started(&def.name) {
                self.evaluate_class(&def, IndexMap::new(), how, scope, span)?;
            }
        }
        for n in names {
            self.declare_class(n, None, how, scope, span)?;
        }
        Ok(())
    }

    /// Declares a class: include-like declarations evaluate it once; a resource-like one
    /// (`params` given) must be the first declaration.
    pub(crate) fn declare_class(
        &mut self,
        name: &str,
        params: Option<IndexMap<SmolStr, Value>>,
        how: ClassDecl,
        scope: ScopeId,
        span: &Span,
    ) -> R<()> {
        let name = name.trim_start_matches("::").to_ascii_lowercase();
        let key = ResourceKey::new("Class", &name);
        if self.class_started(&name) {
            if how == ClassDecl::ResourceLike {
                let at = match self.catalog.get(&key).and_then(|r| r.span.as_ref()) {
                    Some(s) if self.resource_like.contains(name.as_str()) => {
                        format!(" at {}", location(s))
                    }
                    _ => String::new(),
                };
                return err_code(
                    crate::eval::codes::DUPLICATE_DECLARATION,
                    format!(
                        "Error while evaluating a Resource Statement, Duplicate declaration: {key} is already declared{at}; cannot redeclare {}",
                        location(span)
                    ),
                    span,
                );
            }
        } else {
            let Some(def) = self.find_class(&name)? else {
                let message = if how == ClassDecl::ResourceLike {
                    format!("Error while evaluating a Resource Statement, Could not find declared class {name}")
                } else {
                    format!(
                        "Error while evaluating a Function Call, Could not find class ::{name} for {}",
                        self.settings.node_name
                    )
                };
                return err_code(crate::eval::codes::UNKNOWN_CLASS, message, span);
            };
            if how == ClassDecl::ResourceLike {
                self.resource_like.insert(def.name.clone());
            }
            self.add_class_resource(&def, params.as_ref(), how, scope, span)?;
            self.evaluate_class(&def, params.unwrap_or_default(), how, scope, span)?;
        }
        let container = self.container_of(scope);
        match how {
            ClassDecl::Contain => {
                self.catalog.edges.insert((container, key));
            }
            ClassDecl::Require => {
                let target = Value::Type(Type::Class(Some(SmolStr::new(&name))));
                if let Some(r) = self.catalog.resources.get_mut(&container) {
                    let mut list = match r.params.get("require") {
                        Some(Value::Array(a)) => (**a).clone(),
                        Some(Value::Undef) | None => Vec::new(),
                        Some(other) => vec![other.clone()],
                    };
                    list.push(target);
                    r.params.insert("require".into(), Value::array(list));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a class's evaluation has started (it is then never evaluated again).
    fn class_started(&self, name: &str) -> bool {
        self.started_classes.contains(name) || self.class_scopes.contains_key(name)
    }

    /// Adds a class's resource to the catalog (before its body runs), after those of the
    /// classes it inherits from that are not there yet, as Puppet orders them.
    fn add_class_resource(
        &mut self,
        def: &Arc<ClassDef>,
        params: Option<&IndexMap<SmolStr, Value>>,
        how: ClassDecl,
        declared_in: ScopeId,
        span: &Span,
    ) -> R<()> {
        let key = ResourceKey::new("Class", &def.name);
        if self.catalog.get(&key).is_some() {
            return Ok(());
        }
        if let Some(p) = &def.parent {
            let pname = p.trim_start_matches("::").to_ascii_lowercase();
            if !self.class_scopes.contains_key(pname.as_str()) {
                if let Some(pdef) = self.find_class(&pname)? {
                    self.add_class_resource(&pdef, None, ClassDecl::Include, declared_in, span)?;
                }
            }
        }
        let mut res = Resource::new("Class", &key.title);
        res.kind = ResourceKind::Class;
        res.tags.insert("class".into());
        res.tag(&def.name);
        let container = self.container_of(declared_in);
        self.inherit_tags(&mut res, &container);
        res.scope = Some(self.persistent_scope(declared_in));
        res.span = Some(if how == ClassDecl::ResourceLike {
            span.clone()
        } else {
            def.span.clone()
        });
        // The stage: the class's own, else the declaring class's, else main.
        let inherited_stage = self
            .catalog
            .get(&container)
            .and_then(|c| c.params.get("stage"))
            .cloned();
        let stage = match params
            .and_then(|p| p.get("stage"))
            .or(inherited_stage.as_ref())
        {
            Some(Value::String(s)) => s.clone(),
            _ => SmolStr::new("main"),
        };
        if stage != "main" {
            res.params
                .insert("stage".into(), Value::String(stage.clone()));
        }
        res.container = Some(ResourceKey::new("Stage", &stage));
        if let Some(params) = params {
            for (k, v) in params {
                if k == "tag" {
                    for t in tag_values(v) {
                        res.tag(&t);
                    }
                }
            }
        }
        self.catalog.add(res);
        Ok(())
    }

    fn evaluate_class(
        &mut self,
        def: &Arc<ClassDef>,
        params: IndexMap<SmolStr, Value>,
        how: ClassDecl,
        declared_in: ScopeId,
        span: &Span,
    ) -> R<()> {
        self.started_classes.insert(def.name.clone());
        let parent_scope = match &def.parent {
            Some(p) => {
                let pname = p.trim_start_matches("::").to_ascii_lowercase();
                self.declare_class(&pname, None, ClassDecl::Include, declared_in, span)?;
                self.class_scopes.get(pname.as_str()).copied()
            }
            None => None,
        };
        let key = ResourceKey::new("Class", &def.name);
        let label = key.to_string();
        let mut s = Scope::new(
            ScopeKind::Class(def.name.clone()),
            Some(parent_scope.unwrap_or(self.node_scope.unwrap_or(self.top))),
            label.clone(),
        );
        s.module = Some(SmolStr::new(def.name.split("::").next().unwrap_or("")));
        s.vars
            .insert("module_name".into(), self.module_of(&def.span));
        // The module of the parent scope: the inherited class's, else the code that declared
        // it (stdlib's assert_private compares them).
        let caller = self
            .scopes
            .lookup(parent_scope.unwrap_or(declared_in), "module_name")
            .cloned()
            .unwrap_or_else(|| Value::string(""));
        s.vars.insert("caller_module_name".into(), caller);
        s.resource = Some(key.clone());
        // Defaults are found along the inherited class, else where the class was declared.
        s.dyn_parent = Some(parent_scope.unwrap_or(self.persistent_scope(declared_in)));
        let id = self.scopes.add(s);
        self.class_scopes.insert(def.name.clone(), id);
        self.scopes
            .get_mut(id)
            .vars
            .insert("title".into(), Value::string(&def.name));
        self.scopes
            .get_mut(id)
            .vars
            .insert("name".into(), Value::string(&def.name));
        let stmt = if how == ClassDecl::ResourceLike {
            "Resource Statement"
        } else {
            "Function Call"
        };
        let mut final_params: crate::Map<SmolStr, Value> = Default::default();
        for (k, v) in &params {
            if puppet_restypes::is_metaparameter(k) && !v.is_undef() {
                final_params.insert(k.clone(), v.clone());
            }
        }
        let owner = Owner {
            label: &label,
            stmt,
            class: Some(&def.name),
        };
        let params: crate::Map<SmolStr, Value> = params.into_iter().collect();
        for (k, v) in self.bind_parameters(&def.params, &params, &owner, id, span)? {
            if !v.is_undef() {
                final_params.insert(k, v);
            }
        }
        if let Some(r) = self.catalog.resources.get_mut(&key) {
            if let Some(stage) = r.params.get("stage").cloned() {
                final_params.entry("stage".into()).or_insert(stage);
            }
            r.params = final_params;
        }
        // `next()` and `return()` end a class or define body early.
        match self.eval_block(&def.body, id) {
            Ok(_) | Err(Flow::Next(_)) | Err(Flow::Return(..)) => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The value automatic parameter lookup gives a class parameter (Hiera), if any;
    /// `stmt` names the declaration in errors.
    fn class_parameter_lookup(
        &mut self,
        class: &str,
        param: &str,
        scope: ScopeId,
        stmt: &str,
        span: &Span,
    ) -> R<Option<Value>> {
        crate::hiera::class_parameter(self, class, param, scope, stmt, span)
    }

    fn evaluate_define_instance(&mut self, key: &ResourceKey) -> R<()> {
        let Some(res) = self.catalog.get(key).cloned() else {
            return Ok(());
        };
        let Some(def) = self.env.define(res.type_name.to_ascii_lowercase().as_str()) else {
            return Ok(());
        };
        // Puppet evaluates instances after the code has run and reports what failed in one
        // as an error of the resource statement that declared it, at that statement's line.
        let at = res.span.as_ref().map(location).unwrap_or_default();
        self.evaluate_define(&def, key, res).map_err(|f| match f {
            Flow::Error(e) => {
                // Errors of the parameters are already in their final form.
                if e.kind == ErrorKind::Complete {
                    return Flow::Error(e);
                }
                Flow::Error(EvalError {
                    code: crate::eval::codes::EVAL_ERROR,
                    kind: ErrorKind::Complete,
                    message: format!(
                        "Evaluation Error: Error while evaluating a Resource Statement, {} {at}",
                        e.puppet_message()
                    ),
                    span: e.span,
                })
            }
            other => other,
        })
    }

    fn evaluate_define(&mut self, def: &DefineDef, key: &ResourceKey, res: Resource) -> R<()> {
        self.evaluated_defines.insert(key.clone());
        let label = key.to_string();
        let declared_in = res.scope.unwrap_or(self.top);
        let parent = self.node_scope.unwrap_or(self.top);
        let mut s = Scope::new(
            ScopeKind::Define(res.type_name.clone(), res.title.clone()),
            Some(parent),
            label.clone(),
        );
        s.module = Some(SmolStr::new(def.name.split("::").next().unwrap_or("")));
        s.vars
            .insert("module_name".into(), self.module_of(&def.span));
        // The module of the code that declared it (stdlib's assert_private compares them).
        let caller = self
            .scopes
            .lookup(declared_in, "module_name")
            .cloned()
            .unwrap_or_else(|| Value::string(""));
        s.vars.insert("caller_module_name".into(), caller);
        s.resource = Some(key.clone());
        s.dyn_parent = Some(declared_in);
        let id = self.scopes.add(s);
        self.scopes
            .get_mut(id)
            .vars
            .insert("title".into(), Value::String(res.title.clone()));
        let given = res.params.clone();
        let name = given
            .get("name")
            .cloned()
            .unwrap_or(Value::String(res.title.clone()));
        self.scopes.get_mut(id).vars.insert("name".into(), name);
        let span = res.span.clone().unwrap_or_else(|| def.span.clone());
        let mut final_params: crate::Map<SmolStr, Value> = Default::default();
        for (k, v) in &given {
            if !def.params.iter().any(|p| &p.name == k) {
                final_params.insert(k.clone(), v.clone());
            }
        }
        let owner = Owner {
            label: &label,
            stmt: "Resource Statement",
            class: None,
        };
        let bound = match self.bind_parameters(&def.params, &given, &owner, id, &span) {
            Ok(b) => b,
            // The binding's own problems (raised at the statement); an error inside a
            // default expression is wrapped like one of the body.
            Err(Flow::Error(e)) if e.span.as_ref() == Some(&span) => {
                return Err(statement_error(e.message, &span))
            }
            Err(other) => return Err(other),
        };
        for (k, v) in bound {
            if !v.is_undef() {
                final_params.insert(k, v);
            }
        }
        if let Some(r) = self.catalog.resources.get_mut(key) {
            r.params = final_params;
        }
        match self.eval_block(&def.body, id) {
            Ok(_) | Err(Flow::Next(_)) | Err(Flow::Return(..)) => {}
            // Puppet reports it as an error of the instance's evaluation.
            Err(Flow::Break(span)) => return Err(Flow::Error(EvalError {
                code: crate::eval::codes::EVAL_ERROR,
                kind: Default::default(),
                message:
                    "Error while evaluating an Object, break() from context where this is illegal"
                        .into(),
                span,
            })),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Binds the parameters of a class or define instance in its scope `id`, as Puppet's
    /// `set_resource_parameters` does: each takes the value given (undef counts as not
    /// given), else for a class the value automatic parameter lookup finds, else its default
    /// expression, evaluated in declaration order (given values are visible to default
    /// expressions, the others only once set). Then every value is checked at once: a
    /// parameter it does not have, a missing value or a type mismatch is an error, and
    /// Puppet lists all of them in one
    /// message (`Class[X]:\n  expects a value for parameter 'a'\n  ...`). Returns each
    /// parameter's value (undef when given as undef without a default).
    fn bind_parameters(
        &mut self,
        params: &[Param],
        given: &crate::Map<SmolStr, Value>,
        owner: &Owner<'_>,
        id: ScopeId,
        span: &Span,
    ) -> R<crate::Map<SmolStr, Value>> {
        let unset = |p: &&Param| given.get(&p.name).is_none_or(|v| v.is_undef());
        for (k, v) in given.iter().filter(|(_, v)| !v.is_undef()) {
            self.scopes.get_mut(id).vars.insert(k.clone(), v.clone());
        }
        let (label, stmt) = (owner.label, owner.stmt);
        let mut bound: crate::Map<SmolStr, Value> = Default::default();
        let mut missing = Vec::new();
        // The parameters without a given value, in order (computed once: a default
        // expression may read none of them from its own on).
        let unset_names: Arc<[SmolStr]> = params
            .iter()
            .filter(unset)
            .map(|q| q.name.clone())
            .collect();
        let mut unset_before = 0;
        let mut prefix: Option<Arc<str>> = None;
        for p in params.iter() {
            let from = unset_before;
            if unset(&p) {
                unset_before += 1;
            }
            let looked_up = match (given.get(&p.name).filter(|v| !v.is_undef()), owner.class) {
                (Some(_), _) | (None, None) => None,
                (None, Some(class)) => {
                    self.class_parameter_lookup(class, &p.name, id, stmt, span)?
                }
            };
            let v = match given.get(&p.name).filter(|v| !v.is_undef()) {
                Some(v) => v.clone(),
                // A value found as `~` does not replace a default expression.
                None => match looked_up {
                    Some(v) if !(v.is_undef() && p.default.is_some()) => v,
                    _ => match &p.default {
                        Some(d) => {
                            // Made once per declaration, when a default is evaluated.
                            let prefix = prefix
                                .get_or_insert_with(|| {
                                    format!("Error while evaluating a {stmt}, {label}").into()
                                })
                                .clone();
                            let guard = ParamGuard {
                                scope: id,
                                prefix,
                                param: p.name.clone(),
                                pending: PendingParams::new(unset_names.clone(), from),
                                missing: missing.clone(),
                                span: span.clone(),
                            };
                            self.eval_default(d, guard)?
                        }
                        None if given.contains_key(&p.name) => Value::Undef,
                        None => {
                            missing.push(p.name.clone());
                            continue;
                        }
                    },
                },
            };
            self.scopes
                .get_mut(id)
                .vars
                .insert(p.name.clone(), v.clone());
            bound.insert(p.name.clone(), v);
        }
        // Puppet lists the parameters it does not know first.
        let mut problems: Vec<String> = given
            .keys()
            .filter(|k| !params.iter().any(|p| &p.name == *k))
            .filter(|k| !puppet_restypes::is_metaparameter(k))
            .filter(|k| owner.class.is_some() || k.as_str() != "name")
            .map(|k| format!("has no parameter named '{k}'"))
            .collect();
        for p in params {
            match bound.get(&p.name).cloned() {
                Some(v) => problems.extend(self.param_type_problems(p, &v, id)?),
                None if missing.contains(&p.name) => {
                    problems.push(format!("expects a value for parameter '{}'", p.name))
                }
                None => {}
            }
        }
        match problems.len() {
            0 => Ok(bound),
            1 => err(
                format!("Error while evaluating a {stmt}, {label}: {}", problems[0]),
                span,
            ),
            _ => err(
                format!(
                    "Error while evaluating a {stmt}, {label}:\n  {}",
                    problems.join("\n  ")
                ),
                span,
            ),
        }
    }

    /// What is wrong with a class or define parameter value for its declared type: one line
    /// per problem Puppet's mismatch describer finds (none when it is an instance).
    fn param_type_problems(&mut self, p: &Param, v: &Value, scope: ScopeId) -> R<Vec<String>> {
        let Some(t) = &p.type_expr else {
            return Ok(Vec::new());
        };
        let Value::Type(ty) = self.eval_type_expr(t, scope)? else {
            return Ok(Vec::new());
        };
        if is_instance(&ty, v) {
            return Ok(Vec::new());
        }
        let what = format!("parameter '{}'", p.name);
        // As Puppet, only a mismatch the describer finds is an error (a bare `Optional`
        // accepts any value here).
        let detail = puppet_types::mismatch::describe_value_mismatch(&what, &ty, v);
        Ok(detail
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect())
    }

    /// The classes evaluated so far, in order (with the matched node's name, as Puppet
    /// lists it).
    pub fn evaluated_classes(&self) -> IndexSet<SmolStr> {
        let mut out: IndexSet<SmolStr> = self
            .class_scopes
            .keys()
            .filter(|k| !matches!(k.as_str(), "" | "main" | "settings"))
            .cloned()
            .collect();
        out.extend(self.node_classes.iter().cloned());
        out
    }
}

/// A value's type as Puppet names it in these messages: a type itself, else the
/// generalized inferred type (`Hash[String, String]`).
fn value_type_label(v: &Value) -> String {
    match v {
        Value::Type(t) => t.to_string(),
        other => puppet_types::generalize(&puppet_types::infer(other)).to_string(),
    }
}

/// The leaves of nested arrays (titles and relationship values are flattened).
fn flatten(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.iter().flat_map(flatten).collect(),
        other => vec![other.clone()],
    }
}

/// A reference written as a string: `Notify[x]`, `Foo::Bar[a b]`.
fn parse_reference(s: &str) -> Option<ResourceKey> {
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

/// An error of a defined-type instance's parameters as Puppet reports it: an evaluation
/// error at the declaring statement's file and line (no column).
fn statement_error(message: String, span: &Span) -> Flow {
    Flow::Error(EvalError {
        code: crate::eval::codes::EVAL_ERROR,
        kind: ErrorKind::Complete,
        message: format!("Evaluation Error: {message} {}", location(span)),
        span: Some(span.clone()),
    })
}

/// Where each relationship attribute of `ops` is written.
fn relationship_spans(ops: &[AttrOp]) -> AttrSpans {
    ops.iter()
        .filter_map(|op| match &op.name {
            Some(n) if RelationKind::from_param(n).is_some() => Some((n.clone(), op.span.clone())),
            _ => None,
        })
        .collect()
}

/// Where each attribute of a list is written.
fn attribute_spans(ops: &[AttrOp]) -> AttrSpans {
    ops.iter()
        .filter_map(|op| Some((op.name.clone()?, op.span.clone())))
        .collect()
}

/// Whose parameters [`Compiler::bind_parameters`] binds: `Class[x]` or `Type[title]`, the
/// statement Puppet names in errors, and the class name for automatic parameter lookup.
struct Owner<'a> {
    label: &'a str,
    stmt: &'a str,
    class: Option<&'a str>,
}

/// `(line: N)` or `(file: F, line: N)`, as Puppet appends a location to a message.
impl Compiler {
    /// A class by lower-case name, as Puppet's autoloader finds it: an error in a file it
    /// reads on the way (a syntax error, a definition or statement not allowed there) fails
    /// the compile.
    pub(crate) fn find_class(&self, name: &str) -> R<Option<Arc<ClassDef>>> {
        if let Some(d) = self.env.load_error(puppet_loader::DefKind::Class, name) {
            return Err(load_error(&d));
        }
        Ok(self.env.class(name))
    }

    /// A defined type by lower-case name, with the autoloader's errors as [`find_class`].
    ///
    /// [`find_class`]: Compiler::find_class
    pub(crate) fn find_define(&self, name: &str) -> R<Option<Arc<crate::lower::DefineDef>>> {
        if let Some(d) = self.env.load_error(puppet_loader::DefKind::Define, name) {
            return Err(load_error(&d));
        }
        Ok(self.env.define(name))
    }
}

/// An error in a file the autoloader read, as Puppet reports it: the message, then the
/// file, line and column (only the file for an error at the end of the input).
fn load_error(d: &puppet_diagnostics::Diagnostic) -> Flow {
    let file = d.file.as_deref().unwrap_or("");
    let at = match d.location {
        Some(lc) if !d.message.ends_with("at end of input") => {
            format!(" (file: {file}, line: {}, column: {})", lc.line, lc.col)
        }
        _ => format!(" (file: {file})"),
    };
    let code = match &d.code {
        std::borrow::Cow::Borrowed(c) => c,
        std::borrow::Cow::Owned(_) => crate::eval::codes::PARSE_ERROR,
    };
    Flow::Error(EvalError {
        code,
        kind: ErrorKind::Complete,
        message: format!("{}{at}", d.message),
        span: None,
    })
}

/// How many errors Puppet's validator logs for the main manifest file `text` whose first
/// error is `first`, when it has no syntax error (Puppet stops at the first syntax error,
/// but logs every validation error and, for more than one, gives up with their count).
pub(crate) fn validation_error_count(
    diagnostics: &[puppet_diagnostics::Diagnostic],
    first: &puppet_diagnostics::Diagnostic,
    text: &str,
) -> usize {
    if puppet_syntax::parse(text)
        .errors()
        .iter()
        .any(|d| d.is_error())
    {
        return 1;
    }
    diagnostics
        .iter()
        .filter(|d| d.is_error() && d.file == first.file && d.code != "DUPLICATE_DEFINITION")
        .count()
}

pub(crate) fn location(span: &Span) -> String {
    let line = span.line_col().0;
    match &span.file.path {
        Some(p) => format!("(file: {p}, line: {line})"),
        None => format!("(line: {line})"),
    }
}

/// The name Puppet gives the resource of a node matched by a regex:
/// `__node_regexp__` and the regex with everything but word characters, `.`, `-` and `:`
/// removed.
pub(crate) fn node_regex_name(source: &str) -> SmolStr {
    let kept: String = source
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':'))
        .collect();
    SmolStr::new(format!("__node_regexp__{}", kept.trim_start_matches('.')))
}

/// The tags a `tag` attribute value gives: a string or an array of strings.
fn tag_values(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().flat_map(tag_values).collect(),
        Value::Undef => vec![],
        other => vec![other.to_plain_string()],
    }
}

/// Whether a value can be an operand of a relationship (references, or arrays of them).
fn is_catalog_ref(v: &Value) -> bool {
    match v {
        Value::Type(Type::Resource(_) | Type::Class(_)) => true,
        Value::Array(a) => a.iter().all(is_catalog_ref),
        _ => false,
    }
}

/// Whether a resource matches a collector's query (`title == 'x'`, `tag == 'y'`, and/or).
fn query_matches(q: &CollectQuery, r: &Resource) -> bool {
    use CollectQuery as Q;
    let value_of = |attr: &str| -> Option<Value> {
        match attr {
            "title" => Some(Value::String(r.title.clone())),
            "tag" => Some(Value::array(
                r.tags.iter().map(|t| Value::String(t.clone())).collect(),
            )),
            _ => r.params.get(attr).cloned(),
        }
    };
    let eq = |attr: &str, v: &Value| match value_of(attr) {
        // An array attribute matches when any element does.
        Some(Value::Array(items)) => items.iter().any(|x| ops::equals(x, v)),
        Some(x) => ops::equals(&x, v),
        None => false,
    };
    match q {
        Q::All => true,
        Q::Eq(a, v) => eq(a, v),
        Q::Ne(a, v) => !eq(a, v),
        Q::And(a, b) => query_matches(a, r) && query_matches(b, r),
        Q::Or(a, b) => query_matches(a, r) || query_matches(b, r),
    }
}
