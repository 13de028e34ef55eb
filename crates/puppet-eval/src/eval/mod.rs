//! The evaluator: the [`Compiler`] that holds one compile's state, and expression evaluation.
//!
//! A [`Compiler`] holds everything one compile owns (scopes, logs, the catalog under
//! construction) and evaluates the IR of an [`Environment`] that it shares with other
//! compiles. This file has the state and the expression dispatcher; the parts of evaluation
//! are in the submodules (variables, operators, access, types, calls, binding, the
//! `CallContext`). Expressions that build the catalog (resources, collectors, overrides,
//! relationships, classes) are handed to the catalog builder in `crate::compile`.
//!
//! Errors carry Puppet's texts and the span of the expression that failed; runtime failures
//! inside an operator or a call are reported as Puppet does: "Error while evaluating a '+'
//! expression, `<detail>`" at that expression.

pub(crate) mod bind;
mod call;
mod context;
mod index;
mod operators;
mod top;
mod types;
mod vars;

pub(crate) use bind::{Args, Owner};
pub(crate) use types::known_types;
use vars::ParamGuard;

use crate::catalog::{Catalog, ResourceKey};
use crate::env::Environment;
use crate::error::{codes, err, ErrorKind, EvalError, Flow, LogEntry, R};
use crate::ir::*;
use crate::ops;
use crate::scope::{Scope, ScopeId, ScopeKind, Scopes};
use crate::settings::Settings;
use puppet_functions::LogLevel;
use puppet_types::{Type, TypeAlias, Value};
use smol_str::SmolStr;
use std::collections::HashMap;
use std::sync::Arc;

const MAX_DEPTH: u32 = 400;

/// How many nested evaluations share one stack check in an optimised build (see
/// [`Compiler::eval`]).
const STACK_CHECK_EVERY: u32 = 4;
/// The stack one level of evaluation may use before the next one checks: 64 kB per level.
const STACK_PER_LEVEL: usize = 64 * 1024;
/// The stack left at a check, below which evaluation goes on in a new segment.
const STACK_RED_ZONE: usize = if cfg!(debug_assertions) {
    STACK_PER_LEVEL
} else {
    STACK_PER_LEVEL * STACK_CHECK_EVERY as usize
};
/// The size of a new stack segment.
const STACK_SEGMENT: usize = 1024 * 1024;

