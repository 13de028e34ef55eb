//! Expressions that build the catalog: resource declarations (titles, per-expression
//! defaults, virtual and exported forms, tags, containment, namevars and aliases), resource
//! defaults, overrides, collectors and chaining arrows.

use super::classes::ClassDecl;
use super::{duplicate_declaration, flatten, location, tag_values};
use crate::catalog::{
    AttrSpans, CollectQuery, Collector, Override, RelEnd, Relationship, Resource, ResourceKey,
    ResourceKind,
};
use crate::error::{err, err_code, R};
use crate::eval::Compiler;
use crate::ir::*;
use crate::ops;
use crate::scope::ScopeId;
use indexmap::{IndexMap, IndexSet};
use puppet_graph::RelationKind;
use puppet_types::types::ResourceType;
use puppet_types::{Type, Value};
use smol_str::{SmolStr, StrExt};
use std::sync::Arc;

impl Compiler {
    /// `Type[title][attr]`: a parameter of a resource in the catalog (its value, else the
    /// resource default that applies to it, else undef); an error for a parameter a core
    /// type does not have or a resource not declared.
    pub(crate) fn resource_parameter(
        &self,
        tn: &str,
        title: &str,
        attr: &str,
        span: &Span,
    ) -> R<Value> {
        let key = ResourceKey::new(tn, title);
        let key = self.resolve_ref(&key).unwrap_or(key);
        if let (Some(info), true) = (
            self.types().get(&tn.to_ascii_lowercase()),
            self.catalog.get(&key).is_some(),
        ) {
            if info.complete && !info.accepts(attr) {
                return err(
                    format!(
                        "The resource {tn}['{title}'] does not have a parameter called '{attr}'"
                    ),
                    span,
                );
            }
        }
        match self.catalog.get(&key) {
            Some(res) => Ok(match res.params.get(attr) {
                Some(v) => v.clone(),
                None => self
                    .defaults_for(res)
                    .into_iter()
                    .find(|(k, _)| k == attr)
                    .map(|(_, v)| v)
                    .unwrap_or(Value::Undef),
            }),
            None => err(format!("Resource not found: {tn}['{title}']"), span),
        }
    }

