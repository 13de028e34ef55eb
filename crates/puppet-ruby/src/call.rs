//! Method calls: argument evaluation (splats, keyword arguments, block arguments), method
//! lookup along the ancestors, parameter binding with Ruby's rules (required, optional,
//! rest, post, keyword and block parameters; lambda strictness and proc leniency with
//! auto-splat), blocks and `yield`, `super`, and the definition of methods.
//!
//! Lookup order for a call: the user methods of the receiver's class (and singleton class)
//! along its ancestors, then the native methods of the receiver's built-in class, then the
//! methods every object has, then `method_missing`. Values of built-in classes skip the
//! user lookup unless a built-in class was reopened.

use crate::ast::{Block, Def, Kind, Node, Params};
use crate::interp::{raise, unsupported, Ctrl, Interp, R};
use crate::object::{Blk, Ctx, Entry, Env, Frame, Method, Module, ProcBody};
use crate::value::{self, RHash, RValue};
use crate::Pos;
use std::rc::Rc;
use std::sync::Arc;

/// Puts keyword arguments back as a trailing hash (for callees without keywords).
pub(crate) fn merge_kw(mut args: Vec<RValue>, kw: Option<RValue>) -> Vec<RValue> {
    if let Some(k) = kw {
        args.push(k);
    }
    args
}

/// `Some(true)` for `==`, `Some(false)` for `!=` (the calls [`Interp::scalar_equality`]
/// answers), else `None`.
fn equality_op(name: &str) -> Option<bool> {
    match name {
        "==" => Some(true),
        "!=" => Some(false),
        _ => None,
    }
}

/// An array element that [`Interp::literal_array_member`] compares where it is: `nil`,
/// `true`, `false`, or a string or symbol literal without interpolation (a string no longer
/// than a string may be); `Some` of its text (empty for the first three).
fn plain_literal(n: &Node) -> Option<&str> {
    match &n.kind {
        Kind::Nil | Kind::True | Kind::False => Some(""),
        Kind::Str(parts) | Kind::Sym(parts) => match parts.as_slice() {
            [crate::ast::Part::Lit(l)] if l.len() <= crate::interp::OBJECT_LIMIT => Some(l),
            _ => None,
        },
        _ => None,
    }
}

/// An expression whose evaluation runs no Ruby code (so cannot reopen a class): a local
/// variable, an instance variable (a template's reads the scope), a literal leaf.
fn evaluates_without_code(n: &Node) -> bool {
    matches!(n.kind, Kind::IVar(_)) || crate::interp::is_leaf(&n.kind)
}

/// `h['text']` with a plain string literal as the key, where the answer does not need the
/// key object (see [`RHash::literal_index`]): the literal's text and the answer.
fn literal_index<'n>(h: &Rc<value::Shared<RHash>>, arg: &'n Node) -> Option<(&'n str, RValue)> {
    let Kind::Str(parts) = &arg.kind else {
        return None;
    };
    let [crate::ast::Part::Lit(lit)] = parts.as_slice() else {
        return None;
    };
    if lit.len() > crate::interp::OBJECT_LIMIT {
        return None;
    }
    let v = h.try_borrow().ok()?.literal_index(lit)?;
    Some((lit, v))
}

/// A value of a built-in class without inner values (what `==` compares by value).
fn is_scalar(v: &RValue) -> bool {
    matches!(
        v,
        RValue::Nil
            | RValue::Bool(_)
            | RValue::Int(_)
            | RValue::Big(_)
            | RValue::Float(_)
            | RValue::Str(_)
            | RValue::Sym(_)
    )
}

impl<'s> Interp<'s> {
    /// Evaluates call arguments: positional values (splats expanded) and the keyword hash.
    #[inline]
    pub(crate) fn eval_args(
        &mut self,
        args: &[Node],
    ) -> Result<(Vec<RValue>, Option<RValue>), Ctrl> {
        let mut out = Vec::with_capacity(args.len());
        let mut kw = None;
        for a in args {
            match &a.kind {
                Kind::Splat(inner) => {
                    let v = self.eval(inner)?;
                    out.extend(self.splat_items(&v, a.pos)?);
                }
                Kind::KwArgs(items) => {
                    let h = self.eval_hash_items(items)?;
                    kw = Some(RValue::hash(h));
                }
                _ => out.push(self.eval(a)?),
            }
        }
        Ok((out, kw))
    }

