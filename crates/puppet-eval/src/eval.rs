//! The evaluator: expressions, scopes, calls and the catalog being built by one compile.
//!
//! A [`Compiler`] holds everything one compile owns (scopes, logs, the catalog under
//! construction) and evaluates the IR of an [`Environment`] that it shares with other
//! compiles. Errors carry Puppet's texts and the span of the expression that failed;
//! runtime failures inside an operator or a call are reported as Puppet does: "Error while
//! evaluating a '+' expression, `<detail>`" at that expression.

use crate::catalog::{Catalog, Resource, ResourceKey, ResourceKind};
use crate::env::Environment;
use crate::ir::*;
use crate::lower::FunctionDef;
use crate::ops;
use crate::scope::{Scope, ScopeId, ScopeKind, Scopes};
use indexmap::IndexMap;
use puppet_functions::{Block, BlockSignature, CallContext, CallError, LogLevel};
use puppet_types::types::ResourceType;
use puppet_types::{is_instance, Type, TypeAlias, Value};
use smol_str::SmolStr;
use std::any::Any;
use std::sync::Arc;

/// An evaluation error: a stable code, Puppet's message and where it happened.
///
/// It prints (`Display`) as Puppet prints it ([`puppet_message`](EvalError::puppet_message))
/// and converts into the workspace's [`Diagnostic`](puppet_diagnostics::Diagnostic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// A stable code ([`codes`]); Puppet's issue code where it has one.
    pub code: &'static str,
    pub message: String,
    pub span: Option<Span>,
    /// How Puppet reports it (see [`EvalError::puppet_message`]).
    pub kind: ErrorKind,
}

/// The codes of [`EvalError`]s.
pub mod codes {
    /// Any evaluation error without a more specific code.
    pub const EVAL_ERROR: &str = "EVAL_ERROR";
    /// `include`, `require`, `contain` or `class { }` of a class that does not exist.
    pub const UNKNOWN_CLASS: &str = "UNKNOWN_CLASS";
    /// A resource of a type that is neither built in, nor a module's, nor a defined type.
    pub const UNKNOWN_RESOURCE_TYPE: &str = "UNKNOWN_RESOURCE_TYPE";
    /// A call of a function that does not exist.
    pub const UNKNOWN_FUNCTION: &str = "UNKNOWN_FUNCTION";
    /// A resource declared twice (Puppet's "Duplicate declaration").
    pub const DUPLICATE_DECLARATION: &str = "DUPLICATE_DECLARATION";
    /// A relationship to a resource that is not in the catalog.
    pub const MISSING_RELATIONSHIP_TARGET: &str = "MISSING_RELATIONSHIP_TARGET";
    /// The evaluation took more steps than `Settings::max_steps` (code that would run for
    /// hours in Puppet too, such as an exponential recursion).
    pub const STEP_LIMIT: &str = "EVAL_STEP_LIMIT";
    /// No node definition matches the node.
    pub const NO_MATCHING_NODE: &str = "NO_MATCHING_NODE";
    /// A syntax or validation error of the main manifest (the parser's code is more precise
    /// where it has one).
    pub const PARSE_ERROR: &str = "PARSE_ERROR";
}

impl std::fmt::Display for EvalError {
    /// Puppet's text ([`EvalError::puppet_message`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.puppet_message())
    }
}

impl std::error::Error for EvalError {}

impl From<&EvalError> for puppet_diagnostics::Diagnostic {
    /// The error as a diagnostic: its code, Puppet's text as the message (without the
    /// `(file: F, line: L, column: C)` Puppet appends to an evaluation error: that is the
    /// diagnostic's file, range, line and column).
    fn from(e: &EvalError) -> Self {
        let message = match e.kind {
            ErrorKind::Evaluation => format!("Evaluation Error: {}", e.message),
            ErrorKind::Complete => e.message.clone(),
        };
        let d = puppet_diagnostics::Diagnostic::new(
            puppet_diagnostics::Severity::Error,
            e.code,
            message,
        );
        match &e.span {
            Some(s) => d
                .with_file_opt(s.file.path.as_deref())
                .with_range(s.range())
                .with_source(&s.file.text),
            None => d,
        }
    }
}

impl From<EvalError> for puppet_diagnostics::Diagnostic {
    fn from(e: EvalError) -> Self {
        (&e).into()
    }
}

/// Which of Puppet's error forms an [`EvalError`] has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ErrorKind {
    /// Raised while evaluating an expression: Puppet prints `Evaluation Error: MESSAGE`
    /// followed by the location.
    #[default]
    Evaluation,
    /// Raised by the compiler's own checks of the catalog (relationship targets, resource
    /// attributes) or made complete by a wrapper: Puppet prints the message as it is (any
    /// location Puppet gives is part of it). The span, when there is one, is this
    /// compiler's extra precision.
    Complete,
}

impl EvalError {
    /// The whole message as Puppet 7.23 prints it after `Error: ` (before ` on node NAME`).
    ///
    /// ```
    /// use puppet_eval::{compile, Environment, Settings};
    /// use std::sync::Arc;
    /// let env = Environment::from_main(None, "fail('boom')");
    /// let err = compile(Arc::new(env), &Settings::default()).catalog.unwrap_err();
    /// assert_eq!(
    ///     err.puppet_message(),
    ///     "Evaluation Error: Error while evaluating a Function Call, boom (line: 1, column: 1)"
    /// );
    /// ```
    pub fn puppet_message(&self) -> String {
        match self.kind {
            ErrorKind::Evaluation => format!("Evaluation Error: {}", self.located()),
            ErrorKind::Complete => self.message.clone(),
        }
    }

    /// The message with Puppet's location suffix: `(file: F, line: L, column: C)` or
    /// `(line: L, column: C)` for code without a file; an [`ErrorKind::Complete`] message
    /// as it is.
    pub fn located(&self) -> String {
        if self.kind == ErrorKind::Complete {
            return self.message.clone();
        }
        match &self.span {
            Some(s) => {
                let (line, col) = s.line_col();
                match &s.file.path {
                    Some(p) => format!("{} (file: {p}, line: {line}, column: {col})", self.message),
                    None => format!("{} (line: {line}, column: {col})", self.message),
                }
            }
            None => self.message.clone(),
        }
    }

    /// Line and column, when known.
    pub fn line_col(&self) -> Option<(u32, u32)> {
        self.span.as_ref().map(|s| s.line_col())
    }
}

/// Control flow through the evaluator: an error, or `next`/`break`/`return`.
#[derive(Debug, Clone)]
pub enum Flow {
    Error(EvalError),
    Next(Value),
    Break(Option<Span>),
    Return(Value, Option<Span>),
}

type R<T> = Result<T, Flow>;

fn err<T>(message: impl Into<String>, span: &Span) -> R<T> {
    Err(Flow::Error(EvalError {
        code: crate::eval::codes::EVAL_ERROR,
        kind: Default::default(),
        message: message.into(),
        span: Some(span.clone()),
    }))
}

/// A log line produced by the compile (`notice`, warnings, deprecations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub level: LogLevel,
    pub message: String,
    /// `Scope(Class[main])` for function logs, `None` for the compiler's own warnings.
    pub scope: Option<String>,
}

impl LogEntry {
    /// The line as the conformance corpus renders it: `notice: Scope(Class[main]): hi`.
    pub fn render(&self) -> String {
        match &self.scope {
            Some(s) => format!("{}: Scope({s}): {}", self.level.name(), self.message),
            None => format!("{}: {}", self.level.name(), self.message),
        }
    }
}

/// Settings that change evaluation.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `strict_variables`: unknown variables are errors.
    pub strict_variables: bool,
    /// The node name (certname).
    pub node_name: String,
    /// `$facts`.
    pub facts: IndexMap<SmolStr, Value>,
    /// The environment name.
    pub environment: String,
    /// `$trusted`; `None` gives `puppet apply`'s local, unauthenticated default.
    pub trusted: Option<Value>,
    /// `$server_facts` (each also a top-scope variable, as `$servername`), empty for
    /// `puppet apply`.
    pub server_facts: IndexMap<SmolStr, Value>,
    /// An external node classifier's answer: classes to declare after the node definition
    /// (with parameters: declared resource-like; without: included) and parameters that
    /// become top-scope variables. See [`Settings::with_enc`].
    pub enc_classes: IndexMap<SmolStr, Option<IndexMap<SmolStr, Value>>>,
    pub enc_parameters: IndexMap<SmolStr, Value>,
    /// The most expressions a compile may evaluate before it stops with an error
    /// (`EVAL_STEP_LIMIT`), so that no input hangs. The default, 200 million, is about
    /// ten thousand times what the largest public node needs (kitchensink: 23,504).
    pub max_steps: u64,
    /// Whether the modules' Ruby functions run as their native implementations
    /// (puppet-stdlib) where one exists (the default), or always as the module's own Ruby
    /// (puppet-ruby): `compile --no-native-functions`, to check one against the other.
    pub native_functions: bool,
    /// `generate()` runs its command on this host, as Puppet does (off by default: the
    /// call is refused with an error). See the `host` module.
    pub allow_exec: bool,
    /// `file()`, `loadyaml()`, `loadjson()` (and the other functions that read files by
    /// absolute path) read files of this host outside the module path and environment
    /// (off by default: such a file is not found, or refused with an error).
    pub allow_host_files: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strict_variables: false,
            node_name: "testnode".into(),
            facts: IndexMap::new(),
            environment: "production".into(),
            trusted: None,
            server_facts: IndexMap::new(),
            enc_classes: IndexMap::new(),
            enc_parameters: IndexMap::new(),
            max_steps: DEFAULT_MAX_STEPS,
            native_functions: true,
            allow_exec: false,
            allow_host_files: false,
        }
    }
}

/// [`Settings::max_steps`]' default (smaller in fuzzing builds, which run much slower).
const DEFAULT_MAX_STEPS: u64 = if cfg!(fuzzing) {
    2_000_000
} else {
    200_000_000
};

impl Settings {
    /// The node's environment: `$environment`, `$server_facts['environment']`,
    /// `$settings::environment` and the catalog's `environment`.
    ///
    /// ```
    /// let s = puppet_eval::Settings::agent("a", Default::default()).with_environment("staging");
    /// assert_eq!(s.environment, "staging");
    /// assert_eq!(s.server_facts["environment"].to_string(), "'staging'");
    /// ```
    pub fn with_environment(mut self, name: &str) -> Settings {
        self.environment = name.to_string();
        if let Some(v) = self.server_facts.get_mut("environment") {
            *v = Value::string(name);
        }
        self
    }

    /// Adds an external node classifier's answer, as Puppet reads an ENC's YAML: `classes`
    /// (an array of names, or a hash of name => parameters or null) and `parameters` (a
    /// hash of top-scope variables). Other keys (`environment`) are ignored.
    ///
    /// ```
    /// use puppet_eval::Settings;
    /// use puppet_types::Value;
    /// let enc = Value::hash([
    ///     (Value::string("classes"), Value::array(vec![Value::string("ntp")])),
    ///     (Value::string("parameters"), Value::hash([(Value::string("role"), Value::string("web"))])),
    /// ]);
    /// let s = Settings::default().with_enc(&enc).unwrap();
    /// assert!(s.enc_classes.contains_key("ntp"));
    /// assert_eq!(s.enc_parameters["role"].to_string(), "'web'");
    /// ```
    pub fn with_enc(mut self, enc: &Value) -> Result<Settings, String> {
        let Value::Hash(h) = enc else {
            return Err("the classifier's answer must be a hash".into());
        };
        match h.get(&Value::string("classes")) {
            None | Some(Value::Undef) => {}
            Some(Value::Array(a)) => {
                for c in a.iter() {
                    self.enc_classes
                        .insert(SmolStr::new(c.to_plain_string()), None);
                }
            }
            Some(Value::Hash(classes)) => {
                for (name, params) in classes.iter() {
                    let params = match params {
                        Value::Hash(p) => Some(
                            p.iter()
                                .map(|(k, v)| (SmolStr::new(k.to_plain_string()), v.clone()))
                                .collect(),
                        ),
                        Value::Undef => None,
                        other => {
                            return Err(format!("class parameters must be a hash, got {other}"))
                        }
                    };
                    self.enc_classes
                        .insert(SmolStr::new(name.to_plain_string()), params);
                }
            }
            Some(other) => return Err(format!("classes must be an array or a hash, got {other}")),
        }
        match h.get(&Value::string("parameters")) {
            None | Some(Value::Undef) => {}
            Some(Value::Hash(p)) => {
                for (k, v) in p.iter() {
                    self.enc_parameters
                        .insert(SmolStr::new(k.to_plain_string()), v.clone());
                }
            }
            Some(other) => return Err(format!("parameters must be a hash, got {other}")),
        }
        Ok(self)
    }

