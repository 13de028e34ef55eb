//! The entry to the standard-library classes that live in their own files: `Time`, `Date`
//! and `Rational` ([`crate::time`]), `ERB` objects and bindings ([`crate::erb`]), files opened for reading ([`crate::fileio`]), `Array#pack`/`String#unpack` ([`crate::pack`]),
//! `Zlib.crc32`/`adler32`, and `Enumerator.new { |y| ... }` (a generator and its yielder).
//! The interpreter asks [`class_method`] and [`object_method`] before its own fallbacks.
//!
//! A generator enumerator runs its block when it is read: `to_a`, `each` and Enumerable's
//! methods run it to the end; `first(n)`/`take(n)` stop it after `n` values (so an endless
//! generator works), and `next`/`peek` read the values of one run of up to
//! [`NEXT_LIMIT`] values, made on the first `next` (the block's side effects happen then,
//! once, where Ruby interleaves them with the `next` calls). `lazy` of a generator, a range
//! (endless ones too), an array or a hash chains `map`, `select`, `reject`, `filter_map`,
//! `take(_while)`, `drop(_while)`, `uniq`, `with_index` and `compact`, each value going
//! through the steps as the source gives it (see `lazy_method`). Seeded `Random`
//! is Ruby's MT19937 (`puppet_functions::random`); an unseeded one, `rand`, `srand` and an
//! unseeded `shuffle` use the default generator, random unless `srand` seeds it (as in Ruby:
//! such catalogs differ from run to run under Puppet too).

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::methods::argc;
use crate::object::{Blk, ObjData};
use crate::value::RValue;
use crate::Pos;
use puppet_functions::random::RubyRandom;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The most values `next` reads from one run of a generator.
const NEXT_LIMIT: usize = 100_000;

