//! The typed 4.x function dispatch registry and Puppet 7.23's pure built-in functions.
//!
//! A [`Registry`] holds functions by namespaced, case-insensitive name. Each function has one
//! or more dispatches, each with a [`Signature`] built like Puppet's dispatch DSL (`param`,
//! `optional_param`, `repeated_param`, `required_repeated_param`, `block_param`,
//! `optional_block_param`, `return_type`), `argument_mismatch` dispatches and local type
//! aliases. Calls are dispatched as Puppet does, with Puppet 7.23's mismatch texts.
//!
//! Functions reach their caller through the [`CallContext`] trait (call a lambda, call another
//! function, read a variable, log, resolve type aliases), which the evaluator implements.
//! Lambdas are [`Block`] trait objects; `next`, `break` and `return` are explicit
//! [`CallError`] variants.
//!
//! ```
//! use puppet_functions::{builtins, NullContext};
//! use puppet_types::Value;
//! let reg = builtins::registry();
//! let mut ctx = NullContext::default();
//! let v = reg.call(&mut ctx, "abs", vec![Value::Integer(-3)], None).unwrap();
//! assert_eq!(v, Value::Integer(3));
//! let e = reg.call(&mut ctx, "abs", vec![], None).unwrap_err();
//! assert_eq!(e.to_string(), "'abs' expects 1 argument, got none");
//! ```
//!
//! Built-ins that need the catalog, the compiler, Hiera or templates (include, lookup, epp,
//! defined, create_resources, ...) are registered here too, with Puppet's signatures, and do
//! their work through the context's capabilities (`CallContext::declare_classes`,
//! `lookup`, `render_template`, `is_defined`, `CatalogAccess`); `docs/builtins.md` lists
//! every built-in.
//!
//! What it is not: it evaluates no Puppet code; a Puppet-language function is registered
//! ([`Registry::register_puppet_function`]) with a body its evaluator provides.

mod annotations;
pub mod builtins;
mod context;
mod describe;
pub mod digest;
mod error;
pub mod random;
mod registry;
mod signature;
mod typed;
mod typeexpr;

pub use annotations::Annotations;
pub use context::{
    Block, BlockSignature, CallContext, CatalogAccess, ClassDeclaration, Definable, FnBlock,
    LogLevel, LookupRequest, NullContext, TemplateSource,
};
pub use error::{codes, CallError, RegistryError};
pub use registry::{Args, Dispatch, Example, Function, FunctionBody, FunctionBuilder, Registry};
pub use signature::{
    puppet_signature, puppet_signature_string, BlockParam, Param, ParamKind, Signature, TypeSpec,
};
pub use typed::{FromValue, IntoValue, TypedFn};
pub use typeexpr::{parse_type, parse_value};

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}
    #[test]
    fn registry_is_send_sync() {
        assert_send_sync::<crate::Registry>();
        assert_send_sync::<crate::CallError>();
    }
}
