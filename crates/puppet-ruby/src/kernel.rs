//! Kernel functions (`raise`, `require`, `format`, `Integer()`, `lambda`, `loop`, `catch`...),
//! the methods every object has (`class`, `is_a?`, `respond_to?`, `send`, `dup`, `freeze`,
//! `instance_variable_get`...), the methods of modules and classes (`new`, `attr_accessor`,
//! `include`, `define_method`, `const_get`, `class_eval`...), of exceptions and of procs.
//!
//! Commands are never run: `system`, `exec`, `spawn`, `fork`, `open("|...")` and their
//! kind are errors naming the construct. `eval` of a string runs it (with a binding, in the
//! binding's scope: [`crate::erb`]).

use crate::interp::{raise, unsupported, Ctrl, Exc, Interp, R};
use crate::methods::argc;
use crate::object::{Blk, Entry, Method, Module, ObjData, Object, ProcBody};
use crate::value::{self, to_s, RHash, RValue};
use crate::Pos;
use std::rc::Rc;

/// A symbol or string argument's text (method and variable names).
pub(crate) fn name_arg(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    match v {
        RValue::Sym(s) => Ok(s.to_string()),
        RValue::Str(s) => Ok(s.borrow().clone()),
        other => raise(
            "TypeError",
            format!("{} is not a symbol nor a string", value::inspect(other)),
            pos,
        ),
    }
}

fn refuse_command<T>(what: &str, pos: Pos) -> Result<T, Ctrl> {
    unsupported(format!("{what} (Ruby code never runs commands here)"), pos)
}

/// Constants of built-in modules, set when the module is created.
pub(crate) fn init_builtin_module(it: &mut Interp, path: &str, m: &Rc<Module>) {
    let set = |k: &str, v: RValue| {
        m.consts_mut().insert(k.to_string(), v);
    };
    match path {
        "Float" => {
            set("INFINITY", RValue::Float(f64::INFINITY));
            set("NAN", RValue::Float(f64::NAN));
            set("EPSILON", RValue::Float(f64::EPSILON));
            set("MAX", RValue::Float(f64::MAX));
            set("MIN", RValue::Float(f64::MIN_POSITIVE));
            set("DIG", RValue::Int(15));
        }
        "File" => {
            set("SEPARATOR", RValue::str("/"));
            set("ALT_SEPARATOR", RValue::Nil);
            set("PATH_SEPARATOR", RValue::str(":"));
        }
        "Math" => {
            set("PI", RValue::Float(std::f64::consts::PI));
            set("E", RValue::Float(std::f64::consts::E));
        }
        "Regexp" => {
            set("IGNORECASE", RValue::Int(1));
            set("EXTENDED", RValue::Int(2));
            set("MULTILINE", RValue::Int(4));
        }
        "Socket" => {
            set("AF_INET", RValue::Int(2));
            set("AF_INET6", RValue::Int(10));
        }
        "Puppet" => {
            set("PUPPETVERSION", RValue::str("7.23.0"));
        }
        // The encodings a program names (`65.chr(Encoding::UTF_8)`, `force_encoding`).
        "Encoding" => {
            for (k, name) in [
                ("UTF_8", "UTF-8"),
                ("BINARY", "ASCII-8BIT"),
                ("ASCII_8BIT", "ASCII-8BIT"),
                ("US_ASCII", "US-ASCII"),
            ] {
                let e = encoding_object(it, name);
                m.consts_mut().insert(k.to_string(), e);
            }
        }
        "Object" => {}
        _ => {}
    }
}

/// Top-level constants that are plain values.
pub(crate) fn value_constant(name: &str) -> Option<RValue> {
    Some(match name {
        "RUBY_VERSION" => RValue::str("3.1.2"),
        "RUBY_ENGINE" => RValue::str("ruby"),
        // Debian's Ruby 3.1, which Puppet 7.23 runs on.
        "RUBY_PLATFORM" => RValue::str("x86_64-linux-gnu"),
        "RUBY_PATCHLEVEL" => RValue::Int(20),
        "RUBY_RELEASE_DATE" => RValue::str("2022-04-12"),
        "NIL" => RValue::Nil,
        // The process environment is not visible: a compile must not depend on it.
        "ENV" => {
            let h = RValue::hash(RHash::default());
            if let RValue::Hash(x) = &h {
                x.freeze();
            }
            h
        }
        _ => return None,
    })
}

/// `self.inherited(subclass)` when the superclass defines it.
pub(crate) fn inherited_hook(
    it: &mut Interp,
    sup: &Rc<Module>,
    new: &Rc<Module>,
    pos: Pos,
) -> Result<(), Ctrl> {
    let meta = it.meta(sup);
    if let Some((e, owner)) = meta.find_method("inherited") {
        it.invoke(
            RValue::Module(sup.clone()),
            &e.method,
            owner,
            "inherited",
            vec![RValue::Module(new.clone())],
            None,
            None,
            pos,
        )?;
    }
    Ok(())
}

fn is_main(it: &Interp, o: &Rc<Object>) -> bool {
    matches!(&it.main, RValue::Object(m) if Rc::ptr_eq(m, o))
}

/// Describes `self` in a NameError/NoMethodError text.
fn describe_self(it: &Interp, s: &RValue) -> String {
    if let (RValue::Object(a), RValue::Object(b)) = (s, &it.main) {
        if Rc::ptr_eq(a, b) {
            return if it.template {
                it.wrapper_text()
            } else {
                "main:Object".into()
            };
        }
    }
    crate::methods::describe(s)
}

/// A call without a receiver that no user method answered: Kernel functions, the template
/// wrapper's methods, then `self`'s own methods.
pub(crate) fn fcall(
    it: &mut Interp,
    s: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
    vcall: bool,
) -> R {
    let is_main =
        matches!((&s, &it.main), (RValue::Object(a), RValue::Object(b)) if Rc::ptr_eq(a, b));
    if is_main && it.template {
        match name {
            "scope" => {
                argc(&args, 0, 0, pos)?;
                return Ok(RValue::Scope);
            }
            "file" => {
                argc(&args, 0, 0, pos)?;
                // Inline templates have no file.
                return Ok(if it.file.is_empty() {
                    RValue::Nil
                } else {
                    RValue::str(&it.file)
                });
            }
            "has_variable?" => {
                argc(&args, 1, 1, pos)?;
                let n = to_s(&args[0]);
                let v = it.scope.lookup(&n);
                return Ok(RValue::Bool(v.is_some_and(|v| !v.is_undef())));
            }
            "tags" => return raise("NotImplementedError", "Call 'all_tags' instead.", pos),
            "classes" => {
                return match it.scope.catalog_classes() {
                    Some(names) => Ok(RValue::array(
                        names.iter().map(|n| RValue::str(n)).collect(),
                    )),
                    None => unsupported(format!("template method `{name}'"), pos),
                };
            }
            "all_tags" => {
                // Puppet's is a TagSet; an Array answers what templates ask of it (each,
                // include?, join, sort, to_a).
                return match it.scope.catalog_tags() {
                    Some(tags) => Ok(RValue::array(tags.iter().map(|t| RValue::str(t)).collect())),
                    None => unsupported(format!("template method `{name}'"), pos),
                };
            }
            _ => {}
        }
        // A method a template rendered since this one started defined (a template this
        // one rendered with `scope.function_template`).
        if let Some(d) = crate::interp::template_method(name) {
            let cref = it.ctx.cref.clone();
            it.object.methods.borrow_mut().insert(
                d.name.clone(),
                crate::object::Entry {
                    method: crate::object::Method::Ruby(d, cref),
                    private: true,
                },
            );
            return it.send(s, name, args, None, block, pos, true);
        }
    }
    if let Some(r) = kernel_function(it, &s, name, &args, block, pos) {
        return r;
    }
    // `self`'s own methods (private ones included).
    match &s {
        RValue::Object(o) if !is_main || !it.template => {
            let _ = o;
            return object_method_inner(it, s, name, args, block, pos, true, vcall);
        }
        RValue::Module(_) => return module_method(it, s, name, args, block, pos, true),
        RValue::Scope => return crate::methods::call_method(it, s, name, args, block, pos),
        RValue::Object(_) => {}
        _ => return crate::methods::call_method(it, s, name, args, block, pos),
    }
    if let Some(r) = common(it, &s, name, &args, block, pos) {
        return r;
    }
    if vcall {
        raise(
            "NameError",
            format!(
                "undefined local variable or method `{name}' for {}",
                describe_self(it, &s)
            ),
            pos,
        )
    } else {
        raise(
            "NoMethodError",
            format!("undefined method `{name}' for {}", describe_self(it, &s)),
            pos,
        )
    }
}

/// Kernel's functions (private methods of every object).
fn kernel_function(
    it: &mut Interp,
    s: &RValue,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let args = args.to_vec();
    Some(match name {
        "raise" | "fail" => do_raise(it, args, pos),
        // Kernel methods of libraries Puppet's Ruby has loaded: their Ruby (the prelude)
        // runs on first use, as for their constants.
        "URI" | "Pathname" => (|| {
            it.load_prelude(if name == "URI" { "uri" } else { "pathname" })?;
            match it.find_user_method(s, name) {
                Some((e, owner)) => {
                    let m = e.method.clone();
                    it.invoke(s.clone(), &m, owner, name, args, None, block, pos)
                }
                None => unsupported(format!("Kernel#{name}"), pos),
            }
        })(),
        "require" | "require_relative" | "load" => (|| {
            argc(&args, 1, 2, pos)?;
            let lib = match &args[0] {
                RValue::Str(x) => x.borrow().clone(),
                other => return crate::interp::no_implicit_conversion(other, "String", pos),
            };
            it.require(&lib, name == "require_relative", pos)
        })(),
        "lambda" | "proc" => match block {
            Some(b) => {
                if name == "lambda" {
                    if let ProcBody::Block(body) = &b.body {
                        let p = Rc::new(crate::object::Proc {
                            body: ProcBody::Block(body.clone()),
                            lambda: true,
                            ctx: std::cell::RefCell::new(b.ctx.borrow().clone()),
                        });
                        it.track_proc(&p);
                        return Some(Ok(RValue::Proc(p)));
                    }
                }
                Ok(RValue::Proc(b.clone()))
            }
            None => raise(
                "ArgumentError",
                "tried to create Proc object without a block",
                pos,
            ),
        },
        "block_given?" | "iterator?" => Ok(RValue::Bool(it.frame_block().is_some())),
        "catch" => (|| {
            let tag = args.first().cloned().unwrap_or_else(|| {
                let o = Rc::new(Object::new(it.object_class()));
                RValue::Object(o)
            });
            let Some(b) = block else {
                return raise("LocalJumpError", "no block given", pos);
            };
            it.catch_tags.push(tag.clone());
            let r = it.call_block(b, vec![tag.clone()], pos);
            it.catch_tags.pop();
            match r {
                Err(Ctrl::Throw(tv)) if value::equal(&tv.0, &tag) => Ok(tv.1),
                other => other,
            }
        })(),
        "throw" => (|| {
            argc(&args, 1, 2, pos)?;
            if !it.catch_tags.iter().any(|t| value::equal(t, &args[0])) {
                return raise(
                    "UncaughtThrowError",
                    format!("uncaught throw {}", value::inspect(&args[0])),
                    pos,
                );
            }
            Err(Ctrl::Throw(Box::new((
                args[0].clone(),
                args.get(1).cloned().unwrap_or(RValue::Nil),
            ))))
        })(),
        "binding" => (|| {
            argc(&args, 0, 0, pos)?;
            Ok(crate::erb::binding_here(it, pos))
        })(),
        "eval" if matches!(args.first(), Some(RValue::Str(_))) => (|| {
            argc(&args, 1, 4, pos)?;
            let rest = &args[2.min(args.len())..];
            match args.get(1) {
                None | Some(RValue::Nil) => eval_string_call(it, &args[0], rest, None, pos),
                Some(b) => match crate::erb::as_binding(b) {
                    Some(b) => {
                        let (code, file, line) = eval_string_args(&args[0], rest, pos)?;
                        crate::erb::eval_in(it, &b, &code, file.as_deref(), line, pos)
                    }
                    None => raise(
                        "TypeError",
                        format!("wrong argument type {} (expected binding)", b.class_name()),
                        pos,
                    ),
                },
            }
        })(),
        "eval" => unsupported("`eval'", pos),
        "system" | "exec" | "spawn" | "fork" | "`" | "syscall" | "trap" | "exit!" => {
            refuse_command(&format!("`{name}'"), pos)
        }
        "open" if matches!(args.first(), Some(RValue::Str(x)) if x.borrow().starts_with('|')) => {
            refuse_command("`open' of a pipe", pos)
        }
        "open" => unsupported("`open' (files are read through File.read only)", pos),
        "sleep" => unsupported("`sleep'", pos),
        "rand" => crate::library::kernel_rand(&args, pos),
        "srand" => crate::library::srand(&args, pos),
        "gets" | "readline" | "readlines" | "select" => unsupported(format!("`{name}'"), pos),
        "exit" | "abort" => raise("SystemExit", "exit", pos),
        "at_exit" => Ok(RValue::Nil),
        "caller" | "caller_locations" => Ok(RValue::array(Vec::new())),
        "__dir__" => {
            let f = it.current_file();
            Ok(match f.rfind('/') {
                Some(i) => RValue::str(&f[..i]),
                None => RValue::str("."),
            })
        }
        "_" | "N_" => (|| {
            argc(&args, 1, 1, pos)?;
            Ok(args[0].clone())
        })(),
        "n_" => (|| {
            argc(&args, 3, 3, pos)?;
            let n = match &args[2] {
                RValue::Int(i) => *i,
                _ => 1,
            };
            Ok(if n == 1 {
                args[0].clone()
            } else {
                args[1].clone()
            })
        })(),
        // Kernel#warn writes to the process's standard error, not to Puppet's log (a
        // compile's warnings): kept as a debug line.
        "warn" => {
            for a in &args {
                if let RValue::Hash(_) = a {
                    continue;
                }
                let m = to_s(a);
                it.scope.log("debug", &m);
            }
            Ok(RValue::Nil)
        }
        // `Integer(s, exception: false)`, `Float(s, exception: false)`: nil instead of the
        // ArgumentError or TypeError.
        "Integer" | "Float"
            if matches!(args.last(), Some(RValue::Hash(h))
                if h.borrow().map.len() == 1 && h.borrow().get(&RValue::sym("exception")).is_some()) =>
        {
            let mut args = args;
            let quiet = args
                .pop()
                .and_then(|o| match o {
                    RValue::Hash(h) => h.borrow().get(&RValue::sym("exception")).cloned(),
                    _ => None,
                })
                .is_some_and(|v| !v.truthy());
            match crate::methods::kernel(it, name, args, block, pos) {
                Err(Ctrl::Raise(e))
                    if quiet && matches!(e.class.as_str(), "ArgumentError" | "TypeError") =>
                {
                    Ok(RValue::Nil)
                }
                r => r,
            }
        }
        "Array" | "Integer" | "String" | "Float" | "Hash" | "format" | "sprintf" | "puts"
        | "print" | "p" | "pp" | "loop" => crate::methods::kernel(it, name, args, block, pos),
        "printf" => Ok(RValue::Nil),
        "Rational" => crate::time::rational_function(it, &args, pos),
        "instance_variable_get"
        | "instance_variable_set"
        | "instance_variable_defined?"
        | "instance_variables"
        | "singleton_methods" => return common(it, s, name, &args, block, pos),
        _ => return None,
    })
}

