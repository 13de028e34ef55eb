//! The Puppet API that module Ruby code calls, as native methods of Puppet's classes:
//!
//! * 4.x functions: `Puppet::Functions.create_function` with its dispatch DSL (`dispatch`,
//!   `param`, `optional_param`, `repeated_param`, `required_repeated_param`, `block_param`,
//!   `optional_block_param`, `return_type`, `scope_param`, `argument_mismatch`,
//!   `local_types`), and a function's own methods (`call_function`, `closure_scope`, the
//!   dispatcher);
//! * 3.x functions: `Puppet::Parser::Functions.newfunction`, `.function`;
//! * logging (`Puppet.warning`, `debug`, ..., `deprecation_warning`, `warn_once`);
//! * the helpers modules use: `Puppet::Util::Package.versioncmp`,
//!   `Puppet::Util.absolute_path?`, `Puppet::Util.symbolizehash`, the type parser and calculator (`TypeParser`,
//!   `TypeCalculator.infer_set`/`instance?`, `TypeMismatchDescriber`, `TypeFactory`);
//! * the compiler as 3.x functions reach it (`compiler.environment`, `catalog`, `node`,
//!   `topscope`);
//! * Puppet values that have no Ruby counterpart (types, Sensitive...), seen from Ruby.
//!
//! What the code defined (functions here, resource types in `typedsl`) is kept in [`Ext`] for
//! the loaders to read. Commands (`Puppet::Util::Execution.execute`) are refused.

use crate::functions::{Dispatch, DispatchParam, ParamKind, V3Info};
use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::object::{Blk, Module, ObjData, Object};
use crate::value::{self, to_s, RValue};
use crate::Pos;
use puppet_types::{Type, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// A function the code defined.
#[derive(Debug, Clone)]
pub enum DefinedFunction {
    /// `newfunction`: its name, declarations and body.
    V3 {
        name: String,
        info: V3Info,
        block: Blk,
    },
    /// `create_function`: its name and class.
    V4 { name: String, class: Rc<Module> },
}

impl DefinedFunction {
    /// The function's name.
    pub fn name(&self) -> &str {
        match self {
            DefinedFunction::V3 { name, .. } | DefinedFunction::V4 { name, .. } => name,
        }
    }
}

/// What the Puppet API keeps while code runs: the definitions the code made.
#[derive(Debug, Default)]
pub struct Ext {
    /// Functions, in definition order.
    pub functions: Vec<DefinedFunction>,
    /// Resource types (`Puppet::Type.newtype`), in definition order.
    pub types: Vec<Rc<RefCell<crate::typedsl::TypeRecord>>>,
    /// What `Facter.value` answers while type files load (the reading host's facts);
    /// `None`: `Facter` is not defined.
    pub host_facts: Option<std::sync::Arc<indexmap::IndexMap<smol_str::SmolStr, Value>>>,
}

/// The dispatches of a 4.x function class.
#[derive(Debug, Default)]
pub(crate) struct FunctionRecord {
    pub dispatches: Vec<Dispatch>,
    pub local_types: Vec<(String, String)>,
}

/// The record of a function class.
pub(crate) fn function_record(class: &Rc<Module>) -> Option<Rc<RefCell<FunctionRecord>>> {
    for m in class.ancestors() {
        let extra = m.extra.borrow().clone();
        if let Some(e) = extra {
            if let Ok(r) = e.downcast::<RefCell<FunctionRecord>>() {
                return Some(r);
            }
        }
    }
    None
}

/// A new instance of a function class. Puppet's loader makes it with `new(nil, loader)`:
/// an `initialize` the function's code defines runs with those two (no closure scope:
/// `closure_scope` then answers the compile's, as here; the loader of its module), and its
/// `super` reaches Puppet's, which keeps them.
pub(crate) fn new_function_instance(it: &mut Interp, class: &Rc<Module>) -> R {
    let o = Rc::new(Object::new(class.clone()));
    it.track_object(&o);
    let obj = RValue::Object(o);
    if let Some((e, owner)) = it.find_user_method(&obj, "initialize") {
        let loader = function_loader(it);
        let m = e.method.clone();
        it.invoke(
            obj.clone(),
            &m,
            owner,
            "initialize",
            vec![RValue::Nil, loader],
            None,
            None,
            Pos::default(),
        )?;
    }
    Ok(obj)
}

/// The loader a module's function is given (`loader`, the second argument of its
/// `initialize`): its module's, which sees every function of the environment.
fn function_loader(it: &mut Interp) -> RValue {
    it.new_native(
        "Puppet::Pops::Loader::BaseLoader",
        LoaderObj { public_only: false },
    )
}

/// Calls the Puppet lambda given to the function being run.
pub(crate) fn call_foreign_block(it: &mut Interp, args: Vec<RValue>, pos: Pos) -> R {
    let mut pargs = Vec::with_capacity(args.len());
    for a in &args {
        match value::to_puppet(a) {
            Ok(v) => pargs.push(v),
            Err(e) => return unsupported(format!("argument to a Puppet lambda: {e}"), pos),
        }
    }
    match it.scope.call_block(pargs) {
        Ok(v) => Ok(value::from_puppet(&v)),
        Err(msg) => raise("Puppet::ParseError", msg, pos),
    }
}

pub(crate) fn native<T: 'static>(o: &Rc<Object>) -> Option<Rc<T>> {
    match &*o.data.borrow() {
        ObjData::Native(d) => d.clone().downcast::<T>().ok(),
        _ => None,
    }
}

/// Whether `o` is the compile's environment object.
pub(crate) fn is_environment(o: &Rc<Object>) -> bool {
    native::<EnvironmentObj>(o).is_some()
}

fn inherits_name(m: &Rc<Module>, name: &str) -> bool {
    m.ancestors().iter().any(|a| a.name_is(name))
}

fn type_text(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    match v {
        RValue::Str(s) => Ok(s.borrow().clone()),
        RValue::Puppet(p) => match &**p {
            Value::Type(t) => Ok(t.to_string()),
            other => raise(
                "ArgumentError",
                format!(
                    "Parameter 'type' must be a String reference to a Puppet Data Type. Got {}",
                    crate::value::RValue::Puppet(Rc::new(other.clone())).class_name()
                ),
                pos,
            ),
        },
        other => raise(
            "ArgumentError",
            format!(
                "Parameter 'type' must be a String reference to a Puppet Data Type. Got {}",
                other.class_name()
            ),
            pos,
        ),
    }
}

fn param_name(v: &RValue, pos: Pos) -> Result<String, Ctrl> {
    match v {
        RValue::Sym(s) => Ok(s.to_string()),
        other => raise(
            "ArgumentError",
            format!(
                "Parameter name argument must be a Symbol. Got {}",
                other.class_name()
            ),
            pos,
        ),
    }
}

/// The dispatch builder's state.
#[derive(Debug, Default)]
struct Builder {
    d: RefCell<Dispatch>,
}

/// The local type aliases builder's state.
#[derive(Debug, Default)]
struct AliasBuilder {
    aliases: RefCell<Vec<(String, String)>>,
}

/// `Puppet::Parser::Functions.autoloader`: loads 3.x functions by name.
#[derive(Debug, Default)]
struct Autoloader3x;

/// Whether the 3.x function `name` is defined in this run, loading its file (`load`).
fn load_3x(it: &mut Interp, name: &str, load: bool, pos: Pos) -> R {
    let defined = |it: &Interp| {
        it.ext
            .functions
            .iter()
            .any(|f| matches!(f, DefinedFunction::V3 { name: n, .. } if n == name))
    };
    if defined(it) || !load {
        return Ok(RValue::Bool(defined(it)));
    }
    let key = format!("puppet/parser/functions/{name}");
    if let Some(r) = it.sources.find_lib(&key) {
        let (path, prog) = r.map_err(|e| {
            Ctrl::Raise(Box::new(crate::interp::Exc {
                class: "SyntaxError".into(),
                message: e.to_string(),
                pos,
                file: None,
                obj: None,
            }))
        })?;
        if it.loaded.insert(path) {
            it.run_program(&prog)?;
        }
    }
    Ok(RValue::Bool(defined(it)))
}

/// `Puppet.settings`.
#[derive(Debug, Default)]
struct SettingsObj;

/// The compile's environment (`Puppet.lookup(:current_environment)`, `scope.environment`):
/// its `name` (a Symbol), `to_s` and `to_sym`; what else it holds (module path, manifest) is
/// not reachable from here.
#[derive(Debug, Default)]
struct EnvironmentObj;

/// The compiler as 3.x functions reach it: its environment, catalog and node
/// (`compiler.environment`, `compiler.catalog`, `compiler.node`).
#[derive(Debug, Default)]
struct CompilerObj;

/// The environment's loaders (`compiler.loaders`, `Puppet.lookup(:loaders)`): each of its
/// loaders ([`LoaderObj`]) finds the environment's functions.
#[derive(Debug, Default)]
struct LoadersObj;

/// A loader of the environment (`loaders.private_environment_loader` and its siblings):
/// `load(:function, name)` is a function object when the loader sees that function, else
/// nil; other kinds of entity are not offered. The private loader sees every function; the
/// public one (`public_only`) not the modules'.
#[derive(Debug, Default)]
struct LoaderObj {
    public_only: bool,
}

/// A function a loader found: callers (stdlib's `has_function`) only ask whether there is
/// one.
#[derive(Debug, Default)]
struct LoadedFunction;

/// The node being compiled (`compiler.node`): its name and environment.
#[derive(Debug, Default)]
struct NodeObj;

/// The compile's top scope (`compiler.topscope`): its variables, as `::name` reads them.
#[derive(Debug, Default)]
struct TopScopeObj;

/// `scope.compiler` (a 3.x function's `compiler`): [`CompilerObj`].
pub(crate) fn current_compiler(it: &mut Interp) -> R {
    Ok(it.new_native("Puppet::Parser::Compiler", CompilerObj))
}

