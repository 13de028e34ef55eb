//! The built-in functions that need the evaluator: logging, `fail`, class declaration
//! (`include`, `require`, `contain`), `defined`, `getvar`, `create_resources`, control flow
//! (`break`, `next`, `return`) and templates (`template` and `inline_template` for ERB,
//! `epp` and `inline_epp`; module templates come from the environment).
//!
//! Every other built-in lives in puppet-functions' registry and reaches the evaluator only
//! through its `CallContext`.

use crate::compile::ClassDecl;
use crate::error::Flow;
use crate::eval::Compiler;
use crate::ir::{LambdaDef, SourceFile, Span};
use crate::lower::lower_file;
use crate::scope::{Scope, ScopeId, ScopeKind};
use puppet_functions::LogLevel;
use puppet_types::{Type, Value};
use smol_str::SmolStr;
use std::sync::Arc;

type R<T> = Result<T, Flow>;

fn fail<T>(message: impl Into<String>, span: &Span) -> R<T> {
    Err(Flow::Error(crate::error::EvalError {
        code: crate::error::codes::EVAL_ERROR,
        kind: Default::default(),
        message: message.into(),
        span: Some(span.clone()),
    }))
}

/// Calls an evaluator built-in; `None` when `name` is not one.
pub(crate) fn call(
    c: &mut Compiler,
    name: &str,
    args: &[Value],
    lambda: Option<&Arc<LambdaDef>>,
    scope: ScopeId,
    span: &Span,
) -> Option<R<Value>> {
    let _ = lambda;
    let level = match name {
        "debug" => Some(LogLevel::Debug),
        "info" => Some(LogLevel::Info),
        "notice" => Some(LogLevel::Notice),
        "warning" => Some(LogLevel::Warning),
        "err" => Some(LogLevel::Err),
        "alert" => Some(LogLevel::Alert),
        "crit" => Some(LogLevel::Crit),
        "emerg" => Some(LogLevel::Emerg),
        _ => None,
    };
    if let Some(level) = level {
        let msg = args.iter().map(log_text).collect::<Vec<_>>().join(" ");
        let label = c.scopes.label(scope);
        c.log(level, msg, Some(label));
        return Some(Ok(Value::Undef));
    }
    Some(match name {
        "fail" => {
            let msg = args.iter().map(log_text).collect::<Vec<_>>().join(" ");
            fail(
                format!("Error while evaluating a Function Call, {msg}"),
                span,
            )
        }
        "include" | "require" | "contain" => {
            fn has_undef(v: &Value) -> bool {
                match v {
                    Value::Array(a) => a.iter().any(has_undef),
                    other => other.is_undef(),
                }
            }
            if args.iter().any(has_undef) {
                return Some(fail("Error while evaluating a Function Call, Cannot use undef as a class name", span));
            }
            let mut names = Vec::new();
            flatten_names(args, &mut names);
            if names.iter().any(|n| n.is_empty()) {
                return Some(fail("Error while evaluating a Function Call, Cannot use empty string as a class name", span));
            }
            let how = match name {
                "require" => ClassDecl::Require,
                "contain" => ClassDecl::Contain,
                _ => ClassDecl::Include,
            };
            if let Err(e) = c.declare_classes(&names, how, scope, span) {
                return Some(Err(e));
            }
            let refs = names
                .iter()
                .map(|n| {
                    let canonical = n.trim_start_matches("::").to_ascii_lowercase();
                    Value::Type(Type::Class(Some(SmolStr::new(canonical))))
                })
                .collect();
            // The declared classes, as references.
            Ok(Value::array(refs))
        }
        "import" => fail(
            "Use of 'import' has been discontinued in favor of a manifest directory. See http://links.puppet.com/puppet-import-deprecation",
            span,
        ),
        "break" => Err(Flow::Break(Some(span.clone()))),
        "next" => Err(Flow::Next(args.first().cloned().unwrap_or(Value::Undef))),
        "return" => Err(Flow::Return(
            args.first().cloned().unwrap_or(Value::Undef),
            Some(span.clone()),
        )),
        "defined" => defined(c, args, scope, span),
        "realize" => {
            let mut keys = Vec::new();
            for a in args {
                keys.extend(c.refs_of(a));
            }
            for k in keys {
                match c.resolve_ref(&k) {
                    Some(k) => c.catalog.realize(&k),
                    // Declared later, perhaps: Puppet's collector waits for it until the
                    // compile finishes (`Compiler::finish` reports what never came).
                    None => c.catalog.pending_realize.push(k),
                }
            }
            Ok(Value::Undef)
        },
        "getvar" => getvar(c, args, lambda, scope, span),
        "lookup" | "hiera" | "hiera_array" | "hiera_hash" | "hiera_include" => {
            return crate::hiera::call(c, name, args, lambda, scope, span)
        }
        "create_resources" => c.create_resources(args, scope, span),
        "tag" => {
            let mut names = Vec::new();
            flatten_names(args, &mut names);
            let key = c.scopes.container_of(scope);
            if let Some(r) = c.catalog.resources.get_mut(&key) {
                for n in names {
                    r.tag(&n);
                }
            }
            Ok(Value::Undef)
        }
        "tagged" => {
            let mut names = Vec::new();
            flatten_names(args, &mut names);
            let key = c.scopes.container_of(scope);
            let classes = c.evaluated_classes();
            let tags = c.catalog.get(&key).map(|r| r.tags.clone()).unwrap_or_default();
            let all = names.iter().all(|n| {
                let n = n.to_ascii_lowercase();
                tags.contains(n.as_str())
                    || c.catalog.tags.contains(n.as_str())
                    || classes.contains(n.as_str())
                    || n == "class"
            });
            Ok(Value::Boolean(all))
        }
        "inline_template" => {
            let mut out = String::new();
            for a in args {
                let Value::String(text) = a else {
                    return Some(fail("Error while evaluating a Function Call, 'inline_template' expects String values", span));
                };
                let mut adapter = ErbScope { c: &mut *c, scope, span: span.clone() };
                match puppet_erb::render(text, "", &mut adapter) {
                    Ok(s) => {
                        out.push_str(&s);
                        c.template_outputs.push(s);
                    }
                    Err(e) => return Some(fail(format!("Error while evaluating a Function Call, {e}"), span)),
                }
            }
            if args.len() > 1 {
                c.template_outputs.push(out.clone());
            }
            Ok(Value::string(out))
        }
        "inline_epp" => {
            let Some(Value::String(text)) = args.first() else {
                return Some(fail(
                    "Error while evaluating a Function Call, 'inline_epp' expects a String value",
                    span,
                ));
            };
            let params = args.get(1).cloned();
            render_epp(c, None, text, params, scope, span)
        }
        "epp" => epp(c, args, span),
        "template" => template(c, args, scope, span),
        "generate" => generate(c.settings.allow_exec, args, span),
        _ => return None,
    })
}