/// The hidden instance variable where [`prepare_keys`] records an object's own `hash`.
pub(crate) const HASH_IVAR: &str = " hash";

/// Readies values that are about to be hash keys (or compared by `eql?`, as `uniq` does):
/// an object whose class defines `hash` gets that method's result recorded, a Struct its
/// members' hash, so that [`value::HKey::of`] files it by that hash (Ruby's `hash`/`eql?`
/// protocol). Other objects stay keyed by identity. Arrays are looked into.
pub(crate) fn prepare_keys(it: &mut Interp, vals: &[RValue], pos: Pos) -> Result<(), Ctrl> {
    for v in vals {
        if matches!(v, RValue::Object(_) | RValue::Array(_)) {
            prepare_key(it, v, 0, pos)?;
        }
    }
    Ok(())
}

fn prepare_key(it: &mut Interp, v: &RValue, depth: usize, pos: Pos) -> Result<(), Ctrl> {
    if depth > 32 || !value::walk_step() {
        return Ok(());
    }
    match v {
        RValue::Array(a) => {
            let inner: Vec<RValue> = a
                .borrow()
                .iter()
                .filter(|x| matches!(x, RValue::Object(_) | RValue::Array(_)))
                .cloned()
                .collect();
            for x in &inner {
                prepare_key(it, x, depth + 1, pos)?;
            }
        }
        RValue::Object(o) => {
            let own = match it.find_user_method(v, "hash") {
                Some((e, _)) => !matches!(e.method, Method::Native(_)),
                None => false,
            };
            let h = if own {
                match it.call_method(v.clone(), "hash", Vec::new(), None, pos)? {
                    RValue::Int(i) => i,
                    RValue::Big(b) => {
                        use std::hash::{Hash, Hasher};
                        let mut st = std::collections::hash_map::DefaultHasher::new();
                        crate::bigint::key_bytes(&b).hash(&mut st);
                        st.finish() as i64
                    }
                    other => return crate::interp::no_implicit_conversion(&other, "Integer", pos),
                }
            } else if o.class.ancestors().iter().any(|a| a.name_is("Struct")) {
                let members: Vec<RValue> = o
                    .ivars
                    .borrow()
                    .iter()
                    .filter(|(k, _)| !k.starts_with(' '))
                    .map(|(_, x)| x.clone())
                    .collect();
                for x in &members {
                    prepare_key(it, x, depth + 1, pos)?;
                }
                use std::hash::{Hash, Hasher};
                let mut st = std::collections::hash_map::DefaultHasher::new();
                (Rc::as_ptr(&o.class) as usize).hash(&mut st);
                for x in &members {
                    value::HKey::of(x).hash(&mut st);
                }
                st.finish() as i64
            } else {
                return Ok(());
            };
            o.ivars
                .borrow_mut()
                .insert(HASH_IVAR.into(), RValue::Int(h));
        }
        _ => {}
    }
    Ok(())
}

/// After [`prepare_keys`]: when `key` files under the same hash as a different key of `h`,
/// Ruby asks `eql?`; keys that hash alike but are not `eql?` are more than this engine's
/// hashes keep apart, and are refused.
pub(crate) fn check_same_hash(
    it: &mut Interp,
    h: &value::Shared<RHash>,
    key: &RValue,
    pos: Pos,
) -> Result<(), Ctrl> {
    let RValue::Object(o) = key else {
        return Ok(());
    };
    let hk = value::HKey::of(key);
    if !matches!(hk, value::HKey::User(_)) {
        return Ok(());
    }
    let existing = h.borrow().map.get(&hk).map(|(k, _)| k.clone());
    let Some(existing) = existing else {
        return Ok(());
    };
    if matches!(&existing, RValue::Object(e) if Rc::ptr_eq(e, o)) {
        return Ok(());
    }
    if it
        .call_method(key.clone(), "eql?", vec![existing], None, pos)?
        .truthy()
    {
        return Ok(());
    }
    unsupported(
        "hash keys with equal `hash' values that are not `eql?' (this engine files keys by their hash)",
        pos,
    )
}

/// `raise`/`fail`.
fn do_raise(it: &mut Interp, mut args: Vec<RValue>, pos: Pos) -> R {
    // `raise X, "m", cause: e`: the cause is given (nil for none); otherwise it is `$!`.
    let mut cause = it.handling.last().cloned();
    if args.len() > 1 {
        if let Some(RValue::Hash(h)) = args.last() {
            let given = {
                let h = h.borrow();
                (h.map.len() == 1)
                    .then(|| h.get(&RValue::sym("cause")).cloned())
                    .flatten()
            };
            if let Some(c) = given {
                cause = Some(c);
                args.pop();
            }
        }
    }
    let r = do_raise_args(it, args, pos);
    match (r, cause) {
        (Err(Ctrl::Raise(mut exc)), Some(c)) => {
            let obj = it.exception_value(&exc);
            set_cause(&obj, &c);
            exc.obj = Some(obj);
            Err(Ctrl::Raise(exc))
        }
        (r, _) => r,
    }
}

/// Records `cause` as the exception's `cause` unless it has one (or is the exception).
fn set_cause(exc: &RValue, cause: &RValue) {
    if let RValue::Object(o) = exc {
        if matches!(cause, RValue::Object(c) if Rc::ptr_eq(c, o)) {
            return;
        }
        let mut iv = o.ivars.borrow_mut();
        if !iv.contains_key(" cause") {
            iv.insert(" cause".into(), cause.clone());
        }
    }
}

/// An exception raised while a `rescue` clause handled `handling` gets it as its `cause`
/// (exceptions that native methods raise; `raise` records `$!` itself).
pub(crate) fn attach_cause(it: &mut Interp, r: R, handling: &RValue) -> R {
    match r {
        Err(Ctrl::Raise(mut exc)) => {
            let obj = it.exception_value(&exc);
            set_cause(&obj, handling);
            exc.obj = Some(obj);
            Err(Ctrl::Raise(exc))
        }
        r => r,
    }
}

fn do_raise_args(it: &mut Interp, args: Vec<RValue>, pos: Pos) -> R {
    let (exc_value, class_name, message) = match args.as_slice() {
        [] => match it.handling.last().cloned() {
            Some(e) => {
                let (c, m) = exception_parts(it, &e);
                (Some(e), c, m)
            }
            None => (
                None,
                "RuntimeError".to_string(),
                "unhandled exception".to_string(),
            ),
        },
        [RValue::Str(s)] => (None, "RuntimeError".to_string(), s.borrow().clone()),
        [RValue::Module(m), rest @ ..] => {
            let m = m.clone();
            let margs: Vec<RValue> = rest.iter().take(1).cloned().collect();
            let obj = it.call_method(RValue::Module(m), "new", margs, None, pos)?;
            let (c, msg) = exception_parts(it, &obj);
            (Some(obj), c, msg)
        }
        [obj @ RValue::Object(_), rest @ ..] => {
            let obj = if let Some(m) = rest.first() {
                // `raise exc, "msg"`: exc.exception("msg").
                it.call_method(obj.clone(), "exception", vec![m.clone()], None, pos)?
            } else {
                obj.clone()
            };
            let (c, msg) = exception_parts(it, &obj);
            (Some(obj), c, msg)
        }
        [other, ..] => {
            return raise(
                "TypeError",
                format!(
                    "exception class/object expected (got {})",
                    value::inspect(other)
                ),
                pos,
            )
        }
    };
    if let Some(RValue::Object(o)) = &exc_value {
        if !matches!(&*o.data.borrow(), ObjData::Exception(_)) {
            return raise("TypeError", "exception class/object expected", pos);
        }
    }
    Err(Ctrl::Raise(Box::new(Exc {
        class: class_name,
        message,
        pos,
        file: None,
        obj: exc_value,
    })))
}

/// The class name and message of an exception object.
pub(crate) fn exception_parts(it: &mut Interp, e: &RValue) -> (String, String) {
    let class = match e {
        RValue::Object(o) => o.class.name(),
        other => other.class_name(),
    };
    let pos = it.pos;
    let msg = match it.call_method(e.clone(), "message", vec![], None, pos) {
        Ok(m) => to_s(&m),
        Err(_) => to_s(e),
    };
    (class, msg)
}

