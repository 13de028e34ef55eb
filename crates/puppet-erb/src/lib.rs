//! Native rendering of Puppet ERB templates, producing what Puppet 7 (Ruby 3.1's ERB with
//! `trim_mode: '-'`) produces for `template()` and `inline_template()`.
//!
//! This crate is the ERB scanner ([`scanner`]: tags and trimming) and the bridge to the
//! Puppet scope; the Ruby itself (lexer, parser, interpreter) is `puppet-ruby`'s. The
//! evaluator plugs in through [`TemplateScope`]: it supplies the scope's variables (`@x` in
//! templates), single variable lookups (`scope.lookupvar`, `scope['x']`) and function calls
//! (`scope.function_x([..])`, `scope.call_function('x', [..])`).
//!
//! ```
//! use indexmap::IndexMap;
//! use puppet_erb::{render, TemplateScope};
//! use puppet_types::Value;
//! use smol_str::SmolStr;
//!
//! struct Vars(IndexMap<SmolStr, Value>);
//! impl TemplateScope for Vars {
//!     fn lookup(&self, name: &str) -> Option<Value> { self.0.get(name).cloned() }
//!     fn all_variables(&self) -> IndexMap<SmolStr, Value> { self.0.clone() }
//!     fn call_function(&mut self, name: &str, _: Vec<Value>) -> Result<Value, String> {
//!         Err(format!("unknown function {name}"))
//!     }
//! }
//! let mut vars = Vars(IndexMap::new());
//! vars.0.insert("ports".into(), Value::array(vec![Value::Integer(80), Value::Integer(443)]));
//! let out = render("<% @ports.each do |p| -%>\nListen <%= p %>\n<% end -%>\n", "ports.erb", &mut vars);
//! assert_eq!(out.unwrap(), "Listen 80\nListen 443\n");
//! ```
//!
//! Anything outside the supported Ruby subset is an [`ErbError::Unsupported`] naming the file,
//! line, column and construct, never a silently different output. No input makes this crate
//! panic; nesting depth, loop steps and sizes are bounded.

pub mod scanner;

pub use indexmap::IndexMap;
/// A Puppet value as Ruby's `to_yaml` prints it (Psych's output; puppet-ruby's, re-exported
/// for the compiler's `puppet lookup` rendering).
pub use puppet_ruby::yaml_of_value;
/// What a template can see of the Puppet scope it is evaluated in (`puppet-ruby`'s view of a
/// Puppet scope).
pub use puppet_ruby::PuppetScope as TemplateScope;
use puppet_ruby::{ast, interp, lexer, parser};
use puppet_types::Str;
pub use smol_str::SmolStr;

/// Why a template could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErbError {
    /// The template is not valid ERB/Ruby (Ruby would reject it too).
    #[error("{file}:{line}:{column}: syntax error, {message}")]
    Syntax {
        file: String,
        line: u32,
        column: u32,
        message: String,
    },
    /// The template uses something this engine does not implement.
    #[error("{file}:{line}:{column}: unsupported construct in ERB template: {construct}")]
    Unsupported {
        file: String,
        line: u32,
        column: u32,
        construct: String,
    },
    /// Ruby raised an exception while rendering (as Puppet would report it).
    #[error("{file}:{line}:{column}: {class}: {message}")]
    Runtime {
        file: String,
        line: u32,
        column: u32,
        class: String,
        message: String,
        /// Whether the exception is a `StandardError`, which Puppet's template wrapper
        /// rescues and reports as the template's failure; any other (`NotImplementedError`
        /// from `tags`, a `LoadError`) stops the compile with its message alone.
        rescued: bool,
    },
}

impl ErbError {
    /// True for [`ErbError::Unsupported`].
    pub fn is_unsupported(&self) -> bool {
        matches!(self, ErbError::Unsupported { .. })
    }
}

/// A parsed template, reusable across renders (and shareable: the tree is `Send + Sync`).
#[derive(Debug, Clone)]
pub struct Template {
    file: String,
    program: std::sync::Arc<ast::Program>,
    /// The bytes of the template's literal text: the room a render's output starts with
    /// (a guess, that saves growing the output step by step as it is written).
    text_len: usize,
}

