//! The recorder of Puppet's resource-type DSL: running a type file
//! (`lib/puppet/type/*.rb`) against it records the type Puppet would define, with its
//! parameters, properties and their declarations, instead of reading the file's text.
//!
//! `Puppet::Type.newtype(:name, options) { ... }` creates the type's class (a subclass of
//! `Puppet::Type`, named `Puppet::Type::Name`) and runs the block in it; `newparam` and
//! `newproperty` create attribute classes (subclasses of `Puppet::Parameter` /
//! `Puppet::Property`, or the `:parent` given) and run their blocks there. What the blocks
//! declare (`desc`, `newvalues`, `newvalue`, `aliasvalue`, `defaultto`, `isnamevar`,
//! `isrequired`, `validate`, `munge`, `required_features`, `ensurable`, `feature`,
//! `autorequire`...) lands in [`TypeRecord`] and [`AttrRecord`]. Blocks that Puppet runs
//! later (validation, munging, computed defaults, autorequire) are recorded as present,
//! not run. Methods the file defines (`def self.title_patterns`, `def insync?`) stay on the
//! classes.
//!
//! The interface for the loaders is [`load_types`] (and [`TypeRecord`]); what else a
//! complete recorder must capture is listed in the records' fields as it is added.

use crate::interp::{raise, unsupported, Interp, R};
use crate::object::{Blk, Module, Object};
use crate::source::Sources;
use crate::value::{self, to_s, RValue};
use crate::{Pos, RubyError};
use indexmap::IndexMap;
use puppet_types::Value;
use smol_str::SmolStr;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// The kind of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrKind {
    /// `newparam`.
    Param,
    /// `newproperty` (and `ensurable`'s `ensure`).
    Property,
    /// `newmetaparam`.
    MetaParam,
}

/// A value an attribute declares (`newvalues`, `newvalue`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrValue {
    /// A name (`:present`, `true`, `'yes'`): its text.
    Name(String),
    /// A regular expression: its source.
    Regex(String),
}

/// An attribute's default.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    /// A value (`defaultto :present`, `defaultto 'x'`): Ruby's `inspect` of it.
    Value(String),
    /// A block, computed when a resource is made.
    Block,
}

/// A recorded parameter or property.
#[derive(Debug, Clone, PartialEq)]
pub struct AttrRecord {
    /// The name.
    pub name: String,
    /// What it is.
    pub kind: AttrKind,
    /// `desc`.
    pub doc: String,
    /// `isnamevar` / `:namevar => true`.
    pub namevar: bool,
    /// `isrequired`.
    pub required: bool,
    /// The declared values, in order (aliases included as names).
    pub values: Vec<AttrValue>,
    /// `aliasvalue`: (alias, value).
    pub aliases: Vec<(String, String)>,
    /// `defaultto`.
    pub default: Option<DefaultValue>,
    /// `required_features`.
    pub required_features: Vec<String>,
    /// The parent class given (`:parent => Puppet::Parameter::Boolean`).
    pub parent: Option<String>,
    /// `:boolean => true`, or a `Puppet::Parameter::Boolean` / `Puppet::Property::Boolean`
    /// parent.
    pub boolean: bool,
    /// `array_matching` (`all`, `first`).
    pub array_matching: Option<String>,
    /// A `validate` block.
    pub has_validate: bool,
    /// A `munge` block.
    pub has_munge: bool,
}

impl AttrRecord {
    fn new(name: &str, kind: AttrKind) -> AttrRecord {
        AttrRecord {
            name: name.to_string(),
            kind,
            doc: String::new(),
            namevar: false,
            required: false,
            values: Vec::new(),
            aliases: Vec::new(),
            default: None,
            required_features: Vec::new(),
            parent: None,
            boolean: false,
            array_matching: None,
            has_validate: false,
            has_munge: false,
        }
    }
}

/// A provider feature (`feature :name, 'doc', :methods => [...]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    /// The name.
    pub name: String,
    /// The documentation.
    pub doc: String,
    /// The methods a provider must have.
    pub methods: Vec<String>,
}

/// One of the patterns a type's `self.title_patterns` returned (run once the file is loaded,
/// as Puppet runs it when it parses a title).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitlePatternRecord {
    /// The regexp's source (`Regexp#source`).
    pub source: String,
    /// Its options among `m`, `i`, `x`.
    pub flags: String,
    /// For each capture group in order, the key attribute it sets.
    pub captures: Vec<String>,
    /// For each capture group, whether a proc transforms the captured value.
    pub procs: Vec<bool>,
}

