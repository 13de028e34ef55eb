//! Puppet 7.23's built-in functions that need no catalog, compiler, file system or Ruby,
//! registered with their documentation and an example each.
//!
//! [`registry`] gives a shared registry with all of them; [`register_all`] adds them to
//! another registry (the evaluator adds its own functions next to them).

use crate::error::{codes, CallError, RegistryError};
use crate::registry::Registry;
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

/// A shared registry holding every built-in of this crate.
pub fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| {
        let mut r = Registry::new();
        // Registration of the built-ins is checked by tests; a failure leaves the rest usable.
        let _ = register_all(&mut r);
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
    iteration::register(reg)?;
    collections::register(reg)?;
    strings::register(reg)?;
    numbers::register(reg)?;
    types::register(reg)?;
    misc::register(reg)?;
    annotate::register(reg)?;
    fqdn::register(reg)?;
    legacy::register(reg)?;
    files::register(reg)?;
    compiler::register(reg)?;
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
