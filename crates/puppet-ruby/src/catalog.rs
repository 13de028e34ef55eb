//! The catalog as modules' Ruby functions see it: `Puppet::Resource.type_and_title`,
//! `Runtime3ResourceSupport.find_resource_type(_or_class)`, the scope's `findresource`,
//! `resource` and `find_global_scope`, and resource objects answering `to_s`, `type`,
//! `title` and `[]` (stdlib's `defined_with_params`, `ensure_resource`, `str2resource`).
//!
//! Resources are read through [`PuppetScope::catalog_resource`](crate::PuppetScope) when
//! asked, never copied into Ruby: `scope.catalog` is an object that answers
//! `resource(type, title)` and `classes`; listing every resource of the catalog (`catalog.resources`) is
//! not offered and says so.

use crate::interp::{raise, unsupported, Interp, R};
use crate::object::{ObjData, Object};
use crate::value::{self, to_s, RValue};
use crate::Pos;
use std::rc::Rc;

/// A resource of the catalog (or the resource whose body runs): its reference.
#[derive(Debug)]
pub(crate) struct ResourceRef {
    type_name: String,
    title: String,
    /// A `Puppet::Parser::Resource` of the catalog (`findresource`), whose `[]` reads its
    /// parameters; else a bare `Puppet::Resource` (a reference passed to a 3.x function),
    /// which has none.
    in_catalog: bool,
}

