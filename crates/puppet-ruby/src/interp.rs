//! The interpreter: evaluates parsed programs with Ruby's semantics.
//!
//! One [`Interp`] is one Ruby world: its modules and classes (created on first use from the
//! built-in table, or by the code), objects, global state and the [`PuppetScope`] it talks
//! to. Statements and expressions are evaluated here; method calls, argument binding and
//! blocks are in `call`, the Kernel functions and the methods every object has in
//! `kernel`, the built-in classes' methods in `methods`, `strings` and `collections`.
//!
//! When the program is a template, `self` is Puppet's template wrapper: every variable of the
//! scope is visible as an instance variable (`@name`, converted on first use, strings
//! frozen), and `scope`, `file` and `has_variable?` are methods of `self`.
//!
//! Control flow (`next`, `break`, `return`, `retry`, exceptions) travels as [`Ctrl`] in the
//! `Err` side of results. Recursion depth, evaluation steps and the memory that strings and
//! arrays grow by are bounded, so runaway code is an error.

use crate::ast::{Kind, Node, Param, Part, Program};
use crate::object::{Blk, CRef, Ctx, Env, Frame, Module, ObjData, Object, Proc, ProcBody};
use crate::source::Sources;
use crate::value::{self, to_s, Builtin, RHash, RValue};
use crate::{Pos, PuppetScope};
use indexmap::IndexMap;
use puppet_types::Value;
use rustc_hash::{FxHashMap, FxHashSet};
use smol_str::SmolStr;
use std::rc::{Rc, Weak};
use std::sync::Arc;

/// A Ruby exception in flight.
#[derive(Debug, Clone)]
pub struct Exc {
    /// The class's full name.
    pub class: String,
    /// The message.
    pub message: String,
    /// Where it was raised.
    pub pos: Pos,
    /// The file it was raised in (filled in as it leaves a method or file).
    pub file: Option<Arc<str>>,
    /// The exception object, when the code made or saw one.
    pub obj: Option<RValue>,
}

/// Something this engine does not implement (or refuses to do: run commands).
#[derive(Debug)]
pub struct Unsupported {
    /// What is not supported.
    pub what: String,
    /// Where.
    pub pos: Pos,
    /// The file (filled in as it leaves a method or file).
    pub file: Option<Arc<str>>,
}

/// Non-local control flow and errors. The rare, large variants are boxed, so that a
/// result ([`R`]) is four words: every evaluation step returns one.
#[derive(Debug)]
pub enum Ctrl {
    /// A Ruby exception.
    Raise(Box<Exc>),
    /// Something this engine does not implement (or refuses to do: run commands).
    Unsupported(Box<Unsupported>),
    Next(RValue),
    Break(RValue),
    Return(RValue),
    Retry,
    /// `throw tag, value`: the tag and the value.
    Throw(Box<(RValue, RValue)>),
}

impl Ctrl {
    /// The file of an error, set when it is not known yet.
    pub fn in_file(mut self, f: &Arc<str>) -> Ctrl {
        match &mut self {
            Ctrl::Raise(e) if e.file.is_none() => e.file = Some(f.clone()),
            Ctrl::Unsupported(u) if u.file.is_none() => u.file = Some(f.clone()),
            _ => {}
        }
        self
    }
}

/// Evaluation result.
pub type R = Result<RValue, Ctrl>;

/// The nesting bound of evaluation (expressions, blocks and calls inside one another):
/// about a thousand levels of a recursive Ruby method (Ruby itself allows some ten
/// thousand); the stack grows onto the heap as it deepens ([`crate::with_stack_at`]).
const MAX_DEPTH: usize = 4_000;
/// The default budget of evaluation steps of one interpreter (about a second in a release
/// build). Fuzz builds (`--cfg fuzzing`: instrumented, some 50 times slower) stop sooner, so
/// that an endless loop ends well inside libFuzzer's timeout and is not reported as a hang.
#[cfg(not(fuzzing))]
pub const DEFAULT_STEPS: u64 = 50_000_000;
/// The default budget of evaluation steps of one interpreter (fuzz builds).
#[cfg(fuzzing)]
pub const DEFAULT_STEPS: u64 = 1_000_000;
/// The bytes strings and arrays may grow by in one interpreter (all that the run builds,
/// also what it drops again: a bound on the work of copying as much as on memory).
pub const MEMORY_LIMIT: usize = 512 << 20;
/// The largest string (bytes) or array (16 bytes an element) a run may build: far above
/// what a template or a function makes, low enough that a loop that doubles its data ends
/// within a second or two.
pub const OBJECT_LIMIT: usize = 16 << 20;
/// The bytes built that count as one evaluation step (see [`Interp::charge`]): the size
/// this engine counts for one array element.
pub const BYTES_PER_STEP: usize = 16;

/// Raises a Ruby exception at `pos`.
pub fn raise<T>(class: &str, message: impl Into<String>, pos: Pos) -> Result<T, Ctrl> {
    Err(Ctrl::Raise(Box::new(Exc {
        class: class.to_string(),
        message: message.into(),
        pos,
        file: None,
        obj: None,
    })))
}

/// Ruby's `TypeError` for a value that has no implicit conversion into `class`
/// (`no implicit conversion of Integer into String`, `... of nil into Array`).
pub(crate) fn no_implicit_conversion<T>(v: &RValue, class: &str, pos: Pos) -> Result<T, Ctrl> {
    raise(
        "TypeError",
        format!(
            "no implicit conversion of {} into {class}",
            v.conversion_name()
        ),
        pos,
    )
}

/// The `NoMemoryError` of a native operation that walked more than [`value::WALK_LIMIT`]
/// elements.
pub(crate) fn too_large<T>(pos: Pos) -> Result<T, Ctrl> {
    raise(
        "NoMemoryError",
        format!(
            "failed to allocate memory (an operation went over more than {} elements)",
            value::WALK_LIMIT
        ),
        pos,
    )
}

/// Reports an unsupported construct at `pos`.
pub fn unsupported<T>(what: impl Into<String>, pos: Pos) -> Result<T, Ctrl> {
    Err(Ctrl::Unsupported(Box::new(Unsupported {
        what: what.into(),
        pos,
        file: None,
    })))
}

thread_local! {
    /// The Ruby objects that the templates being rendered on this thread (outermost first)
    /// set with `scope.setvar`, so that a template rendered from inside another
    /// (`scope.function_template`) reads the same object, mutations included, as in Ruby.
    static SETVARS: std::cell::RefCell<Vec<Vec<(String, RValue)>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The `scope.setvar` objects of one render, dropped when the render ends.
#[derive(Debug)]
pub struct SetvarFrame(());

impl SetvarFrame {
    /// Opens the frame of one render.
    pub fn push() -> SetvarFrame {
        SETVARS.with(|s| s.borrow_mut().push(Vec::new()));
        SetvarFrame(())
    }
}

impl Drop for SetvarFrame {
    fn drop(&mut self) {
        SETVARS.with(|s| s.borrow_mut().pop());
    }
}

/// `BasicObject`, `Object` (with its constants for the three) and `Kernel` (included in
/// `Object`), as every interpreter starts.
fn base_modules() -> (Rc<Module>, Rc<Module>, Rc<Module>) {
    let basic = Rc::new(Module::new(
        "BasicObject",
        true,
        None,
        Some(Builtin::Object),
    ));
    let object = Rc::new(Module::new(
        "Object",
        true,
        Some(basic.clone()),
        Some(Builtin::Object),
    ));
    // Room for the top-level constants a template usually gets (`Puppet` and a few
    // classes), so that the table is not grown step by step.
    object.consts_mut().reserve(8);
    object
        .consts_mut()
        .insert("BasicObject".into(), RValue::Module(basic.clone()));
    object
        .consts_mut()
        .insert("Object".into(), RValue::Module(object.clone()));
    let kernel = Rc::new(Module::new("Kernel", false, None, None));
    object
        .consts_mut()
        .insert("Kernel".into(), RValue::Module(kernel.clone()));
    object.includes.borrow_mut().push(kernel.clone());
    (basic, object, kernel)
}

/// The modules and the top-level object (`self`, the template wrapper) that a template's
/// interpreter starts with.
///
/// Making and dropping them is much of what a small template costs, so the interpreter of
/// a template that left them exactly as they were made (no methods, variables, singleton
/// classes or included modules added to them; constants added to `Object` only, which are
/// dropped) and that nothing else refers to hands them to the next template rendered on
/// its thread (see [`Interp`]'s `Drop`).
struct Skeleton {
    basic: Rc<Module>,
    object: Rc<Module>,
    kernel: Rc<Module>,
    wrapper: Rc<Module>,
    main: Rc<Object>,
}

impl Skeleton {
    /// A new one.
    fn new() -> Skeleton {
        let (basic, object, kernel) = base_modules();
        let wrapper = Rc::new(Module::new(
            "Puppet::Parser::TemplateWrapper",
            true,
            Some(object.clone()),
            None,
        ));
        let main = Rc::new(Object::new(wrapper.clone()));
        Skeleton {
            basic,
            object,
            kernel,
            wrapper,
            main,
        }
    }

    /// The reference counts of its parts.
    fn counts(&self) -> [usize; 5] {
        [
            Rc::strong_count(&self.basic),
            Rc::strong_count(&self.object),
            Rc::strong_count(&self.kernel),
            Rc::strong_count(&self.wrapper),
            Rc::strong_count(&self.main),
        ]
    }

    /// True for one of its modules.
    fn holds(&self, m: &Rc<Module>) -> bool {
        [&self.basic, &self.object, &self.kernel, &self.wrapper]
            .iter()
            .any(|x| Rc::ptr_eq(x, m))
    }

    /// Breaks its reference cycles (as dropping an interpreter breaks them).
    fn clear(&self) {
        for m in [&self.basic, &self.object, &self.kernel, &self.wrapper] {
            m.clear();
        }
        self.main.clear();
    }

    /// After a run (the run's other modules and objects cleared): true when it is as
    /// [`Skeleton::new`] made it, once the constants that the run added to `Object` are
    /// dropped, and referred to as when the interpreter started (`counts`), i.e. by
    /// nothing the run made.
    fn reusable(&self, counts: [usize; 5]) -> bool {
        // `Object`'s methods: those of the compile's earlier templates (`TEMPLATE_DEFS`,
        // which every template's interpreter adds to whichever skeleton it starts from) and
        // any the run defined. A new skeleton has none, so they are dropped here as the
        // rest of the run's world is; without this, one template `def` in a compile made
        // every later template build a new skeleton.
        if !self.object.methods.borrow().is_empty() {
            let defined = std::mem::take(&mut *self.object.methods.borrow_mut());
            drop(defined);
        }
        let as_made = self.basic.is_as_made("BasicObject", None, &[], &[])
            && self.kernel.is_as_made("Kernel", None, &[], &[])
            && self.wrapper.is_as_made(
                "Puppet::Parser::TemplateWrapper",
                Some(&self.object),
                &[],
                &[],
            )
            && self.object.is_as_made(
                "Object",
                Some(&self.basic),
                &[&self.kernel],
                &[
                    ("BasicObject", &self.basic),
                    ("Object", &self.object),
                    ("Kernel", &self.kernel),
                ],
            )
            && Rc::ptr_eq(&self.main.class, &self.wrapper)
            && self.main.reset_if_new();
        if !as_made {
            return false;
        }
        if self.object.consts.borrow().len() > 3 {
            let added = self.object.consts_mut().split_off(3);
            drop(added);
        }
        self.counts() == counts
    }
}

/// The skeleton kept for the next template rendered on this thread (its cycles are broken
/// when the thread ends).
struct SkeletonSlot(Option<Skeleton>);

impl Drop for SkeletonSlot {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            s.clear();
        }
    }
}

