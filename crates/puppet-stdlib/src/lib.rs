//! Native Rust implementations of the Ruby functions that Puppet modules ship
//! (puppetlabs-stdlib 8.5 above all, then openstacklib, mysql, apache, memcached, translate,
//! postgresql, ...), registered per module into a `puppet-functions` [`Registry`], so that a
//! function exists only when its module is on the module path.
//!
//! * [`discover_ruby_functions`] lists a module's Ruby functions from the text of its files
//!   (the caller does the IO): name, API (3.x or 4.x), file and 4.x `dispatch` signatures.
//! * [`register_module`] registers the native implementations of one module. Built-ins (and
//!   anything already registered) shadow them, as Puppet 7.23's built-ins shadow module
//!   functions; a module's 4.x definition wins over its 3.x one. Known Ruby functions without
//!   a native implementation are registered as stubs that fail naming the function, the
//!   module and the file ([`register_discovered`] does the same from a discovery).
//! * 3.x functions get Puppet 7.23's 3.x calling convention: one array of arguments, a
//!   top-level `undef` passed as `''`, regexps, versions and binaries as strings, arity
//!   checked with the 3.x definition's message (`f(): Wrong number of arguments given (0 for 1)`). 4.x functions get the typed dispatch
//!   with the signatures of their Ruby `dispatch` blocks.
//! * Functions that change or read the catalog (`ensure_resource`, `ensure_packages`,
//!   `ensure_resources`, `defined_with_params`, `getparam`) go through
//!   [`puppet_functions::CallContext::catalog`].
//! * Deprecation warnings are logged at `warning` level with stdlib's texts.
//!
//! ```
//! use puppet_functions::{NullContext, Registry};
//! use puppet_types::Value;
//! let mut reg = Registry::new();
//! let names = puppet_stdlib::register_module("stdlib", &mut reg);
//! assert!(names.iter().any(|n| n == "pick"));
//! let v = reg.call(&mut NullContext::default(), "pick", vec![Value::Undef, Value::Integer(3)], None);
//! assert_eq!(v.unwrap(), Value::Integer(3));
//! ```

mod discover;
mod extra;
mod known;
mod modules;
pub mod ruby;
mod stdlib3;
mod stdlib4;
mod stdlib_checks;
mod stdlib_data;
mod verified;

pub use discover::{
    discover_ruby_functions, Api, RubyDispatch, RubyFunction, RubyParam, RubyParamKind,
};

use puppet_functions::{codes, Args, CallContext, CallError, FunctionBuilder, Registry, Signature};
use puppet_types::Value;

/// A 3.x implementation: receives the converted argument array.
pub type V3Fn = fn(&mut dyn CallContext, Vec<Value>) -> Result<Value, CallError>;

/// A 4.x implementation: adds its doc and dispatches to the builder.
pub type V4Fn = for<'r> fn(FunctionBuilder<'r>) -> FunctionBuilder<'r>;

/// How a native implementation is called.
#[derive(Clone, Copy)]
pub enum Imp {
    /// A 3.x function.
    V3 {
        /// The implementation.
        f: V3Fn,
        /// The Ruby `arity` (`-1`: any number; `-n`: at least `n - 1`).
        arity: i64,
    },
    /// A 4.x function.
    V4(V4Fn),
}

impl std::fmt::Debug for Imp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Imp::V3 { arity, .. } => write!(f, "V3(arity {arity})"),
            Imp::V4(_) => write!(f, "V4"),
        }
    }
}

/// One entry of the binding table.
#[derive(Debug, Clone, Copy)]
pub struct Native {
    /// The module that ships the Ruby function.
    pub module: &'static str,
    /// The function name (lower case, namespaced as Puppet calls it).
    pub name: &'static str,
    /// The implementation.
    pub imp: Imp,
}

impl Native {
    /// A 3.x entry: implementation and Ruby `arity`.
    pub(crate) fn v3(module: &'static str, name: &'static str, f: V3Fn, arity: i64) -> Native {
        Native {
            module,
            name,
            imp: Imp::V3 { f, arity },
        }
    }

    /// A 4.x entry.
    pub(crate) fn v4(module: &'static str, name: &'static str, f: V4Fn) -> Native {
        Native {
            module,
            name,
            imp: Imp::V4(f),
        }
    }

    /// The API of the implementation.
    pub fn api(&self) -> Api {
        match self.imp {
            Imp::V3 { .. } => Api::V3,
            Imp::V4(_) => Api::V4,
        }
    }
}

/// The dispatch Puppet gives a Ruby 4.x method without a `dispatch` block (`*args`).
pub(crate) fn any_args() -> Signature {
    Signature::new().repeated_param("Any", "args")
}

