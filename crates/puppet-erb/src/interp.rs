//! The interpreter: evaluates the parsed template with Ruby's semantics and Puppet's
//! template wrapper around it.
//!
//! The wrapper part follows Puppet 7: every variable of the scope is visible as an
//! instance variable (`@name`, non-word characters replaced by `_`, undef as nil); `scope`
//! offers `lookupvar`, `[]`, `to_hash`, `setvar`, `function_*` (3.x calling convention: one array of
//! arguments) and `call_function`; `file` and `has_variable?` are available. Variables are
//! converted to Ruby values on first use only. Built-in methods live in [`crate::methods`].
//! Control flow (`next`, `break`, `return`, exceptions) travels as [`Ctrl`] in the `Err`
//! side of results. Recursion depth and loop steps are bounded.

use crate::ast::{Block, Def, Kind, Node, Param, Part};
use crate::scanner::Pos;
use crate::value::{self, to_s, Class, RHash, RValue};
use crate::TemplateScope;
use indexmap::IndexMap;
use puppet_types::Value;
use smol_str::SmolStr;
use std::collections::HashMap;
use std::rc::Rc;

/// Non-local control flow and errors.
#[derive(Debug)]
pub enum Ctrl {
    /// A Ruby exception.
    Raise {
        class: String,
        message: String,
        pos: Pos,
    },
    /// Something this engine does not implement.
    Unsupported {
        what: String,
        pos: Pos,
    },
    Next(RValue),
    Break(RValue),
    Return(RValue),
}

/// Evaluation result.
pub type R = Result<RValue, Ctrl>;

const MAX_DEPTH: usize = 100;
/// The evaluation budget of one render: an endless loop ends with an error after this many
/// steps (about a second in a release build). Fuzz builds (`--cfg fuzzing`: instrumented,
/// some 50 times slower) stop sooner, so that the loop ends well inside libFuzzer's timeout
/// and is not reported as a hang.
#[cfg(not(fuzzing))]
const MAX_STEPS: u64 = 50_000_000;
#[cfg(fuzzing)]
const MAX_STEPS: u64 = 1_000_000;

struct Frame {
    vars: HashMap<String, RValue>,
    boundary: bool,
}

/// The interpreter state for one render.
pub struct Interp<'s> {
    pub scope: &'s mut dyn TemplateScope,
    pub out: String,
    pub file: String,
    /// Instance variables: the template's own assignments, and scope variables converted
    /// on first use (Puppet's wrapper gives every visible variable an `@name`; they are
    /// looked up lazily here, which is the same for the names Ruby can write).
    ivars: HashMap<String, RValue>,
    /// The arrays and hashes handed out for scope variables, with their original values
    /// (see [`Interp::write_back`]).
    handed_out: Vec<(String, Value, RValue)>,
    frames: Vec<Frame>,
    defs: HashMap<String, Rc<Def>>,
    pub last_match: Option<Rc<Vec<Option<String>>>>,
    depth: usize,
    steps: u64,
    pub pos: Pos,
    /// Values from the scope are frozen in Ruby; their containers are kept alive here so the
    /// addresses in `frozen_ptrs` stay unique.
    frozen_keep: Vec<RValue>,
    frozen_ptrs: std::collections::HashSet<usize>,
}

impl std::fmt::Debug for Interp<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interp")
            .field("file", &self.file)
            .field("out_len", &self.out.len())
            .finish()
    }
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
pub(crate) struct SetvarFrame(());

impl SetvarFrame {
    pub(crate) fn push() -> SetvarFrame {
        SETVARS.with(|s| s.borrow_mut().push(Vec::new()));
        SetvarFrame(())
    }
}

impl Drop for SetvarFrame {
    fn drop(&mut self) {
        SETVARS.with(|s| s.borrow_mut().pop());
    }
}

/// Writes back the result of a compound assignment.
type Setter<'s> = Box<dyn Fn(&mut Interp<'s>, RValue) -> Result<(), Ctrl>>;

/// Raises a Ruby exception at `pos`.
pub fn raise<T>(class: &str, message: impl Into<String>, pos: Pos) -> Result<T, Ctrl> {
    Err(Ctrl::Raise {
        class: class.to_string(),
        message: message.into(),
        pos,
    })
}

