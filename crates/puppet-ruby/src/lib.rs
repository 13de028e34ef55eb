//! The one Ruby of puppet-rs: a lexer, a parser (a typed tree with source positions, [`ast`])
//! and an interpreter ([`interp`]) for the Ruby that Puppet modules and ERB templates use,
//! with Ruby 3.1's semantics and texts (`inspect`, `to_s`, `Float#to_s`, exception messages).
//!
//! The pipeline is [`lexer`] (Ruby tokens from [`Piece`]s: plain code, or the pieces of an
//! ERB template that `puppet-erb` scans) → [`parser`] → [`interp`], with the built-in methods
//! in `methods`, `strings` and `collections`, and the standard-library classes in their own
//! files behind `library`: `time` (Time, Date, Rational; local time is UTC, as no time zone
//! source is read), `pack` (`Array#pack`, `String#unpack`), Zlib's checksums, seeded
//! `Random`, `SecureRandom`, `Enumerator.new` generators and lazy enumerators. The Puppet side plugs in through
//! [`PuppetScope`]: variables, function calls and `setvar`.
//!
//! Anything outside the supported Ruby subset is reported as unsupported, naming the line,
//! column and construct, never a silently different result. No input makes this crate
//! panic; nesting depth, loop steps and sizes are bounded.

pub mod ast;
mod bigint;
mod call;
mod catalog;
mod classes;
mod collections;
mod deep_drop;
mod didyoumean;
mod environment;
pub mod erb;
mod fileio;
mod format;
pub mod functions;
pub mod interp;
pub mod ipaddr;
mod json;
mod kernel;
pub mod lexer;
mod library;
pub mod lookup_context;
mod marshal;
mod methods;
mod modules;
pub mod object;
mod pack;
pub mod parser;
mod pattern;
mod puppet;
mod richdata;
mod ruby_methods;
mod source;
mod strings;
pub mod text;
mod time;
pub mod typedsl;
pub mod value;
mod yaml;

/// Runs `f` with enough stack for one more level of nesting, growing the thread's stack onto
/// the heap when little is left. The parser, the interpreter and the function entry all
/// recurse through it, so no nesting that their depth bounds allow can overflow a thread's
/// stack, whatever its size. The red zone covers the largest chain of frames between two
/// calls, with room to spare: a statement inside a statement takes about 70 kB in a debug
/// build, and a 256 kB red zone still let generated templates overflow a grown segment
/// (a SIGSEGV in puppet-erb's grammar proptest, once in many runs). The segments are
/// virtual memory: only the pages a deep nesting touches are used.
pub(crate) fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(1024 * 1024, 8 * 1024 * 1024, f)
}

/// [`with_stack`] for a recursion that counts its `depth`: in an optimised build the stack
/// is checked at every [`STACK_CHECK_EVERY`]th level only (a check reads a thread-local and
/// the stack pointer, which is a good part of a small step), where the frames of the levels
/// between two checks are some tens of kB against a 1 MB red zone. A debug build checks every
/// level: its frames are ten times bigger (about 70 kB for a statement in a statement), and
/// puppet-erb's `no_panic` proptest once overflowed a test thread with checks every 4th
/// level.
#[inline]
pub(crate) fn with_stack_at<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    if cfg!(debug_assertions) || depth % STACK_CHECK_EVERY == 0 {
        with_stack(f)
    } else {
        f()
    }
}

/// How many levels of a depth-counting recursion share one stack check (see
/// [`with_stack_at`]).
pub(crate) const STACK_CHECK_EVERY: usize = 8;

pub use puppet::is_puppet_3x_function;
pub use puppet::SYMBOL_SETTINGS;
pub use richdata::to_rich_data;

pub use source::{MemoryHost, PathKind, SourceHost, Sources};

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

impl Pos {
    /// Moves over `text`: the position of what follows it.
    ///
    /// ```
    /// let mut p = puppet_ruby::Pos { line: 1, column: 1 };
    /// p.advance_over("ab\ncé");
    /// assert_eq!(p, puppet_ruby::Pos { line: 2, column: 3 });
    /// ```
    #[inline]
    pub fn advance_over(&mut self, text: &str) {
        if text.len() > 32 {
            return self.advance_over_long(text.as_bytes());
        }
        for &b in text.as_bytes() {
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if !(0x80..0xC0).contains(&b) {
                // Every byte but UTF-8 continuation bytes starts a character.
                self.column += 1;
            }
        }
    }

