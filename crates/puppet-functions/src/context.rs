//! The call context and block traits: what a function may ask of the evaluator that calls it.
//!
//! The evaluator (another crate) implements [`CallContext`]; this crate never depends on it.
//! Besides calling lambdas and functions and reading variables, a context offers the few
//! capabilities that Puppet's compiler-bound built-ins are written against (declare classes,
//! look up in Hiera, render a template, answer `defined`, run a command; through
//! [`CatalogAccess`], declare, realize and tag resources); each has a default that fails
//! with "not available in this context", so a context implements only what it has.
//! Lambdas are [`Block`] trait objects. Tests implement both with plain Rust closures (see
//! [`FnBlock`]). This module does no evaluation itself.

use crate::annotations::Annotations;
use crate::error::CallError;
use puppet_types::{Type, Value};
use std::any::Any;
use std::fmt;

/// Log levels, as Puppet's logging functions name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LogLevel {
    /// `debug`.
    Debug,
    /// `info`.
    Info,
    /// `notice`.
    Notice,
    /// `warning`.
    Warning,
    /// `err`.
    Err,
    /// `alert`.
    Alert,
    /// `emerg`.
    Emerg,
    /// `crit`.
    Crit,
}

impl LogLevel {
    /// The level of a Puppet or Ruby logging name (`notice`, `err` or `error`, `crit`...);
    /// anything else is a warning (`warn`, `warning`, Kernel's `warn`).
    ///
    /// ```
    /// use puppet_functions::LogLevel;
    /// assert_eq!(LogLevel::from_name("error"), LogLevel::Err);
    /// assert_eq!(LogLevel::from_name("warn"), LogLevel::Warning);
    /// ```
    pub fn from_name(name: &str) -> LogLevel {
        match name {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "err" | "error" => LogLevel::Err,
            "alert" => LogLevel::Alert,
            "emerg" => LogLevel::Emerg,
            "crit" => LogLevel::Crit,
            _ => LogLevel::Warning,
        }
    }

    /// The level's Puppet name (`warning`, `err`, ...).
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Err => "err",
            LogLevel::Alert => "alert",
            LogLevel::Emerg => "emerg",
            LogLevel::Crit => "crit",
        }
    }
}

/// The parameters a block (lambda) declares: their types and how many arguments it accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockSignature {
    /// The declared parameter types (`Any` when untyped); the last repeats for `*$rest`.
    pub types: Vec<Type>,
    /// The number of required parameters.
    pub min: usize,
    /// The maximum number of arguments, `None` when the last parameter captures the rest.
    pub max: Option<usize>,
}

impl BlockSignature {
    /// A signature of `n` untyped parameters (`|$a, $b|` is `untyped(2)`).
    pub fn untyped(n: usize) -> BlockSignature {
        BlockSignature {
            types: vec![Type::Any; n],
            min: n,
            max: Some(n),
        }
    }

    /// The Callable type Puppet infers for such a block.
    pub fn callable_type(&self) -> Type {
        use puppet_types::types::{IntRange, TupleType};
        Type::callable(
            Some(TupleType {
                types: self.types.clone(),
                size: Some(IntRange::new(
                    Some(self.min as i64),
                    self.max.map(|m| m as i64),
                )),
            }),
            None,
            None,
        )
    }
}

/// A lambda passed to a function (`|$x| { ... }`).
///
/// Its [`Block::call`] returns `Err(CallError::Next(v))` when the body ran `next(v)`, and
/// `Err(CallError::Break)` / `Err(CallError::Return(v))` for `break()` / `return(v)`; iterating
/// functions turn `Next` into the lambda's value and stop on `Break`.
pub trait Block: Send + Sync {
    /// The parameters the block declares.
    fn signature(&self) -> BlockSignature;
    /// Calls the block with `args` (already counted against the signature by the caller).
    fn call(&self, ctx: &mut dyn CallContext, args: Vec<Value>) -> Result<Value, CallError>;
    /// The concrete block, so that an evaluator can recognise its own lambdas in
    /// [`CallContext::call_block`].
    fn as_any(&self) -> Option<&dyn Any> {
        None
    }
}

