//! Differential testing of the compiler against Puppet 7.23.
//!
//! Three parts, each usable alone:
//! - [`program`]: a seeded generator of Puppet programs ([`gen`]);
//! - [`compile_canonical`] and [`canonical_puppet`]: a compile as the oracle's
//!   `compile-catalog` prints it (its canonical form: resources sorted by type and title with
//!   sorted tags and sorted parameter names, containment edges and classes sorted), or the
//!   error text Puppet prints, so that our answer and Puppet's compare as strings;
//! - [`compare`]: the comparison, naming the first difference.
//!
//! `scripts/compile-diff.py` asks Puppet for a batch of generated programs and stores its
//! answers; `tests/compile_diff.rs` compares a committed sample of them at every `cargo
//! test`, and the `puppet-difftest` binary runs any number (`gen`, `check`). Nothing here
//! runs Ruby or Puppet.

pub mod canonical;
pub mod gen;
pub mod rng;

pub use canonical::{canonical_puppet, compare, compile_canonical, Difference, NODE};
pub use gen::program;