    /// Settings for compiling an agent's catalog on a server: the node's facts plus the
    /// ones an agent adds (`clientcert`, `clientversion`, `clientnoop`), authenticated
    /// `$trusted` data for the certname, and fixed `$server_facts` (those the oracle's
    /// `compile-catalog` uses, so catalogs are comparable). The environment is
    /// `production`: [`Environment::agent`](crate::Environment::agent) gives the
    /// environment's own name, [`with_environment`](Settings::with_environment) any other.
    ///
    /// ```
    /// use puppet_eval::Settings;
    /// let s = Settings::agent("web01.example.com", Default::default());
    /// assert_eq!(s.facts["clientcert"].to_string(), "'web01.example.com'");
    /// ```
    pub fn agent(certname: &str, facts: IndexMap<SmolStr, Value>) -> Settings {
        let mut facts = facts;
        facts
            .entry("clientcert".into())
            .or_insert_with(|| Value::string(certname));
        facts
            .entry("clientversion".into())
            .or_insert_with(|| Value::string("7.23.0"));
        facts
            .entry("clientnoop".into())
            .or_insert(Value::Boolean(false));
        let (host, domain) = certname.split_once('.').unwrap_or((certname, ""));
        let trusted = Value::hash([
            (Value::string("authenticated"), Value::string("remote")),
            (Value::string("certname"), Value::string(certname)),
            (Value::string("extensions"), Value::hash([])),
            (Value::string("hostname"), Value::string(host)),
            (Value::string("domain"), Value::string(domain)),
            (Value::string("external"), Value::hash([])),
        ]);
        let server_facts = [
            ("serverversion", "7.23.0"),
            ("servername", "puppet.example.com"),
            ("serverip", "192.0.2.1"),
            ("environment", "production"),
        ]
        .into_iter()
        .map(|(k, v)| (SmolStr::new(k), Value::string(v)))
        .collect();
        Settings {
            node_name: certname.to_string(),
            facts,
            trusted: Some(trusted),
            server_facts,
            ..Settings::default()
        }
    }
}

const MAX_DEPTH: u32 = 400;

/// A lambda handed to a function: the lambda and the scope it closes over.
#[derive(Debug)]
struct EvalLambda {
    def: Arc<LambdaDef>,
    scope: ScopeId,
    sig: BlockSignature,
}

impl Block for EvalLambda {
    fn signature(&self) -> BlockSignature {
        self.sig.clone()
    }
    fn call(&self, _ctx: &mut dyn CallContext, _args: Vec<Value>) -> Result<Value, CallError> {
        // The compiler recognises its lambdas through `as_any` and evaluates them itself.
        Err(CallError::new(
            "EVAL_LAMBDA",
            "a lambda can only be called by its compiler",
        ))
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

/// One compile: scopes, logs and the catalog under construction.
pub struct Compiler {
    pub(crate) env: Arc<Environment>,
    pub(crate) settings: Settings,
    pub(crate) scopes: Scopes,
    pub(crate) top: ScopeId,
    /// The scope of every evaluated class, by class name.
    pub(crate) class_scopes: crate::Map<SmolStr, ScopeId>,
    /// Classes whose evaluation has started (Puppet's `evaluated?`, set before the parent
    /// class and the body run, so that a parent that `contain`s its child does not
    /// evaluate the child a second time).
    pub(crate) started_classes: rustc_hash::FxHashSet<SmolStr>,
    pub(crate) logs: Vec<LogEntry>,
    pub(crate) catalog: Catalog,
    aliases: crate::Map<SmolStr, TypeAlias>,
    depth: u32,
    /// Expressions evaluated so far (see [`Settings::max_steps`]).
    steps: u64,
    /// The scope calls from functions see (`CallContext::variable`).
    pub(crate) current: ScopeId,
    /// The span of the call being made to the registry (for its errors).
    pub(crate) call_span: Option<Span>,
    /// An evaluator error raised inside a lambda called by a registry function, kept so
    /// it surfaces with its own message and location.
    pub(crate) pending_error: Option<EvalError>,
    /// Set when resolving a type name found an alias that only refers to aliases.
    unresolvable_alias: Option<SmolStr>,
    /// Set when an Object type alias failed its validation.
    invalid_alias: Option<String>,
    /// The node scope, once the node definition is being evaluated.
    pub(crate) node_scope: Option<ScopeId>,
    /// The matched node's name, listed among the classes as Puppet does.
    pub(crate) node_classes: Vec<SmolStr>,
    /// Classes declared with the resource-like syntax (for duplicate messages).
    pub(crate) resource_like: crate::Set<SmolStr>,
    /// Defined-type instances whose body has run.
    pub(crate) evaluated_defines: crate::Set<ResourceKey>,
    /// The output of every ERB template rendered (see `Compiled::template_outputs`).
    pub(crate) template_outputs: Vec<String>,
    /// Set while a Ruby function declares a resource with a non-String title.
    pub(crate) untagged_title: bool,
    /// How the calls being evaluated are named in errors, innermost last.
    call_labels: Vec<&'static str>,
    /// Evaluating a type string as Puppet's type parser does: an unknown name with
    /// parameters is a `TypeReference` of the whole text rather than an error.
    pub(crate) type_parser_mode: bool,
    /// The Pcore annotations attached to values during this compile (`annotate`).
    annotations: puppet_functions::Annotations,
    /// Values of constant type expressions evaluated in this compile, by (file, start, end,
    /// expression): the address tells apart expressions lowered with one span (in an
    /// interpolated heredoc), and the entry keeps its file alive so that no other file's
    /// expressions can take the key.
    const_types: rustc_hash::FxHashMap<ConstKey, (Arc<crate::ir::SourceFile>, Value)>,
    /// Every type name resolved so far and what it denotes (see `resolve_type`).
    resolved_types: rustc_hash::FxHashMap<SmolStr, Type>,
    /// Parameters whose default expression is being evaluated, innermost last.
    param_guards: Vec<ParamGuard>,
    /// An error of a function parameter's type expression: reported as it is, where the
    /// type is written, not wrapped as an error of the call.
    param_type_error: Option<EvalError>,
    /// The keys of the deprecations logged once (`CallContext::deprecation_at_call`).
    warned_once: indexmap::IndexSet<String>,
    /// Puppet's call stack (`CallContext::puppet_stack`), outermost first.
    puppet_stack: Vec<(String, u32)>,
    /// Set when the EPP template being rendered output a Sensitive value.
    pub(crate) render_sensitive: bool,
}

/// A default expression being evaluated: the parameters it may not read yet (itself and the
/// ones after it), as Puppet's parameter scope forbids.
pub(crate) struct ParamGuard {
    /// The scope of the parameters.
    pub scope: ScopeId,
    /// The text before the message (`Error while evaluating a Function Call, ` for a lambda;
    /// a function's errors are wrapped by its caller) and the owner (`f`, `lambda`).
    pub prefix: Arc<str>,
    pub param: SmolStr,
    pub pending: PendingParams,
    /// Parameters before `param` that have no value (a class or define instance missing
    /// required ones): reading one is Puppet's "expects a value for parameter $x".
    pub missing: Vec<SmolStr>,
    pub span: Span,
}

/// The parameters a default expression may not read yet: `names[from..]`, shared by the
/// guards of one parameter list (so that binding n parameters costs n, not n²).
#[derive(Debug, Clone)]
pub(crate) struct PendingParams {
    names: Arc<[SmolStr]>,
    from: usize,
}

impl PendingParams {
    /// `names[from..]`.
    pub(crate) fn new(names: Arc<[SmolStr]>, from: usize) -> PendingParams {
        PendingParams { names, from }
    }

    fn contains(&self, name: &str) -> bool {
        self.names
            .get(self.from..)
            .is_some_and(|rest| rest.iter().any(|p| p == name))
    }
}

impl std::fmt::Debug for Compiler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field("logs", &self.logs.len())
            .finish()
    }
}

impl Compiler {
    pub fn new(env: Arc<Environment>, settings: Settings) -> Compiler {
        let mut scopes = Scopes::default();
        let mut top_scope = Scope::new(ScopeKind::Top, None, "Class[main]".into());
        top_scope.resource = Some(ResourceKey::new("Class", "main"));
        let facts = Value::Hash(Arc::new(
            settings
                .facts
                .iter()
                .map(|(k, v)| (Value::String(k.clone()), v.clone()))
                .collect(),
        ));
        top_scope.vars.insert("facts".into(), facts);
        // `puppet apply` without a certificate: local, unauthenticated trusted data.
        let trusted = settings.trusted.clone().unwrap_or_else(|| {
            Value::hash([
                (Value::string("authenticated"), Value::string("local")),
                (Value::string("certname"), Value::Undef),
                (Value::string("extensions"), Value::hash([])),
                (Value::string("hostname"), Value::Undef),
                (Value::string("domain"), Value::Undef),
                (Value::string("external"), Value::hash([])),
            ])
        });
        top_scope.vars.insert("trusted".into(), trusted);
        top_scope.vars.insert("title".into(), Value::string("main"));
        top_scope.vars.insert("name".into(), Value::string("main"));
        top_scope
            .vars
            .insert("module_name".into(), Value::string(""));
        top_scope.vars.insert(
            "server_facts".into(),
            Value::hash(
                settings
                    .server_facts
                    .iter()
                    .map(|(k, v)| (Value::String(k.clone()), v.clone())),
            ),
        );
        for (k, v) in &settings.server_facts {
            top_scope.vars.entry(k.clone()).or_insert_with(|| v.clone());
        }
        // An ENC's parameters are top-scope variables (they win over facts, as Puppet's
        // node parameters do).
        for (k, v) in &settings.enc_parameters {
            top_scope.vars.insert(k.clone(), v.clone());
        }
        top_scope
            .vars
            .insert("environment".into(), Value::string(&settings.environment));
        for (k, v) in &settings.facts {
            top_scope.vars.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let top = scopes.add(top_scope);
        // The resources every catalog has: Stage[main], Class[Settings], Class[main].
        let mut catalog = Catalog::default();
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
        let mut c = Compiler {
            env,
            settings,
            scopes,
            top,
            class_scopes: Default::default(),
            started_classes: Default::default(),
            logs: Vec::new(),
            catalog,
            aliases: Default::default(),
            depth: 0,
            steps: 0,
            current: top,
            call_span: None,
            pending_error: None,
            unresolvable_alias: None,
            type_parser_mode: false,
            annotations: puppet_functions::Annotations::new(),
            const_types: Default::default(),
            resolved_types: Default::default(),
            param_guards: Vec::new(),
            param_type_error: None,
            warned_once: indexmap::IndexSet::new(),
            puppet_stack: Vec::new(),
            render_sensitive: false,
            call_labels: Vec::new(),
            node_scope: None,
            node_classes: Vec::new(),
            resource_like: Default::default(),
            evaluated_defines: Default::default(),
            template_outputs: Vec::new(),
            untagged_title: false,
            invalid_alias: None,
        };
        c.class_scopes.insert("main".into(), top);
        c.class_scopes.insert("".into(), top);
        // `$settings::x`: the settings Puppet exposes to manifests.
        let mut settings_scope = Scope::new(
            ScopeKind::Class("settings".into()),
            Some(top),
            "Class[Settings]".into(),
        );
        settings_scope.vars.insert(
            "strict_variables".into(),
            Value::Boolean(c.settings.strict_variables),
        );
        settings_scope
            .vars
            .insert("environment".into(), Value::string(&c.settings.environment));
        settings_scope
            .vars
            .insert("certname".into(), Value::string(&c.settings.node_name));
        settings_scope
            .vars
            .insert("strict".into(), Value::string("warning"));
        settings_scope
            .vars
            .insert("storeconfigs".into(), Value::Boolean(false));
        settings_scope.vars.insert(
            "all_local".into(),
            Value::hash([
                (Value::string("strict"), Value::string("warning")),
                (
                    Value::string("strict_variables"),
                    Value::Boolean(c.settings.strict_variables),
                ),
                (
                    Value::string("environment"),
                    Value::string(&c.settings.environment),
                ),
            ]),
        );
        let sid = c.scopes.add(settings_scope);
        c.class_scopes.insert("settings".into(), sid);
        c
    }

    /// `$module_name` for code at `span`: the module whose directory holds its file, `''`
    /// for the main manifest and code without a file.
    pub(crate) fn module_of(&self, span: &Span) -> Value {
        let Some(path) = &span.file.path else {
            return Value::string("");
        };
        Value::string(self.env.module_of_path(path).unwrap_or(""))
    }

    /// The resource types this compile knows (its environment's).
    pub(crate) fn types(&self) -> Arc<puppet_restypes::TypeDatabase> {
        self.env.types()
    }

    /// Evaluates the main manifests; returns the value of the last top-level statement.
    pub fn evaluate_main(&mut self) -> Result<Value, EvalError> {
        let env = self.env.clone();
        let mut last = Value::Undef;
        for file in env.main_files() {
            // Puppet's stack frame of a program (its file, line 0).
            let name = file.file.path.clone().unwrap_or_else(|| "unknown".into());
            self.puppet_stack.push((name, 0));
            let r = self.eval_block(&file.statements, self.top);
            self.puppet_stack.pop();
            match r {
                Ok(v) => last = v,
                Err(f) => return Err(self.flow_to_error(f)),
            }
        }
        if let Err(f) = self.evaluate_node() {
            return Err(self.flow_to_error(f));
        }
        if let Err(f) = self.evaluate_enc_classes() {
            return Err(self.flow_to_error(f));
        }
        if let Err(f) = self.finish() {
            return Err(self.flow_to_error(f));
        }
        Ok(last)
    }

    fn flow_to_error(&self, f: Flow) -> EvalError {
        match f {
            Flow::Error(e) => e,
            Flow::Break(span) => EvalError {
                code: crate::eval::codes::EVAL_ERROR,
                kind: Default::default(),
                message: "break() from context where this is illegal".into(),
                span,
            },
            Flow::Next(_) => EvalError {
                code: crate::eval::codes::EVAL_ERROR,
                kind: Default::default(),
                message: "next() from context where this is illegal".into(),
                span: None,
            },
            Flow::Return(_, span) => EvalError {
                code: crate::eval::codes::EVAL_ERROR,
                kind: Default::default(),
                message: "return() from context where this is illegal".into(),
                span,
            },
        }
    }

    pub(crate) fn log(&mut self, level: LogLevel, message: String, scope: Option<String>) {
        self.logs.push(LogEntry {
            level,
            message,
            scope,
        });
    }

    pub(crate) fn warn(&mut self, message: String) {
        self.log(LogLevel::Warning, message, None);
    }

    // ---- blocks and expressions ----

    pub(crate) fn eval_block(&mut self, stmts: &[Expr], scope: ScopeId) -> R<Value> {
        let mut last = Value::Undef;
        for s in stmts {
            last = self.eval(s, scope)?;
        }
        Ok(last)
    }

    pub fn eval(&mut self, e: &Expr, scope: ScopeId) -> Result<Value, Flow> {
        self.steps += 1;
        if self.steps > self.settings.max_steps {
            return Err(Flow::Error(EvalError {
                code: codes::STEP_LIMIT,
                kind: ErrorKind::Evaluation,
                message: format!(
                    "Evaluation stopped after {} steps: the code does not finish (Settings::max_steps)",
                    self.settings.max_steps
                ),
                span: Some(e.span.clone()),
            }));
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return err(
                "Stack level too deep: expression nesting exceeded the evaluator's limit",
                &e.span,
            );
        }
        // Deep (but bounded) Puppet code may need more stack than the caller's thread has:
        // grow it in segments instead of overflowing.
        let r = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.eval_inner(e, scope));
        self.depth -= 1;
        r
    }