/// [`EnvironmentObj`] as a Ruby object, when the compile says which environment it is.
pub(crate) fn current_environment(it: &mut Interp, pos: Pos) -> R {
    if it.scope.setting("environment").is_none() {
        return unsupported("the current environment (no compile to ask)", pos);
    }
    Ok(it.new_native("Puppet::Node::Environment", EnvironmentObj))
}

/// The settings whose values Ruby sees as Symbols (`Puppet[:strict]` is `:warning`;
/// manifests see the name): Puppet's symbolic enums, termini and `certificate_revocation`
/// (puppet-eval's tests check this list against its settings table).
pub const SYMBOL_SETTINGS: &[&str] = &[
    "strict",
    "certificate_revocation",
    "node_terminus",
    "node_cache_terminus",
    "data_binding_terminus",
    "catalog_terminus",
    "catalog_cache_terminus",
    "default_file_terminus",
    "storeconfigs_backend",
];

/// A Puppet setting as Ruby sees it: the compile's value (its settings table), else, with
/// no compile to ask, Puppet 7.23's default for the two settings modules read most.
fn setting(it: &mut Interp, name: &str, pos: Pos) -> R {
    let name = name.trim_start_matches(':');
    let v = match it.scope.setting(name) {
        Some(v) => v,
        None => match name {
            "strict" => Value::string("warning"),
            "strict_variables" => Value::Boolean(false),
            _ => {
                return unsupported(
                    format!("the Puppet setting '{name}' (Puppet[:{name}])"),
                    pos,
                )
            }
        },
    };
    Ok(match &v {
        Value::String(s) if SYMBOL_SETTINGS.contains(&name) => RValue::sym(s),
        _ => value::from_puppet(&v),
    })
}

/// A parsed Puppet type parser (`TypeParser.singleton`).
#[derive(Debug, Default)]
struct TypeParserObj;

fn builder_method(
    it: &mut Interp,
    b: &Builder,
    name: &str,
    args: &[RValue],
    pos: Pos,
) -> Option<R> {
    let _ = it;
    let r = (|| {
        let mut d = b.d.borrow_mut();
        let after_block = d.block.is_some();
        let after_repeated = d
            .params
            .last()
            .is_some_and(|p| matches!(p.kind, ParamKind::Repeated | ParamKind::RequiredRepeated));
        let push = |d: &mut Dispatch, kind: ParamKind| -> Result<(), Ctrl> {
            if args.len() != 2 {
                return raise(
                    "ArgumentError",
                    format!(
                        "wrong number of arguments (given {}, expected 2)",
                        args.len()
                    ),
                    pos,
                );
            }
            if after_block {
                return raise(
                    "ArgumentError",
                    "Parameters cannot be added after a block parameter",
                    pos,
                );
            }
            if after_repeated {
                return raise(
                    "ArgumentError",
                    "Parameters cannot be added after a repeated parameter",
                    pos,
                );
            }
            let ty = type_text(&args[0], pos)?;
            let name = param_name(&args[1], pos)?;
            let optional_seen = d.params.iter().any(|p| p.kind == ParamKind::Optional);
            if optional_seen && matches!(kind, ParamKind::Required) {
                return raise(
                    "ArgumentError",
                    "A required parameter cannot be added after an optional parameter",
                    pos,
                );
            }
            if optional_seen && matches!(kind, ParamKind::RequiredRepeated) {
                return raise(
                    "ArgumentError",
                    "A required repeated parameter cannot be added after an optional parameter",
                    pos,
                );
            }
            d.params.push(DispatchParam { ty, name, kind });
            Ok(())
        };
        match name {
            "param" | "required_param" => push(&mut d, ParamKind::Required)?,
            "optional_param" => push(&mut d, ParamKind::Optional)?,
            "repeated_param" | "optional_repeated_param" => push(&mut d, ParamKind::Repeated)?,
            "required_repeated_param" => push(&mut d, ParamKind::RequiredRepeated)?,
            "block_param" | "required_block_param" | "optional_block_param" => {
                let (ty, bname) = match args {
                    [] => ("Callable".to_string(), "block".to_string()),
                    [n] => ("Callable".to_string(), param_name(n, pos)?),
                    [t, n] => (type_text(t, pos)?, param_name(n, pos)?),
                    _ => {
                        return raise(
                            "ArgumentError",
                            format!(
                                "block_param accepts max 2 arguments (type, name), got {}.",
                                args.len()
                            ),
                            pos,
                        )
                    }
                };
                if d.block.is_some() {
                    return raise("ArgumentError", "Attempt to redefine block", pos);
                }
                d.block = Some((ty, bname, name == "optional_block_param"));
            }
            "return_type" => {
                let [t] = args else {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (expected 1)",
                        pos,
                    );
                };
                d.return_type = Some(type_text(t, pos)?);
            }
            "scope_param" => d.scope_param = true,
            "script_compiler_param" | "cache_param" | "compiler_param" | "pal_compiler_param" => {
                return unsupported(format!("the dispatch injection `{name}'"), pos)
            }
            _ => return Ok(None),
        }
        Ok(Some(RValue::Nil))
    })();
    match r {
        Ok(None) => None,
        Ok(Some(v)) => Some(Ok(v)),
        Err(e) => Some(Err(e)),
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
    if let Some(r) = crate::catalog::object_method(it, o, name, args, pos) {
        return Some(r);
    }
    // `Puppet.features`: what the Puppet server compiling the catalog has. A feature
    // query (`augeas?`, `root?`, `microsoft_windows?`...) is false, `posix?` true: no
    // optional library is loaded here, and the server is not Windows nor root.
    if o.class.name_is("Puppet::Util::Feature") {
        return match name {
            "posix?" => Some(Ok(RValue::Bool(true))),
            "add" | "load" => Some(Ok(RValue::Nil)),
            n if n.ends_with('?') => Some(Ok(RValue::Bool(false))),
            _ => None,
        };
    }
    if let Some(b) = native::<Builder>(o) {
        return builder_method(it, &b, name, args, pos);
    }
    if crate::lookup_context::is_context(o) {
        return crate::lookup_context::method(it, name, args, block, pos);
    }
    if let Some(a) = native::<AliasBuilder>(o) {
        if name == "type" {
            return Some((|| {
                let [RValue::Str(s)] = args else {
                    return raise(
                        "ArgumentError",
                        "Expected a type alias assignment on the form 'AliasType = T'",
                        pos,
                    );
                };
                let s = s.borrow().clone();
                match s.split_once('=') {
                    Some((n, t)) if !n.trim().is_empty() && !t.trim().is_empty() => {
                        a.aliases
                            .borrow_mut()
                            .push((n.trim().to_string(), t.trim().to_string()));
                        Ok(RValue::Nil)
                    }
                    _ => raise(
                        "ArgumentError",
                        format!("Expected a type alias assignment on the form 'AliasType = T', got '{s}'.\nParse errors may be reported above."),
                        pos,
                    ),
                }
            })());
        }
        return None;
    }
    if native::<Autoloader3x>(o).is_some() {
        if matches!(name, "load" | "loaded?") {
            let n = args.first().map(to_s).unwrap_or_default();
            return Some(load_3x(it, &n, name == "load", pos));
        }
        return None;
    }
    if native::<EnvironmentObj>(o).is_some() {
        let env = || match it.scope.setting("environment") {
            Some(Value::String(s)) => s.to_string(),
            _ => String::new(),
        };
        return match name {
            "name" | "to_sym" => Some(Ok(RValue::sym(&env()))),
            "to_s" => Some(Ok(RValue::str(&env()))),
            _ => crate::environment::environment_method(it, name, args, block, pos),
        };
    }
    if let Some(m) = native::<crate::environment::ModuleObj>(o) {
        return crate::environment::module_method(it, o, &m, name, args, pos);
    }
    if native::<crate::environment::EnvironmentsObj>(o).is_some() {
        return crate::environment::environments_method(it, name, args, pos);
    }
    if native::<CompilerObj>(o).is_some() {
        return match name {
            "environment" => Some(current_environment(it, pos)),
            "catalog" => Some(Ok(crate::catalog::catalog_object(it))),
            "findresource" => crate::catalog::scope_method(it, name, args, pos),
            "loaders" => Some(Ok(it.new_native("Puppet::Pops::Loaders", LoadersObj))),
            "node" => Some(Ok(it.new_native("Puppet::Node", NodeObj))),
            "topscope" => Some(Ok(it.new_native("Puppet::Parser::Scope", TopScopeObj))),
            _ => None,
        };
    }
    if native::<LoadersObj>(o).is_some() {
        return match name {
            "private_environment_loader" | "public_environment_loader" => {
                let public_only = name != "private_environment_loader";
                Some(Ok(it.new_native(
                    "Puppet::Pops::Loader::BaseLoader",
                    LoaderObj { public_only },
                )))
            }
            _ => None,
        };
    }
    if let Some(loader) = native::<LoaderObj>(o) {
        return match (name, args) {
            ("load", [kind, n]) if to_s(kind) == "function" => {
                let n = to_s(n);
                Some(match it.scope.function_exists(&n, loader.public_only) {
                    Ok(true) => {
                        Ok(it.new_native("Puppet::Pops::Functions::Function", LoadedFunction))
                    }
                    Ok(false) => Ok(RValue::Nil),
                    Err(why) => unsupported(format!("loader.load(:function) ({why})"), pos),
                })
            }
            ("load", _) => Some(unsupported(
                "loader.load of anything but a function".to_string(),
                pos,
            )),
            _ => None,
        };
    }
    if native::<TopScopeObj>(o).is_some() {
        // The calling scope's variable methods, with a plain name read in the top scope (a
        // miss is reported under the name as given).
        let Some(given @ RValue::Str(_)) = args.first() else {
            return None;
        };
        let given = to_s(given);
        let read = match given.contains("::") {
            true => given.clone(),
            false => format!("::{given}"),
        };
        return it.variable_method(name, &read, &given, pos);
    }
    if native::<NodeObj>(o).is_some() {
        return match name {
            // The node's name: the compile's `certname` (the node it was asked for).
            "name" | "to_s" => Some(Ok(match it.scope.setting("certname") {
                Some(v) => value::from_puppet(&v),
                None => RValue::Nil,
            })),
            "environment" => Some(current_environment(it, pos)),
            _ => None,
        };
    }
    if let Some(f) = native::<FactObj>(o) {
        return match name {
            "name" => Some(Ok(RValue::str(&f.name))),
            "value" => Some(Ok(facter_value(it, &f.name))),
            _ => None,
        };
    }
    if native::<SettingsObj>(o).is_some() {
        if name == "[]" {
            let n = args.first().map(to_s).unwrap_or_default();
            return Some(setting(it, &n, pos));
        }
        return None;
    }
    if native::<TypeParserObj>(o).is_some() {
        if name == "parse" {
            return Some((|| {
                let Some(t) = args.first() else {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (given 0, expected 1..2)",
                        pos,
                    );
                };
                let text = to_s(t);
                let scope = &mut *it.scope;
                let _ = scope;
                match puppet_functions::parse_type(&text, &|_| None) {
                    Ok(t) => Ok(RValue::Puppet(Rc::new(Value::Type(t)))),
                    Err(e) => raise("Puppet::ParseError", e, pos),
                }
            })());
        }
        return None;
    }
    if let Some(class) = native::<Rc<Module>>(o) {
        // A function class's dispatcher.
        if name == "dispatch" {
            return Some(dispatch_call(it, &class, args, block, pos));
        }
        if name == "empty?" {
            let empty = function_record(&class).is_none_or(|r| r.borrow().dispatches.is_empty());
            return Some(Ok(RValue::Bool(empty)));
        }
        return None;
    }
    if inherits_name(&o.class, "Puppet::Pops::Functions::Function") {
        return function_instance_method(it, recv, o, name, args, block, pos);
    }
    if let Some(r) = crate::typedsl::object_method(it, recv, o, name, args, block, pos) {
        return Some(r);
    }
    None
}