/// A recorded resource type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeRecord {
    /// The type's name.
    pub name: String,
    /// `@doc` / `desc`.
    pub doc: String,
    /// `ensurable` was called.
    pub ensurable: bool,
    /// Parameters, properties and metaparameters, in declaration order.
    pub attrs: Vec<AttrRecord>,
    /// Provider features.
    pub features: Vec<Feature>,
    /// Automatic relationships: (`autorequire`/`autobefore`/..., target type).
    pub auto_relations: Vec<(String, String)>,
    /// The type has a `validate` block.
    pub has_validate: bool,
    /// The type defines `self.title_patterns`.
    pub has_title_patterns: bool,
    /// What its `self.title_patterns` returned (empty when it defines none: Puppet's
    /// default then depends on the key attributes).
    pub title_patterns: Vec<TitlePatternRecord>,
    /// `isomorphic?`: false when the type sets `@isomorphic = false`.
    pub isomorphic: bool,
    /// The file it was read from.
    pub file: String,
}

impl TypeRecord {
    /// The parameters (`newparam`), in declaration order.
    pub fn params(&self) -> impl Iterator<Item = &AttrRecord> {
        self.attrs.iter().filter(|a| a.kind == AttrKind::Param)
    }
    /// The properties (`newproperty`, `ensure`), in declaration order.
    pub fn properties(&self) -> impl Iterator<Item = &AttrRecord> {
        self.attrs.iter().filter(|a| a.kind == AttrKind::Property)
    }
    /// The key attributes, as Puppet's `key_attributes`: the parameters marked namevar or
    /// named `name`, in declaration order.
    pub fn key_attributes(&self) -> impl Iterator<Item = &AttrRecord> {
        self.params().filter(|a| a.namevar || a.name == "name")
    }
}

/// Runs a type file against the recorder and returns the types it defined.
///
/// ```
/// let src = "Puppet::Type.newtype(:thing) do\n  @doc = 'A thing.'\n  ensurable\n  newparam(:name, namevar: true) do\n    desc 'The name.'\n  end\n  newproperty(:size) do\n    newvalues(/^\\d+$/)\n    defaultto '1'\n  end\nend\n";
/// let types = puppet_ruby::typedsl::load_types("/m/lib/puppet/type/thing.rb", src, &puppet_ruby::Sources::empty()).unwrap();
/// let t = &types[0];
/// assert_eq!(t.name, "thing");
/// assert!(t.ensurable);
/// assert_eq!(t.params().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["name"]);
/// assert_eq!(t.properties().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["ensure", "size"]);
/// ```
pub fn load_types(
    path: &str,
    text: &str,
    sources: &Arc<Sources>,
) -> Result<Vec<TypeRecord>, RubyError> {
    load_types_with(path, text, sources, None)
}

/// [`load_types`] with the facts of the host that reads the types: what `Facter.value`
/// answers while the file loads (Puppet asks the Facter of the machine that loads the type,
/// `firewall`'s and `mount`'s files do). Without facts, `Facter` is an error naming the file
/// and line.
///
/// ```
/// use puppet_types::Value;
/// let src = "Puppet::Type.newtype(:t) do\n  newparam(:name) do\n    newvalues(Facter.value(:kernel) == 'Linux' ? :a : :b)\n  end\nend\n";
/// let facts = std::sync::Arc::new([("kernel".into(), Value::from("Linux"))].into_iter().collect());
/// let s = puppet_ruby::Sources::empty();
/// let t = puppet_ruby::typedsl::load_types_with("t.rb", src, &s, Some(&facts)).unwrap();
/// assert_eq!(t[0].attrs[0].values, [puppet_ruby::typedsl::AttrValue::Name("a".into())]);
/// assert!(puppet_ruby::typedsl::load_types("t.rb", src, &s).is_err());
/// ```
pub fn load_types_with(
    path: &str,
    text: &str,
    sources: &Arc<Sources>,
    facts: Option<&Arc<IndexMap<SmolStr, Value>>>,
) -> Result<Vec<TypeRecord>, RubyError> {
    // A type file runs once per environment: its tree is not kept.
    let program = sources.program_once(path, text)?;
    let mut scope = crate::NullScope::default();
    let mut it = Interp::with(&mut scope, path, false, sources.clone());
    it.set_step_limit(5_000_000);
    if let Some(f) = facts {
        it.ext.host_facts = Some(f.clone());
    }
    it.run_program(&program)
        .map_err(|c| RubyError::from_ctrl(path, c))?;
    let types = std::mem::take(&mut it.ext.types);
    let mut out = Vec::new();
    for t in types {
        let mut rec = t.borrow().clone();
        // Settle what the blocks set on the classes.
        if let Some(class) = type_class(&mut it, &rec.name) {
            if let Some(RValue::Str(d)) = class.ivars.borrow().get("doc") {
                rec.doc = d.borrow().clone();
            }
            if let Some(v) = class.ivars.borrow().get("isomorphic") {
                rec.isomorphic = v.truthy();
            }
            rec.has_title_patterns = it
                .find_user_method(&RValue::Module(class.clone()), "title_patterns")
                .is_some();
            if rec.has_title_patterns {
                rec.title_patterns = title_patterns(&mut it, &class, &rec.name)
                    .map_err(|c| RubyError::from_ctrl(path, c))?;
            }
        }
        rec.file = path.to_string();
        out.push(rec);
    }
    if out.is_empty() {
        return Err(RubyError::Unsupported {
            file: path.to_string(),
            line: 1,
            column: 1,
            construct: "a type file that defines no type (no Puppet::Type.newtype)".into(),
        });
    }
    Ok(out)
}

