//! Ruby `Array`, `Hash` and `Enumerable` methods used by templates.
//!
//! Enumerable methods are written once over a list of items; a hash's items are its
//! `[key, value]` pairs, which blocks with two parameters destructure as Ruby does. Methods
//! that return a hash in Ruby (`Hash#select`, `Hash#reject`, `Hash#merge`...) do so here.

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::methods::{argc, int_arg, need_block, norm_index as norm};
use crate::object::Blk;
use crate::value::Shared;
use crate::value::{self, compare, equal, to_s, HKey, RHash, RValue};
use crate::Pos;
use std::cmp::Ordering;
use std::rc::Rc;

fn cmp_err(a: &RValue, b: &RValue, pos: Pos) -> Ctrl {
    Ctrl::Raise(Box::new(crate::interp::Exc {
        class: "ArgumentError".into(),
        file: None,
        obj: None,
        message: format!(
            "comparison of {} with {} failed",
            a.class_name(),
            match b {
                RValue::Nil
                | RValue::Bool(_)
                | RValue::Int(_)
                | RValue::Big(_)
                | RValue::Float(_)
                | RValue::Sym(_) => {
                    value::inspect(b)
                }
                other => other.class_name(),
            }
        ),
        pos,
    }))
}

/// Sorts with `<=>` or a comparison block; raises as Ruby on incomparable values.
/// A stable merge sort with a fallible comparison (a user block or `<=>` may raise). Unlike
/// the standard library's sorts it never panics on an inconsistent comparison.
pub(crate) fn merge_sort<T: Clone>(
    items: Vec<T>,
    cmp: &mut dyn FnMut(&T, &T) -> Result<Ordering, Ctrl>,
) -> Result<Vec<T>, Ctrl> {
    if items.len() <= 1 {
        return Ok(items);
    }
    // Sorts the positions (no copy of the items per level, one scratch buffer); the halves
    // and the comparisons are the textbook top-down ones, so a block sees the same calls in
    // the same order whatever the implementation.
    let mut order: Vec<usize> = (0..items.len()).collect();
    let mut scratch = Vec::with_capacity(items.len());
    sort_positions(&items, &mut order, &mut scratch, cmp)?;
    Ok(order.iter().map(|&i| items[i].clone()).collect())
}

/// [`merge_sort`] of `order` (positions in `items`): the first half (`len / 2`) and the
/// rest, each sorted, then merged (a tie takes the left one).
fn sort_positions<T>(
    items: &[T],
    order: &mut [usize],
    scratch: &mut Vec<usize>,
    cmp: &mut dyn FnMut(&T, &T) -> Result<Ordering, Ctrl>,
) -> Result<(), Ctrl> {
    let n = order.len();
    if n <= 1 {
        return Ok(());
    }
    let mid = n / 2;
    sort_positions(items, &mut order[..mid], scratch, cmp)?;
    sort_positions(items, &mut order[mid..], scratch, cmp)?;
    scratch.clear();
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if cmp(&items[order[i]], &items[order[j]])? == Ordering::Greater {
            scratch.push(order[j]);
            j += 1;
        } else {
            scratch.push(order[i]);
            i += 1;
        }
    }
    scratch.extend_from_slice(&order[i..mid]);
    scratch.extend_from_slice(&order[j..]);
    order.copy_from_slice(scratch);
    Ok(())
}

/// `a <=> b` as sorting uses it: user classes' `<=>`, else the built-in comparison.
pub(crate) fn compare_values(
    it: &mut Interp,
    a: &RValue,
    b: &RValue,
    pos: Pos,
) -> Result<Ordering, Ctrl> {
    if let RValue::Object(_) = a {
        return match it.call_method(a.clone(), "<=>", vec![b.clone()], None, pos)? {
            RValue::Int(i) => Ok(i.cmp(&0)),
            _ => Err(cmp_err(a, b, pos)),
        };
    }
    compare(a, b).ok_or_else(|| cmp_err(a, b, pos))
}

/// [`compare_values`] of the two commonest cases of a sort without a block, decided as it
/// decides them, with the same elements counted against the walk bound (one for two
/// strings; one for two arrays and one for their first elements): two strings, and two
/// arrays whose first elements are strings that differ (the `[key, value]` pairs of
/// `Hash#sort`). `None` for anything else, before counting anything (then
/// [`compare_values`] does all of it).
fn quick_compare(a: &RValue, b: &RValue, pos: Pos) -> Option<Result<Ordering, Ctrl>> {
    let order = match (a, b) {
        (RValue::Str(x), RValue::Str(y)) => {
            let (x, y) = (x.try_borrow().ok()?, y.try_borrow().ok()?);
            let o = x.as_bytes().cmp(y.as_bytes());
            return Some(match crate::value::walk_step() {
                true => Ok(o),
                false => Err(cmp_err(a, b, pos)),
            });
        }
        (RValue::Array(x), RValue::Array(y)) => {
            let (x, y) = (x.try_borrow().ok()?, y.try_borrow().ok()?);
            let (Some(RValue::Str(p)), Some(RValue::Str(q))) = (x.first(), y.first()) else {
                return None;
            };
            let (p, q) = (p.try_borrow().ok()?, q.try_borrow().ok()?);
            p.as_bytes().cmp(q.as_bytes())
        }
        _ => return None,
    };
    if order == Ordering::Equal {
        return None;
    }
    Some(
        match crate::value::walk_step() && crate::value::walk_step() {
            true => Ok(order),
            false => Err(cmp_err(a, b, pos)),
        },
    )
}