/// The methods every object has. `None` when the name is not one of them.
pub(crate) fn common(
    it: &mut Interp,
    recv: &RValue,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "nil?" => Ok(RValue::Bool(matches!(recv, RValue::Nil))),
        "class" if args.is_empty() => Ok(RValue::Module(it.class_of(recv))),
        "singleton_class" => match recv {
            RValue::Module(m) => {
                let m = m.clone();
                Ok(RValue::Module(it.meta(&m)))
            }
            RValue::Object(o) => {
                let o = o.clone();
                Ok(RValue::Module(it.singleton_of_object(&o)))
            }
            other => match it.value_singleton(other) {
                Some(s) => Ok(RValue::Module(s)),
                None => unsupported("the singleton class of a built-in value", pos),
            },
        },
        "is_a?" | "kind_of?" | "instance_of?" => (|| {
            argc(args, 1, 1, pos)?;
            let RValue::Module(m) = &args[0] else {
                return raise("TypeError", "class or module required", pos);
            };
            let m = m.clone();
            Ok(RValue::Bool(if name == "instance_of?" {
                Rc::ptr_eq(&it.class_of(recv), &m)
            } else {
                it.value_is_a(recv, &m)
            }))
        })(),
        "==" | "equal?" | "eql?" => (|| {
            argc(args, 1, 1, pos)?;
            Ok(RValue::Bool(match name {
                "eql?" => value::eql(recv, &args[0]),
                "equal?" => match (recv, &args[0]) {
                    (RValue::Str(a), RValue::Str(b)) => Rc::ptr_eq(a, b),
                    (RValue::Array(a), RValue::Array(b)) => Rc::ptr_eq(a, b),
                    (RValue::Hash(a), RValue::Hash(b)) => Rc::ptr_eq(a, b),
                    // A big Integer is an object of its own, as Ruby's Bignum.
                    (RValue::Big(a), RValue::Big(b)) => Rc::ptr_eq(a, b),
                    (RValue::Float(a), RValue::Float(b)) => a.to_bits() == b.to_bits(),
                    _ => value::equal(recv, &args[0]),
                },
                _ => value::equal(recv, &args[0]),
            }))
        })(),
        "to_json" => crate::json::generate(recv, pos).map(RValue::string),
        "between?" | "clamp"
            if matches!(recv, RValue::Int(_) | RValue::Big(_) | RValue::Float(_)) =>
        {
            return None
        }
        "!=" => (|| {
            argc(args, 1, 1, pos)?;
            let eq = it.call_method(recv.clone(), "==", args.to_vec(), None, pos)?;
            Ok(RValue::Bool(!eq.truthy()))
        })(),
        "!" => Ok(RValue::Bool(!recv.truthy())),
        "inspect" if args.is_empty() => match recv {
            RValue::Array(_) | RValue::Hash(_) => it.inspect_value(recv).map(RValue::string),
            _ => Ok(RValue::string(value::inspect(recv))),
        },
        "to_s" if args.is_empty() => match recv {
            RValue::Array(_) | RValue::Hash(_) => it.inspect_value(recv).map(RValue::string),
            // `String#to_s` is the string itself (its encoding kept).
            RValue::Str(_) => Ok(recv.clone()),
            _ => Ok(RValue::string(to_s(recv))),
        },
        "respond_to?" => (|| {
            argc(args, 1, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let private = args.get(1).is_some_and(|a| a.truthy());
            Ok(RValue::Bool(it.responds_to(recv, &n, private)))
        })(),
        "frozen?" => Ok(RValue::Bool(it.is_frozen(recv))),
        "freeze" => {
            match recv {
                RValue::Str(s) => s.freeze(),
                RValue::Array(a) => a.freeze(),
                RValue::Hash(h) => h.freeze(),
                RValue::Object(o) => o.frozen.set(true),
                RValue::Module(m) => m.frozen.set(true),
                _ => {}
            }
            Ok(recv.clone())
        }
        "itself" => Ok(recv.clone()),
        "dup" | "clone" => (|| {
            let keep_frozen = name == "clone"
                && !matches!(args.first(), Some(RValue::Hash(h)) if h.borrow().get(&RValue::sym("freeze")).is_some_and(|v| !v.truthy()));
            Ok(match recv {
                RValue::Str(s) => {
                    let n = RValue::string(s.borrow().clone());
                    if let RValue::Str(x) = &n {
                        x.set_binary_to(s.is_binary());
                        if keep_frozen && s.is_frozen() {
                            x.freeze();
                        }
                    }
                    n
                }
                RValue::Array(a) => {
                    let n = RValue::array(a.borrow().clone());
                    if keep_frozen && a.is_frozen() {
                        if let RValue::Array(x) = &n {
                            x.freeze();
                        }
                    }
                    n
                }
                RValue::Hash(h) => {
                    let n = RValue::hash(h.borrow().clone());
                    if keep_frozen && h.is_frozen() {
                        if let RValue::Hash(x) = &n {
                            x.freeze();
                        }
                    }
                    n
                }
                RValue::Object(o) => {
                    let n = Rc::new(Object::new(o.class.clone()));
                    *n.ivars.borrow_mut() = o.ivars.borrow().clone();
                    if let ObjData::Exception(m) = &*o.data.borrow() {
                        *n.data.borrow_mut() = ObjData::Exception(m.clone());
                    }
                    if let ObjData::Native(d) = &*o.data.borrow() {
                        *n.data.borrow_mut() = ObjData::Native(d.clone());
                    }
                    if keep_frozen {
                        n.frozen.set(o.frozen.get());
                    }
                    it.track_object(&n);
                    let v = RValue::Object(n);
                    if let Some((e, owner)) = it.find_user_method(&v, "initialize_copy") {
                        it.invoke(
                            v.clone(),
                            &e.method,
                            owner,
                            "initialize_copy",
                            vec![recv.clone()],
                            None,
                            None,
                            pos,
                        )?;
                    }
                    v
                }
                other => other.clone(),
            })
        })(),
        "to_yaml" => crate::yaml::to_yaml(recv, pos).map(RValue::string),
        "tap" => (|| {
            let Some(b) = block else {
                return unsupported("`tap' without a block", pos);
            };
            it.call_block(b, vec![recv.clone()], pos)?;
            Ok(recv.clone())
        })(),
        "then" | "yield_self" => match block {
            Some(b) => it.call_block(b, vec![recv.clone()], pos),
            None => unsupported(format!("`{name}' without a block (Enumerator)"), pos),
        },
        "===" => (|| {
            argc(args, 1, 1, pos)?;
            match recv {
                // Object#=== is `==` (the object's own, else identity); `case_eq` would send
                // `===` back here.
                RValue::Object(_) => Ok(RValue::Bool(
                    it.call_method(recv.clone(), "==", vec![args[0].clone()], None, pos)?
                        .truthy(),
                )),
                _ => Ok(RValue::Bool(it.case_eq(recv, &args[0], pos)?)),
            }
        })(),
        "=~" => Ok(RValue::Nil),
        "hash" => Ok(RValue::Int({
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            value::HKey::of(recv).hash(&mut h);
            (h.finish() >> 2) as i64
        })),
        // Objects: their address (distinct while both live, as Ruby's ids); immediate values
        // (symbols, floats) one id per value.
        "object_id" | "__id__" => Ok(RValue::Int(match recv {
            RValue::Object(o) => (Rc::as_ptr(o) as usize >> 3) as i64,
            RValue::Module(m) => (Rc::as_ptr(m) as usize >> 3) as i64,
            RValue::Str(x) => (Rc::as_ptr(x) as usize >> 3) as i64,
            RValue::Array(x) => (Rc::as_ptr(x) as usize >> 3) as i64,
            RValue::Hash(x) => (Rc::as_ptr(x) as usize >> 3) as i64,
            RValue::Range(x) => (Rc::as_ptr(x) as usize >> 3) as i64,
            RValue::Regexp(x) => (Rc::as_ptr(x) as usize >> 3) as i64,
            RValue::MatchData(x) => (Rc::as_ptr(x) as usize >> 3) as i64,
            RValue::Nil => 8,
            RValue::Bool(true) => 20,
            RValue::Bool(false) => 0,
            RValue::Int(i) => i.wrapping_mul(2).wrapping_add(1),
            RValue::Sym(_) | RValue::Float(_) => {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                value::HKey::of(recv).hash(&mut h);
                (h.finish() >> 4) as i64 * 4 + 2
            }
            _ => 1,
        })),
        "send" | "__send__" | "public_send" => (|| {
            if args.is_empty() {
                return raise("ArgumentError", "no method name given", pos);
            }
            let m = name_arg(&args[0], pos)?;
            let rest = args[1..].to_vec();
            it.send(
                recv.clone(),
                &m,
                rest,
                None,
                block,
                pos,
                name != "public_send",
            )
        })(),
        "method" | "public_method" => (|| {
            argc(args, 1, 1, pos)?;
            let m = name_arg(&args[0], pos)?;
            if !it.responds_to(recv, &m, true) {
                return raise(
                    "NameError",
                    format!(
                        "undefined method `{m}' for {}",
                        crate::methods::describe(recv)
                    ),
                    pos,
                );
            }
            Ok(RValue::Proc(
                it.make_proc_of(ProcBody::Method(recv.clone(), m), true),
            ))
        })(),
        "methods" | "public_methods" => Ok(RValue::array(Vec::new())),
        "instance_variable_get" => (|| {
            argc(args, 1, 1, pos)?;
            let n = name_arg(&args[0], pos)?;
            let Some(n) = n.strip_prefix('@') else {
                return raise(
                    "NameError",
                    format!("'{n}' is not allowed as an instance variable name"),
                    pos,
                );
            };
            Ok(it.ivar_of(recv, n))
        })(),
        "instance_variable_set" => (|| {
            argc(args, 2, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let Some(n) = n.strip_prefix('@') else {
                return raise(
                    "NameError",
                    format!("'{n}' is not allowed as an instance variable name"),
                    pos,
                );
            };
            it.ivar_set_on(recv, n, args[1].clone(), pos)?;
            Ok(args[1].clone())
        })(),
        "instance_variable_defined?" => (|| {
            argc(args, 1, 1, pos)?;
            let n = name_arg(&args[0], pos)?;
            let n = n.trim_start_matches('@');
            Ok(RValue::Bool(match recv {
                RValue::Object(o) => {
                    if matches!(&it.main, RValue::Object(m) if Rc::ptr_eq(m, o)) && it.template {
                        !matches!(it.ivar_of(recv, n), RValue::Nil)
                    } else {
                        o.ivars.borrow().contains_key(n)
                    }
                }
                RValue::Module(m) => m.ivars.borrow().contains_key(n),
                _ => false,
            }))
        })(),
        "singleton_methods" => {
            // Ruby lists them in definition order; this engine keeps no order (sorted).
            let single = match recv {
                RValue::Object(o) => o.singleton.borrow().clone(),
                RValue::Module(m) => m.meta.borrow().clone(),
                _ => None,
            };
            let mut names: Vec<String> = single
                .map(|s| {
                    s.methods
                        .borrow()
                        .iter()
                        .filter(|(_, e)| !e.private && !matches!(e.method, Method::Undefined))
                        .map(|(k, _)| k.clone())
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            Ok(RValue::array(
                names.iter().map(|n| RValue::sym(n)).collect(),
            ))
        }
        "instance_variables" => Ok(RValue::array(match recv {
            // (Names with a space are this engine's own state, as a Digest's data.)
            RValue::Object(o) => o
                .ivars
                .borrow()
                .keys()
                .filter(|k| !k.starts_with(' '))
                .map(|k| RValue::sym(&format!("@{k}")))
                .collect(),
            RValue::Module(m) => m
                .ivars
                .borrow()
                .keys()
                .map(|k| RValue::sym(&format!("@{k}")))
                .collect(),
            _ => Vec::new(),
        })),
        "instance_eval" | "instance_exec" => (|| {
            let target = match recv {
                RValue::Module(m) => {
                    let m = m.clone();
                    it.meta(&m)
                }
                RValue::Object(o) => {
                    let o = o.clone();
                    it.singleton_of_object(&o)
                }
                other => it.class_of(other),
            };
            let Some(b) = block else {
                if name == "instance_eval" && matches!(args.first(), Some(RValue::Str(_))) {
                    argc(args, 1, 3, pos)?;
                    let with = Some((recv.clone(), target));
                    return eval_string_call(it, &args[0], &args[1..], with, pos);
                }
                return unsupported(format!("`{name}' without a block"), pos);
            };
            let a = if name == "instance_exec" {
                args.to_vec()
            } else {
                vec![recv.clone()]
            };
            it.call_block_as(b, a, Some((recv.clone(), target)), None, false, None, pos)
        })(),
        "extend" => (|| {
            for a in args {
                let RValue::Module(m) = a else {
                    return raise("TypeError", "wrong argument type (expected Module)", pos);
                };
                let target = match recv {
                    RValue::Module(x) => {
                        let x = x.clone();
                        it.meta(&x)
                    }
                    RValue::Object(o) => {
                        let o = o.clone();
                        it.singleton_of_object(&o)
                    }
                    other if crate::call::value_address(other).is_some() && it.is_frozen(other) => {
                        return raise(
                            "FrozenError",
                            format!("can't modify frozen object: {}", to_s(other)),
                            pos,
                        );
                    }
                    other => match it.value_singleton(other) {
                        Some(s) => s,
                        None => return unsupported("extending a built-in value", pos),
                    },
                };
                target.includes.borrow_mut().push(m.clone());
                if let Some((e, owner)) = it.meta(m).find_method("extended") {
                    it.invoke(
                        a.clone(),
                        &e.method,
                        owner,
                        "extended",
                        vec![recv.clone()],
                        None,
                        None,
                        pos,
                    )?;
                }
            }
            Ok(recv.clone())
        })(),
        "define_singleton_method" => (|| {
            argc(args, 1, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let p = match (args.get(1), block) {
                (Some(RValue::Proc(p)), _) => p.clone(),
                (_, Some(b)) => b.clone(),
                _ => {
                    return raise(
                        "ArgumentError",
                        "tried to create Proc object without a block",
                        pos,
                    )
                }
            };
            let target = match recv {
                RValue::Module(m) => {
                    let m = m.clone();
                    it.meta(&m)
                }
                RValue::Object(o) => {
                    let o = o.clone();
                    it.singleton_of_object(&o)
                }
                _ => return unsupported("a singleton method on a built-in value", pos),
            };
            target.methods.borrow_mut().insert(
                n.clone(),
                Entry {
                    method: Method::Proc(p),
                    private: false,
                },
            );
            Ok(RValue::sym(&n))
        })(),
        // An enumerator over what `recv.meth(*args)` yields (the size block is not kept).
        "enum_for" | "to_enum" => (|| {
            let (meth, rest) = match args.split_first() {
                Some((RValue::Sym(m), rest)) => (m.to_string(), rest.to_vec()),
                Some((RValue::Str(m), rest)) => (m.borrow().to_string(), rest.to_vec()),
                Some(_) => return raise("TypeError", "method name must be a Symbol", pos),
                None => ("each".to_string(), Vec::new()),
            };
            Ok(make_enumerator(it, recv.clone(), &meth, rest))
        })(),
        "each_entry" => match block {
            Some(b) => it.call_method(recv.clone(), "each", args.to_vec(), Some(b), pos),
            None => Ok(make_enumerator(it, recv.clone(), "each", args.to_vec())),
        },
        "display" => Ok(RValue::Nil),
        "instance_variable_names" => Ok(RValue::array(Vec::new())),
        _ => return None,
    })
}

/// Methods of user objects after their class's user methods.
pub(crate) fn object_method(
    it: &mut Interp,
    recv: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
    fcall: bool,
) -> R {
    object_method_inner(it, recv, name, args, block, pos, fcall, false)
}

#[allow(clippy::too_many_arguments)]
fn object_method_inner(
    it: &mut Interp,
    recv: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
    fcall: bool,
    vcall: bool,
) -> R {
    let RValue::Object(o) = &recv else {
        return crate::methods::call_method(it, recv, name, args, block, pos);
    };
    let o = o.clone();
    if matches!(&*o.data.borrow(), ObjData::Exception(_)) {
        if let Some(r) = exception_method(it, &recv, &o, name, &args, pos) {
            return r;
        }
    }
    if let Some(r) = crate::library::object_method(it, &recv, name, &args, block, pos) {
        return r;
    }
    if let Some(e) = enum_data(&o) {
        return enumerator_method(it, &recv, &e, name, args, block, pos);
    }
    // A Digest object (`Digest::SHA1.new`, `update`/`<<`, then `digest`/`hexdigest`): the
    // data so far in a hidden instance variable, digested by the class's own function.
    let digest_class = o.class.name();
    if matches!(
        digest_class.as_str(),
        "Digest::MD5" | "Digest::SHA1" | "Digest::SHA256" | "Digest::SHA2" | "Digest::SHA512"
    ) {
        let data = || {
            o.ivars
                .borrow()
                .get(" data")
                .cloned()
                .unwrap_or_else(|| RValue::str(""))
        };
        match name {
            "update" | "<<" => {
                let [chunk] = args.as_slice() else {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (expected 1)",
                        pos,
                    );
                };
                if !matches!(chunk, RValue::Str(_)) {
                    return crate::interp::no_implicit_conversion(chunk, "String", pos);
                }
                let mut bytes = crate::methods::str_bytes(&data());
                bytes.extend_from_slice(&crate::methods::str_bytes(chunk));
                o.ivars
                    .borrow_mut()
                    .insert(" data".into(), crate::methods::binary_string(&bytes));
                return Ok(recv.clone());
            }
            "reset" => {
                o.ivars.borrow_mut().shift_remove(" data");
                return Ok(recv.clone());
            }
            // Ruby's Digest#inspect: the class and the hex digest of the data so far.
            "inspect" => {
                let class = RValue::Module(o.class.clone());
                let hex = it.call_method(class, "hexdigest", vec![data()], None, pos)?;
                return Ok(RValue::string(format!("#<{digest_class}: {}>", to_s(&hex))));
            }
            "digest" | "hexdigest" | "base64digest" | "to_s" => {
                let name = if name == "to_s" { "hexdigest" } else { name };
                let input = match args.first() {
                    Some(x) => x.clone(),
                    None => data(),
                };
                let class = RValue::Module(o.class.clone());
                return it.call_method(class, name, vec![input], None, pos);
            }
            _ => {}
        }
    }
    if o.class.name_is("Encoding") && matches!(name, "to_s" | "name" | "inspect") {
        let n = o.ivars.borrow().get("name").map(to_s).unwrap_or_default();
        return Ok(RValue::string(if name == "inspect" {
            format!("#<Encoding:{n}>")
        } else {
            n
        }));
    }
    if is_main(it, &o) && matches!(name, "to_s" | "inspect") && args.is_empty() {
        return Ok(RValue::str(if it.template { "template" } else { "main" }));
    }
    if let Some(r) = crate::puppet::object_method(it, &recv, &o, name, &args, block, pos) {
        return r;
    }
    if let Some(r) = mixin_method(it, &recv, &o, name, &args, block, pos) {
        return r;
    }
    if let Some(r) = common(it, &recv, name, &args, block, pos) {
        return r;
    }
    match name {
        "initialize" => {
            if !args.is_empty() {
                return raise(
                    "ArgumentError",
                    format!(
                        "wrong number of arguments (given {}, expected 0)",
                        args.len()
                    ),
                    pos,
                );
            }
            return Ok(RValue::Nil);
        }
        "<=>" => {
            return Ok(
                if matches!(args.first(), Some(a) if value::equal(a, &recv)) {
                    RValue::Int(0)
                } else {
                    RValue::Nil
                },
            )
        }
        "to_str" | "to_ary" | "to_hash" | "to_proc" | "to_a" => {
            return raise(
                "NoMethodError",
                format!(
                    "undefined method `{name}' for {}",
                    crate::methods::describe(&recv)
                ),
                pos,
            )
        }
        _ => {}
    }
    // method_missing.
    if let Some((e, owner)) = it.find_user_method(&recv, "method_missing") {
        let mut a = vec![RValue::sym(name)];
        a.extend(args);
        return it.invoke(
            recv,
            &e.method,
            owner,
            "method_missing",
            a,
            None,
            block,
            pos,
        );
    }
    let _ = fcall;
    if vcall {
        return raise(
            "NameError",
            format!(
                "undefined local variable or method `{name}' for {}",
                describe_self(it, &recv)
            ),
            pos,
        );
    }
    raise(
        "NoMethodError",
        format!("undefined method `{name}' for {}", describe_self(it, &recv)),
        pos,
    )
}

/// An Enumerator: a method of a receiver to call with a block later.
#[derive(Debug)]
pub(crate) struct EnumData {
    recv: RValue,
    meth: String,
    args: Vec<RValue>,
    /// External enumeration (`next`, `peek`).
    cursor: crate::library::Cursor,
}

fn enum_data(o: &Rc<Object>) -> Option<Rc<EnumData>> {
    match &*o.data.borrow() {
        ObjData::Native(d) => d.clone().downcast::<EnumData>().ok(),
        _ => None,
    }
}

/// The methods that return an Enumerator when called without a block.
pub(crate) fn enumerates(recv: &RValue, name: &str, args: &[RValue]) -> bool {
    match recv {
        RValue::Array(_) | RValue::Hash(_) | RValue::Range(_) => {
            matches!(
                name,
                "each"
                    | "each_with_index"
                    | "map"
                    | "collect"
                    | "flat_map"
                    | "collect_concat"
                    | "select"
                    | "filter"
                    | "reject"
                    | "filter_map"
                    | "each_slice"
                    | "each_cons"
                    | "each_entry"
                    | "group_by"
                    | "sort_by"
                    | "min_by"
                    | "max_by"
                    | "partition"
                    | "find"
                    | "detect"
                    | "each_pair"
                    | "each_key"
                    | "each_value"
                    | "reverse_each"
                    | "each_index"
                    | "each_with_object"
                    | "map!"
                    | "collect!"
                    | "chunk_while"
                    | "slice_when"
                    | "take_while"
                    | "drop_while"
                    | "uniq_by"
            ) || (name == "find_index" && args.is_empty())
                || (name == "step" && matches!(recv, RValue::Range(_)))
        }
        RValue::Int(_) | RValue::Big(_) => matches!(name, "times" | "upto" | "downto" | "step"),
        RValue::Float(_) => name == "step",
        RValue::Str(_) => matches!(name, "each_char" | "each_line" | "each_byte"),
        _ => false,
    }
}

/// Makes an Enumerator.
pub(crate) fn make_enumerator(
    it: &mut Interp,
    recv: RValue,
    meth: &str,
    args: Vec<RValue>,
) -> RValue {
    let class = it
        .module_by_path("Enumerator")
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(class));
    *o.data.borrow_mut() = ObjData::Native(Rc::new(EnumData {
        recv,
        meth: meth.to_string(),
        args,
        cursor: crate::library::Cursor::default(),
    }));
    it.track_object(&o);
    RValue::Object(o)
}

fn enumerator_items(it: &mut Interp, e: &EnumData, pos: Pos) -> Result<Vec<RValue>, Ctrl> {
    let items = Rc::new(std::cell::RefCell::new(Vec::new()));
    let collector = it.make_proc_of(ProcBody::Collect(items.clone()), false);
    it.call_method(
        e.recv.clone(),
        &e.meth,
        e.args.clone(),
        Some(&collector),
        pos,
    )?;
    let v = items.borrow().clone();
    Ok(v)
}

fn enumerator_method(
    it: &mut Interp,
    recv: &RValue,
    e: &EnumData,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    match (name, block) {
        ("each", Some(b)) => it.call_method(e.recv.clone(), &e.meth, e.args.clone(), Some(b), pos),
        ("each", None) => Ok(recv.clone()),
        ("with_index" | "each_with_index", Some(b)) => {
            let offset = match args.first() {
                Some(RValue::Int(i)) => *i,
                _ => 0,
            };
            let p = it.make_proc_of(
                ProcBody::WithIndex(b.clone(), std::cell::Cell::new(offset)),
                false,
            );
            it.call_method(e.recv.clone(), &e.meth, e.args.clone(), Some(&p), pos)
        }
        ("with_object" | "each_with_object", Some(b)) => {
            let memo = args.first().cloned().unwrap_or(RValue::Nil);
            let p = it.make_proc_of(ProcBody::WithObject(b.clone(), memo.clone()), false);
            it.call_method(e.recv.clone(), &e.meth, e.args.clone(), Some(&p), pos)?;
            Ok(memo)
        }
        ("with_index" | "each_with_index" | "with_object", None) => {
            let items = enumerator_items(it, e, pos)?;
            let offset = match (name, args.first()) {
                ("with_object", _) => {
                    return unsupported("Enumerator#with_object without a block", pos)
                }
                (_, Some(RValue::Int(i))) => *i,
                _ => 0,
            };
            let pairs: Vec<RValue> = items
                .into_iter()
                .enumerate()
                .map(|(i, x)| RValue::array(vec![x, RValue::Int(i as i64 + offset)]))
                .collect();
            Ok(make_enumerator(
                it,
                RValue::array(pairs),
                "each",
                Vec::new(),
            ))
        }
        ("size", _) => Ok(RValue::Int(enumerator_items(it, e, pos)?.len() as i64)),
        ("inspect" | "to_s", _) => Ok(RValue::string(format!(
            "#<Enumerator: {}:{}{}>",
            value::inspect(&e.recv),
            e.meth,
            if e.args.is_empty() {
                String::new()
            } else {
                format!(
                    "({})",
                    e.args
                        .iter()
                        .map(value::inspect)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ))),
        ("lazy", None) if args.is_empty() => Ok(crate::library::lazy_of(it, recv.clone())),
        // External enumeration over the items the enumerator gives (collected once, at the
        // first `next`: an enumerator over a method runs it to the end).
        ("next" | "peek", _) => {
            argc(&args, 0, 0, pos)?;
            e.cursor.step(name, || enumerator_items(it, e, pos), pos)
        }
        ("rewind", _) => {
            e.cursor.rewind();
            Ok(recv.clone())
        }
        ("lazy", _) => unsupported(format!("Enumerator#{name}"), pos),
        _ => {
            if let Some(r) = common(it, recv, name, &args, block, pos) {
                if !matches!(name, "to_s" | "inspect") {
                    return r;
                }
            }
            let items = enumerator_items(it, e, pos)?;
            let list = RValue::array(items);
            crate::methods::call_method(
                it,
                list,
                if name == "entries" { "to_a" } else { name },
                args,
                block,
                pos,
            )
        }
    }
}

const ENUMERABLE: &[&str] = &[
    "all?",
    "any?",
    "collect",
    "collect_concat",
    "compact",
    "count",
    "detect",
    "drop",
    "drop_while",
    "each_cons",
    "each_slice",
    "each_with_index",
    "each_with_object",
    "entries",
    "filter",
    "filter_map",
    "find",
    "find_all",
    "find_index",
    "first",
    "flat_map",
    "grep",
    "grep_v",
    "group_by",
    "include?",
    "inject",
    "map",
    "max",
    "max_by",
    "member?",
    "min",
    "min_by",
    "minmax",
    "none?",
    "one?",
    "partition",
    "reduce",
    "reject",
    "reverse_each",
    "select",
    "sort",
    "sort_by",
    "sum",
    "take",
    "take_while",
    "tally",
    "to_a",
    "to_h",
    "uniq",
    "zip",
    "each_entry",
];

/// Comparable's and Enumerable's methods for user classes that include them (over the
/// class's `<=>` and `each`).
fn mixin_method(
    it: &mut Interp,
    recv: &RValue,
    o: &Rc<Object>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let anc = o.lookup_class().ancestors();
    let has = |n: &str| anc.iter().any(|m| !m.is_class && m.name_is(n));
    if has("Comparable") && matches!(name, "<" | "<=" | ">" | ">=" | "==" | "between?" | "clamp") {
        return Some((|| {
            let cmp = |it: &mut Interp, other: &RValue| -> Result<Option<i64>, Ctrl> {
                match it.call_method(recv.clone(), "<=>", vec![other.clone()], None, pos)? {
                    RValue::Int(i) => Ok(Some(i.signum())),
                    RValue::Nil => Ok(None),
                    _ => Ok(None),
                }
            };
            let fail = |other: &RValue| {
                raise::<RValue>(
                    "ArgumentError",
                    format!(
                        "comparison of {} with {} failed",
                        recv.class_name(),
                        match other {
                            RValue::Nil | RValue::Int(_) | RValue::Big(_) | RValue::Float(_) =>
                                value::inspect(other),
                            x => x.class_name(),
                        }
                    ),
                    pos,
                )
            };
            let Some(other) = args.first() else {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                    pos,
                );
            };
            match name {
                "==" => Ok(RValue::Bool(
                    value::equal(recv, other) || cmp(it, other)? == Some(0),
                )),
                "between?" => {
                    let hi = args.get(1).cloned().unwrap_or(RValue::Nil);
                    let lo_ok = matches!(cmp(it, other)?, Some(c) if c >= 0);
                    let hi_ok = matches!(cmp(it, &hi)?, Some(c) if c <= 0);
                    Ok(RValue::Bool(lo_ok && hi_ok))
                }
                "clamp" => {
                    let hi = args.get(1).cloned().unwrap_or(RValue::Nil);
                    let lo_hi =
                        it.call_method(other.clone(), "<=>", vec![hi.clone()], None, pos)?;
                    if matches!(lo_hi, RValue::Int(c) if c > 0) {
                        return raise(
                            "ArgumentError",
                            "min argument must be smaller than max argument",
                            pos,
                        );
                    }
                    if matches!(cmp(it, other)?, Some(c) if c < 0) {
                        return Ok(other.clone());
                    }
                    if matches!(cmp(it, &hi)?, Some(c) if c > 0) {
                        return Ok(hi);
                    }
                    Ok(recv.clone())
                }
                _ => match cmp(it, other)? {
                    Some(c) => Ok(RValue::Bool(match name {
                        "<" => c < 0,
                        "<=" => c <= 0,
                        ">" => c > 0,
                        _ => c >= 0,
                    })),
                    None => fail(other),
                },
            }
        })());
    }
    if has("Enumerable")
        && ENUMERABLE.contains(&name)
        && it.find_user_method(recv, "each").is_some()
    {
        return Some((|| {
            let items = Rc::new(std::cell::RefCell::new(Vec::new()));
            let collector = it.make_proc_of(ProcBody::Collect(items.clone()), false);
            it.call_method(recv.clone(), "each", vec![], Some(&collector), pos)?;
            let list = RValue::array(items.borrow().clone());
            crate::methods::call_method(
                it,
                list,
                if name == "entries" { "to_a" } else { name },
                args.to_vec(),
                block,
                pos,
            )
        })());
    }
    None
}

fn exception_method(
    it: &mut Interp,
    recv: &RValue,
    o: &Rc<Object>,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "initialize" => {
            if args.len() > 1 {
                return Some(raise(
                    "ArgumentError",
                    format!(
                        "wrong number of arguments (given {}, expected 0..1)",
                        args.len()
                    ),
                    pos,
                ));
            }
            *o.data.borrow_mut() = ObjData::Exception(args.first().cloned());
            Ok(RValue::Nil)
        }
        "message" | "to_s" | "detailed_message" => {
            if name == "message" || name == "detailed_message" {
                // `message` calls `to_s`, which a user class may define.
                if let Some((e, owner)) = it.find_user_method(recv, "to_s") {
                    return Some(it.invoke(
                        recv.clone(),
                        &e.method,
                        owner,
                        "to_s",
                        vec![],
                        None,
                        None,
                        pos,
                    ));
                }
            }
            let m = match &*o.data.borrow() {
                ObjData::Exception(Some(m)) => to_s(m),
                _ => o.class.name(),
            };
            Ok(RValue::string(m))
        }
        "full_message" => {
            let (c, m) = exception_parts(it, recv);
            Ok(RValue::string(format!("{m} ({c})")))
        }
        // NameError#name (NoMethodError's too): the name Ruby's message quotes (its
        // messages have fixed forms: "undefined method `x' for ...", "uninitialized
        // constant A::B").
        "name" if o.class.ancestors().iter().any(|a| a.name_is("NameError")) => {
            let (_, m) = exception_parts(it, recv);
            let name = if let Some(c) = m.strip_prefix("uninitialized constant ") {
                c.rsplit("::").next().map(str::to_string)
            } else {
                m.split_once('`')
                    .and_then(|(_, rest)| rest.split_once('\''))
                    .map(|(n, _)| n.to_string())
            };
            Ok(name.map_or(RValue::Nil, |n| RValue::sym(&n)))
        }
        "backtrace" => Ok(o
            .ivars
            .borrow()
            .get(" backtrace")
            .cloned()
            .unwrap_or(RValue::Nil)),
        "backtrace_locations" => Ok(RValue::Nil),
        "set_backtrace" => {
            let b = args.first().cloned().unwrap_or(RValue::Nil);
            let b = match b {
                RValue::Str(_) => RValue::array(vec![b]),
                other => other,
            };
            o.ivars.borrow_mut().insert(" backtrace".into(), b.clone());
            Ok(b)
        }
        "cause" => Ok(o
            .ivars
            .borrow()
            .get(" cause")
            .cloned()
            .unwrap_or(RValue::Nil)),
        "exception" => {
            if args.is_empty() {
                return Some(Ok(recv.clone()));
            }
            let n = Rc::new(Object::new(o.class.clone()));
            *n.ivars.borrow_mut() = o.ivars.borrow().clone();
            *n.data.borrow_mut() = ObjData::Exception(args.first().cloned());
            it.track_object(&n);
            Ok(RValue::Object(n))
        }
        "inspect" => Ok(RValue::string(value::inspect(recv))),
        "==" => Ok(RValue::Bool(match args.first() {
            Some(RValue::Object(x)) => {
                Rc::ptr_eq(x, o) || (Rc::ptr_eq(&x.class, &o.class) && to_s(recv) == to_s(&args[0]))
            }
            _ => false,
        })),
        _ => return None,
    })
}

