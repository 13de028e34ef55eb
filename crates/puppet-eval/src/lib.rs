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

mod builtins;
pub mod catalog;
pub mod env;
pub mod eval;
pub mod ir;
pub mod lower;
mod ops;
pub mod scope;

pub use env::Environment;
pub use eval::{Compiler, EvalError, LogEntry, Settings};

use puppet_types::Value;
use std::sync::Arc;

/// What evaluating a program produced.
#[derive(Debug)]
pub struct Outcome {
    /// The value of the last top-level statement, or the error that stopped evaluation.
    pub value: Result<Value, EvalError>,
    pub logs: Vec<LogEntry>,
    pub compiler: Compiler,
}

/// Parses, validates and evaluates `source` as the main manifest (code given with `-e`).
pub fn evaluate_source(source: &str, settings: &Settings) -> Outcome {
    let env = Environment::from_main(None, source);
    let mut compiler = Compiler::new(Arc::new(env.clone()), settings.clone());
    if let Some((_, d)) = env.first_error() {
        let file = Arc::new(ir::SourceFile::new(None, source));
        let err = EvalError {
            message: d.message.clone(),
            span: Some(ir::Span {
                file,
                start: d.range.start().into(),
                end: d.range.end().into(),
            }),
        };
        return Outcome {
            value: Err(err),
            logs: Vec::new(),
            compiler,
        };
    }
    let value = compiler.evaluate_main();
    let logs = compiler.logs.clone();
    Outcome {
        value,
        logs,
        compiler,
    }
}
