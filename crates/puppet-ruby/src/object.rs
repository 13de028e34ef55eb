//! The runtime object model: modules and classes ([`Module`]), instances of user classes
//! ([`Object`]), methods ([`Method`]), procs and lambdas ([`Proc`]), and the execution
//! context a method or block runs in ([`Ctx`]: `self`, the lexical module nesting, local
//! variables and the method frame).
//!
//! All of it lives inside one interpreter (`Rc`/`RefCell`, not `Send`); what is shared
//! between interpreters is the parsed tree only. Modules, objects and procs form reference
//! cycles (a class's constants hold the class, a stored block captures its class body);
//! the interpreter breaks them when it is dropped ([`Module::clear`], [`Object::clear`],
//! [`Proc::clear`]), so nothing leaks across runs. This module does not evaluate anything.

use crate::ast;
use crate::value::{Builtin, RValue};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

/// An insertion-ordered map with a fast (non-keyed) hash: the interpreter's tables of
/// constants and variables and Ruby hashes. The order is insertion order whatever the
/// hasher, so the hasher changes no result.
pub type FxIndexMap<K, V> = indexmap::IndexMap<K, V, FxBuildHasher>;

/// A native method: receives the interpreter, `self`, the arguments (keyword arguments as a
/// trailing hash) and the block.
pub type NativeFn = for<'a, 'b> fn(
    &'b mut crate::interp::Interp<'a>,
    &RValue,
    Vec<RValue>,
    Option<&Blk>,
    crate::Pos,
) -> crate::interp::R;

/// A method in a module's method table.
#[derive(Clone)]
pub enum Method {
    /// A `def`, with the lexical nesting it was defined in (for constants).
    Ruby(Arc<ast::Def>, Rc<CRef>),
    /// A method implemented in Rust.
    Native(NativeFn),
    /// `attr_reader` (the instance variable's name, without `@`).
    Reader(String),
    /// `attr_writer`.
    Writer(String),
    /// `define_method` with a block.
    Proc(Blk),
    /// `undef_method`: lookup stops here.
    Undefined,
}

impl std::fmt::Debug for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::Ruby(d, _) => write!(f, "def {}", d.name),
            Method::Native(_) => write!(f, "native"),
            Method::Reader(n) => write!(f, "attr_reader {n}"),
            Method::Writer(n) => write!(f, "attr_writer {n}"),
            Method::Proc(_) => write!(f, "define_method"),
            Method::Undefined => write!(f, "undefined"),
        }
    }
}

/// A method table entry: the method and whether it is private.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The method.
    pub method: Method,
    /// `private` (callable without an explicit receiver only).
    pub private: bool,
}

/// A module or class (built-in or user-defined), or a singleton class.
pub struct Module {
    /// The full name (`Puppet::Parser::Functions`); empty for an anonymous module.
    pub name: RefCell<String>,
    /// A class (else a module).
    pub is_class: bool,
    /// The superclass (classes only; `None` for `BasicObject` and modules).
    pub superclass: RefCell<Option<Rc<Module>>>,
    /// Included modules, in inclusion order.
    pub includes: RefCell<Vec<Rc<Module>>>,
    /// Instance methods.
    pub methods: RefCell<FxHashMap<String, Entry>>,
    /// Constants, in definition order (changed through [`Module::consts_mut`] only).
    pub consts: RefCell<FxIndexMap<String, RValue>>,
    /// The module's own instance variables (`@doc` in a class body).
    pub ivars: RefCell<FxIndexMap<String, RValue>>,
    /// Class variables (`@@x`).
    pub cvars: RefCell<FxIndexMap<String, RValue>>,
    /// The singleton class (class methods), created on first use.
    pub meta: RefCell<Option<Rc<Module>>>,
    /// For a singleton class: the module it belongs to.
    pub attached: RefCell<Option<std::rc::Weak<Module>>>,
    /// The built-in class whose native methods instances of this class get.
    pub builtin: Option<Builtin>,
    /// Set by a body's `module_function` (no arguments): later `def`s also become
    /// singleton methods.
    pub module_function: Cell<bool>,
    /// Set by a body's `private` (no arguments): later `def`s are private.
    pub default_private: Cell<bool>,
    /// `freeze`.
    pub frozen: Cell<bool>,
    /// Data a native extension keeps on the module (the type recorder's records).
    pub extra: RefCell<Option<Rc<dyn Any>>>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}",
            if self.is_class { "class" } else { "module" },
            self.name.borrow()
        )
    }
}