/// Methods of modules and classes after their singleton classes' user methods.
pub(crate) fn module_method(
    it: &mut Interp,
    recv: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
    fcall: bool,
) -> R {
    let RValue::Module(m) = &recv else {
        return crate::methods::call_method(it, recv, name, args, block, pos);
    };
    let m = m.clone();
    // `Kernel.format(...)`: Kernel's functions called on the module.
    if m.name_is("Kernel") {
        let s = it.main();
        if let Some(r) = kernel_function(it, &s, name, &args, block, pos) {
            return r;
        }
    }
    if let Some(lib) = crate::library::library_class(&m) {
        if let Some(r) = crate::library::class_method(it, lib, name, &args, block, pos) {
            return r;
        }
    }
    // Library and built-in class methods, by the class and its superclasses' names.
    let mut cur = Some(m.clone());
    let mut guard = 0;
    while let Some(c) = cur {
        guard += 1;
        if guard > 64 {
            break;
        }
        let cname = c.name();
        if let Some(r) = crate::methods::class_method(it, &cname, &recv, name, &args, block, pos) {
            return r;
        }
        if let Some(r) =
            crate::puppet::module_method(it, &cname, &recv, &m, name, &args, block, pos)
        {
            return r;
        }
        cur = c.superclass();
    }
    // Modules the module extends (natives of library modules).
    let extended: Vec<Rc<Module>> = m
        .meta
        .borrow()
        .as_ref()
        .map(|x| x.includes.borrow().clone())
        .unwrap_or_default();
    for e in extended {
        let ename = e.name();
        if let Some(r) =
            crate::puppet::module_method(it, &ename, &recv, &m, name, &args, block, pos)
        {
            return r;
        }
    }
    if let Some(r) = module_generic(it, &recv, &m, name, &args, block, pos) {
        return r;
    }
    if let Some(r) = common(it, &recv, name, &args, block, pos) {
        return r;
    }
    if let Some((e, owner)) = it.find_user_method(&recv, "method_missing") {
        let mut a = vec![RValue::sym(name)];
        a.extend(args);
        return it.invoke(
            recv,
            &e.method,
            owner,
            "method_missing",
            a,
            None,
            block,
            pos,
        );
    }
    let _ = fcall;
    let cname = m.name();
    if matches!(cname.as_str(), "Time" | "Date" | "DateTime") {
        // Known so that `is_a?(Time)` answers; making one is beyond this engine.
        return unsupported(format!("{cname}.{name} (dates and times)"), pos);
    }
    if crate::classes::is_puppets_own(&cname) && crate::classes::known(&cname).is_some() {
        // Puppet's classes are modelled in part: Puppet has more class methods than
        // these, so a missing one is not Ruby's NoMethodError (code that rescues it would
        // take a path Puppet does not take). Classes the code defines answer as Ruby's.
        return unsupported(
            format!("{cname}.{name} (a part of Puppet this engine does not provide)"),
            pos,
        );
    }
    raise(
        "NoMethodError",
        format!(
            "undefined method `{name}' for {}:{}",
            m.name(),
            if m.is_class { "Class" } else { "Module" }
        ),
        pos,
    )
}

