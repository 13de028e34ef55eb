//! `annotate`: Pcore annotations (instances of Object types whose parent is `Annotation`)
//! attached to values, kept in the compile's [`crate::Annotations`].
//!
//! As in Puppet (`Puppet::Pops::Types::Annotation`), an Object *type* may declare annotations
//! in its `annotations` entry; those are found (and attached) on first use and can neither be
//! cleared nor redefined.

use super::iteration::invoke;
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{Annotations, CallContext, RegistryError, Signature};
use puppet_types::object::{new_object, ObjectType};
use puppet_types::{Type, Value};
use std::sync::Arc;

/// The Object type behind an annotation type value (`MyAdapter`, an alias of it, `Type[..]`).
fn object_type(t: &Value) -> Option<Arc<ObjectType>> {
    let Value::Type(t) = t else { return None };
    let t = match t.unalias() {
        Type::Type(Some(inner)) => inner.unalias().clone(),
        other => other.clone(),
    };
    match t {
        Type::Object(o) => Some(match &o.ext {
            Some(e) => e.base.clone(),
            None => o,
        }),
        _ => None,
    }
}

/// The name a type is known by in an `annotations` hash key.
fn key_name(k: &Value) -> Option<String> {
    match k {
        Value::Type(Type::Alias(a)) => Some(a.name().to_string()),
        Value::Type(Type::TypeReference(n)) => Some(n.to_string()),
        Value::Type(t) => match t.unalias() {
            Type::Object(o) => o.name.as_ref().map(|n| n.to_string()),
            _ => None,
        },
        Value::String(s) => Some(s.to_string()),
        _ => None,
    }
}

/// The annotation of type `name` that the Object type `target` declares (its init hash);
/// `None` when `target` is not an Object type or declares none of that type.
fn declared(target: &Value, name: &str) -> Option<Value> {
    let o = object_type(target)?;
    let Some(Value::Hash(h)) = &o.annotations else {
        return None;
    };
    h.iter()
        .find(|(k, _)| key_name(k).as_deref() == Some(name))
        .map(|(_, v)| v.clone())
}

fn store(c: &mut dyn CallContext) -> Result<&mut Annotations, CallError> {
    c.annotations().ok_or_else(|| {
        CallError::new(
            codes::UNSUPPORTED,
            "annotations are not available in this context",
        )
    })
}

/// The annotation type and its name.
fn annotation_type(t: &Value) -> Result<(Arc<ObjectType>, String), CallError> {
    let o = object_type(t)
        .ok_or_else(|| CallError::new(codes::TYPE, format!("{t} is not an Annotation type")))?;
    let name = o.label().to_string();
    Ok((o, name))
}

/// Creates an annotation from its init hash.
fn create(t: &Arc<ObjectType>, init: Value) -> Result<Value, CallError> {
    new_object(t, &[init]).map_err(|e| CallError::new(codes::TYPE, e.to_string()))
}

/// What gives the init hash of a new annotation (the lambda, or a hash given).
type InitFn<'a> = dyn FnMut(&mut dyn CallContext) -> Result<Value, CallError> + 'a;

/// `Annotation.annotate(o) { init_hash }`: the existing annotation, else one made from the
/// type's declared annotation or from the block's hash, else `undef`.
fn annotate(
    c: &mut dyn CallContext,
    t: &Value,
    target: &Value,
    init: Option<&mut InitFn<'_>>,
) -> Result<Value, CallError> {
    let (ot, name) = annotation_type(t)?;
    if let Some(a) = c.annotations().and_then(|s| s.get(target, &name)) {
        return Ok(a.clone());
    }
    let mut init_hash = declared(target, &name);
    if init_hash.is_none() {
        if let Some(f) = init {
            init_hash = Some(f(c)?);
        }
    }
    match init_hash {
        None | Some(Value::Undef) => Ok(Value::Undef),
        Some(h) => {
            let a = create(&ot, h)?;
            store(c)?.set(target, &name, a.clone());
            Ok(a)
        }
    }
}

