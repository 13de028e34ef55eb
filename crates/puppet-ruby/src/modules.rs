//! Modules and constants at run time: the class of a value, singleton classes, constant
//! lookup (lexical nesting, then ancestors, then top level, then the built-in table),
//! `class`/`module`/`class << x` bodies, exception objects, and `require`.

use crate::ast::{Kind, ModuleBody, Node};
use crate::interp::{raise, unsupported, Ctrl, Exc, Interp, R};
use crate::object::{CRef, Ctx, Env, Frame, Module, ObjData, Object};
use crate::value::{Builtin, RValue};
use crate::Pos;
use std::rc::Rc;
use std::sync::Arc;

impl<'s> Interp<'s> {
    /// Creates a module or class (tracked, so that the interpreter can break its cycles).
    pub fn new_module(
        &mut self,
        name: &str,
        is_class: bool,
        superclass: Option<Rc<Module>>,
    ) -> Rc<Module> {
        let m = Rc::new(Module::new(name, is_class, superclass, None));
        self.modules.push(m.clone());
        m
    }

    /// The class of a value.
    pub fn class_of(&mut self, v: &RValue) -> Rc<Module> {
        let path = match v {
            RValue::Object(o) => return o.class.clone(),
            RValue::Module(m) => {
                if m.is_class {
                    "Class"
                } else {
                    "Module"
                }
            }
            RValue::Scope => "Puppet::Parser::Scope",
            RValue::Proc(p) => {
                if matches!(p.body, crate::object::ProcBody::Method(..)) {
                    "Method"
                } else {
                    "Proc"
                }
            }
            RValue::Puppet(p) => {
                let path = puppet_types::ruby::class_name(p);
                return self
                    .module_by_path(&path)
                    .unwrap_or_else(|| self.object.clone());
            }
            other => {
                // `builtin_class(b.name())` without finding the built-in again by its name
                // (`Builtin::by_name(b.name())` is `b` for every class a value has).
                let b = other.class();
                if let Some(m) = self.builtins.get(&b) {
                    if m.name_is(b.name()) {
                        return m.clone();
                    }
                }
                b.name()
            }
        };
        self.builtin_class(path)
    }

    /// A built-in class by name (created on first use).
    pub(crate) fn builtin_class(&mut self, path: &str) -> Rc<Module> {
        if let Some(b) = Builtin::by_name(path) {
            if let Some(m) = self.builtins.get(&b) {
                if m.name_is(path) {
                    return m.clone();
                }
            }
        }
        let m = self
            .module_by_path(path)
            .unwrap_or_else(|| self.object.clone());
        if let Some(b) = Builtin::by_name(path) {
            self.builtins.insert(b, m.clone());
        }
        m
    }

    /// The singleton class of a module (created on first use).
    pub fn meta(&mut self, m: &Rc<Module>) -> Rc<Module> {
        if let Some(x) = m.meta.borrow().as_ref() {
            return x.clone();
        }
        let sup = match m.superclass() {
            Some(s) if m.is_class => Some(self.meta(&s)),
            _ => None,
        };
        let meta = Rc::new(Module::new("", true, sup, None));
        *meta.attached.borrow_mut() = Some(Rc::downgrade(m));
        self.modules.push(meta.clone());
        *m.meta.borrow_mut() = Some(meta.clone());
        meta
    }

    /// The singleton class of an object (`extend`, `def obj.x`).
    pub(crate) fn singleton_of_object(&mut self, o: &Rc<Object>) -> Rc<Module> {
        if let Some(s) = o.singleton.borrow().as_ref() {
            return s.clone();
        }
        let s = Rc::new(Module::new("", true, Some(o.class.clone()), None));
        self.modules.push(s.clone());
        *o.singleton.borrow_mut() = Some(s.clone());
        s
    }

    /// The module of a full constant path (`Puppet::Parser::Functions`), autoloading built-ins.
    pub fn module_by_path(&mut self, path: &str) -> Option<Rc<Module>> {
        self.module_by_parts(puppet_types::params::path_segments(
            path.trim_start_matches("::"),
        ))
    }

