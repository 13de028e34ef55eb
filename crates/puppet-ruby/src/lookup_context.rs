//! `Puppet::LookupContext`: the `context` a Hiera 5 backend function (`data_hash`,
//! `lookup_key`, `data_dig`) receives, as Puppet 7.23's `Puppet::Pops::Lookup::Context`.
//!
//! The object is native; each method goes to the [`LookupHost`] of the call (the evaluator's
//! bridge to the lookup): `not_found` (a `throw :no_such_key`, which ends the call with
//! "not found"), `explain { text }`, `interpolate(value)`, the function context's cache
//! (`cache`, `cache_all`, `cache_has_key`, `cached_value`, `cached_entries`),
//! `cached_file_data(path) { |content| ... }`, `environment_name` and `module_name`.
//!
//! Values cross as Puppet values: what is cached is converted (each call runs in an
//! interpreter of its own, so Ruby objects cannot outlive it), and a value that has no Puppet
//! form is reported as unsupported, naming the file and line. So is any other method of
//! Puppet's context (`invocation`, ...): never a silently different answer.

use crate::interp::{raise, unsupported, Interp, R};
use crate::object::{Blk, ObjData, Object};
use crate::value::{self, RValue};
use crate::Pos;
use puppet_types::Value;
use std::rc::Rc;

/// What the context of a backend call can reach: the lookup (explain, interpolation), the
/// function context's cache and the environment's files. Implemented by the evaluator.
pub trait LookupHost {
    /// The environment's name (`context.environment_name`).
    fn environment_name(&self) -> String;
    /// The module of the layer the function serves (`context.module_name`; `None`: nil).
    fn module_name(&self) -> Option<String>;
    /// Whether the lookup is explained (`explain`'s block only runs then).
    fn explaining(&self) -> bool;
    /// A line of the explanation.
    fn explain(&mut self, text: String);
    /// `context.interpolate(value)`; the error is the lookup's message.
    fn interpolate(&mut self, value: &Value) -> Result<Value, String>;
    /// Caches `value` for `key` in the function context's cache (Puppet's `@cache`: one per
    /// hierarchy entry and location, for the compile).
    fn cache_insert(&mut self, key: Value, value: Value);
    /// The cached value of `key` (`Some(Undef)` for a cached `nil`).
    fn cache_get(&mut self, key: &Value) -> Option<Value>;
    /// The cache's entries, in insertion order.
    fn cache_entries(&mut self) -> Vec<(Value, Value)>;
    /// What `cached_file_data` cached for `path`, if anything.
    fn cached_file_data(&mut self, path: &str) -> Option<Value>;
    /// Caches `value` for `path`.
    fn cache_file_data(&mut self, path: &str, value: Value);
    /// Reads a file through the environment's sources; the error is Ruby's message.
    fn read_file(&mut self, path: &str) -> Result<String, String>;
}

/// The lookup host of the call, or the unsupported-construct error that ends the method
/// (`it`: the interpreter, `pos`: the call's position).
macro_rules! host {
    ($it:ident, $pos:ident) => {
        match $it.scope.lookup_host() {
            Some(h) => h,
            None => return unsupported("Puppet::LookupContext without a lookup", $pos),
        }
    };
}

/// The native data of a context object.
#[derive(Debug)]
pub(crate) struct LookupContextObj;

/// A new context object.
pub(crate) fn new_context(it: &mut Interp) -> RValue {
    let class = it
        .module_by_path("Puppet::LookupContext")
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(class));
    *o.data.borrow_mut() = ObjData::Native(Rc::new(LookupContextObj));
    it.track_object(&o);
    RValue::Object(o)
}

/// Is `o` a context object?
pub(crate) fn is_context(o: &Rc<Object>) -> bool {
    match &*o.data.borrow() {
        ObjData::Native(d) => d.clone().downcast::<LookupContextObj>().is_ok(),
        _ => false,
    }
}

/// The tag `not_found` throws.
pub(crate) const NOT_FOUND_TAG: &str = "no_such_key";

