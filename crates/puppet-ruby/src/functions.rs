//! Modules' Ruby functions as functions of the `puppet-functions` registry.
//!
//! [`load`] parses a function file (once: the tree is shared) and runs it in a scratch
//! interpreter to learn what it defines: a 4.x function
//! (`Puppet::Functions.create_function`, with its `dispatch`/`argument_mismatch` blocks and
//! `local_types`, or the default dispatch Puppet derives from the method named like the
//! function), or a 3.x function (`Puppet::Parser::Functions.newfunction` with `:type`,
//! `:arity` and `:doc`). [`RubyFunction::register`] adds it to a [`Registry`] with Puppet's
//! signatures, so that argument errors read as Puppet's.
//!
//! **Interpreter state is per call.** Each call creates a fresh interpreter, runs the file's
//! shared tree again (which only defines classes and methods: cheap) and calls the method.
//! Nothing a call does is seen by another call, so results cannot depend on call order or
//! on other compiles, and the registry stays `Send + Sync`. (Puppet keeps a 4.x function's
//! instance per compile; module functions that memoize in instance variables only lose
//! their cache.) The cost is measured by the `ruby` bench.
//!
//! A call reaches Puppet through the caller's [`CallContext`]: variables of the closure
//! scope (`closure_scope`, `lookupvar`), other functions (`call_function`, `function_*`),
//! logging (`Puppet.warning`, `warning()`, `warn`) and the lambda given to the call
//! (`yield`, `block.call`). Values cross as Puppet's Ruby sees them: undef is nil, default
//! is `:default`, and 3.x functions get Puppet's 3.x conversions (one array of arguments,
//! a top-level undef as `''`).

use crate::ast::Program;
use crate::interp::{raise, Ctrl, Interp};
use crate::object::{Blk, Module};
use crate::source::Sources;
use crate::value::{self, RValue};
use crate::{PuppetScope, RubyError};
use indexmap::IndexMap;
use puppet_functions::{
    codes, Args, Block, CallContext, CallError, FunctionBody, LogLevel, Registry, RegistryError,
    Signature, TypeSpec,
};
use puppet_types::Value;
use smol_str::SmolStr;
use std::rc::Rc;
use std::sync::Arc;

/// The API a function is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `Puppet::Parser::Functions.newfunction`.
    V3,
    /// `Puppet::Functions.create_function`.
    V4,
}

/// How a parameter of a 4.x dispatch takes arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `param`.
    Required,
    /// `optional_param`.
    Optional,
    /// `repeated_param`.
    Repeated,
    /// `required_repeated_param`.
    RequiredRepeated,
}

/// A parameter of a 4.x dispatch: its type (as written), name and kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchParam {
    /// The type expression (`'Variant[String, Integer]'`).
    pub ty: String,
    /// The parameter name.
    pub name: String,
    /// The kind.
    pub kind: ParamKind,
}

/// A recorded `dispatch` (or `argument_mismatch`) of a 4.x function.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dispatch {
    /// The method it calls.
    pub method: String,
    /// The parameters.
    pub params: Vec<DispatchParam>,
    /// The block parameter: type, name, optional.
    pub block: Option<(String, String, bool)>,
    /// `return_type`.
    pub return_type: Option<String>,
    /// An `argument_mismatch` dispatch: its method returns the error message.
    pub mismatch: bool,
    /// `scope_param` (internal functions): the closure scope is the method's first argument.
    pub scope_param: bool,
}

impl Dispatch {
    /// Whether the dispatch takes `n` arguments: at least its required parameters, and no
    /// more than its parameters unless the last one repeats.
    pub(crate) fn takes(&self, n: usize) -> bool {
        let required = self
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Required | ParamKind::RequiredRepeated));
        let repeated = self
            .params
            .last()
            .is_some_and(|p| matches!(p.kind, ParamKind::Repeated | ParamKind::RequiredRepeated));
        n >= required.count() && (repeated || n <= self.params.len())
    }
}

/// What a 3.x function declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V3Info {
    /// `:type => :rvalue` (else a statement).
    pub rvalue: bool,
    /// `:arity` (-1: any).
    pub arity: i64,
    /// `:doc`.
    pub doc: String,
}

/// A loaded Ruby function, ready to register.
#[derive(Debug, Clone)]
pub struct RubyFunction {
    name: String,
    api: Api,
    dispatches: Vec<Dispatch>,
    local_types: Vec<(String, String)>,
    v3: Option<V3Info>,
    shared: Arc<Shared>,
}

/// What every call of a function shares.
#[derive(Debug)]
struct Shared {
    name: String,
    file: String,
    program: Arc<Program>,
    sources: Arc<Sources>,
    /// The class defines its own `call(scope, *args)`.
    own_call: bool,
    /// The step budget of each call's interpreter.
    steps: u64,
}

