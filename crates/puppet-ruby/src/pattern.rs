//! `case ... in` pattern matching, as Ruby 3.1 runs it: value patterns and pins (matched
//! with `===`), bindings, alternatives, `=> name` captures, array patterns (with a splat),
//! find patterns (`[*, x, *]`), hash patterns (`key:`, `key: pat`, `**rest`, `**nil`),
//! `Const(...)`/`Const[...]` with `deconstruct`/`deconstruct_keys` (Arrays, Hashes,
//! Structs, user classes), and `if`/`unless` guards. A `case` with one `in` clause and no
//! `else` raises Ruby's detailed NoMatchingPatternError (or NoMatchingPatternKeyError)
//! message; with more clauses the message is the value's `to_s`, as in Ruby.

use crate::ast::{HashRest, InClause, Node, Pat};
use crate::interp::{raise, Ctrl, Interp, R};
use crate::value::{RHash, RValue};
use crate::Pos;

/// Why the last pattern failed: the message and whether a key was missing.
type Why = Option<(String, bool)>;

/// Runs `case subject; in ...; end`.
pub(crate) fn case_in(
    it: &mut Interp,
    subject: &Node,
    clauses: &[InClause],
    els: Option<&[Node]>,
    pos: Pos,
) -> R {
    let v = it.eval(subject)?;
    let mut why: Why = None;
    for c in clauses {
        why = None;
        if matches(it, &c.pat, &v, &mut why, c.pos)? {
            let ok = match &c.guard {
                None => true,
                Some((unless, g)) => it.eval(g)?.truthy() != *unless,
            };
            if ok {
                return it.body(&c.body);
            }
            why = Some(("guard clause does not return true".into(), false));
        }
    }
    if let Some(b) = els {
        return it.body(b);
    }
    if let (1, Some((msg, key))) = (clauses.len(), why) {
        let class = if key {
            "NoMatchingPatternKeyError"
        } else {
            "NoMatchingPatternError"
        };
        let shown = it.inspect_value(&v)?;
        return raise(class, format!("{shown}: {msg}"), pos);
    }
    // `raise NoMatchingPatternError, value`: the message is the value's `to_s` (nil's is
    // the class name).
    let msg = match &v {
        RValue::Nil => "NoMatchingPatternError".to_string(),
        _ => crate::value::to_s(&it.call_method(v.clone(), "to_s", Vec::new(), None, pos)?),
    };
    raise("NoMatchingPatternError", msg, pos)
}

fn miss(why: &mut Why, msg: String) -> Result<bool, Ctrl> {
    if why.is_none() {
        *why = Some((msg, false));
    }
    Ok(false)
}

