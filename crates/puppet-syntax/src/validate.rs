//! Puppet's language validation (`Checker4_0`) over the typed AST.
//!
//! Placeholder while the checks are written.

use crate::{Diagnostic, Parse};

/// Runs Puppet's validation checks over a parse.
pub fn validate(parse: &Parse) -> Vec<Diagnostic> {
    let _ = parse;
    Vec::new()
}