/// Runs a type's `self.title_patterns` and reads its answer: an array of
/// `[regexp, [[:attr], [:attr, proc], ...]]`.
fn title_patterns(
    it: &mut Interp,
    class: &Rc<Module>,
    name: &str,
) -> Result<Vec<TitlePatternRecord>, crate::interp::Ctrl> {
    let pos = Pos::default();
    let v = it.send(
        RValue::Module(class.clone()),
        "title_patterns",
        vec![],
        None,
        None,
        pos,
        true,
    )?;
    let bad = |what: &str| {
        unsupported::<Vec<TitlePatternRecord>>(
            format!("the title patterns of type {name}: {what}"),
            pos,
        )
    };
    let RValue::Array(items) = v else {
        return bad("not an array");
    };
    let mut out = Vec::new();
    for item in items.borrow().iter() {
        let RValue::Array(pair) = item else {
            return bad("an entry is not an array");
        };
        let pair = pair.borrow();
        let (Some(RValue::Regexp(re)), Some(RValue::Array(caps))) = (pair.first(), pair.get(1))
        else {
            return bad("an entry is not [regexp, [[attribute, proc], ...]]");
        };
        let mut rec = TitlePatternRecord {
            source: re.source.clone(),
            flags: re.flags.clone(),
            captures: Vec::new(),
            procs: Vec::new(),
        };
        for c in caps.borrow().iter() {
            let RValue::Array(c) = c else {
                return bad("a capture is not [attribute, proc]");
            };
            let c = c.borrow();
            let Some(attr) = c.first() else {
                return bad("a capture names no attribute");
            };
            rec.captures.push(sym_or_str(attr));
            rec.procs
                .push(c.get(1).is_some_and(|p| !matches!(p, RValue::Nil)));
        }
        out.push(rec);
    }
    Ok(out)
}

fn type_class(it: &mut Interp, name: &str) -> Option<Rc<Module>> {
    it.module_by_path(&format!("Puppet::Type::{}", capitalize(name)))
}