/// `Puppet::Resource`'s type name munging: each `::` segment capitalized (`apache::vhost`
/// is `Apache::Vhost`).
fn munge_type_name(name: &str) -> String {
    name.split("::")
        .map(|s| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f
                    .to_uppercase()
                    .chain(c.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<String>>()
        .join("::")
}

/// Splits `Type[title]` (Puppet's `/^([^\[\]]+)\[(.+)\]$/m`).
fn split_reference(s: &str) -> Option<(String, String)> {
    let open = s.find('[')?;
    let ty = &s[..open];
    let title = s[open + 1..].strip_suffix(']')?;
    if ty.is_empty() || ty.contains(']') || title.is_empty() {
        return None;
    }
    Some((ty.to_string(), title.to_string()))
}

/// A resource of the catalog being compiled, as Ruby code gets it (`scope.resource`,
/// `findresource`): a `Puppet::Parser::Resource`; a class is titled by its capitalized name
/// (`Class[Apix::Conf]`), `main` aside.
fn resource_object(it: &mut Interp, type_name: String, title: String) -> RValue {
    reference_object(it, type_name, title, true)
}

/// A reference as a Ruby object: a catalog's `Puppet::Parser::Resource` (`in_catalog`) or a
/// bare `Puppet::Resource`.
fn reference_object(it: &mut Interp, type_name: String, title: String, in_catalog: bool) -> RValue {
    let title = shown_title(&type_name, title);
    let class = match in_catalog {
        true => "Puppet::Parser::Resource",
        false => "Puppet::Resource",
    };
    let c = it
        .module_by_path(class)
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(c));
    *o.data.borrow_mut() = ObjData::Native(Rc::new(ResourceRef {
        type_name,
        title,
        in_catalog,
    }));
    it.track_object(&o);
    RValue::Object(o)
}

/// A 3.x function's argument as Puppet's `Runtime3FunctionArgumentConverter` makes it: a
/// resource or class reference becomes a `Puppet::Resource` (its `to_s` is `File[/tmp/x]`,
/// which `findresource` takes), in arrays and hashes too; the rest as
/// [`value::from_puppet`] converts it.
pub(crate) fn v3_argument(it: &mut Interp, v: &puppet_types::Value) -> RValue {
    use puppet_types::{Type, Value};
    fn holds_reference(v: &Value) -> bool {
        match v {
            Value::Type(Type::Resource(r)) => r.type_name.is_some() && r.title.is_some(),
            Value::Type(Type::Class(Some(_))) => true,
            Value::Array(a) => a.iter().any(holds_reference),
            Value::Hash(h) => h.iter().any(|(_, v)| holds_reference(v)),
            _ => false,
        }
    }
    if !holds_reference(v) {
        return value::from_puppet(v);
    }
    match v {
        Value::Type(Type::Resource(r)) => match (&r.type_name, &r.title) {
            (Some(t), Some(title)) => {
                reference_object(it, munge_type_name(t), title.to_string(), false)
            }
            _ => value::from_puppet(v),
        },
        Value::Type(Type::Class(Some(name))) => {
            reference_object(it, "Class".into(), name.to_string(), false)
        }
        Value::Array(a) => RValue::array(a.iter().map(|x| v3_argument(it, x)).collect()),
        Value::Hash(h) => {
            let mut rh = crate::value::RHash::default();
            for (k, x) in h.iter() {
                let k = value::from_puppet(k);
                if let RValue::Str(s) = &k {
                    s.freeze();
                }
                let x = v3_argument(it, x);
                rh.insert(k, x);
            }
            RValue::hash(rh)
        }
        other => value::from_puppet(other),
    }
}

/// A catalog resource's title as Puppet shows it: a class's capitalized (`main` aside).
fn shown_title(type_name: &str, title: String) -> String {
    if type_name == "Class" && title != "main" {
        puppet_types::format::capitalize_segments(&title)
    } else {
        title
    }
}

/// A catalog resource object as Puppet passes it on (a function's result): its reference,
/// `File['/etc']` (Puppet infers a `Puppet::Resource` as its `Resource` type).
pub(crate) fn resource_value(o: &Rc<Object>) -> Option<puppet_types::Value> {
    let r = crate::puppet::native::<ResourceRef>(o)?;
    Some(puppet_types::Value::Type(puppet_types::Type::resource(
        Some(&r.type_name),
        Some(&r.title),
    )))
}

/// The catalog's name for a type and title: classes by their lower-case name.
fn catalog_key(r: &ResourceRef) -> (String, String) {
    if r.type_name == "Class" {
        (r.type_name.clone(), r.title.to_lowercase())
    } else {
        (r.type_name.clone(), r.title.clone())
    }
}

/// Class methods of `Puppet::Resource` and `Runtime3ResourceSupport`.
pub(crate) fn class_method(cname: &str, name: &str, args: &[RValue], pos: Pos) -> Option<R> {
    Some(match (cname, name) {
        ("Puppet::Resource", "type_and_title") => (|| {
            let ty = args.first().cloned().unwrap_or(RValue::Nil);
            let title = args.get(1).cloned().unwrap_or(RValue::Nil);
            let (t, ti) = match (&ty, &title) {
                (RValue::Str(s), RValue::Nil) => match split_reference(&s.borrow()) {
                    Some(p) => p,
                    None => {
                        return raise(
                            "ArgumentError",
                            format!(
                                "No title provided and {} is not a valid resource reference",
                                value::inspect(&ty)
                            ),
                            pos,
                        )
                    }
                },
                (_, RValue::Nil) => {
                    return raise(
                        "ArgumentError",
                        format!(
                            "No title provided and {} is not a valid resource reference",
                            value::inspect(&ty)
                        ),
                        pos,
                    )
                }
                (t, ti) => (to_s(t), to_s(ti)),
            };
            let t = munge_type_name(&t);
            let ti = if t == "Class" {
                if ti.is_empty() {
                    "main".to_string()
                } else {
                    munge_type_name(&ti)
                }
            } else {
                ti
            };
            Ok(RValue::array(vec![RValue::string(t), RValue::string(ti)]))
        })(),
        (
            "Puppet::Pops::Evaluator::Runtime3ResourceSupport",
            "find_resource_type_or_class" | "find_resource_type",
        ) => {
            // The type as the catalog names it; an unknown type finds no resource.
            let n = args.get(1).map(to_s).unwrap_or_default();
            Ok(RValue::string(munge_type_name(&n)))
        }
        _ => return None,
    })
}

/// Scope methods over the catalog: `findresource(type, title)`, `resource`,
/// `find_global_scope`, `catalog`.
pub(crate) fn scope_method(it: &mut Interp, name: &str, args: &[RValue], pos: Pos) -> Option<R> {
    Some(match name {
        "find_global_scope" => Ok(RValue::Scope),
        "findresource" => find_resource(it, args, "scope.findresource", pos),
        "resource" => match it.scope.current_resource() {
            Ok(Some((t, ti))) => Ok(resource_object(it, t, ti)),
            Ok(None) => Ok(resource_object(it, "Class".into(), "main".into())),
            Err(why) => unsupported(format!("scope.resource ({why})"), pos),
        },
        "to_s" | "inspect" => Ok(RValue::string(scope_text(it))),
        "source" => source_object(it, pos),
        "catalog" => Ok(catalog_object(it)),
        _ => return None,
    })
}

/// `Scope#to_s`: `Scope(Class[main])`, `Scope(Apix::Conf[x])`: the resource whose body runs
/// (Puppet's logs and Ruby's NoMethodError texts show the same).
pub(crate) fn scope_text(it: &mut Interp) -> String {
    match it.scope.current_resource() {
        Ok(Some((t, ti))) => {
            let ti = shown_title(&t, ti);
            format!("Scope({t}[{ti}])")
        }
        _ => "Scope(Class[main])".to_string(),
    }
}

/// `findresource(type, title)` or `findresource("Type[title]")` (also the catalog's
/// `resource`): the resource object, `nil` when the catalog has no such resource.
fn find_resource(it: &mut Interp, args: &[RValue], what: &str, pos: Pos) -> R {
    let (ty, title) = match args {
        [t, ti] => (munge_type_name(&to_s(t)), to_s(ti)),
        [r] => match split_reference(&to_s(r)) {
            Some((t, ti)) => (munge_type_name(&t), ti),
            None => {
                return raise(
                    "ArgumentError",
                    format!(
                        "No title provided and {} is not a valid resource reference",
                        value::inspect(r)
                    ),
                    pos,
                )
            }
        },
        _ => {
            return raise(
                "ArgumentError",
                format!(
                    "wrong number of arguments (given {}, expected 1..2)",
                    args.len()
                ),
                pos,
            )
        }
    };
    // Puppet's main class is keyed by a Symbol title: no String title finds it.
    if ty == "Class" && title.eq_ignore_ascii_case("main") {
        return Ok(RValue::Nil);
    }
    let r = ResourceRef {
        type_name: ty,
        title,
        in_catalog: true,
    };
    let (t, ti) = catalog_key(&r);
    match it.scope.catalog_resource(&t, &ti) {
        Ok(Some(_)) => Ok(resource_object(it, r.type_name, r.title)),
        Ok(None) => Ok(RValue::Nil),
        Err(why) => unsupported(format!("{what} ({why})"), pos),
    }
}

/// The catalog being compiled (`scope.catalog`, `compiler.catalog`): it answers
/// `resource` as the scope's `findresource` does, `classes`, and lists its resources
/// (`resources`, `resource_refs`, `resource_keys`); its graph (`vertices`, `edges`) is not
/// offered.
#[derive(Debug)]
struct CatalogRef;

pub(crate) fn catalog_object(it: &mut Interp) -> RValue {
    let c = it
        .module_by_path("Puppet::Resource::Catalog")
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(c));
    *o.data.borrow_mut() = ObjData::Native(Rc::new(CatalogRef));
    it.track_object(&o);
    RValue::Object(o)
}