fn sort_items(
    it: &mut Interp,
    items: &mut [RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Result<(), Ctrl> {
    let sorted = merge_sort(items.to_vec(), &mut |a: &RValue, b: &RValue| match block {
        Some(bl) => match it.call_block(bl, vec![a.clone(), b.clone()], pos)? {
            RValue::Int(i) => Ok(i.cmp(&0)),
            _ => Err(cmp_err(a, b, pos)),
        },
        None => match quick_compare(a, b, pos) {
            Some(r) => r,
            None => compare_values(it, a, b, pos),
        },
    })?;
    for (slot, v) in items.iter_mut().zip(sorted) {
        *slot = v;
    }
    Ok(())
}

fn min_max(it: &mut Interp, items: &[RValue], want: Ordering, pos: Pos) -> R {
    let mut best: Option<RValue> = None;
    for x in items {
        best = Some(match best {
            None => x.clone(),
            Some(b) => {
                if compare_values(it, x, &b, pos)? == want {
                    x.clone()
                } else {
                    b
                }
            }
        });
    }
    Ok(best.unwrap_or(RValue::Nil))
}

fn flatten_into(items: &[RValue], depth: i64, out: &mut Vec<RValue>, guard: usize) {
    for x in items {
        if !crate::value::walk_step() {
            return;
        }
        match x {
            RValue::Array(a) if depth != 0 && guard < 64 => {
                let inner = a.borrow().clone();
                flatten_into(&inner, depth - 1, out, guard + 1);
            }
            other => out.push(other.clone()),
        }
    }
}

fn uniq_by(
    it: &mut Interp,
    items: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> Result<Vec<RValue>, Ctrl> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for x in items {
        let key = match block {
            Some(b) => it.call_block(b, vec![x.clone()], pos)?,
            None => x.clone(),
        };
        if seen.insert(HKey::of(&key)) {
            out.push(x);
        }
    }
    Ok(out)
}

fn pair_of(v: &RValue) -> (RValue, RValue) {
    match v {
        RValue::Array(a) => {
            let a = a.borrow();
            (
                a.first().cloned().unwrap_or(RValue::Nil),
                a.get(1).cloned().unwrap_or(RValue::Nil),
            )
        }
        other => (other.clone(), RValue::Nil),
    }
}

fn to_hash(items: &[RValue], pos: Pos) -> R {
    let mut h = RHash::default();
    for (i, x) in items.iter().enumerate() {
        match x {
            RValue::Array(a) if a.borrow().len() == 2 => {
                let (k, v) = pair_of(x);
                h.insert(k, v);
            }
            RValue::Array(a) => {
                return raise(
                    "ArgumentError",
                    format!(
                        "wrong array length at {i} (expected 2, was {})",
                        a.borrow().len()
                    ),
                    pos,
                )
            }
            other => {
                return raise(
                    "TypeError",
                    format!(
                        "wrong element type {} at {i} (expected array)",
                        other.class_name()
                    ),
                    pos,
                )
            }
        }
    }
    Ok(RValue::hash(h))
}

/// Enumerable methods shared by arrays, hashes and ranges. `None` when not handled.
fn enumerable(
    it: &mut Interp,
    items: Vec<RValue>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Result<Option<RValue>, Ctrl> {
    let r = match name {
        "map" | "collect" | "flat_map" | "collect_concat" => {
            let b = need_block(block, name, pos)?;
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                let v = it.call_block(b, vec![x], pos)?;
                if name == "flat_map" || name == "collect_concat" {
                    match &v {
                        RValue::Array(a) => out.extend(a.borrow().iter().cloned()),
                        _ => out.push(v),
                    }
                } else {
                    out.push(v);
                }
            }
            RValue::array(out)
        }
        "filter_map" => {
            let b = need_block(block, name, pos)?;
            let mut out = Vec::new();
            for x in items {
                let v = it.call_block(b, vec![x], pos)?;
                if v.truthy() {
                    out.push(v);
                }
            }
            RValue::array(out)
        }
        "select" | "filter" | "find_all" | "reject" => {
            let b = need_block(block, name, pos)?;
            let mut out = Vec::new();
            for x in items {
                let keep = it.call_block(b, vec![x.clone()], pos)?.truthy();
                if keep != (name == "reject") {
                    out.push(x);
                }
            }
            RValue::array(out)
        }
        "partition" => {
            let b = need_block(block, name, pos)?;
            let (mut yes, mut no) = (Vec::new(), Vec::new());
            for x in items {
                if it.call_block(b, vec![x.clone()], pos)?.truthy() {
                    yes.push(x);
                } else {
                    no.push(x);
                }
            }
            RValue::array(vec![RValue::array(yes), RValue::array(no)])
        }
        "find" | "detect" => {
            let b = need_block(block, name, pos)?;
            for x in items {
                if it.call_block(b, vec![x.clone()], pos)?.truthy() {
                    return Ok(Some(x));
                }
            }
            RValue::Nil
        }
        "find_index" | "index" => {
            for (i, x) in items.into_iter().enumerate() {
                let hit = match (args.first(), block) {
                    (Some(v), _) => elem_equal(it, &x, v, pos)?,
                    (None, Some(b)) => it.call_block(b, vec![x], pos)?.truthy(),
                    (None, None) => return unsupported("index without argument", pos).map(Some),
                };
                if hit {
                    return Ok(Some(RValue::Int(i as i64)));
                }
            }
            RValue::Nil
        }
        "any?" | "all?" | "none?" | "one?" => {
            let mut count = 0usize;
            let n = items.len();
            for x in items {
                let t = match (args.first(), block) {
                    (Some(p), _) => it.case_eq(p, &x, pos)?,
                    (None, Some(b)) => it.call_block(b, vec![x], pos)?.truthy(),
                    (None, None) => x.truthy(),
                };
                if t {
                    count += 1;
                    if name == "any?" {
                        return Ok(Some(RValue::Bool(true)));
                    }
                } else if name == "all?" {
                    return Ok(Some(RValue::Bool(false)));
                }
            }
            RValue::Bool(match name {
                "any?" => false,
                "all?" => count == n,
                "none?" => count == 0,
                _ => count == 1,
            })
        }
        "count" => {
            let mut c = 0;
            for x in items.iter() {
                let t = match (args.first(), block) {
                    (Some(v), _) => elem_equal(it, x, v, pos)?,
                    (None, Some(b)) => it.call_block(b, vec![x.clone()], pos)?.truthy(),
                    (None, None) => true,
                };
                if t {
                    c += 1;
                }
            }
            RValue::Int(c)
        }
        "each_with_index" => {
            let b = need_block(block, name, pos)?;
            for (i, x) in items.into_iter().enumerate() {
                it.call_block(b, vec![x, RValue::Int(i as i64)], pos)?;
            }
            return Ok(None);
        }
        "each_with_object" => {
            argc(args, 1, 1, pos)?;
            let b = need_block(block, name, pos)?;
            let memo = args[0].clone();
            for x in items {
                it.call_block(b, vec![x, memo.clone()], pos)?;
            }
            memo
        }
        "sum" => match args {
            [] => sum_items(it, RValue::Int(0), items, block, pos)?,
            [init] => sum_items(it, init.clone(), items, block, pos)?,
            _ => return unsupported(format!("{name} with these arguments"), pos).map(Some),
        },
        "inject" | "reduce" => {
            let (mut acc, op) = match (name, args, block) {
                ("sum", [], _) => (Some(RValue::Int(0)), None),
                ("sum", [init], _) => (Some(init.clone()), None),
                (_, [RValue::Sym(op)], None) => (None, Some(op.to_string())),
                (_, [init, RValue::Sym(op)], None) => (Some(init.clone()), Some(op.to_string())),
                (_, [init], Some(_)) => (Some(init.clone()), None),
                (_, [], Some(_)) => (None, None),
                _ => return unsupported(format!("{name} with these arguments"), pos).map(Some),
            };
            let sum_mode = name == "sum";
            for x in items {
                let x = if sum_mode {
                    match block {
                        Some(b) => it.call_block(b, vec![x], pos)?,
                        None => x,
                    }
                } else {
                    x
                };
                acc = Some(match acc {
                    None => x,
                    Some(a) => match (&op, block) {
                        (Some(op), _) => {
                            crate::methods::call_method(it, a, op, vec![x], None, pos)?
                        }
                        (None, Some(b)) if !sum_mode => it.call_block(b, vec![a, x], pos)?,
                        _ => crate::methods::call_method(it, a, "+", vec![x], None, pos)?,
                    },
                });
            }
            acc.unwrap_or(RValue::Nil)
        }
        "min" | "max" | "min_by" | "max_by" if !args.is_empty() => {
            // `max(n)`: the n largest, largest first (stable among equals).
            argc(args, 1, 1, pos)?;
            let n = int_arg(&args[0], pos)?;
            if n < 0 {
                return raise("ArgumentError", format!("negative size ({n})"), pos);
            }
            if n == 0 {
                return Ok(Some(RValue::array(vec![])));
            }
            let mut keyed = Vec::with_capacity(items.len());
            for x in items {
                let k = match (name, block) {
                    ("min_by" | "max_by", Some(b)) => it.call_block(b, vec![x.clone()], pos)?,
                    ("min_by" | "max_by", None) => {
                        return unsupported(format!("{name}(n) without a block"), pos)
                    }
                    _ => x.clone(),
                };
                keyed.push((k, x));
            }
            let want_max = name.starts_with("max");
            let mut sorted = merge_sort(
                keyed,
                &mut |(a, _): &(RValue, RValue), (b, _): &(RValue, RValue)| {
                    let o = match (name, block) {
                        ("min" | "max", Some(bl)) => {
                            match it.call_block(bl, vec![a.clone(), b.clone()], pos)? {
                                RValue::Int(i) => i.cmp(&0),
                                _ => return Err(cmp_err(a, b, pos)),
                            }
                        }
                        _ => compare_values(it, a, b, pos)?,
                    };
                    Ok(if want_max { o.reverse() } else { o })
                },
            )?;
            sorted.truncate(n as usize);
            RValue::array(sorted.into_iter().map(|(_, x)| x).collect())
        }
        "min" | "max" => {
            let want = if name == "min" {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            match block {
                Some(b) => {
                    let mut best: Option<RValue> = None;
                    for x in items {
                        best = Some(match best {
                            None => x,
                            Some(cur) => {
                                let c = it.call_block(b, vec![x.clone(), cur.clone()], pos)?;
                                match c {
                                    RValue::Int(i) if i.cmp(&0) == want => x,
                                    RValue::Int(_) => cur,
                                    _ => return Err(cmp_err(&x, &cur, pos)),
                                }
                            }
                        });
                    }
                    best.unwrap_or(RValue::Nil)
                }
                None => min_max(it, &items, want, pos)?,
            }
        }
        "min_by" | "max_by" | "sort_by" | "group_by" | "uniq_by" => {
            let b = need_block(block, name, pos)?;
            let mut keyed = Vec::with_capacity(items.len());
            for x in items {
                let k = it.call_block(b, vec![x.clone()], pos)?;
                keyed.push((k, x));
            }
            match name {
                "group_by" => {
                    let mut h = RHash::default();
                    for (k, x) in keyed {
                        match h.get(&k).cloned() {
                            Some(RValue::Array(a)) => a.borrow_mut().push(x),
                            _ => h.insert(k, RValue::array(vec![x])),
                        }
                    }
                    RValue::hash(h)
                }
                "sort_by" => {
                    let keyed = merge_sort(
                        keyed,
                        &mut |(a, _): &(RValue, RValue), (b, _): &(RValue, RValue)| {
                            compare_values(it, a, b, pos)
                        },
                    )?;
                    RValue::array(keyed.into_iter().map(|(_, x)| x).collect())
                }
                _ => {
                    let want = if name == "min_by" {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    };
                    let mut best: Option<(RValue, RValue)> = None;
                    for (k, x) in keyed {
                        best = Some(match best {
                            None => (k, x),
                            Some((bk, bx)) => {
                                if compare_values(it, &k, &bk, pos)? == want {
                                    (k, x)
                                } else {
                                    (bk, bx)
                                }
                            }
                        });
                    }
                    best.map(|(_, x)| x).unwrap_or(RValue::Nil)
                }
            }
        }
        "each_slice" | "each_cons" => {
            argc(args, 1, 1, pos)?;
            let n = int_arg(&args[0], pos)?;
            if n <= 0 {
                return raise("ArgumentError", "invalid slice size", pos);
            }
            let n = n as usize;
            let groups: Vec<RValue> = if name == "each_slice" {
                items.chunks(n).map(|c| RValue::array(c.to_vec())).collect()
            } else {
                items
                    .windows(n)
                    .map(|c| RValue::array(c.to_vec()))
                    .collect()
            };
            match block {
                Some(b) => {
                    for g in groups {
                        it.call_block(b, vec![g], pos)?;
                    }
                    RValue::Nil
                }
                None => RValue::array(groups),
            }
        }
        "to_a" | "entries" => RValue::array(items),
        "to_h" => {
            if let Some(b) = block {
                let mut mapped = Vec::new();
                for x in items {
                    mapped.push(it.call_block(b, vec![x], pos)?);
                }
                to_hash(&mapped, pos)?
            } else {
                to_hash(&items, pos)?
            }
        }
        "include?" | "member?" => {
            argc(args, 1, 1, pos)?;
            let mut found = false;
            for x in items.iter() {
                if elem_equal(it, x, &args[0], pos)? {
                    found = true;
                    break;
                }
            }
            RValue::Bool(found)
        }
        "take_while" | "drop_while" => {
            let b = need_block(block, name, pos)?;
            let mut i = 0;
            while i < items.len() {
                if !it.call_block(b, vec![items[i].clone()], pos)?.truthy() {
                    break;
                }
                i += 1;
            }
            if name == "take_while" {
                RValue::array(items[..i].to_vec())
            } else {
                RValue::array(items[i..].to_vec())
            }
        }
        "grep" | "grep_v" => {
            argc(args, 1, 1, pos)?;
            let mut out = Vec::new();
            for x in items {
                if it.case_eq(&args[0], &x, pos)? != (name == "grep_v") {
                    out.push(match block {
                        Some(b) => it.call_block(b, vec![x], pos)?,
                        None => x,
                    });
                }
            }
            RValue::array(out)
        }
        "tally" => {
            let mut h = RHash::default();
            for x in items {
                let n = match h.get(&x) {
                    Some(RValue::Int(n)) => n + 1,
                    _ => 1,
                };
                h.insert(x, RValue::Int(n));
            }
            RValue::hash(h)
        }
        "minmax" => RValue::array(vec![
            min_max(it, &items, Ordering::Less, pos)?,
            min_max(it, &items, Ordering::Greater, pos)?,
        ]),
        "zip" => {
            let others: Vec<Vec<RValue>> = args
                .iter()
                .map(|a| crate::methods::splat_items(it, a, pos))
                .collect::<Result<_, _>>()?;
            let rows: Vec<RValue> = items
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let mut row = vec![x];
                    for o in &others {
                        row.push(o.get(i).cloned().unwrap_or(RValue::Nil));
                    }
                    RValue::array(row)
                })
                .collect();
            // With a block: each row is yielded, and the answer is nil.
            if let Some(b) = block {
                for r in rows {
                    it.call_block(b, vec![r], pos)?;
                }
                return Ok(Some(RValue::Nil));
            }
            RValue::array(rows)
        }
        "sort" => {
            let mut items = items;
            sort_items(it, &mut items, block, pos)?;
            RValue::array(items)
        }
        "uniq" => RValue::array(uniq_by(it, items, block, pos)?),
        "first" => match args.first() {
            None => items.into_iter().next().unwrap_or(RValue::Nil),
            Some(n) => {
                let n = int_arg(n, pos)?;
                if n < 0 {
                    return raise("ArgumentError", "attempt to take negative size", pos);
                }
                RValue::array(items.into_iter().take(n as usize).collect())
            }
        },
        "reverse_each" => {
            let b = need_block(block, name, pos)?;
            for x in items.into_iter().rev() {
                it.call_block(b, vec![x], pos)?;
            }
            return Ok(None);
        }
        "each_entry" => return Ok(None),
        // The runs of neighbours the block joins (`chunk_while`) or does not split
        // (`slice_when`), as an enumerator over the arrays.
        "chunk_while" | "slice_when" => {
            let b = need_block(block, name, pos)?;
            let mut chunks: Vec<RValue> = Vec::new();
            let mut cur: Vec<RValue> = Vec::new();
            for x in items {
                if let Some(last) = cur.last().cloned() {
                    let r = it.call_block(b, vec![last, x.clone()], pos)?.truthy();
                    if r != (name == "chunk_while") {
                        chunks.push(RValue::array(std::mem::take(&mut cur)));
                    }
                }
                cur.push(x);
            }
            if !cur.is_empty() {
                chunks.push(RValue::array(cur));
            }
            crate::kernel::make_enumerator(it, RValue::array(chunks), "each", Vec::new())
        }
        // Runs of elements with the same block value, as `[value, [elements]]`; `nil` and
        // `:_separator` drop the element, `:_alone` makes a run of its own.
        "chunk" => {
            let b = need_block(block, name, pos)?;
            let mut chunks: Vec<RValue> = Vec::new();
            let mut cur: Option<(RValue, Vec<RValue>)> = None;
            for x in items {
                let key = it.call_block(b, vec![x.clone()], pos)?;
                let flush = |cur: &mut Option<(RValue, Vec<RValue>)>, chunks: &mut Vec<RValue>| {
                    if let Some((k, v)) = cur.take() {
                        chunks.push(RValue::array(vec![k, RValue::array(v)]));
                    }
                };
                let sym = |s: &str| matches!(&key, RValue::Sym(k) if &**k == s);
                if matches!(key, RValue::Nil) || sym("_separator") {
                    flush(&mut cur, &mut chunks);
                    continue;
                }
                if sym("_alone") {
                    flush(&mut cur, &mut chunks);
                    chunks.push(RValue::array(vec![key, RValue::array(vec![x])]));
                    continue;
                }
                match &mut cur {
                    Some((k, v)) if equal(k, &key) => v.push(x),
                    _ => {
                        flush(&mut cur, &mut chunks);
                        cur = Some((key, vec![x]));
                    }
                }
            }
            if let Some((k, v)) = cur {
                chunks.push(RValue::array(vec![k, RValue::array(v)]));
            }
            crate::kernel::make_enumerator(it, RValue::array(chunks), "each", Vec::new())
        }
        // A new slice starts at (`slice_before`) or after (`slice_after`) each element the
        // block, or the pattern's `===`, selects.
        "slice_before" | "slice_after" => {
            let pattern = match (args.first(), block) {
                (Some(p), None) if args.len() == 1 => Some(p.clone()),
                (None, Some(_)) => None,
                _ => {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (given 0, expected 1)",
                        pos,
                    )
                    .map(Some)
                }
            };
            let mut chunks: Vec<RValue> = Vec::new();
            let mut cur: Vec<RValue> = Vec::new();
            for x in items {
                let hit = match (&pattern, block) {
                    (Some(p), _) => it.call_method(p.clone(), "===", vec![x.clone()], None, pos)?,
                    (None, Some(b)) => it.call_block(b, vec![x.clone()], pos)?,
                    (None, None) => RValue::Nil,
                }
                .truthy();
                if name == "slice_before" && hit && !cur.is_empty() {
                    chunks.push(RValue::array(std::mem::take(&mut cur)));
                }
                cur.push(x);
                if name == "slice_after" && hit {
                    chunks.push(RValue::array(std::mem::take(&mut cur)));
                }
            }
            if !cur.is_empty() {
                chunks.push(RValue::array(cur));
            }
            crate::kernel::make_enumerator(it, RValue::array(chunks), "each", Vec::new())
        }
        // `cycle(n)` / `cycle` with a block (forever, until the block breaks; nil for no
        // items); without a block, `cycle(n)` enumerates the repeated items. An endless
        // enumerator (`cycle` with neither) is not supported.
        "cycle" => {
            let times = match args.first() {
                None | Some(RValue::Nil) => None,
                Some(n) => Some(int_arg(n, pos)?.max(0)),
            };
            match (block, times) {
                (Some(b), _) => {
                    let mut round = 0;
                    while !items.is_empty() && times.is_none_or(|t| round < t) {
                        for x in &items {
                            it.call_block(b, vec![x.clone()], pos)?;
                        }
                        round += 1;
                    }
                    RValue::Nil
                }
                (None, Some(t)) => {
                    let mut all = Vec::with_capacity(items.len() * t as usize);
                    for _ in 0..t {
                        all.extend(items.iter().cloned());
                    }
                    crate::kernel::make_enumerator(it, RValue::array(all), "each", Vec::new())
                }
                (None, None) => {
                    return unsupported("Enumerable#cycle without a block or a count", pos)
                        .map(Some)
                }
            }
        }
        "minmax_by" => {
            let b = need_block(block, name, pos)?;
            let mut keyed = Vec::with_capacity(items.len());
            for x in items {
                keyed.push((it.call_block(b, vec![x.clone()], pos)?, x));
            }
            let mut best: [Option<(RValue, RValue)>; 2] = [None, None];
            for (k, x) in keyed {
                for (slot, want) in best.iter_mut().zip([Ordering::Less, Ordering::Greater]) {
                    let better = match slot {
                        None => true,
                        Some((bk, _)) => compare_values(it, &k, bk, pos)? == want,
                    };
                    if better {
                        *slot = Some((k.clone(), x.clone()));
                    }
                }
            }
            let [lo, hi] = best.map(|b| b.map_or(RValue::Nil, |(_, x)| x));
            RValue::array(vec![lo, hi])
        }
        "lazy" | "each_entry_x" => return unsupported(format!("Enumerable#{name}"), pos).map(Some),
        _ => return Ok(None),
    };
    Ok(Some(r))
}

