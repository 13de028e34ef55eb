//! Puppet 7.23's built-ins whose work is the compiler's: class declaration (`include`,
//! `require`, `contain`), `defined`, `getvar`, templates (`template`, `inline_template`,
//! `epp`, `inline_epp`), Hiera (`lookup` and the deprecated `hiera`, `hiera_array`,
//! `hiera_hash`, `hiera_include`), the catalog (`create_resources`, `realize`, `tag`,
//! `tagged`), `generate` and the discontinued `import`.
//!
//! Each is registered with Puppet's own dispatches (checked against Puppet's signatures in
//! `tests/signatures.rs`), so that argument errors are Puppet's; the body checks what
//! Puppet checks in the function and asks the context's capabilities for the rest
//! ([`CallContext::declare_classes`], [`CallContext::lookup`],
//! [`CallContext::render_template`], [`CallContext::is_defined`],
//! [`CallContext::run_command`], [`crate::CatalogAccess`]). A context without them (the
//! [`crate::NullContext`]) fails such a call with "not available in this context". The
//! 3.x functions among them (`template`, `inline_template`, `create_resources`, `realize`,
//! `tag`, `tagged`, `generate`) take `Any` arguments and check them as their Ruby does.

use crate::context::{CallContext, ClassDeclaration, Definable, LookupRequest, TemplateSource};
use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{RegistryError, Signature};
use indexmap::IndexMap;
use puppet_types::{Type, Value};
use smol_str::SmolStr;

fn failed(message: impl Into<String>) -> CallError {
    CallError::new(codes::FAILED, message)
}

/// The catalog of the context, or the error of a context without one.
fn catalog<'c>(
    c: &'c mut dyn CallContext,
    function: &str,
) -> Result<&'c mut dyn crate::CatalogAccess, CallError> {
    c.catalog().ok_or_else(|| {
        CallError::new(
            codes::UNSUPPORTED,
            format!("{function} is not available in this context"),
        )
    })
}

/// Class names as `include` takes them: Arrays flattened, class references by name.
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

fn has_undef(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().any(has_undef),
        other => other.is_undef(),
    }
}

/// `include`, `require`, `contain`: the declared classes, as class references.
fn declare(
    how: ClassDeclaration,
) -> impl Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> + Send + Sync {
    move |c, a| {
        if a.values.iter().any(has_undef) {
            return Err(failed("Cannot use undef as a class name"));
        }
        let mut names = Vec::new();
        flatten_names(&a.values, &mut names);
        if names.iter().any(|n| n.is_empty()) {
            return Err(failed("Cannot use empty string as a class name"));
        }
        c.declare_classes(&names, how)?;
        let refs = names
            .iter()
            .map(|n| {
                let canonical = n.trim_start_matches("::").to_ascii_lowercase();
                Value::Type(Type::Class(Some(SmolStr::new(canonical))))
            })
            .collect();
        Ok(Value::array(refs))
    }
}

fn defined(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    for v in &a.values {
        match v {
            Value::Type(Type::Class(None)) => {
                return Err(failed("The given class type is a reference to all classes"))
            }
            Value::Type(Type::Resource(r)) if r.type_name.is_none() => {
                return Err(failed(
                    "The given resource type is a reference to all kind of types",
                ))
            }
            _ => {}
        }
    }
    for v in &a.values {
        let found = match v {
            Value::String(s) => match s.strip_prefix('$') {
                Some(var) => c.is_defined(Definable::Variable(var))?,
                None => c.is_defined(Definable::TypeName(s))?,
            },
            Value::Type(Type::Resource(r)) => match (&r.type_name, &r.title) {
                (Some(t), Some(title)) => c.is_defined(Definable::Resource {
                    type_name: t,
                    title,
                })?,
                (Some(t), None) => c.is_defined(Definable::ResourceType(t))?,
                _ => true,
            },
            Value::Type(Type::Class(Some(n))) => c.is_defined(Definable::Class(n))?,
            Value::Type(_) => true,
            _ => false,
        };
        if found {
            return Ok(Value::Boolean(true));
        }
    }
    Ok(Value::Boolean(false))
}