impl RubyFunction {
    /// The function's name as the file declares it (`mod::f`).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The API.
    pub fn api(&self) -> Api {
        self.api
    }
    /// The 4.x dispatches (for a function without `dispatch`, the default one).
    pub fn dispatches(&self) -> &[Dispatch] {
        &self.dispatches
    }
    /// The 4.x local type aliases (name, type expression).
    pub fn local_types(&self) -> &[(String, String)] {
        &self.local_types
    }
    /// What a 3.x function declared.
    pub fn v3(&self) -> Option<&V3Info> {
        self.v3.as_ref()
    }
    /// The file it was loaded from.
    pub fn file(&self) -> &str {
        &self.shared.file
    }

    /// Registers the function (replacing one of the same name only with `shadow`).
    pub fn register(&self, reg: &mut Registry) -> Result<(), RegistryError> {
        self.register_as(reg, false)
    }

    /// Registers the function; `shadow` replaces an existing function of that name.
    ///
    /// A 4.x signature that names types of the environment (`Stdlib::HTTPUrl`) is resolved
    /// when the function is called, through the caller's
    /// [`CallContext::resolve_type_name`]: the registered function then accepts any
    /// arguments and dispatches them over the resolved signatures.
    pub fn register_as(&self, reg: &mut Registry, shadow: bool) -> Result<(), RegistryError> {
        let foreign = self.foreign_type_names();
        if self.api == Api::V4 && !self.shared.own_call && !foreign.is_empty() {
            return reg
                .function(&self.name)
                .shadow(shadow)
                .doc(&format!(
                    "{} (Ruby function, {})",
                    self.name, self.shared.file
                ))
                .dispatch_body(
                    Signature::new()
                        .repeated_param("Any", "args")
                        .optional_block_param("Callable", "block"),
                    Arc::new(LateTypes {
                        function: self.clone(),
                        names: foreign,
                    }),
                )
                .register();
        }
        self.register_resolved(reg, shadow, &[])
    }

