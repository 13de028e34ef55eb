//! The catalog builder: the parts of the [`Compiler`] that build the catalog, following
//! Puppet's compiler. This file has node matching, an external classifier's classes, finding
//! classes and defined types, and what the parts share; the parts are the submodules:
//! resource expressions (`resources`), classes and defined-type instances (`classes`, whose
//! parameters the evaluator's one binder, `crate::eval::bind`, binds) and the work done when
//! the code has run (`finish`).
//!
//! The evaluator (`crate::eval`) hands the expressions that build the catalog here; nothing
//! in it reads or writes the catalog itself.

mod classes;
mod finish;
mod resources;

pub(crate) use classes::ClassDecl;
pub(crate) use resources::own_relation_list;

use crate::catalog::{Catalog, Resource, ResourceKey, ResourceKind};
use crate::error::{ErrorKind, EvalError, Flow, R};
use crate::eval::Compiler;
use crate::ir::*;
use crate::lower::{ClassDef, HostMatch};
use crate::scope::{Scope, ScopeId, ScopeKind};
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// The catalog every compile starts with: `Stage[main]` containing `Class[Settings]` and
/// `Class[main]`, with room for `size` resources.
pub(crate) fn initial_catalog(size: usize) -> Catalog {
    let mut catalog = Catalog::default();
    catalog.reserve(size);
    let stage_key = ResourceKey::new("Stage", "main");
    let mut stage = Resource::new("Stage", "main");
    stage.kind = ResourceKind::Stage;
    stage.tags.insert("stage".into());
    stage.params.insert("name".into(), Value::string("main"));
    catalog.add(stage);
    for (title, tags) in [
        ("Settings", &["class", "settings"][..]),
        ("main", &["class"][..]),
    ] {
        let mut r = Resource::new("Class", title);
        r.kind = ResourceKind::Class;
        r.tags.extend(tags.iter().map(|t| SmolStr::new(*t)));
        if title == "main" {
            r.params.insert("name".into(), Value::string("main"));
        }
        r.container = Some(stage_key.clone());
        catalog.add(r);
    }
    catalog
}

/// What the catalog builder keeps about the classes, node and defined-type instances of one
/// compile (the catalog itself is `Compiler::catalog`).
#[derive(Default)]
pub(crate) struct Builder {
    /// The scope of every evaluated class (and of `main`, `''` and `settings`), by
    /// lower-case class name, in evaluation order.
    class_scopes: crate::Map<SmolStr, ScopeId>,
    /// Classes whose evaluation has started (Puppet's `evaluated?`, set before the parent
    /// class and the body run, so that a parent that `contain`s its child does not
    /// evaluate the child a second time).
    started_classes: rustc_hash::FxHashSet<SmolStr>,
    /// The warnings of module files logged so far (file and offset): Puppet logs a file's
    /// warnings when it parses it, once.
    load_warned: rustc_hash::FxHashSet<(Option<Arc<str>>, u32)>,
    /// The module files read so far (each once) and the load errors left for the end of
    /// the compile, in the order they came, which `validation_failure` checks.
    reads: Vec<Read>,
    read_paths: rustc_hash::FxHashSet<Arc<std::path::Path>>,
    /// What `note_load` answered for each name (kind and name) this compile.
    loads_noted: rustc_hash::FxHashMap<
        (puppet_loader::DefKind, SmolStr),
        Option<puppet_diagnostics::Diagnostic>,
    >,
    /// The node scope, once the node definition is being evaluated.
    node_scope: Option<ScopeId>,
    /// The matched node's name, listed among the classes as Puppet does, with the number
    /// of class scopes there were when it was evaluated (its place in the list).
    node_classes: Vec<(usize, SmolStr)>,
    /// Classes declared with the resource-like syntax (for duplicate messages).
    resource_like: crate::Set<SmolStr>,
    /// Defined-type instances whose body has run.
    evaluated_defines: crate::Set<ResourceKey>,
    /// Each resource type name declared so far (as `declare_resource` is given it): its
    /// name in references and whether it is a defined type. Looking these up in the
    /// environment (its locks and load-error table) every time was a large part of
    /// declaring a resource.
    declared_types: crate::Map<SmolStr, DeclaredType>,
    /// `$module_name` of the code of each file (by path) whose classes or defined types
    /// have run.
    module_names: crate::Map<String, Value>,
}

/// What [`Builder::declared_types`] knows of a type name.
#[derive(Clone)]
struct DeclaredType {
    /// [`crate::names::capitalize_smol`] of the name.
    reference: SmolStr,
    /// Whether it names a defined type (else a built-in or module Ruby type).
    define: bool,
}

/// The groups of a regex match (`$0`, `$1`, ...).
type MatchData = Vec<Option<String>>;

