//! Binding the arguments of a Puppet-language function or lambda to its parameters: types,
//! defaults (guarded so they read only earlier parameters), captures-rest, and Puppet's
//! "expects ... arguments" / "parameter 'x' expects" messages.

use super::vars::{ParamGuard, PendingParams};
use super::Compiler;
use crate::error::{err, Flow, R};
use crate::ir::*;
use crate::scope::ScopeId;
use puppet_types::{is_instance, Type, Value};
use smol_str::SmolStr;
use std::sync::Arc;

impl Compiler {
    pub(super) fn bind_params(
        &mut self,
        params: &[Param],
        args: Vec<Value>,
        scope: ScopeId,
        span: &Span,
        fname: Option<&str>,
    ) -> R<()> {
        if fname.is_none() {
            // A required parameter may not follow an optional one (a captures-rest
            // parameter is required when its type demands at least one value).
            let mut optional_seen = false;
            for p in params {
                let required = if p.captures_rest {
                    p.default.is_none() && self.rest_bounds(p, scope)?.1 > 0
                } else {
                    p.default.is_none()
                };
                if required && optional_seen {
                    return err(
                        format!(
                            "Parameter ${} is required but appears after optional parameters",
                            p.name
                        ),
                        span,
                    );
                }
                optional_seen |= p.default.is_some();
            }
        }
        let fixed = params.iter().filter(|p| !p.captures_rest).count();
        let mut args = args.into_iter();
        let mut all_names: Option<Arc<[SmolStr]>> = None;
        for (i, p) in params.iter().enumerate() {
            if p.captures_rest && fname.is_none() {
                // A lambda's `*$rest`: `Array[T, min, max]` types the elements and bounds
                // their count; any other type types each element. With no values, the
                // default (an array, or one value) is used.
                let mut rest: Vec<Value> = args.by_ref().collect();
                if rest.is_empty() {
                    if let Some(d) = &p.default {
                        rest = match self.eval(d, scope)? {
                            Value::Array(a) => (*a).clone(),
                            other => vec![other],
                        };
                    }
                }
                let (elem, min, max) = self.rest_bounds(p, scope)?;
                let prefix = match self.call_labels.last() {
                    Some(l) => format!("Error while evaluating a {l}, "),
                    None => String::new(),
                };
                let (got, lo, hi) = (fixed + rest.len(), fixed + min, max.map(|m| fixed + m));
                let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
                if hi == Some(lo) && got != lo {
                    return err(
                        format!("{prefix}block expects {lo} {}, got {got}", plural(lo)),
                        span,
                    );
                }
                if got < lo {
                    return err(
                        format!(
                            "{prefix}block expects at least {lo} {}, got {got}",
                            plural(lo)
                        ),
                        span,
                    );
                }
                if let Some(hi) = hi {
                    if got > hi {
                        return err(
                            format!(
                                "{prefix}block expects at most {hi} {}, got {got}",
                                plural(hi)
                            ),
                            span,
                        );
                    }
                }
                if let Some(ty) = elem {
                    if let Some(bad) = rest.iter().find(|v| !is_instance(&ty, v)) {
                        let what = format!("block parameter '{}'", p.name);
                        let detail =
                            puppet_types::mismatch::describe_value_mismatch(&what, &ty, bad)
                                .unwrap_or_default();
                        return err(format!("{prefix}{detail}"), span);
                    }
                }
                self.scopes
                    .get_mut(scope)
                    .vars
                    .insert(p.name.clone(), Value::array(rest));
                continue;
            }
            if p.captures_rest {
                let rest: Vec<Value> = args.by_ref().collect();
                // The type of a captures-rest parameter applies to each element.
                if let (Some(t), Some(f)) = (&p.type_expr, fname) {
                    if let Value::Type(ty) = self.eval_param_type(t, scope, fname)? {
                        if let Some(bad) = rest.iter().find(|v| !is_instance(&ty, v)) {
                            let what = format!("'{f}' parameter '{}'", p.name);
                            let detail =
                                puppet_types::mismatch::describe_value_mismatch(&what, &ty, bad)
                                    .unwrap_or_default();
                            return err(detail, span);
                        }
                    }
                }
                self.scopes
                    .get_mut(scope)
                    .vars
                    .insert(p.name.clone(), Value::array(rest));
                continue;
            }
            let v = match args.next() {
                Some(v) => v,
                None => match &p.default {
                    Some(d) => {
                        let (prefix, guard_span) = match fname {
                            Some(f) => (Arc::from(f), span.clone()),
                            None => (
                                match self.call_labels.last() {
                                    Some(l) => {
                                        format!("Error while evaluating a {l}, lambda").into()
                                    }
                                    None => "lambda".into(),
                                },
                                self.call_span.clone().unwrap_or_else(|| span.clone()),
                            ),
                        };
                        let names = all_names
                            .get_or_insert_with(|| params.iter().map(|q| q.name.clone()).collect())
                            .clone();
                        let guard = ParamGuard {
                            scope,
                            prefix,
                            param: p.name.clone(),
                            pending: PendingParams::new(names, i),
                            missing: Vec::new(),
                            span: guard_span,
                        };
                        self.eval_default(d, guard)?
                    }
                    None => {
                        if fname.is_some() {
                            return err(
                                format!("expects a value for parameter '${}'", p.name),
                                span,
                            );
                        }
                        return err(
                            format!("Parameter ${} is required but no value was given", p.name),
                            span,
                        );
                    }
                },
            };
            if let Some(t) = &p.type_expr {
                if let Value::Type(ty) = self.eval_param_type(t, scope, fname)? {
                    if !is_instance(&ty, &v) {
                        let (what, prefix) = match fname {
                            Some(f) => (format!("'{f}' parameter '{}'", p.name), String::new()),
                            // A lambda given to a call: named after that call.
                            None => (
                                format!("block parameter '{}'", p.name),
                                match self.call_labels.last() {
                                    Some(l) => format!("Error while evaluating a {l}, "),
                                    None => String::new(),
                                },
                            ),
                        };
                        let mut detail =
                            puppet_types::mismatch::describe_value_mismatch(&what, &ty, &v)
                                .unwrap_or_default();
                        if detail.is_empty() {
                            if let Some(f) = fname {
                                // Nothing specific to say: Puppet shows the signature.
                                detail = format!(
                                    "'{f}' expects ({})",
                                    self.signature_text(params, scope)
                                );
                            }
                        }
                        return err(format!("{prefix}{detail}"), span);
                    }
                }
            }
            self.scopes.get_mut(scope).vars.insert(p.name.clone(), v);
        }
        Ok(())
    }

