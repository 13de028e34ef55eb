//! The evaluator and catalog compiler for the Puppet language.
//!
//! Code is parsed by puppet-syntax, lowered once into an owned IR ([`ir`], [`lower`]) and
//! collected into an [`Environment`] that many compiles can share. A [`Compiler`] evaluates
//! it with Puppet's scoping rules and builds a catalog; built-in functions come from
//! puppet-functions' registry, to which the compiler is the `CallContext`.
//!
//! ```
//! use puppet_eval::{evaluate_source, Settings};
//! let out = evaluate_source("$x = [1, 2, 3].map |$v| { $v * 2 }\nnotice($x)\n$x[-1]", &Settings::default());
//! assert_eq!(out.value.unwrap().to_string(), "6");
//! assert_eq!(out.logs[0].render(), "notice: Scope(Class[main]): [2, 4, 6]");
//! ```

mod access;
mod catalog;
mod compile;
mod env;
mod error;
mod eval;
pub mod facts;
pub mod hiera;
mod hiera_ruby;
mod host;
pub mod ir;
pub mod lower;
mod names;
mod ops;
mod output;
mod scope;
mod session;
mod settings;
mod templates;

pub use env::{Environment, FunctionInfo, FunctionOrigin, Template};
pub use error::{codes, ErrorKind, EvalError, LogEntry};
pub use eval::Compiler;
pub use output::{facts_from_data, from_data, to_data};
pub use session::Session;
pub use settings::Settings;

use puppet_types::Value;
use std::sync::Arc;

/// The insertion-ordered map of the evaluator's hot paths (variables, resource parameters),
/// with a fast hasher: keys are names from the user's code, and order is insertion order.
pub type Map<K, V> = indexmap::IndexMap<K, V, rustc_hash::FxBuildHasher>;

/// The insertion-ordered set of the same hot paths (tags, edges, the catalog's bookkeeping).
pub(crate) type Set<T> = indexmap::IndexSet<T, rustc_hash::FxBuildHasher>;

/// What evaluating a program produced.
#[derive(Debug)]
pub struct Outcome {
    /// The value of the last top-level statement, or the error that stopped evaluation.
    pub value: Result<Value, EvalError>,
    pub logs: Vec<LogEntry>,
    pub compiler: Compiler,
}

/// Parses a type string (`Hash[String, Integer]`) the way Puppet's type parser does:
/// with the expression grammar, evaluated without any scope; unknown names become
/// `TypeReference`s.
///
/// ```
/// let t = puppet_eval::parse_type_string("Struct[{a => Optional[Integer[1]]}]").unwrap();
/// assert_eq!(t.to_string(), "Struct[{'a' => Optional[Integer[1]]}]");
/// ```
pub fn parse_type_string(text: &str) -> Result<puppet_types::Type, String> {
    let parse = puppet_syntax::flat::parse_expression(text.into());
    if let Some(e) = parse
        .errors()
        .iter()
        .find(|d| d.severity == puppet_syntax::Severity::Error)
    {
        return Err(e.message.clone());
    }
    let file = Arc::new(ir::SourceFile::new(None, text));
    let Some(expr) = lower::lower_expression(file, &parse) else {
        return Err("empty type expression".into());
    };
    let mut compiler = Compiler::new(Arc::new(Environment::default()), Settings::default());
    compiler.type_parser_mode = true;
    let top = compiler.top;
    match compiler.eval(&expr, top) {
        Ok(Value::Type(t)) => Ok(t),
        Ok(other) => Err(format!("'{other}' is not a type")),
        Err(error::Flow::Error(e)) => Err(e.message),
        Err(_) => Err("unexpected control flow".into()),
    }
}

