//! The one parameter binder: how the values given to a Puppet-language function, a lambda, a
//! class or a defined-type instance become the variables of its scope.
//!
//! Each parameter takes the value given (by position for functions and lambdas, by name for
//! classes and defines, where undef counts as not given); else, for a class, the value
//! Hiera's automatic parameter lookup finds; else its default expression, evaluated where the
//! parameters after it may not be read yet (see `ParamGuard`); else it is missing. A
//! captures-rest parameter takes the remaining arguments (`Array[T, min, max]` types each
//! and bounds their count). What differs by owner is said by [`Owner`]: where a missing
//! value comes from, and how problems read: a function or lambda fails at the first one
//! with Puppet's `'f' parameter 'x' expects ...` / `block parameter 'x' ...` texts, a class
//! or define instance lists every unknown parameter, missing value and type mismatch in one
//! message (`Class[X]:\n  expects a value for parameter 'a'\n  ...`), as Puppet's
//! `set_resource_parameters` does. Type mismatches are described by the one describer,
//! `puppet_types::mismatch`; a signature is printed by `puppet_functions`.
//!
//! A function's arguments are counted first, with Puppet's count texts (`'f' expects at
//! most 2 arguments, got 3`). This module does not decide which function is called; it binds
//! one parameter list.

use super::vars::{ParamGuard, PendingParams};
use super::Compiler;
use crate::error::{err, Flow, R};
use crate::ir::*;
use crate::scope::ScopeId;
use puppet_types::mismatch::{Mismatch, MismatchKind, PathElement};
use puppet_types::types::IntRange;
use puppet_types::{is_instance, Type, Value};
use smol_str::SmolStr;
use std::sync::Arc;

/// Whose parameters are bound: decides where a missing value comes from and how problems
/// are reported.
pub(crate) enum Owner<'a> {
    /// A Puppet-language function of this name (positional arguments; its caller wraps the
    /// errors as errors of the call).
    Function(&'a str),
    /// A lambda given to a call (positional arguments).
    Lambda,
    /// A class (named arguments): `label` is `Class[x]`, `stmt` the statement Puppet names
    /// in errors (`Function Call` for `include`, `Resource Statement`), `name` the class
    /// name for automatic parameter lookup.
    Class {
        label: &'a str,
        stmt: &'a str,
        name: &'a str,
    },
    /// A defined-type instance (named arguments): `label` is `Type[title]`.
    Define { label: &'a str },
}

/// The values given to a parameter list.
pub(crate) enum Args<'a> {
    /// By position (functions and lambdas).
    Positional(Vec<Value>),
    /// By name (classes and defined types); undef counts as not given. Each parameter's
    /// value that is not undef is added to `bound`, in order.
    Named {
        given: &'a crate::Map<SmolStr, Value>,
        bound: &'a mut crate::Map<SmolStr, Value>,
    },
}

impl Owner<'_> {
    /// How the parameter is named in a type mismatch.
    fn subject(&self, param: &str) -> String {
        match self {
            Owner::Function(f) => format!("'{f}' parameter '{param}'"),
            Owner::Lambda => format!("block parameter '{param}'"),
            Owner::Class { .. } | Owner::Define { .. } => format!("parameter '{param}'"),
        }
    }

    /// How the callable is named in an argument-count mismatch.
    fn callable(&self) -> String {
        match self {
            Owner::Function(f) => format!("'{f}'"),
            _ => "block".to_string(),
        }
    }

    /// The statement named in the errors of a class or define (`None` for a function or
    /// lambda).
    fn statement(&self) -> Option<(&str, &str)> {
        match self {
            Owner::Class { label, stmt, .. } => Some((stmt, label)),
            Owner::Define { label } => Some(("Resource Statement", label)),
            _ => None,
        }
    }
}

