//! Call and control-flow built-ins and the logging functions: `call`, `break`, `next`,
//! `return`, `fail`, and `debug`/`info`/`notice`/`warning`/`err`/`alert`/`emerg`/`crit`
//! (through [`crate::CallContext::log`]).

use crate::error::{codes, CallError};
use crate::registry::Registry;
use crate::{LogLevel, RegistryError, Signature};
use puppet_types::Value;

/// The arguments of a logging function joined by spaces, each as the evaluator interpolates
/// it (Puppet's `log_func`: a nested `undef` is empty, `notice([undef, 1])` logs `[, 1]`).
fn joined(values: &[Value]) -> String {
    let mut out = String::new();
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match v {
            // A binary string's bytes, as a log shows them.
            Value::String(s) if s.is_binary() => out.push_str(&s.display_text()),
            _ => puppet_types::format::interpolated_value(&mut out, v),
        }
    }
    out
}

/// `fail`'s message: a 3.x function joining Ruby's `to_s` of its arguments (`[nil, 1]`,
/// `{"a"=>nil}`; a regexp keeps its slashes).
fn fail_message(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| match v {
            Value::Regexp(r) => format!("/{}/", r.source()),
            other => puppet_types::ruby::to_s(other),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Calls a function by name; an unknown name is reported as `call` reports it.
fn call_by_name(
    c: &mut dyn crate::CallContext,
    name: &str,
    args: Vec<Value>,
    block: Option<&dyn crate::Block>,
) -> Result<Value, CallError> {
    match c.call_function(name, args, block) {
        Err(CallError::Failed {
            code: codes::UNKNOWN_FUNCTION,
            ..
        }) => Err(CallError::new(
            codes::FAILED,
            format!("Unknown function '{name}'"),
        )),
        other => other,
    }
}

/// Resolves a Deferred value as `call` does: its arguments first (Deferred values nested in
/// arrays and hashes too), then the function, or for a name `$x` the variable `x` dug into
/// by the arguments.
fn resolve_deferred(c: &mut dyn crate::CallContext, v: &Value) -> Result<Value, CallError> {
    match v {
        Value::Object(o) if o.type_name() == "Deferred" => {
            let name = o
                .get("name")
                .map(Value::to_plain_string)
                .unwrap_or_default();
            let mut args = Vec::new();
            if let Some(Value::Array(a)) = o.get("arguments") {
                for x in a.iter() {
                    args.push(resolve_deferred(c, x)?);
                }
            }
            if let Some(var) = name.strip_prefix('$') {
                let value = c.variable(var).unwrap_or(Value::Undef);
                if args.is_empty() {
                    return Ok(value);
                }
                let mut dig = vec![value];
                dig.extend(args);
                return c.call_function("dig", dig, None);
            }
            call_by_name(c, &name, args, None)
        }
        Value::Array(a) => Ok(Value::array(
            a.iter()
                .map(|x| resolve_deferred(c, x))
                .collect::<Result<Vec<_>, _>>()?,
        )),
        Value::Sensitive(inner) => Ok(Value::Sensitive(std::sync::Arc::new(resolve_deferred(
            c, inner,
        )?))),
        Value::Hash(h) => {
            let mut out = Vec::new();
            for (k, x) in h.iter() {
                out.push((k.clone(), resolve_deferred(c, x)?));
            }
            Ok(Value::hash(out))
        }
        other => Ok(other.clone()),
    }
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &[
    "call", "break", "next", "return", "fail", "debug", "info", "notice", "warning", "err",
    "alert", "emerg", "crit",
];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("call")
        .doc("Calls a function by name with the given arguments and lambda. (Calling a Deferred is left to the evaluator.)")
        .example("call('max', 1, 5, 3)", "5")
        .dispatch(Signature::new().param("String", "function_name").repeated_param("Any", "arguments").optional_block_param("Callable", "block"), |c, a| {
            let name = a.get(0).as_str().unwrap_or_default().to_string();
            call_by_name(c, &name, a.values[1..].to_vec(), a.block)
        })
        .dispatch(Signature::new().param("Deferred", "deferred"), |c, a| {
            resolve_deferred(c, &a.get(0))
        })
        .register()?;
    reg.function("break")
        .doc(
            "Stops the iteration of the enclosing iterating function, which then returns normally.",
        )
        .example("[1, 2, 3].map |$x| { if $x == 3 { break() } $x }", "[1, 2]")
        .dispatch(Signature::new(), |_c, _a| Err(CallError::Break))
        .register()?;
    reg.function("next")
        .doc("Ends the current lambda (or function body) with the given value (undef by default).")
        .example("[1, 2].map |$x| { if $x == 1 { next(10) } $x }", "[10, 2]")
        .dispatch(Signature::new().optional_param("Any", "value"), |_c, a| {
            Err(CallError::Next(a.get(0)))
        })
        .register()?;
    reg.function("return")
        .doc("Returns from the enclosing Puppet-language function with the given value (undef by default).")
        .example("function f() { [1].each |$x| { return(5) } 1 } f()", "5")
        .dispatch(Signature::new().optional_param("Any", "value"), |_c, a| Err(CallError::Return(a.get(0))))
        .register()?;
    reg.function("fail")
        .doc("Fails the evaluation with the arguments joined by spaces as the message (a 3.x function in Puppet, kept here for convenience).")
        .example("fail('boom', 1)", "error: boom 1")
        .dispatch(Signature::new().repeated_param("Any", "message"), |_c, a| Err(CallError::new(codes::FAILED, fail_message(&a.values))))
        .register()?;
    for (name, level) in [
        ("debug", LogLevel::Debug),
        ("info", LogLevel::Info),
        ("notice", LogLevel::Notice),
        ("warning", LogLevel::Warning),
        ("err", LogLevel::Err),
        ("alert", LogLevel::Alert),
        ("emerg", LogLevel::Emerg),
        ("crit", LogLevel::Crit),
    ] {
        reg.function(name)
            .doc(&format!(
                "Logs the arguments, joined by spaces, at level {name}; returns undef."
            ))
            .example(&format!("{name}('hello', 1)"), "undef")
            .dispatch(
                Signature::new()
                    .repeated_param("Any", "values")
                    .return_type("Undef"),
                move |c, a| {
                    c.log_from_scope(level, &joined(&a.values));
                    Ok(Value::Undef)
                },
            )
            .register()?;
    }
    Ok(())
}