/// `getvar('a::b.key.0', default) |$error| { }`: a variable as `$a::b` reads it, then
/// `get`'s navigation.
fn getvar(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let path = a.get(0).as_str().unwrap_or_default().to_string();
    let default = a.values.get(1).cloned();
    let end = path.find('.').unwrap_or(path.len());
    let value = match c.variable(&path[..end]) {
        Some(v) => v,
        None => return Ok(default.unwrap_or(Value::Undef)),
    };
    let nav = path.get(end + 1..).unwrap_or("");
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
    c.call_function("get", get_args, a.block)
}

/// `template('module/file.erb', ...)`: the files rendered in the calling scope,
/// concatenated.
fn template(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    if a.values.is_empty() {
        return Err(failed(
            "template(): Wrong number of arguments given (0 for minimum 1)",
        ));
    }
    let mut out = Rendered::default();
    for v in &a.values {
        let name = match v {
            Value::String(s) => s.to_string(),
            Value::Undef => String::new(),
            other => {
                return Err(failed(format!(
                    "undefined method `split' for {}:{}\n\n      path.split(File::SEPARATOR, 2)\n          ^^^^^^",
                    puppet_types::ruby::inspect(other),
                    puppet_types::ruby::class_name(other)
                )))
            }
        };
        out.push(c.render_template(TemplateSource::ErbFile(&name))?)?;
    }
    Ok(out.into_value())
}

/// Templates' outputs joined (`template` and `inline_template` answer Ruby's `join` of
/// them), with the encoding that gives.
#[derive(Default)]
struct Rendered {
    text: String,
    encoding: puppet_types::string::JoinEncoding,
}

impl Rendered {
    fn push(&mut self, v: Value) -> Result<(), CallError> {
        let start = self.text.len();
        match &v {
            Value::String(s) => self.text.push_str(s),
            other => self.text.push_str(&other.to_plain_string()),
        }
        let binary = matches!(&v, Value::String(s) if s.is_binary());
        self.encoding
            .push(&self.text, start, binary)
            .map_err(failed)
    }

    fn into_value(self) -> Value {
        Value::String(puppet_types::Str::with_binary(
            self.text,
            self.encoding.is_binary(),
        ))
    }
}

/// `inline_template(text, ...)`: each text rendered in the calling scope, concatenated.
fn inline_template(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let mut out = Rendered::default();
    for v in &a.values {
        let Value::String(text) = v else {
            return Err(failed("'inline_template' expects String values"));
        };
        out.push(c.render_template(TemplateSource::ErbText(text))?)?;
    }
    Ok(out.into_value())
}

fn hash_get(h: &Value, key: &str) -> Option<Value> {
    match h {
        Value::Hash(m) => m.get(&Value::string(key)).cloned(),
        _ => None,
    }
}

fn as_type(v: Option<Value>) -> Option<Type> {
    match v {
        Some(Value::Type(t)) => Some(t),
        _ => None,
    }
}

/// A `lookup` request from an options hash (`name` given apart or in it).
fn from_options(name: Value, o: &Value) -> LookupRequest {
    LookupRequest {
        name,
        value_type: as_type(hash_get(o, "value_type")),
        merge: hash_get(o, "merge").unwrap_or(Value::Undef),
        default_value: hash_get(o, "default_value"),
        overrides: hash_get(o, "override").unwrap_or(Value::Undef),
        default_values: hash_get(o, "default_values_hash").unwrap_or(Value::Undef),
        legacy_hiera: false,
    }
}

