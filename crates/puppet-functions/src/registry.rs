//! The function registry: functions by namespaced, case-insensitive name, each with ordered
//! dispatches, and the dispatch algorithm of Puppet's 4.x function API.
//!
//! A call tries the dispatches in declaration order and runs the first whose parameter count,
//! parameter types and block accept the call; an `argument_mismatch` dispatch that accepts it
//! turns its message into the error. The result is checked against the return type. When no
//! dispatch accepts the call, the error text is Puppet 7.23's (see `describe`). The registry
//! does not evaluate Puppet code: Puppet-language functions are registered as opaque
//! [`FunctionBody`] values that the evaluator provides.

use crate::context::{Block, CallContext};
use crate::describe::{describe_signatures, SigView};
use crate::error::{codes, CallError, RegistryError};
use crate::signature::{arity, param_at, BlockParam, Param, ParamKind, Signature, TypeSpec};
use crate::typeexpr::parse_type;
use indexmap::IndexMap;
use puppet_types::mismatch::describe_mismatch;
use puppet_types::{assignable, infer_set, is_instance, Type, Value};
use smol_str::SmolStr;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The arguments of one call as an implementation receives them.
#[derive(Debug)]
pub struct Args<'a> {
    /// The argument values (the block is not among them).
    pub values: Vec<Value>,
    /// The block, when the call has one.
    pub block: Option<&'a dyn Block>,
}

impl Args<'_> {
    /// The argument at `i`, `undef` when absent.
    pub fn get(&self, i: usize) -> Value {
        self.values.get(i).cloned().unwrap_or(Value::Undef)
    }
    /// The number of (non-block) arguments.
    pub fn len(&self) -> usize {
        self.values.len()
    }
    /// True when there are no (non-block) arguments.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// The implementation of a dispatch: a Rust closure or an evaluator-provided body.
pub trait FunctionBody: Send + Sync {
    /// Runs the function with arguments that the signature accepted.
    fn call(&self, ctx: &mut dyn CallContext, args: Args<'_>) -> Result<Value, CallError>;
}

impl<F> FunctionBody for F
where
    F: Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> + Send + Sync,
{
    fn call(&self, ctx: &mut dyn CallContext, args: Args<'_>) -> Result<Value, CallError> {
        self(ctx, args)
    }
}

type MismatchFn = dyn Fn(&[Value]) -> String + Send + Sync;

#[derive(Clone)]
enum Implementation {
    Native(Arc<dyn FunctionBody>),
    Puppet(Arc<dyn FunctionBody>),
    Mismatch(Arc<MismatchFn>),
}

/// One resolved dispatch (signature plus implementation).
#[derive(Clone)]
pub struct Dispatch {
    params: Vec<Param>,
    block: Option<BlockParam>,
    return_type: Option<Type>,
    imp: Implementation,
}

impl fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Dispatch({})",
            crate::signature::signature_string(&self.params, self.block.as_ref())
        )
    }
}

impl Dispatch {
    /// The resolved parameters.
    pub fn params(&self) -> &[Param] {
        &self.params
    }
    /// The block parameter.
    pub fn block(&self) -> Option<&BlockParam> {
        self.block.as_ref()
    }
    /// The declared return type.
    pub fn return_type(&self) -> Option<&Type> {
        self.return_type.as_ref()
    }
    /// True for an `argument_mismatch` dispatch.
    pub fn is_argument_mismatch(&self) -> bool {
        matches!(self.imp, Implementation::Mismatch(_))
    }
    /// Puppet's text of this signature, e.g. `Iterable enumerable, Callable[2, 2] block`.
    pub fn signature_string(&self) -> String {
        crate::signature::signature_string(&self.params, self.block.as_ref())
    }

    fn accepts(&self, args: &[Value], block: Option<&dyn Block>) -> bool {
        let (min, max) = arity(&self.params);
        if args.len() < min || max.is_some_and(|m| args.len() > m) {
            return false;
        }
        for (i, a) in args.iter().enumerate() {
            match param_at(&self.params, i) {
                Some(p) if is_instance(&p.ty, a) => {}
                _ => return false,
            }
        }
        match (block, &self.block) {
            (None, None) => true,
            (None, Some(b)) => b.optional,
            (Some(_), None) => false,
            (Some(given), Some(b)) => assignable(&b.ty, &given.signature().callable_type()),
        }
    }
}