    fn block_from_arg(&mut self, e: &Node) -> Result<Option<Blk>, Ctrl> {
        let v = self.eval(e)?;
        match v {
            RValue::Nil => Ok(None),
            RValue::Proc(p) => Ok(Some(p)),
            RValue::Sym(s) => Ok(Some(
                self.make_proc_of(ProcBody::Symbol(s.to_string()), false),
            )),
            RValue::Object(_) | RValue::Module(_) => {
                if self.responds_to(&v, "to_proc", false) {
                    match self.call_method(v.clone(), "to_proc", vec![], None, e.pos)? {
                        RValue::Proc(p) => Ok(Some(p)),
                        _ => raise("TypeError", "can't convert to Proc", e.pos),
                    }
                } else {
                    raise(
                        "TypeError",
                        format!("wrong argument type {} (expected Proc)", v.class_name()),
                        e.pos,
                    )
                }
            }
            other => raise(
                "TypeError",
                format!("wrong argument type {} (expected Proc)", other.class_name()),
                e.pos,
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn eval_call(
        &mut self,
        recv: Option<&Node>,
        name: &str,
        args: &[Node],
        block: Option<&Arc<Block>>,
        block_arg: Option<&Node>,
        safe: bool,
        pos: Pos,
    ) -> R {
        let r = match recv {
            Some(recv) => {
                let r = self.eval(recv)?;
                if safe && matches!(r, RValue::Nil) {
                    return Ok(RValue::Nil);
                }
                Some(r)
            }
            None => None,
        };
        if let (Some(recv), [arg], None, None) = (&r, args, block, block_arg) {
            if let Some(eq) = equality_op(name) {
                if !self.reopened
                    && is_scalar(recv)
                    && !matches!(arg.kind, Kind::Splat(_) | Kind::KwArgs(_))
                {
                    if let Kind::Str(parts) = &arg.kind {
                        if let [crate::ast::Part::Lit(lit)] = parts.as_slice() {
                            if lit.len() <= crate::interp::OBJECT_LIMIT {
                                self.literal_steps(lit.len(), arg.pos)?;
                                self.pos = pos;
                                return self.equals_literal(recv, lit, eq, pos);
                            }
                        }
                    }
                    let a = self.eval(arg)?;
                    self.pos = pos;
                    return self.scalar_equality(recv, &a, eq, pos);
                }
            }
        }
        if let (Some(RValue::Hash(h)), [arg], None, None) = (&r, args, block, block_arg) {
            if name == "[]" && !self.reopened {
                if let Some((lit, v)) = literal_index(h, arg) {
                    // What the general path does: the literal is evaluated (its steps), then
                    // `Hash#[]` answers (no user method to find on a Hash nobody reopened;
                    // the result's size checked as every native call's is).
                    self.literal_steps(lit.len(), arg.pos)?;
                    self.pos = pos;
                    self.check_size(&v, pos)?;
                    return Ok(v);
                }
            }
        }
        let (a, kw) = self.eval_args(args)?;
        let blk = match (block, block_arg) {
            (Some(b), _) => Some(self.make_proc(b.clone(), false)),
            (None, Some(e)) => self.block_from_arg(e)?,
            (None, None) => None,
        };
        self.pos = pos;
        match r {
            Some(r) => self.send(r, name, a, kw, blk.as_ref(), pos, false),
            None => {
                let s = self.ctx.self_v.clone();
                let vcall = args.is_empty() && block.is_none() && block_arg.is_none();
                self.send_self(s, name, a, kw, blk.as_ref(), pos, vcall)
            }
        }
    }

    /// `[nil, '', :undef].include?(x)` (or `member?`): an array literal of plain literals
    /// (see [`plain_literal`]) asked about a value whose evaluation runs no Ruby code (see
    /// [`evaluates_without_code`]), on an Array nobody reopened: the steps, depth and memory
    /// that evaluating the array literal counts (in its order, with its checks), then the
    /// argument evaluated, then `Array#include?`'s answer (each element `==` the value, as
    /// `value::equal` compares a nil, boolean, string or symbol), without making the array or
    /// its strings.
    /// [`Interp::literal_array_member`] where it applies (the caller, `eval_inner`, has
    /// checked that the call has an array literal receiver, no block and no `&.`), else
    /// `None`, having evaluated nothing.
    // (Not inlined, nor in `eval_call`: code there made every call slower.)
    #[inline(never)]
    pub(crate) fn literal_array_call(
        &mut self,
        items: &[Node],
        apos: Pos,
        name: &str,
        args: &[Node],
        pos: Pos,
    ) -> Option<R> {
        let [arg] = args else {
            return None;
        };
        if matches!(name, "include?" | "member?")
            && !self.reopened
            && items.len() <= 1024
            && items.iter().all(|n| plain_literal(n).is_some())
            && evaluates_without_code(arg)
        {
            return Some(self.literal_array_member(apos, items, arg, pos));
        }
        None
    }

    fn literal_array_member(&mut self, apos: Pos, items: &[Node], arg: &Node, pos: Pos) -> R {
        // As `eval` of the array node (`eval_general`, then `eval_list` and each element's
        // evaluation).
        self.enter(apos)?;
        let r = (|| {
            self.tick(apos)?;
            for item in items {
                match &item.kind {
                    Kind::Str(_) => {
                        let len = plain_literal(item).map_or(0, |l| l.len());
                        self.literal_steps(len, item.pos)?;
                    }
                    Kind::Sym(_) => {
                        self.enter(item.pos)?;
                        let r = self.tick(item.pos);
                        self.leave();
                        if value::walk_end(0) {
                            return crate::interp::too_large(item.pos);
                        }
                        r?;
                    }
                    // A leaf (nil, true, false): `eval_leaf`.
                    _ => {
                        self.enter(item.pos)?;
                        let r = self.tick(item.pos);
                        self.leave();
                        r?;
                    }
                }
            }
            self.charge(items.len() * 16, apos)
        })();
        self.leave();
        if value::walk_end(0) {
            return crate::interp::too_large(apos);
        }
        r?;
        let x = self.eval(arg)?;
        self.pos = pos;
        let found = items.iter().any(|item| match (&item.kind, &x) {
            (Kind::Nil, RValue::Nil) => true,
            (Kind::True, RValue::Bool(b)) => *b,
            (Kind::False, RValue::Bool(b)) => !*b,
            (Kind::Str(_), RValue::Str(s)) => {
                plain_literal(item).is_some_and(|l| *s.borrow().as_str() == *l)
            }
            (Kind::Sym(_), RValue::Sym(s)) => plain_literal(item).is_some_and(|l| **s == *l),
            _ => false,
        });
        Ok(RValue::Bool(found))
    }

    /// `recv == arg` (`eq`) or `recv != arg` on a scalar receiver of a built-in class that
    /// nobody reopened: what [`Interp::send`] does for it (no user method to find; the
    /// native `==` of every object, whose `!=` negates it), without building an argument
    /// list or going through the layers of dispatch. The receiver's size check and the walk
    /// bound are the native call's.
    pub(crate) fn scalar_equality(&mut self, recv: &RValue, arg: &RValue, eq: bool, pos: Pos) -> R {
        let outer = value::walk_begin();
        let same = value::equal(recv, arg);
        if value::walk_end(outer) {
            return crate::interp::too_large(pos);
        }
        if matches!(recv, RValue::Str(_)) {
            self.check_size(recv, pos)?;
        }
        Ok(RValue::Bool(same == eq))
    }

    /// The steps, depth and memory that evaluating a string literal of `len` bytes at `pos`
    /// counts, with the checks [`Interp::eval`] makes around it, without making the string
    /// (for [`Interp::equals_literal`]).
    fn literal_steps(&mut self, len: usize, pos: Pos) -> Result<(), Ctrl> {
        self.enter(pos)?;
        let r = self.tick(pos).and_then(|()| self.charge(len, pos));
        self.leave();
        if value::walk_end(0) {
            return crate::interp::too_large(pos);
        }
        r
    }

    /// [`Interp::scalar_equality`] with a new string of the text `lit` as the argument,
    /// compared where it is: only a string equals it, by its bytes.
    fn equals_literal(&mut self, recv: &RValue, lit: &str, eq: bool, pos: Pos) -> R {
        let same = match recv {
            RValue::Str(s) => {
                self.check_size(recv, pos)?;
                s.borrow().as_str() == lit
            }
            _ => false,
        };
        Ok(RValue::Bool(same == eq))
    }

    /// Calls a method on a value (the entry point for native code: keyword arguments are
    /// already a trailing hash). Counted in the nesting depth and given stack like an
    /// evaluation step, so native code calling methods that call native code again (a
    /// cycle between two built-ins, say) ends in `SystemStackError`, never in an overflow.
    pub fn call_method(
        &mut self,
        recv: RValue,
        name: &str,
        args: Vec<RValue>,
        block: Option<&Blk>,
        pos: Pos,
    ) -> R {
        self.enter(pos)?;
        let depth = self.depth();
        let r = crate::with_stack_at(depth, || {
            self.send(recv, name, args, None, block, pos, false)
        });
        self.leave();
        r
    }

    /// The class where user-method lookup starts for a value, when it can have user
    /// methods.
    fn user_lookup_class(&mut self, recv: &RValue) -> Option<Rc<Module>> {
        match recv {
            RValue::Object(o) => Some(o.lookup_class()),
            RValue::Module(m) => {
                let m = m.clone();
                Some(self.meta(&m))
            }
            // Before anything named `Puppet`, `Puppet::Parser::Scope` does not exist: looking
            // it up would create it as it is built in (a subclass of Object with no methods
            // and no included modules), where user methods are Object's. A template that
            // calls `scope.x` does not build those three classes for it.
            RValue::Scope if !self.object.consts.borrow().contains_key("Puppet") => {
                Some(self.object.clone())
            }
            RValue::Scope => self.scope_class(),
            _ => match self.extended_singleton(recv) {
                Some(s) => Some(s),
                None if self.reopened => Some(self.class_of(recv)),
                None => None,
            },
        }
    }

    /// Code gave a built-in class (String, Array, Hash...) methods of its own (a `def` in
    /// it, a module included into it): from now on calls look for user methods on built-in
    /// values too.
    pub(crate) fn note_reopened(&mut self, target: &Rc<Module>) {
        if target.builtin.is_some()
            && target.name().as_str() != "Object"
            && target.attached.borrow().is_none()
        {
            let n = target.name();
            if crate::classes::known(&n).is_some_and(|k| k.builtin.is_some()) {
                self.reopened = true;
            }
        }
    }

    /// The singleton class of a string, array or hash that was `extend`ed.
    pub(crate) fn extended_singleton(&self, v: &RValue) -> Option<Rc<Module>> {
        if self.value_singletons.is_empty() {
            return None;
        }
        let addr = value_address(v)?;
        self.value_singletons.get(&addr).map(|(_, s)| s.clone())
    }

    /// The singleton class of a string, array or hash (made the first time; `None` for
    /// other built-in values), whose superclass is the value's class.
    pub(crate) fn value_singleton(&mut self, v: &RValue) -> Option<Rc<Module>> {
        let addr = value_address(v)?;
        if let Some((_, s)) = self.value_singletons.get(&addr) {
            return Some(s.clone());
        }
        let class = self.class_of(v);
        let s = Rc::new(Module::new("", true, Some(class), None));
        self.modules.push(s.clone());
        self.value_singletons.insert(addr, (v.clone(), s.clone()));
        Some(s)
    }

    /// Looks up a user-defined method for a receiver.
    pub(crate) fn find_user_method(
        &mut self,
        recv: &RValue,
        name: &str,
    ) -> Option<(Entry, Rc<Module>)> {
        let c = self.user_lookup_class(recv)?;
        c.find_method(name)
    }

    /// A method call with an explicit receiver (`fcall`: called without one, so private
    /// methods are allowed).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn send(
        &mut self,
        recv: RValue,
        name: &str,
        args: Vec<RValue>,
        kw: Option<RValue>,
        block: Option<&Blk>,
        pos: Pos,
        fcall: bool,
    ) -> R {
        if let Some((entry, owner)) = self.find_user_method(&recv, name) {
            if entry.private && !fcall && !name.ends_with('=') {
                return raise(
                    "NoMethodError",
                    format!(
                        "private method `{name}' called for {}",
                        crate::methods::describe(&recv)
                    ),
                    pos,
                );
            }
            return self.invoke(recv, &entry.method, owner, name, args, kw, block, pos);
        }
        if kw.is_some() {
            // Keyword arguments pass through `new` to `initialize` and through `send`.
            if let RValue::Module(m) = &recv {
                let native_new = {
                    let mut cur = Some(m.clone());
                    let mut found = false;
                    while let Some(c) = cur {
                        if crate::methods::class_responds(&c.name(), "new") {
                            found = true;
                            break;
                        }
                        cur = c.superclass();
                    }
                    found
                };
                if name == "new" && !native_new {
                    let m = m.clone();
                    return crate::kernel::instantiate(self, &m, args, kw, block, pos);
                }
            }
            if matches!(name, "send" | "__send__" | "public_send") && !args.is_empty() {
                let m = crate::kernel::name_arg(&args[0], pos)?;
                let rest = args[1..].to_vec();
                return self.send(recv, &m, rest, kw, block, pos, name != "public_send");
            }
            // `lambda.call(1, k: 2)`, `method(:m).call(1, k: 2)`: the keywords go on to it.
            if let RValue::Proc(p) = &recv {
                if matches!(name, "call" | "()" | "yield" | "[]" | "===") {
                    let p = p.clone();
                    let r = crate::with_stack(|| {
                        self.call_block_checked(
                            &p,
                            args,
                            kw,
                            None,
                            block.cloned(),
                            false,
                            None,
                            pos,
                        )
                    });
                    return match r {
                        Err(Ctrl::Break(v)) if p.lambda => Ok(v),
                        other => other,
                    };
                }
            }
        }
        let args = merge_kw(args, kw);
        self.send_native(recv, name, args, block, pos, fcall)
    }

    /// Native methods of a receiver (after user methods).
    #[inline]
    pub(crate) fn send_native(
        &mut self,
        recv: RValue,
        name: &str,
        args: Vec<RValue>,
        block: Option<&Blk>,
        pos: Pos,
        fcall: bool,
    ) -> R {
        let outer = crate::value::walk_begin();
        // The receiver's size after the call (`s << s` grows it in place).
        let grows = match &recv {
            RValue::Str(_) | RValue::Array(_) => Some(recv.clone()),
            _ => None,
        };
        let r = match &recv {
            RValue::Object(_) => {
                crate::kernel::object_method(self, recv, name, args, block, pos, fcall)
            }
            RValue::Module(_) => {
                crate::kernel::module_method(self, recv, name, args, block, pos, fcall)
            }
            RValue::Proc(_) => crate::kernel::proc_method(self, recv, name, args, block, pos),
            _ => crate::methods::call_method(self, recv, name, args, block, pos),
        };
        if crate::value::walk_end(outer) {
            return crate::interp::too_large(pos);
        }
        // What a native method built counts against the memory bound (a new string or array:
        // nothing else holds it yet), so that a loop of `gsub`s or `map`s that doubles its
        // data ends.
        if let Some(g) = &grows {
            self.check_size(g, pos)?;
        }
        if let Ok(v) = &r {
            self.check_size(v, pos)?;
        }
        match &r {
            Ok(RValue::Str(s)) if Rc::strong_count(s) == 1 => {
                let n = s.borrow().len();
                self.charge(n, pos)?;
            }
            Ok(RValue::Array(a)) if Rc::strong_count(a) == 1 => {
                let n = a.borrow().len();
                self.charge(n.saturating_mul(16), pos)?;
            }
            Ok(RValue::Hash(h)) if Rc::strong_count(h) == 1 => {
                let n = h.borrow().map.len();
                self.charge(n.saturating_mul(48), pos)?;
            }
            _ => {}
        }
        r
    }

    /// A call without a receiver: user methods of `self`'s class, Kernel functions, then the
    /// methods of `self` itself.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send_self(
        &mut self,
        s: RValue,
        name: &str,
        args: Vec<RValue>,
        kw: Option<RValue>,
        block: Option<&Blk>,
        pos: Pos,
        vcall: bool,
    ) -> R {
        let found = match &s {
            RValue::Object(_) | RValue::Module(_) | RValue::Scope => {
                self.find_user_method(&s, name)
            }
            _ => {
                let c = self.class_of(&s);
                c.find_method(name)
            }
        };
        if let Some((entry, owner)) = found {
            return self.invoke(s, &entry.method, owner, name, args, kw, block, pos);
        }
        // Methods defined at top level are private methods of Object: every self has them.
        if let Some((e, owner)) = self.object.find_method(name) {
            return self.invoke(s, &e.method, owner, name, args, kw, block, pos);
        }
        if kw.is_some() && matches!(name, "new" | "send" | "__send__" | "public_send") {
            return self.send(s, name, args, kw, block, pos, true);
        }
        let args = merge_kw(args, kw);
        crate::kernel::fcall(self, s, name, args, block, pos, vcall)
    }

    /// Runs a found method.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn invoke(
        &mut self,
        recv: RValue,
        method: &Method,
        owner: Rc<Module>,
        name: &str,
        args: Vec<RValue>,
        kw: Option<RValue>,
        block: Option<&Blk>,
        pos: Pos,
    ) -> R {
        match method {
            Method::Ruby(d, cref) => self.call_def(
                recv,
                d.clone(),
                cref.clone(),
                owner,
                args,
                kw,
                block.cloned(),
                pos,
            ),
            Method::Native(f) => {
                let args = merge_kw(args, kw);
                f(self, &recv, args, block, pos)
            }
            Method::Reader(iv) => {
                let args = merge_kw(args, kw);
                if !args.is_empty() {
                    return raise(
                        "ArgumentError",
                        format!(
                            "wrong number of arguments (given {}, expected 0)",
                            args.len()
                        ),
                        pos,
                    );
                }
                Ok(self.ivar_of(&recv, iv))
            }
            Method::Writer(iv) => {
                let args = merge_kw(args, kw);
                if args.len() != 1 {
                    return raise(
                        "ArgumentError",
                        format!(
                            "wrong number of arguments (given {}, expected 1)",
                            args.len()
                        ),
                        pos,
                    );
                }
                let v = args.into_iter().next().unwrap_or(RValue::Nil);
                self.ivar_set_on(&recv, iv, v.clone(), pos)?;
                Ok(v)
            }
            Method::Proc(p) => {
                // A `define_method` block binds the keywords it was called with as a method
                // does; other procs take them as a trailing hash.
                let takes_kw = matches!(&p.body, ProcBody::Block(b)
                    if !b.params.keywords.is_empty() || b.params.kwrest.is_some());
                let (args, kw) = if takes_kw {
                    (args, kw)
                } else {
                    (merge_kw(args, kw), None)
                };
                let target = self.def_target_for(&recv);
                crate::with_stack(|| {
                    self.call_block_checked(
                        p,
                        args,
                        kw,
                        Some((recv, target)),
                        block.cloned(),
                        true,
                        Some(name),
                        pos,
                    )
                })
            }
            Method::Undefined => raise(
                "NoMethodError",
                format!(
                    "undefined method `{name}' for {}",
                    crate::methods::describe(&recv)
                ),
                pos,
            ),
        }
    }

