//! Loader diagnostics and errors: a stable code, a message, and where it happened.
//!
//! A [`Diagnostic`] (the workspace's one type, from puppet-diagnostics) is something the loader found about the user's files (a bad module
//! directory name, a definition in the wrong file, an unreadable `metadata.json`). It never
//! stops the environment from being built. A [`ProviderError`] is what a
//! [`SourceProvider`](crate::SourceProvider) returns when it cannot or will not give a file or
//! a directory listing; the environment turns those into diagnostics too.
//!
//! Rendering (line/column, snippets, colours) is left to the tools that print them.

use puppet_diagnostics::TextRange;
pub use puppet_diagnostics::{Diagnostic, Severity};
use std::path::PathBuf;

/// Stable diagnostic codes. Where Puppet has an issue code for the same problem it is used.
pub mod codes {
    /// A definition whose name is not inside the namespace its file's path gives (Puppet's code).
    pub const ILLEGAL_DEFINITION_LOCATION: &str = "ILLEGAL_DEFINITION_LOCATION";
    /// Code that is not a definition at the top of an autoloaded file (Puppet's code).
    pub const ILLEGAL_TOP_CONSTRUCT_LOCATION: &str = "ILLEGAL_TOP_CONSTRUCT_LOCATION";
    /// A directory on the module path whose name is not a valid module name.
    pub const INVALID_MODULE_NAME: &str = "LOADER_INVALID_MODULE_NAME";
    /// A module directory shadowed by one of the same name earlier on the module path.
    pub const SHADOWED_MODULE: &str = "LOADER_SHADOWED_MODULE";
    /// `metadata.json` could not be parsed or has fields of the wrong shape.
    pub const BAD_METADATA: &str = "LOADER_BAD_METADATA";
    /// `metadata.json` lacks a key Puppet requires (`source`, `author`, `version`,
    /// `license`, `dependencies` as an array): Puppet drops the module, logging this
    /// error, and a module of the same name later on the module path is not used either.
    pub const MISSING_METADATA: &str = "LOADER_MISSING_METADATA";
    /// A file or directory could not be read.
    pub const IO_ERROR: &str = "LOADER_IO_ERROR";
    /// A path was refused because it would leave the module path (`..`, absolute, symlink loop).
    pub const PATH_ESCAPE: &str = "LOADER_PATH_ESCAPE";
    /// The same (kind, name) is defined twice; the documented precedence picks one.
    pub const DUPLICATE_DEFINITION: &str = "LOADER_DUPLICATE_DEFINITION";
    /// A definition found only in a file that is not on its autoload path.
    pub const NOT_AUTOLOADABLE: &str = "LOADER_NOT_AUTOLOADABLE";
    /// A Puppet-language file that does not define what its path says it should.
    pub const MISSING_DEFINITION: &str = "LOADER_MISSING_DEFINITION";
}

/// An error about `file` (the whole file when `range` is `None`).
pub(crate) fn error(
    code: &'static str,
    message: impl Into<String>,
    file: Option<PathBuf>,
    range: Option<(u32, u32)>,
) -> Diagnostic {
    at(Diagnostic::new(Severity::Error, code, message), file, range)
}

/// A warning about `file`.
pub(crate) fn warning(
    code: &'static str,
    message: impl Into<String>,
    file: Option<PathBuf>,
    range: Option<(u32, u32)>,
) -> Diagnostic {
    at(
        Diagnostic::new(Severity::Warning, code, message),
        file,
        range,
    )
}

fn at(d: Diagnostic, file: Option<PathBuf>, range: Option<(u32, u32)>) -> Diagnostic {
    let d = d.with_file_opt(file.map(|p| p.display().to_string()));
    match range {
        Some((s, e)) => d.with_range(TextRange::new(s.into(), e.into())),
        None => d,
    }
}

/// Why a [`SourceProvider`](crate::SourceProvider) could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// Nothing at that path.
    #[error("no such file or directory: {0}")]
    NotFound(PathBuf),
    /// The path would leave the roots the provider serves (`..`, absolute, symlink outside).
    #[error("refused path {path}: {reason}")]
    Escape { path: PathBuf, reason: String },
    /// Any other IO problem, with the operating system's message.
    #[error("cannot read {path}: {message}")]
    Io { path: PathBuf, message: String },
}

impl ProviderError {
    /// The stable code of the diagnostic this error becomes.
    pub fn code(&self) -> &'static str {
        match self {
            ProviderError::Escape { .. } => codes::PATH_ESCAPE,
            _ => codes::IO_ERROR,
        }
    }

    /// This error as a diagnostic about the path concerned.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let path = match self {
            ProviderError::NotFound(p) => p,
            ProviderError::Escape { path, .. } | ProviderError::Io { path, .. } => path,
        };
        error(self.code(), self.to_string(), Some(path.clone()), None)
    }
}