fn function_instance_method(
    it: &mut Interp,
    recv: &RValue,
    o: &Rc<Object>,
    name: &str,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> Option<R> {
    Some(match name {
        "call_function" | "call_function_with_scope" | "internal_call_function" => (|| {
            let skip = usize::from(name != "call_function");
            let Some(f) = args.get(skip) else {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1+)",
                    pos,
                );
            };
            let fname = to_s(f);
            if let Some(b) = block {
                return call_ruby_function_with_block(
                    it,
                    &fname,
                    args[skip + 1..].to_vec(),
                    b,
                    pos,
                );
            }
            match it.puppet_function(&fname, args[skip + 1..].to_vec(), pos) {
                // Puppet's `internal_call_function` raises ArgumentError naming the caller
                // when no loader has the function (the evaluator's text for an unknown
                // function comes back through the scope).
                Err(Ctrl::Raise(e))
                    if e.class == "Puppet::ParseError"
                        && e.message == format!("Unknown function: '{fname}'.") =>
                {
                    raise(
                        "ArgumentError",
                        format!("Function {}(): Unknown function: '{fname}'", o.class.name()),
                        pos,
                    )
                }
                r => r,
            }
        })(),
        "closure_scope" => Ok(RValue::Scope),
        "call" => {
            // The default `call(scope, *args)`: the class's dispatcher.
            let class = o.class.clone();
            let rest = args.get(1..).map(|x| x.to_vec()).unwrap_or_default();
            dispatch_call(
                it,
                &class,
                &[recv.clone(), RValue::Scope, RValue::array(rest)],
                block,
                pos,
            )
        }
        "loader" => Ok(function_loader(it)),
        "script_compiler" | "cache" => unsupported(format!("the function API's `{name}'"), pos),
        _ => return None,
    })
}

/// `call_function(name, *args) { |...| ... }` with a Ruby block: Puppet hands the block to
/// the called function as it is, so a 4.x Ruby function that yields runs the block. The
/// function is found as Puppet's loader finds a Ruby function (`lib/puppet/functions/` +
/// its name with `::` as `/`, in the module path), its file runs in this interpreter (once)
/// and its dispatcher picks the dispatch as for any call. A function that is not a 4.x Ruby
/// function of a module (a Puppet language or built-in function) cannot take a Ruby block
/// here: an unsupported-construct error naming it.
pub(crate) fn call_ruby_function_with_block(
    it: &mut Interp,
    fname: &str,
    args: Vec<RValue>,
    block: &Blk,
    pos: Pos,
) -> R {
    let find = |it: &Interp| {
        it.ext.functions.iter().rev().find_map(|f| match f {
            DefinedFunction::V4 { name, class } if name == fname => Some(class.clone()),
            _ => None,
        })
    };
    let class = match find(it) {
        Some(c) => c,
        None => {
            let lib = format!("puppet/functions/{}", fname.replace("::", "/"));
            match it.sources.find_lib(&lib) {
                Some(Ok((path, prog))) if it.loaded.insert(path.clone()) => {
                    it.run_program(&prog)?;
                }
                Some(Err(e)) => return raise("SyntaxError", e.to_string(), pos),
                _ => {}
            }
            match find(it) {
                Some(c) => c,
                None => {
                    return unsupported(
                        format!("passing a Ruby block to the function '{fname}' (only a 4.x Ruby function of a module can take one here)"),
                        pos,
                    )
                }
            }
        }
    };
    let obj = new_function_instance(it, &class)?;
    dispatch_call(
        it,
        &class,
        &[obj, RValue::Scope, RValue::array(args)],
        Some(block),
        pos,
    )
}

/// `dispatcher.dispatch(instance, scope, args)`: the first dispatch whose parameters accept
/// the arguments, else Puppet's mismatch error.
fn dispatch_call(
    it: &mut Interp,
    class: &Rc<Module>,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let (Some(instance), Some(list)) = (args.first(), args.get(2)) else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (expected 3)",
            pos,
        );
    };
    let list: Vec<RValue> = match list {
        RValue::Array(a) => a.borrow().clone(),
        other => vec![other.clone()],
    };
    let Some(rec) = function_record(class) else {
        return raise("ArgumentError", "a function without dispatches", pos);
    };
    let (dispatches, locals) = {
        let r = rec.borrow();
        (r.dispatches.clone(), r.local_types.clone())
    };
    // Arguments that are not Puppet values (the scope object a function passes itself)
    // match only `Any`.
    let values: Vec<Option<Value>> = list.iter().map(|v| value::to_puppet(v).ok()).collect();
    for d in dispatches.iter().filter(|d| !d.mismatch) {
        if accepts(d, &values, block.is_some(), &locals) {
            let mut a = list.clone();
            if d.scope_param {
                a.insert(0, RValue::Scope);
            }
            return it.send(instance.clone(), &d.method, a, None, block, pos, true);
        }
    }
    // Puppet's mismatch text, through the registry's describer.
    let fname = class.name();
    let mut reg = puppet_functions::Registry::new();
    let mut b = reg.function(&fname);
    for (n, t) in &locals {
        b = b.local_type(n, t.as_str());
    }
    for d in dispatches.iter().filter(|d| !d.mismatch) {
        b = b.dispatch(
            crate::functions::signature_of(d),
            |_c: &mut dyn puppet_functions::CallContext, _a: puppet_functions::Args<'_>| {
                Ok(Value::Undef)
            },
        );
    }
    let plain: Vec<Value> = values
        .into_iter()
        .map(|v| v.unwrap_or(Value::Undef))
        .collect();
    let msg = match b.register() {
        Ok(()) => match reg.call(
            &mut puppet_functions::NullContext::default(),
            &fname,
            plain,
            None,
        ) {
            Err(e) => e.to_string(),
            Ok(_) => format!("'{fname}' rejected its arguments"),
        },
        Err(e) => e.to_string(),
    };
    raise("ArgumentError", msg, pos)
}

fn accepts(
    d: &Dispatch,
    values: &[Option<Value>],
    has_block: bool,
    locals: &[(String, String)],
) -> bool {
    let locals = locals.to_vec();
    let lookup = move |n: &str| -> Option<Type> {
        locals
            .iter()
            .find(|(a, _)| a == n)
            .and_then(|(_, t)| puppet_functions::parse_type(t, &|_| None).ok())
    };
    if !d.takes(values.len()) {
        return false;
    }
    for (i, v) in values.iter().enumerate() {
        let p = d.params.get(i).or_else(|| d.params.last());
        let Some(p) = p else {
            return false;
        };
        let Ok(t) = puppet_functions::parse_type(&p.ty, &lookup) else {
            return false;
        };
        let ok = match v {
            Some(v) => puppet_types::is_instance(&t, v),
            None => matches!(t, Type::Any),
        };
        if !ok {
            return false;
        }
    }
    match (&d.block, has_block) {
        (None, true) => false,
        (Some((_, _, optional)), false) => *optional,
        _ => true,
    }
}

/// Whether an object of Puppet's classes answers `name` natively.
pub(crate) fn object_responds(it: &mut Interp, o: &Rc<Object>, name: &str) -> bool {
    if inherits_name(&o.class, "Puppet::Pops::Functions::Function") {
        return matches!(name, "call_function" | "closure_scope" | "call");
    }
    crate::typedsl::object_responds(it, o, name)
}

/// The 3.x functions Puppet 7.23 itself ships (`lib/puppet/parser/functions`), besides the
/// log levels.
/// Puppet's 3.x functions that only raise `Error.is4x` (stubs that document 4.x
/// functions: lib/puppet/parser/functions/*.rb of Puppet 7.23).
const PUPPET_3X_STUBS_OF_4X: &[&str] = &[
    "assert_type",
    "binary_file",
    "break",
    "defined",
    "dig",
    "each",
    "epp",
    "filter",
    "find_file",
    "hiera",
    "hiera_array",
    "hiera_hash",
    "hiera_include",
    "inline_epp",
    "lest",
    "lookup",
    "map",
    "match",
    "new",
    "next",
    "reduce",
    "regsubst",
    "return",
    "reverse_each",
    "slice",
    "split",
    "step",
    "strftime",
    "then",
    "type",
    "with",
];