/// Dispatches an Array method.
pub fn array_method(
    it: &mut Interp,
    recv: &RValue,
    cell: &Rc<Shared<Vec<RValue>>>,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    if matches!(
        name,
        "uniq"
            | "uniq!"
            | "|"
            | "&"
            | "-"
            | "union"
            | "difference"
            | "intersection"
            | "intersect?"
            | "to_set"
            | "tally"
            | "to_h"
    ) {
        let objects: Vec<RValue> = cell
            .borrow()
            .iter()
            .chain(args.iter())
            .filter(|x| matches!(x, RValue::Object(_) | RValue::Array(_)))
            .cloned()
            .collect();
        crate::kernel::prepare_keys(it, &objects, pos)?;
    }
    // Methods that touch one element do not copy the array.
    {
        let len = cell.borrow().len();
        let at = |i: i64| norm(i, len).filter(|i| *i < len);
        match (name, args.as_slice()) {
            ("<<" | "push" | "append", [_]) => {
                it.charge(16, pos)?;
                cell.borrow_mut().extend(args);
                return Ok(recv.clone());
            }
            ("length" | "size", []) => return Ok(RValue::Int(len as i64)),
            ("lazy", []) => return Ok(crate::library::lazy_of(it, recv.clone())),
            ("empty?", []) => return Ok(RValue::Bool(len == 0)),
            // `equal` runs no Ruby code: the elements are compared where they are (a user
            // object's `==` takes the general path).
            ("include?" | "member?", [x])
                if !cell.borrow().iter().any(|y| matches!(y, RValue::Object(_))) =>
            {
                return Ok(RValue::Bool(cell.borrow().iter().any(|y| equal(y, x))))
            }
            ("pop", []) => return Ok(cell.borrow_mut().pop().unwrap_or(RValue::Nil)),
            ("first", []) => return Ok(cell.borrow().first().cloned().unwrap_or(RValue::Nil)),
            ("last", []) => return Ok(cell.borrow().last().cloned().unwrap_or(RValue::Nil)),
            ("[]" | "at", [RValue::Int(i)]) => {
                return Ok(at(*i)
                    .and_then(|i| cell.borrow().get(i).cloned())
                    .unwrap_or(RValue::Nil))
            }
            ("[]=", [RValue::Int(i), v]) if at(*i).is_some() => {
                if let Some(i) = at(*i) {
                    cell.borrow_mut()[i] = v.clone();
                }
                return Ok(v.clone());
            }
            _ => {}
        }
    }
    let items = cell.borrow().clone();
    let len = items.len();
    if block.is_none() {
        // Enumerators: what the chained method sees is the sequence of yielded values.
        match name {
            "each" | "map" | "collect" | "each_entry" | "select" | "filter" | "reject" => {
                return Ok(RValue::array(items))
            }
            "each_with_index" | "each_with_index_map" => {
                return Ok(RValue::array(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, x)| RValue::array(vec![x, RValue::Int(i as i64)]))
                        .collect(),
                ))
            }
            _ => {}
        }
    }
    match name {
        "each" => {
            let b = need_block(block, name, pos)?;
            let mut i = 0;
            // Ruby re-reads the length each step, so appends during iteration are seen.
            loop {
                let x = match cell.borrow().get(i) {
                    Some(x) => x.clone(),
                    None => break,
                };
                it.call_block(b, vec![x], pos)?;
                i += 1;
            }
            return Ok(recv.clone());
        }
        "each_index" => {
            let b = need_block(block, name, pos)?;
            for i in 0..len {
                it.call_block(b, vec![RValue::Int(i as i64)], pos)?;
            }
            return Ok(recv.clone());
        }
        "length" | "size" => return Ok(RValue::Int(len as i64)),
        "empty?" => return Ok(RValue::Bool(len == 0)),
        "any?" if args.is_empty() && block.is_none() => {
            return Ok(RValue::Bool(items.iter().any(|x| x.truthy())))
        }
        "join" if needs_dispatch(&items) => {
            // Objects (a user class's `to_s`) and hashes (`inspect`) turned into their texts
            // through Ruby's dispatch first.
            let shown = RValue::array(show_items(it, &items, 0, pos)?);
            let RValue::Array(c) = &shown else {
                return Ok(RValue::Nil);
            };
            return array_method(it, &shown, c, name, args, block, pos);
        }
        "join" => {
            argc(&args, 0, 1, pos)?;
            let sep = match args.first() {
                None | Some(RValue::Nil) => String::new(),
                Some(RValue::Str(s)) => s.borrow().clone(),
                Some(other) => return crate::interp::no_implicit_conversion(other, "String", pos),
            };
            let binary = join_encoding(&items, args.first(), pos)?;
            let mut out = String::new();
            join_into(&items, &sep, &mut out, 0);
            let joined = RValue::string(out);
            if let (true, RValue::Str(s)) = (binary, &joined) {
                s.set_binary();
            }
            return Ok(joined);
        }
        "[]" | "slice" => {
            argc(&args, 1, 2, pos)?;
            return match args.as_slice() {
                [RValue::Int(i)] => Ok(norm(*i, len)
                    .and_then(|i| items.get(i).cloned())
                    .unwrap_or(RValue::Nil)),
                [RValue::Float(f)] => Ok(norm(f.trunc() as i64, len)
                    .and_then(|i| items.get(i).cloned())
                    .unwrap_or(RValue::Nil)),
                [RValue::Range(_)] | [_, _] => Ok(match slice(&args, len, pos)? {
                    Some((s, n)) => RValue::array(items[s..s + n].to_vec()),
                    None => RValue::Nil,
                }),
                [other] => crate::interp::no_implicit_conversion(other, "Integer", pos),
                _ => unsupported("Array#[] with these arguments", pos),
            };
        }
        "[]=" => {
            if args.len() == 3 || matches!(args.as_slice(), [RValue::Range(_), _]) {
                return splice(cell, &args, len, pos);
            }
            argc(&args, 2, 3, pos)?;
            let i = int_arg(&args[0], pos)?;
            let Some(i) = norm(i, len) else {
                return raise(
                    "IndexError",
                    format!("index {i} too small for array; minimum: {}", -(len as i64)),
                    pos,
                );
            };
            if i > 1_000_000 {
                return unsupported("array index above one million", pos);
            }
            let mut a = cell.borrow_mut();
            while a.len() <= i {
                a.push(RValue::Nil);
            }
            a[i] = args[1].clone();
            return Ok(args[1].clone());
        }
        "at" => {
            argc(&args, 1, 1, pos)?;
            let i = int_arg(&args[0], pos)?;
            return Ok(norm(i, len)
                .and_then(|i| items.get(i).cloned())
                .unwrap_or(RValue::Nil));
        }
        "dig" => return dig(it, recv, args, pos),
        "fetch" => {
            argc(&args, 1, 2, pos)?;
            let i = int_arg(&args[0], pos)?;
            return match norm(i, len).and_then(|j| items.get(j).cloned()) {
                Some(v) => Ok(v),
                None => match (args.get(1), block) {
                    (_, Some(b)) => it.call_block(b, vec![args[0].clone()], pos),
                    (Some(d), None) => Ok(d.clone()),
                    _ => raise(
                        "IndexError",
                        format!(
                            "index {i} outside of array bounds: {}...{}",
                            -(len as i64),
                            len
                        ),
                        pos,
                    ),
                },
            };
        }
        "first" if matches!(args.first(), Some(RValue::Int(n)) if *n < 0) => {
            // Array's own message (Enumerable#first says "attempt to take negative size").
            return raise("ArgumentError", "negative array size", pos);
        }
        "last" => {
            return match args.first() {
                None => Ok(items.last().cloned().unwrap_or(RValue::Nil)),
                Some(n) => {
                    let n = int_arg(n, pos)?;
                    if n < 0 {
                        return raise("ArgumentError", "negative array size", pos);
                    }
                    let n = (n as usize).min(len);
                    Ok(RValue::array(items[len - n..].to_vec()))
                }
            }
        }
        "values_at" => {
            let mut out = Vec::new();
            for a in &args {
                if let RValue::Range(r) = a {
                    // Ruby's `rb_range_beg_len` with its end not cut at the array's: the
                    // positions past the end give nil.
                    let b = match &r.0 {
                        RValue::Nil => 0,
                        x => int_arg(x, pos)?,
                    };
                    let s = if b < 0 { b + len as i64 } else { b };
                    if s < 0 {
                        return raise(
                            "RangeError",
                            format!("{} out of range", value::inspect(a)),
                            pos,
                        );
                    }
                    let e = match &r.1 {
                        RValue::Nil => len as i64,
                        x => {
                            let e = int_arg(x, pos)?;
                            let e = if e < 0 { e + len as i64 } else { e };
                            if r.2 {
                                e
                            } else {
                                e.saturating_add(1)
                            }
                        }
                    };
                    if e.saturating_sub(s) > 1_000_000 {
                        return unsupported("values_at of more than a million positions", pos);
                    }
                    for j in s..e.max(s) {
                        out.push(items.get(j as usize).cloned().unwrap_or(RValue::Nil));
                    }
                    continue;
                }
                let i = int_arg(a, pos)?;
                out.push(
                    norm(i, len)
                        .and_then(|i| items.get(i).cloned())
                        .unwrap_or(RValue::Nil),
                );
            }
            return Ok(RValue::array(out));
        }
        "take" | "drop" => {
            argc(&args, 1, 1, pos)?;
            let n = int_arg(&args[0], pos)?;
            if n < 0 {
                return raise(
                    "ArgumentError",
                    format!("attempt to {name} negative size"),
                    pos,
                );
            }
            let n = (n as usize).min(len);
            return Ok(RValue::array(if name == "take" {
                items[..n].to_vec()
            } else {
                items[n..].to_vec()
            }));
        }
        "<<" | "push" | "append" => {
            if name == "<<" {
                argc(&args, 1, 1, pos)?;
            }
            it.charge(16 * args.len(), pos)?;
            cell.borrow_mut().extend(args);
            return Ok(recv.clone());
        }
        "unshift" | "prepend" => {
            it.charge(16 * args.len(), pos)?;
            let mut a = cell.borrow_mut();
            for (i, x) in args.into_iter().enumerate() {
                a.insert(i, x);
            }
            return Ok(recv.clone());
        }
        "insert" => {
            if args.is_empty() {
                return raise("ArgumentError", "wrong number of arguments", pos);
            }
            let i = int_arg(&args[0], pos)?;
            let Some(i) = norm(i, len + 1) else {
                return raise(
                    "IndexError",
                    format!("index {i} too small for array; minimum: -{}", len + 1),
                    pos,
                );
            };
            it.charge(16 * (args.len() + i.saturating_sub(len)), pos)?;
            let mut a = cell.borrow_mut();
            while a.len() < i {
                a.push(RValue::Nil);
            }
            for (k, x) in args.into_iter().skip(1).enumerate() {
                a.insert(i + k, x);
            }
            return Ok(recv.clone());
        }
        "pop" | "shift" => {
            let mut a = cell.borrow_mut();
            return Ok(if name == "pop" {
                a.pop().unwrap_or(RValue::Nil)
            } else if a.is_empty() {
                RValue::Nil
            } else {
                a.remove(0)
            });
        }
        "concat" => {
            let mut add = Vec::new();
            for a in &args {
                match a {
                    RValue::Array(x) => add.extend(x.borrow().iter().cloned()),
                    other => return crate::interp::no_implicit_conversion(other, "Array", pos),
                }
            }
            it.charge(16 * add.len(), pos)?;
            cell.borrow_mut().extend(add);
            return Ok(recv.clone());
        }
        "delete" => {
            argc(&args, 1, 1, pos)?;
            let before = len;
            let snapshot = cell.borrow().clone();
            let mut keep = Vec::with_capacity(snapshot.len());
            for x in &snapshot {
                keep.push(!elem_equal(it, x, &args[0], pos)?);
            }
            let mut flags = keep.into_iter();
            cell.borrow_mut().retain(|_| flags.next().unwrap_or(true));
            return Ok(if cell.borrow().len() == before {
                RValue::Nil
            } else {
                args[0].clone()
            });
        }
        "slice!" => {
            // The part `slice` gives, removed from the array.
            argc(&args, 1, 2, pos)?;
            let part =
                crate::methods::call_method(it, recv.clone(), "slice", args.clone(), None, pos)?;
            let (start, count) = match (args.as_slice(), &part) {
                (_, RValue::Nil) => return Ok(RValue::Nil),
                ([RValue::Int(i)], _) => (norm(*i, len).unwrap_or(0), 1),
                ([RValue::Int(i), _], RValue::Array(p)) => {
                    (norm(*i, len).unwrap_or(0), p.borrow().len())
                }
                ([RValue::Range(r)], RValue::Array(p)) => (
                    match &r.0 {
                        RValue::Nil => 0,
                        v => norm(int_arg(v, pos)?, len).unwrap_or(0),
                    },
                    p.borrow().len(),
                ),
                _ => return unsupported("Array#slice! with these arguments", pos),
            };
            let end = (start + count).min(cell.borrow().len());
            cell.borrow_mut().drain(start..end);
            return Ok(part);
        }
        "rindex" => {
            argc(&args, 0, 1, pos)?;
            for (i, x) in items.iter().enumerate().rev() {
                let hit = match (args.first(), block) {
                    (Some(v), _) => elem_equal(it, x, v, pos)?,
                    (None, Some(b)) => it.call_block(b, vec![x.clone()], pos)?.truthy(),
                    (None, None) => return unsupported("rindex without argument", pos),
                };
                if hit {
                    return Ok(RValue::Int(i as i64));
                }
            }
            return Ok(RValue::Nil);
        }
        "delete_at" => {
            argc(&args, 1, 1, pos)?;
            let i = int_arg(&args[0], pos)?;
            return Ok(match norm(i, len) {
                Some(i) if i < len => cell.borrow_mut().remove(i),
                _ => RValue::Nil,
            });
        }
        "delete_if" | "reject!" | "select!" | "filter!" | "keep_if" | "map!" | "collect!"
        | "sort!" | "sort_by!" | "uniq!" | "compact!" | "flatten!" | "reverse!" | "shuffle!"
        | "rotate!" => {
            let base = match name {
                "delete_if" => "reject",
                "keep_if" | "filter!" => "select",
                n => &n[..n.len() - 1],
            };
            let r = array_method(it, recv, cell, base, args, block, pos)?;
            if let RValue::Array(new) = r {
                let new = new.borrow().clone();
                let changed =
                    new.len() != len || !new.iter().zip(items.iter()).all(|(a, b)| equal(a, b));
                *cell.borrow_mut() = new;
                if !changed
                    && matches!(
                        name,
                        "reject!" | "select!" | "filter!" | "uniq!" | "compact!" | "flatten!"
                    )
                {
                    return Ok(RValue::Nil);
                }
            }
            return Ok(recv.clone());
        }
        "clear" => {
            cell.borrow_mut().clear();
            return Ok(recv.clone());
        }
        "replace" => {
            argc(&args, 1, 1, pos)?;
            let new = crate::methods::splat_items(it, &args[0], pos)?;
            *cell.borrow_mut() = new;
            return Ok(recv.clone());
        }
        "compact" => {
            return Ok(RValue::array(
                items
                    .into_iter()
                    .filter(|x| !matches!(x, RValue::Nil))
                    .collect(),
            ))
        }
        "flatten" => {
            let depth = match args.first() {
                Some(d) => int_arg(d, pos)?,
                None => -1,
            };
            let mut out = Vec::new();
            flatten_into(&items, depth, &mut out, 0);
            return Ok(RValue::array(out));
        }
        "reverse" => return Ok(RValue::array(items.into_iter().rev().collect())),
        "rotate" => {
            let n = match args.first() {
                Some(n) => int_arg(n, pos)?,
                None => 1,
            };
            if len == 0 {
                return Ok(RValue::array(items));
            }
            let k = n.rem_euclid(len as i64) as usize;
            let mut v = items;
            v.rotate_left(k);
            return Ok(RValue::array(v));
        }
        "+" => {
            argc(&args, 1, 1, pos)?;
            let RValue::Array(o) = &args[0] else {
                return crate::interp::no_implicit_conversion(&args[0], "Array", pos);
            };
            let mut v = items;
            v.extend(o.borrow().iter().cloned());
            it.charge(16 * v.len(), pos)?;
            return Ok(RValue::array(v));
        }
        "-" | "&" | "|" | "difference" | "union" | "intersection" | "intersect?" => {
            // The operators take one array; `difference`, `union` and `intersection` any
            // number, applied in turn (`union()` is `uniq`).
            if name.len() == 1 || name == "intersect?" {
                argc(&args, 1, 1, pos)?;
            }
            let mut v = items;
            if name == "union" && args.is_empty() {
                v = uniq_by(it, v, None, pos)?;
            }
            for a in &args {
                let RValue::Array(o) = a else {
                    return crate::interp::no_implicit_conversion(a, "Array", pos);
                };
                let other = o.borrow().clone();
                let keys: std::collections::HashSet<HKey> = other.iter().map(HKey::of).collect();
                v = match name {
                    "-" | "difference" => v
                        .into_iter()
                        .filter(|x| !keys.contains(&HKey::of(x)))
                        .collect(),
                    "intersect?" => {
                        return Ok(RValue::Bool(v.iter().any(|x| keys.contains(&HKey::of(x)))))
                    }
                    "&" | "intersection" => uniq_by(
                        it,
                        v.into_iter()
                            .filter(|x| keys.contains(&HKey::of(x)))
                            .collect(),
                        None,
                        pos,
                    )?,
                    _ => {
                        v.extend(other);
                        uniq_by(it, v, None, pos)?
                    }
                };
            }
            return Ok(RValue::array(v));
        }
        "fill" => {
            // `fill(obj)`, `fill(obj, start[, length])`, `fill { |i| }`, `fill(start) { |i| }`.
            let (value, rest) = match block {
                Some(_) => (None, &args[..]),
                None if !args.is_empty() => (Some(args[0].clone()), &args[1..]),
                None => return argc(&args, 1, 3, pos).map(|_| RValue::Nil),
            };
            let start = match rest.first() {
                None | Some(RValue::Nil) => 0,
                Some(v) => norm(int_arg(v, pos)?, len).unwrap_or(0),
            };
            let end = match rest.get(1) {
                None | Some(RValue::Nil) => len,
                Some(n) => start + int_arg(n, pos)?.max(0) as usize,
            };
            it.charge(16 * end.saturating_sub(len), pos)?;
            for i in start..end {
                let x = match (&value, block) {
                    (Some(v), _) => v.clone(),
                    (None, Some(b)) => it.call_block(b, vec![RValue::Int(i as i64)], pos)?,
                    (None, None) => RValue::Nil,
                };
                let mut a = cell.borrow_mut();
                if i < a.len() {
                    a[i] = x;
                } else {
                    a.resize(i, RValue::Nil);
                    a.push(x);
                }
            }
            return Ok(recv.clone());
        }
        "*" => {
            argc(&args, 1, 1, pos)?;
            return match &args[0] {
                RValue::Str(sep) => {
                    let mut out = String::new();
                    join_into(&items, &sep.borrow(), &mut out, 0);
                    Ok(RValue::string(out))
                }
                other => {
                    let n = int_arg(other, pos)?;
                    if n < 0 {
                        return raise("ArgumentError", "negative argument", pos);
                    }
                    it.charge((n as usize).saturating_mul(len).saturating_mul(16), pos)?;
                    let mut v = Vec::new();
                    for _ in 0..n {
                        v.extend(items.iter().cloned());
                    }
                    Ok(RValue::array(v))
                }
            };
        }
        "<=>" => {
            argc(&args, 1, 1, pos)?;
            return Ok(match compare(recv, &args[0]) {
                Some(o) => RValue::Int(o as i64),
                None => RValue::Nil,
            });
        }
        "transpose" => {
            let mut rows: Vec<Vec<RValue>> = Vec::with_capacity(items.len());
            for x in items.iter() {
                match x {
                    RValue::Array(a) => rows.push(a.borrow().clone()),
                    RValue::Object(_) => rows.push(crate::methods::splat_items(it, x, pos)?),
                    other => return crate::interp::no_implicit_conversion(other, "Array", pos),
                }
            }
            let Some(w) = rows.first().map(Vec::len) else {
                return Ok(RValue::array(vec![]));
            };
            if rows.iter().any(|r| r.len() != w) {
                return raise(
                    "IndexError",
                    format!(
                        "element size differs ({} should be {w})",
                        rows.iter().map(Vec::len).find(|l| *l != w).unwrap_or(0)
                    ),
                    pos,
                );
            }
            return Ok(RValue::array(
                (0..w)
                    .map(|c| RValue::array(rows.iter().map(|r| r[c].clone()).collect()))
                    .collect(),
            ));
        }
        "product" => {
            let mut acc: Vec<Vec<RValue>> = items.into_iter().map(|x| vec![x]).collect();
            for a in &args {
                let other = crate::methods::splat_items(it, a, pos)?;
                if acc.len().saturating_mul(other.len()) > 1_000_000 {
                    return unsupported("product larger than a million", pos);
                }
                let mut next = Vec::new();
                for row in &acc {
                    for x in &other {
                        let mut r = row.clone();
                        r.push(x.clone());
                        next.push(r);
                    }
                }
                acc = next;
            }
            return Ok(RValue::array(acc.into_iter().map(RValue::array).collect()));
        }
        "combination" | "permutation" | "repeated_combination" | "repeated_permutation" => {
            argc(&args, 0, 1, pos)?;
            let perm = name.ends_with("permutation");
            let repeat = name.starts_with("repeated_");
            let n = match args.first() {
                Some(v) => int_arg(v, pos)?,
                None if name == "permutation" => items.len() as i64,
                None => {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (given 0, expected 1)",
                        pos,
                    )
                }
            };
            let mut out: Vec<RValue> = Vec::new();
            if n >= 0 && (repeat || (n as usize) <= items.len()) && (n == 0 || !items.is_empty()) {
                let n = n as usize;
                let mut idx: Vec<usize> = Vec::new();
                // Index tuples in Ruby's order: a permutation takes any index (not one
                // already taken unless `repeat`), a combination none before the last one
                // (nor the last one itself unless `repeat`).
                fn walk(
                    items: &[RValue],
                    n: usize,
                    (perm, repeat): (bool, bool),
                    idx: &mut Vec<usize>,
                    out: &mut Vec<RValue>,
                ) {
                    if out.len() > 1_000_000 {
                        return;
                    }
                    if idx.len() == n {
                        out.push(RValue::array(
                            idx.iter().map(|&i| items[i].clone()).collect(),
                        ));
                        return;
                    }
                    let start = match idx.last() {
                        _ if perm => 0,
                        Some(&l) if repeat => l,
                        Some(&l) => l + 1,
                        None => 0,
                    };
                    for i in start..items.len() {
                        if perm && !repeat && idx.contains(&i) {
                            continue;
                        }
                        idx.push(i);
                        walk(items, n, (perm, repeat), idx, out);
                        idx.pop();
                    }
                }
                walk(&items, n, (perm, repeat), &mut idx, &mut out);
            }
            it.charge(out.len() * 16, pos)?;
            return match block {
                Some(b) => {
                    for c in out {
                        it.call_block(b, vec![c], pos)?;
                    }
                    Ok(recv.clone())
                }
                None => Ok(RValue::array(out)),
            };
        }
        "sample" | "shuffle" => {
            return match crate::library::random_kwarg(&args, pos)? {
                Some(rng) => crate::library::shuffle(&items, &rng, name == "sample", pos),
                None => crate::library::shuffle_default(&items, name == "sample"),
            }
        }
        "pack" => return crate::pack::pack(&items, &args, pos),
        "bsearch" | "bsearch_index" => {
            // Find-minimum mode (the block answers true/false/nil) or find-any mode (it
            // answers a number: 0 found, positive look right, negative look left).
            let b = need_block(block, name, pos)?;
            let (mut lo, mut hi) = (0usize, items.len());
            let mut found = None;
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                let go_left = match it.call_block(b, vec![items[mid].clone()], pos)? {
                    RValue::Bool(true) => {
                        found = Some(mid);
                        true
                    }
                    RValue::Bool(false) | RValue::Nil => false,
                    RValue::Int(0) => {
                        found = Some(mid);
                        break;
                    }
                    RValue::Int(n) => n < 0,
                    RValue::Float(0.0) => {
                        found = Some(mid);
                        break;
                    }
                    RValue::Float(f) => f < 0.0,
                    v => {
                        return raise(
                            "TypeError",
                            format!(
                                "wrong argument type {} (must be numeric, true, false or nil)",
                                v.class_name()
                            ),
                            pos,
                        )
                    }
                };
                if go_left {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return Ok(match found {
                Some(i) if name == "bsearch" => items[i].clone(),
                Some(i) => RValue::Int(i as i64),
                None => RValue::Nil,
            });
        }
        "assoc" | "rassoc" => {
            argc(&args, 1, 1, pos)?;
            let at = usize::from(name == "rassoc");
            for x in &items {
                if let RValue::Array(a) = x {
                    if a.borrow().get(at).is_some_and(|k| equal(k, &args[0])) {
                        return Ok(x.clone());
                    }
                }
            }
            return Ok(RValue::Nil);
        }
        "to_ary" | "to_a" | "entries" => return Ok(recv.clone()),
        "hash" => return Ok(RValue::Int(0)),
        "sum" if block.is_none() && args.is_empty() => {
            return sum_items(it, RValue::Int(0), items, None, pos);
        }
        _ => {}
    }
    match enumerable(it, items, name, &args, block, pos)? {
        Some(v) => Ok(v),
        None if matches!(name, "each_with_index" | "reverse_each" | "each_entry") => {
            Ok(recv.clone())
        }
        None => crate::methods::no_method_pub(recv, name, pos),
    }
}