/// One compile: scopes, logs and the catalog under construction.
pub struct Compiler {
    pub(crate) env: Arc<Environment>,
    pub(crate) settings: Settings,
    pub(crate) scopes: Scopes,
    pub(crate) top: ScopeId,
    pub(crate) logs: Vec<LogEntry>,
    pub(crate) catalog: Catalog,
    /// The catalog builder's own bookkeeping (private to `crate::compile`).
    pub(crate) build: crate::compile::Builder,
    aliases: crate::Map<SmolStr, TypeAlias>,
    depth: u32,
    /// Expressions evaluated so far (see [`Settings::max_steps`]).
    steps: u64,
    /// The scope calls from functions see (`CallContext::variable`).
    pub(crate) current: ScopeId,
    /// The span of the call being made to the registry (for its errors).
    pub(crate) call_span: Option<Span>,
    /// An evaluator error raised inside a lambda called by a registry function, kept so
    /// it surfaces with its own message and location.
    pub(crate) pending_error: Option<EvalError>,
    /// Where a `break()` or `return()` passed through a function was made, until the call
    /// reports it.
    pending_flow_at: Option<Span>,
    /// What Hiera's backend functions keep for the compile (`crate::hiera_ruby`).
    pub(crate) hiera_backends: crate::hiera_ruby::Backends,
    /// Puppet's lookup adapter for this compilation (the `lookup_options` of each module, once).
    pub(crate) hiera_adapter: std::rc::Rc<puppet_hiera::LookupAdapter>,
    /// The keys whose Hiera backend functions are calling Puppet functions right now
    /// (innermost last): a lookup of one of them from such a call is Puppet's recursive
    /// lookup ([`crate::hiera_ruby`]).
    pub(crate) hiera_calling: Vec<String>,
    /// The Hiera backend functions written in the Puppet language being called (innermost
    /// last), which their `Puppet::LookupContext`'s functions serve.
    pub(crate) hiera_puppet_calls: Vec<crate::hiera_ruby::PuppetCall>,
    /// Set when resolving a type name found an alias that only refers to aliases.
    unresolvable_alias: Option<SmolStr>,
    /// Set when an Object type alias failed its validation.
    invalid_alias: Option<String>,
    /// The output of every ERB template rendered (see `Compiled::template_outputs`).
    pub(crate) template_outputs: Vec<String>,
    /// The Puppet-language functions called so far, as registry functions (their
    /// signatures evaluated by this compile).
    puppet_functions: HashMap<SmolStr, Arc<puppet_functions::Function>>,
    /// Set while a Ruby function declares a resource with a non-String title.
    pub(crate) untagged_title: bool,
    /// How the calls being evaluated are named in errors, innermost last.
    call_labels: Vec<&'static str>,
    /// Evaluating a type string as Puppet's type parser does: an unknown name with
    /// parameters is a `TypeReference` of the whole text rather than an error.
    pub(crate) type_parser_mode: bool,
    /// The Pcore annotations attached to values during this compile (`annotate`).
    annotations: puppet_functions::Annotations,
    /// Every type name resolved so far and what it denotes (see `resolve_type`).
    resolved_types: rustc_hash::FxHashMap<SmolStr, Type>,
    /// Where string interpolations are written before they become a `SmolStr` (one
    /// buffer for the compile; a nested interpolation uses a buffer of its own).
    concat_buf: String,
    /// Where automatic parameter lookup writes its keys (`<class>::<param>`).
    pub(crate) key_buf: String,
    /// Set by `eval_block` while it evaluates a resource expression whose value it throws
    /// away; the expression takes (and clears) it before anything else is evaluated.
    value_unused: bool,
    /// Parameters whose default expression is being evaluated, innermost last.
    param_guards: Vec<ParamGuard>,
    /// An error of a function parameter's type expression: reported as it is, where the
    /// type is written, not wrapped as an error of the call.
    param_type_error: Option<EvalError>,
    /// The keys of the warnings logged once a compilation (`CallContext::deprecation_at_call`,
    /// Hiera's warnings about data files).
    pub(crate) warned_once: indexmap::IndexSet<String>,
    /// Puppet's call stack (`CallContext::puppet_stack`), outermost first: each frame's file
    /// and the offset of the call in it (`None`: a program, line 0). File names and lines
    /// are made only when the stack is asked for (most compiles never ask).
    puppet_stack: Vec<(Arc<SourceFile>, Option<u32>)>,
    /// The text of the EPP template being rendered.
    pub(crate) render_buffer: String,
    /// The encoding of `render_buffer` (Puppet joins the rendered pieces with `Array#join`).
    pub(crate) render_encoding: puppet_types::string::JoinEncoding,
    /// Set when the EPP template being rendered output a Sensitive value.
    pub(crate) render_sensitive: bool,
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("logs", &self.logs.len())
            .finish()
    }
}

