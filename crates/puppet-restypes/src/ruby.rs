//! The static reader of module type files (`lib/puppet/type/<name>.rb`):
//! it finds `Puppet::Type.newtype(:name) do ... end` and reads the type DSL
//! in its body (`newparam`, `newproperty`, `ensurable`, `isnamevar`,
//! `newvalues`, `feature`, `autorequire` and friends, `self.title_patterns`,
//! `@isomorphic = false`) without running Ruby. A `self.title_patterns`
//! that is not a literal list is evaluated by [`crate::rubyeval`], with the
//! type file's own `def self.x` and the helper modules of `lib/puppet_x`
//! (keystone's `CompositeNamevar.basic_split_title_patterns`). A bare call
//! at the type's level to a method of a helper module the type `extend`s
//! (openstack's `create_parameters`) is read as type DSL in that method.
//! Every statement at the type's level that could define attributes and is
//! not understood (loops or conditionals around the DSL, calls to unknown
//! methods, mixins that define parameters, computed names) is reported as a
//! [`Diagnostic`] naming the construct: the reader never guesses silently.

use smol_str::SmolStr;

use crate::lexer::{match_blocks, tokenize, Tok, Token};
use crate::model::{
    AttrKind, Attribute, Diagnostic, ResourceTypeInfo, Severity, TitlePattern, TypeSource,
};
use crate::rubyeval::{Interp, RubyLib, Val, OPT_I, OPT_M, OPT_X};

const DSL_WORDS: &[&str] = &[
    "newparam",
    "newproperty",
    "ensurable",
    "newmetaparam",
    "isnamevar",
    "newcheck",
];
const HINT_WORDS: &[&str] = &[
    "feature",
    "autorequire",
    "autobefore",
    "autosubscribe",
    "autonotify",
];
const HARMLESS_CALLS: &[&str] = &[
    "desc",
    "validate",
    "require",
    "require_relative",
    "include",
    "extend",
    "attr_accessor",
    "attr_reader",
    "attr_writer",
    "private",
    "public",
    "protected",
    "apply_to_device",
    "apply_to_host",
    "apply_to_all",
    "providify",
    "raise",
    "fail",
    "alias_method",
    "puts",
    "warn",
    "module_function",
    "private_class_method",
    "public_class_method",
];

struct Cx<'a> {
    toks: &'a [Token],
    close: Vec<Option<usize>>,
    path: &'a str,
    diags: Vec<Diagnostic>,
    defs: Vec<String>,
    /// While unrolling a literal `.each`: the block variable and its value.
    subst: Option<(String, String)>,
    /// The helper modules (`lib/puppet_x`) title patterns may call.
    lib: &'a RubyLib,
    /// The modules the type `extend`s (`extend PuppetX::Foo`), in order.
    extends: Vec<String>,
    /// How many helper methods deep the type DSL is being read.
    mixin_depth: usize,
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t.map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s.as_str()),
        _ => None,
    }
}

fn punct(t: Option<&Token>, p: &str) -> bool {
    matches!(t.map(|t| &t.tok), Some(Tok::Punct(x)) if x == p)
}

fn is_sep(t: &Token) -> bool {
    matches!(&t.tok, Tok::Newline) || matches!(&t.tok, Tok::Punct(p) if p == ";")
}

/// A literal value as Puppet would name it (`:a` -> `a`, `true`, `"x"`).
fn literal_name(t: &Token) -> Option<String> {
    match &t.tok {
        Tok::Sym(s) => Some(s.clone()),
        Tok::Str(s, true) => Some(s.clone()),
        Tok::Num(n) => Some(n.replace('_', "")),
        Tok::Ident(s) if s == "true" || s == "false" || s == "nil" => Some(s.clone()),
        _ => None,
    }
}

impl<'a> Cx<'a> {
    fn line(&self, i: usize) -> u32 {
        self.toks
            .get(i)
            .or_else(|| self.toks.last())
            .map_or(0, |t| t.line)
    }

    fn diag(&mut self, severity: Severity, i: usize, message: String) {
        let line = self.line(i);
        self.diags.push(Diagnostic {
            severity,
            path: self.path.to_string(),
            line,
            message,
        });
    }

    /// Index after the token at `i`, jumping over a whole bracket/block.
    fn skip(&self, i: usize) -> usize {
        match self.close.get(i).copied().flatten() {
            Some(c) => c + 1,
            None => i + 1,
        }
    }

    /// End (exclusive) of the statement starting at `i`, before `end`.
    fn stmt_end(&self, i: usize, end: usize) -> usize {
        let mut j = i;
        while j < end {
            if is_sep(&self.toks[j]) {
                // a leading `.` on the next line continues the statement
                if matches!(&self.toks[j].tok, Tok::Newline)
                    && (punct(self.toks.get(j + 1), ".") || punct(self.toks.get(j + 1), "&."))
                {
                    j += 1;
                    continue;
                }
                return j;
            }
            j = self.skip(j);
        }
        end
    }

