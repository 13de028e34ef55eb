//! The iteration family: `each`, `map`, `filter`, `reduce`, `any`, `all`, `index`, `slice`,
//! `step`, `reverse_each`, `tree_each`, `with`, `then`, `lest`, `group_by`, `partition`.
//!
//! Lambdas are called through [`CallContext::call_block`]; `next(v)` gives the lambda's value
//! and `break()` stops the iteration, after which the function returns normally with what it
//! has so far (as Puppet's `each`/`map` do).

use super::{elements, truthy, MAX_ELEMENTS};
use crate::context::{Block, CallContext};
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{RegistryError, Signature};
use puppet_types::value::ValueMap;
use puppet_types::Value;

/// The value of one lambda call; `None` when it ran `break()`.
pub(crate) fn invoke(
    ctx: &mut dyn CallContext,
    b: &dyn Block,
    args: Vec<Value>,
) -> Result<Option<Value>, CallError> {
    match ctx.call_block(b, args) {
        Ok(v) | Err(CallError::Next(v)) => Ok(Some(v)),
        Err(CallError::Break) => Ok(None),
        Err(e) => Err(e),
    }
}

fn block<'a>(a: &Args<'a>) -> Result<&'a dyn Block, CallError> {
    a.block
        .ok_or_else(|| CallError::new(codes::FAILED, "a block is required"))
}

/// The (arguments, key) of each element for a lambda of `arity` 1 or 2: a Hash gives
/// `[k, v]` or `(k, v)` with key `k`, other iterables `v` or `(i, v)` with key `i`.
fn entries(subject: &Value, two: bool) -> Result<Vec<(Vec<Value>, Value)>, CallError> {
    let mut out = Vec::new();
    match subject {
        Value::Hash(h) => {
            for (k, v) in h.iter() {
                let args = if two {
                    vec![k.clone(), v.clone()]
                } else {
                    vec![Value::array(vec![k.clone(), v.clone()])]
                };
                out.push((args, k.clone()));
            }
        }
        other => {
            for (i, e) in elements(other)?.into_iter().enumerate() {
                let idx = Value::Integer(i as i64);
                let args = if two { vec![idx.clone(), e] } else { vec![e] };
                out.push((args, idx));
            }
        }
    }
    Ok(out)
}

fn each(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let subject = a.get(0);
    for (args, _) in entries(&subject, two)? {
        if invoke(ctx, b, args)?.is_none() {
            break;
        }
    }
    Ok(subject)
}

fn map(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let mut out = Vec::new();
    for (args, _) in entries(&a.get(0), two)? {
        match invoke(ctx, b, args)? {
            Some(v) => out.push(v),
            None => break,
        }
    }
    Ok(Value::array(out))
}

fn filter(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let subject = a.get(0);
    match &subject {
        Value::Hash(h) => {
            let mut out = ValueMap::default();
            for (k, v) in h.iter() {
                let args = if two {
                    vec![k.clone(), v.clone()]
                } else {
                    vec![Value::array(vec![k.clone(), v.clone()])]
                };
                match invoke(ctx, b, args)? {
                    Some(r) if truthy(&r) => {
                        out.insert(k.clone(), v.clone());
                    }
                    Some(_) => {}
                    None => break,
                }
            }
            Ok(Value::Hash(std::sync::Arc::new(out)))
        }
        other => {
            let mut out = Vec::new();
            for (i, e) in elements(other)?.into_iter().enumerate() {
                let args = if two {
                    vec![Value::Integer(i as i64), e.clone()]
                } else {
                    vec![e.clone()]
                };
                match invoke(ctx, b, args)? {
                    Some(r) if truthy(&r) => out.push(e),
                    Some(_) => {}
                    None => break,
                }
            }
            Ok(Value::array(out))
        }
    }
}

fn flat_elements(v: &Value) -> Result<Vec<Value>, CallError> {
    match v {
        Value::Hash(h) => Ok(h
            .iter()
            .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
            .collect()),
        other => elements(other),
    }
}

fn reduce(ctx: &mut dyn CallContext, a: Args<'_>, memo: Option<Value>) -> Result<Value, CallError> {
    let b = block(&a)?;
    let mut items = flat_elements(&a.get(0))?.into_iter();
    let mut acc = match memo {
        Some(m) => m,
        None => match items.next() {
            Some(first) => first,
            None => return Ok(Value::Undef),
        },
    };
    for e in items {
        match invoke(ctx, b, vec![acc.clone(), e])? {
            Some(v) => acc = v,
            None => break,
        }
    }
    Ok(acc)
}