/// Methods of the catalog object.
fn catalog_method(it: &mut Interp, name: &str, args: &[RValue], pos: Pos) -> Option<R> {
    Some(match name {
        "resource" => find_resource(it, args, "catalog.resource", pos),
        // `catalog.classes`: the class names, as a template's `classes`.
        "classes" => match it.scope.catalog_classes() {
            Some(names) => Ok(RValue::array(names.iter().map(|n| RValue::str(n)).collect())),
            None => unsupported("catalog.classes (this call has no catalog)", pos),
        },
        // Every resource so far, in the catalog's order: resource objects, their
        // references, (type, title) pairs.
        "resources" | "resource_refs" | "resource_keys" => {
            let Some(list) = it.scope.catalog_resources() else {
                return Some(unsupported(
                    format!("catalog.{name} (this call has no catalog)"),
                    pos,
                ));
            };
            let items = list
                .into_iter()
                .map(|(t, ti)| match name {
                    "resources" => resource_object(it, t, ti),
                    "resource_refs" => {
                        let ti = shown_title(&t, ti);
                        RValue::string(format!("{t}[{ti}]"))
                    }
                    _ => {
                        let ti = shown_title(&t, ti);
                        RValue::array(vec![RValue::string(t), RValue::string(ti)])
                    }
                })
                .collect();
            Ok(RValue::array(items))
        }
        "vertices" | "edges" | "to_data_hash" | "each" => unsupported(
            format!("listing the catalog from Ruby (catalog.{name}); catalog.resource(type, title) is available"),
            pos,
        ),
        "remove_resource" | "add_resource" | "add_edge" | "alias" => unsupported(
            format!("changing the catalog from Ruby (catalog.{name})"),
            pos,
        ),
        _ => return None,
    })
}