    /// A short rendering of tokens `a..b` for messages.
    fn snippet(&self, a: usize, b: usize) -> String {
        let mut out = String::new();
        for t in self.toks.iter().take(b.min(a + 12)).skip(a) {
            let s = match &t.tok {
                Tok::Ident(s) | Tok::Const(s) | Tok::Var(s) | Tok::Num(s) | Tok::Punct(s) => {
                    s.clone()
                }
                Tok::Sym(s) => format!(":{s}"),
                Tok::Str(s, _) => format!("{s:?}"),
                Tok::Words(w) => format!("%w[{}]", w.join(" ")),
                Tok::Regex(s, f, _) => format!("/{s}/{f}"),
                Tok::Label(s) => format!("{s}:"),
                Tok::Newline => break,
            };
            if !out.is_empty() && t.space_before {
                out.push(' ');
            }
            out.push_str(&s);
        }
        if b > a + 12 {
            out.push_str(" ...");
        }
        out
    }

    /// The first DSL word (not after a `.`) in `a..b`, if any.
    fn find_words(&self, a: usize, b: usize, words: &[&str]) -> Option<(usize, &'a str)> {
        let toks = self.toks;
        for j in a..b.min(toks.len()) {
            if let Tok::Ident(s) = &toks[j].tok {
                let after_dot =
                    j > 0 && (punct(toks.get(j - 1), ".") || punct(toks.get(j - 1), "&."));
                if !after_dot && words.contains(&s.as_str()) {
                    return Some((j, s.as_str()));
                }
            }
        }
        None
    }

    /// The argument list of a call at `i` (the method name): the token range
    /// of the arguments and the index after them.
    fn call_args(&self, i: usize, end: usize) -> (usize, usize, usize) {
        let j = i + 1;
        if j < end && punct(self.toks.get(j), "(") && !self.toks[j].space_before {
            let c = self.close[j].unwrap_or(end).min(end);
            return (j + 1, c, (c + 1).min(end));
        }
        let mut k = j;
        while k < end {
            if ident(self.toks.get(k)) == Some("do") || punct(self.toks.get(k), "{") && k > j {
                break;
            }
            if is_sep(&self.toks[k]) {
                break;
            }
            k = self.skip(k);
        }
        (j, k.min(end), k.min(end))
    }

    /// Splits `a..b` at top-level commas.
    fn split_args(&self, a: usize, b: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut s = a;
        let mut j = a;
        while j < b {
            if punct(self.toks.get(j), ",") {
                out.push((s, j));
                s = j + 1;
                j += 1;
                continue;
            }
            j = self.skip(j);
        }
        if s < b {
            out.push((s, b));
        }
        out
    }

    /// The block (`do ... end` / `{ ... }`) starting at `k`, as a body range
    /// and the index after it.
    fn block_at(&self, k: usize, end: usize) -> Option<(usize, usize, usize)> {
        if k < end && (ident(self.toks.get(k)) == Some("do") || punct(self.toks.get(k), "{")) {
            let c = self.close[k].unwrap_or(end).min(end);
            // skip block parameters |x|
            let mut a = k + 1;
            if punct(self.toks.get(a), "|") {
                a += 1;
                while a < c && !punct(self.toks.get(a), "|") {
                    a += 1;
                }
                a += 1;
            }
            return Some((a.min(c), c, (c + 1).min(end)));
        }
        None
    }
}

/// Values collected from `newvalues`/`newvalue` statements.
#[derive(Default)]
struct Values {
    list: Vec<SmolStr>,
    regex: bool,
    computed: bool,
}

