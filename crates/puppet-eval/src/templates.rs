//! Templates rendered by the compiler: modules' ERB files and ERB text (`template`,
//! `inline_template`) in the calling scope, EPP files (`epp`, in the top scope) and EPP
//! text (`inline_epp`, in the calling scope) with their parameters; the compiler's side of
//! `CallContext::render_template`, and the evaluator seen from an ERB template
//! ([`ErbScope`]).
//!
//! The functions themselves (their signatures and argument checks) are puppet-functions'
//! registry's; module templates come from the environment.

use crate::error::{err as fail, Flow, R};
use crate::eval::Compiler;
use crate::ir::{SourceFile, Span};
use crate::lower::lower_file;
use crate::scope::{Scope, ScopeId, ScopeKind};
use puppet_functions::TemplateSource;
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// An exception Puppet's template wrapper does not rescue (not a `StandardError`): the
/// compile stops with its message alone, without `Evaluation Error:` or a location.
fn unrescued<T>(message: String, span: &Span) -> R<T> {
    Err(Flow::Error(crate::error::EvalError::complete(
        message,
        Some(span.clone()),
    )))
}

impl Compiler {
    /// Every variable `scope` sees, its own replacing its enclosing scopes' (Puppet's
    /// `Scope#to_hash`, as a template's `scope.to_hash` and a 3.x function's `to_hash` see
    /// it).
    pub(crate) fn visible_variables(&self, scope: ScopeId) -> indexmap::IndexMap<SmolStr, Value> {
        let mut out = indexmap::IndexMap::new();
        let mut chain = Vec::new();
        let mut id = Some(scope);
        while let Some(i) = id {
            chain.push(i);
            id = self.scopes.get(i).parent;
        }
        // Outer scopes first, so inner variables replace outer ones.
        for i in chain.into_iter().rev() {
            for (k, v) in &self.scopes.get(i).vars {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }

    /// Renders a template for `CallContext::render_template`, in `scope` (the caller's),
    /// for the call at `span`. Every ERB output is kept for `Compiled::template_outputs`.
    pub(crate) fn render_template_in(
        &mut self,
        template: TemplateSource<'_>,
        scope: ScopeId,
        span: &Span,
    ) -> R<Value> {
        match template {
            TemplateSource::ErbFile(name) => {
                let out = erb_file(self, name, scope, span)?;
                self.template_outputs.push(out.to_string());
                Ok(Value::String(out))
            }
            TemplateSource::ErbText(text) => {
                let sources = self.env.ruby_sources().clone();
                let mut adapter = ErbScope {
                    c: &mut *self,
                    scope,
                    span: span.clone(),
                };
                let rendered = puppet_erb::Template::parse(text, "")
                    .and_then(|t| t.render_with(&mut adapter, sources));
                match rendered {
                    Ok(s) => {
                        self.template_outputs.push(s.to_string());
                        Ok(Value::String(s))
                    }
                    Err(puppet_erb::ErbError::Runtime {
                        message,
                        rescued: false,
                        ..
                    }) => unrescued(message, span),
                    // Puppet's inline_template: "Failed to parse inline template: " and the
                    // Ruby exception's message.
                    Err(puppet_erb::ErbError::Runtime { message, .. }) => fail(
                        format!("Error while evaluating a Function Call, Failed to parse inline template: {message}"),
                        span,
                    ),
                    Err(e) => fail(format!("Error while evaluating a Function Call, {e}"), span),
                }
            }
            TemplateSource::EppFile { name, parameters } => {
                epp_file(self, name, parameters.cloned(), span)
            }
            TemplateSource::EppText { text, parameters } => {
                render_epp(self, None, text, parameters.cloned(), scope, span)
            }
        }
    }
}

/// `epp('module/file.epp', {params})`: a module's EPP template (`.epp` may be left out),
/// which sees the top scope's variables and the parameters.
fn epp_file(c: &mut Compiler, name: &str, params: Option<Value>, span: &Span) -> R<Value> {
    let mut name = name.to_string();
    if c.env.template(&name).is_none() && !name.ends_with(".epp") {
        name.push_str(".epp");
    }
    let Some(t) = c.env.template(&name) else {
        return fail(
            format!("Error while evaluating a Function Call, Could not find template '{name}'"),
            span,
        );
    };
    let (path, text) = (t.path.clone(), t.text.clone());
    let top = c.top;
    render_epp(c, Some(&path), &text, params, top, span)
}

/// A module's ERB template rendered in the calling scope.
fn erb_file(c: &mut Compiler, name: &str, scope: ScopeId, span: &Span) -> R<puppet_types::Str> {
    let Some(t) = c.env.template(name) else {
        return fail(
            format!("Error while evaluating a Function Call, Could not find template '{name}'"),
            span,
        );
    };
    let path = t.path.clone();
    let sources = c.env.ruby_sources().clone();
    let mut adapter = ErbScope {
        c: &mut *c,
        scope,
        span: span.clone(),
    };
    match t.erb().and_then(|t| t.render_with(&mut adapter, sources)) {
        Ok(s) => Ok(s),
        Err(puppet_erb::ErbError::Runtime {
            message,
            rescued: false,
            ..
        }) => unrescued(message, span),
        Err(e) => {
            let (line, detail) = match &e {
                puppet_erb::ErbError::Syntax { line, message, .. } => (*line, message.clone()),
                puppet_erb::ErbError::Unsupported {
                    line, construct, ..
                } => (
                    *line,
                    format!("unsupported construct in ERB template: {construct}"),
                ),
                puppet_erb::ErbError::Runtime { line, message, .. } => (*line, message.clone()),
            };
            fail(
                format!(
                    "Error while evaluating a Function Call, Failed to parse template {name}:\n  Filepath: {path}\n  Line: {line}\n  Detail: {detail}\n"
                ),
                span,
            )
        }
    }
}

/// An EPP template parsed and lowered, or its first syntax error. Templates read from files
/// are kept (parsing is pure, and a module path has finitely many); inline text is not.
/// A template lowered, or why Puppet's EPP parser refuses it (its syntax error, else what
/// its validator finds: one error, or their count), with the place in the template: `"...
/// (file: F, line: L, column: C)"`, the file `inlined-epp-text` for an inline template.
/// Kept by path and text, the answer as well.
fn lowered_epp(path: Option<&str>, text: &str) -> Result<Arc<crate::lower::LoweredFile>, String> {
    type Lowered = Result<Arc<crate::lower::LoweredFile>, String>;
    type EppCache = std::collections::HashMap<(Option<String>, String), Lowered>;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<EppCache>> = std::sync::OnceLock::new();
    let key = (path.map(str::to_string), text.to_string());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(l) = cache.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return l;
    }
    let lowered = lower_epp(path, text);
    if let Ok(mut m) = cache.lock() {
        m.insert(key, lowered.clone());
    }
    lowered
}

fn lower_epp(path: Option<&str>, text: &str) -> Result<Arc<crate::lower::LoweredFile>, String> {
    let file_name = path.unwrap_or("inlined-epp-text");
    let refused = |d: &puppet_diagnostics::Diagnostic| {
        crate::compile::with_file_place(&d.clone().with_source(text), file_name)
    };
    let parse = puppet_syntax::flat::parse_epp(text.into());
    if let Some(e) = parse
        .errors()
        .iter()
        .find(|d| d.severity == puppet_syntax::Severity::Error)
    {
        return Err(refused(e));
    }
    // Puppet validates the template as it parses it.
    let checked = puppet_syntax::validate::validate(&puppet_syntax::parse_epp(text));
    let errors: Vec<&puppet_diagnostics::Diagnostic> =
        checked.iter().filter(|d| d.is_error()).collect();
    if let Some(first) = errors.first() {
        return Err(refused(&crate::compile::validation_error(
            first,
            errors.len(),
        )));
    }
    let file = Arc::new(SourceFile::new(path.map(str::to_string), text));
    Ok(Arc::new(lower_file(file, &parse)))
}

/// Renders an EPP template given as text, with parameters from a hash, in a scope under
/// `parent` (the top scope for `epp()`, the calling scope for `inline_epp()`).
pub(crate) fn render_epp(
    c: &mut Compiler,
    path: Option<&str>,
    text: &str,
    params: Option<Value>,
    parent: ScopeId,
    span: &Span,
) -> R<Value> {
    let lowered = match lowered_epp(path, text) {
        Ok(l) => l,
        Err(message) => {
            let function = if path.is_some() { "epp" } else { "inline_epp" };
            return fail(
                format!(
                    "Error while evaluating a Function Call, {function}(): Invalid EPP: {message}"
                ),
                span,
            );
        }
    };
    let mut s = Scope::new(ScopeKind::Local, Some(parent), c.scopes.label(parent));
    s.module = None;
    let id = c.scopes.add(s);
    let given: indexmap::IndexMap<SmolStr, Value> = match &params {
        Some(Value::Hash(h)) => h
            .iter()
            .map(|(k, v)| (SmolStr::new(k.to_plain_string()), v.clone()))
            .collect(),
        _ => indexmap::IndexMap::new(),
    };
    if let Some(decl) = &lowered.epp_params {
        // An undef value for a name the template does not declare is not assigned at all
        // (Puppet's `call_by_name` skips nil values), so it is not an unknown parameter.
        let unknown: Vec<String> = given
            .iter()
            .filter(|(k, v)| !v.is_undef() && !decl.iter().any(|p| p.name == **k))
            .map(|(k, _)| format!("has no parameter named '{k}'"))
            .collect();
        if !unknown.is_empty() {
            c.release_scope(id);
            let problems = crate::eval::bind::problems_message("lambda", &unknown);
            return fail(
                format!("Error while evaluating a Function Call, {problems}"),
                span,
            );
        }
        for p in decl {
            // An undef value is as good as none: the default applies (Puppet's
            // `call_by_name`); without a default the parameter is undef when it was given.
            let v = match given.get(&p.name) {
                Some(v) if !v.is_undef() => v.clone(),
                given_undef => match &p.default {
                    Some(d) => c.eval(d, id)?,
                    None if given_undef.is_some() => Value::Undef,
                    None => {
                        c.release_scope(id);
                        return fail(
                            format!(
                                "Error while evaluating a Function Call, lambda: expects a value for parameter '{}'",
                                p.name
                            ),
                            span,
                        );
                    }
                },
            };
            if let Some(t) = &p.type_expr {
                if let Value::Type(ty) = c.eval(t, id)? {
                    if !puppet_types::is_instance(&ty, &v) {
                        c.release_scope(id);
                        return fail(
                            format!(
                                "Error while evaluating a Function Call, {}",
                                puppet_types::mismatch::describe_value_mismatch(
                                    &format!("lambda: parameter '{}'", p.name),
                                    &ty,
                                    &v
                                )
                                .unwrap_or_default()
                            ),
                            span,
                        );
                    }
                }
            }
            c.scopes.get_mut(id).vars.insert(p.name.clone(), v);
        }
    } else {
        for (k, v) in given {
            c.scopes.get_mut(id).vars.insert(k, v);
        }
    }
    let saved = std::mem::take(&mut c.render_buffer);
    let saved_encoding = std::mem::take(&mut c.render_encoding);
    let saved_sensitive = std::mem::replace(&mut c.render_sensitive, false);
    let r = c.eval_block(&lowered.statements, id);
    let out = std::mem::replace(&mut c.render_buffer, saved);
    let encoding = std::mem::replace(&mut c.render_encoding, saved_encoding);
    let sensitive = std::mem::replace(&mut c.render_sensitive, saved_sensitive);
    c.release_scope(id);
    let out = Value::String(puppet_types::Str::with_binary(out, encoding.is_binary()));
    match r {
        Ok(_) | Err(Flow::Return(..)) if sensitive => Ok(Value::Sensitive(Arc::new(out))),
        Ok(_) | Err(Flow::Return(..)) => Ok(out),
        Err(e) => Err(e),
    }
}

/// The evaluator seen from an ERB template: `@x`, `scope.lookupvar`, `scope.to_hash` and
/// `scope.function_*` / `scope.call_function`.
pub(crate) struct ErbScope<'a> {
    c: &'a mut Compiler,
    scope: ScopeId,
    span: Span,
}