    pub(crate) fn eval_attr_ops(
        &mut self,
        ops: &[AttrOp],
        scope: ScopeId,
    ) -> R<Vec<(SmolStr, Value, bool)>> {
        // (A `* => hash` adds more: the vector grows then.)
        let mut out = Vec::with_capacity(ops.len());
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
                                crate::names::type_name_of(&v)
                            ),
                            &op.span,
                        );
                    }
                }
            }
        }
        own_relation_lists(&mut out);
        Ok(out)
    }

    pub(super) fn eval_query(&mut self, q: &Query, scope: ScopeId) -> R<CollectQuery> {
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
        let lname = crate::names::strip_root(type_name).to_ascii_lowercase();
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
        let scope = self.scopes.persistent(scope);
        self.catalog.collectors.push(Collector {
            type_name: crate::names::capitalize_smol(&lname),
            exported,
            query: q,
            attrs,
            attr_spans: relationship_spans(ops),
            scope,
            span: span.clone(),
            collected: Default::default(),
            scanned: 0,
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
                    scope: self.scopes.persistent(scope),
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
        (self.catalog).add_defaults((scope, tname, attrs, attribute_spans(ops)));
        Ok(t)
    }

    /// Drops the resource defaults declared in `scope` (a lambda or function-call scope the
    /// evaluator releases).
    pub(crate) fn forget_defaults(&mut self, scope: ScopeId) {
        self.catalog.forget_defaults(scope);
    }

    /// One operand of a chaining arrow: references, or a collector (what it collects).
    pub(super) fn rel_operand(&mut self, e: &Expr, scope: ScopeId) -> R<(RelEnd, Value)> {
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
                (Some(t), Some(title)) => vec![ResourceKey::of(t, title)],
                _ => vec![],
            },
            Value::Type(Type::Class(Some(name))) => vec![ResourceKey::class(name)],
            Value::Array(a) => a.iter().flat_map(|x| self.refs_of(x)).collect(),
            _ => vec![],
        }
    }

    /// A resource expression: declares one resource per title of each body (classes for
    /// `class`), with the expression's `default:` body merged under each.
    ///
    /// `want` is false where the expression's value is thrown away (a statement followed
    /// by others): its references are then not made, and it is undef.
    pub(crate) fn resource_expr(
        &mut self,
        form: ResourceForm,
        type_expr: &Expr,
        bodies: &[ResourceBody],
        scope: ScopeId,
        span: &Span,
        want: bool,
    ) -> R<Value> {
        let type_name: SmolStr = match &type_expr.kind {
            ExprKind::Name(n) => crate::names::strip_root(n).to_ascii_lowercase_smolstr(),
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
        let mut evaluated = Vec::with_capacity(bodies.len());
        let mut defaults: Vec<(SmolStr, Value, bool)> = Vec::new();
        // The titles of the bodies before this one (most expressions have one body with
        // one title: nothing to compare it with, and no set is made).
        let mut seen_titles: IndexSet<SmolStr, rustc_hash::FxBuildHasher> = IndexSet::default();
        for body in bodies {
            // As Puppet: the titles are checked before the attributes are evaluated.
            let title = self.eval(&body.title, scope)?;
            let is_array = matches!(title, Value::Array(_));
            // One title (most bodies) or the leaves of an array, without a vector for one.
            let (single, many) = match title {
                Value::Array(_) => (None, flatten(&title)),
                single => (Some(single), Vec::new()),
            };
            let count = many.len() + usize::from(single.is_some());
            let track = bodies.len() > 1 || count > 1;
            let mut plain = Vec::with_capacity(count);
            let mut is_default = false;
            for (i, t) in single.into_iter().chain(many).enumerate() {
                let t = match t {
                    Value::String(s) => {
                        if s.is_empty() {
                            return err(
                                format!("Empty string title at {i}. Title strings must have a length greater than zero."),
                                &body.title.span,
                            );
                        }
                        s.into_text()
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
                if track && !seen_titles.insert(t.clone()) {
                    let shown = match t.as_str() {
                        "\u{0}default" => "default",
                        t => t,
                    };
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
        if want {
            refs.reserve(evaluated.iter().map(|(_, titles, _)| titles.len()).sum());
        }
        for (body, titles, attrs) in evaluated {
            let mut attrs = attrs;
            attrs.reserve(defaults.len());
            for d in &defaults {
                if !attrs.iter().any(|(n, _, _)| n == &d.0) {
                    attrs.push(d.clone());
                }
            }
            // Where each relationship attribute of the body was written; those of a
            // `* => hash` are at the `*`. Most bodies have neither: their resources are not
            // looked up again.
            let named = relationship_spans(&body.ops);
            let splat = body.ops.iter().any(|op| op.name.is_none());
            for t in titles {
                // Puppet locates every resource of the expression, and the statement's
                // errors, at the whole expression.
                let r = self.declare_resource(form, &type_name, &t, &attrs, scope, span, want)?;
                if want {
                    refs.push(r);
                }
                if named.is_empty() && !splat {
                    continue;
                }
                let key = ResourceKey::of(&type_name, &t);
                if let Some(res) = self.catalog.resources.get_mut(&key) {
                    for op in body.ops.iter().filter(|op| op.name.is_none()) {
                        for p in RelationKind::PUPPET_ORDER.map(RelationKind::as_str) {
                            if res.params.contains_key(p) && !named.contains_key(p) {
                                res.param_spans.insert(SmolStr::new(p), op.span.clone());
                            }
                        }
                    }
                    res.param_spans
                        .extend(named.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
        }
        Ok(match want {
            true => Value::array(refs),
            false => Value::Undef,
        })
    }

    /// Declares one resource (or class) with evaluated attributes; its reference (undef
    /// when not `want`ed).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn declare_resource(
        &mut self,
        form: ResourceForm,
        type_name: &str,
        title: &str,
        attrs: &[(SmolStr, Value, bool)],
        scope: ScopeId,
        span: &Span,
        want: bool,
    ) -> R<Value> {
        if type_name == "class" {
            let cname = SmolStr::new(crate::names::strip_root(title).to_ascii_lowercase());
            let params: IndexMap<SmolStr, Value> = attrs
                .iter()
                .map(|(k, v, _)| (k.clone(), v.clone()))
                .collect();
            self.declare_class(&cname, Some(params), ClassDecl::ResourceLike, scope, span)?;
            if !want {
                return Ok(Value::Undef);
            }
            return Ok(Value::Type(Type::Resource(Arc::new(ResourceType {
                type_name: Some(SmolStr::new("Class")),
                title: Some(crate::names::capitalize_smol(&cname)),
            }))));
        }
        let (cap, is_define) = match self.build.declared_types.get(type_name) {
            Some(t) => (t.reference.clone(), t.define),
            None => {
                let is_define = self.find_define(type_name)?.is_some();
                if !is_define && !self.env.resource_type_known(type_name) {
                    return err_code(
                        crate::error::codes::UNKNOWN_RESOURCE_TYPE,
                        format!("Error while evaluating a Resource Statement, Unknown resource type: '{type_name}'"),
                        span,
                    );
                }
                let reference = crate::names::capitalize_smol(type_name);
                let known = super::DeclaredType {
                    reference: reference.clone(),
                    define: is_define,
                };
                self.build
                    .declared_types
                    .insert(SmolStr::new(type_name), known);
                (reference, is_define)
            }
        };
        let mut res = Resource::new(cap.clone(), title);
        res.kind = if is_define {
            ResourceKind::Define
        } else {
            ResourceKind::Builtin
        };
        res.virtual_ = form != ResourceForm::Regular;
        res.exported = form == ResourceForm::Exported;
        // With `storeconfigs` on, Puppet keeps the export without a word (storing it is
        // PuppetDB's part, after the compile).
        if res.exported && !self.storeconfigs() {
            self.warn(
                "You cannot collect exported resources without storeconfigs being set; the export is ignored".into(),
            );
        }
        res.scope = Some(scope);
        res.span = Some(span.clone());
        let container = self.scopes.container_of(scope);
        // The resource's own tags in Puppet's order: the values of its `tag` attribute (set
        // with the parameters), its type, its title, then those of defaults; the tags of
        // its container come after them.
        res.params.reserve(attrs.len());
        for (k, v, _) in attrs {
            if k == "tag" {
                for t in tag_values(v) {
                    res.tag_checked(&t)
                        .or_else(|m| super::invalid_tag(m, span))?;
                }
            }
            res.params.insert(k.clone(), v.clone());
        }
        res.tag(type_name);
        if self.untagged_title {
            res.title_not_string = true;
        } else {
            res.tag_title();
        }
        // Resource defaults are those evaluated before the declaration, along the
        // declaration chain (Puppet applies them when the resource is created).
        for (k, v, at, sid) in self.defaults_with_spans(&res) {
            if k == "tag" {
                for t in tag_values(&v) {
                    res.tag_checked(&t)
                        .or_else(|m| super::invalid_tag(m, span))?;
                }
            }
            if !res.params.contains_key(&k) {
                if let Some(at) = at {
                    // Puppet's source of a default is the code of the defaults statement.
                    let setter = Some(self.scopes.container_of(sid));
                    res.overridden_by.insert(k.clone(), (setter, at.clone()));
                    if RelationKind::from_param(&k).is_some() {
                        res.param_spans.insert(k.clone(), at);
                    }
                }
                res.params.insert(k, v);
            }
        }
        let container_tags = self.inherit_tags(&mut res, &container);
        // Stages are not contained in anything.
        if type_name != "stage" {
            res.container = Some(container);
            res.container_tags = container_tags;
        } else {
            res.kind = ResourceKind::Stage;
        }
        res.scope = Some(self.scopes.persistent(scope));
        // The type's name is in the key's form already when it was given in lower case
        // (as resource expressions give it).
        let key = if type_name.bytes().any(|b| b.is_ascii_uppercase()) {
            res.key()
        } else {
            ResourceKey {
                type_name: cap.clone(),
                title: res.title.clone(),
            }
        };
        if let Some(prev) = self.catalog.get(&key).or_else(|| {
            self.catalog
                .aliases
                .get(&key)
                .and_then(|k| self.catalog.get(k))
        }) {
            return duplicate_declaration(&key, prev.span.as_ref(), span);
        }
        if !is_define {
            self.register_names(&mut res, &key, span)?;
        }
        self.catalog.add_keyed(key, res);
        if !want {
            return Ok(Value::Undef);
        }
        Ok(Value::Type(Type::Resource(Arc::new(ResourceType {
            type_name: Some(cap),
            title: Some(SmolStr::new(title)),
        }))))
    }

    /// Puppet's uniqueness rules for a resource of a built-in type: the namevars its title
    /// patterns give become parameters, its uniqueness key (namevar values) must be free,
    /// and a namevar differing from the title, or an `alias`, is another name for it.
    pub(super) fn register_names(
        &mut self,
        res: &mut Resource,
        key: &ResourceKey,
        span: &Span,
    ) -> R<()> {
        let db = self.types();
        // (`get` finds the type by its capitalised name too.)
        let Some(info) = db.get(&res.type_name) else {
            return Ok(());
        };
        let parsed = info.parse_title(&res.title);
        if let Ok(parsed) = &parsed {
            for (attr, v) in parsed {
                if v != res.title.as_str() && !res.params.contains_key(attr.as_str()) {
                    res.params.insert(attr.clone(), Value::string(v));
                }
            }
        }
        // Only isomorphic types (not exec, say) have uniqueness keys and namevar aliases.
        if !info.isomorphic {
            return Ok(());
        }
        let res = &*res;
        let text_of = |p: &str| -> Option<String> {
            res.params
                .get(p)
                .filter(|v| !v.is_undef())
                .map(|v| v.to_plain_string())
        };
        // The uniqueness key, from the title parsed above (an error there is one here).
        let values = parsed.map(|parsed| info.namevar_values_parsed(&res.title, &parsed, text_of));
        if let Ok(values) = values {
            use puppet_restypes::NamevarValue as N;
            let ukey: Vec<Option<String>> = values
                .iter()
                .map(|(_, v)| match v {
                    N::Given(s) => Some(s.clone()),
                    N::FromTitle(s) => Some(s.clone()),
                    N::Missing => None,
                })
                .collect();
            let uk = (res.type_name.clone(), ukey);
            if let Some(other) = self.catalog.uniqueness.get(&uk) {
                if other != key {
                    let existing = self
                        .catalog
                        .get(other)
                        .and_then(|r| r.span.as_ref())
                        .map(location);
                    let refs: Vec<Option<&str>> = uk.1.iter().map(|k| k.as_deref()).collect();
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
            let namevar = match (info.namevars.len(), uk.1.first()) {
                (1, Some(Some(v))) if v != res.title.as_str() => Some(v.clone()),
                _ => None,
            };
            self.catalog.uniqueness.insert(uk, key.clone());
            if let Some(v) = namevar {
                self.catalog
                    .aliases
                    .insert(ResourceKey::new(&res.type_name, &v), key.clone());
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
}

/// A value's type as Puppet names it in these messages: a type itself, else the
/// generalized inferred type (`Hash[String, String]`).
pub(super) fn value_type_label(v: &Value) -> String {
    match v {
        Value::Type(t) => t.to_string(),
        other => puppet_types::generalize(&puppet_types::infer(other)).to_string(),
    }
}

/// Where each relationship attribute of `ops` is written.
pub(super) fn relationship_spans(ops: &[AttrOp]) -> AttrSpans {
    ops.iter()
        .filter_map(|op| match &op.name {
            Some(n) if RelationKind::from_param(n).is_some() => Some((n.clone(), op.span.clone())),
            _ => None,
        })
        .collect()
}

/// Where each attribute of a list is written.
pub(super) fn attribute_spans(ops: &[AttrOp]) -> AttrSpans {
    ops.iter()
        .filter_map(|op| Some((op.name.clone()?, op.span.clone())))
        .collect()
}

/// Whether a value can be an operand of a relationship (references, or arrays of them).
pub(super) fn is_catalog_ref(v: &Value) -> bool {
    match v {
        Value::Type(Type::Resource(_) | Type::Class(_)) => true,
        Value::Array(a) => a.iter().all(is_catalog_ref),
        _ => false,
    }
}

/// Gives each `before`/`notify` list of one evaluation of attribute operations a list of its
/// own. Puppet converts a body's, a resource default's or an override's values once, and
/// every resource they go to holds that one Ruby array: a chaining arrow from one of them
/// appends to it (`<<`), so all of them get the target (`package { [a, b]: before =>
/// [File[x]] }` then `Package[a] -> Exec[e]` gives both packages `Exec[e]`; see
/// `apply_relationships`). A list taken from a variable is the variable's no more (Puppet's
/// conversion copies it), so two expressions never share one.
pub(crate) fn own_relation_lists(attrs: &mut [(SmolStr, Value, bool)]) {
    for (name, value, _) in attrs {
        own_relation_list(name, value);
    }
}

/// [`own_relation_lists`] for one attribute (a resource declared by a function).
pub(crate) fn own_relation_list(name: &str, value: &mut Value) {
    if let ("before" | "notify", Value::Array(list)) = (name, &*value) {
        *value = Value::Array(Arc::new(list.as_ref().clone()));
    }
}
