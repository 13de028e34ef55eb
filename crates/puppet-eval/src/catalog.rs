//! The catalog under construction during one compile.
//!
//! Resources in declaration order, keyed by type and title; the class resources Puppet
//! emits; resource defaults, overrides, collectors and relationships recorded as they are
//! evaluated, to be applied when the compile finishes. It is compile-local state; the
//! finished catalog is converted to `puppet-graph`'s model for output and analysis.

use crate::ir::Span;
use crate::scope::ScopeId;
use indexmap::IndexMap;
use puppet_types::Value;
use smol_str::SmolStr;
use std::collections::VecDeque;

/// `Type[title]` with the type capitalised (`File`, `Foo::Bar`, `Class`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceKey {
    pub type_name: SmolStr,
    pub title: SmolStr,
}

impl ResourceKey {
    pub fn new(type_name: &str, title: &str) -> ResourceKey {
        let type_name = crate::eval::capitalize(&type_name.to_ascii_lowercase());
        let title = if type_name == "Class" {
            let t = title.trim_start_matches("::").to_ascii_lowercase();
            SmolStr::new(crate::eval::capitalize(&t))
        } else {
            SmolStr::new(title)
        };
        ResourceKey {
            type_name: SmolStr::new(type_name),
            title,
        }
    }
}

impl std::fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.type_name, self.title)
    }
}

/// A resource in the catalog.
#[derive(Debug, Clone)]
pub struct Resource {
    pub type_name: SmolStr,
    pub title: SmolStr,
    pub params: IndexMap<SmolStr, Value>,
    pub tags: Vec<SmolStr>,
    pub virtual_: bool,
    pub exported: bool,
    /// The scope that declared it (for defaults).
    pub scope: Option<ScopeId>,
    pub span: Option<Span>,
}

impl Resource {
    pub fn new(type_name: &str, title: &str) -> Resource {
        Resource {
            type_name: SmolStr::new(type_name),
            title: SmolStr::new(title),
            params: IndexMap::new(),
            tags: Vec::new(),
            virtual_: false,
            exported: false,
            scope: None,
            span: None,
        }
    }

    pub fn key(&self) -> ResourceKey {
        ResourceKey::new(&self.type_name, &self.title)
    }
}

/// A collector's query, evaluated.
#[derive(Debug, Clone)]
pub enum CollectQuery {
    All,
    Eq(SmolStr, Value),
    Ne(SmolStr, Value),
    And(Box<CollectQuery>, Box<CollectQuery>),
    Or(Box<CollectQuery>, Box<CollectQuery>),
}

/// Evaluated attribute operations: name, value, and whether it was `+>`.
pub type AttrList = Vec<(SmolStr, Value, bool)>;

/// A collector: type, exported, query and the attributes it overrides.
pub type Collector = (SmolStr, bool, CollectQuery, AttrList);

/// A relationship declared with a chaining arrow.
#[derive(Debug, Clone)]
pub struct Relationship {
    pub source: ResourceKey,
    pub target: ResourceKey,
    /// `~>` rather than `->`.
    pub notify: bool,
    pub span: Span,
}

/// The catalog being built.
#[derive(Debug, Default)]
pub struct Catalog {
    pub resources: IndexMap<ResourceKey, Resource>,
    /// Defined-type instances waiting to be evaluated.
    pending: VecDeque<ResourceKey>,
    pub defaults: Vec<(ScopeId, SmolStr, AttrList)>,
    pub overrides: Vec<(ResourceKey, AttrList)>,
    pub collectors: Vec<Collector>,
    pub relationships: Vec<Relationship>,
    /// Text rendered by EPP templates being evaluated.
    pub render_buffer: String,
}

impl Catalog {
    pub fn get(&self, key: &ResourceKey) -> Option<&Resource> {
        self.resources.get(key)
    }

    pub fn add(&mut self, r: Resource, is_define: bool) {
        let key = r.key();
        if is_define {
            self.pending.push_back(key.clone());
        }
        self.resources.insert(key, r);
    }

    pub fn add_class_resource(&mut self, name: &str, params: Option<IndexMap<SmolStr, Value>>) {
        let mut r = Resource::new("Class", &crate::eval::capitalize(name));
        if name == "main" {
            r.title = "main".into();
        }
        if let Some(p) = params {
            r.params = p;
        }
        let key = ResourceKey::new("Class", name);
        self.resources.entry(key).or_insert(r);
    }

    pub fn next_pending_define(&mut self) -> Option<ResourceKey> {
        self.pending.pop_front()
    }

    pub fn add_defaults(
        &mut self,
        scope: ScopeId,
        type_name: SmolStr,
        attrs: Vec<(SmolStr, Value, bool)>,
    ) {
        self.defaults.push((scope, type_name, attrs));
    }

    pub fn add_override(&mut self, key: ResourceKey, attrs: Vec<(SmolStr, Value, bool)>) {
        self.overrides.push((key, attrs));
    }

    pub fn add_collector(
        &mut self,
        type_name: SmolStr,
        exported: bool,
        q: CollectQuery,
        attrs: Vec<(SmolStr, Value, bool)>,
    ) {
        self.collectors.push((type_name, exported, q, attrs));
    }

    pub fn add_relationship(
        &mut self,
        source: ResourceKey,
        target: ResourceKey,
        notify: bool,
        span: Span,
    ) {
        self.relationships.push(Relationship {
            source,
            target,
            notify,
            span,
        });
    }
}
