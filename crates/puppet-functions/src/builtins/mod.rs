//! Puppet 7.23's built-in functions that need no catalog, compiler, file system or Ruby,
//! registered with their documentation and an example each.
//!
//! [`registry`] gives a shared registry with all of them, each built on its first use;
//! [`register_all`] adds them to another registry (the evaluator adds its own functions next
//! to them).

use crate::error::{codes, CallError, RegistryError};
use crate::registry::{Group, Registry};
use puppet_types::value::IteratorValue;
use puppet_types::Value;
use std::sync::OnceLock;

mod annotate;
mod collections;
mod compiler;
mod files;
mod fqdn;
mod iteration;
mod legacy;
mod misc;
mod numbers;
mod regex;
mod strings;
mod types;

/// The most elements a built-in produces from one lazy iterable before giving up.
pub(crate) const MAX_ELEMENTS: usize = 10_000_000;

/// The built-ins' registration functions, one per module, each with the names it registers
/// (in its order).
const GROUPS: &[(Group, &[&str])] = &[
    (iteration::register, iteration::NAMES),
    (collections::register, collections::NAMES),
    (strings::register, strings::NAMES),
    (numbers::register, numbers::NAMES),
    (types::register, types::NAMES),
    (misc::register, misc::NAMES),
    (annotate::register, annotate::NAMES),
    (fqdn::register, fqdn::NAMES),
    (legacy::register, legacy::NAMES),
    (files::register, files::NAMES),
    (compiler::register, compiler::NAMES),
];

/// A shared registry holding every built-in of this crate.
///
/// The built-ins are registered by name: each is built (its signatures' types read) the
/// first time it is looked up, so that a process pays only for the functions it uses. The
/// result is the registry [`register_all`] makes (the tests compare them function by
/// function and build every built-in).
pub fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| {
        let mut r = Registry::new();
        for &(group, names) in GROUPS {
            for &name in names {
                // Registration of the built-ins is checked by tests; a failure leaves the
                // rest usable.
                let _ = r.register_deferred(name, group);
            }
        }
        r
    })
}

/// Adds every built-in to `reg`.
///
/// ```
/// use puppet_functions::{builtins, Registry};
/// let mut reg = Registry::new();
/// builtins::register_all(&mut reg).unwrap();
/// assert!(reg.contains("reduce"));
/// ```
pub fn register_all(reg: &mut Registry) -> Result<(), RegistryError> {
    for (group, _) in GROUPS {
        group(reg)?;
    }
    Ok(())
}

pub(crate) fn too_many() -> CallError {
    CallError::new(
        codes::BAD_ARGUMENT,
        format!("iteration over more than {MAX_ELEMENTS} elements"),
    )
}

/// The elements of an iterable value (a Hash gives `[key, value]` pairs).
pub(crate) fn elements(v: &Value) -> Result<Vec<Value>, CallError> {
    let it = IteratorValue::of(v).ok_or_else(|| {
        CallError::new(
            codes::BAD_ARGUMENT,
            format!(
                "{} is not iterable",
                puppet_types::generalize(&puppet_types::infer(v))
            ),
        )
    })?;
    let mut out = Vec::new();
    for e in it.iter() {
        if out.len() >= MAX_ELEMENTS {
            return Err(too_many());
        }
        out.push(e);
    }
    Ok(out)
}

/// Puppet's truthiness: everything but `undef` and `false`.
pub(crate) fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Undef | Value::Boolean(false))
}

/// The label Puppet's `ModelLabelProvider` gives a value (`Integer`, `Undef Value`, ...).
pub(crate) fn label(v: &Value) -> String {
    match v {
        Value::Undef => "Undef Value".into(),
        Value::Default => "Default Value".into(),
        Value::Boolean(_) => "Boolean".into(),
        Value::Integer(_) => "Integer".into(),
        Value::Float(_) => "Float".into(),
        Value::String(_) => "String".into(),
        Value::Regexp(_) => "Regexp".into(),
        Value::Array(_) => "Array".into(),
        Value::Hash(_) => "Hash".into(),
        Value::SemVer(_) => "Semver".into(),
        Value::Timespan(_) => "Timespan".into(),
        Value::Timestamp(_) => "Timestamp".into(),
        Value::Type(t) => format!("{t}-Type"),
        other => puppet_types::generalize(&puppet_types::infer(other)).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Function;

    /// Everything a function shows of itself: name, doc, examples, and per dispatch its
    /// signature text, block, return type and kind.
    fn view(f: &Function) -> String {
        let mut out = format!("{} {:?} {:?}\n", f.name(), f.doc(), f.examples());
        for d in f.dispatches() {
            out.push_str(&format!(
                "  ({}) block {:?} returns {:?} mismatch {}\n",
                d.signature_string(),
                d.block()
                    .map(|b| (b.name.to_string(), b.ty.to_string(), b.optional)),
                d.return_type().map(ToString::to_string),
                d.is_argument_mismatch(),
            ));
            for p in d.params() {
                out.push_str(&format!("    {} {} {:?}\n", p.name, p.ty, p.kind));
            }
        }
        out
    }

    #[test]
    fn every_group_registers_its_names_in_order() {
        for &(group, names) in GROUPS {
            let mut reg = Registry::new();
            group(&mut reg).unwrap();
            let got: Vec<&str> = reg.functions().map(Function::name).collect();
            assert_eq!(got, names);
        }
    }

    #[test]
    fn every_deferred_built_in_builds() {
        // Loads a fresh registry of deferred entries, as `registry()` does, and builds
        // each: a registration error of any built-in shows here.
        let mut reg = Registry::new();
        for &(group, names) in GROUPS {
            for &name in names {
                reg.register_deferred(name, group).unwrap();
            }
        }
        reg.build_deferred().unwrap();
    }

    #[test]
    fn the_shared_registry_is_the_eager_one() {
        let mut eager = Registry::new();
        register_all(&mut eager).unwrap();
        let lazy = registry();
        // Looked up one by one before anything else forces them all.
        for f in eager.functions() {
            assert!(lazy.contains(f.name()), "{}", f.name());
            let got = lazy.get(&f.name().to_ascii_uppercase()).map(view);
            assert_eq!(got, Some(view(f)));
        }
        let names = |r: &Registry| {
            r.functions()
                .map(|f| f.name().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(lazy), names(&eager));
        let all = |r: &Registry| r.functions().map(view).collect::<Vec<_>>();
        assert_eq!(all(lazy), all(&eager));
        assert_eq!(format!("{lazy:?}"), format!("{eager:?}"));
        assert!(!lazy.contains("nosuch") && lazy.get("nosuch").is_none());
        // A clone shares the built functions.
        let clone = lazy.clone();
        assert!(std::sync::Arc::ptr_eq(
            &clone.get_shared("map").unwrap(),
            &lazy.get_shared("map").unwrap()
        ));
    }
}
