//! The environment an evaluation runs in: the parsed and lowered code, indexed by name.
//!
//! An [`Environment`] is immutable once built and shared (`Arc`) by every compile that uses
//! it; nothing a compile does is stored here (RFC 1: compiles are isolated). It is built from
//! in-memory sources; the loader crate feeds it from module paths.

use crate::ir::{SourceFile, Span};
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
    /// The modules on the module path, by name, with their directories (for templates,
    /// files and module data).
    pub modules: IndexMap<SmolStr, std::path::PathBuf>,
    /// The first syntax error of each module file that has one (reported when code of that
    /// file is used, as Puppet reports it when autoloading).
    pub file_errors: IndexMap<String, Diagnostic>,
    /// Hiera 5 data for `lookup()` and automatic class parameter lookup; `None` is an empty
    /// hierarchy (build one with [`crate::hiera::lookup_for`]).
    pub hiera: Option<Arc<puppet_hiera::Lookup>>,
}

impl Environment {
    /// An environment with one main manifest given as text (`path` is used in messages;
    /// `None` for code given with `-e`).
    pub fn from_main(path: Option<&str>, text: &str) -> Environment {
        let mut env = Environment::default();
        env.add_main(path, text);
        env
    }

    /// The same environment with Hiera data (see [`crate::hiera::lookup_for`]).
    pub fn with_hiera(mut self, lookup: puppet_hiera::Lookup) -> Environment {
        self.hiera = Some(Arc::new(lookup));
        self
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
            if let Some(prev) = self.classes.get(&c.name).map(|p| p.span.clone()) {
                self.redefinition(&path, "Class", &c.name, &prev, &c.span);
                continue;
            }
            self.classes.insert(c.name.clone(), c.clone());
        }
        let mut node_names: Vec<(SmolStr, Span)> = self
            .nodes
            .iter()
            .flat_map(|n| n.matches.iter().map(|m| (host_name(m), n.span.clone())))
            .collect();
        for n in &defs.nodes {
            for m in &n.matches {
                let name = host_name(m);
                if let Some((_, prev)) = node_names.iter().find(|(x, _)| *x == name) {
                    let prev = prev.clone();
                    self.redefinition(&path, "Node", &name, &prev, &n.span);
                }
                node_names.push((name, n.span.clone()));
            }
        }
        for d in &defs.defines {
            self.defines
                .entry(d.name.clone())
                .or_insert_with(|| d.clone());
        }
        for f in &defs.functions {
            if let Some(prev) = self.functions.get(&f.name).map(|p| p.span.clone()) {
                let (line, pos) = prev.line_col();
                let origin = match &prev.file.path {
                    Some(p) => format!("file://{p}?line={line}&pos={pos}"),
                    None => format!("string:?line={line}&pos={pos}"),
                };
                self.diagnostics.push((
                    path.map(str::to_string),
                    Diagnostic::error(
                        "DUPLICATE_DEFINITION",
                        format!(
                            "Attempt to redefine entity 'http://puppet.com/2016.1/runtime/function/{}'. Originally set at {origin}.",
                            f.name
                        ),
                        puppet_syntax::TextRange::new(f.span.start.into(), f.span.end.into()),
                    ),
                ));
                continue;
            }
            self.functions.insert(f.name.clone(), f.clone());
        }
        for t in &defs.type_aliases {
            self.type_aliases
                .entry(SmolStr::new(t.name.to_ascii_lowercase()))
                .or_insert_with(|| t.clone());
        }
        self.nodes.extend(defs.nodes.iter().cloned());
        lowered
    }

    /// An environment of a module path and a main manifest given as text (`path` is used
    /// in messages). Module files are read from disk through puppet-loader.
    pub fn from_modulepath(
        modulepath: &[std::path::PathBuf],
        path: Option<&str>,
        text: &str,
    ) -> Environment {
        let config = puppet_loader::EnvironmentConfig::with_modulepath(modulepath.iter().cloned());
        let provider = puppet_loader::FsProvider::new(config.roots());
        let loaded = puppet_loader::Environment::load(&config, &provider);
        let mut env = Environment::default();
        env.add_main(path, text);
        env.add_loaded(&loaded);
        env
    }

    /// The code of an environment loaded by puppet-loader: its main manifest files in
    /// order, and every definition the loader indexed (those that passed Puppet's location
    /// rules), lowered once. Definitions of the main manifest shadow module ones.
    pub fn from_loader(loaded: &puppet_loader::Environment) -> Environment {
        let mut env = Environment::default();
        env.add_loaded(loaded);
        env
    }

    /// Adds the files of an environment loaded by puppet-loader (see [`from_loader`]).
    ///
    /// [`from_loader`]: Environment::from_loader
    pub fn add_loaded(&mut self, loaded: &puppet_loader::Environment) {
        use puppet_loader::{DefKind, FileRole};
        let env = self;
        for m in loaded.modules() {
            env.modules.insert(m.name.clone(), m.path.clone());
        }
        for f in loaded.files() {
            let path = f.path.to_string_lossy().to_string();
            let source = Arc::new(SourceFile::new(Some(path.clone()), &f.text));
            let mut lowered = lower_file(source, &f.parse);
            for d in f.parse.errors() {
                lowered.diagnostics.push(d.clone());
            }
            let lowered = Arc::new(lowered);
            if f.role == FileRole::MainManifest {
                for d in &lowered.diagnostics {
                    env.diagnostics.push((Some(path.clone()), d.clone()));
                }
                env.register(&lowered, |_, _| true);
                env.main.push(lowered);
                continue;
            }
            if let Some(d) = lowered
                .diagnostics
                .iter()
                .find(|d| d.severity == puppet_syntax::Severity::Error)
            {
                env.file_errors.insert(path.clone(), d.clone());
            }
            let indexed: Vec<(DefKind, SmolStr)> = f
                .definitions
                .iter()
                .map(|d| (d.kind, d.name.clone()))
                .collect();
            env.register(&lowered, |kind, name| {
                indexed.iter().any(|(k, n)| *k == kind && n == name)
            });
        }
    }

    /// Registers a lowered file's definitions that `accept` lets through (first wins).
    fn register(
        &mut self,
        lowered: &LoweredFile,
        accept: impl Fn(puppet_loader::DefKind, &str) -> bool,
    ) {
        use puppet_loader::DefKind;
        let defs = &lowered.definitions;
        for c in &defs.classes {
            if accept(DefKind::Class, &c.name) {
                self.classes
                    .entry(c.name.clone())
                    .or_insert_with(|| c.clone());
            }
        }
        for d in &defs.defines {
            if accept(DefKind::Define, &d.name) {
                self.defines
                    .entry(d.name.clone())
                    .or_insert_with(|| d.clone());
            }
        }
        for f in &defs.functions {
            if accept(DefKind::Function, &f.name) {
                self.functions
                    .entry(f.name.clone())
                    .or_insert_with(|| f.clone());
            }
        }
        for t in &defs.type_aliases {
            let lower = SmolStr::new(t.name.to_ascii_lowercase());
            if accept(DefKind::TypeAlias, &lower) {
                self.type_aliases.entry(lower).or_insert_with(|| t.clone());
            }
        }
        self.nodes.extend(defs.nodes.iter().cloned());
    }

    /// The syntax error of the file a definition comes from, if that file has one.
    pub fn file_error(&self, span: &crate::ir::Span) -> Option<crate::eval::EvalError> {
        let path = span.file.path.as_ref()?;
        let d = self.file_errors.get(path)?;
        Some(crate::eval::EvalError {
            message: d.message.clone(),
            span: Some(crate::ir::Span {
                file: span.file.clone(),
                start: d.range.start().into(),
                end: d.range.end().into(),
            }),
        })
    }

    /// Records Puppet's error for a second definition of a class or node.
    fn redefinition(
        &mut self,
        path: &Option<&str>,
        what: &str,
        name: &str,
        first: &Span,
        second: &Span,
    ) {
        let (line, _) = first.line_col();
        let at = match &first.file.path {
            Some(p) => format!("(file: {p}, line: {line})"),
            None => format!("(line: {line})"),
        };
        self.diagnostics.push((
            path.map(str::to_string),
            Diagnostic::error(
                "DUPLICATE_DEFINITION",
                format!("{what} '{name}' is already defined {at}; cannot redefine"),
                puppet_syntax::TextRange::new(second.start.into(), second.end.into()),
            ),
        ));
    }

    /// The first error-level diagnostic, if any file failed to parse or validate.
    pub fn first_error(&self) -> Option<&(Option<String>, Diagnostic)> {
        self.diagnostics
            .iter()
            .find(|(_, d)| d.severity == puppet_syntax::Severity::Error)
    }
}

/// The name a node definition gives a host match (`__node_regexp__...` for regexes).
fn host_name(m: &crate::lower::HostMatch) -> SmolStr {
    match m {
        crate::lower::HostMatch::Name(n) => n.clone(),
        crate::lower::HostMatch::Default => SmolStr::new("default"),
        crate::lower::HostMatch::Regex(r) => crate::compile::node_regex_name(r.source()),
    }
}
