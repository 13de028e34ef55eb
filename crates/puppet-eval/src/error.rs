//! What a compile reports: [`EvalError`] (a stable code, Puppet's message, where), the
//! [`Flow`] that unwinds evaluation (errors, `break`, `next`, `return`) and the [`LogEntry`]
//! lines functions and the compiler log. Nothing here evaluates anything.

use crate::ir::Span;
use puppet_functions::LogLevel;
use puppet_types::Value;

/// An evaluation error: a stable code, Puppet's message and where it happened.
///
/// It prints (`Display`) as Puppet prints it ([`puppet_message`](EvalError::puppet_message))
/// and converts into the workspace's [`Diagnostic`](puppet_diagnostics::Diagnostic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// A stable code ([`codes`]); Puppet's issue code where it has one.
    pub code: &'static str,
    pub message: String,
    pub span: Option<Span>,
    /// How Puppet reports it (see [`EvalError::puppet_message`]).
    pub kind: ErrorKind,
}

/// The codes of [`EvalError`]s.
pub mod codes {
    /// Any evaluation error without a more specific code.
    pub const EVAL_ERROR: &str = "EVAL_ERROR";
    /// `include`, `require`, `contain` or `class { }` of a class that does not exist.
    pub const UNKNOWN_CLASS: &str = "UNKNOWN_CLASS";
    /// A resource of a type that is neither built in, nor a module's, nor a defined type.
    pub const UNKNOWN_RESOURCE_TYPE: &str = "UNKNOWN_RESOURCE_TYPE";
    /// A call of a function that does not exist.
    pub const UNKNOWN_FUNCTION: &str = "UNKNOWN_FUNCTION";
    /// `$context.not_found()` in a Hiera backend function written in the Puppet language:
    /// ends the function's call without a value (the lookup goes on; never reported).
    pub const LOOKUP_CONTEXT_NOT_FOUND: &str = "LOOKUP_CONTEXT_NOT_FOUND";
    /// A resource declared twice (Puppet's "Duplicate declaration").
    pub const DUPLICATE_DECLARATION: &str = "DUPLICATE_DECLARATION";
    /// A relationship to a resource that is not in the catalog.
    pub const MISSING_RELATIONSHIP_TARGET: &str = "MISSING_RELATIONSHIP_TARGET";
    /// The evaluation took more steps than `Settings::max_steps` (code that would run for
    /// hours in Puppet too, such as an exponential recursion).
    pub const STEP_LIMIT: &str = "EVAL_STEP_LIMIT";
    /// A tag that is not a tag name (`tag => 'a b'`, `tag('x,y')`): Puppet's
    /// "Invalid tag".
    pub const INVALID_TAG: &str = "INVALID_TAG";
    /// No node definition matches the node.
    pub const NO_MATCHING_NODE: &str = "NO_MATCHING_NODE";
    /// A syntax or validation error of the main manifest (the parser's code is more precise
    /// where it has one).
    pub const PARSE_ERROR: &str = "PARSE_ERROR";
}

impl std::fmt::Display for EvalError {
    /// Puppet's text ([`EvalError::puppet_message`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.puppet_message())
    }
}

impl std::error::Error for EvalError {}

impl From<&EvalError> for puppet_diagnostics::Diagnostic {
    /// The error as a diagnostic: its code, Puppet's text as the message (without the
    /// `(file: F, line: L, column: C)` Puppet appends to an evaluation error: that is the
    /// diagnostic's file, range, line and column).
    fn from(e: &EvalError) -> Self {
        let message = match e.kind {
            ErrorKind::Evaluation => format!("Evaluation Error: {}", e.message),
            ErrorKind::Complete | ErrorKind::Parse => e.message.clone(),
        };
        let d = puppet_diagnostics::Diagnostic::new(
            puppet_diagnostics::Severity::Error,
            e.code,
            message,
        );
        match &e.span {
            Some(s) => d
                .with_file_opt(s.file.path.as_deref())
                .with_range(s.range())
                .with_source(&s.file.text),
            None => d,
        }
    }
}

impl From<EvalError> for puppet_diagnostics::Diagnostic {
    fn from(e: EvalError) -> Self {
        (&e).into()
    }
}