fn capitalize(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// The record a type or attribute class keeps.
enum Rec {
    Type(Rc<RefCell<TypeRecord>>),
    Attr(Rc<RefCell<AttrRecord>>),
}

/// The record of the first of `m`'s ancestors that has one, found along the walk of the
/// ancestors without building their list (the first one the walk meets is the list's
/// first: the list is the walk without repeats).
fn record_of(m: &Rc<Module>) -> Option<Rec> {
    m.walk_ancestors(&mut |a| {
        let e = a.extra.borrow().clone()?;
        match e.downcast::<RefCell<TypeRecord>>() {
            Ok(t) => Some(Rec::Type(t)),
            Err(e) => e.downcast::<RefCell<AttrRecord>>().ok().map(Rec::Attr),
        }
    })
}

fn sym_or_str(v: &RValue) -> String {
    match v {
        RValue::Sym(s) => s.to_string(),
        other => to_s(other),
    }
}

fn opt(h: Option<&RValue>, key: &str) -> Option<RValue> {
    match h {
        Some(RValue::Hash(h)) => h.borrow().get(&RValue::sym(key)).cloned(),
        _ => None,
    }
}

/// Class methods of `Puppet::Type`, of types and of attribute classes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn module_method(
    it: &mut Interp,
    cname: &str,
    recv: &RValue,
    m: &Rc<Module>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let _ = recv;
    if cname == "Puppet::Type" && Rc::ptr_eq(m, &it.module_by_path("Puppet::Type")?) {
        match name {
            "newtype" => return Some(newtype(it, args, block, pos)),
            "type" => {
                let n = args.first().map(sym_or_str).unwrap_or_default();
                let mut known = it.ext.types.iter().any(|t| t.borrow().name == n);
                if !known && crate::environment::is_module_name(&n) {
                    // Puppet's autoloader loads the type's file (`puppet/type/NAME`).
                    if it.require(&format!("puppet/type/{n}"), false, pos).is_ok() {
                        known = it.ext.types.iter().any(|t| t.borrow().name == n);
                    }
                }
                return Some(if known {
                    match type_class(it, &n) {
                        Some(c) => Ok(RValue::Module(c)),
                        None => Ok(RValue::Nil),
                    }
                } else {
                    unsupported(
                        format!("Puppet::Type.type(:{n}) (a type this file does not define)"),
                        pos,
                    )
                });
            }
            _ => {}
        }
    }
    let rec = match record_of(m) {
        Some(r) => r,
        None => {
            // An attribute class of its own (`class CronParam < Puppet::Property`): it gets
            // a record, which attributes made with it as `:parent` start from.
            let param = it.module_by_path("Puppet::Parameter")?;
            if !m.inherits(&param) || Rc::ptr_eq(m, &param) {
                return None;
            }
            let prop = it.module_by_path("Puppet::Property");
            let kind = match prop {
                Some(p) if m.inherits(&p) => AttrKind::Property,
                _ => AttrKind::Param,
            };
            let name = m.name();
            let short = name.rsplit("::").next().unwrap_or(&name).to_string();
            let a = Rc::new(RefCell::new(AttrRecord::new(&short, kind)));
            *m.extra.borrow_mut() = Some(a.clone());
            Rec::Attr(a)
        }
    };
    match rec {
        Rec::Type(t) => type_method(it, m, &t, name, args, block, pos),
        Rec::Attr(a) => attr_method(it, m, &a, name, args, block, pos),
    }
}

fn newtype(it: &mut Interp, args: &[RValue], block: Option<&Blk>, pos: Pos) -> R {
    let Some(n) = args.first() else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (given 0, expected 1..2)",
            pos,
        );
    };
    let name = sym_or_str(n);
    let parent = match opt(args.get(1), "parent") {
        Some(RValue::Module(p)) => p,
        _ => match it.module_by_path("Puppet::Type") {
            Some(p) => p,
            None => return unsupported("Puppet::Type", pos),
        },
    };
    let Some(container) = it.module_by_path("Puppet::Type") else {
        return unsupported("Puppet::Type", pos);
    };
    let cname = capitalize(&name);
    let class = it.new_module(&format!("Puppet::Type::{cname}"), true, Some(parent));
    container
        .consts_mut()
        .insert(cname, RValue::Module(class.clone()));
    let rec = Rc::new(RefCell::new(TypeRecord {
        name: name.clone(),
        doc: String::new(),
        ensurable: false,
        attrs: Vec::new(),
        features: Vec::new(),
        auto_relations: Vec::new(),
        has_validate: false,
        has_title_patterns: false,
        title_patterns: Vec::new(),
        isomorphic: true,
        file: String::new(),
    }));
    *class.extra.borrow_mut() = Some(rec.clone());
    it.ext.types.push(rec.clone());
    if let Some(b) = block {
        it.call_block_as(
            b,
            vec![],
            Some((RValue::Module(class.clone()), class.clone())),
            None,
            false,
            None,
            pos,
        )?;
    }
    // Puppet makes a type ensurable when its instances have `exists?`, `create` and
    // `destroy` and it has no `ensure` yet (`ensurable?`).
    let has_ensure = rec.borrow().attrs.iter().any(|a| a.name == "ensure");
    if !has_ensure
        && ["exists?", "create", "destroy"]
            .iter()
            .all(|m| class.find_method(m).is_some())
    {
        if let Some(r) = type_method(it, &class, &rec, "ensurable", &[], None, pos) {
            r?;
        }
    }
    Ok(RValue::Module(class))
}

