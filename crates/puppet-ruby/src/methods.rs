//! Built-in Ruby methods on template values: Kernel conversions, Integer/Float arithmetic,
//! String, Symbol, Array, Hash, Range, Regexp, MatchData, IPAddr, the Puppet scope object and
//! the few library classes templates use (`File.join`, `IPAddr.new`).
//!
//! Each method follows the Ruby 3.1 behaviour for the argument shapes templates use. A method
//! Ruby has but this engine does not implement is reported as unsupported; calling a method
//! on nil that nil lacks raises `NoMethodError` as Ruby does.

use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::object::Blk;
use crate::value::{self, compare, inspect, to_s, RHash, RValue};
use crate::Pos;
use num_bigint::BigInt;
use num_integer::Integer as _;
use num_traits::{Signed, Zero};
use puppet_types::printf::{self, Rounding};
use puppet_types::{Type, Value};
use std::cmp::Ordering;
use std::rc::Rc;

/// Items of an enumerable (hash pairs as `[k, v]` arrays).
pub fn iter_items(it: &mut Interp, v: &RValue, pos: Pos) -> Result<Vec<RValue>, Ctrl> {
    match v {
        RValue::Array(a) => Ok(a.borrow().clone()),
        RValue::Hash(h) => Ok(h
            .borrow()
            .map
            .values()
            .map(|(k, v)| RValue::array(vec![k.clone(), v.clone()]))
            .collect()),
        RValue::Range(r) => range_items(it, r, pos),
        other => raise(
            "NoMethodError",
            format!("undefined method `each' for {}", describe(other)),
            pos,
        ),
    }
}

/// What `*x` expands to (a range's elements charged as built data, see [`range_items`]).
pub fn splat_items(it: &mut Interp, v: &RValue, pos: Pos) -> Result<Vec<RValue>, Ctrl> {
    Ok(match v {
        RValue::Array(a) => a.borrow().clone(),
        RValue::Nil => vec![],
        RValue::Hash(h) => h
            .borrow()
            .map
            .values()
            .map(|(k, v)| RValue::array(vec![k.clone(), v.clone()]))
            .collect(),
        RValue::Range(r) => range_items(it, r, pos)?,
        other => vec![other.clone()],
    })
}

/// The values of a Float step from `beg` to `end` by `unit` (`1.0.step(2.0, 0.5)`,
/// `(1.0..2.0).step(0.5)`), counted as Ruby counts them (`ruby_float_step_size`): the
/// number of steps allows for rounding error, and the last value is clamped to `end`.
fn float_steps(beg: f64, end: f64, unit: f64, excl: bool, pos: Pos) -> Result<Vec<f64>, Ctrl> {
    let n = (end - beg) / unit;
    let err = ((beg.abs() + end.abs() + (end - beg).abs()) / unit.abs() * f64::EPSILON).min(0.5);
    let count = if unit.is_infinite() {
        f64::from(u8::from(if unit > 0.0 { beg <= end } else { beg >= end }))
    } else if excl {
        if n <= 0.0 {
            0.0
        } else {
            let mut k = if n < 1.0 { 0.0 } else { (n - err).floor() };
            let d = (k + 1.0) * unit + beg;
            if (beg < end && d < end) || (beg > end && d > end) {
                k += 1.0;
            }
            k + 1.0
        }
    } else if n < 0.0 {
        0.0
    } else {
        (n + err).floor() + 1.0
    };
    if count.is_nan() || count > 10_000_000.0 {
        return raise("RangeError", "too many steps for this engine", pos);
    }
    Ok((0..count as u64)
        .map(|i| {
            let d = i as f64 * unit + beg;
            if (unit >= 0.0 && end < d) || (unit < 0.0 && d < end) {
                end
            } else {
                d
            }
        })
        .collect())
}

/// The elements of a range, as `to_a` builds them: each counts as built data against the
/// memory bound and the step budget ([`Interp::charge`]), before it is built, so that a huge
/// range ends the run instead of taking seconds.
pub(crate) fn range_items(
    it: &mut Interp,
    r: &(RValue, RValue, bool),
    pos: Pos,
) -> Result<Vec<RValue>, Ctrl> {
    const ELEMENT: usize = crate::interp::BYTES_PER_STEP;
    match (&r.0, &r.1) {
        (RValue::Int(a), RValue::Int(b)) => {
            let end = if r.2 { b.saturating_sub(1) } else { *b };
            let n = end.saturating_sub(*a).saturating_add(1).max(0) as usize;
            it.charge(n.saturating_mul(ELEMENT), pos)?;
            Ok((*a..=end).map(RValue::Int).collect())
        }
        (RValue::Int(_) | RValue::Big(_), RValue::Int(_) | RValue::Big(_)) => {
            let (a, b) = (
                crate::bigint::of(&r.0).unwrap_or_default(),
                crate::bigint::of(&r.1).unwrap_or_default(),
            );
            let end = if r.2 { b - 1 } else { b };
            let n = num_traits::ToPrimitive::to_usize(&(&end - &a + 1)).unwrap_or(usize::MAX);
            if end < a {
                return Ok(Vec::new());
            }
            it.charge(n.saturating_mul(ELEMENT), pos)?;
            let mut out = Vec::with_capacity(n);
            let mut i = a;
            while i <= end {
                out.push(crate::bigint::norm(i.clone()));
                i += 1;
            }
            Ok(out)
        }
        (RValue::Int(a), RValue::Float(b)) => {
            let mut out = Vec::new();
            let mut i = *a;
            while (i as f64) < *b || (!r.2 && (i as f64) == *b) {
                it.charge(ELEMENT, pos)?;
                out.push(RValue::Int(i));
                i += 1;
            }
            Ok(out)
        }
        (RValue::Str(a), RValue::Str(b)) => {
            let (a, b) = (a.borrow().clone(), b.borrow().clone());
            if a.chars().count() == 1 && b.chars().count() == 1 {
                let (x, y) = (
                    a.chars().next().unwrap_or('a'),
                    b.chars().next().unwrap_or('a'),
                );
                let end = if r.2 {
                    (y as u32).saturating_sub(1)
                } else {
                    y as u32
                };
                let n = end.saturating_sub(x as u32).saturating_add(1) as usize;
                it.charge(n.saturating_mul(ELEMENT), pos)?;
                return Ok((x as u32..=end)
                    .filter_map(char::from_u32)
                    .map(|c| RValue::string(c.to_string()))
                    .collect());
            }
            // String#upto as Ruby's rb_str_upto_each: two digit strings count as numbers
            // (padded to the first's width); else nothing when the first sorts after the
            // end, and successors from the first (always yielded) until the end, a
            // successor longer than the end, or an empty one.
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
            if digits(&a) && digits(&b) {
                if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
                    let width = a.len();
                    let mut out = Vec::new();
                    let mut i = x;
                    while i < y || (i == y && !r.2) {
                        it.charge(ELEMENT + width, pos)?;
                        out.push(RValue::string(format!("{i:0width$}")));
                        i += 1;
                    }
                    return Ok(out);
                }
            }
            let mut out = Vec::new();
            match a.as_bytes().cmp(b.as_bytes()) {
                Ordering::Greater => return Ok(out),
                Ordering::Equal if r.2 => return Ok(out),
                _ => {}
            }
            let after_end = crate::strings::str_succ(&b);
            let mut cur = a.clone();
            while cur != after_end {
                let next = (r.2 || cur != b).then(|| crate::strings::str_succ(&cur));
                it.charge(ELEMENT + cur.len(), pos)?;
                out.push(RValue::string(cur));
                let Some(n) = next else {
                    break;
                };
                cur = n;
                if (r.2 && cur == b) || cur.len() > b.len() || cur.is_empty() {
                    break;
                }
            }
            Ok(out)
        }
        (RValue::Float(_), _) => raise("TypeError", "can't iterate from Float", pos),
        (RValue::Nil, _) => raise("TypeError", "can't iterate from NilClass", pos),
        (RValue::IpAddr(a), RValue::IpAddr(b)) => {
            let mut out = Vec::new();
            for ip in crate::ipaddr::range_addresses(a, b, r.2)
                .into_iter()
                .flatten()
            {
                it.charge(ELEMENT, pos)?;
                out.push(RValue::IpAddr(Rc::new(ip)));
            }
            Ok(out)
        }
        _ => unsupported("iterating an endless range", pos),
    }
}

/// `Range#cover?`.
pub fn range_cover(r: &(RValue, RValue, bool), v: &RValue) -> bool {
    if matches!(r.0, RValue::Nil) {
        // A beginless range: only the end bounds it (`(..5) === nil` is false).
        if matches!(r.1, RValue::Nil) {
            return true;
        }
    } else {
        let lo = compare(&r.0, v);
        if !matches!(lo, Some(Ordering::Less) | Some(Ordering::Equal)) {
            return false;
        }
    }
    if matches!(r.1, RValue::Nil) {
        return true;
    }
    match compare(v, &r.1) {
        Some(Ordering::Less) => true,
        Some(Ordering::Equal) => !r.2,
        _ => false,
    }
}

/// `r.cover?(o)` for a range `o` (Ruby's `r_cover_range_p`): `o` is not empty, its start
/// is in `r` and its end no further than `r`'s (an integer range that excludes its end
/// reaches its last member).
fn range_covers_range(r: &(RValue, RValue, bool), o: &(RValue, RValue, bool)) -> bool {
    let nil = |v: &RValue| matches!(v, RValue::Nil);
    if (!nil(&r.1) && nil(&o.1)) || (!nil(&r.0) && nil(&o.0)) {
        return false;
    }
    if !nil(&o.0) && !nil(&o.1) {
        match compare(&o.0, &o.1) {
            Some(Ordering::Greater) => return false,
            Some(Ordering::Equal) if o.2 => return false,
            None => return false,
            _ => {}
        }
    }
    if !nil(&o.0) && !range_cover(r, &o.0) {
        return false;
    }
    if nil(&r.1) {
        return true;
    }
    let Some(cmp_end) = compare(&r.1, &o.1) else {
        return false;
    };
    if r.2 == o.2 {
        return cmp_end != Ordering::Less;
    }
    if r.2 {
        return cmp_end == Ordering::Greater;
    }
    if cmp_end != Ordering::Less {
        return true;
    }
    // `o` excludes its end: its last member, for integers.
    match (&r.1, &o.1) {
        (RValue::Int(a), RValue::Int(b)) => *a >= b - 1,
        _ => false,
    }
}

/// A receiver as `NoMethodError` texts show it (`nil:NilClass`, `"abc":String`).
pub(crate) fn describe(v: &RValue) -> String {
    match v {
        RValue::Nil => "nil:NilClass".into(),
        RValue::Module(m) => format!(
            "{}:{}",
            m.name(),
            if m.is_class { "Class" } else { "Module" }
        ),
        RValue::Bool(true) => "true:TrueClass".into(),
        RValue::Bool(false) => "false:FalseClass".into(),
        RValue::Scope => "#<Puppet::Parser::Scope>".into(),
        other => {
            // Ruby 3.1 quotes the receiver's inspect, followed by its class unless the
            // inspect already is a `#<...>` form.
            let s = inspect(other);
            if s.starts_with('#') {
                s
            } else {
                format!("{s}:{}", other.class_name())
            }
        }
    }
}

/// The error for a missing method: `NoMethodError` on nil/booleans, unsupported otherwise.
pub fn no_method_pub<T>(recv: &RValue, name: &str, pos: Pos) -> Result<T, Ctrl> {
    no_method(recv, name, pos)
}

/// Ruby's public instance methods of the value's class, when it is a core class.
fn ruby_methods_of(recv: &RValue) -> Option<&'static [&'static str]> {
    use crate::ruby_methods as rm;
    match recv {
        RValue::Nil => Some(rm::NIL),
        RValue::Bool(_) => Some(rm::TRUE),
        RValue::Int(_) | RValue::Big(_) => Some(rm::INTEGER),
        RValue::Float(_) => Some(rm::FLOAT),
        RValue::Str(_) => Some(rm::STRING),
        RValue::Sym(_) => Some(rm::SYMBOL),
        RValue::Array(_) => Some(rm::ARRAY),
        RValue::Hash(_) => Some(rm::HASH),
        RValue::Range(_) => Some(rm::RANGE),
        RValue::Regexp(_) => Some(rm::REGEXP),
        // Puppet's objects, when their inspect (what the NoMethodError quotes) is known.
        RValue::Puppet(p) => match &**p {
            Value::Type(_) if puppet_types::ruby::inspect_object(p, &mut || 0).is_some() => {
                Some(rm::PUPPET_TYPE)
            }
            Value::Sensitive(_) => Some(rm::PUPPET_SENSITIVE),
            _ => None,
        },
        _ => None,
    }
}

fn no_method<T>(recv: &RValue, name: &str, pos: Pos) -> Result<T, Ctrl> {
    use crate::ruby_methods as rm;
    match ruby_methods_of(recv) {
        Some(t) if !rm::has(t, name) => raise(
            "NoMethodError",
            format!(
                "undefined method `{name}' for {}{}",
                describe(recv),
                if matches!(recv, RValue::Nil) {
                    String::new()
                } else {
                    crate::didyoumean::suffix(name, t)
                }
            ),
            pos,
        ),
        _ => unsupported(format!("method `{name}' on {}", recv.class_name()), pos),
    }
}

/// Methods that modify their receiver (they raise `FrozenError` on frozen values).
fn is_mutator(recv: &RValue, name: &str) -> bool {
    use crate::ruby_methods as rm;
    let table = match recv {
        RValue::Str(_) => rm::STRING,
        RValue::Array(_) => rm::ARRAY,
        RValue::Hash(_) => rm::HASH,
        _ => return false,
    };
    // A Ruby method of the class (binary search, so it comes last) that changes its
    // receiver.
    let changes = name.ends_with('!')
        || match recv {
            RValue::Str(_) => matches!(
                name,
                "<<" | "concat"
                    | "replace"
                    | "[]="
                    | "insert"
                    | "prepend"
                    | "clear"
                    | "force_encoding"
            ),
            RValue::Array(_) => matches!(
                name,
                "<<" | "push"
                    | "append"
                    | "pop"
                    | "shift"
                    | "unshift"
                    | "prepend"
                    | "insert"
                    | "concat"
                    | "delete"
                    | "delete_at"
                    | "delete_if"
                    | "keep_if"
                    | "clear"
                    | "replace"
                    | "fill"
                    | "[]="
            ),
            RValue::Hash(_) => matches!(
                name,
                "[]="
                    | "store"
                    | "delete"
                    | "delete_if"
                    | "keep_if"
                    | "clear"
                    | "replace"
                    | "update"
                    | "default="
                    | "shift"
            ),
            _ => false,
        };
    changes && rm::has(table, name)
}