/// Renders an EPP template with the given parameters, in a fresh compile whose top scope
/// holds `settings`' facts (what `epp()`/`inline_epp()` do; `path` is used in messages).
///
/// ```
/// use puppet_eval::{render_epp, Settings};
/// use puppet_types::Value;
/// let params = [("x".into(), Value::Integer(3))].into_iter().collect();
/// let out = render_epp("<%- | Integer $x | -%>\nx=<%= $x + 1 %>\n", None, &params, &Settings::default());
/// assert_eq!(out.unwrap(), "x=4\n");
/// ```
pub fn render_epp(
    text: &str,
    path: Option<&str>,
    params: &indexmap::IndexMap<smol_str::SmolStr, Value>,
    settings: &Settings,
) -> Result<String, EvalError> {
    let mut compiler = Compiler::new(Arc::new(Environment::default()), settings.clone());
    let file = Arc::new(ir::SourceFile::new(path.map(str::to_string), text));
    let span = ir::Span {
        file,
        start: 0,
        end: 0,
    };
    let hash = Value::Hash(Arc::new(
        params
            .iter()
            .map(|(k, v)| (Value::String(k.clone().into()), v.clone()))
            .collect(),
    ));
    let top = compiler.top;
    match templates::render_epp(&mut compiler, path, text, Some(hash), top, &span) {
        Ok(Value::String(s)) => Ok(s.to_string()),
        // A template that rendered a Sensitive value gives a Sensitive text: here, the text.
        Ok(Value::Sensitive(s)) => Ok(s.to_plain_string()),
        Ok(other) => Ok(other.to_plain_string()),
        Err(error::Flow::Error(e)) => Err(e),
        Err(_) => Err(EvalError {
            code: crate::error::codes::EVAL_ERROR,
            kind: Default::default(),
            message: "unexpected control flow in template".into(),
            span: None,
        }),
    }
}

/// What a catalog compile produced.
#[derive(Debug)]
pub struct Compiled {
    /// The catalog, or the error that stopped the compile.
    pub catalog: Result<puppet_graph::Catalog, EvalError>,
    /// Everything logged (notice(), warnings, deprecations), in order.
    pub logs: Vec<LogEntry>,
    /// The text every ERB template rendered during the compile (`template()`,
    /// `inline_template()`), for tools that compare catalogs apart from template output.
    pub template_outputs: Vec<String>,
    /// Exported resources no collector realised (in the catalog, never applied).
    pub unrealized_exports: Vec<String>,
}

impl Compiled {
    /// What the compile reports as diagnostics: the warnings it logged (code
    /// `PUPPET_WARNING`, Puppet's text), then the error that stopped it, if any.
    ///
    /// ```
    /// use puppet_eval::{Session, Settings};
    /// let env = Session::new().code("include nope").load().unwrap();
    /// let out = env.compile(&Settings::default());
    /// let d = out.diagnostics();
    /// assert_eq!(d[0].code, "UNKNOWN_CLASS");
    /// assert_eq!(d[0].location.unwrap().line, 1);
    /// ```
    pub fn diagnostics(&self) -> Vec<puppet_diagnostics::Diagnostic> {
        let mut out: Vec<puppet_diagnostics::Diagnostic> = self
            .logs
            .iter()
            .filter(|l| l.level == puppet_functions::LogLevel::Warning)
            .map(|l| {
                puppet_diagnostics::Diagnostic::new(
                    puppet_diagnostics::Severity::Warning,
                    "PUPPET_WARNING",
                    l.message.clone(),
                )
            })
            .collect();
        if let Err(e) = &self.catalog {
            out.push(e.into());
        }
        out
    }

    /// The catalog (none when the compile failed) and the diagnostics.
    pub fn into_parts(
        self,
    ) -> (
        Option<puppet_graph::Catalog>,
        Vec<puppet_diagnostics::Diagnostic>,
    ) {
        let diagnostics = self.diagnostics();
        (self.catalog.ok(), diagnostics)
    }
}