/// An example of use: a Puppet source and the `%p` rendering of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Puppet source.
    pub source: SmolStr,
    /// The value as `String(v, '%p')` prints it.
    pub expected: SmolStr,
}

/// A registered function.
#[derive(Debug, Clone)]
pub struct Function {
    name: SmolStr,
    doc: String,
    examples: Vec<Example>,
    dispatches: Vec<Dispatch>,
    local_types: IndexMap<SmolStr, Type>,
}

impl Function {
    /// The name as registered.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The documentation.
    pub fn doc(&self) -> &str {
        &self.doc
    }
    /// The examples.
    pub fn examples(&self) -> &[Example] {
        &self.examples
    }
    /// The dispatches in declaration order.
    pub fn dispatches(&self) -> &[Dispatch] {
        &self.dispatches
    }
    /// The local type aliases.
    pub fn local_type(&self, name: &str) -> Option<&Type> {
        self.local_types.get(name)
    }

    /// Dispatches a call to this function.
    pub fn call(
        &self,
        ctx: &mut dyn CallContext,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let Some(d) = self.dispatches.iter().find(|d| d.accepts(&args, block)) else {
            let sigs: Vec<SigView<'_>> = self
                .dispatches
                .iter()
                .filter(|d| !d.is_argument_mismatch())
                .map(|d| SigView {
                    params: &d.params,
                    block: d.block.as_ref(),
                })
                .collect();
            let bsig = block.map(|b| b.signature());
            return Err(CallError::new(
                codes::ARGUMENT_MISMATCH,
                describe_signatures(&self.name, &sigs, &args, bsig.as_ref()),
            ));
        };
        let result = match &d.imp {
            Implementation::Mismatch(f) => {
                return Err(CallError::new(
                    codes::ARGUMENT_MISMATCH,
                    format!("'{}' {}", self.name, f(&args)),
                ))
            }
            Implementation::Native(body) => body.call(
                ctx,
                Args {
                    values: args,
                    block,
                },
            ),
            Implementation::Puppet(body) => match body.call(
                ctx,
                Args {
                    values: args,
                    block,
                },
            ) {
                Err(CallError::Return(v) | CallError::Next(v)) => Ok(v),
                other => other,
            },
        };
        let value = result?;
        if let Some(rt) = &d.return_type {
            if !is_instance(rt, &value) {
                return Err(CallError::new(
                    codes::RETURN_TYPE,
                    describe_mismatch(
                        &format!("value returned from {} has wrong type,", self.name),
                        rt,
                        &infer_set(&value),
                    ),
                ));
            }
        }
        Ok(value)
    }
}

/// Functions by name. Cheap to clone (functions are shared), `Send + Sync`.
///
/// ```
/// use puppet_functions::{CallError, NullContext, Registry, Signature};
/// use puppet_types::Value;
/// let mut reg = Registry::new();
/// reg.function("mymod::twice")
///     .doc("Doubles an integer.")
///     .dispatch(Signature::new().param("Integer", "x").return_type("Integer"), |_ctx, args| {
///         match args.get(0) {
///             Value::Integer(i) => i.checked_mul(2).map(Value::Integer)
///                 .ok_or_else(|| CallError::new("FN_FAILED", "overflow")),
///             _ => Ok(Value::Undef),
///         }
///     })
///     .register()
///     .unwrap();
/// let mut ctx = NullContext::default();
/// assert_eq!(reg.call(&mut ctx, "MyMod::Twice", vec![Value::Integer(21)], None).unwrap(), Value::Integer(42));
/// let err = reg.call(&mut ctx, "mymod::twice", vec![], None).unwrap_err();
/// assert_eq!(err.to_string(), "'mymod::twice' expects 1 argument, got none");
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    // Looked up at every call: a fast hash of the short names.
    functions: IndexMap<SmolStr, Entry, rustc_hash::FxBuildHasher>,
    /// Signature type texts parsed so far (those that name no local type): the built-ins'
    /// few hundred signatures repeat `Any`, `String`, `Callable`... (registering them all
    /// is part of every process's start).
    parsed: rustc_hash::FxHashMap<SmolStr, Type>,
    /// While a deferred function is built: the one name whose registration is carried
    /// out; the group's other builders do nothing (see [`Deferred`]).
    only: Option<&'static str>,
}

/// A registration function that registers a group of functions (the built-ins of one
/// module of `crate::builtins`).
pub(crate) type Group = fn(&mut Registry) -> Result<(), RegistryError>;

