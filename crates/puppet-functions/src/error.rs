//! Errors of the function registry: registration errors ([`RegistryError`]) and the outcome of
//! a call that did not return normally ([`CallError`]).
//!
//! [`CallError`] carries Puppet's control flow explicitly (`next`, `break`, `return`) next to
//! real errors, so that no Rust unwinding is ever used. It does not know source locations: the
//! evaluator attaches the span of the call expression.

use puppet_types::{TypeError, Value};
use thiserror::Error;

/// Why a call did not produce a value.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CallError {
    /// `next(value)`: ends one lambda (or function body) call with `value`.
    #[error("next() from context where this is illegal")]
    Next(Value),
    /// `break()`: stops the iterating function, which then returns normally.
    #[error("break() from context where this is illegal")]
    Break,
    /// `return(value)`: unwinds to the enclosing Puppet-language function.
    #[error("return() from context where this is illegal")]
    Return(Value),
    /// A real error with a stable code and Puppet's message.
    #[error("{message}")]
    Failed {
        /// Stable code, see the `codes` module.
        code: &'static str,
        /// Puppet's message (without the evaluator's "Error while evaluating..." prefix).
        message: String,
        /// The 0-based position of the offending argument, when known.
        arg: Option<usize>,
    },
}

/// Stable error codes carried by [`CallError::Failed`] and [`RegistryError::code`].
pub mod codes {
    /// No signature accepts the arguments (Puppet's "expects ..." texts).
    pub const ARGUMENT_MISMATCH: &str = "FN_ARGUMENT_MISMATCH";
    /// The value returned does not match the declared return type.
    pub const RETURN_TYPE: &str = "FN_RETURN_TYPE";
    /// No function by that name.
    pub const UNKNOWN_FUNCTION: &str = "FN_UNKNOWN_FUNCTION";
    /// An argument has an acceptable type but an unusable value.
    pub const BAD_ARGUMENT: &str = "FN_BAD_ARGUMENT";
    /// An assertion failed (`assert_type`).
    pub const ASSERTION: &str = "FN_ASSERTION";
    /// A conversion or type construction failed.
    pub const TYPE: &str = "FN_TYPE";
    /// `fail()` or a function-specific failure.
    pub const FAILED: &str = "FN_FAILED";
    /// A feature that needs the evaluator, the catalog or Ruby.
    pub const UNSUPPORTED: &str = "FN_UNSUPPORTED";
    /// An error whose message is complete as it is: the evaluator reports it without its
    /// "Error while evaluating a Function Call" wrapping. The context raises it for what
    /// fails while serving a capability (a class body, a Hiera error, a lambda), keeping
    /// the error's own location; functions pass it on unchanged.
    pub const COMPLETE: &str = "FN_COMPLETE";
    /// A function written in Ruby raised a Ruby exception that is not one of Puppet's
    /// errors (an `ArgumentError`, a `KeyError`, the `RuntimeError` of `raise "..."`).
    /// Hiera's global layer passes such an error of a backend function on as it is, where it
    /// wraps Puppet's errors in "Lookup of key ... failed".
    pub const RUBY_ERROR: &str = "FN_RUBY_ERROR";
    /// An exception Puppet's evaluator does not rescue (one that is not a Ruby
    /// `StandardError`: `NotImplementedError`, `LoadError`, a bare `Exception`, the
    /// `SyntaxError` of a function's file): it stops the compile, printed alone, without
    /// "Evaluation Error" or a location.
    pub const UNRESCUED: &str = "FN_UNRESCUED";
    /// Registration: duplicate function.
    pub const DUPLICATE: &str = "FN_DUPLICATE";
    /// Registration: a bad signature.
    pub const BAD_SIGNATURE: &str = "FN_BAD_SIGNATURE";
}

impl CallError {
    /// A failure with a code and a message.
    pub fn new(code: &'static str, message: impl Into<String>) -> CallError {
        CallError::Failed {
            code,
            message: message.into(),
            arg: None,
        }
    }

    /// A failure about the argument at `position` (0-based).
    pub fn argument(position: usize, message: impl Into<String>) -> CallError {
        CallError::Failed {
            code: codes::BAD_ARGUMENT,
            message: message.into(),
            arg: Some(position),
        }
    }

    /// The stable code of this error (`FN_NEXT`, `FN_BREAK`, `FN_RETURN` for control flow).
    ///
    /// ```
    /// use puppet_functions::CallError;
    /// assert_eq!(CallError::Break.code(), "FN_BREAK");
    /// assert_eq!(CallError::new("FN_FAILED", "boom").to_string(), "boom");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            CallError::Next(_) => "FN_NEXT",
            CallError::Break => "FN_BREAK",
            CallError::Return(_) => "FN_RETURN",
            CallError::Failed { code, .. } => code,
        }
    }
}

impl From<TypeError> for CallError {
    fn from(e: TypeError) -> Self {
        CallError::new(codes::TYPE, e.to_string())
    }
}

/// An error while registering a function.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// A function with this name exists and shadowing was not asked for.
    #[error("function '{0}' is already registered")]
    Duplicate(String),
    /// A required parameter follows an optional or repeated one.
    #[error("function '{function}': required parameter '{param}' follows an optional or repeated parameter")]
    RequiredAfterOptional {
        /// Function name.
        function: String,
        /// Parameter name.
        param: String,
    },
    /// A parameter follows a repeated one, or a second block parameter was declared.
    #[error(
        "function '{function}': parameter '{param}' follows a repeated parameter or the block"
    )]
    ParamAfterRepeated {
        /// Function name.
        function: String,
        /// Parameter name.
        param: String,
    },
    /// A type text in a signature or local type does not parse or resolve.
    #[error("function '{function}': bad type '{text}': {message}")]
    BadType {
        /// Function name.
        function: String,
        /// The type text.
        text: String,
        /// What went wrong.
        message: String,
    },
    /// A block parameter whose type is not a Callable.
    #[error("function '{function}': block parameter '{param}' must be a Callable, got {ty}")]
    BlockNotCallable {
        /// Function name.
        function: String,
        /// Parameter name.
        param: String,
        /// The printed type.
        ty: String,
    },
    /// A function without any dispatch.
    #[error("function '{0}' has no dispatch")]
    NoDispatch(String),
    /// A name that is not a valid (possibly namespaced) function name.
    #[error("'{0}' is not a valid function name")]
    BadName(String),
}

impl RegistryError {
    /// The stable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            RegistryError::Duplicate(_) => codes::DUPLICATE,
            _ => codes::BAD_SIGNATURE,
        }
    }
}