thread_local! {
    static SKELETON: std::cell::RefCell<SkeletonSlot> =
        const { std::cell::RefCell::new(SkeletonSlot(None)) };
}

thread_local! {
    /// The methods templates `def`ined at their top level during the compile running on
    /// this thread. Puppet evaluates a template inside a method of its
    /// `Puppet::Parser::TemplateWrapper`, so such a `def` defines a method of that class,
    /// which every later template sees (keepalived's `_format_options.erb` defines a helper
    /// that the template calling it with `scope.function_template` uses). Puppet keeps them
    /// for the life of the process; here they last for one compile
    /// ([`reset_template_methods`] at its start and end).
    static TEMPLATE_DEFS: std::cell::RefCell<Vec<Arc<crate::ast::Def>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Forgets the methods templates defined (see `TEMPLATE_DEFS`): a compile starts and ends
/// with none.
pub fn reset_template_methods() {
    let _ = TEMPLATE_DEFS.try_with(|d| d.borrow_mut().clear());
}

/// Keeps a method a template defined at its top level for the later templates of the
/// compile (replacing one of the same name).
pub(crate) fn note_template_method(d: &Arc<crate::ast::Def>) {
    let _ = TEMPLATE_DEFS.try_with(|defs| {
        let mut defs = defs.borrow_mut();
        defs.retain(|x| x.name != d.name);
        defs.push(d.clone());
    });
}

/// The method named `name` a template of this compile defined at its top level.
pub(crate) fn template_method(name: &str) -> Option<Arc<crate::ast::Def>> {
    TEMPLATE_DEFS
        .try_with(|defs| defs.borrow().iter().rev().find(|d| d.name == name).cloned())
        .ok()
        .flatten()
}

/// Writes back the result of a compound assignment.
type Setter<'s> = Box<dyn Fn(&mut Interp<'s>, RValue) -> Result<(), Ctrl>>;

/// The interpreter state.
pub struct Interp<'s> {
    /// The Puppet scope the code sees.
    pub scope: &'s mut dyn PuppetScope,
    /// Where `require` finds files.
    pub sources: Arc<Sources>,
    /// A template's output.
    pub out: String,
    /// Whether the output is a binary (ASCII-8BIT) string: ERB appends to a UTF-8 buffer
    /// with Ruby's `<<`, so a non-ASCII binary piece makes an ASCII-only output binary.
    pub out_binary: bool,
    /// The main file (a template's path; empty for an inline template).
    pub file: String,
    /// `self` at top level is Puppet's template wrapper.
    pub template: bool,
    pub(crate) ctx: Ctx,
    pub(crate) object: Rc<Module>,
    pub(crate) modules: Vec<Rc<Module>>,
    pub(crate) objects: Vec<Weak<Object>>,
    pub(crate) procs: Vec<Weak<Proc>>,
    pub(crate) builtins: FxHashMap<Builtin, Rc<Module>>,
    pub(crate) main: RValue,
    /// The arrays and hashes handed out for scope variables, with their original values
    /// (see [`Interp::write_back`]).
    handed_out: Vec<(String, Value, RValue)>,
    /// Features loaded by `require`.
    pub(crate) loaded: FxHashSet<String>,
    pub(crate) globals: FxHashMap<String, RValue>,
    /// The tags of the `catch` blocks running now (a `throw` of another tag raises
    /// `UncaughtThrowError` where it is).
    pub(crate) catch_tags: Vec<RValue>,
    depth: usize,
    steps: u64,
    max_steps: u64,
    charged: usize,
    /// The position being evaluated.
    pub pos: Pos,
    /// A built-in class got a user method (`class String; def x`): values' method calls
    /// look at user methods first.
    pub(crate) reopened: bool,
    /// The singleton classes of strings, arrays and hashes that were `extend`ed, by the
    /// address of their contents (the value is kept, so the address is not reused).
    pub(crate) value_singletons: FxHashMap<usize, (RValue, Rc<Module>)>,
    /// The exceptions being handled (`$!`).
    pub(crate) handling: Vec<RValue>,
    /// Data the Puppet API keeps (functions and types the code defined).
    pub ext: crate::puppet::Ext,
    /// The enclosing interpreter's count of object addresses (restored on drop).
    outer_addresses: u64,
    /// `Puppet::Parser::Scope` as last looked up, with the constant epoch it is valid for
    /// (see [`Interp::scope_class`]).
    scope_class: Option<(u64, Rc<Module>)>,
    /// The regexps of literals without interpolation, by the address of their text in the
    /// tree (see [`Interp::regex_literal`]).
    regex_literals: FxHashMap<usize, RegexLiteral>,
    /// A template's starting modules and object, with their reference counts once the
    /// interpreter was made (see [`Skeleton`]).
    skeleton: Option<(Skeleton, [usize; 5])>,
    /// Scopes of local variables that method and block calls left and nothing else refers
    /// to, emptied, for the next calls (see [`Interp::new_env`]).
    env_pool: Vec<Rc<Env>>,
}

/// A regexp literal's value, with the source and flags it was made of (checked on every
/// use, so that another tree at the same address never gets it).
struct RegexLiteral {
    source: Arc<str>,
    flags: Arc<str>,
    value: Rc<value::RRegex>,
}

impl std::fmt::Debug for Interp<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interp")
            .field("file", &self.file)
            .field("out_len", &self.out.len())
            .finish()
    }
}

impl Drop for Interp<'_> {
    fn drop(&mut self) {
        // Break the reference cycles between modules, objects and procs.
        for p in self.procs.drain(..) {
            if let Some(p) = p.upgrade() {
                p.clear();
            }
        }
        for o in self.objects.drain(..) {
            if let Some(o) = o.upgrade() {
                o.clear();
            }
        }
        let skeleton = self.skeleton.take();
        // The skeleton's modules stay as they are until it is known whether it is reused
        // (and stay referred to from here, as they were when the interpreter started).
        let mut kept = Vec::new();
        for m in self.modules.drain(..) {
            if skeleton.as_ref().is_some_and(|(s, _)| s.holds(&m)) {
                kept.push(m);
            } else {
                m.clear();
            }
        }
        self.globals.clear();
        self.builtins.clear();
        match skeleton {
            Some((s, counts)) if s.reusable(counts) => {
                let mut s = Some(s);
                let _ = SKELETON.try_with(|slot| {
                    if let Ok(mut slot) = slot.try_borrow_mut() {
                        if slot.0.is_none() {
                            slot.0 = s.take();
                        }
                    }
                });
                if let Some(s) = s {
                    s.clear();
                }
            }
            Some((s, _)) => s.clear(),
            None => self.object.clear(),
        }
        drop(kept);
        crate::value::addresses_end(self.outer_addresses);
    }
}

impl<'s> Interp<'s> {
    /// A fresh interpreter for a template over `scope`'s variables (`file` is the
    /// template's path, empty for an inline template).
    pub fn new(scope: &'s mut dyn PuppetScope, file: &str) -> Interp<'s> {
        Interp::with(scope, file, true, Sources::shared_empty())
    }

    /// A fresh interpreter; `template` makes `self` the template wrapper.
    pub fn with(
        scope: &'s mut dyn PuppetScope,
        file: &str,
        template: bool,
        sources: Arc<Sources>,
    ) -> Interp<'s> {
        // A template starts from the skeleton the last template on this thread left (as
        // it was made), else from a new one; other code from new base modules.
        let skeleton = if template {
            let kept = SKELETON
                .try_with(|slot| slot.try_borrow_mut().ok().and_then(|mut s| s.0.take()))
                .ok()
                .flatten();
            Some(kept.unwrap_or_else(Skeleton::new))
        } else {
            None
        };
        let (basic, object, kernel, main_class, main_obj) = match &skeleton {
            Some(s) => (
                s.basic.clone(),
                s.object.clone(),
                s.kernel.clone(),
                Some(s.wrapper.clone()),
                s.main.clone(),
            ),
            None => {
                let (basic, object, kernel) = base_modules();
                let main = Rc::new(Object::new(object.clone()));
                (basic, object, kernel, None, main)
            }
        };
        let main = RValue::Object(main_obj.clone());
        let file_arc: Arc<str> = Arc::from(file);
        let ctx = Ctx {
            self_v: main.clone(),
            cref: Rc::new(CRef {
                module: object.clone(),
                parent: None,
            }),
            def_target: object.clone(),
            env: Rc::new(Env::default()),
            frame: Rc::new(Frame {
                name: None,
                owner: None,
                args: Vec::new(),
                block: None,
                file: file_arc,
                frozen_literals: false,
                def: None,
                last_match: Default::default(),
            }),
        };
        let mut modules = Vec::with_capacity(8);
        modules.extend([basic, kernel]);
        modules.extend(main_class);
        let mut it = Interp {
            scope,
            sources,
            out: String::new(),
            out_binary: false,
            file: file.to_string(),
            template,
            ctx,
            object,
            modules,
            objects: vec![Rc::downgrade(&main_obj)],
            procs: Vec::new(),
            builtins: FxHashMap::default(),
            main,
            handed_out: Vec::new(),
            loaded: FxHashSet::default(),
            globals: FxHashMap::default(),
            catch_tags: Vec::new(),
            depth: 0,
            steps: 0,
            max_steps: DEFAULT_STEPS,
            charged: 0,
            pos: Pos::default(),
            reopened: false,
            value_singletons: FxHashMap::default(),
            handling: Vec::new(),
            ext: crate::puppet::Ext::default(),
            outer_addresses: crate::value::addresses_begin(),
            scope_class: None,
            regex_literals: FxHashMap::default(),
            skeleton: None,
            env_pool: Vec::new(),
        };
        drop(main_obj);
        if template {
            // The methods earlier templates of this compile defined.
            let defs = TEMPLATE_DEFS
                .try_with(|d| d.borrow().clone())
                .unwrap_or_default();
            for d in defs {
                it.object.methods.borrow_mut().insert(
                    d.name.clone(),
                    crate::object::Entry {
                        method: crate::object::Method::Ruby(d, it.ctx.cref.clone()),
                        private: true,
                    },
                );
            }
        }
        if let Some(s) = skeleton {
            let counts = s.counts();
            it.skeleton = Some((s, counts));
        }
        it
    }

    /// Sets the budget of evaluation steps.
    pub fn set_step_limit(&mut self, steps: u64) {
        self.max_steps = steps;
    }

    /// The evaluation steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// `Puppet::Parser::Scope`, the class of `scope` (where its user methods are looked
    /// up on every call): looked up by path once, then again only after some constant
    /// changed.
    pub(crate) fn scope_class(&mut self) -> Option<Rc<Module>> {
        if let Some((epoch, m)) = &self.scope_class {
            if *epoch == crate::object::const_epoch() {
                return Some(m.clone());
            }
        }
        let m = self.module_by_parts(["Puppet", "Parser", "Scope"])?;
        self.scope_class = Some((crate::object::const_epoch(), m.clone()));
        Some(m)
    }

