//! The catalog under construction as functions see it: `puppet_functions::CatalogAccess` for
//! the compiler (Puppet's `create_resources`, `realize`, `tag`, `tagged`; stdlib's
//! `ensure_resource`, `ensure_packages`, `defined_with_params`, `getparam`,
//! `assert_private`...), and the declaration path they share.
//!
//! Resources declared by a function are declared as a resource expression at the call
//! would declare them (same checks, defaults, containment and errors), in the scope the
//! function was called from.

use crate::catalog::ResourceKey;
use crate::error::Flow;
use crate::eval::Compiler;
use crate::ir::{ResourceForm, SourceFile, Span};
use crate::scope::ScopeId;
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
        let lname = crate::names::strip_root(bare).to_ascii_lowercase();
        let at = function_span(span);
        if lname == "class" {
            let cname = crate::names::strip_root(title).to_ascii_lowercase();
            if self.env.class(cname.as_str()).is_none() {
                return Ok(Err(format!("Could not find declared class {cname}")));
            }
        }
        let attrs: Vec<(SmolStr, Value, bool)> =
            params.into_iter().map(|(k, v)| (k, v, false)).collect();
        match self.declare_resource(form, &lname, title, &attrs, scope, &at, false) {
            Ok(_) => Ok(Ok(())),
            Err(Flow::Error(e)) if e.span.as_ref() == Some(&at) => Ok(Err(e
                .message
                .strip_prefix(STATEMENT)
                .unwrap_or(&e.message)
                .to_string())),
            Err(other) => Err(other),
        }
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
    fn classes(&self) -> Option<Vec<String>> {
        let mut names = vec!["settings".to_string()];
        names.extend(self.evaluated_classes().iter().map(|c| c.to_string()));
        Some(names)
    }

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

    fn resources(&self) -> Option<Vec<(String, String)>> {
        Some(
            self.catalog
                .resources
                .keys()
                .map(|k| (k.type_name.to_string(), shown_title(k)))
                .collect(),
        )
    }

    fn default_attributes(&self, type_name: &str) -> Vec<String> {
        // As `defaults_for`: the scope of the call, then the scopes it takes defaults from.
        let mut out: Vec<String> = Vec::new();
        for id in self.scopes.defaults_chain(Some(self.current)) {
            for (sid, tname, attrs, _) in self.catalog.defaults() {
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

    fn realize(&mut self, reference: &Value) -> Result<(), CallError> {
        for k in self.refs_of(reference) {
            match self.resolve_ref(&k) {
                Some(k) => self.catalog.realize(&k),
                // Declared later, perhaps: Puppet's collector waits for it until the
                // compile finishes (`Compiler::finish` reports what never came).
                None => self.catalog.pending_realize.push(k),
            }
        }
        Ok(())
    }

    fn tag(&mut self, tags: &[String]) -> Result<(), CallError> {
        let key = self.scopes.container_of(self.current);
        if let Some(r) = self.catalog.resources.get_mut(&key) {
            for t in tags {
                r.tag_checked(t)
                    .map_err(|m| CallError::new(crate::error::codes::INVALID_TAG, m))?;
            }
        }
        Ok(())
    }

    fn tagged(&self, tag: &str) -> bool {
        let key = self.scopes.container_of(self.current);
        self.catalog.get(&key).is_some_and(|r| r.tags.contains(tag))
            || self.catalog.tags.contains(tag)
            || self.evaluated_classes().contains(tag)
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
        // An undef value stays: it is set (it keeps its place, and a resource default
        // does not replace it), as Puppet's `set_parameter`. A relationship list is this
        // resource's own (see `own_relation_lists`).
        let params = params
            .into_iter()
            .map(|(k, mut v)| {
                crate::compile::own_relation_list(&k, &mut v);
                (SmolStr::new(k), v)
            })
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