    /// [`advance_over`](Self::advance_over) for a long text (a template's literal text or
    /// tag, a comment, heredoc bodies): counting loops without branches, which the compiler
    /// vectorises, over the line breaks, then (only when there are some) a search for the
    /// last one, and a count of the characters after it.
    fn advance_over_long(&mut self, b: &[u8]) {
        // A UTF-8 continuation byte, as i8, is below -64.
        let chars = |b: &[u8]| b.iter().map(|c| u32::from((*c as i8) >= -64)).sum::<u32>();
        let lines = b.iter().map(|c| u32::from(*c == b'\n')).sum::<u32>();
        if lines == 0 {
            self.column += chars(b);
            return;
        }
        let last = b.iter().rposition(|c| *c == b'\n').unwrap_or(0);
        self.line += lines;
        self.column = 1 + chars(&b[last + 1..]);
    }
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
/// not reproduce (complex keys, binary data...).
pub fn yaml_of_value(v: &Value) -> Result<String, String> {
    match yaml::to_yaml(&value::from_puppet(v), Pos::default()) {
        Ok(s) => Ok(s),
        Err(interp::Ctrl::Unsupported(u)) => Err(u.what),
        Err(interp::Ctrl::Raise(e)) => Err(e.message),
        Err(_) => Err("to_yaml: unexpected control flow".to_string()),
    }
}

/// json 2.6's `JSON::GeneratorError` message for a Float JSON cannot hold (the number is
/// the line of its C generator that raised), shared with puppet-stdlib's `to_json`.
///
/// ```
/// assert_eq!(puppet_ruby::json_not_allowed(f64::NAN), "1003: NaN not allowed in JSON");
/// assert_eq!(puppet_ruby::json_not_allowed(f64::NEG_INFINITY), "1000: -Infinity not allowed in JSON");
/// ```
pub fn json_not_allowed(f: f64) -> String {
    json::not_allowed(f)
}

/// Ruby's `JSON.parse` of a text to a Puppet value, with Ruby's exception on failure:
/// `Err((class, message))` (`JSON::ParserError`, `451:`/`859: unexpected token at '...'`).
/// The one owner of Ruby's JSON error texts, shared with puppet-stdlib's `parsejson`.
pub fn json_parse_ruby(text: &str) -> Result<Value, (&'static str, String)> {
    value::to_puppet(&json::parse_ruby(text)?).map_err(|m| ("", m))
}

/// Puppet 7's `PSON.load` of a text, as Puppet's vendored PSON reads documents: an object
/// or an array (as JSON), anything else refused with `source '...' not in PSON!`. A malformed
/// object or array gets JSON's message. Shared with puppet-stdlib's `parsepson`.
pub fn pson_load_ruby(text: &str) -> Result<Value, (&'static str, String)> {
    let t = text.trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        json_parse_ruby(text).map_err(|(c, m)| {
            if c.is_empty() {
                (c, m)
            } else {
                ("PSON::ParserError", m)
            }
        })
    } else {
        Err(("PSON::ParserError", format!("source '{text}' not in PSON!")))
    }
}

/// Ruby 3.1's `YAML.load` (Psych 4: a safe load) of a text to a Puppet value, through
/// puppet-hiera's reader of Psych's scalars: `Ok(None)` for an empty document, `Err((class,
/// message))` with Psych's exception (`Psych::DisallowedClass` naming the class,
/// `Psych::SyntaxError` as `(<unknown>): PROBLEM at line L column C`). The one owner of
/// Psych's load messages, shared with puppet-stdlib's `parseyaml`.
pub fn yaml_load_ruby(text: &str) -> Result<Option<Value>, (&'static str, String)> {
    yaml_load_ruby_with(text, true)
}

/// [`yaml_load_ruby`], with aliases refused unless `aliases` (Psych 4's `YAML.load` and
/// `safe_load` without `aliases: true`: `Psych::BadAlias`, `Unknown alias: NAME`).
pub fn yaml_load_ruby_with(
    text: &str,
    aliases: bool,
) -> Result<Option<Value>, (&'static str, String)> {
    yaml_load_ruby_mode(text, aliases, puppet_hiera::yaml::Symbols::AsStrings)
}