impl Module {
    /// A new, empty module or class.
    pub fn new(
        name: &str,
        is_class: bool,
        superclass: Option<Rc<Module>>,
        builtin: Option<Builtin>,
    ) -> Module {
        let builtin = builtin.or_else(|| superclass.as_ref().and_then(|s| s.builtin));
        Module {
            name: RefCell::new(name.to_string()),
            is_class,
            superclass: RefCell::new(superclass),
            includes: RefCell::new(Vec::new()),
            methods: RefCell::new(FxHashMap::default()),
            consts: RefCell::new(FxIndexMap::default()),
            ivars: RefCell::new(FxIndexMap::default()),
            cvars: RefCell::new(FxIndexMap::default()),
            meta: RefCell::new(None),
            attached: RefCell::new(None),
            builtin,
            module_function: Cell::new(false),
            default_private: Cell::new(false),
            frozen: Cell::new(false),
            extra: RefCell::new(None),
        }
    }

    /// Whether [`Module::name`] is `name` (compared where it is when the module has one).
    pub fn name_is(&self, name: &str) -> bool {
        let n = self.name.borrow();
        if n.is_empty() {
            drop(n);
            return self.name() == name;
        }
        *n == name
    }

    /// The name (`#<Class:0x...>`-free: anonymous modules print as `#<Class>`).
    pub fn name(&self) -> String {
        let n = self.name.borrow();
        if n.is_empty() {
            if let Some(a) = self.attached.borrow().as_ref().and_then(|w| w.upgrade()) {
                return format!("#<Class:{}>", a.name());
            }
            return if self.is_class {
                "#<Class>".into()
            } else {
                "#<Module>".into()
            };
        }
        n.clone()
    }

    /// The superclass, if any.
    pub fn superclass(&self) -> Option<Rc<Module>> {
        self.superclass.borrow().clone()
    }

    /// The ancestors in method lookup order: the module, its included modules (last
    /// included first, each with its own), then the superclass's ancestors.
    /// The list is `walk_ancestors`'s walk with repeats left out.
    pub fn ancestors(self: &Rc<Module>) -> Vec<Rc<Module>> {
        let mut out: Vec<Rc<Module>> = Vec::new();
        self.walk_ancestors(&mut |m| {
            if !out.iter().any(|x| Rc::ptr_eq(x, m)) {
                out.push(m.clone());
            }
            None::<()>
        });
        out
    }

    /// True when `other` is this module or one of its ancestors.
    pub fn inherits(self: &Rc<Module>, other: &Rc<Module>) -> bool {
        if Rc::ptr_eq(self, other) {
            return true;
        }
        // The walk of `walk_ancestors` (the same order and bounds), written out: it is the
        // heart of every `is_a?`, and needs no callback per module.
        fn in_includes(m: &Rc<Module>, depth: usize, other: &Rc<Module>) -> bool {
            if depth > 32 {
                return false;
            }
            if Rc::ptr_eq(m, other) {
                return true;
            }
            m.includes
                .borrow()
                .iter()
                .rev()
                .any(|inc| in_includes(inc, depth + 1, other))
        }
        let mut cur = Some(self.clone());
        let mut guard = 0;
        while let Some(m) = cur {
            guard += 1;
            if guard > 256 {
                break;
            }
            if Rc::ptr_eq(&m, other) {
                return true;
            }
            if m.includes
                .borrow()
                .iter()
                .rev()
                .any(|inc| in_includes(inc, 0, other))
            {
                return true;
            }
            cur = m.superclass();
        }
        false
    }

    /// Looks a method up along the ancestors: the entry and the module that holds it.
    ///
    /// It walks the modules in the order [`Module::ancestors`] lists them without building
    /// the list (a call looks methods up once or twice): a module the walk meets again was
    /// met before, so the first module that has the method is the same.
    pub fn find_method(self: &Rc<Module>, name: &str) -> Option<(Entry, Rc<Module>)> {
        let (e, m) = self.walk_ancestors(&mut |m| {
            let methods = m.methods.borrow();
            if methods.is_empty() {
                return None;
            }
            methods.get(name).map(|e| (e.clone(), m.clone()))
        })?;
        if matches!(e.method, Method::Undefined) {
            return None;
        }
        Some((e, m))
    }