fn any_all(
    ctx: &mut dyn CallContext,
    a: Args<'_>,
    two: bool,
    all: bool,
) -> Result<Value, CallError> {
    let b = block(&a)?;
    for (args, _) in entries(&a.get(0), two)? {
        match invoke(ctx, b, args)? {
            Some(r) => {
                if truthy(&r) != all {
                    return Ok(Value::Boolean(!all));
                }
            }
            None => break,
        }
    }
    Ok(Value::Boolean(all))
}

fn index_block(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let subject = a.get(0);
    if let (Value::Hash(h), false) = (&subject, two) {
        for (k, v) in h.iter() {
            match invoke(ctx, b, vec![v.clone()])? {
                Some(r) if truthy(&r) => return Ok(k.clone()),
                Some(_) => {}
                None => break,
            }
        }
        return Ok(Value::Undef);
    }
    for (args, key) in entries(&subject, two)? {
        match invoke(ctx, b, args)? {
            Some(r) if truthy(&r) => return Ok(key),
            Some(_) => {}
            None => break,
        }
    }
    Ok(Value::Undef)
}

fn slice(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let subject = a.get(0);
    let size = match a.get(1) {
        Value::Integer(i) => usize::try_from(i).unwrap_or(usize::MAX).max(1),
        _ => 1,
    };
    let items = flat_elements(&subject)?;
    let filler = if matches!(subject, Value::Hash(_)) {
        Value::array(vec![])
    } else {
        Value::Undef
    };
    let chunks: Vec<Vec<Value>> = items.chunks(size).map(<[Value]>::to_vec).collect();
    let Some(b) = a.block else {
        return Ok(Value::array(chunks.into_iter().map(Value::array).collect()));
    };
    let sig = b.signature();
    let serving = if sig.max.is_none() {
        size
    } else {
        sig.min.max(sig.types.len())
    };
    if serving == 0 {
        return Err(CallError::new(
            codes::BAD_ARGUMENT,
            "slice(): block must define at least one parameter. Block has 0.",
        ));
    }
    if serving != 1 && serving != size {
        return Err(CallError::new(
            codes::BAD_ARGUMENT,
            format!("slice(): block must define one parameter, or the same number of parameters as the given size of the slice ({size}). Block has {serving}"),
        ));
    }
    for mut c in chunks {
        let args = if serving == 1 {
            vec![Value::array(c)]
        } else {
            c.resize(serving, filler.clone());
            c
        };
        if invoke(ctx, b, args)?.is_none() {
            break;
        }
    }
    Ok(subject)
}

fn not_iterable(v: &Value) -> CallError {
    CallError::new(
        codes::BAD_ARGUMENT,
        format!(
            "{} is not iterable",
            puppet_types::generalize(&puppet_types::infer(v))
        ),
    )
}

fn each_value(ctx: &mut dyn CallContext, b: &dyn Block, it: &Value) -> Result<(), CallError> {
    let Value::Iterator(iv) = it else {
        return Err(not_iterable(it));
    };
    for (n, e) in iv.iter().enumerate() {
        if n >= MAX_ELEMENTS {
            return Err(super::too_many());
        }
        if invoke(ctx, b, vec![e])?.is_none() {
            break;
        }
    }
    Ok(())
}