/// Checks the number of arguments, with Ruby's message.
pub(crate) fn argc(args: &[RValue], min: usize, max: usize, pos: Pos) -> Result<(), Ctrl> {
    if args.len() < min || args.len() > max {
        let exp = if min == max {
            min.to_string()
        } else if max == usize::MAX {
            format!("{min}+")
        } else {
            format!("{min}..{max}")
        };
        return raise(
            "ArgumentError",
            format!(
                "wrong number of arguments (given {}, expected {exp})",
                args.len()
            ),
            pos,
        );
    }
    Ok(())
}

/// An Integer argument (a Float is truncated), with Ruby's TypeError otherwise.
pub(crate) fn int_arg(v: &RValue, pos: Pos) -> Result<i64, Ctrl> {
    match v {
        RValue::Int(i) => Ok(*i),
        RValue::Big(_) => raise("RangeError", "bignum too big to convert into `long'", pos),
        RValue::Float(f) if f.is_finite() => Ok(f.trunc() as i64),
        RValue::Nil => raise(
            "TypeError",
            "no implicit conversion from nil to integer",
            pos,
        ),
        other => crate::interp::no_implicit_conversion(other, "Integer", pos),
    }
}

/// A String argument, with Ruby's TypeError otherwise.
pub(crate) fn str_arg(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    match v {
        RValue::Str(s) => Ok(s.borrow().clone()),
        RValue::Nil => raise(
            "TypeError",
            "no implicit conversion of nil into String",
            pos,
        ),
        other => crate::interp::no_implicit_conversion(other, "String", pos),
    }
}

/// The block a method needs.
pub(crate) fn need_block<'b>(
    block: Option<&'b Blk>,
    name: &str,
    pos: Pos,
) -> Result<&'b Blk, Ctrl> {
    match block {
        Some(b) => Ok(b),
        None => unsupported(format!("`{name}' without a block (Enumerator)"), pos),
    }
}

/// Whether a value responds to a method (for `respond_to?` and `defined?`).
pub fn responds_to(v: &RValue, name: &str) -> bool {
    // What tells a resource type from a class type (`PResourceType#type_name`, `#title`;
    // `PClassType#class_name`), whatever else the type classes share.
    if let RValue::Puppet(p) = v {
        match (&**p, name) {
            (Value::Type(Type::Resource(_)), "type_name" | "title")
            | (Value::Type(Type::Class(_)), "class_name") => return true,
            (Value::Type(Type::Resource(_)), "class_name")
            | (Value::Type(Type::Class(_)), "type_name" | "title") => return false,
            _ => {}
        }
    }
    // Ruby's answer, also for the methods this engine does not implement.
    if let Some(table) = ruby_methods_of(v) {
        return crate::ruby_methods::has(table, name);
    }
    const COMMON: &[&str] = &[
        "to_s",
        "inspect",
        "nil?",
        "is_a?",
        "kind_of?",
        "class",
        "==",
        "!=",
        "eql?",
        "equal?",
        "respond_to?",
        "dup",
        "clone",
        "freeze",
        "frozen?",
        "hash",
        "instance_of?",
        "to_yaml",
    ];
    if COMMON.contains(&name) {
        return true;
    }
    match v {
        RValue::Nil => matches!(name, "to_a" | "to_i" | "to_f" | "to_h" | "&" | "|"),
        RValue::Str(_) => matches!(
            name,
            "length"
                | "size"
                | "upcase"
                | "downcase"
                | "strip"
                | "split"
                | "gsub"
                | "sub"
                | "empty?"
                | "include?"
                | "start_with?"
                | "end_with?"
                | "to_i"
                | "to_f"
                | "to_str"
                | "each_line"
                | "lines"
                | "match"
                | "+"
                | "[]"
                | "capitalize"
                | "=~"
                | "to_sym"
                | "chomp"
        ),
        RValue::Array(_) => matches!(
            name,
            "each"
                | "map"
                | "join"
                | "length"
                | "size"
                | "empty?"
                | "include?"
                | "first"
                | "last"
                | "sort"
                | "flatten"
                | "compact"
                | "uniq"
                | "to_a"
                | "[]"
                | "<<"
                | "to_ary"
                | "select"
                | "reject"
                | "each_with_index"
                | "collect"
        ),
        RValue::Hash(_) => matches!(
            name,
            "each"
                | "each_pair"
                | "keys"
                | "values"
                | "[]"
                | "key?"
                | "has_key?"
                | "fetch"
                | "map"
                | "length"
                | "size"
                | "empty?"
                | "to_hash"
                | "to_h"
                | "merge"
                | "sort"
                | "include?"
                | "select"
                | "reject"
                | "to_a"
        ),
        RValue::Int(_) | RValue::Big(_) | RValue::Float(_) => matches!(
            name,
            "+" | "-"
                | "*"
                | "/"
                | "to_i"
                | "to_f"
                | "round"
                | "floor"
                | "ceil"
                | "abs"
                | "<"
                | ">"
                | "zero?"
        ),
        // Puppet::Parser::Scope's methods this engine has (`function_*` is answered by
        // `native_responds`, which knows the 3.x functions).
        RValue::Scope => matches!(
            name,
            "lookupvar"
                | "[]"
                | "include?"
                | "exist?"
                | "to_hash"
                | "setvar"
                | "call_function"
                | "environment"
                | "find_global_scope"
                | "findresource"
                | "resource"
                | "warning"
                | "debug"
                | "notice"
                | "info"
                | "err"
                | "alert"
                | "emerg"
                | "crit"
        ),
        _ => false,
    }
}

/// Matches a regexp against text from a char offset; sets `$~` (whose groups are the
/// captures). Returns the char offset of the match.
pub fn regex_match(
    it: &mut Interp,
    re: &value::RRegex,
    text: &str,
    start: usize,
    pos: Pos,
) -> Result<Option<usize>, Ctrl> {
    let byte_start = text
        .char_indices()
        .nth(start)
        .map(|(b, _)| b)
        .unwrap_or(text.len());
    if start > text.chars().count() {
        it.set_last_match(None);
        return Ok(None);
    }
    if let Some(found) = re.find_literal(text, byte_start) {
        // Plain text: the engine would find the same span (see `find_literal`).
        return Ok(match found {
            Some((at, end)) => {
                let char_at = text[..at].chars().count();
                it.set_last_match(Some(Rc::new(value::Captures::whole(text, at, end))));
                Some(char_at)
            }
            None => {
                it.set_last_match(None);
                None
            }
        });
    }
    if byte_start == 0 {
        // The same first match as the full regexp's, without building it.
        if let Some(found) = re.first_match_on_automata(text) {
            return Ok(match found {
                Some(c) => {
                    let char_at = text[..c.span().0].chars().count();
                    it.set_last_match(Some(Rc::new(c)));
                    Some(char_at)
                }
                None => {
                    it.set_last_match(None);
                    None
                }
            });
        }
    }
    let rx = re.re(pos)?;
    match match_at(rx, text, byte_start) {
        Ok(Some(full)) => {
            let at = full.span().0;
            let char_at = text[..at].chars().count();
            it.set_last_match(Some(Rc::new(full)));
            Ok(Some(char_at))
        }
        Ok(None) => {
            it.set_last_match(None);
            Ok(None)
        }
        Err(e) => unsupported(format!("regexp /{}/: {e}", re.source), pos),
    }
}

/// The first match of `rx` in `text` from byte `byte_start`, as `$~` holds it. A regexp
/// without groups is only searched for (group 0 of a search is the whole match that the
/// captures would give), so its match makes no capture slots.
fn match_at(
    rx: &fancy_regex::Regex,
    text: &str,
    byte_start: usize,
) -> Result<Option<value::Captures>, String> {
    if rx.captures_len() == 1 {
        Ok(rx
            .find_from_pos(text, byte_start)
            .map_err(|e| e.to_string())?
            .map(|m| value::Captures::whole(text, m.start(), m.end())))
    } else {
        Ok(rx
            .captures_from_pos(text, byte_start)
            .map_err(|e| e.to_string())?
            .map(|c| value::Captures::of(rx, &c, text)))
    }
}

/// `Regexp.escape`.
pub fn escape_regex(s: &str) -> String {
    puppet_types::convert::ruby_regexp_escape(s)
}

fn hash_from_pairs(pairs: Vec<(RValue, RValue)>) -> RValue {
    let mut h = RHash::default();
    for (k, v) in pairs {
        h.insert(k, v);
    }
    RValue::hash(h)
}

/// The text `format`'s `%s` (or `%p`, `inspect`) shows of a value through Ruby's dispatch:
/// a user class's `to_s` or `inspect`, also inside arrays and hashes; `None` where the
/// value's own text is that.
pub(crate) fn show_value(
    it: &mut Interp,
    v: &RValue,
    inspect: bool,
) -> Result<Option<String>, Ctrl> {
    match (v, inspect) {
        (RValue::Object(_) | RValue::Array(_) | RValue::Hash(_), true) => {
            Ok(Some(it.inspect_value(v)?))
        }
        (RValue::Object(_) | RValue::Array(_) | RValue::Hash(_), false) => {
            Ok(Some(it.to_s_value(v)?))
        }
        _ => Ok(None),
    }
}

/// A Ruby index (negative from the end) as a position, `None` before the start.
pub(crate) fn norm_index(i: i64, len: usize) -> Option<usize> {
    if i < 0 {
        let j = len as i64 + i;
        if j < 0 {
            None
        } else {
            Some(j as usize)
        }
    } else {
        Some(i as usize)
    }
}

/// Kernel functions (`Array()`, `Integer()`, `raise`, ...).
pub fn kernel(it: &mut Interp, name: &str, args: Vec<RValue>, block: Option<&Blk>, pos: Pos) -> R {
    match name {
        "Array" => {
            argc(&args, 1, 1, pos)?;
            Ok(match &args[0] {
                RValue::Nil => RValue::array(vec![]),
                RValue::Array(_) => args[0].clone(),
                RValue::Hash(_) | RValue::Range(_) => {
                    RValue::array(splat_items(it, &args[0], pos)?)
                }
                other => RValue::array(vec![other.clone()]),
            })
        }
        "Integer" => {
            argc(&args, 1, 2, pos)?;
            match &args[0] {
                RValue::Int(_) | RValue::Big(_) => Ok(args[0].clone()),
                RValue::Float(f) if f.is_finite() => Ok(crate::bigint::from_float(*f)),
                RValue::Float(_) => raise("FloatDomainError", to_s(&args[0]), pos),
                RValue::Str(s) => {
                    let s = s.borrow().clone();
                    let base = match args.get(1) {
                        Some(b) => int_arg(b, pos)? as u32,
                        None => 0,
                    };
                    match parse_integer_strict(&s, base)
                        .map(RValue::Int)
                        .or_else(|| crate::bigint::parse_strict(&s, base))
                    {
                        Some(i) => Ok(i),
                        None => raise(
                            "ArgumentError",
                            format!("invalid value for Integer(): {}", value::inspect_str(&s)),
                            pos,
                        ),
                    }
                }
                RValue::Nil => raise("TypeError", "can't convert nil into Integer", pos),
                other => raise(
                    "TypeError",
                    format!("can't convert {} into Integer", other.conversion_name()),
                    pos,
                ),
            }
        }
        "Float" => {
            argc(&args, 1, 1, pos)?;
            match &args[0] {
                RValue::Int(i) => Ok(RValue::Float(*i as f64)),
                RValue::Big(b) => Ok(RValue::Float(crate::bigint::to_f(b))),
                RValue::Float(f) => Ok(RValue::Float(*f)),
                RValue::Str(s) => match puppet_types::ruby::float(&s.borrow()) {
                    Ok(f) => Ok(RValue::Float(f)),
                    Err(m) => raise("ArgumentError", m, pos),
                },
                RValue::Nil => raise("TypeError", "can't convert nil into Float", pos),
                other => raise(
                    "TypeError",
                    format!("can't convert {} into Float", other.conversion_name()),
                    pos,
                ),
            }
        }
        "String" => {
            argc(&args, 1, 1, pos)?;
            match &args[0] {
                RValue::Str(_) => Ok(args[0].clone()),
                v => Ok(RValue::string(it.to_s_value(v)?)),
            }
        }
        "Hash" => {
            argc(&args, 1, 1, pos)?;
            match &args[0] {
                RValue::Nil => Ok(RValue::hash(RHash::default())),
                RValue::Array(a) if a.borrow().is_empty() => Ok(RValue::hash(RHash::default())),
                RValue::Hash(_) => Ok(args[0].clone()),
                other => raise(
                    "TypeError",
                    format!("can't convert {} into Hash", other.conversion_name()),
                    pos,
                ),
            }
        }
        "format" | "sprintf" => {
            if args.is_empty() {
                return raise("ArgumentError", "too few arguments", pos);
            }
            let f = str_arg(&args[0], pos)?;
            Ok(RValue::string(crate::format::sprintf_with(
                &f,
                &args[1..],
                pos,
                &mut |v, inspect| show_value(it, v, inspect),
            )?))
        }
        "puts" | "print" | "p" | "pp" => {
            // These write to the process output, never to the template.
            Ok(match (name, args.len()) {
                ("p", 1) => args[0].clone(),
                ("p", 0) => RValue::Nil,
                ("p", _) => RValue::array(args),
                _ => RValue::Nil,
            })
        }
        "loop" => {
            let b = need_block(block, name, pos)?;
            loop {
                match it.call_block(b, vec![], pos) {
                    Ok(_) => {}
                    Err(Ctrl::Break(v)) => return Ok(v),
                    Err(Ctrl::Raise(e)) if e.class == "StopIteration" => return Ok(RValue::Nil),
                    Err(e) => return Err(e),
                }
            }
        }
        _ => unsupported(format!("Kernel method `{name}'"), pos),
    }
}

fn parse_integer_strict(s: &str, base: u32) -> Option<i64> {
    puppet_types::ruby::integer(s, (base != 0).then_some(base))
}