impl fmt::Debug for dyn Block + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Block({})", self.signature().callable_type())
    }
}

/// A block made of a Rust closure, for tests and for Rust code calling functions.
///
/// ```
/// use puppet_functions::{builtins, Block, CallContext, FnBlock, NullContext, Registry};
/// use puppet_types::Value;
/// let reg = builtins::registry();
/// let double = FnBlock::new(1, |_ctx, args| match &args[0] {
///     Value::Integer(i) => Ok(Value::Integer(i * 2)),
///     other => Ok(other.clone()),
/// });
/// let arr = Value::array(vec![Value::Integer(1), Value::Integer(2)]);
/// let out = reg.call(&mut NullContext::default(), "map", vec![arr], Some(&double)).unwrap();
/// assert_eq!(out.to_string(), "[2, 4]");
/// ```
pub struct FnBlock<F> {
    sig: BlockSignature,
    f: F,
}

impl<F> FnBlock<F>
where
    F: Fn(&mut dyn CallContext, Vec<Value>) -> Result<Value, CallError> + Send + Sync,
{
    /// A block with `n` untyped parameters.
    pub fn new(n: usize, f: F) -> FnBlock<F> {
        FnBlock {
            sig: BlockSignature::untyped(n),
            f,
        }
    }

    /// A block with an explicit signature.
    pub fn with_signature(sig: BlockSignature, f: F) -> FnBlock<F> {
        FnBlock { sig, f }
    }
}

impl<F> fmt::Debug for FnBlock<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FnBlock({})", self.sig.callable_type())
    }
}

impl<F> Block for FnBlock<F>
where
    F: Fn(&mut dyn CallContext, Vec<Value>) -> Result<Value, CallError> + Send + Sync,
{
    fn signature(&self) -> BlockSignature {
        self.sig.clone()
    }
    fn call(&self, ctx: &mut dyn CallContext, args: Vec<Value>) -> Result<Value, CallError> {
        (self.f)(ctx, args)
    }
}

/// What a function may ask of its caller. The evaluator implements it.
pub trait CallContext {
    /// Calls a block. The default calls [`Block::call`]; an evaluator overrides it to evaluate
    /// its own lambdas (recognised through [`Block::as_any`]) with full access to its state.
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError>;

    /// Calls another function by name (`call()`, `max` with a lambda calling `compare`...).
    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError>;

    /// A variable as the calling scope reads it, for system functions and `getvar`: `x`
    /// through the scopes, `::x` in the top scope, `c::x` in (the classes inherited by) the
    /// evaluated class `c`, as `$c::x` reads it but without its warnings; `None` when unknown.
    fn variable(&self, name: &str) -> Option<Value>;

    /// Every variable the calling scope sees, its own replacing its enclosing scopes' (what
    /// Ruby's `to_hash` gives in a 3.x function: Puppet's `Scope#to_hash`). The default
    /// sees none.
    fn visible_variables(&self) -> indexmap::IndexMap<smol_str::SmolStr, Value> {
        indexmap::IndexMap::new()
    }

    /// Logs a message at a level (notice, warning, deprecations...) without the calling
    /// scope as its source, as Ruby's `Puppet.notice` does (see
    /// [`CallContext::log_from_scope`]).
    fn log(&mut self, level: LogLevel, message: &str);

    /// A type alias or resource type known to the loader, by name (`MyModule::Port`).
    fn type_alias(&self, name: &str) -> Option<Type>;

    /// Resolves a type name found in a type string (`assert_type('MyPort', $x)`) as the
    /// evaluator resolves names, loading an alias on first use. The default asks
    /// [`CallContext::type_alias`].
    fn resolve_type_name(&mut self, name: &str) -> Option<Type> {
        self.type_alias(name)
    }