impl puppet_erb::TemplateScope for ErbScope<'_> {
    fn catalog_classes(&mut self) -> Option<Vec<String>> {
        puppet_functions::CatalogAccess::classes(&*self.c)
    }

    fn catalog_resources(&mut self) -> Option<Vec<(String, String)>> {
        puppet_functions::CatalogAccess::resources(&*self.c)
    }

    fn catalog_tags(&self) -> Option<Vec<String>> {
        Some(
            self.c
                .catalog_tags()
                .iter()
                .map(|t| t.to_string())
                .collect(),
        )
    }

    fn setting(&self, name: &str) -> Option<Value> {
        puppet_functions::CallContext::setting(&*self.c, name)
    }

    fn lookup(&self, name: &str) -> Option<Value> {
        // As `$name` reads it (`scope.lookupvar('c::x')` is `$c::x`), without warnings.
        self.c.peek_var(name.trim_start_matches('$'), self.scope)
    }

    fn instance_variable(&self, name: &str) -> Option<Value> {
        self.c.scopes.lookup(self.scope, name).cloned()
    }

    fn mutated_variable(&mut self, name: &str, original: &Value, value: Value) {
        // The scope that holds the variable, and the parameter of its resource that held
        // the same object (a class or define parameter), change with it.
        let mut id = Some(self.scope);
        while let Some(i) = id {
            let s = self.c.scopes.get(i);
            if s.vars.contains_key(name) {
                let resource = s.resource.clone();
                self.c
                    .scopes
                    .get_mut(i)
                    .vars
                    .insert(name.into(), value.clone());
                if let Some(key) = resource {
                    if let Some(r) = self.c.catalog.resources.get_mut(&key) {
                        if r.params.get(name) == Some(original) {
                            r.params.insert(name.into(), value);
                        }
                    }
                }
                return;
            }
            id = s.parent;
        }
    }

    fn all_variables(&self) -> indexmap::IndexMap<SmolStr, Value> {
        self.c.visible_variables(self.scope)
    }

    fn set_variable(&mut self, name: &str, value: Value) -> Result<(), String> {
        let span = self.span.clone();
        match self.c.set_var(name, value, self.scope, &span) {
            Ok(()) => Ok(()),
            Err(Flow::Error(e)) => Err(e.message),
            Err(_) => Err(format!("unexpected control flow setting {name}")),
        }
    }

    /// `Puppet.warning`, `warn` and the like in a template: the compile's log, as from a
    /// function (a deprecation once per key).
    fn log(&mut self, level: &str, message: &str) {
        use puppet_functions::CallContext;
        match level.strip_prefix("deprecation:") {
            Some(key) => {
                self.c.warn_once(key, message);
            }
            None => CallContext::log(
                &mut *self.c,
                puppet_functions::LogLevel::from_name(level),
                message,
            ),
        }
    }

    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        puppet_functions::CallContext::warn_once(&mut *self.c, key, message)
    }

    fn unknown_variable(&mut self, name: &str) -> Result<(), String> {
        puppet_functions::CallContext::ruby_variable_missing(&mut *self.c, name)
    }

    fn unknown_variable_reason(&mut self, name: &str) -> Option<String> {
        puppet_functions::CallContext::ruby_variable_reason(&mut *self.c, name)
    }

    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        let span = self.span.clone();
        match self.c.call_named(name, args, None, self.scope, &span) {
            Ok(v) => Ok(v),
            Err(Flow::Error(e)) => Err(e.message),
            Err(_) => Err(format!("unexpected control flow from {name}()")),
        }
    }
}