/// `lookup(name, value_type, merge)`, with a default value (`with_default`).
fn lookup_positional(
    with_default: bool,
) -> impl Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> + Send + Sync {
    move |c, a| {
        let request = LookupRequest {
            value_type: as_type(a.values.get(1).cloned()),
            merge: a.get(2),
            default_value: if with_default { Some(a.get(3)) } else { None },
            ..LookupRequest::new(a.get(0))
        };
        c.lookup(&request, a.block)
    }
}

/// The deprecated `hiera_*` functions: their merge strategy; `hiera_include` includes
/// what it found.
fn hiera(
    name: &'static str,
    merge: &'static str,
    which: u8,
) -> impl Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> + Send + Sync {
    move |c, a| {
        let args: Vec<Value> = match (which, a.values.first()) {
            (1, Some(Value::Array(t))) => t.to_vec(),
            _ => a.values.clone(),
        };
        c.warn_once_unlocated(
            &format!("deprecated-{name}"),
            &format!("The function '{name}' is deprecated in favor of using 'lookup'. See https://puppet.com/docs/puppet/7.23/deprecated_language.html"),
        );
        let key = args.first().cloned().unwrap_or(Value::Undef);
        let request = LookupRequest {
            merge: Value::string(merge),
            default_value: match which {
                1 | 3 => args.get(1).cloned(),
                _ => None,
            },
            legacy_hiera: true,
            ..LookupRequest::new(key.clone())
        };
        let block = if matches!(which, 4 | 5) {
            a.block
        } else {
            None
        };
        let value = c.lookup(&request, block)?;
        if name != "hiera_include" {
            return Ok(value);
        }
        let empty = match &value {
            Value::Undef => {
                return Err(failed(format!(
                    "Could not find data item {}",
                    key.to_plain_string()
                )))
            }
            Value::Array(a) => a.is_empty(),
            Value::String(s) => s.is_empty(),
            Value::Hash(h) => h.is_empty(),
            _ => false,
        };
        if empty {
            return Ok(Value::Undef);
        }
        c.call_function("include", vec![value], None)
    }
}

/// `create_resources(type, {title => params}, defaults)`: each title declared with the
/// defaults merged under its parameters (undef values left out); returns undef.
fn create_resources(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let args = &a.values;
    if args.len() < 2 {
        return Err(failed(format!(
            "create_resources(): Wrong number of arguments given ({} for minimum 2)",
            args.len()
        )));
    }
    if args.len() > 3 {
        return Err(failed(format!(
            "create_resources(): wrong number of arguments ({}; must be 2 or 3)",
            args.len()
        )));
    }
    let Value::Hash(instances) = &args[1] else {
        return Err(failed("create_resources(): second argument must be a hash"));
    };
    let defaults = match args.get(2) {
        None => None,
        Some(Value::Hash(h)) => Some(h.clone()),
        Some(_) => {
            return Err(failed(
                "create_resources(): third argument, if provided, must be a hash",
            ))
        }
    };
    let type_name = match &args[0] {
        Value::String(s) => s.to_string(),
        Value::Undef => String::new(),
        Value::Type(t) => {
            return Err(failed(format!(
                "undefined method `sub' for {t}[]{{:name=>\"\"}}:Puppet::Resource"
            )))
        }
        other => {
            return Err(failed(format!(
                "undefined method `sub' for {}",
                puppet_types::ruby::inspect(other)
            )))
        }
    };
    let cat = catalog(c, "create_resources")?;
    for (title, params) in instances.iter() {
        let mut merged: IndexMap<String, Value> = IndexMap::new();
        for (k, v) in defaults.iter().flat_map(|d| d.iter()) {
            merged.insert(k.to_plain_string(), v.clone());
        }
        match params {
            Value::Hash(p) => {
                for (k, v) in p.iter() {
                    merged.insert(k.to_plain_string(), v.clone());
                }
            }
            Value::Undef if defaults.is_none() => {}
            other => {
                return Err(failed(format!(
                    "no implicit conversion of {} into Hash",
                    puppet_types::ruby::class_name(other)
                )))
            }
        }
        let params = merged.into_iter().collect();
        cat.declare_resource_titled(&type_name, title, params)?;
    }
    Ok(Value::Undef)
}

