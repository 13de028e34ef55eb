//! Pcore annotations attached to values: Puppet's `Annotation` adapters.
//!
//! Puppet attaches an annotation to the Ruby object it annotates (`Adaptable`), so an
//! annotation follows that one object, not the values equal to it. [`Annotations`] models this
//! per compile: an Object value is identified by its allocation (every copy of the value
//! shares it; the store keeps the value alive, so an address is never reused while the store
//! lives), other values (types, mostly) by equality, as a type name always resolves to the
//! same type object in Puppet.
//!
//! The store belongs to whoever runs the compile (the evaluator), which lends it to
//! functions through [`crate::CallContext::annotations`].

use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// The annotations of one compile: (annotated value, annotation type name, annotation).
#[derive(Debug, Default, Clone)]
pub struct Annotations {
    entries: Vec<(Value, SmolStr, Value)>,
}

/// Whether two values are the same annotatable object.
fn same_target(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => Arc::ptr_eq(x, y),
        (Value::Object(_), _) | (_, Value::Object(_)) => false,
        _ => a == b,
    }
}

impl Annotations {
    /// An empty store.
    pub fn new() -> Annotations {
        Annotations::default()
    }

    fn position(&self, target: &Value, annotation_type: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|(t, n, _)| n == annotation_type && same_target(t, target))
    }

    /// The annotation of type `annotation_type` (a type name) attached to `target`.
    pub fn get(&self, target: &Value, annotation_type: &str) -> Option<&Value> {
        self.position(target, annotation_type)
            .map(|i| &self.entries[i].2)
    }

    /// Attaches `annotation` to `target`, replacing one of the same type.
    pub fn set(&mut self, target: &Value, annotation_type: &str, annotation: Value) {
        match self.position(target, annotation_type) {
            Some(i) => self.entries[i].2 = annotation,
            None => self
                .entries
                .push((target.clone(), SmolStr::new(annotation_type), annotation)),
        }
    }

    /// Removes the annotation of type `annotation_type` from `target`, returning it.
    pub fn clear(&mut self, target: &Value, annotation_type: &str) -> Option<Value> {
        self.position(target, annotation_type)
            .map(|i| self.entries.remove(i).2)
    }

    /// How many annotations are attached.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no annotation is attached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_of_objects_equality_of_others() {
        let t = puppet_types::object::builtin("Error").unwrap();
        let a = puppet_types::object::new_object(&t, &[Value::string("x")]).unwrap();
        let b = puppet_types::object::new_object(&t, &[Value::string("x")]).unwrap();
        assert_eq!(a, b);
        let mut s = Annotations::new();
        s.set(&a, "MyAdapter", Value::Integer(1));
        assert_eq!(s.get(&a.clone(), "MyAdapter"), Some(&Value::Integer(1)));
        assert_eq!(s.get(&b, "MyAdapter"), None);
        assert_eq!(s.get(&a, "Other"), None);
        let ty = Value::Type(puppet_types::resolve_type_name("Integer"));
        s.set(&ty, "MyAdapter", Value::Integer(2));
        let ty2 = Value::Type(puppet_types::resolve_type_name("Integer"));
        assert_eq!(s.get(&ty2, "MyAdapter"), Some(&Value::Integer(2)));
        assert_eq!(s.clear(&a, "MyAdapter"), Some(Value::Integer(1)));
        assert_eq!(s.get(&a, "MyAdapter"), None);
        assert_eq!(s.len(), 1);
    }
}