/// A registry entry: a function, or one registered by name whose signatures are resolved on
/// first use.
#[derive(Clone)]
enum Entry {
    Ready(Arc<Function>),
    // Shared by the registry's clones, so that it is built once for all of them.
    Deferred(Arc<Deferred>),
}

/// A function known by name, built the first time it is needed by running its group's
/// registration with every other function of the group left out. Resolving a built-in's
/// signatures (parsing their type texts) is most of what registering it costs, and a
/// process calls few of them.
struct Deferred {
    name: &'static str,
    group: Group,
    built: OnceLock<Result<Arc<Function>, RegistryError>>,
}

impl Deferred {
    fn built(&self) -> &Result<Arc<Function>, RegistryError> {
        self.built.get_or_init(|| {
            let mut scratch = Registry {
                only: Some(self.name),
                ..Registry::default()
            };
            (self.group)(&mut scratch)?;
            match scratch.functions.swap_remove(&key(self.name)) {
                Some(Entry::Ready(f)) => Ok(f),
                _ => Err(RegistryError::NoDispatch(self.name.to_string())),
            }
        })
    }
}

impl Entry {
    /// The function; `None` for a deferred one whose registration fails (the tests of
    /// `crate::builtins` build every built-in, so that this does not happen).
    fn function(&self) -> Option<&Arc<Function>> {
        match self {
            Entry::Ready(f) => Some(f),
            Entry::Deferred(d) => d.built().as_ref().ok(),
        }
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.functions.keys()).finish()
    }
}

/// `name` without its leading `::` (all of them, as `trim_start_matches("::")` but
/// without building a substring searcher: this runs for every function call).
fn strip_root(name: &str) -> &str {
    let mut rest = name;
    while let Some(r) = rest.strip_prefix("::") {
        rest = r;
    }
    rest
}

/// The registry key of a name: lower case, without a leading `::`.
fn key(name: &str) -> SmolStr {
    let bare = strip_root(name);
    if bare.bytes().any(|b| b.is_ascii_uppercase()) {
        SmolStr::new(bare.to_ascii_lowercase())
    } else {
        // The usual case (the evaluator asks in lower case): no String on the way.
        SmolStr::new(bare)
    }
}

/// The entry of `name` in `map` (keyed by [`key`]), looked up by the bare name itself
/// when it is already a key (lower case: the usual case), without making one.
fn entry_of<'m, V>(
    map: &'m IndexMap<SmolStr, V, rustc_hash::FxBuildHasher>,
    name: &str,
) -> Option<&'m V> {
    let bare = strip_root(name);
    if bare.bytes().any(|b| b.is_ascii_uppercase()) {
        map.get(&key(name))
    } else {
        map.get(bare)
    }
}

