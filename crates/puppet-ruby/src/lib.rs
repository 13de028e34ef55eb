//! The one Ruby of puppet-rs: a lexer, a parser (a typed tree with source positions, [`ast`])
//! and an interpreter ([`interp`]) for the Ruby that Puppet modules and ERB templates use,
//! with Ruby 3.1's semantics and texts (`inspect`, `to_s`, `Float#to_s`, exception messages).
//!
//! The pipeline is [`lexer`] (Ruby tokens from [`Piece`]s: plain code, or the pieces of an
//! ERB template that `puppet-erb` scans) → [`parser`] → [`interp`], with the built-in methods
//! in `methods`, `strings` and `collections`. The Puppet side plugs in through
//! [`PuppetScope`]: variables, function calls and `setvar`.
//!
//! Anything outside the supported Ruby subset is reported as unsupported, naming the line,
//! column and construct, never a silently different result. No input makes this crate
//! panic; nesting depth, loop steps and sizes are bounded.

pub mod ast;
mod collections;
mod format;
pub mod interp;
mod ipaddr;
mod json;
pub mod lexer;
mod methods;
pub mod parser;
mod ruby_methods;
mod strings;
pub mod value;
mod yaml;

use indexmap::IndexMap;
use puppet_types::Value;
use smol_str::SmolStr;

/// A position in a source: 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

/// One piece of Ruby source as the lexer receives it: a plain file is one [`Piece::Code`];
/// an ERB template is the sequence of pieces its scanner produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Literal template text to output; the generated Ruby line ends after it when it holds
    /// line breaks.
    Text(String),
    /// Ruby code (a `<% %>` tag, or a whole file), starting at `pos`.
    Code(String, Pos),
    /// The Ruby expression of a `<%= %>` tag, starting at `pos`.
    Insert(String, Pos),
    /// A line break in the generated program (no output).
    Cr,
}

/// Psych's `obj.to_yaml` (Ruby 3.1, default options) of a Puppet value as a Ruby function
/// receives it (`undef` is `nil`, `default` the symbol `:default`); shared with
/// puppet-stdlib's `to_yaml` so that there is one emitter. `Err` names what this engine does
/// not reproduce (libyaml's line folding, complex keys...).
pub fn yaml_of_value(v: &Value) -> Result<String, String> {
    match yaml::to_yaml(&value::from_puppet(v), Pos::default()) {
        Ok(s) => Ok(s),
        Err(interp::Ctrl::Unsupported { what, .. }) => Err(what),
        Err(interp::Ctrl::Raise { message, .. }) => Err(message),
        Err(_) => Err("to_yaml: unexpected control flow".to_string()),
    }
}

/// Ruby's `JSON.parse` of a text to a Puppet value (objects to hashes in document order);
/// `Err` has the parser's message (`unexpected token at '...'`). Shared with puppet-stdlib's
/// `parsejson` and `parsepson`.
pub fn json_parse_value(text: &str) -> Result<Value, String> {
    value::to_puppet(&json::parse(text)?)
}

/// What Ruby code can see of the Puppet scope it runs in (a template's scope, a function's
/// calling scope).
pub trait PuppetScope {
    /// A variable by (possibly qualified) name, as `scope.lookupvar` sees it; `None` when
    /// unknown.
    fn lookup(&self, name: &str) -> Option<Value>;
    /// All variables visible in the scope (local, inherited and top scope), as Puppet's
    /// `scope.to_hash` gives them; they become a template's `@` variables.
    fn all_variables(&self) -> IndexMap<SmolStr, Value>;
    /// The visible variable `name` as an `@name` sees it (one entry of
    /// [`all_variables`](PuppetScope::all_variables)). The default builds them all;
    /// scopes that can look one up directly should.
    fn instance_variable(&self, name: &str) -> Option<Value> {
        self.all_variables().get(name).cloned()
    }
    /// A variable's array or hash that the code changed in place (`x = @list; x << 1`):
    /// in Puppet the Ruby code holds the very object the scope (and a resource parameter)
    /// holds, so the change shows in the catalog. `original` is the value it had. The
    /// default ignores it.
    fn mutated_variable(&mut self, name: &str, original: &Value, value: Value) {
        let _ = (name, original, value);
    }
    /// Calls a Puppet function with already unpacked arguments.
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String>;
    /// Sets a variable of the scope (`scope.setvar(name, value)`); the error is Puppet's
    /// message. The default refuses.
    fn set_variable(&mut self, name: &str, value: Value) -> Result<(), String> {
        let _ = value;
        Err(format!("Cannot set variable '{name}' from this template"))
    }
}