    /// The first `Some` of `f` over the modules in [`Module::ancestors`]'s walk (with the
    /// same bounds), repeats included.
    pub(crate) fn walk_ancestors<T>(
        self: &Rc<Module>,
        f: &mut dyn FnMut(&Rc<Module>) -> Option<T>,
    ) -> Option<T> {
        fn with_includes<T>(
            m: &Rc<Module>,
            depth: usize,
            f: &mut dyn FnMut(&Rc<Module>) -> Option<T>,
        ) -> Option<T> {
            if depth > 32 {
                return None;
            }
            if let Some(t) = f(m) {
                return Some(t);
            }
            for inc in m.includes.borrow().iter().rev() {
                if let Some(t) = with_includes(inc, depth + 1, f) {
                    return Some(t);
                }
            }
            None
        }
        let mut cur = Some(self.clone());
        let mut guard = 0;
        while let Some(m) = cur {
            guard += 1;
            if guard > 256 {
                break;
            }
            if let Some(t) = f(&m) {
                return Some(t);
            }
            for inc in m.includes.borrow().iter().rev() {
                if let Some(t) = with_includes(inc, 0, f) {
                    return Some(t);
                }
            }
            cur = m.superclass();
        }
        None
    }

    /// The method after `owner` along the ancestors (for `super`).
    pub fn find_super(
        self: &Rc<Module>,
        owner: &Rc<Module>,
        name: &str,
    ) -> Option<(Entry, Rc<Module>)> {
        let anc = self.ancestors();
        let start = anc.iter().position(|m| Rc::ptr_eq(m, owner))? + 1;
        for m in &anc[start..] {
            if let Some(e) = m.methods.borrow().get(name) {
                if matches!(e.method, Method::Undefined) {
                    return None;
                }
                return Some((e.clone(), m.clone()));
            }
        }
        None
    }

    /// True when some ancestor is the built-in class `b`.
    pub fn is_builtin(self: &Rc<Module>, b: Builtin) -> bool {
        self.ancestors()
            .iter()
            .any(|m| m.builtin == Some(b) && m.name_is(b.name()))
    }

    /// The constants, to change them: counts the change (see `const_epoch`). Every change
    /// of a module's constants goes through here.
    pub fn consts_mut(&self) -> std::cell::RefMut<'_, FxIndexMap<String, RValue>> {
        CONST_EPOCH.with(|e| e.set(e.get().wrapping_add(1)));
        self.consts.borrow_mut()
    }

    /// True when the module has nothing but what [`Module::new`] gave it (named `name`,
    /// with `superclass`), the constants `consts` first (in this order, the same objects:
    /// later ones are not looked at) and the included modules `includes`.
    pub(crate) fn is_as_made(
        &self,
        name: &str,
        superclass: Option<&Rc<Module>>,
        includes: &[&Rc<Module>],
        consts: &[(&str, &Rc<Module>)],
    ) -> bool {
        let same = |a: Option<&Rc<Module>>, b: Option<&Rc<Module>>| match (a, b) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        let own_consts = self.consts.borrow();
        *self.name.borrow() == name
            && same(self.superclass.borrow().as_ref(), superclass)
            && self.includes.borrow().len() == includes.len()
            && self
                .includes
                .borrow()
                .iter()
                .zip(includes)
                .all(|(a, b)| Rc::ptr_eq(a, b))
            && own_consts.len() >= consts.len()
            && own_consts.iter().zip(consts).all(|((k, v), (name, m))| {
                k == name && matches!(v, RValue::Module(x) if Rc::ptr_eq(x, m))
            })
            && self.methods.borrow().is_empty()
            && self.ivars.borrow().is_empty()
            && self.cvars.borrow().is_empty()
            && self.meta.borrow().is_none()
            && self.attached.borrow().is_none()
            && !self.module_function.get()
            && !self.default_private.get()
            && !self.frozen.get()
            && self.extra.borrow().is_none()
    }

    /// Drops everything the module refers to (breaks reference cycles).
    pub fn clear(&self) {
        // Tables are dropped rather than emptied (their memory goes now, and the module's
        // own drop has nothing left to free); empty ones are left as they are.
        fn drop_table<T: Default>(t: &RefCell<T>, empty: impl Fn(&T) -> bool) {
            if !empty(&t.borrow()) {
                let taken = std::mem::take(&mut *t.borrow_mut());
                drop(taken);
            }
        }
        drop_table(&self.methods, |m| m.is_empty());
        if !self.consts.borrow().is_empty() {
            let taken = std::mem::take(&mut *self.consts_mut());
            drop(taken);
        }
        drop_table(&self.ivars, |m| m.is_empty());
        drop_table(&self.cvars, |m| m.is_empty());
        drop_table(&self.includes, |v| v.is_empty());
        *self.meta.borrow_mut() = None;
        *self.superclass.borrow_mut() = None;
        *self.extra.borrow_mut() = None;
    }
}