    /// Logs a deprecation warning as Puppet's `warn_once` does with the location of the call
    /// being made (`(file: F, line: L)`): once per compile for a `key` and location. The
    /// default logs it as a plain warning.
    fn deprecation_at_call(&mut self, key: &str, message: &str) {
        let _ = key;
        self.log(LogLevel::Warning, message);
    }

    /// Logs a warning once per compile for `key` (Puppet's `warn_once`, as
    /// `Puppet.deprecation_warning(message, key)` uses it); true when it was logged now. The
    /// default logs it every time.
    fn warn_once(&mut self, key: &str, message: &str) -> bool {
        let _ = key;
        self.log(LogLevel::Warning, message);
        true
    }

    /// Puppet's `warn_once` of a warning it knows no location for: the message gets
    /// Puppet's `(file & line not available)` line, once per `key`.
    fn warn_once_unlocated(&mut self, key: &str, message: &str) -> bool {
        self.warn_once(key, &format!("{message}\n   (file & line not available)"))
    }

    /// Ruby code's `scope.lookupvar(name)` or `scope[name]` found no variable `name`:
    /// Puppet's `Scope#lookupvar` warns once per name, without a location, or under
    /// `strict=error` raises an `ArgumentError` with the same text (`Err`). The default
    /// warns, naming the variable as given; the compiler names and explains a qualified one
    /// as Puppet does (`'::c::x'`, or `'c::x'; class c could not be found`).
    fn ruby_variable_missing(&mut self, name: &str) -> Result<(), String> {
        self.warn_once_unlocated(
            &format!("undefined_variable:{name}"),
            &format!("Undefined variable '{name}'; "),
        );
        Ok(())
    }