/// Adds the entries of every table to `out`, in table order (a name may come twice for a
/// module: its first entry is the one that counts).
fn all_entries(out: &mut Vec<Native>) {
    stdlib4::table(out);
    stdlib3::table(out);
    modules::table(out);
    extra::table(out);
    stdlib_data::table(out);
    stdlib_checks::table(out);
}

/// The binding table: every native implementation, keyed by module and name. A name has at
/// most one entry per module (the 4.x one when the module defines both).
pub fn natives() -> Vec<Native> {
    let mut out = Vec::new();
    all_entries(&mut out);
    let mut seen = rustc_hash::FxHashSet::default();
    out.retain(|n| seen.insert((n.module, n.name)));
    out
}

type NativeIndex = rustc_hash::FxHashMap<(&'static str, &'static str), Native>;

/// The binding table indexed by (module, name), built once (the first entry of a module's
/// name, as [`natives`] keeps it).
fn native_index() -> &'static NativeIndex {
    static INDEX: std::sync::OnceLock<NativeIndex> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let mut entries = Vec::with_capacity(512);
        all_entries(&mut entries);
        let mut index = NativeIndex::with_capacity_and_hasher(entries.len(), Default::default());
        for n in entries {
            index.entry((n.module, n.name)).or_insert(n);
        }
        index
    })
}

/// The native implementation of module `module`'s function `name` (lower case, namespaced
/// as Puppet calls it), if the binding table has one.
///
/// ```
/// assert!(puppet_stdlib::native("stdlib", "pick").is_some());
/// assert!(puppet_stdlib::native("ntp", "pick").is_none());
/// ```
pub fn native(module: &str, name: &str) -> Option<Native> {
    // The map is covariant in its key, so it can be probed with borrowed strings.
    let index: &rustc_hash::FxHashMap<(&str, &str), Native> = native_index();
    index.get(&(module, name)).copied()
}

/// Whether `source`, the text of module `module`'s Ruby file for function `name`, is one of
/// the files the native implementation was checked against (its hash is in the table
/// `scripts/gen-native-sources.py` makes from the corpus). Another version of the file (a
/// newer stdlib, a patched module) is not: its own Ruby should run. The hash (64-bit
/// FNV-1a) tells versions apart; it is not meant to resist a forgery.
///
/// ```
/// assert!(!puppet_stdlib::verified_source("stdlib", "pick", b"# another pick"));
/// ```
pub fn verified_source(module: &str, name: &str, source: &[u8]) -> bool {
    let mut candidates = verified::VERIFIED
        .iter()
        .filter(|(m, n, _)| *m == module && *n == name)
        .peekable();
    if candidates.peek().is_none() {
        return false;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in source {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let hash = format!("{h:016x}");
    candidates.any(|(_, _, d)| *d == hash)
}

/// A native implementation as a registry function of its own.
pub fn native_function(n: &Native) -> Option<std::sync::Arc<puppet_functions::Function>> {
    let mut reg = Registry::new();
    register_native(n, &mut reg).then(|| reg.get_shared(n.name))?
}

/// A function that fails naming the module's Ruby function it stands for (a Ruby function
/// with no native implementation).
pub fn stub_function(
    module: &str,
    name: &str,
    file: &str,
) -> Option<std::sync::Arc<puppet_functions::Function>> {
    let mut reg = Registry::new();
    register_stub(module, name, file, &mut reg).then(|| reg.get_shared(name))?
}

/// The 3.x implementation of a stdlib function, for the 4.x wrappers (`validate_legacy`,
/// `validate_string`...) that call the 3.x function of the same name.
pub(crate) fn stdlib_v3(name: &str) -> Option<(V3Fn, i64)> {
    let mut t = Vec::new();
    stdlib3::table(&mut t);
    stdlib_checks::table3(&mut t);
    t.into_iter()
        .find(|n| n.name == name)
        .and_then(|n| match n.imp {
            Imp::V3 { f, arity } => Some((f, arity)),
            Imp::V4(_) => None,
        })
}

/// The arity check of Puppet's 3.x function definitions, with its message (puppet-ruby's,
/// shared with the modules' Ruby 3.x functions).
fn check_arity(name: &str, arity: i64, given: usize) -> Result<(), CallError> {
    puppet_ruby::functions::check_v3_arity(name, arity, given)
}

/// Calls a 3.x implementation with Puppet 7.23's argument conversion.
pub(crate) fn call_v3(
    ctx: &mut dyn CallContext,
    f: V3Fn,
    values: Vec<Value>,
) -> Result<Value, CallError> {
    f(ctx, ruby::v3_args(values))
}

fn register_native(n: &Native, reg: &mut Registry) -> bool {
    let name = n.name;
    let b = reg.function(n.name);
    let b = match n.imp {
        Imp::V3 { f, arity } => b
            .doc(&format!("{} (3.x function of module {})", n.name, n.module))
            .dispatch(any_args(), move |ctx: &mut dyn CallContext, a: Args<'_>| {
                check_arity(name, arity, a.values.len())?;
                call_v3(ctx, f, a.values)
            }),
        Imp::V4(add) => add(b.doc(&format!("{} (4.x function of module {})", n.name, n.module))),
    };
    b.register().is_ok()
}

fn register_stub(module: &str, name: &str, file: &str, reg: &mut Registry) -> bool {
    let message = format!(
        "The function '{name}' of module '{module}' ({file}) is implemented in Ruby and has no native implementation"
    );
    register_failing(name, codes::UNSUPPORTED, message, reg)
}

/// Registers `name` as a function whose every call, whatever its arguments, fails with
/// `code` and `message`.
fn register_failing(name: &str, code: &'static str, message: String, reg: &mut Registry) -> bool {
    reg.function(name)
        .doc(&message.clone())
        .dispatch(
            Signature::new()
                .repeated_param("Any", "args")
                .optional_block_param("Callable", "block"),
            move |_ctx: &mut dyn CallContext, _a: Args<'_>| {
                Err(CallError::new(code, message.clone()))
            },
        )
        .register()
        .is_ok()
}