/// Ruby's `String#to_i(base)` (the leading integer, 0 when none): leading whitespace, a
/// sign, the base's own prefix (`0x` for 16, `0b` for 2, `0o` for 8, `0d` for 10), digits
/// with single underscores between them. Beyond 64 bits the value is big.
pub fn str_to_int(s: &str, base: u32) -> RValue {
    let t = s.trim_start();
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => ("-", &t[1..]),
        Some(b'+') => ("", &t[1..]),
        _ => ("", t),
    };
    let b = body.as_bytes();
    let prefix = match base {
        16 => b'x',
        2 => b'b',
        8 => b'o',
        10 => b'd',
        _ => 0,
    };
    let body = if b.len() > 2 && b[0] == b'0' && b[1].to_ascii_lowercase() == prefix {
        &body[2..]
    } else {
        body
    };
    let mut out = String::from(sign);
    let mut last_us = false;
    for c in body.chars() {
        if c.is_digit(base) {
            out.push(c);
            last_us = false;
        } else if c == '_' && !last_us && out.chars().last().is_some_and(|d| d.is_digit(base)) {
            last_us = true;
        } else {
            break;
        }
    }
    match i64::from_str_radix(&out, base) {
        Ok(i) => RValue::Int(i),
        Err(_) => crate::bigint::parse_digits(&out, base).unwrap_or(RValue::Int(0)),
    }
}

/// Ruby's `String#to_i(0)` and `String#oct`: the base from the prefix (`0x`, `0b`, `0o`,
/// `0d`, a leading `0` for octal), else `default`.
pub fn str_to_int_prefixed(s: &str, default: u32) -> RValue {
    let t = s.trim_start();
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    let radix = if lower.starts_with("0x") {
        16
    } else if lower.starts_with("0b") {
        2
    } else if lower.starts_with("0d") {
        10
    } else if lower.starts_with("0o") || (lower.len() > 1 && lower.starts_with('0')) {
        8
    } else {
        default
    };
    let body =
        if radix == 8 && lower.len() > 1 && lower.starts_with('0') && !lower.starts_with("0o") {
            &body[1..]
        } else {
            body
        };
    let v = str_to_int(body, radix);
    if !neg {
        return v;
    }
    match v {
        RValue::Int(i) => i.checked_neg().map_or_else(
            || crate::bigint::norm(-num_bigint::BigInt::from(i)),
            RValue::Int,
        ),
        other => crate::bigint::norm(-crate::bigint::of(&other).unwrap_or_default()),
    }
}

/// Ruby's `String#to_f`.
pub fn str_to_f(s: &str) -> f64 {
    let t = s.trim_start();
    let mut end = 0;
    let b = t.as_bytes();
    let mut seen_dot = false;
    let mut seen_e = false;
    while end < b.len() {
        let c = b[end];
        let ok = c.is_ascii_digit()
            || ((c == b'-' || c == b'+') && (end == 0 || matches!(b[end - 1], b'e' | b'E')))
            || (c == b'.'
                && !seen_dot
                && !seen_e
                && b.get(end + 1).is_some_and(|d| d.is_ascii_digit()))
            || ((c == b'e' || c == b'E') && !seen_e && end > 0);
        if !ok {
            break;
        }
        if c == b'.' {
            seen_dot = true;
        }
        if c == b'e' || c == b'E' {
            seen_e = true;
        }
        end += 1;
    }
    let mut cand = &t[..end];
    while !cand.is_empty() {
        if let Ok(f) = cand.parse::<f64>() {
            return f;
        }
        cand = &cand[..cand.len() - 1];
    }
    0.0
}

/// Dispatches a method call on a value.
pub fn call_method(
    it: &mut Interp,
    recv: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    if is_mutator(&recv, name) && it.is_frozen(&recv) {
        return raise(
            "FrozenError",
            format!(
                "can't modify frozen {}: {}",
                recv.class_name(),
                inspect(&recv)
            ),
            pos,
        );
    }
    match &recv {
        RValue::Object(_) => {
            return crate::kernel::object_method(it, recv, name, args, block, pos, false)
        }
        RValue::Module(_) => {
            return crate::kernel::module_method(it, recv, name, args, block, pos, false)
        }
        RValue::Proc(_) => return crate::kernel::proc_method(it, recv, name, args, block, pos),
        _ => {}
    }
    if block.is_none() && crate::kernel::enumerates(&recv, name, &args) {
        return Ok(crate::kernel::make_enumerator(it, recv, name, args));
    }
    // Methods every object has (some built-in classes have their own `to_s`, `===`, `=~`).
    let own = match name {
        "to_s" => {
            matches!(recv, RValue::Int(_) | RValue::Big(_) | RValue::Scope) || !args.is_empty()
        }
        "===" => matches!(recv, RValue::Scope),
        "=~" => matches!(recv, RValue::Str(_) | RValue::Regexp(_) | RValue::Sym(_)),
        "inspect" => matches!(recv, RValue::Scope) || !args.is_empty(),
        "class" => !args.is_empty(),
        _ => false,
    };
    if !own {
        if let Some(r) = crate::kernel::common(it, &recv, name, &args, block, pos) {
            return r;
        }
    }
    match &recv {
        RValue::Nil => nil_method(name, &args, pos),
        RValue::Bool(b) => match name {
            "&" => Ok(RValue::Bool(*b && args.first().is_some_and(|a| a.truthy()))),
            "|" => Ok(RValue::Bool(*b || args.first().is_some_and(|a| a.truthy()))),
            "^" => Ok(RValue::Bool(*b != args.first().is_some_and(|a| a.truthy()))),
            "to_s" => Ok(RValue::string(b.to_string())),
            _ => no_method(&recv, name, pos),
        },
        RValue::Int(_) | RValue::Big(_) | RValue::Float(_) => {
            num_method(it, &recv, name, args, block, pos)
        }
        RValue::Str(s) => {
            let s = s.clone();
            crate::strings::str_method(it, &recv, &s, name, args, block, pos)
        }
        RValue::Sym(s) => match name {
            "to_sym" => Ok(recv.clone()),
            "to_proc" => Ok(RValue::Proc(
                it.make_proc_of(crate::object::ProcBody::Symbol(s.to_string()), true),
            )),
            "<=>" => Ok(match args.first() {
                Some(RValue::Sym(o)) => RValue::Int(match s.as_bytes().cmp(o.as_bytes()) {
                    Ordering::Less => -1,
                    Ordering::Equal => 0,
                    Ordering::Greater => 1,
                }),
                _ => RValue::Nil,
            }),
            "length" | "size" | "upcase" | "downcase" | "capitalize" | "empty?" | "start_with?"
            | "end_with?" | "[]" | "=~" | "match" | "match?" | "succ" | "swapcase" => {
                let sv = RValue::str(s);
                let r = call_method(it, sv, name, args, block, pos)?;
                Ok(match (name, r) {
                    (
                        "upcase" | "downcase" | "capitalize" | "succ" | "swapcase",
                        RValue::Str(x),
                    ) => RValue::sym(&x.borrow()),
                    (_, r) => r,
                })
            }
            "id2name" => Ok(RValue::str(s)),
            _ => no_method(&recv, name, pos),
        },
        RValue::Array(a) => {
            let a = a.clone();
            crate::collections::array_method(it, &recv, &a, name, args, block, pos)
        }
        RValue::Hash(h) => {
            let h = h.clone();
            crate::collections::hash_method(it, &recv, &h, name, args, block, pos)
        }
        RValue::Range(r) => {
            let r = r.clone();
            range_method(it, &recv, &r, name, args, block, pos)
        }
        RValue::Regexp(re) => match name {
            // The names of the named groups, in order, each once.
            "names" if args.is_empty() => {
                let mut names: Vec<RValue> = Vec::new();
                for n in re.re(pos)?.capture_names().flatten() {
                    if !names.iter().any(|x| to_s(x) == n) {
                        names.push(RValue::str(n));
                    }
                }
                Ok(RValue::array(names))
            }
            "match" | "=~" | "match?" => {
                argc(&args, 1, 2, pos)?;
                if matches!(args[0], RValue::Nil) {
                    it.set_last_match(None);
                    return Ok(if name == "match?" {
                        RValue::Bool(false)
                    } else {
                        RValue::Nil
                    });
                }
                let text = match &args[0] {
                    RValue::Sym(s) => s.to_string(),
                    other => str_arg(other, pos)?,
                };
                let saved = it.last_match();
                let m = regex_match(it, re, &text, 0, pos)?;
                Ok(match (name, m) {
                    ("match?", m) => {
                        it.set_last_match(saved);
                        RValue::Bool(m.is_some())
                    }
                    ("=~", Some(at)) => RValue::Int(at as i64),
                    ("match", Some(_)) => match it.last_match() {
                        Some(m) => RValue::MatchData(m),
                        None => RValue::Nil,
                    },
                    _ => RValue::Nil,
                })
            }
            "source" => Ok(RValue::str(&re.source)),
            "options" => Ok(RValue::Int(
                (if re.flags.contains('i') { 1 } else { 0 })
                    + (if re.flags.contains('x') { 2 } else { 0 })
                    + (if re.flags.contains('m') { 4 } else { 0 }),
            )),
            _ => no_method(&recv, name, pos),
        },
        RValue::MatchData(m) => match name {
            "[]" if matches!(args.first(), Some(RValue::Str(_) | RValue::Sym(_))) => {
                let n = to_s(&args[0]);
                match m.named(&n) {
                    Some(i) => Ok(m
                        .get(i)
                        .cloned()
                        .flatten()
                        .map(RValue::string)
                        .unwrap_or(RValue::Nil)),
                    None => raise(
                        "IndexError",
                        format!("undefined group name reference: {n}"),
                        pos,
                    ),
                }
            }
            "[]" if args.len() == 2 => {
                let start = int_arg(&args[0], pos)?;
                let len = int_arg(&args[1], pos)?;
                let groups: Vec<RValue> = m
                    .iter()
                    .map(|g| g.as_deref().map(RValue::str).unwrap_or(RValue::Nil))
                    .collect();
                Ok(match norm_index(start, groups.len()) {
                    Some(s) if s <= groups.len() && len >= 0 => {
                        let e = (s + len as usize).min(groups.len());
                        RValue::array(groups[s..e].to_vec())
                    }
                    _ => RValue::Nil,
                })
            }
            // Character offsets of the whole match (group 0); the groups' offsets are not
            // kept.
            "begin" | "end" | "offset" => {
                argc(&args, 1, 1, pos)?;
                if !matches!(args[0], RValue::Int(0)) {
                    return unsupported(format!("MatchData#{name} of a group"), pos);
                }
                let start = m.pre().chars().count() as i64;
                let end = start
                    + m.first()
                        .cloned()
                        .flatten()
                        .map_or(0, |t| t.chars().count() as i64);
                Ok(match name {
                    "begin" => RValue::Int(start),
                    "end" => RValue::Int(end),
                    _ => RValue::array(vec![RValue::Int(start), RValue::Int(end)]),
                })
            }
            "pre_match" => Ok(RValue::str(m.pre())),
            "post_match" => Ok(RValue::str(m.post())),
            "names" => Ok(RValue::array(
                m.names.iter().map(|(n, _)| RValue::str(n)).collect(),
            )),
            "named_captures" => {
                let mut h = RHash::default();
                for (n, i) in &m.names {
                    h.insert(
                        RValue::str(n),
                        m.get(*i)
                            .cloned()
                            .flatten()
                            .map(RValue::string)
                            .unwrap_or(RValue::Nil),
                    );
                }
                Ok(RValue::hash(h))
            }
            "size" | "length" => Ok(RValue::Int(m.len() as i64)),
            "to_s" => Ok(RValue::string(
                m.first().cloned().flatten().unwrap_or_default(),
            )),
            "values_at" => Ok(RValue::array(
                args.iter()
                    .map(|a| match a {
                        RValue::Int(i) => norm_index(*i, m.len())
                            .and_then(|i| m.get(i).cloned().flatten())
                            .map(RValue::string)
                            .unwrap_or(RValue::Nil),
                        _ => RValue::Nil,
                    })
                    .collect(),
            )),
            "[]" => {
                argc(&args, 1, 1, pos)?;
                let i = int_arg(&args[0], pos)?;
                Ok(norm_index(i, m.len())
                    .and_then(|i| m.get(i).cloned().flatten())
                    .map(RValue::string)
                    .unwrap_or(RValue::Nil))
            }
            "captures" => Ok(RValue::array(
                m.iter()
                    .skip(1)
                    .map(|g| g.as_deref().map(RValue::str).unwrap_or(RValue::Nil))
                    .collect(),
            )),
            "to_a" => Ok(RValue::array(
                m.iter()
                    .map(|g| g.as_deref().map(RValue::str).unwrap_or(RValue::Nil))
                    .collect(),
            )),
            _ => no_method(&recv, name, pos),
        },
        RValue::Scope => scope_method(it, name, args, block, pos),
        RValue::IpAddr(ip) => crate::ipaddr::ip_method(ip, name, args, pos),
        RValue::Puppet(p) => {
            let p = p.clone();
            crate::puppet::puppet_value_method(it, &recv, &p, name, args, block, pos)
        }
        RValue::Object(_) | RValue::Module(_) | RValue::Proc(_) => no_method(&recv, name, pos),
    }
}

fn nil_method(name: &str, args: &[RValue], pos: Pos) -> R {
    match name {
        "to_a" => Ok(RValue::array(vec![])),
        "to_s" => Ok(RValue::str("")),
        "to_i" => Ok(RValue::Int(0)),
        "to_f" => Ok(RValue::Float(0.0)),
        "to_h" => Ok(RValue::hash(RHash::default())),
        "&" => Ok(RValue::Bool(false)),
        "|" => Ok(RValue::Bool(args.first().is_some_and(|a| a.truthy()))),
        _ => no_method(&RValue::Nil, name, pos),
    }
}

