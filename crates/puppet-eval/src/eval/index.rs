//! Access expressions `x[...]`: indexing and slicing strings, arrays and hashes, and
//! parameterising types (`Array[String]`, `Resource['file', '/x']`) with Puppet's
//! checks and messages.

use super::Compiler;
use crate::error::{err, R};
use crate::ir::*;
use crate::names::type_name_of;
use crate::ops;
use puppet_types::{Type, Value};

impl Compiler {
    /// `target[keys]`. Puppet reports what is wrong with an access as an issue of the
    /// language, without the evaluator's prefix, at the key it is about when there is one.
    pub(super) fn access(
        &mut self,
        target: Value,
        keys: Vec<Value>,
        span: &Span,
        key_exprs: &[Expr],
    ) -> R<Value> {
        let key_span = |i: usize| key_exprs.get(i).map_or(span, |k| &k.span);
        // A single array key is the list of keys (`'abcd'[[1, 2]]`).
        let keys = match keys.as_slice() {
            [Value::Array(a)] if !matches!(target, Value::Hash(_) | Value::Type(_)) => {
                a.iter().cloned().collect()
            }
            _ => keys,
        };
        let label = "";
        match &target {
            Value::String(s) => {
                if keys.len() > 2 {
                    return err(
                        format!(
                            "{label}String supports [] with one or two arguments. Got {}",
                            keys.len()
                        ),
                        span,
                    );
                }
                if let Some((i, bad)) = keys
                    .iter()
                    .enumerate()
                    .find(|(_, k)| !matches!(k, Value::Integer(_)))
                {
                    return err(
                        format!(
                            "{label}A substring operation does not accept {} as a character index. Expected an Integer",
                            ops::a_an_value(bad)
                        ),
                        key_span(i),
                    );
                }
                let chars: Vec<char> = s.chars().collect();
                match slice_range(chars.len(), &keys) {
                    Ok(Some((start, len))) => Ok(
                        target.string_like(chars[start..start + len].iter().collect::<String>())
                    ),
                    Ok(None) => Ok(Value::string("")),
                    Err(m) => err(format!("{label}{m}"), span),
                }
            }
            Value::Binary(bytes) => {
                if keys.len() > 2 {
                    return err(
                        format!(
                            "{label}String supports [] with one or two arguments. Got {}",
                            keys.len()
                        ),
                        span,
                    );
                }
                match slice_range(bytes.len(), &keys) {
                    Ok(Some((start, len))) => Ok(Value::Binary(std::sync::Arc::from(
                        &bytes[start..start + len],
                    ))),
                    Ok(None) => Ok(Value::Binary(std::sync::Arc::from(&[][..]))),
                    Err(m) => err(format!("{label}{m}"), span),
                }
            }
            Value::Array(a) => {
                if keys.len() > 2 {
                    return err(
                        format!(
                            "{label}Array supports [] with one or two arguments. Got {}",
                            keys.len()
                        ),
                        span,
                    );
                }
                // Numeric strings are coerced (with Puppet's warning) before the checks.
                let mut coerced_keys = Vec::with_capacity(keys.len());
                for (i, k) in keys.iter().enumerate() {
                    match k {
                        Value::String(s) => match ops::parse_numeric_string(s) {
                            Some(n) => {
                                self.coerced(s, &n, key_span(i))?;
                                coerced_keys.push(n);
                            }
                            None => coerced_keys.push(k.clone()),
                        },
                        other => coerced_keys.push(other.clone()),
                    }
                }
                let keys = coerced_keys;
                for (i, k) in keys.iter().enumerate() {
                    match k {
                        Value::Integer(_) => {}
                        Value::Float(_) => {
                            return err(
                                format!(
                                    "{label}An Array[] cannot use Float where Integer is expected"
                                ),
                                key_span(i),
                            )
                        }
                        other => {
                            return err(
                                format!("{label}{}", crate::ops::not_numeric(other)),
                                key_span(i),
                            )
                        }
                    }
                }
                if keys.len() == 1 {
                    if let Value::Integer(i) = keys[0] {
                        let idx = if i < 0 { a.len() as i64 + i } else { i };
                        return Ok(if idx >= 0 {
                            a.get(idx as usize).cloned().unwrap_or(Value::Undef)
                        } else {
                            Value::Undef
                        });
                    }
                }
                match slice_range(a.len(), &keys) {
                    Ok(Some((start, len))) => Ok(Value::array(a[start..start + len].to_vec())),
                    Ok(None) => Ok(Value::array(vec![])),
                    Err(m) => err(format!("{label}{m}"), span),
                }
            }
            Value::Hash(h) => {
                if keys.len() == 1 {
                    return Ok(h.get(&keys[0]).cloned().unwrap_or(Value::Undef));
                }
                Ok(Value::array(
                    keys.iter().filter_map(|k| h.get(k).cloned()).collect(),
                ))
            }
            Value::Type(t) => {
                // Puppet locates a class name that is not a String at that key.
                let bad_class_key = matches!(t, Type::Class(None))
                    .then(|| keys.iter().position(|k| !matches!(k, Value::String(_))))
                    .flatten();
                let at = bad_class_key.map_or(span, key_span);
                self.type_access(t.clone(), keys, at)
            }
            other => err(
                format!(
                    "{label}Operator '[]' is not applicable to {}.",
                    ops::a_an_value(other)
                ),
                span,
            ),
        }
    }