impl Compiler {
    /// Gives a new resource, after its own tags, those of the resource `container` (Puppet
    /// copies the declaring scope's resource's tags into each resource it declares); how
    /// many tags the container has.
    fn inherit_tags(&self, res: &mut Resource, container: &ResourceKey) -> usize {
        let Some(tags) = self.catalog.get(container).map(|c| &c.tags) else {
            return 0;
        };
        let start = res.tags.len();
        res.tags.reserve(tags.len());
        for t in tags {
            res.tags.insert(t.clone());
        }
        res.inherited_tags = (start, res.tags.len() - start);
        tags.len()
    }

    /// Evaluates the node definition matching the node name, if the code has any: an exact
    /// name first, then regexes in order, then `default`. Its body runs in a node scope
    /// (whose resource is `Node[name]`), which the classes it declares see.
    pub(crate) fn evaluate_node(&mut self) -> R<()> {
        let env = self.env.clone();
        if env.nodes().is_empty() {
            return Ok(());
        }
        let name = self.settings.node_name.to_ascii_lowercase();
        // Puppet 7's candidate names (strict_hostname_checking is on): the certname, then
        // `default`; for each, an exact node, then a regex node matching it (so a regex may
        // match the word "default" before `node default` is used).
        let names = [name.clone(), "default".to_string()];
        // (node index, resource name, regex captures)
        let mut found: Option<(usize, SmolStr, Option<MatchData>)> = None;
        'names: for candidate in &names {
            for (i, n) in env.nodes().iter().enumerate() {
                for m in &n.matches {
                    let exact = match m {
                        HostMatch::Name(x) => *x == candidate.as_str(),
                        HostMatch::Default => candidate == "default",
                        HostMatch::Regex(_) => false,
                    };
                    if exact {
                        found = Some((i, SmolStr::new(candidate), None));
                        break 'names;
                    }
                }
            }
            for (i, n) in env.nodes().iter().enumerate() {
                for m in &n.matches {
                    if let HostMatch::Regex(r) = m {
                        if let Some(caps) = r.captures(candidate) {
                            found = Some((i, node_regex_name(r.source()), Some(caps)));
                            break 'names;
                        }
                    }
                }
            }
        }
        let Some((index, node_name, captures)) = found else {
            return Err(Flow::Error(EvalError {
                code: crate::error::codes::NO_MATCHING_NODE,
                kind: ErrorKind::Complete,
                message: format!("Could not find node statement with name 'default' or '{name}'"),
                span: None,
            }));
        };
        let node = env.nodes()[index].clone();
        let key = ResourceKey {
            type_name: "Node".into(),
            title: node_name.clone(),
        };
        let main = ResourceKey::class("main");
        let mut res = Resource::new("Node", node_name.clone());
        res.kind = ResourceKind::Node;
        res.tags.insert("node".into());
        res.tag_title();
        res.container_tags = self.inherit_tags(&mut res, &main);
        res.container = Some(main);
        res.span = Some(node.span.clone());
        self.catalog.add(res);
        let at = self.build.class_scopes.len();
        self.build.node_classes.push((at, node_name.clone()));
        let top = self.top;
        let mut scope = Scope::new(ScopeKind::Node, Some(top), key.to_string());
        scope.resource = Some(key);
        scope.dyn_parent = Some(top);
        if let Some(caps) = captures {
            scope.matches.push(caps);
        }
        // As in any type's body, $title and $name are the node resource's title.
        for var in ["title", "name"] {
            scope
                .vars
                .insert(var.into(), Value::String(node_name.clone().into()));
        }
        let id = self.scopes.add(scope);
        self.build.node_scope = Some(id);
        self.eval_block(&node.body, id)?;
        Ok(())
    }

    /// Declares the classes an external node classifier gave, in the node scope (or top
    /// scope without a node definition): with parameters resource-like, else included.
    pub(crate) fn evaluate_enc_classes(&mut self) -> R<()> {
        let classes = self.settings.enc_classes.clone();
        if classes.is_empty() {
            return Ok(());
        }
        let scope = self.build.node_scope.unwrap_or(self.top);
        let span = Span {
            file: Arc::new(crate::ir::SourceFile::new(None, "")),
            start: 0,
            end: 0,
        };
        for (name, params) in classes {
            match params {
                Some(p) => {
                    self.declare_class(&name, Some(p), ClassDecl::ResourceLike, scope, &span)?
                }
                None => {
                    self.declare_classes(&[name.to_string()], ClassDecl::Include, scope, &span)?
                }
            }
        }
        Ok(())
    }
}

/// The leaves of nested arrays (titles and relationship values are flattened).
pub(crate) fn flatten(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.iter().flat_map(flatten).collect(),
        other => vec![other.clone()],
    }
}