fn num_method(
    it: &mut Interp,
    recv: &RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    use crate::bigint;
    // An i64 operation that overflowed: the same in big arithmetic.
    let big = |op: &str, a: i64, b: i64| bigint::arith(op, &BigInt::from(a), &BigInt::from(b), pos);
    let coerce_err = |other: &RValue| -> R {
        match other {
            RValue::Nil | RValue::Bool(_) => raise(
                "TypeError",
                format!(
                    "{} can't be coerced into {}",
                    inspect(other),
                    recv.class_name()
                ),
                pos,
            ),
            o => raise(
                "TypeError",
                format!(
                    "{} can't be coerced into {}",
                    o.class_name(),
                    recv.class_name()
                ),
                pos,
            ),
        }
    };
    match name {
        "to_r" if args.is_empty() => match recv {
            RValue::Float(x) => crate::time::float_to_r(it, *x, pos),
            RValue::Big(_) => unsupported("Rational beyond 64 bits (Bignum)", pos),
            _ => crate::time::make_rational(it, crate::methods::int_arg(recv, pos)?, 1, pos),
        },
        "+" | "-" | "*" | "/" | "%" | "**" | "modulo" | "div" | "fdiv" | "divmod" => {
            argc(&args, 1, 1, pos)?;
            let rhs = &args[0];
            match (recv, rhs) {
                (RValue::Int(a), RValue::Int(b)) => {
                    let (a, b) = (*a, *b);
                    match name {
                        "+" => a
                            .checked_add(b)
                            .map_or_else(|| big(name, a, b), |v| Ok(RValue::Int(v))),
                        "-" => a
                            .checked_sub(b)
                            .map_or_else(|| big(name, a, b), |v| Ok(RValue::Int(v))),
                        "*" => a
                            .checked_mul(b)
                            .map_or_else(|| big(name, a, b), |v| Ok(RValue::Int(v))),
                        "/" | "div" | "%" | "modulo" | "divmod" => {
                            if b == 0 {
                                return raise("ZeroDivisionError", "divided by 0", pos);
                            }
                            let Some(q) = a.checked_div_euclid(b) else {
                                return big(name, a, b);
                            };
                            // Floor division.
                            let mut q = a.checked_div(b).unwrap_or(q);
                            if (a % b != 0) && ((a < 0) != (b < 0)) {
                                q -= 1;
                            }
                            let m = a - q * b;
                            Ok(match name {
                                "/" | "div" => RValue::Int(q),
                                "divmod" => RValue::array(vec![RValue::Int(q), RValue::Int(m)]),
                                _ => RValue::Int(m),
                            })
                        }
                        "fdiv" if a.abs() < 1 << 53 && b.abs() < 1 << 53 => {
                            Ok(RValue::Float(a as f64 / b as f64))
                        }
                        "fdiv" => Ok(RValue::Float(bigint::fdiv(
                            &BigInt::from(a),
                            &BigInt::from(b),
                        ))),
                        _ => bigint::pow(recv, rhs, pos),
                    }
                }
                (RValue::Int(_) | RValue::Big(_), RValue::Int(_) | RValue::Big(_)) => {
                    if name == "**" {
                        return bigint::pow(recv, rhs, pos);
                    }
                    let (a, b) = (
                        bigint::of(recv).unwrap_or_default(),
                        bigint::of(rhs).unwrap_or_default(),
                    );
                    bigint::arith(name, &a, &b, pos)
                }
                (
                    RValue::Int(_) | RValue::Big(_) | RValue::Float(_),
                    RValue::Int(_) | RValue::Big(_) | RValue::Float(_),
                ) => {
                    let a = num_f(recv);
                    let b = num_f(rhs);
                    Ok(match name {
                        "+" => RValue::Float(a + b),
                        "-" => RValue::Float(a - b),
                        "*" => RValue::Float(a * b),
                        "/" | "fdiv" => RValue::Float(a / b),
                        "div" => {
                            let q = (a / b).floor();
                            if !q.is_finite() {
                                return raise("FloatDomainError", value::float_to_s(q), pos);
                            }
                            bigint::from_float(q)
                        }
                        "%" | "modulo" => {
                            // Ruby 3.1's `Float#%` by zero raises, as `divmod` does.
                            if b == 0.0 {
                                return raise("ZeroDivisionError", "divided by 0", pos);
                            }
                            RValue::Float(flo_divmod(a, b).1)
                        }
                        "divmod" => {
                            if b == 0.0 {
                                return raise("ZeroDivisionError", "divided by 0", pos);
                            }
                            let (d, m) = flo_divmod(a, b);
                            if !d.is_finite() {
                                return raise("FloatDomainError", value::float_to_s(d), pos);
                            }
                            RValue::array(vec![bigint::from_float(d), RValue::Float(m)])
                        }
                        _ => RValue::Float(a.powf(b)),
                    })
                }
                _ => coerce_err(rhs),
            }
        }
        "<" | "<=" | ">" | ">=" | "<=>" | "between?" | "clamp" => {
            if name == "between?" || name == "clamp" {
                argc(&args, 2, 2, pos)?;
                let lo = compare(recv, &args[0]);
                let hi = compare(recv, &args[1]);
                if name == "clamp" && compare(&args[0], &args[1]) == Some(Ordering::Greater) {
                    return raise(
                        "ArgumentError",
                        "min argument must be smaller than max argument",
                        pos,
                    );
                }
                if name == "clamp" {
                    return Ok(if lo == Some(Ordering::Less) {
                        args[0].clone()
                    } else if hi == Some(Ordering::Greater) {
                        args[1].clone()
                    } else {
                        recv.clone()
                    });
                }
                return Ok(RValue::Bool(
                    lo.is_some_and(|o| o != Ordering::Less)
                        && hi.is_some_and(|o| o != Ordering::Greater),
                ));
            }
            argc(&args, 1, 1, pos)?;
            let o = match &args[0] {
                RValue::Int(_) | RValue::Big(_) | RValue::Float(_) => compare(recv, &args[0]),
                _ => None,
            };
            if name == "<=>" {
                return Ok(match o {
                    Some(o) => RValue::Int(o as i64),
                    None => RValue::Nil,
                });
            }
            let Some(o) = o else {
                return raise(
                    "ArgumentError",
                    format!(
                        "comparison of {} with {} failed",
                        recv.class_name(),
                        match &args[0] {
                            RValue::Nil => "nil".to_string(),
                            other => other.class_name(),
                        }
                    ),
                    pos,
                );
            };
            Ok(RValue::Bool(match name {
                "<" => o == Ordering::Less,
                "<=" => o != Ordering::Greater,
                ">" => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        "-@" => match recv {
            RValue::Int(i) => i
                .checked_neg()
                .map_or_else(|| big("-", 0, *i), |v| Ok(RValue::Int(v))),
            RValue::Big(b) => Ok(bigint::norm(-(**b).clone())),
            _ => Ok(RValue::Float(-num_f(recv))),
        },
        "+@" => Ok(recv.clone()),
        "to_i" | "to_int" | "truncate" if name != "truncate" || args.is_empty() => Ok(match recv {
            RValue::Float(f) if !f.is_finite() => {
                return raise("FloatDomainError", value::float_to_s(*f), pos)
            }
            RValue::Float(f) => bigint::from_float(*f),
            other => other.clone(),
        }),
        "to_f" => Ok(RValue::Float(num_f(recv))),
        "to_s" | "inspect" => match (recv, args.first()) {
            (RValue::Int(_) | RValue::Big(_), Some(b)) => {
                let base = int_arg(b, pos)?;
                if !(2..=36).contains(&base) {
                    return raise("ArgumentError", format!("invalid radix {base}"), pos);
                }
                Ok(RValue::string(match recv {
                    RValue::Int(i) => int_to_radix(*i, base as u32),
                    _ => bigint::to_radix(&bigint::of(recv).unwrap_or_default(), base as u32),
                }))
            }
            // Float#to_s and #inspect take no radix.
            (_, Some(_)) => raise(
                "ArgumentError",
                format!(
                    "wrong number of arguments (given {}, expected 0)",
                    args.len()
                ),
                pos,
            ),
            _ => Ok(RValue::string(to_s(recv))),
        },
        "abs" | "magnitude" => Ok(match recv {
            RValue::Int(i) => i
                .checked_abs()
                .map_or_else(|| big("-", 0, *i), |v| Ok(RValue::Int(v)))?,
            RValue::Big(b) => bigint::norm(b.abs()),
            _ => RValue::Float(num_f(recv).abs()),
        }),
        "zero?" => Ok(RValue::Bool(num_f(recv) == 0.0)),
        "positive?" => Ok(RValue::Bool(num_f(recv) > 0.0)),
        "negative?" => Ok(RValue::Bool(num_f(recv) < 0.0)),
        "even?" | "odd?" => match recv {
            RValue::Int(i) => Ok(RValue::Bool((i % 2 == 0) == (name == "even?"))),
            RValue::Big(b) => Ok(RValue::Bool(b.is_even() == (name == "even?"))),
            _ => no_method(recv, name, pos),
        },
        "integer?" => Ok(RValue::Bool(bigint::is_int(recv))),
        "nonzero?" => Ok(if num_f(recv) == 0.0 {
            RValue::Nil
        } else {
            recv.clone()
        }),
        "ord" | "numerator" if bigint::is_int(recv) => Ok(recv.clone()),
        "denominator" if bigint::is_int(recv) => Ok(RValue::Int(1)),
        "infinite?" => Ok(match recv {
            RValue::Float(f) if f.is_infinite() => RValue::Int(if *f > 0.0 { 1 } else { -1 }),
            _ => RValue::Nil,
        }),
        "remainder" => {
            argc(&args, 1, 1, pos)?;
            match (recv, &args[0]) {
                (RValue::Int(_) | RValue::Big(_), RValue::Int(_) | RValue::Big(_)) => {
                    let (a, b) = (
                        bigint::of(recv).unwrap_or_default(),
                        bigint::of(&args[0]).unwrap_or_default(),
                    );
                    if b.is_zero() {
                        return raise("ZeroDivisionError", "divided by 0", pos);
                    }
                    Ok(bigint::norm(a % b))
                }
                (_, RValue::Int(_) | RValue::Big(_) | RValue::Float(_)) => {
                    // Ruby raises for a zero divisor here too (not NaN).
                    let d = num_f(&args[0]);
                    if d == 0.0 {
                        return raise("ZeroDivisionError", "divided by 0", pos);
                    }
                    Ok(RValue::Float(num_f(recv) % d))
                }
                _ => coerce_err(&args[0]),
            }
        }
        "nan?" => Ok(RValue::Bool(num_f(recv).is_nan())),
        "finite?" => Ok(RValue::Bool(num_f(recv).is_finite())),
        "succ" | "next" | "pred" => match recv {
            RValue::Int(i) => {
                let d = if name == "pred" { -1 } else { 1 };
                i.checked_add(d)
                    .map_or_else(|| big("+", *i, d), |v| Ok(RValue::Int(v)))
            }
            RValue::Big(b) => {
                let d = BigInt::from(if name == "pred" { -1 } else { 1 });
                bigint::arith("+", b, &d, pos)
            }
            _ => no_method(recv, name, pos),
        },
        // `chr`: ASCII, a byte of a binary string (128-255), or with an encoding (UTF-8
        // only here) the character of a code point.
        "chr" => match (recv, args.first()) {
            (RValue::Float(_), _) => no_method(recv, name, pos),
            (RValue::Int(i), Some(enc)) => {
                let e = match enc {
                    RValue::Object(o) => o.ivars.borrow().get("name").map(to_s),
                    _ => None,
                }
                .unwrap_or_else(|| to_s(enc))
                .to_ascii_uppercase();
                if e != "UTF-8" && !(e == "US-ASCII" && (0..128).contains(i)) {
                    return unsupported(format!("Integer#chr with the encoding {e}"), pos);
                }
                match u32::try_from(*i).ok().and_then(char::from_u32) {
                    Some(c) if e == "UTF-8" || c.is_ascii() => Ok(RValue::string(c.to_string())),
                    _ => raise(
                        "RangeError",
                        format!("invalid codepoint 0x{i:X} in UTF-8"),
                        pos,
                    ),
                }
            }
            (RValue::Int(i), None) if (0..128).contains(i) => {
                Ok(RValue::string(char::from(*i as u8).to_string()))
            }
            (RValue::Int(i), None) if (128..256).contains(i) => Ok(binary_string(&[*i as u8])),
            (RValue::Int(i), None) => raise("RangeError", format!("{i} out of char range"), pos),
            _ => unsupported("Integer#chr of a big integer", pos),
        },
        "round" | "floor" | "ceil" | "truncate" => {
            // `round(ndigits = 0, half: :up)`, `floor`, `ceil`, `truncate(ndigits = 0)`, as
            // Ruby computes them (puppet-types' printf owns the digit rules of floats,
            // bigint those of integers).
            let (digits, opts) = match args.as_slice() {
                [RValue::Hash(h)] if name == "round" => (0, Some(h.clone())),
                [d, RValue::Hash(h)] if name == "round" => (int_arg(d, pos)?, Some(h.clone())),
                [d] => (int_arg(d, pos)?, None),
                [] => (0, None),
                _ => return argc(&args, 0, 1, pos).map(|_| RValue::Nil),
            };
            let mode = match name {
                "floor" => Rounding::Floor,
                "ceil" => Rounding::Ceil,
                "truncate" if num_f(recv).is_sign_negative() => Rounding::Ceil,
                "truncate" => Rounding::Floor,
                _ => {
                    let half = opts.and_then(|h| h.borrow().get(&RValue::sym("half")).cloned());
                    match half.as_ref().map(to_s).as_deref() {
                        None | Some("") | Some("up") => Rounding::HalfUp,
                        Some("even") => Rounding::HalfEven,
                        Some("down") => Rounding::HalfDown,
                        Some(shown) => {
                            return raise(
                                "ArgumentError",
                                format!("invalid rounding mode: {shown}"),
                                pos,
                            );
                        }
                    }
                }
            };
            match recv {
                RValue::Int(_) | RValue::Big(_) if digits >= 0 => Ok(recv.clone()),
                RValue::Int(_) | RValue::Big(_) => Ok(bigint::round_digits(
                    mode,
                    &bigint::of(recv).unwrap_or_default(),
                    digits,
                )),
                _ => {
                    let f = num_f(recv);
                    if digits > 0 {
                        let digits = i32::try_from(digits).unwrap_or(i32::MAX);
                        return Ok(RValue::Float(printf::round_digits(f, digits, mode)));
                    }
                    // Whole first (a negative digit count rounds the truncated value, as
                    // Ruby does for `round`), then the integer to its trailing zeros.
                    let whole = match mode {
                        Rounding::Floor | Rounding::Ceil => printf::round_whole(f, mode),
                        _ if digits < 0 => f.trunc(),
                        _ => printf::round_whole(f, mode),
                    };
                    if !whole.is_finite() {
                        return raise("FloatDomainError", value::float_to_s(whole), pos);
                    }
                    let whole = bigint::from_float(whole);
                    if digits == 0 {
                        return Ok(whole);
                    }
                    let i = bigint::of(&whole).unwrap_or_default();
                    Ok(bigint::round_digits(mode, &i, digits))
                }
            }
        }
        "gcdlcm" if !matches!(recv, RValue::Float(_)) => {
            argc(&args, 1, 1, pos)?;
            let g = num_method(it, recv, "gcd", args.clone(), block, pos)?;
            let l = num_method(it, recv, "lcm", args, block, pos)?;
            Ok(RValue::array(vec![g, l]))
        }
        "allbits?" | "anybits?" | "nobits?" if matches!(recv, RValue::Int(_)) => {
            argc(&args, 1, 1, pos)?;
            let (x, mask) = (int_arg(recv, pos)?, int_arg(&args[0], pos)?);
            Ok(RValue::Bool(match name {
                "allbits?" => x & mask == mask,
                "anybits?" => x & mask != 0,
                _ => x & mask == 0,
            }))
        }
        "gcd" | "lcm" if matches!(recv, RValue::Float(_)) => no_method(recv, name, pos),
        "gcd" | "lcm" => {
            argc(&args, 1, 1, pos)?;
            if let (Some(a), Some(b)) = (bigint::of(recv), bigint::of(&args[0])) {
                if matches!(recv, RValue::Big(_))
                    || matches!(args[0], RValue::Big(_))
                    || name == "lcm"
                {
                    let r = if name == "gcd" { a.gcd(&b) } else { a.lcm(&b) };
                    return bigint::checked(r, pos);
                }
            }
            let (a, b) = (int_arg(recv, pos)?, int_arg(&args[0], pos)?);
            let gcd = |mut x: i64, mut y: i64| {
                x = x.abs();
                y = y.abs();
                while y != 0 {
                    (x, y) = (y, x % y);
                }
                x
            };
            let g = gcd(a, b);
            Ok(RValue::Int(if name == "gcd" {
                g
            } else if g == 0 {
                0
            } else {
                (a / g * b).abs()
            }))
        }
        "step" | "upto" | "downto"
            if matches!(recv, RValue::Big(_))
                || args.iter().any(|a| matches!(a, RValue::Big(_))) =>
        {
            // Counting with big Integers: each value by Integer arithmetic.
            let b = need_block(block, name, pos)?;
            argc(&args, 1, if name == "step" { 2 } else { 1 }, pos)?;
            let step = match name {
                "step" => args.get(1).cloned().unwrap_or(RValue::Int(1)),
                "upto" => RValue::Int(1),
                _ => RValue::Int(-1),
            };
            let (Some(mut i), Some(z), Some(st)) =
                (bigint::of(recv), bigint::of(&args[0]), bigint::of(&step))
            else {
                return unsupported(
                    format!("Integer#{name} mixing big Integers and Floats"),
                    pos,
                );
            };
            if st.is_zero() {
                return raise("ArgumentError", "step can't be 0", pos);
            }
            while (st.is_positive() && i <= z) || (st.is_negative() && i >= z) {
                it.call_block(b, vec![bigint::norm(i.clone())], pos)?;
                i += &st;
            }
            Ok(recv.clone())
        }
        "step" => {
            let b = need_block(block, name, pos)?;
            argc(&args, 1, 2, pos)?;
            let start = recv.clone();
            let limit = args[0].clone();
            let step = args.get(1).cloned().unwrap_or(RValue::Int(1));
            match (&start, &limit, &step) {
                (RValue::Int(a), RValue::Int(z), RValue::Int(st)) => {
                    if *st == 0 {
                        return raise("ArgumentError", "step can't be 0", pos);
                    }
                    let mut i = *a;
                    while (*st > 0 && i <= *z) || (*st < 0 && i >= *z) {
                        it.call_block(b, vec![RValue::Int(i)], pos)?;
                        i = match i.checked_add(*st) {
                            Some(n) => n,
                            None => break,
                        };
                    }
                }
                _ => {
                    let (a, z, st) = (num_f(&start), num_f(&limit), num_f(&step));
                    if st == 0.0 {
                        return raise("ArgumentError", "step can't be 0", pos);
                    }
                    for x in float_steps(a, z, st, false, pos)? {
                        it.call_block(b, vec![RValue::Float(x)], pos)?;
                    }
                }
            }
            Ok(recv.clone())
        }
        // Integer's; a Float has none of them.
        "times" | "upto" | "downto" | "digits" | "ord" if matches!(recv, RValue::Float(_)) => {
            no_method(recv, name, pos)
        }
        "times" => {
            let b = need_block(block, name, pos)?;
            let n = int_arg(recv, pos)?;
            for i in 0..n.max(0) {
                it.call_block(b, vec![RValue::Int(i)], pos)?;
            }
            Ok(recv.clone())
        }
        "upto" | "downto" => {
            let b = need_block(block, name, pos)?;
            argc(&args, 1, 1, pos)?;
            let (a, z) = (int_arg(recv, pos)?, int_arg(&args[0], pos)?);
            if name == "upto" {
                for i in a..=z {
                    it.call_block(b, vec![RValue::Int(i)], pos)?;
                }
            } else {
                let mut i = a;
                while i >= z {
                    it.call_block(b, vec![RValue::Int(i)], pos)?;
                    match i.checked_sub(1) {
                        Some(n) => i = n,
                        None => break,
                    }
                }
            }
            Ok(recv.clone())
        }
        "&" | "|" | "^" | "<<" | ">>" => match (recv, args.first()) {
            (RValue::Int(a), Some(RValue::Int(b))) => Ok(RValue::Int(match name {
                "&" => a & b,
                "|" => a | b,
                "^" => a ^ b,
                "<<" if (0..63).contains(b)
                    && a.checked_shl(*b as u32).is_some_and(|r| r >> *b == *a) =>
                {
                    a << *b
                }
                ">>" if *b >= 0 => a >> (*b).min(63),
                _ => return bigint::bitop(name, &BigInt::from(*a), &BigInt::from(*b), pos),
            })),
            (RValue::Int(_) | RValue::Big(_), Some(b @ (RValue::Int(_) | RValue::Big(_)))) => {
                let (a, b) = (
                    bigint::of(recv).unwrap_or_default(),
                    bigint::of(b).unwrap_or_default(),
                );
                bigint::bitop(name, &a, &b, pos)
            }
            (RValue::Int(_) | RValue::Big(_), Some(RValue::Float(f)))
                if name != "<<" && name != ">>" =>
            {
                let _ = f;
                raise(
                    "TypeError",
                    "can't convert Float into Integer for bitwise arithmetic",
                    pos,
                )
            }
            _ => no_method(recv, name, pos),
        },
        "~" => match recv {
            RValue::Int(i) => Ok(RValue::Int(!i)),
            RValue::Big(b) => Ok(bigint::norm(-(**b).clone() - 1)),
            _ => no_method(recv, name, pos),
        },
        "[]" if bigint::is_int(recv) => {
            argc(&args, 1, 1, pos)?;
            let a = bigint::of(recv).unwrap_or_default();
            Ok(RValue::Int(match &args[0] {
                RValue::Int(i) if *i < 0 => 0,
                // Two's complement bits (a negative value has infinitely many ones).
                RValue::Int(i) => i64::from(a.bit(*i as u64)),
                RValue::Big(b) if b.is_negative() => 0,
                RValue::Big(_) => i64::from(a.is_negative()),
                _ => return unsupported("Integer#[] with this argument", pos),
            }))
        }
        "bit_length" => Ok(RValue::Int(match recv {
            RValue::Int(i) => i64::from(
                64 - if *i < 0 {
                    (!i).leading_zeros()
                } else {
                    i.leading_zeros()
                },
            ),
            RValue::Big(b) => {
                // Ruby: the bits of the value, or of -value-1 for a negative one.
                let m = if b.is_negative() {
                    -(**b).clone() - 1
                } else {
                    (**b).clone()
                };
                m.bits() as i64
            }
            _ => return no_method(recv, name, pos),
        })),
        "pow" if bigint::is_int(recv) => {
            argc(&args, 1, 2, pos)?;
            match args.get(1) {
                None => num_method(it, recv, "**", args, block, pos),
                Some(m) => {
                    let (Some(a), Some(b), Some(m)) =
                        (bigint::of(recv), bigint::of(&args[0]), bigint::of(m))
                    else {
                        return raise("TypeError", "Integer#pow() 2nd argument not allowed unless all arguments are integers", pos);
                    };
                    bigint::pow_mod(&a, &b, &m, pos)
                }
            }
        }
        "coerce" => {
            argc(&args, 1, 1, pos)?;
            let o = &args[0];
            match (recv, o) {
                (RValue::Int(_) | RValue::Big(_), RValue::Int(_) | RValue::Big(_)) => {
                    Ok(RValue::array(vec![o.clone(), recv.clone()]))
                }
                (_, RValue::Int(_) | RValue::Big(_) | RValue::Float(_)) => Ok(RValue::array(vec![
                    RValue::Float(num_f(o)),
                    RValue::Float(num_f(recv)),
                ])),
                _ => coerce_err(o),
            }
        }
        "hash" => Ok(RValue::Int(0)),
        "size" => Ok(RValue::Int(match recv {
            RValue::Big(b) => b.magnitude().bits().div_ceil(8) as i64,
            _ => 8,
        })),
        "digits" if bigint::is_int(recv) => {
            argc(&args, 0, 1, pos)?;
            let base = match args.first() {
                Some(b) => int_arg(b, pos)?,
                None => 10,
            };
            if base < 0 {
                return raise("ArgumentError", "negative radix", pos);
            }
            if base < 2 {
                return raise("ArgumentError", format!("invalid radix {base}"), pos);
            }
            let a = bigint::of(recv).unwrap_or_default();
            if a.is_negative() {
                return raise("Math::DomainError", "out of domain", pos);
            }
            if a.is_zero() {
                return Ok(RValue::array(vec![RValue::Int(0)]));
            }
            Ok(RValue::array(bigint::digits(&a, base as u32)))
        }
        _ => no_method(recv, name, pos),
    }
}

/// Ruby's `flodivmod`: the floored quotient and the modulo of two Floats, the modulo by
/// `fmod` (exact) with the divisor's sign.
fn flo_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut m = if y.is_infinite() && !x.is_infinite() {
        x
    } else {
        x % y
    };
    let mut d = if x.is_infinite() && !y.is_infinite() {
        x
    } else {
        ((x - m) / y).round()
    };
    if y * m < 0.0 {
        m += y;
        d -= 1.0;
    }
    (d, m)
}

/// The module functions of Ruby's `Math` that this engine has (all of them but `erf`,
/// `erfc`, `gamma`, `lgamma`, `frexp` and `ldexp`).
const MATH_FUNCTIONS: &[&str] = &[
    "sqrt", "cbrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "atan2", "hypot",
];

/// `Math.name(args)`: Ruby's conversions (`TypeError` for what is not a number) and
/// `Math::DomainError` outside a function's domain.
fn math(name: &str, args: &[RValue], pos: Pos) -> R {
    if !MATH_FUNCTIONS.contains(&name) {
        return unsupported(format!("Math.{name}"), pos);
    }
    let binary = matches!(name, "atan2" | "hypot");
    let (min, max) = match name {
        "log" => (1, 2),
        _ if binary => (2, 2),
        _ => (1, 1),
    };
    argc(args, min, max, pos)?;
    let mut xs = Vec::with_capacity(args.len());
    for a in args {
        xs.push(match a {
            RValue::Int(i) => *i as f64,
            RValue::Float(f) => *f,
            RValue::Big(_) => num_f(a),
            other => {
                let what = match other {
                    RValue::Nil => "nil".to_string(),
                    RValue::Bool(b) => b.to_string(),
                    o => o.class_name(),
                };
                return raise("TypeError", format!("can't convert {what} into Float"), pos);
            }
        });
    }
    let x = xs[0];
    let domain = |ok: bool| -> Result<(), Ctrl> {
        if ok || x.is_nan() {
            Ok(())
        } else {
            raise(
                "Math::DomainError",
                format!("Numerical argument is out of domain - {name}"),
                pos,
            )
        }
    };
    let v = match name {
        "sqrt" => {
            domain(x >= 0.0)?;
            x.sqrt()
        }
        "cbrt" => x.cbrt(),
        "exp" => x.exp(),
        "log" | "log2" | "log10" => {
            domain(x >= 0.0)?;
            match (name, xs.get(1)) {
                ("log", Some(b)) => {
                    if *b < 0.0 {
                        return raise(
                            "Math::DomainError",
                            "Numerical argument is out of domain - log",
                            pos,
                        );
                    }
                    x.ln() / b.ln()
                }
                ("log", None) => x.ln(),
                ("log2", _) => x.log2(),
                _ => x.log10(),
            }
        }
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" | "acos" => {
            domain((-1.0..=1.0).contains(&x))?;
            if name == "asin" {
                x.asin()
            } else {
                x.acos()
            }
        }
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "asinh" => x.asinh(),
        "acosh" => {
            domain(x >= 1.0)?;
            x.acosh()
        }
        "atanh" => {
            domain((-1.0..=1.0).contains(&x))?;
            x.atanh()
        }
        "atan2" => x.atan2(xs[1]),
        _ => x.hypot(xs[1]),
    };
    Ok(RValue::Float(v))
}

fn num_f(v: &RValue) -> f64 {
    match v {
        RValue::Int(i) => *i as f64,
        RValue::Big(b) => crate::bigint::to_f(b),
        RValue::Float(f) => *f,
        _ => 0.0,
    }
}

fn int_to_radix(i: i64, base: u32) -> String {
    let neg = i < 0;
    let mut n = i.unsigned_abs();
    if n == 0 {
        return "0".into();
    }
    let mut digits = Vec::new();
    while n > 0 {
        let d = (n % base as u64) as u32;
        digits.push(std::char::from_digit(d, base).unwrap_or('?'));
        n /= base as u64;
    }
    let mut s: String = digits.into_iter().rev().collect();
    if neg {
        s.insert(0, '-');
    }
    s
}

/// Whether both ends of a range are Integers.
fn range_int_ends(r: &(RValue, RValue, bool)) -> bool {
    matches!(r.0, RValue::Int(_) | RValue::Big(_)) && matches!(r.1, RValue::Int(_) | RValue::Big(_))
}

fn range_method(
    it: &mut Interp,
    recv: &RValue,
    r: &Rc<(RValue, RValue, bool)>,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    match name {
        "cover?" if matches!(args.as_slice(), [RValue::Range(_)]) => {
            let RValue::Range(o) = &args[0] else {
                return Ok(RValue::Nil);
            };
            Ok(RValue::Bool(range_covers_range(r, o)))
        }
        // A range of Strings answers `include?` by its members (Ruby's
        // `rb_str_include_range_p`: one-character ASCII ends compare characters, others
        // walk `succ`); `cover?` and `===` compare with the ends.
        "include?" | "member?"
            if matches!((&r.0, &r.1), (RValue::Str(_), RValue::Str(_)))
                && matches!(args.as_slice(), [RValue::Str(_)]) =>
        {
            let (RValue::Str(a), RValue::Str(z), RValue::Str(v)) = (&r.0, &r.1, &args[0]) else {
                return Ok(RValue::Bool(false));
            };
            let one = |s: &value::Shared<String>| {
                let s = s.borrow();
                s.len() == 1 && s.is_ascii()
            };
            if one(a) && one(z) {
                return Ok(RValue::Bool(one(v) && range_cover(r, &args[0])));
            }
            let items = range_items(it, r, pos)?;
            Ok(RValue::Bool(
                items.iter().any(|x| value::equal(x, &args[0])),
            ))
        }
        "include?" | "member?" | "cover?" | "===" => {
            argc(&args, 1, 1, pos)?;
            Ok(RValue::Bool(range_cover(r, &args[0])))
        }
        "first" | "min" if matches!(r.0, RValue::Nil) => raise(
            "RangeError",
            if name == "min" {
                "cannot get the minimum of beginless range"
            } else {
                "cannot get the first element of beginless range"
            },
            pos,
        ),
        "last" | "max" if matches!(r.1, RValue::Nil) => raise(
            "RangeError",
            if name == "max" {
                "cannot get the maximum of endless range"
            } else {
                "cannot get the last element of endless range"
            },
            pos,
        ),
        "size"
            if args.is_empty()
                && matches!(
                    (&r.0, &r.1),
                    (
                        RValue::Int(_) | RValue::Big(_) | RValue::Float(_),
                        RValue::Nil
                    ) | (
                        RValue::Nil,
                        RValue::Int(_) | RValue::Big(_) | RValue::Float(_)
                    )
                ) =>
        {
            Ok(RValue::Float(f64::INFINITY))
        }
        "first" | "begin" if args.is_empty() => Ok(r.0.clone()),
        "first" | "take" if matches!(r.0, RValue::Int(_)) => {
            // Lazily: an endless or huge range gives its first n.
            argc(&args, 1, 1, pos)?;
            let n = int_arg(&args[0], pos)?;
            if n < 0 {
                return raise(
                    "ArgumentError",
                    "negative array size (or size too big)",
                    pos,
                );
            }
            let RValue::Int(a) = r.0 else {
                return Ok(RValue::Nil);
            };
            let mut out = Vec::new();
            let mut i = a;
            while (out.len() as i64) < n.min(10_000_000) && range_cover(r, &RValue::Int(i)) {
                out.push(RValue::Int(i));
                i = match i.checked_add(1) {
                    Some(x) => x,
                    None => break,
                };
            }
            it.charge(out.len() * 16, pos)?;
            Ok(RValue::array(out))
        }
        "end" => Ok(r.1.clone()),
        "lazy" if args.is_empty() => Ok(crate::library::lazy_of(it, recv.clone())),
        "exclude_end?" => Ok(RValue::Bool(r.2)),
        // Numeric and other comparable ends answer by their ends, without iterating
        // (`(1.0..2.0).max`), nil for an empty range.
        "min" | "max" | "minmax" if args.is_empty() && block.is_none() => {
            let empty = |it: &mut Interp| -> Result<bool, Ctrl> {
                if matches!(r.0, RValue::Nil) || matches!(r.1, RValue::Nil) {
                    return Ok(false);
                }
                Ok(match compare(&r.0, &r.1) {
                    Some(Ordering::Greater) => true,
                    Some(Ordering::Equal) => r.2,
                    Some(Ordering::Less) => false,
                    None => {
                        let c = it.call_method(r.0.clone(), "<=>", vec![r.1.clone()], None, pos)?;
                        match c {
                            RValue::Int(c) => c > 0 || (c == 0 && r.2),
                            _ => true,
                        }
                    }
                })
            };
            let min = |it: &mut Interp| -> R {
                if matches!(r.0, RValue::Nil) {
                    return raise(
                        "RangeError",
                        "cannot get the minimum of beginless range",
                        pos,
                    );
                }
                Ok(if empty(it)? { RValue::Nil } else { r.0.clone() })
            };
            let max = |it: &mut Interp| -> R {
                if matches!(r.1, RValue::Nil) {
                    return raise("RangeError", "cannot get the maximum of endless range", pos);
                }
                if r.2 && !matches!(r.1, RValue::Int(_) | RValue::Big(_)) {
                    return raise("TypeError", "cannot exclude non Integer end value", pos);
                }
                if r.2 && !matches!(r.0, RValue::Int(_) | RValue::Big(_) | RValue::Nil) {
                    return raise(
                        "TypeError",
                        "cannot exclude end value with non Integer begin value",
                        pos,
                    );
                }
                if empty(it)? {
                    return Ok(RValue::Nil);
                }
                match (&r.1, r.2) {
                    (RValue::Int(b), true) => Ok(RValue::Int(b - 1)),
                    (RValue::Big(b), true) => Ok(crate::bigint::norm((**b).clone() - 1)),
                    _ => Ok(r.1.clone()),
                }
            };
            match name {
                "min" => min(it),
                "max" => max(it),
                _ => {
                    let lo = min(it)?;
                    let hi = max(it)?;
                    Ok(RValue::array(vec![lo, hi]))
                }
            }
        }
        "last" if args.is_empty() => Ok(r.1.clone()),
        // `size` of a numeric range (Float ends too; Infinity where it has no end), nil
        // for others.
        "size" if args.is_empty() && block.is_none() && !range_int_ends(r) => {
            let num = |v: &RValue| match v {
                RValue::Int(i) => Some(*i as f64),
                RValue::Float(f) => Some(*f),
                RValue::Big(b) => Some(crate::bigint::to_f(b)),
                _ => None,
            };
            match (&r.0, &r.1) {
                (RValue::Int(_) | RValue::Big(_) | RValue::Float(_), RValue::Nil) => {
                    Ok(RValue::Float(f64::INFINITY))
                }
                (RValue::Nil, RValue::Int(_) | RValue::Big(_) | RValue::Float(_)) => {
                    Ok(RValue::Float(f64::INFINITY))
                }
                (a, b) => match (num(a), num(b)) {
                    (Some(a), Some(b)) => {
                        // Ruby's `ruby_float_step_size` with a unit step.
                        let n = (b - a).floor();
                        let n = if r.2 && a + n == b { n - 1.0 } else { n };
                        if n < 0.0 {
                            Ok(RValue::Int(0))
                        } else if n.is_infinite() {
                            Ok(RValue::Float(n))
                        } else {
                            Ok(RValue::Int(n as i64 + 1))
                        }
                    }
                    _ => Ok(RValue::Nil),
                },
            }
        }
        "size" | "count" if args.is_empty() && block.is_none() => match (&r.0, &r.1) {
            (RValue::Int(a), RValue::Int(b)) => {
                let end = if r.2 { b.saturating_sub(1) } else { *b };
                Ok(RValue::Int(end.saturating_sub(*a).saturating_add(1).max(0)))
            }
            (RValue::Int(_) | RValue::Big(_), RValue::Int(_) | RValue::Big(_)) => {
                let (a, b) = (
                    crate::bigint::of(&r.0).unwrap_or_default(),
                    crate::bigint::of(&r.1).unwrap_or_default(),
                );
                let end = if r.2 { b - 1 } else { b };
                let n: BigInt = end - a + 1;
                Ok(crate::bigint::norm(if n.is_negative() {
                    BigInt::zero()
                } else {
                    n
                }))
            }
            _ => Ok(RValue::Int(range_items(it, r, pos)?.len() as i64)),
        },
        "step" => {
            argc(&args, 1, 1, pos)?;
            let float = [&r.0, &r.1, &args[0]]
                .iter()
                .any(|v| matches!(v, RValue::Float(_)));
            let items: Vec<RValue> = if float {
                let unit = num_f(&args[0]);
                if unit < 0.0 {
                    return raise("ArgumentError", "step can't be negative", pos);
                }
                if unit == 0.0 {
                    return raise("ArgumentError", "step can't be 0", pos);
                }
                float_steps(num_f(&r.0), num_f(&r.1), unit, r.2, pos)?
                    .into_iter()
                    .map(RValue::Float)
                    .collect()
            } else {
                let step = int_arg(&args[0], pos)?;
                if step < 0 {
                    return raise("ArgumentError", "step can't be negative", pos);
                }
                if step == 0 {
                    return raise("ArgumentError", "step can't be 0", pos);
                }
                range_items(it, r, pos)?
                    .into_iter()
                    .step_by(step as usize)
                    .collect()
            };
            match block {
                Some(b) => {
                    for x in items {
                        it.call_block(b, vec![x], pos)?;
                    }
                    Ok(recv.clone())
                }
                None => Ok(RValue::array(items)),
            }
        }
        "each" => {
            let b = need_block(block, name, pos)?;
            for x in range_items(it, r, pos)? {
                it.call_block(b, vec![x], pos)?;
            }
            Ok(recv.clone())
        }
        // Only Range's own (mostly Enumerable) methods work on its items as an array;
        // `concat`, `[]`... are Array's, and Ruby raises for them.
        _ if !crate::ruby_methods::has(crate::ruby_methods::RANGE, name) => {
            no_method(recv, name, pos)
        }
        _ => {
            let items = RValue::array(range_items(it, r, pos)?);
            let RValue::Array(a) = &items else {
                return no_method(recv, name, pos);
            };
            let a = a.clone();
            crate::collections::array_method(it, &items, &a, name, args, block, pos)
        }
    }
}

/// Whether a built-in class (by name) has a native class method.
pub(crate) fn class_responds(cname: &str, name: &str) -> bool {
    match cname {
        "Hash" => matches!(name, "new" | "[]"),
        "Array" => matches!(name, "new" | "[]"),
        "Proc" => name == "new",
        "String" => name == "new",
        "Regexp" => matches!(
            name,
            "escape" | "quote" | "new" | "compile" | "union" | "last_match"
        ),
        "IPAddr" => matches!(name, "new" | "ntop"),
        "File" => matches!(
            name,
            "join"
                | "basename"
                | "dirname"
                | "extname"
                | "exist?"
                | "exists?"
                | "file?"
                | "read"
                | "directory?"
                | "absolute_path?"
                | "expand_path"
                | "split"
        ),
        "JSON" => matches!(
            name,
            "parse" | "generate" | "dump" | "pretty_generate" | "load"
        ),
        "Math" => MATH_FUNCTIONS.contains(&name),
        "Integer" => name == "sqrt",
        "YAML" | "Psych" => matches!(
            name,
            "dump"
                | "load"
                | "safe_load"
                | "unsafe_load"
                | "load_file"
                | "safe_load_file"
                | "unsafe_load_file"
        ),
        "PSON" => matches!(name, "load" | "parse"),
        "Base64" => matches!(
            name,
            "encode64"
                | "decode64"
                | "strict_encode64"
                | "strict_decode64"
                | "urlsafe_encode64"
                | "urlsafe_decode64"
        ),
        "Digest::MD5" | "Digest::SHA1" | "Digest::SHA256" | "Digest::SHA512" | "Digest::SHA2" => {
            matches!(name, "hexdigest" | "digest" | "base64digest")
        }
        // The primitives of the prelude's OpenSSL::HMAC and OpenSSL::KDF/PKCS5.
        "OpenSSL::HMAC" => name == "__hmac",
        "OpenSSL::PKCS5" => name == "__pbkdf2",
        "CGI" | "ERB::Util" => matches!(
            name,
            "escape" | "unescape" | "url_encode" | "html_escape" | "h" | "escapeHTML"
        ),
        "Struct" => name == "new",
        "Time" => false,
        _ => false,
    }
}

/// The bytes of a string (a binary string's characters are its bytes).
pub(crate) fn str_bytes(v: &RValue) -> Vec<u8> {
    match v {
        RValue::Str(s) if s.is_binary() => s.borrow().chars().map(|c| c as u32 as u8).collect(),
        other => to_s(other).into_bytes(),
    }
}

/// A binary string of bytes (each byte a character, as Ruby's ASCII-8BIT strings; ASCII
/// bytes too, so that `encoding` and `inspect` answer as Ruby's: `"\x00\x01"`).
pub(crate) fn binary_string(bytes: &[u8]) -> RValue {
    let v = RValue::string(bytes.iter().map(|b| *b as char).collect());
    if let RValue::Str(s) = &v {
        s.set_binary();
    }
    v
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Class methods of built-in and library classes, by the class's name. `None` when the
/// class has no such native method.
pub(crate) fn class_method(
    it: &mut Interp,
    cname: &str,
    recv: &RValue,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    if !class_responds(cname, name) {
        return None;
    }
    let args = args.to_vec();
    let _ = recv;
    Some((|| match (cname, name) {
        ("Hash", "new") => {
            argc(&args, 0, 1, pos)?;
            Ok(RValue::hash(RHash {
                map: Default::default(),
                default: args.first().cloned().unwrap_or(RValue::Nil),
                default_proc: block.cloned(),
                identity: false,
            }))
        }
        // `Proc.new { ... }`: the block as a proc (as `proc { ... }`); Ruby 3 refuses
        // `Proc.new` without one.
        ("Proc", "new") => match block {
            Some(b) => Ok(RValue::Proc(b.clone())),
            None => raise(
                "ArgumentError",
                "tried to create Proc object without a block",
                pos,
            ),
        },
        ("Hash", "[]") => match args.as_slice() {
            [RValue::Hash(h)] => Ok(RValue::hash(h.borrow().clone())),
            [RValue::Array(a)] => {
                // Each element a [key, value] or [key] array, as Ruby checks them.
                let mut pairs = Vec::new();
                for (i, x) in a.borrow().iter().enumerate() {
                    match x {
                        RValue::Array(p) => match p.borrow().as_slice() {
                            [k] => pairs.push((k.clone(), RValue::Nil)),
                            [k, v] => pairs.push((k.clone(), v.clone())),
                            other => {
                                return raise(
                                    "ArgumentError",
                                    format!(
                                        "invalid number of elements ({} for 1..2)",
                                        other.len()
                                    ),
                                    pos,
                                )
                            }
                        },
                        other => {
                            let class = match other {
                                RValue::Nil | RValue::Bool(_) => value::inspect(other),
                                _ => other.class_name(),
                            };
                            return raise(
                                "ArgumentError",
                                format!("wrong element type {class} at {i} (expected array)"),
                                pos,
                            );
                        }
                    }
                }
                Ok(hash_from_pairs(pairs))
            }
            _ if args.len() % 2 == 0 => Ok(hash_from_pairs(
                args.chunks(2)
                    .map(|c| (c[0].clone(), c[1].clone()))
                    .collect(),
            )),
            _ => raise("ArgumentError", "odd number of arguments for Hash", pos),
        },
        ("Array", "new") => {
            argc(&args, 0, 2, pos)?;
            let n = match args.first() {
                Some(RValue::Array(a)) => return Ok(RValue::array(a.borrow().clone())),
                Some(v) => int_arg(v, pos)?,
                None => 0,
            };
            if n < 0 {
                return raise("ArgumentError", "negative array size", pos);
            }
            if n > 1_000_000 {
                return raise("ArgumentError", "array size too big", pos);
            }
            it.charge(n as usize * 16, pos)?;
            let fill = args.get(1).cloned().unwrap_or(RValue::Nil);
            let mut out = Vec::new();
            for i in 0..n {
                out.push(match block {
                    Some(b) => it.call_block(b, vec![RValue::Int(i)], pos)?,
                    None => fill.clone(),
                });
            }
            Ok(RValue::array(out))
        }
        ("Array", "[]") => Ok(RValue::array(args)),
        // `String.new` is a binary (ASCII-8BIT) string; `String.new(s)` has `s`'s encoding.
        ("String", "new") => {
            let binary = match args.first() {
                None => true,
                Some(RValue::Str(s)) => s.is_binary(),
                Some(_) => false,
            };
            let v = RValue::string(args.first().map(to_s).unwrap_or_default());
            if let (true, RValue::Str(s)) = (binary, &v) {
                s.set_binary();
            }
            Ok(v)
        }
        ("Regexp", "escape") | ("Regexp", "quote") => {
            argc(&args, 1, 1, pos)?;
            Ok(RValue::string(escape_regex(&to_s(&args[0]))))
        }
        ("Regexp", "last_match") => {
            argc(&args, 0, 1, pos)?;
            let m = it.last_match();
            Ok(match (m, args.first()) {
                (None, _) => RValue::Nil,
                (Some(m), None) => RValue::MatchData(m),
                (Some(m), Some(i)) => {
                    let i = int_arg(i, pos)?;
                    norm_index(i, m.len())
                        .and_then(|i| m.get(i).cloned().flatten())
                        .map(RValue::string)
                        .unwrap_or(RValue::Nil)
                }
            })
        }
        ("Regexp", "new") | ("Regexp", "compile") => {
            argc(&args, 1, 2, pos)?;
            let flags = match args.get(1) {
                Some(RValue::Bool(true)) => "i".to_string(),
                Some(RValue::Int(i)) => {
                    let mut f = String::new();
                    if i & 1 != 0 {
                        f.push('i');
                    }
                    if i & 2 != 0 {
                        f.push('x');
                    }
                    if i & 4 != 0 {
                        f.push('m');
                    }
                    f
                }
                Some(RValue::Str(s)) => s.borrow().clone(),
                _ => String::new(),
            };
            match &args[0] {
                RValue::Regexp(r) => Ok(RValue::Regexp(r.clone())),
                other => {
                    let src = str_arg(other, pos)?;
                    match value::compile_regex(&src, &flags) {
                        Ok(r) => Ok(RValue::Regexp(Rc::new(r))),
                        Err(e) => unsupported(format!("regexp /{src}/ ({e})"), pos),
                    }
                }
            }
        }
        ("Regexp", "union") => {
            let parts: Vec<String> = splat_items(it, &RValue::array(args), pos)?
                .iter()
                .map(|v| match v {
                    RValue::Regexp(r) => to_s(&RValue::Regexp(r.clone())),
                    other => escape_regex(&to_s(other)),
                })
                .collect();
            let src = parts.join("|");
            match value::compile_regex(&src, "") {
                Ok(r) => Ok(RValue::Regexp(Rc::new(r))),
                Err(e) => unsupported(format!("regexp /{src}/ ({e})"), pos),
            }
        }
        ("IPAddr", "new") => {
            argc(&args, 0, 2, pos)?;
            // Ruby: an IPAddr is copied; any other non-String is an integer address and
            // needs the family argument.
            let s = match args.first() {
                Some(RValue::Str(s)) => s.borrow().clone(),
                Some(RValue::IpAddr(ip)) => return Ok(RValue::IpAddr(ip.clone())),
                Some(n) => {
                    let family = match args.get(1) {
                        Some(RValue::Int(f)) => *f,
                        None | Some(RValue::Nil) => 0,
                        Some(other) => {
                            return unsupported(
                                format!("IPAddr.new with the family {}", inspect(other)),
                                pos,
                            )
                        }
                    };
                    // `None`: negative or beyond 128 bits, an invalid address.
                    let n = match n {
                        RValue::Int(i) => u128::try_from(*i).ok(),
                        RValue::Big(b) => num_traits::ToPrimitive::to_u128(&**b),
                        RValue::Float(f) if f.is_finite() => (*f > -1.0).then(|| f.trunc() as u128),
                        other => {
                            return unsupported(format!("IPAddr.new of {}", inspect(other)), pos)
                        }
                    };
                    return crate::ipaddr::from_integer(n, family, pos);
                }
                None => "::".to_string(),
            };
            let v = crate::ipaddr::new_value(&s, pos)?;
            if let (Some(RValue::Int(f)), RValue::IpAddr(ip)) = (args.get(1), &v) {
                if (*f == 10) != ip.v6 {
                    return raise("IPAddr::AddressFamilyError", "address family mismatch", pos);
                }
            }
            Ok(v)
        }
        ("IPAddr", "ntop") => unsupported("IPAddr.ntop", pos),
        ("File", "join") => {
            let parts: Vec<String> = splat_items(it, &RValue::array(args), pos)?
                .iter()
                .map(to_s)
                .collect();
            let mut out = String::new();
            for (i, p) in parts.iter().enumerate() {
                if i == 0 {
                    out.push_str(p);
                    continue;
                }
                match (out.ends_with('/'), p.starts_with('/')) {
                    (true, true) => out.push_str(&p[1..]),
                    (false, false) => {
                        out.push('/');
                        out.push_str(p);
                    }
                    _ => out.push_str(p),
                }
            }
            Ok(RValue::string(out))
        }
        ("File", "basename") => {
            argc(&args, 1, 2, pos)?;
            let s = str_arg(&args[0], pos)?;
            let t = s.trim_end_matches('/');
            let mut base = t.rsplit('/').next().unwrap_or("").to_string();
            if base.is_empty() && s.starts_with('/') {
                base = "/".into();
            }
            if let Some(ext) = args.get(1) {
                let ext = str_arg(ext, pos)?;
                if ext == ".*" {
                    if let Some(i) = base.rfind('.').filter(|i| *i > 0) {
                        base.truncate(i);
                    }
                } else if base.ends_with(&ext) && base != ext {
                    base.truncate(base.len() - ext.len());
                }
            }
            Ok(RValue::string(base))
        }
        ("File", "dirname") => {
            argc(&args, 1, 1, pos)?;
            let s = str_arg(&args[0], pos)?;
            Ok(RValue::string(dirname(&s)))
        }
        ("File", "split") => {
            argc(&args, 1, 1, pos)?;
            let s = str_arg(&args[0], pos)?;
            let base = s
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string();
            Ok(RValue::array(vec![
                RValue::string(dirname(&s)),
                RValue::string(base),
            ]))
        }
        ("File", "extname") => {
            argc(&args, 1, 1, pos)?;
            let s = str_arg(&args[0], pos)?;
            // Ruby 3.1 (not Windows): the last component without trailing slashes and
            // leading dots, from its last dot (a final dot alone is ".").
            let base = s.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            let base = base.trim_start_matches('.');
            Ok(RValue::string(match base.rfind('.') {
                Some(i) => base[i..].to_string(),
                None => String::new(),
            }))
        }
        ("File", "absolute_path?") => {
            argc(&args, 1, 1, pos)?;
            Ok(RValue::Bool(str_arg(&args[0], pos)?.starts_with('/')))
        }
        ("File", "expand_path") => {
            argc(&args, 1, 2, pos)?;
            let s = str_arg(&args[0], pos)?;
            let base = match args.get(1) {
                Some(b) => str_arg(b, pos)?,
                None => {
                    if !s.starts_with('/') {
                        return unsupported(
                            "File.expand_path of a relative path (the working directory)",
                            pos,
                        );
                    }
                    String::new()
                }
            };
            let full = if s.starts_with('/') {
                s
            } else {
                format!("{base}/{s}")
            };
            if !full.starts_with('/') {
                return unsupported(
                    "File.expand_path of a relative path (the working directory)",
                    pos,
                );
            }
            Ok(RValue::string(crate::modules::normalize_path(&full)))
        }
        ("File", "exist?") | ("File", "exists?") | ("File", "file?") | ("File", "directory?") => {
            argc(&args, 1, 1, pos)?;
            let s = str_arg(&args[0], pos)?;
            let kind = it.sources.host().kind(&s);
            Ok(RValue::Bool(match name {
                "file?" => kind == Some(crate::PathKind::File),
                "directory?" => kind == Some(crate::PathKind::Directory),
                _ => kind.is_some(),
            }))
        }
        ("File", "read") => {
            argc(&args, 1, 2, pos)?;
            let s = str_arg(&args[0], pos)?;
            match it.sources.host().read(&s) {
                Some(t) => Ok(RValue::str(&t)),
                None => raise(
                    "Errno::ENOENT",
                    format!("No such file or directory @ rb_sysopen - {s}"),
                    pos,
                ),
            }
        }
        ("JSON", "parse") => {
            argc(&args, 1, 2, pos)?;
            let s = str_arg(&args[0], pos)?;
            let symbolize = matches!(args.get(1), Some(RValue::Hash(h)) if h.borrow().get(&RValue::sym("symbolize_names")).is_some_and(|v| v.truthy()));
            let v = json_parse(&s, pos)?;
            Ok(if symbolize { symbolize_keys(&v, 0) } else { v })
        }
        ("PSON", "load" | "parse") => {
            argc(&args, 1, 2, pos)?;
            let s = str_arg(&args[0], pos)?;
            match crate::pson_load_ruby(&s) {
                Ok(v) => Ok(value::from_puppet(&v)),
                Err(("", what)) => unsupported(what, pos),
                Err((class, message)) => raise(class, message, pos),
            }
        }
        ("JSON", "load") => {
            argc(&args, 1, 2, pos)?;
            if matches!(args[0], RValue::Nil) {
                return Ok(RValue::Nil);
            }
            let s = str_arg(&args[0], pos)?;
            json_parse(&s, pos)
        }
        ("JSON", "generate") | ("JSON", "dump") => {
            argc(&args, 1, 2, pos)?;
            if name == "generate" {
                crate::json::check_nesting(&args[0], args.get(1), pos)?;
            }
            Ok(RValue::string(crate::json::generate(&args[0], pos)?))
        }
        ("JSON", "pretty_generate") => {
            argc(&args, 1, 2, pos)?;
            crate::json::check_nesting(&args[0], args.get(1), pos)?;
            let style = crate::json::PrettyStyle::from_options(args.get(1));
            Ok(RValue::string(crate::json::pretty_generate_with(
                &args[0], &style, pos,
            )?))
        }
        ("YAML", "dump") | ("Psych", "dump") => {
            argc(&args, 1, 2, pos)?;
            Ok(RValue::string(crate::yaml::to_yaml(&args[0], pos)?))
        }
        ("YAML" | "Psych", "load" | "safe_load" | "unsafe_load") => {
            if args.is_empty() {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                    pos,
                );
            }
            let text = str_arg(&args[0], pos)?;
            load_yaml(&text, &args[1..], name, pos)
        }
        ("YAML" | "Psych", "load_file" | "safe_load_file" | "unsafe_load_file") => {
            if args.is_empty() {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                    pos,
                );
            }
            let path = str_arg(&args[0], pos)?;
            match it.sources.host().read(&path) {
                Some(t) => load_yaml(&t, &args[1..], name, pos),
                None => raise(
                    "Errno::ENOENT",
                    format!("No such file or directory @ rb_sysopen - {path}"),
                    pos,
                ),
            }
        }
        ("YAML", _) | ("Psych", _) => unsupported(format!("{cname}.{name} (reading YAML)"), pos),
        ("Math", _) => math(name, &args, pos),
        ("Integer", "sqrt") => {
            argc(&args, 1, 1, pos)?;
            match &args[0] {
                RValue::Big(b) if b.is_positive() => {
                    Ok(crate::bigint::norm(num_integer::Roots::sqrt(&**b)))
                }
                _ => Ok(RValue::Int((int_arg(&args[0], pos)? as f64).sqrt() as i64)),
            }
        }
        ("Base64", _) => {
            argc(&args, 1, 1, pos)?;
            use base64::Engine;
            let e = base64::engine::general_purpose::STANDARD;
            let u = base64::engine::general_purpose::URL_SAFE;
            match name {
                "encode64" => {
                    let enc = e.encode(str_bytes(&args[0]));
                    let mut out = String::new();
                    for chunk in enc.as_bytes().chunks(60) {
                        out.push_str(std::str::from_utf8(chunk).unwrap_or(""));
                        out.push('\n');
                    }
                    Ok(RValue::string(out))
                }
                "strict_encode64" => Ok(RValue::string(e.encode(str_bytes(&args[0])))),
                "urlsafe_encode64" => Ok(RValue::string(u.encode(str_bytes(&args[0])))),
                "decode64" => {
                    let t: String = to_s(&args[0])
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || *c == '+' || *c == '/')
                        .collect();
                    let pad = (4 - t.len() % 4) % 4;
                    let t = if t.len() % 4 == 1 {
                        t[..t.len() - 1].to_string()
                    } else {
                        t + &"=".repeat(pad)
                    };
                    // `unpack("m")`: a binary (ASCII-8BIT) string.
                    match e.decode(t.as_bytes()) {
                        Ok(b) => Ok(binary_string(&b)),
                        Err(_) => Ok(binary_string(&[])),
                    }
                }
                "strict_decode64" | "urlsafe_decode64" => {
                    let eng = if name == "strict_decode64" { e } else { u };
                    let t = to_s(&args[0]);
                    let t = if name == "urlsafe_decode64" && t.len() % 4 != 0 {
                        format!("{t}{}", "=".repeat((4 - t.len() % 4) % 4))
                    } else {
                        t
                    };
                    match eng.decode(t.as_bytes()) {
                        Ok(b) => Ok(binary_string(&b)),
                        Err(_) => raise("ArgumentError", "invalid base64", pos),
                    }
                }
                _ => unsupported(format!("Base64.{name}"), pos),
            }
        }
        (d, _) if d.starts_with("Digest::") => {
            argc(&args, 1, 1, pos)?;
            if !matches!(args[0], RValue::Str(_)) {
                return crate::interp::no_implicit_conversion(&args[0], "String", pos);
            }
            let data = str_bytes(&args[0]);
            use puppet_functions::digest;
            let raw: Vec<u8> = match d {
                "Digest::MD5" => digest::md5(&data).to_vec(),
                "Digest::SHA1" => digest::sha1(&data).to_vec(),
                "Digest::SHA256" | "Digest::SHA2" => digest::sha256(&data).to_vec(),
                "Digest::SHA512" => digest::sha512(&data).to_vec(),
                _ => return unsupported(format!("{d}.{name}"), pos),
            };
            match name {
                "hexdigest" => Ok(RValue::string(hex(&raw))),
                "digest" => Ok(binary_string(&raw)),
                _ => {
                    use base64::Engine;
                    Ok(RValue::string(
                        base64::engine::general_purpose::STANDARD.encode(raw),
                    ))
                }
            }
        }
        // `__hmac(digest_name, key, data)`: the raw HMAC.
        ("OpenSSL::HMAC", "__hmac") => {
            argc(&args, 3, 3, pos)?;
            let alg = to_s(&args[0]);
            let Some((d, block)) = puppet_functions::digest::by_name(&alg) else {
                return unsupported(format!("OpenSSL::HMAC with the digest {alg}"), pos);
            };
            let mac = puppet_functions::digest::hmac(
                d,
                block,
                &str_bytes(&args[1]),
                &str_bytes(&args[2]),
            );
            Ok(binary_string(&mac))
        }
        // `__pbkdf2(password, salt, iterations, length, digest_name)`.
        ("OpenSSL::PKCS5", "__pbkdf2") => {
            argc(&args, 5, 5, pos)?;
            let alg = to_s(&args[4]);
            let Some((d, block)) = puppet_functions::digest::by_name(&alg) else {
                return unsupported(format!("PBKDF2 with the digest {alg}"), pos);
            };
            let (iterations, len) = (int_arg(&args[2], pos)?, int_arg(&args[3], pos)?);
            if iterations < 1 || !(0..=1 << 20).contains(&len) || iterations > 10_000_000 {
                return raise("ArgumentError", "invalid iterations or length", pos);
            }
            let key = puppet_functions::digest::pbkdf2_hmac(
                d,
                block,
                &str_bytes(&args[0]),
                &str_bytes(&args[1]),
                iterations as u32,
                len as usize,
            );
            Ok(binary_string(&key))
        }
        ("CGI", "escape") => {
            argc(&args, 1, 1, pos)?;
            Ok(RValue::string(url_escape(&str_bytes(&args[0]), true)))
        }
        ("ERB::Util", "url_encode") => {
            argc(&args, 1, 1, pos)?;
            Ok(RValue::string(url_escape(&str_bytes(&args[0]), false)))
        }
        ("CGI", "unescape") => {
            argc(&args, 1, 1, pos)?;
            let s = to_s(&args[0]).replace('+', " ");
            Ok(bytes_string(&percent_decode(&s)))
        }
        ("CGI", "escapeHTML") | ("ERB::Util", "html_escape") | ("ERB::Util", "h") => {
            argc(&args, 1, 1, pos)?;
            let s = to_s(&args[0]);
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                match c {
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '"' => out.push_str("&quot;"),
                    '\'' => out.push_str("&#39;"),
                    c => out.push(c),
                }
            }
            Ok(RValue::string(out))
        }
        ("Struct", "new") => match recv {
            RValue::Module(m) if m.name_is("Struct") => {
                crate::kernel::struct_new(it, &args, block, pos)
            }
            RValue::Module(m) => crate::kernel::instantiate(it, m, args, None, block, pos),
            _ => unsupported("Struct.new", pos),
        },
        _ => unsupported(format!("{cname}.{name}"), pos),
    })())
}