    /// Where `def` goes when code runs with `self` = `v` (`instance_eval`).
    pub(crate) fn def_target_for(&mut self, v: &RValue) -> Rc<Module> {
        match v {
            RValue::Module(m) => m.clone(),
            RValue::Object(o) => o.class.clone(),
            other => self.class_of(other),
        }
    }

    /// Calls a `def` method.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn call_def(
        &mut self,
        recv: RValue,
        d: Arc<Def>,
        cref: Rc<crate::object::CRef>,
        owner: Rc<Module>,
        args: Vec<RValue>,
        kw: Option<RValue>,
        block: Option<Blk>,
        pos: Pos,
    ) -> R {
        // Every call of a Ruby method checks the stack (the checks of the evaluation steps
        // inside it fall on depths that a recursion can step over every time).
        crate::with_stack(|| self.call_def_checked(recv, d, cref, owner, args, kw, block, pos))
    }

    #[allow(clippy::too_many_arguments)]
    fn call_def_checked(
        &mut self,
        recv: RValue,
        d: Arc<Def>,
        cref: Rc<crate::object::CRef>,
        owner: Rc<Module>,
        args: Vec<RValue>,
        kw: Option<RValue>,
        block: Option<Blk>,
        pos: Pos,
    ) -> R {
        self.tick(pos)?;
        self.enter(pos)?;
        // `def` inside a method defines on the class that holds the method.
        let def_target = owner.clone();
        let env = self.new_env(None);
        let ctx = Ctx {
            self_v: recv,
            cref,
            def_target,
            env,
            frame: Rc::new(Frame {
                name: Some(d.name.clone()),
                owner: Some(owner),
                args: merge_kw(args.clone(), kw.clone()),
                block: block.clone(),
                file: d.file.clone(),
                frozen_literals: d.frozen_literals,
                def: Some(d.clone()),
                last_match: Default::default(),
            }),
        };
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let r = match self.bind_params(&d.params, args, kw, block, true, false, pos) {
            Ok(()) => self.body(&d.body),
            Err(e) => Err(e),
        };
        let ctx = std::mem::replace(&mut self.ctx, saved);
        self.recycle_env(ctx.env);
        self.leave();
        match r {
            Err(Ctrl::Return(v)) => Ok(v),
            Err(Ctrl::Retry) => raise("SyntaxError", "Invalid retry", pos),
            Err(e) => Err(e.in_file(&d.file)),
            ok => ok,
        }
    }

    /// Binds arguments to parameters in the current (fresh) scope. `strict`: a method or
    /// lambda (argument counts are checked); else a proc (missing ones are nil, extra ones
    /// dropped, one array argument spread over several parameters).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bind_params(
        &mut self,
        params: &Params,
        mut args: Vec<RValue>,
        mut kw: Option<RValue>,
        block: Option<Blk>,
        strict: bool,
        autosplat: bool,
        pos: Pos,
    ) -> Result<(), Ctrl> {
        let takes_kw = !params.keywords.is_empty() || params.kwrest.is_some();
        if !takes_kw {
            if let Some(k) = kw.take() {
                let empty = matches!(&k, RValue::Hash(h) if h.borrow().map.is_empty());
                if !empty {
                    args.push(k);
                }
            }
        } else if kw.is_none() && !strict {
            // A proc taking keywords called with a trailing hash.
            if let Some(RValue::Hash(_)) = args.last() {
                if args.len() > params.required.len() + params.post.len() {
                    kw = args.pop();
                }
            }
        }
        if autosplat && args.len() == 1 {
            if let RValue::Array(a) = &args[0] {
                let a = a.borrow().clone();
                args = a;
            }
        }
        let req = params.required.len() + params.post.len();
        let opt = params.optional.len();
        let n = args.len();
        if strict && (n < req || (params.rest.is_none() && n > req + opt)) {
            let expected = if params.rest.is_some() {
                format!("{req}+")
            } else if opt > 0 {
                format!("{req}..{}", req + opt)
            } else {
                req.to_string()
            };
            // Ruby names the required keywords too.
            let required: Vec<&str> = params
                .keywords
                .iter()
                .filter(|(_, d)| d.is_none())
                .map(|(k, _)| k.as_str())
                .collect();
            let keywords = match required.len() {
                0 => String::new(),
                1 => format!("; required keyword: {}", required[0]),
                _ => format!("; required keywords: {}", required.join(", ")),
            };
            return raise(
                "ArgumentError",
                format!("wrong number of arguments (given {n}, expected {expected}{keywords})"),
                pos,
            );
        }
        if !strict {
            // Procs: pad with nil, drop extras.
            let max = req + opt;
            if params.rest.is_none() && args.len() > max {
                args.truncate(max);
            }
            while args.len() < req {
                args.push(RValue::Nil);
            }
        }
        let n = args.len();
        let n_opt = n.saturating_sub(req).min(opt);
        let n_rest = n.saturating_sub(req + n_opt);
        let mut it = args.into_iter();
        for p in &params.required {
            let v = it.next().unwrap_or(RValue::Nil);
            self.bind_param(p, v, true);
        }
        for (i, (name, default)) in params.optional.iter().enumerate() {
            let v = if i < n_opt {
                it.next().unwrap_or(RValue::Nil)
            } else {
                self.eval(default)?
            };
            self.ctx.env.define(name, v);
        }
        if let Some(rest) = &params.rest {
            let items: Vec<RValue> = it.by_ref().take(n_rest).collect();
            if !rest.is_empty() {
                self.ctx.env.define(rest, RValue::array(items));
            }
        }
        for p in &params.post {
            let v = it.next().unwrap_or(RValue::Nil);
            self.bind_param(p, v, true);
        }
        if takes_kw {
            let mut given: Vec<(RValue, RValue)> = match &kw {
                Some(RValue::Hash(h)) => h.borrow().pairs(),
                _ => Vec::new(),
            };
            let mut missing = Vec::new();
            for (name, default) in &params.keywords {
                let at = given
                    .iter()
                    .position(|(k, _)| matches!(k, RValue::Sym(s) if &**s == name.as_str()));
                let v = match at {
                    Some(i) => given.remove(i).1,
                    None => match default {
                        Some(d) => self.eval(d)?,
                        None => {
                            missing.push(format!(":{name}"));
                            RValue::Nil
                        }
                    },
                };
                self.ctx.env.define(name, v);
            }
            if !missing.is_empty() && strict {
                return raise(
                    "ArgumentError",
                    format!(
                        "missing keyword{}: {}",
                        if missing.len() > 1 { "s" } else { "" },
                        missing.join(", ")
                    ),
                    pos,
                );
            }
            match &params.kwrest {
                Some(rest) => {
                    let mut h = RHash::default();
                    for (k, v) in given {
                        h.insert(k, v);
                    }
                    if !rest.is_empty() {
                        self.ctx.env.define(rest, RValue::hash(h));
                    }
                }
                None => {
                    if !given.is_empty() && strict {
                        let names: Vec<String> =
                            given.iter().map(|(k, _)| value::inspect(k)).collect();
                        return raise(
                            "ArgumentError",
                            format!(
                                "unknown keyword{}: {}",
                                if names.len() > 1 { "s" } else { "" },
                                names.join(", ")
                            ),
                            pos,
                        );
                    }
                }
            }
        }
        if let Some(b) = &params.block {
            self.ctx
                .env
                .define(b, block.map(RValue::Proc).unwrap_or(RValue::Nil));
        }
        Ok(())
    }

    /// Calls a block with yielded values (Ruby's argument rules for blocks and lambdas).
    pub fn call_block(&mut self, blk: &Blk, args: Vec<RValue>, pos: Pos) -> R {
        self.call_block_as(blk, args, None, None, false, None, pos)
    }

    /// [`Interp::call_block_as`] with the stack checked first, as for every method call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn call_block_as(
        &mut self,
        blk: &Blk,
        args: Vec<RValue>,
        with: Option<(RValue, Rc<Module>)>,
        block: Option<Blk>,
        as_method: bool,
        method: Option<&str>,
        pos: Pos,
    ) -> R {
        crate::with_stack(|| {
            self.call_block_checked(blk, args, None, with, block, as_method, method, pos)
        })
    }

    /// Runs Ruby code given as a string (`eval(code)`, `obj.instance_eval(code, file,
    /// line)`, `Mod.class_eval(code)`), parsed by this interpreter: it sees and sets the
    /// calling code's local variables (the ones it declares stay its own, as in a block);
    /// `with` is (self, where `def` goes and constants are made) for the `_eval` forms,
    /// `None` for `eval` (the caller's). Code that names a file is reported at it.
    pub(crate) fn eval_string(
        &mut self,
        code: &str,
        file: Option<&str>,
        line: u32,
        with: Option<(RValue, Rc<Module>)>,
        pos: Pos,
    ) -> R {
        let locals = visible_locals(&self.ctx.env);
        let file = file.unwrap_or("(eval)");
        let prog = match crate::parser::parse_eval(code, file, line, &locals) {
            Ok(p) => p,
            Err(e) => return eval_parse_error(e, file, pos),
        };
        let mut ctx = self.ctx.clone();
        ctx.env = self.new_env(Some(&ctx.env));
        if let Some((s, target)) = with {
            ctx.cref = Rc::new(crate::object::CRef {
                module: target.clone(),
                parent: Some(ctx.cref.clone()),
            });
            ctx.self_v = s;
            ctx.def_target = target;
        }
        let (r, ctx) = self.run_eval_program(&prog, ctx, pos);
        self.recycle_env(ctx.env);
        r
    }

    /// Runs code parsed for `eval` (or an ERB template run from Ruby code) in `ctx`, whose
    /// frame then reports the code's file: the result, and `ctx` back.
    pub(crate) fn run_eval_program(
        &mut self,
        prog: &crate::ast::Program,
        mut ctx: Ctx,
        pos: Pos,
    ) -> (R, Ctx) {
        if let Err(e) = self.tick(pos).and_then(|_| self.enter(pos)) {
            return (Err(e), ctx);
        }
        let f = &ctx.frame;
        ctx.frame = Rc::new(Frame {
            name: f.name.clone(),
            owner: f.owner.clone(),
            args: f.args.clone(),
            block: f.block.clone(),
            file: prog.file.clone(),
            frozen_literals: prog.frozen_literals,
            def: f.def.clone(),
            last_match: Default::default(),
        });
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let r = crate::with_stack(|| self.body(&prog.body));
        let ctx = std::mem::replace(&mut self.ctx, saved);
        self.leave();
        (r.map_err(|e| e.in_file(&prog.file)), ctx)
    }

    /// Calls a block with another `self` (`instance_eval`, `class_eval`,
    /// `define_method`): `with` is (self, where `def` goes). `method`: called as a method
    /// (strict arity, `return` returns from it, `__method__` is `method`).
    #[allow(clippy::too_many_arguments)]
    fn call_block_checked(
        &mut self,
        blk: &Blk,
        args: Vec<RValue>,
        kw: Option<RValue>,
        with: Option<(RValue, Rc<Module>)>,
        block: Option<Blk>,
        as_method: bool,
        method: Option<&str>,
        pos: Pos,
    ) -> R {
        match &blk.body {
            ProcBody::Symbol(sym) => {
                let mut args = args.into_iter();
                let Some(recv) = args.next() else {
                    return raise("ArgumentError", "no receiver given", pos);
                };
                return self.send(recv, sym, args.collect(), None, block.as_ref(), pos, false);
            }
            // `method(:Integer)`: Kernel's functions are private methods of the receiver.
            ProcBody::Method(recv, name) if crate::kernel::KERNEL_FUNCTIONS.contains(&&**name) => {
                let recv = recv.clone();
                return crate::kernel::fcall(self, recv, name, args, block.as_ref(), pos, false);
            }
            ProcBody::Method(recv, name) => {
                return self.send(recv.clone(), name, args, kw, block.as_ref(), pos, true);
            }
            ProcBody::Foreign => {
                return crate::puppet::call_foreign_block(self, args, pos);
            }
            ProcBody::Native(f) => {
                let recv = with.map(|(s, _)| s).unwrap_or(RValue::Nil);
                return f(self, &recv, args, block.as_ref(), pos);
            }
            ProcBody::WithIndex(inner, counter) => {
                let item = if args.len() == 1 {
                    args.into_iter().next().unwrap_or(RValue::Nil)
                } else {
                    RValue::array(args)
                };
                let i = counter.get();
                counter.set(i + 1);
                return self.call_block(inner, vec![item, RValue::Int(i)], pos);
            }
            ProcBody::WithObject(inner, memo) => {
                let item = if args.len() == 1 {
                    args.into_iter().next().unwrap_or(RValue::Nil)
                } else {
                    RValue::array(args)
                };
                return self.call_block(inner, vec![item, memo.clone()], pos);
            }
            ProcBody::Curry(inner, n, given) => {
                return crate::kernel::curry_call(self, blk, inner, *n, given, args, pos);
            }
            ProcBody::Collect(into) => {
                let item = if args.len() == 1 {
                    args.into_iter().next().unwrap_or(RValue::Nil)
                } else {
                    RValue::array(args)
                };
                self.charge(16, pos)?;
                into.borrow_mut().push(item);
                return Ok(RValue::Nil);
            }
            ProcBody::Block(_) => {}
        }
        let ProcBody::Block(b) = &blk.body else {
            return Ok(RValue::Nil);
        };
        let Some(captured) = blk.ctx.borrow().clone() else {
            return raise("ArgumentError", "the block's context is gone", pos);
        };
        self.tick(pos)?;
        self.enter(pos)?;
        let mut ctx = captured;
        ctx.env = self.new_env(Some(&ctx.env));
        if let Some((s, target)) = with {
            ctx.self_v = s;
            ctx.def_target = target;
        }
        if as_method || method.is_some() {
            ctx.frame = Rc::new(Frame {
                name: method
                    .map(str::to_string)
                    .or_else(|| ctx.frame.name.clone()),
                owner: ctx.frame.owner.clone(),
                args: args.clone(),
                block: block.clone().or_else(|| ctx.frame.block.clone()),
                file: ctx.frame.file.clone(),
                frozen_literals: ctx.frame.frozen_literals,
                def: None,
                last_match: Default::default(),
            });
        }
        let saved = std::mem::replace(&mut self.ctx, ctx);
        let strict = blk.lambda || as_method;
        let positional = b.params.positional() + usize::from(b.params.rest.is_some());
        let autosplat = !strict
            && (b.params.positional() >= 2
                || (b.params.positional() >= 1 && b.params.rest.is_some())
                || b.params.trailing_comma
                || (positional > 0 && b.params.required.len() + b.params.post.len() > 1));
        let r = match self.bind_params(&b.params, args, kw, block, strict, autosplat, pos) {
            Ok(()) => self.body(&b.body),
            Err(e) => Err(e),
        };
        let ctx = std::mem::replace(&mut self.ctx, saved);
        self.recycle_env(ctx.env);
        self.leave();
        match r {
            Err(Ctrl::Next(v)) => Ok(v),
            Err(Ctrl::Return(v)) if blk.lambda || as_method => Ok(v),
            other => other,
        }
    }

    /// The method `super` would call: (entry, owner, receiver, name).
    pub(crate) fn super_target(&mut self) -> Option<(Entry, Rc<Module>, RValue, String)> {
        let name = self.ctx.frame.name.clone()?;
        let owner = self.ctx.frame.owner.clone()?;
        let recv = self.ctx.self_v.clone();
        let start = self
            .user_lookup_class(&recv)
            .unwrap_or_else(|| self.class_of(&recv));
        let (e, o) = start.find_super(&owner, &name)?;
        Some((e, o, recv, name))
    }

    pub(crate) fn call_super(
        &mut self,
        args: Option<&[Node]>,
        block: Option<&Arc<Block>>,
        block_arg: Option<&Node>,
        pos: Pos,
    ) -> R {
        let Some(name) = self.ctx.frame.name.clone() else {
            return raise("RuntimeError", "super called outside of method", pos);
        };
        let (a, kw) = match args {
            Some(args) => self.eval_args(args)?,
            None => self.zsuper_args(),
        };
        let blk = match (block, block_arg) {
            (Some(b), _) => Some(self.make_proc(b.clone(), false)),
            (None, Some(e)) => self.block_from_arg(e)?,
            (None, None) => self.ctx.frame.block.clone(),
        };
        let r = match self.super_target() {
            Some((entry, owner, recv, name)) => {
                self.invoke(recv, &entry.method, owner, &name, a, kw, blk.as_ref(), pos)
            }
            None => {
                // The native method of the built-in ancestor (`Exception#initialize`,
                // `Object#initialize`, the DSL's natives...).
                let recv = self.ctx.self_v.clone();
                let a = merge_kw(a, kw);
                crate::kernel::super_native(self, recv, &name, a, blk.as_ref(), pos)
            }
        };
        match r {
            Err(Ctrl::Break(v)) if block.is_some() => Ok(v),
            other => other,
        }
    }

    /// The arguments of `super` without arguments: the current values of the method's
    /// parameters.
    fn zsuper_args(&self) -> (Vec<RValue>, Option<RValue>) {
        let Some(d) = self.ctx.frame.def.clone() else {
            return (self.ctx.frame.args.clone(), None);
        };
        let p = &d.params;
        let get = |n: &str| self.ctx.env.get(n).unwrap_or(RValue::Nil);
        let mut args = Vec::new();
        let simple = |x: &crate::ast::Param| match x {
            crate::ast::Param::Name(n) => Some(n.clone()),
            _ => None,
        };
        for r in &p.required {
            match simple(r) {
                Some(n) => args.push(get(&n)),
                None => return (self.ctx.frame.args.clone(), None),
            }
        }
        for (n, _) in &p.optional {
            args.push(get(n));
        }
        if let Some(r) = &p.rest {
            if r.is_empty() {
                return (self.ctx.frame.args.clone(), None);
            }
            if let RValue::Array(a) = get(r) {
                args.extend(a.borrow().iter().cloned());
            }
        }
        for r in &p.post {
            match simple(r) {
                Some(n) => args.push(get(&n)),
                None => return (self.ctx.frame.args.clone(), None),
            }
        }
        let mut kw = None;
        if !p.keywords.is_empty() || p.kwrest.is_some() {
            let mut h = crate::value::RHash::default();
            for (n, _) in &p.keywords {
                h.insert(RValue::sym(n), get(n));
            }
            if let Some(r) = p.kwrest.as_ref().filter(|r| !r.is_empty()) {
                if let RValue::Hash(x) = get(r) {
                    for (k, v) in x.borrow().pairs() {
                        h.insert(k, v);
                    }
                }
            }
            kw = Some(RValue::hash(h));
        }
        (args, kw)
    }

    /// `def name` / `def recv.name`.
    pub(crate) fn define_method_node(
        &mut self,
        recv: Option<&Node>,
        d: &Arc<Def>,
        pos: Pos,
    ) -> Result<(), Ctrl> {
        let target = match recv {
            None => self.ctx.def_target.clone(),
            Some(r) => {
                let v = self.eval(r)?;
                match &v {
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
                            format!("a singleton method on a {}", other.class_name()),
                            pos,
                        )
                    }
                }
            }
        };
        self.note_reopened(&target);
        // `initialize` and its kin are always private, as in Ruby.
        let private = recv.is_none()
            && (target.default_private.get()
                || Rc::ptr_eq(&target, &self.object)
                || matches!(
                    d.name.as_str(),
                    "initialize"
                        | "initialize_copy"
                        | "initialize_clone"
                        | "initialize_dup"
                        | "respond_to_missing?"
                ));
        if self.template && recv.is_none() && Rc::ptr_eq(&target, &self.object) {
            crate::interp::note_template_method(d);
        }
        target.methods.borrow_mut().insert(
            d.name.clone(),
            Entry {
                method: Method::Ruby(d.clone(), self.ctx.cref.clone()),
                private,
            },
        );
        if recv.is_none() && target.module_function.get() {
            let meta = self.meta(&target);
            meta.methods.borrow_mut().insert(
                d.name.clone(),
                Entry {
                    method: Method::Ruby(d.clone(), self.ctx.cref.clone()),
                    private: false,
                },
            );
        }
        Ok(())
    }

    /// `alias_method new, old` in `target`.
    pub(crate) fn alias_method(
        &mut self,
        target: &Rc<Module>,
        new: &str,
        old: &str,
        pos: Pos,
    ) -> Result<(), Ctrl> {
        let entry = match target.find_method(old) {
            Some((e, _)) => e,
            None => {
                // Aliasing a native method: a forwarder.
                let fwd = crate::kernel::native_alias(old);
                match fwd {
                    Some(m) => Entry {
                        method: m,
                        private: false,
                    },
                    None => {
                        return raise(
                            "NameError",
                            format!("undefined method `{old}' for class `{}'", target.name()),
                            pos,
                        )
                    }
                }
            }
        };
        target.methods.borrow_mut().insert(new.to_string(), entry);
        Ok(())
    }

    /// Whether a value responds to a method (user methods, then native ones).
    pub fn responds_to(&mut self, v: &RValue, name: &str, private: bool) -> bool {
        if let Some((e, _)) = self.find_user_method(v, name) {
            return private || !e.private;
        }
        if private && self.object.find_method(name).is_some() {
            return true;
        }
        if crate::kernel::native_responds(self, v, name, private) {
            return true;
        }
        // A class's `respond_to_missing?`.
        if self.find_user_method(v, "respond_to_missing?").is_some() {
            let pos = self.pos;
            return self
                .send(
                    v.clone(),
                    "respond_to_missing?",
                    vec![RValue::sym(name), RValue::Bool(private)],
                    None,
                    None,
                    pos,
                    true,
                )
                .is_ok_and(|r| r.truthy());
        }
        false
    }
}

