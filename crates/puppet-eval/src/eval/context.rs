//! The compiler as puppet-functions' [`CallContext`]: what a registry function may ask of the
//! compile that called it (variables, logs, lambdas, other functions, type names, module files,
//! Puppet's call stack). The catalog side of it (`CatalogAccess`) is in `crate::access`.

use super::call::EvalLambda;
use super::Compiler;
use crate::error::Flow;
use crate::ir::*;
use puppet_functions::{Block, CallContext, CallError, LogLevel};
use puppet_types::{Type, Value};
use std::sync::Arc;

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