fn dirname(s: &str) -> String {
    let t = s.trim_end_matches('/');
    let d: String = match t.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => t[..i].trim_end_matches('/').to_string(),
        None => if s.starts_with('/') { "/" } else { "." }.into(),
    };
    // Leading slashes count as one (`//a//b` is in `/a`).
    if d.is_empty() {
        "/".into()
    } else if d.starts_with("//") {
        format!("/{}", d.trim_start_matches('/'))
    } else {
        d
    }
}

/// A string of bytes: UTF-8 text when valid, else a binary string.
fn bytes_string(b: &[u8]) -> RValue {
    match std::str::from_utf8(b) {
        Ok(s) => RValue::str(s),
        Err(_) => binary_string(b),
    }
}

/// `CGI.escape` (`form`: spaces as `+`) / `ERB::Util.url_encode` (spaces as `%20`).
fn url_escape(b: &[u8], form: bool) -> String {
    let mut out = String::new();
    for &c in b {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.' | b'-' => out.push(c as char),
            b'~' => out.push('~'),
            b'*' if form => out.push_str("%2A"),
            b' ' if form => out.push('+'),
            _ => out.push_str(&format!("%{c:02X}")),
        }
    }
    out
}

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn symbolize_keys(v: &RValue, depth: usize) -> RValue {
    crate::with_stack(|| {
        if depth > 64 {
            return v.clone();
        }
        match v {
            RValue::Hash(h) => {
                let mut out = RHash::default();
                for (k, x) in h.borrow().pairs() {
                    let k = match &k {
                        RValue::Str(s) => RValue::sym(&s.borrow()),
                        other => other.clone(),
                    };
                    out.insert(k, symbolize_keys(&x, depth + 1));
                }
                RValue::hash(out)
            }
            RValue::Array(a) => RValue::array(
                a.borrow()
                    .iter()
                    .map(|x| symbolize_keys(x, depth + 1))
                    .collect(),
            ),
            other => other.clone(),
        }
    })
}

