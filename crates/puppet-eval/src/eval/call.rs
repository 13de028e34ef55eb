//! Calls: a function call expression goes to a Puppet-language function or to the
//! environment's functions in puppet-functions' registry (built-ins included: those bound
//! to the compiler reach it through its `CallContext` capabilities), with Puppet's "Error
//! while evaluating a Function Call" wrapping; lambdas handed to functions and called back;
//! Puppet's call stack.

use super::Compiler;
use crate::error::{err, ErrorKind, EvalError, Flow, R};
use crate::ir::*;
use crate::lower::FunctionDef;
use crate::scope::{Scope, ScopeId, ScopeKind};
use puppet_functions::codes;
use puppet_functions::{
    Args, Block, BlockSignature, CallContext, CallError, Function, FunctionBody, Registry,
    Signature,
};
use puppet_types::{is_instance, Type, Value};
use smol_str::SmolStr;
use std::any::Any;
use std::sync::Arc;

/// A lambda handed to a function: the lambda and the scope it closes over.
#[derive(Debug)]
pub(super) struct EvalLambda {
    pub(super) def: Arc<LambdaDef>,
    pub(super) scope: ScopeId,
    pub(super) sig: BlockSignature,
}

impl Block for EvalLambda {
    fn signature(&self) -> BlockSignature {
        self.sig.clone()
    }
    fn call(&self, _ctx: &mut dyn CallContext, _args: Vec<Value>) -> Result<Value, CallError> {
        // The compiler recognises its lambdas through `as_any` and evaluates them itself.
        Err(CallError::new(
            "EVAL_LAMBDA",
            "a lambda can only be called by its compiler",
        ))
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl Compiler {
    pub(crate) fn call_named(
        &mut self,
        name: &str,
        args: Vec<Value>,
        lambda: Option<&Arc<LambdaDef>>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        self.call_labeled("Function Call", name, args, lambda, scope, span)
    }

    /// Calls a function; `label` is how Puppet names the call in errors (`Function Call`
    /// for `f(x)`, `Method call` for `x.f`).
    pub(crate) fn call_labeled(
        &mut self,
        label: &'static str,
        name: &str,
        args: Vec<Value>,
        lambda: Option<&Arc<LambdaDef>>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        self.call_labels.push(label);
        self.puppet_stack
            .push((span.file.clone(), Some(span.start)));
        let r = self.call_labeled_inner(label, name, args, lambda, scope, span);
        self.puppet_stack.pop();
        self.call_labels.pop();
        r
    }

    pub(super) fn call_labeled_inner(
        &mut self,
        label: &'static str,
        name: &str,
        args: Vec<Value>,
        lambda: Option<&Arc<LambdaDef>>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        let lname = crate::names::lower_bare(name);
        // Functions written in Puppet shadow everything else; then the embedder's functions,
        // the built-ins (those bound to the compiler reach it through its `CallContext`
        // capabilities), the modules' Ruby functions. All are registry functions.
        let native = self.settings.native_functions;
        if crate::names::is_qualified(&lname) {
            // A module's function file is read (and may fail) when it is first called.
            self.check_load(puppet_loader::DefKind::Function, &lname)?;
        }
        let function = match self.env.puppet_function(&lname) {
            // A global name of the environment's `functions/` comes after Puppet's own and
            // the registry's: Puppet's system loader is the parent of the environment's.
            Some(def)
                if !crate::names::is_qualified(&lname) && !self.env.is_main_function(&lname) =>
            {
                match self.env.function_with(&lname, native) {
                    Some(f) => Some(f),
                    None => self.puppet_function_entry(&def),
                }
            }
            Some(def) => self.puppet_function_entry(&def),
            None => self.env.function_with(&lname, native),
        };
        let block = lambda.map(|l| EvalLambda {
            sig: lambda_signature(self, l, scope),
            def: l.clone(),
            scope,
        });
        let saved = (self.current, self.call_span.take());
        self.current = scope;
        self.call_span = Some(span.clone());
        // Only a `break()` or `return()` inside this call can be reported by it.
        self.pending_flow_at = None;
        let r = if let Some(f) = function {
            f.call(self, args, block.as_ref().map(|b| b as &dyn Block))
        } else {
            Err(CallError::new(
                puppet_functions::codes::UNKNOWN_FUNCTION,
                format!("Unknown function: '{name}'."),
            ))
        };
        self.current = saved.0;
        self.call_span = saved.1;
        r.map_err(|e| self.flow_of(e, label, span))
    }

    /// The evaluator's outcome of a call that failed or ended in control flow: `next`,
    /// `break` and `return` as flow; an error the compiler raised while serving the call
    /// (kept in `pending_error`) as it was raised; a complete message at the call; others
    /// wrapped as Puppet wraps them (`Error while evaluating a Function Call, ...`).
    pub(crate) fn flow_of(&mut self, e: CallError, label: &str, span: &Span) -> Flow {
        match e {
            CallError::Next(v) => Flow::Next(v),
            CallError::Break => Flow::Break(Some(
                self.pending_flow_at.take().unwrap_or_else(|| span.clone()),
            )),
            CallError::Return(v) => Flow::Return(
                v,
                Some(self.pending_flow_at.take().unwrap_or_else(|| span.clone())),
            ),
            CallError::Failed { code, message, .. } => {
                if code == codes::UNRESCUED {
                    return Flow::Error(EvalError::complete(message, Some(span.clone())));
                }
                if code == codes::COMPLETE {
                    return match self.pending_error.take() {
                        Some(e) if e.message == message => Flow::Error(e),
                        _ => Flow::Error(EvalError {
                            code: crate::error::codes::EVAL_ERROR,
                            kind: ErrorKind::Evaluation,
                            message,
                            span: Some(span.clone()),
                        }),
                    };
                }
                let (code, message) = if code == codes::UNKNOWN_FUNCTION {
                    (crate::error::codes::UNKNOWN_FUNCTION, message)
                } else {
                    (
                        crate::error::codes::EVAL_ERROR,
                        format!("Error while evaluating a {label}, {message}"),
                    )
                };
                Flow::Error(EvalError {
                    code,
                    kind: ErrorKind::Evaluation,
                    message,
                    span: Some(span.clone()),
                })
            }
            other => Flow::Error(EvalError {
                code: crate::error::codes::EVAL_ERROR,
                kind: ErrorKind::Evaluation,
                message: format!("Error while evaluating a {label}, {other}"),
                span: Some(span.clone()),
            }),
        }
    }

    /// The function's view of an evaluator outcome: control flow as such, an error kept in
    /// `pending_error` (with its location) and passed on as a complete message.
    pub(crate) fn call_error_of(&mut self, flow: Flow) -> CallError {
        match flow {
            Flow::Next(v) => CallError::Next(v),
            // Reported where `break()` or `return()` was called (in a class body `include`
            // evaluated, say), not at this call.
            Flow::Break(at) => {
                self.pending_flow_at = at;
                CallError::Break
            }
            Flow::Return(v, at) => {
                self.pending_flow_at = at;
                CallError::Return(v)
            }
            Flow::Error(e) => {
                let message = e.message.clone();
                self.pending_error = Some(e);
                CallError::new(codes::COMPLETE, message)
            }
        }
    }

    /// Calls a block handed to a function, as the evaluator: its own lambdas and the bodies
    /// of Puppet-language functions are evaluated here, other blocks called through the
    /// context.
    pub(crate) fn call_block_in(&mut self, block: &dyn Block, args: Vec<Value>) -> R<Value> {
        if let Some(l) = block.as_any().and_then(|a| a.downcast_ref::<EvalLambda>()) {
            let saved_current = self.current;
            let r = self.call_lambda(&l.def.clone(), l.scope, args);
            self.current = saved_current;
            return r;
        }
        if let Some(f) = block.as_any().and_then(|a| a.downcast_ref::<PuppetBody>()) {
            let (saved_current, span) = (self.current, self.call_span_or_unknown());
            let r = self.call_puppet_function(&f.def.clone(), args, &span);
            self.current = saved_current;
            return r;
        }
        let span = self.call_span_or_unknown();
        block
            .call(self, args)
            .map_err(|e| self.flow_of(e, "Function Call", &span))
    }

    /// The span of the call being made, or an empty one outside calls.
    pub(crate) fn call_span_or_unknown(&self) -> Span {
        self.call_span.clone().unwrap_or_else(|| Span {
            file: Arc::new(SourceFile::new(None, "")),
            start: 0,
            end: 0,
        })
    }

    /// Calls a lambda with arguments, in a new scope under the scope it closes over.
    pub(crate) fn call_lambda(
        &mut self,
        def: &LambdaDef,
        closure: ScopeId,
        args: Vec<Value>,
    ) -> R<Value> {
        let label = self.scopes.label(closure);
        let mut s = Scope::new(ScopeKind::Local, Some(closure), label);
        s.module = self.scopes.get(closure).module.clone();
        let id = self.scopes.add(s);
        let r = self
            .bind_params(&def.params, args, id, &def.span, None)
            .and_then(|_| self.eval_block(&def.body, id));
        self.release_scope(id);
        let v = match r {
            Ok(v) | Err(Flow::Next(v)) => v,
            Err(other) => return Err(other),
        };
        if let Some(rt) = &def.return_type {
            if let Value::Type(t) = self.eval(rt, closure)? {
                if !is_instance(&t, &v) {
                    let prefix = match self.call_labels.last() {
                        Some(l) => format!("Error while evaluating a {l}, "),
                        None => String::new(),
                    };
                    let detail = puppet_types::mismatch::describe_value_mismatch(
                        "value returned from lambda has wrong type,",
                        &t,
                        &v,
                    )
                    .unwrap_or_default();
                    return err(format!("{prefix}{detail}"), &def.span);
                }
            }
        }
        Ok(v)
    }

    /// A Puppet-language function as a registry function, kept for the compile: a signature
    /// of its parameters (a default makes one optional, `*$rest` repeated), its body
    /// evaluated by the compiler ([`PuppetBody`]). The parameter types are `Any` there:
    /// the body binds the arguments, checking their declared types (evaluated in the
    /// function's scope, aliases and all) once, with Puppet's texts.
    pub(crate) fn puppet_function_entry(
        &mut self,
        def: &Arc<FunctionDef>,
    ) -> Option<Arc<Function>> {
        if let Some(f) = self.puppet_functions.get(def.name.as_str()) {
            return Some(f.clone());
        }
        let body = Arc::new(PuppetBody { def: def.clone() });
        let mut reg = Registry::new();
        // Puppet 7.23 binds a last `Callable` parameter as a parameter, not as the block
        // (`f(1)` of `function f(Callable $c)` is "'f' parameter 'c' expects a Callable
        // value"), so no parameter becomes the block here.
        let mut sig = Signature::new();
        for p in &def.params {
            sig = if p.captures_rest {
                sig.repeated_param(Type::Any, &p.name)
            } else if p.default.is_some() {
                sig.optional_param(Type::Any, &p.name)
            } else {
                sig.param(Type::Any, &p.name)
            };
        }
        if reg
            .register_puppet_function(&def.name, sig, body.clone(), false)
            .is_err()
        {
            // A parameter list the registry does not take (a required parameter after an
            // optional one): the body checks the arguments itself.
            let any = Signature::new().repeated_param(Type::Any, "args");
            let _ = reg.register_puppet_function(&def.name, any, body, true);
        }
        let f = reg.get_shared(&def.name)?;
        self.puppet_functions.insert(def.name.clone(), f.clone());
        Some(f)
    }

    /// Evaluates a Puppet-language function's body with the arguments: they are counted and
    /// bound to the parameters (defaults evaluated) in a scope under the top scope, the body
    /// evaluated, and the value checked against the declared return type.
    fn call_puppet_function(&mut self, f: &FunctionDef, args: Vec<Value>, span: &Span) -> R<Value> {
        let top = self.top;
        let mut s = Scope::new(ScopeKind::Local, Some(top), "Class[main]".into());
        s.module = f.name.split_once("::").map(|(m, _)| SmolStr::new(m));
        let id = self.scopes.add(s);
        self.param_type_error = None;
        let r = match self.bind_params(&f.params, args, id, span, Some(&f.name)) {
            Err(Flow::Error(e)) => Err(Flow::Error(match self.param_type_error.take() {
                Some(raw) => raw,
                None => EvalError {
                    code: crate::error::codes::EVAL_ERROR,
                    kind: Default::default(),
                    message: format!("Error while evaluating a Function Call, {}", e.message),
                    span: Some(span.clone()),
                },
            })),
            Err(other) => Err(other),
            Ok(()) => self.eval_block(&f.body, id),
        };
        self.release_scope(id);
        let v = match r {
            Ok(v) | Err(Flow::Return(v, _)) => v,
            Err(Flow::Next(v)) => v,
            Err(e) => return Err(e),
        };
        if let Some(rt) = &f.return_type {
            if let Ok(Value::Type(t)) = self.eval(rt, top) {
                if !is_instance(&t, &v) {
                    return err(
                        format!(
                            "Error while evaluating a Function Call, {}",
                            puppet_types::mismatch::describe_value_mismatch(
                                &format!("value returned from {} has wrong type,", f.name),
                                &t,
                                &v
                            )
                            .unwrap_or_default()
                        ),
                        span,
                    );
                }
            }
        }
        Ok(v)
    }
}

/// The body of a Puppet-language function in the registry: the compiler that calls it
/// evaluates it (recognising it through [`Block::as_any`], as its lambdas).
pub(crate) struct PuppetBody {
    def: Arc<FunctionDef>,
}

impl FunctionBody for PuppetBody {
    fn call(&self, ctx: &mut dyn CallContext, args: Args<'_>) -> Result<Value, CallError> {
        if args.block.is_some() {
            return Err(CallError::new(
                codes::UNSUPPORTED,
                format!(
                    "'{}': a lambda for a Puppet-language function's Callable parameter is not supported",
                    self.def.name
                ),
            ));
        }
        ctx.call_block(self, args.values)
    }
}

impl Block for PuppetBody {
    fn signature(&self) -> BlockSignature {
        BlockSignature {
            types: vec![Type::Any],
            min: 0,
            max: None,
        }
    }
    fn call(&self, _ctx: &mut dyn CallContext, _args: Vec<Value>) -> Result<Value, CallError> {
        Err(CallError::new(
            codes::UNSUPPORTED,
            format!(
                "the Puppet-language function '{}' can only be evaluated by a compiler",
                self.def.name
            ),
        ))
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

fn lambda_signature(c: &mut Compiler, l: &LambdaDef, scope: ScopeId) -> BlockSignature {
    let mut types = Vec::new();
    let mut min = 0;
    let mut max = Some(0usize);
    for p in &l.params {
        let t = match &p.type_expr {
            Some(te) => match c.eval(te, scope) {
                Ok(Value::Type(t)) => t,
                _ => Type::Any,
            },
            None => Type::Any,
        };
        types.push(t);
        if p.captures_rest {
            max = None;
        } else {
            if p.default.is_none() {
                min += 1;
            }
            max = max.map(|m| m + 1);
        }
    }
    BlockSignature { types, min, max }
}