fn realize(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let cat = catalog(c, "realize")?;
    for v in &a.values {
        cat.realize(v)?;
    }
    Ok(Value::Undef)
}

fn tag(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let mut names = Vec::new();
    flatten_names(&a.values, &mut names);
    catalog(c, "tag")?.tag(&names)?;
    Ok(Value::Undef)
}

fn tagged(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let mut names = Vec::new();
    flatten_names(&a.values, &mut names);
    let cat = catalog(c, "tagged")?;
    let all = names.iter().all(|n| {
        let n = n.to_ascii_lowercase();
        n == "class" || cat.tagged(&n)
    });
    Ok(Value::Boolean(all))
}

/// `generate(command, args...)`: the command's output, when the context runs commands.
fn generate(c: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let words: Vec<String> = a
        .values
        .iter()
        .map(|v| match v {
            Value::Undef => String::new(),
            other => other.to_plain_string(),
        })
        .collect();
    if words.is_empty() {
        return Err(failed(
            "generate(): Wrong number of arguments given (0 for minimum 1)",
        ));
    }
    c.run_command(&words).map(Value::string)
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &[
    "include",
    "require",
    "contain",
    "defined",
    "getvar",
    "template",
    "inline_template",
    "epp",
    "inline_epp",
    "lookup",
    "hiera",
    "hiera_array",
    "hiera_hash",
    "hiera_include",
    "create_resources",
    "realize",
    "tag",
    "tagged",
    "generate",
    "import",
];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    for (name, how, doc) in [
        ("include", ClassDeclaration::Include, "Declares classes (names, class references or Arrays of them), evaluating each the first time; returns the classes as references."),
        ("require", ClassDeclaration::Require, "Declares classes as `include` does and makes the calling class or resource depend on them."),
        ("contain", ClassDeclaration::Contain, "Declares classes as `include` does and contains them in the calling class."),
    ] {
        reg.function(name)
            .doc(doc)
            .example(&format!("class a {{}} {name}(a)"), "[Class[a]]")
            .dispatch(
                Signature::new().required_repeated_param("Any", "names"),
                declare(how),
            )
            .register()?;
    }
    reg.function("defined")
        .doc("True when any argument is defined: `'$x'` a variable, a name a class, defined type or resource type, a resource reference a resource in the catalog, a class reference a declared class.")
        .example("$x = 1 defined('$x')", "true")
        .dispatch(
            Signature::new().required_repeated_param(
                "Variant[String, Type[CatalogEntry], Type[Type[CatalogEntry]]]",
                "vals",
            ),
            defined,
        )
        .register()?;
    reg.function("getvar")
        .doc("The value of a variable given by (qualified) name, navigated into by `get`'s dotted path after it; the default when there is no such variable.")
        .example("$x = { 'a' => [1, 2] } getvar('x.a.1')", "2")
        .dispatch(
            Signature::new()
                .param(
                    r"Pattern[/\A(?:::)?(?:[a-z]\w*::)*[a-z_]\w*(?:\.|\Z)/]",
                    "get_string",
                )
                .optional_param("Any", "default_value")
                .optional_block_param("Callable[1,1]", "block"),
            getvar,
        )
        .argument_mismatch(
            Signature::new()
                .param("String", "get_string")
                .optional_param("Any", "default_value")
                .optional_block_param("Callable", "block"),
            |_| "The given string does not start with a valid variable name".to_string(),
        )
        .register()?;
    reg.function("template")
        .doc("Renders modules' ERB templates (`module/file.erb`) in the calling scope and concatenates them (3.x function in Puppet).")
        .example("template('nosuch/t.erb')", "error: Could not find template 'nosuch/t.erb'")
        .dispatch(Signature::new().repeated_param("Any", "args"), template)
        .register()?;
    reg.function("inline_template")
        .doc("Renders ERB texts in the calling scope and concatenates them (3.x function in Puppet).")
        .example("$x = 2 inline_template('<%= @x %>!')", "'2!'")
        .dispatch(Signature::new().repeated_param("Any", "args"), inline_template)
        .register()?;
    reg.function("epp")
        .doc("Renders a module's EPP template (`module/file.epp`) in the top scope with the given parameters.")
        .example("epp('nosuch/t.epp')", "error: Could not find template 'nosuch/t.epp'")
        .dispatch(
            Signature::new()
                .param("String", "path")
                .optional_param(r"Hash[Pattern[/^\w+$/], Any]", "parameters")
                .return_type("Variant[String, Sensitive[String]]"),
            |c, a| {
                let parameters = a.values.get(1).filter(|p| !p.is_undef());
                let name = a.get(0).as_str().unwrap_or_default().to_string();
                c.render_template(TemplateSource::EppFile {
                    name: &name,
                    parameters,
                })
            },
        )
        .register()?;
    reg.function("inline_epp")
        .doc("Renders EPP text in the calling scope with the given parameters.")
        .example("inline_epp('<%= $a %>!', { 'a' => 1 })", "'1!'")
        .dispatch(
            Signature::new()
                .param("String", "template")
                .optional_param(r"Hash[Pattern[/^\w+$/], Any]", "parameters")
                .return_type("Variant[String, Sensitive[String]]"),
            |c, a| {
                let parameters = a.values.get(1).filter(|p| !p.is_undef());
                let text = a.get(0).as_str().unwrap_or_default().to_string();
                c.render_template(TemplateSource::EppText {
                    text: &text,
                    parameters,
                })
            },
        )
        .register()?;
    // Puppet declares `default_value => Optional[DefaultValueType]`; its type factory drops
    // the Optional of a type that accepts undef (its signatures print the member as
    // `DefaultValueType = Any`), which ours does not do inside an alias, so the equivalent
    // member is written (the key is optional either way).
    let members = "value_type => Optional[ValueType], default_value => DefaultValueType, override => Optional[Hash[String, Any]], default_values_hash => Optional[Hash[String, Any]], merge => Optional[MergeType]";
    reg.function("lookup")
        .doc("Looks a key (or the first of several) up in Hiera, with a value type, a merge strategy, and a default value, default values hash or default block.")
        .example("lookup('nosuch', undef, undef, 5)", "5")
        .local_type("NameType", "Variant[String, Array[String]]")
        .local_type("ValueType", "Type")
        .local_type("DefaultValueType", "Any")
        .local_type("MergeType", "Variant[String[1], Hash[String, Scalar]]")
        .local_type("BlockType", "Callable[NameType]")
        .local_type(
            "OptionsWithName",
            format!("Struct[{{name => NameType, {members}}}]"),
        )
        .local_type("OptionsWithoutName", format!("Struct[{{{members}}}]"))
        .dispatch(
            Signature::new()
                .param("NameType", "name")
                .optional_param("ValueType", "value_type")
                .optional_param("MergeType", "merge"),
            lookup_positional(false),
        )
        .dispatch(
            Signature::new()
                .param("NameType", "name")
                .param("Optional[ValueType]", "value_type")
                .param("Optional[MergeType]", "merge")
                .param("DefaultValueType", "default_value"),
            lookup_positional(true),
        )
        .dispatch(
            Signature::new()
                .param("NameType", "name")
                .optional_param("ValueType", "value_type")
                .optional_param("MergeType", "merge")
                .block_param("BlockType", "block"),
            lookup_positional(false),
        )
        .dispatch(
            Signature::new()
                .param("OptionsWithName", "options_hash")
                .optional_block_param("BlockType", "block"),
            |c, a| {
                let o = a.get(0);
                let request = from_options(hash_get(&o, "name").unwrap_or(Value::Undef), &o);
                c.lookup(&request, a.block)
            },
        )
        .dispatch(
            Signature::new()
                .param("Variant[String, Array[String]]", "name")
                .param("OptionsWithoutName", "options_hash")
                .optional_block_param("BlockType", "block"),
            |c, a| {
                let request = from_options(a.get(0), &a.get(1));
                c.lookup(&request, a.block)
            },
        )
        .register()?;
    for (name, merge, doc) in [
        ("hiera", "first", "Deprecated: `lookup(key)` with a default; only the global layer when the environment has no hiera.yaml."),
        ("hiera_array", "unique", "Deprecated: `lookup(key, merge => unique)`; only the global layer when the environment has no hiera.yaml."),
        ("hiera_hash", "hash", "Deprecated: `lookup(key, merge => hash)`; only the global layer when the environment has no hiera.yaml."),
        ("hiera_include", "unique", "Deprecated: includes the classes `lookup(key, merge => unique)` finds; only the global layer when the environment has no hiera.yaml."),
    ] {
        reg.function(name)
            .doc(doc)
            .example(&format!("{name}('nosuch', [])"), if name == "hiera_include" { "undef" } else { "[]" })
            .dispatch(
                Signature::new().param("Tuple[String, Any, Any, 1, 3]", "args"),
                hiera(name, merge, 1),
            )
            .dispatch(Signature::new().param("String", "key"), hiera(name, merge, 2))
            .dispatch(
                Signature::new()
                    .param("String", "key")
                    .param("Any", "default")
                    .optional_param("Any", "override"),
                hiera(name, merge, 3),
            )
            .dispatch(
                Signature::new()
                    .param("String", "key")
                    .block_param("Callable[1, 1]", "default_block"),
                hiera(name, merge, 4),
            )
            .dispatch(
                Signature::new()
                    .param("String", "key")
                    .param("Any", "override")
                    .block_param("Callable[1, 1]", "default_block"),
                hiera(name, merge, 5),
            )
            .register()?;
    }
    reg.function("create_resources")
        .doc("Declares resources of a type (`@type` virtual, `@@type` exported) from a hash of titles to parameters, with optional default parameters (3.x function in Puppet).")
        .example("create_resources('notify', { 'hi' => { 'message' => 'x' } })", "undef")
        .dispatch(Signature::new().repeated_param("Any", "args"), create_resources)
        .register()?;
    reg.function("realize")
        .doc("Realizes virtual resources by reference (3.x function in Puppet).")
        .example("@notify { 'x': } realize(Notify['x'])", "undef")
        .dispatch(Signature::new().repeated_param("Any", "args"), realize)
        .register()?;
    reg.function("tag")
        .doc("Adds tags to the calling class or defined resource (3.x function in Puppet).")
        .example("tag('web')", "undef")
        .dispatch(Signature::new().repeated_param("Any", "args"), tag)
        .register()?;
    reg.function("tagged")
        .doc("True when the calling class or defined resource, or the catalog, has every given tag (3.x function in Puppet).")
        .example("tag('web') tagged('web')", "true")
        .dispatch(Signature::new().repeated_param("Any", "args"), tagged)
        .register()?;
    reg.function("generate")
        .doc("Runs a fully qualified command on the compiling host and returns its output, when the context allows commands (3.x function in Puppet).")
        .example("generate()", "error: generate(): Wrong number of arguments given (0 for minimum 1)")
        .dispatch(Signature::new().repeated_param("Any", "args"), generate)
        .register()?;
    reg.function("import")
        .doc("Discontinued: always fails (use a manifest directory).")
        .example("import('x')", "error: Use of 'import' has been discontinued in favor of a manifest directory. See http://links.puppet.com/puppet-import-deprecation")
        .dispatch(Signature::new().repeated_param("Any", "args"), |_c, _a| {
            Err(CallError::new(codes::COMPLETE, "Use of 'import' has been discontinued in favor of a manifest directory. See http://links.puppet.com/puppet-import-deprecation"))
        })
        .register()?;
    Ok(())
}