/// [`yaml_load_ruby_with`], with Symbols loaded as `symbols` says.
pub(crate) fn yaml_load_ruby_mode(
    text: &str,
    aliases: bool,
    symbols: puppet_hiera::yaml::Symbols,
) -> Result<Option<Value>, (&'static str, String)> {
    puppet_hiera::yaml::load_ruby(text, aliases, symbols).map_err(|e| {
        if e.disallowed_class {
            return ("Psych::DisallowedClass", e.message);
        }
        if e.message.starts_with("Unknown alias") {
            return ("Psych::BadAlias", e.message);
        }
        let m = e.message;
        let m = match (m.find(" at byte "), m.find(" line ")) {
            (Some(a), Some(b)) if a < b => format!("{} at{}", &m[..a], &m[b..]),
            _ => m,
        };
        ("Psych::SyntaxError", format!("(<unknown>): {m}"))
    })
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
    /// Logs a message at a Puppet log level (`warning`, `debug`, `notice`, `info`, `err`...):
    /// `Puppet.warning`, `warning()` in a 3.x function (Kernel's `warn` comes as `debug`: Ruby writes it to
    /// the process's standard error, not to Puppet's log). The default drops it.
    fn log(&mut self, level: &str, message: &str) {
        let _ = (level, message);
    }
    /// Logs a message with the calling scope as its source (`scope.notice(...)`,
    /// `scope.warning(...)`: Puppet's log shows `Scope(Class[main])`). The default is
    /// [`PuppetScope::log`].
    fn log_from_scope(&mut self, level: &str, message: &str) {
        self.log(level, message);
    }
    /// `scope.lookupvar`/`scope[name]` found no variable `name`: `Err` is the message of
    /// the `ArgumentError` the lookup raises (Puppet's `strict=error`). The default says
    /// nothing.
    fn unknown_variable(&mut self, name: &str) -> Result<(), String> {
        let _ = name;
        Ok(())
    }
    /// What Puppet throws with `:undefined_variable` when Ruby code that catches it
    /// (`catch(:undefined_variable) { scope.lookupvar(name) }`) looks up a missing `name`:
    /// nothing for a plain name, the reason for a qualified one (`class c could not be
    /// found`). No warning. The default is `None`.
    fn unknown_variable_reason(&mut self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
    /// Logs a warning once per key (`Puppet.deprecation_warning`); true when it was logged
    /// now. The default logs it as a warning every time.
    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        self.log(&format!("deprecation:{key}"), message);
        true
    }
    /// The parameters of the catalog's resource `type_name[title]` (`Ok(None)` when it is not
    /// there), for `scope.findresource` and a resource's `[]`; `Err` says why there is no
    /// catalog to read. The default has none.
    fn catalog_resource(
        &mut self,
        type_name: &str,
        title: &str,
    ) -> Result<Option<Vec<(String, Value)>>, String> {
        let _ = (type_name, title);
        Err("no catalog is being compiled".to_string())
    }
    /// Whether the function `name` exists in the environment (`loader.load(:function,
    /// name)`): any function, or with `public_only` only those the environment's public
    /// loader sees (Puppet's own, the environment's `environment::` functions). `Err` says
    /// why the scope cannot tell. The default cannot.
    fn function_exists(&mut self, name: &str, public_only: bool) -> Result<bool, String> {
        let _ = (name, public_only);
        Err("no environment's functions are known here".to_string())
    }
    /// The resource whose body runs (`scope.resource`) as (type, title); `Ok(None)` at top
    /// level. The default has no catalog.
    fn current_resource(&mut self) -> Result<Option<(String, String)>, String> {
        Err("no catalog is being compiled".to_string())
    }
    /// Every resource in the catalog so far as (type, title), in the catalog's order
    /// (`catalog.resources`); `None` when there is no catalog (the default).
    fn catalog_resources(&mut self) -> Option<Vec<(String, String)>> {
        None
    }
    /// The names of the classes in the catalog so far, in the order Puppet adds them
    /// (`settings` first), for a template's `classes`; `None` when there is no catalog
    /// (the default).
    fn catalog_classes(&mut self) -> Option<Vec<String>> {
        None
    }
    /// The catalog's tags so far, in the order Puppet adds them, for a template's
    /// `all_tags`; `None` when there is no catalog (the default).
    fn catalog_tags(&self) -> Option<Vec<String>> {
        None
    }
    /// A Puppet setting (`Puppet[:strict]`, `Puppet.settings[:strict]`); `None` when the
    /// scope does not know it. The default knows none.
    fn setting(&self, name: &str) -> Option<Value> {
        let _ = name;
        None
    }
    /// Puppet's stack of calls (`Puppet::Pops::PuppetStack.stacktrace`), innermost first:
    /// (file, line) of each Puppet function call being made. The default is empty.
    fn puppet_stack(&self) -> Vec<(String, u32)> {
        Vec::new()
    }
    /// Calls the Puppet lambda given to the function that runs (Ruby's `yield` or
    /// `block.call` in a 4.x function). The default: there is none.
    fn call_block(&mut self, args: Vec<Value>) -> Result<Value, String> {
        let _ = args;
        Err("no block given (yield)".to_string())
    }
    /// The number of required parameters of the Puppet lambda given to the function that
    /// runs, and the most it takes (`None`: the last captures the rest), for the `arity` of
    /// the block Ruby sees. The default: unknown.
    fn block_params(&self) -> Option<(usize, Option<usize>)> {
        None
    }
    /// The lookup a Hiera backend function serves (what its `Puppet::LookupContext` reaches);
    /// `None` (the default) outside a backend call.
    fn lookup_host(&mut self) -> Option<&mut dyn lookup_context::LookupHost> {
        None
    }
}