fn valid_name(name: &str) -> bool {
    let bare = strip_root(name);
    !bare.is_empty()
        && bare.split("::").all(|seg| {
            seg.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

impl Registry {
    /// An empty registry (see [`crate::builtins::registry`] for one with the built-ins).
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Starts the registration of a function.
    pub fn function(&mut self, name: &str) -> FunctionBuilder<'_> {
        let bare = strip_root(name);
        let skip = self
            .only
            .is_some_and(|only| !only.eq_ignore_ascii_case(bare));
        FunctionBuilder {
            registry: self,
            skip,
            name: SmolStr::new(bare),
            doc: String::new(),
            examples: Vec::new(),
            local_types: Vec::new(),
            dispatches: Vec::new(),
            shadow: false,
        }
    }

    /// Registers a Puppet-language function: its signature built from the declared parameter
    /// types (see [`crate::puppet_signature`]) and an evaluator-provided body. A `return(v)`
    /// escaping the body becomes the function's value.
    pub fn register_puppet_function(
        &mut self,
        name: &str,
        signature: Signature,
        body: Arc<dyn FunctionBody>,
        shadow: bool,
    ) -> Result<(), RegistryError> {
        let mut b = self.function(name).shadow(shadow);
        b.dispatches.push((signature, PendingImpl::Puppet(body)));
        b.register()
    }

    /// Registers `name` now, to be built on its first use by running `group` (which
    /// registers it among others) with the group's other functions left out.
    pub(crate) fn register_deferred(
        &mut self,
        name: &'static str,
        group: Group,
    ) -> Result<(), RegistryError> {
        if !valid_name(name) {
            return Err(RegistryError::BadName(name.to_string()));
        }
        let k = key(name);
        if self.functions.contains_key(&k) {
            return Err(RegistryError::Duplicate(name.to_string()));
        }
        let deferred = Deferred {
            name: strip_root(name),
            group,
            built: OnceLock::new(),
        };
        self.functions
            .insert(k, Entry::Deferred(Arc::new(deferred)));
        Ok(())
    }

    /// Builds every deferred function, returning the first registration error (the tests'
    /// check of the built-ins).
    #[cfg(test)]
    pub(crate) fn build_deferred(&self) -> Result<(), RegistryError> {
        for entry in self.functions.values() {
            if let Entry::Deferred(d) = entry {
                d.built().as_ref().map_err(Clone::clone)?;
            }
        }
        Ok(())
    }

    /// The function of that name (case-insensitive, leading `::` ignored).
    pub fn get(&self, name: &str) -> Option<&Function> {
        entry_of(&self.functions, name)
            .and_then(Entry::function)
            .map(|f| &**f)
    }

    /// The function of that name, shared (to call it without holding the registry).
    pub fn get_shared(&self, name: &str) -> Option<Arc<Function>> {
        entry_of(&self.functions, name)
            .and_then(Entry::function)
            .cloned()
    }

    /// True when a function of that name exists.
    pub fn contains(&self, name: &str) -> bool {
        entry_of(&self.functions, name).is_some()
    }

    /// All functions, in registration order.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.functions
            .values()
            .filter_map(Entry::function)
            .map(|f| &**f)
    }

    /// Calls a function by name.
    pub fn call(
        &self,
        ctx: &mut dyn CallContext,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        match self.get(name) {
            Some(f) => f.call(ctx, args, block),
            None => Err(CallError::new(
                codes::UNKNOWN_FUNCTION,
                format!("Unknown function '{name}'"),
            )),
        }
    }
}

enum PendingImpl {
    Native(Arc<dyn FunctionBody>),
    Puppet(Arc<dyn FunctionBody>),
    Mismatch(Arc<MismatchFn>),
}

/// Builds a function; finish with [`FunctionBuilder::register`].
pub struct FunctionBuilder<'r> {
    registry: &'r mut Registry,
    /// A builder of a group's other function while a deferred one is built: it records
    /// nothing and registers nothing.
    skip: bool,
    name: SmolStr,
    doc: String,
    examples: Vec<Example>,
    local_types: Vec<(SmolStr, TypeSpec)>,
    dispatches: Vec<(Signature, PendingImpl)>,
    shadow: bool,
}

impl fmt::Debug for FunctionBuilder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FunctionBuilder({})", self.name)
    }
}