impl Compiler {
    pub fn new(env: Arc<Environment>, settings: Settings) -> Compiler {
        let mut scopes = Scopes::with_capacity(env.scope_count_hint());
        let mut top_scope = Scope::new(ScopeKind::Top, None, "Class[main]".into());
        top_scope.resource = Some(ResourceKey::new("Class", "main"));
        top_scope.vars = top::top_vars(&settings);
        let top = scopes.add(top_scope);
        let catalog_size = env.catalog_size_hint();
        let mut c = Compiler {
            env,
            settings,
            scopes,
            top,
            build: Default::default(),
            logs: Vec::new(),
            catalog: crate::compile::initial_catalog(catalog_size),
            aliases: Default::default(),
            depth: 0,
            steps: 0,
            current: top,
            call_span: None,
            pending_error: None,
            pending_flow_at: None,
            hiera_backends: Default::default(),
            hiera_adapter: Default::default(),
            hiera_calling: Vec::new(),
            hiera_puppet_calls: Vec::new(),
            unresolvable_alias: None,
            type_parser_mode: false,
            annotations: puppet_functions::Annotations::new(),
            resolved_types: Default::default(),
            concat_buf: String::new(),
            key_buf: String::new(),
            value_unused: false,
            param_guards: Vec::new(),
            param_type_error: None,
            warned_once: indexmap::IndexSet::new(),
            puppet_stack: Vec::new(),
            render_buffer: String::new(),
            render_encoding: Default::default(),
            render_sensitive: false,
            call_labels: Vec::new(),
            template_outputs: Vec::new(),
            puppet_functions: HashMap::new(),
            untagged_title: false,
            invalid_alias: None,
        };
        c.add_class_scope("main", top);
        c.add_class_scope("", top);
        // `$settings::x`: the settings Puppet exposes to manifests. The scope holds only the
        // class's own `$name` and `$title`; the settings are read from the table when asked
        // for (`Compiler::setting_var`), so a compile pays nothing for the ones it does not
        // read.
        let mut settings_scope = Scope::new(
            ScopeKind::Class("settings".into()),
            Some(top),
            "Class[Settings]".into(),
        );
        for var in ["name", "title"] {
            settings_scope
                .vars
                .insert(var.into(), Value::string("settings"));
        }
        let sid = c.scopes.add(settings_scope);
        c.add_class_scope("settings", sid);
        c
    }

    /// The module path and main manifest of the compile's environment, as the settings
    /// `modulepath` and `manifest` give them, and the `environmentpath` its directory is in.
    pub(crate) fn env_paths(&self) -> crate::settings::EnvPaths {
        let config = self.env.loader().config();
        let modulepath = (config.modulepath.iter())
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join(":");
        let manifest = (config.manifest.as_ref()).map(|p| p.to_string_lossy().into_owned());
        let environmentpath = (config.env_dir.as_deref())
            .filter(|d| {
                d.file_name()
                    .is_some_and(|n| *n == *self.settings.environment)
            })
            .and_then(|d| d.parent())
            .map(|p| p.to_string_lossy().into_owned());
        crate::settings::EnvPaths {
            modulepath,
            manifest,
            environmentpath,
        }
    }

    /// Puppet setting `name` as `$settings::name` reads it (`all_local`: all of them);
    /// `None` for a name Puppet does not have. A value that does not resolve (an override
    /// [`Settings::with_setting`] did not check) reads as `undef`.
    pub(crate) fn setting_var(&self, name: &str) -> Option<Value> {
        let env = self.env_paths();
        if name == "all_local" {
            return Some(self.settings.all_settings(&env));
        }
        self.settings
            .setting_in(name, &env)
            .map(|r| r.unwrap_or(Value::Undef))
    }

    /// `$module_name` for code at `span`: the module whose directory holds its file, `''`
    /// for the main manifest and code without a file.
    pub(crate) fn module_of(&self, span: &Span) -> Value {
        let Some(path) = &span.file.path else {
            return Value::string("");
        };
        Value::string(self.env.module_of_path(path).unwrap_or(""))
    }

    /// The resource types this compile knows (its environment's).
    pub(crate) fn types(&self) -> Arc<puppet_restypes::TypeDatabase> {
        self.env.types()
    }

    /// Evaluates the main manifests; returns the value of the last top-level statement.
    pub fn evaluate_main(&mut self) -> Result<Value, EvalError> {
        let env = self.env.clone();
        let mut last = Value::Undef;
        for file in env.main_files() {
            // Puppet's stack frame of a program (its file, line 0).
            self.puppet_stack.push((file.file.clone(), None));
            let r = self.eval_block(&file.statements, self.top);
            self.puppet_stack.pop();
            match r {
                Ok(v) => last = v,
                Err(f) => return Err(self.flow_to_error(f)),
            }
        }
        if let Err(f) = self.evaluate_node() {
            return Err(self.flow_to_error(f));
        }
        if let Err(f) = self.evaluate_enc_classes() {
            return Err(self.flow_to_error(f));
        }
        if let Err(f) = self.finish() {
            return Err(self.flow_to_error(f));
        }
        self.env.note_scope_count(self.scopes.slot_count());
        Ok(last)
    }