/// Whether `v` matches `pat` (binding its variables).
fn matches(it: &mut Interp, pat: &Pat, v: &RValue, why: &mut Why, pos: Pos) -> Result<bool, Ctrl> {
    crate::with_stack(|| {
        if !crate::value::walk_step() {
            return Ok(false);
        }
        match pat {
            Pat::Value(n) | Pat::Pin(n) => {
                let p = it.eval(n)?;
                if it.case_eq(&p, v, pos)? {
                    return Ok(true);
                }
                let (a, b) = (it.inspect_value(&p)?, it.inspect_value(v)?);
                miss(why, format!("{a} === {b} does not return true"))
            }
            Pat::Bind(name) => {
                it.set_lvar(name, v.clone());
                Ok(true)
            }
            Pat::Alt(alts) => {
                for a in alts {
                    *why = None;
                    if matches(it, a, v, why, pos)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Pat::Capture(p, name) => {
                if matches(it, p, v, why, pos)? {
                    it.set_lvar(name, v.clone());
                    return Ok(true);
                }
                Ok(false)
            }
            Pat::Array {
                konst,
                pre,
                rest,
                post,
            } => {
                let Some(items) = deconstruct(it, konst.as_deref(), v, why, pos)? else {
                    return Ok(false);
                };
                let (len, need) = (items.len(), pre.len() + post.len());
                if (rest.is_none() && len != need) || len < need {
                    let shown = it.inspect_value(&RValue::array(items.clone()))?;
                    let plus = if rest.is_some() { "+" } else { "" };
                    return miss(
                        why,
                        format!("{shown} length mismatch (given {len}, expected {need}{plus})"),
                    );
                }
                for (p, x) in pre.iter().zip(items.iter()) {
                    if !matches(it, p, x, why, pos)? {
                        return Ok(false);
                    }
                }
                for (p, x) in post.iter().zip(items[len - post.len()..].iter()) {
                    if !matches(it, p, x, why, pos)? {
                        return Ok(false);
                    }
                }
                if let Some(Some(name)) = rest {
                    let mid = items[pre.len()..len - post.len()].to_vec();
                    it.set_lvar(name, RValue::array(mid));
                }
                Ok(true)
            }
            Pat::Find {
                konst,
                pre,
                mid,
                post,
            } => {
                let Some(items) = deconstruct(it, konst.as_deref(), v, why, pos)? else {
                    return Ok(false);
                };
                let len = items.len();
                if len < mid.len() {
                    let shown = it.inspect_value(&RValue::array(items.clone()))?;
                    return miss(
                        why,
                        format!(
                            "{shown} length mismatch (given {len}, expected {}+)",
                            mid.len()
                        ),
                    );
                }
                for start in 0..=len - mid.len() {
                    let mut all = true;
                    for (k, p) in mid.iter().enumerate() {
                        if !matches(it, p, &items[start + k], why, pos)? {
                            all = false;
                            break;
                        }
                    }
                    if all {
                        if let Some(name) = pre {
                            it.set_lvar(name, RValue::array(items[..start].to_vec()));
                        }
                        if let Some(name) = post {
                            it.set_lvar(name, RValue::array(items[start + mid.len()..].to_vec()));
                        }
                        *why = None;
                        return Ok(true);
                    }
                }
                let shown = it.inspect_value(&RValue::array(items))?;
                *why = Some((format!("{shown} does not match to find pattern"), false));
                Ok(false)
            }
            Pat::Hash { konst, pairs, rest } => {
                if !konst_matches(it, konst.as_deref(), v, why, pos)? {
                    return Ok(false);
                }
                let keys = match rest {
                    HashRest::Named(_) => None,
                    _ => Some(pairs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>()),
                };
                let Some(h) = deconstruct_keys(it, v, keys.as_deref(), why, pos)? else {
                    return Ok(false);
                };
                if pairs.is_empty() && *rest == HashRest::Open && !h.map.is_empty() {
                    let shown = it.inspect_value(&RValue::hash(h))?;
                    return miss(why, format!("{shown} is not empty"));
                }
                for (k, p) in pairs {
                    let key = RValue::sym(k);
                    let Some(x) = h.get(&key).cloned() else {
                        if why.is_none() {
                            let shown = it.inspect_value(&RValue::hash(h.clone()))?;
                            *why = Some((format!("{shown}: key not found: :{k}"), true));
                            // Ruby's message names the hash twice only through the subject;
                            // keep the key part.
                            if let Some((m, _)) = why.as_mut() {
                                *m = format!("key not found: :{k}");
                            }
                        }
                        return Ok(false);
                    };
                    match p {
                        Some(p) => {
                            if !matches(it, p, &x, why, pos)? {
                                return Ok(false);
                            }
                        }
                        None => it.set_lvar(k, x),
                    }
                }
                let mut others = RHash::default();
                for (k, x) in h.pairs() {
                    let named = matches!(&k, RValue::Sym(s) if pairs.iter().any(|(n, _)| n.as_str() == &**s));
                    if !named {
                        others.insert(k, x);
                    }
                }
                match rest {
                    HashRest::Named(name) => it.set_lvar(name, RValue::hash(others)),
                    HashRest::Nil if !others.map.is_empty() => {
                        let shown = it.inspect_value(&RValue::hash(others))?;
                        return miss(why, format!("rest of {shown} is not empty"));
                    }
                    _ => {}
                }
                Ok(true)
            }
        }
    })
}

/// `Const(...)`: the constant's `===` first.
fn konst_matches(
    it: &mut Interp,
    konst: Option<&Node>,
    v: &RValue,
    why: &mut Why,
    pos: Pos,
) -> Result<bool, Ctrl> {
    let Some(k) = konst else {
        return Ok(true);
    };
    let kv = it.eval(k)?;
    if it.case_eq(&kv, v, pos)? {
        return Ok(true);
    }
    let (a, b) = (it.inspect_value(&kv)?, it.inspect_value(v)?);
    miss(why, format!("{a} === {b} does not return true"))
}

fn is_struct(v: &RValue) -> bool {
    matches!(v, RValue::Object(o) if o.class.ancestors().iter().any(|a| a.name_is("Struct")))
}

/// `v.deconstruct` for an array or find pattern, after its `Const(...)` (`None`: no
/// match): an Array's elements, a Struct's values, a user class's `deconstruct`.
fn deconstruct(
    it: &mut Interp,
    konst: Option<&Node>,
    v: &RValue,
    why: &mut Why,
    pos: Pos,
) -> Result<Option<Vec<RValue>>, Ctrl> {
    if !konst_matches(it, konst, v, why, pos)? {
        return Ok(None);
    }
    let r = match v {
        RValue::Array(a) => return Ok(Some(a.borrow().clone())),
        RValue::Object(_) if is_struct(v) || it.find_user_method(v, "deconstruct").is_some() => {
            it.call_method(v.clone(), "deconstruct", Vec::new(), None, pos)?
        }
        _ => {
            let shown = it.inspect_value(v)?;
            miss(why, format!("{shown} does not respond to #deconstruct"))?;
            return Ok(None);
        }
    };
    match r {
        RValue::Array(a) => Ok(Some(a.borrow().clone())),
        _ => raise("TypeError", "deconstruct must return Array", pos),
    }
}

/// `v.deconstruct_keys(keys)`: a Hash itself, a Struct's members by name, a user class's
/// `deconstruct_keys` (given the pattern's keys, or nil with `**rest`).
fn deconstruct_keys(
    it: &mut Interp,
    v: &RValue,
    keys: Option<&[&str]>,
    why: &mut Why,
    pos: Pos,
) -> Result<Option<RHash>, Ctrl> {
    match v {
        RValue::Hash(h) => return Ok(Some(h.borrow().clone())),
        RValue::Object(o)
            if is_struct(v) && it.find_user_method(v, "deconstruct_keys").is_none() =>
        {
            let mut out = RHash::default();
            let members = it.call_method(v.clone(), "members", Vec::new(), None, pos)?;
            if let RValue::Array(ms) = members {
                for m in ms.borrow().iter() {
                    let name = crate::value::to_s(m);
                    if keys.is_none_or(|ks| ks.contains(&name.as_str())) {
                        let x = o.ivars.borrow().get(&name).cloned().unwrap_or(RValue::Nil);
                        out.insert(RValue::sym(&name), x);
                    }
                }
            }
            return Ok(Some(out));
        }
        RValue::Object(_) if it.find_user_method(v, "deconstruct_keys").is_some() => {
            let arg = match keys {
                Some(ks) => RValue::array(ks.iter().map(|k| RValue::sym(k)).collect()),
                None => RValue::Nil,
            };
            return match it.call_method(v.clone(), "deconstruct_keys", vec![arg], None, pos)? {
                RValue::Hash(h) => Ok(Some(h.borrow().clone())),
                _ => raise("TypeError", "deconstruct_keys must return Hash", pos),
            };
        }
        _ => {}
    }
    let shown = it.inspect_value(v)?;
    miss(
        why,
        format!("{shown} does not respond to #deconstruct_keys"),
    )?;
    Ok(None)
}