    /// The type names of the 4.x signatures that are neither Puppet's types nor the
    /// function's local types.
    fn foreign_type_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for d in &self.dispatches {
            let texts = d
                .params
                .iter()
                .map(|p| p.ty.as_str())
                .chain(d.block.iter().map(|b| b.0.as_str()))
                .chain(d.return_type.as_deref())
                .chain(self.local_types.iter().map(|(_, t)| t.as_str()));
            for t in texts {
                for n in type_names(t) {
                    let local = self.local_types.iter().any(|(l, _)| *l == n);
                    let builtin = !matches!(
                        puppet_types::resolve_type_name(&n),
                        puppet_types::Type::TypeReference(_)
                    );
                    if !local && !builtin && !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
        out
    }

    /// Registers the function with `resolved` types for names of the environment.
    fn register_resolved(
        &self,
        reg: &mut Registry,
        shadow: bool,
        resolved: &[(String, puppet_types::Type)],
    ) -> Result<(), RegistryError> {
        let mut b = reg.function(&self.name).shadow(shadow);
        match self.api {
            Api::V3 => {
                let info = self.v3.clone().unwrap_or(V3Info {
                    rvalue: false,
                    arity: -1,
                    doc: String::new(),
                });
                b = b.doc(&info.doc);
                let body = V3Body {
                    shared: self.shared.clone(),
                    info,
                };
                b = b.dispatch_body(
                    Signature::new().repeated_param("Any", "args"),
                    Arc::new(body),
                );
            }
            Api::V4 => {
                b = b.doc(&format!(
                    "{} (Ruby function, {})",
                    self.name, self.shared.file
                ));
                for (n, t) in &self.local_types {
                    b = b.local_type(n, t.as_str());
                }
                if self.shared.own_call {
                    b = b.dispatch_body(
                        Signature::new()
                            .repeated_param("Any", "args")
                            .optional_block_param("Callable", "block"),
                        Arc::new(V4Body {
                            shared: self.shared.clone(),
                            method: "call".into(),
                            scope_param: true,
                            return_type: None,
                        }),
                    );
                    return b.register();
                }
                // The local types, made once for every dispatch's types.
                let lookup = local_lookup(&self.local_types, resolved);
                for d in &self.dispatches {
                    // The return type is checked by the body, which names the dispatch
                    // method as Puppet does.
                    let return_type = d
                        .return_type
                        .as_deref()
                        .and_then(|t| puppet_functions::parse_type(t, &lookup).ok());
                    let stripped;
                    let d = if return_type.is_some() {
                        stripped = Dispatch {
                            return_type: None,
                            ..d.clone()
                        };
                        &stripped
                    } else {
                        d
                    };
                    let sig = if resolved.is_empty() {
                        signature(d)
                    } else {
                        resolved_signature(d, &lookup)
                    };
                    if d.mismatch {
                        let shared = self.shared.clone();
                        let method = d.method.clone();
                        b = b.argument_mismatch(sig, move |args: &[Value]| {
                            mismatch_message(&shared, &method, args)
                        });
                    } else {
                        b = b.dispatch_body(
                            sig,
                            Arc::new(V4Body {
                                shared: self.shared.clone(),
                                method: d.method.clone(),
                                scope_param: d.scope_param,
                                return_type,
                            }),
                        );
                    }
                }
            }
        }
        b.register()
    }
}

impl RubyFunction {
    /// Calls a 4.x function as a Hiera 5 backend, as Puppet's function providers do:
    /// `args` (`options` for `data_hash`; the key or its segments and `options` for
    /// `lookup_key` and `data_dig`) followed by a `Puppet::LookupContext` whose methods go to
    /// `scope`'s [`lookup_host`](PuppetScope::lookup_host). The dispatch is the first whose
    /// arity accepts the arguments (the context's type is Puppet's own, so types are not
    /// checked). `Ok(None)` when the function said `context.not_found`.
    pub fn call_backend(
        &self,
        scope: &mut dyn PuppetScope,
        args: Vec<Value>,
    ) -> Result<Option<Value>, CallError> {
        if self.api != Api::V4 {
            return Err(CallError::new(
                codes::FAILED,
                format!(
                    "the 3.x function '{}' cannot be a Hiera backend (Puppet calls 4.x functions)",
                    self.name
                ),
            ));
        }
        let n = args.len() + 1;
        let (method, scope_param, mismatch) = if self.shared.own_call {
            ("call".to_string(), true, false)
        } else {
            // As Puppet's dispatcher: the first dispatch (or `argument_mismatch`) whose
            // parameter types accept the arguments (the context, Puppet's own, last).
            let candidates: Vec<&Dispatch> =
                self.dispatches.iter().filter(|d| d.takes(n)).collect();
            let found = candidates
                .iter()
                .find(|d| self.backend_mismatch(d, &args).is_none());
            match (found, candidates.iter().find(|d| !d.mismatch)) {
                (Some(d), _) => (d.method.clone(), d.scope_param, d.mismatch),
                (None, Some(d)) => {
                    let detail = self.backend_mismatch(d, &args).unwrap_or_default();
                    return Err(CallError::new(
                        codes::RUBY_ERROR,
                        format!("'{}' {detail}", self.name),
                    ));
                }
                (None, None) => {
                    return Err(CallError::new(
                        codes::ARGUMENT_MISMATCH,
                        format!("'{}' expects a different number of arguments than a Hiera backend is given ({n})", self.name),
                    ))
                }
            }
        };
        // Whether what the function raised is one of Puppet's errors (see below).
        let mut puppet_error = true;
        let self_name = &self.name;
        let r = with_interp(&self.shared, scope, |it, f| {
            let crate::puppet::DefinedFunction::V4 { class, .. } = f else {
                return crate::interp::unsupported(
                    "a 3.x function called as 4.x",
                    crate::Pos::default(),
                );
            };
            let obj = crate::puppet::new_function_instance(it, &class)?;
            let mut a = to_ruby_args(&args);
            for v in &a {
                crate::interp::freeze_strings(v, 0);
            }
            a.push(crate::lookup_context::new_context(it));
            if scope_param {
                a.insert(0, RValue::Scope);
            }
            let pos = crate::Pos::default();
            // Puppet's lookup catches `:no_such_key` around the backend call.
            it.catch_tags
                .push(RValue::sym(crate::lookup_context::NOT_FOUND_TAG));
            let r = it.send(obj, &method, a, None, None, pos, true);
            it.catch_tags.pop();
            match r {
                // An `argument_mismatch` method returns the message of the ArgumentError
                // Puppet raises, after the function's name.
                Ok(r) if mismatch => {
                    puppet_error = false;
                    raise(
                        "ArgumentError",
                        format!("'{}' {}", self_name, value::to_s(&r)),
                        pos,
                    )
                }
                Ok(r) => to_puppet_result(&r, pos).map(Some),
                Err(Ctrl::Throw(tv)) if matches!(&tv.0, RValue::Sym(s) if &**s == crate::lookup_context::NOT_FOUND_TAG) => {
                    Ok(None)
                }
                Err(Ctrl::Raise(e)) => {
                    puppet_error = it.is_puppet_error(&e.class);
                    Err(Ctrl::Raise(e))
                }
                Err(e) => Err(e),
            }
        });
        // Hiera wraps Puppet's errors of a backend in its global layer, not Ruby's own.
        match r {
            Err(CallError::Failed { message, .. }) if !puppet_error => {
                Err(CallError::new(codes::RUBY_ERROR, message))
            }
            r => r,
        }
    }
}

impl RubyFunction {
    /// Why dispatch `d` does not accept a backend's `args` (the arguments before the
    /// context, whose type is Puppet's own and not checked): Puppet's text for the first
    /// parameter whose type rejects its argument (`parameter 'options' expects a value for
    /// key 'path'`); `None` when it accepts them. A type this engine cannot parse accepts.
    fn backend_mismatch(&self, d: &Dispatch, args: &[Value]) -> Option<String> {
        let locals = &self.local_types;
        let lookup = |n: &str| {
            locals
                .iter()
                .find(|(l, _)| l == n)
                .and_then(|(_, t)| puppet_functions::parse_type(t, &|_: &str| None).ok())
        };
        let mut params = d.params.iter();
        let mut current: Option<&DispatchParam> = None;
        for a in args {
            let p = match params.next() {
                Some(p) => {
                    current = Some(p);
                    p
                }
                None => current.filter(|p| {
                    matches!(p.kind, ParamKind::Repeated | ParamKind::RequiredRepeated)
                })?,
            };
            let Ok(t) = puppet_functions::parse_type(&p.ty, &lookup) else {
                continue;
            };
            if let Some(detail) = puppet_types::mismatch::describe_value_mismatch("", &t, a) {
                return Some(format!("parameter '{}' {detail}", p.name));
            }
        }
        None
    }
}

/// A 4.x function whose signatures name types of the environment: each call resolves them
/// with the caller and dispatches over a registry made for that call.
struct LateTypes {
    function: RubyFunction,
    names: Vec<String>,
}

impl FunctionBody for LateTypes {
    fn call(&self, ctx: &mut dyn CallContext, args: Args<'_>) -> Result<Value, CallError> {
        let resolved: Vec<(String, puppet_types::Type)> = self
            .names
            .iter()
            .filter_map(|n| ctx.resolve_type_name(n).map(|t| (n.clone(), t)))
            .collect();
        let mut reg = Registry::new();
        self.function
            .register_resolved(&mut reg, false, &resolved)
            .map_err(|e| CallError::new(codes::ARGUMENT_MISMATCH, e.to_string()))?;
        reg.call(ctx, &self.function.name, args.values, args.block)
    }
}

/// The capitalized (possibly qualified) names of a type expression, outside its strings and
/// regexps: `Variant[Stdlib::HTTPUrl, Pattern[/A/]]` names `Variant`, `Stdlib::HTTPUrl`,
/// `Pattern`.
fn type_names(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'/') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            c if c.is_ascii_uppercase()
                || (c == b':' && b.get(i + 2).is_some_and(u8::is_ascii_uppercase)) =>
            {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b':')
                {
                    i += 1;
                }
                let name = text[start..i]
                    .trim_start_matches("::")
                    .trim_end_matches(':');
                if !name.is_empty() {
                    out.push(name.to_string());
                }
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// A dispatch's signature with its types parsed now, their names found by `lookup`
/// ([`local_lookup`]: the environment's, then the function's local types).
fn resolved_signature(
    d: &Dispatch,
    lookup: &(dyn Fn(&str) -> Option<puppet_types::Type> + Sync),
) -> Signature {
    let ty = |text: &str| -> TypeSpec {
        match puppet_functions::parse_type(text, &lookup) {
            Ok(t) => TypeSpec::Type(t),
            Err(_) => TypeSpec::Text(SmolStr::new(text)),
        }
    };
    let mut sig = Signature::new();
    for p in &d.params {
        sig = match p.kind {
            ParamKind::Required => sig.param(ty(&p.ty), &p.name),
            ParamKind::Optional => sig.optional_param(ty(&p.ty), &p.name),
            ParamKind::Repeated => sig.repeated_param(ty(&p.ty), &p.name),
            ParamKind::RequiredRepeated => sig.required_repeated_param(ty(&p.ty), &p.name),
        };
    }
    if let Some((t, name, optional)) = &d.block {
        sig = if *optional {
            sig.optional_block_param(ty(t), name)
        } else {
            sig.block_param(ty(t), name)
        };
    }
    if let Some(r) = &d.return_type {
        sig = sig.return_type(ty(r));
    }
    sig
}

/// The registry signature of a recorded dispatch.
pub(crate) fn signature_of(d: &Dispatch) -> Signature {
    signature(d)
}

fn signature(d: &Dispatch) -> Signature {
    let mut sig = Signature::new();
    for p in &d.params {
        sig = match p.kind {
            ParamKind::Required => sig.param(p.ty.as_str(), &p.name),
            ParamKind::Optional => sig.optional_param(p.ty.as_str(), &p.name),
            ParamKind::Repeated => sig.repeated_param(p.ty.as_str(), &p.name),
            ParamKind::RequiredRepeated => sig.required_repeated_param(p.ty.as_str(), &p.name),
        };
    }
    if let Some((ty, name, optional)) = &d.block {
        sig = if *optional {
            sig.optional_block_param(ty.as_str(), name)
        } else {
            sig.block_param(ty.as_str(), name)
        };
    }
    if let Some(r) = &d.return_type {
        sig = sig.return_type(r.as_str());
    }
    sig
}

/// Loads a function file: parses it (through `sources`' cache) and runs it to learn the
/// function it defines.
///
/// ```
/// use puppet_functions::{NullContext, Registry};
/// use puppet_types::Value;
/// let src = "Puppet::Functions.create_function(:'m::twice') do\n  dispatch :twice do\n    param 'Integer', :x\n  end\n  def twice(x)\n    x * 2\n  end\nend\n";
/// let f = puppet_ruby::functions::load("/m/lib/puppet/functions/m/twice.rb", src, &puppet_ruby::Sources::empty()).unwrap();
/// let mut reg = Registry::new();
/// f.register(&mut reg).unwrap();
/// let v = reg.call(&mut NullContext::default(), "m::twice", vec![Value::Integer(21)], None).unwrap();
/// assert_eq!(v, Value::Integer(42));
/// let e = reg.call(&mut NullContext::default(), "m::twice", vec![Value::string("a")], None).unwrap_err();
/// assert_eq!(e.to_string(), "'m::twice' parameter 'x' expects an Integer value, got String");
/// ```
pub fn load(path: &str, text: &str, sources: &Arc<Sources>) -> Result<RubyFunction, RubyError> {
    load_with_steps(path, text, sources, crate::interp::DEFAULT_STEPS)
}

/// [`load`] with a step budget for loading (at most 2 million) and for each call (the
/// fuzz target and its fixtures keep runaway code short).
pub fn load_with_steps(
    path: &str,
    text: &str,
    sources: &Arc<Sources>,
    steps: u64,
) -> Result<RubyFunction, RubyError> {
    let program = sources.program(path, text)?;
    let mut scope = LoadScope;
    let mut it = Interp::with(&mut scope, path, false, sources.clone());
    it.set_step_limit(steps.min(2_000_000));
    it.run_program(&program)
        .map_err(|c| RubyError::from_ctrl(path, c))?;
    let defined = std::mem::take(&mut it.ext.functions);
    let Some(f) = defined.into_iter().last() else {
        return Err(RubyError::Unsupported {
            file: path.to_string(),
            line: 1,
            column: 1,
            construct:
                "a function file that defines no function (no create_function or newfunction)"
                    .into(),
        });
    };
    match f {
        crate::puppet::DefinedFunction::V3 { name, info, .. } => Ok(RubyFunction {
            name: name.clone(),
            api: Api::V3,
            dispatches: Vec::new(),
            local_types: Vec::new(),
            v3: Some(info),
            shared: Arc::new(Shared {
                name,
                file: path.to_string(),
                program,
                sources: sources.clone(),
                own_call: false,
                steps,
            }),
        }),
        crate::puppet::DefinedFunction::V4 { name, class } => {
            let rec = crate::puppet::function_record(&class);
            let (mut dispatches, local_types) = match &rec {
                Some(r) => {
                    let r = r.borrow();
                    (r.dispatches.clone(), r.local_types.clone())
                }
                None => (Vec::new(), Vec::new()),
            };
            let own_call = class.methods.borrow().contains_key("call");
            if dispatches.iter().all(|d| d.mismatch) && !own_call {
                let simple = name.rsplit("::").next().unwrap_or(&name).to_string();
                match default_dispatch(&class, &simple) {
                    Some(d) => dispatches.push(d),
                    None => {
                        return Err(RubyError::Runtime {
                            file: path.to_string(),
                            line: 1,
                            column: 1,
                            class: "ArgumentError".into(),
                            message: format!("Function Load Error for function '{name}': Function Creation Error, cannot create a default dispatcher for function '{simple}', no method with this name found"),
                        })
                    }
                }
            }
            Ok(RubyFunction {
                name: name.clone(),
                api: Api::V4,
                dispatches,
                local_types,
                v3: None,
                shared: Arc::new(Shared {
                    name,
                    file: path.to_string(),
                    program,
                    sources: sources.clone(),
                    own_call,
                    steps,
                }),
            })
        }
    }
}

/// Puppet's dispatch for a 4.x function without `dispatch`: the method named like the
/// function, every parameter `Any`.
fn default_dispatch(class: &Rc<Module>, simple: &str) -> Option<Dispatch> {
    let (entry, _) = class.find_method(simple)?;
    let crate::object::Method::Ruby(def, _) = entry.method else {
        return None;
    };
    let p = &def.params;
    let mut params = Vec::new();
    let name_of = |x: &crate::ast::Param| match x {
        crate::ast::Param::Name(n) | crate::ast::Param::Splat(n) => n.clone(),
        crate::ast::Param::Destructure(_) => "args".into(),
    };
    for r in &p.required {
        params.push(DispatchParam {
            ty: "Any".into(),
            name: name_of(r),
            kind: ParamKind::Required,
        });
    }
    for (n, _) in &p.optional {
        params.push(DispatchParam {
            ty: "Any".into(),
            name: n.clone(),
            kind: ParamKind::Optional,
        });
    }
    if let Some(r) = &p.rest {
        params.push(DispatchParam {
            ty: "Any".into(),
            name: if r.is_empty() {
                "args".into()
            } else {
                r.clone()
            },
            kind: ParamKind::Repeated,
        });
    }
    Some(Dispatch {
        method: simple.to_string(),
        params,
        block: None,
        return_type: None,
        mismatch: false,
        scope_param: false,
    })
}

/// The scope a function file runs in while it is loaded: nothing to see.
struct LoadScope;

impl PuppetScope for LoadScope {
    fn lookup(&self, _name: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }
    fn call_function(&mut self, name: &str, _args: Vec<Value>) -> Result<Value, String> {
        Err(format!(
            "calling the function '{name}' while a function file is being loaded"
        ))
    }
}

/// The Puppet side of a call: the caller's context and the lambda given to the call.
struct CtxScope<'a> {
    ctx: &'a mut dyn CallContext,
    block: Option<&'a dyn Block>,
}

fn level(name: &str) -> LogLevel {
    LogLevel::from_name(name)
}

impl PuppetScope for CtxScope<'_> {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.ctx.variable(name.trim_start_matches("::"))
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        self.ctx.visible_variables()
    }
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        self.ctx.call_function(name, args, None).map_err(|e| {
            let m = match e {
                CallError::Failed { message, .. } => message,
                other => other.to_string(),
            };
            // The error of the called function reaches Ruby as it was raised: the
            // evaluator's call prefix is Puppet's for the outer call only.
            match m.strip_prefix("Error while evaluating a Function Call, ") {
                Some(rest) => rest.to_string(),
                None => m,
            }
        })
    }
    fn log(&mut self, lvl: &str, message: &str) {
        if let Some(key) = lvl.strip_prefix("deprecation:") {
            self.ctx.warn_once(key, message);
            return;
        }
        self.ctx.log(level(lvl), message);
    }
    fn log_from_scope(&mut self, lvl: &str, message: &str) {
        self.ctx.log_from_scope(level(lvl), message);
    }
    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        self.ctx.warn_once(key, message)
    }
    fn unknown_variable(&mut self, name: &str) -> Result<(), String> {
        self.ctx.ruby_variable_missing(name)
    }
    fn unknown_variable_reason(&mut self, name: &str) -> Option<String> {
        self.ctx.ruby_variable_reason(name)
    }
    fn catalog_resource(
        &mut self,
        type_name: &str,
        title: &str,
    ) -> Result<Option<Vec<(String, Value)>>, String> {
        match self.ctx.catalog() {
            Some(c) => Ok(c.resource(type_name, title)),
            None => Err("this call has no catalog".to_string()),
        }
    }
    fn function_exists(&mut self, name: &str, public_only: bool) -> Result<bool, String> {
        let what = match public_only {
            true => puppet_functions::Definable::PublicFunction(name),
            false => puppet_functions::Definable::Function(name),
        };
        self.ctx.is_defined(what).map_err(|e| e.to_string())
    }
    fn catalog_classes(&mut self) -> Option<Vec<String>> {
        self.ctx.catalog().and_then(|c| c.classes())
    }
    fn catalog_resources(&mut self) -> Option<Vec<(String, String)>> {
        self.ctx.catalog().and_then(|c| c.resources())
    }
    fn current_resource(&mut self) -> Result<Option<(String, String)>, String> {
        match self.ctx.catalog() {
            Some(c) => Ok(c.current_resource()),
            None => Err("this call has no catalog".to_string()),
        }
    }
    fn setting(&self, name: &str) -> Option<Value> {
        self.ctx.setting(name)
    }
    fn puppet_stack(&self) -> Vec<(String, u32)> {
        self.ctx.puppet_stack()
    }
    fn block_params(&self) -> Option<(usize, Option<usize>)> {
        self.block.map(|b| {
            let sig = b.signature();
            (sig.min, sig.max)
        })
    }
    fn call_block(&mut self, args: Vec<Value>) -> Result<Value, String> {
        match self.block {
            Some(b) => match self.ctx.call_block(b, args) {
                Ok(v) | Err(CallError::Next(v)) => Ok(v),
                Err(e) => Err(e.to_string()),
            },
            None => Err("no block given (yield)".into()),
        }
    }
}

