//! Type names as the evaluator resolves them: built-in types, type aliases (resolved once per
//! compile, with Puppet's checks of unresolvable and invalid aliases), resource types and
//! classes as `Resource` types, and constant type expressions evaluated once.

use super::{is_constant_type_expr, Compiler};
use crate::error::{Flow, R};
use crate::ir::*;
use crate::names::{capitalize, strip_root};
use crate::scope::ScopeId;
use puppet_types::types::ResourceType;
use puppet_types::{Type, TypeAlias, Value};
use smol_str::SmolStr;
use std::sync::Arc;

impl Compiler {
    /// Resolves a capitalised name: user type aliases, defined types and classes as resource
    /// types, then Puppet's types.
    pub(crate) fn resolve_type(&mut self, name: &str) -> Type {
        if let Some(t) = self.resolved_types.get(name) {
            return t.clone();
        }
        let t = self.resolve_type_uncached(name);
        self.resolved_types.insert(SmolStr::new(name), t.clone());
        t
    }

    /// What a type name denotes: a type alias (its body evaluated the first time, errors
    /// kept for the use site), a defined type, a built-in type, a resource type of the
    /// environment, else a type reference. The answer cannot change during a compile, so
    /// [`Compiler::resolve_type`] keeps it.
    pub(super) fn resolve_type_uncached(&mut self, name: &str) -> Type {
        let bare = strip_root(name);
        let lower = SmolStr::new(bare.to_ascii_lowercase());
        if let Some(a) = self.aliases.get(&lower) {
            return Type::Alias(a.clone());
        }
        // The files read for the name may fail the compile (at its end: a type resolves
        // here, it cannot fail).
        self.note_load_later(puppet_loader::DefKind::TypeAlias, &lower);
        if let Some(def) = self.env.type_alias(&lower) {
            // The alias takes the name its definition spells (`Stdlib::Absolutepath`), not
            // the one it was referenced by (`Stdlib::AbsolutePath`), as Puppet's loader.
            let defined = SmolStr::new(strip_root(&def.name));
            let bare = defined.as_str();
            let alias = TypeAlias::new(bare);
            self.aliases.insert(lower.clone(), alias.clone());
            let top = self.top;
            // Puppet interprets the body with its type parser, which knows only literals,
            // names, type references and accesses on them.
            if let Some(bad) = invalid_type_spec(&def.type_expr) {
                let text = &bad.span.file.text[bad.span.start as usize..bad.span.end as usize];
                self.invalid_alias = Some(format!(
                    "The expression <{text}> is not a valid type specification."
                ));
                alias.resolve_to(Type::TypeReference(SmolStr::new(bare)));
                return Type::Alias(alias);
            }
            // As Puppet's type parser: unknown names are type references, not errors.
            let saved_mode = std::mem::replace(&mut self.type_parser_mode, true);
            let r = self.eval(&def.type_expr, top);
            self.type_parser_mode = saved_mode;
            let resolved = match r {
                Ok(Value::Type(t)) => t,
                Err(Flow::Error(e)) => {
                    // Reported where the alias is used, as an error of the type name.
                    let msg = e.message;
                    let msg = msg
                        .strip_prefix("Error while evaluating a '[]' expression, ")
                        .map(str::to_string)
                        .unwrap_or(msg);
                    self.invalid_alias = Some(msg);
                    Type::TypeReference(SmolStr::new(bare))
                }
                _ => Type::TypeReference(SmolStr::new(bare)),
            };
            alias.resolve_to(alias_target(bare, resolved));
            if let Type::Object(o) = alias.resolved() {
                if let Err(x) = o.validate() {
                    self.invalid_alias = Some(x.to_string());
                }
            }
            if !resolves_to_real_type(&Type::Alias(alias.clone()), &mut Vec::new()) {
                self.unresolvable_alias = Some(SmolStr::new(bare));
                // Break the cycle so later uses cannot loop.
                let broken = TypeAlias::new(bare);
                broken.resolve_to(Type::TypeReference(SmolStr::new(bare)));
                self.aliases.insert(lower.clone(), broken.clone());
                return Type::Alias(broken);
            }
            return Type::Alias(alias);
        }
        if self.env.define(&lower).is_some() {
            return Type::Resource(Arc::new(ResourceType {
                type_name: Some(SmolStr::new(capitalize(bare))),
                title: None,
            }));
        }
        let t = puppet_types::resolve_type_name(bare);
        // Resource types of the environment's modules (`Anchor`, `Mysql_datadir`).
        if matches!(t, Type::TypeReference(_)) && self.env.resource_type_known(&lower) {
            return Type::Resource(Arc::new(ResourceType {
                type_name: Some(SmolStr::new(capitalize(bare))),
                title: None,
            }));
        }
        t
    }