    /// The top-level `self` (`main`, or the template wrapper).
    pub fn main(&self) -> RValue {
        self.main.clone()
    }

    /// The `Object` class (the top-level namespace).
    pub fn object_class(&self) -> Rc<Module> {
        self.object.clone()
    }

    /// A new object of the class named `class` (Object when there is none) holding a
    /// native extension's `data` (an ERB template, a binding, a Time, a loader...).
    pub(crate) fn new_native<T: 'static>(&mut self, class: &str, data: T) -> RValue {
        let c = self
            .module_by_path(class)
            .unwrap_or_else(|| self.object_class());
        let o = Rc::new(Object::new(c));
        *o.data.borrow_mut() = crate::object::ObjData::Native(Rc::new(data));
        self.track_object(&o);
        RValue::Object(o)
    }

    pub(crate) fn track_object(&mut self, o: &Rc<Object>) {
        if self.objects.len() > 4096 && self.objects.len().is_power_of_two() {
            self.objects.retain(|w| w.strong_count() > 0);
        }
        self.objects.push(Rc::downgrade(o));
    }

    pub(crate) fn track_proc(&mut self, p: &Rc<Proc>) {
        if self.procs.len() > 4096 && self.procs.len().is_power_of_two() {
            self.procs.retain(|w| w.strong_count() > 0);
        }
        self.procs.push(Rc::downgrade(p));
    }

    /// Fails when one string or array is over [`OBJECT_LIMIT`].
    pub(crate) fn check_size(&mut self, v: &RValue, pos: Pos) -> Result<(), Ctrl> {
        let bytes = match v {
            RValue::Str(s) => s.borrow().len(),
            RValue::Array(a) => a.borrow().len().saturating_mul(16),
            _ => 0,
        };
        if bytes > OBJECT_LIMIT {
            return raise(
                "NoMemoryError",
                format!(
                    "failed to allocate memory (a string or array of more than {} MiB)",
                    OBJECT_LIMIT >> 20
                ),
                pos,
            );
        }
        Ok(())
    }

    /// Counts `bytes` that strings, arrays and hashes grew by against the memory bound of
    /// the run, and as work against the step budget: one step for each [`BYTES_PER_STEP`]
    /// bytes (one array element), so that data a native method builds in bulk
    /// (`(1..n).to_a`, `[x] * n`, `s * n`, `first(n)`) costs what a loop building it element
    /// by element would, and a program that keeps building large data ends as an endless
    /// loop does.
    pub fn charge(&mut self, bytes: usize, pos: Pos) -> Result<(), Ctrl> {
        self.charged = self.charged.saturating_add(bytes);
        if self.charged > MEMORY_LIMIT || bytes > MEMORY_LIMIT / 4 {
            return raise(
                "NoMemoryError",
                "failed to allocate memory (the run grew strings and arrays by more than 512 MiB)",
                pos,
            );
        }
        self.steps = self.steps.saturating_add((bytes / BYTES_PER_STEP) as u64);
        if self.steps > self.max_steps {
            return self.out_of_steps(pos);
        }
        Ok(())
    }

    fn out_of_steps<T>(&self, pos: Pos) -> Result<T, Ctrl> {
        unsupported(
            format!(
                "more than {} evaluation steps (an endless loop?)",
                self.max_steps
            ),
            pos,
        )
    }

    /// The current file.
    pub fn current_file(&self) -> Arc<str> {
        self.ctx.frame.file.clone()
    }

    /// The current `self`.
    pub fn self_value(&self) -> RValue {
        self.ctx.self_v.clone()
    }

    /// The block given to the running method.
    pub fn frame_block(&self) -> Option<Blk> {
        self.ctx.frame.block.clone()
    }

    // ---- template variables -------------------------------------------------------------

    fn ivar_of_main(&mut self, name: &str) -> RValue {
        if let RValue::Object(o) = &self.main {
            if let Some(v) = o.ivars.borrow().get(name) {
                return v.clone();
            }
        }
        if !self.template {
            return RValue::Nil;
        }
        if let Some(v) = self.scope.instance_variable(name).filter(|v| !v.is_undef()) {
            let r = value::from_puppet_frozen(&v);
            if matches!(r, RValue::Array(_) | RValue::Hash(_)) {
                self.handed_out.push((name.to_string(), v, r.clone()));
            }
            if let RValue::Object(o) = &self.main {
                o.ivars.borrow_mut().insert(name.to_string(), r.clone());
            }
            return r;
        }
        RValue::Nil
    }

    /// Tells the scope about the variables whose array or hash the template changed in
    /// place (Ruby's objects are shared with the scope; ours are copies).
    pub fn write_back(&mut self) {
        for (name, original, obj) in std::mem::take(&mut self.handed_out) {
            if value::converts_to(&obj, &original) {
                continue;
            }
            if let Ok(now) = value::to_puppet(&obj) {
                if now != original {
                    self.scope.mutated_variable(&name, &original, now);
                }
            }
        }
    }

    /// True for frozen values (strings from the scope, frozen literals, `freeze`).
    pub fn is_frozen(&self, v: &RValue) -> bool {
        match v {
            RValue::Str(s) => s.is_frozen(),
            RValue::Array(a) => a.is_frozen(),
            RValue::Hash(h) => h.is_frozen(),
            RValue::Object(o) => o.frozen.get(),
            RValue::Module(m) => m.frozen.get(),
            // Puppet's Ruby objects (Sensitive, types, time values) are not frozen;
            // SemanticPuppet's versions are.
            RValue::Puppet(v) => matches!(
                &**v,
                puppet_types::Value::SemVer(_) | puppet_types::Value::SemVerRange(_)
            ),
            _ => true,
        }
    }

    /// An instance variable of `self`.
    pub fn ivar_get(&mut self, name: &str) -> RValue {
        let s = self.ctx.self_v.clone();
        self.ivar_of(&s, name)
    }

    /// An instance variable of `obj`.
    pub fn ivar_of(&mut self, obj: &RValue, name: &str) -> RValue {
        match obj {
            RValue::Object(o) => {
                if let RValue::Object(m) = &self.main {
                    if Rc::ptr_eq(m, o) {
                        return self.ivar_of_main(name);
                    }
                }
                o.ivars.borrow().get(name).cloned().unwrap_or(RValue::Nil)
            }
            RValue::Module(m) => m.ivars.borrow().get(name).cloned().unwrap_or(RValue::Nil),
            _ => RValue::Nil,
        }
    }

    /// Sets an instance variable of `obj`.
    pub fn ivar_set_on(
        &mut self,
        obj: &RValue,
        name: &str,
        v: RValue,
        pos: Pos,
    ) -> Result<(), Ctrl> {
        match obj {
            RValue::Object(o) => {
                if o.frozen.get() {
                    return raise(
                        "FrozenError",
                        format!("can't modify frozen {}", o.class.name()),
                        pos,
                    );
                }
                o.ivars.borrow_mut().insert(name.to_string(), v);
                Ok(())
            }
            RValue::Module(m) => {
                m.ivars.borrow_mut().insert(name.to_string(), v);
                Ok(())
            }
            other => unsupported(
                format!("instance variables of a {}", other.class_name()),
                pos,
            ),
        }
    }

    fn ivar_defined(&mut self, name: &str) -> bool {
        let s = self.ctx.self_v.clone();
        match &s {
            RValue::Object(o) => {
                if o.ivars.borrow().contains_key(name) {
                    return true;
                }
                let is_main = matches!(&self.main, RValue::Object(m) if Rc::ptr_eq(m, o));
                is_main
                    && self.template
                    && self
                        .scope
                        .instance_variable(name)
                        .is_some_and(|v| !v.is_undef())
            }
            RValue::Module(m) => m.ivars.borrow().contains_key(name),
            _ => false,
        }
    }

    // ---- local variables ----------------------------------------------------------------

    /// A new, empty scope of local variables inside `parent` (a block's) or without one (a
    /// method's): one that an earlier call left (see [`Interp::recycle_env`]), else a new
    /// one. A reused scope is as a new one is: no variables, the given parent.
    pub(crate) fn new_env(&mut self, parent: Option<&Rc<Env>>) -> Rc<Env> {
        if let Some(mut e) = self.env_pool.pop() {
            if let Some(env) = Rc::get_mut(&mut e) {
                debug_assert!(env.vars.get_mut().is_empty() && env.parent.is_none());
                env.parent = parent.cloned();
                return e;
            }
        }
        Rc::new(Env {
            vars: std::cell::RefCell::new(Vec::new()),
            parent: parent.cloned(),
        })
    }

    /// Takes back the scope of a call that ended: when nothing else refers to it (no proc
    /// made inside captured it), its variables are dropped now (as dropping it would) and
    /// the emptied scope, with the room its variables took, waits for the next call.
    pub(crate) fn recycle_env(&mut self, mut e: Rc<Env>) {
        const KEPT: usize = 32;
        if self.env_pool.len() >= KEPT {
            return;
        }
        if let Some(env) = Rc::get_mut(&mut e) {
            let vars = env.vars.get_mut();
            if vars.capacity() > 16 {
                return;
            }
            vars.clear();
            env.parent = None;
            self.env_pool.push(e);
        }
    }

    pub(crate) fn lvar(&self, name: &str) -> Option<RValue> {
        self.ctx.env.get(name)
    }

    pub(crate) fn set_lvar(&mut self, name: &str, v: RValue) {
        self.ctx.env.set(name, v);
    }

    #[inline(always)]
    pub(crate) fn tick(&mut self, pos: Pos) -> Result<(), Ctrl> {
        self.steps += 1;
        let over = value::walk_end(0);
        if over || self.steps > self.max_steps {
            return self.tick_failed(over, pos);
        }
        Ok(())
    }

    /// The error of a [`Interp::tick`] that failed (kept out of the hot path).
    #[cold]
    #[inline(never)]
    fn tick_failed(&self, walk_over: bool, pos: Pos) -> Result<(), Ctrl> {
        // A walk over its bound is reported first, as it is checked first.
        if walk_over {
            return too_large(pos);
        }
        self.out_of_steps(pos)
    }

    /// Counts one level of recursion (method calls, blocks, nested expressions).
    #[inline(always)]
    pub(crate) fn enter(&mut self, pos: Pos) -> Result<(), Ctrl> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.too_deep(pos);
        }
        Ok(())
    }

    /// The error of an [`Interp::enter`] past [`MAX_DEPTH`] (kept out of the hot path).
    #[cold]
    #[inline(never)]
    fn too_deep(&mut self, pos: Pos) -> Result<(), Ctrl> {
        self.depth -= 1;
        raise("SystemStackError", "stack level too deep", pos)
    }

    /// The current nesting depth (evaluation steps and native method calls).
    #[inline]
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- running ------------------------------------------------------------------------

    /// The value of the regexp literal `/source/flags` (no interpolation): as in Ruby, the
    /// same object every time the literal runs, made once per interpreter.
    fn regex_literal(&mut self, source: &str, flags: &str, pos: Pos) -> R {
        let key = source.as_ptr() as usize;
        if let Some(l) = self.regex_literals.get(&key) {
            if *l.source == *source && *l.flags == *flags {
                return Ok(RValue::Regexp(l.value.clone()));
            }
        }
        match value::compile_regex(source, flags) {
            Ok(r) => {
                let value = Rc::new(r);
                self.regex_literals.insert(
                    key,
                    RegexLiteral {
                        source: source.into(),
                        flags: flags.into(),
                        value: value.clone(),
                    },
                );
                Ok(RValue::Regexp(value))
            }
            Err(e) => unsupported(format!("regexp /{source}/ ({e})"), pos),
        }
    }

    /// Runs the top-level statements of a template (`next`/`break` there are errors).
    pub fn run(&mut self, body: &[Node]) -> Result<(), Ctrl> {
        // On a thread with less stack than the red zone, the whole run moves to one grown
        // segment here: else every check deeper down, in every turn of a loop, would map a
        // segment of its own and unmap it on return (minutes of system time for a long loop
        // on a 256 kB thread).
        match crate::with_stack(|| self.body(body)) {
            Ok(_) | Err(Ctrl::Return(_)) => Ok(()),
            Err(Ctrl::Next(_)) | Err(Ctrl::Break(_)) => raise(
                "SyntaxError",
                "Invalid next/break at template level",
                Pos::default(),
            ),
            Err(e) => Err(e),
        }
    }

    /// Runs a program's statements at top level (or, for a required file, with a fresh
    /// top-level context); returns the value of the last statement.
    pub fn run_program(&mut self, prog: &Program) -> R {
        let ctx = Ctx {
            self_v: self.main.clone(),
            cref: Rc::new(CRef {
                module: self.object.clone(),
                parent: None,
            }),
            def_target: self.object.clone(),
            env: Rc::new(Env::default()),
            frame: Rc::new(Frame {
                name: None,
                owner: None,
                args: Vec::new(),
                block: None,
                file: prog.file.clone(),
                frozen_literals: prog.frozen_literals,
                def: None,
                last_match: Default::default(),
            }),
        };
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let r = self.body(&prog.body);
        self.ctx = saved;
        match r {
            Ok(v) | Err(Ctrl::Return(v)) => Ok(v),
            Err(Ctrl::Retry) => raise("SyntaxError", "Invalid retry", Pos::default()),
            Err(e) => Err(e.in_file(&prog.file)),
        }
    }

    /// Evaluates statements; the value of the last.
    pub fn body(&mut self, body: &[Node]) -> R {
        let mut last = RValue::Nil;
        for n in body {
            last = self.eval(n)?;
        }
        Ok(last)
    }

    /// Evaluates one node.
    pub fn eval(&mut self, n: &Node) -> R {
        if is_leaf(&n.kind) {
            self.eval_leaf(n)
        } else {
            self.eval_general(n)
        }
    }

    /// [`Interp::eval`] of a node that evaluates nothing inside it and walks no data (a
    /// local variable, a literal, `self`): the same depth, step and size checks, without
    /// growing the stack or ending a walk that cannot have started (the step's check ended
    /// the last one).
    fn eval_leaf(&mut self, n: &Node) -> R {
        self.enter(n.pos)?;
        let r = self.tick(n.pos).map(|()| match &n.kind {
            Kind::LVar(name) => self.lvar(name).unwrap_or(RValue::Nil),
            Kind::True => RValue::Bool(true),
            Kind::False => RValue::Bool(false),
            Kind::SelfRef => self.ctx.self_v.clone(),
            Kind::Int(i) => RValue::Int(*i),
            Kind::Float(f) => RValue::Float(*f),
            _ => RValue::Nil,
        });
        self.leave();
        let v = r?;
        self.check_size(&v, n.pos)?;
        Ok(v)
    }

    /// [`Interp::eval`] of any node.
    fn eval_general(&mut self, n: &Node) -> R {
        self.enter(n.pos)?;
        // Deep Ruby (and Ruby calling Puppet calling Ruby) must not overflow the thread's
        // stack: grow it on demand, as the Puppet evaluator does.
        let r = crate::with_stack_at(self.depth, || self.eval_inner(n));
        self.leave();
        // An operator's walk (`a == b` over shared parts) that went over the bound.
        if value::walk_end(0) {
            return too_large(n.pos);
        }
        if let Ok(v) = &r {
            self.check_size(v, n.pos)?;
        }
        r
    }

    fn interp_parts(&mut self, parts: &[Part]) -> Result<String, Ctrl> {
        if let [Part::Lit(l)] = parts {
            return Ok(l.clone());
        }
        let mut s = String::new();
        for p in parts {
            match p {
                Part::Lit(l) => s.push_str(l),
                Part::Code(body) => {
                    let v = self.body(body)?;
                    self.push_to_s(&mut s, &v)?;
                }
            }
        }
        Ok(s)
    }

    /// Appends `to_s` of `v` (as [`Interp::to_s_value`] gives it) to `out`; a string is
    /// copied from where it is, not through a new `String`.
    fn push_to_s(&mut self, out: &mut String, v: &RValue) -> Result<(), Ctrl> {
        match v {
            RValue::Str(s) => out.push_str(&s.borrow()),
            _ => out.push_str(&self.to_s_value(v)?),
        }
        Ok(())
    }

    /// `to_s` as string interpolation calls it (user classes' `to_s` included).
    pub fn to_s_value(&mut self, v: &RValue) -> Result<String, Ctrl> {
        match v {
            // The scope's `to_s` names its resource (`Scope(Class[main])`).
            RValue::Object(_) | RValue::Scope => {
                let pos = self.pos;
                let r = self.call_method(v.clone(), "to_s", vec![], None, pos)?;
                Ok(match r {
                    RValue::Str(s) => s.borrow().clone(),
                    _ => to_s(v),
                })
            }
            RValue::Array(_) | RValue::Hash(_) => self.inspect_value(v),
            _ => Ok(to_s(v)),
        }
    }

    /// `inspect` through user-visible dispatch (user classes' `inspect`, also inside arrays
    /// and hashes).
    pub fn inspect_value(&mut self, v: &RValue) -> Result<String, Ctrl> {
        let outer = value::walk_begin();
        let r = self.inspect_depth(v, 0);
        if value::walk_end(outer) {
            return too_large(self.pos);
        }
        r
    }

    fn inspect_depth(&mut self, v: &RValue, depth: usize) -> Result<String, Ctrl> {
        crate::with_stack_at(depth, || {
            if depth > 64 || !contains_object(v, 0) {
                return Ok(value::inspect(v));
            }
            match v {
                RValue::Array(a) => {
                    let items = a.borrow().clone();
                    let mut parts = Vec::with_capacity(items.len());
                    for x in &items {
                        parts.push(self.inspect_depth(x, depth + 1)?);
                    }
                    Ok(format!("[{}]", parts.join(", ")))
                }
                RValue::Hash(h) => {
                    let pairs = h.borrow().pairs();
                    let mut parts = Vec::with_capacity(pairs.len());
                    for (k, x) in &pairs {
                        parts.push(format!(
                            "{}=>{}",
                            self.inspect_depth(k, depth + 1)?,
                            self.inspect_depth(x, depth + 1)?
                        ));
                    }
                    Ok(format!("{{{}}}", parts.join(", ")))
                }
                RValue::Object(o) if !matches!(&*o.data.borrow(), ObjData::Exception(_)) => {
                    let pos = self.pos;
                    let r = self.call_method(v.clone(), "inspect", vec![], None, pos)?;
                    Ok(to_s(&r))
                }
                _ => Ok(value::inspect(v)),
            }
        })
    }

    fn eval_inner(&mut self, n: &Node) -> R {
        self.tick(n.pos)?;
        let pos = n.pos;
        match &n.kind {
            Kind::Nil => Ok(RValue::Nil),
            Kind::True => Ok(RValue::Bool(true)),
            Kind::False => Ok(RValue::Bool(false)),
            Kind::SelfRef => Ok(self.ctx.self_v.clone()),
            Kind::Int(i) => Ok(RValue::Int(*i)),
            Kind::Big(b) => Ok(RValue::Big(Rc::new((**b).clone()))),
            Kind::Float(f) => Ok(RValue::Float(*f)),
            Kind::Str(parts) => {
                let s = self.interp_parts(parts)?;
                self.charge(s.len(), pos)?;
                let v = RValue::string(s);
                self.check_size(&v, pos)?;
                if self.ctx.frame.frozen_literals && parts.iter().all(|p| matches!(p, Part::Lit(_)))
                {
                    if let RValue::Str(x) = &v {
                        x.freeze();
                    }
                }
                Ok(v)
            }
            Kind::XStr(parts) => {
                let cmd = self.interp_parts(parts).unwrap_or_default();
                unsupported(
                    format!("running the command `{cmd}` (Ruby code never runs commands here)"),
                    pos,
                )
            }
            // A plain symbol literal (`:undef`) is made from its text, without a copy first.
            Kind::Sym(parts) => match parts.as_slice() {
                [Part::Lit(l)] => Ok(RValue::sym(l)),
                _ => Ok(RValue::sym(&self.interp_parts(parts)?)),
            },
            Kind::Regex(parts, flags) => {
                if let [Part::Lit(lit)] = parts.as_slice() {
                    return self.regex_literal(lit, flags, pos);
                }
                let src = self.interp_parts(parts)?;
                match value::compile_regex(&src, flags) {
                    Ok(r) => Ok(RValue::Regexp(Rc::new(r))),
                    Err(e) => unsupported(format!("regexp /{src}/ ({e})"), pos),
                }
            }
            Kind::Array(items) => {
                let v = self.eval_list(items)?;
                self.charge(v.len() * 16, pos)?;
                Ok(RValue::array(v))
            }
            Kind::Hash(items) | Kind::KwArgs(items) => {
                let h = self.eval_hash_items(items)?;
                Ok(RValue::hash(h))
            }
            Kind::Range(a, b, excl) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                let ok = matches!(
                    (&a, &b),
                    (
                        RValue::Int(_) | RValue::Big(_) | RValue::Float(_),
                        RValue::Int(_) | RValue::Big(_) | RValue::Float(_)
                    ) | (RValue::Str(_), RValue::Str(_))
                        | (_, RValue::Nil)
                        | (RValue::Nil, _)
                ) || matches!((&a, &b), (RValue::IpAddr(x), RValue::IpAddr(y)) if x.v6 == y.v6);
                if !ok {
                    if let (RValue::Object(x), RValue::Object(y)) = (&a, &b) {
                        if Rc::ptr_eq(&x.class, &y.class) {
                            // Ruby makes ranges of any Comparable (Dates, Times).
                            return crate::interp::unsupported(
                                format!("a Range of {} objects", x.class.name()),
                                pos,
                            );
                        }
                    }
                    return raise("ArgumentError", "bad value for range", pos);
                }
                Ok(RValue::Range(Rc::new((a, b, *excl))))
            }
            Kind::LVar(name) => Ok(self.lvar(name).unwrap_or(RValue::Nil)),
            Kind::IVar(name) => Ok(self.ivar_get(name)),
            Kind::CVar(name) => self.cvar_get(name, pos),
            Kind::GVar(name) => self.gvar(name, pos),
            Kind::NthRef(k) => Ok(self.nth_ref(*k)),
            Kind::Const(scope, name) => match scope {
                Some(s) => {
                    let outer = self.eval(s)?;
                    self.scoped_const(&outer, name, pos)
                }
                None => self.lookup_const(name, pos),
            },
            Kind::TopConst(name) => {
                let o = RValue::Module(self.object.clone());
                self.scoped_const(&o, name, pos)
            }
            // `[nil, ''].include?(x)`: see `Interp::literal_array_call`.
            Kind::Call {
                recv: Some(recv),
                name,
                args,
                block: None,
                block_arg: None,
                safe: false,
            } if matches!(recv.kind, Kind::Array(_)) => {
                let Kind::Array(items) = &recv.kind else {
                    return unsupported("an array literal receiver", pos);
                };
                match self.literal_array_call(items, recv.pos, name, args, pos) {
                    Some(r) => r,
                    None => self.eval_call(Some(recv), name, args, None, None, false, pos),
                }
            }
            Kind::Call {
                recv,
                name,
                args,
                block,
                block_arg,
                safe,
            } => {
                let r = self.eval_call(
                    recv.as_deref(),
                    name,
                    args,
                    block.as_ref(),
                    block_arg.as_deref(),
                    *safe,
                    pos,
                );
                match r {
                    Err(Ctrl::Break(v)) if block.is_some() || block_arg.is_some() => Ok(v),
                    other => other,
                }
            }
            Kind::Splat(_) => unsupported("splat outside an argument list", pos),
            Kind::Not(e) => {
                let v = self.eval(e)?;
                match &v {
                    RValue::Object(_) => {
                        let r = self.call_method(v, "!", vec![], None, pos)?;
                        Ok(r)
                    }
                    _ => Ok(RValue::Bool(!v.truthy())),
                }
            }
            Kind::And(a, b) => {
                let v = self.eval(a)?;
                if v.truthy() {
                    self.eval(b)
                } else {
                    Ok(v)
                }
            }
            Kind::Or(a, b) => {
                let v = self.eval(a)?;
                if v.truthy() {
                    Ok(v)
                } else {
                    self.eval(b)
                }
            }
            Kind::Defined(e) => self.defined(e),
            Kind::Assign(target, value) => {
                let v = self.eval(value)?;
                let v = match (&target.kind, &value.kind) {
                    // `a = *b` / `a = 1, 2` gave an array already; a single splat too.
                    (_, Kind::Splat(_)) => v,
                    _ => v,
                };
                self.assign(target, v.clone())?;
                Ok(v)
            }
            Kind::OpAssign(target, op, value) => self.op_assign(target, op, value, pos),
            Kind::MultiAssign(targets, value) => {
                let v = match &value.kind {
                    Kind::Splat(inner) => {
                        let x = self.eval(inner)?;
                        RValue::array(self.splat_items(&x, pos)?)
                    }
                    _ => self.eval(value)?,
                };
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    RValue::Nil => vec![RValue::Nil],
                    other => match self.try_convert_array(other, pos)? {
                        Some(items) => items,
                        None => vec![other.clone()],
                    },
                };
                self.multi_assign(targets, items, pos)?;
                Ok(v)
            }
            Kind::Mlhs(_) => unsupported("a parenthesised assignment target", pos),
            Kind::If(c, then, els) => {
                if self.eval(c)?.truthy() {
                    self.body(then)
                } else {
                    self.body(els)
                }
            }
            Kind::While {
                cond,
                body,
                until,
                do_while,
            } => {
                let mut first = *do_while;
                loop {
                    self.tick(pos)?;
                    if !first && self.eval(cond)?.truthy() == *until {
                        break;
                    }
                    first = false;
                    match self.body(body) {
                        Ok(_) | Err(Ctrl::Next(_)) => {}
                        Err(Ctrl::Break(v)) => return Ok(v),
                        Err(e) => return Err(e),
                    }
                }
                Ok(RValue::Nil)
            }
            Kind::For(vars, iter, body) => {
                let it = self.eval(iter)?;
                let items = crate::methods::iter_items(self, &it, pos)?;
                for item in items {
                    self.tick(pos)?;
                    if vars.len() == 1 {
                        self.bind_param(&vars[0], item, false);
                    } else {
                        self.bind_param(&Param::Destructure(vars.clone()), item, false);
                    }
                    match self.body(body) {
                        Ok(_) | Err(Ctrl::Next(_)) => {}
                        Err(Ctrl::Break(v)) => return Ok(v),
                        Err(e) => return Err(e),
                    }
                }
                Ok(it)
            }
            Kind::CaseIn(subject, clauses, els) => {
                crate::pattern::case_in(self, subject, clauses, els.as_deref(), pos)
            }
            Kind::Case(subject, whens, els) => {
                let subj = match subject {
                    Some(s) => Some(self.eval(s)?),
                    None => None,
                };
                for (vals, body) in whens {
                    for v in vals {
                        let cands = match &v.kind {
                            Kind::Splat(inner) => {
                                let x = self.eval(inner)?;
                                self.splat_items(&x, v.pos)?
                            }
                            _ => vec![self.eval(v)?],
                        };
                        for cand in cands {
                            let hit = match &subj {
                                Some(s) => self.case_eq(&cand, s, v.pos)?,
                                None => cand.truthy(),
                            };
                            if hit {
                                return self.body(body);
                            }
                        }
                    }
                }
                match els {
                    Some(b) => self.body(b),
                    None => Ok(RValue::Nil),
                }
            }
            Kind::Begin(body, rescues, els, ensure) => {
                if rescues.is_empty() && els.is_none() && ensure.is_none() {
                    return self.body(body);
                }
                self.begin(body, rescues, els.as_deref(), ensure.as_deref())
            }
            Kind::RescueMod(e, r) => match self.eval(e) {
                Err(Ctrl::Raise(exc)) if self.is_standard_error(&exc.class) => {
                    let obj = self.exception_value(&exc);
                    self.record_backtrace(&obj, &exc);
                    self.handling.push(obj.clone());
                    let v = self.eval(r);
                    let v = crate::kernel::attach_cause(self, v, &obj);
                    self.handling.pop();
                    v
                }
                other => other,
            },
            Kind::Def(recv, d) => {
                self.define_method_node(recv.as_deref(), d, pos)?;
                Ok(RValue::sym(&d.name))
            }
            Kind::Class(body) => self.class_body(body, true, pos),
            Kind::Module(body) => self.class_body(body, false, pos),
            Kind::SClass(target, body) => self.sclass_body(target, body, pos),
            Kind::Return(v) => {
                let v = match v {
                    Some(v) => self.eval(v)?,
                    None => RValue::Nil,
                };
                Err(Ctrl::Return(v))
            }
            Kind::Next(v) => {
                let v = match v {
                    Some(v) => self.eval(v)?,
                    None => RValue::Nil,
                };
                Err(Ctrl::Next(v))
            }
            Kind::Break(v) => {
                let v = match v {
                    Some(v) => self.eval(v)?,
                    None => RValue::Nil,
                };
                Err(Ctrl::Break(v))
            }
            Kind::Retry => Err(Ctrl::Retry),
            Kind::Redo => unsupported("redo", pos),
            Kind::Yield(args) => {
                let (a, kw) = self.eval_args(args)?;
                let a = crate::call::merge_kw(a, kw);
                match self.ctx.frame.block.clone() {
                    Some(b) => self.call_block(&b, a, pos),
                    None => raise("LocalJumpError", "no block given (yield)", pos),
                }
            }
            Kind::Super {
                args,
                block,
                block_arg,
            } => self.call_super(args.as_deref(), block.as_ref(), block_arg.as_deref(), pos),
            Kind::Lambda(b) => Ok(RValue::Proc(self.make_proc(b.clone(), true))),
            Kind::Alias(new, old) => {
                let target = self.ctx.def_target.clone();
                self.alias_method(&target, new, old, pos)?;
                Ok(RValue::Nil)
            }
            Kind::Undef(names) => {
                let target = self.ctx.def_target.clone();
                for n in names {
                    target.methods.borrow_mut().insert(
                        n.clone(),
                        crate::object::Entry {
                            method: crate::object::Method::Undefined,
                            private: false,
                        },
                    );
                }
                Ok(RValue::Nil)
            }
            Kind::CurrentMethod => Ok(match &self.ctx.frame.name {
                Some(n) => RValue::sym(n),
                // A template runs in ERB#result.
                None if self.template => RValue::sym("result"),
                None => RValue::Nil,
            }),
            Kind::Seq(body) => self.body(body),
            Kind::Put(text) => {
                if self.out_binary && !text.is_ascii() {
                    self.append_encoding(false, false, pos)?;
                }
                self.out.push_str(text);
                Ok(RValue::Nil)
            }
            Kind::Insert(body) => {
                let v = self.body(body)?;
                // (`to_s` may be a template's method that writes to the output itself: the
                // text is appended after it ran.)
                let n = match &v {
                    RValue::Str(cell) => {
                        let s = cell.borrow();
                        if cell.is_binary() != self.out_binary {
                            self.append_encoding(cell.is_binary(), s.is_ascii(), pos)?;
                        }
                        self.out.push_str(&s);
                        s.len()
                    }
                    _ => {
                        let s = self.to_s_value(&v)?;
                        self.out.push_str(&s);
                        s.len()
                    }
                };
                self.charge(n, pos)?;
                Ok(RValue::Nil)
            }
        }
    }

    /// The output's encoding once a piece of this encoding (binary, ASCII only) is appended
    /// to it (Ruby's `<<` on ERB's buffer).
    fn append_encoding(&mut self, binary: bool, ascii: bool, pos: Pos) -> Result<(), Ctrl> {
        let left = (self.out_binary, self.out.is_ascii());
        self.out_binary = crate::strings::joined_binary(left, (binary, ascii), pos)?;
        Ok(())
    }

    fn begin(
        &mut self,
        body: &[Node],
        rescues: &[crate::ast::Rescue],
        els: Option<&[Node]>,
        ensure: Option<&[Node]>,
    ) -> R {
        let r = loop {
            let r = self.body(body);
            let r = match r {
                Err(Ctrl::Raise(exc)) => {
                    let mut handled = None;
                    let obj = self.exception_value(&exc);
                    self.record_backtrace(&obj, &exc);
                    'clauses: for resc in rescues {
                        let mut matches =
                            resc.classes.is_empty() && self.is_standard_error(&exc.class);
                        for c in &resc.classes {
                            let cands = match &c.kind {
                                Kind::Splat(inner) => {
                                    let x = self.eval(inner)?;
                                    self.splat_items(&x, c.pos)?
                                }
                                _ => vec![self.eval(c)?],
                            };
                            for cand in cands {
                                match cand {
                                    RValue::Module(m) => {
                                        if self.value_is_a(&obj, &m) {
                                            matches = true;
                                        }
                                    }
                                    _ => {
                                        return raise(
                                            "TypeError",
                                            "class or module required for rescue clause",
                                            c.pos,
                                        )
                                    }
                                }
                            }
                        }
                        if matches {
                            if let Some(var) = &resc.var {
                                self.assign(var, obj.clone())?;
                            }
                            self.handling.push(obj.clone());
                            let h = self.body(&resc.body);
                            let h = crate::kernel::attach_cause(self, h, &obj);
                            self.handling.pop();
                            handled = Some(h);
                            break 'clauses;
                        }
                    }
                    match handled {
                        Some(Err(Ctrl::Retry)) => {
                            self.tick(exc.pos)?;
                            continue;
                        }
                        Some(h) => h,
                        None => Err(Ctrl::Raise(exc)),
                    }
                }
                Ok(v) => match els {
                    Some(e) => self.body(e),
                    None => Ok(v),
                },
                other => other,
            };
            break r;
        };
        if let Some(ens) = ensure {
            self.body(ens)?;
        }
        r
    }

    /// The last match (`$~`) of the running method (or of the method a block was made in).
    pub fn last_match(&self) -> Option<Rc<crate::value::Captures>> {
        self.ctx.frame.last_match.borrow().clone()
    }

    /// Sets the running method's last match (`$~`).
    pub fn set_last_match(&self, m: Option<Rc<crate::value::Captures>>) {
        *self.ctx.frame.last_match.borrow_mut() = m;
    }

    fn nth_ref(&self, k: usize) -> RValue {
        match &self.last_match() {
            Some(m) => match m.get(k) {
                Some(Some(s)) => RValue::str(s),
                _ => RValue::Nil,
            },
            None => RValue::Nil,
        }
    }

    fn gvar(&mut self, name: &str, pos: Pos) -> R {
        match name {
            "~" => Ok(self
                .last_match()
                .map(RValue::MatchData)
                .unwrap_or(RValue::Nil)),
            "&" => Ok(self.nth_ref(0)),
            "`" => Ok(match &self.last_match() {
                Some(m) => RValue::str(m.pre()),
                None => RValue::Nil,
            }),
            "'" => Ok(match &self.last_match() {
                Some(m) => RValue::str(m.post()),
                None => RValue::Nil,
            }),
            "!" => Ok(self.handling.last().cloned().unwrap_or(RValue::Nil)),
            // The program's name, until the program sets it.
            "0" | "PROGRAM_NAME" => Ok(self
                .globals
                .get("0")
                .cloned()
                .unwrap_or_else(|| RValue::str("puppet"))),
            "LOAD_PATH" | ":" | "LOADED_FEATURES" | "\"" => Ok(RValue::array(Vec::new())),
            "VERBOSE" | "DEBUG" => Ok(self
                .globals
                .get(name)
                .cloned()
                .unwrap_or(RValue::Bool(false))),
            "stderr" | "stdout" => Ok(crate::fileio::out_stream(self, name == "stderr")),
            "stdin" | "PROGRAM_NAME_" => unsupported(format!("the global variable ${name}"), pos),
            "," | "/" | ";" => Ok(RValue::Nil),
            _ => Ok(self.globals.get(name).cloned().unwrap_or(RValue::Nil)),
        }
    }

    fn cvar_owner(&self) -> Rc<Module> {
        // Class variables belong to the lexically enclosing class (or, at top level and in
        // singleton classes, to the class of self).
        let m = self.ctx.cref.module.clone();
        if let Some(a) = m.attached.borrow().as_ref().and_then(|w| w.upgrade()) {
            return a;
        }
        m
    }

    fn cvar_get(&mut self, name: &str, pos: Pos) -> R {
        let owner = self.cvar_owner();
        for m in owner.ancestors() {
            if let Some(v) = m.cvars.borrow().get(name) {
                return Ok(v.clone());
            }
        }
        raise(
            "NameError",
            format!("uninitialized class variable @@{name} in {}", owner.name()),
            pos,
        )
    }

    fn cvar_set(&mut self, name: &str, v: RValue) {
        let owner = self.cvar_owner();
        for m in owner.ancestors() {
            if m.cvars.borrow().contains_key(name) {
                m.cvars.borrow_mut().insert(name.to_string(), v);
                return;
            }
        }
        owner.cvars.borrow_mut().insert(name.to_string(), v);
    }

    /// `pattern === value` as `case`/`when` and `rescue` use it.
    pub fn case_eq(&mut self, pattern: &RValue, v: &RValue, pos: Pos) -> Result<bool, Ctrl> {
        Ok(match pattern {
            RValue::Module(m) => {
                let m = m.clone();
                self.value_is_a(v, &m)
            }
            RValue::Regexp(re) => match v {
                RValue::Str(_) | RValue::Sym(_) => {
                    let s = to_s(v);
                    crate::methods::regex_match(self, re, &s, 0, pos)?.is_some()
                }
                _ => false,
            },
            RValue::Range(r) => crate::methods::range_cover(r, v),
            RValue::Proc(p) => {
                let p = p.clone();
                self.call_block(&p, vec![v.clone()], pos)?.truthy()
            }
            RValue::Object(_) => self
                .call_method(pattern.clone(), "===", vec![v.clone()], None, pos)?
                .truthy(),
            _ => value::equal(pattern, v),
        })
    }

    fn defined(&mut self, e: &Node) -> R {
        let s = match &e.kind {
            Kind::IVar(n) => {
                if self.ivar_defined(n) {
                    Some("instance-variable")
                } else {
                    None
                }
            }
            Kind::LVar(_) => Some("local-variable"),
            Kind::CVar(n) => {
                let owner = self.cvar_owner();
                if owner
                    .ancestors()
                    .iter()
                    .any(|m| m.cvars.borrow().contains_key(n))
                {
                    Some("class variable")
                } else {
                    None
                }
            }
            Kind::GVar(n) => {
                if self.globals.contains_key(n) || matches!(n.as_str(), "~" | "!" | "0") {
                    Some("global-variable")
                } else {
                    None
                }
            }
            Kind::NthRef(k) => {
                if !matches!(self.nth_ref(*k), RValue::Nil) {
                    Some("global-variable")
                } else {
                    None
                }
            }
            Kind::Const(..) | Kind::TopConst(_) => match self.eval(e) {
                Ok(_) => Some("constant"),
                Err(Ctrl::Raise(_)) | Err(Ctrl::Unsupported(_)) => None,
                Err(other) => return Err(other),
            },
            // Ruby does not look into a safe-navigation call.
            Kind::Call { safe: true, .. } => Some("expression"),
            Kind::Call {
                recv: None, name, ..
            } => {
                let s = self.ctx.self_v.clone();
                if self.responds_to(&s, name, true) {
                    Some("method")
                } else {
                    None
                }
            }
            Kind::Call {
                recv: Some(r),
                name,
                ..
            } => match self.eval(r) {
                Ok(v) => {
                    if self.responds_to(&v, name, false) {
                        Some("method")
                    } else {
                        None
                    }
                }
                Err(Ctrl::Raise(_)) => None,
                Err(e) => return Err(e),
            },
            Kind::Yield(_) => {
                if self.ctx.frame.block.is_some() {
                    Some("yield")
                } else {
                    None
                }
            }
            Kind::Super { .. } => {
                let found = self.super_target().is_some();
                if found {
                    Some("super")
                } else {
                    None
                }
            }
            Kind::Assign(..) | Kind::OpAssign(..) | Kind::MultiAssign(..) => Some("assignment"),
            Kind::Nil => Some("expression"),
            Kind::SelfRef => Some("self"),
            Kind::True | Kind::False => Some("expression"),
            _ => Some("expression"),
        };
        Ok(match s {
            Some(s) => RValue::str(s),
            None => RValue::Nil,
        })
    }

    /// Assigns `v` to an assignment target.
    pub(crate) fn assign(&mut self, target: &Node, v: RValue) -> Result<(), Ctrl> {
        match &target.kind {
            Kind::LVar(n) => {
                self.set_lvar(n, v);
                Ok(())
            }
            Kind::IVar(n) => {
                let s = self.ctx.self_v.clone();
                self.ivar_set_on(&s, n, v, target.pos)
            }
            Kind::CVar(n) => {
                self.cvar_set(n, v);
                Ok(())
            }
            Kind::GVar(n) => {
                if matches!(
                    n.as_str(),
                    "stderr" | "stdout" | "stdin" | "LOAD_PATH" | ":"
                ) {
                    return unsupported(format!("assignment to ${n}"), target.pos);
                }
                let n = if n == "PROGRAM_NAME" { "0" } else { n.as_str() };
                self.globals.insert(n.into(), v);
                Ok(())
            }
            Kind::Const(None, n) => {
                let m = self.ctx.cref.module.clone();
                self.set_const(&m, n, v);
                Ok(())
            }
            Kind::Const(Some(scope), n) => {
                let outer = self.eval(scope)?;
                match outer {
                    RValue::Module(m) => {
                        self.set_const(&m, n, v);
                        Ok(())
                    }
                    other => raise(
                        "TypeError",
                        format!("{} is not a class/module", value::inspect(&other)),
                        target.pos,
                    ),
                }
            }
            Kind::TopConst(n) => {
                let o = self.object.clone();
                self.set_const(&o, n, v);
                Ok(())
            }
            Kind::Call {
                recv: Some(r),
                name,
                args,
                safe,
                ..
            } => {
                let recv = self.eval(r)?;
                if *safe && matches!(recv, RValue::Nil) {
                    return Ok(());
                }
                let (mut a, kw) = self.eval_args(args)?;
                if let Some(k) = kw {
                    a.push(k);
                }
                a.push(v);
                let mname = if name == "[]" {
                    "[]=".to_string()
                } else {
                    format!("{name}=")
                };
                self.call_method(recv, &mname, a, None, target.pos)?;
                Ok(())
            }
            Kind::Call {
                recv: None,
                name,
                args,
                ..
            } if args.is_empty() => {
                self.set_lvar(name, v);
                Ok(())
            }
            Kind::Splat(inner) => {
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                self.assign(inner, RValue::array(items))
            }
            Kind::Mlhs(targets) => {
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                self.multi_assign(targets, items, target.pos)
            }
            Kind::Nil => Ok(()),
            _ => unsupported("assignment target", target.pos),
        }
    }

    /// Distributes values over targets (`a, *b, c = items`).
    fn multi_assign(
        &mut self,
        targets: &[Node],
        items: Vec<RValue>,
        _pos: Pos,
    ) -> Result<(), Ctrl> {
        let splat_at = targets
            .iter()
            .position(|t| matches!(t.kind, Kind::Splat(_)));
        match splat_at {
            None => {
                for (i, t) in targets.iter().enumerate() {
                    self.assign(t, items.get(i).cloned().unwrap_or(RValue::Nil))?;
                }
            }
            Some(s) => {
                let after = targets.len() - s - 1;
                for (i, t) in targets[..s].iter().enumerate() {
                    self.assign(t, items.get(i).cloned().unwrap_or(RValue::Nil))?;
                }
                let rest_end = items.len().saturating_sub(after).max(s);
                let rest: Vec<RValue> = items
                    .get(s..rest_end)
                    .map(|x| x.to_vec())
                    .unwrap_or_default();
                if let Kind::Splat(inner) = &targets[s].kind {
                    self.assign(inner, RValue::array(rest))?;
                }
                for (j, t) in targets[s + 1..].iter().enumerate() {
                    self.assign(t, items.get(rest_end + j).cloned().unwrap_or(RValue::Nil))?;
                }
            }
        }
        Ok(())
    }

    fn op_assign(&mut self, target: &Node, op: &str, value: &Node, pos: Pos) -> R {
        // Evaluate the receiver and index once.
        let (getter, setter): (RValue, Setter<'s>) = match &target.kind {
            Kind::LVar(n) => {
                let cur = self.lvar(n).unwrap_or(RValue::Nil);
                let n = n.clone();
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        me.set_lvar(&n, v);
                        Ok(())
                    }),
                )
            }
            Kind::IVar(n) => {
                let cur = self.ivar_get(n);
                let n = n.clone();
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        let s = me.ctx.self_v.clone();
                        me.ivar_set_on(&s, &n, v, pos)
                    }),
                )
            }
            Kind::CVar(n) => {
                let owner = self.cvar_owner();
                let cur = owner
                    .ancestors()
                    .iter()
                    .find_map(|m| m.cvars.borrow().get(n.as_str()).cloned())
                    .unwrap_or(RValue::Nil);
                let n = n.clone();
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        me.cvar_set(&n, v);
                        Ok(())
                    }),
                )
            }
            Kind::GVar(n) => {
                let cur = self.globals.get(n).cloned().unwrap_or(RValue::Nil);
                let n = n.clone();
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        me.globals.insert(n.clone(), v);
                        Ok(())
                    }),
                )
            }
            Kind::Const(None, n) => {
                let m = self.ctx.cref.module.clone();
                let cur = m.consts.borrow().get(n).cloned().unwrap_or(RValue::Nil);
                let n = n.clone();
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        let m = me.ctx.cref.module.clone();
                        me.set_const(&m, &n, v);
                        Ok(())
                    }),
                )
            }
            Kind::Call {
                recv: Some(r),
                name,
                args,
                safe,
                ..
            } => {
                let recv = self.eval(r)?;
                if *safe && matches!(recv, RValue::Nil) {
                    return Ok(RValue::Nil);
                }
                let (mut a, kw) = self.eval_args(args)?;
                if let Some(k) = kw {
                    a.push(k);
                }
                let cur = self.call_method(recv.clone(), name, a.clone(), None, pos)?;
                let mname = if name == "[]" {
                    "[]=".to_string()
                } else {
                    format!("{name}=")
                };
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        let mut a = a.clone();
                        a.push(v);
                        me.call_method(recv.clone(), &mname, a, None, pos)?;
                        Ok(())
                    }),
                )
            }
            _ => return unsupported("compound assignment target", pos),
        };
        let newv = match op {
            "||" => {
                if getter.truthy() {
                    return Ok(getter);
                }
                self.eval(value)?
            }
            "&&" => {
                if !getter.truthy() {
                    return Ok(getter);
                }
                self.eval(value)?
            }
            _ => {
                let rhs = self.eval(value)?;
                self.call_method(getter, op, vec![rhs], None, pos)?
            }
        };
        setter(self, newv.clone())?;
        Ok(newv)
    }

    /// Evaluates a list with splats.
    pub fn eval_list(&mut self, items: &[Node]) -> Result<Vec<RValue>, Ctrl> {
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            match &it.kind {
                Kind::Splat(inner) => {
                    let v = self.eval(inner)?;
                    out.extend(self.splat_items(&v, it.pos)?);
                }
                _ => out.push(self.eval(it)?),
            }
        }
        Ok(out)
    }

    /// The entries of a hash literal (`**h` merged in).
    pub(crate) fn eval_hash_items(
        &mut self,
        items: &[crate::ast::HashItem],
    ) -> Result<RHash, Ctrl> {
        let mut h = RHash::default();
        for item in items {
            match item {
                crate::ast::HashItem::Pair(k, v) => {
                    let kpos = k.pos;
                    let k = self.eval(k)?;
                    let v = self.eval(v)?;
                    if matches!(k, RValue::Object(_) | RValue::Array(_)) {
                        crate::kernel::prepare_keys(self, std::slice::from_ref(&k), kpos)?;
                    }
                    h.insert(k, v);
                }
                crate::ast::HashItem::Splat(e) => {
                    let pos = e.pos;
                    match self.eval(e)? {
                        RValue::Hash(o) => {
                            for (k, v) in o.borrow().pairs() {
                                h.insert(k, v);
                            }
                        }
                        RValue::Nil => {}
                        other => return crate::interp::no_implicit_conversion(&other, "Hash", pos),
                    }
                }
            }
        }
        Ok(h)
    }

    /// What `*x` expands to (`to_a` of user objects included).
    pub fn splat_items(&mut self, v: &RValue, pos: Pos) -> Result<Vec<RValue>, Ctrl> {
        match v {
            RValue::Object(_) => {
                if self.responds_to(v, "to_a", false) {
                    let r = self.call_method(v.clone(), "to_a", vec![], None, pos)?;
                    if let RValue::Array(a) = r {
                        return Ok(a.borrow().clone());
                    }
                }
                Ok(vec![v.clone()])
            }
            _ => crate::methods::splat_items(self, v, pos),
        }
    }

    fn try_convert_array(&mut self, v: &RValue, pos: Pos) -> Result<Option<Vec<RValue>>, Ctrl> {
        if let RValue::Object(_) = v {
            if self.responds_to(v, "to_ary", false) {
                if let RValue::Array(a) =
                    self.call_method(v.clone(), "to_ary", vec![], None, pos)?
                {
                    return Ok(Some(a.borrow().clone()));
                }
            }
        }
        Ok(None)
    }

    pub(crate) fn bind_param(&mut self, p: &Param, v: RValue, local: bool) {
        match p {
            Param::Name(n) => {
                if local {
                    self.ctx.env.define(n, v);
                } else {
                    self.set_lvar(n, v);
                }
            }
            Param::Splat(n) => {
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                if !n.is_empty() {
                    self.bind_param(&Param::Name(n.clone()), RValue::array(items), local);
                }
            }
            Param::Destructure(inner) => {
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                let splat_at = inner.iter().position(|q| matches!(q, Param::Splat(_)));
                match splat_at {
                    None => {
                        for (i, q) in inner.iter().enumerate() {
                            let x = items.get(i).cloned().unwrap_or(RValue::Nil);
                            self.bind_param(q, x, local);
                        }
                    }
                    Some(s) => {
                        let after = inner.len() - s - 1;
                        for (i, q) in inner[..s].iter().enumerate() {
                            let x = items.get(i).cloned().unwrap_or(RValue::Nil);
                            self.bind_param(q, x, local);
                        }
                        let end = items.len().saturating_sub(after).max(s);
                        let rest = items.get(s..end).map(|x| x.to_vec()).unwrap_or_default();
                        if let Param::Splat(n) = &inner[s] {
                            if !n.is_empty() {
                                self.bind_param(
                                    &Param::Name(n.clone()),
                                    RValue::array(rest),
                                    local,
                                );
                            }
                        }
                        for (j, q) in inner[s + 1..].iter().enumerate() {
                            let x = items.get(end + j).cloned().unwrap_or(RValue::Nil);
                            self.bind_param(q, x, local);
                        }
                    }
                }
            }
        }
    }

    // ---- the Puppet scope ---------------------------------------------------------------

    /// The template wrapper's `to_s`.
    pub fn wrapper_text(&self) -> String {
        format!("template[{}]", self.file)
    }

    /// Calls a Puppet function through the scope.
    pub fn puppet_function(&mut self, name: &str, args: Vec<RValue>, pos: Pos) -> R {
        if let Some(r) = crate::lookup_context::builtin_data_hash(self, name, &args, pos) {
            return r;
        }
        let mut pargs = Vec::with_capacity(args.len());
        for a in &args {
            match value::to_puppet(a) {
                Ok(v) => pargs.push(v),
                Err(e) => return unsupported(format!("argument to {name}: {e}"), pos),
            }
        }
        match self.scope.call_function(name, pargs) {
            Ok(v) => Ok(value::from_puppet(&v)),
            Err(msg) => raise("Puppet::ParseError", msg, pos),
        }
    }

    /// `scope.setvar(name, value)`: returns the value.
    pub fn setvar(&mut self, name: &str, value: &RValue, pos: Pos) -> R {
        let v = match value::to_puppet(value) {
            Ok(v) => v,
            Err(e) => return unsupported(format!("value given to setvar: {e}"), pos),
        };
        match self.scope.set_variable(name, v) {
            Ok(()) => {
                SETVARS.with(|s| {
                    if let Some(frame) = s.borrow_mut().last_mut() {
                        frame.push((name.to_string(), value.clone()));
                    }
                });
                Ok(value.clone())
            }
            Err(msg) => raise("Puppet::ParseError", msg, pos),
        }
    }

    /// A scope object's variable methods for the variable read as `name` (a miss reported
    /// as `shown`); `None` for another method:
    /// - `lookupvar(name)` and `[name]`: a variable the scope does not have is `nil`, after
    ///   the scope's warning (or its `ArgumentError` under `strict=error`);
    /// - `include?(name)`: whether it is there and not `nil`, `exist?(name)`: whether it is
    ///   there, even `undef`; both without a warning (Puppet's `Scope#include?` catches the
    ///   miss that `lookupvar` reports).
    pub(crate) fn variable_method(
        &mut self,
        method: &str,
        name: &str,
        shown: &str,
        pos: Pos,
    ) -> Option<R> {
        Some(match method {
            "lookupvar" | "[]" => match self.variable(name) {
                Some(v) => Ok(v),
                None => self.variable_missing(shown, pos),
            },
            "include?" => Ok(RValue::Bool(!matches!(
                self.variable(name),
                None | Some(RValue::Nil)
            ))),
            "exist?" => Ok(RValue::Bool(self.variable(name).is_some())),
            _ => return None,
        })
    }

    /// What `lookupvar` answers for a variable `name` the scope does not have. As Puppet's
    /// `Scope#variable_not_found`, a numeric name (`'1'`) is silently `nil`, and the miss is
    /// first thrown as `:undefined_variable`: code that catches it gets the reason and no
    /// warning.
    fn variable_missing(&mut self, name: &str, pos: Pos) -> R {
        let numeric = name == "0"
            || (!name.starts_with('0')
                && !name.is_empty()
                && name.bytes().all(|b| b.is_ascii_digit()));
        if numeric {
            return Ok(RValue::Nil);
        }
        let tag = RValue::sym("undefined_variable");
        if self.catch_tags.iter().any(|t| value::equal(t, &tag)) {
            let reason = self.scope.unknown_variable_reason(name);
            return Err(Ctrl::Throw(Box::new((
                tag,
                reason.map_or(RValue::Nil, RValue::string),
            ))));
        }
        match self.scope.unknown_variable(name) {
            Ok(()) => Ok(RValue::Nil),
            Err(message) => raise("ArgumentError", message, pos),
        }
    }

    /// The variable `name` of the scope (a template's `scope.setvar` first), `None` when
    /// there is none.
    fn variable(&mut self, name: &str) -> Option<RValue> {
        let set = SETVARS.with(|s| {
            s.borrow()
                .iter()
                .rev()
                .flat_map(|f| f.iter().rev())
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        });
        if set.is_some() {
            return set;
        }
        self.scope
            .lookup(name)
            .map(|v| value::from_puppet_frozen(&v))
    }

    /// `scope.to_hash`.
    pub fn scope_hash(&mut self) -> RValue {
        let mut h = RHash::default();
        let vars: IndexMap<SmolStr, Value> = self.scope.all_variables();
        for (k, v) in vars.iter() {
            if v.is_undef() {
                continue;
            }
            h.insert(RValue::str(k), value::from_puppet_frozen(v));
        }
        RValue::hash(h)
    }

    /// Makes a proc of a block literal, capturing the current context.
    pub fn make_proc(&mut self, b: Arc<crate::ast::Block>, lambda: bool) -> Blk {
        let p = Rc::new(Proc {
            body: ProcBody::Block(b),
            lambda,
            ctx: std::cell::RefCell::new(Some(self.ctx.clone())),
        });
        self.track_proc(&p);
        p
    }

    /// A proc of another kind (symbol, method, native), capturing the current context.
    pub fn make_proc_of(&mut self, body: ProcBody, lambda: bool) -> Blk {
        let p = Rc::new(Proc {
            body,
            lambda,
            ctx: std::cell::RefCell::new(Some(self.ctx.clone())),
        });
        self.track_proc(&p);
        p
    }

    /// Whether the exception class `class` is one of Puppet's errors (`Puppet::Error` and
    /// its subclasses: `Puppet::ParseError`, `Puppet::DataBinding::LookupError`...).
    pub(crate) fn is_puppet_error(&mut self, class: &str) -> bool {
        let Some(pe) = self.module_by_path("Puppet::Error") else {
            return false;
        };
        self.module_by_path(class)
            .is_some_and(|m| Rc::ptr_eq(&m, &pe) || m.inherits(&pe))
    }

    /// Whether the exception class `class` is a `StandardError` (what a bare `rescue`, and
    /// Puppet's evaluator and template wrapper, rescue).
    pub fn is_standard_error(&mut self, class: &str) -> bool {
        let Some(se) = self.module_by_path("StandardError") else {
            return true;
        };
        match self.module_by_path(class) {
            Some(m) => m.inherits(&se),
            None => !matches!(
                class,
                "SystemStackError"
                    | "NotImplementedError"
                    | "SyntaxError"
                    | "Exception"
                    | "NoMemoryError"
                    | "LoadError"
                    | "ScriptError"
                    | "SystemExit"
            ),
        }
    }
}