/// Creates an attribute class and runs its block.
#[allow(clippy::too_many_arguments)]
fn new_attr(
    it: &mut Interp,
    type_class: &Rc<Module>,
    t: &Rc<RefCell<TypeRecord>>,
    kind: AttrKind,
    name: &str,
    options: Option<&RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let default_parent = match kind {
        AttrKind::Property => "Puppet::Property",
        _ => "Puppet::Parameter",
    };
    let parent = match opt(options, "parent") {
        Some(RValue::Module(p)) => p,
        Some(other) if !matches!(other, RValue::Nil) => {
            return raise(
                "Puppet::DevError",
                format!("Invalid parent {}", to_s(&other)),
                pos,
            )
        }
        _ => match it.module_by_path(default_parent) {
            Some(p) => p,
            None => return unsupported(default_parent.to_string(), pos),
        },
    };
    let parent_name = parent.name();
    let mut rec = AttrRecord::new(name, kind);
    // Values and defaults come along from a recorded parent attribute class.
    if let Some(Rec::Attr(pa)) = record_of(&parent) {
        let p = pa.borrow();
        rec.values = p.values.clone();
        rec.aliases = p.aliases.clone();
        rec.default = p.default.clone();
        rec.boolean = p.boolean;
    }
    if parent_name != default_parent {
        rec.parent = Some(parent_name.clone());
    }
    if parent_name == "Puppet::Parameter::Boolean" || parent_name == "Puppet::Property::Boolean" {
        rec.boolean = true;
    }
    // Puppet::Parameter::Boolean declares Puppet's boolean words as its values;
    // Puppet::Property::Boolean only munges.
    if parent_name == "Puppet::Parameter::Boolean" && rec.values.is_empty() {
        rec.values = ["true", "false", "yes", "no"]
            .iter()
            .map(|v| AttrValue::Name(v.to_string()))
            .collect();
    }
    if opt(options, "namevar").is_some_and(|v| v.truthy()) {
        rec.namevar = true;
    }
    if opt(options, "boolean").is_some_and(|v| v.truthy()) {
        rec.boolean = true;
    }
    if let Some(f) = opt(options, "required_features") {
        rec.required_features = match &f {
            RValue::Array(a) => a.borrow().iter().map(sym_or_str).collect(),
            other => vec![sym_or_str(other)],
        };
    }
    if let Some(am) = opt(options, "array_matching") {
        rec.array_matching = Some(sym_or_str(&am));
    }
    let prefix = match kind {
        AttrKind::Property => "Property",
        _ => "Parameter",
    };
    let class_name = format!("{}::{prefix}{}", type_class.name(), capitalize(name));
    let class = it.new_module(&class_name, true, Some(parent));
    let rec = Rc::new(RefCell::new(rec));
    *class.extra.borrow_mut() = Some(rec.clone());
    if let Some(b) = block {
        it.call_block_as(
            b,
            vec![],
            Some((RValue::Module(class.clone()), class.clone())),
            None,
            false,
            None,
            pos,
        )?;
    }
    let done = rec.borrow().clone();
    {
        let mut t = t.borrow_mut();
        if let Some(i) = t
            .attrs
            .iter()
            .position(|a| a.name == done.name && a.kind == done.kind)
        {
            t.attrs[i] = done;
        } else {
            t.attrs.push(done);
        }
    }
    Ok(RValue::Module(class))
}