fn annotate_new(
    c: &mut dyn CallContext,
    t: &Value,
    target: &Value,
    init: Value,
) -> Result<Value, CallError> {
    let (ot, name) = annotation_type(t)?;
    let clear = init.as_str() == Some("clear");
    if declared(target, &name).is_some() {
        let action = if clear { "clear" } else { "redefine" };
        let label = object_type(target)
            .map(|o| o.label().to_string())
            .unwrap_or_default();
        return Err(CallError::new(
            codes::FAILED,
            format!("attempt to {action} {name} annotation declared on {label}"),
        ));
    }
    if clear {
        return Ok(c
            .annotations()
            .and_then(|s| s.clear(target, &name))
            .unwrap_or(Value::Undef));
    }
    let a = create(&ot, init)?;
    store(c)?.set(target, &name, a.clone());
    Ok(a)
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &["annotate"];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("annotate")
        .doc("Reads, adds or clears the annotation of an Annotation type on a value: `T.annotate(o)` returns it (or makes it from the hash a lambda returns), `T.annotate(o, hash)` replaces it, `T.annotate(o, clear)` removes and returns it; `Pcore.annotate(o, {T => hash, ...})` adds several and returns the value.")
        .example("annotate(Annotation, 'x')", "undef")
        .dispatch(
            Signature::new()
                .param("Type[Annotation]", "type")
                .param("Any", "value")
                .optional_block_param("Callable[0, 0]", "block"),
            |c, a: Args<'_>| {
                let block = a.block;
                match block {
                    Some(b) => {
                        let mut f = |c: &mut dyn CallContext| {
                            Ok(invoke(c, b, vec![])?.unwrap_or(Value::Undef))
                        };
                        annotate(c, &a.get(0), &a.get(1), Some(&mut f))
                    }
                    None => annotate(c, &a.get(0), &a.get(1), None),
                }
            },
        )
        .dispatch(
            Signature::new()
                .param("Type[Annotation]", "type")
                .param("Any", "value")
                .param(
                    "Variant[Enum[clear], Hash[Pcore::MemberName, Any]]",
                    "annotation_hash",
                ),
            |c, a| annotate_new(c, &a.get(0), &a.get(1), a.get(2)),
        )
        .dispatch(
            Signature::new()
                .param("Type[Pcore]", "type")
                .param("Any", "value")
                .param(
                    "Hash[Type[Annotation], Hash[Pcore::MemberName, Any]]",
                    "annotations",
                ),
            |c, a| {
                let target = a.get(1);
                if let Value::Hash(h) = a.get(2) {
                    for (t, init) in h.iter() {
                        let mut f = |_: &mut dyn CallContext| Ok(init.clone());
                        annotate(c, t, &target, Some(&mut f))?;
                    }
                }
                Ok(target)
            },
        )
        .register()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NullContext;

    #[test]
    fn declared_annotations_are_found_by_name() {
        let mut h = puppet_types::value::ValueMap::default();
        h.insert(
            Value::Type(Type::TypeReference("MyAdapter".into())),
            Value::hash([(Value::string("id"), Value::Integer(1))]),
        );
        let mut o = ObjectType::empty(Some("MyObject"));
        o.annotations = Some(Value::Hash(Arc::new(h)));
        let t = Value::Type(Type::Object(Arc::new(o)));
        assert!(declared(&t, "MyAdapter").is_some());
        assert!(declared(&t, "Other").is_none());
    }

    #[test]
    fn no_annotation_without_a_block() {
        let reg = super::super::registry();
        let mut c = NullContext::default();
        let ann = Value::Type(puppet_types::resolve_type_name("Annotation"));
        let v = reg
            .call(&mut c, "annotate", vec![ann, Value::Integer(1)], None)
            .unwrap();
        assert_eq!(v, Value::Undef);
    }
}
