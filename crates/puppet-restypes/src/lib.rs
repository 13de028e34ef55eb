//! Puppet 7.23's resource type knowledge for a catalog compiler: the
//! built-in types and metaparameters as data ([`TypeDatabase::core`],
//! [`METAPARAMETERS`]), module types read by running their Ruby file against
//! puppet-ruby's type recorder ([`RubyTypeReader`], [`parse_ruby_type`]; the
//! `lib/puppet_x` helpers they `require` and their `self.title_patterns` run
//! too, see [`TypeDatabase::load_modules`]) or from `puppet generate types`
//! output ([`parse_generated_type`]), and the checks the compiler makes with them:
//! unknown parameters ([`TypeDatabase::check_parameter`]) and the namevar /
//! title resolution that decides which resources are duplicates
//! ([`TypeDatabase::namevar_values`]), with Puppet's exact message texts.
//!
//! ```
//! use puppet_restypes::{NamevarValue, TypeDatabase};
//! let mut db = TypeDatabase::core();
//! assert_eq!(db.check_parameter("file", "bogus"), Err("no parameter named 'bogus'".to_string()));
//! // `file { '/tmp/x/': }` and `file { 'b': path => '/tmp/x' }` are the same file
//! let a = db.namevar_values("file", "/tmp/x/", |_| None::<&str>).unwrap();
//! let b = db.namevar_values("file", "b", |p| (p == "path").then_some("/tmp/x")).unwrap();
//! assert_eq!(a[0].1, NamevarValue::FromTitle("/tmp/x".into()));
//! assert_eq!(b[0].1, NamevarValue::Given("/tmp/x"));
//! ```
//!
//! Types of the core modules puppet-agent 7.23 vendors are in
//! [`TypeDatabase::with_vendored`] when the corpus has them (augeas, cron,
//! host, mailalias, mount, sshkey, ssh_authorized_key); the others
//! (k5login, maillist, scheduled_task, selboolean, selmodule, yumrepo, zfs,
//! zone, zpool) come from their modules through
//! [`TypeDatabase::load_modules`].

mod core_table;
mod db;
mod generated;
mod model;
mod ruby;

pub use db::{
    alias_conflict_message, no_parameter_message, resource_type_not_found_message,
    ruby_inspect_str, unknown_resource_type_message, NamevarValue, TitleValues, TypeDatabase,
};
pub use generated::parse_generated_type;
pub use model::{
    is_metaparameter, AttrKind, Attribute, Diagnostic, ResourceTypeInfo, Severity, TitlePattern,
    TypeSource, METAPARAMETERS,
};
pub use ruby::{parse_ruby_type, RubyTypeReader};