/// The definition a scope evaluates (`scope.source`, a `Puppet::Resource::Type`): its
/// name (a class's or defined type's, lower case; `""` for the main class) and kind
/// (`:hostclass` or `:definition`), as stdlib's `assert_private` reads them.
#[derive(Debug)]
pub(crate) struct SourceType {
    name: String,
    definition: bool,
}

fn source_object(it: &mut Interp, pos: Pos) -> R {
    let (name, definition) = match it.scope.current_resource() {
        Ok(Some((t, ti))) if t == "Class" => (ti.to_lowercase(), false),
        Ok(Some((t, _))) => (t.to_lowercase(), true),
        Ok(None) => (String::new(), false),
        Err(why) => return unsupported(format!("scope.source ({why})"), pos),
    };
    let name = if name == "main" { String::new() } else { name };
    let c = it
        .module_by_path("Puppet::Resource::Type")
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(c));
    *o.data.borrow_mut() = ObjData::Native(Rc::new(SourceType { name, definition }));
    it.track_object(&o);
    Ok(RValue::Object(o))
}

/// Methods of a `scope.source` object.
fn source_method(t: &SourceType, name: &str) -> Option<R> {
    Some(Ok(match name {
        "name" => RValue::string(t.name.clone()),
        "type" => RValue::sym(if t.definition {
            "definition"
        } else {
            "hostclass"
        }),
        // The module: the name's first segment (Puppet's `Resource::Type#module_name`).
        "module_name" => match t.name.split_once("::") {
            Some((m, _)) => RValue::string(m.to_string()),
            None if t.name.is_empty() => RValue::Nil,
            None => RValue::string(t.name.clone()),
        },
        "to_s" | "inspect" => RValue::string(if t.definition {
            format!("Resource::Type(definition {})", t.name)
        } else {
            format!("Resource::Type(hostclass {})", t.name)
        }),
        _ => return None,
    }))
}

/// Methods of a resource object.
pub(crate) fn object_method(
    it: &mut Interp,
    o: &Rc<Object>,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let native = match &*o.data.borrow() {
        ObjData::Native(d) => d.clone(),
        _ => return None,
    };
    if let Some(t) = native.downcast_ref::<SourceType>() {
        return source_method(t, name);
    }
    if native.downcast_ref::<CatalogRef>().is_some() {
        return catalog_method(it, name, args, pos);
    }
    let r = native.downcast::<ResourceRef>().ok()?;
    Some(match name {
        "to_s" | "ref" | "inspect" => Ok(RValue::string(format!("{}[{}]", r.type_name, r.title))),
        "type" => Ok(RValue::string(r.type_name.clone())),
        "title" => Ok(RValue::string(r.title.clone())),
        // A bare reference has no parameters.
        "[]" if !r.in_catalog => Ok(RValue::Nil),
        "[]" => {
            let key = args.first().map(to_s).unwrap_or_default();
            let (t, ti) = catalog_key(&r);
            match it.scope.catalog_resource(&t, &ti) {
                Ok(Some(params)) => Ok(params
                    .iter()
                    .find(|(n, _)| *n == key)
                    .map(|(_, v)| value::from_puppet(v))
                    .unwrap_or(RValue::Nil)),
                Ok(None) => Ok(RValue::Nil),
                Err(why) => unsupported(format!("Puppet::Resource#[] ({why})"), pos),
            }
        }
        _ => return None,
    })
}