const PUPPET_3X_FUNCTIONS: &[&str] = &[
    "assert_type",
    "binary_file",
    "break",
    "contain",
    "create_resources",
    "defined",
    "dig",
    "digest",
    "each",
    "epp",
    "fail",
    "file",
    "filter",
    "find_file",
    "fqdn_rand",
    "generate",
    "hiera",
    "hiera_array",
    "hiera_hash",
    "hiera_include",
    "include",
    "inline_epp",
    "inline_template",
    "lest",
    "lookup",
    "map",
    "match",
    "md5",
    "new",
    "next",
    "realize",
    "reduce",
    "regsubst",
    "require",
    "return",
    "reverse_each",
    "scanf",
    "sha1",
    "sha256",
    "shellquote",
    "slice",
    "split",
    "sprintf",
    "step",
    "strftime",
    "tag",
    "tagged",
    "template",
    "then",
    "type",
    "versioncmp",
    "with",
];

/// Puppet's log levels, each also a 3.x function (`function_notice` ...).
pub(crate) const LOG_LEVELS: &[&str] = &[
    "warning", "debug", "info", "notice", "err", "alert", "emerg", "crit",
];

/// Whether `name` is a 3.x function Puppet 7.23 itself has (`lib/puppet/parser/functions`,
/// the log levels included): what `Puppet::Parser::Functions.function` finds without any
/// module.
pub fn is_puppet_3x_function(name: &str) -> bool {
    PUPPET_3X_FUNCTIONS.contains(&name) || LOG_LEVELS.contains(&name)
}

