//! Variables: reading (`$x`, `$c::x` through the class scopes, match variables, strict
//! mode), assigning (destructuring, the rules on what may be assigned where), and the guards
//! that keep a parameter's default expression from reading the parameters after it.

use super::Compiler;
use crate::error::{err, R};
use crate::ir::*;
use crate::names::{is_qualified, rsplit_qualified};
use crate::scope::{ScopeId, ScopeKind};
use puppet_types::{Type, Value};
use smol_str::SmolStr;
use std::sync::Arc;

/// A default expression being evaluated: the parameters it may not read yet (itself and the
/// ones after it), as Puppet's parameter scope forbids.
pub(super) struct ParamGuard {
    /// The scope of the parameters.
    pub scope: ScopeId,
    /// The text before the message (`Error while evaluating a Function Call, ` for a lambda;
    /// a function's errors are wrapped by its caller) and the owner (`f`, `lambda`).
    pub prefix: Arc<str>,
    pub param: SmolStr,
    pub pending: PendingParams,
    /// Parameters before `param` that have no value (a class or define instance missing
    /// required ones): reading one is Puppet's "expects a value for parameter $x".
    pub missing: Vec<SmolStr>,
    pub span: Span,
}

/// The parameters a default expression may not read yet: `names[from..]`, shared by the
/// guards of one parameter list (so that binding n parameters costs n, not n²).
#[derive(Debug, Clone)]
pub(super) struct PendingParams {
    names: Arc<[SmolStr]>,
    from: usize,
}

impl PendingParams {
    /// `names[from..]`.
    pub(super) fn new(names: Arc<[SmolStr]>, from: usize) -> PendingParams {
        PendingParams { names, from }
    }

    fn contains(&self, name: &str) -> bool {
        self.names
            .get(self.from..)
            .is_some_and(|rest| rest.iter().any(|p| p == name))
    }
}

impl Compiler {
    pub(super) fn read_var(&mut self, name: &str, scope: ScopeId, span: &Span) -> R<Value> {
        if let Some(v) = self.lookup_var(name, scope, span)? {
            return Ok(v);
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(Value::Undef);
        }
        self.unknown_variable(name, span)?;
        Ok(Value::Undef)
    }

    /// What reading an unknown variable is: `error` (`strict_variables`, or the `strict`
    /// setting), `off` or `warning` (the `strict` setting's default).
    fn strictness(&self) -> &str {
        if self.settings.strict_variables {
            return "error";
        }
        self.strict()
    }

    /// The `strict` setting: `off`, `warning` (Puppet 7's default) or `error` (Puppet 8's).
    /// It decides what unknown variables, numeric strings coerced by arithmetic and
    /// duplicate hash keys are.
    pub(crate) fn strict(&self) -> &str {
        match self.settings.overrides.get("strict") {
            Some(s) => s.as_str(),
            None => "warning",
        }
    }

    /// A numeric string `s` coerced to `n` by arithmetic, a unary minus or an index
    /// (Puppet's `Runtime3Support#optionally_fail` of NUMERIC_COERCION): nothing under
    /// `strict=off`, an error at `span` under `strict=error`, else a warning.
    pub(crate) fn coerced(&mut self, s: &str, n: &Value, span: &Span) -> R<()> {
        let message = format!(
            "The string '{s}' was automatically coerced to the numerical value {}",
            n.to_plain_string()
        );
        match self.strict() {
            "off" => Ok(()),
            "error" => err(message, span),
            _ => {
                self.warn(message);
                Ok(())
            }
        }
    }

    /// Reading a variable that does not exist: an error under `strict_variables` or
    /// `strict=error`, nothing under `strict=off`, else a warning (Puppet's
    /// UNKNOWN_VARIABLE issue).
    fn unknown_variable(&mut self, name: &str, span: &Span) -> R<()> {
        match self.strictness() {
            "error" => err(format!("Unknown variable: '{name}'."), span),
            "off" => Ok(()),
            _ => {
                self.warn(format!("Unknown variable: '{name}'."));
                Ok(())
            }
        }
    }

    /// Looks a variable up: `None` when it does not exist.
    pub(crate) fn lookup_var(
        &mut self,
        name: &str,
        scope: ScopeId,
        span: &Span,
    ) -> R<Option<Value>> {
        if name.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty() {
            let n: usize = name.parse().unwrap_or(usize::MAX);
            return Ok(self
                .scopes
                .match_data(scope)
                .and_then(|m| m.get(n).cloned())
                .map(|s| s.map(Value::string).unwrap_or(Value::Undef)));
        }
        if let Some(rest) = name.strip_prefix("::") {
            if !is_qualified(rest) {
                return Ok(self.scopes.get(self.top).vars.get(rest).cloned());
            }
            return self.qualified_var(rest, span);
        }
        if is_qualified(name) {
            return self.qualified_var(name, span);
        }
        if !self.param_guards.is_empty() {
            self.check_param_guards(name, scope)?;
        }
        Ok(self.scopes.lookup(scope, name).cloned())
    }