    fn eval_inner(&mut self, e: &Expr, scope: ScopeId) -> R<Value> {
        match &e.kind {
            ExprKind::Literal(v) => Ok(v.clone()),
            ExprKind::Name(n) => Ok(Value::String(n.clone())),
            ExprKind::TypeName(n) => {
                let t = self.resolve_type(n);
                if let Some(msg) = self.invalid_alias.take() {
                    return err(
                        format!("Error while evaluating a Type-Name, {msg}"),
                        &e.span,
                    );
                }
                if let Some(bad) = self.unresolvable_alias.take() {
                    return err(
                        format!("Error while evaluating a Type-Name, Type alias '{bad}' cannot be resolved to a real type"),
                        &e.span,
                    );
                }
                if let Type::TypeReference(name) = &t {
                    if !self.type_parser_mode {
                        return err(format!("Resource type not found: {name}"), &e.span);
                    }
                }
                Ok(Value::Type(t))
            }
            ExprKind::Concat(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        StrPart::Text(t) => out.push_str(t),
                        StrPart::Expr(x) => {
                            let v = self.eval(x, scope)?;
                            out.push_str(&interpolate(&v));
                        }
                    }
                }
                Ok(Value::string(out))
            }
            ExprKind::Var(name) => self.read_var(name, scope, &e.span),
            ExprKind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    if let ExprKind::Unfold(inner) = &it.kind {
                        let v = self.eval(inner, scope)?;
                        out.extend(unfold_value(v));
                    } else {
                        out.push(self.eval(it, scope)?);
                    }
                }
                Ok(Value::array(out))
            }
            ExprKind::Hash(entries) => {
                let mut map = puppet_types::value::ValueMap::new();
                for (k, v) in entries {
                    let kv = self.eval(k, scope)?;
                    let vv = self.eval(v, scope)?;
                    map.insert(kv, vv);
                }
                Ok(Value::Hash(Arc::new(map)))
            }
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, scope, &e.span),
            ExprKind::And(l, r) => {
                let a = self.eval(l, scope)?;
                if !ops::truthy(&a) {
                    return Ok(Value::Boolean(false));
                }
                let b = self.eval(r, scope)?;
                Ok(Value::Boolean(ops::truthy(&b)))
            }
            ExprKind::Or(l, r) => {
                let a = self.eval(l, scope)?;
                if ops::truthy(&a) {
                    return Ok(Value::Boolean(true));
                }
                let b = self.eval(r, scope)?;
                Ok(Value::Boolean(ops::truthy(&b)))
            }
            ExprKind::Not(x) => {
                let v = self.eval(x, scope)?;
                Ok(Value::Boolean(!ops::truthy(&v)))
            }
            ExprKind::Neg(x) => {
                let v = self.eval(x, scope)?;
                match v {
                    Value::Integer(i) => match i.checked_neg() {
                        Some(n) => Ok(Value::Integer(n)),
                        None => err("Error while evaluating a Unary Minus, integer overflow", &e.span),
                    },
                    Value::Float(f) => Ok(Value::Float(-f)),
                    Value::Timespan(t) => Ok(Value::Timespan(puppet_types::Timespan::from_secs_f64(-t.as_secs_f64()))),
                    Value::String(s) => match ops::parse_numeric_string(&s) {
                        Some(n @ (Value::Integer(_) | Value::Float(_))) => {
                            self.warn(format!(
                                "The string '{s}' was automatically coerced to the numerical value {}",
                                n.to_plain_string()
                            ));
                            Ok(match n {
                                Value::Integer(i) => Value::Integer(-i),
                                Value::Float(f) => Value::Float(-f),
                                other => other,
                            })
                        },
                        _ => err(
                            format!("Error while evaluating a Unary Minus, The value '{s}' cannot be converted to Numeric."),
                            &e.span,
                        ),
                    },
                    other => err(
                        format!(
                            "Error while evaluating a Unary Minus, The value '{}' cannot be converted to Numeric.",
                            other.to_plain_string()
                        ),
                        &e.span,
                    ),
                }
            }
            ExprKind::Unfold(x) => {
                let v = self.eval(x, scope)?;
                Ok(Value::array(unfold_value(v)))
            }
            ExprKind::Assign(lhs, rhs) => {
                let v = self.eval(rhs, scope)?;
                // Puppet reports a failed assignment at its `=`.
                self.assign(lhs, v.clone(), scope, &e.span)?;
                Ok(v)
            }
            ExprKind::Access(target, keys) => {
                // A type or resource reference written with constants only (`Array[String]`,
                // `File['/etc/motd']`) has the same value every time: evaluated once.
                if !self.type_parser_mode
                    && matches!(target.kind, ExprKind::TypeName(_))
                    && is_constant_type_expr(e, 0)
                {
                    let key = (
                        Arc::as_ptr(&e.span.file) as usize,
                        e.span.start,
                        e.span.end,
                        e as *const Expr as usize,
                    );
                    if let Some((_, v)) = self.const_types.get(&key) {
                        return Ok(v.clone());
                    }
                    let v = self.eval_access(e, target, keys, scope)?;
                    self.const_types
                        .insert(key, (e.span.file.clone(), v.clone()));
                    return Ok(v);
                }
                self.eval_access(e, target, keys, scope)
            }
            ExprKind::Selector(target, entries) => {
                self.scopes.get_mut(scope).matches.push(Vec::new());
                let r = self.selector(e, target, entries, scope);
                self.scopes.get_mut(scope).matches.pop();
                r
            }
            ExprKind::If { .. } | ExprKind::Unless { .. } | ExprKind::Case { .. } => {
                // Match variables set by the condition live until the construct ends.
                self.scopes.get_mut(scope).matches.push(Vec::new());
                let r = self.conditional(e, scope);
                self.scopes.get_mut(scope).matches.pop();
                r
            }
            ExprKind::Call {
                name, args, lambda, ..
            } => {
                let argv = self.eval_args(args, scope)?;
                self.call_named(name, argv, lambda.as_ref(), scope, &e.span)
            }
            ExprKind::CallType {
                target,
                args,
                lambda,
            } => {
                let t = self.eval(target, scope)?;
                if args.is_empty() && lambda.is_none() {
                    if let Value::Type(Type::Timestamp(_)) = &t {
                        return Ok(Value::Timestamp(puppet_types::Timestamp::from_secs_f64(
                            now_secs(),
                        )));
                    }
                }
                let mut argv = vec![t];
                argv.extend(self.eval_args(args, scope)?);
                self.call_named("new", argv, lambda.as_ref(), scope, &e.span)
            }
            ExprKind::MethodCall {
                receiver,
                name,
                args,
                lambda,
            } => {
                let r = self.eval(receiver, scope)?;
                let rest = self.eval_args(args, scope)?;
                // A URI's parts are attributes (`$uri.host`).
                if let (Value::Uri(u), true) = (&r, rest.is_empty() && lambda.is_none()) {
                    if let Some(v) = u.to_parameter_map().get(name.as_str()) {
                        return Ok(v.clone());
                    }
                    if matches!(
                        name.as_str(),
                        "scheme"
                            | "userinfo"
                            | "host"
                            | "port"
                            | "path"
                            | "query"
                            | "fragment"
                            | "opaque"
                    ) {
                        return Ok(Value::Undef);
                    }
                }
                // An object's attributes and member functions come first.
                if let Value::Object(o) = &r {
                    if lambda.is_none() {
                        if let Some(res) = o.call(name, &rest) {
                            return match res {
                                Ok(v) => Ok(v),
                                Err(x) => err(
                                    format!("Error while evaluating a Method call, {x}"),
                                    &e.span,
                                ),
                            };
                        }
                    }
                }
                let mut argv = vec![r];
                argv.extend(rest);
                self.call_labeled("Method call", name, argv, lambda.as_ref(), scope, &e.span)
            }
            ExprKind::Block(stmts) => self.eval_block(stmts, scope),
            ExprKind::Resource {
                form,
                type_expr,
                bodies,
            } => self.resource_expr(*form, type_expr, bodies, scope, &e.span),
            ExprKind::ResourceDefaults { type_expr, ops } => {
                self.defaults_expr(type_expr, ops, scope)
            }
            ExprKind::ResourceOverride { target, ops } => {
                self.override_expr(target, ops, scope, &e.span)
            }
            ExprKind::Collect {
                type_name,
                exported,
                query,
                ops,
            } => {
                self.collect_expr(type_name, *exported, query, ops, scope, &e.span)?;
                Ok(Value::Undef)
            }
            ExprKind::Relationship(op, l, r) => {
                Ok(self.relationship_expr(*op, l, r, scope, &e.span)?.1)
            }
            ExprKind::RenderText(t) => {
                self.catalog.render_buffer.push_str(t);
                Ok(Value::Undef)
            }
            ExprKind::Render(x) => {
                let v = self.eval(x, scope)?;
                // A Sensitive value renders unwrapped and makes the whole result Sensitive.
                let v = match v {
                    Value::Sensitive(inner) => {
                        self.render_sensitive = true;
                        (*inner).clone()
                    }
                    other => other,
                };
                self.catalog.render_buffer.push_str(&interpolate(&v));
                Ok(Value::Undef)
            }
            ExprKind::Definition => Ok(Value::Undef),
            ExprKind::Invalid(msg) => err(msg.clone(), &e.span),
        }
    }

    /// `target[keys]` (see `access`).
    fn eval_access(&mut self, e: &Expr, target: &Expr, keys: &[Expr], scope: ScopeId) -> R<Value> {
        let t = self.eval(target, scope)?;
        if self.type_parser_mode {
            if let Value::Type(Type::TypeReference(_)) = &t {
                let text = &e.span.file.text[e.span.start as usize..e.span.end as usize];
                return Ok(Value::Type(Type::TypeReference(SmolStr::new(text))));
            }
        }
        // In `Class[...]`, an unknown capitalized name is a type reference (which
        // Puppet then refuses as a class name), not an unknown resource type.
        let class_keys = matches!(t, Value::Type(Type::Class(None)));
        let mut ks = Vec::with_capacity(keys.len());
        for k in keys {
            if let ExprKind::Unfold(inner) = &k.kind {
                ks.extend(unfold_value(self.eval(inner, scope)?))
            } else if class_keys && matches!(k.kind, ExprKind::TypeName(_)) {
                let saved = std::mem::replace(&mut self.type_parser_mode, true);
                let v = self.eval(k, scope);
                self.type_parser_mode = saved;
                ks.push(v?);
            } else {
                ks.push(self.eval(k, scope)?);
            }
        }
        let key_spans: Vec<Span> = keys.iter().map(|k| k.span.clone()).collect();
        self.access(t, ks, &e.span, &key_spans)
    }

    fn selector(
        &mut self,
        e: &Expr,
        target: &Expr,
        entries: &[(Expr, Expr)],
        scope: ScopeId,
    ) -> R<Value> {
        let v = self.eval(target, scope)?;
        let mut default = None;
        for (m, val) in entries {
            for mv in self.option_values(m, scope)? {
                if matches!(mv, Value::Default) {
                    default = Some(val);
                    continue;
                }
                if self.case_match(&v, &mv, scope, &m.span)? {
                    return self.eval(val, scope);
                }
            }
        }
        match default {
            Some(val) => self.eval(val, scope),
            None => err(
                format!(
                    "No matching entry for selector parameter with value '{}'",
                    v.to_plain_string()
                ),
                &e.span,
            ),
        }
    }

    /// The values of a case or selector option; a splatted option (`*[a, b]`) gives several.
    fn option_values(&mut self, m: &Expr, scope: ScopeId) -> R<Vec<Value>> {
        if let ExprKind::Unfold(inner) = &m.kind {
            return Ok(unfold_value(self.eval(inner, scope)?));
        }
        Ok(vec![self.eval(m, scope)?])
    }

    fn conditional(&mut self, e: &Expr, scope: ScopeId) -> R<Value> {
        match &e.kind {
            ExprKind::If { cond, then, els } => {
                let c = self.eval(cond, scope)?;
                if ops::truthy(&c) {
                    self.eval_block(then, scope)
                } else if let Some(els) = els {
                    self.eval_block(els, scope)
                } else {
                    Ok(Value::Undef)
                }
            }
            ExprKind::Unless { cond, then, els } => {
                let c = self.eval(cond, scope)?;
                if !ops::truthy(&c) {
                    self.eval_block(then, scope)
                } else if let Some(els) = els {
                    self.eval_block(els, scope)
                } else {
                    Ok(Value::Undef)
                }
            }
            ExprKind::Case { test, options } => {
                let v = self.eval(test, scope)?;
                let mut default = None;
                for (values, body) in options {
                    for m in values {
                        for mv in self.option_values(m, scope)? {
                            if matches!(mv, Value::Default) {
                                default = Some(body);
                                continue;
                            }
                            if self.case_match(&v, &mv, scope, &m.span)? {
                                return self.eval_block(body, scope);
                            }
                        }
                    }
                }
                match default {
                    Some(body) => self.eval_block(body, scope),
                    None => Ok(Value::Undef),
                }
            }
            _ => Ok(Value::Undef),
        }
    }

    fn eval_args(&mut self, args: &[Expr], scope: ScopeId) -> R<Vec<Value>> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            if let ExprKind::Unfold(inner) = &a.kind {
                out.extend(unfold_value(self.eval(inner, scope)?))
            } else {
                out.push(self.eval(a, scope)?);
            }
        }
        Ok(out)
    }

    // ---- variables ----

    fn read_var(&mut self, name: &str, scope: ScopeId, span: &Span) -> R<Value> {
        if let Some(v) = self.lookup_var(name, scope, span)? {
            return Ok(v);
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(Value::Undef);
        }
        if self.settings.strict_variables {
            return err(format!("Unknown variable: '{name}'."), span);
        }
        self.warn(format!("Unknown variable: '{name}'."));
        Ok(Value::Undef)
    }

    /// Looks a variable up: `None` when it does not exist.
    pub(crate) fn lookup_var(
        &mut self,
        name: &str,
        scope: ScopeId,
        span: &Span,
    ) -> R<Option<Value>> {
        if name.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty() {
            let n: usize = name.parse().unwrap_or(usize::MAX);
            return Ok(self
                .scopes
                .match_data(scope)
                .and_then(|m| m.get(n).cloned())
                .map(|s| s.map(Value::string).unwrap_or(Value::Undef)));
        }
        if let Some(rest) = name.strip_prefix("::") {
            if !is_qualified(rest) {
                return Ok(self.scopes.get(self.top).vars.get(rest).cloned());
            }
            return self.qualified_var(rest, span);
        }
        if is_qualified(name) {
            return self.qualified_var(name, span);
        }
        if !self.param_guards.is_empty() {
            self.check_param_guards(name, scope)?;
        }
        Ok(self.scopes.lookup(scope, name).cloned())
    }

    /// Evaluates the default expression `d` of parameter `guard.param` in `guard.scope`,
    /// where the parameters `guard.pending` (itself and those not evaluated yet) may not be
    /// read: Puppet fails with "`<prefix>`: default expression for $a tries to illegally
    /// access not yet evaluated $b" (`prefix` names the owner: `f`, `Class[C]`, with the
    /// evaluator's wrapper when the caller does not add one); reading one of
    /// `guard.missing` (earlier parameters without a value) is "expects a value for
    /// parameter $b".
    pub(crate) fn eval_default(&mut self, d: &Expr, guard: ParamGuard) -> R<Value> {
        let scope = guard.scope;
        self.param_guards.push(guard);
        let r = self.eval(d, scope);
        self.param_guards.pop();
        r
    }

    /// Fails when `name` is a parameter whose value a default expression being evaluated in
    /// `scope` (or a lambda inside it) may not read yet.
    fn check_param_guards(&self, name: &str, scope: ScopeId) -> R<()> {
        for g in self.param_guards.iter().rev() {
            let missing = g.missing.iter().any(|p| p == name);
            if !missing && !g.pending.contains(name) {
                continue;
            }
            let mut id = Some(scope);
            while let Some(s) = id {
                if s == g.scope {
                    let text = if missing {
                        format!("{}: expects a value for parameter ${name}", g.prefix)
                    } else {
                        format!(
                            "{}: default expression for ${} tries to illegally access not yet evaluated ${name}",
                            g.prefix, g.param
                        )
                    };
                    return err(text, &g.span);
                }
                id = self.scopes.get(s).parent;
            }
        }
        Ok(())
    }

    /// A variable's value without any warning or error when it does not exist (for
    /// `getvar`): plain, `::top` and qualified names.
    pub(crate) fn peek_var(&self, name: &str, scope: ScopeId) -> Option<Value> {
        let bare = name.strip_prefix("::");
        match bare {
            Some(rest) if !rest.contains("::") => {
                return self.scopes.get(self.top).vars.get(rest).cloned()
            }
            _ => {}
        }
        let name = bare.unwrap_or(name);
        if let Some((class, var)) = name.rsplit_once("::") {
            return self.class_var(class, var).flatten();
        }
        self.scopes.lookup(scope, name).cloned()
    }

    /// The variable `var` of the evaluated class `class` (any case): the class's own, then
    /// those of the classes it inherits from, as `$class::var` and `getvar('class::var')`
    /// read it. `None` when the class has not been evaluated.
    fn class_var(&self, class: &str, var: &str) -> Option<Option<Value>> {
        let id = *self.class_scopes.get(class.to_ascii_lowercase().as_str())?;
        let mut cur = Some(id);
        while let Some(c) = cur {
            let s = self.scopes.get(c);
            if let Some(v) = s.vars.get(var) {
                return Some(Some(v.clone()));
            }
            cur = s
                .parent
                .filter(|p| matches!(self.scopes.get(*p).kind, ScopeKind::Class(_)));
        }
        Some(None)
    }

    fn qualified_var(&mut self, name: &str, _span: &Span) -> R<Option<Value>> {
        let (class, var) = name.rsplit_once("::").unwrap_or(("", name));
        match self.class_var(class, var) {
            Some(v) => Ok(v),
            None => {
                let class = class.to_ascii_lowercase();
                if class == "settings" {
                    return Ok(None);
                }
                if self.settings.strict_variables {
                    return Ok(None);
                }
                // Puppet 7.23 says the same whether the class exists but was not evaluated
                // or does not exist at all.
                self.warn(format!("Unknown variable: '{name}'."));
                Ok(Some(Value::Undef))
            }
        }
    }

    fn assign(&mut self, lhs: &Expr, v: Value, scope: ScopeId, at: &Span) -> R<()> {
        match &lhs.kind {
            ExprKind::Var(name) => self.set_var(name, v, scope, at),
            ExprKind::Array(targets) => match v {
                Value::Array(values) => {
                    if values.len() != targets.len() {
                        return err(
                            format!(
                                "Mismatched number of assignable entries and values, expected {}, got {}",
                                targets.len(),
                                values.len()
                            ),
                            &lhs.span,
                        );
                    }
                    for (t, val) in targets.iter().zip(values.iter()) {
                        self.assign(t, val.clone(), scope, at)?;
                    }
                    Ok(())
                }
                Value::Hash(h) => {
                    for t in targets {
                        // A variable takes the entry of its name; a nested list of variables
                        // takes the entry whose key is the list of their names.
                        let key = match &t.kind {
                            ExprKind::Var(name) => Value::string(name.as_str()),
                            ExprKind::Array(inner) => Value::array(
                                inner
                                    .iter()
                                    .map(|x| match &x.kind {
                                        ExprKind::Var(n) => Value::string(n.as_str()),
                                        _ => Value::Undef,
                                    })
                                    .collect(),
                            ),
                            _ => {
                                return err(
                                    "Illegal attempt to assign. Not an assignable reference",
                                    &t.span,
                                )
                            }
                        };
                        match h.get(&key) {
                            Some(val) => self.assign(t, val.clone(), scope, at)?,
                            None => {
                                let shown = match &key {
                                    Value::Array(a) => format!(
                                        "[{}]",
                                        a.iter()
                                            .map(|x| format!("\"{}\"", x.to_plain_string()))
                                            .collect::<Vec<_>>()
                                            .join(", ")
                                    ),
                                    other => other.to_plain_string(),
                                };
                                return err(
                                    format!("No value for required key '{shown}' in assignment to variables from hash"),
                                    &t.span,
                                );
                            }
                        }
                    }
                    Ok(())
                }
                // `[$a, $b] = Class['x']`: the variables of an evaluated class.
                Value::Type(Type::Class(Some(cname))) => {
                    let cname = cname.to_ascii_lowercase();
                    for t in targets {
                        let ExprKind::Var(name) = &t.kind else {
                            return err(
                                "Illegal attempt to assign. Not an assignable reference",
                                &t.span,
                            );
                        };
                        let q = format!("{cname}::{name}");
                        let found = match self.class_scopes.get(cname.as_str()) {
                            Some(&id) => self.scopes.get(id).vars.get(name.as_str()).cloned(),
                            None => None,
                        };
                        match found {
                            Some(val) => self.assign(t, val, scope, at)?,
                            None => {
                                return err(
                                    format!("No value for required variable '${q}' in assignment to variables from class reference"),
                                    &t.span,
                                )
                            }
                        }
                    }
                    Ok(())
                }
                other if targets.len() == 1 => self.assign(&targets[0], other, scope, at),
                _ => err(
                    format!(
                        "Mismatched number of assignable entries and values, expected {}, got 1",
                        targets.len()
                    ),
                    &lhs.span,
                ),
            },
            _ => err(
                "Illegal attempt to assign. Not an assignable reference",
                &lhs.span,
            ),
        }
    }

    pub(crate) fn set_var(&mut self, name: &str, v: Value, scope: ScopeId, span: &Span) -> R<()> {
        if matches!(name, "facts" | "trusted" | "server_facts") {
            return err(
                format!("Attempt to assign to a reserved variable name: '${name}'"),
                span,
            );
        }
        let s = self.scopes.get_mut(scope);
        if s.vars.contains_key(name) {
            if matches!(
                name,
                "name" | "title" | "module_name" | "caller_module_name"
            ) {
                return err(
                    format!("Cannot reassign built in (or already assigned) variable '${name}'"),
                    span,
                );
            }
            return err(format!("Cannot reassign variable '${name}'"), span);
        }
        s.vars.insert(SmolStr::new(name), v);
        Ok(())
    }

    // ---- operators ----

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, scope: ScopeId, span: &Span) -> R<Value> {
        let a = self.eval(l, scope)?;
        let b = self.eval(r, scope)?;
        let label = format!("Error while evaluating a '{}' expression, ", op.symbol());
        match op {
            BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Mod
            | BinOp::Shl
            | BinOp::Shr => {
                let mut coerced = false;
                match ops::arithmetic(op.symbol(), &a, &b, &mut coerced) {
                    Ok(v) => {
                        if coerced {
                            for operand in [&a, &b] {
                                if let Value::String(s) = operand {
                                    if let Some(n) = ops::parse_numeric_string(s) {
                                        self.warn(format!(
                                            "The string '{s}' was automatically coerced to the numerical value {}",
                                            n.to_plain_string()
                                        ));
                                    }
                                }
                            }
                        }
                        Ok(v)
                    }
                    Err(e) => {
                        let at = match e.site {
                            ops::ErrorSite::Left => &l.span,
                            ops::ErrorSite::Right => &r.span,
                            _ => span,
                        };
                        if e.site == ops::ErrorSite::Expression {
                            err(format!("{label}{}", e.message), at)
                        } else {
                            err(e.message, at)
                        }
                    }
                }
            }
            BinOp::Eq => Ok(Value::Boolean(ops::equals(&a, &b))),
            BinOp::Ne => Ok(Value::Boolean(!ops::equals(&a, &b))),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                // Puppet reports an impossible comparison at the operator, as an issue.
                match ops::compare(op.symbol(), &a, &b) {
                    Ok(v) => Ok(Value::Boolean(v)),
                    Err(msg) => err(msg, span),
                }
            }
            BinOp::Match | BinOp::NoMatch => {
                let m = self.match_op(&a, &b, scope, span, &l.span, &label)?;
                Ok(Value::Boolean(if op == BinOp::Match { m } else { !m }))
            }
            BinOp::In => Ok(Value::Boolean(self.in_op(&a, &b, scope, span)?)),
        }
    }

    fn set_match(&mut self, scope: ScopeId, caps: Vec<Option<String>>) {
        let s = self.scopes.get_mut(scope);
        if let Some(last) = s.matches.last_mut() {
            *last = caps;
        } else {
            s.matches.push(caps);
        }
    }

    fn match_op(
        &mut self,
        a: &Value,
        b: &Value,
        scope: ScopeId,
        span: &Span,
        left: &Span,
        label: &str,
    ) -> R<bool> {
        // A regexp needs a String to match: Puppet reports other values at the left operand.
        if matches!(b, Value::Regexp(_) | Value::String(_)) && !matches!(a, Value::String(_)) {
            return err(
                format!(
                    "Left match operand must result in a String value. Got {}.",
                    ops::a_an_value(a)
                ),
                left,
            );
        }
        match b {
            // `Init[T]` matches what `T.new` accepts (`'1.2.3' =~ Init[SemVer]`).
            Value::Type(Type::Init(init)) if !is_instance(&Type::Init(init.clone()), a) => {
                Ok(match &init.target {
                    Some(target) => {
                        let mut args = vec![a.clone()];
                        args.extend(init.args.iter().cloned());
                        puppet_types::convert::new_value(target, &args).is_ok()
                    }
                    None => false,
                })
            }
            Value::Type(t) => Ok(is_instance(t, a)),
            Value::SemVerRange(range) => Ok(semver_in_range(a, range)),
            Value::Regexp(re) => self.regex_match(a, re, scope, span, label),
            Value::String(s) => match puppet_types::Regexp::new(s) {
                Ok(re) => self.regex_match(a, &re, scope, span, label),
                Err(e) => err(format!("{label}{e}"), span),
            },
            other => err(
                format!(
                    "{label}Right operand of =~ must be a Regexp, String or Type, got {}",
                    a_an(&type_name_of(other))
                ),
                span,
            ),
        }
    }

    fn regex_match(
        &mut self,
        a: &Value,
        re: &puppet_types::Regexp,
        scope: ScopeId,
        span: &Span,
        label: &str,
    ) -> R<bool> {
        let Value::String(s) = a else {
            return err(
                format!(
                    "{label}Left match operand must result in a String value. Got {}.",
                    ops::a_an_value(a)
                ),
                span,
            );
        };
        match re.captures(s) {
            Some(caps) => {
                self.set_match(scope, caps);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn in_op(&mut self, a: &Value, b: &Value, scope: ScopeId, span: &Span) -> R<bool> {
        match b {
            Value::SemVerRange(range) => Ok(semver_in_range(a, range)),
            Value::Binary(hay) => {
                let contains = |needle: &[u8]| {
                    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
                };
                Ok(match a {
                    Value::Binary(needle) => contains(needle),
                    Value::String(needle) => contains(needle.as_bytes()),
                    // A number is looked for among the bytes.
                    Value::Integer(n) => hay.iter().any(|b| i64::from(*b) == *n),
                    Value::Float(f) => hay.iter().any(|b| f64::from(*b) == *f),
                    _ => false,
                })
            }
            Value::String(hay) => match a {
                Value::String(needle) => Ok(hay.to_lowercase().contains(&needle.to_lowercase())),
                Value::Regexp(re) => self.regex_match(b, re, scope, span, ""),
                _ => Ok(false),
            },
            Value::Array(items) => self.in_members(a, items.iter(), scope, span),
            Value::Hash(h) => self.in_members(a, h.keys(), scope, span),
            _ => Ok(false),
        }
    }

    /// `a in` an array's elements or a hash's keys: a regexp matches a
    /// string member, a type an instance, anything else by equality.
    fn in_members<'v>(
        &mut self,
        a: &Value,
        members: impl Iterator<Item = &'v Value>,
        scope: ScopeId,
        span: &Span,
    ) -> R<bool> {
        for m in members {
            let hit = match a {
                Value::Regexp(re) => {
                    matches!(m, Value::String(_)) && self.regex_match(m, re, scope, span, "")?
                }
                Value::Type(t) => is_instance(t, m),
                // A String or a version is matched by each member as by a case option
                // (a regexp, a type, a version range...).
                Value::String(_) | Value::SemVer(_) => self.case_match(a, m, scope, span)?,
                _ => ops::equals(a, m),
            };
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `case`/selector matching of a test value against one option.
    fn case_match(&mut self, test: &Value, option: &Value, scope: ScopeId, span: &Span) -> R<bool> {
        match option {
            Value::Regexp(re) => match test {
                Value::String(_) => self.regex_match(test, re, scope, span, ""),
                _ => Ok(false),
            },
            Value::Type(t) => Ok(is_instance(t, test)),
            Value::SemVerRange(range) => Ok(semver_in_range(test, range)),
            Value::SemVer(ver) => Ok(match test {
                Value::String(s) => {
                    puppet_types::Version::parse(s).is_ok_and(|t| &t == ver.as_ref())
                }
                other => ops::equals(other, option),
            }),
            Value::Default => Ok(true),
            Value::Array(opts) => match test {
                Value::Array(vals) if vals.len() == opts.len() => {
                    for (v, o) in vals.iter().zip(opts.iter()) {
                        if !self.case_match(v, o, scope, span)? {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                }
                _ => Ok(false),
            },
            Value::Hash(opts) => match test {
                Value::Hash(vals) => {
                    for (k, o) in opts.iter() {
                        match vals.get(k) {
                            Some(v) if self.case_match(v, o, scope, span)? => {}
                            _ => return Ok(false),
                        }
                    }
                    Ok(true)
                }
                _ => Ok(false),
            },
            _ => Ok(ops::equals(test, option)),
        }
    }

    // ---- access ----

    /// `target[keys]`. Puppet reports what is wrong with an access as an issue of the
    /// language, without the evaluator's prefix, at the key it is about when there is one.
    fn access(
        &mut self,
        target: Value,
        keys: Vec<Value>,
        span: &Span,
        key_spans: &[Span],
    ) -> R<Value> {
        let key_span = |i: usize| key_spans.get(i).unwrap_or(span);
        // A single array key is the list of keys (`'abcd'[[1, 2]]`).
        let keys = match keys.as_slice() {
            [Value::Array(a)] if !matches!(target, Value::Hash(_) | Value::Type(_)) => {
                a.iter().cloned().collect()
            }
            _ => keys,
        };
        let label = "";
        match &target {
            Value::String(s) => {
                if keys.len() > 2 {
                    return err(
                        format!(
                            "{label}String supports [] with one or two arguments. Got {}",
                            keys.len()
                        ),
                        span,
                    );
                }
                if let Some((i, bad)) = keys
                    .iter()
                    .enumerate()
                    .find(|(_, k)| !matches!(k, Value::Integer(_)))
                {
                    return err(
                        format!(
                            "{label}A substring operation does not accept {} as a character index. Expected an Integer",
                            ops::a_an_value(bad)
                        ),
                        key_span(i),
                    );
                }
                let chars: Vec<char> = s.chars().collect();
                match slice_range(chars.len(), &keys) {
                    Ok(Some((start, len))) => Ok(Value::string(
                        chars[start..start + len].iter().collect::<String>(),
                    )),
                    Ok(None) => Ok(Value::string("")),
                    Err(m) => err(format!("{label}{m}"), span),
                }
            }
            Value::Binary(bytes) => {
                if keys.len() > 2 {
                    return err(
                        format!(
                            "{label}String supports [] with one or two arguments. Got {}",
                            keys.len()
                        ),
                        span,
                    );
                }
                match slice_range(bytes.len(), &keys) {
                    Ok(Some((start, len))) => Ok(Value::Binary(std::sync::Arc::from(
                        &bytes[start..start + len],
                    ))),
                    Ok(None) => Ok(Value::Binary(std::sync::Arc::from(&[][..]))),
                    Err(m) => err(format!("{label}{m}"), span),
                }
            }
            Value::Array(a) => {
                if keys.len() > 2 {
                    return err(
                        format!(
                            "{label}Array supports [] with one or two arguments. Got {}",
                            keys.len()
                        ),
                        span,
                    );
                }
                // Numeric strings are coerced (with Puppet's warning) before the checks.
                let mut coerced_keys = Vec::with_capacity(keys.len());
                for k in &keys {
                    match k {
                        Value::String(s) => match ops::parse_numeric_string(s) {
                            Some(n) => {
                                self.warn(format!(
                                    "The string '{s}' was automatically coerced to the numerical value {}",
                                    n.to_plain_string()
                                ));
                                coerced_keys.push(n);
                            }
                            None => coerced_keys.push(k.clone()),
                        },
                        other => coerced_keys.push(other.clone()),
                    }
                }
                let keys = coerced_keys;
                for (i, k) in keys.iter().enumerate() {
                    match k {
                        Value::Integer(_) => {}
                        Value::Float(_) => {
                            return err(
                                format!(
                                    "{label}An Array[] cannot use Float where Integer is expected"
                                ),
                                key_span(i),
                            )
                        }
                        other => {
                            return err(
                                format!(
                                    "{label}The value '{}' cannot be converted to Numeric.",
                                    other.to_plain_string()
                                ),
                                key_span(i),
                            )
                        }
                    }
                }
                if keys.len() == 1 {
                    if let Value::Integer(i) = keys[0] {
                        let idx = if i < 0 { a.len() as i64 + i } else { i };
                        return Ok(if idx >= 0 {
                            a.get(idx as usize).cloned().unwrap_or(Value::Undef)
                        } else {
                            Value::Undef
                        });
                    }
                }
                match slice_range(a.len(), &keys) {
                    Ok(Some((start, len))) => Ok(Value::array(a[start..start + len].to_vec())),
                    Ok(None) => Ok(Value::array(vec![])),
                    Err(m) => err(format!("{label}{m}"), span),
                }
            }
            Value::Hash(h) => {
                if keys.len() == 1 {
                    return Ok(h.get(&keys[0]).cloned().unwrap_or(Value::Undef));
                }
                Ok(Value::array(
                    keys.iter().filter_map(|k| h.get(k).cloned()).collect(),
                ))
            }
            Value::Type(t) => {
                // Puppet locates a class name that is not a String at that key.
                let bad_class_key = matches!(t, Type::Class(None))
                    .then(|| keys.iter().position(|k| !matches!(k, Value::String(_))))
                    .flatten();
                let at = bad_class_key.map_or(span, key_span);
                self.type_access(t.clone(), keys, at)
            }
            other => err(
                format!(
                    "{label}Operator '[]' is not applicable to {}.",
                    ops::a_an_value(other)
                ),
                span,
            ),
        }
    }

    fn type_access(&mut self, t: Type, keys: Vec<Value>, span: &Span) -> R<Value> {
        let label = "";
        // A resource with a title: `Notify[x][message]` reads a parameter.
        if let Type::Resource(r) = &t {
            if let (Some(tn), Some(title)) = (&r.type_name, &r.title) {
                if keys.len() == 1 {
                    if let Value::String(attr) = &keys[0] {
                        let key = ResourceKey::new(tn, title);
                        let key = self.resolve_ref(&key).unwrap_or(key);
                        if let (Some(info), true) = (
                            self.types().get(&tn.to_ascii_lowercase()),
                            self.catalog.get(&key).is_some(),
                        ) {
                            if info.complete && !info.accepts(attr) {
                                return err(
                                    format!("{label}The resource {tn}['{title}'] does not have a parameter called '{attr}'"),
                                    span,
                                );
                            }
                        }
                        return match self.catalog.get(&key) {
                            Some(res) => Ok(match res.params.get(attr.as_str()) {
                                Some(v) => v.clone(),
                                None => self
                                    .defaults_for(res)
                                    .into_iter()
                                    .find(|(k, _)| k == attr)
                                    .map(|(_, v)| v)
                                    .unwrap_or(Value::Undef),
                            }),
                            None => {
                                err(format!("{label}Resource not found: {tn}['{title}']"), span)
                            }
                        };
                    }
                }
            }
        }
        // `Class[x][param]` reads a parameter of an evaluated class.
        if let Type::Class(Some(name)) = &t {
            if let [Value::String(attr)] = keys.as_slice() {
                if let Some(&id) = self.class_scopes.get(name.to_ascii_lowercase().as_str()) {
                    return Ok(self
                        .scopes
                        .get(id)
                        .vars
                        .get(attr.as_str())
                        .cloned()
                        .unwrap_or(Value::Undef));
                }
            }
        }
        match puppet_types::parameterize_value(&t, &keys) {
            Ok(v) => Ok(v),
            // A runtime error of the type's creation is wrapped; other problems are issues.
            Err(e @ puppet_types::TypeError::Operation(_)) => err(
                format!("Error while evaluating a '[]' expression, {e}"),
                span,
            ),
            Err(e) => err(format!("{label}{e}"), span),
        }
    }

    // ---- types ----

    /// Resolves a capitalised name: user type aliases, defined types and classes as resource
    /// types, then Puppet's types.
    pub(crate) fn resolve_type(&mut self, name: &str) -> Type {
        if let Some(t) = self.resolved_types.get(name) {
            return t.clone();
        }
        let t = self.resolve_type_uncached(name);
        self.resolved_types.insert(SmolStr::new(name), t.clone());
        t
    }

    /// What a type name denotes: a type alias (its body evaluated the first time, errors
    /// kept for the use site), a defined type, a built-in type, a resource type of the
    /// environment, else a type reference. The answer cannot change during a compile, so
    /// [`Compiler::resolve_type`] keeps it.
    fn resolve_type_uncached(&mut self, name: &str) -> Type {
        let bare = strip_root(name);
        let lower = SmolStr::new(bare.to_ascii_lowercase());
        if let Some(a) = self.aliases.get(&lower) {
            return Type::Alias(a.clone());
        }
        if let Some(def) = self.env.type_alias(&lower) {
            let alias = TypeAlias::new(bare);
            self.aliases.insert(lower.clone(), alias.clone());
            let top = self.top;
            // Puppet interprets the body with its type parser, which knows only literals,
            // names, type references and accesses on them.
            if let Some(bad) = invalid_type_spec(&def.type_expr) {
                let text = &bad.span.file.text[bad.span.start as usize..bad.span.end as usize];
                self.invalid_alias = Some(format!(
                    "The expression <{text}> is not a valid type specification."
                ));
                alias.resolve_to(Type::TypeReference(SmolStr::new(bare)));
                return Type::Alias(alias);
            }
            // As Puppet's type parser: unknown names are type references, not errors.
            let saved_mode = std::mem::replace(&mut self.type_parser_mode, true);
            let r = self.eval(&def.type_expr, top);
            self.type_parser_mode = saved_mode;
            let resolved = match r {
                Ok(Value::Type(t)) => t,
                Err(Flow::Error(e)) => {
                    // Reported where the alias is used, as an error of the type name.
                    let msg = e.message;
                    let msg = msg
                        .strip_prefix("Error while evaluating a '[]' expression, ")
                        .map(str::to_string)
                        .unwrap_or(msg);
                    self.invalid_alias = Some(msg);
                    Type::TypeReference(SmolStr::new(bare))
                }
                _ => Type::TypeReference(SmolStr::new(bare)),
            };
            alias.resolve_to(alias_target(bare, resolved));
            if let Type::Object(o) = alias.resolved() {
                if let Err(x) = o.validate() {
                    self.invalid_alias = Some(x.to_string());
                }
            }
            if !resolves_to_real_type(&Type::Alias(alias.clone()), &mut Vec::new()) {
                self.unresolvable_alias = Some(SmolStr::new(bare));
                // Break the cycle so later uses cannot loop.
                let broken = TypeAlias::new(bare);
                broken.resolve_to(Type::TypeReference(SmolStr::new(bare)));
                self.aliases.insert(lower.clone(), broken.clone());
                return Type::Alias(broken);
            }
            return Type::Alias(alias);
        }
        if self.env.define(&lower).is_some() {
            return Type::Resource(Arc::new(ResourceType {
                type_name: Some(SmolStr::new(capitalize(bare))),
                title: None,
            }));
        }
        let t = puppet_types::resolve_type_name(bare);
        // Resource types of the environment's modules (`Anchor`, `Mysql_datadir`).
        if matches!(t, Type::TypeReference(_)) && self.env.resource_type_known(&lower) {
            return Type::Resource(Arc::new(ResourceType {
                type_name: Some(SmolStr::new(capitalize(bare))),
                title: None,
            }));
        }
        t
    }

    // ---- calls ----

    pub(crate) fn call_named(
        &mut self,
        name: &str,
        args: Vec<Value>,
        lambda: Option<&Arc<LambdaDef>>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        self.call_labeled("Function Call", name, args, lambda, scope, span)
    }

    /// Calls a function; `label` is how Puppet names the call in errors (`Function Call`
    /// for `f(x)`, `Method call` for `x.f`).
    pub(crate) fn call_labeled(
        &mut self,
        label: &'static str,
        name: &str,
        args: Vec<Value>,
        lambda: Option<&Arc<LambdaDef>>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        self.call_labels.push(label);
        let file = span.file.path.clone().unwrap_or_else(|| "unknown".into());
        self.puppet_stack.push((file, span.line_col().0));
        let r = self.call_labeled_inner(label, name, args, lambda, scope, span);
        self.puppet_stack.pop();
        self.call_labels.pop();
        r
    }

    fn call_labeled_inner(
        &mut self,
        label: &'static str,
        name: &str,
        args: Vec<Value>,
        lambda: Option<&Arc<LambdaDef>>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        let lname = strip_root(name).to_ascii_lowercase();
        // Functions written in Puppet shadow everything else.
        if let Some(f) = self.env.puppet_function(lname.as_str()) {
            return self.call_puppet_function(&f, args, lambda.is_some(), span);
        }
        if let Some(r) = crate::builtins::call(self, &lname, &args, lambda, scope, span) {
            return r;
        }
        // The registry of pure built-ins.
        let block = lambda.map(|l| EvalLambda {
            sig: lambda_signature(self, l, scope),
            def: l.clone(),
            scope,
        });
        let saved = (self.current, self.call_span.take());
        self.current = scope;
        self.call_span = Some(span.clone());
        let native = self.settings.native_functions;
        let r = if let Some(f) = self.env.function_with(&lname, native) {
            f.call(self, args, block.as_ref().map(|b| b as &dyn Block))
        } else {
            Err(CallError::new(
                puppet_functions::codes::UNKNOWN_FUNCTION,
                format!("Unknown function: '{name}'."),
            ))
        };
        self.current = saved.0;
        self.call_span = saved.1;
        match r {
            Ok(v) => Ok(v),
            Err(CallError::Next(v)) => Err(Flow::Next(v)),
            Err(CallError::Break) => Err(Flow::Break(Some(span.clone()))),
            Err(CallError::Return(v)) => Err(Flow::Return(v, Some(span.clone()))),
            Err(CallError::Failed { code, message, .. }) => {
                if code == "EVAL_FLOW" {
                    if let Some(e) = self.pending_error.take() {
                        return Err(Flow::Error(e));
                    }
                }
                if code == puppet_functions::codes::UNKNOWN_FUNCTION {
                    Err(Flow::Error(EvalError {
                        code: crate::eval::codes::UNKNOWN_FUNCTION,
                        kind: ErrorKind::Evaluation,
                        message,
                        span: Some(span.clone()),
                    }))
                } else if code == "EVAL_FLOW" {
                    // An error raised by the evaluator inside a lambda: already complete.
                    err(message, span)
                } else {
                    err(format!("Error while evaluating a {label}, {message}"), span)
                }
            }
            Err(other) => err(format!("Error while evaluating a {label}, {other}"), span),
        }
    }

    /// Calls a lambda with arguments, in a new scope under the scope it closes over.
    pub(crate) fn call_lambda(
        &mut self,
        def: &LambdaDef,
        closure: ScopeId,
        args: Vec<Value>,
    ) -> R<Value> {
        let label = self.scopes.label(closure);
        let mut s = Scope::new(ScopeKind::Local, Some(closure), label);
        s.module = self.scopes.get(closure).module.clone();
        let id = self.scopes.add(s);
        let r = self
            .bind_params(&def.params, args, id, &def.span, None)
            .and_then(|_| self.eval_block(&def.body, id));
        self.release_scope(id);
        let v = match r {
            Ok(v) | Err(Flow::Next(v)) => v,
            Err(other) => return Err(other),
        };
        if let Some(rt) = &def.return_type {
            if let Value::Type(t) = self.eval(rt, closure)? {
                if !is_instance(&t, &v) {
                    let prefix = match self.call_labels.last() {
                        Some(l) => format!("Error while evaluating a {l}, "),
                        None => String::new(),
                    };
                    let detail = puppet_types::mismatch::describe_value_mismatch(
                        "value returned from lambda has wrong type,",
                        &t,
                        &v,
                    )
                    .unwrap_or_default();
                    return err(format!("{prefix}{detail}"), &def.span);
                }
            }
        }
        Ok(v)
    }

    fn bind_params(
        &mut self,
        params: &[Param],
        args: Vec<Value>,
        scope: ScopeId,
        span: &Span,
        fname: Option<&str>,
    ) -> R<()> {
        if fname.is_none() {
            // A required parameter may not follow an optional one (a captures-rest
            // parameter is required when its type demands at least one value).
            let mut optional_seen = false;
            for p in params {
                let required = if p.captures_rest {
                    p.default.is_none() && self.rest_bounds(p, scope)?.1 > 0
                } else {
                    p.default.is_none()
                };
                if required && optional_seen {
                    return err(
                        format!(
                            "Parameter ${} is required but appears after optional parameters",
                            p.name
                        ),
                        span,
                    );
                }
                optional_seen |= p.default.is_some();
            }
        }
        let fixed = params.iter().filter(|p| !p.captures_rest).count();
        let mut args = args.into_iter();
        let mut all_names: Option<Arc<[SmolStr]>> = None;
        for (i, p) in params.iter().enumerate() {
            if p.captures_rest && fname.is_none() {
                // A lambda's `*$rest`: `Array[T, min, max]` types the elements and bounds
                // their count; any other type types each element. With no values, the
                // default (an array, or one value) is used.
                let mut rest: Vec<Value> = args.by_ref().collect();
                if rest.is_empty() {
                    if let Some(d) = &p.default {
                        rest = match self.eval(d, scope)? {
                            Value::Array(a) => (*a).clone(),
                            other => vec![other],
                        };
                    }
                }
                let (elem, min, max) = self.rest_bounds(p, scope)?;
                let prefix = match self.call_labels.last() {
                    Some(l) => format!("Error while evaluating a {l}, "),
                    None => String::new(),
                };
                let (got, lo, hi) = (fixed + rest.len(), fixed + min, max.map(|m| fixed + m));
                let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
                if hi == Some(lo) && got != lo {
                    return err(
                        format!("{prefix}block expects {lo} {}, got {got}", plural(lo)),
                        span,
                    );
                }
                if got < lo {
                    return err(
                        format!(
                            "{prefix}block expects at least {lo} {}, got {got}",
                            plural(lo)
                        ),
                        span,
                    );
                }
                if let Some(hi) = hi {
                    if got > hi {
                        return err(
                            format!(
                                "{prefix}block expects at most {hi} {}, got {got}",
                                plural(hi)
                            ),
                            span,
                        );
                    }
                }
                if let Some(ty) = elem {
                    if let Some(bad) = rest.iter().find(|v| !is_instance(&ty, v)) {
                        let what = format!("block parameter '{}'", p.name);
                        let detail =
                            puppet_types::mismatch::describe_value_mismatch(&what, &ty, bad)
                                .unwrap_or_default();
                        return err(format!("{prefix}{detail}"), span);
                    }
                }
                self.scopes
                    .get_mut(scope)
                    .vars
                    .insert(p.name.clone(), Value::array(rest));
                continue;
            }
            if p.captures_rest {
                let rest: Vec<Value> = args.by_ref().collect();
                // The type of a captures-rest parameter applies to each element.
                if let (Some(t), Some(f)) = (&p.type_expr, fname) {
                    if let Value::Type(ty) = self.eval_param_type(t, scope, fname)? {
                        if let Some(bad) = rest.iter().find(|v| !is_instance(&ty, v)) {
                            let what = format!("'{f}' parameter '{}'", p.name);
                            let detail =
                                puppet_types::mismatch::describe_value_mismatch(&what, &ty, bad)
                                    .unwrap_or_default();
                            return err(detail, span);
                        }
                    }
                }
                self.scopes
                    .get_mut(scope)
                    .vars
                    .insert(p.name.clone(), Value::array(rest));
                continue;
            }
            let v = match args.next() {
                Some(v) => v,
                None => match &p.default {
                    Some(d) => {
                        let (prefix, guard_span) = match fname {
                            Some(f) => (Arc::from(f), span.clone()),
                            None => (
                                match self.call_labels.last() {
                                    Some(l) => {
                                        format!("Error while evaluating a {l}, lambda").into()
                                    }
                                    None => "lambda".into(),
                                },
                                self.call_span.clone().unwrap_or_else(|| span.clone()),
                            ),
                        };
                        let names = all_names
                            .get_or_insert_with(|| params.iter().map(|q| q.name.clone()).collect())
                            .clone();
                        let guard = ParamGuard {
                            scope,
                            prefix,
                            param: p.name.clone(),
                            pending: PendingParams::new(names, i),
                            missing: Vec::new(),
                            span: guard_span,
                        };
                        self.eval_default(d, guard)?
                    }
                    None => {
                        if fname.is_some() {
                            return err(
                                format!("expects a value for parameter '${}'", p.name),
                                span,
                            );
                        }
                        return err(
                            format!("Parameter ${} is required but no value was given", p.name),
                            span,
                        );
                    }
                },
            };
            if let Some(t) = &p.type_expr {
                if let Value::Type(ty) = self.eval_param_type(t, scope, fname)? {
                    if !is_instance(&ty, &v) {
                        let (what, prefix) = match fname {
                            Some(f) => (format!("'{f}' parameter '{}'", p.name), String::new()),
                            // A lambda given to a call: named after that call.
                            None => (
                                format!("block parameter '{}'", p.name),
                                match self.call_labels.last() {
                                    Some(l) => format!("Error while evaluating a {l}, "),
                                    None => String::new(),
                                },
                            ),
                        };
                        let mut detail =
                            puppet_types::mismatch::describe_value_mismatch(&what, &ty, &v)
                                .unwrap_or_default();
                        if detail.is_empty() {
                            if let Some(f) = fname {
                                // Nothing specific to say: Puppet shows the signature.
                                detail = format!(
                                    "'{f}' expects ({})",
                                    self.signature_text(params, scope)
                                );
                            }
                        }
                        return err(format!("{prefix}{detail}"), span);
                    }
                }
            }
            self.scopes.get_mut(scope).vars.insert(p.name.clone(), v);
        }
        Ok(())
    }

    /// A function's parameters as Puppet shows its signature: `Integer a, Any y?, String r*`.
    fn signature_text(&mut self, params: &[Param], scope: ScopeId) -> String {
        let mut parts = Vec::with_capacity(params.len());
        for p in params {
            let ty = match &p.type_expr {
                Some(t) => match self.eval(t, scope) {
                    Ok(Value::Type(ty)) => ty.to_string(),
                    _ => "Any".to_string(),
                },
                None => "Any".to_string(),
            };
            let suffix = if p.captures_rest {
                "*"
            } else if p.default.is_some() {
                "?"
            } else {
                ""
            };
            parts.push(format!("{ty} {}{suffix}", p.name));
        }
        parts.join(", ")
    }

    /// Evaluates a parameter's type expression; for a function (`fname`), an error is kept
    /// to be reported as it is (see `param_type_error`).
    /// Evaluates a parameter's type expression; one made only of type names, literals and
    /// accesses on them is evaluated once per compile (a define with hundreds of typed
    /// parameters is instantiated many times).
    pub(crate) fn eval_type_expr(&mut self, t: &Expr, scope: ScopeId) -> R<Value> {
        if !is_constant_type_expr(t, 0) {
            return self.eval(t, scope);
        }
        let key = (
            Arc::as_ptr(&t.span.file) as usize,
            t.span.start,
            t.span.end,
            t as *const Expr as usize,
        );
        if let Some((_, v)) = self.const_types.get(&key) {
            return Ok(v.clone());
        }
        let v = self.eval(t, scope)?;
        self.const_types
            .insert(key, (t.span.file.clone(), v.clone()));
        Ok(v)
    }

    fn eval_param_type(&mut self, t: &Expr, scope: ScopeId, fname: Option<&str>) -> R<Value> {
        let r = self.eval(t, scope);
        if let (Err(Flow::Error(e)), Some(_)) = (&r, fname) {
            self.param_type_error = Some(e.clone());
        }
        r
    }

    /// The element type and count bounds of a captures-rest parameter: `Array[T, min,
    /// max]` gives T and its bounds, another type is the element type (any count).
    fn rest_bounds(
        &mut self,
        p: &Param,
        scope: ScopeId,
    ) -> R<(Option<Type>, usize, Option<usize>)> {
        let Some(t) = &p.type_expr else {
            return Ok((None, 0, None));
        };
        let Value::Type(ty) = self.eval(t, scope)? else {
            return Ok((None, 0, None));
        };
        Ok(match &ty {
            Type::Array(a) => {
                let size = a.size.as_ref();
                let min = size.and_then(|s| s.min).unwrap_or(0).max(0) as usize;
                let max = size.and_then(|s| s.max).map(|m| m.max(0) as usize);
                (Some(a.element.clone()), min, max)
            }
            _ => (Some(ty), 0, None),
        })
    }

    fn call_puppet_function(
        &mut self,
        f: &FunctionDef,
        args: Vec<Value>,
        has_block: bool,
        span: &Span,
    ) -> R<Value> {
        let required = f
            .params
            .iter()
            .filter(|p| p.default.is_none() && !p.captures_rest)
            .count();
        let max = if f.params.iter().any(|p| p.captures_rest) {
            usize::MAX
        } else {
            f.params.len()
        };
        if has_block {
            return err(
                format!(
                    "Error while evaluating a Function Call, '{}' does not expect a block",
                    f.name
                ),
                span,
            );
        }
        if args.len() < required || args.len() > max {
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let expect = if max == 0 {
                "no arguments".to_string()
            } else if required == max {
                format!("{required} argument{}", plural(required))
            } else if max == usize::MAX {
                format!("at least {required} argument{}", plural(required))
            } else {
                format!("between {required} and {max} arguments")
            };
            let got = if args.is_empty() {
                "none".to_string()
            } else {
                args.len().to_string()
            };
            return err(
                format!(
                    "Error while evaluating a Function Call, '{}' expects {expect}, got {got}",
                    f.name
                ),
                span,
            );
        }
        let top = self.top;
        let mut s = Scope::new(ScopeKind::Local, Some(top), "Class[main]".into());
        s.module = f.name.split_once("::").map(|(m, _)| SmolStr::new(m));
        let id = self.scopes.add(s);
        self.param_type_error = None;
        let r = match self.bind_params(&f.params, args, id, span, Some(&f.name)) {
            Err(Flow::Error(e)) => Err(Flow::Error(match self.param_type_error.take() {
                Some(raw) => raw,
                None => EvalError {
                    code: crate::eval::codes::EVAL_ERROR,
                    kind: Default::default(),
                    message: format!("Error while evaluating a Function Call, {}", e.message),
                    span: Some(span.clone()),
                },
            })),
            Err(other) => Err(other),
            Ok(()) => self.eval_block(&f.body, id),
        };
        self.release_scope(id);
        let v = match r {
            Ok(v) | Err(Flow::Return(v, _)) => v,
            Err(Flow::Next(v)) => v,
            Err(e) => return Err(e),
        };
        if let Some(rt) = &f.return_type {
            if let Ok(Value::Type(t)) = self.eval(rt, top) {
                if !is_instance(&t, &v) {
                    return err(
                        format!(
                            "Error while evaluating a Function Call, {}",
                            puppet_types::mismatch::describe_value_mismatch(
                                &format!("value returned from {} has wrong type,", f.name),
                                &t,
                                &v
                            )
                            .unwrap_or_default()
                        ),
                        span,
                    );
                }
            }
        }
        Ok(v)
    }
}

/// The first part of a type alias body that Puppet's type parser does not accept (it
/// interprets literals, bare names, type references, arrays, hashes, unary minus and
/// `Name[...]` accesses), in the order it visits them: an access's keys before its left side.
fn invalid_type_spec(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) | ExprKind::TypeName(_) => None,
        ExprKind::Array(items) => items.iter().find_map(invalid_type_spec),
        ExprKind::Hash(entries) => entries
            .iter()
            .find_map(|(k, v)| invalid_type_spec(k).or_else(|| invalid_type_spec(v))),
        ExprKind::Neg(x) => invalid_type_spec(x),
        // `Object { ... }` inside a TypeSet's `types` (Puppet reads those itself).
        ExprKind::ResourceDefaults { type_expr, .. }
            if matches!(type_expr.kind, ExprKind::TypeName(_)) =>
        {
            None
        }
        ExprKind::Access(left, keys) => {
            keys.iter().find_map(invalid_type_spec).or(match left.kind {
                ExprKind::TypeName(_) => None,
                _ => Some(e),
            })
        }
        _ => Some(e),
    }
}

/// What an alias resolves to, as Puppet's `PTypeAliasType#resolve` makes it: the normalized
/// type; of a Variant, the members that lead back to the alias itself without reaching a
/// real type are dropped (`type Foo = Variant[Foo, String, Integer]` is
/// `Variant[String, Integer]`).
fn alias_target(name: &str, t: Type) -> Type {
    let t = puppet_types::normalize(&t);
    if let Type::Variant(members) = &t {
        let real: Vec<Type> = members
            .iter()
            .filter(|m| resolves_to_real_type(m, &mut vec![name.to_string()]))
            .cloned()
            .collect();
        if !real.is_empty() && real.len() != members.len() {
            return match <[Type; 1]>::try_from(real) {
                Ok([one]) => one,
                Err(real) => Type::Variant(Arc::new(real)),
            };
        }
    }
    t
}

/// Whether an alias leads to a real type, not only through aliases and variants of
/// aliases back to itself (`type A = B`, `type B = Variant[A]`).
fn resolves_to_real_type(t: &Type, visiting: &mut Vec<String>) -> bool {
    match t {
        Type::Alias(a) => {
            let name = a.name().to_string();
            if visiting.contains(&name) {
                return false;
            }
            visiting.push(name);
            let r = resolves_to_real_type(&a.resolved(), visiting);
            visiting.pop();
            r
        }
        Type::Variant(members) => members.iter().any(|m| resolves_to_real_type(m, visiting)),
        _ => true,
    }
}

/// The elements a splatted value (`*x`) contributes: an array's or iterator's elements, a
/// hash's `[key, value]` pairs, or the value itself.
fn unfold_value(v: Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.iter().cloned().collect(),
        Value::Hash(h) => h
            .iter()
            .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
            .collect(),
        Value::Iterator(it) => it.iter().collect(),
        Value::Undef => Vec::new(),
        other => vec![other],
    }
}

/// The resource types puppet-agent 7.23 knows without modules: the built-in
/// ones and those of the core modules it vendors (parameters, namevars),
/// shared by every compile.
pub(crate) fn known_types() -> &'static Arc<puppet_restypes::TypeDatabase> {
    static DB: std::sync::OnceLock<Arc<puppet_restypes::TypeDatabase>> = std::sync::OnceLock::new();
    DB.get_or_init(|| Arc::new(puppet_restypes::TypeDatabase::with_vendored()))
}

/// Whether a version (a SemVer, or a String that parses as one) is in a range.
fn semver_in_range(v: &Value, range: &puppet_types::VersionRange) -> bool {
    match v {
        Value::SemVer(ver) => range.includes(ver),
        Value::String(s) => puppet_types::Version::parse(s)
            .map(|ver| range.includes(&ver))
            .unwrap_or(false),
        _ => false,
    }
}

/// Seconds since the epoch, for `Timestamp()`.
fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// `name` without its leading `::` (all of them, as `trim_start_matches("::")`, which
/// builds a substring searcher on every call: this is on the hot path of every call and
/// type reference).
pub(crate) fn strip_root(name: &str) -> &str {
    let mut rest = name;
    while let Some(r) = rest.strip_prefix("::") {
        rest = r;
    }
    rest
}

/// Whether `name` has a `::` (a qualified name): `contains("::")` without building a
/// substring searcher, for the hot paths (every variable reference and call).
pub(crate) fn is_qualified(name: &str) -> bool {
    name.as_bytes().windows(2).any(|w| w == b"::")
}

/// Capitalises each `::` segment: `foo::bar` -> `Foo::Bar`.
pub fn capitalize(name: &str) -> String {
    if name.is_ascii() {
        return capitalize_ascii(name, false).to_string();
    }
    let mut out = String::with_capacity(name.len());
    for (i, seg) in name.split("::").enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        let mut c = seg.chars();
        if let Some(f) = c.next() {
            if f.is_ascii() {
                out.push(f.to_ascii_uppercase());
            } else {
                out.extend(f.to_uppercase());
            }
            out.push_str(c.as_str());
        }
    }
    out
}