#[allow(clippy::too_many_arguments)]
fn type_method(
    it: &mut Interp,
    m: &Rc<Module>,
    t: &Rc<RefCell<TypeRecord>>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "newparam" | "newproperty" | "newmetaparam" => {
            let kind = match name {
                "newproperty" => AttrKind::Property,
                "newmetaparam" => AttrKind::MetaParam,
                _ => AttrKind::Param,
            };
            let Some(n) = args.first() else {
                return Some(raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1..2)",
                    pos,
                ));
            };
            let n = sym_or_str(n);
            new_attr(it, m, t, kind, &n, args.get(1), block, pos)
        }
        "ensurable" => {
            t.borrow_mut().ensurable = true;
            let r = new_attr(it, m, t, AttrKind::Property, "ensure", None, block, pos);
            if block.is_none() {
                let mut tr = t.borrow_mut();
                if let Some(a) = tr.attrs.iter_mut().find(|a| a.name == "ensure") {
                    a.values = vec![
                        AttrValue::Name("present".into()),
                        AttrValue::Name("absent".into()),
                    ];
                    a.default = Some(DefaultValue::Value(":present".into()));
                }
            }
            r
        }
        "feature" => {
            let n = args.first().map(sym_or_str).unwrap_or_default();
            let doc = args.get(1).map(to_s).unwrap_or_default();
            let methods = match opt(args.get(2), "methods") {
                Some(RValue::Array(a)) => a.borrow().iter().map(sym_or_str).collect(),
                _ => Vec::new(),
            };
            t.borrow_mut().features.push(Feature {
                name: n,
                doc,
                methods,
            });
            Ok(RValue::Nil)
        }
        "autorequire" | "autobefore" | "autosubscribe" | "autonotify" => {
            let target = args.first().map(sym_or_str).unwrap_or_default();
            t.borrow_mut()
                .auto_relations
                .push((name.to_string(), target));
            Ok(RValue::Nil)
        }
        "validate" => {
            t.borrow_mut().has_validate = true;
            Ok(RValue::Nil)
        }
        "desc" | "doc=" => {
            t.borrow_mut().doc = args.first().map(to_s).unwrap_or_default();
            Ok(RValue::Nil)
        }
        "doc" => Ok(RValue::string(t.borrow().doc.clone())),
        "name" => Ok(RValue::sym(&t.borrow().name)),
        "apply_to_device" | "apply_to_host" | "apply_to_all" | "providify" | "has_features"
        | "has_feature" => Ok(RValue::Nil),
        "validproperties" | "properties" => Ok(RValue::array(
            t.borrow()
                .properties()
                .map(|a| RValue::sym(&a.name))
                .collect(),
        )),
        "validparameters" | "parameters" => Ok(RValue::array(
            t.borrow().params().map(|a| RValue::sym(&a.name)).collect(),
        )),
        "validattr?" | "valid_parameter?" => {
            let n = args.first().map(sym_or_str).unwrap_or_default();
            Ok(RValue::Bool(t.borrow().attrs.iter().any(|a| a.name == n)))
        }
        "key_attributes" => Ok(RValue::array(
            t.borrow()
                .key_attributes()
                .map(|a| RValue::sym(&a.name))
                .collect(),
        )),
        "attrclass" | "paramclass" | "propertybyname" => {
            let n = args.first().map(sym_or_str).unwrap_or_default();
            let kind = t
                .borrow()
                .attrs
                .iter()
                .find(|a| a.name == n)
                .map(|a| a.kind);
            match kind {
                Some(k) => {
                    let prefix = if k == AttrKind::Property {
                        "Property"
                    } else {
                        "Parameter"
                    };
                    let path = format!("{}::{prefix}{}", m.name(), capitalize(&n));
                    Ok(it
                        .module_by_path(&path)
                        .map(RValue::Module)
                        .unwrap_or(RValue::Nil))
                }
                None => Ok(RValue::Nil),
            }
        }
        "provide" | "instances" | "defaultprovider" | "suitableprovider" | "providers" => {
            unsupported(
                format!("the type method `{name}' (providers are not loaded)"),
                pos,
            )
        }
        _ => return None,
    })
}

