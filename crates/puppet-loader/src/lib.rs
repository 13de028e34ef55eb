//! Puppet environments: module paths, autoloading and order-independent name resolution.
//!
//! An [`Environment`] is a snapshot of a module path (first directory wins), an optional
//! main manifest and an optional environment directory. Loading one lists and reads files
//! through a [`SourceProvider`] (the only IO in the workspace: [`FsProvider`] for disks,
//! [`MemoryProvider`] for tests), parses every Puppet-language file once, checks each file
//! against Puppet's location rules, and indexes every class, defined type, function and type
//! alias by (kind, canonical name). Resolving a name is then a lookup whose answer does not
//! depend on which names were resolved before, on directory listing order, or on other
//! environments (RFC 1).
//!
//! ```
//! use puppet_loader::{DefKind, Environment, EnvironmentConfig, MemoryProvider};
//! let provider = MemoryProvider::new()
//!     .with_file("/env/modules/ntp/manifests/init.pp", "class ntp { include ntp::config }")
//!     .with_file("/env/modules/ntp/manifests/config.pp", "class ntp::config { }")
//!     .with_file("/env/modules/ntp/examples/init.pp", "include ntp");
//! let config = EnvironmentConfig::with_modulepath(["/env/modules"]);
//! let env = Environment::load(&config, &provider);
//! assert_eq!(env.modules().count(), 1);
//! let def = env.resolve(DefKind::Class, "NTP::Config").unwrap();
//! assert_eq!(def.module.as_deref(), Some("ntp"));
//! // The evaluator gets the definition's syntax tree from the shared parsed file.
//! let node = env.file_of(def).unwrap().syntax_of(def).unwrap();
//! assert!(node.to_string().starts_with("class ntp::config"));
//! ```
//!
//! Name rules are pure functions in [`names`]; Puppet's per-file location checks are
//! [`check_file_location`]; reference analysis (the PUP-121 hazard report and seed 003's
//! function visibility) is on [`Environment`] too. What this crate is not: an evaluator, and
//! it does not load Ruby code (`lib/puppet/functions`, resource types) from modules.

mod defs;
mod diagnostic;
mod env;
mod metadata;
pub mod names;
mod provider;
mod refs;

pub use defs::{check_file_location, label, scan_file, DefKind, Definition, FileScan};
pub use diagnostic::{codes, Diagnostic, ProviderError, Severity};
pub use env::{
    namespace_for_file, Environment, EnvironmentConfig, FileRole, LoadedFile, Module, ParseCache,
    ResolutionMode,
};
pub use metadata::{Dependency, Metadata};
pub use provider::{DirEntry, EntryKind, FsProvider, MemoryProvider, SourceProvider};
pub use refs::{references_in, Hazard, RefSyntax, Reference, Visibility, VisibilityFinding};