/// `generate(command, args...)`: Puppet runs the command on the compiling host. Puppet's
/// checks of the command's path are made; the command runs only when the settings allow it
/// ([`Settings::allow_exec`](crate::Settings::allow_exec), see [`crate::host`]), else the
/// call is an error (never a made-up output).
fn generate(allow_exec: bool, args: &[Value], span: &Span) -> R<Value> {
    let words: Vec<String> = args
        .iter()
        .map(|a| match a {
            Value::Undef => String::new(),
            other => other.to_plain_string(),
        })
        .collect();
    let result = match words.first() {
        None => Err("generate(): Wrong number of arguments given (0 for minimum 1)".to_string()),
        Some(cmd) => crate::host::check_generator(cmd).and_then(|()| {
            if allow_exec {
                crate::host::run_generator(&words)
            } else {
                Err(format!(
                    "generate() would run {cmd} on the compiling host; commands run only when allowed (Settings::allow_exec, compile --allow-exec)"
                ))
            }
        }),
    };
    match result {
        Ok(output) => Ok(Value::string(output)),
        Err(message) => fail(
            format!("Error while evaluating a Function Call, {message}"),
            span,
        ),
    }
}

/// How a value is printed by the logging functions.
fn log_text(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        other => other.to_plain_string(),
    }
}

fn flatten_names(args: &[Value], out: &mut Vec<String>) {
    for a in args {
        match a {
            Value::Array(items) => flatten_names(items, out),
            Value::String(s) => out.push(s.to_string()),
            Value::Type(Type::Class(Some(n))) => out.push(n.to_string()),
            Value::Type(Type::Resource(r)) if r.type_name.as_deref() == Some("Class") => {
                if let Some(t) = &r.title {
                    out.push(t.to_string());
                }
            }
            other => out.push(other.to_plain_string()),
        }
    }
}