impl FunctionBuilder<'_> {
    /// Sets the documentation.
    pub fn doc(mut self, doc: &str) -> Self {
        if self.skip {
            return self;
        }
        self.doc = doc.to_string();
        self
    }
    /// Adds an example: Puppet source and the `%p` text of its value.
    pub fn example(mut self, source: &str, expected: &str) -> Self {
        if self.skip {
            return self;
        }
        self.examples.push(Example {
            source: SmolStr::new(source),
            expected: SmolStr::new(expected),
        });
        self
    }
    /// Declares a local type alias usable in this function's signatures.
    pub fn local_type(mut self, name: &str, ty: impl Into<TypeSpec>) -> Self {
        if self.skip {
            return self;
        }
        self.local_types.push((SmolStr::new(name), ty.into()));
        self
    }
    /// Replaces an existing function of the same name instead of failing.
    pub fn shadow(mut self, shadow: bool) -> Self {
        self.shadow = shadow;
        self
    }
    /// Adds a dispatch implemented by a raw closure over values.
    pub fn dispatch<F>(mut self, sig: Signature, f: F) -> Self
    where
        F: Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> + Send + Sync + 'static,
    {
        if self.skip {
            return self;
        }
        self.dispatches
            .push((sig, PendingImpl::Native(Arc::new(f))));
        self
    }
    /// Adds a dispatch whose implementation is a shared body (e.g. from the evaluator).
    pub fn dispatch_body(mut self, sig: Signature, body: Arc<dyn FunctionBody>) -> Self {
        if self.skip {
            return self;
        }
        self.dispatches.push((sig, PendingImpl::Native(body)));
        self
    }
    /// Adds a typed dispatch: parameter types come from the closure's Rust argument types.
    ///
    /// ```
    /// use puppet_functions::{NullContext, Registry};
    /// use puppet_types::Value;
    /// let mut reg = Registry::new();
    /// reg.function("add").typed(&["a", "b"], |a: i64, b: i64| Ok(a.saturating_add(b))).register().unwrap();
    /// let v = reg.call(&mut NullContext::default(), "add", vec![Value::Integer(1), Value::Integer(2)], None);
    /// assert_eq!(v.unwrap(), Value::Integer(3));
    /// let e = reg.call(&mut NullContext::default(), "add", vec![Value::Integer(1), Value::string("x")], None);
    /// assert_eq!(e.unwrap_err().to_string(), "'add' parameter 'b' expects an Integer value, got String");
    /// ```
    pub fn typed<A, F: crate::typed::TypedFn<A>>(mut self, names: &[&str], f: F) -> Self {
        if self.skip {
            return self;
        }
        let sig = f.signature(names);
        self.dispatches
            .push((sig, PendingImpl::Native(f.into_body())));
        self
    }
    /// Adds an `argument_mismatch` dispatch: when it accepts a call, the string it returns
    /// becomes the error (`'name' <string>`). It is not listed in mismatch texts.
    pub fn argument_mismatch<F>(mut self, sig: Signature, f: F) -> Self
    where
        F: Fn(&[Value]) -> String + Send + Sync + 'static,
    {
        if self.skip {
            return self;
        }
        self.dispatches
            .push((sig, PendingImpl::Mismatch(Arc::new(f))));
        self
    }

    /// Resolves the signatures and adds the function to the registry.
    pub fn register(self) -> Result<(), RegistryError> {
        if self.skip {
            return Ok(());
        }
        let fname = self.name.to_string();
        if !valid_name(&fname) {
            return Err(RegistryError::BadName(fname));
        }
        let k = key(&fname);
        if !self.shadow && self.registry.functions.contains_key(&k) {
            return Err(RegistryError::Duplicate(fname));
        }
        if self.dispatches.is_empty() {
            return Err(RegistryError::NoDispatch(fname));
        }
        let mut locals: IndexMap<SmolStr, Type> = IndexMap::new();
        // Aliases exist before their targets are read, so they may refer to each other and
        // to themselves (`StringData = Variant[String, Array[StringData]]`).
        let mut aliases = Vec::new();
        for (name, _) in &self.local_types {
            let alias = puppet_types::TypeAlias::new(name);
            locals.insert(name.clone(), Type::Alias(alias.clone()));
            aliases.push(alias);
        }
        for ((_, spec), alias) in self.local_types.iter().zip(aliases) {
            alias.resolve_to(resolve(&fname, spec, &locals)?);
        }
        let parsed = &mut self.registry.parsed;
        let mut resolve = |spec: &TypeSpec| -> Result<Type, RegistryError> {
            match spec {
                TypeSpec::Text(text) if locals.is_empty() => {
                    if let Some(t) = parsed.get(text) {
                        return Ok(t.clone());
                    }
                    let t = resolve(&fname, spec, &locals)?;
                    parsed.insert(text.clone(), t.clone());
                    Ok(t)
                }
                _ => resolve(&fname, spec, &locals),
            }
        };
        let mut dispatches = Vec::new();
        for (sig, imp) in self.dispatches {
            if let Some(p) = &sig.after_block {
                return Err(RegistryError::ParamAfterRepeated {
                    function: fname,
                    param: p.to_string(),
                });
            }
            let mut params = Vec::new();
            let mut seen_optional = false;
            let mut seen_repeated = false;
            for (name, spec, kind) in &sig.params {
                if seen_repeated {
                    return Err(RegistryError::ParamAfterRepeated {
                        function: fname,
                        param: name.to_string(),
                    });
                }
                match kind {
                    ParamKind::Required | ParamKind::RequiredRepeated if seen_optional => {
                        return Err(RegistryError::RequiredAfterOptional {
                            function: fname,
                            param: name.to_string(),
                        })
                    }
                    ParamKind::Optional => seen_optional = true,
                    ParamKind::Repeated | ParamKind::RequiredRepeated => seen_repeated = true,
                    _ => {}
                }
                params.push(Param {
                    name: name.clone(),
                    ty: resolve(spec)?,
                    kind: *kind,
                });
            }
            let block = match &sig.block {
                None => None,
                Some((name, spec, optional)) => {
                    let mut ty = resolve(spec)?;
                    let mut optional = *optional;
                    if let Type::Optional(Some(inner)) = &ty {
                        ty = (**inner).clone();
                        optional = true;
                    }
                    if !kind_of_callable(&ty) {
                        return Err(RegistryError::BlockNotCallable {
                            function: fname,
                            param: name.to_string(),
                            ty: ty.to_string(),
                        });
                    }
                    Some(BlockParam {
                        name: name.clone(),
                        ty,
                        optional,
                    })
                }
            };
            let return_type = match &sig.return_type {
                Some(spec) => Some(resolve(spec)?),
                None => None,
            };
            let imp = match imp {
                PendingImpl::Native(b) => Implementation::Native(b),
                PendingImpl::Puppet(b) => Implementation::Puppet(b),
                PendingImpl::Mismatch(f) => Implementation::Mismatch(f),
            };
            dispatches.push(Dispatch {
                params,
                block,
                return_type,
                imp,
            });
        }
        let f = Function {
            name: self.name,
            doc: self.doc,
            examples: self.examples,
            dispatches,
            local_types: locals,
        };
        self.registry.functions.insert(k, Entry::Ready(Arc::new(f)));
        Ok(())
    }
}

