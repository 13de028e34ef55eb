//! Puppet environments: module paths, autoloading and order-independent name resolution.
//!
//! An environment is a module path (first directory wins), an optional main manifest and an
//! optional environment directory, read through a [`SourceProvider`] (the only IO in the
//! workspace: [`FsProvider`] for disks, [`MemoryProvider`] for tests and editors).
//!
//! * [`Loader`] is what a compile uses: opening it lists the module path and parses the
//!   main manifest; a class, defined type, function or type alias is found by Puppet's
//!   name -> file rules the first time it is needed, and its file parsed, location-checked
//!   and cached. Thread-safe and shared by every compile of an environment.
//! * [`Index`] is the whole environment at once, for tools: every file parsed (in
//!   parallel) and every definition indexed by (kind, canonical name), with the PUP-121
//!   hazard report and seed 003's function visibility report.
//!
//! Resolving a name gives the same answer through both, whatever was resolved before,
//! whatever the directory listing order, and whatever other environments exist (RFC 1).
//!
//! ```
//! use puppet_loader::{DefKind, Index, EnvironmentConfig, MemoryProvider};
//! use std::sync::Arc;
//! let provider = MemoryProvider::new()
//!     .with_file("/env/modules/ntp/manifests/init.pp", "class ntp { include ntp::config }")
//!     .with_file("/env/modules/ntp/manifests/config.pp", "class ntp::config { }")
//!     .with_file("/env/modules/ntp/examples/init.pp", "include ntp");
//! let config = EnvironmentConfig::with_modulepath(["/env/modules"]);
//! let env = Index::load(&config, Arc::new(provider));
//! assert_eq!(env.modules().count(), 1);
//! let def = env.resolve(DefKind::Class, "NTP::Config").unwrap();
//! assert_eq!(def.module.as_deref(), Some("ntp"));
//! // The evaluator gets the definition's syntax tree from the shared parsed file.
//! let node = env.file_of(def).unwrap().syntax_of(def).unwrap();
//! assert!(node.to_string().starts_with("class ntp::config"));
//! ```
//!
//! Name rules are pure functions in [`names`]; Puppet's per-file location checks are
//! [`check_file_location`]. What this crate is not: an evaluator, and it does not run Ruby
//! code (`lib/puppet/functions`, resource types) from modules; it only finds files.

mod defs;
mod diagnostic;
mod env;
mod envconf;
mod loader;
mod metadata;
pub mod names;
mod provider;
mod refs;

pub use defs::{check_file_location, label, scan_file, DefKind, Definition, FileScan};
pub use diagnostic::{codes, Diagnostic, ProviderError, Severity};
pub use env::{
    namespace_for_file, parse_warnings, EnvironmentConfig, FileRole, Index, LoadedFile, Module,
    ParseCache, ResolutionMode,
};
pub use envconf::{codes as env_conf_codes, valid_environment_name, EnvironmentConf};
pub use loader::Loader;
pub use metadata::{Dependency, Metadata};
pub use provider::{
    absolute_path, DirEntry, EntryKind, FsProvider, MemoryProvider, SourceProvider,
};
pub use refs::{references_in, Hazard, RefSyntax, Reference, Visibility, VisibilityFinding};