    /// A module or class by the parts of its full name (`["Puppet", "Parser", "Scope"]`),
    /// as [`Interp::module_by_path`] finds it.
    pub(crate) fn module_by_parts<'p>(
        &mut self,
        parts: impl IntoIterator<Item = &'p str>,
    ) -> Option<Rc<Module>> {
        let mut cur = self.object.clone();
        for part in parts {
            let v = match self.const_in(&cur, part, true) {
                Ok(Some(v)) => v,
                _ => return None,
            };
            match v {
                RValue::Module(m) => cur = m,
                _ => return None,
            }
        }
        Some(cur)
    }

    fn full_name(&self, container: &Rc<Module>, name: &str) -> String {
        if Rc::ptr_eq(container, &self.object) {
            name.to_string()
        } else {
            format!("{}::{name}", container.name())
        }
    }

    /// A constant of `m` (its own, then its ancestors' when `inherit`), else a built-in of
    /// that full name.
    pub(crate) fn const_in(
        &mut self,
        m: &Rc<Module>,
        name: &str,
        inherit: bool,
    ) -> Result<Option<RValue>, Ctrl> {
        if let Some(v) = m.consts.borrow().get(name) {
            return Ok(Some(v.clone()));
        }
        let full = self.full_name(m, name);
        if let Some(v) = self.autoload(&full)? {
            return Ok(Some(v));
        }
        if inherit {
            for a in m.ancestors().iter().skip(1) {
                if Rc::ptr_eq(a, &self.object) {
                    continue;
                }
                if let Some(v) = a.consts.borrow().get(name) {
                    return Ok(Some(v.clone()));
                }
            }
        }
        Ok(None)
    }

    /// Defines a constant (naming an anonymous module after it, as Ruby does).
    pub fn set_const(&mut self, m: &Rc<Module>, name: &str, v: RValue) {
        if let RValue::Module(x) = &v {
            if x.name.borrow().is_empty() && x.attached.borrow().is_none() {
                *x.name.borrow_mut() = self.full_name(m, name);
            }
        }
        m.consts_mut().insert(name.to_string(), v);
    }

    /// Creates a built-in constant on first use (core classes, exceptions, library modules,
    /// Puppet's classes, prelude classes).
    pub(crate) fn autoload(&mut self, path: &str) -> Result<Option<RValue>, Ctrl> {
        if matches!(path, "Fixnum" | "Bignum") {
            // Ruby 3.1 keeps them as (deprecated) names of Integer.
            return Ok(self.module_by_path("Integer").map(RValue::Module));
        }
        if let Some(v) = crate::kernel::value_constant(path) {
            self.object.consts_mut().insert(path.to_string(), v.clone());
            return Ok(Some(v));
        }
        if let Some(k) = crate::classes::known(path) {
            let (parent, name) = match rsplit_path(path) {
                Some((p, n)) => match self.module_by_path(p) {
                    Some(pm) => (pm, n),
                    None => return Ok(None),
                },
                None => (self.object.clone(), path),
            };
            if let Some(v) = parent.consts.borrow().get(name) {
                return Ok(Some(v.clone()));
            }
            let sup = if k.class {
                match k.superclass {
                    Some(s) => self.module_by_path(s),
                    None => None,
                }
            } else {
                None
            };
            let m = Rc::new(Module::new(path, k.class, sup, k.builtin));
            self.modules.push(m.clone());
            for inc in k.includes {
                if let Some(i) = self.module_by_path(inc) {
                    m.includes.borrow_mut().push(i);
                }
            }
            parent
                .consts_mut()
                .insert(name.to_string(), RValue::Module(m.clone()));
            crate::kernel::init_builtin_module(self, path, &m);
            return Ok(Some(RValue::Module(m)));
        }
        if let Some(file) = crate::classes::prelude_for(path) {
            self.load_prelude(file)?;
            let (parent, name) = match rsplit_path(path) {
                Some((p, n)) => match self.module_by_path(p) {
                    Some(pm) => (pm, n),
                    None => return Ok(None),
                },
                None => (self.object.clone(), path),
            };
            let v = parent.consts.borrow().get(name).cloned();
            return Ok(v);
        }
        Ok(None)
    }

    /// Looks a constant up from the current lexical scope.
    pub fn lookup_const(&mut self, name: &str, pos: Pos) -> R {
        // At top level (a template's code and its blocks) the lookup below starts with the
        // top module's own constants: when it has the name, that is the answer.
        if self.ctx.cref.parent.is_none() {
            if let Some(v) = self.ctx.cref.module.consts.borrow().get(name) {
                return Ok(v.clone());
            }
        }
        self.lookup_const_general(name, pos)
    }

    /// [`Interp::lookup_const`] without its top-level shortcut.
    fn lookup_const_general(&mut self, name: &str, pos: Pos) -> R {
        let mut cref: Option<Rc<CRef>> = Some(self.ctx.cref.clone());
        while let Some(c) = cref {
            if c.parent.is_none() {
                break;
            }
            if let Some(v) = c.module.consts.borrow().get(name) {
                return Ok(v.clone());
            }
            let full = self.full_name(&c.module, name);
            if let Some(v) = self.autoload(&full)? {
                return Ok(v);
            }
            cref = c.parent.clone();
        }
        let inner = self.ctx.cref.module.clone();
        // The first of the ancestors that has it (walked without building their list).
        if let Some(v) = inner.walk_ancestors(&mut |a| a.consts.borrow().get(name).cloned()) {
            return Ok(v);
        }
        let object = self.object.clone();
        if let Some(v) = self.const_in(&object, name, false)? {
            return Ok(v);
        }
        self.missing_const(&inner, name, false, pos)
    }

    fn missing_const(&mut self, m: &Rc<Module>, name: &str, scoped: bool, pos: Pos) -> R {
        let full = self.full_name(m, name);
        let top = !scoped || Rc::ptr_eq(m, &self.object);
        if name == "Facter" && top && crate::puppet::facter_defined(self) {
            return Ok(crate::puppet::define_facter(self));
        }
        if crate::classes::unsupported(name) || crate::classes::unsupported(&full) {
            return unsupported(
                format!("the constant {name} (a library this engine does not provide)"),
                pos,
            );
        }
        if scoped && crate::classes::is_puppets_own(&full) {
            return unsupported(
                format!("the constant {full} (a part of Puppet this engine does not provide)"),
                pos,
            );
        }
        if Rc::ptr_eq(m, &self.object) {
            raise("NameError", format!("uninitialized constant {name}"), pos)
        } else {
            raise("NameError", format!("uninitialized constant {full}"), pos)
        }
    }

    /// `outer::Name`.
    pub fn scoped_const(&mut self, outer: &RValue, name: &str, pos: Pos) -> R {
        match outer {
            RValue::Module(m) => {
                let m = m.clone();
                match self.const_in(&m, name, true)? {
                    Some(v) => Ok(v),
                    None => self.missing_const(&m, name, true, pos),
                }
            }
            other => raise(
                "TypeError",
                format!("{} is not a class/module", crate::value::inspect(other)),
                pos,
            ),
        }
    }

    /// True when `v` is an instance of `m` or of a class that inherits or includes it.
    pub fn value_is_a(&mut self, v: &RValue, m: &Rc<Module>) -> bool {
        let c = match v {
            RValue::Object(o) => o.lookup_class(),
            RValue::Module(x) => {
                // A module is a Module; a class is a Class (and a Module); its singleton class
                // holds what it extends.
                let x = x.clone();
                let meta = self.meta(&x);
                if meta.inherits(m) {
                    return true;
                }
                self.class_of(v)
            }
            // An `extend`ed string, array or hash: its singleton class.
            _ => match self.extended_singleton(v) {
                Some(s) => s,
                None => self.class_of(v),
            },
        };
        c.inherits(m)
    }

    fn container_and_name(&mut self, path: &Node) -> Result<(Rc<Module>, String), Ctrl> {
        match &path.kind {
            Kind::Const(None, n) => Ok((self.ctx.cref.module.clone(), n.clone())),
            Kind::TopConst(n) => Ok((self.object.clone(), n.clone())),
            Kind::Const(Some(scope), n) => match self.eval(scope)? {
                RValue::Module(m) => Ok((m, n.clone())),
                other => raise(
                    "TypeError",
                    format!("{} is not a class/module", crate::value::inspect(&other)),
                    path.pos,
                ),
            },
            _ => unsupported("class/module name", path.pos),
        }
    }

    /// `class X < Y ... end` / `module X ... end`.
    pub(crate) fn class_body(&mut self, body: &Arc<ModuleBody>, is_class: bool, pos: Pos) -> R {
        let (container, name) = self.container_and_name(&body.path)?;
        let superclass = match &body.superclass {
            Some(e) => match self.eval(e)? {
                RValue::Module(m) if m.is_class => Some(m),
                other => {
                    return raise(
                        "TypeError",
                        format!(
                            "superclass must be an instance of Class (given an instance of {})",
                            other.class_name()
                        ),
                        e.pos,
                    )
                }
            },
            None => None,
        };
        let own = container.consts.borrow().get(&name).cloned();
        let existing = match own {
            Some(v) => Some(v),
            None => {
                let full = self.full_name(&container, &name);
                self.autoload(&full)?
            }
        };
        let m = match existing {
            Some(RValue::Module(m)) => {
                if m.is_class != is_class {
                    return raise(
                        "TypeError",
                        format!(
                            "{} is not a {}",
                            m.name(),
                            if is_class { "class" } else { "module" }
                        ),
                        pos,
                    );
                }
                if let (Some(s), Some(cur)) = (&superclass, m.superclass()) {
                    if !Rc::ptr_eq(s, &cur) {
                        return raise(
                            "TypeError",
                            format!("superclass mismatch for class {name}"),
                            pos,
                        );
                    }
                }
                m
            }
            Some(_) => {
                return raise(
                    "TypeError",
                    format!(
                        "{name} is not a {}",
                        if is_class { "class" } else { "module" }
                    ),
                    pos,
                )
            }
            None => {
                let full = self.full_name(&container, &name);
                let sup = if is_class {
                    Some(superclass.clone().unwrap_or_else(|| self.object.clone()))
                } else {
                    None
                };
                let builtin = sup.as_ref().and_then(|s| s.builtin);
                let m = Rc::new(Module::new(&full, is_class, sup.clone(), builtin));
                self.modules.push(m.clone());
                container
                    .consts_mut()
                    .insert(name.clone(), RValue::Module(m.clone()));
                if let Some(s) = &sup {
                    crate::kernel::inherited_hook(self, s, &m, pos)?;
                }
                m
            }
        };
        self.run_module_body(&m, &body.body)
    }

    /// Runs statements with `self` = `m` (a class or module body).
    pub(crate) fn run_module_body(&mut self, m: &Rc<Module>, body: &[Node]) -> R {
        let ctx = Ctx {
            self_v: RValue::Module(m.clone()),
            cref: Rc::new(CRef {
                module: m.clone(),
                parent: Some(self.ctx.cref.clone()),
            }),
            def_target: m.clone(),
            env: Rc::new(Env::default()),
            frame: Rc::new(Frame {
                name: None,
                owner: None,
                args: Vec::new(),
                block: None,
                file: self.ctx.frame.file.clone(),
                frozen_literals: self.ctx.frame.frozen_literals,
                def: None,
                last_match: Default::default(),
            }),
        };
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let r = self.body(body);
        self.ctx = saved;
        m.module_function.set(false);
        m.default_private.set(false);
        r
    }

    /// `class << target ... end`.
    pub(crate) fn sclass_body(&mut self, target: &Node, body: &Arc<Vec<Node>>, pos: Pos) -> R {
        let t = self.eval(target)?;
        let meta = match &t {
            RValue::Module(m) => {
                let m = m.clone();
                self.meta(&m)
            }
            RValue::Object(o) => {
                let o = o.clone();
                self.singleton_of_object(&o)
            }
            other => {
                return unsupported(
                    format!("the singleton class of a {}", other.class_name()),
                    pos,
                )
            }
        };
        self.run_module_body(&meta, body)
    }

    /// A new exception object of `class` with `message` (`None`: the class name).
    pub fn new_exception(&mut self, class: &Rc<Module>, message: Option<RValue>) -> RValue {
        let o = Rc::new(Object::new(class.clone()));
        *o.data.borrow_mut() = ObjData::Exception(message);
        self.track_object(&o);
        RValue::Object(o)
    }

    /// The exception object of an exception in flight (made on first need).
    pub fn exception_value(&mut self, exc: &Exc) -> RValue {
        if let Some(o) = &exc.obj {
            return o.clone();
        }
        let class = self
            .module_by_path(&exc.class)
            .or_else(|| self.module_by_path("RuntimeError"))
            .unwrap_or_else(|| self.object.clone());
        self.new_exception(&class, Some(RValue::str(&exc.message)))
    }

    /// Gives a rescued exception its `backtrace` (unless it has one): the place it was
    /// raised, `file:line` (this engine keeps no record of the calls that led there, so
    /// there is one line, without Ruby's "in `method'").
    pub(crate) fn record_backtrace(&mut self, obj: &RValue, exc: &Exc) {
        let RValue::Object(o) = obj else {
            return;
        };
        if o.ivars.borrow().contains_key(" backtrace") {
            return;
        }
        let file = exc
            .file
            .clone()
            .unwrap_or_else(|| self.ctx.frame.file.clone());
        let line = RValue::string(format!("{file}:{}", exc.pos.line));
        o.ivars
            .borrow_mut()
            .insert(" backtrace".into(), RValue::array(vec![line]));
    }

    /// `require` (`relative`: `require_relative`).
    pub fn require(&mut self, name: &str, relative: bool, pos: Pos) -> R {
        let name = name.trim();
        if relative || name.starts_with('/') || name.starts_with("./") || name.starts_with("../") {
            let base = if relative || !name.starts_with('/') {
                let f = self.current_file();
                let dir = match f.rfind('/') {
                    Some(i) => f[..i].to_string(),
                    None => ".".to_string(),
                };
                format!("{dir}/{name}")
            } else {
                name.to_string()
            };
            let path = normalize_path(&base);
            let path = if path.ends_with(".rb") {
                path
            } else {
                format!("{path}.rb")
            };
            if self.loaded.contains(&path) {
                return Ok(RValue::Bool(false));
            }
            let prog = match self.sources.read_program(&path) {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    return raise("SyntaxError", e.to_string(), pos);
                }
                None => {
                    // `require File.expand_path(...)` of a library under a module's lib/.
                    if let Some(i) = path.rfind("/lib/") {
                        return self.require(&path[i + 5..], false, pos);
                    }
                    return raise("LoadError", format!("cannot load such file -- {path}"), pos);
                }
            };
            self.loaded.insert(path);
            self.run_program(&prog)?;
            return Ok(RValue::Bool(true));
        }
        let key = name.trim_end_matches(".rb").to_string();
        if self.loaded.contains(&key) {
            return Ok(RValue::Bool(false));
        }
        if let Some(found) = self.sources.find_lib(&key) {
            let (path, prog) = match found {
                Ok(x) => x,
                Err(e) => return raise("SyntaxError", e.to_string(), pos),
            };
            self.loaded.insert(key);
            if !self.loaded.insert(path) {
                return Ok(RValue::Bool(false));
            }
            self.run_program(&prog)?;
            return Ok(RValue::Bool(true));
        }
        match crate::classes::library(&key) {
            Some(prelude) => {
                self.loaded.insert(key);
                if !prelude.is_empty() {
                    self.load_prelude(prelude)?;
                }
                Ok(RValue::Bool(true))
            }
            None => raise("LoadError", format!("cannot load such file -- {key}"), pos),
        }
    }
}