/// Ruby's `Array#sum` and `Enumerable#sum`: `+` from `init` on, except that from the first
/// float (with a numeric sum so far) the numbers are added with Ruby's Kahan-Babuska
/// compensated summation (`[0.1, 0.2, 0.3].sum` is 0.6); a value that is not a number
/// after that continues with `+` from the uncompensated float, as Ruby does.
fn sum_items(
    it: &mut Interp,
    init: RValue,
    items: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let mut acc = init;
    // The float sum and its compensation, once in float mode.
    let mut float: Option<(f64, f64)> = None;
    for x in items {
        let x = match block {
            Some(b) => it.call_block(b, vec![x], pos)?,
            None => x,
        };
        let num = match x {
            RValue::Float(v) => Some(v),
            RValue::Int(i) => Some(i as f64),
            _ => None,
        };
        if float.is_none() {
            float = match (&acc, &x) {
                (RValue::Int(a), RValue::Float(_)) => Some((*a as f64, 0.0)),
                (RValue::Float(a), RValue::Float(_) | RValue::Int(_)) => Some((*a, 0.0)),
                _ => None,
            };
            if float.is_none() {
                acc = crate::methods::call_method(it, acc, "+", vec![x], None, pos)?;
                continue;
            }
        }
        let Some((f, c)) = float.as_mut() else {
            continue;
        };
        let Some(x) = num else {
            acc = crate::methods::call_method(it, RValue::Float(*f), "+", vec![x], None, pos)?;
            float = None;
            continue;
        };
        if f.is_nan() {
            continue;
        }
        if x.is_nan() {
            *f = x;
            continue;
        }
        if x.is_infinite() {
            *f = if f.is_infinite() && x.is_sign_negative() != f.is_sign_negative() {
                f64::NAN
            } else {
                x
            };
            continue;
        }
        if f.is_infinite() {
            continue;
        }
        let t = *f + x;
        if f.abs() >= x.abs() {
            *c += (*f - t) + x;
        } else {
            *c += (x - t) + *f;
        }
        *f = t;
    }
    Ok(match float {
        Some((f, c)) => RValue::Float(f + c),
        None => acc,
    })
}