impl Cx<'_> {
    fn collect_values(&mut self, a: usize, b: usize, vals: &mut Values, namevar: &mut bool) {
        let mut i = a;
        while i < b {
            if is_sep(&self.toks[i]) {
                i += 1;
                continue;
            }
            let e = self.stmt_end(i, b);
            match ident(self.toks.get(i)) {
                Some("isnamevar") => *namevar = true,
                Some(w @ ("newvalues" | "newvalue")) => {
                    let (aa, ab, _) = self.call_args(i, e);
                    let args = self.split_args(aa, ab);
                    let args = if w == "newvalue" {
                        &args[..args.len().min(1)]
                    } else {
                        &args[..]
                    };
                    for &(s, t) in args {
                        if t == s + 1 {
                            if let Some(n) = literal_name(&self.toks[s]) {
                                vals.list.push(SmolStr::new(n));
                                continue;
                            }
                            if matches!(self.toks[s].tok, Tok::Regex(..)) {
                                vals.regex = true;
                                continue;
                            }
                        }
                        vals.computed = true;
                    }
                }
                Some("defaultvalues") => {
                    vals.list.push(SmolStr::new("present"));
                    vals.list.push(SmolStr::new("absent"));
                }
                _ => {}
            }
            i = e;
        }
    }

    /// `newparam(...)` / `newproperty(...)` at `i`.
    fn attr_stmt(&mut self, i: usize, e: usize, kind: AttrKind, info: &mut ResourceTypeInfo) {
        let (aa, ab, after) = self.call_args(i, e);
        let args = self.split_args(aa, ab);
        let word = if kind == AttrKind::Parameter {
            "newparam"
        } else {
            "newproperty"
        };
        let name = match args.first() {
            Some(&(s, t)) if t == s + 1 => match &self.toks[s].tok {
                Tok::Sym(n) | Tok::Str(n, true) => Some(n.clone()),
                Tok::Ident(v) => self
                    .subst
                    .as_ref()
                    .filter(|(k, _)| k == v)
                    .map(|(_, x)| x.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(name) = name else {
            let snip = self.snippet(i, e);
            self.diag(
                Severity::Error,
                i,
                format!("`{word}` with a computed name: `{snip}`"),
            );
            return;
        };
        let mut namevar = false;
        let mut vals = Values::default();
        for &(s, t) in args.iter().skip(1) {
            let (key, v) = match &self.toks[s].tok {
                Tok::Label(k) => (k.clone(), s + 1),
                Tok::Sym(k) if punct(self.toks.get(s + 1), "=>") => (k.clone(), s + 2),
                _ => {
                    let snip = self.snippet(s, t);
                    self.diag(
                        Severity::Error,
                        s,
                        format!("`{word}(:{name}, ...)` with a non-literal option `{snip}`"),
                    );
                    continue;
                }
            };
            match key.as_str() {
                "namevar" => match self.toks.get(v).map(|t| &t.tok) {
                    Some(Tok::Ident(b)) if t == v + 1 && (b == "false" || b == "nil") => {}
                    // any other literal is truthy in Ruby (`:namevar => :true`)
                    Some(Tok::Ident(b)) if t == v + 1 && b == "true" => namevar = true,
                    Some(Tok::Sym(_) | Tok::Str(..) | Tok::Num(_)) if t == v + 1 => namevar = true,
                    _ => {
                        let snip = self.snippet(v, t);
                        self.diag(
                            Severity::Error,
                            v,
                            format!("`{word}(:{name}, :namevar => {snip})`: not a literal"),
                        );
                    }
                },
                "parent" => {
                    let text: String = (v..t).map(|j| self.snippet(j, j + 1)).collect();
                    if text.ends_with("Parameter::Boolean") || text.ends_with("Property::Boolean") {
                        for b in ["true", "false", "yes", "no"] {
                            vals.list.push(SmolStr::new(b));
                        }
                    } else if !(text.starts_with("Puppet::")) {
                        self.diag(
                            Severity::Warning,
                            v,
                            format!("`{word}(:{name})` has parent `{text}`: its allowed values are not known"),
                        );
                        vals.computed = true;
                    }
                }
                _ => {}
            }
        }
        if let Some((ba, bb, _)) = self.block_at(after, e) {
            self.collect_values(ba, bb, &mut vals, &mut namevar);
        }
        self.add_attr(info, &name, kind, namevar, vals, i);
    }

    fn add_attr(
        &mut self,
        info: &mut ResourceTypeInfo,
        name: &str,
        kind: AttrKind,
        namevar: bool,
        vals: Values,
        i: usize,
    ) {
        if vals.computed {
            self.diag(
                Severity::Warning,
                i,
                format!("allowed values of `{name}` are computed"),
            );
        }
        let mut a = Attribute::new(name, kind);
        a.is_namevar = namevar;
        if !vals.regex && !vals.computed && !vals.list.is_empty() {
            let mut list: Vec<SmolStr> = Vec::new();
            for v in vals.list {
                if !list.contains(&v) {
                    list.push(v);
                }
            }
            a.values = Some(list);
        }
        if info.attributes.contains_key(name) {
            self.diag(
                Severity::Error,
                i,
                format!("attribute `{name}` defined twice (Puppet raises an error)"),
            );
        }
        info.attributes.insert(SmolStr::new(name), a);
    }

    /// The literal array of `def self.title_patterns`.
    fn title_patterns(&mut self, a: usize, b: usize, info: &mut ResourceTypeInfo, at: usize) {
        let mut identities: Vec<String> = Vec::new();
        let mut i = a;
        let mut last: Option<(usize, usize)> = None;
        while i < b {
            if is_sep(&self.toks[i]) {
                i += 1;
                continue;
            }
            let e = self.stmt_end(i, b);
            // `identity = lambda { |x| x }` / `->(x) { x }`
            if let (Some(name), true) = (ident(self.toks.get(i)), punct(self.toks.get(i + 1), "="))
            {
                let body = self.snippet(i + 2, e).replace(' ', "");
                if body == "lambda{|x|x}"
                    || body == "->(x){x}"
                    || body == "proc{|x|x}"
                    || body == "lambda{|x|x;}"
                {
                    identities.push(name.to_string());
                    i = e;
                    continue;
                }
            }
            last = Some((i, e));
            i = e;
        }
        let Some((mut s, e)) = last else {
            self.diag(Severity::Error, at, "`self.title_patterns` is empty".into());
            return;
        };
        if ident(self.toks.get(s)) == Some("return") {
            s += 1;
        }
        let ndiags = self.diags.len();
        match self.pattern_list(s, e, &identities) {
            Ok(list) => info.title_patterns = list,
            Err(j) => {
                // Not a literal: evaluate the method (locals, interpolated
                // regexes, calls to helper modules) statically.
                self.diags.truncate(ndiags);
                // the type file's own `def self.x` (and modules it defines)
                // come before the helper modules
                let mut own = RubyLib::default();
                own.add_tokens(self.path, self.toks, &self.close);
                let mut interp = Interp::new(vec![&own, self.lib]);
                let evaluated = interp
                    .eval_body(self.toks, &self.close, a, b)
                    .and_then(|v| self.patterns_of_value(v, at));
                match evaluated {
                    Ok(list) => info.title_patterns = list,
                    Err(why) => {
                        let snip = self.snippet(j, e);
                        self.diag(
                            Severity::Error,
                            j,
                            format!("`self.title_patterns` could not be evaluated statically ({why}): `{snip}`"),
                        );
                    }
                }
            }
        }
    }

    /// Title patterns from an evaluated `self.title_patterns` value:
    /// `[[regex, [[:attr], [:attr, proc]]], ...]`.
    fn patterns_of_value(&mut self, v: Val, at: usize) -> Result<Vec<TitlePattern>, String> {
        let Val::Array(items) = v else {
            return Err("the value is not an array".into());
        };
        let mut out = Vec::new();
        for item in items {
            let Val::Array(pair) = item else {
                return Err("a pattern is not an array".into());
            };
            let [Val::Regex(src, opts), Val::Array(caps)] = pair.as_slice() else {
                return Err("a pattern is not `[regex, [[:attr], ...]]`".into());
            };
            let mut captures = Vec::new();
            for c in caps {
                let Val::Array(c) = c else {
                    return Err("a capture is not `[:attr]`".into());
                };
                let name = match c.first() {
                    Some(Val::Sym(n) | Val::Str(n)) => n.clone(),
                    _ => return Err("a capture does not name an attribute".into()),
                };
                match c.get(1) {
                    None => {}
                    Some(Val::Proc(p)) if p.is_identity() => {}
                    Some(_) => self.diag(
                        Severity::Warning,
                        at,
                        format!("title pattern capture for `{name}` is transformed by a proc: values from titles are taken untransformed"),
                    ),
                }
                captures.push(SmolStr::new(name));
            }
            out.push(TitlePattern {
                regex: SmolStr::new(src),
                multiline: opts & OPT_M != 0,
                ignore_case: opts & OPT_I != 0,
                extended: opts & OPT_X != 0,
                captures,
            });
        }
        Ok(out)
    }

    fn pattern_list(
        &mut self,
        s: usize,
        e: usize,
        identities: &[String],
    ) -> Result<Vec<TitlePattern>, usize> {
        if !punct(self.toks.get(s), "[") || self.skip(s) != e {
            return Err(s);
        }
        let c = self.skip(s) - 1;
        let mut out = Vec::new();
        for (ps, pe) in self.split_args(s + 1, c) {
            let ps = skip_newlines(self.toks, ps, pe);
            if ps >= pe {
                continue;
            }
            if !punct(self.toks.get(ps), "[") || self.skip(ps) != trim_end(self.toks, ps, pe) {
                return Err(ps);
            }
            let pc = self.skip(ps) - 1;
            let parts = self.split_args(ps + 1, pc);
            if parts.len() != 2 {
                return Err(ps);
            }
            let (rs, _) = parts[0];
            let rs = skip_newlines(self.toks, rs, pc);
            let Some(Tok::Regex(src, flags, true)) = self.toks.get(rs).map(|t| &t.tok) else {
                return Err(rs);
            };
            let (src, flags) = (src.clone(), flags.clone());
            let (cs, ce) = parts[1];
            let cs = skip_newlines(self.toks, cs, ce);
            if !punct(self.toks.get(cs), "[") {
                return Err(cs);
            }
            let cc = self.skip(cs) - 1;
            let mut captures = Vec::new();
            for (es, ee) in self.split_args(cs + 1, cc) {
                let es = skip_newlines(self.toks, es, ee);
                if es >= ee {
                    continue;
                }
                if !punct(self.toks.get(es), "[") {
                    return Err(es);
                }
                let ec = self.skip(es) - 1;
                let items = self.split_args(es + 1, ec);
                let Some(&(ns, _)) = items.first() else {
                    return Err(es);
                };
                let ns = skip_newlines(self.toks, ns, ec);
                let Some(Tok::Sym(n)) = self.toks.get(ns).map(|t| &t.tok) else {
                    return Err(ns);
                };
                let n = n.clone();
                if let Some(&(ls, le)) = items.get(1) {
                    let ls = skip_newlines(self.toks, ls, le);
                    let is_identity = ident(self.toks.get(ls))
                        .is_some_and(|x| identities.iter().any(|id| id == x));
                    if !is_identity {
                        let snip = self.snippet(ls, le);
                        self.diag(
                            Severity::Warning,
                            ls,
                            format!("title pattern capture for `{n}` is transformed by `{snip}`: values from titles are taken untransformed"),
                        );
                    }
                }
                captures.push(SmolStr::new(n));
            }
            out.push(TitlePattern {
                regex: SmolStr::new(src),
                multiline: flags.contains('m'),
                ignore_case: flags.contains('i'),
                extended: flags.contains('x'),
                captures,
            });
        }
        Ok(out)
    }
}

fn skip_newlines(toks: &[Token], mut i: usize, end: usize) -> usize {
    while i < end && matches!(toks[i].tok, Tok::Newline) {
        i += 1;
    }
    i
}

fn trim_end(toks: &[Token], a: usize, mut e: usize) -> usize {
    while e > a && matches!(toks[e - 1].tok, Tok::Newline) {
        e -= 1;
    }
    e
}

impl Cx<'_> {
    fn type_body(&mut self, a: usize, b: usize, info: &mut ResourceTypeInfo) {
        let mut i = a;
        while i < b {
            if is_sep(&self.toks[i]) {
                i += 1;
                continue;
            }
            let e = self.stmt_end(i, b);
            self.type_stmt(i, e, info);
            i = e.max(i + 1);
        }
    }

    fn type_stmt(&mut self, i: usize, e: usize, info: &mut ResourceTypeInfo) {
        let t = &self.toks[i];
        match &t.tok {
            Tok::Ident(w) => {
                let w = w.clone();
                match w.as_str() {
                    "newparam" => self.attr_stmt(i, e, AttrKind::Parameter, info),
                    "newproperty" => self.attr_stmt(i, e, AttrKind::Property, info),
                    "ensurable" => {
                        let mut vals = Values::default();
                        let mut nv = false;
                        match self.block_at(i + 1, e) {
                            Some((ba, bb, _)) => self.collect_values(ba, bb, &mut vals, &mut nv),
                            None => {
                                vals.list.push(SmolStr::new("present"));
                                vals.list.push(SmolStr::new("absent"));
                            }
                        }
                        self.add_attr(info, "ensure", AttrKind::Property, false, vals, i);
                    }
                    "feature" | "autorequire" | "autobefore" | "autosubscribe" | "autonotify" => {
                        let (aa, ab, _) = self.call_args(i, e);
                        let first = self.split_args(aa, ab).first().copied();
                        let name = first.and_then(|(s, t)| {
                            if t != s + 1 {
                                return None;
                            }
                            match &self.toks[s].tok {
                                Tok::Ident(v)
                                    if self.subst.as_ref().is_some_and(|(k, _)| k == v) =>
                                {
                                    self.subst.as_ref().map(|(_, x)| x.clone())
                                }
                                _ => literal_name(&self.toks[s]),
                            }
                        });
                        match name {
                            Some(n) => {
                                let list = match w.as_str() {
                                    "feature" => &mut info.features,
                                    "autorequire" => &mut info.autorequires,
                                    "autobefore" => &mut info.autobefores,
                                    "autosubscribe" => &mut info.autosubscribes,
                                    _ => &mut info.autonotifies,
                                };
                                if !list.iter().any(|x| x == &n) {
                                    list.push(SmolStr::new(n));
                                }
                            }
                            None => {
                                let snip = self.snippet(i, e);
                                self.diag(
                                    Severity::Warning,
                                    i,
                                    format!("`{w}` with a computed name: `{snip}`"),
                                );
                            }
                        }
                    }
                    "def" => self.def_stmt(i, e, info),
                    "newmetaparam" | "newcheck" => {
                        let snip = self.snippet(i, e);
                        self.diag(
                            Severity::Error,
                            i,
                            format!("`{w}` is not supported statically: `{snip}`"),
                        );
                    }
                    "if" | "unless" | "case" | "begin" | "while" | "until" | "for" | "class"
                    | "module" => self.opaque(i, e, &format!("`{w}` around the type DSL")),
                    "extend" => {
                        let path: String = (i + 1..e)
                            .map(|j| self.snippet(j, j + 1))
                            .collect::<String>()
                            .trim_start_matches("::")
                            .to_string();
                        if !path.is_empty() {
                            self.extends.push(path);
                        }
                    }
                    _ if HARMLESS_CALLS.contains(&w.as_str()) => {}
                    _ if (e == i + 1
                        || e == i + 3
                            && punct(self.toks.get(i + 1), "(")
                            && punct(self.toks.get(i + 2), ")"))
                        && self.mixin_call(&w, info) => {}
                    _ => {
                        // local assignment `x = ...` is harmless unless it hides the DSL
                        if punct(self.toks.get(i + 1), "=") || punct(self.toks.get(i + 1), "||=") {
                            self.opaque(i, e, "an assignment containing the type DSL");
                        } else if self.find_words(i, e, DSL_WORDS).is_some()
                            || self.find_words(i, e, HINT_WORDS).is_some()
                        {
                            self.opaque(i, e, &format!("`{w}` around the type DSL"));
                        } else {
                            let snip = self.snippet(i, e);
                            self.diag(
                                Severity::Error,
                                i,
                                format!("call to `{w}` at the type's level (it may define attributes): `{snip}`"),
                            );
                        }
                    }
                }
            }
            Tok::Var(v) => {
                if v == "@isomorphic" && punct(self.toks.get(i + 1), "=") {
                    match ident(self.toks.get(i + 2)) {
                        Some("false") if e == i + 3 => info.isomorphic = false,
                        Some("true") if e == i + 3 => info.isomorphic = true,
                        _ => {
                            let snip = self.snippet(i, e);
                            self.diag(
                                Severity::Error,
                                i,
                                format!("`@isomorphic` is computed: `{snip}`"),
                            );
                        }
                    }
                } else {
                    self.opaque(i, e, "an assignment containing the type DSL");
                }
            }
            Tok::Const(_) => {
                if punct(self.toks.get(i + 1), "=") {
                    self.opaque(i, e, "a constant containing the type DSL");
                } else {
                    let snip = self.snippet(i, e);
                    self.diag(
                        Severity::Error,
                        i,
                        format!("call at the type's level (it may define attributes): `{snip}`"),
                    );
                }
            }
            Tok::Punct(p) if p == "[" && self.unroll_each(i, e, info) => {}
            Tok::Words(_) if self.unroll_each(i, e, info) => {}
            _ => self.opaque(i, e, "an expression around the type DSL"),
        }
    }

    /// `[:a, :b].each do |p| ... end` (or `%w[a b].each`) around the DSL:
    /// the block is read once per literal element, with `p` standing for it.
    /// Returns false when the statement is not of that shape.
    fn unroll_each(&mut self, i: usize, e: usize, info: &mut ResourceTypeInfo) -> bool {
        let (elems, after) = match &self.toks[i].tok {
            Tok::Words(w) => (Some(w.clone()), i + 1),
            _ => {
                let c = self.skip(i);
                let items: Option<Vec<String>> = self
                    .split_args(i + 1, c - 1)
                    .into_iter()
                    .map(|(s, t)| {
                        let s = skip_newlines(self.toks, s, t);
                        let t = trim_end(self.toks, s, t);
                        if t == s + 1 {
                            literal_name(&self.toks[s])
                        } else {
                            None
                        }
                    })
                    .collect();
                (items, c)
            }
        };
        let Some(elems) = elems else { return false };
        if !punct(self.toks.get(after), ".") || ident(self.toks.get(after + 1)) != Some("each") {
            return false;
        }
        let blk = after + 2;
        if !(ident(self.toks.get(blk)) == Some("do") || punct(self.toks.get(blk), "{")) {
            return false;
        }
        // exactly one block parameter
        let var = match (
            self.toks.get(blk + 1),
            self.toks.get(blk + 2),
            self.toks.get(blk + 3),
        ) {
            (
                Some(a),
                Some(Token {
                    tok: Tok::Ident(v), ..
                }),
                Some(c),
            ) if punct(Some(a), "|") && punct(Some(c), "|") => v.clone(),
            _ => return false,
        };
        let Some(bend) = self.close[blk] else {
            return false;
        };
        if bend + 1 != e {
            return false;
        }
        let saved = self.subst.take();
        for el in elems {
            self.subst = Some((var.clone(), el));
            self.type_body(blk + 4, bend, info);
        }
        self.subst = saved;
        true
    }

    /// `name` at the type's level, an instance method of a module the type
    /// `extend`s (the last one wins, as in Ruby): the type DSL in its body
    /// is read as if it were written here. False when there is none.
    fn mixin_call(&mut self, name: &str, info: &mut ResourceTypeInfo) -> bool {
        const MAX_MIXIN_DEPTH: usize = 8;
        if self.mixin_depth >= MAX_MIXIN_DEPTH {
            return false;
        }
        let lib = self.lib;
        let Some(m) = self.extends.iter().rev().find_map(|x| lib.mixin(x, name)) else {
            return false;
        };
        let mut sub = Cx {
            toks: &m.file.toks,
            close: m.file.close.clone(),
            path: &m.file.path,
            diags: Vec::new(),
            defs: Vec::new(),
            subst: None,
            lib,
            extends: self.extends.clone(),
            mixin_depth: self.mixin_depth + 1,
        };
        sub.type_body(m.body.0, m.body.1, info);
        self.diags.append(&mut sub.diags);
        self.defs.append(&mut sub.defs);
        true
    }

    /// Reports `i..e` when it contains the type DSL (it cannot be read).
    fn opaque(&mut self, i: usize, e: usize, what: &str) {
        let snip = self.snippet(i, e);
        if let Some((j, w)) = self.find_words(i, e, DSL_WORDS) {
            self.diag(Severity::Error, j, format!("`{w}` inside {what}: `{snip}`"));
        } else if let Some((j, w)) = self.find_words(i, e, HINT_WORDS) {
            self.diag(
                Severity::Warning,
                j,
                format!("`{w}` inside {what}: `{snip}`"),
            );
        }
    }

    fn def_stmt(&mut self, i: usize, e: usize, info: &mut ResourceTypeInfo) {
        let singleton =
            ident(self.toks.get(i + 1)) == Some("self") && punct(self.toks.get(i + 2), ".");
        let name_at = if singleton { i + 3 } else { i + 1 };
        let name = match self.toks.get(name_at).map(|t| &t.tok) {
            Some(Tok::Ident(n)) | Some(Tok::Const(n)) => n.clone(),
            _ => String::new(),
        };
        if singleton && name == "title_patterns" {
            let end = self.close[i].unwrap_or(e).min(e);
            let mut a = name_at + 1;
            if punct(self.toks.get(a), "(") {
                a = self.skip(a);
            }
            self.title_patterns(a, end, info, i);
        } else if !singleton {
            self.defs.push(name);
        }
    }
}

/// Reads a module type file statically.
///
/// Returns the type, or a [`Diagnostic`] (severity [`Severity::Error`])
/// listing every construct that could not be understood: the parameters,
/// properties or namevars would otherwise be a guess. Warnings (allowed
/// values, autorequire hints not readable) do not make it fail; use
/// [`parse_ruby_type_with_diagnostics`] to see them.
///
/// ```
/// let src = r#"
/// Puppet::Type.newtype(:ini_thing) do
///   ensurable
///   newparam(:name, :namevar => true) { desc 'the name' }
///   newparam(:path) do
///     isnamevar
///   end
///   newproperty(:value) do
///     newvalues(:on, :off)
///   end
///   autorequire(:file) { [self[:path]] }
///   def self.title_patterns
///     [ [ /^(.*?)\/(.*)$/, [ [:path], [:name] ] ], [ /(.*)/m, [ [:name] ] ] ]
///   end
/// end
/// "#;
/// let t = puppet_restypes::parse_ruby_type(src, "lib/puppet/type/ini_thing.rb").unwrap();
/// assert_eq!(t.namevars, ["name", "path"]);
/// assert!(t.has_ensure());
/// assert_eq!(t.attributes["value"].values.as_deref().unwrap(), ["on", "off"]);
/// assert_eq!(t.autorequires, ["file"]);
/// assert_eq!(t.title_patterns[0].captures, ["path", "name"]);
///
/// let err = puppet_restypes::parse_ruby_type(
///     "Puppet::Type.newtype(:x) do\n  PARAMS.each { |p| newparam(p) }\nend\n", "x.rb").unwrap_err();
/// assert!(err.message.contains("newparam"));
/// ```
pub fn parse_ruby_type(source: &str, path: &str) -> Result<ResourceTypeInfo, Diagnostic> {
    let (info, diags) = parse_ruby_type_with_diagnostics(source, path);
    let errors: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    match (info, errors.first()) {
        (Some(info), None) => Ok(info),
        (_, Some(first)) => Err(Diagnostic {
            severity: Severity::Error,
            path: path.to_string(),
            line: first.line,
            message: errors
                .iter()
                .map(|d| format!("line {}: {}", d.line, d.message))
                .collect::<Vec<_>>()
                .join("; "),
        }),
        (None, None) => Err(Diagnostic {
            severity: Severity::Error,
            path: path.to_string(),
            line: 0,
            message: "no `Puppet::Type.newtype(:name) do ... end` found".into(),
        }),
    }
}

/// Like [`parse_ruby_type`], but returns what could be read (marked
/// incomplete when there are errors) together with all diagnostics.
pub fn parse_ruby_type_with_diagnostics(
    source: &str,
    path: &str,
) -> (Option<ResourceTypeInfo>, Vec<Diagnostic>) {
    parse_ruby_type_partial(source, path, module_of_path(path), &RubyLib::default())
}

/// The module name in `.../<module>/lib/puppet/type/x.rb`, or "".
fn module_of_path(path: &str) -> &str {
    let p = path.trim_end_matches(|c| c != '/');
    let parts: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
    if parts.len() >= 4 && parts[parts.len() - 3..] == ["lib", "puppet", "type"] {
        parts[parts.len() - 4]
    } else {
        ""
    }
}

pub(crate) fn parse_ruby_type_partial(
    source: &str,
    path: &str,
    module: &str,
    lib: &RubyLib,
) -> (Option<ResourceTypeInfo>, Vec<Diagnostic>) {
    let toks = tokenize(source);
    let close = match_blocks(&toks);
    let mut cx = Cx {
        toks: &toks,
        close,
        path,
        diags: Vec::new(),
        defs: Vec::new(),
        subst: None,
        lib,
        extends: Vec::new(),
        mixin_depth: 0,
    };
    // find `Type.newtype(` (usually `Puppet::Type.newtype`)
    let mut found = None;
    for i in 0..toks.len() {
        if ident(toks.get(i)) == Some("newtype")
            && i >= 2
            && punct(toks.get(i - 1), ".")
            && matches!(&toks[i - 2].tok, Tok::Const(c) if c == "Type")
        {
            if found.is_some() {
                cx.diag(
                    Severity::Error,
                    i,
                    "several `newtype` calls in one file".into(),
                );
                break;
            }
            found = Some(i);
        }
    }
    let Some(nt) = found else {
        cx.diag(
            Severity::Error,
            0,
            "no `Puppet::Type.newtype(:name) do ... end` found".into(),
        );
        return (None, cx.diags);
    };
    let end = toks.len();
    let (aa, ab, after) = cx.call_args(nt, end);
    let args = cx.split_args(aa, ab);
    let name = args.first().and_then(|&(s, t)| {
        if t == s + 1 {
            literal_name(&toks[s])
        } else {
            None
        }
    });
    let Some(name) = name else {
        let snip = cx.snippet(nt, ab);
        cx.diag(
            Severity::Error,
            nt,
            format!("type name is not a literal: `{snip}`"),
        );
        return (None, cx.diags);
    };
    for &(s, t) in args.iter().skip(1) {
        if matches!(&toks[s].tok, Tok::Label(k) if k == "parent")
            || matches!(&toks[s].tok, Tok::Sym(k) if k == "parent")
        {
            let snip = cx.snippet(s, t);
            cx.diag(
                Severity::Error,
                s,
                format!("type inherits attributes from a parent: `{snip}`"),
            );
        }
    }
    let source_kind = TypeSource::RubySource {
        module: SmolStr::new(module),
        path: path.to_string(),
    };
    let mut info = ResourceTypeInfo::new(&name, source_kind);
    match cx.block_at(after, end) {
        Some((ba, bb, _)) => cx.type_body(ba, bb, &mut info),
        None => {
            cx.diag(
                Severity::Error,
                nt,
                format!("`newtype(:{name})` without a `do ... end` block"),
            );
        }
    }
    // Puppet makes a type ensurable when it defines exists?, create, destroy.
    if !info.attributes.contains_key("ensure")
        && ["exists?", "create", "destroy"]
            .iter()
            .all(|m| cx.defs.iter().any(|d| d == m))
    {
        let mut a = Attribute::new("ensure", AttrKind::Property);
        a.values = Some(vec![SmolStr::new("present"), SmolStr::new("absent")]);
        info.attributes.insert(SmolStr::new("ensure"), a);
    }
    info.recompute_namevars();
    if info.title_patterns.is_empty() {
        if let Some(nv) = info.single_namevar() {
            info.title_patterns = vec![TitlePattern::default_for(nv)];
        } else if info.namevars.len() > 1 {
            cx.diag(
                Severity::Warning,
                nt,
                "several namevars but no literal `self.title_patterns` (Puppet raises an error when a title is parsed)".into(),
            );
        }
    }
    info.complete = !cx.diags.iter().any(|d| d.severity == Severity::Error);
    (Some(info), cx.diags)
}