/// Class methods of Puppet's modules, by the class's name. `None`: not one of them.
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
    if let Some(r) = crate::catalog::class_method(cname, name, args, pos) {
        return Some(r);
    }
    if cname.starts_with("Puppet::Type")
        || cname.starts_with("Puppet::Parameter")
        || cname.starts_with("Puppet::Property")
    {
        if let Some(r) = crate::typedsl::module_method(it, cname, recv, m, name, args, block, pos) {
            return Some(r);
        }
    }
    Some(match (cname, name) {
        ("Puppet::Util::Platform", q) if PLATFORM_QUERIES.contains(&q) => Ok(RValue::Bool(false)),
        ("Puppet", lvl) if LOG_LEVELS.contains(&lvl) => {
            let msg = args.first().map(to_s).unwrap_or_default();
            it.scope.log(lvl, &msg);
            Ok(RValue::Nil)
        }
        // `Puppet.send_log(level, message)`, `Puppet::Util::Log.create(level:, message:)`.
        ("Puppet", "send_log") | ("Puppet::Util::Log", "create") => (|| {
            let (lvl, msg) = match (name, args) {
                ("send_log", [l, m]) => (to_s(l), to_s(m)),
                ("create", [RValue::Hash(h)]) => {
                    let h = h.borrow();
                    let get = |k: &str| h.get(&RValue::sym(k)).map(to_s).unwrap_or_default();
                    (get("level"), get("message"))
                }
                _ => return unsupported(format!("{cname}.{name} with these arguments"), pos),
            };
            if !LOG_LEVELS.contains(&lvl.as_str()) {
                return raise("ArgumentError", format!("Invalid log level {lvl}"), pos);
            }
            it.scope.log(&lvl, &msg);
            Ok(RValue::Nil)
        })(),
        ("Puppet", "deprecation_warning") => {
            // Puppet adds the Ruby caller's location and logs once per key; the value is
            // the logged text, or nil when the key was logged before.
            let msg = args.first().map(to_s).unwrap_or_default();
            let key = args.get(1).map(to_s).unwrap_or_else(|| msg.clone());
            let method = it.ctx.frame.name.clone().unwrap_or_else(|| "<main>".into());
            let text = format!(
                "{msg}\n   (location: {}:{}:in `{method}')",
                it.current_file(),
                pos.line
            );
            Ok(if it.scope.warn_once(&key, &text) {
                RValue::string(text)
            } else {
                RValue::Nil
            })
        }
        // `warn_once(kind, key, message, file = nil, line = nil, level = :warning)`: once
        // per key, with Puppet's error location of `file` and `line` on a line of its own
        // (none when both are `:default`).
        ("Puppet", "warn_once") => {
            let key = args.get(1).map(to_s).unwrap_or_default();
            let msg = args.get(2).map(to_s).unwrap_or_default();
            let given = |i: usize| match args.get(i) {
                None | Some(RValue::Nil) => None,
                Some(RValue::Str(s)) if s.borrow().is_empty() => None,
                Some(v) => Some(to_s(v)),
            };
            let default =
                |i: usize| matches!(args.get(i), Some(RValue::Sym(s)) if &**s == "default");
            let trace = match (given(3), given(4)) {
                _ if default(3) && default(4) => String::new(),
                (Some(f), Some(l)) => format!("\n   (file: {f}, line: {l})"),
                (None, Some(l)) => format!("\n   (line: {l})"),
                (Some(f), None) => format!("\n   (file: {f})"),
                (None, None) => "\n   (file & line not available)".to_string(),
            };
            it.scope
                .log(&format!("deprecation:{key}"), &format!("{msg}{trace}"));
            Ok(RValue::Nil)
        }
        // Puppet::Util::Warnings.warnonce(msg): a warning logged once per message.
        ("Puppet::Util::Warnings", "warnonce") => {
            let msg = args.first().map(to_s).unwrap_or_default();
            it.scope.warn_once(&format!("warnonce:{msg}"), &msg);
            Ok(RValue::Nil)
        }
        ("Puppet", "version") => Ok(RValue::str("7.23.0")),
        ("Facter", "value") => {
            let name = args.first().map(fact_name).unwrap_or_default();
            Ok(facter_value(it, &name))
        }
        // `Facter[name]`, `Facter.fact(name)`: the fact, or nil when there is none.
        ("Facter", "[]" | "fact") => {
            let name = args.first().map(fact_name).unwrap_or_default();
            Ok(match facter_value(it, &name) {
                RValue::Nil => RValue::Nil,
                _ => it.new_native("Facter::Util::Fact", FactObj { name }),
            })
        }
        ("Puppet", "[]") => {
            let s = args.first().map(to_s).unwrap_or_default();
            setting(it, &s, pos)
        }
        ("Puppet", "settings") => Ok(it.new_native("Puppet::Settings", SettingsObj)),
        ("Puppet::Pops::PuppetStack", "stacktrace") => {
            let st = it.scope.puppet_stack();
            Ok(RValue::array(
                st.into_iter()
                    .map(|(f, l)| RValue::array(vec![RValue::string(f), RValue::Int(i64::from(l))]))
                    .collect(),
            ))
        }
        // Puppet::Util::Yaml (util/yaml.rb): Psych's safe_load with aliases allowed, an empty
        // document as `false`, Psych's errors re-raised as YamlLoadError (the file name in
        // front of a disallowed class).
        ("Puppet::Util::Yaml", "safe_load" | "safe_load_file" | "safe_load_file_if_valid") => {
            (|| {
                let Some(first) = args.first() else {
                    return raise(
                        "ArgumentError",
                        "wrong number of arguments (given 0, expected 1..3)",
                        pos,
                    );
                };
                let first = to_s(first);
                let (text, filename) = if name == "safe_load" {
                    let filename = args.get(2).filter(|f| !matches!(f, RValue::Nil)).map(to_s);
                    (Some(first), filename)
                } else {
                    (
                        it.sources.host().read(&first).map(|t| t.to_string()),
                        Some(first),
                    )
                };
                let if_valid = name == "safe_load_file_if_valid";
                let Some(text) = text else {
                    if if_valid {
                        return Ok(RValue::Nil);
                    }
                    let f = filename.unwrap_or_default();
                    return raise(
                        "Errno::ENOENT",
                        format!("No such file or directory @ rb_sysopen - {f}"),
                        pos,
                    );
                };
                // Symbols load only when the allowed classes name Symbol.
                let symbols = match args.get(1) {
                    Some(RValue::Array(a)) if a.borrow().iter().any(|c| to_s(c) == "Symbol") => {
                        puppet_hiera::yaml::Symbols::Marked
                    }
                    _ => puppet_hiera::yaml::Symbols::Refused,
                };
                match crate::yaml_load_ruby_mode(&text, true, symbols) {
                    Ok(Some(v)) => Ok(crate::yaml::from_loaded(&v, false, 0)),
                    Ok(None) => Ok(RValue::Bool(false)),
                    Err(_) if if_valid => Ok(RValue::Nil),
                    Err((class, message)) => {
                        // Psych names the file (`filename:`) in front of its parse errors;
                        // Puppet puts it in front of a disallowed class's message.
                        let at = filename.as_deref().unwrap_or("<unknown>");
                        let message = if class == "Psych::DisallowedClass" {
                            format!("({at}): {message}")
                        } else if let Some(rest) = message.strip_prefix("(<unknown>): ") {
                            format!("({at}): {rest}")
                        } else {
                            message
                        };
                        raise("Puppet::Util::Yaml::YamlLoadError", message, pos)
                    }
                }
            })()
        }
        ("Puppet::Util::Json", "load") => {
            crate::methods::class_method(it, "JSON", recv, "parse", args, block, pos)
                .unwrap_or_else(|| unsupported("Puppet::Util::Json.load", pos))
        }
        ("Puppet::Util::Json", "dump") => crate::methods::class_method(
            it,
            "JSON",
            recv,
            if args.get(1).is_some() {
                "pretty_generate"
            } else {
                "generate"
            },
            &args[..args.len().min(1)],
            block,
            pos,
        )
        .unwrap_or_else(|| unsupported("Puppet::Util::Json.dump", pos)),
        ("Puppet::Pops::Serialization::ToDataConverter", "convert") => (|| {
            let v = args.first().cloned().unwrap_or(RValue::Nil);
            let pv = value::to_puppet(&v).or_else(|e| unsupported(e, pos))?;
            let rich = matches!(args.get(1), Some(RValue::Hash(h))
                if h.borrow().get(&RValue::sym("rich_data")).is_some_and(|x| x.truthy()));
            if rich {
                return match crate::to_rich_data(&pv) {
                    Ok(d) => Ok(value::from_puppet(&d)),
                    Err(other) => unsupported(
                        format!(
                            "ToDataConverter.convert of {}",
                            value::from_puppet(&other).class_name()
                        ),
                        pos,
                    ),
                };
            }
            if puppet_types::is_instance(&Type::data(), &pv) {
                Ok(v)
            } else {
                unsupported("ToDataConverter.convert of a value that is not Data", pos)
            }
        })(),
        ("Puppet", "lookup") if matches!(args.first(), Some(RValue::Sym(k)) if &**k == "current_environment") => {
            current_environment(it, pos)
        }
        ("Puppet", "lookup") if matches!(args.first(), Some(RValue::Sym(k)) if &**k == "environments") => {
            crate::environment::environments(it, pos)
        }
        ("Puppet", "lookup") if matches!(args.first(), Some(RValue::Sym(k)) if &**k == "loaders") => {
            Ok(it.new_native("Puppet::Pops::Loaders", LoadersObj))
        }
        ("Puppet::Module", _) => crate::environment::module_class_method(it, name, args, pos)?,
        ("Puppet::Parser::Files", _) => {
            crate::environment::files_class_method(it, name, args, pos)?
        }
        ("Puppet", "features") => {
            let class = it
                .module_by_path("Puppet::Util::Feature")
                .unwrap_or_else(|| it.object_class());
            let o = Rc::new(Object::new(class));
            it.track_object(&o);
            Ok(RValue::Object(o))
        }
        ("Puppet", "lookup" | "runtime" | "override" | "push_context") => {
            unsupported(format!("Puppet.{name}"), pos)
        }
        ("Puppet::Functions", "create_function") => create_function(it, args, block, pos),
        (_, "dispatch" | "argument_mismatch")
            if inherits_name(m, "Puppet::Pops::Functions::Function") =>
        {
            record_dispatch(it, m, name == "argument_mismatch", args, block, pos)
        }
        (_, "local_types") if inherits_name(m, "Puppet::Pops::Functions::Function") => (|| {
            let Some(b) = block else {
                return raise("ArgumentError", "local_types without a block", pos);
            };
            let obj = it.new_native("Object", AliasBuilder::default());
            let target = it.def_target_for(&obj);
            it.call_block_as(
                b,
                vec![],
                Some((obj.clone(), target)),
                None,
                false,
                None,
                pos,
            )?;
            if let (RValue::Object(o), Some(rec)) = (&obj, function_record(m)) {
                if let Some(a) = native::<AliasBuilder>(o) {
                    rec.borrow_mut()
                        .local_types
                        .extend(a.aliases.borrow().iter().cloned());
                }
            }
            Ok(RValue::Nil)
        })(),
        (_, "dispatcher") if inherits_name(m, "Puppet::Pops::Functions::Function") => {
            Ok(it.new_native("Object", m.clone()))
        }
        ("Puppet::Parser::Functions", "newfunction") => newfunction(it, args, block, pos),
        ("Puppet::Parser::Functions", "function") => {
            // The name of the 3.x function (Puppet's own or a module's), else false.
            let n = args.first().map(to_s).unwrap_or_default();
            Ok(if has_3x_function(it, &n) {
                RValue::string(format!("function_{n}"))
            } else {
                RValue::Bool(false)
            })
        }
        ("Puppet::Parser::Functions", "autoloader") => Ok(it.new_native("Object", Autoloader3x)),
        ("Puppet::Parser::Functions", "functiondocs" | "reset" | "get_function") => {
            unsupported(format!("Puppet::Parser::Functions.{name}"), pos)
        }
        ("Puppet::Pops::Lookup::HieraConfig", "symkeys_to_string") => {
            // What Puppet's own yaml_data does to a loaded hash (backends copy it): symbol
            // keys become strings, recursively.
            match args.first() {
                Some(v) => Ok(symkeys_to_string(v, 0)),
                None => raise(
                    "ArgumentError",
                    "wrong number of arguments (given 0, expected 1)",
                    pos,
                ),
            }
        }
        ("Puppet::Util::Package", "versioncmp") => (|| {
            let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
                return raise(
                    "ArgumentError",
                    "wrong number of arguments (expected 2)",
                    pos,
                );
            };
            Ok(RValue::Int(versioncmp(&to_s(a), &to_s(b))))
        })(),
        // A new hash with String keys made Symbols (one level; other keys as they are).
        ("Puppet::Util", "symbolizehash") => match args.first() {
            Some(RValue::Hash(h)) => {
                let mut out = crate::value::RHash::default();
                for (k, v) in h.borrow().pairs() {
                    let k = match k {
                        RValue::Str(s) => RValue::sym(&s.borrow()),
                        other => other,
                    };
                    out.insert(k, v);
                }
                Ok(RValue::hash(out))
            }
            Some(other) => crate::methods::no_method_pub(other, "each", pos),
            None => raise(
                "ArgumentError",
                "wrong number of arguments (given 0, expected 1)",
                pos,
            ),
        },
        // Puppet's own: `Random.new(seed).rand(max)` (and its text), which stdlib's
        // seeded_rand and fqdn_rotate call with a digest's Integer (beyond 64 bits).
        ("Puppet::Util", "deterministic_rand_int" | "deterministic_rand") => (|| {
            let [seed, max] = args else {
                return raise(
                    "ArgumentError",
                    format!(
                        "wrong number of arguments (given {}, expected 2)",
                        args.len()
                    ),
                    pos,
                );
            };
            let Some(random) = it.module_by_path("Random") else {
                return unsupported("Random", pos);
            };
            let rng =
                it.call_method(RValue::Module(random), "new", vec![seed.clone()], None, pos)?;
            let n = it.call_method(rng, "rand", vec![max.clone()], None, pos)?;
            if name == "deterministic_rand" {
                return Ok(RValue::string(to_s(&n)));
            }
            Ok(n)
        })(),
        ("Puppet::Util", "absolute_path?") => {
            let p = args.first().map(to_s).unwrap_or_default();
            Ok(RValue::Bool(p.starts_with('/')))
        }
        (
            "Puppet::Util::Execution" | "Puppet::Util",
            "execute" | "execpipe" | "execfail" | "which",
        ) => unsupported(
            format!("{cname}.{name} (Ruby code never runs commands here)"),
            pos,
        ),
        ("Puppet::FileSystem", "exist?" | "file?" | "directory?") => {
            let p = args.first().map(to_s).unwrap_or_default();
            let kind = it.sources.host().kind(&p);
            Ok(RValue::Bool(match name {
                "file?" => kind == Some(crate::PathKind::File),
                "directory?" => kind == Some(crate::PathKind::Directory),
                _ => kind.is_some(),
            }))
        }
        ("Puppet::FileSystem", "read" | "read_preserve_line_endings") => {
            let p = args.first().map(to_s).unwrap_or_default();
            match it.sources.host().read(&p) {
                Some(t) => Ok(RValue::str(&t)),
                None => raise(
                    "Errno::ENOENT",
                    format!("No such file or directory @ rb_sysopen - {p}"),
                    pos,
                ),
            }
        }
        ("Puppet::Pops::Types::PSensitiveType::Sensitive", "new") => (|| match args {
            [v] => {
                let v = value::to_puppet(v).or_else(|e| unsupported(e, pos))?;
                Ok(RValue::Puppet(Rc::new(Value::Sensitive(
                    std::sync::Arc::new(v),
                ))))
            }
            _ => raise(
                "ArgumentError",
                format!(
                    "wrong number of arguments (given {}, expected 1)",
                    args.len()
                ),
                pos,
            ),
        })(),
        ("Puppet::Pops::Types::TypeParser", "singleton" | "new") => {
            Ok(it.new_native("Puppet::Pops::Types::TypeParser", TypeParserObj))
        }
        ("Puppet::Pops::Types::TypeCalculator", "infer_set" | "infer" | "singleton") => {
            if name == "singleton" {
                return Some(Ok(recv.clone()));
            }
            (|| {
                let v = args.first().cloned().unwrap_or(RValue::Nil);
                let pv = value::to_puppet(&v).or_else(|e| unsupported(e, pos))?;
                let t = if name == "infer_set" {
                    puppet_types::infer_set(&pv)
                } else {
                    puppet_types::infer(&pv)
                };
                Ok(RValue::Puppet(Rc::new(Value::Type(t))))
            })()
        }
        ("Puppet::Pops::Types::TypeFactory", _) => return type_factory(name, args, pos),
        ("Puppet::Pops::Types::TypeCalculator", "instance?" | "assignable?") => (|| {
            let (Some(RValue::Puppet(t)), Some(v)) = (args.first(), args.get(1)) else {
                return unsupported(format!("TypeCalculator.{name} with these arguments"), pos);
            };
            let Value::Type(t) = &**t else {
                return unsupported(format!("TypeCalculator.{name} of a non-type"), pos);
            };
            if name == "assignable?" {
                let RValue::Puppet(o) = v else {
                    return unsupported("TypeCalculator.assignable? of a non-type", pos);
                };
                let Value::Type(o) = &**o else {
                    return unsupported("TypeCalculator.assignable? of a non-type", pos);
                };
                return Ok(RValue::Bool(puppet_types::assignable(t, o)));
            }
            let pv = value::to_puppet(v).or_else(|e| unsupported(e, pos))?;
            Ok(RValue::Bool(puppet_types::is_instance(t, &pv)))
        })(),
        // `Iterable.on(o)` / `Iterable.asserted_iterable(caller, o)`: what Puppet iterates
        // for a value, as a Ruby Enumerable: an Array or Hash itself (a Hash yields its
        // [key, value] pairs), a String's characters, 0...n for an Integer n >= 0 (stdlib
        // 9's sort_by). `on` answers nil for a value that is not iterable, `asserted_iterable`
        // raises; Iterable types and iterators are not provided here.
        ("Puppet::Pops::Types::Iterable", "on" | "asserted_iterable") => (|| {
            let o = if name == "on" {
                args.first()
            } else {
                args.get(1)
            };
            let Some(o) = o else {
                return raise("ArgumentError", "wrong number of arguments", pos);
            };
            Ok(match o {
                RValue::Array(_) | RValue::Hash(_) => o.clone(),
                RValue::Str(x) => {
                    let chars: Vec<RValue> = x
                        .borrow()
                        .chars()
                        .map(|c| RValue::string(c.to_string()))
                        .collect();
                    RValue::array(chars)
                }
                RValue::Int(n) if *n >= 0 => RValue::array((0..*n).map(RValue::Int).collect()),
                RValue::Puppet(_) => {
                    return unsupported(
                        format!("Iterable.{name} of {}", crate::value::inspect(o)),
                        pos,
                    )
                }
                _ if name == "on" => RValue::Nil,
                other => {
                    return raise(
                        "ArgumentError",
                        format!("{} is not iterable", crate::value::inspect(other)),
                        pos,
                    )
                }
            })
        })(),
        ("Puppet::Pops::Types::TypeMismatchDescriber", "new" | "singleton") => Ok(recv.clone()),
        ("Puppet::Pops::Types::TypeMismatchDescriber", "describe_mismatch") => {
            let n = args.first().map(to_s).unwrap_or_default();
            let ty = |v: Option<&RValue>| match v {
                Some(RValue::Puppet(p)) => match &**p {
                    Value::Type(t) => Some(t.clone()),
                    _ => None,
                },
                _ => None,
            };
            match (ty(args.get(1)), ty(args.get(2))) {
                (Some(e), Some(a)) => {
                    Ok(RValue::string(puppet_types::describe_mismatch(&n, &e, &a)))
                }
                _ => unsupported("TypeMismatchDescriber.describe_mismatch of non-types", pos),
            }
        }
        _ => return None,
    })
}