/// Compiles a catalog for `settings.node_name` from an environment: the main manifests,
/// the matching node definition, then everything they declare.
///
/// ```
/// use puppet_eval::{compile, Environment, Settings};
/// use std::sync::Arc;
/// let env = Environment::from_main(Some("site.pp"), "class web { package { 'nginx': } }\nnode default { include web }\n");
/// let out = compile(Arc::new(env), &Settings::default());
/// let catalog = out.catalog.unwrap();
/// assert!(catalog.find("Package[nginx]").is_some());
/// assert!(catalog.classes.contains(&"web".to_string()));
/// ```
pub fn compile(env: Arc<Environment>, settings: &Settings) -> Compiled {
    // Methods templates define last for the compile (puppet_ruby::interp's TEMPLATE_DEFS).
    struct TemplateMethods;
    impl Drop for TemplateMethods {
        fn drop(&mut self) {
            puppet_ruby::interp::reset_template_methods();
        }
    }
    puppet_ruby::interp::reset_template_methods();
    let _template_methods = TemplateMethods;
    env.note_type_facts(&settings.facts);
    let mut compiler = Compiler::new(env.clone(), settings.clone());
    let diagnostics = main_diagnostics(&env, &compiler);
    if let Some(d) = diagnostics.iter().find(|d| d.is_error()) {
        return Compiled {
            catalog: Err(main_error(&env, &diagnostics, d, settings)),
            logs: Vec::new(),
            template_outputs: Vec::new(),
            unrealized_exports: Vec::new(),
        };
    }
    log_main_warnings(&diagnostics, &mut compiler);
    // Puppet logs each module it refused for its metadata.json as an error.
    let refused = env.loader().diagnostics().iter();
    for d in refused.filter(|d| d.code == puppet_loader::codes::MISSING_METADATA) {
        let (level, message) = (puppet_functions::LogLevel::Err, d.message.clone());
        compiler.logs.push(LogEntry {
            level,
            message,
            scope: None,
        });
    }
    let mut catalog = compiler.evaluate_main().map(|_| compiler.to_catalog());
    if let Some(e) = compiler.validation_failure() {
        catalog = Err(e);
    }
    Compiled {
        catalog,
        unrealized_exports: compiler.unrealized_exports(),
        logs: compiler.logs,
        template_outputs: compiler.template_outputs,
    }
}

impl Environment {
    /// Compiles the catalog of one node (see [`compile`]).
    pub fn compile(self: &Arc<Self>, settings: &Settings) -> Compiled {
        compile(self.clone(), settings)
    }

    /// Compiles many nodes over this environment, in parallel across the cores (rayon's
    /// global pool; run inside [`rayon::ThreadPool::install`] to choose the thread count).
    /// Results come in the order of `nodes`, and each is what compiling that node alone
    /// would give.
    ///
    /// ```
    /// use puppet_eval::{Session, Settings};
    /// let env = Session::new().code("notify { $trusted['certname']: }").load().unwrap();
    /// let nodes: Vec<Settings> = ["a.example.com", "b.example.com"]
    ///     .iter()
    ///     .map(|n| Settings::agent(n, Default::default()))
    ///     .collect();
    /// let out = env.compile_many(&nodes);
    /// assert!(out[1].catalog.as_ref().unwrap().find("Notify[b.example.com]").is_some());
    /// ```
    pub fn compile_many(self: &Arc<Self>, nodes: &[Settings]) -> Vec<Compiled> {
        use rayon::prelude::*;
        nodes.par_iter().map(|s| self.compile(s)).collect()
    }
}

/// The main manifests' diagnostics as the compile's `strict` setting makes them: Puppet's
/// validator reports a duplicate hash key as a warning, an error under `strict=error`, and
/// not at all under `strict=off`.
fn main_diagnostics(env: &Environment, compiler: &Compiler) -> Vec<puppet_diagnostics::Diagnostic> {
    let strict = compiler.strict();
    env.main_diagnostics()
        .iter()
        .filter(|d| !(strict == "off" && d.code == "DUPLICATE_KEY"))
        .map(|d| {
            let mut d = d.clone();
            if strict == "error" && d.code == "DUPLICATE_KEY" {
                d.severity = puppet_diagnostics::Severity::Error;
            }
            d
        })
        .collect()
}