fn defined(c: &mut Compiler, args: &[Value], scope: ScopeId, span: &Span) -> R<Value> {
    // Puppet's dispatch: `Variant[String, Type[CatalogEntry], Type[Type[CatalogEntry]]]`.
    for a in args {
        let catalog_entry = |t: &Type| {
            matches!(
                t,
                Type::Resource(_) | Type::Class(_) | Type::CatalogEntry | Type::Type(_)
            )
        };
        match a {
            Value::String(_) => {}
            Value::Type(Type::Class(None)) => {
                return fail(
                    "Error while evaluating a Function Call, The given class type is a reference to all classes",
                    span,
                )
            }
            Value::Type(Type::Resource(r)) if r.type_name.is_none() => {
                return fail(
                    "Error while evaluating a Function Call, The given resource type is a reference to all kind of types",
                    span,
                )
            }
            Value::Type(t) if catalog_entry(t) => {}
            Value::Type(t) => {
                return fail(
                    format!("Error while evaluating a Function Call, 'defined' parameter 'vals' expects a value of type String, Type[CatalogEntry], or Type[Type[CatalogEntry]], got Type[{}]", puppet_types::generalize(t)),
                    span,
                )
            }
            other => {
                return fail(
                    format!("Error while evaluating a Function Call, 'defined' parameter 'vals' expects a value of type String, Type[CatalogEntry], or Type[Type], got {}", crate::names::type_name_of(other)),
                    span,
                )
            }
        }
    }
    for a in args {
        let found = match a {
            Value::String(s) if s.starts_with('$') => {
                let name = &s[1..];
                c.lookup_var(name, scope, span)?.is_some()
            }
            Value::String(s) => {
                let n = s.trim_start_matches("::").to_ascii_lowercase();
                // A string names a class or a resource type (not a function).
                c.env.class(n.as_str()).is_some()
                    || c.env.define(n.as_str()).is_some()
                    || c.env.resource_type_known(&n)
            }
            Value::Type(Type::Resource(r)) => match (&r.type_name, &r.title) {
                // Found by title or by any alias (a namevar that differs from the
                // title), as Puppet's catalog lookup does.
                (Some(t), Some(title)) => c
                    .resolve_ref(&crate::catalog::ResourceKey::new(t, title))
                    .is_some(),
                (Some(t), None) => {
                    let n = t.to_ascii_lowercase();
                    c.env.define(n.as_str()).is_some() || c.env.resource_type_known(&n)
                }
                _ => true,
            },
            Value::Type(Type::Class(Some(n))) => c.class_scope(n).is_some(),
            Value::Type(_) => true,
            _ => false,
        };
        if found {
            return Ok(Value::Boolean(true));
        }
    }
    Ok(Value::Boolean(false))
}

/// `getvar('a::b.key.0', default) |$error| { }`: a variable, then `get`'s navigation.
fn getvar(
    c: &mut Compiler,
    args: &[Value],
    lambda: Option<&Arc<LambdaDef>>,
    scope: ScopeId,
    span: &Span,
) -> R<Value> {
    let Some(Value::String(path)) = args.first() else {
        return fail(
            "Error while evaluating a Function Call, 'getvar' expects a String value",
            span,
        );
    };
    let default = args.get(1).cloned();
    let Some((var, nav)) = split_getvar(path) else {
        return fail(
            "Error while evaluating a Function Call, 'getvar' The given string does not start with a valid variable name",
            span,
        );
    };
    let value = match c.peek_var(var, scope) {
        Some(v) => v,
        None => return Ok(default.unwrap_or(Value::Undef)),
    };
    if nav.is_empty() {
        return Ok(match (value, default) {
            (Value::Undef, Some(d)) => d,
            (v, _) => v,
        });
    }
    let mut get_args = vec![value, Value::string(nav)];
    if let Some(d) = default {
        get_args.push(d);
    }
    c.call_named("get", get_args, lambda, scope, span)
}

