//! The ERB scanner as Puppet's templates use it: Ruby's `ERB.new(text, trim_mode: '-')`.
//! The scanner itself is puppet-ruby's ([`puppet_ruby::erb`], which also serves Ruby code
//! running `ERB.new` with other trim modes).

pub use puppet_ruby::{Piece, Pos};

/// Splits `src` into literal text, code and output pieces with Puppet's trim mode (`-`).
/// Never fails: an unterminated tag runs to the end of the text (ERB outputs it as text).
///
/// ```
/// use puppet_erb::scanner::{scan, Piece};
/// assert!(matches!(&scan("a<%= x %>")[..], [Piece::Text(t), Piece::Insert(c, _)] if t == "a" && c == " x "));
/// ```
pub fn scan(src: &str) -> Vec<Piece> {
    puppet_ruby::erb::scan(src, puppet_ruby::erb::TrimMode::PUPPET)
}