/// The address of a string's, array's or hash's contents: what identifies the object.
pub(crate) fn value_address(v: &RValue) -> Option<usize> {
    match v {
        RValue::Str(s) => Some(Rc::as_ptr(s) as *const u8 as usize),
        RValue::Array(a) => Some(Rc::as_ptr(a) as *const u8 as usize),
        RValue::Hash(h) => Some(Rc::as_ptr(h) as *const u8 as usize),
        _ => None,
    }
}

/// The local variables code run by `eval` in a scope sees, innermost first, each once.
pub(crate) fn visible_locals(env: &Rc<Env>) -> Vec<String> {
    let mut locals: Vec<String> = Vec::new();
    let mut env = Some(env.clone());
    while let Some(e) = env {
        for (n, _) in e.vars.borrow().iter() {
            if !locals.iter().any(|l| l == n.as_str()) {
                locals.push(n.to_string());
            }
        }
        env = e.parent.clone();
    }
    locals
}

/// Why code given to `eval` (or an ERB template run from Ruby) did not parse: Ruby's
/// `SyntaxError`, or the construct this engine lacks.
pub(crate) fn eval_parse_error(e: crate::parser::ParseError, file: &str, pos: Pos) -> R {
    if e.unsupported {
        return unsupported(format!("{} (in code given to eval)", e.message), e.pos)
            .map_err(|c| c.in_file(&Arc::from(file)));
    }
    raise(
        "SyntaxError",
        format!("{file}:{}: syntax error, {}", e.pos.line, e.message),
        pos,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{eval_inspect, NullScope, Sources};

    /// Receivers and arguments of every kind `==` meets: scalars (NaN, `-0.0`, numbers of
    /// both classes, strings and symbols that print alike), containers, ranges, regexps,
    /// classes, user objects (with and without their own `==`) and procs.
    const SAMPLES: &str = r#"
        class Eq; def ==(o); true; end; end
        def samples = [nil, true, false, 0, 1, -1, 1.0, 0.0, -0.0, 0.0 / 0.0, 2**62, "a", "", "1", "a".freeze,
         :a, :"1", :"", [1], [], {"a" => 1}, {}, 1..2, /a/, String, Object.new, Eq.new,
         proc { 1 }]
        samples
    "#;

    fn samples(it: &mut Interp) -> Vec<RValue> {
        let prog = crate::parser::parse_file(SAMPLES, "(samples)").expect("parses");
        match it.run_program(&prog) {
            Ok(RValue::Array(a)) => a.borrow().clone(),
            other => panic!("samples: {other:?}"),
        }
    }

    #[test]
    fn scalar_equality_answers_as_the_dispatched_call() {
        let mut scope = NullScope::default();
        let mut it = Interp::with(&mut scope, "(t)", false, Sources::empty());
        let values = samples(&mut it);
        let pos = Pos::default();
        let mut compared = 0;
        for recv in values.iter().filter(|v| is_scalar(v)) {
            for arg in &values {
                for (name, eq) in [("==", true), ("!=", false)] {
                    let steps = it.steps();
                    let fast = it.scalar_equality(recv, arg, eq, pos).expect("fast path");
                    assert_eq!(it.steps(), steps, "the fast path takes no step");
                    let general = it
                        .send(
                            recv.clone(),
                            name,
                            vec![arg.clone()],
                            None,
                            None,
                            pos,
                            false,
                        )
                        .expect("general path");
                    assert!(
                        value::equal(&fast, &general),
                        "{} {name} {}: {fast:?} vs {general:?}",
                        value::inspect(recv),
                        value::inspect(arg)
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 300, "{compared} comparisons");
    }

    #[test]
    fn a_literal_argument_counts_as_the_string_it_stands_for() {
        let mut scope = NullScope::default();
        let mut it = Interp::with(&mut scope, "(t)", false, Sources::empty());
        let long = "x".repeat(100);
        for text in ["", "a", "ssl-disable", long.as_str()] {
            let prog = crate::parser::parse_file(&format!("'{text}'"), "(t)").expect("parses");
            let node = &prog.body[0];
            let before = it.steps();
            it.eval(node).expect("a literal");
            let by_eval = it.steps() - before;
            let before = it.steps();
            it.literal_steps(text.len(), node.pos).expect("steps");
            assert_eq!(it.steps() - before, by_eval, "{text:?}");
        }
        // Out of steps: the same error either way.
        it.set_step_limit(it.steps());
        let prog = crate::parser::parse_file("'abc'", "(t)").expect("parses");
        assert!(matches!(it.eval(&prog.body[0]), Err(Ctrl::Unsupported(_))));
        assert!(matches!(
            it.literal_steps(3, prog.body[0].pos),
            Err(Ctrl::Unsupported(_))
        ));
    }

    #[test]
    fn equality_in_code_takes_the_fast_path_only_where_it_agrees() {
        // Against literal strings, compared where they are.
        let code = format!(
            "{SAMPLES}\nv = samples\nv.all? {{ |a| [a == 'a', a != 'a', a == '', a != '', a == '1'] == [a.send(:==, 'a'), a.send(:!=, 'a'), a.send(:==, ''), a.send(:!=, ''), a.send(:==, '1')] }}"
        );
        assert_eq!(eval_inspect(&code).unwrap(), "true");
        // The operator form (fast path for scalar receivers) against `send` (the general
        // dispatch) over the same pairs.
        let code = format!(
            "{SAMPLES}\nv = samples\nv.flat_map {{ |a| v.map {{ |b| [a == b, a != b] == [a.send(:==, b), a.send(:!=, b)] }} }}.all?"
        );
        assert_eq!(eval_inspect(&code).unwrap(), "true");
        // A reopened built-in class: the user's `==` and `!=` run.
        assert_eq!(
            eval_inspect(
                "class String; def ==(o); :mine; end; end\nclass Integer; def !=(o); :ne; end; end\n[\"a\" == \"b\", 1 != 1, 1 == 1]"
            )
            .unwrap(),
            "[:mine, :ne, true]"
        );
        // `&.` on nil, splats and a block still go the general way.
        assert_eq!(
            eval_inspect("x = nil\n[x&.==(1), 1.==(*[1]), 1.==(1) { }, 'a' != 'a']").unwrap(),
            "[nil, true, true, false]"
        );
    }

    #[test]
    fn regexp_literals_are_made_once_and_match_as_before() {
        assert_eq!(
            eval_inspect(
                "r = []\n3.times { |i| r << (/a(b)?/ =~ 'xab' * (i + 1)) << $1 << ('xb' =~ /a/) }\nr"
            )
            .unwrap(),
            "[1, \"b\", nil, 1, \"b\", nil, 1, \"b\", nil]"
        );
        // Two literals with the same text and other flags, and an interpolated one.
        assert_eq!(
            eval_inspect(
                "s = 'A'\n[/a/ =~ 'A', /a/i =~ 'A', /#{s}/ =~ 'xA', /a/.source, /a/i.options]"
            )
            .unwrap(),
            "[nil, 0, 1, \"a\", 1]"
        );
        // `string =~ regexp` is `regexp =~ string`, `$~` included.
        assert_eq!(
            eval_inspect("a = ['xyz' =~ /y(z)/, $~[1], $~.pre_match]\nb = [/y(z)/ =~ 'xyz', $~[1], $~.pre_match]\n[a, a == b, 'q' =~ /y/, $~]")
                .unwrap(),
            "[[1, \"z\", \"x\"], true, nil, nil]"
        );
    }

    /// Hashes of every kind `h['text']` meets: plain, with a default, with a default proc
    /// (which sees the key object), compared by identity, frozen, keyed by symbols and
    /// numbers, empty.
    const HASHES: &str = r#"
        def hashes
          d = Hash.new(7); d["a"] = 1
          p = Hash.new { |h, k| [k, k.frozen?, k.equal?(k)] }; p["a"] = 2
          m = Hash.new { |h, k| h[k] = k * 2 }
          i = {}.compare_by_identity; i["a"] = 3
          [{"a" => 1, "b" => [2]}, {}, d, p, m, i, {"a" => nil}.freeze, {a: 1, 1 => 2},
           {"ssl-disable" => true, "x" * 30 => "long"}]
        end
    "#;

    #[test]
    fn hash_index_by_a_literal_answers_as_the_general_path() {
        // Each `h['text']` (the fast path where it applies) against the dispatched call.
        let keys = ["a", "b", "", "1", "ssl-disable", &"x".repeat(30)];
        let exprs: Vec<String> = keys
            .iter()
            .map(|k| format!("[h['{k}'], h.send(:[], '{k}')]"))
            .collect();
        let code = format!(
            "{HASHES}\nhashes.map {{ |h| [{}].map {{ |a, b| a == b }}.all? && h.inspect }}",
            exprs.join(", ")
        );
        let out = eval_inspect(&code).unwrap();
        assert!(!out.contains("false"), "{out}");
        // The default proc's side effects (it stores the key) are the general path's.
        assert_eq!(
            eval_inspect("m = Hash.new { |h, k| h[k] = k * 2 }\n[m['ab'], m['ab'].frozen?, m]")
                .unwrap(),
            r#"["abab", false, {"ab"=>"abab"}]"#
        );
        // A reopened Hash: the user's `[]` runs.
        assert_eq!(
            eval_inspect("class Hash; def [](k); :mine; end; end\n{'a' => 1}['a']").unwrap(),
            ":mine"
        );
    }

    #[test]
    fn hash_index_by_a_literal_takes_the_steps_of_the_general_path() {
        let mut scope = NullScope::default();
        let mut it = Interp::with(&mut scope, "(t)", false, Sources::empty());
        let prog = crate::parser::parse_file(&format!("{HASHES}\nhashes"), "(t)").unwrap();
        // New hashes for each run (a default proc may store the key).
        let fresh = |it: &mut Interp| match it.run_program(&prog) {
            Ok(RValue::Array(a)) => a.borrow().clone(),
            other => panic!("hashes: {other:?}"),
        };
        let count = fresh(&mut it).len();
        for i in 0..count {
            for key in ["a", "zz", ""] {
                // (`h = nil` first, so that `h` parses as the local variable.)
                let node =
                    crate::parser::parse_file(&format!("h = nil\nh['{key}']"), "(t)").unwrap();
                let run = |it: &mut Interp| {
                    let h = fresh(it)[i].clone();
                    it.set_lvar("h", h.clone());
                    let before = it.steps();
                    let v = it.eval(&node.body[1]).expect("h[key]");
                    (value::inspect(&v), value::inspect(&h), it.steps() - before)
                };
                let fast = run(&mut it);
                // `reopened` sends every call through the general dispatch.
                it.reopened = true;
                let general = run(&mut it);
                it.reopened = false;
                assert_eq!(fast, general, "hash {i}, key {key:?}");
            }
        }
        let hashes = fresh(&mut it);
        // Out of steps: the same error either way.
        let node = crate::parser::parse_file("h = nil\nh['a']", "(t)").unwrap();
        it.set_lvar("h", hashes[0].clone());
        it.set_step_limit(it.steps() + 2);
        assert!(matches!(it.eval(&node.body[1]), Err(Ctrl::Unsupported(_))));
    }

    #[test]
    fn literal_array_membership_answers_as_the_general_path() {
        // `[..].include?(x)` (the fast path where it applies) against the dispatched call,
        // for every sample value and arrays of each kind of plain literal.
        let arrays = [
            "[nil, '', :undef]",
            "[false, 'false', '']",
            "[true]",
            "[]",
            "[:a, 'a', nil, true, false, '1']",
        ];
        let checks: Vec<String> = arrays
            .iter()
            .flat_map(|a| {
                [
                    format!("{a}.include?(x) == {a}.send(:include?, x)"),
                    format!("{a}.member?(x) == {a}.send(:member?, x)"),
                ]
            })
            .collect();
        let code = format!(
            "{SAMPLES}\nsamples.map {{ |x| [{}].all? }}.all?",
            checks.join(", ")
        );
        assert_eq!(eval_inspect(&code).unwrap(), "true");
        // A reopened Array: the user's method runs; a call argument, a splat or a block
        // still go the general way.
        assert_eq!(
            eval_inspect("class Array; def include?(x); :mine; end; end\nx = 1\n[nil].include?(x)")
                .unwrap(),
            ":mine"
        );
        assert_eq!(
            eval_inspect(
                "x = nil\n[[nil].include?(x.to_s), [nil].include?(*[x]), [1, nil].include?(x) { }]"
            )
            .unwrap(),
            "[false, true, true]"
        );
    }

    #[test]
    fn literal_array_membership_takes_the_steps_of_the_general_path() {
        let mut scope = NullScope::default();
        let mut it = Interp::with(&mut scope, "(t)", false, Sources::empty());
        for array in [
            "[nil, '', :undef]",
            "['abc', 'x' * 3, true]",
            "[]",
            "[:a, 'a']",
        ] {
            for x in ["nil", "''", "'abc'", ":undef", "1", "[nil]"] {
                let code = format!("x = {x}\n{array}.include?(x)");
                let Ok(prog) = crate::parser::parse_file(&code, "(t)") else {
                    continue;
                };
                let run = |it: &mut Interp| {
                    it.eval(&prog.body[0]).expect("x");
                    let before = it.steps();
                    let v = it.eval(&prog.body[1]).expect("include?");
                    (value::inspect(&v), it.steps() - before)
                };
                let fast = run(&mut it);
                it.reopened = true;
                let general = run(&mut it);
                it.reopened = false;
                assert_eq!(fast, general, "{code}");
            }
        }
        // Out of steps at each point of the literal: the same error either way.
        let prog = crate::parser::parse_file("x = 1\n[nil, 'ab', :c].include?(x)", "(t)").unwrap();
        for extra in 0..8 {
            let mut errors = Vec::new();
            for reopened in [false, true] {
                it.eval(&prog.body[0]).expect("x");
                it.reopened = reopened;
                it.set_step_limit(it.steps() + extra);
                // (The message names the budget, which differs between the runs.)
                errors.push(match it.eval(&prog.body[1]) {
                    Ok(v) => value::inspect(&v),
                    Err(Ctrl::Unsupported(u)) => format!("unsupported at {:?}", u.pos),
                    Err(Ctrl::Raise(e)) => format!("{} at {:?}", e.class, e.pos),
                    Err(other) => format!("{other:?}"),
                });
                it.set_step_limit(u64::MAX);
                it.reopened = false;
            }
            assert_eq!(errors[0], errors[1], "{extra} steps left");
        }
    }

    #[test]
    fn scopes_of_ended_calls_are_reused_empty_and_captured_ones_kept() {
        // A variable read before its assignment in a method or block is nil in every call
        // (a reused scope has nothing of the call before), and closures keep their own.
        assert_eq!(
            eval_inspect(
                "def f(v); y = y; r = y; y = v; r; end\na = [f(1), f(2), f(3)]\nb = (1..3).map { |i| z = z; w = z; z = i; w }\nps = (1..3).map { |i| x = i * 10; proc { x } }\n[a, b, ps.map(&:call), ps.map { |p| p.call }]"
            )
            .unwrap(),
            "[[nil, nil, nil], [nil, nil, nil], [10, 20, 30], [10, 20, 30]]"
        );
        // Nested blocks and recursion (scopes taken from and given back to the pool in
        // nested order), a block's variables seen by its inner blocks.
        assert_eq!(
            eval_inspect(
                "def fact(n); n <= 1 ? 1 : n * fact(n - 1); end\nr = [1, 2].map { |i| k = i; [3, 4].map { |j| k + j + fact(j) } }\n[r, fact(6)]"
            )
            .unwrap(),
            "[[[10, 29], [11, 30]], 720]"
        );
    }

    #[test]
    fn plain_regexps_match_without_the_engine_as_with_it() {
        // `$~`, the offset (in characters) and `match` from a start, as Ruby 3.1 gives them.
        assert_eq!(
            eval_inspect(
                "[\"x\\nssl-ca\" =~ /^ssl/, $~[0], $~.pre_match, \"xssl\" =~ /^ssl/, $~, \"éssl\" =~ /ssl/, \"ab\".match(/\\Ab/, 1), \"a\\nb\".match(/^b/, 1)[0], \"ssl\" =~ /\\Assl/, \"a\\nb\".match(/^b/, 2)[0], \"ab\".match(/^b/, 1)]"
            )
            .unwrap(),
            "[2, \"ssl\", \"x\\n\", nil, nil, 1, nil, \"b\", 0, \"b\", nil]"
        );
    }

    #[test]
    fn sub_on_the_automata_replaces_as_ruby_does() {
        // `sub` with groups, back references, a block with `$~`, a hash, options,
        // non-ASCII text, named groups (the full regexp) and no match; Ruby 3.1.2's answers.
        assert_eq!(
            eval_inspect("r = []\nr << 'Puppet 7.23.0 (Puppet Enterprise 2021)'.sub(/\\(Puppet Enterprise .*/i, '').strip\nr << 'key=12, k=3'.sub(/(\\w+)=(\\d+)/, '\\2:\\1')\nr << 'key=12, k=3'.sub(/(\\w+)=(\\d+)/) { \"#{$2}-#{$1}-#{$~.pre_match.size}\" }\nr << 'abc'.sub(/x(y)?/, 'z')\nr << 'aXb'.sub(/x/i, '\\0\\0')\nr << 'éaéb'.sub(/é(.)/, '<\\1>')\nr << 'ab ab'.sub(/(?<w>a)b/, '[\\k<w>]')\nr << 'ab'.sub(/b|(c)/, '\\1.')\nr << 'h'.sub(/h/, 'h' => 'H')\nr << 'x@y'.sub(/^@|@/, '')\nr << ''.sub(/^/, 'start')\nr << 'a_url'.sub(/_url$/, '')\nr")
            .unwrap(),
            "[\"Puppet 7.23.0\", \"12:key, k=3\", \"12-key-0, k=3\", \"abc\", \"aXXb\", \"<a>éb\", \"[a] ab\", \"a.\", \"H\", \"xy\", \"start\", \"a\"]"
        );
    }
}