/// `Array#[]=` of a start and a length (`a[1, 2] = v`) or of a range (`a[1..2] = v`):
/// the part is replaced by `v`'s elements (an Array) or by `v`, the array padded with
/// nil when the part starts past its end; Ruby's IndexError and RangeError otherwise.
fn splice(
    cell: &Shared<Vec<RValue>>,
    args: &[RValue],
    len: usize,
    pos: Pos,
) -> Result<RValue, Ctrl> {
    let (start, count, value) = match args {
        [RValue::Range(r), v] => {
            let b = match &r.0 {
                RValue::Nil => 0,
                x => int_arg(x, pos)?,
            };
            let e = match &r.1 {
                RValue::Nil => -1,
                x => int_arg(x, pos)?,
            };
            let s = if b < 0 { b + len as i64 } else { b };
            if s < 0 {
                return raise(
                    "RangeError",
                    format!("{} out of range", value::inspect(&args[0])),
                    pos,
                );
            }
            let e = if e < 0 { e + len as i64 } else { e };
            let e = if r.2 && !matches!(r.1, RValue::Nil) {
                e
            } else {
                e.saturating_add(1)
            };
            (s, (e - s).max(0), v)
        }
        [a, l, v] => {
            let b = int_arg(a, pos)?;
            let l = int_arg(l, pos)?;
            if l < 0 {
                return raise("IndexError", format!("negative length ({l})"), pos);
            }
            let s = if b < 0 { b + len as i64 } else { b };
            if s < 0 {
                return raise(
                    "IndexError",
                    format!("index {b} too small for array; minimum: {}", -(len as i64)),
                    pos,
                );
            }
            (s, l, v)
        }
        _ => return unsupported("Array#[]= with these arguments", pos),
    };
    if start > 1_000_000 {
        return unsupported("array index above one million", pos);
    }
    let start = start as usize;
    let repl: Vec<RValue> = match value {
        RValue::Array(a) => a.borrow().clone(),
        v => vec![v.clone()],
    };
    let mut a = cell.borrow_mut();
    while a.len() < start {
        a.push(RValue::Nil);
    }
    let end = start.saturating_add(count as usize).min(a.len());
    a.splice(start..end, repl);
    Ok(value.clone())
}

