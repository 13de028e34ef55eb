//! Hiera backends that are functions of the environment (`data_hash`, `lookup_key` and
//! `data_dig` entries naming a function other than the built-in `yaml_data` and
//! `json_data`), as Puppet 7.23's function providers call them.
//!
//! This crate does not run functions: the evaluator does, through the [`FunctionBackend`] its
//! [`Scope`](crate::Scope) hands out ([`Scope::backend`](crate::Scope::backend)). The
//! lookup gives it a [`BackendCall`] (the function, its kind, its options with `path` for a
//! location, the key or its segments) and a [`BackendContext`] through which the function's
//! `context` reaches back into the lookup (`interpolate`, `explain`). What Puppet keeps per
//! compile (a `data_hash` result per location, a `lookup_key` answer per key, the
//! function's own `cache`) is the implementor's, since a [`Lookup`](crate::Lookup) is shared
//! by every compile of an environment.
//!
//! Without a backend (a scope that has none), an entry naming a function fails as Puppet
//! fails for a function it cannot find.

use crate::config::FunctionKind;
use crate::error::HieraError;
use puppet_types::Value;

/// One call of a backend function.
#[derive(Debug, Clone)]
pub struct BackendCall<'a> {
    /// `data_hash`, `lookup_key` or `data_dig`.
    pub kind: FunctionKind,
    /// The function's name as `hiera.yaml` gives it.
    pub function: &'a str,
    /// The entry's `options` (interpolated), plus `path` (the location's absolute path) or
    /// `uri` when the entry has locations: always a hash.
    pub options: &'a Value,
    /// For `lookup_key`: the key's first segment (Puppet's root key); for the other kinds,
    /// the whole dotted key.
    pub key: &'a str,
    /// For `data_dig`: the key's segments (integers for numeric segments), root first.
    pub segments: &'a [Value],
    /// The module of the layer (`None` in the global and environment layers).
    pub module: Option<&'a str>,
    /// Identifies Puppet's function context of the call: one per layer, hierarchy entry and
    /// location. What Puppet caches per context (the `data_hash` result, `lookup_key`
    /// answers, the function's `cache`) is keyed by it.
    pub context: &'a str,
}

/// How a backend call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum BackendError {
    /// No function of that name can be loaded (Puppet's
    /// `HIERA_DATA_PROVIDER_FUNCTION_NOT_FOUND`).
    NoSuchFunction,
    /// The function failed; the error is reported as it is.
    Failed(HieraError),
}

/// What the function's `context` can ask of the lookup that called it.
pub trait BackendContext {
    /// `context.interpolate(value)`: the value with its `%{...}` expressions resolved as in
    /// data (methods allowed), in the lookup's scope.
    fn interpolate(&mut self, value: &Value) -> Result<Value, HieraError>;
    /// Whether the lookup is being explained (`context.explain { ... }` only runs its block
    /// then).
    fn explaining(&self) -> bool;
    /// `context.explain { text }`: a line of the explanation.
    fn explain(&mut self, text: String);
}

/// Runs backend functions for the lookup (implemented by the evaluator).
pub trait FunctionBackend {
    /// Calls the function: `Ok(Some(value))` when it answered, `Ok(None)` when it said
    /// `context.not_found`. A `data_hash` function answers its whole hash.
    fn call(
        &self,
        call: &BackendCall<'_>,
        context: &mut dyn BackendContext,
    ) -> Result<Option<Value>, BackendError>;
}

/// The value a `data_dig` function found for `segments[1..]` put back in place, as Puppet's
/// `LookupKey#undig`: a hash per key segment, an array (`nil` before the index) per numeric
/// segment, so that digging the key into the result finds the value again.
pub(crate) fn undig(segments: &[Value], value: Value) -> Value {
    segments
        .iter()
        .skip(1)
        .rev()
        .fold(value, |memo, seg| match seg {
            Value::Integer(i) if *i >= 0 => {
                let n = usize::try_from(*i).unwrap_or(0).min(1 << 16);
                let mut items = vec![Value::Undef; n];
                items.push(memo);
                Value::array(items)
            }
            other => Value::hash([(other.clone(), memo)]),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undig_rebuilds_the_path() {
        let segs = [Value::string("deep"), Value::string("a"), Value::Integer(1)];
        let v = undig(&segs, Value::string("y"));
        assert_eq!(v.to_string(), "{'a' => [undef, 'y']}");
        assert_eq!(undig(&segs[..1], Value::Integer(3)), Value::Integer(3));
    }
}