/// `Class#new` for user classes: allocates and calls `initialize` (keywords passed on).
pub(crate) fn instantiate(
    it: &mut Interp,
    m: &Rc<Module>,
    args: Vec<RValue>,
    kw: Option<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    if !m.is_class {
        return raise(
            "NoMethodError",
            format!("undefined method `new' for {}:Module", m.name()),
            pos,
        );
    }
    if m.name_is("ERB") {
        return crate::erb::new(it, &args, kw.as_ref(), pos);
    }
    if m.name().starts_with("SemanticPuppet::") {
        // Its versions are Puppet's values, made by `parse` (and Version.new).
        return unsupported(
            format!(
                "{}.new (a part of SemanticPuppet this engine does not provide)",
                m.name()
            ),
            pos,
        );
    }
    if m.name_is("Class") || m.name_is("Module") {
        return new_anonymous_module(it, m.name_is("Class"), &args, block, pos);
    }
    let exc = it
        .module_by_path("Exception")
        .is_some_and(|e| m.inherits(&e));
    let obj = if exc {
        it.new_exception(m, None)
    } else {
        let o = Rc::new(Object::new(m.clone()));
        it.track_object(&o);
        RValue::Object(o)
    };
    it.send(obj.clone(), "initialize", args, kw, block, pos, true)?;
    Ok(obj)
}

