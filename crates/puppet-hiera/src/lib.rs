//! Hiera 5 for the Puppet catalog compiler, as Puppet 7.23 does it: `hiera.yaml` version 5
//! in the global, environment and module layers, the `yaml_data` and `json_data` backends,
//! backends that are functions of the environment (`data_hash`, `lookup_key`, `data_dig`,
//! run by the caller through [`FunctionBackend`]),
//! hierarchies with `path`/`paths`/`glob`/`globs`/`mapped_paths`, `%{...}` interpolation
//! (scope variables, `lookup`/`hiera`, `alias`, `literal`, `scope`), the merge strategies
//! `first`/`unique`/`hash`/`deep`, the `eyaml_lookup_key` backend (hiera-eyaml's PKCS7
//! decryption in Rust), `lookup_options` (with regex keys), automatic class
//! parameter lookup and an explain trace.
//!
//! ```
//! use puppet_hiera::{HieraConfig, Lookup, MapScope, MemorySource, MergeStrategy};
//! use puppet_types::Value;
//!
//! let files = MemorySource::new()
//!     .with("/m/ntp/data/common.yaml", "ntp::servers: [a.pool]\nother: ignored\n")
//!     .with("/env/data/common.yaml", "ntp::servers: [b.pool]\n");
//! let module_cfg = HieraConfig::parse(
//!     "version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n", "/m/ntp").unwrap();
//! let lookup = Lookup::builder(files)
//!     .environment(HieraConfig::default_for("/env"))
//!     .module("ntp", module_cfg)
//!     .build()
//!     .unwrap();
//! let scope = MapScope::new();
//! let v = lookup.lookup("ntp::servers", Some(MergeStrategy::Unique), None, &scope).unwrap();
//! assert_eq!(v, Some(Value::array(vec![Value::string("b.pool"), Value::string("a.pool")])));
//! // Automatic parameter lookup of class ntp's $servers:
//! assert!(lookup.class_parameter("ntp", "servers", &scope).unwrap().is_some());
//! ```

pub mod backend;
mod cache;
pub mod config;
pub mod error;
pub mod explain;
mod eyaml;
pub mod interp;
pub mod lookup;
pub mod merge;
pub mod source;
pub mod yaml;

pub use backend::{BackendCall, BackendContext, BackendError, FunctionBackend};
pub use config::{ConfigWarning, FunctionKind, Hiera3, HieraConfig, HierarchyEntry, Location};
pub use error::HieraError;
pub use explain::{Event, Node};
pub use lookup::{Explanation, Layer, Lookup, LookupAdapter, LookupBuilder, MapScope, Scope};
pub use merge::{DeepOptions, DeepVariant, MergeStrategy};
pub use source::{glob_with, DataSource, FsSource, ListDir, MemorySource};
