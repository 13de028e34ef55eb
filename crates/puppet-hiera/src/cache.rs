//! What a shared [`Lookup`](crate::Lookup) remembers between lookups besides the files it
//! read: the locations of each hierarchy entry, keyed by the values of the variables their
//! interpolation read, and the merged `lookup_options`, keyed by the locations they were
//! read from.
//!
//! A cached answer is only used when recomputing it would give the same answer: the
//! variables read have the same values (compared strictly, floats by their bits, so that
//! `0.0` and `-0.0` stay apart), and the recursion guards (`Invocation#check`'s stack of
//! names and its length limit, the nesting depth limit) would not stop the recomputation
//! where the cached one passed ([`Guard`]). Errors are never cached.

use crate::interp::Segment;
use crate::lookup::Resolved;
use puppet_types::Value;
use std::sync::{Arc, RwLock};

/// The recursion stack may hold at most this many names when one more is checked.
pub(crate) const STACK_LIMIT: usize = 100;
/// The nesting depth may be at most this when entering one level more.
pub(crate) const DEPTH_LIMIT: usize = 64;
/// Resolutions kept per hierarchy entry (one per distinct set of variable values; the
/// newest first, the oldest dropped).
const SLOT_LIMIT: usize = 16;

/// One scope expression read while resolving: `key` split into `segments`, and what it
/// gave.
#[derive(Debug)]
pub(crate) struct Dep {
    pub segments: Arc<[Segment]>,
    pub value: Option<Value>,
}

/// What the recursion guards saw during a computation, relative to where it started.
#[derive(Debug, Default, Clone)]
pub(crate) struct Guard {
    /// Names pushed on the recursion stack.
    pub names: Vec<String>,
    /// The longest stack (above the starting one) a name was checked against.
    pub stack: Option<usize>,
    /// The deepest nesting (above the starting one) a level was entered from.
    pub depth: Option<usize>,
}

impl Guard {
    /// Would the computation pass the guards again from `stack` and `depth`?
    pub fn allows(&self, stack: &[String], depth: usize) -> bool {
        self.stack.is_none_or(|m| stack.len() + m <= STACK_LIMIT)
            && self.depth.is_none_or(|m| depth + m <= DEPTH_LIMIT)
            && !self.names.iter().any(|n| stack.contains(n))
    }
}

fn max_opt(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Records the variables read and the guards passed while an entry's locations are
/// resolved.
#[derive(Debug)]
pub(crate) struct Recording {
    pub stack_base: usize,
    pub depth_base: usize,
    pub deps: Vec<Dep>,
    pub guard: Guard,
    /// False when something was read that the deps cannot replay.
    pub cacheable: bool,
}

impl Recording {
    pub fn new(stack_base: usize, depth_base: usize) -> Recording {
        Recording {
            stack_base,
            depth_base,
            deps: Vec::new(),
            guard: Guard::default(),
            cacheable: true,
        }
    }

    /// A name checked against a stack of `len` names.
    pub fn check(&mut self, name: &str, len: usize) {
        let rel = len.saturating_sub(self.stack_base);
        self.guard.stack = max_opt(self.guard.stack, Some(rel));
        if !self.guard.names.iter().any(|n| n == name) {
            self.guard.names.push(name.to_string());
        }
    }

    /// A level entered from depth `depth`.
    pub fn nest(&mut self, depth: usize) {
        let rel = depth.saturating_sub(self.depth_base);
        self.guard.depth = max_opt(self.guard.depth, Some(rel));
    }
}

/// The locations of a hierarchy entry for some values of the variables they interpolate.
#[derive(Debug)]
pub(crate) struct Resolution {
    pub deps: Vec<Dep>,
    pub guard: Guard,
    /// `None` when the default configuration drops the entry.
    pub locations: Option<Vec<Resolved>>,
}

impl Resolution {
    pub fn uncached(locations: Option<Vec<Resolved>>) -> Resolution {
        Resolution {
            deps: Vec::new(),
            guard: Guard::default(),
            locations,
        }
    }

    pub fn recorded(rec: Recording, locations: Option<Vec<Resolved>>) -> Resolution {
        Resolution {
            deps: rec.deps,
            guard: rec.guard,
            locations,
        }
    }
}

/// The cached resolutions of one hierarchy entry.
#[derive(Debug, Default)]
pub(crate) struct Slot(RwLock<Vec<Arc<Resolution>>>);

impl Slot {
    /// The first resolution whose deps `holds`.
    /// (`holds` runs outside the lock: it reads the scope.)
    pub fn find(&self, mut holds: impl FnMut(&Resolution) -> bool) -> Option<Arc<Resolution>> {
        let candidates = self.0.read().ok()?.clone();
        candidates.into_iter().find(|r| holds(r))
    }

    pub fn insert(&self, r: Arc<Resolution>) {
        if let Ok(mut v) = self.0.write() {
            v.insert(0, r);
            v.truncate(SLOT_LIMIT);
        }
    }
}

/// Strict identity of two values: the same structure and contents, floats by their bits
/// (so that interpolating either gives the same text).
pub(crate) fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| identical(p, q)))
        }
        (Value::Hash(x), Value::Hash(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|((k1, v1), (k2, v2))| identical(k1, k2) && identical(v1, v2)))
        }
        (Value::Sensitive(x), Value::Sensitive(y)) => identical(x, y),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_is_strict() {
        assert!(!identical(&Value::Float(0.0), &Value::Float(-0.0)));
        assert!(identical(&Value::Float(1.5), &Value::Float(1.5)));
        let h = |k: &str| Value::hash([(Value::string(k), Value::Integer(1))]);
        assert!(identical(&h("a"), &h("a")));
        assert!(!identical(&h("a"), &h("b")));
        assert!(!identical(&Value::Integer(1), &Value::Float(1.0)));
        let a = Value::array(vec![Value::Float(0.0)]);
        assert!(!identical(&a, &Value::array(vec![Value::Float(-0.0)])));
    }

    #[test]
    fn guards() {
        let mut r = Recording::new(2, 3);
        r.check("scope:x", 2);
        r.check("scope:y", 3);
        r.nest(3);
        r.nest(5);
        let g = r.guard;
        assert_eq!((g.stack, g.depth), (Some(1), Some(2)));
        let stack = |n: usize| vec!["k".to_string(); n];
        assert!(g.allows(&stack(99), 62));
        assert!(!g.allows(&stack(100), 0));
        assert!(!g.allows(&stack(1), 63));
        assert!(!g.allows(&["scope:y".to_string()], 0));
    }
}