fn to_puppet(v: &RValue, what: &str, pos: Pos) -> Result<Value, crate::interp::Ctrl> {
    value::to_puppet(v).or_else(|e| unsupported(format!("{what}: {e}"), pos))
}

fn arity(args: &[RValue], n: usize, name: &str, pos: Pos) -> Result<(), crate::interp::Ctrl> {
    if args.len() == n {
        Ok(())
    } else {
        raise(
            "ArgumentError",
            format!(
                "wrong number of arguments (given {}, expected {n}) calling '{name}'",
                args.len()
            ),
            pos,
        )
    }
}

/// A method of a context object; `None` for a method an Object has (`inspect`, ...).
pub(crate) fn method(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let known = matches!(
        name,
        "not_found"
            | "explain"
            | "interpolate"
            | "cache"
            | "cache_all"
            | "cache_has_key"
            | "cached_value"
            | "cached_entries"
            | "cached_file_data"
            | "environment_name"
            | "module_name"
            | "invocation"
            | "function_context"
    );
    if !known {
        return None;
    }
    Some(run(it, name, args, block, pos))
}

fn run(it: &mut Interp, name: &str, args: &[RValue], block: Option<&Blk>, pos: Pos) -> R {
    if it.scope.lookup_host().is_none() {
        return unsupported(
            format!("Puppet::LookupContext#{name} outside a Hiera backend call"),
            pos,
        );
    }
    match name {
        "not_found" => {
            arity(args, 0, name, pos)?;
            Err(crate::interp::Ctrl::Throw(Box::new((
                RValue::sym(NOT_FOUND_TAG),
                RValue::Nil,
            ))))
        }
        "explain" => {
            arity(args, 0, name, pos)?;
            if !host!(it, pos).explaining() {
                return Ok(RValue::Nil);
            }
            let Some(b) = block else {
                return raise("ArgumentError", "explain requires a block", pos);
            };
            let v = it.call_block(b, Vec::new(), pos)?;
            let text = it.to_s_value(&v)?;
            host!(it, pos).explain(text);
            Ok(RValue::Nil)
        }
        "interpolate" => {
            arity(args, 1, name, pos)?;
            let v = to_puppet(&args[0], "a value given to context.interpolate", pos)?;
            match host!(it, pos).interpolate(&v) {
                Ok(v) => Ok(value::from_puppet(&v)),
                Err(msg) => raise("Puppet::DataBinding::LookupError", msg, pos),
            }
        }
        "cache" => {
            arity(args, 2, name, pos)?;
            let k = to_puppet(&args[0], "a key given to context.cache", pos)?;
            let v = to_puppet(&args[1], "a value given to context.cache", pos)?;
            host!(it, pos).cache_insert(k, v);
            Ok(args[1].clone())
        }
        "cache_all" => {
            arity(args, 1, name, pos)?;
            let RValue::Hash(h) = &args[0] else {
                return raise(
                    "ArgumentError",
                    format!("'cache_all' expects a Hash, got {}", args[0].class_name()),
                    pos,
                );
            };
            let pairs = h.borrow().pairs();
            let mut converted = Vec::with_capacity(pairs.len());
            for (k, v) in &pairs {
                converted.push((
                    to_puppet(k, "a key given to context.cache_all", pos)?,
                    to_puppet(v, "a value given to context.cache_all", pos)?,
                ));
            }
            let host = host!(it, pos);
            for (k, v) in converted {
                host.cache_insert(k, v);
            }
            Ok(RValue::Nil)
        }
        "cache_has_key" => {
            arity(args, 1, name, pos)?;
            let k = to_puppet(&args[0], "a key given to context.cache_has_key", pos)?;
            Ok(RValue::Bool(host!(it, pos).cache_get(&k).is_some()))
        }
        "cached_value" => {
            arity(args, 1, name, pos)?;
            let k = to_puppet(&args[0], "a key given to context.cached_value", pos)?;
            Ok(host!(it, pos)
                .cache_get(&k)
                .map(|v| value::from_puppet(&v))
                .unwrap_or(RValue::Nil))
        }
        "cached_entries" => {
            arity(args, 0, name, pos)?;
            let entries = host!(it, pos).cache_entries();
            let pairs: Vec<RValue> = entries
                .iter()
                .map(|(k, v)| RValue::array(vec![value::from_puppet(k), value::from_puppet(v)]))
                .collect();
            match block {
                Some(b) => {
                    let two = b.arity() == 2;
                    for p in pairs {
                        let a = if two {
                            match &p {
                                RValue::Array(items) => items.borrow().clone(),
                                _ => vec![p.clone()],
                            }
                        } else {
                            vec![p]
                        };
                        it.call_block(b, a, pos)?;
                    }
                    Ok(RValue::Nil)
                }
                None => Ok(RValue::array(pairs)),
            }
        }
        "cached_file_data" => {
            arity(args, 1, name, pos)?;
            let path = value::to_s(&args[0]);
            if let Some(v) = host!(it, pos).cached_file_data(&path) {
                return Ok(value::from_puppet(&v));
            }
            let content = match host!(it, pos).read_file(&path) {
                Ok(t) => t,
                Err(msg) => return raise("Errno::ENOENT", msg, pos),
            };
            let result = match block {
                Some(b) => it.call_block(b, vec![RValue::string(content)], pos)?,
                None => RValue::string(content),
            };
            let v = to_puppet(&result, "the data context.cached_file_data caches", pos)?;
            host!(it, pos).cache_file_data(&path, v);
            Ok(result)
        }
        // A Symbol, as Puppet's environment names are (`== 'production'` is false).
        "environment_name" => {
            arity(args, 0, name, pos)?;
            Ok(RValue::sym(&host!(it, pos).environment_name()))
        }
        "module_name" => {
            arity(args, 0, name, pos)?;
            Ok(host!(it, pos)
                .module_name()
                .map(RValue::string)
                .unwrap_or(RValue::Nil))
        }
        other => unsupported(format!("Puppet::LookupContext#{other}"), pos),
    }
}