/// Why Ruby code could not be loaded or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RubyError {
    /// The code is not valid Ruby (Ruby would reject it too).
    #[error("{file}:{line}:{column}: syntax error, {message}")]
    Syntax {
        file: String,
        line: u32,
        column: u32,
        message: String,
    },
    /// The code uses something this engine does not implement or refuses to do.
    #[error("{file}:{line}:{column}: unsupported Ruby construct: {construct}")]
    Unsupported {
        file: String,
        line: u32,
        column: u32,
        construct: String,
    },
    /// Ruby raised an exception.
    #[error("{file}:{line}:{column}: {class}: {message}")]
    Runtime {
        file: String,
        line: u32,
        column: u32,
        class: String,
        message: String,
    },
}

impl RubyError {
    /// The stable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            RubyError::Syntax { .. } => "RUBY_SYNTAX",
            RubyError::Unsupported { .. } => "RUBY_UNSUPPORTED",
            RubyError::Runtime { .. } => "RUBY_RUNTIME",
        }
    }

    /// The file, line and column.
    pub fn location(&self) -> (&str, u32, u32) {
        match self {
            RubyError::Syntax {
                file, line, column, ..
            }
            | RubyError::Unsupported {
                file, line, column, ..
            }
            | RubyError::Runtime {
                file, line, column, ..
            } => (file, *line, *column),
        }
    }

    /// The message without the location.
    pub fn message(&self) -> String {
        match self {
            RubyError::Syntax { message, .. } => format!("syntax error, {message}"),
            RubyError::Unsupported { construct, .. } => {
                format!("unsupported Ruby construct: {construct}")
            }
            RubyError::Runtime { class, message, .. } => {
                if class == "RuntimeError" || class.starts_with("Puppet::") {
                    message.clone()
                } else {
                    format!("{class}: {message}")
                }
            }
        }
    }

    /// A parse error of `file`.
    pub fn from_parse(file: &str, e: parser::ParseError) -> RubyError {
        if e.unsupported {
            RubyError::Unsupported {
                file: file.to_string(),
                line: e.pos.line,
                column: e.pos.column,
                construct: e.message,
            }
        } else {
            RubyError::Syntax {
                file: file.to_string(),
                line: e.pos.line,
                column: e.pos.column,
                message: e.message,
            }
        }
    }

    /// An error that escaped a run (`file`: where it was raised when unknown).
    pub fn from_ctrl(file: &str, c: interp::Ctrl) -> RubyError {
        match c {
            interp::Ctrl::Raise(e) => RubyError::Runtime {
                file: e.file.as_deref().unwrap_or(file).to_string(),
                line: e.pos.line,
                column: e.pos.column,
                class: e.class,
                message: e.message,
            },
            interp::Ctrl::Unsupported(u) => RubyError::Unsupported {
                file: u.file.as_deref().unwrap_or(file).to_string(),
                line: u.pos.line,
                column: u.pos.column,
                construct: u.what,
            },
            interp::Ctrl::Throw(tv) => RubyError::Runtime {
                file: file.to_string(),
                line: 0,
                column: 0,
                class: "UncaughtThrowError".into(),
                message: format!("uncaught throw {}", value::inspect(&tv.0)),
            },
            _ => RubyError::Runtime {
                file: file.to_string(),
                line: 0,
                column: 0,
                class: "LocalJumpError".into(),
                message: "unexpected control flow at top level".into(),
            },
        }
    }
}