/// Runs the body block of `Class.new`, `Module.new` or `Struct.new` with the new class or
/// module as `self` and as the block's argument (`class_eval`).
fn class_body(it: &mut Interp, c: &Rc<Module>, b: &Blk, pos: Pos) -> Result<RValue, Ctrl> {
    let m = RValue::Module(c.clone());
    it.call_block_as(
        b,
        vec![m.clone()],
        Some((m, c.clone())),
        None,
        false,
        None,
        pos,
    )
}

/// `Class.new(superclass = Object) { body }` and `Module.new { body }`: an anonymous class
/// or module (named by the first constant it is assigned to), its body run with it as
/// `self` and as the block's argument.
fn new_anonymous_module(
    it: &mut Interp,
    is_class: bool,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    if args.len() > usize::from(is_class) {
        return raise(
            "ArgumentError",
            if is_class {
                format!(
                    "wrong number of arguments (given {}, expected 0..1)",
                    args.len()
                )
            } else {
                format!(
                    "wrong number of arguments (given {}, expected 0)",
                    args.len()
                )
            },
            pos,
        );
    }
    let sup = match args.first() {
        Some(RValue::Module(s)) if s.is_class => Some(s.clone()),
        Some(other) => {
            return raise(
                "TypeError",
                format!(
                    "superclass must be an instance of Class (given an instance of {})",
                    it.class_of(other).name()
                ),
                pos,
            )
        }
        None if is_class => Some(it.object_class()),
        None => None,
    };
    let c = it.new_module("", is_class, sup.clone());
    if let Some(sup) = &sup {
        inherited_hook(it, sup, &c, pos)?;
    }
    if let Some(b) = block {
        class_body(it, &c, b, pos)?;
    }
    Ok(RValue::Module(c))
}