/// Hiera's own `data_hash` functions called from a module's Ruby with a context
/// (`call_function('yaml_data', options, context)`: backends that wrap YAML or JSON data):
/// what Puppet 7.23's `yaml_data` and `json_data` do, with the lookups' own parser
/// ([`puppet_hiera::lookup::data_file_value`]) and the context's file cache. `None` when
/// `name` is not one of them or no context is passed (the call goes to Puppet's side then).
pub(crate) fn builtin_data_hash(
    it: &mut Interp,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    if !matches!(name, "yaml_data" | "json_data") {
        return None;
    }
    match args.get(1) {
        Some(RValue::Object(o)) if is_context(o) => {}
        _ => return None,
    }
    Some((|| {
        if args.len() != 2 {
            return raise(
                "ArgumentError",
                format!("'{name}' expects 2 arguments, got {}", args.len()),
                pos,
            );
        }
        let path = match &args[0] {
            RValue::Hash(h) => match h.borrow().get(&RValue::string("path".to_string())) {
                Some(RValue::Str(s)) if !s.borrow().is_empty() => s.borrow().to_string(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        if path.is_empty() {
            return raise(
                "ArgumentError",
                format!(
                    "'{name}' parameter 'options' expects a Struct[{{'path' => String[1]}}] value"
                ),
                pos,
            );
        }
        if it.scope.lookup_host().is_none() {
            return unsupported(format!("{name} outside a Hiera backend call"), pos);
        }
        if let Some(v) = host!(it, pos).cached_file_data(&path) {
            return Ok(value::from_puppet(&v));
        }
        let text = match host!(it, pos).read_file(&path) {
            Ok(t) => t,
            Err(msg) => return raise("Errno::ENOENT", msg, pos),
        };
        match puppet_hiera::lookup::data_file_value(name, &text, &path) {
            Ok((v, warnings)) => {
                for w in warnings {
                    it.scope.log("warning", &w);
                }
                host!(it, pos).cache_file_data(&path, v.clone());
                Ok(value::from_puppet(&v))
            }
            Err(e) => raise("Puppet::DataBinding::LookupError", e.message, pos),
        }
    })())
}