/// A function `name` whose every call fails with `code` and `message`: a module's Ruby
/// function whose file cannot be loaded (the message says why, where).
pub fn failing_function(
    name: &str,
    code: &'static str,
    message: String,
) -> Option<std::sync::Arc<puppet_functions::Function>> {
    let mut reg = Registry::new();
    register_failing(name, code, message, &mut reg).then(|| reg.get_shared(name))?
}

/// Registers the Ruby functions of `module`: native implementations from the binding table,
/// failing stubs for the module's other known Ruby functions. Names already in `reg`
/// (built-ins, or another module's function) are left alone. Returns the names registered,
/// natives first.
pub fn register_module(module: &str, reg: &mut Registry) -> Vec<String> {
    let mut names = Vec::new();
    for n in natives().iter().filter(|n| n.module == module) {
        if !reg.contains(n.name) && register_native(n, reg) {
            names.push(n.name.to_string());
        }
    }
    for (m, name, _api, file) in known::KNOWN.iter().filter(|k| k.0 == module) {
        if !reg.contains(name) && register_stub(m, name, file, reg) {
            names.push(name.to_string());
        }
    }
    names
}

/// Registers the discovered Ruby functions of a module: the native implementation of each
/// when the binding table has one for that module, else a stub failing with a message that
/// names the function, the module and the file. Names already in `reg` are left alone.
pub fn register_discovered(functions: &[RubyFunction], reg: &mut Registry) -> Vec<String> {
    let table = natives();
    let mut names = Vec::new();
    for f in functions {
        if reg.contains(&f.name) {
            continue;
        }
        let ok = match table
            .iter()
            .find(|n| n.module == f.module && n.name == f.name)
        {
            Some(n) => register_native(n, reg),
            None => register_stub(&f.module, &f.name, &f.file, reg),
        };
        if ok {
            names.push(f.name.clone());
        }
    }
    names
}

/// The modules that have native implementations in the binding table.
pub fn modules() -> Vec<&'static str> {
    let mut m: Vec<&'static str> = natives().iter().map(|n| n.module).collect();
    m.sort_unstable();
    m.dedup();
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use puppet_functions::NullContext;

    #[test]
    fn builtins_shadow_and_stubs_fail_clearly() {
        let mut reg = puppet_functions::builtins::registry().clone();
        let names = register_module("stdlib", &mut reg);
        assert!(!names.iter().any(|n| n == "join"), "join is a built-in");
        assert!(names.iter().any(|n| n == "validate_legacy"));
        let mut ctx = NullContext::default();
        let e = reg
            .call(&mut ctx, "pry", vec![], None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'pry' of module 'stdlib'"), "{e}");
        assert!(e.contains("lib/puppet/parser/functions/pry.rb"), "{e}");
    }

    #[test]
    fn every_native_has_a_verified_source() {
        let missing: Vec<String> = natives()
            .iter()
            .filter(|n| {
                !verified::VERIFIED
                    .iter()
                    .any(|(m, name, _)| *m == n.module && *name == n.name)
            })
            .map(|n| format!("{}::{}", n.module, n.name))
            .collect();
        assert!(
            missing.is_empty(),
            "natives without a verified file: {missing:?}"
        );
    }

    #[test]
    fn every_native_registers() {
        for m in modules() {
            let mut reg = Registry::new();
            let names = register_module(m, &mut reg);
            let natives = natives();
            for n in natives.iter().filter(|n| n.module == m) {
                assert!(names.iter().any(|x| x == n.name), "{m}: {}", n.name);
            }
        }
    }
}