fn resolve(
    function: &str,
    spec: &TypeSpec,
    locals: &IndexMap<SmolStr, Type>,
) -> Result<Type, RegistryError> {
    match spec {
        TypeSpec::Type(t) => Ok(t.clone()),
        TypeSpec::Text(text) => {
            let lookup = |n: &str| locals.get(n).cloned();
            parse_type(text, &lookup).map_err(|message| RegistryError::BadType {
                function: function.to_string(),
                text: text.to_string(),
                message,
            })
        }
    }
}

/// Puppet's `TypeCalculator.is_kind_of_callable?(type, false)`, what a block parameter's
/// type must be: a Callable, or a Variant of such types (stdlib's `merge` takes
/// `Variant[Callable[2,2], Callable[3,3]]`).
fn kind_of_callable(ty: &Type) -> bool {
    match ty.unalias() {
        Type::Callable(_) => true,
        Type::Variant(members) => members.iter().all(kind_of_callable),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NullContext;

    fn group(reg: &mut Registry) -> Result<(), RegistryError> {
        reg.function("one")
            .doc("first")
            .dispatch(Signature::new().param("Integer", "x"), |_c, a| Ok(a.get(0)))
            .register()?;
        reg.function("bad")
            .dispatch(Signature::new().param("Integer[", "x"), |_c, _a| {
                Ok(Value::Undef)
            })
            .register()?;
        reg.function("two")
            .dispatch(Signature::new(), |_c, _a| Ok(Value::Integer(2)))
            .register()
    }

    #[test]
    fn deferred_functions_are_built_alone_on_first_use() {
        let mut reg = Registry::new();
        for name in ["one", "two", "bad", "missing"] {
            reg.register_deferred(name, group).unwrap();
        }
        assert!(matches!(
            reg.register_deferred("One", group),
            Err(RegistryError::Duplicate(_))
        ));
        assert!(matches!(
            reg.register_deferred("a-b", group),
            Err(RegistryError::BadName(_))
        ));
        // `one` and `two` are built without the failing `bad` in between.
        let v = reg.call(
            &mut NullContext::default(),
            "ONE",
            vec![Value::Integer(1)],
            None,
        );
        assert_eq!(v.unwrap(), Value::Integer(1));
        assert_eq!(reg.get("two").unwrap().dispatches().len(), 1);
        assert_eq!(reg.get("one").unwrap().doc(), "first");
        // A failing registration: known by name, never built; the check reports it.
        assert!(reg.contains("bad") && reg.get("bad").is_none());
        assert!(reg.get("missing").is_none());
        assert!(matches!(
            reg.build_deferred(),
            Err(RegistryError::BadType { .. })
        ));
        let names: Vec<&str> = reg.functions().map(Function::name).collect();
        assert_eq!(names, ["one", "two"]);
        // Registering over a deferred name fails, as over any other, unless shadowing.
        assert!(reg
            .function("two")
            .dispatch(Signature::new(), |_c, _a| Ok(Value::Undef))
            .register()
            .is_err());
        reg.function("two")
            .shadow(true)
            .dispatch(Signature::new(), |_c, _a| Ok(Value::Undef))
            .register()
            .unwrap();
        assert_eq!(
            reg.call(&mut NullContext::default(), "two", vec![], None)
                .unwrap(),
            Value::Undef
        );
    }
}
