//! Typed registration: Rust closures whose argument types give the Puppet parameter types
//! (`i64` is `Integer`, `String` is `String`, `Value` is `Any`, `Option<T>` is `Optional[T]`,
//! `Vec<T>` is `Array[T]`). The registry still checks arguments against the derived types, so
//! conversions never fail for a call that dispatched.

use crate::context::CallContext;
use crate::error::{codes, CallError};
use crate::registry::{Args, FunctionBody};
use crate::signature::Signature;
use puppet_types::{Type, Value};
use std::sync::Arc;

/// A Rust type that a Puppet argument converts into.
pub trait FromValue: Sized {
    /// The Puppet type of accepted arguments.
    fn puppet_type() -> Type;
    /// The conversion (`None` when the value is not of [`FromValue::puppet_type`]).
    fn from_value(v: &Value) -> Option<Self>;
}

/// A Rust type that converts into a Puppet value.
pub trait IntoValue {
    /// The conversion.
    fn into_value(self) -> Value;
}

impl FromValue for Value {
    fn puppet_type() -> Type {
        Type::Any
    }
    fn from_value(v: &Value) -> Option<Self> {
        Some(v.clone())
    }
}
impl FromValue for i64 {
    fn puppet_type() -> Type {
        Type::any_integer()
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }
}
impl FromValue for f64 {
    fn puppet_type() -> Type {
        Type::Numeric
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Integer(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }
}
impl FromValue for bool {
    fn puppet_type() -> Type {
        Type::Boolean(None)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Boolean(b) => Some(*b),
            _ => None,
        }
    }
}
impl FromValue for String {
    fn puppet_type() -> Type {
        Type::any_string()
    }
    fn from_value(v: &Value) -> Option<Self> {
        v.as_str().map(str::to_string)
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn puppet_type() -> Type {
        Type::optional(T::puppet_type())
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Undef => Some(None),
            other => T::from_value(other).map(Some),
        }
    }
}
impl<T: FromValue> FromValue for Vec<T> {
    fn puppet_type() -> Type {
        Type::array(T::puppet_type(), None)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Array(a) => a.iter().map(T::from_value).collect(),
            _ => None,
        }
    }
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}
impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::Integer(self)
    }
}
impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::Float(self)
    }
}
impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Boolean(self)
    }
}
impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::string(self)
    }
}
impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::string(self)
    }
}
impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        self.map_or(Value::Undef, IntoValue::into_value)
    }
}
impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::array(self.into_iter().map(IntoValue::into_value).collect())
    }
}

/// A closure usable with [`crate::FunctionBuilder::typed`]; implemented for `Fn(A, B, ...)
/// -> Result<R, CallError>` with up to four [`FromValue`] arguments.
pub trait TypedFn<A>: Send + Sync + 'static {
    /// The signature derived from the argument types, with the given parameter names.
    fn signature(&self, names: &[&str]) -> Signature;
    /// The closure as a dispatch body.
    fn into_body(self) -> Arc<dyn FunctionBody>;
}

fn conversion_error(i: usize) -> CallError {
    CallError::Failed {
        code: codes::BAD_ARGUMENT,
        message: format!("argument {} could not be converted", i + 1),
        arg: Some(i),
    }
}

macro_rules! typed_fn {
    ($($t:ident $i:tt),*) => {
        impl<F, R, $($t,)*> TypedFn<($($t,)*)> for F
        where
            F: Fn($($t),*) -> Result<R, CallError> + Send + Sync + 'static,
            R: IntoValue,
            $($t: FromValue + 'static,)*
        {
            #[allow(unused_mut, unused_variables)]
            fn signature(&self, names: &[&str]) -> Signature {
                let mut sig = Signature::new();
                $(
                    let name = names.get($i).copied().unwrap_or("arg");
                    sig = sig.param($t::puppet_type(), name);
                )*
                sig
            }
            #[allow(non_snake_case)]
            fn into_body(self) -> Arc<dyn FunctionBody> {
                Arc::new(move |_ctx: &mut dyn CallContext, args: Args<'_>| {
                    let _ = &args;
                    $(
                        let $t = $t::from_value(args.values.get($i).unwrap_or(&Value::Undef))
                            .ok_or_else(|| conversion_error($i))?;
                    )*
                    (self)($($t),*).map(IntoValue::into_value)
                })
            }
        }
    };
}

typed_fn!();
typed_fn!(A 0);
typed_fn!(A 0, B 1);
typed_fn!(A 0, B 1, C 2);
typed_fn!(A 0, B 1, C 2, D 3);
