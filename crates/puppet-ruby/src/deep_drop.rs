//! Dropping deeply nested Ruby data without deep recursion.
//!
//! A template may build data nested as deep as its step budget allows
//! (`a = []; 100000.times { a = [a] }`). Rust drops nested containers recursively, one
//! chain of frames per level, so dropping such a value overflowed the thread's stack and
//! aborted the process. Ruby's garbage collector has no such limit, so the interpreter must
//! not have one either.
//!
//! [`release`] is called by the `Drop` of arrays, hashes and objects that still hold values
//! ([`crate::value::Shared`], [`crate::object::Object`]). The first call on a thread drops
//! its contents itself; containers whose last reference goes while it does so hand their
//! contents to a per-thread list instead of dropping them in place, and the first call drains
//! that list in a loop. The recursion is therefore at most a few frames deep, whatever the
//! nesting. Ranges and procs still drop recursively: nesting them deeply takes code no
//! template has.

use crate::object::FxIndexMap;
use crate::value::{RHash, RValue};
use std::cell::{Cell, RefCell};

/// Contents taken out of a container that is being dropped (held only to be dropped).
#[allow(dead_code)]
pub(crate) enum Deferred {
    Array(Vec<RValue>),
    Hash(RHash),
    Ivars(FxIndexMap<String, RValue>),
}

thread_local! {
    /// True while a [`release`] further up this thread's stack drains [`PENDING`].
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    /// Contents waiting to be dropped by the draining [`release`].
    static PENDING: RefCell<Vec<Deferred>> = const { RefCell::new(Vec::new()) };
}

/// Drops `contents`, and everything that goes with them, without recursing per level.
pub(crate) fn release(contents: Deferred) {
    let outermost = DRAINING
        .try_with(|draining| !draining.replace(true))
        .unwrap_or(false);
    if !outermost {
        // A drain is under way further up (or the thread is ending): queue, or drop here.
        let queued = PENDING.try_with(|pending| match pending.try_borrow_mut() {
            Ok(mut list) => {
                list.push(contents);
                None
            }
            Err(_) => Some(contents),
        });
        match queued {
            Ok(None) => {}
            Ok(Some(contents)) => drop(contents),
            Err(_) => {}
        }
        return;
    }
    drop(contents);
    loop {
        // (While the thread ends, the queue may be gone already: then nothing was queued.)
        let next = PENDING
            .try_with(|pending| pending.try_borrow_mut().ok().and_then(|mut l| l.pop()))
            .ok()
            .flatten();
        match next {
            Some(contents) => drop(contents),
            None => break,
        }
    }
    let _ = DRAINING.try_with(|draining| draining.set(false));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::RHash;

    /// Nested far deeper than a thread's stack could drop recursively (each level is
    /// several frames), on a small stack.
    #[test]
    fn deep_nesting_drops_on_a_small_stack() {
        std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(|| {
                let mut a = RValue::array(vec![]);
                for _ in 0..1_000_000 {
                    a = RValue::array(vec![a]);
                }
                drop(a);
                let mut h = RValue::Nil;
                for i in 0..300_000 {
                    let mut hash = RHash::default();
                    hash.insert(RValue::Int(i), RValue::array(vec![h]));
                    h = RValue::hash(hash);
                }
                drop(h);
                PENDING.with(|pending| assert!(pending.borrow().is_empty()));
                DRAINING.with(|draining| assert!(!draining.get()));
            })
            .expect("spawn")
            .join()
            .expect("no overflow");
    }

    /// Arrays and hashes of values that nest nothing are dropped in place: their parts go
    /// as they would through the queue, and nothing is left queued.
    #[test]
    fn flat_containers_drop_their_parts_in_place() {
        let leaf = RValue::str("kept");
        let flat = RValue::array(vec![leaf.clone(), RValue::Int(1), RValue::sym("s")]);
        let mut h = RHash::default();
        h.insert(RValue::str("k"), leaf.clone());
        h.default = leaf.clone();
        let hash = RValue::hash(h);
        let nested = RValue::array(vec![flat.clone(), hash.clone(), leaf.clone()]);
        drop(flat);
        drop(hash);
        drop(nested);
        PENDING.with(|pending| assert!(pending.borrow().is_empty()));
        if let RValue::Str(s) = &leaf {
            assert_eq!(std::rc::Rc::strong_count(s), 1);
        }
    }

    /// Shared parts are dropped once, when their last reference goes.
    #[test]
    fn shared_parts_live_while_referenced() {
        let leaf = RValue::str("kept");
        let outer = RValue::array(vec![RValue::array(vec![leaf.clone()]), leaf.clone()]);
        drop(outer);
        assert_eq!(crate::value::to_s(&leaf), "kept");
        if let RValue::Str(s) = &leaf {
            assert_eq!(std::rc::Rc::strong_count(s), 1);
        }
    }
}