/// [`capitalize`] of `name` lowercased first (`FOO::bar` -> `Foo::Bar`), as a resource
/// reference's type name: one pass and no heap allocation for short ASCII names.
pub(crate) fn capitalize_lowered(name: &str) -> SmolStr {
    if name.is_ascii() {
        capitalize_ascii(name, true)
    } else {
        SmolStr::new(capitalize(&name.to_ascii_lowercase()))
    }
}

/// Upper-cases the first byte of each `::`-separated segment of an ASCII name (and, with
/// `lower`, lower-cases the other bytes): the segments exactly as `split("::")` finds them.
/// Only the case of ASCII letters changes, so the result has the name's length.
fn capitalize_ascii(name: &str, lower: bool) -> SmolStr {
    fn recase(bytes: &mut [u8], lower: bool) {
        let mut i = 0;
        let mut seg_start = true;
        while i < bytes.len() {
            if bytes[i] == b':' && bytes.get(i + 1) == Some(&b':') {
                i += 2;
                seg_start = true;
                continue;
            }
            if seg_start {
                bytes[i].make_ascii_uppercase();
            } else if lower {
                bytes[i].make_ascii_lowercase();
            }
            seg_start = false;
            i += 1;
        }
    }
    let mut stack = [0u8; 64];
    if let Some(buf) = stack.get_mut(..name.len()) {
        buf.copy_from_slice(name.as_bytes());
        recase(buf, lower);
        SmolStr::new(std::str::from_utf8(buf).unwrap_or(name))
    } else {
        let mut buf = name.as_bytes().to_vec();
        recase(&mut buf, lower);
        SmolStr::new(String::from_utf8(buf).unwrap_or_else(|_| name.to_string()))
    }
}

