//! Hiera backends written as module functions in Ruby (`data_hash`, `lookup_key`,
//! `data_dig` entries of a `hiera.yaml` naming a function of `lib/puppet/functions`), run by
//! puppet-ruby for the lookups of a compile: the evaluator's side of
//! [`puppet_hiera::FunctionBackend`].
//!
//! The function is loaded the way `Environment::function` loads modules' Ruby functions,
//! and called as Puppet's function providers call it (`options`, the key or its segments,
//! and a `Puppet::LookupContext`). What Puppet keeps per compile lives in [`Backends`], a
//! field of the compiler: per function context (hierarchy entry and location) the
//! `data_hash` result, the `lookup_key`/`data_dig` answers by key and the function's own
//! `cache`, and the `cached_file_data` results by path. Unlike Puppet, a key a function did
//! not find is not asked again in the same compile (unless the lookup is explained): each
//! call runs the function's file in a fresh interpreter, and a lookup asks every entry for
//! `lookup_options` too. Files are read through the environment's source provider only.
//!
//! A backend function may call Puppet functions (`call_function`), those written in Puppet
//! included: the call takes the compiler lent to the lookup ([`HieraScope::lend`]). A
//! lookup made by such a call of a key whose backend is calling is Puppet's recursive
//! lookup. What a backend logs is kept here and logged by the compiler after the lookup
//! ([`take_logs`]).
//!
//! Deprecated data provider functions (`v4_data_hash`: `<module>::data`,
//! `environment::data`, see [`puppet_hiera::config::with_data_provider`]) take no
//! arguments: they are called as any function, in whatever language they are written.
//!
//! Backend functions written in the Puppet language are called with a `Puppet::LookupContext`
//! object whose functions ([`context_function`]) reach the function context as the Ruby
//! object's do; its `interpolate` and `cached_file_data` are refused, naming the function.
//!
//! Not here: natives of backend functions (`yaml_data` and `json_data` are Hiera's own).

use crate::hiera::HieraScope;
use indexmap::IndexMap;
use puppet_functions::LogLevel;
use puppet_hiera::error::codes;
use puppet_hiera::{
    BackendCall, BackendContext, BackendError, FunctionBackend, FunctionKind, HieraError,
};
use puppet_ruby::lookup_context::LookupHost;
use puppet_ruby::PuppetScope;
use puppet_types::Value;
use smol_str::SmolStr;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// What Hiera's backend functions keep for one compile.
#[derive(Debug, Default)]
pub(crate) struct Backends(Mutex<State>);

#[derive(Debug, Default)]
struct State {
    /// The loaded functions by name (`None`: no module has one).
    functions: HashMap<String, Option<Result<Arc<puppet_ruby::functions::RubyFunction>, String>>>,
    /// Puppet's function contexts, by [`BackendCall::context`].
    contexts: HashMap<String, FunctionContext>,
    /// `cached_file_data` results by path (Puppet keeps them per environment while the file
    /// is unchanged; a compile reads each file once).
    file_data: HashMap<String, Value>,
    /// What the functions logged (`Puppet.warning` ...), until the compiler takes it.
    logs: Vec<(LogLevel, String)>,
    /// Variables Hiera interpolated that are not defined, by name as written (`::role`),
    /// until the compiler warns about them ([`take_logs`]).
    undefined: Vec<String>,
}

/// Puppet's `FunctionContext`: one per hierarchy entry and location.
#[derive(Debug, Default)]
struct FunctionContext {
    /// A `data_hash` function's result.
    data_hash: Option<Value>,
    /// What a `lookup_key` or `data_dig` function answered, by key (`None`: not found).
    answers: HashMap<String, Option<Value>>,
    /// The function's `context.cache`.
    cache: IndexMap<Value, Value>,
}

impl Backends {
    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> Option<T> {
        self.0.lock().ok().map(|mut s| f(&mut s))
    }
}

/// Logs what the backend functions logged during the lookups just made (a lookup only
/// holds the compiler shared): Ruby's `Puppet.warning` and the like, without a scope.
/// Also warns, once per name and compile as Puppet does, about the variables the lookups
/// interpolated that are not defined.
pub(crate) fn take_logs(c: &mut crate::eval::Compiler) {
    // The compiler is held exclusively here: no locking (this runs after every lookup,
    // and almost always finds nothing to take).
    let Ok(s) = c.hiera_backends.0.get_mut() else {
        return;
    };
    if s.logs.is_empty() && s.undefined.is_empty() {
        return;
    }
    let (logs, undefined) = (
        std::mem::take(&mut s.logs),
        std::mem::take(&mut s.undefined),
    );
    for (level, message) in logs {
        c.log(level, message, None);
    }
    for name in undefined {
        let message = format!("Undefined variable '{name}'; \n   (file & line not available)");
        puppet_functions::CallContext::warn_once(c, &format!("hiera-undefined:{name}"), &message);
    }
}