    pub(crate) fn flow_to_error(&self, f: Flow) -> EvalError {
        match f {
            Flow::Error(e) => e,
            Flow::Break(span) => EvalError {
                code: crate::error::codes::EVAL_ERROR,
                kind: Default::default(),
                message: "break() from context where this is illegal".into(),
                span,
            },
            Flow::Next(_) => EvalError {
                code: crate::error::codes::EVAL_ERROR,
                kind: Default::default(),
                message: "next() from context where this is illegal".into(),
                span: None,
            },
            Flow::Return(_, span) => EvalError {
                code: crate::error::codes::EVAL_ERROR,
                kind: Default::default(),
                message: "return() from context where this is illegal".into(),
                span,
            },
        }
    }

    pub(crate) fn log(&mut self, level: LogLevel, message: String, scope: Option<String>) {
        self.logs.push(LogEntry {
            level,
            message,
            scope,
        });
    }

    /// Puppet's `storeconfigs` setting (off unless set).
    pub(crate) fn storeconfigs(&self) -> bool {
        matches!(
            self.settings.setting("storeconfigs"),
            Some(Ok(Value::Boolean(true)))
        )
    }

    pub(crate) fn warn(&mut self, message: String) {
        self.log(LogLevel::Warning, message, None);
    }

    pub(crate) fn eval_block(&mut self, stmts: &[Expr], scope: ScopeId) -> R<Value> {
        let mut last = Value::Undef;
        let Some((tail, init)) = stmts.split_last() else {
            return Ok(last);
        };
        self.eval_statements(init, scope)?;
        last = self.eval(tail, scope)?;
        Ok(last)
    }

    /// Evaluates a class or define body, whose value nobody uses (as [`Compiler::eval_block`]
    /// with the last statement's value thrown away too).
    pub(crate) fn eval_body(&mut self, stmts: &[Expr], scope: ScopeId) -> R<()> {
        self.eval_statements(stmts, scope)
    }

    /// Evaluates statements whose values are thrown away.
    fn eval_statements(&mut self, stmts: &[Expr], scope: ScopeId) -> R<()> {
        for s in stmts {
            // The value of a statement followed by others is thrown away: a resource
            // expression is told so (it then makes no references), and its value is undef.
            if matches!(s.kind, ExprKind::Resource { .. }) {
                self.value_unused = true;
                let r = self.eval(s, scope);
                self.value_unused = false;
                r?;
            } else {
                self.eval(s, scope)?;
            }
        }
        Ok(())
    }

    /// Releases a finished lambda or function-call scope (see [`Scopes::release`]), and the
    /// catalog builder the resource defaults declared in it.
    pub(crate) fn release_scope(&mut self, id: ScopeId) {
        self.forget_defaults(id);
        self.scopes.release(id);
    }