    /// Evaluates the default expression `d` of parameter `guard.param` in `guard.scope`,
    /// where the parameters `guard.pending` (itself and those not evaluated yet) may not be
    /// read: Puppet fails with "`<prefix>`: default expression for $a tries to illegally
    /// access not yet evaluated $b" (`prefix` names the owner: `f`, `Class[C]`, with the
    /// evaluator's wrapper when the caller does not add one); reading one of
    /// `guard.missing` (earlier parameters without a value) is "expects a value for
    /// parameter $b".
    pub(super) fn eval_default(&mut self, d: &Expr, guard: ParamGuard) -> R<Value> {
        let scope = guard.scope;
        self.param_guards.push(guard);
        let r = self.eval(d, scope);
        self.param_guards.pop();
        r
    }

    /// Fails when `name` is a parameter whose value a default expression being evaluated in
    /// `scope` (or a lambda inside it) may not read yet.
    pub(super) fn check_param_guards(&self, name: &str, scope: ScopeId) -> R<()> {
        for g in self.param_guards.iter().rev() {
            let missing = g.missing.iter().any(|p| p == name);
            if !missing && !g.pending.contains(name) {
                continue;
            }
            let mut id = Some(scope);
            while let Some(s) = id {
                if s == g.scope {
                    let text = if missing {
                        format!("{}: expects a value for parameter ${name}", g.prefix)
                    } else {
                        format!(
                            "{}: default expression for ${} tries to illegally access not yet evaluated ${name}",
                            g.prefix, g.param
                        )
                    };
                    return err(text, &g.span);
                }
                id = self.scopes.get(s).parent;
            }
        }
        Ok(())
    }

    /// A variable's value without any warning or error when it does not exist (for
    /// `getvar`): plain, `::top` and qualified names.
    pub(crate) fn peek_var(&self, name: &str, scope: ScopeId) -> Option<Value> {
        let bare = name.strip_prefix("::");
        match bare {
            Some(rest) if !is_qualified(rest) => {
                return self.scopes.get(self.top).vars.get(rest).cloned()
            }
            _ => {}
        }
        let name = bare.unwrap_or(name);
        if let Some((class, var)) = rsplit_qualified(name) {
            return self.class_var(class, var).flatten();
        }
        self.scopes.lookup(scope, name).cloned()
    }

    /// The variable `var` of the evaluated class `class` (any case): the class's own, then
    /// those of the classes it inherits from, as `$class::var` and `getvar('class::var')`
    /// read it. `None` when the class has not been evaluated.
    pub(super) fn class_var(&self, class: &str, var: &str) -> Option<Option<Value>> {
        let id = self.class_scope(class)?;
        let mut cur = Some(id);
        while let Some(c) = cur {
            let s = self.scopes.get(c);
            if let Some(v) = s.vars.get(var) {
                return Some(Some(v.clone()));
            }
            cur = s
                .parent
                .filter(|p| matches!(self.scopes.get(*p).kind, ScopeKind::Class(_)));
        }
        if class.eq_ignore_ascii_case("settings") {
            return Some(self.setting_var(var));
        }
        Some(None)
    }

    /// How Puppet's `Scope#lookupvar` (Ruby code's `scope.lookupvar`/`scope[]`) names a
    /// qualified variable it did not find, and why: `('::c::x', "")` when class `c` was
    /// evaluated (the name of the last class up its inherited chain), `('c::x', "class c
    /// has not been evaluated")` or `("c::x", "class c could not be found")` otherwise.
    pub(crate) fn qualified_miss(&self, name: &str) -> (String, String) {
        let fqn = name.trim_start_matches("::");
        let Some((class, var)) = rsplit_qualified(fqn) else {
            return (format!("::{fqn}"), String::new());
        };
        let Some(id) = self.class_scope(class) else {
            let reason = if self.env.class(&class.to_ascii_lowercase()).is_some() {
                "has not been evaluated"
            } else {
                "could not be found"
            };
            return (fqn.to_string(), format!("class {class} {reason}"));
        };
        let mut last = id;
        while let Some(p) = self.scopes.get(last).parent {
            if !matches!(self.scopes.get(p).kind, ScopeKind::Class(_)) {
                break;
            }
            last = p;
        }
        match &self.scopes.get(last).kind {
            ScopeKind::Class(c) if last != id => (format!("::{c}::{var}"), String::new()),
            _ => (format!("::{fqn}"), String::new()),
        }
    }