/// Splits `x::y.a.b` into the variable name and the navigation after the first `.`, when
/// the name matches Puppet's `(::)?([a-z]\w*::)*[a-z_]\w*` followed by `.` or the end.
fn split_getvar(path: &str) -> Option<(&str, &str)> {
    let end = path.find('.').unwrap_or(path.len());
    let name = &path[..end];
    let bare = name.strip_prefix("::").unwrap_or(name);
    let segs: Vec<&str> = bare.split("::").collect();
    let (last, init) = segs.split_last()?;
    let word = |s: &str, first_ok: fn(u8) -> bool| {
        let b = s.as_bytes();
        !b.is_empty() && first_ok(b[0]) && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    if !init.iter().all(|s| word(s, |c| c.is_ascii_lowercase()))
        || !word(last, |c| c.is_ascii_lowercase() || c == b'_')
    {
        return None;
    }
    let nav = if end < path.len() {
        &path[end + 1..]
    } else {
        ""
    };
    Some((name, nav))
}

/// `epp('module/file.epp', {params})`: a module's EPP template (`.epp` may be left out),
/// which sees the top scope's variables and the parameters.
fn epp(c: &mut Compiler, args: &[Value], span: &Span) -> R<Value> {
    if args.is_empty() || args.len() > 2 {
        let got = if args.is_empty() {
            "none".to_string()
        } else {
            args.len().to_string()
        };
        return fail(
            format!("Error while evaluating a Function Call, 'epp' expects between 1 and 2 arguments, got {got}"),
            span,
        );
    }
    let Value::String(name) = &args[0] else {
        return fail(
            format!(
                "Error while evaluating a Function Call, 'epp' parameter 'path' expects a String value, got {}",
                crate::names::type_name_of(&args[0])
            ),
            span,
        );
    };
    let params = match args.get(1) {
        None | Some(Value::Undef) => None,
        Some(h @ Value::Hash(_)) => Some(h.clone()),
        Some(other) => {
            return fail(
                format!(
                    "Error while evaluating a Function Call, 'epp' parameter 'parameters' expects a value of type Undef or Hash, got {}",
                    crate::names::type_name_of(other)
                ),
                span,
            )
        }
    };
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

/// `template('module/file.erb', ...)`: modules' ERB templates rendered in the calling scope,
/// concatenated.
fn template(c: &mut Compiler, args: &[Value], scope: ScopeId, span: &Span) -> R<Value> {
    if args.is_empty() {
        return fail(
            "Error while evaluating a Function Call, template(): Wrong number of arguments given (0 for minimum 1)",
            span,
        );
    }
    let mut out = String::new();
    for a in args {
        let name = match a {
            Value::String(s) => s.to_string(),
            Value::Undef => String::new(),
            other => {
                return fail(
                    format!(
                        "Error while evaluating a Function Call, undefined method `split' for {}:{}\n\n      path.split(File::SEPARATOR, 2)\n          ^^^^^^",
                        puppet_stdlib::ruby::inspect(other),
                        puppet_stdlib::ruby::class_name(other)
                    ),
                    span,
                )
            }
        };
        let Some(t) = c.env.template(&name) else {
            return fail(
                format!("Error while evaluating a Function Call, Could not find template '{name}'"),
                span,
            );
        };
        let (path, text) = (t.path.clone(), t.text.clone());
        let mut adapter = ErbScope {
            c: &mut *c,
            scope,
            span: span.clone(),
        };
        match parsed_template(&path, &text).and_then(|t| t.render(&mut adapter)) {
            Ok(s) => out.push_str(&s),
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
                return fail(
                    format!(
                        "Error while evaluating a Function Call, Failed to parse template {name}:\n  Filepath: {path}\n  Line: {line}\n  Detail: {detail}\n"
                    ),
                    span,
                );
            }
        }
    }
    c.template_outputs.push(out.clone());
    Ok(Value::string(out))
}

/// Parsed ERB templates by path, with the text each was parsed from.
type ErbCache = std::collections::HashMap<String, (Arc<str>, std::rc::Rc<puppet_erb::Template>)>;

thread_local! {
    /// The module templates parsed on this thread, with their text kept alive so a pointer
    /// comparison tells whether the entry is for this text. Parsing is pure, so the cache
    /// changes no result; it is per thread because parsed templates are not `Send`.
    static ERB_CACHE: std::cell::RefCell<ErbCache> = std::cell::RefCell::new(ErbCache::new());
}

/// A module template parsed once per thread (and text).
fn parsed_template(
    path: &str,
    text: &Arc<str>,
) -> Result<std::rc::Rc<puppet_erb::Template>, puppet_erb::ErbError> {
    let cached = ERB_CACHE.with(|c| {
        c.borrow()
            .get(path)
            .filter(|(t, _)| Arc::ptr_eq(t, text))
            .map(|(_, p)| p.clone())
    });
    if let Some(t) = cached {
        return Ok(t);
    }
    let parsed = std::rc::Rc::new(puppet_erb::Template::parse(text, path)?);
    ERB_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 1024 {
            c.clear();
        }
        c.insert(path.to_string(), (text.clone(), parsed.clone()));
    });
    Ok(parsed)
}

