//! `HieraError`: every failure of configuration parsing, data loading, interpolation, merging
//! and lookup, with Puppet's message text and a stable code (Puppet's issue code where Puppet
//! has one, e.g. `HIERA_UNSUPPORTED_VERSION`, otherwise a `HIERA_`-prefixed code of ours), plus
//! the file and, for interpolation errors, the byte span inside the interpolated string.

use std::ops::Range;
use std::path::PathBuf;

/// A lookup or configuration error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HieraError {
    /// Stable code: Puppet's issue code where it has one.
    pub code: &'static str,
    /// Puppet's message text.
    pub message: String,
    /// The file the error is about (a `hiera.yaml` or a data file), when known.
    pub file: Option<PathBuf>,
    /// Byte offsets into the interpolated string, for interpolation errors.
    pub span: Option<Range<usize>>,
    /// The 1-based line of the file the error is about, when Puppet names one (a
    /// hierarchy name defined twice in a `hiera.yaml`).
    pub line: Option<u32>,
}

/// Codes used by [`HieraError::code`] that are not Puppet issue codes.
pub mod codes {
    /// `Function lookup() did not find a value for the name 'x'`.
    pub const NOT_FOUND: &str = "HIERA_NOT_FOUND";
    /// A `hiera.yaml` that does not have the required shape.
    pub const INVALID_CONFIG: &str = "HIERA_INVALID_CONFIG";
    /// A data file that is not valid YAML/JSON (`Unable to parse ...`).
    pub const DATA_PARSE: &str = "HIERA_DATA_PARSE";
    /// A location that exists but cannot be read as a file (Ruby's `Errno` error, `Is a
    /// directory @ io_fread - PATH`): not a lookup error, so the global layer does not wrap it.
    pub const READ_FAILED: &str = "HIERA_READ_FAILED";
    /// A data file whose top level is not a hash, or a value that is not data.
    pub const DATA_TYPE: &str = "HIERA_DATA_TYPE";
    /// `Recursive lookup detected in [...]`.
    pub const RECURSIVE: &str = "HIERA_RECURSIVE_LOOKUP";
    /// An unknown merge strategy or bad merge options.
    pub const MERGE: &str = "HIERA_MERGE";
    /// A merge that Puppet refuses with Ruby's `ArgumentError` (an unknown strategy, a hash
    /// without one) or the deep_merge gem's `InvalidParameter` (an empty knockout prefix):
    /// not a Puppet error, so the global layer does not wrap it.
    pub const MERGE_ARGUMENT: &str = "HIERA_MERGE_ARGUMENT";
    /// Values that a merge strategy cannot merge.
    pub const MERGE_TYPE: &str = "HIERA_MERGE_TYPE";
    /// `The convert_to lookup_option for key 'k' raised error: ...` (a lookup error).
    pub const CONVERT_TO: &str = "HIERA_CONVERT_TO";
    /// Invalid `lookup_options`.
    pub const LOOKUP_OPTIONS: &str = "HIERA_LOOKUP_OPTIONS";
    /// A dotted key that cannot be split (`Syntax error in key: 'a..b'`).
    pub const KEY_SYNTAX: &str = "HIERA_KEY_SYNTAX";
    /// Digging into an Integer (`a.b` where `a` is 3): Puppet's check lets it through and
    /// Ruby raises `NoMethodError`, which the global layer does not wrap.
    pub const SUB_LOOKUP_NO_METHOD: &str = "HIERA_SUB_LOOKUP_NO_METHOD";
    /// Digging into a value that is not a hash or array.
    pub const SUB_LOOKUP_TYPE: &str = "HIERA_SUB_LOOKUP_TYPE";
    /// A feature of Hiera that this crate does not implement (hiera.yaml v3, hocon ...).
    pub const UNSUPPORTED: &str = "HIERA_UNSUPPORTED";
    /// A deprecated data provider setting names a provider Puppet does not have.
    pub const UNKNOWN_DATA_PROVIDER: &str = "HIERA_UNKNOWN_DATA_PROVIDER";
    /// A module's `hiera.yaml` that does not parse as YAML or is not a valid configuration,
    /// found by the first lookup that reaches the module: Puppet raises it as a YAML or type
    /// assertion error, not as a lookup error, so it is reported as an error of the call.
    pub const MODULE_CONFIG: &str = "HIERA_MODULE_CONFIG";
    /// `Lookup of key 'k' failed: ...` (the global layer wraps errors without a code).
    pub const GLOBAL_FAILED: &str = "HIERA_GLOBAL_LOOKUP_FAILED";
    /// A backend function raised an error (reported as Puppet reports a function's error,
    /// not as a lookup error).
    pub const BACKEND_RAISED: &str = "HIERA_BACKEND_RAISED";
    /// A backend function raised a Ruby exception that is not one of Puppet's errors
    /// (`ArgumentError`, `KeyError`...): the global layer does not wrap it.
    pub const BACKEND_RUBY_ERROR: &str = "HIERA_BACKEND_RUBY_ERROR";
    /// `hiera-eyaml backend error decrypting ...` (a lookup error).
    pub const EYAML: &str = "HIERA_EYAML";
    /// A built-in backend function called with arguments it refuses (Ruby's
    /// `ArgumentError`): reported as an error of the `lookup` call, and the global layer does
    /// not wrap it.
    pub const FUNCTION_ARGUMENT: &str = "HIERA_FUNCTION_ARGUMENT";
    /// Ruby's `LoadError` in a backend (hiera-eyaml's encryptor for a scheme it has no
    /// plugin for): Puppet prints the message as it is, the global layer does not wrap it.
    pub const RUBY_LOAD_ERROR: &str = "HIERA_RUBY_LOAD_ERROR";
    /// A `hiera_hash()` or `hiera_array()` call with a dotted key that a version 3 global
    /// layer answered (Hiera 3's "Resolution type ... is illegal").
    pub const V3_RESOLUTION: &str = "HIERA_V3_RESOLUTION";
}

