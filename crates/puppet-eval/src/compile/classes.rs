//! Classes and defined-type instances: `include`/`require`/`contain` and the resource-like
//! form, the class resource added before its body runs, inheritance, stages,
//! `$caller_module_name`, and a defined type's body evaluated for one instance.

use super::{duplicate_declaration, location, tag_values};
use crate::catalog::{Resource, ResourceKey, ResourceKind};
use crate::error::{err_code, ErrorKind, EvalError, Flow, R};
use crate::eval::{Args, Compiler, Owner};
use crate::ir::*;
use crate::lower::{ClassDef, DefineDef};
use crate::scope::{Scope, ScopeId, ScopeKind};
use indexmap::{IndexMap, IndexSet};
use puppet_types::{Type, Value};
use smol_str::{SmolStr, StrExt};
use std::sync::Arc;

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
            let name = crate::names::strip_root(n).to_ascii_lowercase();
            if self.class_started(&name) {
                continue;
            }
            let Some(def) = self.find_class(&name)? else {
                return err_code(
                    crate::error::codes::UNKNOWN_CLASS,
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
        let name = crate::names::strip_root(name).to_ascii_lowercase();
        let key = ResourceKey::class(&name);
        if self.class_started(&name) {
            if how == ClassDecl::ResourceLike {
                // Where the first was declared is known when it was resource-like too.
                let first = (self.catalog.get(&key).and_then(|r| r.span.as_ref()))
                    .filter(|_| self.build.resource_like.contains(name.as_str()));
                return duplicate_declaration(&key, first, span);
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
                return err_code(crate::error::codes::UNKNOWN_CLASS, message, span);
            };
            if how == ClassDecl::ResourceLike {
                self.build.resource_like.insert(def.name.clone());
            }
            self.add_class_resource(&def, params.as_ref(), how, scope, span)?;
            self.evaluate_class(&def, params.unwrap_or_default(), how, scope, span)?;
        }
        let container = self.scopes.container_of(scope);
        match how {
            ClassDecl::Contain => {
                // Contained by a node, the class has the node's tags even when it was
                // declared before (what it declares gets them as scope tags); contained
                // by a class it keeps its own, as Puppet 7.23 does.
                if container.type_name == "Node" {
                    let tags = self.catalog.get(&container).map(|n| n.tags.clone());
                    if let (Some(tags), Some(r)) = (tags, self.catalog.resources.get_mut(&key)) {
                        r.tags.extend(tags);
                    }
                }
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

    /// The scope class `name` (any case) was evaluated in: `None` when it has not been.
    pub(crate) fn class_scope(&self, name: &str) -> Option<ScopeId> {
        let scopes = &self.build.class_scopes;
        match scopes.get(name) {
            Some(id) => Some(*id),
            None if name.bytes().any(|b| b.is_ascii_uppercase()) => {
                scopes.get(name.to_ascii_lowercase().as_str()).copied()
            }
            None => None,
        }
    }

    /// Records the scope of a class the compile starts with (`main`, `settings`).
    pub(crate) fn add_class_scope(&mut self, name: &str, id: ScopeId) {
        self.build.class_scopes.insert(SmolStr::new(name), id);
    }

    /// Whether a class's evaluation has started (it is then never evaluated again).
    pub(super) fn class_started(&self, name: &str) -> bool {
        self.build.started_classes.contains(name) || self.build.class_scopes.contains_key(name)
    }

    /// Adds a class's resource to the catalog (before its body runs), after those of the
    /// classes it inherits from that are not there yet, as Puppet orders them.
    pub(super) fn add_class_resource(
        &mut self,
        def: &Arc<ClassDef>,
        params: Option<&IndexMap<SmolStr, Value>>,
        how: ClassDecl,
        declared_in: ScopeId,
        span: &Span,
    ) -> R<()> {
        let key = ResourceKey::class(&def.name);
        if self.catalog.get(&key).is_some() {
            return Ok(());
        }
        if let Some(p) = &def.parent {
            let pname = crate::names::strip_root(p).to_ascii_lowercase();
            if !self.build.class_scopes.contains_key(pname.as_str()) {
                if let Some(pdef) = self.find_class(&pname)? {
                    self.add_class_resource(&pdef, None, ClassDecl::Include, declared_in, span)?;
                }
            }
        }
        let mut res = Resource::new(SmolStr::new_static("Class"), key.title.clone());
        res.kind = ResourceKind::Class;
        let container = self.scopes.container_of(declared_in);
        // Its own tags in Puppet's order: those of its `tag` parameter, `class`, its name;
        // then the tags of the code that declared it (its container is its stage, so they
        // are its own).
        if let Some(params) = params {
            if let Some(v) = params.get("tag") {
                for t in tag_values(v) {
                    res.tag_checked(&t)
                        .or_else(|m| super::invalid_tag(m, span))?;
                }
            }
        }
        res.tags.insert("class".into());
        res.tag(&def.name);
        // The catalog takes the class resource's tags as it is added, before those of its
        // scope (Puppet adds them when the resource's evaluation finishes).
        self.catalog.tags.extend(res.tags.iter().cloned());
        self.inherit_tags(&mut res, &container);
        res.scope = Some(self.scopes.persistent(declared_in));
        res.resource_like = how == ClassDecl::ResourceLike;
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
            Some(Value::String(s)) => s.text().clone(),
            _ => SmolStr::new("main"),
        };
        if stage != "main" {
            res.params
                .insert("stage".into(), Value::String(stage.clone().into()));
        }
        res.container = Some(ResourceKey::new("Stage", &stage));
        self.catalog.add_keyed(key, res);
        Ok(())
    }

    pub(super) fn evaluate_class(
        &mut self,
        def: &Arc<ClassDef>,
        params: IndexMap<SmolStr, Value>,
        how: ClassDecl,
        declared_in: ScopeId,
        span: &Span,
    ) -> R<()> {
        self.build.started_classes.insert(def.name.clone());
        let parent_scope = match &def.parent {
            Some(p) => {
                let pname = crate::names::strip_root(p).to_ascii_lowercase();
                self.declare_class(&pname, None, ClassDecl::Include, declared_in, span)?;
                self.build.class_scopes.get(pname.as_str()).copied()
            }
            None => None,
        };
        let key = ResourceKey::class(&def.name);
        let label = key.reference();
        let id = self.open_body_scope(BodyScope {
            kind: ScopeKind::Class(def.name.clone()),
            key: &key,
            label: label.clone(),
            def: (&def.name, &def.span),
            params: def.params.len() + def.body_assignments(),
            parent: parent_scope.unwrap_or(self.build.node_scope.unwrap_or(self.top)),
            // The module of the parent scope: the inherited class's, else the code that
            // declared it.
            caller: parent_scope.unwrap_or(declared_in),
            // Defaults are found along the inherited class, else where it was declared.
            dyn_parent: parent_scope.unwrap_or(self.scopes.persistent(declared_in)),
            title: Value::string(&def.name),
            name: Value::string(&def.name),
        });
        self.build.class_scopes.insert(def.name.clone(), id);
        let stmt = if how == ClassDecl::ResourceLike {
            "Resource Statement"
        } else {
            "Function Call"
        };
        // Room for the metaparameters, every parameter bound below and `stage`, at once
        // (the binder's own reserve grew a class's map with many parameters, step by step).
        let mut final_params: crate::Map<SmolStr, Value> = crate::Map::with_capacity_and_hasher(
            params.len() + def.params.len() + 1,
            Default::default(),
        );
        // The given values first, in the order given (Puppet's order of a resource's
        // parameters); binding below puts values found by lookup, then defaults, after them.
        for (k, v) in &params {
            final_params.insert(k.clone(), v.clone());
        }
        let owner = Owner::Class {
            label: &label,
            stmt,
            name: &def.name,
        };
        let params: crate::Map<SmolStr, Value> = params.into_iter().collect();
        let args = Args::Named {
            given: &params,
            bound: &mut final_params,
        };
        self.bind(&def.params, args, &owner, id, span)?;
        if let Some(r) = self.catalog.resources.get_mut(&key) {
            if let Some(stage) = r.params.get("stage").cloned() {
                final_params.entry("stage".into()).or_insert(stage);
            }
            r.params = final_params;
        }
        // `next()` and `return()` end a class or define body early.
        match self.eval_body(&def.body, id) {
            Ok(_) | Err(Flow::Next(_)) | Err(Flow::Return(..)) => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Opens the scope a class or defined-type instance's body runs in, with what Puppet
    /// gives every such scope (see [`BodyScope`]).
    fn open_body_scope(&mut self, b: BodyScope<'_>) -> ScopeId {
        let (def_name, def_span) = b.def;
        let mut s = Scope::new(b.kind, Some(b.parent), b.label);
        // Room for the four variables below, the parameters, which are bound next, and the
        // body's assignments (growing the map step by step was a visible part of a class
        // body with many variables).
        s.vars.reserve(4 + b.params);
        s.module = Some(SmolStr::new(crate::names::first_segment(def_name)));
        let module = match &def_span.file.path {
            Some(path) => match self.build.module_names.get(path.as_str()) {
                Some(m) => m.clone(),
                None => {
                    let m = self.module_of(def_span);
                    self.build.module_names.insert(path.clone(), m.clone());
                    m
                }
            },
            None => self.module_of(def_span),
        };
        s.vars.insert("module_name".into(), module);
        let caller = (self.scopes.lookup(b.caller, "module_name").cloned())
            .unwrap_or_else(|| Value::string(""));
        s.vars.insert("caller_module_name".into(), caller);
        s.vars.insert("title".into(), b.title);
        s.vars.insert("name".into(), b.name);
        s.resource = Some(b.key.clone());
        s.dyn_parent = Some(b.dyn_parent);
        self.scopes.add(s)
    }

    pub(super) fn evaluate_define_instance(&mut self, key: &ResourceKey) -> R<()> {
        // What the body needs of the instance (the resource itself stays in the catalog,
        // with its parameters as given until they are bound).
        let Some(res) = self.catalog.get(key).map(|r| DefineInstance {
            type_name: r.type_name.clone(),
            title: r.title.clone(),
            scope: r.scope,
            span: r.span.clone(),
            given: r.params.clone(),
        }) else {
            return Ok(());
        };
        let Some(def) = self
            .env
            .define(res.type_name.to_ascii_lowercase_smolstr().as_str())
        else {
            return Ok(());
        };
        // Puppet evaluates instances after the code has run and reports what failed in one
        // as an error of the resource statement that declared it, at that statement's line.
        let statement = res.span.clone();
        self.evaluate_define(&def, key, res).map_err(|f| match f {
            Flow::Error(e) => {
                // Errors of the parameters are already in their final form.
                if e.kind == ErrorKind::Complete {
                    return Flow::Error(e);
                }
                let at = statement.as_ref().map(location).unwrap_or_default();
                Flow::Error(EvalError {
                    code: crate::error::codes::EVAL_ERROR,
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

    fn evaluate_define(
        &mut self,
        def: &DefineDef,
        key: &ResourceKey,
        res: DefineInstance,
    ) -> R<()> {
        self.build.evaluated_defines.insert(key.clone());
        let label = key.reference();
        let declared_in = res.scope.unwrap_or(self.top);
        let given = res.given;
        let id = self.open_body_scope(BodyScope {
            kind: ScopeKind::Define(res.type_name.clone(), res.title.clone()),
            key,
            label: label.clone(),
            def: (&def.name, &def.span),
            params: def.params.len() + def.body_assignments(),
            parent: self.build.node_scope.unwrap_or(self.top),
            // The module of the code that declared it.
            caller: declared_in,
            dyn_parent: declared_in,
            title: Value::String(res.title.clone().into()),
            name: (given.get("name").cloned()).unwrap_or(Value::String(res.title.clone().into())),
        });
        let span = res.span.clone().unwrap_or_else(|| def.span.clone());
        // Room for the metaparameters and every parameter bound below, at once.
        let mut final_params: crate::Map<SmolStr, Value> = crate::Map::with_capacity_and_hasher(
            given.len() + def.params.len(),
            Default::default(),
        );
        // The given values first, in the order given (Puppet's order of a resource's
        // parameters); binding below puts the defaults after them.
        for (k, v) in &given {
            final_params.insert(k.clone(), v.clone());
        }
        let owner = Owner::Define { label: &label };
        let args = Args::Named {
            given: &given,
            bound: &mut final_params,
        };
        match self.bind(&def.params, args, &owner, id, &span) {
            Ok(()) => {}
            // The binding's own problems (raised at the statement); an error inside a
            // default expression is wrapped like one of the body.
            Err(Flow::Error(e)) if e.span.as_ref() == Some(&span) => {
                return Err(statement_error(e.message, &span))
            }
            Err(other) => return Err(other),
        }
        if let Some(r) = self.catalog.resources.get_mut(key) {
            r.params = final_params;
        }
        match self.eval_body(&def.body, id) {
            Ok(_) | Err(Flow::Next(_)) | Err(Flow::Return(..)) => {}
            // Puppet reports it as an error of the instance's evaluation.
            Err(Flow::Break(span)) => return Err(Flow::Error(EvalError {
                code: crate::error::codes::EVAL_ERROR,
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

    /// The classes evaluated so far, in order (with the matched node's name, as Puppet
    /// lists it).
    pub fn evaluated_classes(&self) -> IndexSet<SmolStr> {
        self.evaluated_in_order()
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    }

    /// The catalog's tags so far, as a template's `all_tags` sees them: `settings`, then
    /// the tags of each evaluated class and node resource in evaluation order (`class` or
    /// `node`, the name, the segments of a qualified name), each once.
    pub fn catalog_tags(&self) -> IndexSet<SmolStr> {
        let mut out: IndexSet<SmolStr> = IndexSet::default();
        out.insert("settings".into());
        for (is_node, name) in self.evaluated_in_order() {
            out.insert(if is_node { "node" } else { "class" }.into());
            crate::catalog::add_tag(&mut out, &name);
        }
        out
    }

    /// Each evaluated class (`false`) and the matched node (`true`) by name, in the order
    /// Puppet adds them to the catalog.
    fn evaluated_in_order(&self) -> Vec<(bool, SmolStr)> {
        let mut out: Vec<(bool, SmolStr)> = Vec::new();
        let mut nodes = self.build.node_classes.iter().peekable();
        for (i, k) in self.build.class_scopes.keys().enumerate() {
            while let Some((_, n)) = nodes.next_if(|(at, _)| *at <= i) {
                out.push((true, n.clone()));
            }
            if !matches!(k.as_str(), "" | "main" | "settings") {
                out.push((false, k.clone()));
            }
        }
        out.extend(nodes.map(|(_, n)| (true, n.clone())));
        out
    }
}

/// What evaluating a defined-type instance takes from its resource: a copy of its type,
/// title, declaring scope, location and the parameters it was given.
struct DefineInstance {
    type_name: SmolStr,
    title: SmolStr,
    scope: Option<ScopeId>,
    span: Option<Span>,
    given: crate::Map<SmolStr, Value>,
}

/// The scope a class or defined-type instance's body runs in: under `parent` (node or top
/// scope, or the inherited class's), labelled `label` and belonging to the resource `key`,
/// with `$module_name` the module of the definition `def` (name, location),
/// `$caller_module_name` that of the scope `caller` (stdlib's `assert_private` compares
/// them), `$title` and `$name`; resource defaults are found along `dyn_parent`.
struct BodyScope<'a> {
    kind: ScopeKind,
    key: &'a ResourceKey,
    label: String,
    def: (&'a str, &'a Span),
    /// How many variables the body binds besides the four every body scope has: the
    /// definition's parameters and the body's assignments (room for them is made at once).
    params: usize,
    parent: ScopeId,
    caller: ScopeId,
    dyn_parent: ScopeId,
    title: Value,
    name: Value,
}

/// An error of a defined-type instance's parameters as Puppet reports it: an evaluation
/// error at the declaring statement's file and line (no column).
pub(super) fn statement_error(message: String, span: &Span) -> Flow {
    Flow::Error(EvalError {
        code: crate::error::codes::EVAL_ERROR,
        kind: ErrorKind::Complete,
        message: format!("Evaluation Error: {message} {}", location(span)),
        span: Some(span.clone()),
    })
}
