//! Puppet 7 values and the Puppet type system.
//!
//! This crate is what the rest of the workspace uses to represent runtime values ([`Value`])
//! and types ([`Type`]), and to ask the questions Puppet asks of them:
//!
//! * `$v =~ T` — [`is_instance`]; `B <= A` — [`assignable`];
//! * `type($v)` in its detailed, reduced and generalized forms — [`infer_set`], [`infer()`](fn@infer),
//!   [`generalize`], [`type_of_value`]; the common supertype — [`common_type`];
//! * [`normalize()`](fn@normalize), Puppet's simplification of types;
//! * the text of types and values as Puppet prints them (`Display`, `%p`; and
//!   [`Value::to_plain_string`], `%s`);
//! * building types from evaluated expressions: [`resolve_type_name`] and [`parameterize`];
//! * mismatch texts for type errors — [`describe_mismatch`];
//! * the conversions behind `new` — module [`convert`]; checked number arithmetic — [`arith`].
//!
//! ```
//! use puppet_types::{assignable, is_instance, parameterize, resolve_type_name, Value};
//! let int = resolve_type_name("Integer");
//! let small = parameterize(&int, &[Value::Integer(1), Value::Integer(10)]).unwrap();
//! assert_eq!(small.to_string(), "Integer[1, 10]");
//! assert!(is_instance(&small, &Value::Integer(3)));
//! assert!(assignable(&int, &small));
//! ```
//!
//! What it is not: it does not parse Puppet source (type strings are parsed by the syntax crate
//! and evaluated by the evaluator, which then calls [`parameterize`]), and it does not load
//! type aliases (the loader supplies them through [`TypeResolver`] and [`TypeAlias`]).
//! Object types, their instances and the Pcore objects `Error` and `Deferred` are in module
//! [`object`]; TypeSet types are known only by name and printed form. Regexps are compiled with `fancy-regex`; see [`Regexp`] for what differs from Ruby.
//!
//! Every value and type is immutable, cheap to clone and `Send + Sync`. No function panics on
//! any input; deep recursion through aliases is cut at [`assign::MAX_DEPTH`].

pub mod arith;
pub mod assign;
pub mod convert;
pub mod error;
pub mod format;
pub mod infer;
mod lookahead;
pub mod mismatch;
pub mod normalize;
pub mod object;
mod onigmo;
pub mod params;
pub mod printf;
pub mod regexp;
pub mod ruby;
pub mod semver;
pub mod strconv;
pub mod strftime;
pub mod string;
pub mod strptime;
pub mod time;
pub mod types;
pub mod value;

pub use assign::{assignable, is_instance};
pub use error::TypeError;
pub use infer::{common_type, generalize, infer, infer_set, type_of_value, InferMode};
pub use mismatch::describe_mismatch;
pub use normalize::normalize;
pub use object::{ObjectType, ObjectValue};
pub use params::{
    parameterize, parameterize_value, resolve_type_name, resolve_type_name_with, BuiltinResolver,
    TypeResolver,
};
pub use regexp::Regexp;
pub use semver::{Version, VersionRange};
pub use string::Str;
pub use time::{Timespan, Timestamp};
pub use types::{Type, TypeAlias};
pub use value::{Value, ValueMap};

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}
    #[test]
    fn values_and_types_are_send_sync() {
        assert_send_sync::<crate::Value>();
        assert_send_sync::<crate::Type>();
        assert_send_sync::<crate::TypeError>();
    }
}