thread_local! {
    /// How many Ruby function calls are running on this thread, one inside another (a
    /// function calling a Puppet function that calls a Ruby function...).
    static NESTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The most Ruby function calls running one inside another.
const MAX_NESTED: usize = 64;

/// Runs one call: a fresh interpreter runs the file's tree, then `run` calls into it.
fn with_interp<T>(
    shared: &Shared,
    scope: &mut dyn PuppetScope,
    run: impl FnOnce(&mut Interp, crate::puppet::DefinedFunction) -> Result<T, Ctrl>,
) -> Result<T, CallError> {
    let depth = NESTED.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            NESTED.with(|n| n.set(n.get().saturating_sub(1)));
        }
    }
    let _leave = Leave;
    if depth > MAX_NESTED {
        return Err(CallError::new(
            codes::FAILED,
            format!(
                "stack level too deep (more than {MAX_NESTED} Ruby function calls inside one another, calling '{}')",
                shared.name
            ),
        ));
    }
    crate::with_stack(|| with_interp_inner(shared, scope, run))
}

fn with_interp_inner<T>(
    shared: &Shared,
    scope: &mut dyn PuppetScope,
    run: impl FnOnce(&mut Interp, crate::puppet::DefinedFunction) -> Result<T, Ctrl>,
) -> Result<T, CallError> {
    let mut it = Interp::with(scope, &shared.file, false, shared.sources.clone());
    it.set_step_limit(shared.steps);
    let r = (|| {
        it.run_program(&shared.program)?;
        let f = it
            .ext
            .functions
            .iter()
            .rev()
            .find(|f| f.name() == shared.name)
            .cloned();
        match f {
            Some(f) => run(&mut it, f),
            None => crate::interp::unsupported(
                format!(
                    "the function '{}' is no longer defined by its file",
                    shared.name
                ),
                crate::Pos::default(),
            ),
        }
    })();
    r.map_err(|c| {
        // An exception that is not a StandardError (`NotImplementedError`, `LoadError`, a
        // bare `Exception`) passes Puppet's evaluator unwrapped: its message alone is the
        // compile's error.
        let bare = matches!(&c, Ctrl::Raise(e) if !it.is_standard_error(&e.class));
        match call_error(&shared.file, c) {
            CallError::Failed { message, .. } if bare => CallError::new(codes::UNRESCUED, message),
            e => e,
        }
    })
}

