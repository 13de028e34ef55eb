//! Type built-ins: `type`, `assert_type`, `new`, `convert_to`, `unwrap`.

use super::iteration::invoke;
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{CallContext, RegistryError, Signature};
use puppet_types::mismatch::describe_mismatch;
use puppet_types::{infer_set, is_instance, Type, Value};
use std::collections::BTreeMap;

/// Reads a type string, resolving capitalized names through the context's loader.
fn type_from_string(ctx: &mut dyn CallContext, text: &str) -> Result<Type, CallError> {
    let mut known: BTreeMap<String, Type> = BTreeMap::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            if word.starts_with(|c: char| c.is_ascii_uppercase()) {
                if let Some(t) = ctx.resolve_type_name(&word) {
                    known.insert(word.clone(), t);
                }
            }
            word.clear();
        }
    }
    let lookup = move |n: &str| known.get(n).cloned();
    crate::parse_type(text, &lookup).map_err(|e| CallError::new(codes::TYPE, e))
}

/// Reads a type string with no loader (`Type.new('Integer[3,10]')`).
fn type_from_string_plain(text: &str) -> Result<Type, CallError> {
    crate::parse_type(text, &|_: &str| None).map_err(|e| CallError::new(codes::TYPE, e))
}

fn assert_type(ctx: &mut dyn CallContext, a: Args<'_>, t: Type) -> Result<Value, CallError> {
    let v = a.get(1);
    if is_instance(&t, &v) {
        return Ok(v);
    }
    let actual = infer_set(&v);
    match a.block {
        Some(b) => {
            Ok(invoke(ctx, b, vec![Value::Type(t), Value::Type(actual)])?.unwrap_or(Value::Undef))
        }
        None => Err(CallError::new(
            codes::ASSERTION,
            describe_mismatch("assert_type():", &t, &actual),
        )),
    }
}

/// The signatures of Puppet's `new_timespan` and `new_timestamp` functions, whose mismatch
/// texts `Timespan.new` and `Timestamp.new` report; the bodies do nothing (the conversion is
/// `puppet_types::convert::new_value`).
fn time_signatures() -> &'static Registry {
    static REG: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REG.get_or_init(|| {
        let ok = |_: &mut dyn CallContext, _: Args<'_>| Ok(Value::Undef);
        let formats = "Variant[String[2],Array[String[2], 1]]";
        let mut r = Registry::new();
        let _ = r
            .function("new_timespan")
            .local_type("Formats", formats)
            .dispatch(Signature::new().param("Variant[Integer,Float]", "seconds"), ok)
            .dispatch(
                Signature::new()
                    .param("String[1]", "string")
                    .optional_param("Formats", "format"),
                ok,
            )
            .dispatch(
                Signature::new()
                    .param("Integer", "days")
                    .param("Integer", "hours")
                    .param("Integer", "minutes")
                    .param("Integer", "seconds")
                    .optional_param("Integer", "milliseconds")
                    .optional_param("Integer", "microseconds")
                    .optional_param("Integer", "nanoseconds"),
                ok,
            )
            .dispatch(
                Signature::new().param(
                    "Struct[{string => String[1], Optional[format] => Formats}]",
                    "hash_arg",
                ),
                ok,
            )
            .dispatch(
                Signature::new().param(
                    "Struct[{Optional[negative] => Boolean, Optional[days] => Integer, Optional[hours] => Integer, Optional[minutes] => Integer, Optional[seconds] => Integer, Optional[milliseconds] => Integer, Optional[microseconds] => Integer, Optional[nanoseconds] => Integer}]",
                    "hash_arg",
                ),
                ok,
            )
            .register();
        let _ = r
            .function("new_timestamp")
            .local_type("Formats", formats)
            .dispatch(Signature::new(), ok)
            .dispatch(Signature::new().param("Variant[Integer,Float]", "seconds"), ok)
            .dispatch(
                Signature::new()
                    .param("String[1]", "string")
                    .optional_param("Formats", "format")
                    .optional_param("String[1]", "timezone"),
                ok,
            )
            .dispatch(
                Signature::new().param(
                    "Struct[{string => String[1], Optional[format] => Formats, Optional[timezone] => String[1]}]",
                    "hash_arg",
                ),
                ok,
            )
            .register();
        r
    })
}