impl Compiler {
    /// Binds the arguments of a Puppet-language function (`fname`) or a lambda (`None`) in
    /// its scope.
    pub(super) fn bind_params(
        &mut self,
        params: &[Param],
        args: Vec<Value>,
        scope: ScopeId,
        span: &Span,
        fname: Option<&str>,
    ) -> R<()> {
        let owner = match fname {
            Some(f) => Owner::Function(f),
            None => Owner::Lambda,
        };
        self.bind(params, Args::Positional(args), &owner, scope, span)
    }

    /// Binds `params` of `owner` in `scope` to `args` (see the module docs): afterwards each
    /// parameter is a variable of `scope` (a class or define parameter given as undef
    /// without a default is undef).
    pub(crate) fn bind(
        &mut self,
        params: &[Param],
        args: Args<'_>,
        owner: &Owner<'_>,
        scope: ScopeId,
        span: &Span,
    ) -> R<()> {
        match (owner, &args) {
            (Owner::Lambda, _) => self.check_param_order(params, scope)?,
            // A function's arguments are counted first: each parameter without a default
            // needs one, and only a captures-rest parameter takes more than one each.
            (Owner::Function(_), Args::Positional(v)) => {
                let fixed = params.iter().filter(|p| !p.captures_rest);
                let required = fixed.clone().filter(|p| p.default.is_none()).count();
                let max = match params.iter().any(|p| p.captures_rest) {
                    true => None,
                    false => Some(fixed.count()),
                };
                self.check_count(required, max, v.len(), owner, span)?;
            }
            _ => {}
        }
        let nargs = match &args {
            Args::Positional(v) => v.len(),
            Args::Named { given, .. } => {
                // Given values are visible to default expressions from the start. Room for
                // every parameter at once (growing the map step by step was a visible part
                // of declaring a class or define with many parameters).
                let vars = &mut self.scopes.get_mut(scope).vars;
                vars.reserve(params.len().max(given.len()));
                for (k, v) in given.iter().filter(|(_, v)| !v.is_undef()) {
                    vars.insert(k.clone(), v.clone());
                }
                0
            }
        };
        let fixed = params.iter().filter(|p| !p.captures_rest).count();
        let (mut positional, named, mut bound) = match args {
            Args::Positional(v) => (v.into_iter(), None, None),
            Args::Named { given, bound } => (Vec::new().into_iter(), Some(given), Some(bound)),
        };
        // Each named parameter's entry in the given values (looked up once).
        let entries: Vec<Option<&Value>> = match named {
            Some(m) => params.iter().map(|p| m.get(&p.name)).collect(),
            None => Vec::new(),
        };
        // Whether parameter `i` has a value given (a captures-rest parameter never has one:
        // it is bound after the others).
        let has = |i: usize, p: &Param| match named {
            Some(_) => entries[i].is_some_and(|v| !v.is_undef()),
            None => !p.captures_rest && i < nargs,
        };
        // Named parameters are checked all at once when every value is known.
        let collect = named.is_some();
        // The parameters without a given value (made once, when a default is evaluated)
        // and how many come before the current one.
        let mut unset: Option<Arc<[SmolStr]>> = None;
        let mut unset_before = 0;
        let mut prefix: Option<Arc<str>> = None;
        let mut missing: Vec<SmolStr> = Vec::new();
        // Each named parameter's value, for the checks at the end (none: missing).
        let mut values: Vec<Option<Value>> =
            Vec::with_capacity(if collect { params.len() } else { 0 });
        // Whether each named parameter's value was found by lookup (a class's data binding).
        let mut looked_up: Vec<bool> = Vec::with_capacity(values.capacity());
        for (i, p) in params.iter().enumerate() {
            let from = unset_before;
            let given = if p.captures_rest && !collect {
                let rest: Vec<Value> = positional.by_ref().collect();
                Some(self.bind_rest(p, rest, fixed, owner, scope, span)?)
            } else if named.is_some() {
                entries[i].filter(|v| !v.is_undef()).cloned()
            } else {
                positional.next()
            };
            // A value given by name is already a variable of the scope (see above).
            let in_scope = named.is_some() && given.is_some();
            let mut found = false;
            let v = match given {
                Some(v) => v,
                None => {
                    unset_before += 1;
                    let looked_up_value = match owner {
                        Owner::Class { name, stmt, .. } => {
                            crate::hiera::class_parameter(self, name, &p.name, scope, stmt, span)?
                        }
                        _ => None,
                    };
                    match (looked_up_value, &p.default) {
                        // A value found as `~` does not replace a default expression.
                        (Some(v), d) if !(v.is_undef() && d.is_some()) => {
                            found = true;
                            v
                        }
                        (_, Some(d)) => {
                            let names = unset
                                .get_or_insert_with(|| {
                                    (params.iter().enumerate())
                                        .filter(|(j, q)| !has(*j, q))
                                        .map(|(_, q)| q.name.clone())
                                        .collect()
                                })
                                .clone();
                            let (guard_prefix, guard_span) =
                                self.guard_context(owner, &mut prefix, span);
                            let guard = ParamGuard {
                                scope,
                                prefix: guard_prefix,
                                param: p.name.clone(),
                                pending: PendingParams::new(names, from),
                                // (Cloning an empty list allocates nothing.)
                                missing: match missing.is_empty() {
                                    true => Vec::new(),
                                    false => missing.clone(),
                                },
                                span: guard_span,
                            };
                            self.eval_default(d, guard)?
                        }
                        (_, None) => match owner {
                            Owner::Function(_) => {
                                return err(
                                    format!("expects a value for parameter '${}'", p.name),
                                    span,
                                )
                            }
                            Owner::Lambda => {
                                return err(
                                    format!(
                                        "Parameter ${} is required but no value was given",
                                        p.name
                                    ),
                                    &p.span,
                                )
                            }
                            _ if entries.get(i).is_some_and(Option::is_some) => Value::Undef,
                            _ => {
                                missing.push(p.name.clone());
                                values.push(None);
                                looked_up.push(false);
                                continue;
                            }
                        },
                    }
                }
            };
            if !collect && !p.captures_rest {
                if let Some(detail) = self.type_mismatch(p, &v, owner, scope)? {
                    return self.positional_type_error(params, detail, owner, scope, span);
                }
            }
            if collect {
                values.push(Some(v.clone()));
                looked_up.push(found);
            }
            if !in_scope {
                self.scopes.get_mut(scope).vars.insert(p.name.clone(), v);
            }
        }
        if let (Some(given), Some(statement)) = (named, owner.statement()) {
            self.check_named(params, given, &values, owner, statement, scope, span)?;
            if let Some(bound) = bound.as_mut() {
                // Puppet's order (its resource's parameters, as the catalog lists them): the
                // values found by lookup before the defaults. The caller has put the given
                // values first; inserting one again keeps its place.
                bound.reserve(params.len());
                for pass in [true, false] {
                    for ((p, v), l) in params.iter().zip(values.iter_mut()).zip(&looked_up) {
                        if *l == pass {
                            if let Some(v) = v.take().filter(|v| !v.is_undef()) {
                                bound.insert(p.name.clone(), v);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The owner text and the location of the errors of a default expression being
    /// evaluated (`prefix` keeps the text once made for a class or define).
    fn guard_context(
        &self,
        owner: &Owner<'_>,
        prefix: &mut Option<Arc<str>>,
        span: &Span,
    ) -> (Arc<str>, Span) {
        match (owner, owner.statement()) {
            (Owner::Function(f), _) => (Arc::from(*f), span.clone()),
            (_, Some((stmt, label))) => (
                prefix
                    .get_or_insert_with(|| {
                        format!("Error while evaluating a {stmt}, {label}").into()
                    })
                    .clone(),
                span.clone(),
            ),
            _ => (
                match self.call_labels.last() {
                    Some(l) => format!("Error while evaluating a {l}, lambda").into(),
                    None => "lambda".into(),
                },
                self.call_site(owner, span),
            ),
        }
    }

    /// A lambda's parameters: a required parameter may not follow an optional one (a
    /// captures-rest parameter is required when its type demands at least one value).
    fn check_param_order(&mut self, params: &[Param], scope: ScopeId) -> R<()> {
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
                    &p.span,
                );
            }
            optional_seen |= p.default.is_some();
        }
        Ok(())
    }

    /// The value of a captures-rest parameter from the arguments after the `fixed` others
    /// (its default when there are none): its type bounds the count of all (Puppet's count
    /// text, `'f' expects at least 1 argument, got none`) and types each.
    fn bind_rest(
        &mut self,
        p: &Param,
        mut rest: Vec<Value>,
        fixed: usize,
        owner: &Owner<'_>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        if rest.is_empty() {
            if let Some(d) = &p.default {
                rest = match self.eval(d, scope)? {
                    Value::Array(a) => (*a).clone(),
                    other => vec![other],
                };
            }
        }
        let (elem, min, max) = match self.rest_bounds(p, scope) {
            Ok(bounds) => bounds,
            Err(e) => return Err(self.keep_type_error(e, owner)),
        };
        self.check_count(
            fixed + min,
            max.map(|m| fixed + m),
            fixed + rest.len(),
            owner,
            span,
        )?;
        if let Some(ty) = elem {
            if let Some(bad) = rest.iter().find(|v| !is_instance(&ty, v)) {
                let detail = puppet_types::mismatch::describe_value_mismatch(
                    &owner.subject(&p.name),
                    &ty,
                    bad,
                )
                .unwrap_or_default();
                return err(
                    format!("{}{detail}", self.call_prefix(owner)),
                    &self.call_site(owner, span),
                );
            }
        }
        Ok(Value::array(rest))
    }

    /// Fails with Puppet's count text (`'f' expects at most 2 arguments, got 3`, `block
    /// expects at least 1 argument, got none`) when `got` arguments are not between `min`
    /// and `max`.
    fn check_count(
        &self,
        min: usize,
        max: Option<usize>,
        got: usize,
        owner: &Owner<'_>,
        span: &Span,
    ) -> R<()> {
        let expected = IntRange::new(Some(min as i64), max.map(|m| m as i64));
        if expected.contains(got as i128) {
            return Ok(());
        }
        let count = Mismatch {
            path: vec![PathElement::Subject(owner.callable())],
            kind: MismatchKind::Count {
                expected,
                actual: IntRange::new(Some(got as i64), Some(got as i64)),
            },
        };
        err(
            format!("{}{}", self.call_prefix(owner), count.format().trim()),
            &self.call_site(owner, span),
        )
    }

    /// The text before a lambda's errors: the call it was given to (a function's errors are
    /// wrapped by its caller).
    fn call_prefix(&self, owner: &Owner<'_>) -> String {
        match (owner, self.call_labels.last()) {
            (Owner::Lambda, Some(l)) => format!("Error while evaluating a {l}, "),
            _ => String::new(),
        }
    }

    /// Where an argument a lambda does not accept is reported: at the call it was given to,
    /// as Puppet does (`span` for anything else).
    fn call_site(&self, owner: &Owner<'_>, span: &Span) -> Span {
        match (owner, &self.call_span) {
            (Owner::Lambda, Some(call)) => call.clone(),
            _ => span.clone(),
        }
    }

    /// What the describer says of `v` for parameter `p`'s declared type: `None` when it is
    /// an instance.
    fn type_mismatch(
        &mut self,
        p: &Param,
        v: &Value,
        owner: &Owner<'_>,
        scope: ScopeId,
    ) -> R<Option<String>> {
        let Some(t) = &p.type_expr else {
            return Ok(None);
        };
        let ty = match self.eval_type_expr(t, scope) {
            Ok(Value::Type(ty)) => ty,
            Ok(_) => return Ok(None),
            Err(e) => return Err(self.keep_type_error(e, owner)),
        };
        if is_instance(&ty, v) {
            return Ok(None);
        }
        let what = owner.subject(&p.name);
        Ok(Some(
            puppet_types::mismatch::describe_value_mismatch(&what, &ty, v).unwrap_or_default(),
        ))
    }

    /// An error of a function parameter's type expression, kept to be reported as it is (not
    /// wrapped as an error of the call, see `param_type_error`).
    fn keep_type_error(&mut self, e: Flow, owner: &Owner<'_>) -> Flow {
        if let (Flow::Error(error), Owner::Function(_)) = (&e, owner) {
            self.param_type_error = Some(error.clone());
        }
        e
    }

    /// The error of a function or lambda argument that is not of its parameter's type.
    fn positional_type_error(
        &mut self,
        params: &[Param],
        detail: String,
        owner: &Owner<'_>,
        scope: ScopeId,
        span: &Span,
    ) -> R<()> {
        let detail = match owner {
            // Nothing specific to say: Puppet shows the signature.
            Owner::Function(f) if detail.is_empty() => {
                format!("'{f}' expects ({})", self.signature_text(params, scope))
            }
            _ => detail,
        };
        err(
            format!("{}{detail}", self.call_prefix(owner)),
            &self.call_site(owner, span),
        )
    }

    /// The problems of a class or define instance's parameters, all in one error: the
    /// parameters it does not have (first, as Puppet lists them), then in order each
    /// missing value and each type mismatch the describer finds (a bare `Optional` accepts
    /// any value here).
    #[allow(clippy::too_many_arguments)]
    fn check_named(
        &mut self,
        params: &[Param],
        given: &crate::Map<SmolStr, Value>,
        values: &[Option<Value>],
        owner: &Owner<'_>,
        (stmt, label): (&str, &str),
        scope: ScopeId,
        span: &Span,
    ) -> R<()> {
        let mut problems: Vec<String> = given
            .keys()
            .filter(|k| !params.iter().any(|p| &p.name == *k))
            .filter(|k| !puppet_restypes::is_metaparameter(k))
            .filter(|k| matches!(owner, Owner::Class { .. }) || k.as_str() != "name")
            .map(|k| format!("has no parameter named '{k}'"))
            .collect();
        for (p, v) in params.iter().zip(values) {
            let Some(v) = v else {
                problems.push(format!("expects a value for parameter '{}'", p.name));
                continue;
            };
            if let Some(detail) = self.type_mismatch(p, v, owner, scope)? {
                problems.extend(
                    (detail.lines().map(str::trim))
                        .filter(|l| !l.is_empty())
                        .map(str::to_string),
                );
            }
        }
        match problems.is_empty() {
            true => Ok(()),
            false => err(
                format!(
                    "Error while evaluating a {stmt}, {}",
                    problems_message(label, &problems)
                ),
                span,
            ),
        }
    }

    /// A function's parameters as Puppet shows its signature: `Integer a, Any y?, String r*`
    /// (a type that cannot be evaluated shows as `Any`).
    pub(super) fn signature_text(&mut self, params: &[Param], scope: ScopeId) -> String {
        let mut declared = Vec::with_capacity(params.len());
        for p in params {
            let ty = match &p.type_expr {
                Some(t) => match self.eval(t, scope) {
                    Ok(Value::Type(ty)) => ty,
                    _ => Type::Any,
                },
                None => Type::Any,
            };
            declared.push((p.name.clone(), ty, p.default.is_some(), p.captures_rest));
        }
        puppet_functions::puppet_signature_string(&declared)
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

/// Puppet's text for what is wrong with the arguments of `label` (a class, define, lambda or
/// template): one problem after the label, several on lines of their own.
pub(crate) fn problems_message(label: &str, problems: &[String]) -> String {
    match problems {
        [one] => format!("{label}: {one}"),
        many => format!("{label}:\n  {}", many.join("\n  ")),
    }
}