    pub(super) fn qualified_var(&mut self, name: &str, _span: &Span) -> R<Option<Value>> {
        let (class, var) = rsplit_qualified(name).unwrap_or(("", name));
        match self.class_var(class, var) {
            Some(v) => Ok(v),
            None => {
                let class = class.to_ascii_lowercase();
                if class == "settings" {
                    return Ok(None);
                }
                if self.strictness() == "error" {
                    return Ok(None);
                }
                // Puppet 7.23 says the same whether the class exists but was not evaluated
                // or does not exist at all.
                self.unknown_variable(name, _span)?;
                Ok(Some(Value::Undef))
            }
        }
    }

    pub(super) fn assign(&mut self, lhs: &Expr, v: Value, scope: ScopeId, at: &Span) -> R<()> {
        match &lhs.kind {
            ExprKind::Var(name) => self.set_var(name, v, scope, at),
            ExprKind::Array(targets) => match v {
                Value::Array(values) => {
                    if values.len() != targets.len() {
                        return err(
                            format!(
                                "Mismatched number of assignable entries and values, expected {}, got {}",
                                targets.len(),
                                values.len()
                            ),
                            &lhs.span,
                        );
                    }
                    for (t, val) in targets.iter().zip(values.iter()) {
                        self.assign(t, val.clone(), scope, at)?;
                    }
                    Ok(())
                }
                Value::Hash(h) => {
                    for t in targets {
                        // A variable takes the entry of its name; a nested list of variables
                        // takes the entry whose key is the list of their names.
                        let key = match &t.kind {
                            ExprKind::Var(name) => Value::string(name.as_str()),
                            ExprKind::Array(inner) => Value::array(
                                inner
                                    .iter()
                                    .map(|x| match &x.kind {
                                        ExprKind::Var(n) => Value::string(n.as_str()),
                                        _ => Value::Undef,
                                    })
                                    .collect(),
                            ),
                            _ => {
                                return err(
                                    "Illegal attempt to assign. Not an assignable reference",
                                    &t.span,
                                )
                            }
                        };
                        match h.get(&key) {
                            Some(val) => self.assign(t, val.clone(), scope, at)?,
                            None => {
                                let shown = match &key {
                                    Value::Array(a) => format!(
                                        "[{}]",
                                        a.iter()
                                            .map(|x| format!("\"{}\"", x.to_plain_string()))
                                            .collect::<Vec<_>>()
                                            .join(", ")
                                    ),
                                    other => other.to_plain_string(),
                                };
                                return err(
                                    format!("No value for required key '{shown}' in assignment to variables from hash"),
                                    &t.span,
                                );
                            }
                        }
                    }
                    Ok(())
                }
                // `[$a, $b] = Class['x']`: the variables of an evaluated class.
                Value::Type(Type::Class(Some(cname))) => {
                    let cname = cname.to_ascii_lowercase();
                    for t in targets {
                        let ExprKind::Var(name) = &t.kind else {
                            return err(
                                "Illegal attempt to assign. Not an assignable reference",
                                &t.span,
                            );
                        };
                        let q = format!("{cname}::{name}");
                        let found = match self.class_scope(&cname) {
                            Some(id) => self.scopes.get(id).vars.get(name.as_str()).cloned(),
                            None => None,
                        };
                        match found {
                            Some(val) => self.assign(t, val, scope, at)?,
                            None => {
                                return err(
                                    format!("No value for required variable '${q}' in assignment to variables from class reference"),
                                    &t.span,
                                )
                            }
                        }
                    }
                    Ok(())
                }
                other if targets.len() == 1 => self.assign(&targets[0], other, scope, at),
                _ => err(
                    format!(
                        "Mismatched number of assignable entries and values, expected {}, got 1",
                        targets.len()
                    ),
                    &lhs.span,
                ),
            },
            _ => err(
                "Illegal attempt to assign. Not an assignable reference",
                &lhs.span,
            ),
        }
    }

    pub(crate) fn set_var(&mut self, name: &str, v: Value, scope: ScopeId, span: &Span) -> R<()> {
        if matches!(name, "facts" | "trusted" | "server_facts") {
            return err(
                format!("Attempt to assign to a reserved variable name: '${name}'"),
                span,
            );
        }
        let s = self.scopes.get_mut(scope);
        // One hash for the check and the insertion.
        let entry = match s.vars.entry(SmolStr::new(name)) {
            indexmap::map::Entry::Vacant(entry) => entry,
            indexmap::map::Entry::Occupied(_) => return Self::reassign_error(name, span),
        };
        entry.insert(v);
        Ok(())
    }

    /// Puppet's error for assigning a variable the scope already has.
    fn reassign_error(name: &str, span: &Span) -> R<()> {
        if matches!(
            name,
            "name" | "title" | "module_name" | "caller_module_name"
        ) {
            return err(
                format!("Cannot reassign built in (or already assigned) variable '${name}'"),
                span,
            );
        }
        err(format!("Cannot reassign variable '${name}'"), span)
    }
}