/// Whether `Facter` is defined: while type files load with the reading host's facts, and
/// wherever Ruby runs for a compile (functions, templates, Hiera backends), whose scope has
/// the node's `$facts`. Puppet's `Facter` answers for the machine that runs the compile; on
/// a server that is not the node, so code that means the node (nearly all of it) is answered
/// with the node's facts, as `puppet apply` on the node answers it.
pub(crate) fn facter_defined(it: &mut Interp) -> bool {
    it.ext.host_facts.is_some() || matches!(it.scope.lookup("facts"), Some(Value::Hash(_)))
}

/// `Facter` as a module, defined at top level the first time code names it (see
/// [`facter_defined`]).
pub(crate) fn define_facter(it: &mut Interp) -> RValue {
    let facter = RValue::Module(it.new_module("Facter", false, None));
    it.object_class()
        .consts_mut()
        .insert("Facter".to_string(), facter.clone());
    facter
}

/// A fact as `Facter[name]`/`Facter.fact(name)` return it: its `name` and `value`.
#[derive(Debug)]
struct FactObj {
    name: String,
}

/// A fact's name as Facter takes it: a String or a Symbol.
fn fact_name(name: &RValue) -> String {
    match name {
        RValue::Sym(s) => s.to_string(),
        other => to_s(other),
    }
}

/// `Facter.value(name)`: a top-level fact, or a dotted path into a structured one
/// (`os.release.major`); `nil` when absent. From the host facts type loading was given, or
/// the compiled node's `$facts`.
fn facter_value(it: &mut Interp, name: &str) -> RValue {
    let mut parts = name.split('.');
    let first = parts.next().unwrap_or_default();
    let top = match it.ext.host_facts.as_ref() {
        Some(facts) => facts.get(first).cloned(),
        None => match it.scope.lookup("facts") {
            Some(Value::Hash(h)) => h
                .iter()
                .find(|(k, _)| matches!(k, Value::String(s) if s.as_str() == first))
                .map(|(_, v)| v.clone()),
            _ => None,
        },
    };
    let Some(mut v) = top else {
        return RValue::Nil;
    };
    for p in parts {
        let next = match &v {
            Value::Hash(h) => h
                .iter()
                .find(|(k, _)| matches!(k, Value::String(s) if s.as_str() == p))
                .map(|(_, x)| x.clone()),
            _ => None,
        };
        match next {
            Some(x) => v = x,
            None => return RValue::Nil,
        }
    }
    value::from_puppet(&v)
}

/// A hash (and the hashes and arrays in it) with its symbol keys as strings; other values
/// as they are (shared, as Puppet returns the very objects).
fn symkeys_to_string(v: &RValue, depth: usize) -> RValue {
    crate::with_stack(|| {
        if depth > 256 {
            return v.clone();
        }
        match v {
            RValue::Hash(h) => {
                let pairs = h.borrow().pairs();
                let mut out = crate::value::RHash::default();
                for (k, x) in pairs {
                    let k = match k {
                        RValue::Sym(s) => RValue::str(&s),
                        other => other,
                    };
                    out.insert(k, symkeys_to_string(&x, depth + 1));
                }
                RValue::hash(out)
            }
            RValue::Array(a) => {
                let items = a.borrow().clone();
                RValue::array(
                    items
                        .iter()
                        .map(|x| symkeys_to_string(x, depth + 1))
                        .collect(),
                )
            }
            other => other.clone(),
        }
    })
}

/// The `Puppet::Util::Platform` queries answered: all false, as on the Linux Puppet server
/// that compiles the catalog.
const PLATFORM_QUERIES: &[&str] = &["windows?", "jruby?", "solaris?"];

/// Whether a Puppet module answers `name` natively.
pub(crate) fn module_responds(it: &mut Interp, cname: &str, name: &str) -> bool {
    let _ = it;
    match cname {
        "Puppet" => {
            LOG_LEVELS.contains(&name)
                || matches!(
                    name,
                    "deprecation_warning" | "warn_once" | "version" | "send_log"
                )
        }
        "Puppet::Util::Log" => name == "create",
        "Puppet::Functions" => name == "create_function",
        "Facter" => matches!(name, "value" | "[]" | "fact") && facter_defined(it),
        "Puppet::Parser::Functions" => matches!(name, "newfunction" | "function"),
        "Puppet::Util::Package" => name == "versioncmp",
        "Puppet::Util::Warnings" => name == "warnonce",
        "Puppet::Util::Platform" => PLATFORM_QUERIES.contains(&name),
        // The Puppet::Util functions this file implements (stdlib's fqdn_rotate asks).
        "Puppet::Util" => matches!(
            name,
            "symbolizehash" | "absolute_path?" | "deterministic_rand" | "deterministic_rand_int"
        ),
        "Puppet::Pops::Lookup::HieraConfig" => name == "symkeys_to_string",
        "Puppet::Pops::PuppetStack" => name == "stacktrace",
        "Puppet::Pops::Serialization::ToDataConverter" => name == "convert",
        "Puppet::Pops::Functions::Function" => {
            matches!(
                name,
                "dispatch" | "argument_mismatch" | "local_types" | "dispatcher"
            )
        }
        _ => crate::typedsl::module_responds(cname, name),
    }
}

fn create_function(it: &mut Interp, args: &[RValue], block: Option<&Blk>, pos: Pos) -> R {
    let Some(n) = args.first() else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (given 0, expected 1..2)",
            pos,
        );
    };
    let fname = to_s(n);
    let base = match args.get(1) {
        Some(RValue::Module(m)) => m.clone(),
        Some(other) => {
            return raise(
                "ArgumentError",
                format!("Function Load Error for function '{fname}': Functions must be based on Puppet::Pops::Functions::Function. Got {}", to_s(other)),
                pos,
            )
        }
        None => match it.module_by_path("Puppet::Functions::Function") {
            Some(m) => m,
            None => return unsupported("Puppet::Functions::Function", pos),
        },
    };
    if !inherits_name(&base, "Puppet::Pops::Functions::Function") {
        return raise(
            "ArgumentError",
            format!("Function Load Error for function '{fname}': Functions must be based on Puppet::Pops::Functions::Function. Got {}", base.name()),
            pos,
        );
    }
    let class = it.new_module(&fname, true, Some(base));
    *class.extra.borrow_mut() = Some(Rc::new(RefCell::new(FunctionRecord::default())));
    if let Some(b) = block {
        let r = it.call_block_as(
            b,
            vec![],
            Some((RValue::Module(class.clone()), class.clone())),
            None,
            false,
            None,
            pos,
        );
        match r {
            Ok(_) => {}
            Err(Ctrl::Raise(e)) => {
                let standard = it.is_standard_error(&e.class);
                if standard {
                    return raise(
                        "ArgumentError",
                        format!("Function Load Error for function '{fname}': {}", e.message),
                        e.pos,
                    );
                }
                return Err(Ctrl::Raise(e));
            }
            Err(other) => return Err(other),
        }
    }
    it.ext.functions.push(DefinedFunction::V4 {
        name: fname,
        class: class.clone(),
    });
    Ok(RValue::Module(class))
}

fn record_dispatch(
    it: &mut Interp,
    m: &Rc<Module>,
    mismatch: bool,
    args: &[RValue],
    block: Option<&Blk>,
    pos: Pos,
) -> R {
    let Some(meth) = args.first() else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (given 0, expected 1)",
            pos,
        );
    };
    let method = match meth {
        RValue::Sym(s) => s.to_string(),
        RValue::Str(s) => s.borrow().clone(),
        other => {
            return raise(
                "ArgumentError",
                format!(
                    "dispatch method name must be a Symbol, got {}",
                    other.class_name()
                ),
                pos,
            )
        }
    };
    let builder = Rc::new(Builder::default());
    builder.d.borrow_mut().method = method;
    builder.d.borrow_mut().mismatch = mismatch;
    let class = it
        .module_by_path("Object")
        .unwrap_or_else(|| it.object_class());
    let o = Rc::new(Object::new(class.clone()));
    *o.data.borrow_mut() = ObjData::Native(builder.clone());
    it.track_object(&o);
    if let Some(b) = block {
        it.call_block_as(
            b,
            vec![],
            Some((RValue::Object(o), class)),
            None,
            false,
            None,
            pos,
        )?;
    }
    let d = builder.d.borrow().clone();
    match function_record(m) {
        Some(r) => r.borrow_mut().dispatches.push(d),
        None => return unsupported("dispatch outside a function class", pos),
    }
    Ok(RValue::Nil)
}