/// The key of a constant expression's value: (file, start, end, expression address).
type ConstKey = (usize, u32, u32, usize);

/// Whether a type expression's value depends on nothing but itself: type names, literals,
/// bare words, and arrays, hashes and accesses of those (no variables, no calls).
fn is_constant_type_expr(e: &Expr, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Name(_) | ExprKind::TypeName(_) => true,
        ExprKind::Access(base, args) => {
            is_constant_type_expr(base, depth + 1)
                && args.iter().all(|a| is_constant_type_expr(a, depth + 1))
        }
        ExprKind::Array(items) => items.iter().all(|a| is_constant_type_expr(a, depth + 1)),
        ExprKind::Hash(pairs) => pairs.iter().all(|(k, v)| {
            is_constant_type_expr(k, depth + 1) && is_constant_type_expr(v, depth + 1)
        }),
        _ => false,
    }
}

/// The text a value interpolates to in a string.
pub fn interpolate(v: &Value) -> String {
    let mut out = String::new();
    puppet_types::format::interpolated_value(&mut out, v);
    out
}

pub(crate) fn type_name_of(v: &Value) -> String {
    match v {
        Value::Undef => "Undef".into(),
        Value::Default => "Default".into(),
        Value::Type(_) => "Type".into(),
        other => {
            let t = puppet_types::generalize(&puppet_types::infer(other)).to_string();
            t.split('[').next().unwrap_or("").to_string()
        }
    }
}