impl Backends {
    /// Notes that Hiera interpolated `name` and found it undefined.
    pub(crate) fn note_undefined(&self, name: &str) {
        self.with(|s| {
            if !s.undefined.iter().any(|n| n == name) {
                s.undefined.push(name.to_string());
            }
        });
    }
}

impl FunctionBackend for HieraScope<'_, '_> {
    fn call(
        &self,
        call: &BackendCall<'_>,
        context: &mut dyn BackendContext,
    ) -> Result<Option<Value>, BackendError> {
        if call.kind == FunctionKind::Hiera3Backend {
            return self.hiera3_backend(call.function);
        }
        // Puppet calls a function again for a key it did not find; so do we when explaining
        // (the function may explain why), else the answer is kept for the compile.
        let explaining = context.explaining();
        let cached = self
            .backends(|s| {
                let fc = s.contexts.get(call.context)?;
                match call.kind {
                    FunctionKind::DataHash | FunctionKind::V4DataHash => {
                        fc.data_hash.clone().map(Some)
                    }
                    _ => match fc.answers.get(call.key) {
                        Some(None) if explaining => None,
                        other => other.cloned(),
                    },
                }
            })
            .flatten();
        if let Some(answer) = cached {
            return Ok(answer);
        }
        let args = match call.kind {
            FunctionKind::DataHash => vec![call.options.clone()],
            FunctionKind::DataDig => {
                vec![Value::array(call.segments.to_vec()), call.options.clone()]
            }
            // A deprecated data provider function (`<module>::data`,
            // `environment::data`): Puppet's `V4DataHashFunctionProvider` calls it without
            // arguments, whatever language it is written in.
            FunctionKind::V4DataHash => Vec::new(),
            _ => vec![Value::string(call.key), call.options.clone()],
        };
        let backend = match call.kind {
            FunctionKind::V4DataHash => Backend::Legacy,
            _ => self.function(call.function)?,
        };
        let answer = match backend {
            Backend::Puppet | Backend::Legacy => self.puppet_backend(call, context, args)?,
            Backend::Ruby(function) => {
                let mut host = Host {
                    scope: self,
                    lookup: context,
                    call,
                };
                function.call_backend(&mut host, args).map_err(|e| {
                    let code = match &e {
                        puppet_functions::CallError::Failed { code, .. }
                            if *code == puppet_functions::codes::RUBY_ERROR =>
                        {
                            codes::BACKEND_RUBY_ERROR
                        }
                        _ => codes::BACKEND_RAISED,
                    };
                    BackendError::Failed(HieraError::new(code, e.to_string()))
                })?
            }
        };
        self.backends(|s| {
            let fc = s.contexts.entry(call.context.to_string()).or_default();
            match call.kind {
                FunctionKind::DataHash | FunctionKind::V4DataHash => fc.data_hash = answer.clone(),
                _ => {
                    fc.answers.insert(call.key.to_string(), answer.clone());
                }
            }
        });
        Ok(answer)
    }
}

impl HieraScope<'_, '_> {
    /// A version 3 global `hiera.yaml`'s backend other than yaml, json and eyaml: a Hiera 3
    /// backend class, `Hiera::Backend::<Name>_backend` in `hiera/backend/<name>_backend.rb`
    /// of a module's `lib`. Puppet finds nothing through one it cannot load; one that a
    /// module has is Ruby this implementation does not run (Hiera 3's backend API), an error
    /// naming its file rather than a guess.
    fn hiera3_backend(&self, name: &str) -> Result<Option<Value>, BackendError> {
        let file = format!("hiera/backend/{}_backend", name.to_lowercase());
        let found = self
            .compiler()
            .and_then(|c| c.env.ruby_sources().host().find_lib(&file));
        match found {
            None => Ok(None),
            Some((path, _)) => Err(BackendError::Failed(HieraError::new(
                codes::UNSUPPORTED,
                format!(
                    "{path}: the Hiera 3 backend '{name}' (a Hiera::Backend class) is not supported by this implementation"
                ),
            ))),
        }
    }
}