    /// The reason Puppet's `Scope#lookupvar` throws with `:undefined_variable` for a missing
    /// `name`, seen by Ruby code that catches it: `None` for a plain name; for a qualified
    /// one, why (`class c could not be found`, or empty). The default is `None`.
    fn ruby_variable_reason(&mut self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// Ruby's `scope.lookupvar(name)` (a 3.x function's `lookupvar`) for native code that
    /// stands in for a module's Ruby: the variable, or `None` after
    /// [`ruby_variable_missing`](CallContext::ruby_variable_missing)'s warning; `Err` is its
    /// `strict=error` message.
    fn ruby_lookupvar(&mut self, name: &str) -> Result<Option<Value>, String> {
        match self.variable(name) {
            Some(v) => Ok(Some(v)),
            None => self.ruby_variable_missing(name).map(|()| None),
        }
    }

    /// Puppet's stack of calls (`Puppet::Pops::PuppetStack.stacktrace`), innermost first:
    /// `(file, line)` of each function call being made (`"unknown"` for code without a
    /// file), and `(file, 0)` for the main manifest being evaluated. The default is empty.
    fn puppet_stack(&self) -> Vec<(String, u32)> {
        Vec::new()
    }

    /// The value of a Puppet setting (`Puppet[:strict]`, `Puppet.settings[:strict]` in Ruby
    /// functions) as the compile has it; `None` when the context does not know it (Ruby
    /// functions then see Puppet 7.23's default for the few settings modules read). The
    /// default knows none.
    fn setting(&self, name: &str) -> Option<Value> {
        let _ = name;
        None
    }

    /// The directory of the module `name` of the environment being compiled, as Puppet's
    /// `Puppet::Module#path` gives it (stdlib's `get_module_path`, the location in stdlib's
    /// deprecation warnings). The default, `None`, is a context without a module path.
    fn module_directory(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// The bytes of the file `relative` (`metadata.json`) of module `name`'s directory, read
    /// through the environment's file source (stdlib's `load_module_metadata`). The default,
    /// `None`, is a context that cannot read module files; `None` also when there is no such
    /// file.
    fn module_file(&self, name: &str, relative: &str) -> Option<Vec<u8>> {
        let _ = (name, relative);
        None
    }

    /// The bytes of a file given by absolute path, read through the environment's file
    /// source (stdlib's `loadjson`/`loadyaml`): `Ok(None)` when there is no such file,
    /// `Err(reason)` when the source refuses to read it (a compile reads only below the
    /// module path and the environment). The default refuses everything.
    fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        Err(format!("reading '{path}' is not possible in this context"))
    }

    /// The catalog under construction, for the functions of modules that declare or inspect
    /// resources (stdlib's `ensure_resource`, `ensure_packages`, `defined_with_params`,
    /// `getparam`...). The default, `None`, makes those functions fail with a clear error.
    fn catalog(&mut self) -> Option<&mut dyn CatalogAccess> {
        None
    }

    /// The annotations of the compile (`annotate`). The default, `None`, makes `annotate`
    /// fail with a clear error.
    fn annotations(&mut self) -> Option<&mut Annotations> {
        None
    }

    /// Logs a message as Puppet's logging functions (`notice`, `warning`...) do: with the
    /// calling scope as its source (`Scope(Class[main])`), where [`CallContext::log`] is a
    /// Ruby function's `Puppet.warning`. The default is [`CallContext::log`].
    fn log_from_scope(&mut self, level: LogLevel, message: &str) {
        self.log(level, message);
    }

    /// Declares classes in the calling scope as `include`, `require` or `contain` do
    /// (Puppet's `evaluate_classes`): each name is found (or the call fails) and put in the
    /// catalog, then the new ones are evaluated. The default: not available.
    fn declare_classes(
        &mut self,
        names: &[String],
        how: ClassDeclaration,
    ) -> Result<(), CallError> {
        let _ = names;
        Err(unavailable(how.function_name()))
    }

    /// Puppet's `Lookup.lookup`: looks the request's names up (overrides, then Hiera, then
    /// the default values, the default block called with the name, the default value),
    /// asserting the value type; not found is an error. The default: not available.
    fn lookup(
        &mut self,
        request: &LookupRequest,
        default_block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        let _ = (request, default_block);
        Err(unavailable("lookup"))
    }

    /// Renders a template (ERB or EPP, a module's file or text) as `template`,
    /// `inline_template`, `epp` and `inline_epp` do. The default: not available.
    fn render_template(&mut self, template: TemplateSource<'_>) -> Result<Value, CallError> {
        let what = match template {
            TemplateSource::ErbFile(_) => "template",
            TemplateSource::ErbText(_) => "inline_template",
            TemplateSource::EppFile { .. } => "epp",
            TemplateSource::EppText { .. } => "inline_epp",
        };
        Err(unavailable(what))
    }

    /// Whether a variable, a type or a catalog entry exists, as `defined` asks it. The
    /// default: not available.
    fn is_defined(&mut self, what: Definable<'_>) -> Result<bool, CallError> {
        let _ = what;
        Err(unavailable("defined"))
    }

    /// Runs a command on the compiling host and returns its output (`generate`), when the
    /// context allows it. The default refuses.
    fn run_command(&mut self, argv: &[String]) -> Result<String, CallError> {
        let _ = argv;
        Err(unavailable("running a command"))
    }
}

/// The error of a capability a context does not have.
fn unavailable(what: &str) -> CallError {
    CallError::new(
        crate::error::codes::UNSUPPORTED,
        format!("{what} is not available in this context"),
    )
}

/// How [`CallContext::declare_classes`] declares: `include`, `require` (the class is also
/// a dependency of the calling resource) or `contain` (also contained in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassDeclaration {
    /// `include`.
    Include,
    /// `require`.
    Require,
    /// `contain`.
    Contain,
}

impl ClassDeclaration {
    /// The function that declares this way.
    pub fn function_name(self) -> &'static str {
        match self {
            ClassDeclaration::Include => "include",
            ClassDeclaration::Require => "require",
            ClassDeclaration::Contain => "contain",
        }
    }
}