fn scope_method(
    it: &mut Interp,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    if let Some(r) = crate::catalog::scope_method(it, name, &args, pos) {
        return r;
    }
    match name {
        "warning" | "debug" | "notice" | "info" | "err" | "alert" | "emerg" | "crit" => {
            let msg = args.first().map(to_s).unwrap_or_default();
            it.scope.log_from_scope(name, &msg);
            Ok(RValue::Nil)
        }
        "environment" => crate::puppet::current_environment(it, pos),
        "compiler" => crate::puppet::current_compiler(it),
        "parent" | "known_resource_types" | "lookupdefaults" | "tags" => {
            unsupported(format!("scope method `{name}'"), pos)
        }
        "lookupvar" | "[]" | "include?" | "exist?" => {
            // `lookupvar(name, options = {})`, `[](name, options = {})`.
            argc(&args, 1, if name.ends_with('?') { 1 } else { 2 }, pos)?;
            let n = str_arg(&args[0], pos)?;
            it.variable_method(name, &n, &n, pos)
                .unwrap_or_else(|| unsupported(format!("scope method `{name}'"), pos))
        }
        "to_hash" => Ok(it.scope_hash()),
        "setvar" => {
            argc(&args, 2, 3, pos)?;
            let n = str_arg(&args[0], pos)?;
            it.setvar(&n, &args[1], pos)
        }
        "call_function" => {
            // `Scope#call_function(name, args, &block)` calls `func.call(scope, *args,
            // &block)`: the arguments are splatted as Ruby does (a hash gives its pairs,
            // nil nothing). Both are required, as in Puppet's signature.
            argc(&args, 2, 2, pos)?;
            let f = str_arg(&args[0], pos)?;
            let fargs = match args.get(1) {
                Some(RValue::Array(a)) => a.borrow().clone(),
                Some(RValue::Hash(h)) => h
                    .borrow()
                    .pairs()
                    .into_iter()
                    .map(|(k, v)| RValue::array(vec![k, v]))
                    .collect(),
                Some(RValue::Nil) | None => vec![],
                Some(other) => vec![other.clone()],
            };
            if let Some(b) = block {
                return crate::puppet::call_ruby_function_with_block(it, &f, fargs, b, pos);
            }
            if !crate::puppet::defines_3x(it, &f) {
                return it.puppet_function(&f, fargs, pos);
            }
            // A 3.x function this interpreter defined (a function file may define more than
            // the one it is named after, as docker's `docker::escape` beside
            // `docker_run_flags`): Puppet finds it when no loader knows the name, and maps
            // the arguments as for any 3.x call (a top-level nil becomes '').
            match it.puppet_function(&f, fargs.clone(), pos) {
                Err(Ctrl::Raise(e)) if e.message.starts_with("Unknown function") => {
                    let mapped = fargs
                        .into_iter()
                        .map(|a| match a {
                            RValue::Nil => RValue::str(""),
                            other => other,
                        })
                        .collect();
                    crate::puppet::call_3x(it, &f, mapped, pos)
                }
                other => other,
            }
        }
        _ => {
            if let Some(f) = name.strip_prefix("function_") {
                match args.as_slice() {
                    [RValue::Array(a)] => {
                        let fargs = a.borrow().clone();
                        crate::puppet::call_3x(it, f, fargs, pos)
                    }
                    _ => raise(
                        "ArgumentError",
                        "custom functions must be called with a single array that contains the arguments. For example, function_example([1]) instead of function_example(1)",
                        pos,
                    ),
                }
            } else if crate::ruby_methods::has(crate::ruby_methods::SCOPE, name) {
                unsupported(format!("scope method `{name}'"), pos)
            } else {
                scope_no_method(it, name, pos)
            }
        }
    }
}