fn module_generic(
    it: &mut Interp,
    recv: &RValue,
    m: &Rc<Module>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    let args = args.to_vec();
    let def_entry = |method: Method| Entry {
        method,
        private: false,
    };
    Some(match name {
        "new" => instantiate(it, m, args, None, block, pos),
        "allocate" => {
            let o = Rc::new(Object::new(m.clone()));
            it.track_object(&o);
            Ok(RValue::Object(o))
        }
        "name" | "to_s" | "inspect" => {
            let n = m.name.borrow().clone();
            if n.is_empty() && name == "name" {
                Ok(RValue::Nil)
            } else {
                Ok(RValue::string(m.name()))
            }
        }
        "===" => (|| {
            argc(&args, 1, 1, pos)?;
            Ok(RValue::Bool(it.value_is_a(&args[0], m)))
        })(),
        "==" | "equal?" | "eql?" => Ok(RValue::Bool(
            matches!(args.first(), Some(RValue::Module(x)) if Rc::ptr_eq(x, m)),
        )),
        "<" | "<=" | ">" | ">=" => (|| {
            let Some(RValue::Module(o)) = args.first() else {
                return raise("TypeError", "compared with non class/module", pos);
            };
            let same = Rc::ptr_eq(o, m);
            Ok(match name {
                "<" if same => RValue::Bool(false),
                "<" | "<=" => {
                    if m.inherits(o) {
                        RValue::Bool(true)
                    } else if o.inherits(m) {
                        RValue::Bool(false)
                    } else {
                        RValue::Nil
                    }
                }
                ">" if same => RValue::Bool(false),
                _ => {
                    if o.inherits(m) {
                        RValue::Bool(true)
                    } else if m.inherits(o) {
                        RValue::Bool(false)
                    } else {
                        RValue::Nil
                    }
                }
            })
        })(),
        "<=>" => Ok(match args.first() {
            Some(RValue::Module(o)) if Rc::ptr_eq(o, m) => RValue::Int(0),
            Some(RValue::Module(o)) if m.inherits(o) => RValue::Int(-1),
            Some(RValue::Module(o)) if o.inherits(m) => RValue::Int(1),
            _ => RValue::Nil,
        }),
        "ancestors" => Ok(RValue::array(
            m.ancestors().into_iter().map(RValue::Module).collect(),
        )),
        "superclass" => Ok(m.superclass().map(RValue::Module).unwrap_or(RValue::Nil)),
        "include" | "prepend" => (|| {
            for a in args.iter().rev() {
                let RValue::Module(x) = a else {
                    return raise(
                        "TypeError",
                        format!("wrong argument type {} (expected Module)", a.class_name()),
                        pos,
                    );
                };
                if !m.includes.borrow().iter().any(|i| Rc::ptr_eq(i, x)) {
                    m.includes.borrow_mut().push(x.clone());
                }
                it.note_reopened(m);
                let meta = it.meta(x);
                if let Some((e, owner)) = meta.find_method("included") {
                    it.invoke(
                        a.clone(),
                        &e.method,
                        owner,
                        "included",
                        vec![recv.clone()],
                        None,
                        None,
                        pos,
                    )?;
                }
            }
            Ok(recv.clone())
        })(),
        "include?" => Ok(RValue::Bool(match args.first() {
            Some(RValue::Module(x)) => !Rc::ptr_eq(x, m) && m.inherits(x) && !x.is_class,
            _ => false,
        })),
        "included_modules" => Ok(RValue::array(
            m.ancestors()
                .into_iter()
                .filter(|x| !x.is_class)
                .map(RValue::Module)
                .collect(),
        )),
        "instance_methods" | "public_instance_methods" | "private_instance_methods" => {
            let inherit = args.first().is_none_or(|a| a.truthy());
            let private = name == "private_instance_methods";
            if private && inherit {
                // Ruby's list would hold Kernel's private methods too.
                return Some(unsupported(
                    "private_instance_methods with inherited ones",
                    pos,
                ));
            }
            let mut names: Vec<RValue> = Vec::new();
            let mods = if inherit {
                m.ancestors()
            } else {
                vec![m.clone()]
            };
            for x in mods {
                let mut ks: Vec<String> = x
                    .methods
                    .borrow()
                    .iter()
                    .filter(|(_, e)| e.private == private && !matches!(e.method, Method::Undefined))
                    .map(|(k, _)| k.clone())
                    .collect();
                ks.sort();
                for k in ks {
                    let s = RValue::sym(&k);
                    if !names.iter().any(|n| value::equal(n, &s)) {
                        names.push(s);
                    }
                }
            }
            Ok(RValue::array(names))
        }
        "method_defined?"
        | "public_method_defined?"
        | "private_method_defined?"
        | "instance_method" => (|| {
            argc(&args, 1, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let found = m.find_method(&n);
            if name == "instance_method" {
                return match found {
                    Some(_) => Ok(RValue::Proc(
                        it.make_proc_of(ProcBody::Method(RValue::Nil, n), true),
                    )),
                    None => raise(
                        "NameError",
                        format!("undefined method `{n}' for class `{}'", m.name()),
                        pos,
                    ),
                };
            }
            Ok(RValue::Bool(match found {
                Some((e, _)) => match name {
                    "private_method_defined?" => e.private,
                    _ => !e.private,
                },
                None => false,
            }))
        })(),
        "define_method" => (|| {
            argc(&args, 1, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let method = match (args.get(1), block) {
                (Some(RValue::Proc(p)), _) => match &p.body {
                    ProcBody::Method(_, mname) => match m.find_method(mname) {
                        Some((e, _)) => e.method,
                        None => Method::Proc(p.clone()),
                    },
                    _ => Method::Proc(p.clone()),
                },
                (_, Some(b)) => Method::Proc(b.clone()),
                _ => {
                    return raise(
                        "ArgumentError",
                        "tried to create Proc object without a block",
                        pos,
                    )
                }
            };
            m.methods.borrow_mut().insert(n.clone(), def_entry(method));
            Ok(RValue::sym(&n))
        })(),
        "alias_method" => (|| {
            argc(&args, 2, 2, pos)?;
            let new = name_arg(&args[0], pos)?;
            let old = name_arg(&args[1], pos)?;
            it.alias_method(m, &new, &old, pos)?;
            Ok(RValue::sym(&new))
        })(),
        "attr_reader" | "attr_writer" | "attr_accessor" | "attr" => (|| {
            let mut out = Vec::new();
            for a in &args {
                let n = name_arg(a, pos)?;
                if name != "attr_writer" {
                    m.methods
                        .borrow_mut()
                        .insert(n.clone(), def_entry(Method::Reader(n.clone())));
                    out.push(RValue::sym(&n));
                }
                if name == "attr_writer" || name == "attr_accessor" {
                    m.methods
                        .borrow_mut()
                        .insert(format!("{n}="), def_entry(Method::Writer(n.clone())));
                    out.push(RValue::sym(&format!("{n}=")));
                }
            }
            Ok(RValue::array(out))
        })(),
        "private"
        | "public"
        | "protected"
        | "module_function"
        | "private_class_method"
        | "public_class_method"
        | "private_constant"
        | "public_constant" => (|| {
            let private = name == "private" || name == "private_class_method";
            if args.is_empty() {
                match name {
                    "module_function" => m.module_function.set(true),
                    "private" => m.default_private.set(true),
                    "public" => {
                        m.default_private.set(false);
                        m.module_function.set(false);
                    }
                    _ => {}
                }
                return Ok(RValue::Nil);
            }
            let names: Vec<RValue> = match args.as_slice() {
                [RValue::Array(a)] => a.borrow().clone(),
                _ => args.clone(),
            };
            for a in &names {
                let n = match a {
                    RValue::Sym(_) | RValue::Str(_) => name_arg(a, pos)?,
                    _ => continue,
                };
                match name {
                    "module_function" => {
                        if let Some((e, _)) = m.find_method(&n) {
                            let meta = it.meta(m);
                            meta.methods.borrow_mut().insert(
                                n.clone(),
                                Entry {
                                    method: e.method,
                                    private: false,
                                },
                            );
                        }
                    }
                    "private" | "public" | "protected" => {
                        let found = m.methods.borrow().get(&n).cloned();
                        if let Some(mut e) = found {
                            e.private = private;
                            m.methods.borrow_mut().insert(n.clone(), e);
                        } else if let Some((mut e, _)) = m.find_method(&n) {
                            e.private = private;
                            m.methods.borrow_mut().insert(n.clone(), e);
                        }
                    }
                    "private_class_method" | "public_class_method" => {
                        let meta = it.meta(m);
                        let found = meta.methods.borrow().get(&n).cloned();
                        if let Some(mut e) = found {
                            e.private = private;
                            meta.methods.borrow_mut().insert(n.clone(), e);
                        }
                    }
                    _ => {}
                }
            }
            Ok(args.first().cloned().unwrap_or(RValue::Nil))
        })(),
        "const_get" => (|| {
            argc(&args, 1, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let mut cur = RValue::Module(m.clone());
            for part in n.trim_start_matches("::").split("::") {
                cur = it.scoped_const(&cur, part, pos)?;
            }
            Ok(cur)
        })(),
        "const_set" => (|| {
            argc(&args, 2, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            it.set_const(m, &n, args[1].clone());
            Ok(args[1].clone())
        })(),
        "const_defined?" => (|| {
            argc(&args, 1, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            let mut cur = m.clone();
            for part in n.trim_start_matches("::").split("::") {
                match it.const_in(&cur, part, true)? {
                    Some(RValue::Module(x)) => cur = x,
                    Some(_) => return Ok(RValue::Bool(true)),
                    None => return Ok(RValue::Bool(false)),
                }
            }
            Ok(RValue::Bool(true))
        })(),
        "constants" => Ok(RValue::array(
            m.consts.borrow().keys().map(|k| RValue::sym(k)).collect(),
        )),
        "class_variable_get" => (|| {
            argc(&args, 1, 1, pos)?;
            let n = name_arg(&args[0], pos)?;
            let n = n.trim_start_matches("@@");
            for x in m.ancestors() {
                if let Some(v) = x.cvars.borrow().get(n) {
                    return Ok(v.clone());
                }
            }
            raise(
                "NameError",
                format!("uninitialized class variable @@{n} in {}", m.name()),
                pos,
            )
        })(),
        "class_variable_set" => (|| {
            argc(&args, 2, 2, pos)?;
            let n = name_arg(&args[0], pos)?;
            m.cvars
                .borrow_mut()
                .insert(n.trim_start_matches("@@").to_string(), args[1].clone());
            Ok(args[1].clone())
        })(),
        "class_variable_defined?" => (|| {
            argc(&args, 1, 1, pos)?;
            let n = name_arg(&args[0], pos)?;
            let n = n.trim_start_matches("@@");
            Ok(RValue::Bool(
                m.ancestors()
                    .iter()
                    .any(|x| x.cvars.borrow().contains_key(n)),
            ))
        })(),
        "class_variables" => Ok(RValue::array(
            m.cvars
                .borrow()
                .keys()
                .map(|k| RValue::sym(&format!("@@{k}")))
                .collect(),
        )),
        "class_eval" | "module_eval" | "class_exec" | "module_exec" => (|| {
            let Some(b) = block else {
                if name.ends_with("eval") && matches!(args.first(), Some(RValue::Str(_))) {
                    argc(&args, 1, 3, pos)?;
                    let with = Some((recv.clone(), m.clone()));
                    return eval_string_call(it, &args[0], &args[1..], with, pos);
                }
                return unsupported(format!("`{name}' without a block"), pos);
            };
            let a = if name.ends_with("exec") {
                args.clone()
            } else {
                vec![recv.clone()]
            };
            it.call_block_as(
                b,
                a,
                Some((recv.clone(), m.clone())),
                None,
                false,
                None,
                pos,
            )
        })(),
        "remove_method" | "undef_method" => {
            for a in &args {
                if let Ok(n) = name_arg(a, pos) {
                    if name == "remove_method" {
                        m.methods.borrow_mut().remove(&n);
                    } else {
                        m.methods
                            .borrow_mut()
                            .insert(n, def_entry(Method::Undefined));
                    }
                }
            }
            Ok(recv.clone())
        }
        "remove_const" => (|| {
            argc(&args, 1, 1, pos)?;
            let n = name_arg(&args[0], pos)?;
            Ok(m.consts_mut().shift_remove(&n).unwrap_or(RValue::Nil))
        })(),
        "module_function?" => Ok(RValue::Bool(m.module_function.get())),
        "autoload" => (|| {
            argc(&args, 2, 2, pos)?;
            let path = to_s(&args[1]);
            it.require(&path, false, pos)?;
            Ok(RValue::Nil)
        })(),
        "instance_method_names" => Ok(RValue::array(Vec::new())),
        "method_added" | "inherited" | "included" | "extended" | "const_missing" => Ok(RValue::Nil),
        "class" => Ok(RValue::Module(it.class_of(recv))),
        "hash" => Ok(RValue::Int((Rc::as_ptr(m) as usize >> 3) as i64)),
        _ => return None,
    })
}

/// Methods of procs, lambdas and method objects.
pub(crate) fn proc_method(
    it: &mut Interp,
    recv: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let RValue::Proc(p) = &recv else {
        return crate::methods::call_method(it, recv, name, args, block, pos);
    };
    let p = p.clone();
    match name {
        "call" | "()" | "yield" | "[]" | "===" => {
            let r = it.call_block_as(&p, args, None, block.cloned(), false, None, pos);
            match r {
                Err(Ctrl::Break(v)) if p.lambda => Ok(v),
                other => other,
            }
        }
        "to_proc" => Ok(recv.clone()),
        "lambda?" => Ok(RValue::Bool(p.lambda)),
        "arity" => Ok(RValue::Int(match &p.body {
            ProcBody::Method(r, n) => {
                let r = r.clone();
                match it.find_user_method(&r, n) {
                    Some((
                        Entry {
                            method: Method::Ruby(d, _),
                            ..
                        },
                        _,
                    )) => d.params.arity(),
                    _ => -1,
                }
            }
            // Puppet's PuppetProc#arity: the required parameters, negative (one more)
            // when an optional or captures-rest parameter follows.
            ProcBody::Foreign => match it.scope.block_params() {
                Some((min, Some(max))) if max == min => min as i64,
                Some((min, _)) => -(min as i64) - 1,
                None => p.arity(),
            },
            _ => p.arity(),
        })),
        "parameters" => Ok(RValue::array(match &p.body {
            ProcBody::Block(b) => b
                .params
                .names()
                .into_iter()
                .map(|n| {
                    RValue::array(vec![
                        RValue::sym(if p.lambda { "req" } else { "opt" }),
                        RValue::sym(&n),
                    ])
                })
                .collect(),
            _ => Vec::new(),
        })),
        "name" | "owner" | "receiver" => Ok(match (&p.body, name) {
            (ProcBody::Method(_, n), "name") => RValue::sym(n),
            (ProcBody::Method(r, _), "receiver") => r.clone(),
            (ProcBody::Method(r, n), "owner") => {
                let (r, n) = (r.clone(), n.clone());
                RValue::Module(match it.find_user_method(&r, &n) {
                    Some((_, owner)) => owner,
                    None => it.class_of(&r),
                })
            }
            _ => {
                return raise(
                    "NoMethodError",
                    format!("undefined method `{name}' for #<Proc>"),
                    pos,
                )
            }
        }),
        "source_location" => Ok(RValue::Nil),
        "curry" => {
            argc(&args, 0, 1, pos)?;
            let arity = p.arity();
            let n = match args.first() {
                Some(v) => {
                    let n = crate::methods::int_arg(v, pos)?;
                    let (min, max) = if arity >= 0 {
                        (arity, Some(arity))
                    } else {
                        (-arity - 1, None)
                    };
                    if p.lambda && (n < min || max.is_some_and(|m| n != m)) {
                        let expected = match max {
                            Some(m) => m.to_string(),
                            None => format!("{min}+"),
                        };
                        return raise(
                            "ArgumentError",
                            format!("wrong number of arguments (given {n}, expected {expected})"),
                            pos,
                        );
                    }
                    n.max(0) as usize
                }
                None if arity >= 0 => arity as usize,
                None => (-arity - 1) as usize,
            };
            let c = it.make_proc_of(ProcBody::Curry(p.clone(), n, Vec::new()), p.lambda);
            Ok(RValue::Proc(c))
        }
        "unbind" | "bind" => unsupported(format!("Method#{name}"), pos),
        _ => match common(it, &recv, name, &args, block, pos) {
            Some(r) => r,
            None => raise(
                "NoMethodError",
                format!("undefined method `{name}' for {}", value::inspect(&recv)),
                pos,
            ),
        },
    }
}

/// Calls a curried proc (`proc.curry`): with all its arguments, the proc runs; with fewer,
/// a curried proc that has them.
pub(crate) fn curry_call(
    it: &mut Interp,
    this: &Blk,
    inner: &Blk,
    n: usize,
    given: &[RValue],
    args: Vec<RValue>,
    pos: Pos,
) -> R {
    let mut all = given.to_vec();
    all.extend(args);
    if all.len() >= n {
        let r = it.call_block_as(inner, all, None, None, false, None, pos);
        return match r {
            Err(Ctrl::Break(v)) if inner.lambda => Ok(v),
            other => other,
        };
    }
    it.charge(all.len() * 16, pos)?;
    let c = it.make_proc_of(ProcBody::Curry(inner.clone(), n, all), this.lambda);
    Ok(RValue::Proc(c))
}

/// `super` reaching past the user methods: the built-in ancestor's native method.
pub(crate) fn super_native(
    it: &mut Interp,
    recv: RValue,
    name: &str,
    args: Vec<RValue>,
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    match name {
        "method_missing" => {
            let m = args.first().map(to_s).unwrap_or_default();
            raise(
                "NoMethodError",
                format!(
                    "undefined method `{m}' for {}",
                    crate::methods::describe(&recv)
                ),
                pos,
            )
        }
        "respond_to_missing?" => Ok(RValue::Bool(false)),
        "inherited" | "included" | "extended" | "method_added" => Ok(RValue::Nil),
        "initialize" => match &recv {
            RValue::Object(o) if matches!(&*o.data.borrow(), ObjData::Exception(_)) => {
                *o.data.borrow_mut() = ObjData::Exception(args.first().cloned());
                Ok(RValue::Nil)
            }
            RValue::Object(o) => {
                let o = o.clone();
                match crate::puppet::object_method(it, &recv, &o, name, &args, block, pos) {
                    Some(r) => r,
                    None => Ok(RValue::Nil),
                }
            }
            _ => Ok(RValue::Nil),
        },
        _ => it.send_native(recv, name, args, block, pos, true),
    }
}

/// The method `alias_method` gets for a native method: a forwarder by name.
pub(crate) fn native_alias(old: &str) -> Option<Method> {
    let _ = old;
    None
}

/// Kernel's functions: private methods of every object (`Integer(x)`, `format`...).
pub(crate) const KERNEL_FUNCTIONS: &[&str] = &[
    "raise",
    "fail",
    "require",
    "require_relative",
    "load",
    "lambda",
    "proc",
    "block_given?",
    "catch",
    "throw",
    "format",
    "sprintf",
    "puts",
    "print",
    "p",
    "pp",
    "warn",
    "Array",
    "Integer",
    "Float",
    "String",
    "Hash",
    "loop",
    "caller",
    "__dir__",
    "_",
    "n_",
    "binding",
    "eval",
    "system",
    "exec",
    "sleep",
    "rand",
    "exit",
    "abort",
    "at_exit",
    "gets",
    "open",
];

/// Whether a value answers a method natively.
pub(crate) fn native_responds(it: &mut Interp, v: &RValue, name: &str, private: bool) -> bool {
    if private && KERNEL_FUNCTIONS.contains(&name) {
        return true;
    }
    if let (RValue::Scope, Some(f)) = (v, name.strip_prefix("function_")) {
        return crate::puppet::has_3x_function(it, f);
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
        "send",
        "public_send",
        "__send__",
        "method",
        "tap",
        "then",
        "object_id",
        "instance_variable_get",
        "instance_variable_set",
        "instance_variables",
        "instance_variable_defined?",
        "singleton_methods",
        "itself",
        "extend",
        "instance_eval",
        "instance_exec",
        "singleton_class",
        "!",
        "===",
        "=~",
        "define_singleton_method",
        "display",
        "to_yaml",
    ];
    match v {
        RValue::Object(o) => {
            if COMMON.contains(&name) {
                return true;
            }
            if matches!(&*o.data.borrow(), ObjData::Exception(_))
                && matches!(
                    name,
                    "message"
                        | "backtrace"
                        | "full_message"
                        | "set_backtrace"
                        | "cause"
                        | "exception"
                )
            {
                return true;
            }
            if private && name == "initialize" {
                return true;
            }
            crate::puppet::object_responds(it, o, name)
        }
        RValue::Module(m) => {
            if COMMON.contains(&name) {
                return true;
            }
            let m = m.clone();
            if matches!(
                name,
                "new"
                    | "name"
                    | "ancestors"
                    | "superclass"
                    | "include"
                    | "include?"
                    | "instance_methods"
                    | "method_defined?"
                    | "const_get"
                    | "const_defined?"
                    | "constants"
                    | "class_eval"
                    | "module_eval"
                    | "define_method"
                    | "attr_accessor"
                    | "attr_reader"
                    | "attr_writer"
                    | "instance_method"
                    | "alias_method"
                    | "private"
                    | "public"
            ) {
                return true;
            }
            let mut cur = Some(m.clone());
            while let Some(c) = cur {
                if crate::methods::class_responds(&c.name(), name)
                    || crate::puppet::module_responds(it, &c.name(), name)
                {
                    return true;
                }
                cur = c.superclass();
            }
            false
        }
        RValue::Proc(_) => {
            COMMON.contains(&name)
                || matches!(
                    name,
                    "call" | "arity" | "lambda?" | "to_proc" | "parameters" | "yield" | "[]"
                )
        }
        _ => crate::methods::responds_to(v, name),
    }
}

/// Builds a hash value from pairs.
pub(crate) fn hash_of(pairs: Vec<(RValue, RValue)>) -> RValue {
    let mut h = RHash::default();
    for (k, v) in pairs {
        h.insert(k, v);
    }
    RValue::hash(h)
}

fn struct_members(it: &mut Interp, recv: &RValue) -> (Vec<String>, bool) {
    let c = match recv {
        RValue::Object(o) => o.class.clone(),
        other => it.class_of(other),
    };
    for m in c.ancestors() {
        if let Some(RValue::Array(a)) = m.ivars.borrow().get("__members__") {
            let kw = matches!(
                m.ivars.borrow().get("__keyword_init__"),
                Some(RValue::Bool(true))
            );
            return (a.borrow().iter().map(to_s).collect(), kw);
        }
    }
    (Vec::new(), false)
}

fn struct_init(it: &mut Interp, recv: &RValue, args: Vec<RValue>, _b: Option<&Blk>, pos: Pos) -> R {
    let (members, kw) = struct_members(it, recv);
    if args.len() > members.len() {
        return raise("ArgumentError", "struct size differs", pos);
    }
    if kw {
        let given = match args.first() {
            Some(RValue::Hash(h)) => h.borrow().pairs(),
            None => Vec::new(),
            _ => return raise("ArgumentError", "wrong number of arguments", pos),
        };
        for m in &members {
            it.ivar_set_on(recv, m, RValue::Nil, pos)?;
        }
        for (k, v) in given {
            let k = to_s(&k);
            if !members.contains(&k) {
                return raise("ArgumentError", format!("unknown keywords: {k}"), pos);
            }
            it.ivar_set_on(recv, &k, v, pos)?;
        }
        return Ok(RValue::Nil);
    }
    for (i, m) in members.iter().enumerate() {
        it.ivar_set_on(recv, m, args.get(i).cloned().unwrap_or(RValue::Nil), pos)?;
    }
    Ok(RValue::Nil)
}

fn struct_to_a(it: &mut Interp, recv: &RValue, _a: Vec<RValue>, _b: Option<&Blk>, _pos: Pos) -> R {
    let (members, _) = struct_members(it, recv);
    Ok(RValue::array(
        members.iter().map(|m| it.ivar_of(recv, m)).collect(),
    ))
}

/// `Struct#each`: the values in member order (an Enumerator without a block).
fn struct_each(it: &mut Interp, recv: &RValue, a: Vec<RValue>, b: Option<&Blk>, pos: Pos) -> R {
    let values = struct_to_a(it, recv, a, None, pos)?;
    match b {
        Some(b) => {
            crate::methods::call_method(it, values, "each", vec![], Some(b), pos)?;
            Ok(recv.clone())
        }
        None => Ok(make_enumerator(it, values, "each", Vec::new())),
    }
}

fn struct_size(it: &mut Interp, recv: &RValue, _a: Vec<RValue>, _b: Option<&Blk>, _pos: Pos) -> R {
    let (members, _) = struct_members(it, recv);
    Ok(RValue::Int(members.len() as i64))
}

fn struct_values_at(
    it: &mut Interp,
    recv: &RValue,
    a: Vec<RValue>,
    _b: Option<&Blk>,
    pos: Pos,
) -> R {
    let values = struct_to_a(it, recv, Vec::new(), None, pos)?;
    crate::methods::call_method(it, values, "values_at", a, None, pos)
}

/// `Struct#dig`: the member (by name or index), then `dig` of the rest on it.
fn struct_dig(it: &mut Interp, recv: &RValue, a: Vec<RValue>, _b: Option<&Blk>, pos: Pos) -> R {
    let mut rest = a.into_iter();
    let Some(first) = rest.next() else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (given 0, expected 1+)",
            pos,
        );
    };
    let v = struct_index(it, recv, vec![first], None, pos)?;
    let rest: Vec<RValue> = rest.collect();
    if rest.is_empty() || matches!(v, RValue::Nil) {
        return Ok(v);
    }
    crate::methods::call_method(it, v, "dig", rest, None, pos)
}

fn struct_to_h(it: &mut Interp, recv: &RValue, _a: Vec<RValue>, _b: Option<&Blk>, _pos: Pos) -> R {
    let (members, _) = struct_members(it, recv);
    Ok(hash_of(
        members
            .iter()
            .map(|m| (RValue::sym(m), it.ivar_of(recv, m)))
            .collect(),
    ))
}

fn struct_members_m(
    it: &mut Interp,
    recv: &RValue,
    _a: Vec<RValue>,
    _b: Option<&Blk>,
    _pos: Pos,
) -> R {
    let (members, _) = struct_members(it, recv);
    Ok(RValue::array(
        members.iter().map(|m| RValue::sym(m)).collect(),
    ))
}

fn struct_index(it: &mut Interp, recv: &RValue, a: Vec<RValue>, _b: Option<&Blk>, pos: Pos) -> R {
    let (members, _) = struct_members(it, recv);
    let key = match a.first() {
        Some(RValue::Int(i)) => members.get(*i as usize).cloned(),
        Some(k) => Some(to_s(k)),
        None => None,
    };
    match key.filter(|k| members.contains(k)) {
        Some(k) => {
            if a.len() == 2 {
                it.ivar_set_on(recv, &k, a[1].clone(), pos)?;
                Ok(a[1].clone())
            } else {
                Ok(it.ivar_of(recv, &k))
            }
        }
        None => raise("NameError", "no member in struct", pos),
    }
}

fn struct_eq(it: &mut Interp, recv: &RValue, a: Vec<RValue>, _b: Option<&Blk>, pos: Pos) -> R {
    let Some(other) = a.first() else {
        return Ok(RValue::Bool(false));
    };
    let same_class = matches!((recv, other), (RValue::Object(x), RValue::Object(y)) if Rc::ptr_eq(&x.class, &y.class));
    if !same_class {
        return Ok(RValue::Bool(false));
    }
    let x = struct_to_a(it, recv, Vec::new(), None, pos)?;
    let y = struct_to_a(it, other, Vec::new(), None, pos)?;
    Ok(RValue::Bool(value::equal(&x, &y)))
}

fn struct_inspect(
    it: &mut Interp,
    recv: &RValue,
    _a: Vec<RValue>,
    _b: Option<&Blk>,
    _pos: Pos,
) -> R {
    let (members, _) = struct_members(it, recv);
    let cname = match recv {
        RValue::Object(o) => o.class.name(),
        _ => String::new(),
    };
    let parts: Vec<String> = members
        .iter()
        .map(|m| format!("{m}={}", value::inspect(&it.ivar_of(recv, m))))
        .collect();
    Ok(RValue::string(
        if cname.starts_with('#') || cname.is_empty() {
            format!("#<struct {}>", parts.join(", "))
        } else {
            format!("#<struct {cname} {}>", parts.join(", "))
        },
    ))
}

/// `Struct.new(:a, :b, keyword_init: true) { ... }`.
pub(crate) fn struct_new(it: &mut Interp, args: &[RValue], block: Option<&Blk>, pos: Pos) -> R {
    let mut members = Vec::new();
    let mut kw = false;
    for a in args {
        match a {
            RValue::Sym(s) => members.push(RValue::sym(s)),
            RValue::Hash(h) => {
                kw = h
                    .borrow()
                    .get(&RValue::sym("keyword_init"))
                    .is_some_and(|v| v.truthy());
            }
            RValue::Str(_) => return unsupported("Struct.new with a class name", pos),
            other => {
                return raise(
                    "TypeError",
                    format!("{} is not a symbol", value::inspect(other)),
                    pos,
                )
            }
        }
    }
    let sup = it.module_by_path("Struct");
    let c = it.new_module("", true, sup);
    c.ivars
        .borrow_mut()
        .insert("__members__".into(), RValue::array(members.clone()));
    c.ivars
        .borrow_mut()
        .insert("__keyword_init__".into(), RValue::Bool(kw));
    let natives: [(&str, crate::object::NativeFn); 15] = [
        ("initialize", struct_init),
        ("to_a", struct_to_a),
        ("deconstruct", struct_to_a),
        ("values", struct_to_a),
        ("to_h", struct_to_h),
        ("members", struct_members_m),
        ("[]", struct_index),
        ("==", struct_eq),
        ("eql?", struct_eq),
        ("inspect", struct_inspect),
        ("each", struct_each),
        ("size", struct_size),
        ("length", struct_size),
        ("values_at", struct_values_at),
        ("dig", struct_dig),
    ];
    for (n, f) in natives {
        c.methods.borrow_mut().insert(
            n.to_string(),
            Entry {
                method: Method::Native(f),
                private: false,
            },
        );
    }
    c.methods.borrow_mut().insert(
        "[]=".into(),
        Entry {
            method: Method::Native(struct_index),
            private: false,
        },
    );
    c.methods.borrow_mut().insert(
        "to_s".into(),
        Entry {
            method: Method::Native(struct_inspect),
            private: false,
        },
    );
    for m in &members {
        let n = to_s(m);
        c.methods.borrow_mut().insert(
            n.clone(),
            Entry {
                method: Method::Reader(n.clone()),
                private: false,
            },
        );
        c.methods.borrow_mut().insert(
            format!("{n}="),
            Entry {
                method: Method::Writer(n.clone()),
                private: false,
            },
        );
    }
    if let Some(b) = block {
        class_body(it, &c, b, pos)?;
    }
    Ok(RValue::Module(c))
}

/// An `Encoding` object (`"x".encoding`): the one `Encoding::UTF_8` (...) holds, as Ruby's
/// encodings are one object each.
pub(crate) fn encoding_object(it: &mut Interp, name: &str) -> RValue {
    let class = it
        .module_by_path("Encoding")
        .unwrap_or_else(|| it.object_class());
    let named = |v: &RValue| match v {
        RValue::Object(o) => o
            .ivars
            .borrow()
            .get("name")
            .is_some_and(|n| matches!(n, RValue::Str(s) if s.borrow().as_str() == name)),
        _ => false,
    };
    let known = class.consts.borrow().values().find(|v| named(v)).cloned();
    if let Some(v) = known {
        return v;
    }
    let o = Rc::new(Object::new(class));
    o.ivars
        .borrow_mut()
        .insert("name".into(), RValue::str(name));
    it.track_object(&o);
    RValue::Object(o)
}

/// `eval(code, nil, file, line)`, `instance_eval(code, file, line)`, `class_eval(code, file,
/// line)`: `rest` is the optional file and line.
fn eval_string_call(
    it: &mut Interp,
    code: &RValue,
    rest: &[RValue],
    with: Option<(RValue, Rc<Module>)>,
    pos: Pos,
) -> R {
    let (code, file, line) = eval_string_args(code, rest, pos)?;
    it.eval_string(&code, file.as_deref(), line, with, pos)
}

/// The code, file and line of an `eval` call (`rest`: the arguments after the code, and
/// after the binding of `Kernel#eval`).
pub(crate) fn eval_string_args(
    code: &RValue,
    rest: &[RValue],
    pos: Pos,
) -> Result<(String, Option<String>, u32), Ctrl> {
    let code = to_s(code);
    let file = match rest.first() {
        None | Some(RValue::Nil) => None,
        Some(RValue::Str(f)) => Some(f.borrow().clone()),
        Some(other) => return crate::interp::no_implicit_conversion(other, "String", pos),
    };
    let line = match rest.get(1) {
        None | Some(RValue::Nil) => 1,
        Some(RValue::Int(n)) => u32::try_from(*n).unwrap_or(1),
        Some(other) => return crate::interp::no_implicit_conversion(other, "Integer", pos),
    };
    Ok((code, file, line))
}
