//! The catalog under construction during one compile.
//!
//! Resources in declaration order, keyed by type and title, each knowing its container
//! (the class, defined-type instance or node whose code declared it); the containment edges
//! Puppet records; resource defaults, overrides, collectors and chaining-arrow relationships
//! recorded as they are evaluated, to be applied when the compile finishes. It is
//! compile-local state; the finished catalog is converted to `puppet-graph`'s model for
//! output and analysis (see `output.rs`).

use crate::ir::Span;
use crate::scope::ScopeId;
use puppet_types::Value;
use smol_str::{SmolStr, StrExt};
use std::collections::VecDeque;

/// `Type[title]` with the type capitalised (`File`, `Foo::Bar`, `Class`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceKey {
    pub type_name: SmolStr,
    pub title: SmolStr,
}

impl ResourceKey {
    pub fn new(type_name: &str, title: &str) -> ResourceKey {
        if type_name == "Class" {
            return ResourceKey::class(title);
        }
        let type_name = crate::names::capitalize_lowered(type_name);
        if type_name == "Class" {
            return ResourceKey::class(title);
        }
        ResourceKey {
            type_name,
            title: SmolStr::new(title),
        }
    }

    /// `Class[name]`: [`ResourceKey::new`] of `Class` (the title without a leading `::`,
    /// capitalised, `main` as it is).
    pub fn class(name: &str) -> ResourceKey {
        let t = crate::names::strip_root(name);
        let title = if t.eq_ignore_ascii_case("main") {
            SmolStr::new_inline("main")
        } else {
            crate::names::capitalize_lowered(t)
        };
        ResourceKey {
            type_name: SmolStr::new_static("Class"),
            title,
        }
    }

    /// [`ResourceKey::new`] of names held as `SmolStr`s: those already in the key's form
    /// (the type and title of a catalog resource, of a reference value) are shared, not
    /// copied.
    pub fn of(type_name: &SmolStr, title: &SmolStr) -> ResourceKey {
        let type_name = crate::names::capitalize_lowered_smol(type_name);
        let title = if type_name == "Class" {
            if title.starts_with("::") || title.eq_ignore_ascii_case("main") {
                return ResourceKey::new(&type_name, title);
            }
            crate::names::capitalize_lowered_smol(title)
        } else {
            title.clone()
        };
        ResourceKey { type_name, title }
    }
}

impl std::fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.type_name)?;
        f.write_str("[")?;
        f.write_str(&self.title)?;
        f.write_str("]")
    }
}

impl ResourceKey {
    /// The reference text, `Type[title]` (what `to_string` gives, in one allocation).
    pub fn reference(&self) -> String {
        let mut s = String::with_capacity(self.type_name.len() + self.title.len() + 2);
        s.push_str(&self.type_name);
        s.push('[');
        s.push_str(&self.title);
        s.push(']');
        s
    }
}

/// What kind of resource a catalog entry is (Puppet's `kind` in catalog JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    /// A resource of a built-in or module Ruby type (`compilable_type`).
    Builtin,
    /// An instance of a defined type (`defined_type`).
    Define,
    /// A class (`unknown`, as Puppet prints it).
    Class,
    /// The resource of the matched node definition.
    Node,
    /// A run stage.
    Stage,
}

