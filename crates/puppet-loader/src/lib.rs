//! Puppet environments: module paths, autoloading and order-independent name resolution.
//!
//! Placeholder: filled by the puppet-loader issue.
