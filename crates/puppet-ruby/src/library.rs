//! The entry to the standard-library classes that live in their own files: `Time`, `Date`
//! and `Rational` ([`crate::time`]), `Array#pack`/`String#unpack` ([`crate::pack`]),
//! `Zlib.crc32`/`adler32`, and `Enumerator.new { |y| ... }` (a generator and its yielder).
//! The interpreter asks [`class_method`] and [`object_method`] before its own fallbacks.
//!
//! A generator enumerator runs its block when it is read: `to_a`, `each` and Enumerable's
//! methods run it to the end; `first(n)`/`take(n)` stop it after `n` values (so an endless
//! generator works), and `next`/`peek` read the values of one run of up to
//! [`NEXT_LIMIT`] values, made on the first `next` (the block's side effects happen then,
//! once, where Ruby interleaves them with the `next` calls). `gen.lazy` chains `map`,
//! `select`/`filter`, `reject`, `take_while` and `take(n)`, read by `first(n)` and
//! `to_a`/`force`, each value going through the steps as the generator yields it (the other
//! lazy methods, and `lazy` of arrays and ranges, are errors naming them). Seeded `Random`
//! is Ruby's MT19937 (`puppet_functions::random`); an unseeded one is an error.

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::methods::argc;
use crate::object::{Blk, ObjData, Object};
use crate::value::RValue;
use crate::Pos;
use puppet_functions::random::RubyRandom;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The most values `next` reads from one run of a generator.
const NEXT_LIMIT: usize = 100_000;

/// The name of a library class whose class methods [`class_method`] answers.
pub(crate) fn library_class(m: &crate::object::Module) -> Option<&'static str> {
    ["Time", "Date", "DateTime", "Zlib", "Enumerator", "Random"]
        .into_iter()
        .find(|n| m.name_is(n))
}

/// Class methods of the library classes; `None` when `cname.name` is not one of them.
pub(crate) fn class_method(
    it: &mut Interp,
    cname: &str,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    match (cname, name) {
        ("Time" | "Date" | "DateTime", _) => crate::time::class_method(it, cname, name, args, pos),
        ("Zlib", "crc32" | "adler32") => Some((|| {
            argc(args, 0, 2, pos)?;
            let data = args
                .first()
                .map(crate::methods::str_bytes)
                .unwrap_or_default();
            let seed = match args.get(1) {
                Some(v) => crate::methods::int_arg(v, pos)?,
                None if name == "crc32" => 0,
                None => 1,
            };
            let Ok(seed) = u32::try_from(seed) else {
                return unsupported(format!("Zlib.{name} with a seed beyond 32 bits"), pos);
            };
            Ok(RValue::Int(if name == "crc32" {
                crc32(&data, seed)
            } else {
                adler32(&data, seed)
            } as i64))
        })()),
        ("Random", "new") => Some((|| {
            argc(args, 0, 1, pos)?;
            let Some(seed) = args.first() else {
                return unsupported("Random.new without a seed (an unseeded random number)", pos);
            };
            // Ruby seeds MT19937 with the 32-bit words of the seed's absolute value (a big
            // one too: `Random.new(Digest::SHA256.hexdigest(s).to_i(16))`).
            let rng = match seed {
                RValue::Big(b) => RubyRandom::from_words(&b.magnitude().to_u32_digits()),
                _ => RubyRandom::from_u64(crate::methods::int_arg(seed, pos)?.unsigned_abs()),
            };
            let seed = match seed {
                RValue::Big(_) => seed.clone(),
                _ => RValue::Int(crate::methods::int_arg(seed, pos)?),
            };
            Ok(new_object(
                it,
                "Random",
                RandomData {
                    rng: RefCell::new(rng),
                    seed,
                },
            ))
        })()),
        ("Random", "rand" | "srand" | "new_seed" | "bytes" | "random_number") => Some(unsupported(
            format!("Random.{name} (an unseeded random number)"),
            pos,
        )),
        ("Enumerator", "new") => Some(match block {
            Some(b) => {
                let gen = GenData {
                    block: b.clone(),
                    cache: RefCell::new(None),
                    cursor: Cell::new(0),
                };
                Ok(new_object(it, "Enumerator", gen))
            }
            None => unsupported("Enumerator.new without a block", pos),
        }),
        _ => None,
    }
}