fn slice(args: &[RValue], len: usize, pos: Pos) -> Result<Option<(usize, usize)>, Ctrl> {
    match args {
        [RValue::Range(r)] => {
            let s = match &r.0 {
                RValue::Nil => 0,
                v => int_arg(v, pos)?,
            };
            let e = match &r.1 {
                RValue::Nil => -1,
                v => int_arg(v, pos)?,
            };
            let Some(s) = norm(s, len) else {
                return Ok(None);
            };
            if s > len {
                return Ok(None);
            }
            let e = if e < 0 { len as i64 + e } else { e };
            let e = if r.2 && !matches!(r.1, RValue::Nil) {
                e
            } else {
                // Saturating: a range may end at Integer's max (`a[1..9223372036854775807]`).
                e.saturating_add(1)
            };
            let e = (e.max(s as i64) as usize).min(len);
            Ok(Some((s, e - s)))
        }
        [a, b] => {
            let s = int_arg(a, pos)?;
            let l = int_arg(b, pos)?;
            let Some(s) = norm(s, len) else {
                return Ok(None);
            };
            if s > len || l < 0 {
                return Ok(None);
            }
            Ok(Some((s, (l as usize).min(len - s))))
        }
        _ => Ok(None),
    }
}

/// Whether `Array#join` of `items` (nested arrays included) with `sep` is a binary string,
/// as Ruby decides it: the non-ASCII strings decide (binary or UTF-8; both is Ruby's
/// `Encoding::CompatibilityError`), else the first string's encoding.
fn join_encoding(items: &[RValue], sep: Option<&RValue>, pos: Pos) -> Result<bool, Ctrl> {
    fn walk(items: &[RValue], first: &mut Option<bool>, non_ascii: &mut Vec<bool>, d: usize) {
        for x in items {
            // The same walk bound as the join itself (shared nested arrays).
            if !crate::value::walk_step() {
                return;
            }
            match x {
                RValue::Str(s) => {
                    first.get_or_insert(s.is_binary());
                    if !s.borrow().is_ascii() {
                        non_ascii.push(s.is_binary());
                    }
                }
                RValue::Array(a) if d < 64 => walk(&a.borrow(), first, non_ascii, d + 1),
                _ => {}
            }
        }
    }
    let (mut first, mut non_ascii) = (None, Vec::new());
    walk(items, &mut first, &mut non_ascii, 0);
    if let Some(RValue::Str(s)) = sep {
        if !s.borrow().is_ascii() {
            non_ascii.push(s.is_binary());
        }
    }
    match (non_ascii.iter().any(|b| *b), non_ascii.iter().any(|b| !*b)) {
        (true, true) => raise(
            "Encoding::CompatibilityError",
            "incompatible character encodings: ASCII-8BIT and UTF-8",
            pos,
        ),
        (true, false) => Ok(true),
        (false, true) => Ok(false),
        (false, false) => Ok(first.unwrap_or(false)),
    }
}

/// Whether `join` shows a value through Ruby's dispatch ([`show_items`]): an object or a
/// hash in it, nested arrays included (each array looked at once, however often it is
/// shared).
fn needs_dispatch(items: &[RValue]) -> bool {
    fn walk(items: &[RValue], seen: &mut rustc_hash::FxHashSet<usize>, depth: usize) -> bool {
        items.iter().any(|x| match x {
            RValue::Object(_) | RValue::Hash(_) => true,
            RValue::Array(a) if depth < 64 && seen.insert(Rc::as_ptr(a) as *const u8 as usize) => {
                a.try_borrow().is_ok_and(|a| walk(&a, seen, depth + 1))
            }
            _ => false,
        })
    }
    walk(items, &mut rustc_hash::FxHashSet::default(), 0)
}

/// `items` with their objects and hashes replaced by their `to_s` (nested arrays too, as
/// `join` flattens them), a step an element.
fn show_items(
    it: &mut Interp,
    items: &[RValue],
    depth: usize,
    pos: Pos,
) -> Result<Vec<RValue>, Ctrl> {
    let mut out = Vec::with_capacity(items.len());
    for x in items {
        it.tick(pos)?;
        out.push(match x {
            RValue::Object(_) | RValue::Hash(_) => RValue::string(it.to_s_value(x)?),
            RValue::Array(a) if depth < 64 => {
                let inner = a.borrow().clone();
                RValue::array(show_items(it, &inner, depth + 1, pos)?)
            }
            other => other.clone(),
        });
    }
    Ok(out)
}

fn join_into(items: &[RValue], sep: &str, out: &mut String, depth: usize) {
    crate::with_stack(|| {
        for (i, x) in items.iter().enumerate() {
            if !crate::value::walk_step() {
                return;
            }
            if i > 0 {
                out.push_str(sep);
            }
            match x {
                RValue::Array(a) if depth < 64 => {
                    let inner = a.borrow().clone();
                    join_into(&inner, sep, out, depth + 1);
                }
                other => out.push_str(&to_s(other)),
            }
        }
    })
}