fn newfunction(it: &mut Interp, args: &[RValue], block: Option<&Blk>, pos: Pos) -> R {
    let Some(n) = args.first() else {
        return raise(
            "ArgumentError",
            "wrong number of arguments (given 0, expected 1..2)",
            pos,
        );
    };
    let name = to_s(n);
    let mut info = V3Info {
        rvalue: false,
        arity: -1,
        doc: String::new(),
    };
    if let Some(RValue::Hash(h)) = args.get(1) {
        let h = h.borrow();
        match h.get(&RValue::sym("type")) {
            None | Some(RValue::Nil) => {}
            Some(RValue::Sym(s)) if &**s == "rvalue" => info.rvalue = true,
            Some(RValue::Sym(s)) if &**s == "statement" => {}
            Some(other) => {
                return raise(
                    "Puppet::DevError",
                    format!("Invalid statement type {}", value::inspect(other)),
                    pos,
                )
            }
        }
        if let Some(RValue::Int(a)) = h.get(&RValue::sym("arity")) {
            info.arity = *a;
        }
        if let Some(d) = h.get(&RValue::sym("doc")) {
            info.doc = to_s(d);
        }
    }
    let Some(b) = block else {
        return raise(
            "ArgumentError",
            "tried to create Proc object without a block",
            pos,
        );
    };
    it.ext.functions.push(DefinedFunction::V3 {
        name: name.clone(),
        info: info.clone(),
        block: b.clone(),
    });
    Ok(crate::kernel::hash_of(vec![
        (RValue::sym("arity"), RValue::Int(info.arity)),
        (
            RValue::sym("type"),
            RValue::sym(if info.rvalue { "rvalue" } else { "statement" }),
        ),
        (
            RValue::sym("name"),
            RValue::string(format!("function_{name}")),
        ),
        (RValue::sym("doc"), RValue::string(info.doc)),
    ]))
}

/// Whether `scope.function_x` exists: `x` is a 3.x function, Puppet's own, defined in this
/// interpreter, or a module's `lib/puppet/parser/functions/x.rb`.
pub(crate) fn has_3x_function(it: &Interp, name: &str) -> bool {
    is_puppet_3x_function(name)
        || it
            .ext
            .functions
            .iter()
            .any(|f| matches!(f, DefinedFunction::V3 { name: n, .. } if n == name))
        || (!name.contains(['/', '.'])
            && it
                .sources
                .host()
                .find_lib(&format!("puppet/parser/functions/{name}"))
                .is_some())
}

/// `scope.function_x([args])`: the 3.x function `x` of the modules (its file
/// `lib/puppet/parser/functions/x.rb`, run in this interpreter on first use), as Puppet's
/// 3.x API prefers it; else the function `x` through the scope.
/// Whether code run in this interpreter defined the 3.x function `name`.
pub(crate) fn defines_3x(it: &Interp, name: &str) -> bool {
    it.ext
        .functions
        .iter()
        .any(|f| matches!(f, DefinedFunction::V3 { name: n, .. } if n == name))
}

pub(crate) fn call_3x(it: &mut Interp, name: &str, args: Vec<RValue>, pos: Pos) -> R {
    let find = |it: &Interp| {
        it.ext.functions.iter().rev().find_map(|f| match f {
            DefinedFunction::V3 {
                name: n,
                info,
                block,
            } if n == name => Some((info.clone(), block.clone())),
            _ => None,
        })
    };
    let mut found = find(it);
    if found.is_none() && it.sources.has_files() {
        let key = format!("puppet/parser/functions/{name}");
        if let Some(r) = it.sources.find_lib(&key) {
            let (path, prog) = r.map_err(|e| {
                Ctrl::Raise(Box::new(crate::interp::Exc {
                    class: "SyntaxError".into(),
                    message: e.to_string(),
                    pos,
                    file: None,
                    obj: None,
                }))
            })?;
            if it.loaded.insert(path) {
                it.run_program(&prog)?;
            }
            found = find(it);
        }
    }
    let Some((info, block)) = found else {
        // Puppet's 3.x stubs of its 4.x functions (`function_hiera`, `function_lookup`...)
        // only say so.
        if PUPPET_3X_STUBS_OF_4X.contains(&name) {
            return raise(
                "Puppet::ParseError",
                format!(
                    "{name}() can only be called using the 4.x function API. See Scope#call_function"
                ),
                pos,
            );
        }
        // Puppet's own 3.x functions; a 4.x function has no `function_` method (Puppet's
        // Scope#method_missing finds 3.x functions only).
        if is_puppet_3x_function(name) {
            // The 3.x wrapper's arity check raises ArgumentError, not a ParseError.
            return match it.puppet_function(name, args, pos) {
                Err(Ctrl::Raise(mut e))
                    if e.message
                        .starts_with(&format!("{name}(): Wrong number of arguments given")) =>
                {
                    e.class = "ArgumentError".into();
                    Err(Ctrl::Raise(e))
                }
                other => other,
            };
        }
        return crate::methods::scope_no_method(it, &format!("function_{name}"), pos);
    };
    let given = args.len() as i64;
    if info.arity >= 0 && given != info.arity {
        return raise(
            "ArgumentError",
            format!(
                "{name}(): Wrong number of arguments given ({given} for {})",
                info.arity
            ),
            pos,
        );
    }
    if info.arity < 0 && given < -info.arity - 1 {
        return raise(
            "ArgumentError",
            format!(
                "{name}(): Wrong number of arguments given ({given} for minimum {})",
                -info.arity - 1
            ),
            pos,
        );
    }
    let scope_class = it
        .module_by_path("Puppet::Parser::Scope")
        .unwrap_or_else(|| it.object_class());
    let r = it.call_block_as(
        &block,
        vec![RValue::array(args)],
        Some((RValue::Scope, scope_class)),
        None,
        true,
        Some(&format!("real_function_{name}")),
        pos,
    )?;
    Ok(if info.rvalue { r } else { RValue::Nil })
}

