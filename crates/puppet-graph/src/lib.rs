//! The catalog model, the relationship and refresh graph, ordering, cycle reports and the
//! offline apply simulation.
//!
//! Placeholder: filled by the puppet-graph issue.
