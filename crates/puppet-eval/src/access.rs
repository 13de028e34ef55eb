//! The catalog under construction as module functions see it: `puppet_functions::CatalogAccess`
//! for the compiler (stdlib's `ensure_resource`, `ensure_packages`, `defined_with_params`,
//! `getparam`, `assert_private`...), and the declaration path they share with Puppet's
//! `create_resources`.
//!
//! Resources declared by a function are declared as a resource expression at the call
//! would declare them (same checks, defaults, containment and errors), in the scope the
//! function was called from.

use crate::catalog::ResourceKey;
use crate::error::{EvalError, Flow};
use crate::eval::Compiler;
use crate::ir::{ResourceForm, SourceFile, Span};
use crate::scope::ScopeId;
use indexmap::IndexMap;
use puppet_functions::{CallError, CatalogAccess};
use puppet_types::Value;
use smol_str::SmolStr;
use std::sync::Arc;

/// The prefix of errors of resource expressions, which a function's declarations drop.
const STATEMENT: &str = "Error while evaluating a Resource Statement, ";

impl Compiler {
    /// Declares `type_name[title]` with `params` as `create_resources` does: `type_name` may
    /// start with `@` (virtual) or `@@` (exported); `class` declares a class resource-like.
    /// An error of the declaration itself comes back as `Ok(Err(message))` (without the
    /// resource statement's prefix), for the caller to report at its call; errors raised
    /// while evaluating a declared class come back unchanged as `Err`.
    pub(crate) fn declare_from_function(
        &mut self,
        type_name: &str,
        title: &str,
        params: Vec<(SmolStr, Value)>,
        scope: ScopeId,
        span: &Span,
    ) -> Result<Result<(), String>, Flow> {
        let (form, bare) = if let Some(t) = type_name.strip_prefix("@@") {
            (ResourceForm::Exported, t)
        } else if let Some(t) = type_name.strip_prefix('@') {
            (ResourceForm::Virtual, t)
        } else {
            (ResourceForm::Regular, type_name)
        };
        let lname = bare.trim_start_matches("::").to_ascii_lowercase();
        let at = function_span(span);
        if lname == "class" {
            let cname = title.trim_start_matches("::").to_ascii_lowercase();
            if self.env.class(cname.as_str()).is_none() {
                return Ok(Err(format!("Could not find declared class {cname}")));
            }
        }
        let attrs: Vec<(SmolStr, Value, bool)> =
            params.into_iter().map(|(k, v)| (k, v, false)).collect();
        match self.declare_resource(form, &lname, title, &attrs, scope, &at) {
            Ok(_) => Ok(Ok(())),
            Err(Flow::Error(e)) if e.span.as_ref() == Some(&at) => Ok(Err(e
                .message
                .strip_prefix(STATEMENT)
                .unwrap_or(&e.message)
                .to_string())),
            Err(other) => Err(other),
        }
    }

    /// `create_resources(type, {title => params}, defaults)`, Puppet's 3.x core function:
    /// each title is declared with the defaults merged under its parameters (undef values
    /// left out); returns undef.
    pub(crate) fn create_resources(
        &mut self,
        args: &[Value],
        scope: ScopeId,
        span: &Span,
    ) -> Result<Value, Flow> {
        let fail = |m: String| {
            Err(Flow::Error(EvalError {
                code: crate::error::codes::EVAL_ERROR,
                kind: Default::default(),
                message: format!("Error while evaluating a Function Call, {m}"),
                span: Some(span.clone()),
            }))
        };
        if args.len() < 2 {
            return fail(format!(
                "create_resources(): Wrong number of arguments given ({} for minimum 2)",
                args.len()
            ));
        }
        if args.len() > 3 {
            return fail(format!(
                "create_resources(): wrong number of arguments ({}; must be 2 or 3)",
                args.len()
            ));
        }
        let Value::Hash(instances) = &args[1] else {
            return fail("create_resources(): second argument must be a hash".into());
        };
        let defaults = match args.get(2) {
            None => None,
            Some(Value::Hash(h)) => Some(h.clone()),
            Some(_) => {
                return fail(
                    "create_resources(): third argument, if provided, must be a hash".into(),
                )
            }
        };
        let type_name = match &args[0] {
            Value::String(s) => s.to_string(),
            Value::Undef => String::new(),
            Value::Type(t) => {
                return fail(format!(
                    "undefined method `sub' for {t}[]{{:name=>\"\"}}:Puppet::Resource"
                ))
            }
            other => {
                return fail(format!(
                    "undefined method `sub' for {}",
                    puppet_stdlib::ruby::inspect(other)
                ))
            }
        };
        for (title, params) in instances.iter() {
            let mut merged: IndexMap<SmolStr, Value> = IndexMap::new();
            for (k, v) in defaults.iter().flat_map(|d| d.iter()) {
                merged.insert(SmolStr::new(k.to_plain_string()), v.clone());
            }
            match params {
                Value::Hash(p) => {
                    for (k, v) in p.iter() {
                        merged.insert(SmolStr::new(k.to_plain_string()), v.clone());
                    }
                }
                Value::Undef if defaults.is_none() => {}
                other => {
                    return fail(format!(
                        "no implicit conversion of {} into Hash",
                        puppet_stdlib::ruby::class_name(other)
                    ))
                }
            }
            let mut params: Vec<(SmolStr, Value)> =
                merged.into_iter().filter(|(_, v)| !v.is_undef()).collect();
            // A title that is not a String (an Integer port) is not tagged by Puppet, and
            // its text stays the `name` parameter (as `declare_resource_titled`).
            let title = match title {
                Value::String(s) => s.to_string(),
                other => {
                    let text = other.to_plain_string();
                    if !params.iter().any(|(k, _)| k == "name") {
                        params.push(("name".into(), Value::string(&text)));
                    }
                    self.untagged_title = true;
                    text
                }
            };
            let declared = self.declare_from_function(&type_name, &title, params, scope, span);
            self.untagged_title = false;
            if let Err(m) = declared? {
                return fail(m);
            }
        }
        Ok(Value::Undef)
    }
}