thread_local! {
    /// Counts the changes of constants on this thread (any module, any interpreter).
    static CONST_EPOCH: Cell<u64> = const { Cell::new(0) };
}

/// A number that changes whenever a constant is set or removed anywhere on this thread: a
/// constant lookup cached with it is still valid while it stays the same.
pub(crate) fn const_epoch() -> u64 {
    CONST_EPOCH.with(Cell::get)
}

/// Native data an object carries.
#[derive(Default)]
pub enum ObjData {
    /// A plain object.
    #[default]
    None,
    /// An exception: its message (`None`: the class name).
    Exception(Option<RValue>),
    /// Data of a native extension.
    Native(Rc<dyn Any>),
}

impl std::fmt::Debug for ObjData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjData::None => write!(f, "None"),
            ObjData::Exception(m) => write!(f, "Exception({m:?})"),
            ObjData::Native(_) => write!(f, "Native"),
        }
    }
}

/// An instance of a user-defined (or library) class.
#[derive(Debug)]
pub struct Object {
    /// Its class.
    pub class: Rc<Module>,
    /// Instance variables, in assignment order.
    pub ivars: RefCell<FxIndexMap<String, RValue>>,
    /// A singleton class (`extend`, `def obj.x`), created on first use.
    pub singleton: RefCell<Option<Rc<Module>>>,
    /// `freeze`.
    pub frozen: Cell<bool>,
    /// Native data.
    pub data: RefCell<ObjData>,
    /// Its address in `inspect` (0 until first printed).
    addr: Cell<u64>,
}

impl Drop for Object {
    /// Instance variables may nest objects (a linked list built in a loop): they are
    /// dropped without deep recursion ([`crate::deep_drop`]).
    fn drop(&mut self) {
        let ivars = self.ivars.get_mut();
        if !ivars.is_empty() {
            crate::deep_drop::release(crate::deep_drop::Deferred::Ivars(std::mem::take(ivars)));
        }
    }
}

impl Object {
    /// A new object of `class`.
    pub fn new(class: Rc<Module>) -> Object {
        Object {
            class,
            ivars: RefCell::new(FxIndexMap::default()),
            singleton: RefCell::new(None),
            frozen: Cell::new(false),
            data: RefCell::new(ObjData::None),
            addr: Cell::new(0),
        }
    }

    /// The address `inspect` prints (`#<Foo:0x00007f...>`), given on first use.
    pub fn address(&self) -> u64 {
        if self.addr.get() == 0 {
            self.addr.set(crate::value::next_address());
        }
        self.addr.get()
    }

    /// The class method lookup starts at: the singleton class, else the class.
    pub fn lookup_class(&self) -> Rc<Module> {
        self.singleton
            .borrow()
            .clone()
            .unwrap_or_else(|| self.class.clone())
    }

    /// True when the object is as [`Object::new`] made it (no instance variables, no
    /// singleton class, not frozen, no native data); its address is forgotten.
    pub(crate) fn reset_if_new(&self) -> bool {
        let new = self.ivars.borrow().is_empty()
            && self.singleton.borrow().is_none()
            && !self.frozen.get()
            && matches!(*self.data.borrow(), ObjData::None);
        if new {
            self.addr.set(0);
        }
        new
    }

