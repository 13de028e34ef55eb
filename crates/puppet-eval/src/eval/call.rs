//! Calls: a function call expression goes to the evaluator's built-ins, a Puppet-language
//! function, or puppet-functions' registry, with Puppet's "Error while evaluating a Function
//! Call" wrapping; lambdas handed to functions and called back; Puppet's call stack.

use super::Compiler;
use crate::error::{err, ErrorKind, EvalError, Flow, R};
use crate::ir::*;
use crate::lower::FunctionDef;
use crate::names::strip_root;
use crate::scope::{Scope, ScopeId, ScopeKind};
use puppet_functions::{Block, BlockSignature, CallContext, CallError};
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
        let file = span.file.path.clone().unwrap_or_else(|| "unknown".into());
        self.puppet_stack.push((file, span.line_col().0));
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
        let lname = strip_root(name).to_ascii_lowercase();
        // Functions written in Puppet shadow everything else.
        if let Some(f) = self.env.puppet_function(lname.as_str()) {
            return self.call_puppet_function(&f, args, lambda.is_some(), span);
        }
        if let Some(r) = crate::builtins::call(self, &lname, &args, lambda, scope, span) {
            return r;
        }
        // The registry of pure built-ins.
        let block = lambda.map(|l| EvalLambda {
            sig: lambda_signature(self, l, scope),
            def: l.clone(),
            scope,
        });
        let saved = (self.current, self.call_span.take());
        self.current = scope;
        self.call_span = Some(span.clone());
        let native = self.settings.native_functions;
        let r = if let Some(f) = self.env.function_with(&lname, native) {
            f.call(self, args, block.as_ref().map(|b| b as &dyn Block))
        } else {
            Err(CallError::new(
                puppet_functions::codes::UNKNOWN_FUNCTION,
                format!("Unknown function: '{name}'."),
            ))
        };
        self.current = saved.0;
        self.call_span = saved.1;
        match r {
            Ok(v) => Ok(v),
            Err(CallError::Next(v)) => Err(Flow::Next(v)),
            Err(CallError::Break) => Err(Flow::Break(Some(span.clone()))),
            Err(CallError::Return(v)) => Err(Flow::Return(v, Some(span.clone()))),
            Err(CallError::Failed { code, message, .. }) => {
                if code == "EVAL_FLOW" {
                    if let Some(e) = self.pending_error.take() {
                        return Err(Flow::Error(e));
                    }
                }
                if code == puppet_functions::codes::UNKNOWN_FUNCTION {
                    Err(Flow::Error(EvalError {
                        code: crate::error::codes::UNKNOWN_FUNCTION,
                        kind: ErrorKind::Evaluation,
                        message,
                        span: Some(span.clone()),
                    }))
                } else if code == "EVAL_FLOW" {
                    // An error raised by the evaluator inside a lambda: already complete.
                    err(message, span)
                } else {
                    err(format!("Error while evaluating a {label}, {message}"), span)
                }
            }
            Err(other) => err(format!("Error while evaluating a {label}, {other}"), span),
        }
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

    pub(super) fn call_puppet_function(
        &mut self,
        f: &FunctionDef,
        args: Vec<Value>,
        has_block: bool,
        span: &Span,
    ) -> R<Value> {
        let required = f
            .params
            .iter()
            .filter(|p| p.default.is_none() && !p.captures_rest)
            .count();
        let max = if f.params.iter().any(|p| p.captures_rest) {
            usize::MAX
        } else {
            f.params.len()
        };
        if has_block {
            return err(
                format!(
                    "Error while evaluating a Function Call, '{}' does not expect a block",
                    f.name
                ),
                span,
            );
        }
        if args.len() < required || args.len() > max {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let expect = if max == 0 {
                "no arguments".to_string()
            } else if required == max {
                format!("{required} argument{}", plural(required))
            } else if max == usize::MAX {
                format!("at least {required} argument{}", plural(required))
            } else {
                format!("between {required} and {max} arguments")
            };
            let got = if args.is_empty() {
                "none".to_string()
            } else {
                args.len().to_string()
            };
            return err(
                format!(
                    "Error while evaluating a Function Call, '{}' expects {expect}, got {got}",
                    f.name
                ),
                span,
            );
        }
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

pub(crate) fn lambda_signature(c: &mut Compiler, l: &LambdaDef, scope: ScopeId) -> BlockSignature {
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