impl Compiler {
    /// A class by lower-case name, as Puppet's autoloader finds it: an error in a file it
    /// reads on the way (a syntax error, a definition or statement not allowed there) fails
    /// the compile.
    pub(crate) fn find_class(&mut self, name: &str) -> R<Option<Arc<ClassDef>>> {
        self.check_load(puppet_loader::DefKind::Class, name)?;
        Ok(self.env.class(name))
    }

    /// A defined type by lower-case name, with the autoloader's errors as [`find_class`].
    ///
    /// [`find_class`]: Compiler::find_class
    pub(crate) fn find_define(&mut self, name: &str) -> R<Option<Arc<crate::lower::DefineDef>>> {
        self.check_load(puppet_loader::DefKind::Define, name)?;
        Ok(self.env.define(name))
    }
}

impl Compiler {
    /// What the autoloader's reading of the files for `name` does to the compile
    /// (`Environment::load_report`): its error fails it; its warnings are logged, each once
    /// per compile, as Puppet logs them when it parses a file. The `strict` setting governs a
    /// duplicate key as in the main manifest: nothing under `off`, the compile's error under
    /// `error`.
    pub(crate) fn check_load(&mut self, kind: puppet_loader::DefKind, name: &str) -> R<()> {
        match self.note_load(kind, name) {
            Some(d) => Err(load_error(&d)),
            None => Ok(()),
        }
    }

    /// [`check_load`](Self::check_load) for a lookup that cannot fail where it is made (a
    /// type alias): its error fails the compile at its end, in the order of the reads
    /// (`validation_failure`).
    pub(crate) fn note_load_later(&mut self, kind: puppet_loader::DefKind, name: &str) {
        if let Some(d) = self.note_load(kind, name) {
            self.build.reads.push(Read::Failed(d));
        }
    }

    /// [`check_load`](Self::check_load)'s work, once per name and compile: records the files
    /// read, logs their warnings, and answers the error.
    fn note_load(
        &mut self,
        kind: puppet_loader::DefKind,
        name: &str,
    ) -> Option<puppet_diagnostics::Diagnostic> {
        let key = (kind, SmolStr::new(name));
        if let Some(answer) = self.build.loads_noted.get(&key) {
            return answer.clone();
        }
        let answer = self.note_load_uncached(kind, name);
        self.build.loads_noted.insert(key, answer.clone());
        answer
    }

    fn note_load_uncached(
        &mut self,
        kind: puppet_loader::DefKind,
        name: &str,
    ) -> Option<puppet_diagnostics::Diagnostic> {
        let report = self.env.load_report(kind, name)?;
        for f in report.files.iter() {
            if self.build.read_paths.insert(f.path.clone()) {
                self.build.reads.push(Read::File(f.clone()));
            }
        }
        if let Some(d) = &report.error {
            return Some(d.clone());
        }
        let warnings = report.warnings;
        for d in warnings.iter() {
            let duplicate = d.code == "DUPLICATE_KEY";
            if duplicate && self.strict() == "off" {
                continue;
            }
            if !self
                .build
                .load_warned
                .insert((d.file.clone(), d.start().into()))
            {
                continue;
            }
            if duplicate && self.strict() == "error" {
                // Puppet's validator logs each as an error and gives up with their count.
                let in_file = |w: &&puppet_diagnostics::Diagnostic| {
                    w.code == "DUPLICATE_KEY" && w.file == d.file
                };
                let count = warnings.iter().filter(in_file).count();
                let mut e = validation_error(d, count);
                e.severity = puppet_diagnostics::Severity::Error;
                return Some(e);
            }
            self.warn(d.message.clone());
        }
        None
    }
}

/// A read of the autoloader, in order: a file read, or a load error left for the end.
pub(crate) enum Read {
    File(Arc<puppet_loader::LoadedFile>),
    Failed(puppet_diagnostics::Diagnostic),
}

impl Compiler {
    /// What Puppet's validator said of the module files this compile read, as Puppet's
    /// autoloader reports it when it parses each: the warnings are logged, and the first
    /// file with errors fails the compile (with its error, or for more than one, each
    /// logged and "Language validation logged N errors. Giving up" at the file). Puppet
    /// stops at that file; the compile went on, as the validation ran in the background,
    /// so this error replaces whatever came of it. Waits for the validations still running.
    pub(crate) fn validation_failure(&mut self) -> Option<EvalError> {
        for read in std::mem::take(&mut self.build.reads) {
            let file = match read {
                Read::File(f) => f,
                Read::Failed(d) => return Some(self.flow_to_error(load_error(&d))),
            };
            let validation = file.validation();
            for d in validation.iter().filter(|d| !d.is_error()) {
                if d.code != "DUPLICATE_KEY" {
                    self.warn(d.message.clone());
                }
            }
            let errors: Vec<&puppet_diagnostics::Diagnostic> =
                validation.iter().filter(|d| d.is_error()).collect();
            let Some(first) = errors.first() else {
                continue;
            };
            if errors.len() > 1 {
                for e in &errors {
                    self.log(puppet_functions::LogLevel::Err, e.message.clone(), None);
                }
            }
            let error = validation_error(first, errors.len());
            return Some(self.flow_to_error(load_error(&error)));
        }
        None
    }
}

