//! Puppet 7.23's built-ins that find and read module files: `file` (3.x), `binary_file`,
//! `find_file`, `find_template` and `module_directory`.
//!
//! A reference is Puppet's `Puppet::Parser::Files` form: an absolute path as it is, or
//! `module/rest` below that module's `files/` (or `templates/`) directory. Files are read
//! through the call context ([`CallContext::module_directory`], [`CallContext::read_file`]),
//! so a compile reads only what its environment's source serves; a context without one
//! finds nothing.

use crate::error::{codes, CallError};
use crate::registry::{Args, Registry};
use crate::{CallContext, RegistryError, Signature};
use puppet_types::Value;

/// The path a reference names below a module's `dir` (`files` or `templates`), if the file
/// is there.
fn find_in_module(ctx: &dyn CallContext, reference: &str, dir: &str) -> Option<String> {
    let path = if reference.starts_with('/') {
        reference.to_string()
    } else {
        let (module, rest) = reference.split_once('/')?;
        format!("{}/{dir}/{rest}", ctx.module_directory(module)?)
    };
    matches!(ctx.read_file(&path), Ok(Some(_))).then_some(path)
}

/// The names of a call with `String *names` or `Array[String] names` (the dispatcher has
/// checked the types).
fn names(a: &Args<'_>) -> Vec<String> {
    let flat: Vec<&Value> = match a.values.as_slice() {
        [Value::Array(items)] => items.iter().collect(),
        vs => vs.iter().collect(),
    };
    flat.iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn find(dir: &'static str) -> impl Fn(&mut dyn CallContext, Args<'_>) -> Result<Value, CallError> {
    move |ctx: &mut dyn CallContext, a: Args<'_>| {
        Ok(names(&a)
            .iter()
            .find_map(|n| find_in_module(ctx, n, dir))
            .map(Value::string)
            .unwrap_or(Value::Undef))
    }
}

fn module_directory(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    Ok(names(&a)
        .iter()
        .find_map(|n| ctx.module_directory(n))
        .map(Value::string)
        .unwrap_or(Value::Undef))
}

fn binary_file(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    let reference = a.values[0].as_str().unwrap_or_default().to_string();
    let bytes = find_in_module(ctx, &reference, "files").and_then(|p| ctx.read_file(&p).ok()?);
    match bytes {
        Some(b) => Ok(Value::Binary(b.into())),
        None => Err(CallError::new(
            codes::FAILED,
            format!("binary_file(): The given file '{reference}' does not exist"),
        )),
    }
}

/// `file(ref, ...)`: the text of the first file found, with 3.x argument conversion.
fn file(ctx: &mut dyn CallContext, a: Args<'_>) -> Result<Value, CallError> {
    if a.values.is_empty() {
        return Err(CallError::new(
            codes::ARGUMENT_MISMATCH,
            "file(): Wrong number of arguments given (0 for minimum 1)",
        ));
    }
    let refs: Vec<String> = a
        .values
        .iter()
        .map(|v| match v {
            Value::Undef => String::new(),
            other => other.to_plain_string(),
        })
        .collect();
    for r in &refs {
        let found = find_in_module(ctx, r, "files").and_then(|p| ctx.read_file(&p).ok()?);
        if let Some(bytes) = found {
            return Ok(Value::string(String::from_utf8_lossy(&bytes)));
        }
    }
    Err(CallError::new(
        codes::FAILED,
        format!("Could not find any files from {}", refs.join(", ")),
    ))
}

/// The functions [`register`] registers, in its order.
pub(super) const NAMES: &[&str] = &[
    "file",
    "binary_file",
    "find_file",
    "find_template",
    "module_directory",
];

pub(super) fn register(reg: &mut Registry) -> Result<(), RegistryError> {
    reg.function("file")
        .doc("Usage: `file(REF, ...)`. The text of the first file found: `module/path` below that module's `files/`, or an absolute path (3.x function in Puppet).")
        .example("$text = file('motd/motd.txt', '/etc/motd')", "'the text of <motd module>/files/motd.txt'")
        .dispatch(Signature::new().repeated_param("Any", "args"), file)
        .register()?;
    reg.function("binary_file")
        .doc(
            "Usage: `binary_file(REF)`. The bytes of a file found as `file` finds it, as a Binary.",
        )
        .example(
            "$logo = binary_file('site/logo.png')",
            "Binary('iVBORw0KGgo...')",
        )
        .dispatch(Signature::new().param("String", "path"), binary_file)
        .register()?;
    for (name, dir, what) in [
        ("find_file", "files", "`files/`"),
        ("find_template", "templates", "`templates/`"),
    ] {
        reg.function(name)
            .doc(&format!("Usage: `{name}(REF, ...)` or `{name}([REF, ...])`. The path of the first file found (`module/path` below that module's {what}, or an absolute path), or undef."))
            .example(&format!("{name}('no_such_module/x')"), "undef")
            .dispatch(Signature::new().repeated_param("String", "paths"), find(dir))
            .dispatch(
                Signature::new().repeated_param("Array[String]", "paths_array"),
                find(dir),
            )
            .register()?;
    }
    reg.function("module_directory")
        .doc("Usage: `module_directory(NAME, ...)` or `module_directory([NAME, ...])`. The directory of the first module found on the module path, or undef.")
        .example("module_directory('no_such_module')", "undef")
        .dispatch(
            Signature::new().repeated_param("String", "names"),
            module_directory,
        )
        .dispatch(
            Signature::new().repeated_param("Array[String]", "names"),
            module_directory,
        )
        .register()?;
    Ok(())
}