/// A Ruby error as the error of a function call (Puppet's message: the exception's).
fn call_error(file: &str, c: Ctrl) -> CallError {
    match c {
        Ctrl::Raise(e) => {
            let msg = e.message.clone();
            if e.class == "ArgumentError" && msg.contains("Wrong number of arguments given") {
                return CallError::new(codes::ARGUMENT_MISMATCH, msg);
            }
            CallError::new(codes::FAILED, msg)
        }
        other => {
            let e = RubyError::from_ctrl(file, other);
            CallError::new(codes::UNSUPPORTED, e.to_string())
        }
    }
}

fn to_ruby_args(args: &[Value]) -> Vec<RValue> {
    args.iter().map(value::from_puppet).collect()
}

/// A function's (or a Hiera backend's) result as a Puppet value. An Integer beyond 64 bits
/// fails with Puppet's own error (`Use of a Ruby Integer outside of Puppet Integer max range,
/// got '0x10000000000000000'`). Puppet 7.23 itself keeps such a value and fails only where
/// it reaches a resource attribute or Puppet arithmetic (string interpolation of it works):
/// this engine's Puppet values are 64-bit, so it fails at the hand-over.
fn to_puppet_result(v: &RValue, pos: crate::Pos) -> Result<Value, Ctrl> {
    value::to_puppet(v).or_else(|e| {
        if e.starts_with(crate::bigint::PUPPET_RANGE_PREFIX) {
            crate::interp::raise("Puppet::Error", e, pos)
        } else {
            crate::interp::unsupported(format!("the function's result: {e}"), pos)
        }
    })
}