#[allow(clippy::too_many_arguments)]
fn attr_method(
    it: &mut Interp,
    m: &Rc<Module>,
    a: &Rc<RefCell<AttrRecord>>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let _ = (m, it);
    Some(match name {
        "desc" | "doc=" => {
            a.borrow_mut().doc = args.first().map(to_s).unwrap_or_default();
            Ok(RValue::Nil)
        }
        "doc" => Ok(RValue::string(a.borrow().doc.clone())),
        "newvalues" | "newvalue" => {
            let list: Vec<RValue> = if name == "newvalue" {
                args.first().cloned().into_iter().collect()
            } else {
                args.to_vec()
            };
            let mut r = a.borrow_mut();
            for v in list {
                let av = match &v {
                    RValue::Regexp(re) => AttrValue::Regex(re.source.clone()),
                    other => AttrValue::Name(sym_or_str(other)),
                };
                if !r.values.contains(&av) {
                    r.values.push(av);
                }
            }
            if name == "newvalue" {
                if let Some(al) = opt(args.get(1), "aliases") {
                    let target = args.first().map(sym_or_str).unwrap_or_default();
                    let names: Vec<String> = match &al {
                        RValue::Array(x) => x.borrow().iter().map(sym_or_str).collect(),
                        other => vec![sym_or_str(other)],
                    };
                    for n in names {
                        r.aliases.push((n, target.clone()));
                    }
                }
            }
            Ok(RValue::Nil)
        }
        "aliasvalue" => {
            let (Some(x), Some(y)) = (args.first(), args.get(1)) else {
                return Some(raise(
                    "ArgumentError",
                    "wrong number of arguments (expected 2)",
                    pos,
                ));
            };
            a.borrow_mut().aliases.push((sym_or_str(x), sym_or_str(y)));
            Ok(RValue::Nil)
        }
        "defaultvalues" => {
            let mut r = a.borrow_mut();
            for v in ["present", "absent"] {
                let av = AttrValue::Name(v.into());
                if !r.values.contains(&av) {
                    r.values.push(av);
                }
            }
            r.default = Some(DefaultValue::Value(":present".into()));
            Ok(RValue::Nil)
        }
        "defaultto" => {
            a.borrow_mut().default = Some(match (args.first(), block) {
                (_, Some(_)) => DefaultValue::Block,
                (Some(v), None) => DefaultValue::Value(value::inspect(v)),
                (None, None) => {
                    return Some(raise(
                        "Puppet::DevError",
                        "Either a default value or block must be provided",
                        pos,
                    ))
                }
            });
            Ok(RValue::Nil)
        }
        "isnamevar" => {
            a.borrow_mut().namevar = true;
            Ok(RValue::Nil)
        }
        "isrequired" => {
            a.borrow_mut().required = true;
            Ok(RValue::Nil)
        }
        "validate" => {
            a.borrow_mut().has_validate = true;
            Ok(RValue::Nil)
        }
        // `sensitive true` (Puppet::Parameter.sensitive): the agent redacts the value; the
        // catalog's sensitive parameters come from Sensitive values, so nothing to record.
        // `accept_arrays` (an array value is checked item by item) is the agent's too.
        "sensitive" | "accept_arrays" => Ok(RValue::Nil),
        "munge" | "unmunge" => {
            if name == "munge" {
                a.borrow_mut().has_munge = true;
            }
            Ok(RValue::Nil)
        }
        "required_features=" => {
            let f = args.first().cloned().unwrap_or(RValue::Nil);
            a.borrow_mut().required_features = match &f {
                RValue::Array(x) => x.borrow().iter().map(sym_or_str).collect(),
                RValue::Nil => Vec::new(),
                other => vec![sym_or_str(other)],
            };
            Ok(f)
        }
        "array_matching=" | "array_matching" => {
            let v = args.first().cloned().unwrap_or(RValue::Nil);
            if !matches!(v, RValue::Nil) {
                a.borrow_mut().array_matching = Some(sym_or_str(&v));
            }
            Ok(v)
        }
        "nodefault" => {
            a.borrow_mut().default = None;
            Ok(RValue::Nil)
        }
        "name" => Ok(RValue::sym(&a.borrow().name)),
        "value_collection" | "value_name" | "value_option" | "newvalues?" => {
            unsupported(format!("the attribute method `{name}'"), pos)
        }
        _ => return None,
    })
}

/// Native methods of instances of types and attributes (none are made while a file loads).
pub(crate) fn object_method(
    it: &mut Interp,
    recv: &RValue,
    o: &Rc<Object>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let _ = (it, recv, o, name, args, block, pos);
    None
}

/// Whether an instance of a type or attribute answers `name` natively.
pub(crate) fn object_responds(it: &mut Interp, o: &Rc<Object>, name: &str) -> bool {
    let _ = (it, o, name);
    false
}