fn a_an(s: &str) -> String {
    let first = s.chars().next().unwrap_or('x').to_ascii_lowercase();
    if "aeiouy".contains(first) {
        format!("an {s}")
    } else {
        format!("a {s}")
    }
}

/// The start and length of `x[from]`/`x[from, count]` on a sequence of `len` items, as
/// Puppet computes them (negative from counts from the end, negative count is an end index).
fn slice_range(len: usize, keys: &[Value]) -> Result<Option<(usize, usize)>, String> {
    let int = |v: &Value| match v {
        Value::Integer(i) => Ok(*i),
        other => Err(format!(
            "Access to string/array expects an Integer, got {}",
            type_name_of(other)
        )),
    };
    let (from, count) = match keys {
        [a] => (int(a)?, 1),
        [a, b] => (int(a)?, int(b)?),
        _ => return Err(format!("Expected 1 or 2 keys, got {}", keys.len())),
    };
    // In i128: `start + count` must not overflow for counts up to Integer's max.
    let (len, from, count) = (len as i128, i128::from(from), i128::from(count));
    let mut start = if from < 0 { len + from } else { from };
    let end = if count < 0 {
        len + count + 1
    } else {
        start + count
    };
    // A start before the first element shortens the slice (`[1,2,3,4][-5,2]` is `[1]`).
    if start < 0 {
        start = 0;
    }
    if start >= len {
        return Ok(None);
    }
    let end = end.min(len);
    if end <= start {
        return Ok(None);
    }
    Ok(Some((start as usize, (end - start) as usize)))
}