fn tree_walk(root: &Value, options: &Value) -> Result<Vec<(Vec<Value>, Value)>, CallError> {
    let opt = |k: &str| match options {
        Value::Hash(h) => h.get(&Value::string(k)).cloned(),
        _ => None,
    };
    let flag = |k: &str, d: bool| match opt(k) {
        None | Some(Value::Undef) => d,
        Some(v) => truthy(&v),
    };
    let with_containers = flag("include_containers", true);
    let with_values = flag("include_values", true);
    let with_root = with_containers && flag("include_root", true);
    if !with_containers && !with_values {
        return Err(CallError::new(
            codes::BAD_ARGUMENT,
            "Options 'include_containers' and 'include_values' cannot both be false",
        ));
    }
    let breadth = matches!(opt("order"), Some(Value::String(s)) if s == "breadth_first");
    let include_refs = flag("include_refs", false);
    let container_type = match opt("container_type") {
        Some(Value::Type(t)) => Some(t),
        _ => None,
    };
    // The entries of a container: Array elements by index, Hash entries by key, an Object's
    // own attributes by name (`reference` ones only with `include_refs`); `None` for a value
    // that is not a container (or not of the `container_type`).
    let children = |v: &Value| -> Option<Vec<(Value, Value)>> {
        if let Some(t) = &container_type {
            if !puppet_types::is_instance(t, v) {
                return None;
            }
        }
        match v {
            Value::Array(a) => Some(
                a.iter()
                    .enumerate()
                    .map(|(i, e)| (Value::Integer(i as i64), e.clone()))
                    .collect(),
            ),
            Value::Hash(h) => Some(h.iter().map(|(k, e)| (k.clone(), e.clone())).collect()),
            Value::Object(o) => Some(
                o.object_type
                    .attributes
                    .iter()
                    .filter(|a| {
                        include_refs || a.kind != Some(puppet_types::object::AttrKind::Reference)
                    })
                    .map(|a| {
                        (
                            Value::String(a.name.clone().into()),
                            o.get(&a.name).cloned().unwrap_or(Value::Undef),
                        )
                    })
                    .collect(),
            ),
            _ => None,
        }
    };
    let root = match root {
        Value::Iterator(it) => Value::array(it.iter().take(MAX_ELEMENTS).collect()),
        other => other.clone(),
    };
    let mut out = Vec::new();
    if with_root {
        out.push((vec![], root.clone()));
    }
    if breadth {
        let mut queue: std::collections::VecDeque<(Vec<Value>, Value)> =
            std::collections::VecDeque::new();
        queue.push_back((vec![], root));
        while let Some((path, v)) = queue.pop_front() {
            for (k, c) in children(&v).unwrap_or_default() {
                let mut p = path.clone();
                p.push(k);
                let container = children(&c).is_some();
                if (container && with_containers) || (!container && with_values) {
                    out.push((p.clone(), c.clone()));
                }
                if container {
                    queue.push_back((p, c));
                }
                if out.len() > MAX_ELEMENTS {
                    return Err(super::too_many());
                }
            }
        }
    } else {
        type Children<'a> = &'a dyn Fn(&Value) -> Option<Vec<(Value, Value)>>;
        fn depth(
            path: &mut Vec<Value>,
            kids: Vec<(Value, Value)>,
            children: Children<'_>,
            out: &mut Vec<(Vec<Value>, Value)>,
            flags: (bool, bool),
            level: usize,
        ) -> Result<(), CallError> {
            if level > 1000 || out.len() > MAX_ELEMENTS {
                return Err(super::too_many());
            }
            for (k, c) in kids {
                path.push(k);
                let grand = children(&c);
                let container = grand.is_some();
                if (container && flags.0) || (!container && flags.1) {
                    out.push((path.clone(), c.clone()));
                }
                if let Some(g) = grand {
                    depth(path, g, children, out, flags, level + 1)?;
                }
                path.pop();
            }
            Ok(())
        }
        if let Some(kids) = children(&root) {
            depth(
                &mut vec![],
                kids,
                &children,
                &mut out,
                (with_containers, with_values),
                0,
            )?;
        }
    }
    Ok(out)
}

fn tree_each(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let subject = a.get(0);
    for (path, v) in tree_walk(&subject, &a.get(1))? {
        let path = Value::array(path);
        // Puppet yields `(path, value)` to a lambda of two parameters, the value alone to one.
        let args = if two { vec![path, v] } else { vec![v] };
        if invoke(ctx, b, args)?.is_none() {
            break;
        }
    }
    Ok(subject)
}

fn group_by(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let subject = a.get(0);
    let mut groups: indexmap::IndexMap<Value, Vec<Value>> = indexmap::IndexMap::new();
    let items = flat_elements(&subject)?;
    for (i, e) in items.into_iter().enumerate() {
        let args = match (&subject, two, &e) {
            (Value::Hash(_), true, Value::Array(kv)) => (**kv).clone(),
            (_, true, _) => vec![Value::Integer(i as i64), e.clone()],
            _ => vec![e.clone()],
        };
        match invoke(ctx, b, args)? {
            Some(k) => groups.entry(k).or_default().push(e),
            None => break,
        }
    }
    Ok(Value::hash(
        groups.into_iter().map(|(k, v)| (k, Value::array(v))),
    ))
}

