//! The evaluator and catalog compiler for the Puppet language.
//!
//! Placeholder: filled by the puppet-eval issues.
