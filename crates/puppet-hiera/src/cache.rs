//! What a shared [`Lookup`](crate::Lookup) remembers between lookups besides the files it
//! read (a `Lookup` serves every compile of an environment, and each compile looks up every
//! class parameter):
//!
//! - the locations of each hierarchy entry ([`Slot`]), keyed by the values of the scope
//!   expressions their interpolation read ([`Dep`]);
//! - merged `lookup_options`, keyed by the resolutions of all the entries they were read
//!   from (the data files do not change), when none of their values is interpolated;
//! - per module layer, the last merged `lookup_options` found valid with the root variables
//!   their entries read ([`Snapshot`]): while `$facts` is the very same hash (as during one
//!   compile) and the other variables read are identical, nothing needs digging again.
//!
//! A cached answer is only used when recomputing it would give the same answer: the
//! variables read have the same values (compared strictly, floats by their bits, so that
//! `0.0` and `-0.0` stay apart; a hash or array held by the cache is compared by address,
//! which is safe because a held allocation is neither reused nor changed), and the
//! recursion guards (`Invocation#check`'s stack of names and its length limit, the nesting
//! depth limit) would not stop the recomputation where the cached one passed ([`Guard`]).
//! Errors are never cached. `tests/cache.rs` checks a shared `Lookup` against one without
//! caches.

use crate::interp::Segment;
use crate::lookup::Resolved;
use puppet_types::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// The recursion stack may hold at most this many names when one more is checked.
pub(crate) const STACK_LIMIT: usize = 100;
/// The nesting depth may be at most this when entering one level more.
pub(crate) const DEPTH_LIMIT: usize = 64;
/// Resolutions kept per hierarchy entry (one per distinct set of variable values; the
/// newest first, the oldest dropped).
const SLOT_LIMIT: usize = 16;

/// One scope expression read while resolving: `key` split into `segments`, and what it
/// gave. For a dotted expression into a hash or array, `root` holds the last one of those
/// it was found to give `value` in (while it is held, its allocation is not reused, and
/// its contents cannot change).
#[derive(Debug)]
pub(crate) struct Dep {
    pub segments: Arc<[Segment]>,
    pub value: Option<Value>,
    pub root: Mutex<Option<Value>>,
}