struct V4Body {
    shared: Arc<Shared>,
    method: String,
    scope_param: bool,
    /// The dispatch's `return_type`, checked after the call.
    return_type: Option<puppet_types::Type>,
}

/// How a signature's type names resolve: the environment's types in `resolved`, then the
/// function's local types. Each local type is an alias, so local types may name each other
/// (and themselves) and the environment's types (`Rule = Struct[{port => Acme::Port}]`); one
/// that does not parse stays unresolved (a `TypeReference`, as the registry reports it).
fn local_lookup<'a>(
    locals: &[(String, String)],
    resolved: &'a [(String, puppet_types::Type)],
) -> impl Fn(&str) -> Option<puppet_types::Type> + 'a {
    let aliases: Vec<(String, puppet_types::Type)> = locals
        .iter()
        .map(|(n, _)| {
            let alias = puppet_types::TypeAlias::new(n);
            (n.clone(), puppet_types::Type::Alias(alias))
        })
        .collect();
    let lookup = move |n: &str| {
        resolved
            .iter()
            .chain(&aliases)
            .find(|(r, _)| r == n)
            .map(|(_, t)| t.clone())
    };
    for (name, text) in locals {
        if let (Ok(t), Some(puppet_types::Type::Alias(a))) =
            (puppet_functions::parse_type(text, &lookup), lookup(name))
        {
            a.resolve_to(t);
        }
    }
    lookup
}

