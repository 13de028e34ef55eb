//! Mismatch descriptions: the text Puppet gives when a value does not match a type.
//!
//! Placeholder filled in by a later step.

use crate::types::Type;
use crate::value::Value;

/// Describes why `v` does not match `t` (empty when it does).
pub fn describe_mismatch(t: &Type, v: &Value) -> Option<String> {
    if crate::is_instance(t, v) {
        return None;
    }
    Some(format!("expects {}, got {}", t, crate::infer_set(v)))
}