/// What `lookup()` (and the deprecated `hiera_*()` functions) ask of
/// [`CallContext::lookup`], whatever the call's form.
#[derive(Debug, Clone, PartialEq)]
pub struct LookupRequest {
    /// The name or names as given (an Array tries each; passed to the default block).
    pub name: Value,
    /// The type the value must have.
    pub value_type: Option<Type>,
    /// The merge strategy as given (a name or a Hash of options), `Undef` for the
    /// `lookup_options` of the key.
    pub merge: Value,
    /// The default value, when one was given (`Some(Undef)` is a default of `undef`).
    pub default_value: Option<Value>,
    /// Values that win over Hiera, by name (a Hash, or `Undef`).
    pub overrides: Value,
    /// Values used when Hiera has none, by name (a Hash, or `Undef`).
    pub default_values: Value,
    /// True for the deprecated `hiera_*()` functions, which search only the global layer
    /// when the environment has no `hiera.yaml`.
    pub legacy_hiera: bool,
}

impl LookupRequest {
    /// A request for `name` with nothing else given.
    pub fn new(name: Value) -> LookupRequest {
        LookupRequest {
            name,
            value_type: None,
            merge: Value::Undef,
            default_value: None,
            overrides: Value::Undef,
            default_values: Value::Undef,
            legacy_hiera: false,
        }
    }
}