impl FunctionBody for V4Body {
    fn call(&self, ctx: &mut dyn CallContext, args: Args<'_>) -> Result<Value, CallError> {
        let block = args.block;
        let values = args.values;
        let mut scope = CtxScope { ctx, block };
        with_interp(&self.shared, &mut scope, |it, f| {
            let crate::puppet::DefinedFunction::V4 { class, .. } = f else {
                return crate::interp::unsupported(
                    "a 3.x function called as 4.x",
                    crate::Pos::default(),
                );
            };
            let obj = crate::puppet::new_function_instance(it, &class)?;
            let mut a = to_ruby_args(&values);
            // Puppet hands a 4.x function its strings frozen.
            for v in &a {
                crate::interp::freeze_strings(v, 0);
            }
            if self.scope_param {
                a.insert(0, RValue::Scope);
            }
            let blk: Option<Blk> =
                block.map(|_| it.make_proc_of(crate::object::ProcBody::Foreign, true));
            let pos = crate::Pos::default();
            let r = it.send(obj, &self.method, a, None, blk.as_ref(), pos, true)?;
            to_puppet_result(&r, pos)
        })
        .and_then(|value| match &self.return_type {
            Some(rt) if !puppet_types::is_instance(rt, &value) => Err(CallError::new(
                codes::RETURN_TYPE,
                puppet_types::mismatch::describe_mismatch(
                    &format!(
                        "value returned from function '{}' has wrong type,",
                        self.method
                    ),
                    rt,
                    &puppet_types::infer_set(&value),
                ),
            )),
            _ => Ok(value),
        })
    }
}