/// A resource in the catalog.
#[derive(Debug, Clone)]
pub struct Resource {
    pub type_name: SmolStr,
    pub title: SmolStr,
    pub params: crate::Map<SmolStr, Value>,
    /// Tags in the order Puppet adds them (type, title, container's tags, `tag`s).
    pub tags: crate::Set<SmolStr>,
    pub kind: ResourceKind,
    pub virtual_: bool,
    pub exported: bool,
    /// The scope that declared it (for defaults, which follow the declaration chain).
    pub scope: Option<ScopeId>,
    /// The resource whose code declared it (`Class[main]` at top level).
    pub container: Option<ResourceKey>,
    /// How many of `container`'s tags (the first ones: tags are only ever added) it has
    /// taken already, when it was declared; `Compiler::merge_scope_tags` adds the others.
    pub container_tags: usize,
    /// Where the tags taken from `container` when it was declared start among its tags, and
    /// how many there are: Puppet merges a resource's scope tags when it finishes it, so
    /// the tags an override or a collector adds come before them.
    pub inherited_tags: (usize, usize),
    /// Its title was not a String where it was declared (an Integer a Ruby function passed
    /// to `create_resources`): Puppet's `name == title` is false, so the catalog keeps its
    /// `name` parameter.
    pub title_not_string: bool,
    /// A class declared like a resource (`class { 'x': }`, `create_resources('class', ..)`):
    /// Puppet's catalog gives it kind `class` and the declaration's file and line (an
    /// included class has neither).
    pub resource_like: bool,
    pub span: Option<Span>,
    /// Where the relationship metaparameters given in the resource's body were written
    /// (Puppet reports a missing target at that attribute's line).
    pub param_spans: crate::Map<SmolStr, Span>,
    /// The parameters that resource defaults, an override or a collector set (last): the
    /// code that did it (as [`Resource::container`]) and where. Puppet lets an override
    /// replace such a value only from a subclass of that code (or from that code itself
    /// for a default).
    pub overridden_by: crate::Map<SmolStr, (Option<ResourceKey>, Span)>,
}

impl Resource {
    pub fn new(type_name: impl Into<SmolStr>, title: impl Into<SmolStr>) -> Resource {
        Resource {
            type_name: type_name.into(),
            title: title.into(),
            params: Default::default(),
            tags: Default::default(),
            kind: ResourceKind::Builtin,
            virtual_: false,
            exported: false,
            scope: None,
            container: None,
            container_tags: 0,
            inherited_tags: (0, 0),
            title_not_string: false,
            resource_like: false,
            span: None,
            param_spans: Default::default(),
            overridden_by: Default::default(),
        }
    }

    pub fn key(&self) -> ResourceKey {
        ResourceKey::of(&self.type_name, &self.title)
    }

    /// Adds a tag as Puppet's `tag` does: lower-cased; a name with `::` not seen before
    /// also adds its parts, after it (the order of Puppet's catalog).
    pub fn tag(&mut self, tag: &str) {
        add_tag(&mut self.tags, tag);
    }

    /// Adds a tag the code gave (a `tag` attribute or default, the `tag` function) as
    /// Puppet's `Tagging#tag` does: a name not seen before must be a tag name, else it is
    /// an error (`Invalid tag 'a b'`) and nothing is added.
    pub fn tag_checked(&mut self, tag: &str) -> Result<(), String> {
        let t = downcase(tag);
        if !self.tags.contains(t.as_ref()) && !is_valid_tag(&t) {
            return Err(format!("Invalid tag '{t}'"));
        }
        self.tag(&t);
        Ok(())
    }

    /// Adds the title as a tag when it is a valid tag name, as Puppet does.
    pub fn tag_title(&mut self) {
        if is_valid_tag(&self.title) {
            let t = self.title.clone();
            self.tag(&t);
        }
    }
}

/// Adds a tag to a set as Puppet's `Tagging#tag` does (without its check of the name):
/// lower-cased; a name with `::` not in the set yet also adds its parts, after it.
pub(crate) fn add_tag<S: std::hash::BuildHasher>(
    tags: &mut indexmap::IndexSet<SmolStr, S>,
    tag: &str,
) {
    let t = downcase(tag);
    let t = t.as_ref();
    if !tags.insert(SmolStr::new(t)) {
        return;
    }
    // Its `::`-separated parts, as `split("::")` finds them, without a substring
    // searcher.
    let mut rest = t;
    while let Some(i) = rest.as_bytes().windows(2).position(|w| w == b"::") {
        if i > 0 {
            tags.insert(SmolStr::new(&rest[..i]));
        }
        rest = &rest[i + 2..];
    }
    if rest.len() < t.len() && !rest.is_empty() {
        tags.insert(SmolStr::new(rest));
    }
}

/// A tag name lower-cased as Ruby's `downcase` does (the whole of Unicode), without a copy
/// when nothing changes.
fn downcase(tag: &str) -> std::borrow::Cow<'_, str> {
    if tag.is_ascii() {
        if tag.bytes().any(|b| b.is_ascii_uppercase()) {
            return tag.to_ascii_lowercase().into();
        }
        return tag.into();
    }
    tag.to_lowercase().into()
}

