//! The Puppet language as Rust libraries: one dependency that re-exports the puppet-* crates,
//! plus the entry points most tools need at the top level.
//!
//! # Parse a file
//!
//! Parsing never fails: it gives a lossless tree and diagnostics.
//!
//! ```
//! use puppet_lang::syntax::{self, ast::AstNode};
//! let parse = syntax::parse("class motd { file { '/etc/motd': content => 'hi' } }\n");
//! assert!(parse.errors().is_empty());
//! assert_eq!(parse.syntax().to_string(), "class motd { file { '/etc/motd': content => 'hi' } }\n");
//! ```
//!
//! # Compile a node
//!
//! A [`Session`] describes an environment (module path or files in memory, main manifest,
//! environment directory, Hiera, functions of your own); it loads into an [`Environment`]
//! that compiles nodes, reading each file the first time a compile needs it.
//!
//! ```
//! use puppet_lang::{loader::MemoryProvider, Session, Settings};
//! let files = MemoryProvider::new()
//!     .with_file("/env/site.pp", "node default { include ntp }")
//!     .with_file("/env/modules/ntp/manifests/init.pp", "class ntp { service { 'ntp': ensure => running } }");
//! let env = Session::new()
//!     .files(files)
//!     .modulepath(["/env/modules"])
//!     .manifest("/env/site.pp")
//!     .load()
//!     .unwrap();
//! let (catalog, diagnostics) = env.compile(&Settings::agent("web01", Default::default())).into_parts();
//! assert!(diagnostics.is_empty());
//! assert!(catalog.unwrap().find("Service[ntp]").is_some());
//! ```
//!
//! Every problem comes back as a [`Diagnostic`]: a stable code, Puppet's message, the file and
//! range, printable rustc-style with [`Diagnostic::render`] or as JSON.
//!
//! # Order a catalog
//!
//! [`graph`] builds the relationship graph of a catalog: apply order, dependency cycles with
//! the declarations involved, and an offline simulation of refreshes and failures.
//!
//! The examples (`compile`, `validate`, `graph`, `dump`, ...) and the benches live in this
//! package.

pub use puppet_diagnostics as diagnostics;
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

pub use puppet_diagnostics::{Diagnostic, Severity};
pub use puppet_eval::{Compiled, Environment, Session, Settings};