/// A backend function, by how it is called.
enum Backend {
    /// A module's Ruby function: puppet-ruby runs it with a Ruby context object.
    Ruby(Arc<puppet_ruby::functions::RubyFunction>),
    /// A function written in the Puppet language, given a `Puppet::LookupContext`.
    Puppet,
    /// A deprecated data provider function (`v4_data_hash`), of any language: called
    /// without arguments and without a context.
    Legacy,
}

/// A call of a backend function written in the Puppet language in progress: its function
/// context (Puppet's, by [`BackendCall::context`]), whether the lookup is explained, and
/// what its `$context.explain` said.
#[derive(Debug)]
pub(crate) struct PuppetCall {
    context: String,
    explaining: bool,
    explained: Vec<String>,
}

/// The `Puppet::LookupContext` object a backend function written in the Puppet language
/// receives: the environment's and module's names as attributes, its functions served by
/// [`context_function`].
fn lookup_context_value(environment: &str, module: Option<&str>) -> Value {
    let Some(object_type) = puppet_types::object::builtin("Puppet::LookupContext") else {
        return Value::Undef;
    };
    Value::Object(Arc::new(puppet_types::object::ObjectValue {
        object_type,
        values: vec![
            ("environment_name".into(), Value::string(environment)),
            (
                "module_name".into(),
                module.map(Value::string).unwrap_or(Value::Undef),
            ),
        ],
    }))
}

/// A function of the `Puppet::LookupContext` of the innermost backend function written in
/// the Puppet language (`$context.not_found()`, `$context.cache(k, v)`, ...), as Puppet's
/// `Puppet::Pops::Lookup::Context` answers it: `not_found` ends the call without a value,
/// `explain` runs its lambda only when the lookup is explained, the cache is the function
/// context's (shared with the same entry's Ruby calls). `interpolate` and
/// `cached_file_data` are refused, naming the function.
pub(crate) fn context_function(
    c: &mut crate::eval::Compiler,
    name: &str,
    args: Vec<Value>,
    lambda: Option<&Arc<crate::ir::LambdaDef>>,
    scope: crate::scope::ScopeId,
    span: &crate::ir::Span,
) -> crate::error::R<Value> {
    use crate::error::{err, err_code};
    let Some(top) = c.hiera_puppet_calls.last() else {
        return err(
            format!("Puppet::LookupContext#{name} called outside a Hiera backend function"),
            span,
        );
    };
    let (id, explaining) = (top.context.clone(), top.explaining);
    let arity = |n: usize| -> crate::error::R<()> {
        if args.len() == n {
            return Ok(());
        }
        err(
            format!(
                "Error while evaluating a Method call, 'Puppet::LookupContext[{name}]' expects {n} argument{}, got {}",
                if n == 1 { "" } else { "s" },
                args.len()
            ),
            span,
        )
    };
    let with_cache = |c: &mut crate::eval::Compiler,
                      f: &mut dyn FnMut(&mut IndexMap<Value, Value>)| {
        c.hiera_backends
            .with(|s| f(&mut s.contexts.entry(id.clone()).or_default().cache));
    };
    match name {
        "not_found" => err_code(
            crate::error::codes::LOOKUP_CONTEXT_NOT_FOUND,
            "not found",
            span,
        ),
        "explain" => {
            if explaining {
                if let Some(l) = lambda {
                    let v = c.call_lambda(l, scope, Vec::new())?;
                    let text = v.to_plain_string();
                    if let Some(top) = c.hiera_puppet_calls.last_mut() {
                        top.explained.push(text);
                    }
                }
            }
            Ok(Value::Undef)
        }
        "cache" => {
            arity(2)?;
            let (k, v) = (args[0].clone(), args[1].clone());
            with_cache(c, &mut |m| {
                m.insert(k.clone(), v.clone());
            });
            Ok(args[1].clone())
        }
        "cache_all" => {
            arity(1)?;
            let Value::Hash(h) = &args[0] else {
                return err(
                    "Error while evaluating a Method call, 'Puppet::LookupContext[cache_all]' expects a Hash value",
                    span,
                );
            };
            with_cache(c, &mut |m| {
                for (k, v) in h.iter() {
                    m.insert(k.clone(), v.clone());
                }
            });
            Ok(Value::Undef)
        }
        "cache_has_key" | "cached_value" => {
            arity(1)?;
            let mut found = None;
            with_cache(c, &mut |m| found = m.get(&args[0]).cloned());
            Ok(match name {
                "cache_has_key" => Value::Boolean(found.is_some()),
                _ => found.unwrap_or(Value::Undef),
            })
        }
        "cached_entries" => {
            arity(0)?;
            let mut entries = Vec::new();
            with_cache(c, &mut |m| {
                entries = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
            });
            let pairs = entries
                .into_iter()
                .map(|(k, v)| Value::array(vec![k, v]));
            match lambda {
                None => Ok(Value::array(pairs.collect())),
                Some(l) => {
                    let two = l.params.len() == 2;
                    for p in pairs {
                        let a = match (&p, two) {
                            (Value::Array(kv), true) => kv.to_vec(),
                            _ => vec![p.clone()],
                        };
                        c.call_lambda(l, scope, a)?;
                    }
                    Ok(Value::Undef)
                }
            }
        }
        other => err_code(
            codes::UNSUPPORTED,
            format!("Puppet::LookupContext#{other} in a Hiera backend function written in the Puppet language is not supported by this implementation"),
            span,
        ),
    }
}