/// Puppet's tag syntax: `\A[[:alnum:]_][[:alnum:]_:.-]*\z`.
pub fn is_valid_tag(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_alphanumeric() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '-'))
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

/// Where the relationship attributes (`before`, `require`, ...) of a defaults, override or
/// collector block are written: a missing target is reported at that line.
pub type AttrSpans = crate::Map<SmolStr, Span>;

/// A resource defaults statement, evaluated: the scope it was evaluated in, the type (as
/// written), the attributes and where they are written.
pub type Defaults = (ScopeId, SmolStr, AttrList, AttrSpans);

/// A collector: type, exported, query, the attributes it overrides, the scope it was
/// evaluated in, and the resources it has collected so far.
#[derive(Debug, Clone)]
pub struct Collector {
    pub type_name: SmolStr,
    pub exported: bool,
    pub query: CollectQuery,
    pub attrs: AttrList,
    pub attr_spans: AttrSpans,
    pub scope: ScopeId,
    pub span: Span,
    pub collected: crate::Set<ResourceKey>,
    /// For a collector whose query is [`CollectQuery::All`]: how many resources of its type
    /// (in [`Catalog::of_type`]'s order) it has collected, all of them, so a later pass
    /// starts after them. Other queries look at the state of the resource, which can change
    /// between passes (tags, overridden parameters), so they look at every resource again.
    pub scanned: usize,
}

/// One side of a chaining arrow: resource references, or what a collector collects.
#[derive(Debug, Clone)]
pub enum RelEnd {
    Refs(Vec<ResourceKey>),
    /// A collector, and what precedes it in its chain (used when it collects nothing).
    Collector(usize, Option<Box<RelEnd>>),
}

/// A relationship declared with a chaining arrow.
#[derive(Debug, Clone)]
pub struct Relationship {
    pub source: RelEnd,
    pub target: RelEnd,
    /// `~>` rather than `->`.
    pub notify: bool,
    pub span: Span,
}

/// A resource override (`File['x'] { ... }`, or a collector's block), waiting for its
/// resource.
#[derive(Debug, Clone)]
pub struct Override {
    pub key: ResourceKey,
    pub attrs: AttrList,
    pub attr_spans: AttrSpans,
    pub scope: ScopeId,
    pub span: Span,
}

/// The catalog being built.
#[derive(Debug, Default)]
pub struct Catalog {
    pub resources: crate::Map<ResourceKey, Resource>,
    /// Containment edges, container first, in the order they were added.
    pub edges: crate::Set<(ResourceKey, ResourceKey)>,
    /// Defined-type instances waiting to be evaluated.
    pending: VecDeque<ResourceKey>,
    /// Resource defaults statements, in evaluation order (add and forget them with
    /// [`Catalog::add_defaults`] and [`Catalog::forget_defaults`], which keep the index).
    defaults: Vec<Defaults>,
    /// The index in `defaults` of every statement, by ASCII-lower-cased type name, in
    /// order: a resource looks at its type's statements only.
    defaults_by_type: crate::Map<SmolStr, Vec<usize>>,
    pub overrides: Vec<Override>,
    pub collectors: Vec<Collector>,
    /// References given to `realize` before their resource was declared: realized when it
    /// is, by the compiler's generator loop, as Puppet's fixed collectors.
    pub pending_realize: Vec<ResourceKey>,
    pub relationships: Vec<Relationship>,
    /// Other names of resources: namevar values that differ from the title, and `alias`es.
    pub aliases: crate::Map<ResourceKey, ResourceKey>,
    /// Uniqueness keys of resources of built-in types (type and namevar values).
    pub uniqueness: crate::Map<(SmolStr, Vec<Option<String>>), ResourceKey>,
    /// The catalog's own tags (`tagged` looks at them too): the tags each class resource
    /// has when it is added, as Puppet tags its catalog then.
    pub tags: crate::Set<SmolStr>,
    /// The code (as [`Resource::container`]) of collectors that have overridden
    /// something: Puppet then takes it for a subclass of everything, so its plain
    /// overrides are never refused either.
    pub override_anything: crate::Set<ResourceKey>,
    /// The index in `resources` of every resource, by ASCII-lower-cased type name, in
    /// catalog order (resources are never removed): a collector looks at its type's only.
    by_type: crate::Map<SmolStr, Vec<usize>>,
}