impl Interp<'_> {
    /// Runs the prelude file `file` (a library Puppet's Ruby has loaded: `uri`, `set`, ...)
    /// the first time it is needed.
    pub(crate) fn load_prelude(&mut self, file: &str) -> Result<(), Ctrl> {
        if self.loaded.insert(format!("prelude:{file}")) {
            if let Some(p) = crate::classes::prelude(file) {
                self.run_program(&p)?;
            }
        }
        Ok(())
    }
}

/// `path.rsplit_once("::")`.
pub(crate) fn rsplit_path(path: &str) -> Option<(&str, &str)> {
    let i = path.as_bytes().windows(2).rposition(|w| w == b"::")?;
    Some((&path[..i], &path[i + 2..]))
}

/// Resolves `.` and `..` in a path.
pub(crate) fn normalize_path(p: &str) -> String {
    let abs = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !abs {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let j = parts.join("/");
    if abs {
        format!("/{j}")
    } else {
        j
    }
}

#[cfg(test)]
mod tests {
    use super::rsplit_path;
    use crate::value::{Builtin, RValue};
    use crate::NullScope;

    /// `class_of` takes a value's built-in class without finding it again by name: that
    /// is the same built-in for every class a value has.
    #[test]
    fn a_values_builtin_is_found_again_by_its_name() {
        for b in [
            Builtin::Object,
            Builtin::NilClass,
            Builtin::TrueClass,
            Builtin::FalseClass,
            Builtin::Integer,
            Builtin::Float,
            Builtin::String,
            Builtin::Symbol,
            Builtin::Array,
            Builtin::Hash,
            Builtin::Range,
            Builtin::Regexp,
            Builtin::Class,
            Builtin::Module,
            Builtin::MatchData,
            Builtin::IPAddr,
        ] {
            assert_eq!(Builtin::by_name(b.name()), Some(b), "{b:?}");
        }
    }

    /// At top level, and after constants were set, reopened or autoloaded, a constant
    /// looks up as the general lookup finds it (or fails as it fails).
    #[test]
    fn top_level_constants_look_up_as_the_general_lookup() {
        let prog = crate::parser::parse_file(
            "X = 1\nmodule M; X = 2; Y = 3; end\nclass C; include M; end\n\
             class Object; include M; end\nArray\nHash\nObject\n",
            "t.rb",
        )
        .expect("parses");
        let mut scope = NullScope::default();
        let mut it = crate::interp::Interp::with(
            &mut scope,
            "t.rb",
            false,
            crate::source::Sources::shared_empty(),
        );
        let names = [
            "X",
            "Y",
            "M",
            "C",
            "Array",
            "Hash",
            "Object",
            "Kernel",
            "BasicObject",
            "String",
            "Nope",
            "Comparable",
        ];
        let compare = |it: &mut crate::interp::Interp| {
            for n in names {
                let pos = crate::Pos::default();
                let general = it.lookup_const_general(n, pos);
                let fast = it.lookup_const(n, pos);
                match (general, fast) {
                    (Ok(a), Ok(b)) => assert!(
                        match (&a, &b) {
                            (RValue::Module(x), RValue::Module(y)) => std::rc::Rc::ptr_eq(x, y),
                            _ => crate::value::equal(&a, &b),
                        },
                        "{n}"
                    ),
                    (Err(_), Err(_)) => {}
                    (a, b) => panic!("{n}: {:?} / {:?}", a.is_ok(), b.is_ok()),
                }
            }
        };
        compare(&mut it);
        it.run_program(&prog).expect("runs");
        compare(&mut it);
    }

    #[test]
    fn path_splitting_is_strs() {
        for p in [
            "", "A", "A::B", "::A", "A::", "A:::B", "A::::B", ":", "::", ":::", "a:b::c", "é::ü",
        ] {
            assert_eq!(rsplit_path(p), p.rsplit_once("::"), "{p}");
        }
    }
}