/// Which of Puppet's error forms an [`EvalError`] has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ErrorKind {
    /// Raised while evaluating an expression: Puppet prints `Evaluation Error: MESSAGE`
    /// followed by the location.
    #[default]
    Evaluation,
    /// Raised by the compiler's own checks of the catalog (relationship targets, resource
    /// attributes) or made complete by a wrapper: Puppet prints the message as it is (any
    /// location Puppet gives is part of it). The span, when there is one, is this
    /// compiler's extra precision.
    Complete,
    /// A `Puppet::ParseError` raised outside the evaluator where a resource is made (an
    /// invalid tag): printed as it is, with the file and line of that place in the message,
    /// like [`ErrorKind::Complete`]; but the evaluation of a defined-type instance wraps it
    /// as it wraps an evaluation error of its body.
    Parse,
}

impl EvalError {
    /// An error Puppet prints as it is ([`ErrorKind::Complete`], code `EVAL_ERROR`);
    /// `span`, when given, is this compiler's extra precision.
    pub(crate) fn complete(message: String, span: Option<Span>) -> EvalError {
        EvalError {
            code: codes::EVAL_ERROR,
            kind: ErrorKind::Complete,
            message,
            span,
        }
    }

    /// The whole message as Puppet 7.23 prints it after `Error: ` (before ` on node NAME`).
    ///
    /// ```
    /// use puppet_eval::{compile, Environment, Settings};
    /// use std::sync::Arc;
    /// let env = Environment::from_main(None, "fail('boom')");
    /// let err = compile(Arc::new(env), &Settings::default()).catalog.unwrap_err();
    /// assert_eq!(
    ///     err.puppet_message(),
    ///     "Evaluation Error: Error while evaluating a Function Call, boom (line: 1, column: 1)"
    /// );
    /// ```
    pub fn puppet_message(&self) -> String {
        match self.kind {
            ErrorKind::Evaluation => format!("Evaluation Error: {}", self.located()),
            ErrorKind::Complete | ErrorKind::Parse => self.message.clone(),
        }
    }

    /// The message with Puppet's location suffix: `(file: F, line: L, column: C)` or
    /// `(line: L, column: C)` for code without a file; an [`ErrorKind::Complete`] or
    /// [`ErrorKind::Parse`] message as it is.
    pub fn located(&self) -> String {
        if self.kind != ErrorKind::Evaluation {
            return self.message.clone();
        }
        match &self.span {
            Some(s) => {
                let (line, col) = s.line_col();
                match &s.file.path {
                    Some(p) => format!("{} (file: {p}, line: {line}, column: {col})", self.message),
                    None => format!("{} (line: {line}, column: {col})", self.message),
                }
            }
            None => self.message.clone(),
        }
    }

    /// The message as the called function raised it, without the evaluator's
    /// "Error while evaluating a Function Call, " (what Ruby code calling the function, or
    /// a `convert_to` reporting it, gets).
    pub(crate) fn call_message(&self) -> &str {
        (self.message)
            .strip_prefix("Error while evaluating a Function Call, ")
            .unwrap_or(&self.message)
    }

    /// Line and column, when known.
    pub fn line_col(&self) -> Option<(u32, u32)> {
        self.span.as_ref().map(|s| s.line_col())
    }
}

/// Control flow through the evaluator: an error, or `next`/`break`/`return`.
#[derive(Debug, Clone)]
pub enum Flow {
    Error(EvalError),
    Next(Value),
    Break(Option<Span>),
    Return(Value, Option<Span>),
}

pub(crate) type R<T> = Result<T, Flow>;

/// An evaluation error (code `EVAL_ERROR`) at `span`.
pub(crate) fn err<T>(message: impl Into<String>, span: &Span) -> R<T> {
    err_code(codes::EVAL_ERROR, message, span)
}

/// An evaluation error with its own code at `span`.
pub(crate) fn err_code<T>(code: &'static str, message: impl Into<String>, span: &Span) -> R<T> {
    Err(Flow::Error(EvalError {
        code,
        kind: Default::default(),
        message: message.into(),
        span: Some(span.clone()),
    }))
}

/// A log line produced by the compile (`notice`, warnings, deprecations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub level: LogLevel,
    pub message: String,
    /// The scope Puppet logs it from (`Class[main]`, shown `Scope(Class[main])`): the logging
    /// functions' and a scope's log methods; `None` for the compiler's own warnings and Ruby's `Puppet.notice`.
    pub scope: Option<String>,
}

impl LogEntry {
    /// The line as the conformance corpus renders it: `notice: Scope(Class[main]): hi`.
    pub fn render(&self) -> String {
        match &self.scope {
            Some(s) => format!("{}: Scope({s}): {}", self.level.name(), self.message),
            None => format!("{}: {}", self.level.name(), self.message),
        }
    }
}