impl Catalog {
    /// Makes room for `resources` resources and as many containment edges.
    pub(crate) fn reserve(&mut self, resources: usize) {
        self.resources.reserve(resources);
        self.edges.reserve(resources);
    }

    pub fn get(&self, key: &ResourceKey) -> Option<&Resource> {
        self.resources.get(key)
    }

    /// Adds a resource and its containment edge; a defined-type instance is queued for
    /// evaluation.
    pub fn add(&mut self, r: Resource) {
        self.add_keyed(r.key(), r);
    }

    /// [`Catalog::add`] of a resource whose key (`r.key()`) the caller has made already.
    pub(crate) fn add_keyed(&mut self, key: ResourceKey, r: Resource) {
        debug_assert_eq!(key, r.key());
        if r.kind == ResourceKind::Define && !r.virtual_ {
            self.pending.push_back(key.clone());
        }
        if let Some(c) = &r.container {
            self.edges.insert((c.clone(), key.clone()));
        }
        let type_name = key.type_name.to_ascii_lowercase_smolstr();
        let (i, replaced) = self.resources.insert_full(key, r);
        // Every caller checks first that the key is free.
        debug_assert!(replaced.is_none());
        if replaced.is_none() {
            self.by_type.entry(type_name).or_default().push(i);
        }
    }

    /// The indexes in `resources` of the resources whose type name is `type_name` ignoring
    /// the case of ASCII letters, in catalog order.
    pub fn of_type(&self, type_name: &str) -> &[usize] {
        let found = if type_name.bytes().any(|b| b.is_ascii_uppercase()) {
            self.by_type
                .get(type_name.to_ascii_lowercase_smolstr().as_str())
        } else {
            self.by_type.get(type_name)
        };
        found.map(Vec::as_slice).unwrap_or_default()
    }

    /// The key of the resource a reference denotes: its title, or one of its aliases.
    pub fn resolve(&self, key: &ResourceKey) -> Option<ResourceKey> {
        if self.resources.contains_key(key) {
            return Some(key.clone());
        }
        self.aliases.get(key).cloned()
    }

    /// Makes a virtual resource real (`realize`, collectors); a defined-type instance is
    /// then queued for evaluation.
    pub fn realize(&mut self, key: &ResourceKey) {
        if let Some(r) = self.resources.get_mut(key) {
            if r.virtual_ {
                r.virtual_ = false;
                if r.kind == ResourceKind::Define {
                    self.pending.push_back(key.clone());
                }
            }
        }
    }

    /// The resource defaults statements, in evaluation order.
    pub fn defaults(&self) -> &[Defaults] {
        &self.defaults
    }

    /// Records a resource defaults statement.
    pub(crate) fn add_defaults(&mut self, d: Defaults) {
        let type_name = d.1.to_ascii_lowercase_smolstr();
        (self.defaults_by_type.entry(type_name).or_default()).push(self.defaults.len());
        self.defaults.push(d);
    }

    /// Drops the resource defaults statements evaluated in `scope`.
    pub(crate) fn forget_defaults(&mut self, scope: ScopeId) {
        if !self.defaults.iter().any(|d| d.0 == scope) {
            return;
        }
        self.defaults.retain(|d| d.0 != scope);
        self.defaults_by_type.clear();
        for (i, d) in self.defaults.iter().enumerate() {
            let type_name = d.1.to_ascii_lowercase_smolstr();
            self.defaults_by_type.entry(type_name).or_default().push(i);
        }
    }

    /// The resource defaults statements whose type is `type_name` ignoring the case of
    /// ASCII letters, in evaluation order.
    pub fn defaults_of(&self, type_name: &str) -> Vec<&Defaults> {
        let found = if type_name.bytes().any(|b| b.is_ascii_uppercase()) {
            (self.defaults_by_type).get(type_name.to_ascii_lowercase_smolstr().as_str())
        } else {
            self.defaults_by_type.get(type_name)
        };
        let Some(found) = found else {
            return Vec::new();
        };
        found.iter().map(|&i| &self.defaults[i]).collect()
    }

