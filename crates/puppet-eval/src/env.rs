//! The environment an evaluation runs in: the parsed and lowered code, indexed by name.
//!
//! An [`Environment`] is immutable once built and shared (`Arc`) by every compile that uses
//! it; nothing a compile does is stored here (RFC 1: compiles are isolated). It is built from
//! in-memory sources; the loader crate feeds it from module paths.

use crate::ir::SourceFile;
use crate::lower::{
    lower_file, ClassDef, DefineDef, FunctionDef, LoweredFile, NodeDef, TypeAliasDef,
};
use indexmap::IndexMap;
use puppet_syntax::Diagnostic;
use smol_str::SmolStr;
use std::sync::Arc;

/// Code to evaluate: lowered files and their definitions by (lower-case) name.
#[derive(Debug, Default, Clone)]
pub struct Environment {
    /// The main manifests, in evaluation order.
    pub main: Vec<Arc<LoweredFile>>,
    pub classes: IndexMap<SmolStr, Arc<ClassDef>>,
    pub defines: IndexMap<SmolStr, Arc<DefineDef>>,
    pub functions: IndexMap<SmolStr, Arc<FunctionDef>>,
    /// Type aliases by lower-case name.
    pub type_aliases: IndexMap<SmolStr, Arc<TypeAliasDef>>,
    pub nodes: Vec<Arc<NodeDef>>,
    /// Syntax and lowering problems of every file.
    pub diagnostics: Vec<(Option<String>, Diagnostic)>,
}

impl Environment {
    /// An environment with one main manifest given as text (`path` is used in messages;
    /// `None` for code given with `-e`).
    pub fn from_main(path: Option<&str>, text: &str) -> Environment {
        let mut env = Environment::default();
        env.add_main(path, text);
        env
    }

    /// Parses and adds a main manifest.
    pub fn add_main(&mut self, path: Option<&str>, text: &str) {
        let lowered = self.add_file(path, text, false);
        self.main.push(lowered);
    }

    /// Parses and adds a file whose definitions become known (a module manifest).
    pub fn add_file(&mut self, path: Option<&str>, text: &str, epp: bool) -> Arc<LoweredFile> {
        let parse = if epp {
            puppet_syntax::parse_epp(text)
        } else {
            puppet_syntax::parse(text)
        };
        let file = Arc::new(SourceFile::new(path.map(str::to_string), text));
        let mut lowered = lower_file(file, &parse);
        for d in parse
            .errors()
            .iter()
            .chain(puppet_syntax::validate::validate(&parse).iter())
        {
            lowered.diagnostics.push(d.clone());
        }
        let lowered = Arc::new(lowered);
        for d in &lowered.diagnostics {
            self.diagnostics.push((path.map(str::to_string), d.clone()));
        }
        let defs = &lowered.definitions;
        for c in &defs.classes {
            self.classes
                .entry(c.name.clone())
                .or_insert_with(|| c.clone());
        }
        for d in &defs.defines {
            self.defines
                .entry(d.name.clone())
                .or_insert_with(|| d.clone());
        }
        for f in &defs.functions {
            self.functions
                .entry(f.name.clone())
                .or_insert_with(|| f.clone());
        }
        for t in &defs.type_aliases {
            self.type_aliases
                .entry(SmolStr::new(t.name.to_ascii_lowercase()))
                .or_insert_with(|| t.clone());
        }
        self.nodes.extend(defs.nodes.iter().cloned());
        lowered
    }

    /// The first error-level diagnostic, if any file failed to parse or validate.
    pub fn first_error(&self) -> Option<&(Option<String>, Diagnostic)> {
        self.diagnostics
            .iter()
            .find(|(_, d)| d.severity == puppet_syntax::Severity::Error)
    }
}