/// Ruby's `NoMethodError` for a method Puppet's Scope does not have (a rescue sees it as in
/// Puppet): the receiver as Ruby 3.1 shows it, `Scope(Class[Site]):Puppet::Parser::Scope`
/// (the resource whose body runs, `Class[main]` at top level), and did_you_mean's
/// suggestions among the Scope's methods and the `function_*` methods of the 3.x functions
/// defined (Puppet's log-level functions, and those this interpreter has loaded: Puppet's
/// list holds those its own run has loaded, so a suggestion may differ).
pub(crate) fn scope_no_method<T>(it: &mut Interp, name: &str, pos: Pos) -> Result<T, Ctrl> {
    let receiver = crate::catalog::scope_text(it);
    let mut functions: Vec<String> = crate::puppet::LOG_LEVELS
        .iter()
        .map(|l| format!("function_{l}"))
        .collect();
    for f in &it.ext.functions {
        if let crate::puppet::DefinedFunction::V3 { name: n, .. } = f {
            functions.push(format!("function_{n}"));
        }
    }
    let mut dictionary: Vec<&str> = crate::ruby_methods::SCOPE.to_vec();
    dictionary.extend(functions.iter().map(String::as_str));
    raise(
        "NoMethodError",
        format!(
            "undefined method `{name}' for {receiver}:Puppet::Parser::Scope{}",
            crate::didyoumean::suffix(name, &dictionary)
        ),
        pos,
    )
}