    pub fn next_pending_define(&mut self) -> Option<ResourceKey> {
        self.pending.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::{Catalog, Resource, ResourceKey};

    /// `Resource::tag` as Puppet's `Tagging#tag` writes it: the name, then for a qualified
    /// name its non-empty `split("::")` parts after it; lower-cased as Ruby's `downcase`
    /// (`Élan` is `élan`).
    fn reference_tags(tag: &str) -> Vec<String> {
        let t = tag.to_lowercase();
        let mut out: Vec<String> = vec![t.clone()];
        if t.contains("::") {
            for part in t.split("::").filter(|p| !p.is_empty()) {
                if !out.iter().any(|x| x == part) {
                    out.push(part.to_string());
                }
            }
        }
        out
    }

    #[test]
    fn tag_adds_the_parts_of_a_qualified_name() {
        for tag in [
            "a", "A::B", "a::b::c", "::a", "a::", "::", "a:::b", "a::::b", ":a:", "a:b", "x::x",
            "Élan::y", "",
        ] {
            let mut r = Resource::new("Notify", "n");
            r.tag(tag);
            let got: Vec<String> = r.tags.iter().map(|t| t.to_string()).collect();
            assert_eq!(got, reference_tags(tag), "{tag:?}");
        }
        // A name seen before adds nothing, not even its parts (Puppet's `add?`).
        let mut r = Resource::new("Notify", "n");
        r.tag("a::b");
        r.tags.swap_remove("b");
        r.tag("a::b");
        assert_eq!(
            r.tags.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            ["a::b", "a"]
        );
    }

    /// The statements `defaults_of` finds through its index are those a scan of every
    /// statement finds (the type ignoring ASCII case), in order, as statements are added
    /// and forgotten.
    #[test]
    fn defaults_of_agrees_with_a_scan() {
        use puppet_types::Value;
        let mut c = Catalog::default();
        let types = [
            "File", "file", "Exec", "FILE", "Foo::Bar", "foo::bar", "Élan", "élan",
        ];
        let check = |c: &Catalog| {
            for t in types.iter().chain(&["x", "Package"]) {
                let want: Vec<(usize, String)> = (c.defaults().iter())
                    .filter(|d| d.1.eq_ignore_ascii_case(t))
                    .map(|d| (d.0, d.2[0].0.to_string()))
                    .collect();
                let got: Vec<(usize, String)> = (c.defaults_of(t).iter())
                    .map(|d| (d.0, d.2[0].0.to_string()))
                    .collect();
                assert_eq!(got, want, "{t}");
            }
        };
        for (i, t) in types.iter().cycle().take(40).enumerate() {
            let attrs = vec![(format!("a{i}").into(), Value::Integer(i as i64), false)];
            c.add_defaults((i % 5, (*t).into(), attrs, Default::default()));
            check(&c);
            if i % 7 == 6 {
                c.forget_defaults(i % 5);
                check(&c);
            }
        }
        c.forget_defaults(99);
        check(&c);
        assert!(!c.defaults_of("file").is_empty());
    }

    #[test]
    fn of_type_finds_every_resource_of_the_type_in_order() {
        let mut c = Catalog::default();
        for (t, title) in [
            ("notify", "a"),
            ("File", "/x"),
            ("NOTIFY", "b"),
            ("foo::bar", "c"),
            ("Foo::BAR", "d"),
            ("élan", "e"),
            ("Élan", "f"),
            ("notify", "g"),
        ] {
            c.add(Resource::new(ResourceKey::new(t, title).type_name, title));
        }
        for t in [
            "Notify", "notify", "NoTiFy", "File", "Foo::Bar", "foo::bar", "Élan", "élan", "x",
        ] {
            let want: Vec<usize> = (c.resources.keys().enumerate())
                .filter(|(_, k)| k.type_name.eq_ignore_ascii_case(t))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(c.of_type(t), want.as_slice(), "{t}");
        }
        assert_eq!(c.of_type("notify").len(), 3);
    }
}
