//! Facade over the puppet-* crates: one dependency that re-exports them all.
//!
//! The examples (`validate`, `dump`, `conformance`, ...) and the benches live in this package.

pub use puppet_erb as erb;
pub use puppet_eval as eval;
pub use puppet_functions as functions;
pub use puppet_graph as graph;
pub use puppet_hiera as hiera;
pub use puppet_loader as loader;
pub use puppet_restypes as restypes;
pub use puppet_ruby as ruby;
pub use puppet_stdlib as stdlib;
pub use puppet_syntax as syntax;
pub use puppet_types as types;