impl HieraError {
    /// An error with a code and a message.
    pub fn new(code: &'static str, message: impl Into<String>) -> HieraError {
        HieraError {
            code,
            message: message.into(),
            file: None,
            span: None,
            line: None,
        }
    }

    /// Attaches a file (kept if one is already set).
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> HieraError {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// Attaches a byte span.
    pub fn at(mut self, span: Range<usize>) -> HieraError {
        self.span = Some(span);
        self
    }

    /// The error of Puppet's `lookup()` function when none of `names` has a value.
    ///
    /// ```
    /// use puppet_hiera::HieraError;
    /// assert_eq!(
    ///     HieraError::not_found(&["x"]).to_string(),
    ///     "Function lookup() did not find a value for the name 'x'"
    /// );
    /// assert_eq!(
    ///     HieraError::not_found(&["a", "b"]).to_string(),
    ///     "Function lookup() did not find a value for any of the names ['a', 'b']"
    /// );
    /// ```
    pub fn not_found<S: AsRef<str>>(names: &[S]) -> HieraError {
        let msg = if names.len() == 1 {
            format!(
                "Function lookup() did not find a value for the name '{}'",
                names[0].as_ref()
            )
        } else {
            let list: Vec<String> = names.iter().map(|n| format!("'{}'", n.as_ref())).collect();
            format!(
                "Function lookup() did not find a value for any of the names [{}]",
                list.join(", ")
            )
        };
        HieraError::new(codes::NOT_FOUND, msg)
    }

    /// True for Puppet issue-coded errors and errors that are not Puppet's lookup errors
    /// (Ruby's file errors among them): those the global layer does not wrap.
    pub fn has_issue_code(&self) -> bool {
        !self.code.starts_with("HIERA_")
            || matches!(
                self.code,
                codes::READ_FAILED
                    | codes::BACKEND_RUBY_ERROR
                    | codes::MERGE_ARGUMENT
                    | codes::SUB_LOOKUP_NO_METHOD
                    | "HIERA_UNSUPPORTED_VERSION"
                    | "HIERA_VERSION_3_NOT_GLOBAL"
                    | "HIERA_UNSUPPORTED_VERSION_IN_GLOBAL"
                    | "HIERA_UNDEFINED_VARIABLE"
                    | "HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED"
                    | "HIERA_DEFAULT_HIERARCHY_NOT_IN_MODULE"
                    | "HIERA_MISSING_DATA_PROVIDER_FUNCTION"
                    | "HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS"
                    | "HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS_IN_DEFAULT"
                    | "HIERA_MULTIPLE_LOCATION_SPECS"
                    | "HIERA_OPTION_RESERVED_BY_PUPPET"
                    | "HIERA_DEFAULT_OPTION_RESERVED_BY_PUPPET"
                    | "HIERA_DATA_PROVIDER_FUNCTION_NOT_FOUND"
                    | "HIERA_INTERPOLATION_ALIAS_NOT_ENTIRE_STRING"
                    | "HIERA_INTERPOLATION_UNKNOWN_INTERPOLATION_METHOD"
                    | "HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED"
                    | "HIERA_V3_BACKEND_NOT_GLOBAL"
                    | "HIERA_FUNCTION_ARGUMENT"
                    | "HIERA_RUBY_LOAD_ERROR"
            )
    }
}

impl From<&HieraError> for puppet_diagnostics::Diagnostic {
    /// The error as a diagnostic: its code, Puppet's text, and the file it is about (an
    /// interpolation error's span is inside the interpolated string, not the file, so it
    /// is not a range of the file).
    fn from(e: &HieraError) -> Self {
        puppet_diagnostics::Diagnostic::new(
            puppet_diagnostics::Severity::Error,
            e.code,
            e.message.clone(),
        )
        .with_file_opt(e.file.as_ref().map(|f| f.display().to_string()))
    }
}