    /// Drops what the object refers to (breaks reference cycles).
    pub fn clear(&self) {
        if !self.ivars.borrow().is_empty() {
            let taken = std::mem::take(&mut *self.ivars.borrow_mut());
            drop(taken);
        }
        *self.singleton.borrow_mut() = None;
        *self.data.borrow_mut() = ObjData::None;
    }
}

/// What a proc runs.
#[derive(Debug, Clone)]
pub enum ProcBody {
    /// A block or lambda literal.
    Block(Arc<ast::Block>),
    /// `&:sym`: calls the method on the first argument.
    Symbol(String),
    /// `method(:x)`: calls the method on the receiver.
    Method(RValue, String),
    /// The Puppet lambda given to a function call.
    Foreign,
    /// A native closure target: the named built-in (`lambda`'s own argument, ...).
    Native(NativeFn),
    /// Collects what it is called with (how Enumerable's methods read a user `each`).
    Collect(Rc<RefCell<Vec<RValue>>>),
    /// `enum.with_index(offset) { |x, i| }`: calls the block with the item and a counter.
    WithIndex(Blk, Cell<i64>),
    /// `enum.with_object(memo) { |x, memo| }`: calls the block with the item and the memo.
    WithObject(Blk, RValue),
    /// `proc.curry`: the proc, how many arguments it takes, those given so far.
    Curry(Blk, usize, Vec<RValue>),
}

/// A proc, lambda, block or method object.
#[derive(Debug)]
pub struct Proc {
    /// What it runs.
    pub body: ProcBody,
    /// Lambda semantics (strict arity, `return` returns from it).
    pub lambda: bool,
    /// The captured context (`None` once the interpreter is gone).
    pub ctx: RefCell<Option<Ctx>>,
}

impl Proc {
    /// The number of positional parameters of a block (what `each` on a hash looks at to
    /// pass key and value separately).
    pub fn param_count(&self) -> usize {
        match &self.body {
            ProcBody::Block(b) => b.params.positional() + usize::from(b.params.rest.is_some()),
            ProcBody::Symbol(_) => 1,
            _ => 1,
        }
    }

    /// Ruby's `arity`.
    pub fn arity(&self) -> i64 {
        match &self.body {
            ProcBody::Block(b) => {
                let a = b.params.arity();
                if !self.lambda && !b.params.optional.is_empty() && b.params.rest.is_none() {
                    // A proc with optional parameters reports -(required + 1).
                    -((b.params.required.len() + b.params.post.len()) as i64) - 1
                } else {
                    a
                }
            }
            ProcBody::Symbol(_) => -2,
            _ => -1,
        }
    }

    /// Drops the captured context (breaks reference cycles).
    pub fn clear(&self) {
        *self.ctx.borrow_mut() = None;
    }
}

/// A block or proc value.
pub type Blk = Rc<Proc>;

/// The lexical module nesting (innermost first): where constants and class variables are
/// looked up.
#[derive(Debug)]
pub struct CRef {
    /// The module.
    pub module: Rc<Module>,
    /// The enclosing one.
    pub parent: Option<Rc<CRef>>,
}

/// A scope of local variables (a method body, a block body chained to its outer scope).
#[derive(Debug, Default)]
pub struct Env {
    /// The variables (few per scope: a vector is faster than a map). Names are
    /// `SmolStr`s: a name of up to 23 bytes (every usual one) is stored without an
    /// allocation, so binding a block's parameters allocates nothing per name.
    pub vars: RefCell<Vec<(smol_str::SmolStr, RValue)>>,
    /// The enclosing scope (blocks only).
    pub parent: Option<Rc<Env>>,
}