/// Dispatches a Hash method.
pub fn hash_method(
    it: &mut Interp,
    recv: &RValue,
    cell: &Rc<Shared<RHash>>,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let snapshot = || cell.borrow().pairs();
    if !cell.borrow().identity
        && args
            .iter()
            .any(|a| matches!(a, RValue::Object(_) | RValue::Array(_)))
    {
        crate::kernel::prepare_keys(it, &args, pos)?;
        if let Some(k) = args.first() {
            crate::kernel::check_same_hash(it, cell, k, pos)?;
        }
    }
    match name {
        "compare_by_identity" if args.is_empty() => {
            if cell.is_frozen() {
                return raise(
                    "FrozenError",
                    format!("can't modify frozen Hash: {}", value::inspect(recv)),
                    pos,
                );
            }
            let pairs = snapshot();
            let mut h = cell.borrow_mut();
            h.identity = true;
            h.map.clear();
            for (k, v) in pairs {
                h.insert(k, v);
            }
            return Ok(recv.clone());
        }
        "compare_by_identity?" if args.is_empty() => {
            return Ok(RValue::Bool(cell.borrow().identity));
        }
        _ => {}
    }
    if name == "lazy" && args.is_empty() {
        return Ok(crate::library::lazy_of(it, recv.clone()));
    }
    if block.is_none()
        && matches!(
            name,
            "each" | "each_pair" | "map" | "collect" | "each_with_index"
        )
    {
        let pairs: Vec<RValue> = cell
            .borrow()
            .pairs()
            .into_iter()
            .map(|(k, v)| RValue::array(vec![k, v]))
            .collect();
        return Ok(RValue::array(if name == "each_with_index" {
            pairs
                .into_iter()
                .enumerate()
                .map(|(i, p)| RValue::array(vec![p, RValue::Int(i as i64)]))
                .collect()
        } else {
            pairs
        }));
    }
    let pairs_arr = |p: Vec<(RValue, RValue)>| -> Vec<RValue> {
        p.into_iter()
            .map(|(k, v)| RValue::array(vec![k, v]))
            .collect()
    };
    match name {
        "[]" => {
            argc(&args, 1, 1, pos)?;
            let (found, dp, default) = {
                let h = cell.borrow();
                (
                    h.get(&args[0]).cloned(),
                    h.default_proc.clone(),
                    h.default.clone(),
                )
            };
            return match (found, dp) {
                (Some(v), _) => Ok(v),
                (None, Some(p)) => it.call_block(&p, vec![recv.clone(), args[0].clone()], pos),
                (None, None) => Ok(default),
            };
        }
        "slice" => {
            let h = cell.borrow();
            let mut out = RHash::default();
            for k in &args {
                if let Some(v) = h.get(k) {
                    out.insert(k.clone(), v.clone());
                }
            }
            return Ok(RValue::hash(out));
        }
        "except" => {
            let mut out = cell.borrow().clone();
            out.default_proc = None;
            for k in &args {
                let key = out.key_of(k);
                out.map.shift_remove(&key);
            }
            return Ok(RValue::hash(out));
        }
        "default_proc" => {
            return Ok(cell
                .borrow()
                .default_proc
                .clone()
                .map(RValue::Proc)
                .unwrap_or(RValue::Nil))
        }
        "[]=" | "store" => {
            argc(&args, 2, 2, pos)?;
            cell.borrow_mut().insert(args[0].clone(), args[1].clone());
            return Ok(args[1].clone());
        }
        "fetch" => {
            argc(&args, 1, 2, pos)?;
            let found = cell.borrow().get(&args[0]).cloned();
            return match found {
                Some(v) => Ok(v),
                None => match (args.get(1), block) {
                    (_, Some(b)) => it.call_block(b, vec![args[0].clone()], pos),
                    (Some(d), None) => Ok(d.clone()),
                    _ => raise(
                        "KeyError",
                        format!("key not found: {}", value::inspect(&args[0])),
                        pos,
                    ),
                },
            };
        }
        "dig" => return dig(it, recv, args, pos),
        "key?" | "has_key?" | "include?" | "member?" => {
            argc(&args, 1, 1, pos)?;
            return Ok(RValue::Bool(cell.borrow().get(&args[0]).is_some()));
        }
        "value?" | "has_value?" => {
            argc(&args, 1, 1, pos)?;
            return Ok(RValue::Bool(
                cell.borrow().map.values().any(|(_, v)| equal(v, &args[0])),
            ));
        }
        "key" | "rassoc" => {
            argc(&args, 1, 1, pos)?;
            return Ok(cell
                .borrow()
                .map
                .values()
                .find(|(_, v)| equal(v, &args[0]))
                .map(|(k, v)| match name {
                    "key" => k.clone(),
                    _ => RValue::array(vec![k.clone(), v.clone()]),
                })
                .unwrap_or(RValue::Nil));
        }
        "keys" => {
            return Ok(RValue::array(
                snapshot().into_iter().map(|(k, _)| k).collect(),
            ))
        }
        "values" => {
            return Ok(RValue::array(
                snapshot().into_iter().map(|(_, v)| v).collect(),
            ))
        }
        "values_at" | "fetch_values" => {
            let h = cell.borrow();
            let mut out = Vec::new();
            for a in &args {
                match h.get(a) {
                    Some(v) => out.push(v.clone()),
                    None if name == "fetch_values" => {
                        return raise(
                            "KeyError",
                            format!("key not found: {}", value::inspect(a)),
                            pos,
                        )
                    }
                    None => out.push(h.default.clone()),
                }
            }
            return Ok(RValue::array(out));
        }
        "length" | "size" => return Ok(RValue::Int(cell.borrow().map.len() as i64)),
        "count" if args.is_empty() && block.is_none() => {
            return Ok(RValue::Int(cell.borrow().map.len() as i64))
        }
        "empty?" => return Ok(RValue::Bool(cell.borrow().map.is_empty())),
        "each" | "each_pair" => {
            let b = need_block(block, name, pos)?;
            for (k, v) in snapshot() {
                if b.param_count() >= 2 {
                    it.call_block(b, vec![k, v], pos)?;
                } else {
                    it.call_block(b, vec![RValue::array(vec![k, v])], pos)?;
                }
            }
            return Ok(recv.clone());
        }
        "each_key" | "each_value" => {
            let b = need_block(block, name, pos)?;
            for (k, v) in snapshot() {
                it.call_block(b, vec![if name == "each_key" { k } else { v }], pos)?;
            }
            return Ok(recv.clone());
        }
        "select" | "filter" | "reject" | "filter_map_h" => {
            let b = need_block(block, name, pos)?;
            let mut out = RHash::default();
            for (k, v) in snapshot() {
                let t = it.call_block(b, vec![k.clone(), v.clone()], pos)?.truthy();
                if t != (name == "reject") {
                    out.insert(k, v);
                }
            }
            return Ok(RValue::hash(out));
        }
        "delete_if" | "keep_if" | "select!" | "filter!" | "reject!" => {
            let b = need_block(block, name, pos)?;
            let mut out = RHash {
                map: Default::default(),
                default: cell.borrow().default.clone(),
                default_proc: cell.borrow().default_proc.clone(),
                identity: cell.borrow().identity,
            };
            for (k, v) in snapshot() {
                let t = it.call_block(b, vec![k.clone(), v.clone()], pos)?.truthy();
                let keep = if matches!(name, "delete_if" | "reject!") {
                    !t
                } else {
                    t
                };
                if keep {
                    out.insert(k, v);
                }
            }
            // `select!`/`reject!` answer nil when they removed nothing.
            let unchanged = out.map.len() == cell.borrow().map.len();
            *cell.borrow_mut() = out;
            return Ok(if unchanged && name.ends_with('!') {
                RValue::Nil
            } else {
                recv.clone()
            });
        }
        "delete" => {
            argc(&args, 1, 1, pos)?;
            let key = cell.borrow().key_of(&args[0]);
            let removed = cell.borrow_mut().map.shift_remove(&key);
            return match (removed, block) {
                (Some((_, v)), _) => Ok(v),
                (None, Some(b)) => it.call_block(b, vec![args[0].clone()], pos),
                (None, None) => Ok(RValue::Nil),
            };
        }
        "merge" | "update" | "merge!" => {
            let mut out = if name == "merge" {
                cell.borrow().clone()
            } else {
                RHash::default()
            };
            let target_is_self = name != "merge";
            for a in &args {
                let RValue::Hash(o) = a else {
                    return crate::interp::no_implicit_conversion(a, "Hash", pos);
                };
                for (k, v) in o.borrow().pairs() {
                    let existing = if target_is_self {
                        cell.borrow().get(&k).cloned()
                    } else {
                        out.get(&k).cloned()
                    };
                    let v = match (existing, block) {
                        (Some(old), Some(b)) => it.call_block(b, vec![k.clone(), old, v], pos)?,
                        _ => v,
                    };
                    if target_is_self {
                        cell.borrow_mut().insert(k, v);
                    } else {
                        out.insert(k, v);
                    }
                }
            }
            return Ok(if target_is_self {
                recv.clone()
            } else {
                RValue::hash(out)
            });
        }
        "to_h" | "to_hash" if block.is_none() => return Ok(recv.clone()),
        "to_a" => return Ok(RValue::array(pairs_arr(snapshot()))),
        "invert" => {
            let mut out = RHash::default();
            for (k, v) in snapshot() {
                out.insert(v, k);
            }
            return Ok(RValue::hash(out));
        }
        "transform_values!" | "transform_keys!" => {
            let r = hash_method(it, recv, cell, &name[..name.len() - 1], args, block, pos)?;
            if let RValue::Hash(new) = r {
                let map = new.borrow().map.clone();
                cell.borrow_mut().map = map;
            }
            return Ok(recv.clone());
        }
        "transform_values" | "transform_keys" => {
            // `transform_keys(mapping)` (Ruby 3.0): keys the mapping names are renamed, the
            // others go through the block, or stay.
            if let (Some(RValue::Hash(mapping)), "transform_keys") = (args.first(), name) {
                let mapping = mapping.borrow().clone();
                let mut out = RHash::default();
                for (k, v) in snapshot() {
                    let nk = match (mapping.get(&k), block) {
                        (Some(nk), _) => nk.clone(),
                        (None, Some(b)) => it.call_block(b, vec![k], pos)?,
                        (None, None) => k,
                    };
                    out.insert(nk, v);
                }
                return Ok(RValue::hash(out));
            }
            let b = need_block(block, name, pos)?;
            let mut out = RHash::default();
            for (k, v) in snapshot() {
                if name == "transform_values" {
                    let nv = it.call_block(b, vec![v], pos)?;
                    out.insert(k, nv);
                } else {
                    let nk = it.call_block(b, vec![k], pos)?;
                    out.insert(nk, v);
                }
            }
            return Ok(RValue::hash(out));
        }
        "sort" if block.is_none() => {
            let mut items = pairs_arr(snapshot());
            sort_items(it, &mut items, None, pos)?;
            return Ok(RValue::array(items));
        }
        "default" => return Ok(cell.borrow().default.clone()),
        "default=" => {
            // Setting a default drops the default proc.
            argc(&args, 1, 1, pos)?;
            let mut h = cell.borrow_mut();
            h.default = args[0].clone();
            h.default_proc = None;
            return Ok(args[0].clone());
        }
        "shift" => {
            argc(&args, 0, 0, pos)?;
            let first = cell.borrow_mut().map.shift_remove_index(0);
            return Ok(first.map_or(RValue::Nil, |(_, (k, v))| RValue::array(vec![k, v])));
        }
        "compact" => {
            let mut out = RHash::default();
            for (k, v) in snapshot() {
                if !matches!(v, RValue::Nil) {
                    out.insert(k, v);
                }
            }
            return Ok(RValue::hash(out));
        }
        "clear" => {
            cell.borrow_mut().map.clear();
            return Ok(recv.clone());
        }
        "any?" if block.is_some() => {
            let Some(b) = block else {
                return Ok(RValue::Nil);
            };
            for (k, v) in snapshot() {
                if it
                    .call_block(b, vec![RValue::array(vec![k, v])], pos)?
                    .truthy()
                {
                    return Ok(RValue::Bool(true));
                }
            }
            return Ok(RValue::Bool(false));
        }
        "hash" => return Ok(RValue::Int(0)),
        "sum" if block.is_none() => {
            let mut acc = args.first().cloned().unwrap_or(RValue::Int(0));
            for p in pairs_arr(snapshot()) {
                acc = crate::methods::call_method(it, acc, "+", vec![p], None, pos)?;
            }
            return Ok(acc);
        }
        "join" | "flatten" | "compact!" | "first" | "last" | "push" | "<<" | "uniq" | "reverse" => {
            if name == "first" || name == "flatten" {
                // Enumerable#first and Hash#flatten exist.
                let items = pairs_arr(snapshot());
                if name == "flatten" {
                    let mut out = Vec::new();
                    flatten_into(&items, 1, &mut out, 0);
                    return Ok(RValue::array(out));
                }
                if let Some(v) = enumerable(it, items, name, &args, block, pos)? {
                    return Ok(v);
                }
            }
            if name == "uniq" {
                return Ok(RValue::array(pairs_arr(snapshot())));
            }
            return raise(
                "NoMethodError",
                format!("undefined method `{name}' for {}:Hash", short_inspect(recv)),
                pos,
            );
        }
        _ => {}
    }
    // Enumerable's methods that Hash has; others (`map!`, `sort!`...) are Array's.
    if !crate::ruby_methods::has(crate::ruby_methods::HASH, name) {
        return crate::methods::no_method_pub(recv, name, pos);
    }
    let items = pairs_arr(snapshot());
    match enumerable(it, items, name, &args, block, pos)? {
        Some(v) => Ok(v),
        None if name == "each_with_index" || name == "reverse_each" => Ok(recv.clone()),
        None => crate::methods::no_method_pub(recv, name, pos),
    }
}