/// Whether [`Interp::eval`] takes a node of this kind on the leaf path (`eval_leaf`): a
/// local variable, `nil`, `true`, `false`, a number or `self`, which cannot recurse.
pub(crate) fn is_leaf(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::LVar(_)
            | Kind::Nil
            | Kind::True
            | Kind::False
            | Kind::Int(_)
            | Kind::Float(_)
            | Kind::SelfRef
    )
}

/// Whether a value holds a user object (whose `inspect` may be its own).
fn contains_object(v: &RValue, depth: usize) -> bool {
    crate::with_stack_at(depth, || {
        if depth > 64 || !value::walk_step() {
            return false;
        }
        match v {
            RValue::Object(_) => true,
            RValue::Array(a) => a
                .try_borrow()
                .is_ok_and(|a| a.iter().any(|x| contains_object(x, depth + 1))),
            RValue::Hash(h) => h.try_borrow().is_ok_and(|h| {
                h.map
                    .values()
                    .any(|(k, x)| contains_object(k, depth + 1) || contains_object(x, depth + 1))
            }),
            _ => false,
        }
    })
}

/// Marks the strings of a value from the scope frozen (Puppet hands Ruby frozen strings).
pub(crate) fn freeze_strings(v: &RValue, depth: usize) {
    crate::with_stack_at(depth, || {
        if depth > 64 {
            return;
        }
        match v {
            RValue::Str(s) => s.freeze(),
            RValue::Array(a) => {
                for x in a.borrow().iter() {
                    freeze_strings(x, depth + 1);
                }
            }
            RValue::Hash(h) => {
                for (k, x) in h.borrow().map.values() {
                    freeze_strings(k, depth + 1);
                    freeze_strings(x, depth + 1);
                }
            }
            _ => {}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NullScope;

    /// Runs `code` as a template on this thread; the inspected value of its last
    /// statement, or its error.
    fn run_template(code: &str) -> String {
        let prog = crate::parser::parse_file(code, "t.erb").expect("parses");
        let mut scope = NullScope::default();
        let mut it = Interp::new(&mut scope, "t.erb");
        match it.run_program(&prog) {
            Ok(v) => it.inspect_value(&v).unwrap_or_else(|e| format!("{e:?}")),
            Err(Ctrl::Raise(e)) => format!("{}: {}", e.class, e.message),
            Err(e) => format!("{e:?}"),
        }
    }

    fn forget_skeleton() {
        reset_template_methods();
        SKELETON.with(|s| {
            if let Some(k) = s.borrow_mut().0.take() {
                k.clear();
            }
        });
    }

    /// A template that follows another on the same thread (and may get the skeleton the
    /// first one left) sees what it would see after it with new modules: whatever the
    /// first one did to `Object`, `Kernel`, `BasicObject`, the wrapper or `self`.
    #[test]
    fn a_template_sees_the_same_world_with_a_kept_skeleton() {
        let before = [
            "1",
            "X = 1",
            "Array; Hash; String; Comparable; 5.is_a?(Integer)",
            "def helper; 1; end",
            "class Object; def shared; 2; end; end",
            "module Kernel; def kern; 3; end; end",
            "class BasicObject; def basic_m; 4; end; end",
            "@v = 1",
            "instance_variable_set(:@w, 2)",
            "def self.single; 5; end",
            "module M; Z = 1; end; class Object; include M; end",
            "self.inspect",
            "Object.send(:remove_const, :Kernel) rescue nil",
            "Object.const_set(:Object, 1) rescue nil",
            "freeze",
            "class Puppet; end",
            "$g = self",
            "KEEP = self",
            "@@cv = 1 rescue nil",
        ];
        let probes = [
            "Object.constants.inspect",
            "self.inspect",
            "instance_variables.inspect",
            "[respond_to?(:helper), respond_to?(:shared), respond_to?(:kern), respond_to?(:basic_m), respond_to?(:single)]",
            "Object.ancestors.inspect",
            "[defined?(X), defined?(Z), defined?(KEEP), $g.inspect].inspect",
            "frozen?",
            "[Object.new.inspect, self.class.inspect]",
        ];
        for b in before {
            for p in probes {
                forget_skeleton();
                run_template(b);
                let kept = run_template(p);
                forget_skeleton();
                run_template(b);
                forget_skeleton();
                let fresh = run_template(p);
                assert_eq!(kept, fresh, "{b} then {p}");
            }
        }
        // A small template does keep it (so that the test above compares something), and
        // so does one that defines a method (the next template adds the compile's template
        // methods to whichever skeleton it gets).
        forget_skeleton();
        run_template("1");
        assert!(SKELETON.with(|s| s.borrow().0.is_some()));
        run_template("def helper; 1; end");
        assert!(SKELETON.with(|s| s.borrow().0.is_some()));
        run_template("class Object; def shared; 2; end; end");
        assert!(SKELETON.with(|s| s.borrow().0.is_some()));
        forget_skeleton();
    }

    /// Within one compile (the template methods kept), a template after others sees the
    /// same methods whether it starts from the skeleton they left or from a new one.
    #[test]
    fn template_methods_are_the_same_with_a_kept_skeleton() {
        let before = [
            "def helper; 1; end",
            "def helper; 1; end; def other(x); x * 2; end",
            "class Object; def shared; 2; end; end",
            "def helper; 1; end; class Object; def shared; 2; end; end",
            "Object.send(:define_method, :dm) { 3 }",
            "def helper; 1; end; Object.send(:remove_method, :helper) rescue nil",
            "def helper; 1; end; Object.send(:undef_method, :helper) rescue nil",
            "def helper; 1; end; Object.send(:alias_method, :h2, :helper)",
        ];
        let probes = [
            "[(helper rescue 'none'), (other(2) rescue 'none'), (shared rescue 'none')].inspect",
            "[(dm rescue 'none'), (h2 rescue 'none')].inspect",
            "Object.private_instance_methods(false).sort.inspect rescue 'n/a'",
            "def helper; 9; end; helper",
        ];
        let skeleton_only = || {
            SKELETON.with(|s| {
                if let Some(k) = s.borrow_mut().0.take() {
                    k.clear();
                }
            })
        };
        for b in before {
            for p in probes {
                // Two templates before the probe: the second starts from the first's
                // skeleton (or a new one) with the first's methods added.
                forget_skeleton();
                run_template(b);
                run_template("1");
                let kept = run_template(p);
                forget_skeleton();
                run_template(b);
                skeleton_only();
                run_template("1");
                skeleton_only();
                let fresh = run_template(p);
                forget_skeleton();
                assert_eq!(kept, fresh, "{b} then {p}");
            }
        }
    }

    #[test]
    fn symbol_literals_are_their_texts() {
        assert_eq!(
            run_template("[:undef, :\"a#{1}b\", :\"plain\", :\"\", :a == :a, :a == :b]"),
            "[:undef, :a1b, :plain, :\"\", true, false]"
        );
    }

    #[test]
    fn a_result_is_four_words() {
        // Every evaluation step returns an `R`: the large, rare control-flow variants are
        // boxed so that it stays small (it was seven words).
        assert!(
            std::mem::size_of::<R>() <= 32,
            "{}",
            std::mem::size_of::<R>()
        );
    }

    #[test]
    fn leaves_evaluate_as_the_general_path_does() {
        let prog = crate::parser::parse_file(
            "x = 'abc'\n[x, nil, true, false, 7, 2.5, self, y = 1, y]",
            "(t)",
        )
        .expect("parses");
        let mut scope = NullScope::default();
        let mut it = Interp::with(&mut scope, "(t)", false, Sources::empty());
        it.body(&prog.body[..1]).expect("assigns");
        let Kind::Array(items) = &prog.body[1].kind else {
            panic!("an array literal")
        };
        let mut leaves = 0;
        for n in items {
            if !is_leaf(&n.kind) {
                it.eval(n).expect("evaluates");
                continue;
            }
            leaves += 1;
            let (steps, depth) = (it.steps(), it.depth);
            let a = it.eval_leaf(n).expect("leaf");
            let by_leaf = (it.steps() - steps, it.depth);
            let steps = it.steps();
            let b = it.eval_general(n).expect("general");
            assert_eq!((it.steps() - steps, it.depth), by_leaf);
            assert_eq!(it.depth, depth);
            assert!(value::equal(&a, &b), "{a:?} vs {b:?}");
            // At the depth bound and out of steps, the same errors.
            it.depth = MAX_DEPTH;
            let (x, y) = (it.eval_leaf(n), it.eval_general(n));
            assert!(
                matches!((x, y), (Err(Ctrl::Raise(a)), Err(Ctrl::Raise(b))) if a.class == "SystemStackError" && b.class == a.class)
            );
            it.depth = depth;
            let limit = it.max_steps;
            it.max_steps = it.steps();
            let (x, y) = (it.eval_leaf(n), it.eval_general(n));
            assert!(matches!(
                (x, y),
                (Err(Ctrl::Unsupported(_)), Err(Ctrl::Unsupported(_)))
            ));
            it.max_steps = limit;
        }
        assert_eq!(leaves, 8);
    }
}