/// The span a function's declarations are recorded at: the call, in a file named `unknown`
/// when the code has none (as Puppet's stack reports code given with `-e`).
fn function_span(span: &Span) -> Span {
    if span.file.path.is_some() {
        return span.clone();
    }
    Span {
        file: Arc::new(SourceFile::new(Some("unknown".into()), &span.file.text)),
        start: span.start,
        end: span.end,
    }
}

impl CatalogAccess for Compiler {
    fn resource(&self, type_name: &str, title: &str) -> Option<Vec<(String, Value)>> {
        let key = self.resolve_ref(&ResourceKey::new(type_name, title))?;
        let r = self.catalog.get(&key)?;
        Some(
            r.params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn titles(&self, type_name: &str) -> Vec<String> {
        let wanted = ResourceKey::new(type_name, "").type_name;
        self.catalog
            .resources
            .keys()
            .filter(|k| k.type_name == wanted)
            .map(shown_title)
            .collect()
    }

    fn default_attributes(&self, type_name: &str) -> Vec<String> {
        // As `defaults_for`: the scope of the call, then the scopes it takes defaults from.
        let mut out: Vec<String> = Vec::new();
        for id in self.scopes.defaults_chain(Some(self.current)) {
            for (sid, tname, attrs, _) in &self.catalog.defaults {
                if *sid == id && tname.eq_ignore_ascii_case(type_name) {
                    for (k, _, _) in attrs {
                        if !out.iter().any(|x| x == k.as_str()) {
                            out.push(k.to_string());
                        }
                    }
                }
            }
        }
        out
    }

    fn current_resource(&self) -> Option<(String, String)> {
        let key = self.scopes.container_of(self.current);
        if key.type_name == "Class" && key.title == "main" {
            return None;
        }
        Some((key.type_name.to_string(), shown_title(&key)))
    }

    fn declare_resource_titled(
        &mut self,
        type_name: &str,
        title: &Value,
        params: Vec<(String, Value)>,
    ) -> Result<(), CallError> {
        if matches!(title, Value::String(_)) {
            return CatalogAccess::declare_resource(
                self,
                type_name,
                &title.to_plain_string(),
                params,
            );
        }
        let text = title.to_plain_string();
        let mut params = params;
        if !params.iter().any(|(k, _)| k == "name") {
            params.push(("name".into(), Value::string(&text)));
        }
        self.untagged_title = true;
        let r = CatalogAccess::declare_resource(self, type_name, &text, params);
        self.untagged_title = false;
        r
    }

    fn declare_resource(
        &mut self,
        type_name: &str,
        title: &str,
        params: Vec<(String, Value)>,
    ) -> Result<(), CallError> {
        let span = self.call_span.clone().unwrap_or_else(|| Span {
            file: Arc::new(SourceFile::new(None, "")),
            start: 0,
            end: 0,
        });
        let params = params
            .into_iter()
            .filter(|(_, v)| !v.is_undef())
            .map(|(k, v)| (SmolStr::new(k), v))
            .collect();
        let scope = self.current;
        match self.declare_from_function(type_name, title, params, scope, &span) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(m)) => Err(CallError::new("EVAL_DECLARE", m)),
            Err(Flow::Error(e)) => {
                // Keep the error of the class body with its own location.
                let message = e.message.clone();
                self.pending_error = Some(e);
                Err(CallError::new("EVAL_FLOW", message))
            }
            Err(_) => Err(CallError::new(
                "EVAL_DECLARE",
                "unexpected control flow while declaring a resource",
            )),
        }
    }
}

/// A title as functions see it: a class's name in lower case, other titles as declared.
fn shown_title(key: &ResourceKey) -> String {
    if key.type_name == "Class" {
        key.title.to_ascii_lowercase()
    } else {
        key.title.to_string()
    }
}