struct V3Body {
    shared: Arc<Shared>,
    info: V3Info,
}

/// Puppet's 3.x arity check, with its message.
pub fn check_v3_arity(name: &str, arity: i64, given: usize) -> Result<(), CallError> {
    let given = given as i64;
    if arity >= 0 && given != arity {
        return Err(CallError::new(
            codes::ARGUMENT_MISMATCH,
            format!("{name}(): Wrong number of arguments given ({given} for {arity})"),
        ));
    }
    if arity < 0 && given < -arity - 1 {
        return Err(CallError::new(
            codes::ARGUMENT_MISMATCH,
            format!(
                "{name}(): Wrong number of arguments given ({given} for minimum {})",
                -arity - 1
            ),
        ));
    }
    Ok(())
}

pub use puppet_types::ruby::v3_args;

impl FunctionBody for V3Body {
    fn call(&self, ctx: &mut dyn CallContext, args: Args<'_>) -> Result<Value, CallError> {
        check_v3_arity(&self.shared.name, self.info.arity, args.values.len())?;
        let values = v3_args(args.values);
        let rvalue = self.info.rvalue;
        let name = self.shared.name.clone();
        let mut scope = CtxScope { ctx, block: None };
        with_interp(&self.shared, &mut scope, |it, f| {
            let crate::puppet::DefinedFunction::V3 { block, .. } = f else {
                return crate::interp::unsupported(
                    "a 4.x function called as 3.x",
                    crate::Pos::default(),
                );
            };
            let a = RValue::array(
                (values.iter())
                    .map(|v| crate::catalog::v3_argument(it, v))
                    .collect(),
            );
            let pos = crate::Pos::default();
            let scope_class = it
                .module_by_path("Puppet::Parser::Scope")
                .unwrap_or_else(|| it.object_class());
            let r = it.call_block_as(
                &block,
                vec![a],
                Some((RValue::Scope, scope_class)),
                None,
                true,
                Some(&format!("real_function_{name}")),
                pos,
            )?;
            if rvalue {
                to_puppet_result(&r, pos)
            } else {
                Ok(Value::Undef)
            }
        })
    }
}

/// Runs an `argument_mismatch` method (it returns the error text) without a caller's
/// context.
fn mismatch_message(shared: &Shared, method: &str, args: &[Value]) -> String {
    let mut scope = LoadScope;
    let r = with_interp(shared, &mut scope, |it, f| {
        let crate::puppet::DefinedFunction::V4 { class, .. } = f else {
            return Ok(RValue::Nil);
        };
        let obj = crate::puppet::new_function_instance(it, &class)?;
        it.send(
            obj,
            method,
            to_ruby_args(args),
            None,
            None,
            crate::Pos::default(),
            true,
        )
        .map(|v| RValue::string(value::to_s(&v)))
    });
    match r {
        Ok(v) => value::to_s(&v),
        Err(e) => e.to_string(),
    }
}