/// Are `held` and `now` the same hash (or array) allocation?
pub(crate) fn same_container(held: &Option<Value>, now: &Option<Value>) -> bool {
    match (held, now) {
        (Some(Value::Hash(a)), Some(Value::Hash(b))) => Arc::ptr_eq(a, b),
        (Some(Value::Array(a)), Some(Value::Array(b))) => Arc::ptr_eq(a, b),
        _ => false,
    }
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

impl Guard {
    /// Adds what `other` saw.
    pub fn absorb(&mut self, other: &Guard) {
        for n in &other.names {
            if !self.names.contains(n) {
                self.names.push(n.clone());
            }
        }
        self.stack = max_opt(self.stack, other.stack);
        self.depth = max_opt(self.depth, other.depth);
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
    /// While a `mapped_paths` template is interpolated: the variable its overlay sets.
    pub overlay: Option<String>,
}

impl Recording {
    pub fn new(stack_base: usize, depth_base: usize) -> Recording {
        Recording {
            stack_base,
            depth_base,
            deps: Vec::new(),
            guard: Guard::default(),
            cacheable: true,
            overlay: None,
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
    /// Unique in the process (0: not cached).
    pub id: u64,
    pub deps: Vec<Dep>,
    pub guard: Guard,
    /// `None` when the default configuration drops the entry.
    pub locations: Option<Vec<Resolved>>,
}

impl Resolution {
    pub fn uncached(locations: Option<Vec<Resolved>>) -> Resolution {
        Resolution {
            id: 0,
            deps: Vec::new(),
            guard: Guard::default(),
            locations,
        }
    }

    pub fn recorded(rec: Recording, locations: Option<Vec<Resolved>>) -> Resolution {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Resolution {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            deps: rec.deps,
            guard: rec.guard,
            locations,
        }
    }
}

/// The cached resolutions of one hierarchy entry (replaced as a whole when one is added).
#[derive(Debug, Default)]
pub(crate) struct Slot(RwLock<Arc<[Arc<Resolution>]>>);

impl Slot {
    /// The first resolution whose deps `holds` (`holds` runs outside the lock: it reads
    /// the scope).
    pub fn find(&self, mut holds: impl FnMut(&Resolution) -> bool) -> Option<Arc<Resolution>> {
        let candidates = self.0.read().ok()?.clone();
        candidates.iter().find(|r| holds(r)).cloned()
    }

    pub fn insert(&self, r: Arc<Resolution>) {
        if let Ok(mut v) = self.0.write() {
            let new: Vec<Arc<Resolution>> = std::iter::once(r)
                .chain(v.iter().cloned())
                .take(SLOT_LIMIT)
                .collect();
            *v = new.into();
        }
    }
}

/// What merged `lookup_options` depend on when no value of them is interpolated: the module
/// of the key (`None` outside modules), whether only the global layer is searched, and the
/// resolutions of every hierarchy entry of the layers searched, in order.
pub(crate) type OptionsKey = (Option<String>, bool, Vec<u64>);

/// At most this many merged `lookup_options` are kept (then the cache starts over).
pub(crate) const OPTIONS_LIMIT: usize = 1024;

/// Does interpolating `v` change anything (a string with `%{` in it, a hash key too)?
pub(crate) fn needs_interpolation(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("%{"),
        Value::Array(items) => items.iter().any(needs_interpolation),
        Value::Hash(h) => h
            .iter()
            .any(|(k, v)| needs_interpolation(k) || needs_interpolation(v)),
        _ => false,
    }
}

/// A value computed from the resolutions of several hierarchy entries (merged
/// `lookup_options`), with what makes them hold at once: the values of the root variables
/// their deps read, as last checked. While every root variable has the same value (the very
/// same hash or array, or an identical scalar, or still none) and the merged guard allows
/// the recomputation, every dep gives what it gave, so every resolution holds.
#[derive(Debug)]
pub(crate) struct Snapshot<T> {
    pub roots: Vec<(Arc<str>, Option<Value>)>,
    pub guard: Guard,
    /// The resolutions, by slot address.
    pub resolved: Vec<(usize, Arc<Resolution>)>,
    pub value: T,
}

impl<T> Snapshot<T> {
    /// `read` gives the value of a root variable now.
    pub fn new(
        resolved: Vec<(usize, Arc<Resolution>)>,
        value: T,
        mut read: impl FnMut(&str) -> Option<Value>,
    ) -> Snapshot<T> {
        let mut roots: Vec<(Arc<str>, Option<Value>)> = Vec::new();
        let mut guard = Guard::default();
        for (_, r) in &resolved {
            guard.absorb(&r.guard);
            for d in &r.deps {
                if let Some(Segment::Key(name)) = d.segments.first() {
                    if !roots.iter().any(|(n, _)| **n == **name) {
                        roots.push((Arc::from(name.as_str()), read(name)));
                    }
                }
            }
        }
        Snapshot {
            roots,
            guard,
            resolved,
            value,
        }
    }

    /// Does it hold from `stack` and `depth`, `read` giving the root variables now?
    pub fn holds(
        &self,
        stack: &[String],
        depth: usize,
        mut read: impl FnMut(&Arc<str>) -> Option<Value>,
    ) -> bool {
        self.guard.allows(stack, depth)
            && self
                .roots
                .iter()
                .all(|(name, then)| same_root(&read(name), then))
    }
}

/// The same value of a root variable: the same hash or array allocation, an identical
/// scalar, or none both times.
fn same_root(now: &Option<Value>, then: &Option<Value>) -> bool {
    match (now, then) {
        (Some(Value::Hash(a)), Some(Value::Hash(b))) => Arc::ptr_eq(a, b),
        (Some(Value::Array(a)), Some(Value::Array(b))) => Arc::ptr_eq(a, b),
        (Some(Value::Hash(_) | Value::Array(_)), _)
        | (_, Some(Value::Hash(_) | Value::Array(_))) => false,
        (Some(a), Some(b)) => identical(a, b),
        (None, None) => true,
        _ => false,
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