    /// Evaluates a parameter's type expression; for a function (`fname`), an error is kept
    /// to be reported as it is (see `param_type_error`).
    /// Evaluates a parameter's type expression; one made only of type names, literals and
    /// accesses on them is evaluated once per compile (a define with hundreds of typed
    /// parameters is instantiated many times).
    pub(crate) fn eval_type_expr(&mut self, t: &Expr, scope: ScopeId) -> R<Value> {
        self.const_type_expr(t, |c| c.eval(t, scope))
    }

    /// The value of `e` if it is a constant type expression ([`is_constant_type_expr`]): the
    /// environment's, if a compile evaluated it before, else `eval`'s, kept for every later
    /// compile unless evaluating it logged something (a message a later compile must log
    /// too) or failed. Any other expression is `eval`'s. The environment's cache is asked
    /// first: it holds constant expressions only, so a value found there needs no walk of
    /// the expression.
    pub(crate) fn const_type_expr(
        &mut self,
        e: &Expr,
        eval: impl FnOnce(&mut Self) -> R<Value>,
    ) -> R<Value> {
        let key = (
            Arc::as_ptr(&e.span.file) as usize,
            e.span.start,
            e.span.end,
            e as *const Expr as usize,
        );
        if let Some(v) = self.env.const_type(&key) {
            return Ok(v);
        }
        if !is_constant_type_expr(e, 0) {
            return eval(self);
        }
        let logged = self.logs.len();
        let v = eval(self)?;
        if self.logs.len() == logged {
            self.env.keep_const_type(key, &e.span.file, &v);
        }
        Ok(v)
    }
}

/// The first part of a type alias body that Puppet's type parser does not accept (it
/// interprets literals, bare names, type references, arrays, hashes, unary minus and
/// `Name[...]` accesses), in the order it visits them: an access's keys before its left side.
pub(super) fn invalid_type_spec(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) | ExprKind::TypeName(_) => None,
        ExprKind::Array(items) => items.iter().find_map(invalid_type_spec),
        ExprKind::Hash(entries) => entries
            .iter()
            .find_map(|(k, v)| invalid_type_spec(k).or_else(|| invalid_type_spec(v))),
        ExprKind::Neg(x) => invalid_type_spec(x),
        // `Object { ... }` inside a TypeSet's `types` (Puppet reads those itself).
        ExprKind::ResourceDefaults { type_expr, .. }
            if matches!(type_expr.kind, ExprKind::TypeName(_)) =>
        {
            None
        }
        ExprKind::Access(left, keys) => {
            keys.iter().find_map(invalid_type_spec).or(match left.kind {
                ExprKind::TypeName(_) => None,
                _ => Some(e),
            })
        }
        _ => Some(e),
    }
}

/// What an alias resolves to, as Puppet's `PTypeAliasType#resolve` makes it: the normalized
/// type; of a Variant, the members that lead back to the alias itself without reaching a
/// real type are dropped (`type Foo = Variant[Foo, String, Integer]` is
/// `Variant[String, Integer]`).
pub(super) fn alias_target(name: &str, t: Type) -> Type {
    let t = puppet_types::normalize(&t);
    if let Type::Variant(members) = &t {
        let real: Vec<Type> = members
            .iter()
            .filter(|m| resolves_to_real_type(m, &mut vec![name.to_string()]))
            .cloned()
            .collect();
        if !real.is_empty() && real.len() != members.len() {
            return match <[Type; 1]>::try_from(real) {
                Ok([one]) => one,
                Err(real) => Type::Variant(Arc::new(real)),
            };
        }
    }
    t
}

/// Whether an alias leads to a real type, not only through aliases and variants of
/// aliases back to itself (`type A = B`, `type B = Variant[A]`).
pub(super) fn resolves_to_real_type(t: &Type, visiting: &mut Vec<String>) -> bool {
    match t {
        Type::Alias(a) => {
            let name = a.name().to_string();
            if visiting.contains(&name) {
                return false;
            }
            visiting.push(name);
            let r = resolves_to_real_type(&a.resolved(), visiting);
            visiting.pop();
            r
        }
        Type::Variant(members) => members.iter().any(|m| resolves_to_real_type(m, visiting)),
        _ => true,
    }
}

/// The resource types puppet-agent 7.23 knows without modules: the built-in
/// ones and those of the core modules it vendors (parameters, namevars),
/// shared by every compile.
pub(crate) fn known_types() -> &'static Arc<puppet_restypes::TypeDatabase> {
    static DB: std::sync::OnceLock<Arc<puppet_restypes::TypeDatabase>> = std::sync::OnceLock::new();
    DB.get_or_init(|| Arc::new(puppet_restypes::TypeDatabase::with_vendored()))
}