/// Methods of the library objects; `None` when `recv` is not one of them.
pub(crate) fn object_method(
    it: &mut Interp,
    recv: &RValue,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let RValue::Object(o) = recv else {
        return None;
    };
    let data = match &*o.data.borrow() {
        ObjData::Native(d) => d.clone(),
        _ => return None,
    };
    if let Ok(g) = data.clone().downcast::<GenData>() {
        return generator_method(it, recv, &g, name, args, block, pos);
    }
    if let Ok(y) = data.clone().downcast::<YielderData>() {
        return yielder_method(it, recv, &y, name, args, pos);
    }
    if let Ok(l) = data.clone().downcast::<LazyData>() {
        return Some(lazy_method(it, recv, &l, name, args, block, pos));
    }
    if let Ok(r) = data.downcast::<RandomData>() {
        return random_method(&r, name, args, pos);
    }
    crate::time::object_method(it, recv, name, args, block, pos)
}

fn new_object<T: 'static>(it: &mut Interp, class: &str, data: T) -> RValue {
    let c = it
        .module_by_path(class)
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(c));
    *o.data.borrow_mut() = ObjData::Native(Rc::new(data));
    it.track_object(&o);
    RValue::Object(o)
}

/// CRC-32 (ISO-HDLC, zlib's), continuing from `seed`.
pub(crate) fn crc32(data: &[u8], seed: u32) -> u32 {
    let mut crc = !seed;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// Adler-32, continuing from `seed`.
fn adler32(data: &[u8], seed: u32) -> u32 {
    let (mut a, mut b) = (seed & 0xffff, seed >> 16);
    for &x in data {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// `Enumerator.new { |y| ... }`: the block, and the values `next` reads.
#[derive(Debug)]
struct GenData {
    block: Blk,
    cache: RefCell<Option<Rc<Vec<RValue>>>>,
    cursor: Cell<usize>,
}

/// The yielder handed to a generator's block: passes each value to `target`, or collects
/// it and stops the run (a throw to `tag`) once `limit` values are in.
#[derive(Debug)]
struct YielderData {
    target: Option<Blk>,
    collected: RefCell<Vec<RValue>>,
    limit: usize,
    tag: RValue,
    /// The steps of a lazy chain each value goes through before it is collected.
    ops: Vec<LazyOp>,
    /// How many values each `take(n)` step has let through.
    taken: RefCell<Vec<usize>>,
}

/// One step of `gen.lazy...`.
#[derive(Debug, Clone)]
enum LazyOp {
    Map(Blk),
    Select(Blk),
    Reject(Blk),
    TakeWhile(Blk),
    Take(usize),
}

/// `gen.lazy` and the steps chained on it: the generator enumerator and the steps.
#[derive(Debug)]
struct LazyData {
    source: RValue,
    ops: Vec<LazyOp>,
}

/// Runs the generator's block with a yielder; `target` receives the values, else they are
/// collected (up to `limit`).
fn run(
    it: &mut Interp,
    g: &GenData,
    target: Option<&Blk>,
    limit: usize,
    pos: Pos,
) -> Result<(RValue, Vec<RValue>), Ctrl> {
    run_with(it, g, target, limit, Vec::new(), pos)
}

fn run_with(
    it: &mut Interp,
    g: &GenData,
    target: Option<&Blk>,
    limit: usize,
    ops: Vec<LazyOp>,
    pos: Pos,
) -> Result<(RValue, Vec<RValue>), Ctrl> {
    let tag = new_object(it, "Object", ());
    let y = YielderData {
        target: target.cloned(),
        collected: RefCell::new(Vec::new()),
        limit,
        tag: tag.clone(),
        taken: RefCell::new(vec![0; ops.len()]),
        ops,
    };
    let yv = new_object(it, "Enumerator::Yielder", y);
    let r = it.call_block(&g.block, vec![yv.clone()], pos);
    let r = match r {
        Err(Ctrl::Throw(t, _)) if crate::value::equal(&t, &tag) => RValue::Nil,
        other => other?,
    };
    let items = match &yv {
        RValue::Object(o) => match &*o.data.borrow() {
            ObjData::Native(d) => d
                .clone()
                .downcast::<YielderData>()
                .map(|y| y.collected.take())
                .unwrap_or_default(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    Ok((r, items))
}

fn yielder_method(
    it: &mut Interp,
    recv: &RValue,
    y: &YielderData,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let value = |args: &[RValue]| match args {
        [one] => one.clone(),
        [] => RValue::Nil,
        many => RValue::array(many.to_vec()),
    };
    match name {
        "<<" | "yield" | "call" => Some((|| {
            if name == "<<" {
                argc(args, 1, 1, pos)?;
            }
            let r = match &y.target {
                Some(b) => it.call_block(b, args.to_vec(), pos)?,
                None => {
                    let stop = || Err(Ctrl::Throw(y.tag.clone(), RValue::Nil));
                    let mut v = value(args);
                    for (k, op) in y.ops.iter().enumerate() {
                        match op {
                            LazyOp::Map(b) => v = it.call_block(b, vec![v], pos)?,
                            LazyOp::Select(b) | LazyOp::Reject(b) => {
                                let keep = it.call_block(b, vec![v.clone()], pos)?.truthy();
                                if keep != matches!(op, LazyOp::Select(_)) {
                                    return Ok(if name == "<<" {
                                        recv.clone()
                                    } else {
                                        RValue::Nil
                                    });
                                }
                            }
                            LazyOp::TakeWhile(b) => {
                                if !it.call_block(b, vec![v.clone()], pos)?.truthy() {
                                    return stop();
                                }
                            }
                            LazyOp::Take(n) => {
                                let mut t = y.taken.borrow_mut();
                                if t[k] >= *n {
                                    return stop();
                                }
                                t[k] += 1;
                            }
                        }
                    }
                    let mut c = y.collected.borrow_mut();
                    c.push(v);
                    let taken_all =
                        y.ops.iter().enumerate().any(
                            |(k, op)| matches!(op, LazyOp::Take(n) if y.taken.borrow()[k] >= *n),
                        );
                    if c.len() >= y.limit || taken_all {
                        return stop();
                    }
                    RValue::Nil
                }
            };
            Ok(if name == "<<" { recv.clone() } else { r })
        })()),
        "to_proc" => Some(unsupported("Enumerator::Yielder#to_proc", pos)),
        _ => None,
    }
}

/// The methods a generator enumerator answers itself (the others are Object's).
const GENERATOR_METHODS: &[&str] = &[
    "each",
    "first",
    "take",
    "next",
    "peek",
    "rewind",
    "size",
    "lazy",
    "inspect",
    "to_s",
    "with_index",
    "each_with_index",
    "with_object",
    "each_with_object",
    "map",
    "collect",
    "select",
    "filter",
    "reject",
    "to_a",
    "entries",
    "force",
    "count",
    "include?",
    "member?",
    "inject",
    "reduce",
    "sum",
    "min",
    "max",
    "min_by",
    "max_by",
    "sort",
    "sort_by",
    "group_by",
    "partition",
    "zip",
    "each_slice",
    "each_cons",
    "flat_map",
    "filter_map",
    "find",
    "detect",
    "find_index",
    "uniq",
    "tally",
    "to_h",
    "to_set",
    "any?",
    "all?",
    "none?",
    "one?",
    "take_while",
    "drop",
    "drop_while",
    "each_entry",
    "minmax",
    "chunk_while",
    "slice_when",
    "find_all",
    "grep",
    "grep_v",
    "join",
    "collect_concat",
    "reverse_each",
];

fn generator_method(
    it: &mut Interp,
    recv: &RValue,
    g: &GenData,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    if !GENERATOR_METHODS.contains(&name) {
        return None;
    }
    Some(generator_inner(it, recv, g, name, args, block, pos))
}

fn generator_inner(
    it: &mut Interp,
    recv: &RValue,
    g: &GenData,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    match (name, block) {
        ("each", Some(b)) => Ok(run(it, g, Some(b), usize::MAX, pos)?.0),
        ("each", None) => Ok(recv.clone()),
        ("first" | "take", _) => {
            let n = match args.first() {
                Some(v) => {
                    let n = crate::methods::int_arg(v, pos)?;
                    if n < 0 {
                        return raise("ArgumentError", "attempt to take negative size", pos);
                    }
                    n as usize
                }
                None if name == "take" => return argc(args, 1, 1, pos).map(|_| RValue::Nil),
                None => 1,
            };
            argc(args, 0, 1, pos)?;
            let items = if n == 0 {
                Vec::new()
            } else {
                run(it, g, None, n, pos)?.1
            };
            if args.is_empty() {
                return Ok(items.into_iter().next().unwrap_or(RValue::Nil));
            }
            Ok(RValue::array(items))
        }
        ("next" | "peek", _) => {
            argc(args, 0, 0, pos)?;
            let cached = g.cache.borrow().clone();
            let items = match cached {
                Some(c) => c,
                None => {
                    let (_, items) = run(it, g, None, NEXT_LIMIT + 1, pos)?;
                    let c = Rc::new(items);
                    *g.cache.borrow_mut() = Some(c.clone());
                    c
                }
            };
            let k = g.cursor.get();
            if k >= NEXT_LIMIT {
                return unsupported(format!("Enumerator#next past {NEXT_LIMIT} values"), pos);
            }
            match items.get(k) {
                Some(v) => {
                    if name == "next" {
                        g.cursor.set(k + 1);
                    }
                    Ok(v.clone())
                }
                None => raise("StopIteration", "iteration reached an end", pos),
            }
        }
        ("rewind", _) => {
            g.cursor.set(0);
            *g.cache.borrow_mut() = None;
            Ok(recv.clone())
        }
        ("size", _) => Ok(RValue::Nil),
        ("lazy", _) => Ok(new_object(
            it,
            "Enumerator::Lazy",
            LazyData {
                source: recv.clone(),
                ops: Vec::new(),
            },
        )),
        ("inspect" | "to_s", _) => Ok(RValue::str("#<Enumerator: #<Enumerator::Generator>:each>")),
        _ => {
            let (_, items) = run(it, g, None, usize::MAX, pos)?;
            let list = RValue::array(items);
            let name = match name {
                "entries" | "force" => "to_a",
                "with_index" => "each_with_index",
                "with_object" => "each_with_object",
                other => other,
            };
            if block.is_none() && name == "each_with_index" {
                let offset = match args.first() {
                    Some(v) => crate::methods::int_arg(v, pos)?,
                    None => 0,
                };
                let RValue::Array(a) = &list else {
                    return Ok(RValue::Nil);
                };
                let pairs: Vec<RValue> = a
                    .borrow()
                    .iter()
                    .enumerate()
                    .map(|(i, x)| RValue::array(vec![x.clone(), RValue::Int(i as i64 + offset)]))
                    .collect();
                return Ok(crate::kernel::make_enumerator(
                    it,
                    RValue::array(pairs),
                    "each",
                    Vec::new(),
                ));
            }
            if block.is_none() && name == "each_with_object" {
                return unsupported(
                    format!("Enumerator#{name} without a block on a generator"),
                    pos,
                );
            }
            if let (Some(b), "each_with_index", RValue::Array(a)) = (block, name, &list) {
                let offset = match args.first() {
                    Some(v) => crate::methods::int_arg(v, pos)?,
                    None => 0,
                };
                let items = a.borrow().clone();
                for (i, x) in items.into_iter().enumerate() {
                    it.call_block(b, vec![x, RValue::Int(i as i64 + offset)], pos)?;
                }
                return Ok(recv.clone());
            }
            it.call_method(list, name, args.to_vec(), block, pos)
        }
    }
}

/// Methods of `gen.lazy`: the steps `map`, `select`/`filter`, `reject`, `take_while` and
/// `take(n)`, read by `first`, `to_a`/`force`; the others are errors naming them.
fn lazy_method(
    it: &mut Interp,
    recv: &RValue,
    l: &LazyData,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let chain = |it: &mut Interp, op: LazyOp| -> R {
        let mut ops = l.ops.clone();
        ops.push(op);
        Ok(new_object(
            it,
            "Enumerator::Lazy",
            LazyData {
                source: l.source.clone(),
                ops,
            },
        ))
    };
    let need = |what: &str| -> Result<Blk, Ctrl> {
        match block {
            Some(b) => Ok(b.clone()),
            None => raise(
                "ArgumentError",
                format!("tried to call lazy {what} without a block"),
                pos,
            ),
        }
    };
    let source = match &l.source {
        RValue::Object(o) => match &*o.data.borrow() {
            ObjData::Native(d) => d.clone().downcast::<GenData>().ok(),
            _ => None,
        },
        _ => None,
    };
    let Some(g) = source else {
        return unsupported(format!("Enumerator::Lazy#{name}"), pos);
    };
    match name {
        "map" | "collect" => {
            let b = need("map")?;
            chain(it, LazyOp::Map(b))
        }
        "select" | "filter" => {
            let b = need("select")?;
            chain(it, LazyOp::Select(b))
        }
        "reject" => {
            let b = need("reject")?;
            chain(it, LazyOp::Reject(b))
        }
        "take_while" => {
            let b = need("take_while")?;
            chain(it, LazyOp::TakeWhile(b))
        }
        "take" => {
            argc(args, 1, 1, pos)?;
            let n = crate::methods::int_arg(&args[0], pos)?;
            if n < 0 {
                return raise("ArgumentError", "attempt to take negative size", pos);
            }
            chain(it, LazyOp::Take(n as usize))
        }
        "lazy" => Ok(recv.clone()),
        "first" => {
            argc(args, 0, 1, pos)?;
            let n = match args.first() {
                Some(v) => {
                    let n = crate::methods::int_arg(v, pos)?;
                    if n < 0 {
                        return raise("ArgumentError", "attempt to take negative size", pos);
                    }
                    n as usize
                }
                None => 1,
            };
            let items = if n == 0 {
                Vec::new()
            } else {
                run_with(it, &g, None, n, l.ops.clone(), pos)?.1
            };
            if args.is_empty() {
                return Ok(items.into_iter().next().unwrap_or(RValue::Nil));
            }
            Ok(RValue::array(items))
        }
        "to_a" | "force" => {
            argc(args, 0, 0, pos)?;
            let items = run_with(it, &g, None, usize::MAX, l.ops.clone(), pos)?.1;
            Ok(RValue::array(items))
        }
        _ => unsupported(format!("Enumerator::Lazy#{name}"), pos),
    }
}

/// `Random.new(seed)`: Ruby's MT19937 ([`RubyRandom`]) and its seed.
#[derive(Debug)]
struct RandomData {
    rng: RefCell<RubyRandom>,
    /// The seed as given (an Integer, big or not).
    seed: RValue,
}

/// A generator passed as `random:` to `shuffle`/`sample`; `None` when there is none.
pub(crate) fn random_kwarg(args: &[RValue], pos: Pos) -> Result<Option<RValue>, Ctrl> {
    match args {
        [] => Ok(None),
        [RValue::Hash(h)] => match h.borrow().get(&RValue::sym("random")) {
            Some(r) if h.borrow().map.len() == 1 => Ok(Some(r.clone())),
            _ => unsupported("shuffle/sample with these keywords", pos),
        },
        _ => unsupported("shuffle/sample with these arguments", pos),
    }
}

/// `Array#shuffle(random: Random.new(seed))` and `Array#sample(random: ...)` as Ruby 3.1
/// draws them: the shuffle swaps each place `i` (from the end) with one drawn in `0...i`.
pub(crate) fn shuffle(items: &[RValue], rng: &RValue, sample: bool, pos: Pos) -> R {
    let Some(r) = (match rng {
        RValue::Object(o) => match &*o.data.borrow() {
            ObjData::Native(d) => d.clone().downcast::<RandomData>().ok(),
            _ => None,
        },
        _ => None,
    }) else {
        return unsupported(
            "shuffle/sample with a random: other than Random.new(seed)",
            pos,
        );
    };
    let mut rng = r.rng.borrow_mut();
    if sample {
        if items.is_empty() {
            return Ok(RValue::Nil);
        }
        let j = rng.rand_int(items.len() as i64).unwrap_or(0) as usize;
        return Ok(items.get(j).cloned().unwrap_or(RValue::Nil));
    }
    let mut v = items.to_vec();
    let mut i = v.len();
    while i > 0 {
        let j = rng.rand_int(i as i64).unwrap_or(0) as usize;
        i -= 1;
        v.swap(i, j);
    }
    Ok(RValue::array(v))
}

fn random_method(r: &RandomData, name: &str, args: &[RValue], pos: Pos) -> Option<R> {
    Some(match name {
        "seed" => Ok(r.seed.clone()),
        "rand" | "random_number" => (|| {
            argc(args, 0, 1, pos)?;
            let mut rng = r.rng.borrow_mut();
            let float = |rng: &mut RubyRandom| {
                let a = (rng.next_u32() >> 5) as f64;
                let b = (rng.next_u32() >> 6) as f64;
                (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
            };
            match args.first() {
                None => Ok(RValue::Float(float(&mut rng))),
                Some(RValue::Int(n)) => match rng.rand_int(*n) {
                    Some(v) => Ok(RValue::Int(v)),
                    None => raise("ArgumentError", format!("invalid argument - {n}"), pos),
                },
                Some(RValue::Float(x)) if *x > 0.0 && x.is_finite() => {
                    Ok(RValue::Float(float(&mut rng) * x))
                }
                Some(RValue::Range(rg)) => match (&rg.0, &rg.1) {
                    (RValue::Int(a), RValue::Int(b)) => {
                        let len = b - a + if rg.2 { 0 } else { 1 };
                        match rng.rand_int(len) {
                            Some(v) => Ok(RValue::Int(a + v)),
                            None => Ok(RValue::Nil),
                        }
                    }
                    _ => unsupported("Random#rand of a non-Integer range", pos),
                },
                Some(other) => unsupported(
                    format!("Random#rand({})", crate::value::inspect(other)),
                    pos,
                ),
            }
        })(),
        "bytes" => unsupported("Random#bytes", pos),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_zlib() {
        assert_eq!(crc32(b"hello", 0), 907_060_870);
        assert_eq!(crc32(b"", 0), 0);
        assert_eq!(crc32(b"lo", crc32(b"hel", 0)), 907_060_870);
        assert_eq!(adler32(b"hello", 1), 103_547_413);
    }
}
