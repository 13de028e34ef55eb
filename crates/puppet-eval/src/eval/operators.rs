//! The operators that need the evaluator (arithmetic and comparison dispatch, `=~`/`!~` with
//! their match variables, `in`, `case`/selector matching). What an operator does to two
//! values lives in `crate::ops`; this file evaluates the operands and sets match variables.

use super::Compiler;
use crate::error::{err, R};
use crate::ir::*;
use crate::names::{a_an, type_name_of};
use crate::ops;
use crate::scope::ScopeId;
use puppet_types::{is_instance, Type, Value};

impl Compiler {
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        let a = self.eval(l, scope)?;
        let b = self.eval(r, scope)?;
        // The prefix of the errors (made only when one is reported).
        let label = || format!("Error while evaluating a '{}' expression, ", op.symbol());
        match op {
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Mod
            | BinOp::Shl
            | BinOp::Shr => {
                let mut coerced = false;
                match ops::arithmetic(op.symbol(), &a, &b, &mut coerced) {
                    Ok(v) => {
                        if coerced {
                            for (operand, at) in [(&a, &l.span), (&b, &r.span)] {
                                if let Value::String(s) = operand {
                                    if let Some(n) = ops::parse_numeric_string(s) {
                                        self.coerced(s, &n, at)?;
                                    }
                                }
                            }
                        }
                        Ok(v)
                    }
                    Err(e) => {
                        let at = match e.site {
                            ops::ErrorSite::Left => &l.span,
                            ops::ErrorSite::Right => &r.span,
                            _ => span,
                        };
                        if e.site == ops::ErrorSite::Expression {
                            err(format!("{}{}", label(), e.message), at)
                        } else {
                            err(e.message, at)
                        }
                    }
                }
            }
            BinOp::Eq => Ok(Value::Boolean(ops::equals(&a, &b))),
            BinOp::Ne => Ok(Value::Boolean(!ops::equals(&a, &b))),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                // Puppet reports an impossible comparison at the operator, as an issue.
                match ops::compare(op.symbol(), &a, &b) {
                    Ok(v) => Ok(Value::Boolean(v)),
                    Err(msg) => err(msg, span),
                }
            }
            BinOp::Match | BinOp::NoMatch => {
                let m = self.match_op(&a, &b, scope, span, &l.span, &label())?;
                Ok(Value::Boolean(if op == BinOp::Match { m } else { !m }))
            }
            BinOp::In => Ok(Value::Boolean(self.in_op(&a, &b, scope, span)?)),
        }
    }

    pub(super) fn set_match(&mut self, scope: ScopeId, caps: Vec<Option<String>>) {
        let s = self.scopes.get_mut(scope);
        if let Some(last) = s.matches.last_mut() {
            *last = caps;
        } else {
            s.matches.push(caps);
        }
    }

    pub(super) fn match_op(
        &mut self,
        a: &Value,
        b: &Value,
        scope: ScopeId,
        span: &Span,
        left: &Span,
        label: &str,
    ) -> R<bool> {
        // A regexp needs a String to match: Puppet reports other values at the left operand.
        if matches!(b, Value::Regexp(_) | Value::String(_)) && !matches!(a, Value::String(_)) {
            return err(
                format!(
                    "Left match operand must result in a String value. Got {}.",
                    ops::a_an_value(a)
                ),
                left,
            );
        }
        match b {
            // `Init[T]` matches what `T.new` accepts (`'1.2.3' =~ Init[SemVer]`).
            Value::Type(Type::Init(init)) if !is_instance(&Type::Init(init.clone()), a) => {
                Ok(match &init.target {
                    Some(target) => {
                        let mut args = vec![a.clone()];
                        args.extend(init.args.iter().cloned());
                        puppet_types::convert::new_value(target, &args).is_ok()
                    }
                    None => false,
                })
            }
            Value::Type(t) => Ok(is_instance(t, a)),
            Value::SemVerRange(range) => Ok(semver_in_range(a, range)),
            Value::Regexp(re) => self.regex_match(a, re, scope, span, label),
            Value::String(s) => match puppet_types::Regexp::new(s) {
                Ok(re) => self.regex_match(a, &re, scope, span, label),
                Err(e) => err(format!("{label}{e}"), span),
            },
            other => err(
                format!(
                    "{label}Right operand of =~ must be a Regexp, String or Type, got {}",
                    a_an(&type_name_of(other))
                ),
                span,
            ),
        }
    }

    pub(super) fn regex_match(
        &mut self,
        a: &Value,
        re: &puppet_types::Regexp,
        scope: ScopeId,
        span: &Span,
        label: &str,
    ) -> R<bool> {
        let Value::String(s) = a else {
            return err(
                format!(
                    "{label}Left match operand must result in a String value. Got {}.",
                    ops::a_an_value(a)
                ),
                span,
            );
        };
        match re.captures(s) {
            Some(caps) => {
                self.set_match(scope, caps);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    pub(super) fn in_op(&mut self, a: &Value, b: &Value, scope: ScopeId, span: &Span) -> R<bool> {
        match b {
            Value::SemVerRange(range) => Ok(semver_in_range(a, range)),
            Value::Binary(hay) => {
                let contains = |needle: &[u8]| {
                    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
                };
                Ok(match a {
                    Value::Binary(needle) => contains(needle),
                    Value::String(needle) => contains(needle.as_bytes()),
                    // A number is looked for among the bytes.
                    Value::Integer(n) => hay.iter().any(|b| i64::from(*b) == *n),
                    Value::Float(f) => hay.iter().any(|b| f64::from(*b) == *f),
                    _ => false,
                })
            }
            Value::String(hay) => match a {
                Value::String(needle) => Ok(hay.to_lowercase().contains(&needle.to_lowercase())),
                Value::Regexp(re) => self.regex_match(b, re, scope, span, ""),
                _ => Ok(false),
            },
            Value::Array(items) => self.in_members(a, items.iter(), scope, span),
            Value::Hash(h) => self.in_members(a, h.keys(), scope, span),
            _ => Ok(false),
        }
    }

    /// `a in` an array's elements or a hash's keys: a regexp matches a
    /// string member, a type an instance, anything else by equality.
    pub(super) fn in_members<'v>(
        &mut self,
        a: &Value,
        members: impl Iterator<Item = &'v Value>,
        scope: ScopeId,
        span: &Span,
    ) -> R<bool> {
        for m in members {
            let hit = match a {
                Value::Regexp(re) => {
                    matches!(m, Value::String(_)) && self.regex_match(m, re, scope, span, "")?
                }
                Value::Type(t) => is_instance(t, m),
                // A String or a version is matched by each member as by a case option
                // (a regexp, a type, a version range...).
                Value::String(_) | Value::SemVer(_) => self.case_match(a, m, scope, span)?,
                _ => ops::equals(a, m),
            };
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `case`/selector matching of a test value against one option.
    pub(super) fn case_match(
        &mut self,
        test: &Value,
        option: &Value,
        scope: ScopeId,
        span: &Span,
    ) -> R<bool> {
        match option {
            Value::Regexp(re) => match test {
                Value::String(_) => self.regex_match(test, re, scope, span, ""),
                _ => Ok(false),
            },
            Value::Type(t) => Ok(is_instance(t, test)),
            Value::SemVerRange(range) => Ok(semver_in_range(test, range)),
            Value::SemVer(ver) => Ok(match test {
                Value::String(s) => {
                    puppet_types::Version::parse(s).is_ok_and(|t| &t == ver.as_ref())
                }
                other => ops::equals(other, option),
            }),
            Value::Default => Ok(true),
            Value::Array(opts) => match test {
                Value::Array(vals) if vals.len() == opts.len() => {
                    for (v, o) in vals.iter().zip(opts.iter()) {
                        if !self.case_match(v, o, scope, span)? {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                }
                _ => Ok(false),
            },
            Value::Hash(opts) => match test {
                Value::Hash(vals) => {
                    for (k, o) in opts.iter() {
                        match vals.get(k) {
                            Some(v) if self.case_match(v, o, scope, span)? => {}
                            _ => return Ok(false),
                        }
                    }
                    Ok(true)
                }
                _ => Ok(false),
            },
            _ => Ok(ops::equals(test, option)),
        }
    }
}

/// Whether a version (a SemVer, or a String that parses as one) is in a range.
pub(super) fn semver_in_range(v: &Value, range: &puppet_types::VersionRange) -> bool {
    match v {
        Value::SemVer(ver) => range.includes(ver),
        Value::String(s) => puppet_types::Version::parse(s)
            .map(|ver| range.includes(&ver))
            .unwrap_or(false),
        _ => false,
    }
}