fn new_instance(t: &Type, args: &[Value]) -> Result<Value, CallError> {
    // A value that already is an instance is returned as it is (not for `Init` types).
    if let [v] = args {
        if !matches!(t.unalias(), Type::Init(_)) && is_instance(t, v) {
            return Ok(v.clone());
        }
    }
    let unsupported = || {
        CallError::new(
            codes::TYPE,
            format!("Creation of new instance of type '{t}' is not supported"),
        )
    };
    let first = args.first().cloned().unwrap_or(Value::Undef);
    if let Type::Init(i) = t.unalias() {
        if let Some(inner) = i.target.as_ref() {
            if !matches!(inner.unalias(), Type::Object(_)) {
                return new_init(t, inner, &i.args, args);
            }
        }
    }
    let target = match t.unalias() {
        Type::Optional(_) if args.len() == 1 && first == Value::Undef => return Ok(Value::Undef),
        Type::Optional(Some(inner)) => (*inner).clone(),
        Type::NotUndef(Some(inner)) => (*inner).clone(),
        Type::NotUndef(None) if args.len() == 1 && first != Value::Undef => return Ok(first),
        Type::Undef if args.len() == 1 && first == Value::Undef => return Ok(Value::Undef),
        Type::Default if args.len() == 1 && first == Value::Default => return Ok(Value::Default),
        Type::Type(bound) if args.len() == 1 => {
            let made = match &first {
                Value::Type(x) => x.clone(),
                Value::String(s) => type_from_string_plain(s)?,
                _ => return Err(unsupported()),
            };
            if let Some(b) = bound {
                if !puppet_types::assignable(b.as_ref(), &made) {
                    return Err(CallError::new(
                        codes::TYPE,
                        describe_mismatch(
                            &format!("Converted value from {t}.new() has wrong type,"),
                            t,
                            &infer_set(&Value::Type(made)),
                        ),
                    ));
                }
            }
            return Ok(Value::Type(made));
        }
        other => other,
    };
    if matches!(
        target,
        Type::Undef | Type::Variant(_) | Type::Any | Type::Unit | Type::Default | Type::Callable(_)
    ) {
        return Err(unsupported());
    }
    // Object types (`MyObject.new(...)`, `Error('oops')`, `Init[MyObject]('x')`): the object
    // module checks the arguments and words the errors as Puppet's `new_<Name>` function does.
    let object_target = match &target {
        Type::Object(_) => true,
        Type::Init(i) => matches!(i.target.as_ref().map(Type::unalias), Some(Type::Object(_))),
        _ => false,
    };
    if object_target {
        return puppet_types::convert::new_value(&target, args)
            .map_err(|e| CallError::new(codes::TYPE, e.to_string()));
    }
    // Arguments Puppet's `new_timespan` / `new_timestamp` do not accept fail with their texts.
    let time_fn = match &target {
        Type::Timespan(_) => Some("new_timespan"),
        Type::Timestamp(_) => Some("new_timestamp"),
        _ => None,
    };
    if let Some(f) = time_fn {
        time_signatures().call(&mut crate::NullContext::default(), f, args.to_vec(), None)?;
    }
    // The names Puppet 7.23 gives the types' `new` functions (Regexp's is `new_float`
    // there too).
    let label = match target {
        Type::Boolean(_) => "'new_boolean' ",
        Type::Float(_) | Type::Regexp(_) => "'new_float' ",
        Type::Numeric => "'new_numeric' ",
        Type::Array(_) => "'new_array' ",
        Type::Hash(_) => "'new_hash' ",
        Type::String(_) => "'new_string' ",
        Type::SemVer(_) => "'new_Version' ",
        _ => "'new' ",
    };
    // Puppet prefixes the function name only to the texts of its `argument_mismatch`
    // dispatches ("The string 'x' cannot be converted to Integer"); errors raised while
    // converting ("invalid value for Integer(): \"08\"") come through as they are.
    let v = puppet_types::convert::new_value(&target, args).map_err(|e| {
        let m = e.to_string();
        let mismatch = (m.starts_with("The string '") || m.starts_with("Value of type "))
            && m.contains(" cannot be converted to ");
        CallError::new(
            codes::TYPE,
            if mismatch { format!("{label}{m}") } else { m },
        )
    })?;
    if !is_instance(t, &v) {
        return Err(CallError::new(
            codes::TYPE,
            describe_mismatch(
                &format!("Converted value from {t}.new() has wrong type,"),
                t,
                &infer_set(&v),
            ),
        ));
    }
    Ok(v)
}