/// Renders an EPP template given as text, with parameters from a hash, in a scope under
/// `parent` (the top scope for `epp()`, the calling scope for `inline_epp()`).
/// An EPP template parsed and lowered, or its first syntax error. Templates read from files
/// are kept (parsing is pure, and a module path has finitely many); inline text is not.
fn lowered_epp(path: Option<&str>, text: &str) -> Result<Arc<crate::lower::LoweredFile>, String> {
    type EppCache = std::collections::HashMap<(String, String), Arc<crate::lower::LoweredFile>>;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<EppCache>> = std::sync::OnceLock::new();
    let key = path.map(|p| (p.to_string(), text.to_string()));
    if let Some(k) = &key {
        let cache = CACHE.get_or_init(Default::default);
        if let Some(l) = cache.lock().ok().and_then(|m| m.get(k).cloned()) {
            return Ok(l);
        }
    }
    let parse = puppet_syntax::parse_epp(text);
    if let Some(e) = parse
        .errors()
        .iter()
        .find(|d| d.severity == puppet_syntax::Severity::Error)
    {
        return Err(e.message.clone());
    }
    let file = Arc::new(SourceFile::new(path.map(str::to_string), text));
    let lowered = Arc::new(lower_file(file, &parse));
    if let Some(k) = key {
        if let Ok(mut m) = CACHE.get_or_init(Default::default).lock() {
            m.insert(k, lowered.clone());
        }
    }
    Ok(lowered)
}

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
            return fail(
                format!("Error while evaluating a Function Call, {message}"),
                span,
            )
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
        if let Some(unknown) = given.keys().find(|k| !decl.iter().any(|p| p.name == **k)) {
            c.release_scope(id);
            return fail(
                format!("Error while evaluating a Function Call, lambda: has no parameter named '{unknown}'"),
                span,
            );
        }
        for p in decl {
            let v = match given.get(&p.name) {
                Some(v) => v.clone(),
                None => match &p.default {
                    Some(d) => c.eval(d, id)?,
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
    let saved_sensitive = std::mem::replace(&mut c.render_sensitive, false);
    let r = c.eval_block(&lowered.statements, id);
    let out = std::mem::replace(&mut c.render_buffer, saved);
    let sensitive = std::mem::replace(&mut c.render_sensitive, saved_sensitive);
    c.release_scope(id);
    match r {
        Ok(_) | Err(Flow::Return(..)) if sensitive => {
            Ok(Value::Sensitive(Arc::new(Value::string(out))))
        }
        Ok(_) | Err(Flow::Return(..)) => Ok(Value::string(out)),
        Err(e) => Err(e),
    }
}

/// The evaluator seen from an ERB template: `@x`, `scope.lookupvar`, `scope.to_hash` and
/// `scope.function_*` / `scope.call_function`.
struct ErbScope<'a> {
    c: &'a mut Compiler,
    scope: ScopeId,
    span: Span,
}

impl puppet_erb::TemplateScope for ErbScope<'_> {
    fn lookup(&self, name: &str) -> Option<Value> {
        let name = name.trim_start_matches('$');
        if let Some(rest) = name.strip_prefix("::") {
            if !rest.contains("::") {
                return self.c.scopes.get(self.c.top).vars.get(rest).cloned();
            }
        }
        if let Some((class, var)) = name.trim_start_matches("::").rsplit_once("::") {
            let id = self.c.class_scope(class)?;
            return self.c.scopes.get(id).vars.get(var).cloned();
        }
        self.c.scopes.lookup(self.scope, name).cloned()
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
        let mut out = indexmap::IndexMap::new();
        let mut chain = Vec::new();
        let mut id = Some(self.scope);
        while let Some(i) = id {
            chain.push(i);
            id = self.c.scopes.get(i).parent;
        }
        // Outer scopes first, so inner variables replace outer ones.
        for i in chain.into_iter().rev() {
            for (k, v) in &self.c.scopes.get(i).vars {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }

    fn set_variable(&mut self, name: &str, value: Value) -> Result<(), String> {
        let span = self.span.clone();
        match self.c.set_var(name, value, self.scope, &span) {
            Ok(()) => Ok(()),
            Err(Flow::Error(e)) => Err(e.message),
            Err(_) => Err(format!("unexpected control flow setting {name}")),
        }
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