/// The error Puppet's validator raises for a file with `count` errors, the first `first`:
/// that error, or for more than one, "Language validation logged N errors. Giving up" at
/// the file only (the errors themselves are logged).
pub(crate) fn validation_error(
    first: &puppet_diagnostics::Diagnostic,
    count: usize,
) -> puppet_diagnostics::Diagnostic {
    let mut e = first.clone();
    if count > 1 {
        e.message = format!("Language validation logged {count} errors. Giving up");
        e.location = None;
    }
    e
}

/// A parse or validation error of a file with its place, as Puppet writes it: the
/// message, then ` (file: F, line: L, column: C)`, only the file for an error at the end of
/// the input or one without a place.
pub(crate) fn with_file_place(d: &puppet_diagnostics::Diagnostic, file: &str) -> String {
    match d.location {
        Some(lc) if !d.message.ends_with("at end of input") => {
            format!(
                "{} (file: {file}, line: {}, column: {})",
                d.message, lc.line, lc.col
            )
        }
        _ => format!("{} (file: {file})", d.message),
    }
}

/// An error in a file the autoloader read, as Puppet reports it (see [`with_file_place`]).
fn load_error(d: &puppet_diagnostics::Diagnostic) -> Flow {
    let message = with_file_place(d, d.file.as_deref().unwrap_or(""));
    let code = match &d.code {
        std::borrow::Cow::Borrowed(c) => c,
        std::borrow::Cow::Owned(_) => crate::error::codes::PARSE_ERROR,
    };
    Flow::Error(EvalError {
        code,
        kind: ErrorKind::Complete,
        message,
        span: None,
    })
}

/// How many errors Puppet's validator logs for the main manifest file `text` whose first
/// error is `first`, when it has no syntax error (Puppet stops at the first syntax error,
/// but logs every validation error and, for more than one, gives up with their count).
pub(crate) fn validation_error_count(
    diagnostics: &[puppet_diagnostics::Diagnostic],
    first: &puppet_diagnostics::Diagnostic,
    text: &str,
) -> usize {
    if puppet_syntax::parse(text)
        .errors()
        .iter()
        .any(|d| d.is_error())
    {
        return 1;
    }
    diagnostics
        .iter()
        .filter(|d| {
            d.is_error()
                && d.file == first.file
                && d.code != "DUPLICATE_DEFINITION"
                && d.code != crate::env::REDEFINED_ENTITY
        })
        .count()
}

/// `(line: N)` or `(file: F, line: N)`, as Puppet appends a location to a message.
pub(crate) fn location(span: &Span) -> String {
    let line = span.line_col().0;
    match &span.file.path {
        Some(p) => format!("(file: {p}, line: {line})"),
        None => format!("(line: {line})"),
    }
}

/// Puppet's error for a tag that is not a tag name (`message`, from `Resource::tag_checked`),
/// raised where the resource takes it: a parse error with that place's file and line, not
/// an evaluation error.
pub(crate) fn invalid_tag<T>(message: String, span: &Span) -> R<T> {
    Err(crate::error::Flow::Error(crate::error::EvalError {
        code: crate::error::codes::INVALID_TAG,
        kind: crate::error::ErrorKind::Parse,
        message: format!("{message} {}", location(span)),
        span: Some(span.clone()),
    }))
}

/// Puppet's error for a resource (or class) declared a second time, at `span`: where the
/// first declaration is, when known.
fn duplicate_declaration<T>(key: &ResourceKey, first: Option<&Span>, span: &Span) -> R<T> {
    let at = first
        .map(|s| format!(" at {}", location(s)))
        .unwrap_or_default();
    crate::error::err_code(
        crate::error::codes::DUPLICATE_DECLARATION,
        format!(
            "Error while evaluating a Resource Statement, Duplicate declaration: {key} is already declared{at}; cannot redeclare {}",
            location(span)
        ),
        span,
    )
}

/// The name Puppet gives the resource of a node matched by a regex:
/// `__node_regexp__` and the regex with everything but word characters, `.`, `-` and `:`
/// removed.
pub(crate) fn node_regex_name(source: &str) -> SmolStr {
    let kept: String = source
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':'))
        .collect();
    SmolStr::new(format!("__node_regexp__{}", kept.trim_start_matches('.')))
}

/// The tags a `tag` attribute value gives: a string or an array of strings.
fn tag_values(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().flat_map(tag_values).collect(),
        Value::Undef => vec![],
        other => vec![other.to_plain_string()],
    }
}