impl Template {
    /// Scans and parses `text`; `file` is used in error messages and by `file`/`__FILE__`.
    pub fn parse(text: &str, file: &str) -> Result<Template, ErbError> {
        let shown = if file.is_empty() {
            "inline template"
        } else {
            file
        };
        let pieces = scanner::scan(text);
        let text_len = pieces
            .iter()
            .map(|p| match p {
                puppet_ruby::Piece::Text(t) => t.len(),
                _ => 0,
            })
            .sum();
        let to_err = |e: parser::ParseError| {
            if e.unsupported {
                ErbError::Unsupported {
                    file: shown.to_string(),
                    line: e.pos.line,
                    column: e.pos.column,
                    construct: e.message,
                }
            } else {
                ErbError::Syntax {
                    file: shown.to_string(),
                    line: e.pos.line,
                    column: e.pos.column,
                    message: e.message,
                }
            }
        };
        let toks = lexer::lex_pieces(pieces).map_err(|e| to_err(e.into()))?;
        let program = parser::parse_program(toks, file, true).map_err(to_err)?;
        Ok(Template {
            file: file.to_string(),
            program: std::sync::Arc::new(program),
            text_len,
        })
    }

    fn shown_file(&self) -> String {
        if self.file.is_empty() {
            "inline template".to_string()
        } else {
            self.file.clone()
        }
    }

    /// The parsed statements.
    pub fn body(&self) -> &[ast::Node] {
        &self.program.body
    }

    /// Renders the template against `scope`: the text, binary (Ruby's ASCII-8BIT) when a
    /// non-ASCII binary string was written into an otherwise ASCII output.
    pub fn render(&self, scope: &mut dyn TemplateScope) -> Result<Str, ErbError> {
        let _setvars = interp::SetvarFrame::push();
        let it = interp::Interp::new(scope, &self.file);
        self.run(it)
    }

    /// Renders the template against `scope` with `sources` as Ruby's load path: `require`
    /// in the template finds the modules' `lib/` files (`puppet_x/...`), as under Puppet,
    /// where the modules' lib directories are on `$LOAD_PATH`.
    pub fn render_with(
        &self,
        scope: &mut dyn TemplateScope,
        sources: std::sync::Arc<puppet_ruby::Sources>,
    ) -> Result<Str, ErbError> {
        let _setvars = interp::SetvarFrame::push();
        let it = interp::Interp::with(scope, &self.file, true, sources);
        self.run(it)
    }

    fn run(&self, mut it: interp::Interp<'_>) -> Result<Str, ErbError> {
        it.out.reserve(self.text_len);
        match it.run(&self.program.body) {
            Ok(()) => {
                it.write_back();
                Ok(Str::with_binary(std::mem::take(&mut it.out), it.out_binary))
            }
            Err(interp::Ctrl::Unsupported(u)) => Err(ErbError::Unsupported {
                file: self.shown_file(),
                line: u.pos.line,
                column: u.pos.column,
                construct: u.what,
            }),
            Err(interp::Ctrl::Raise(e)) => Err(ErbError::Runtime {
                file: self.shown_file(),
                line: e.pos.line,
                column: e.pos.column,
                rescued: it.is_standard_error(&e.class),
                class: e.class,
                message: e.message,
            }),
            Err(_) => Err(ErbError::Runtime {
                file: self.shown_file(),
                line: 0,
                column: 0,
                class: "LocalJumpError".into(),
                message: "unexpected control flow at template level".into(),
                rescued: true,
            }),
        }
    }
}

/// Renders `text` against `scope`. `file` is the template's path (as `template()` found it),
/// or `""` for `inline_template()`: then `file` is nil in the template and errors name
/// `inline template`.
pub fn render(text: &str, file: &str, scope: &mut dyn TemplateScope) -> Result<Str, ErbError> {
    Template::parse(text, file)?.render(scope)
}