    /// A function's parameters as Puppet shows its signature: `Integer a, Any y?, String r*`.
    pub(super) fn signature_text(&mut self, params: &[Param], scope: ScopeId) -> String {
        let mut parts = Vec::with_capacity(params.len());
        for p in params {
            let ty = match &p.type_expr {
                Some(t) => match self.eval(t, scope) {
                    Ok(Value::Type(ty)) => ty.to_string(),
                    _ => "Any".to_string(),
                },
                None => "Any".to_string(),
            };
            let suffix = if p.captures_rest {
                "*"
            } else if p.default.is_some() {
                "?"
            } else {
                ""
            };
            parts.push(format!("{ty} {}{suffix}", p.name));
        }
        parts.join(", ")
    }

    pub(super) fn eval_param_type(
        &mut self,
        t: &Expr,
        scope: ScopeId,
        fname: Option<&str>,
    ) -> R<Value> {
        let r = self.eval(t, scope);
        if let (Err(Flow::Error(e)), Some(_)) = (&r, fname) {
            self.param_type_error = Some(e.clone());
        }
        r
    }

    /// The element type and count bounds of a captures-rest parameter: `Array[T, min,
    /// max]` gives T and its bounds, another type is the element type (any count).
    pub(super) fn rest_bounds(
        &mut self,
        p: &Param,
        scope: ScopeId,
    ) -> R<(Option<Type>, usize, Option<usize>)> {
        let Some(t) = &p.type_expr else {
            return Ok((None, 0, None));
        };
        let Value::Type(ty) = self.eval(t, scope)? else {
            return Ok((None, 0, None));
        };
        Ok(match &ty {
            Type::Array(a) => {
                let size = a.size.as_ref();
                let min = size.and_then(|s| s.min).unwrap_or(0).max(0) as usize;
                let max = size.and_then(|s| s.max).map(|m| m.max(0) as usize);
                (Some(a.element.clone()), min, max)
            }
            _ => (Some(ty), 0, None),
        })
    }
}