/// Whether a variable's name is `name`: `==` on the texts, compared byte by byte in place
/// (names are short, and most differ in length or in the first byte), without the call to
/// `memcmp` that `==` makes.
#[inline]
fn same_name(n: &smol_str::SmolStr, name: &str) -> bool {
    let n = n.as_bytes();
    let name = name.as_bytes();
    if n.len() != name.len() {
        return false;
    }
    let mut i = 0;
    while i < n.len() {
        if n[i] != name[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Env {
    /// A new scope inside `parent`.
    pub fn child(parent: &Rc<Env>) -> Rc<Env> {
        Rc::new(Env {
            vars: RefCell::new(Vec::new()),
            parent: Some(parent.clone()),
        })
    }

    /// A variable's value, looking outwards.
    pub fn get(&self, name: &str) -> Option<RValue> {
        let mut cur: Option<&Env> = Some(self);
        while let Some(e) = cur {
            if let Some((_, v)) = e.vars.borrow().iter().find(|(n, _)| same_name(n, name)) {
                return Some(v.clone());
            }
            cur = e.parent.as_deref();
        }
        None
    }

    /// Assigns a variable where it is defined, else in this scope.
    pub fn set(&self, name: &str, v: RValue) {
        let mut cur: Option<&Env> = Some(self);
        while let Some(e) = cur {
            if let Some(slot) = e
                .vars
                .borrow_mut()
                .iter_mut()
                .find(|(n, _)| same_name(n, name))
            {
                slot.1 = v;
                return;
            }
            cur = e.parent.as_deref();
        }
        self.vars
            .borrow_mut()
            .push((smol_str::SmolStr::new(name), v));
    }

    /// Defines a variable in this scope (block parameters shadow outer variables).
    pub fn define(&self, name: &str, v: RValue) {
        let mut vars = self.vars.borrow_mut();
        if let Some(slot) = vars.iter_mut().find(|(n, _)| same_name(n, name)) {
            slot.1 = v;
        } else {
            vars.push((smol_str::SmolStr::new(name), v));
        }
    }
}

/// A method invocation: what `yield`, `super`, `__method__` and `return` refer to.
#[derive(Debug)]
pub struct Frame {
    /// The method's name (`None` at top level and in class bodies).
    pub name: Option<String>,
    /// The module whose method runs (for `super`).
    pub owner: Option<Rc<Module>>,
    /// The arguments as given (for `super` without arguments).
    pub args: Vec<RValue>,
    /// The block given to the method.
    pub block: Option<Blk>,
    /// The file the code comes from.
    pub file: Arc<str>,
    /// String literals are frozen here.
    pub frozen_literals: bool,
    /// The method's definition (for `super` without arguments).
    pub def: Option<Arc<ast::Def>>,
    /// The frame's last match (`$~`): each method call starts with none, and the blocks
    /// made in a method share its match, as in Ruby.
    pub last_match: std::cell::RefCell<Option<Rc<crate::value::Captures>>>,
}

/// The context code runs in.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// `self`.
    pub self_v: RValue,
    /// The lexical module nesting.
    pub cref: Rc<CRef>,
    /// Where `def` defines methods.
    pub def_target: Rc<Module>,
    /// Local variables.
    pub env: Rc<Env>,
    /// The method frame.
    pub frame: Rc<Frame>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inherits_agrees_with_the_ancestor_walk() {
        let base = Rc::new(Module::new("Base", true, None, None));
        let kernel = Rc::new(Module::new("K", false, None, None));
        let inner = Rc::new(Module::new("I", false, None, None));
        let outer = Rc::new(Module::new("O", false, None, None));
        let other = Rc::new(Module::new("X", false, None, None));
        let mid = Rc::new(Module::new("Mid", true, Some(base.clone()), None));
        let leaf = Rc::new(Module::new("Leaf", true, Some(mid.clone()), None));
        base.includes.borrow_mut().push(kernel.clone());
        outer.includes.borrow_mut().push(inner.clone());
        mid.includes.borrow_mut().push(outer.clone());
        // A chain of includes deeper than the walk's bound.
        let mut deep = Rc::new(Module::new("D0", false, None, None));
        let bottom = deep.clone();
        for i in 1..40 {
            let m = Rc::new(Module::new(&format!("D{i}"), false, None, None));
            m.includes.borrow_mut().push(deep);
            deep = m;
        }
        leaf.includes.borrow_mut().push(deep.clone());
        let all = [
            &base, &kernel, &inner, &outer, &other, &mid, &leaf, &deep, &bottom,
        ];
        for a in all {
            for b in all {
                let walked = Rc::ptr_eq(a, b)
                    || a.walk_ancestors(&mut |m| Rc::ptr_eq(m, b).then_some(()))
                        .is_some();
                assert_eq!(a.inherits(b), walked, "{} < {}", a.name(), b.name());
            }
        }
        assert!(leaf.inherits(&inner) && leaf.inherits(&kernel) && !leaf.inherits(&bottom));
    }

    #[test]
    fn variable_names_compare_as_their_texts_do() {
        let names = [
            "",
            "a",
            "b",
            "k",
            "v",
            "ki",
            "vi",
            "vii",
            "key",
            "kez",
            "long_variable_name",
            "a_name_longer_than_twenty_three_bytes",
            "a_name_longer_than_twenty_three_bytez",
            "é",
            "e\u{301}",
        ];
        for a in names {
            let s = smol_str::SmolStr::new(a);
            for b in names {
                assert_eq!(same_name(&s, b), a == b, "{a:?} {b:?}");
            }
        }
        // And through a scope chain: the innermost definition wins, assignment goes where
        // the name is defined.
        let outer = Rc::new(Env::default());
        outer.define("k", RValue::Int(1));
        outer.define("key", RValue::Int(2));
        let inner = Env::child(&outer);
        inner.define("ke", RValue::Int(3));
        inner.set("key", RValue::Int(4));
        assert!(matches!(inner.get("key"), Some(RValue::Int(4))));
        assert!(matches!(outer.get("key"), Some(RValue::Int(4))));
        assert!(matches!(inner.get("ke"), Some(RValue::Int(3))));
        assert!(outer.get("ke").is_none());
        assert!(inner.get("kez").is_none());
    }

    fn def(m: &Rc<Module>, name: &str, method: Method) {
        m.methods.borrow_mut().insert(
            name.to_string(),
            Entry {
                method,
                private: false,
            },
        );
    }

    /// What `find_method` did before it walked without building the list.
    fn by_ancestors(m: &Rc<Module>, name: &str) -> Option<String> {
        for a in m.ancestors() {
            if let Some(e) = a.methods.borrow().get(name) {
                if matches!(e.method, Method::Undefined) {
                    return None;
                }
                return Some(a.name());
            }
        }
        None
    }

    #[test]
    fn lookups_find_what_the_ancestors_list_finds() {
        // Object < Base < C, with modules included twice and nested (a diamond), an
        // undefined method and a method defined at several levels.
        let object = Rc::new(Module::new("Object", true, None, None));
        let base = Rc::new(Module::new("Base", true, Some(object.clone()), None));
        let c = Rc::new(Module::new("C", true, Some(base.clone()), None));
        let shared = Rc::new(Module::new("Shared", false, None, None));
        let m1 = Rc::new(Module::new("M1", false, None, None));
        let m2 = Rc::new(Module::new("M2", false, None, None));
        m1.includes.borrow_mut().push(shared.clone());
        m2.includes.borrow_mut().push(shared.clone());
        c.includes.borrow_mut().extend([m1.clone(), m2.clone()]);
        base.includes.borrow_mut().push(shared.clone());
        object.includes.borrow_mut().push(m1.clone());
        def(&shared, "s", Method::Reader("s".into()));
        def(&m1, "x", Method::Reader("x".into()));
        def(&m2, "x", Method::Reader("x".into()));
        def(&base, "b", Method::Reader("b".into()));
        def(&object, "b", Method::Reader("b".into()));
        def(&object, "o", Method::Reader("o".into()));
        def(&m2, "gone", Method::Undefined);
        def(&object, "gone", Method::Reader("gone".into()));
        // The order the walk (and so the list) follows: a module, its includes last first
        // (each with its own), then the superclass; a module met again is listed once.
        let names = |m: &Rc<Module>| m.ancestors().iter().map(|a| a.name()).collect::<Vec<_>>();
        assert_eq!(names(&c), ["C", "M2", "Shared", "M1", "Base", "Object"]);
        assert_eq!(names(&m1), ["M1", "Shared"]);
        for start in [&c, &base, &object, &m1, &m2, &shared] {
            for other in [&c, &base, &object, &m1, &m2, &shared] {
                assert_eq!(
                    start.inherits(other),
                    Rc::ptr_eq(start, other)
                        || start.ancestors().iter().any(|a| Rc::ptr_eq(a, other)),
                    "{} < {}",
                    start.name(),
                    other.name()
                );
            }
            for name in ["s", "x", "b", "o", "gone", "missing"] {
                assert_eq!(
                    start.find_method(name).map(|(_, m)| m.name()),
                    by_ancestors(start, name),
                    "{} {name}",
                    start.name()
                );
            }
        }
    }
}