/// `YAML.load`, `safe_load`, `unsafe_load` (and their `_file` forms) of a text, with
/// Hiera's YAML loader (Psych's rules for data: one document, merge keys, no classes but
/// the core ones), as Psych 4 does them: aliases only with `aliases: true` (or
/// `unsafe_load`), options only as keywords, an empty document `false` for `unsafe_load` and
/// `nil` otherwise. Values become Ruby data; symbols become strings (Hiera's loader makes
/// them so), where `load` would give symbols and `safe_load` refuse them.
fn load_yaml(text: &str, options: &[RValue], method: &str, pos: Pos) -> R {
    crate::yaml::load(text, options, method, pos)
}

/// `JSON.parse`/`JSON.load` of a text: the value, Ruby's exception, or what this engine
/// cannot represent (a Bignum).
fn json_parse(s: &str, pos: Pos) -> R {
    match crate::json::parse_ruby(s) {
        Ok(v) => Ok(v),
        Err(("", what)) => unsupported(what, pos),
        Err((class, message)) => raise(class, message, pos),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A regexp without groups is only searched for: its `$~` is what the captures of the
    /// same match give, at every start offset, for plain and backtracking regexps.
    #[test]
    fn a_search_without_groups_gives_the_captures_match() {
        let patterns = [
            ("^ssl", ""),
            ("ssl-", ""),
            ("a+", ""),
            ("\\d{2,}", ""),
            ("(?:ab)+", ""),
            ("x$", "m"),
            ("b(?=c)", ""),
            ("(?<!a)b", ""),
            ("\\bword\\b", "i"),
            ("", ""),
        ];
        let texts = [
            "ssl-ca",
            "no-ssl",
            "aaab abc",
            "12 345 6",
            "ababab",
            "x\nx",
            "WORD word",
            "",
            "é-ssl-é",
        ];
        for (source, flags) in patterns {
            let re = value::compile_regex(source, flags).expect("regexp");
            let rx = re.re(Pos::default()).expect("compiled");
            assert_eq!(rx.captures_len(), 1, "{source}");
            for text in texts {
                for start in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
                    let general = rx
                        .captures_from_pos(text, start)
                        .expect("search")
                        .map(|c| value::Captures::of(rx, &c, text));
                    let fast = match_at(rx, text, start).expect("search");
                    assert_eq!(fast, general, "/{source}/ on {text:?} from {start}");
                }
            }
        }
    }
}