/// `Init[T, init_args...](value)`: Puppet's `new_Init` function.
fn new_init(
    init: &Type,
    target: &Type,
    init_args: &[Value],
    args: &[Value],
) -> Result<Value, CallError> {
    if let Type::String(_) = target.unalias() {
        let ok = match init_args {
            [] => true,
            [f] => matches!(f, Value::String(_) | Value::Hash(_)),
            _ => false,
        };
        if !ok {
            return Err(CallError::new(
                codes::TYPE,
                format!("The type '{init}' does not represent a valid set of parameters for String.new()"),
            ));
        }
    }
    if args.len() != 1 {
        let n = args.len();
        return Err(CallError::new(
            codes::ARGUMENT_MISMATCH,
            format!(
                "'new_Init' expects 1 argument, got {}",
                if n == 0 {
                    "none".to_string()
                } else {
                    n.to_string()
                }
            ),
        ));
    }
    let value = &args[0];
    let mut all: Vec<Value> = match value {
        Value::Array(a) if init_args.is_empty() && !is_instance(target, value) => a.to_vec(),
        other => vec![other.clone()],
    };
    all.extend(init_args.iter().cloned());
    new_instance(target, &all)
}

fn then_block(ctx: &mut dyn CallContext, a: &Args<'_>, v: Value) -> Result<Value, CallError> {
    match a.block {
        Some(b) => Ok(invoke(ctx, b, vec![v])?.unwrap_or(Value::Undef)),
        None => Ok(v),
    }
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &["type", "assert_type", "new", "convert_to", "unwrap"];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("type")
        .doc("Returns the type of a value: detailed (the default), reduced or generalized.")
        .example("type([2, 3.14], generalized)", "Array[Numeric]")
        // Puppet's three dispatches, so that its signature list reads the same.
        .dispatch(
            Signature::new()
                .param("Any", "value")
                .optional_param("Enum[detailed]", "inference_method"),
            |_c, a| Ok(Value::Type(infer_set(&a.get(0)))),
        )
        .dispatch(
            Signature::new()
                .param("Any", "value")
                .param("Enum[reduced]", "inference_method"),
            |_c, a| Ok(Value::Type(puppet_types::infer(&a.get(0)))),
        )
        .dispatch(
            Signature::new()
                .param("Any", "value")
                .param("Enum[generalized]", "inference_method"),
            |_c, a| {
                Ok(Value::Type(puppet_types::generalize(&puppet_types::infer(
                    &a.get(0),
                ))))
            },
        )
        .register()?;
    reg.function("assert_type")
        .doc("Returns the value when it is an instance of the type (given as a Type or a String); otherwise calls the lambda with (expected, actual) types, or fails.")
        .example("assert_type(Integer, 1)", "1")
        .dispatch(Signature::new().param("Type", "type").param("Any", "value").optional_block_param("Callable[Type, Type]", "block"), |c, a| {
            let t = match a.get(0) {
                Value::Type(t) => t,
                _ => Type::Any,
            };
            assert_type(c, a, t)
        })
        .dispatch(Signature::new().param("String", "type_string").param("Any", "value").optional_block_param("Callable[Type, Type]", "block"), |c, a| {
            let t = type_from_string(c, a.get(0).as_str().unwrap_or_default())?;
            assert_type(c, a, t)
        })
        .register()?;
    reg.function("new")
        .doc("Creates a new instance of a type from arguments (`Integer('0x10')`, `Array($h)`, `String(3, '%x')`); an optional lambda receives the result.")
        .example("Integer.new('0x10')", "16")
        .dispatch(Signature::new().param("Type", "type").repeated_param("Any", "args").optional_block_param("Callable", "block"), |c, a| {
            let t = match a.get(0) {
                Value::Type(t) => t,
                _ => Type::Any,
            };
            let v = new_instance(&t, &a.values[1..])?;
            then_block(c, &a, v)
        })
        .register()?;
    reg.function("convert_to")
        .doc("Converts a value to a type, as `new` does (further arguments are passed on to `new`); an optional lambda receives the result.")
        .example("'1'.convert_to(Integer)", "1")
        .dispatch(
            Signature::new()
                .param("Any", "value")
                .param("Type", "type")
                .repeated_param("Any", "args")
                .optional_block_param("Callable[1,1]", "block"),
            |c, a| {
                let t = match a.get(1) {
                    Value::Type(t) => t,
                    _ => Type::Any,
                };
                let mut args = vec![a.get(0)];
                args.extend(a.values.iter().skip(2).cloned());
                let v = new_instance(&t, &args)?;
                then_block(c, &a, v)
            },
        )
        .register()?;
    reg.function("unwrap")
        .doc("Returns the value inside a Sensitive (other values as they are); an optional lambda receives it.")
        .example("Sensitive('x').unwrap", "'x'")
        .dispatch(Signature::new().param("Sensitive", "arg").optional_block_param("Callable", "block"), |c, a| {
            let v = match a.get(0) {
                Value::Sensitive(inner) => (*inner).clone(),
                other => other,
            };
            then_block(c, &a, v)
        })
        .dispatch(Signature::new().param("Any", "arg").optional_block_param("Callable", "block"), |c, a| {
            let v = a.get(0);
            then_block(c, &a, v)
        })
        .register()?;
    Ok(())
}
