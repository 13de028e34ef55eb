//! The Puppet API that module Ruby code calls: `Puppet.warning`/`debug`/..., the scope
//! object of 3.x functions, Puppet values seen from Ruby, and the hooks through which the
//! function loader (`functions`) and the type recorder (`typedsl`) see what a file defined.

use crate::interp::{raise, unsupported, Interp, R};
use crate::object::{Blk, Module, Object};
use crate::value::{to_s, RValue};
use crate::Pos;
use puppet_types::Value;
use std::rc::Rc;

/// What the Puppet API keeps while code runs: the definitions the code made.
#[derive(Debug, Default)]
pub struct Ext {}

/// Calls the Puppet lambda given to the function being run.
pub(crate) fn call_foreign_block(it: &mut Interp, args: Vec<RValue>, pos: Pos) -> R {
    let mut pargs = Vec::with_capacity(args.len());
    for a in &args {
        match crate::value::to_puppet(a) {
            Ok(v) => pargs.push(v),
            Err(e) => return unsupported(format!("argument to a Puppet lambda: {e}"), pos),
        }
    }
    match it.scope.call_block(pargs) {
        Ok(v) => Ok(crate::value::from_puppet(&v)),
        Err(msg) => raise("Puppet::ParseError", msg, pos),
    }
}

/// Native methods of objects of Puppet's classes. `None`: not one of them.
pub(crate) fn object_method(
    it: &mut Interp,
    recv: &RValue,
    o: &Rc<Object>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let _ = (it, recv, o, name, args, block, pos);
    None
}

/// Whether an object of Puppet's classes answers `name` natively.
pub(crate) fn object_responds(it: &mut Interp, o: &Rc<Object>, name: &str) -> bool {
    let _ = (it, o, name);
    false
}

/// Class methods of Puppet's modules (`Puppet.warning`, ...), by the class's name.
#[allow(clippy::too_many_arguments)]
pub(crate) fn module_method(
    it: &mut Interp,
    cname: &str,
    recv: &RValue,
    m: &Rc<Module>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let _ = (recv, m, block);
    match (cname, name) {
        (
            "Puppet",
            "warning" | "debug" | "info" | "notice" | "err" | "alert" | "emerg" | "crit",
        ) => {
            let msg = args.first().map(to_s).unwrap_or_default();
            it.scope.log(name, &msg);
            Some(Ok(RValue::Nil))
        }
        _ => {
            let _ = pos;
            None
        }
    }
}

/// Whether a Puppet module answers `name` natively.
pub(crate) fn module_responds(it: &mut Interp, cname: &str, name: &str) -> bool {
    let _ = it;
    matches!(
        (cname, name),
        (
            "Puppet",
            "warning" | "debug" | "info" | "notice" | "err" | "alert" | "emerg" | "crit"
        )
    )
}

/// Methods of Puppet values with no Ruby counterpart (types, Sensitive, timestamps...).
pub(crate) fn puppet_value_method(
    it: &mut Interp,
    recv: &RValue,
    p: &Rc<Value>,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let _ = (it, block, args);
    match (&**p, name) {
        (Value::Sensitive(inner), "unwrap") => Ok(crate::value::from_puppet(inner)),
        _ => crate::methods::no_method_pub(recv, name, pos),
    }
}
