//! The typed 4.x function dispatch registry and Puppet's pure built-in functions.
//!
//! Placeholder: filled by the puppet-functions issue.