pub(crate) fn lambda_signature(c: &mut Compiler, l: &LambdaDef, scope: ScopeId) -> BlockSignature {
    let mut types = Vec::new();
    let mut min = 0;
    let mut max = Some(0usize);
    for p in &l.params {
        let t = match &p.type_expr {
            Some(te) => match c.eval(te, scope) {
                Ok(Value::Type(t)) => t,
                _ => Type::Any,
            },
            None => Type::Any,
        };
        types.push(t);
        if p.captures_rest {
            max = None;
        } else {
            if p.default.is_none() {
                min += 1;
            }
            max = max.map(|m| m + 1);
        }
    }
    BlockSignature { types, min, max }
}

impl CallContext for Compiler {
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError> {
        if let Some(l) = block.as_any().and_then(|a| a.downcast_ref::<EvalLambda>()) {
            let saved_current = self.current;
            let r = self.call_lambda(&l.def.clone(), l.scope, args);
            self.current = saved_current;
            return match r {
                Ok(v) => Ok(v),
                Err(Flow::Next(v)) => Ok(v),
                Err(Flow::Break(_)) => Err(CallError::Break),
                Err(Flow::Return(v, _)) => Err(CallError::Return(v)),
                Err(Flow::Error(e)) => {
                    // Keep the evaluator's message and location through the function.
                    self.pending_error = Some(e.clone());
                    Err(CallError::new("EVAL_FLOW", e.message))
                }
            };
        }
        block.call(self, args)
    }

    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let span = self.call_span.clone().unwrap_or_else(|| Span {
            file: Arc::new(SourceFile::new(None, "")),
            start: 0,
            end: 0,
        });
        let scope = self.current;
        let lambda = block
            .and_then(|b| b.as_any())
            .and_then(|a| a.downcast_ref::<EvalLambda>())
            .map(|l| l.def.clone());
        // As Puppet's `call_function` from Ruby: no frame of Puppet's stack for this call
        // (`PuppetStack.stacktrace` still shows the Puppet call being made).
        self.call_labels.push("Function Call");
        let r = self.call_labeled_inner("Function Call", name, args, lambda.as_ref(), scope, &span);
        self.call_labels.pop();
        match r {
            Ok(v) => Ok(v),
            Err(Flow::Next(v)) => Err(CallError::Next(v)),
            Err(Flow::Break(_)) => Err(CallError::Break),
            Err(Flow::Return(v, _)) => Err(CallError::Return(v)),
            Err(Flow::Error(e)) if e.message == format!("Unknown function: '{name}'.") => Err(
                CallError::new(puppet_functions::codes::UNKNOWN_FUNCTION, e.message),
            ),
            Err(Flow::Error(e)) => Err(CallError::new("EVAL_FLOW", e.message)),
        }
    }

    fn variable(&self, name: &str) -> Option<Value> {
        // `::x` names a top-scope variable (3.x functions' `lookupvar('::fqdn')`).
        if let Some(top) = name.strip_prefix("::").filter(|n| !n.contains("::")) {
            return self.scopes.get(self.top).vars.get(top).cloned();
        }
        self.scopes.lookup(self.current, name).cloned()
    }

    fn log(&mut self, level: LogLevel, message: &str) {
        // A function's warning is Ruby's `Puppet.warning`: no scope; other levels carry the
        // scope.
        if level == LogLevel::Warning {
            Compiler::log(self, level, message.to_string(), None);
            return;
        }
        let label = self.scopes.label(self.current);
        Compiler::log(self, level, message.to_string(), Some(label));
    }

    fn type_alias(&self, name: &str) -> Option<Type> {
        self.aliases
            .get(name.to_ascii_lowercase().as_str())
            .map(|a| Type::Alias(a.clone()))
    }

    fn catalog(&mut self) -> Option<&mut dyn puppet_functions::CatalogAccess> {
        Some(self)
    }

    fn annotations(&mut self) -> Option<&mut puppet_functions::Annotations> {
        Some(&mut self.annotations)
    }

    fn resolve_type_name(&mut self, name: &str) -> Option<Type> {
        let t = self.resolve_type(name);
        // Problems of the alias surface where the type is written in the manifest.
        self.invalid_alias = None;
        self.unresolvable_alias = None;
        match t {
            Type::TypeReference(_) => None,
            t => Some(t),
        }
    }

    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        if !self.warned_once.insert(format!("key:{key}")) {
            return false;
        }
        Compiler::log(self, LogLevel::Warning, message.to_string(), None);
        true
    }

    fn puppet_stack(&self) -> Vec<(String, u32)> {
        self.puppet_stack.iter().rev().cloned().collect()
    }

    fn module_directory(&self, name: &str) -> Option<String> {
        self.env
            .module_dir(name)
            .map(|p| p.to_string_lossy().into_owned())
    }

    fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        match self.env.source().read_bytes(std::path::Path::new(path)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(puppet_loader::ProviderError::NotFound(_)) => Ok(None),
            // Outside the module path and environment: the host's file, when allowed.
            Err(puppet_loader::ProviderError::Escape { .. }) if self.settings.allow_host_files => {
                crate::host::read_file(path)
            }
            Err(e) => Err(e.to_string()),
        }
    }

    fn module_file(&self, name: &str, relative: &str) -> Option<Vec<u8>> {
        let path = self.env.module_dir(name)?.join(relative);
        self.env.read_module_file(&path.to_string_lossy())
    }

    fn deprecation_at_call(&mut self, key: &str, message: &str) {
        let (file, line) = match &self.call_span {
            Some(s) => (
                s.file
                    .path
                    .as_ref()
                    .map(|p| p.to_string())
                    .unwrap_or_else(|| "unknown".to_string()),
                s.line_col().0,
            ),
            None => ("unknown".to_string(), 0),
        };
        if self.warned_once.insert(format!("{key}-from-{file}-{line}")) {
            let text = format!("{message}\n   (file: {file}, line: {line})");
            Compiler::log(self, LogLevel::Warning, text, None);
        }
    }
}

#[cfg(test)]
mod capitalize_tests {
    use super::{capitalize, capitalize_lowered};

    /// The rule spelled out: split at `::`, upper-case each segment's first character.
    fn reference(name: &str) -> String {
        name.split("::")
            .map(|seg| {
                let mut c = seg.chars();
                match c.next() {
                    Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                    None => String::new(),
                }
            })
            .collect::<Vec<_>>()
            .join("::")
    }

    #[test]
    fn fast_paths_agree_with_the_rule() {
        let long = "a".repeat(70) + "::b";
        for name in [
            "",
            "file",
            "FILE",
            "foo::bar",
            "Foo::BAR::baz",
            "::foo",
            "foo::",
            "a:::b",
            "a::::b",
            ":a",
            "a:b",
            "élan::x",
            "x::élan",
            "package_1::x-y",
            &long,
        ] {
            assert_eq!(capitalize(name), reference(name), "{name:?}");
            assert_eq!(
                capitalize_lowered(name).as_str(),
                reference(&name.to_ascii_lowercase()),
                "{name:?}"
            );
        }
    }
}