fn partition(ctx: &mut dyn CallContext, a: Args<'_>, two: bool) -> Result<Value, CallError> {
    let b = block(&a)?;
    let subject = a.get(0);
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    for (i, e) in flat_elements(&subject)?.into_iter().enumerate() {
        let args = match (&subject, two, &e) {
            (Value::Hash(_), true, Value::Array(kv)) => (**kv).clone(),
            (_, true, _) => vec![Value::Integer(i as i64), e.clone()],
            _ => vec![e.clone()],
        };
        match invoke(ctx, b, args)? {
            Some(r) if truthy(&r) => yes.push(e),
            Some(_) => no.push(e),
            None => break,
        }
    }
    Ok(Value::array(vec![Value::array(yes), Value::array(no)]))
}

fn four(
    reg: &mut Registry,
    name: &str,
    doc: &str,
    ex: (&str, &str),
    f: fn(&mut dyn CallContext, Args<'_>, bool) -> Result<Value, CallError>,
) -> Result<(), RegistryError> {
    reg.function(name)
        .doc(doc)
        .example(ex.0, ex.1)
        .dispatch(
            Signature::new()
                .param("Hash[Any, Any]", "hash")
                .block_param("Callable[2,2]", "block"),
            move |c, a| f(c, a, true),
        )
        .dispatch(
            Signature::new()
                .param("Hash[Any, Any]", "hash")
                .block_param("Callable[1,1]", "block"),
            move |c, a| f(c, a, false),
        )
        .dispatch(
            Signature::new()
                .param("Iterable", "enumerable")
                .block_param("Callable[2,2]", "block"),
            move |c, a| f(c, a, true),
        )
        .dispatch(
            Signature::new()
                .param("Iterable", "enumerable")
                .block_param("Callable[1,1]", "block"),
            move |c, a| f(c, a, false),
        )
        .register()
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &[
    "each",
    "map",
    "filter",
    "any",
    "all",
    "index",
    "reduce",
    "slice",
    "step",
    "reverse_each",
    "tree_each",
    "with",
    "then",
    "lest",
    "group_by",
    "partition",
];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    four(reg, "each", "Calls a lambda for each element (`|$v|` or `|$index_or_key, $v|`) and returns the iterated value.", ("[1, 2].each |$x| { $x }", "[1, 2]"), each)?;
    four(
        reg,
        "map",
        "Calls a lambda for each element and returns an Array of the results.",
        ("[1, 2].map |$x| { $x * 2 }", "[2, 4]"),
        map,
    )?;
    four(reg, "filter", "Returns the elements (an Array, or a Hash for a Hash) for which the lambda returns a truthy value.", ("[1, 2, 3].filter |$x| { $x > 1 }", "[2, 3]"), filter)?;
    four(reg, "any", "Returns true when the lambda returns a truthy value for some element (stops at the first).", ("[1, 2].any |$x| { $x == 2 }", "true"), |c, a, t| any_all(c, a, t, false))?;
    four(reg, "all", "Returns true when the lambda returns a truthy value for every element (stops at the first falsy one).", ("[1, 2].all |$x| { $x > 0 }", "true"), |c, a, t| any_all(c, a, t, true))?;
    reg.function("index")
        .doc("Returns the index (or key) of the first element for which the lambda is truthy, of the first element equal to a value, or of a substring or regexp match in a String; undef when not found.")
        .example("[1, 2, 3].index |$x| { $x == 3 }", "2")
        .dispatch(Signature::new().param("Hash[Any, Any]", "hash").block_param("Callable[2,2]", "block"), |c, a| index_block(c, a, true))
        .dispatch(Signature::new().param("Hash[Any, Any]", "hash").block_param("Callable[1,1]", "block"), |c, a| index_block(c, a, false))
        .dispatch(Signature::new().param("Iterable", "enumerable").block_param("Callable[2,2]", "block"), |c, a| index_block(c, a, true))
        .dispatch(Signature::new().param("Iterable", "enumerable").block_param("Callable[1,1]", "block"), |c, a| index_block(c, a, false))
        .dispatch(Signature::new().param("String", "str").param("Variant[String,Regexp]", "match"), |_c, a| {
            let s = a.get(0).as_str().unwrap_or_default().to_string();
            let pos = match a.get(1) {
                Value::String(m) => s.find(m.as_str()),
                Value::Regexp(r) => super::regex::compile(r.source())?.find(&s).ok().flatten().map(|m| m.start()),
                _ => None,
            };
            Ok(pos.map_or(Value::Undef, |p| Value::Integer(s[..p].chars().count() as i64)))
        })
        .dispatch(Signature::new().param("Iterable", "enumerable").param("Any", "match"), |_c, a| {
            let needle = a.get(1);
            if let Value::Hash(h) = a.get(0) {
                return Ok(h.iter().find(|(_, v)| v.puppet_eq(&needle)).map_or(Value::Undef, |(k, _)| k.clone()));
            }
            Ok(elements(&a.get(0))?.iter().position(|e| e.puppet_eq(&needle)).map_or(Value::Undef, |i| Value::Integer(i as i64)))
        })
        .register()?;
    reg.function("reduce")
        .doc("Combines the elements with a lambda `|$memo, $value|`, starting from the given memo or the first element.")
        .example("[1, 2, 3].reduce |$m, $x| { $m + $x }", "6")
        .dispatch(Signature::new().param("Iterable", "enumerable").block_param("Callable[2,2]", "block"), |c, a| reduce(c, a, None))
        .dispatch(Signature::new().param("Iterable", "enumerable").param("Any", "memo").block_param("Callable[2,2]", "block"), |c, a| {
            let m = a.get(1);
            reduce(c, a, Some(m))
        })
        .register()?;
    reg.function("slice")
        .doc("Slices a collection into chunks of the given size; with a lambda each chunk is given to it (as one Array or spread over its parameters) and the collection is returned.")
        .example("[1, 2, 3].slice(2)", "[[1, 2], [3]]")
        .dispatch(Signature::new().param("Hash[Any, Any]", "hash").param("Integer[1, default]", "slice_size").optional_block_param("Callable", "block"), slice)
        .dispatch(Signature::new().param("Iterable", "enumerable").param("Integer[1, default]", "slice_size").optional_block_param("Callable", "block"), slice)
        .register()?;
    reg.function("step")
        .doc("Iterates over every n-th element: returns an Iterator, or with a lambda calls it for each such element and returns the iterable.")
        .example("[1, 2, 3, 4, 5].step(2).map |$x| { $x }", "[1, 3, 5]")
        .dispatch(Signature::new().param("Iterable", "iterable").param("Integer[1]", "step"), |_c, a| {
            let n = match a.get(1) { Value::Integer(i) => i, _ => 1 };
            a.get(0).step(n).ok_or_else(|| not_iterable(&a.get(0)))
        })
        .dispatch(Signature::new().param("Iterable", "iterable").param("Integer[1]", "step").block_param("Callable[1,1]", "block"), |c, a| {
            let n = match a.get(1) { Value::Integer(i) => i, _ => 1 };
            let subject = a.get(0);
            let it = subject.step(n).ok_or_else(|| not_iterable(&subject))?;
            each_value(c, block(&a)?, &it)?;
            // With a block, Puppet's `step` returns undef.
            Ok(Value::Undef)
        })
        .register()?;
    reg.function("reverse_each")
        .doc("Iterates in reverse order: returns an Iterator, or with a lambda calls it for each element and returns undef.")
        .example("[1, 2, 3].reverse_each.map |$x| { $x }", "[3, 2, 1]")
        .dispatch(Signature::new().param("Iterable", "iterable"), |_c, a| {
            a.get(0).reverse_each().ok_or_else(|| not_iterable(&a.get(0)))
        })
        .dispatch(Signature::new().param("Iterable", "iterable").block_param("Callable[1,1]", "block"), |c, a| {
            let subject = a.get(0);
            let it = subject.reverse_each().ok_or_else(|| not_iterable(&subject))?;
            each_value(c, block(&a)?, &it)?;
            // With a block, Puppet's `reverse_each` returns undef.
            Ok(Value::Undef)
        })
        .register()?;
    reg.function("tree_each")
        .doc("Walks a tree of Arrays and Hashes (depth first by default), giving each `[path, value]` to the lambda; without a lambda returns an Iterator.")
        .example("[1, [2]].tree_each.map |$x| { $x }", "[[[], [1, [2]]], [[0], 1], [[1], [2]], [[1, 0], 2]]")
        .local_type("OptionsType", "Struct[{container_type => Optional[Type], include_root => Optional[Boolean], include_containers => Optional[Boolean], include_values => Optional[Boolean], order => Optional[Enum[depth_first, breadth_first]], include_refs => Optional[Boolean]}]")
        .dispatch(Signature::new().param("Variant[Iterator, Array, Hash, Object]", "tree").optional_param("OptionsType", "options").block_param("Callable[2,2]", "block"), |c, a| tree_each(c, a, true))
        .dispatch(Signature::new().param("Variant[Iterator, Array, Hash, Object]", "tree").optional_param("OptionsType", "options").block_param("Callable[1,1]", "block"), |c, a| tree_each(c, a, false))
        .dispatch(Signature::new().param("Variant[Iterator, Array, Hash, Object]", "tree").optional_param("OptionsType", "options"), |_c, a| {
            let items: Vec<Value> = tree_walk(&a.get(0), &a.get(1))?.into_iter().map(|(p, v)| Value::array(vec![Value::array(p), v])).collect();
            Value::array(items).reverse_each().and_then(|r| r.reverse_each()).ok_or_else(|| not_iterable(&a.get(0)))
        })
        .register()?;
    reg.function("with")
        .doc("Calls a lambda with the given arguments and returns its result.")
        .example("with(1, 2) |$a, $b| { $a + $b }", "3")
        .dispatch(
            Signature::new()
                .repeated_param("Any", "arg")
                .block_param("Callable", "block"),
            |c, a| {
                let b = block(&a)?;
                let sig = b.signature();
                let mut args = a.values.clone();
                if let Some(max) = sig.max {
                    args.truncate(max);
                }
                c.call_block(b, args).or_else(|e| match e {
                    CallError::Next(v) => Ok(v),
                    e => Err(e),
                })
            },
        )
        .register()?;
    reg.function("then")
        .doc("Calls the lambda with the value unless it is undef (then returns undef).")
        .example("then(1) |$x| { $x + 1 }", "2")
        .dispatch(
            Signature::new()
                .param("Any", "arg")
                .block_param("Callable[1,1]", "block"),
            |c, a| match a.get(0) {
                Value::Undef => Ok(Value::Undef),
                v => Ok(invoke(c, block(&a)?, vec![v])?.unwrap_or(Value::Undef)),
            },
        )
        .register()?;
    reg.function("lest")
        .doc("Returns the value unless it is undef, in which case it returns the result of the lambda.")
        .example("lest(undef) || { 'fallback' }", "'fallback'")
        .dispatch(Signature::new().param("Any", "arg").block_param("Callable[0,0]", "block"), |c, a| {
            match a.get(0) {
                Value::Undef => Ok(invoke(c, block(&a)?, vec![])?.unwrap_or(Value::Undef)),
                v => Ok(v),
            }
        })
        .register()?;
    reg.function("group_by")
        .doc("Groups the elements of a collection into a Hash keyed by the lambda's result.")
        .example(
            "['a', 'b', 'ab'].group_by |$s| { $s.length }",
            "{1 => ['a', 'b'], 2 => ['ab']}",
        )
        .dispatch(
            Signature::new()
                .param("Collection", "collection")
                .block_param("Callable[1,1]", "block")
                .return_type("Hash"),
            |c, a| group_by(c, a, false),
        )
        .dispatch(
            Signature::new()
                .param("Array", "array")
                .block_param("Callable[2,2]", "block")
                .return_type("Hash"),
            |c, a| group_by(c, a, true),
        )
        .dispatch(
            Signature::new()
                .param("Collection", "collection")
                .block_param("Callable[2,2]", "block")
                .return_type("Hash"),
            |c, a| group_by(c, a, true),
        )
        .register()?;
    reg.function("partition")
        .doc("Splits a collection into `[matching, non_matching]` by the lambda's truthiness.")
        .example(
            "['', 'b', 'ab'].partition |$s| { $s.empty }",
            "[[''], ['b', 'ab']]",
        )
        .dispatch(
            Signature::new()
                .param("Collection", "collection")
                .block_param("Callable[1,1]", "block")
                .return_type("Tuple[Array, Array]"),
            |c, a| partition(c, a, false),
        )
        .dispatch(
            Signature::new()
                .param("Array", "array")
                .block_param("Callable[2,2]", "block")
                .return_type("Tuple[Array, Array]"),
            |c, a| partition(c, a, true),
        )
        .dispatch(
            Signature::new()
                .param("Collection", "collection")
                .block_param("Callable[2,2]", "block")
                .return_type("Tuple[Array, Array]"),
            |c, a| partition(c, a, true),
        )
        .register()?;
    Ok(())
}