/// Puppet's `Puppet::Util::Package.versioncmp`.
pub fn versioncmp(a: &str, b: &str) -> i64 {
    fn tokens(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut kind = 0u8;
        for c in s.chars() {
            let k = if c.is_ascii_digit() {
                1
            } else if c == '-' || c == '.' {
                2
            } else {
                3
            };
            if k != kind || k == 2 {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                kind = k;
            }
            cur.push(c);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }
    let (ta, tb) = (tokens(a), tokens(b));
    let mut i = 0;
    while i < ta.len() && i < tb.len() {
        let (x, y) = (&ta[i], &tb[i]);
        if x != y {
            if x == "-" && y != "-" {
                return -1;
            }
            if y == "-" && x != "-" {
                return 1;
            }
            if x == "." && y != "." {
                return -1;
            }
            if y == "." && x != "." {
                return 1;
            }
            let xd = x.chars().all(|c| c.is_ascii_digit());
            let yd = y.chars().all(|c| c.is_ascii_digit());
            if xd && yd {
                if x.starts_with('0') || y.starts_with('0') {
                    return match x.to_uppercase().cmp(&y.to_uppercase()) {
                        std::cmp::Ordering::Less => -1,
                        std::cmp::Ordering::Greater => 1,
                        std::cmp::Ordering::Equal => 0,
                    };
                }
                let (xn, yn) = (
                    x.parse::<u128>().unwrap_or(0),
                    y.parse::<u128>().unwrap_or(0),
                );
                return if xn < yn { -1 } else { 1 };
            }
            return match x.to_uppercase().cmp(&y.to_uppercase()) {
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Equal => 0,
            };
        }
        i += 1;
    }
    match a.cmp(b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Equal => 0,
    }
}

/// Class methods of the semantic_puppet gem: `Version.parse(text)`, `Version.valid?(text)`,
/// `Version.new(major, minor, patch)` and `VersionRange.parse(text)`, made as Puppet's SemVer
/// and SemVerRange values (the objects Puppet hands Ruby for them).
pub(crate) fn semantic_puppet(cname: &str, name: &str, args: &[RValue], pos: Pos) -> R {
    use puppet_types::semver::{Version, VersionRange};
    let text = |i: usize| args.get(i).map(to_s).unwrap_or_default();
    match (cname, name) {
        ("SemanticPuppet::Version", "new") => {
            crate::methods::argc(args, 3, 3, pos)?;
            let mut n = [0u64; 3];
            for (i, a) in args.iter().enumerate() {
                let v = crate::methods::int_arg(a, pos)?;
                n[i] = u64::try_from(v).unwrap_or(0);
            }
            let v = Version::new(n[0], n[1], n[2]);
            Ok(RValue::Puppet(Rc::new(Value::SemVer(v.into()))))
        }
        ("SemanticPuppet::Version", "valid?") => {
            crate::methods::argc(args, 1, 1, pos)?;
            Ok(RValue::Bool(Version::parse(&text(0)).is_ok()))
        }
        ("SemanticPuppet::Version", _) => {
            crate::methods::argc(args, 1, 1, pos)?;
            match Version::parse(&text(0)) {
                Ok(v) => Ok(RValue::Puppet(Rc::new(Value::SemVer(v.into())))),
                Err(_) => raise(
                    "SemanticPuppet::Version::ValidationFailure",
                    format!(
                        "Unable to parse '{}' as a semantic version identifier",
                        text(0)
                    ),
                    pos,
                ),
            }
        }
        _ => {
            crate::methods::argc(args, 1, 1, pos)?;
            match VersionRange::parse(&text(0)) {
                Ok(r) => Ok(RValue::Puppet(Rc::new(Value::SemVerRange(r.into())))),
                Err(e) => raise("ArgumentError", e.to_string(), pos),
            }
        }
    }
}

/// Methods of SemanticPuppet's versions and ranges (Puppet's SemVer and SemVerRange).
fn semver_method(recv: &RValue, p: &Value, name: &str, args: &[RValue], pos: Pos) -> Option<R> {
    use puppet_types::semver::Version;
    let idents = |ids: &[puppet_types::semver::Ident]| {
        if ids.is_empty() {
            RValue::Nil
        } else {
            let parts: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
            RValue::string(parts.join("."))
        }
    };
    let other_version = |a: Option<&RValue>| -> Option<Version> {
        match a {
            Some(RValue::Puppet(o)) => match &**o {
                Value::SemVer(v) => Some((**v).clone()),
                _ => None,
            },
            _ => None,
        }
    };
    Some(match (p, name) {
        (Value::SemVer(v), "major") => Ok(RValue::Int(v.major as i64)),
        (Value::SemVer(v), "minor") => Ok(RValue::Int(v.minor as i64)),
        (Value::SemVer(v), "patch") => Ok(RValue::Int(v.patch as i64)),
        (Value::SemVer(v), "prerelease") => Ok(idents(&v.prerelease)),
        (Value::SemVer(v), "build") => Ok(idents(&v.build)),
        (Value::SemVer(v), "stable?") => Ok(RValue::Bool(v.prerelease.is_empty())),
        (Value::SemVer(v), "<=>") => Ok(match other_version(args.first()) {
            Some(o) => RValue::Int((**v).cmp(&o) as i64),
            None => RValue::Nil,
        }),
        (Value::SemVer(v), "<" | ">" | "<=" | ">=") => match other_version(args.first()) {
            Some(o) => {
                let c = (**v).cmp(&o);
                Ok(RValue::Bool(match name {
                    "<" => c.is_lt(),
                    ">" => c.is_gt(),
                    "<=" => c.is_le(),
                    _ => c.is_ge(),
                }))
            }
            None => raise(
                "ArgumentError",
                format!(
                    "comparison of SemanticPuppet::Version with {} failed",
                    args.first().map_or("nil".into(), crate::value::inspect)
                ),
                pos,
            ),
        },
        (Value::SemVer(v), "next") => {
            let part = args.first().map(to_s).unwrap_or_default();
            let n = match part.as_str() {
                "major" => Version::new(v.major + 1, 0, 0),
                "minor" => Version::new(v.major, v.minor + 1, 0),
                "patch" => Version::new(v.major, v.minor, v.patch + 1),
                _ => return None,
            };
            Ok(RValue::Puppet(Rc::new(Value::SemVer(n.into()))))
        }
        (Value::SemVerRange(r), "include?" | "===" | "cover?" | "member?") => {
            Ok(RValue::Bool(match other_version(args.first()) {
                Some(v) => r.includes(&v),
                None => false,
            }))
        }
        (Value::SemVer(_) | Value::SemVerRange(_), _)
            if !matches!(name, "to_s" | "inspect" | "==" | "eql?") =>
        {
            unsupported(
                format!(
                    "{}#{name} (a part of SemanticPuppet this engine does not provide)",
                    recv.class_name()
                ),
                pos,
            )
        }
        _ => return None,
    })
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
    let _ = block;
    if let Some(r) = semver_method(recv, p, name, &args, pos) {
        return r;
    }
    match (&**p, name) {
        (Value::Sensitive(inner), "unwrap") => Ok(value::from_puppet(inner)),
        (Value::Type(t), "instance?") => {
            let v = args.first().cloned().unwrap_or(RValue::Nil);
            let pv = value::to_puppet(&v).or_else(|e| unsupported(e, pos))?;
            Ok(RValue::Bool(puppet_types::is_instance(t, &pv)))
        }
        (Value::Type(t), "assignable?") => match args.first() {
            Some(RValue::Puppet(o)) => match &**o {
                Value::Type(o) => Ok(RValue::Bool(puppet_types::assignable(t, o))),
                _ => Ok(RValue::Bool(false)),
            },
            _ => Ok(RValue::Bool(false)),
        },
        (Value::Type(t), "name") => Ok(RValue::string(t.to_string())),
        // `PResourceType#type_name` / `#title` and `PClassType#class_name`: as written,
        // nil when the type has none (`Resource`, `Class`).
        (Value::Type(Type::Resource(r)), "type_name" | "title") => {
            let part = if name == "title" {
                &r.title
            } else {
                &r.type_name
            };
            Ok(part
                .as_deref()
                .map_or(RValue::Nil, |n: &str| RValue::str(n)))
        }
        (Value::Type(Type::Class(c)), "class_name") => {
            Ok(c.as_deref().map_or(RValue::Nil, |n: &str| RValue::str(n)))
        }
        (_, "to_s") => Ok(RValue::string(to_s(recv))),
        (_, "inspect") => Ok(RValue::string(value::inspect(recv))),
        (_, "==" | "eql?") => Ok(RValue::Bool(value::equal(
            recv,
            args.first().unwrap_or(&RValue::Nil),
        ))),
        _ => {
            let _ = it;
            crate::methods::no_method_pub(recv, name, pos)
        }
    }
}

/// `Puppet::Pops::Types::TypeFactory.NAME(args)`: the type Puppet's factory makes, written in
/// Puppet's type syntax and read by the one type parser (so it is the type the same text
/// in a manifest is). `None` for a method the factory does not have; a factory method whose
/// arguments are not written here (a size type, a `String` with a value) is an unsupported
/// construct.
fn type_factory(name: &str, args: &[RValue], pos: Pos) -> Option<R> {
    let plain = match name {
        "any" => "Any",
        "scalar" => "Scalar",
        "scalar_data" => "ScalarData",
        "data" => "Data",
        "rich_data" => "RichData",
        "numeric" => "Numeric",
        "integer" => "Integer",
        "float" => "Float",
        "boolean" => "Boolean",
        "string" => "String",
        "undef" => "Undef",
        "default" => "Default",
        "collection" => "Collection",
        "catalog_entry" => "CatalogEntry",
        "semver" => "SemVer",
        "semver_range" => "SemVerRange",
        "timespan" => "Timespan",
        "timestamp" => "Timestamp",
        "binary" => "Binary",
        "array_of_any" => "Array[Any]",
        "array_of_data" => "Array[Data]",
        "hash_of_any" => "Hash[Any, Any]",
        "hash_of_data" => "Hash[String, Data]",
        _ => "",
    };
    let list = |items: &[RValue]| -> Result<String, String> {
        let items = items
            .iter()
            .map(factory_arg)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(items.join(", "))
    };
    let text: Result<String, String> = match (name, args) {
        _ if !plain.is_empty() => match args {
            [] => Ok(plain.to_string()),
            _ => Err(format!("TypeFactory.{name} with arguments")),
        },
        // `array_of(type, size_type = nil)`, `tuple(types, size_type = nil)`.
        ("array_of", [t]) => factory_arg(t).map(|t| format!("Array[{t}]")),
        ("tuple", [RValue::Array(items)]) => {
            let items = items.borrow().clone();
            list(&items).map(|t| format!("Tuple[{t}]"))
        }
        // `hash_of(value, key = Scalar)`, `hash_kv(key, value)`, `struct(members)`.
        ("hash_of", [v]) => factory_arg(v).map(|v| format!("Hash[Scalar, {v}]")),
        ("hash_of", [v, k]) | ("hash_kv", [k, v]) => {
            list(&[k.clone(), v.clone()]).map(|kv| format!("Hash[{kv}]"))
        }
        ("struct", [RValue::Hash(_)]) => factory_arg(&args[0]).map(|h| format!("Struct[{h}]")),
        ("array_of" | "tuple" | "hash_of" | "hash_kv" | "struct", _) => {
            Err(format!("TypeFactory.{name} with these arguments"))
        }
        _ => {
            let wrapper = match name {
                "optional" => "Optional",
                "not_undef" => "NotUndef",
                "type_type" => "Type",
                "sensitive" => "Sensitive",
                "iterable" => "Iterable",
                "iterator" => "Iterator",
                "variant" => "Variant",
                "enum" => "Enum",
                "pattern" => "Pattern",
                "range" => "Integer",
                "float_range" => "Float",
                "regexp" => "Regexp",
                "resource" => "Resource",
                "host_class" => "Class",
                _ => return None,
            };
            // Without arguments (or only nils) the plain type: `optional()` is `Optional`.
            let bare = args.iter().all(|a| matches!(a, RValue::Nil));
            if bare && !matches!(name, "enum" | "variant") {
                Ok(wrapper.to_string())
            } else {
                list(args).map(|a| format!("{wrapper}[{a}]"))
            }
        }
    };
    Some(match text {
        Ok(text) => match puppet_functions::parse_type(&text, &|_| None) {
            Ok(t) => Ok(RValue::Puppet(Rc::new(Value::Type(t)))),
            Err(e) => raise("ArgumentError", e, pos),
        },
        Err(construct) => unsupported(construct, pos),
    })
}

/// One argument of a [`type_factory`] method in Puppet's type syntax: a type as written, a
/// string quoted as Puppet quotes it, a number, `nil` or `:default` as `default`, a regexp
/// as Puppet writes one, a hash (a `Struct`'s members) as a hash literal.
fn factory_arg(v: &RValue) -> Result<String, String> {
    match v {
        RValue::Puppet(p) if matches!(&**p, Value::Type(_)) => Ok(to_s(v)),
        RValue::Str(s) => Ok(puppet_types::format::puppet_quote(&s.borrow())),
        RValue::Int(_) | RValue::Float(_) => Ok(to_s(v)),
        RValue::Nil => Ok("default".to_string()),
        RValue::Sym(s) if &**s == "default" => Ok("default".to_string()),
        RValue::Bool(b) => Ok(b.to_string()),
        // As Puppet writes a regexp (slashes escaped): the same source read back.
        RValue::Regexp(r) => puppet_types::regexp::Regexp::new(&r.source)
            .map(|r| r.to_string())
            .map_err(|e| e.to_string()),
        RValue::Hash(h) => {
            let pairs = h.borrow().pairs();
            let members = pairs
                .iter()
                .map(|(k, t)| Ok(format!("{} => {}", factory_arg(k)?, factory_arg(t)?)))
                .collect::<Result<Vec<_>, String>>()?;
            Ok(format!("{{{}}}", members.join(", ")))
        }
        other => Err(format!("TypeFactory argument {}", value::inspect(other))),
    }
}