fn short_inspect(v: &RValue) -> String {
    let s = value::inspect(v);
    if s.len() > 65 {
        format!("#<{}>", v.class_name())
    } else {
        s
    }
}

/// `a == b` as Ruby's collection methods ask it (`include?`, `index`, `count`, `delete`):
/// the `==` of a user class (or a Struct) runs; built-in values compare where they are.
fn elem_equal(it: &mut Interp, a: &RValue, b: &RValue, pos: Pos) -> Result<bool, Ctrl> {
    if matches!(a, RValue::Object(_)) && it.find_user_method(a, "==").is_some() {
        return Ok(it
            .call_method(a.clone(), "==", vec![b.clone()], None, pos)?
            .truthy());
    }
    Ok(equal(a, b))
}

/// `Array#dig`/`Hash#dig`: `self[first]`, then `dig` of the rest on that value; nil ends
/// the walk, and a value with no `dig` (an Integer, a String...) is Ruby's TypeError.
fn dig(it: &mut Interp, recv: &RValue, args: Vec<RValue>, pos: Pos) -> Result<RValue, Ctrl> {
    let mut cur = recv.clone();
    let mut rest = args.into_iter();
    while let Some(a) = rest.next() {
        cur = match cur {
            RValue::Nil => return Ok(RValue::Nil),
            c @ (RValue::Array(_) | RValue::Hash(_)) => {
                crate::methods::call_method(it, c, "[]", vec![a], None, pos)?
            }
            // Struct, OpenStruct and user classes answer `dig` themselves.
            c @ RValue::Object(_) => {
                let mut all = vec![a];
                all.extend(rest);
                return crate::methods::call_method(it, c, "dig", all, None, pos);
            }
            c => {
                return raise(
                    "TypeError",
                    format!("{} does not have #dig method", c.class_name()),
                    pos,
                )
            }
        };
    }
    Ok(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocating top-down merge sort `merge_sort` replaced: the reference its calls
    /// and result must agree with.
    fn reference<T: Clone>(
        items: Vec<T>,
        cmp: &mut dyn FnMut(&T, &T) -> Result<Ordering, Ctrl>,
    ) -> Result<Vec<T>, Ctrl> {
        if items.len() <= 1 {
            return Ok(items);
        }
        let mut right = items;
        let left = right.drain(..right.len() / 2).collect::<Vec<T>>();
        let left = reference(left, cmp)?;
        let right = reference(right, cmp)?;
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < left.len() && j < right.len() {
            if cmp(&left[i], &right[j])? == Ordering::Greater {
                out.push(right[j].clone());
                j += 1;
            } else {
                out.push(left[i].clone());
                i += 1;
            }
        }
        out.extend_from_slice(&left[i..]);
        out.extend_from_slice(&right[j..]);
        Ok(out)
    }

    /// The quick comparisons of a sort without a block give what `compare_values` gives
    /// (order or error) and count the same elements against the walk bound, also where the
    /// bound is reached; where they do not apply they count nothing.
    #[test]
    fn quick_comparisons_agree_with_compare_values() {
        let s = |t: &str| RValue::str(t);
        let pair = |a: RValue, b: RValue| RValue::array(vec![a, b]);
        let samples = vec![
            s(""),
            s("a"),
            s("b"),
            s("ab"),
            s("ssl"),
            s("ssl-ca"),
            s("\u{e9}"),
            pair(s("port"), s("3306")),
            pair(s("port"), s("3307")),
            pair(s("port"), RValue::Int(1)),
            pair(s("socket"), s("/x")),
            pair(s("a"), RValue::Nil),
            pair(RValue::Int(1), s("a")),
            pair(RValue::Sym("a".into()), s("a")),
            RValue::array(vec![s("a")]),
            RValue::array(vec![]),
            RValue::array(vec![pair(s("a"), s("b")), s("c")]),
            RValue::Int(3),
            RValue::Nil,
            RValue::Sym("a".into()),
        ];
        let mut scope = crate::NullScope::default();
        let mut it = Interp::with(&mut scope, "(t)", false, crate::source::Sources::empty());
        let pos = Pos::default();
        let show = |r: Result<Ordering, Ctrl>| match r {
            Ok(o) => format!("{o:?}"),
            Err(Ctrl::Raise(e)) => format!("{}: {}", e.class, e.message),
            Err(e) => format!("{e:?}"),
        };
        // Elements counted before the comparison: none, and just below the bound.
        for before in [0, crate::value::WALK_LIMIT - 1] {
            for a in &samples {
                for b in &samples {
                    // (walk_end(n) sets the count to n.)
                    let outer = crate::value::walk_begin();
                    crate::value::walk_end(before);
                    let quick = quick_compare(a, b, pos);
                    let quick_walked = crate::value::walk_begin();
                    crate::value::walk_end(before);
                    let general = compare_values(&mut it, a, b, pos);
                    let general_walked = crate::value::walk_begin();
                    crate::value::walk_end(outer);
                    match quick {
                        Some(q) => {
                            assert_eq!(show(q), show(general), "{a:?} <=> {b:?}");
                            assert_eq!(quick_walked, general_walked, "{a:?} <=> {b:?}");
                        }
                        None => assert_eq!(quick_walked, before, "{a:?} <=> {b:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn merge_sort_makes_the_reference_comparisons_and_result() {
        // (key, original position): ties show stability; the comparison log shows the
        // order of the calls a comparison block would see.
        let mut seed = 7u64;
        for n in 0..40usize {
            let items: Vec<(u64, usize)> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 33) % 5, i)
                })
                .collect();
            let mut log_a = Vec::new();
            let mut log_b = Vec::new();
            let a = merge_sort(items.clone(), &mut |x: &(u64, usize), y: &(u64, usize)| {
                log_a.push((x.1, y.1));
                Ok(x.0.cmp(&y.0))
            })
            .ok();
            let b = reference(items, &mut |x: &(u64, usize), y: &(u64, usize)| {
                log_b.push((x.1, y.1));
                Ok(x.0.cmp(&y.0))
            })
            .ok();
            assert_eq!(a, b, "{n} items");
            assert_eq!(log_a, log_b, "{n} items");
        }
    }

    #[test]
    fn include_compares_in_place_as_ruby_does() {
        // Ruby 3.1.2's answers (`ruby -e 'p [...]'` with the same code).
        let code = "a = [nil, '', :undef, 1, 1.0, [1], {1=>2}]\nb = [a]\n\
            [a.include?(nil), a.include?(''), a.include?(:undef), a.include?(1.0), a.include?(2), \
            a.include?([1]), a.include?({1=>2}), a.include?('x'), a.include?(a), a.member?(:undef), \
            b.include?(a), [].include?(nil)]";
        assert_eq!(
            crate::eval_inspect(code).unwrap(),
            "[true, true, true, true, false, true, true, false, false, true, true, false]"
        );
        let e = crate::eval_inspect("[1].include?(1, 2)").unwrap_err();
        assert!(e.to_string().contains("wrong number of arguments"), "{e}");
    }

    #[test]
    fn merge_sort_stops_at_the_same_failing_comparison() {
        let items: Vec<i64> = vec![5, 3, 9, 1, 7, 2, 8];
        let fail_at = |log: &mut Vec<(i64, i64)>, a: &i64, b: &i64| {
            log.push((*a, *b));
            if log.len() == 6 {
                Err(Ctrl::Next(RValue::Nil))
            } else {
                Ok(a.cmp(b))
            }
        };
        let (mut la, mut lb) = (Vec::new(), Vec::new());
        let a = merge_sort(items.clone(), &mut |x: &i64, y: &i64| {
            fail_at(&mut la, x, y)
        });
        let b = reference(items, &mut |x: &i64, y: &i64| fail_at(&mut lb, x, y));
        assert!(a.is_err() && b.is_err());
        assert_eq!(la, lb);
    }
}
