//! The compiler as puppet-functions' [`CallContext`]: what a registry function may ask of the
//! compile that called it (variables, logs, lambdas, other functions, type names, module files,
//! Puppet's call stack) and the capabilities of the compiler-bound built-ins (declare
//! classes, look up in Hiera, render templates, answer `defined`, run a command). The
//! catalog side of it (`CatalogAccess`) is in `crate::access`, Hiera in `crate::hiera`,
//! templates in `crate::templates`.
//!
//! What fails while serving a capability is kept in `pending_error` with its location and
//! passed to the function as a complete message (`codes::COMPLETE`); the call then reports
//! the kept error (`Compiler::flow_of`).

use super::call::EvalLambda;
use super::Compiler;
use crate::compile::ClassDecl;
use crate::error::Flow;
use puppet_functions::{
    Block, CallContext, CallError, ClassDeclaration, Definable, LogLevel, LookupRequest,
    TemplateSource,
};
use puppet_types::{Type, Value};

impl CallContext for Compiler {
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError> {
        self.call_block_in(block, args)
            .map_err(|flow| self.call_error_of(flow))
    }

    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let span = self.call_span_or_unknown();
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
            Err(Flow::Error(e)) if e.message == format!("Unknown function: '{name}'.") => Err(
                CallError::new(puppet_functions::codes::UNKNOWN_FUNCTION, e.message),
            ),
            Err(flow) => Err(self.call_error_of(flow)),
        }
    }

    fn variable(&self, name: &str) -> Option<Value> {
        self.peek_var(name, self.current)
    }

    fn visible_variables(&self) -> indexmap::IndexMap<smol_str::SmolStr, Value> {
        self.visible_variables(self.current)
    }

    fn log(&mut self, level: LogLevel, message: &str) {
        // Ruby's `Puppet.notice`, `Puppet.warning`...: Puppet's log has no scope as their
        // source (`log_from_scope` is the logging functions' and `scope.notice`'s).
        Compiler::log(self, level, message.to_string(), None);
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

    fn ruby_variable_missing(&mut self, name: &str) -> Result<(), String> {
        // Puppet's `Scope#variable_not_found`: nothing under `strict=off`, an
        // `ArgumentError` under `strict=error`, else a warning once per name.
        let strict = self.strict();
        if strict == "off" {
            return Ok(());
        }
        let (shown, reason) = if name.contains("::") {
            self.qualified_miss(name)
        } else {
            (name.to_string(), String::new())
        };
        let message = format!("Undefined variable '{shown}'; {reason}");
        if strict == "error" {
            return Err(message);
        }
        self.warn_once_unlocated(&format!("undefined_variable:{shown}"), &message);
        Ok(())
    }

    fn ruby_variable_reason(&mut self, name: &str) -> Option<String> {
        name.contains("::").then(|| self.qualified_miss(name).1)
    }

    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        if !self.warned_once.insert(format!("key:{key}")) {
            return false;
        }
        Compiler::log(self, LogLevel::Warning, message.to_string(), None);
        true
    }

    /// The compile's Puppet settings (the table `$settings::x` reads); `undef` for a name
    /// Puppet does not have, as `Puppet[:nosuch]` is `nil`.
    fn setting(&self, name: &str) -> Option<Value> {
        let r = self.settings.setting_in(name, &self.env_paths());
        Some(r.and_then(Result::ok).unwrap_or(Value::Undef))
    }

    fn puppet_stack(&self) -> Vec<(String, u32)> {
        (self.puppet_stack.iter().rev())
            .map(|(file, at)| {
                let name = file.path.clone().unwrap_or_else(|| "unknown".into());
                (name, at.map_or(0, |offset| file.line_col(offset).0))
            })
            .collect()
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

    fn log_from_scope(&mut self, level: LogLevel, message: &str) {
        let label = self.scopes.label(self.current);
        Compiler::log(self, level, message.to_string(), Some(label));
    }

    fn declare_classes(
        &mut self,
        names: &[String],
        how: ClassDeclaration,
    ) -> Result<(), CallError> {
        let how = match how {
            ClassDeclaration::Include => ClassDecl::Include,
            ClassDeclaration::Require => ClassDecl::Require,
            ClassDeclaration::Contain => ClassDecl::Contain,
        };
        let (scope, span) = (self.current, self.call_span_or_unknown());
        Compiler::declare_classes(self, names, how, scope, &span)
            .map_err(|flow| self.call_error_of(flow))
    }

    fn lookup(
        &mut self,
        request: &LookupRequest,
        default_block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let (scope, span) = (self.current, self.call_span_or_unknown());
        crate::hiera::lookup(self, request, default_block, scope, &span)
            .map_err(|flow| self.call_error_of(flow))
    }

    fn render_template(&mut self, template: TemplateSource<'_>) -> Result<Value, CallError> {
        let (scope, span) = (self.current, self.call_span_or_unknown());
        self.render_template_in(template, scope, &span)
            .map_err(|flow| self.call_error_of(flow))
    }

    fn is_defined(&mut self, what: Definable<'_>) -> Result<bool, CallError> {
        let type_known = |c: &Compiler, name: &str, classes: bool| {
            let n = crate::names::strip_root(name).to_ascii_lowercase();
            (classes && c.env.class(n.as_str()).is_some())
                || c.env.define(n.as_str()).is_some()
                || c.env.resource_type_known(&n)
        };
        Ok(match what {
            // `$class::var` (Puppet's `Scope#exist?`): the class must have been evaluated
            // (no warning otherwise); the variable is its own, an inherited class's, or the
            // top scope's (the class scope's enclosing scope).
            Definable::Variable(name)
                if crate::names::is_qualified(name.strip_prefix("::").unwrap_or(name)) =>
            {
                let name = name.strip_prefix("::").unwrap_or(name);
                let (class, var) = crate::names::rsplit_qualified(name).unwrap_or(("", name));
                match self.class_var(class, var) {
                    Some(Some(_)) => true,
                    Some(None) => self.scopes.get(self.top).vars.get(var).is_some(),
                    None => false,
                }
            }
            Definable::Variable(name) => {
                let (scope, span) = (self.current, self.call_span_or_unknown());
                match self.lookup_var(name, scope, &span) {
                    Ok(v) => v.is_some(),
                    Err(flow) => return Err(self.call_error_of(flow)),
                }
            }
            // A name is a class or a resource type (not a function).
            Definable::TypeName(name) => type_known(self, name, true),
            Definable::ResourceType(name) => type_known(self, name, false),
            // Found by title or by any alias (a namevar that differs from the title), as
            // Puppet's catalog lookup does.
            Definable::Resource { type_name, title } => self
                .resolve_ref(&crate::catalog::ResourceKey::new(type_name, title))
                .is_some(),
            Definable::Class(name) => self.class_scope(name).is_some(),
            Definable::Function(name) => {
                let lname = crate::names::lower_bare(name);
                self.env.puppet_function(&lname).is_some()
                    || (self.env)
                        .function_with(&lname, self.settings.native_functions)
                        .is_some()
            }
            Definable::PublicFunction(name) => {
                let lname = crate::names::lower_bare(name);
                puppet_functions::builtins::registry().contains(&lname)
                    || (lname.starts_with("environment::")
                        && self.is_defined(Definable::Function(name))?)
                    // The environment's global Puppet-language functions.
                    || (!crate::names::is_qualified(&lname)
                        && self.env.puppet_function(&lname).is_some())
            }
        })
    }

    fn run_command(&mut self, argv: &[String]) -> Result<String, CallError> {
        let cmd = argv.first().map(String::as_str).unwrap_or_default();
        crate::host::check_generator(cmd)
            .and_then(|()| {
                if self.settings.allow_exec {
                    crate::host::run_generator(argv)
                } else {
                    Err(format!(
                        "generate() would run {cmd} on the compiling host; commands run only when allowed (Settings::allow_exec, compile --allow-exec)"
                    ))
                }
            })
            .map_err(|message| CallError::new(puppet_functions::codes::FAILED, message))
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
