//! Binding the parameters of a class or defined-type instance (Puppet's
//! `set_resource_parameters`): the value given, then for classes Hiera's automatic parameter
//! lookup, then the default expression; every unknown parameter, missing value and type
//! mismatch reported in one message as Puppet lists them.

use crate::error::{err, R};
use crate::eval::{Compiler, ParamGuard, PendingParams};
use crate::ir::*;
use crate::scope::ScopeId;
use puppet_types::{is_instance, Value};
use smol_str::SmolStr;
use std::sync::Arc;

impl Compiler {
    /// Binds the parameters of a class or define instance in its scope `id`, as Puppet's
    /// `set_resource_parameters` does: each takes the value given (undef counts as not
    /// given), else for a class the value automatic parameter lookup finds, else its default
    /// expression, evaluated in declaration order (given values are visible to default
    /// expressions, the others only once set). Then every value is checked at once: a
    /// parameter it does not have, a missing value or a type mismatch is an error, and
    /// Puppet lists all of them in one
    /// message (`Class[X]:\n  expects a value for parameter 'a'\n  ...`). Returns each
    /// parameter's value (undef when given as undef without a default).
    pub(super) fn bind_parameters(
        &mut self,
        params: &[Param],
        given: &crate::Map<SmolStr, Value>,
        owner: &Owner<'_>,
        id: ScopeId,
        span: &Span,
    ) -> R<crate::Map<SmolStr, Value>> {
        // Each parameter's given value (undef counts as not given), looked up once.
        let given_of: Vec<Option<&Value>> = params
            .iter()
            .map(|p| given.get(&p.name).filter(|v| !v.is_undef()))
            .collect();
        // Room for every parameter at once (growing the maps step by step was a visible
        // part of declaring a class or define with many parameters).
        let vars = &mut self.scopes.get_mut(id).vars;
        vars.reserve(params.len().max(given.len()));
        for (k, v) in given.iter().filter(|(_, v)| !v.is_undef()) {
            vars.insert(k.clone(), v.clone());
        }
        let (label, stmt) = (owner.label, owner.stmt);
        let mut bound: crate::Map<SmolStr, Value> =
            crate::Map::with_capacity_and_hasher(params.len(), Default::default());
        let mut missing = Vec::new();
        // The parameters without a given value, in order (computed once: a default
        // expression may read none of them from its own on).
        let unset_names: Arc<[SmolStr]> = params
            .iter()
            .zip(&given_of)
            .filter(|(_, g)| g.is_none())
            .map(|(q, _)| q.name.clone())
            .collect();
        let mut unset_before = 0;
        let mut prefix: Option<Arc<str>> = None;
        // Where each parameter's value is in `bound` (none: missing).
        let mut slot: Vec<Option<usize>> = vec![None; params.len()];
        for (i, p) in params.iter().enumerate() {
            let from = unset_before;
            let given_v = given_of[i];
            if given_v.is_none() {
                unset_before += 1;
            }
            let looked_up = match (given_v, owner.class) {
                (Some(_), _) | (None, None) => None,
                (None, Some(class)) => {
                    self.class_parameter_lookup(class, &p.name, id, stmt, span)?
                }
            };
            let v = match given_v {
                Some(v) => v.clone(),
                // A value found as `~` does not replace a default expression.
                None => match looked_up {
                    Some(v) if !(v.is_undef() && p.default.is_some()) => v,
                    _ => match &p.default {
                        Some(d) => {
                            // Made once per declaration, when a default is evaluated.
                            let prefix = prefix
                                .get_or_insert_with(|| {
                                    format!("Error while evaluating a {stmt}, {label}").into()
                                })
                                .clone();
                            let guard = ParamGuard {
                                scope: id,
                                prefix,
                                param: p.name.clone(),
                                pending: PendingParams::new(unset_names.clone(), from),
                                missing: missing.clone(),
                                span: span.clone(),
                            };
                            self.eval_default(d, guard)?
                        }
                        None if given.contains_key(&p.name) => Value::Undef,
                        None => {
                            missing.push(p.name.clone());
                            continue;
                        }
                    },
                },
            };
            self.scopes
                .get_mut(id)
                .vars
                .insert(p.name.clone(), v.clone());
            slot[i] = Some(bound.insert_full(p.name.clone(), v).0);
        }
        // Puppet lists the parameters it does not know first.
        let mut problems: Vec<String> = given
            .keys()
            .filter(|k| !params.iter().any(|p| &p.name == *k))
            .filter(|k| !puppet_restypes::is_metaparameter(k))
            .filter(|k| owner.class.is_some() || k.as_str() != "name")
            .map(|k| format!("has no parameter named '{k}'"))
            .collect();
        for (p, at) in params.iter().zip(&slot) {
            match at.and_then(|j| bound.get_index(j)) {
                Some((_, v)) => problems.extend(self.param_type_problems(p, v, id)?),
                None if missing.contains(&p.name) => {
                    problems.push(format!("expects a value for parameter '{}'", p.name))
                }
                None => {}
            }
        }
        match problems.len() {
            0 => Ok(bound),
            1 => err(
                format!("Error while evaluating a {stmt}, {label}: {}", problems[0]),
                span,
            ),
            _ => err(
                format!(
                    "Error while evaluating a {stmt}, {label}:\n  {}",
                    problems.join("\n  ")
                ),
                span,
            ),
        }
    }

    /// What is wrong with a class or define parameter value for its declared type: one line
    /// per problem Puppet's mismatch describer finds (none when it is an instance).
    pub(super) fn param_type_problems(
        &mut self,
        p: &Param,
        v: &Value,
        scope: ScopeId,
    ) -> R<Vec<String>> {
        let Some(t) = &p.type_expr else {
            return Ok(Vec::new());
        };
        let Value::Type(ty) = self.eval_type_expr(t, scope)? else {
            return Ok(Vec::new());
        };
        if is_instance(&ty, v) {
            return Ok(Vec::new());
        }
        let what = format!("parameter '{}'", p.name);
        // As Puppet, only a mismatch the describer finds is an error (a bare `Optional`
        // accepts any value here).
        let detail = puppet_types::mismatch::describe_value_mismatch(&what, &ty, v);
        Ok(detail
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect())
    }
}

/// Whose parameters [`Compiler::bind_parameters`] binds: `Class[x]` or `Type[title]`, the
/// statement Puppet names in errors, and the class name for automatic parameter lookup.
pub(super) struct Owner<'a> {
    pub(super) label: &'a str,
    pub(super) stmt: &'a str,
    pub(super) class: Option<&'a str>,
}