    pub fn eval(&mut self, e: &Expr, scope: ScopeId) -> Result<Value, Flow> {
        self.steps += 1;
        if self.steps > self.settings.max_steps {
            return Err(Flow::Error(EvalError {
                code: codes::STEP_LIMIT,
                kind: ErrorKind::Evaluation,
                message: format!(
                    "Evaluation stopped after {} steps: the code does not finish (Settings::max_steps)",
                    self.settings.max_steps
                ),
                span: Some(e.span.clone()),
            }));
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return err(
                "Stack level too deep: expression nesting exceeded the evaluator's limit",
                &e.span,
            );
        }
        // Deep (but bounded) Puppet code may need more stack than the caller's thread has:
        // grow it in segments instead of overflowing. An optimised build asks how much is
        // left at every `STACK_CHECK_EVERY`th level only (from the first: asking reads a
        // thread-local and the stack pointer, a visible part of a small expression's cost),
        // with a red zone that covers the levels up to the next check as one per level
        // would; a debug build, whose frames are many times bigger, asks at every level.
        let r = if cfg!(debug_assertions) || self.depth % STACK_CHECK_EVERY == 1 {
            stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.eval_inner(e, scope))
        } else {
            self.eval_inner(e, scope)
        };
        self.depth -= 1;
        r
    }

    fn eval_inner(&mut self, e: &Expr, scope: ScopeId) -> R<Value> {
        match &e.kind {
            ExprKind::Literal(v) => Ok((**v).clone()),
            ExprKind::Name(n) => Ok(Value::String(n.clone().into())),
            ExprKind::TypeName(n) => {
                let t = self.resolve_type(n);
                if let Some(msg) = self.invalid_alias.take() {
                    return err(
                        format!("Error while evaluating a Type-Name, {msg}"),
                        &e.span,
                    );
                }
                if let Some(bad) = self.unresolvable_alias.take() {
                    return err(
                        format!("Error while evaluating a Type-Name, Type alias '{bad}' cannot be resolved to a real type"),
                        &e.span,
                    );
                }
                if let Type::TypeReference(name) = &t {
                    if !self.type_parser_mode {
                        return err(format!("Resource type not found: {name}"), &e.span);
                    }
                }
                Ok(Value::Type(t))
            }
            ExprKind::Concat(parts) => {
                // The compile's buffer (an interpolation inside this one finds it taken
                // and makes its own), so the text is allocated once, as the `SmolStr`.
                let mut out = std::mem::take(&mut self.concat_buf);
                out.clear();
                let mut failed = None;
                // Whether the text is binary (Ruby's ASCII-8BIT): Puppet joins the segments
                // with `Array#join`.
                let mut encoding = puppet_types::string::JoinEncoding::default();
                for p in parts {
                    let start = out.len();
                    let segment_binary = match p {
                        StrPart::Text(t) => {
                            out.push_str(t);
                            false
                        }
                        StrPart::Expr(x) => match self.eval(x, scope) {
                            // Appended straight to the string being made.
                            Ok(v) => {
                                puppet_types::format::interpolated_value(&mut out, &v);
                                matches!(&v, Value::String(s) if s.is_binary())
                            }
                            Err(f) => {
                                failed = Some(f);
                                break;
                            }
                        },
                    };
                    if let Err(message) = encoding.push(&out, start, segment_binary) {
                        let message =
                            format!("Error while evaluating a Double Quoted String, {message}");
                        failed = err::<()>(message, &e.span).err();
                        break;
                    }
                }
                let v = Value::String(puppet_types::Str::with_binary(
                    out.as_str(),
                    encoding.is_binary(),
                ));
                self.concat_buf = out;
                match failed {
                    Some(f) => Err(f),
                    None => Ok(v),
                }
            }
            ExprKind::Var(name) => self.read_var(name, scope, &e.span),
            ExprKind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    if let ExprKind::Unfold(inner) = &it.kind {
                        let v = self.eval(inner, scope)?;
                        out.extend(unfold_value(v));
                    } else {
                        out.push(self.eval(it, scope)?);
                    }
                }
                Ok(Value::array(out))
            }
            ExprKind::Hash(entries) => {
                let mut map = puppet_types::value::ValueMap::with_capacity_and_hasher(
                    entries.len(),
                    Default::default(),
                );
                for (k, v) in entries {
                    let kv = self.eval(k, scope)?;
                    let vv = self.eval(v, scope)?;
                    map.insert(kv, vv);
                }
                Ok(Value::Hash(Arc::new(map)))
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, scope, &e.span),
            ExprKind::And(l, r) => {
                let a = self.eval(l, scope)?;
                if !ops::truthy(&a) {
                    return Ok(Value::Boolean(false));
                }
                let b = self.eval(r, scope)?;
                Ok(Value::Boolean(ops::truthy(&b)))
            }
            ExprKind::Or(l, r) => {
                let a = self.eval(l, scope)?;
                if ops::truthy(&a) {
                    return Ok(Value::Boolean(true));
                }
                let b = self.eval(r, scope)?;
                Ok(Value::Boolean(ops::truthy(&b)))
            }
            ExprKind::Not(x) => {
                let v = self.eval(x, scope)?;
                Ok(Value::Boolean(!ops::truthy(&v)))
            }
            ExprKind::Neg(x) => {
                let v = self.eval(x, scope)?;
                match v {
                    Value::Integer(i) => match i.checked_neg() {
                        Some(n) => Ok(Value::Integer(n)),
                        None => err("Error while evaluating a Unary Minus, integer overflow", &e.span),
                    },
                    Value::Float(f) => Ok(Value::Float(-f)),
                    Value::Timespan(t) => Ok(Value::Timespan(puppet_types::Timespan::from_secs_f64(-t.as_secs_f64()))),
                    Value::String(s) => match ops::parse_numeric_string(&s) {
                        Some(n @ (Value::Integer(_) | Value::Float(_))) => {
                            self.coerced(&s, &n, &e.span)?;
                            Ok(match n {
                                Value::Integer(i) => Value::Integer(-i),
                                Value::Float(f) => Value::Float(-f),
                                other => other,
                            })
                        },
                        _ => err(ops::not_numeric(&Value::String(s)), &e.span),
                    },
                    // Ruby's `-@` of a SemVer (a Numeric) coerces it to a Float.
                    Value::SemVer(_) => err(
                        "Error while evaluating an Unary Minus, can't convert SemanticPuppet::Version into Float",
                        &e.span,
                    ),
                    other => err(ops::not_numeric(&other), &e.span),
                }
            }
            ExprKind::Unfold(x) => {
                let v = self.eval(x, scope)?;
                Ok(Value::array(unfold_value(v)))
            }
            ExprKind::Assign(lhs, rhs) => {
                let v = self.eval(rhs, scope)?;
                // Puppet reports a failed assignment at its `=`.
                self.assign(lhs, v.clone(), scope, &e.span)?;
                Ok(v)
            }
            ExprKind::Access(target, keys) => {
                // A type or resource reference written with constants only (`Array[String]`,
                // `File['/etc/motd']`) has the same value every time: evaluated once.
                if !self.type_parser_mode
                    && matches!(target.kind, ExprKind::TypeName(_))
                    && is_constant_type_expr(e, 0)
                {
                    return self.const_type_expr(e, |c| c.eval_access(e, target, keys, scope));
                }
                self.eval_access(e, target, keys, scope)
            }
            ExprKind::Selector(target, entries) => {
                self.scopes.get_mut(scope).matches.push(Vec::new());
                let r = self.selector(e, target, entries, scope);
                self.scopes.get_mut(scope).matches.pop();
                r
            }
            ExprKind::If { .. } | ExprKind::Unless { .. } | ExprKind::Case { .. } => {
                // Match variables set by the condition live until the construct ends.
                self.scopes.get_mut(scope).matches.push(Vec::new());
                let r = self.conditional(e, scope);
                self.scopes.get_mut(scope).matches.pop();
                r
            }
            ExprKind::Call {
                name, args, lambda, ..
            } => {
                let argv = self.eval_args(args, scope)?;
                self.call_named(name, argv, lambda.as_ref(), scope, &e.span)
            }
            ExprKind::CallType {
                target,
                args,
                lambda,
            } => {
                let t = self.eval(target, scope)?;
                let mut argv = vec![t];
                argv.extend(self.eval_args(args, scope)?);
                self.call_named("new", argv, lambda.as_ref(), scope, &e.span)
            }
            ExprKind::MethodCall {
                receiver,
                name,
                args,
                lambda,
            } => {
                let r = self.eval(receiver, scope)?;
                let rest = self.eval_args(args, scope)?;
                // A URI's parts are attributes (`$uri.host`).
                if let (Value::Uri(u), true) = (&r, rest.is_empty() && lambda.is_none()) {
                    if let Some(v) = u.to_parameter_map().get(name.as_str()) {
                        return Ok(v.clone());
                    }
                    if matches!(
                        name.as_str(),
                        "scheme"
                            | "userinfo"
                            | "host"
                            | "port"
                            | "path"
                            | "query"
                            | "fragment"
                            | "opaque"
                    ) {
                        return Ok(Value::Undef);
                    }
                }
                // An object's attributes and member functions come first; a Hiera
                // backend's `Puppet::LookupContext` functions are the lookup's.
                if let Value::Object(o) = &r {
                    if o.type_name() == "Puppet::LookupContext"
                        && o.object_type.function(name).is_some()
                    {
                        return crate::hiera_ruby::context_function(
                            self,
                            name,
                            rest,
                            lambda.as_ref(),
                            scope,
                            &e.span,
                        );
                    }
                    if lambda.is_none() {
                        if let Some(res) = o.call(name, &rest) {
                            return match res {
                                Ok(v) => Ok(v),
                                Err(x) => err(
                                    format!("Error while evaluating a Method call, {x}"),
                                    &e.span,
                                ),
                            };
                        }
                    }
                }
                let mut argv = vec![r];
                argv.extend(rest);
                self.call_labeled("Method call", name, argv, lambda.as_ref(), scope, &e.span)
            }
            ExprKind::Block(stmts) => self.eval_block(stmts, scope),
            ExprKind::Resource {
                form,
                type_expr,
                bodies,
            } => {
                // (Set by `eval_block` for this expression only.)
                let want = !std::mem::replace(&mut self.value_unused, false);
                self.resource_expr(*form, type_expr, bodies, scope, &e.span, want)
            }
            ExprKind::ResourceDefaults { type_expr, ops } => {
                self.defaults_expr(type_expr, ops, scope)
            }
            ExprKind::ResourceOverride { target, ops } => {
                self.override_expr(target, ops, scope, &e.span)
            }
            ExprKind::Collect {
                type_name,
                exported,
                query,
                ops,
            } => {
                self.collect_expr(type_name, *exported, query, ops, scope, &e.span)?;
                Ok(Value::Undef)
            }
            ExprKind::Relationship(op, l, r) => {
                Ok(self.relationship_expr(*op, l, r, scope, &e.span)?.1)
            }
            ExprKind::RenderText(t) => {
                let start = self.render_buffer.len();
                self.render_buffer.push_str(t);
                match self.render_encoding.push(&self.render_buffer, start, false) {
                    Ok(()) => Ok(Value::Undef),
                    Err(message) => err(message, &e.span),
                }
            }
            ExprKind::Render(x) => {
                let v = self.eval(x, scope)?;
                // A Sensitive value renders unwrapped and makes the whole result Sensitive.
                let v = match v {
                    Value::Sensitive(inner) => {
                        self.render_sensitive = true;
                        (*inner).clone()
                    }
                    other => other,
                };
                let start = self.render_buffer.len();
                puppet_types::format::interpolated_value(&mut self.render_buffer, &v);
                let binary = matches!(&v, Value::String(s) if s.is_binary());
                match self
                    .render_encoding
                    .push(&self.render_buffer, start, binary)
                {
                    Ok(()) => Ok(Value::Undef),
                    Err(message) => err(message, &e.span),
                }
            }
            // Transparent: the parentheses only give the operand its location.
            ExprKind::Paren(x) => self.eval_inner(x, scope),
            ExprKind::Definition => Ok(Value::Undef),
            ExprKind::Invalid(msg) => err(msg.clone(), &e.span),
        }
    }

    /// `target[keys]` (see `access`).
    fn eval_access(&mut self, e: &Expr, target: &Expr, keys: &[Expr], scope: ScopeId) -> R<Value> {
        let t = self.eval(target, scope)?;
        if self.type_parser_mode {
            if let Value::Type(Type::TypeReference(_)) = &t {
                let text = &e.span.file.text[e.span.start as usize..e.span.end as usize];
                return Ok(Value::Type(Type::TypeReference(SmolStr::new(text))));
            }
        }
        // In `Class[...]`, an unknown capitalized name is a type reference (which
        // Puppet then refuses as a class name), not an unknown resource type.
        let class_keys = matches!(t, Value::Type(Type::Class(None)));
        let mut ks = Vec::with_capacity(keys.len());
        for k in keys {
            if let ExprKind::Unfold(inner) = &k.kind {
                ks.extend(unfold_value(self.eval(inner, scope)?))
            } else if class_keys && matches!(k.kind, ExprKind::TypeName(_)) {
                let saved = std::mem::replace(&mut self.type_parser_mode, true);
                let v = self.eval(k, scope);
                self.type_parser_mode = saved;
                ks.push(v?);
            } else {
                ks.push(self.eval(k, scope)?);
            }
        }
        self.access(t, ks, &e.span, keys)
    }

    fn selector(
        &mut self,
        e: &Expr,
        target: &Expr,
        entries: &[(Expr, Expr)],
        scope: ScopeId,
    ) -> R<Value> {
        let v = self.eval(target, scope)?;
        let mut default = None;
        for (m, val) in entries {
            for mv in self.option_values(m, scope)? {
                if matches!(mv, Value::Default) {
                    default = Some(val);
                    continue;
                }
                if self.case_match(&v, &mv, scope, &m.span)? {
                    return self.eval(val, scope);
                }
            }
        }
        match default {
            Some(val) => self.eval(val, scope),
            None => err(
                format!(
                    "No matching entry for selector parameter with value '{}'",
                    v.to_plain_string()
                ),
                &e.span,
            ),
        }
    }

    /// The values of a case or selector option; a splatted option (`*[a, b]`) gives several.
    fn option_values(&mut self, m: &Expr, scope: ScopeId) -> R<Vec<Value>> {
        if let ExprKind::Unfold(inner) = &m.kind {
            return Ok(unfold_value(self.eval(inner, scope)?));
        }
        Ok(vec![self.eval(m, scope)?])
    }

    fn conditional(&mut self, e: &Expr, scope: ScopeId) -> R<Value> {
        match &e.kind {
            ExprKind::If { cond, then, els } => {
                let c = self.eval(cond, scope)?;
                if ops::truthy(&c) {
                    self.eval_block(then, scope)
                } else if let Some(els) = els {
                    self.eval_block(els, scope)
                } else {
                    Ok(Value::Undef)
                }
            }
            ExprKind::Unless { cond, then, els } => {
                let c = self.eval(cond, scope)?;
                if !ops::truthy(&c) {
                    self.eval_block(then, scope)
                } else if let Some(els) = els {
                    self.eval_block(els, scope)
                } else {
                    Ok(Value::Undef)
                }
            }
            ExprKind::Case { test, options } => {
                let v = self.eval(test, scope)?;
                let mut default = None;
                for (values, body) in options {
                    for m in values {
                        for mv in self.option_values(m, scope)? {
                            if matches!(mv, Value::Default) {
                                default = Some(body);
                                continue;
                            }
                            if self.case_match(&v, &mv, scope, &m.span)? {
                                return self.eval_block(body, scope);
                            }
                        }
                    }
                }
                match default {
                    Some(body) => self.eval_block(body, scope),
                    None => Ok(Value::Undef),
                }
            }
            _ => Ok(Value::Undef),
        }
    }

    fn eval_args(&mut self, args: &[Expr], scope: ScopeId) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            if let ExprKind::Unfold(inner) = &a.kind {
                out.extend(unfold_value(self.eval(inner, scope)?))
            } else {
                out.push(self.eval(a, scope)?);
            }
        }
        Ok(out)
    }
}

/// The elements a splatted value (`*x`) contributes: an array's or iterator's elements, a
/// hash's `[key, value]` pairs, or the value itself.
fn unfold_value(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.iter().cloned().collect(),
        Value::Hash(h) => h
            .iter()
            .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
            .collect(),
        Value::Iterator(it) => it.iter().collect(),
        Value::Undef => Vec::new(),
        other => vec![other],
    }
}

/// Whether a type expression's value depends on nothing but itself: type names, literals,
/// bare words, and arrays, hashes and accesses of those (no variables, no calls).
fn is_constant_type_expr(e: &Expr, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) | ExprKind::TypeName(_) => true,
        ExprKind::Access(base, args) => {
            is_constant_type_expr(base, depth + 1)
                && args.iter().all(|a| is_constant_type_expr(a, depth + 1))
        }
        ExprKind::Array(items) => items.iter().all(|a| is_constant_type_expr(a, depth + 1)),
        ExprKind::Hash(pairs) => pairs.iter().all(|(k, v)| {
            is_constant_type_expr(k, depth + 1) && is_constant_type_expr(v, depth + 1)
        }),
        _ => false,
    }
}