/// A scope with no variables and no functions (for code that needs none).
#[derive(Debug, Default)]
pub struct NullScope {
    /// The messages logged, as `level: message`.
    pub logs: Vec<String>,
}

impl PuppetScope for NullScope {
    fn lookup(&self, _name: &str) -> Option<Value> {
        None
    }
    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }
    fn call_function(&mut self, name: &str, _args: Vec<Value>) -> Result<Value, String> {
        Err(format!("Unknown function: '{name}'"))
    }
    fn log(&mut self, level: &str, message: &str) {
        self.logs.push(format!("{level}: {message}"));
    }
}

/// Runs a Ruby program in a fresh interpreter (no scope, no files) and returns Ruby's
/// `inspect` of its last value; an exception is `Err` with Ruby's class and message.
///
/// ```
/// assert_eq!(puppet_ruby::eval_inspect("[1, 2.0, 'a', :b, nil].map(&:to_s)").unwrap(), r#"["1", "2.0", "a", "b", ""]"#);
/// assert_eq!(puppet_ruby::eval_inspect("1e15").unwrap(), "1.0e+15");
/// let e = puppet_ruby::eval_inspect("Integer('x')").unwrap_err();
/// assert_eq!(e.to_string(), r#"(eval):1:1: ArgumentError: invalid value for Integer(): "x""#);
/// ```
pub fn eval_inspect(code: &str) -> Result<String, RubyError> {
    eval_inspect_with(code, DEFAULT_EVAL_STEPS)
}

/// The step budget of [`eval_inspect`].
pub const DEFAULT_EVAL_STEPS: u64 = 5_000_000;

/// [`eval_inspect`] with a budget of evaluation steps.
pub fn eval_inspect_with(code: &str, steps: u64) -> Result<String, RubyError> {
    let file = "(eval)";
    let prog = parser::parse_file(code, file).map_err(|e| RubyError::from_parse(file, e))?;
    let mut scope = NullScope::default();
    let mut it = interp::Interp::with(&mut scope, file, false, Sources::empty());
    it.set_step_limit(steps);
    let v = it
        .run_program(&prog)
        .map_err(|c| RubyError::from_ctrl(file, c))?;
    it.inspect_value(&v)
        .map_err(|c| RubyError::from_ctrl(file, c))
}

#[cfg(test)]
mod tests {
    use super::Pos;

    /// `Pos::advance_over` agrees with moving over the text one character at a time.
    #[test]
    fn advance_over_counts_like_chars() {
        let texts = [
            "",
            "a",
            "\n",
            "ab\ncé",
            "é\n\n日本語\nx",
            "line\r\nnext\n",
            "no break at all, but ünïcödé",
            "\n\n\n",
            "tail without break\nß",
            "a long text over thirty-two bytes, with é and\nline breaks\n\nand a tail ü",
            "a long text over thirty-two bytes with no line break at all, ünïcödé",
            "a long text over thirty-two bytes that ends in a line break\n",
            "\na long text over thirty-two bytes after a leading line break, ü",
            "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
            "ünïcödé ünïcödé ünïcödé\nünïcödé ünïcödé ünïcödé ünïcödé",
        ];
        for start in [
            Pos { line: 1, column: 1 },
            Pos {
                line: 7,
                column: 12,
            },
        ] {
            for t in texts {
                let mut want = start;
                for c in t.chars() {
                    if c == '\n' {
                        want.line += 1;
                        want.column = 1;
                    } else {
                        want.column += 1;
                    }
                }
                let mut got = start;
                got.advance_over(t);
                assert_eq!(got, want, "{t:?}");
            }
        }
    }
}