impl HieraScope<'_, '_> {
    /// Runs `f` with the compiler lent to the lookup, the key looked up marked as being
    /// served by a backend (a lookup of it from inside is Puppet's recursive lookup);
    /// `None` when another call holds the compiler.
    fn with_lent_compiler<T>(
        &self,
        call: &BackendCall<'_>,
        f: impl FnOnce(&mut crate::eval::Compiler) -> T,
    ) -> Option<T> {
        let mut c = self.c.try_borrow_mut().ok()?;
        c.hiera_calling.push(call.key.to_string());
        let r = f(&mut c);
        c.hiera_calling.pop();
        Some(r)
    }

    /// A backend function the evaluator calls itself, in the lookup's scope: one written
    /// in the Puppet language, given its arguments then a `Puppet::LookupContext` object
    /// ([`context_function`] serves its functions; what its `explain` said is added to the
    /// explanation after the call), or a deprecated data provider function, given nothing.
    fn puppet_backend(
        &self,
        call: &BackendCall<'_>,
        context: &mut dyn BackendContext,
        mut args: Vec<Value>,
    ) -> Result<Option<Value>, BackendError> {
        let legacy = call.kind == FunctionKind::V4DataHash;
        let explaining = context.explaining();
        let ran = self.with_lent_compiler(call, |c| {
            if !legacy {
                args.push(lookup_context_value(c.env.name(), call.module));
            }
            c.hiera_puppet_calls.push(PuppetCall {
                context: call.context.to_string(),
                explaining,
                explained: Vec::new(),
            });
            let span = c.call_span_or_unknown();
            let r = c.call_named(call.function, args, None, self.scope, &span);
            (r, c.hiera_puppet_calls.pop())
        });
        let Some((r, done)) = ran else {
            return Err(BackendError::Failed(HieraError::new(
                codes::BACKEND_RAISED,
                format!(
                    "calling the Hiera backend function '{}' while another call holds the compiler",
                    call.function
                ),
            )));
        };
        for line in done.map(|d| d.explained).unwrap_or_default() {
            context.explain(line);
        }
        match r {
            Ok(v) => Ok(Some(v)),
            Err(crate::error::Flow::Error(e))
                if e.code == crate::error::codes::LOOKUP_CONTEXT_NOT_FOUND =>
            {
                Ok(None)
            }
            Err(crate::error::Flow::Error(e))
                if legacy && e.message == format!("Unknown function: '{}'.", call.function) =>
            {
                Err(BackendError::NoSuchFunction)
            }
            Err(crate::error::Flow::Error(e)) => Err(BackendError::Failed(HieraError::new(
                codes::BACKEND_RAISED,
                e.call_message().to_string(),
            ))),
            Err(_) => Err(BackendError::Failed(HieraError::new(
                codes::BACKEND_RAISED,
                format!("unexpected control flow from {}()", call.function),
            ))),
        }
    }

    /// `f` of what the backend functions keep for this compile (`None` only while a
    /// backend's call holds the compiler).
    fn backends<T>(&self, f: impl FnOnce(&mut State) -> T) -> Option<T> {
        self.compiler()?.hiera_backends.with(f)
    }

    /// The backend function `name`: a module's Ruby function (loaded once per compile) or
    /// one written in the Puppet language.
    fn function(&self, name: &str) -> Result<Backend, BackendError> {
        let known = self.backends(|s| s.functions.get(name).cloned()).flatten();
        let Some(env) = self.compiler().map(|c| c.env.clone()) else {
            return Err(BackendError::NoSuchFunction);
        };
        let found = match known {
            Some(f) => f,
            None => {
                let f = env.ruby_backend_function(name).map(|r| r.map(Arc::new));
                self.backends(|s| s.functions.insert(name.to_string(), f.clone()));
                f
            }
        };
        match found {
            None if env.puppet_function(name).is_some() => Ok(Backend::Puppet),
            None => Err(BackendError::NoSuchFunction),
            Some(Err(e)) => Err(BackendError::Failed(HieraError::new(codes::UNSUPPORTED, e))),
            Some(Ok(f)) => Ok(Backend::Ruby(f)),
        }
    }
}