/// Warnings of the lexer and the validator (unrecognised escapes, duplicate hash keys) are
/// logged as Puppet logs them, before evaluation.
fn log_main_warnings(diagnostics: &[puppet_diagnostics::Diagnostic], compiler: &mut Compiler) {
    for d in diagnostics {
        if d.severity == puppet_syntax::Severity::Warning {
            compiler.logs.push(LogEntry {
                level: puppet_functions::LogLevel::Warning,
                message: d.message.clone(),
                scope: None,
            });
        }
    }
}

/// An error of the main manifest as Puppet reports it: a second definition as it is, at the
/// line of the second one; a syntax or validation error as Puppet's parser reports it,
/// located but for an error at the end of the input.
fn main_error(
    env: &Environment,
    diagnostics: &[puppet_diagnostics::Diagnostic],
    d: &puppet_diagnostics::Diagnostic,
    settings: &Settings,
) -> EvalError {
    let path = d.file.as_deref().map(str::to_string);
    let file = env
        .main_files()
        .iter()
        .find(|f| f.file.path == path)
        .map(|f| f.file.clone())
        .unwrap_or_else(|| Arc::new(ir::SourceFile::new(path, "")));
    let span = ir::Span {
        file,
        start: d.start().into(),
        end: d.range.unwrap_or_default().end().into(),
    };
    let validation_errors = compile::validation_error_count(diagnostics, d, &span.file.text);
    let message = if d.code == env::REDEFINED_ENTITY {
        d.message.clone()
    } else if d.code == "DUPLICATE_DEFINITION" {
        format!("{} {}", d.message, compile::location(&span))
    } else if validation_errors > 1 {
        let at = span
            .file
            .path
            .as_ref()
            .map(|p| format!(" (file: {p})"))
            .unwrap_or_default();
        let (env, n) = (&settings.environment, validation_errors);
        format!("Could not parse for environment {env}: Language validation logged {n} errors. Giving up{at}")
    } else {
        let (line, col) = span.line_col();
        let at = match (&span.file.path, d.message.ends_with("at end of input")) {
            (_, true) => String::new(),
            (Some(p), false) => format!(" (file: {p}, line: {line}, column: {col})"),
            (None, false) => format!(" (line: {line}, column: {col})"),
        };
        format!(
            "Could not parse for environment {}: {}{at}",
            settings.environment, d.message
        )
    };
    let code = match &d.code {
        std::borrow::Cow::Borrowed(c) => c,
        std::borrow::Cow::Owned(_) => crate::error::codes::PARSE_ERROR,
    };
    EvalError {
        code,
        kind: ErrorKind::Complete,
        message,
        span: Some(span),
    }
}

/// Parses, validates and evaluates `source` as the main manifest (code given with `-e`).
pub fn evaluate_source(source: &str, settings: &Settings) -> Outcome {
    let env = Arc::new(Environment::from_main(None, source));
    let mut compiler = Compiler::new(env.clone(), settings.clone());
    let diagnostics = main_diagnostics(&env, &compiler);
    if let Some(d) = diagnostics.iter().find(|d| d.is_error()) {
        let file = env.main_files()[0].file.clone();
        let err = EvalError {
            code: crate::error::codes::EVAL_ERROR,
            kind: Default::default(),
            message: d.message.clone(),
            span: Some(ir::Span {
                file,
                start: d.start().into(),
                end: d.range.unwrap_or_default().end().into(),
            }),
        };
        return Outcome {
            value: Err(err),
            logs: Vec::new(),
            compiler,
        };
    }
    log_main_warnings(&diagnostics, &mut compiler);
    let value = compiler.evaluate_main();
    let logs = compiler.logs.clone();
    Outcome {
        value,
        logs,
        compiler,
    }
}
