//! Puppet values and the Puppet type system.
//!
//! This crate will hold `Value`, the Puppet types, instance-of, assignability, inference and
//! Display in Puppet syntax. It is filled by the puppet-types issue; today it is only a placeholder
//! so that the workspace has its final shape.