/// The Puppet side of one backend call: the lookup's scope and context, and the compile's
/// function context.
struct Host<'a, 'b, 'c> {
    scope: &'a HieraScope<'b, 'c>,
    lookup: &'a mut dyn BackendContext,
    call: &'a BackendCall<'a>,
}

impl Host<'_, '_, '_> {
    fn context<T>(&self, f: impl FnOnce(&mut FunctionContext) -> T) -> Option<T> {
        self.scope
            .backends(|s| f(s.contexts.entry(self.call.context.to_string()).or_default()))
    }
}

impl PuppetScope for Host<'_, '_, '_> {
    fn lookup(&self, name: &str) -> Option<Value> {
        puppet_hiera::Scope::variable(self.scope, name)
    }

    fn all_variables(&self) -> IndexMap<SmolStr, Value> {
        IndexMap::new()
    }

    /// The compile's setting (`Puppet[:name]` in a backend), when the compiler is free to
    /// ask.
    fn setting(&self, name: &str) -> Option<Value> {
        self.scope
            .with_lent_compiler(self.call, |c| {
                puppet_functions::CallContext::setting(c, name)
            })
            .flatten()
    }

    /// Calls a Puppet function with the compiler lent to the lookup, in the lookup's
    /// scope, as Puppet's `call_function` from a backend does.
    fn call_function(&mut self, name: &str, args: Vec<Value>) -> Result<Value, String> {
        let scope = self.scope.scope;
        let r = self.scope.with_lent_compiler(self.call, |c| {
            let span = c.call_span_or_unknown();
            c.call_named(name, args, None, scope, &span)
        });
        let Some(r) = r else {
            return Err(format!(
                "calling the function '{name}' from the Hiera backend function '{}' while another call holds the compiler",
                self.call.function
            ));
        };
        match r {
            Ok(v) => Ok(v),
            // The called function's error reaches Ruby as it was raised: the evaluator's
            // call prefix is Puppet's for the outer call only.
            Err(crate::error::Flow::Error(e)) => Err(e.call_message().to_string()),
            Err(_) => Err(format!("unexpected control flow from {name}()")),
        }
    }

    fn lookup_host(&mut self) -> Option<&mut dyn LookupHost> {
        Some(self)
    }

    fn log(&mut self, level: &str, message: &str) {
        let level = LogLevel::from_name(level.trim_start_matches("deprecation:"));
        self.scope
            .backends(|s| s.logs.push((level, message.to_string())));
    }
}

impl LookupHost for Host<'_, '_, '_> {
    fn environment_name(&self) -> String {
        (self.scope.compiler())
            .map(|c| c.env.name().to_string())
            .unwrap_or_default()
    }

    fn module_name(&self) -> Option<String> {
        self.call.module.map(str::to_string)
    }

    fn explaining(&self) -> bool {
        self.lookup.explaining()
    }

    fn explain(&mut self, text: String) {
        self.lookup.explain(text);
    }

    fn interpolate(&mut self, value: &Value) -> Result<Value, String> {
        self.lookup.interpolate(value).map_err(|e| e.to_string())
    }

    fn cache_insert(&mut self, key: Value, value: Value) {
        self.context(|c| c.cache.insert(key, value));
    }

    fn cache_get(&mut self, key: &Value) -> Option<Value> {
        self.context(|c| c.cache.get(key).cloned()).flatten()
    }

    fn cache_entries(&mut self) -> Vec<(Value, Value)> {
        self.context(|c| {
            c.cache
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
    }

    fn cached_file_data(&mut self, path: &str) -> Option<Value> {
        self.scope
            .backends(|s| s.file_data.get(path).cloned())
            .flatten()
    }

    fn cache_file_data(&mut self, path: &str, value: Value) {
        self.scope
            .backends(|s| s.file_data.insert(path.to_string(), value));
    }

    fn read_file(&mut self, path: &str) -> Result<String, String> {
        let env = (self.scope.compiler())
            .map(|c| c.env.clone())
            .ok_or_else(|| format!("No such file or directory @ rb_sysopen - {path}"))?;
        env.loader()
            .provider()
            .read_to_string(Path::new(path))
            .map_err(|_| format!("No such file or directory @ rb_sysopen - {path}"))
    }
}