    pub(super) fn type_access(&mut self, t: Type, keys: Vec<Value>, span: &Span) -> R<Value> {
        let label = "";
        // A resource with a title: `Notify[x][message]` reads a parameter.
        if let Type::Resource(r) = &t {
            if let (Some(tn), Some(title)) = (&r.type_name, &r.title) {
                if keys.len() == 1 {
                    if let Value::String(attr) = &keys[0] {
                        return self.resource_parameter(tn, title, attr, span);
                    }
                }
            }
        }
        // `Class[x][param]` reads a parameter of an evaluated class.
        if let Type::Class(Some(name)) = &t {
            if let [Value::String(attr)] = keys.as_slice() {
                if let Some(id) = self.class_scope(name) {
                    return Ok(self
                        .scopes
                        .get(id)
                        .vars
                        .get(attr.as_str())
                        .cloned()
                        .unwrap_or(Value::Undef));
                }
            }
        }
        match puppet_types::parameterize_value(&t, &keys) {
            Ok(v) => Ok(v),
            // A runtime error of the type's creation is wrapped; other problems are issues.
            Err(e @ puppet_types::TypeError::Operation(_)) => err(
                format!("Error while evaluating a '[]' expression, {e}"),
                span,
            ),
            Err(e) => err(format!("{label}{e}"), span),
        }
    }
}

/// The start and length of `x[from]`/`x[from, count]` on a sequence of `len` items, as
/// Puppet computes them (negative from counts from the end, negative count is an end index).
pub(super) fn slice_range(len: usize, keys: &[Value]) -> Result<Option<(usize, usize)>, String> {
    let int = |v: &Value| match v {
        Value::Integer(i) => Ok(*i),
        other => Err(format!(
            "Access to string/array expects an Integer, got {}",
            type_name_of(other)
        )),
    };
    let (from, count) = match keys {
        [a] => (int(a)?, 1),
        [a, b] => (int(a)?, int(b)?),
        _ => return Err(format!("Expected 1 or 2 keys, got {}", keys.len())),
    };
    // In i128: `start + count` must not overflow for counts up to Integer's max.
    let (len, from, count) = (len as i128, i128::from(from), i128::from(count));
    let mut start = if from < 0 { len + from } else { from };
    let end = if count < 0 {
        len + count + 1
    } else {
        start + count
    };
    // A start before the first element shortens the slice (`[1,2,3,4][-5,2]` is `[1]`).
    if start < 0 {
        start = 0;
    }
    if start >= len {
        return Ok(None);
    }
    let end = end.min(len);
    if end <= start {
        return Ok(None);
    }
    Ok(Some((start as usize, (end - start) as usize)))
}