/// The name of a library class whose class methods [`class_method`] answers.
pub(crate) fn library_class(m: &crate::object::Module) -> Option<&'static str> {
    [
        "Time",
        "Date",
        "DateTime",
        "Zlib",
        "Enumerator",
        "Random",
        "SecureRandom",
        "File",
        "Dir",
        "YAML",
        "Psych",
        "JSON",
        "Marshal",
        "SemanticPuppet::Version",
        "SemanticPuppet::VersionRange",
    ]
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
    if let Some(r) = crate::fileio::class_method(it, cname, name, args, block, pos) {
        return Some(r);
    }
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
        ("SemanticPuppet::Version", "parse" | "valid?" | "new")
        | ("SemanticPuppet::VersionRange", "parse") => {
            Some(crate::puppet::semantic_puppet(cname, name, args, pos))
        }
        ("Marshal", "dump") => Some((|| {
            argc(args, 1, 2, pos)?;
            if args.len() > 1 {
                return unsupported("Marshal.dump to an IO or with a depth limit", pos);
            }
            crate::marshal::dump(it, &args[0], pos)
        })()),
        ("Marshal", "load" | "restore") => Some((|| {
            argc(args, 1, 2, pos)?;
            if args.len() > 1 || block.is_some() {
                return unsupported(format!("Marshal.{name} with a proc"), pos);
            }
            crate::marshal::load(it, &args[0], pos)
        })()),
        ("Random", "new") => Some((|| {
            argc(args, 0, 1, pos)?;
            // Ruby seeds MT19937 with the 32-bit words of the seed's absolute value (a big
            // one too: `Random.new(Digest::SHA256.hexdigest(s).to_i(16))`); no seed is a
            // random one.
            let seed = match args.first() {
                Some(s @ RValue::Big(_)) => s.clone(),
                Some(s) => RValue::Int(crate::methods::int_arg(s, pos)?),
                None => RValue::Int(random_seed()),
            };
            Ok(it.new_native("Random", seeded(seed, pos)?))
        })()),
        ("Random", "rand" | "random_number") => Some(with_default_rng(|r| {
            random_method(r, "rand", args, pos).unwrap_or(Ok(RValue::Nil))
        })),
        ("Random", "srand") => Some(srand(args, pos)),
        ("Random", "new_seed") => Some(Ok(RValue::Int(random_seed()))),
        ("Random", "bytes") => Some(unsupported("Random.bytes", pos)),
        ("SecureRandom", _) => Some(secure_random(name, args, pos)),
        ("Enumerator", "new") => Some(match block {
            Some(b) => {
                let gen = GenData {
                    block: b.clone(),
                    cursor: Cursor::default(),
                };
                Ok(it.new_native("Enumerator", gen))
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
    if let Ok(e) = data.clone().downcast::<crate::erb::ErbData>() {
        return crate::erb::erb_method(it, &e, name, args, pos);
    }
    if let Ok(b) = data.clone().downcast::<crate::erb::BindingData>() {
        return crate::erb::binding_method(it, &b, name, args, pos);
    }
    if let Ok(y) = data.clone().downcast::<YielderData>() {
        return yielder_method(it, recv, &y, name, args, pos);
    }
    if let Ok(l) = data.clone().downcast::<LazyData>() {
        return Some(lazy_method(it, recv, &l, name, args, block, pos));
    }
    if let Ok(r) = data.clone().downcast::<RandomData>() {
        return random_method(&r, name, args, pos);
    }
    if data.clone().downcast::<crate::fileio::OutStream>().is_ok() {
        return crate::fileio::out_stream_method(recv, name, args);
    }
    if data.downcast::<crate::fileio::FileIo>().is_ok() {
        return crate::fileio::object_method(it, recv, name, args, block, pos);
    }
    crate::time::object_method(it, recv, name, args, block, pos)
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

/// `Enumerator.new { |y| ... }`: the block, and where `next` is.
#[derive(Debug)]
struct GenData {
    block: Blk,
    cursor: Cursor,
}

/// An enumerator's external enumeration (`next`, `peek`, `rewind`): its values, taken
/// once at the first `next`, and the index of the next one.
#[derive(Debug, Default)]
pub(crate) struct Cursor {
    taken: RefCell<Option<Rc<Vec<RValue>>>>,
    at: Cell<usize>,
}

impl Cursor {
    /// The index of the next value.
    pub(crate) fn position(&self) -> usize {
        self.at.get()
    }

    /// `next` (advances) or `peek`: the next value, `take` giving the values the first
    /// time; past the last, Ruby's StopIteration.
    pub(crate) fn step(
        &self,
        name: &str,
        take: impl FnOnce() -> Result<Vec<RValue>, Ctrl>,
        pos: Pos,
    ) -> R {
        let taken = self.taken.borrow().clone();
        let items = match taken {
            Some(t) => t,
            None => {
                let t = Rc::new(take()?);
                *self.taken.borrow_mut() = Some(t.clone());
                t
            }
        };
        let k = self.at.get();
        match items.get(k) {
            Some(v) => {
                if name == "next" {
                    self.at.set(k + 1);
                }
                Ok(v.clone())
            }
            None => raise("StopIteration", "iteration reached an end", pos),
        }
    }

    /// `rewind`: the values are taken again at the next `next`.
    pub(crate) fn rewind(&self) {
        self.at.set(0);
        *self.taken.borrow_mut() = None;
    }
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
    /// The steps' counters for this run.
    states: RefCell<Vec<OpState>>,
}

/// One step of `x.lazy...`.
#[derive(Debug, Clone)]
enum LazyOp {
    Map(Blk),
    Select(Blk),
    Reject(Blk),
    FilterMap(Blk),
    TakeWhile(Blk),
    Take(usize),
    DropWhile(Blk),
    Drop(usize),
    /// `uniq`, by the block's value when there is one.
    Uniq(Option<Blk>),
    /// `with_index(offset)`/`each_with_index`: `[x, i]`, or with a block, the block called
    /// with both and `x` passed on.
    WithIndex(i64, Option<Blk>),
    Compact,
}

/// A step's counter in one run of a chain: values seen (`take`, `drop`, `with_index`),
/// whether `drop_while` has stopped dropping, the keys `uniq` has let through.
#[derive(Debug, Default, Clone)]
struct OpState {
    count: usize,
    done: bool,
    seen: std::collections::HashSet<crate::value::HKey>,
}

/// What a chain makes of one value.
enum Step {
    Emit(RValue),
    Skip,
    Stop,
}

/// Runs value `v` through the steps `ops` (their counters in `states`).
fn lazy_step(
    it: &mut Interp,
    ops: &[LazyOp],
    states: &RefCell<Vec<OpState>>,
    mut v: RValue,
    pos: Pos,
) -> Result<Step, Ctrl> {
    for (k, op) in ops.iter().enumerate() {
        match op {
            LazyOp::Map(b) => v = it.call_block(b, vec![v], pos)?,
            LazyOp::Select(b) | LazyOp::Reject(b) => {
                let keep = it.call_block(b, vec![v.clone()], pos)?.truthy();
                if keep != matches!(op, LazyOp::Select(_)) {
                    return Ok(Step::Skip);
                }
            }
            LazyOp::FilterMap(b) => {
                let r = it.call_block(b, vec![v], pos)?;
                if !r.truthy() {
                    return Ok(Step::Skip);
                }
                v = r;
            }
            LazyOp::TakeWhile(b) => {
                if !it.call_block(b, vec![v.clone()], pos)?.truthy() {
                    return Ok(Step::Stop);
                }
            }
            LazyOp::Take(n) => {
                let mut st = states.borrow_mut();
                if st[k].count >= *n {
                    return Ok(Step::Stop);
                }
                st[k].count += 1;
            }
            LazyOp::Drop(n) => {
                let mut st = states.borrow_mut();
                if st[k].count < *n {
                    st[k].count += 1;
                    return Ok(Step::Skip);
                }
            }
            LazyOp::DropWhile(b) => {
                if !states.borrow()[k].done {
                    if it.call_block(b, vec![v.clone()], pos)?.truthy() {
                        return Ok(Step::Skip);
                    }
                    states.borrow_mut()[k].done = true;
                }
            }
            LazyOp::Uniq(b) => {
                let key = match b {
                    Some(b) => it.call_block(b, vec![v.clone()], pos)?,
                    None => v.clone(),
                };
                if !states.borrow_mut()[k]
                    .seen
                    .insert(crate::value::HKey::of(&key))
                {
                    return Ok(Step::Skip);
                }
            }
            LazyOp::WithIndex(offset, b) => {
                let i = {
                    let mut st = states.borrow_mut();
                    st[k].count += 1;
                    RValue::Int(offset.saturating_add(st[k].count as i64 - 1))
                };
                match b {
                    Some(b) => {
                        it.call_block(b, vec![v.clone(), i], pos)?;
                    }
                    None => v = RValue::array(vec![v, i]),
                }
            }
            LazyOp::Compact => {
                if matches!(v, RValue::Nil) {
                    return Ok(Step::Skip);
                }
            }
        }
    }
    Ok(Step::Emit(v))
}

/// Whether a `take(n)` step has let its `n` values through (the chain ends there).
fn takes_done(ops: &[LazyOp], states: &RefCell<Vec<OpState>>) -> bool {
    let st = states.borrow();
    ops.iter()
        .enumerate()
        .any(|(k, op)| matches!(op, LazyOp::Take(n) if st[k].count >= *n))
}

/// `x.lazy` and the steps chained on it: the source (a generator enumerator, a range, an
/// array or anything with `to_a`) and the steps.
#[derive(Debug)]
struct LazyData {
    source: RValue,
    ops: Vec<LazyOp>,
}

/// `x.lazy` for a range, an array or a hash: a lazy enumerator reading `x` value by value
/// as its steps ask (an endless range works).
pub(crate) fn lazy_of(it: &mut Interp, source: RValue) -> RValue {
    it.new_native(
        "Enumerator::Lazy",
        LazyData {
            source,
            ops: Vec::new(),
        },
    )
}

/// Passes the values of a lazy chain's source (not a generator) to `f` until it says
/// stop: an integer range one by one (endless ones too), other values through `to_a`.
fn each_source(
    it: &mut Interp,
    source: &RValue,
    f: &mut dyn FnMut(&mut Interp, RValue) -> Result<bool, Ctrl>,
    pos: Pos,
) -> Result<(), Ctrl> {
    match source {
        RValue::Range(r) if matches!(r.0, RValue::Int(_)) => {
            let RValue::Int(mut i) = r.0 else {
                return Ok(());
            };
            while crate::methods::range_cover(r, &RValue::Int(i)) {
                it.tick(pos)?;
                if !f(it, RValue::Int(i))? {
                    break;
                }
                i = match i.checked_add(1) {
                    Some(n) => n,
                    None => break,
                };
            }
            Ok(())
        }
        RValue::Array(a) => {
            let items = a.borrow().clone();
            for x in items {
                it.tick(pos)?;
                if !f(it, x)? {
                    break;
                }
            }
            Ok(())
        }
        other => {
            let items = it.call_method(other.clone(), "to_a", Vec::new(), None, pos)?;
            match items {
                RValue::Array(_) => each_source(it, &items, f, pos),
                _ => unsupported("Enumerator::Lazy of this value", pos),
            }
        }
    }
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
    let tag = it.new_native("Object", ());
    let y = YielderData {
        target: target.cloned(),
        collected: RefCell::new(Vec::new()),
        limit,
        tag: tag.clone(),
        states: RefCell::new(vec![OpState::default(); ops.len()]),
        ops,
    };
    let yv = it.new_native("Enumerator::Yielder", y);
    let r = it.call_block(&g.block, vec![yv.clone()], pos);
    let r = match r {
        Err(Ctrl::Throw(tv)) if crate::value::equal(&tv.0, &tag) => RValue::Nil,
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
                    let stop = || Err(Ctrl::Throw(Box::new((y.tag.clone(), RValue::Nil))));
                    match lazy_step(it, &y.ops, &y.states, value(args), pos)? {
                        Step::Stop => return stop(),
                        Step::Skip => {}
                        Step::Emit(v) => y.collected.borrow_mut().push(v),
                    }
                    if y.collected.borrow().len() >= y.limit || takes_done(&y.ops, &y.states) {
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
            if g.cursor.position() >= NEXT_LIMIT {
                return unsupported(format!("Enumerator#next past {NEXT_LIMIT} values"), pos);
            }
            g.cursor
                .step(name, || Ok(run(it, g, None, NEXT_LIMIT + 1, pos)?.1), pos)
        }
        ("rewind", _) => {
            g.cursor.rewind();
            Ok(recv.clone())
        }
        ("size", _) => Ok(RValue::Nil),
        ("lazy", _) => Ok(it.new_native(
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

/// Methods of `x.lazy`: the steps `map`, `select`/`filter`, `reject`, `filter_map`,
/// `take_while`, `take(n)`, `drop_while`, `drop(n)`, `uniq`, `with_index`/
/// `each_with_index` and `compact`, read by `first`, `to_a`/`force`, `each`, `find` and
/// `include?` value by value (the others read every value, then ask the array); the lazy
/// steps not listed are errors naming them.
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
        Ok(it.new_native(
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
    let count_arg = |it: &mut Interp| -> Result<usize, Ctrl> {
        let _ = it;
        argc(args, 1, 1, pos)?;
        let n = crate::methods::int_arg(&args[0], pos)?;
        if n < 0 {
            return raise("ArgumentError", "attempt to take negative size", pos);
        }
        Ok(n as usize)
    };
    match name {
        "map" | "collect" => {
            let b = need("map")?;
            return chain(it, LazyOp::Map(b));
        }
        "select" | "filter" => {
            let b = need("select")?;
            return chain(it, LazyOp::Select(b));
        }
        "reject" => {
            let b = need("reject")?;
            return chain(it, LazyOp::Reject(b));
        }
        "filter_map" => {
            let b = need("filter_map")?;
            return chain(it, LazyOp::FilterMap(b));
        }
        "take_while" => {
            let b = need("take_while")?;
            return chain(it, LazyOp::TakeWhile(b));
        }
        "drop_while" => {
            let b = need("drop_while")?;
            return chain(it, LazyOp::DropWhile(b));
        }
        "take" => {
            let n = count_arg(it)?;
            return chain(it, LazyOp::Take(n));
        }
        "drop" => {
            argc(args, 1, 1, pos)?;
            let n = crate::methods::int_arg(&args[0], pos)?;
            if n < 0 {
                return raise("ArgumentError", "attempt to drop negative size", pos);
            }
            return chain(it, LazyOp::Drop(n as usize));
        }
        "uniq" => return chain(it, LazyOp::Uniq(block.cloned())),
        "compact" => return chain(it, LazyOp::Compact),
        "with_index" | "each_with_index" => {
            let offset = match args.first() {
                Some(RValue::Nil) | None => 0,
                Some(v) => crate::methods::int_arg(v, pos)?,
            };
            let offset = if name == "each_with_index" { 0 } else { offset };
            return chain(it, LazyOp::WithIndex(offset, block.cloned()));
        }
        "lazy" => return Ok(recv.clone()),
        "flat_map" | "collect_concat" | "zip" | "grep" | "grep_v" | "chunk_while"
        | "slice_when" | "slice_before" | "slice_after" | "chunk" | "each_slice" | "each_cons"
        | "with_object" | "each_with_object" | "inspect" | "to_s" | "size" => {
            return unsupported(format!("Enumerator::Lazy#{name}"), pos);
        }
        _ => {}
    }
    let generator = match &l.source {
        RValue::Object(o) => match &*o.data.borrow() {
            ObjData::Native(d) => d.clone().downcast::<GenData>().ok(),
            _ => None,
        },
        _ => None,
    };
    // The chain's first `limit` values; `each` is called with each as it comes (`false`:
    // stop), for sources other than generators.
    let read = |it: &mut Interp,
                limit: usize,
                each: &mut dyn FnMut(&mut Interp, &RValue) -> Result<bool, Ctrl>|
     -> Result<Vec<RValue>, Ctrl> {
        if limit == 0 || l.ops.iter().any(|op| matches!(op, LazyOp::Take(0))) {
            return Ok(Vec::new());
        }
        if let Some(g) = &generator {
            let items = run_with(it, g, None, limit, l.ops.clone(), pos)?.1;
            let mut out = Vec::new();
            for v in items {
                let go = each(it, &v)?;
                out.push(v);
                if !go {
                    break;
                }
            }
            return Ok(out);
        }
        let states = RefCell::new(vec![OpState::default(); l.ops.len()]);
        let mut out = Vec::new();
        each_source(
            it,
            &l.source,
            &mut |it, v| {
                match lazy_step(it, &l.ops, &states, v, pos)? {
                    Step::Stop => return Ok(false),
                    Step::Skip => {}
                    Step::Emit(v) => {
                        it.charge(16, pos)?;
                        let go = each(it, &v)?;
                        out.push(v);
                        if !go {
                            return Ok(false);
                        }
                    }
                }
                Ok(out.len() < limit && !takes_done(&l.ops, &states))
            },
            pos,
        )?;
        Ok(out)
    };
    let mut all = |_: &mut Interp, _: &RValue| Ok(true);
    match name {
        "first" => {
            argc(args, 0, 1, pos)?;
            let n = match args.first() {
                Some(_) => count_arg(it)?,
                None => 1,
            };
            let items = read(it, n, &mut all)?;
            if args.is_empty() {
                return Ok(items.into_iter().next().unwrap_or(RValue::Nil));
            }
            Ok(RValue::array(items))
        }
        "to_a" | "force" => {
            argc(args, 0, 0, pos)?;
            let items = read(it, usize::MAX, &mut all)?;
            Ok(RValue::array(items))
        }
        "each" if block.is_some() => {
            let b = need("each")?;
            read(it, usize::MAX, &mut |it, v| {
                it.call_block(&b, vec![v.clone()], pos)?;
                Ok(true)
            })?;
            Ok(recv.clone())
        }
        "find" | "detect" | "include?" | "member?" => {
            let want = match name {
                "find" | "detect" => {
                    argc(args, 0, 0, pos)?;
                    None
                }
                _ => {
                    argc(args, 1, 1, pos)?;
                    Some(args[0].clone())
                }
            };
            let b = match &want {
                Some(_) => None,
                None => Some(need("find")?),
            };
            let mut found = None;
            read(it, usize::MAX, &mut |it, v| {
                let hit = match (&want, &b) {
                    (Some(w), _) => crate::value::equal(v, w),
                    (None, Some(b)) => it.call_block(b, vec![v.clone()], pos)?.truthy(),
                    (None, None) => false,
                };
                if hit {
                    found = Some(v.clone());
                }
                Ok(!hit)
            })?;
            Ok(match want {
                Some(_) => RValue::Bool(found.is_some()),
                None => found.unwrap_or(RValue::Nil),
            })
        }
        // `eager` and Enumerable's other methods: every value, then the array's method.
        _ => {
            let items = read(it, usize::MAX, &mut all)?;
            let name = if name == "eager" { "to_a" } else { name };
            it.call_method(RValue::array(items), name, args.to_vec(), block, pos)
        }
    }
}

/// `n` random bytes, from the process's randomly keyed hasher (a fresh key each call) and
/// the clock. `SecureRandom`'s values are random under Puppet too: a catalog that uses
/// them differs from run to run there as here. Not for cryptographic use.
fn random_bytes(n: usize) -> Vec<u8> {
    use std::hash::{BuildHasher, Hasher};
    let state = std::collections::hash_map::RandomState::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut out = Vec::with_capacity(n + 8);
    let mut k = 0u64;
    while out.len() < n {
        let mut h = state.build_hasher();
        h.write_u128(now);
        h.write_u64(k);
        out.extend_from_slice(&h.finish().to_le_bytes());
        k += 1;
    }
    out.truncate(n);
    out
}

/// A random 64-bit number.
fn random_u64() -> u64 {
    let b = random_bytes(8);
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// A random float in [0, 1) (53 random bits, as Ruby's).
fn random_unit() -> f64 {
    (random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `SecureRandom.hex`, `uuid`, `alphanumeric`, `random_number`/`rand`, `random_bytes`/
/// `bytes`, `base64` and `urlsafe_base64`, with Ruby's defaults (16 bytes) and checks.
fn secure_random(name: &str, args: &[RValue], pos: Pos) -> R {
    use base64::Engine;
    let size = |max: usize| -> Result<usize, Ctrl> {
        argc(args, 0, max, pos)?;
        match args.first() {
            None | Some(RValue::Nil) => Ok(16),
            Some(v) => {
                let n = crate::methods::int_arg(v, pos)?;
                if n < 0 {
                    return raise(
                        "ArgumentError",
                        "negative string size (or size too big)",
                        pos,
                    );
                }
                if n > 1 << 20 {
                    return unsupported(format!("SecureRandom.{name} of {n} bytes"), pos);
                }
                Ok(n as usize)
            }
        }
    };
    match name {
        "hex" => Ok(RValue::string(puppet_functions::digest::hex(
            &random_bytes(size(1)?),
        ))),
        "random_bytes" | "bytes" => Ok(crate::methods::binary_string(&random_bytes(size(1)?))),
        "base64" => Ok(RValue::string(
            base64::engine::general_purpose::STANDARD.encode(random_bytes(size(1)?)),
        )),
        "urlsafe_base64" => {
            let bytes = random_bytes(size(2)?);
            let padding = args.get(1).is_some_and(|p| p.truthy());
            Ok(RValue::string(if padding {
                base64::engine::general_purpose::URL_SAFE.encode(bytes)
            } else {
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
            }))
        }
        "uuid" => {
            argc(args, 0, 0, pos)?;
            let mut b = random_bytes(16);
            b[6] = (b[6] & 0x0f) | 0x40;
            b[8] = (b[8] & 0x3f) | 0x80;
            let h = puppet_functions::digest::hex(&b);
            Ok(RValue::string(format!(
                "{}-{}-{}-{}-{}",
                &h[..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..]
            )))
        }
        "alphanumeric" => {
            const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
            let n = size(1)?;
            Ok(RValue::string(
                (0..n)
                    .map(|_| CHARS[(random_u64() % CHARS.len() as u64) as usize] as char)
                    .collect(),
            ))
        }
        "random_number" | "rand" => {
            argc(args, 0, 1, pos)?;
            match args.first() {
                Some(RValue::Int(n)) if *n > 0 => {
                    Ok(RValue::Int((random_u64() % *n as u64) as i64))
                }
                Some(RValue::Float(f)) if *f > 0.0 => Ok(RValue::Float(random_unit() * f)),
                Some(RValue::Range(r)) => match (&r.0, &r.1) {
                    (RValue::Int(a), RValue::Int(b)) => {
                        let hi = if r.2 { b.saturating_sub(1) } else { *b };
                        if hi < *a {
                            return Ok(RValue::Nil);
                        }
                        let span = (hi as i128 - *a as i128 + 1) as u128;
                        Ok(RValue::Int(
                            (*a as i128 + (random_u64() as u128 % span) as i128) as i64,
                        ))
                    }
                    _ => unsupported(format!("SecureRandom.{name} of this range"), pos),
                },
                None | Some(RValue::Nil | RValue::Int(_) | RValue::Float(_)) => {
                    Ok(RValue::Float(random_unit()))
                }
                Some(other) => raise(
                    "ArgumentError",
                    format!("invalid argument - {}", crate::value::inspect(other)),
                    pos,
                ),
            }
        }
        _ => unsupported(format!("SecureRandom.{name}"), pos),
    }
}

/// `Random.new(seed)`: Ruby's MT19937 ([`RubyRandom`]) and its seed.
#[derive(Debug)]
struct RandomData {
    rng: RefCell<RubyRandom>,
    /// The seed as given (an Integer, big or not).
    seed: RValue,
}

thread_local! {
    /// Ruby's default generator (`Random::DEFAULT`, what `rand`, `srand`, `Random.rand` and
    /// an unseeded `shuffle` use): seeded from a random number on first use, or by `srand`.
    /// Without `srand` its numbers are random, under Puppet too.
    static DEFAULT_RNG: RefCell<Option<Rc<RandomData>>> = const { RefCell::new(None) };
}

/// A random seed (positive, 62 bits).
fn random_seed() -> i64 {
    (random_u64() >> 2) as i64
}

fn seeded(seed: RValue, pos: Pos) -> Result<RandomData, Ctrl> {
    let rng = match &seed {
        RValue::Big(b) => RubyRandom::from_words(&b.magnitude().to_u32_digits()),
        _ => RubyRandom::from_u64(crate::methods::int_arg(&seed, pos)?.unsigned_abs()),
    };
    Ok(RandomData {
        rng: RefCell::new(rng),
        seed,
    })
}

/// Runs `f` with the default generator (created on first use).
fn with_default_rng(f: impl FnOnce(&RandomData) -> R) -> R {
    let r = DEFAULT_RNG.with(|d| {
        d.borrow_mut()
            .get_or_insert_with(|| {
                Rc::new(RandomData {
                    rng: RefCell::new(RubyRandom::from_u64(random_u64())),
                    seed: RValue::Int(random_seed()),
                })
            })
            .clone()
    });
    f(&r)
}

/// `Kernel#srand(seed = random)`: seeds the default generator; the previous seed back.
pub(crate) fn srand(args: &[RValue], pos: Pos) -> R {
    argc(args, 0, 1, pos)?;
    let seed = match args.first() {
        Some(RValue::Float(f)) => crate::bigint::from_float(*f),
        Some(v) => v.clone(),
        None => RValue::Int(random_seed()),
    };
    let new = Rc::new(seeded(seed, pos)?);
    let old = DEFAULT_RNG.with(|d| d.borrow_mut().replace(new));
    Ok(old.map_or_else(|| RValue::Int(random_seed()), |o| o.seed.clone()))
}

/// `Kernel#rand(max = 0)`: a float in [0, 1) for 0 or nil, else an Integer below
/// `max.to_i.abs` (a Float max is truncated), a number in a range; from the default
/// generator.
pub(crate) fn kernel_rand(args: &[RValue], pos: Pos) -> R {
    argc(args, 0, 1, pos)?;
    let max = match args.first() {
        None | Some(RValue::Nil) => None,
        Some(RValue::Float(f)) => Some(RValue::Int(f.trunc().abs() as i64)),
        Some(RValue::Int(n)) => Some(RValue::Int(n.unsigned_abs().min(i64::MAX as u64) as i64)),
        Some(other) => Some(other.clone()),
    };
    let args: Vec<RValue> = match max {
        None | Some(RValue::Int(0)) => vec![],
        Some(m) => vec![m],
    };
    with_default_rng(|r| random_method(r, "rand", &args, pos).unwrap_or(Ok(RValue::Nil)))
}

/// An unseeded `shuffle`/`sample`: from the default generator.
pub(crate) fn shuffle_default(items: &[RValue], sample: bool) -> R {
    with_default_rng(|r| shuffle_with(items, r, sample))
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
    shuffle_with(items, &r, sample)
}

fn shuffle_with(items: &[RValue], r: &RandomData, sample: bool) -> R {
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