/// Whether the DSL has a class method `name` for classes named `cname`.
pub(crate) fn module_responds(cname: &str, name: &str) -> bool {
    match cname {
        "Puppet::Type" => matches!(
            name,
            "newtype"
                | "type"
                | "newparam"
                | "newproperty"
                | "ensurable"
                | "feature"
                | "autorequire"
        ),
        "Puppet::Parameter" | "Puppet::Property" => matches!(
            name,
            "desc"
                | "newvalues"
                | "newvalue"
                | "defaultto"
                | "isnamevar"
                | "isrequired"
                | "validate"
                | "munge"
                | "sensitive"
                | "accept_arrays"
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `record_of` finds the record that the first ancestor with one (in the order of the
    /// ancestors list) has, skipping data that is not a record.
    #[test]
    fn record_of_finds_what_the_ancestors_list_finds() {
        let by_list = |m: &Rc<Module>| -> Option<usize> {
            for a in m.ancestors() {
                if let Some(e) = a.extra.borrow().clone() {
                    if let Ok(r) = e.downcast::<RefCell<AttrRecord>>() {
                        return Some(Rc::as_ptr(&r) as usize);
                    }
                }
            }
            None
        };
        let found = |m: &Rc<Module>| match record_of(m) {
            Some(Rec::Attr(r)) => Some(Rc::as_ptr(&r) as usize),
            _ => None,
        };
        let record = |m: &Rc<Module>, name: &str| {
            let r: Rc<dyn std::any::Any> =
                Rc::new(RefCell::new(AttrRecord::new(name, AttrKind::Param)));
            *m.extra.borrow_mut() = Some(r);
        };
        // Object < Base < C < D; modules M1 (including Shared) and M2 in C; Shared also in
        // Base; data that is no record on M2.
        let object = Rc::new(Module::new("Object", true, None, None));
        let base = Rc::new(Module::new("Base", true, Some(object.clone()), None));
        let c = Rc::new(Module::new("C", true, Some(base.clone()), None));
        let d = Rc::new(Module::new("D", true, Some(c.clone()), None));
        let shared = Rc::new(Module::new("Shared", false, None, None));
        let m1 = Rc::new(Module::new("M1", false, None, None));
        let m2 = Rc::new(Module::new("M2", false, None, None));
        m1.includes.borrow_mut().push(shared.clone());
        c.includes.borrow_mut().extend([m1.clone(), m2.clone()]);
        base.includes.borrow_mut().push(shared.clone());
        *m2.extra.borrow_mut() = Some(Rc::new(RefCell::new(0u32)));
        let all = [&object, &base, &c, &d, &shared, &m1, &m2];
        let check = || {
            for m in all {
                assert_eq!(found(m), by_list(m), "{}", m.name());
            }
        };
        check();
        record(&object, "o");
        check();
        record(&shared, "s");
        check();
        record(&base, "b");
        check();
        record(&m1, "m1");
        check();
        record(&d, "d");
        check();
        for m in all {
            m.clear();
        }
    }

    /// What Puppet's own type files use (`accept_arrays` in a parameter, a definition
    /// guarded by `Puppet::Util::Platform.windows?`) loads as Puppet loads it on a server.
    #[test]
    fn server_side_type_dsl_forms_load() {
        let src = "Puppet::Type.newtype(:thing) do\n\
              newparam(:name, namevar: true)\n\
              newparam(:creates) do\n\
                accept_arrays\n\
              end\n\
              newproperty(:roles) do\n\
              end unless Puppet::Util::Platform.windows?\n\
              newproperty(:sid) do\n\
              end if Puppet::Util::Platform.windows?\n\
            end\n";
        let types =
            load_types("/m/lib/puppet/type/thing.rb", src, &Sources::empty()).expect("loads");
        let t = &types[0];
        assert_eq!(
            t.params().map(|a| a.name.as_str()).collect::<Vec<_>>(),
            ["name", "creates"]
        );
        assert_eq!(
            t.properties().map(|a| a.name.as_str()).collect::<Vec<_>>(),
            ["roles"]
        );
    }

    /// A Resource API type (`Puppet::ResourceApi.register_type`) is recorded as the gem
    /// defines it: namevars and `:parameter`s are parameters, the rest properties, with
    /// defaults and the definition's title patterns.
    #[test]
    fn resource_api_types_are_recorded() {
        let src = "require 'puppet/resource_api'\n\
            Puppet::ResourceApi.register_type(\n\
              name: 'thing_path',\n\
              docs: 'A thing.',\n\
              title_patterns: [{ pattern: %r{^(?<name>.*[^-])-(?<owner>.*)$}, desc: 'x' }, { pattern: %r{^(?<name>.*)$}, desc: 'y' }],\n\
              attributes: {\n\
                ensure: { type: 'Enum[present, absent]', desc: 'Whether.', default: 'present' },\n\
                name: { type: 'String', desc: 'The name.', behaviour: :namevar },\n\
                owner: { type: 'String', desc: 'The owner.', behaviour: :namevar },\n\
                force: { type: 'Boolean', desc: 'Force.', behaviour: :parameter },\n\
                size: { type: 'Integer', desc: 'Size.', behaviour: :read_only },\n\
              },\n\
            )\n";
        let types =
            load_types("/m/lib/puppet/type/thing_path.rb", src, &Sources::empty()).expect("loads");
        let t = &types[0];
        assert_eq!(t.name, "thing_path");
        assert_eq!(
            t.params().map(|a| a.name.as_str()).collect::<Vec<_>>(),
            ["name", "owner", "force"]
        );
        assert_eq!(
            t.properties().map(|a| a.name.as_str()).collect::<Vec<_>>(),
            ["ensure", "size"]
        );
        assert_eq!(
            t.key_attributes()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>(),
            ["name", "owner"]
        );
        let ensure = t.attrs.iter().find(|a| a.name == "ensure").expect("ensure");
        assert_eq!(
            ensure.default,
            Some(DefaultValue::Value("\"present\"".into()))
        );
        assert_eq!(ensure.doc, "Whether. (a Enum[present, absent])");
        assert_eq!(t.title_patterns.len(), 2);
        assert_eq!(t.title_patterns[0].captures, ["name", "owner"]);
        assert_eq!(t.title_patterns[1].captures, ["name"]);
    }
}
