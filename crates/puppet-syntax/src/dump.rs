//! Puppet's `old` dump format (what `puppet parser dump` prints), from the typed AST.
//!
//! Placeholder while the renderer is written.

use crate::Parse;

/// Renders a parsed manifest or template the way `puppet parser dump` prints it.
pub fn dump(parse: &Parse) -> String {
    let _ = parse;
    String::new()
}