/// Reports an unsupported construct at `pos`.
pub fn unsupported<T>(what: impl Into<String>, pos: Pos) -> Result<T, Ctrl> {
    Err(Ctrl::Unsupported {
        what: what.into(),
        pos,
    })
}

impl<'s> Interp<'s> {
    /// A fresh interpreter over `scope`'s variables.
    pub fn new(scope: &'s mut dyn TemplateScope, file: &str) -> Interp<'s> {
        Interp {
            scope,
            out: String::new(),
            file: file.to_string(),
            ivars: HashMap::new(),
            handed_out: Vec::new(),
            frames: vec![Frame {
                vars: HashMap::new(),
                boundary: true,
            }],
            defs: HashMap::new(),
            last_match: None,
            depth: 0,
            steps: 0,
            pos: Pos::default(),
            frozen_keep: Vec::new(),
            frozen_ptrs: std::collections::HashSet::new(),
        }
    }

    fn ivar(&mut self, name: &str) -> RValue {
        if let Some(v) = self.ivars.get(name) {
            return v.clone();
        }
        if let Some(v) = self.scope.instance_variable(name).filter(|v| !v.is_undef()) {
            let r = value::from_puppet(&v);
            if matches!(r, RValue::Array(_) | RValue::Hash(_)) {
                self.handed_out
                    .push((name.to_string(), v.clone(), r.clone()));
            }
            self.freeze(&r, 0);
            self.ivars.insert(name.to_string(), r.clone());
            return r;
        }
        RValue::Nil
    }

    /// Tells the scope about the variables whose array or hash the template changed in
    /// place (Ruby's objects are shared with the scope; ours are copies).
    pub fn write_back(&mut self) {
        for (name, original, obj) in std::mem::take(&mut self.handed_out) {
            if let Ok(now) = value::to_puppet(&obj) {
                if now != original {
                    self.scope.mutated_variable(&name, &original, now);
                }
            }
        }
    }

    /// Marks a value from the scope (and everything inside it) as frozen.
    pub fn freeze(&mut self, v: &RValue, depth: usize) {
        if depth > 64 {
            return;
        }
        // Puppet hands templates frozen strings; arrays and hashes are not frozen.
        if let RValue::Str(s) = v {
            if self.frozen_ptrs.insert(Rc::as_ptr(s) as usize) {
                self.frozen_keep.push(v.clone());
            }
            return;
        }
        match v {
            RValue::Array(a) => {
                let items = a.borrow().clone();
                for x in &items {
                    self.freeze(x, depth + 1);
                }
            }
            RValue::Hash(h) => {
                let pairs = h.borrow().pairs();
                for (k, x) in &pairs {
                    self.freeze(k, depth + 1);
                    self.freeze(x, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// True for values that came frozen from the scope.
    pub fn is_frozen(&self, v: &RValue) -> bool {
        let ptr = match v {
            RValue::Str(s) => Rc::as_ptr(s) as usize,
            RValue::Array(a) => Rc::as_ptr(a) as *const u8 as usize,
            RValue::Hash(h) => Rc::as_ptr(h) as *const u8 as usize,
            _ => return false,
        };
        self.frozen_ptrs.contains(&ptr)
    }

    fn ivar_defined(&self, name: &str) -> bool {
        self.ivars.contains_key(name)
            || self
                .scope
                .instance_variable(name)
                .is_some_and(|v| !v.is_undef())
    }

    fn lvar(&self, name: &str) -> Option<RValue> {
        for f in self.frames.iter().rev() {
            if let Some(v) = f.vars.get(name) {
                return Some(v.clone());
            }
            if f.boundary {
                break;
            }
        }
        None
    }

    fn set_lvar(&mut self, name: &str, v: RValue) {
        let n = self.frames.len();
        for idx in (0..n).rev() {
            if self.frames[idx].vars.contains_key(name) {
                self.frames[idx].vars.insert(name.to_string(), v);
                return;
            }
            if self.frames[idx].boundary {
                break;
            }
        }
        if let Some(f) = self.frames.last_mut() {
            f.vars.insert(name.to_string(), v);
        }
    }

    fn tick(&mut self, pos: Pos) -> Result<(), Ctrl> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            let what = format!("more than {MAX_STEPS} evaluation steps (endless loop?)");
            return unsupported(what, pos);
        }
        Ok(())
    }

    /// Runs the top-level statements.
    pub fn run(&mut self, body: &[Node]) -> Result<(), Ctrl> {
        match self.body(body) {
            Ok(_) | Err(Ctrl::Return(_)) => Ok(()),
            Err(Ctrl::Next(_)) | Err(Ctrl::Break(_)) => raise(
                "SyntaxError",
                "Invalid next/break at template level",
                Pos::default(),
            ),
            Err(e) => Err(e),
        }
    }

    pub fn body(&mut self, body: &[Node]) -> R {
        let mut last = RValue::Nil;
        for n in body {
            last = self.eval(n)?;
        }
        Ok(last)
    }

    pub fn eval(&mut self, n: &Node) -> R {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return raise("SystemStackError", "stack level too deep", n.pos);
        }
        let r = self.eval_inner(n);
        self.depth -= 1;
        r
    }

    fn interp_parts(&mut self, parts: &[Part]) -> Result<String, Ctrl> {
        let mut s = String::new();
        for p in parts {
            match p {
                Part::Lit(l) => s.push_str(l),
                Part::Code(body) => {
                    let v = self.body(body)?;
                    s.push_str(&self.to_s_value(&v)?);
                }
            }
        }
        Ok(s)
    }

    /// `to_s` through user-visible dispatch (strings as is).
    pub fn to_s_value(&mut self, v: &RValue) -> Result<String, Ctrl> {
        Ok(to_s(v))
    }

    fn eval_inner(&mut self, n: &Node) -> R {
        self.tick(n.pos)?;
        let pos = n.pos;
        match &n.kind {
            Kind::Nil => Ok(RValue::Nil),
            Kind::True => Ok(RValue::Bool(true)),
            Kind::False => Ok(RValue::Bool(false)),
            Kind::SelfRef => unsupported("`self'", pos),
            Kind::Int(i) => Ok(RValue::Int(*i)),
            Kind::Float(f) => Ok(RValue::Float(*f)),
            Kind::Str(parts) => Ok(RValue::string(self.interp_parts(parts)?)),
            Kind::Sym(parts) => Ok(RValue::sym(&self.interp_parts(parts)?)),
            Kind::Regex(parts, flags) => {
                let src = self.interp_parts(parts)?;
                match value::compile_regex(&src, flags) {
                    Ok(r) => Ok(RValue::Regexp(Rc::new(r))),
                    Err(e) => unsupported(format!("regexp /{src}/ ({e})"), pos),
                }
            }
            Kind::Array(items) => Ok(RValue::array(self.eval_list(items)?)),
            Kind::Hash(pairs) => {
                let mut h = RHash::default();
                for (k, v) in pairs {
                    let k = self.eval(k)?;
                    let v = self.eval(v)?;
                    h.insert(k, v);
                }
                Ok(RValue::hash(h))
            }
            Kind::Range(a, b, excl) => {
                let a = self.eval(a)?;
                let b = self.eval(b)?;
                let ok = matches!(
                    (&a, &b),
                    (
                        RValue::Int(_) | RValue::Float(_),
                        RValue::Int(_) | RValue::Float(_)
                    ) | (RValue::Str(_), RValue::Str(_))
                        | (_, RValue::Nil)
                );
                if !ok {
                    return raise("ArgumentError", "bad value for range", pos);
                }
                Ok(RValue::Range(Rc::new((a, b, *excl))))
            }
            Kind::LVar(name) => Ok(self.lvar(name).unwrap_or(RValue::Nil)),
            Kind::IVar(name) => Ok(self.ivar(name)),
            Kind::GVar(name) => match name.as_str() {
                "~" => Ok(self
                    .last_match
                    .clone()
                    .map(RValue::MatchData)
                    .unwrap_or(RValue::Nil)),
                "&" => Ok(self.nth_ref(0)),
                _ => unsupported(format!("global variable ${name}"), pos),
            },
            Kind::NthRef(k) => Ok(self.nth_ref(*k)),
            Kind::Const(scope, name) => self.constant(scope.as_deref(), name, pos),
            Kind::Call {
                recv,
                name,
                args,
                block,
                safe,
            } => {
                let r = self.eval_call(recv.as_deref(), name, args, block.as_ref(), *safe, pos);
                match r {
                    Err(Ctrl::Break(v)) if block.is_some() => Ok(v),
                    other => other,
                }
            }
            Kind::Splat(_) => unsupported("splat outside an argument list", pos),
            Kind::Not(e) => {
                let v = self.eval(e)?;
                Ok(RValue::Bool(!v.truthy()))
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
                self.assign(target, v.clone())?;
                Ok(v)
            }
            Kind::OpAssign(target, op, value) => self.op_assign(target, op, value, pos),
            Kind::MultiAssign(targets, value) => {
                let v = self.eval(value)?;
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                for (i, t) in targets.iter().enumerate() {
                    self.assign(t, items.get(i).cloned().unwrap_or(RValue::Nil))?;
                }
                Ok(v)
            }
            Kind::If(c, then, els) => {
                if self.eval(c)?.truthy() {
                    self.body(then)
                } else {
                    self.body(els)
                }
            }
            Kind::While(c, body, until) => {
                loop {
                    self.tick(pos)?;
                    if self.eval(c)?.truthy() == *until {
                        break;
                    }
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
                                crate::methods::splat_items(&x)
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
                let r = self.body(body);
                let r = match r {
                    Err(Ctrl::Raise {
                        class,
                        message,
                        pos: rpos,
                    }) => {
                        let mut handled = None;
                        for resc in rescues {
                            let mut matches =
                                resc.classes.is_empty() && class_is_standard_error(&class);
                            for c in &resc.classes {
                                if let RValue::Class(k) = self.eval(c)? {
                                    if class_matches(k, &class) {
                                        matches = true;
                                    }
                                }
                            }
                            if matches {
                                if let Some(var) = &resc.var {
                                    let e = RValue::Exception(Rc::new((
                                        class.clone(),
                                        message.clone(),
                                    )));
                                    self.set_lvar(var, e);
                                }
                                handled = Some(self.body(&resc.body));
                                break;
                            }
                        }
                        match handled {
                            Some(h) => h,
                            None => Err(Ctrl::Raise {
                                class,
                                message,
                                pos: rpos,
                            }),
                        }
                    }
                    Ok(v) => match els {
                        Some(e) => self.body(e),
                        None => Ok(v),
                    },
                    other => other,
                };
                if let Some(ens) = ensure {
                    self.body(ens)?;
                }
                r
            }
            Kind::RescueMod(e, r) => match self.eval(e) {
                Err(Ctrl::Raise { class, .. }) if class_is_standard_error(&class) => self.eval(r),
                other => other,
            },
            Kind::Def(d) => {
                self.defs.insert(d.name.clone(), d.clone());
                Ok(RValue::sym(&d.name))
            }
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
            Kind::Seq(body) => self.body(body),
            Kind::Put(text) => {
                self.out.push_str(text);
                Ok(RValue::Nil)
            }
            Kind::Insert(body) => {
                let v = self.body(body)?;
                let s = self.to_s_value(&v)?;
                self.out.push_str(&s);
                Ok(RValue::Nil)
            }
        }
    }

    fn nth_ref(&self, k: usize) -> RValue {
        match &self.last_match {
            Some(m) => match m.get(k) {
                Some(Some(s)) => RValue::str(s),
                _ => RValue::Nil,
            },
            None => RValue::Nil,
        }
    }

    /// `pattern === value` as `case`/`when` uses it.
    pub fn case_eq(&mut self, pattern: &RValue, v: &RValue, pos: Pos) -> Result<bool, Ctrl> {
        Ok(match pattern {
            RValue::Class(c) => crate::methods::is_a(v, *c),
            RValue::Regexp(re) => match v {
                RValue::Str(_) | RValue::Sym(_) => {
                    let s = to_s(v);
                    crate::methods::regex_match(self, re, &s, 0, pos)?.is_some()
                }
                _ => false,
            },
            RValue::Range(r) => crate::methods::range_cover(r, v),
            _ => value::equal(pattern, v),
        })
    }

    fn constant(&mut self, scope: Option<&Node>, name: &str, pos: Pos) -> R {
        if let Some(s) = scope {
            let outer = self.eval(s)?;
            return match (outer, name) {
                (RValue::Class(Class::Puppet), _) => {
                    unsupported(format!("constant Puppet::{name}"), pos)
                }
                (RValue::Class(Class::Json), "ParserError") => {
                    Ok(RValue::Class(Class::StandardError))
                }
                (RValue::Class(c), _) => unsupported(format!("constant {}::{name}", c.name()), pos),
                (o, _) => raise(
                    "TypeError",
                    format!("{} is not a class/module", value::inspect(&o)),
                    pos,
                ),
            };
        }
        match Class::by_name(name) {
            Some(c) => Ok(RValue::Class(c)),
            None => match name {
                "ARGV" | "ENV" | "RUBY_VERSION" | "STDOUT" | "STDERR" | "Set" | "Time" | "Date"
                | "YAML" | "Base64" | "Digest" | "OpenSSL" | "URI" | "Resolv" | "Socket"
                | "SecureRandom" | "Struct" | "Proc" | "ERB" | "Facter" => {
                    unsupported(format!("constant {name}"), pos)
                }
                _ => raise("NameError", format!("uninitialized constant {name}"), pos),
            },
        }
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
            Kind::GVar(_) | Kind::NthRef(_) => {
                if matches!(e.kind, Kind::NthRef(k) if !matches!(self.nth_ref(k), RValue::Nil)) {
                    Some("global-variable")
                } else {
                    None
                }
            }
            Kind::Const(None, n) => Class::by_name(n).map(|_| "constant"),
            // Ruby does not look into a safe-navigation call.
            Kind::Call { safe: true, .. } => Some("expression"),
            Kind::Call {
                recv: None, name, ..
            } => {
                if self.defs.contains_key(name) || is_self_method(name) {
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
                    if crate::methods::responds_to(&v, name) {
                        Some("method")
                    } else {
                        None
                    }
                }
                Err(Ctrl::Raise { .. }) => None,
                Err(e) => return Err(e),
            },
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

    fn assign(&mut self, target: &Node, v: RValue) -> Result<(), Ctrl> {
        match &target.kind {
            Kind::LVar(n) => {
                self.set_lvar(n, v);
                Ok(())
            }
            Kind::IVar(n) => {
                self.ivars.insert(n.clone(), v);
                Ok(())
            }
            Kind::Call {
                recv: Some(r),
                name,
                args,
                ..
            } => {
                let recv = self.eval(r)?;
                let mut a = self.eval_list(args)?;
                a.push(v);
                let mname = if name == "[]" {
                    "[]=".to_string()
                } else {
                    format!("{name}=")
                };
                crate::methods::call_method(self, recv, &mname, a, None, target.pos)?;
                Ok(())
            }
            Kind::GVar(n) => unsupported(format!("assignment to ${n}"), target.pos),
            _ => unsupported("assignment target", target.pos),
        }
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
                let cur = self.ivar(n);
                let n = n.clone();
                (
                    cur,
                    Box::new(move |me: &mut Self, v| {
                        me.ivars.insert(n.clone(), v);
                        Ok(())
                    }),
                )
            }
            Kind::Call {
                recv: Some(r),
                name,
                args,
                ..
            } => {
                let recv = self.eval(r)?;
                let a = self.eval_list(args)?;
                let cur =
                    crate::methods::call_method(self, recv.clone(), name, a.clone(), None, pos)?;
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
                        crate::methods::call_method(me, recv.clone(), &mname, a, None, pos)?;
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
                crate::methods::call_method(self, getter, op, vec![rhs], None, pos)?
            }
        };
        setter(self, newv.clone())?;
        Ok(newv)
    }

    pub fn eval_list(&mut self, items: &[Node]) -> Result<Vec<RValue>, Ctrl> {
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            if let Kind::Splat(inner) = &it.kind {
                let v = self.eval(inner)?;
                out.extend(crate::methods::splat_items(&v));
            } else {
                out.push(self.eval(it)?);
            }
        }
        Ok(out)
    }

    fn eval_call(
        &mut self,
        recv: Option<&Node>,
        name: &str,
        args: &[Node],
        block: Option<&Rc<Block>>,
        safe: bool,
        pos: Pos,
    ) -> R {
        let Some(recv) = recv else {
            let a = self.eval_list(args)?;
            return self.call_self(name, a, block, pos, args.is_empty());
        };
        let r = self.eval(recv)?;
        if safe && matches!(r, RValue::Nil) {
            return Ok(RValue::Nil);
        }
        let a = self.eval_list(args)?;
        self.pos = pos;
        crate::methods::call_method(self, r, name, a, block, pos)
    }

    /// Calls a block with yielded values (Ruby's argument splatting rules for blocks).
    pub fn call_block(&mut self, block: &Block, args: Vec<RValue>, pos: Pos) -> R {
        if let Some(sym) = &block.symbol {
            let mut args = args.into_iter();
            let recv = args.next().unwrap_or(RValue::Nil);
            return crate::methods::call_method(self, recv, sym, args.collect(), None, pos);
        }
        self.tick(pos)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return raise("SystemStackError", "stack level too deep", pos);
        }
        self.frames.push(Frame {
            vars: HashMap::new(),
            boundary: false,
        });
        let params = &block.params;
        let args = if params.len() > 1 || matches!(params.first(), Some(Param::Splat(_))) {
            match args.as_slice() {
                [RValue::Array(a)] if params.len() > 1 => a.borrow().clone(),
                _ => args,
            }
        } else {
            args
        };
        let mut it = args.into_iter();
        for (i, p) in params.iter().enumerate() {
            match p {
                Param::Splat(n) => {
                    let rest: Vec<RValue> = it.by_ref().collect();
                    let _ = i;
                    if let Some(f) = self.frames.last_mut() {
                        f.vars.insert(n.clone(), RValue::array(rest));
                    }
                }
                _ => {
                    let v = it.next().unwrap_or(RValue::Nil);
                    self.bind_param(p, v, true);
                }
            }
        }
        let r = self.body(&block.body);
        self.frames.pop();
        self.depth -= 1;
        match r {
            Err(Ctrl::Next(v)) => Ok(v),
            other => other,
        }
    }

    fn bind_param(&mut self, p: &Param, v: RValue, local: bool) {
        match p {
            Param::Name(n) => {
                if local {
                    if let Some(f) = self.frames.last_mut() {
                        f.vars.insert(n.clone(), v);
                    }
                } else {
                    self.set_lvar(n, v);
                }
            }
            Param::Splat(n) => {
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                self.bind_param(&Param::Name(n.clone()), RValue::array(items), local);
            }
            Param::Destructure(inner) => {
                let items = match &v {
                    RValue::Array(a) => a.borrow().clone(),
                    other => vec![other.clone()],
                };
                let mut it = items.into_iter();
                for q in inner {
                    if let Param::Splat(n) = q {
                        let rest: Vec<RValue> = it.by_ref().collect();
                        self.bind_param(&Param::Name(n.clone()), RValue::array(rest), local);
                    } else {
                        let x = it.next().unwrap_or(RValue::Nil);
                        self.bind_param(q, x, local);
                    }
                }
            }
        }
    }

    fn call_def(&mut self, d: Rc<Def>, args: Vec<RValue>, pos: Pos) -> R {
        let required = d.params.iter().filter(|(_, def)| def.is_none()).count();
        if args.len() < required || args.len() > d.params.len() {
            return raise(
                "ArgumentError",
                format!(
                    "wrong number of arguments (given {}, expected {})",
                    args.len(),
                    if required == d.params.len() {
                        required.to_string()
                    } else {
                        format!("{required}..{}", d.params.len())
                    }
                ),
                pos,
            );
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return raise("SystemStackError", "stack level too deep", pos);
        }
        self.frames.push(Frame {
            vars: HashMap::new(),
            boundary: true,
        });
        let mut r = Ok(RValue::Nil);
        let mut args = args.into_iter();
        for (name, default) in &d.params {
            let v = match args.next() {
                Some(v) => v,
                None => match default {
                    Some(e) => match self.eval(e) {
                        Ok(v) => v,
                        Err(e) => {
                            r = Err(e);
                            break;
                        }
                    },
                    None => RValue::Nil,
                },
            };
            if let Some(f) = self.frames.last_mut() {
                f.vars.insert(name.clone(), v);
            }
        }
        if r.is_ok() {
            r = self.body(&d.body);
        }
        self.frames.pop();
        self.depth -= 1;
        match r {
            Err(Ctrl::Return(v)) => Ok(v),
            Err(Ctrl::Next(_)) | Err(Ctrl::Break(_)) => {
                raise("LocalJumpError", "break/next from method", pos)
            }
            other => other,
        }
    }

    /// Calls without a receiver: helpers, the template wrapper and Kernel.
    fn call_self(
        &mut self,
        name: &str,
        args: Vec<RValue>,
        block: Option<&Rc<Block>>,
        pos: Pos,
        no_args: bool,
    ) -> R {
        if let Some(d) = self.defs.get(name).cloned() {
            return self.call_def(d, args, pos);
        }
        let arity = |n: usize| -> Result<(), Ctrl> {
            if args.len() != n {
                return raise(
                    "ArgumentError",
                    format!(
                        "wrong number of arguments (given {}, expected {n})",
                        args.len()
                    ),
                    pos,
                );
            }
            Ok(())
        };
        match name {
            "scope" => {
                arity(0)?;
                Ok(RValue::Scope)
            }
            "file" => {
                arity(0)?;
                // Inline templates have no file.
                Ok(if self.file.is_empty() {
                    RValue::Nil
                } else {
                    RValue::str(&self.file)
                })
            }
            "has_variable?" => {
                arity(1)?;
                let n = to_s(&args[0]);
                let v = self.scope.lookup(&n);
                Ok(RValue::Bool(v.is_some_and(|v| !v.is_undef())))
            }
            "tags" => raise("NotImplementedError", "Call 'all_tags' instead.", pos),
            "classes" | "all_tags" => unsupported(format!("template method `{name}'"), pos),
            "Array"
            | "Integer"
            | "String"
            | "Float"
            | "Hash"
            | "format"
            | "sprintf"
            | "raise"
            | "fail"
            | "require"
            | "require_relative"
            | "puts"
            | "print"
            | "p"
            | "pp"
            | "warn"
            | "rand"
            | "srand"
            | "sleep"
            | "exit"
            | "abort"
            | "system"
            | "open"
            | "block_given?"
            | "instance_variable_get"
            | "instance_variable_defined?"
            | "instance_variables"
            | "respond_to?"
            | "nil?"
            | "to_s"
            | "inspect"
            | "freeze"
            | "frozen?"
            | "is_a?"
            | "kind_of?"
            | "tap"
            | "then"
            | "loop" => crate::methods::kernel(self, name, args, block, pos),
            _ => {
                if no_args && block.is_none() {
                    raise(
                        "NameError",
                        format!(
                            "undefined local variable or method `{name}' for {}",
                            self.wrapper_text()
                        ),
                        pos,
                    )
                } else {
                    raise(
                        "NoMethodError",
                        format!("undefined method `{name}' for {}", self.wrapper_text()),
                        pos,
                    )
                }
            }
        }
    }

    /// The template wrapper's `to_s`.
    pub fn wrapper_text(&self) -> String {
        format!("template[{}]", self.file)
    }

    /// Calls a Puppet function through the scope.
    pub fn puppet_function(&mut self, name: &str, args: Vec<RValue>, pos: Pos) -> R {
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

    /// `scope.lookupvar(name)`.
    pub fn lookupvar(&mut self, name: &str) -> RValue {
        let set = SETVARS.with(|s| {
            s.borrow()
                .iter()
                .rev()
                .flat_map(|f| f.iter().rev())
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        });
        if let Some(v) = set {
            return v;
        }
        match self.scope.lookup(name) {
            Some(v) => {
                let r = value::from_puppet(&v);
                self.freeze(&r, 0);
                r
            }
            None => RValue::Nil,
        }
    }

    /// `scope.to_hash`.
    pub fn scope_hash(&mut self) -> RValue {
        let mut h = RHash::default();
        let vars: IndexMap<SmolStr, Value> = self.scope.all_variables();
        for (k, v) in vars.iter() {
            if v.is_undef() {
                continue;
            }
            let r = value::from_puppet(v);
            self.freeze(&r, 0);
            h.insert(RValue::str(k), r);
        }
        RValue::hash(h)
    }
}

fn is_self_method(name: &str) -> bool {
    matches!(
        name,
        "scope"
            | "file"
            | "has_variable?"
            | "Array"
            | "Integer"
            | "String"
            | "Float"
            | "Hash"
            | "format"
            | "sprintf"
            | "raise"
            | "fail"
            | "puts"
            | "print"
            | "p"
            | "require"
    )
}

fn class_is_standard_error(class: &str) -> bool {
    !matches!(
        class,
        "SystemStackError" | "NotImplementedError" | "SyntaxError" | "Exception"
    )
}

fn class_matches(k: Class, raised: &str) -> bool {
    match Class::by_name(raised) {
        Some(rc) => k.includes(rc),
        None => match k {
            Class::Exception => true,
            Class::StandardError => class_is_standard_error(raised),
            _ => false,
        },
    }
}