/// A template for [`CallContext::render_template`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TemplateSource<'a> {
    /// A module's ERB file by Puppet's name (`module/file.erb`), rendered in the calling
    /// scope (`template`).
    ErbFile(&'a str),
    /// ERB text rendered in the calling scope (`inline_template`).
    ErbText(&'a str),
    /// A module's EPP file by Puppet's name (`module/file.epp`; `.epp` may be left out),
    /// rendered in the top scope with the parameters (`epp`).
    EppFile {
        /// The template's name.
        name: &'a str,
        /// The parameters (a Hash), when given.
        parameters: Option<&'a Value>,
    },
    /// EPP text rendered in the calling scope with the parameters (`inline_epp`).
    EppText {
        /// The template text.
        text: &'a str,
        /// The parameters (a Hash), when given.
        parameters: Option<&'a Value>,
    },
}

/// What [`CallContext::is_defined`] is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Definable<'a> {
    /// A variable by name, without `$` (`x`, `::x`, `c::x`), read as `$x` would read it.
    Variable(&'a str),
    /// A class, defined type or resource type by (any case) name.
    TypeName(&'a str),
    /// A defined type or resource type by (any case) name.
    ResourceType(&'a str),
    /// The resource `type_name[title]` in the catalog (found by title or alias).
    Resource {
        /// The type, as in a reference (`File`, `Apache::Vhost`).
        type_name: &'a str,
        /// The title.
        title: &'a str,
    },
    /// The class `name` has been declared in the catalog.
    Class(&'a str),
    /// A function of any kind (Puppet language, Ruby 4.x or 3.x, built-in) by name, as
    /// the environment's private loader finds it (`loader.load(:function, name)` in Ruby).
    Function(&'a str),
    /// A function the environment's public loader finds: Puppet's own, or one of the
    /// environment's own `functions/` (`environment::name`), not the modules'.
    PublicFunction(&'a str),
}

/// What catalog-changing functions need from the catalog under construction; the evaluator
/// implements it and returns it from [`CallContext::catalog`].
///
/// Resource types are named as Puppet prints them in references (`Package`, `Apache::Vhost`,
/// `Class`); titles are as declared (class titles without a leading `::`).
pub trait CatalogAccess {
    /// The parameters of the resource `type_name[title]` when it is in the catalog (`None`
    /// when it is not), with the values it was declared with (defaults not applied).
    fn resource(&self, type_name: &str, title: &str) -> Option<Vec<(String, Value)>>;

    /// The titles of the resources of a type in the catalog, in declaration order.
    fn titles(&self, type_name: &str) -> Vec<String>;

    /// Every resource in the catalog so far as (type, title), in the order Puppet's catalog
    /// lists them (`Stage[main]`, `Class[Settings]`, `Class[main]`, then as added, virtual
    /// ones included); `None` (the default) when the catalog cannot list them.
    fn resources(&self) -> Option<Vec<(String, String)>> {
        None
    }

    /// The resource being evaluated when the function was called (the defined type instance
    /// or class whose body contains the call), as (type, title); `None` at top level.
    fn current_resource(&self) -> Option<(String, String)>;

    /// Declares a resource as `create_resources(type_name, {title => params})` would,
    /// including classes (`type_name` `Class`); errors (duplicates, unknown types, bad
    /// parameters) are Puppet's.
    fn declare_resource(
        &mut self,
        type_name: &str,
        title: &str,
        params: Vec<(String, Value)>,
    ) -> Result<(), CallError>;

    /// Declares a resource whose title a Ruby function passed as a value that is not a
    /// String (an Integer port, say): Puppet does not tag such a title, and its `name`
    /// stays a parameter. The default declares it with the title's text.
    fn declare_resource_titled(
        &mut self,
        type_name: &str,
        title: &Value,
        params: Vec<(String, Value)>,
    ) -> Result<(), CallError> {
        self.declare_resource(type_name, &title.to_plain_string(), params)
    }

    /// The names of the attributes that resource defaults (`Exec { path => ... }`) give the
    /// type `type_name` in the scope of the call and the scopes it inherits defaults from,
    /// as Puppet's `Scope#lookupdefaults` (staging's `scope_defaults`). The default: none.
    fn default_attributes(&self, type_name: &str) -> Vec<String> {
        let _ = type_name;
        Vec::new()
    }

    /// Realizes the virtual resources a reference names (a resource reference, a String
    /// such as `File['/x']`, or an Array of them), as `realize` does: one declared later is
    /// realized when it comes. The default: not available.
    fn realize(&mut self, reference: &Value) -> Result<(), CallError> {
        let _ = reference;
        Err(unavailable("realize"))
    }

    /// Adds tags to the resource being evaluated when the function was called (`tag`).
    /// The default: not available.
    fn tag(&mut self, tags: &[String]) -> Result<(), CallError> {
        let _ = tags;
        Err(unavailable("tag"))
    }

    /// Whether the resource being evaluated or the catalog has the tag (an evaluated
    /// class's name is one), as `tagged` asks. The default: no tag.
    fn tagged(&self, tag: &str) -> bool {
        let _ = tag;
        false
    }

    /// The names of the classes in the catalog so far, in the order Puppet adds them
    /// (`settings` first), as Ruby's `catalog.classes` lists them. The default: `None`,
    /// not available.
    fn classes(&self) -> Option<Vec<String>> {
        None
    }
}

/// A context that knows nothing: blocks are called directly, no function can be called by
/// name except through [`crate::Registry::call`] (which passes its own registry), no variables,
/// logs and annotations are kept in memory.
#[derive(Debug, Default)]
pub struct NullContext {
    /// The messages logged so far, as `level: message`.
    pub logs: Vec<String>,
    /// The annotations made so far.
    pub annotations: Annotations,
}

impl CallContext for NullContext {
    fn call_block(&mut self, block: &dyn Block, args: Vec<Value>) -> Result<Value, CallError> {
        block.call(self, args)
    }
    fn call_function(
        &mut self,
        name: &str,
        args: Vec<Value>,
        block: Option<&dyn Block>,
    ) -> Result<Value, CallError> {
        crate::builtins::registry().call(self, name, args, block)
    }
    fn variable(&self, _name: &str) -> Option<Value> {
        None
    }
    fn log(&mut self, level: LogLevel, message: &str) {
        self.logs.push(format!("{}: {message}", level.name()));
    }
    fn type_alias(&self, _name: &str) -> Option<Type> {
        None
    }
    fn annotations(&mut self) -> Option<&mut Annotations> {
        Some(&mut self.annotations)
    }
}
