//! Errors of this crate: one `thiserror` enum whose variants carry Puppet's own message texts.
//!
//! Every variant has a stable code (see [`TypeError::code`]) that tools can match on. This module
//! does not know about source locations: the caller (the evaluator) attaches the span of the
//! expression it evaluated.

use thiserror::Error;

/// An error from building a type, converting a value or doing arithmetic on values.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TypeError {
    /// A type was given the wrong number of parameters, e.g. `Integer[1,2,3]`.
    #[error("{0}")]
    BadArity(String),
    /// A type parameter has the wrong kind, e.g. `Hash[1, String]`.
    #[error("{0}")]
    BadParameter(String),
    /// The type takes no parameters at all, e.g. `Any[Integer]`.
    #[error("Not a parameterized type <{0}>")]
    NotParameterized(String),
    /// A regular expression does not compile.
    #[error("Invalid regular expression /{source_text}/: {message}")]
    BadRegexp {
        /// The regexp source text.
        source_text: String,
        /// What the regex engine said.
        message: String,
    },
    /// A value cannot be converted by `new` (e.g. `Integer('eleven')`).
    #[error("{0}")]
    Conversion(String),
    /// Integer arithmetic or a literal overflowed 64 bits.
    #[error("{0}")]
    Overflow(String),
    /// A format string (String/sprintf format, Timespan/Timestamp format) is malformed.
    #[error("{message}")]
    BadFormat {
        /// Puppet's message.
        message: String,
        /// Byte offset of the problem inside the format string.
        offset: usize,
    },
    /// A type alias could not be resolved.
    #[error("{0}")]
    Alias(String),
    /// An error of the operation itself that Puppet raises as a runtime error (an
    /// evaluator reports it as "Error while evaluating a '[]' expression, ..."), where the
    /// other variants are issues of the language reported as they are.
    #[error("{0}")]
    Operation(String),
}

impl TypeError {
    /// The stable code of this error, for tools and tests.
    ///
    /// ```
    /// use puppet_types::{parameterize, resolve_type_name, Value};
    /// let int = resolve_type_name("Integer");
    /// let err = parameterize(&int, &[Value::Integer(1), Value::Integer(2), Value::Integer(3)]).unwrap_err();
    /// assert_eq!(err.code(), "TYPES_BAD_ARITY");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            TypeError::BadArity(_) => "TYPES_BAD_ARITY",
            TypeError::BadParameter(_) => "TYPES_BAD_PARAMETER",
            TypeError::NotParameterized(_) => "TYPES_NOT_PARAMETERIZED",
            TypeError::BadRegexp { .. } => "TYPES_BAD_REGEXP",
            TypeError::Conversion(_) => "TYPES_CONVERSION",
            TypeError::Overflow(_) => "TYPES_OVERFLOW",
            TypeError::BadFormat { .. } => "TYPES_BAD_FORMAT",
            TypeError::Alias(_) => "TYPES_ALIAS",
            TypeError::Operation(_) => "TYPES_OPERATION",
        }
    }
}
