//! A seeded generator of Puppet programs for differential testing against Puppet 7.23.
//!
//! [`program`] turns a seed into the text of a main manifest that mixes what catalogs are
//! made of: classes with typed parameters and defaults, inheritance, `include`, `require`,
//! `contain` and resource-like declarations, stages, defined types, resources of core types
//! with metaparameters (relationships, tags, `noop`, `alias`), resource defaults, overrides,
//! virtual and exported resources, collectors with queries (and override blocks),
//! `realize`, `tag`/`tagged`, chains of relationships, node definitions, lambdas and
//! iteration, string interpolation, selectors, `case`/`if`/`unless`, type checks and
//! `lookup` with defaults (no Hiera data). Values computed by expressions end up in resource
//! parameters, so that evaluation differences show in the catalog.
//!
//! The same seed always gives the same text (the generator draws from its own [`Rng`]).
//! Programs are meant to compile; about one in eight also gets one statement meant to fail
//! in a specific way (a duplicate declaration, a missing relationship target, a type
//! mismatch, `fail()`...), so that error texts are compared as well. What Puppet answers is
//! the reference either way: a "valid" program that Puppet rejects is as useful a case.
//!
//! This is test tooling: it knows nothing of the compiler and is not a fuzzer of the parser
//! (see `fuzz/` for that).

use crate::rng::Rng;
use std::fmt::Write as _;

/// The program of `seed`.
///
/// ```
/// let a = puppet_difftest::program(42);
/// assert_eq!(a, puppet_difftest::program(42));
/// assert_ne!(a, puppet_difftest::program(43));
/// ```
pub fn program(seed: u64) -> String {
    let mut g = Gen::new(seed);
    g.program();
    g.out
}

/// The value kinds expressions are generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Str,
    Bool,
    Arr,
    Hash,
}

const KINDS: [Kind; 5] = [Kind::Int, Kind::Str, Kind::Bool, Kind::Arr, Kind::Hash];

#[derive(Debug, Clone)]
struct Param {
    name: String,
    kind: Kind,
    /// A default expression is written.
    has_default: bool,
}

#[derive(Debug, Clone)]
struct ClassSpec {
    name: String,
    params: Vec<Param>,
    parent: Option<String>,
    /// Declared with `class { ... }` (once) rather than `include`.
    resource_like: bool,
    declared: bool,
    /// Resources its body declares (references to them are valid once it is declared).
    resources: Vec<String>,
}

#[derive(Debug, Clone)]
struct DefineSpec {
    name: String,
    params: Vec<Param>,
}

/// Variables visible in the scope being generated.
#[derive(Debug, Clone, Default)]
struct Scope {
    vars: Vec<(String, Kind)>,
}

struct Gen {
    rng: Rng,
    out: String,
    counter: usize,
    classes: Vec<ClassSpec>,
    defines: Vec<DefineSpec>,
    /// References (`Notify['x']`) of real resources that exist whatever else happens.
    refs: Vec<String>,
    /// Titles of virtual notify resources and the tag each carries.
    virtuals: Vec<(String, String)>,
    /// Tags used on resources (for collectors and `tagged`).
    tags: Vec<String>,
    /// Top-level variables (visible everywhere).
    top: Scope,
    depth: usize,
    /// Interpolations every title must carry here (`${title}` in a defined type, the index
    /// of each enclosing loop), so that titles stay unique.
    title_vars: Vec<String>,
    /// Inside a conditional or a loop: what is declared there may not exist.
    cond: usize,
    /// Inside a class or defined type body.
    in_body: bool,
    /// The one failure this program carries, if any, and whether it was placed.
    inject: Option<usize>,
    injected: bool,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut rng = Rng::new(seed);
        let inject = rng.chance(12).then(|| rng.below(INJECTIONS));
        Gen {
            rng,
            out: String::new(),
            counter: 0,
            classes: Vec::new(),
            defines: Vec::new(),
            refs: Vec::new(),
            virtuals: Vec::new(),
            tags: vec!["gen".into()],
            top: Scope::default(),
            depth: 0,
            title_vars: Vec::new(),
            cond: 0,
            in_body: false,
            inject,
            injected: false,
        }
    }

    fn any_kind(&mut self) -> Kind {
        *self.rng.pick(&KINDS)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    /// A new title: its Puppet text, and the plain title when a reference to it is valid
    /// everywhere (not built from variables, not declared conditionally).
    fn title(&mut self, prefix: &str) -> (String, Option<String>) {
        let base = self.fresh(prefix);
        if self.title_vars.is_empty() {
            let plain = (self.cond == 0).then(|| base.clone());
            (format!("'{base}'"), plain)
        } else {
            (format!("\"{base}-{}\"", self.title_vars.join("-")), None)
        }
    }

    /// Notes a reference to a resource declared with `plain` title (see [`Gen::title`]).
    fn note_ref(&mut self, type_name: &str, plain: &Option<String>) {
        if let Some(t) = plain {
            self.refs.push(format!("{type_name}['{t}']"));
        }
    }

    // ---- the program ------------------------------------------------------------------

    fn program(&mut self) {
        // Top-level variables first: everything else may read them.
        for _ in 0..self.rng.range(2, 5) {
            let mut scope = self.top.clone();
            let stmt = self.assignment(&mut scope);
            self.top = scope;
            self.out.push_str(&stmt);
        }
        // Plan the definitions, so that declarations can refer to them.
        for _ in 0..self.rng.range(0, 3) {
            let d = DefineSpec {
                name: self.fresh("gd"),
                params: self.params(),
            };
            self.defines.push(d);
        }
        for i in 0..self.rng.range(1, 4) {
            let candidates: Vec<usize> = (0..self.classes.len())
                .filter(|&k| self.classes[k].params.iter().all(|p| p.has_default))
                .collect();
            let parent = if i > 0 && !candidates.is_empty() && self.rng.chance(30) {
                let k = *self.rng.pick(&candidates);
                // A parent is evaluated when a child is; declaring it resource-like later
                // would be a second declaration.
                self.classes[k].resource_like = false;
                Some(self.classes[k].name.clone())
            } else {
                None
            };
            let c = ClassSpec {
                name: self.fresh("gc"),
                params: if parent.is_some() {
                    Vec::new()
                } else {
                    self.params()
                },
                parent,
                resource_like: self.rng.chance(35),
                declared: false,
                resources: Vec::new(),
            };
            self.classes.push(c);
        }
        // Definitions go before or after the code that uses them (Puppet hoists them).
        let defs_first = self.rng.chance(60);
        let mut defs = String::new();
        for i in 0..self.defines.len() {
            defs.push_str(&self.define_text(i));
        }
        for i in 0..self.classes.len() {
            defs.push_str(&self.class_text(i));
        }
        if defs_first {
            self.out.push_str(&defs);
        }
        // Top-level code.
        if self.rng.chance(25) {
            let d = self.defaults_stmt();
            self.out.push_str(&d);
        }
        let mut scope = self.top.clone();
        for _ in 0..self.rng.range(2, 6) {
            let s = self.resource_stmt(&mut scope, "");
            self.out.push_str(&s);
        }
        if self.rng.chance(20) {
            self.out
                .push_str("stage { 'gen_pre': before => Stage['main'] }\n");
        }
        let use_node = self.rng.chance(40);
        let mut node_body = String::new();
        for i in 0..self.classes.len() {
            let text = self.declare_class(i);
            if use_node && self.rng.chance(50) {
                node_body.push_str("  ");
                node_body.push_str(&text);
            } else {
                self.out.push_str(&text);
            }
        }
        for i in 0..self.defines.len() {
            for _ in 0..self.rng.range(1, 2) {
                let text = self.define_instance(i, &scope);
                self.out.push_str(&text);
            }
        }
        for _ in 0..self.rng.range(0, 3) {
            let s = self.statement(&mut scope, "");
            self.out.push_str(&s);
        }
        self.virtual_and_collect(&mut scope);
        for _ in 0..self.rng.range(0, 3) {
            if let Some(c) = self.chain() {
                self.out.push_str(&c);
            }
        }
        if use_node {
            let matcher = match self.rng.below(4) {
                0 => "'node.example.com'".to_string(),
                1 => "default".to_string(),
                2 => "/^node\\./".to_string(),
                _ => "'other.example.com', 'node.example.com'".to_string(),
            };
            let mut node_scope = self.top.clone();
            let extra = self.statement(&mut node_scope, "  ");
            let _ = write!(self.out, "node {matcher} {{\n{node_body}{extra}}}\n");
            if self.rng.chance(50) {
                self.out
                    .push_str("node 'elsewhere.example.com' { notify { 'never here': } }\n");
            }
        }
        if !defs_first {
            self.out.push_str(&defs);
        }
        if self.inject.is_some() && !self.injected {
            let s = self.injection();
            self.out.push_str(&s);
        }
    }

    fn params(&mut self) -> Vec<Param> {
        (0..self.rng.range(0, 3))
            .map(|_| Param {
                name: self.fresh("p"),
                kind: *self.rng.pick(&KINDS),
                has_default: self.rng.chance(80),
            })
            .collect()
    }

    fn param_list(&mut self, params: &[Param]) -> String {
        let mut parts = Vec::new();
        for p in params {
            let typed = self.rng.chance(70);
            let mut s = String::new();
            if typed {
                s.push_str(type_of(p.kind));
                s.push(' ');
            }
            let _ = write!(s, "${}", p.name);
            if p.has_default {
                let v = self.expr(p.kind, &Scope::default(), 1);
                let _ = write!(s, " = {v}");
            }
            parts.push(s);
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("({})", parts.join(", "))
        }
    }

    fn define_text(&mut self, i: usize) -> String {
        let d = self.defines[i].clone();
        let mut scope = self.top.clone();
        for p in &d.params {
            scope.vars.push((p.name.clone(), p.kind));
        }
        let params = self.param_list(&d.params);
        self.in_body = true;
        self.title_vars.push("${title}".into());
        let mut body = String::new();
        let msg = self.string_expr(&scope, 1);
        let _ = writeln!(
            body,
            "  notify {{ \"{}-${{title}}\": message => {msg} }}",
            d.name
        );
        for _ in 0..self.rng.range(0, 2) {
            let s = self.statement(&mut scope, "  ");
            body.push_str(&s);
        }
        self.title_vars.pop();
        self.in_body = false;
        format!("define {}{params} {{\n{body}}}\n", d.name)
    }

    fn class_text(&mut self, i: usize) -> String {
        let c = self.classes[i].clone();
        let mut scope = self.top.clone();
        for p in &c.params {
            scope.vars.push((p.name.clone(), p.kind));
        }
        if let Some(parent) = &c.parent {
            if let Some(pc) = self.classes.iter().find(|x| &x.name == parent) {
                for p in &pc.params {
                    scope.vars.push((p.name.clone(), p.kind));
                }
            }
        }
        let params = self.param_list(&c.params);
        let inherits = c
            .parent
            .as_ref()
            .map(|p| format!(" inherits {p}"))
            .unwrap_or_default();
        self.in_body = true;
        let mut body = String::new();
        if self.rng.chance(25) {
            body.push_str("  ");
            body.push_str(&self.defaults_stmt());
        }
        let title = self.fresh("cn");
        let _ = writeln!(
            body,
            "  notify {{ '{title}': message => {} }}",
            self.string_expr(&scope, 1)
        );
        self.classes[i].resources.push(format!("Notify['{title}']"));
        for _ in 0..self.rng.range(0, 3) {
            let s = self.statement(&mut scope, "  ");
            body.push_str(&s);
        }
        // A subclass may override what its parent declared.
        if let Some(parent) = &c.parent {
            let parent_res = self
                .classes
                .iter()
                .find(|x| &x.name == parent)
                .and_then(|p| p.resources.first().cloned());
            if let (Some(r), true) = (parent_res, self.rng.chance(60)) {
                let op = if self.rng.chance(30) { "+>" } else { "=>" };
                let attr = if op == "+>" { "tag" } else { "message" };
                let v = if op == "+>" {
                    "'from_child'".to_string()
                } else {
                    self.string_expr(&scope, 1)
                };
                let _ = writeln!(body, "  {r} {{ {attr} {op} {v} }}");
            }
        }
        if self.rng.chance(20) {
            let (title, _) = self.title("tg");
            let _ = writeln!(
                body,
                "  notify {{ {title}: message => \"tagged=${{tagged('gen')}} class=${{tagged('{}')}}\" }}",
                c.name
            );
        }
        if self.inject.is_some() && !self.injected && self.rng.chance(30) {
            let s = self.injection();
            body.push_str("  ");
            body.push_str(&s);
        }
        self.in_body = false;
        format!("class {}{params}{inherits} {{\n{body}}}\n", c.name)
    }

    fn declare_class(&mut self, i: usize) -> String {
        let c = self.classes[i].clone();
        self.classes[i].declared = true;
        let missing_required = c.params.iter().any(|p| !p.has_default);
        if c.resource_like || missing_required {
            let mut attrs = Vec::new();
            for p in &c.params {
                if !p.has_default || self.rng.chance(50) {
                    let v = self.expr(p.kind, &self.top.clone(), 1);
                    attrs.push(format!("{} => {v}", p.name));
                }
            }
            if self.rng.chance(15) {
                attrs.push("stage => 'main'".into());
            }
            if self.rng.chance(15) {
                attrs.push(format!("tag => '{}'", self.tag()));
            }
            let mut text = format!("class {{ '{}': {} }}\n", c.name, attrs.join(", "));
            if self.rng.chance(20) {
                let _ = writeln!(text, "include {}", c.name);
            }
            text
        } else {
            let how = *self.rng.pick(&["include", "include", "require", "contain"]);
            let mut text = format!("{how} {}\n", c.name);
            if self.rng.chance(15) {
                let _ = writeln!(text, "include '{}'", c.name);
            }
            text
        }
    }

    fn define_instance(&mut self, i: usize, scope: &Scope) -> String {
        let d = self.defines[i].clone();
        let title = self.fresh("di");
        let mut attrs = Vec::new();
        for p in &d.params {
            if !p.has_default || self.rng.chance(50) {
                attrs.push(format!("{} => {}", p.name, self.expr(p.kind, scope, 1)));
            }
        }
        attrs.extend(self.metaparams());
        let virt = self.rng.chance(10);
        let r = format!("{}['{title}']", capitalize(&d.name));
        if !virt {
            self.refs.push(r);
        }
        format!(
            "{}{} {{ '{title}': {} }}\n",
            if virt { "@" } else { "" },
            d.name,
            attrs.join(", ")
        )
    }

    fn metaparams(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.refs.is_empty() && self.rng.chance(35) {
            let param = *self.rng.pick(&["before", "require", "notify", "subscribe"]);
            let target = self.rng.pick(&self.refs).clone();
            out.push(format!("{param} => {target}"));
        }
        if self.rng.chance(25) {
            let t = self.tag();
            if self.rng.chance(30) {
                out.push(format!("tag => ['{t}', 'gen']"));
            } else {
                out.push(format!("tag => '{t}'"));
            }
        }
        if self.rng.chance(8) {
            out.push(format!("noop => {}", self.rng.chance(50)));
        }
        if self.rng.chance(5) {
            out.push("loglevel => 'info'".into());
        }
        out
    }

    fn tag(&mut self) -> String {
        if self.tags.len() < 4 && self.rng.chance(50) {
            let t = self.fresh("t");
            self.tags.push(t.clone());
            t
        } else {
            self.rng.pick(&self.tags).clone()
        }
    }

    fn defaults_stmt(&mut self) -> String {
        match self.rng.below(3) {
            0 => "Notify { loglevel => 'notice' }\n".into(),
            1 => format!("Notify {{ tag => '{}' }}\n", self.tag()),
            _ => "File { mode => '0644', owner => 'root' }\n".into(),
        }
    }

    // ---- statements -------------------------------------------------------------------

    fn statement(&mut self, scope: &mut Scope, ind: &str) -> String {
        self.depth += 1;
        let s = if self.depth > 3 {
            self.resource_stmt(scope, ind)
        } else {
            match self.rng.below(12) {
                0..=2 => self.resource_stmt(scope, ind),
                3 => self.assignment(scope),
                4 => self.if_stmt(scope, ind),
                5 => self.case_stmt(scope, ind),
                6 => self.each_stmt(scope, ind),
                7 => self.notice_stmt(scope),
                8 => self.unless_stmt(scope, ind),
                9 => self.lookup_stmt(scope),
                10 => self.type_check_stmt(scope),
                _ => self.override_stmt(),
            }
        };
        self.depth -= 1;
        format!("{ind}{}", s.trim_start())
    }

    fn resource_stmt(&mut self, scope: &mut Scope, ind: &str) -> String {
        let _ = ind;
        let meta = self.metaparams();
        let fixed = self.title_vars.is_empty();
        match self.rng.below(10) {
            0..=4 => {
                let (title, plain) = self.title("n");
                let mut attrs = vec![format!("message => {}", self.string_expr(scope, 2))];
                if fixed && self.rng.chance(10) {
                    let alias = self.fresh("al");
                    attrs.push(format!("alias => '{alias}'"));
                }
                if self.rng.chance(10) {
                    attrs.push(format!("withpath => {}", self.rng.chance(50)));
                }
                attrs.extend(meta);
                if fixed && self.cond == 0 && self.rng.chance(8) {
                    // Virtual: realized by `realize` or a collector, or never.
                    let tag = self.tag();
                    if let Some(t) = &plain {
                        self.virtuals.push((t.clone(), tag.clone()));
                    }
                    attrs.retain(|a| !a.starts_with("tag =>"));
                    return format!(
                        "@notify {{ {title}: tag => '{tag}', {} }}\n",
                        attrs.join(", ")
                    );
                }
                let exported = self.rng.chance(4);
                if !exported {
                    self.note_ref("Notify", &plain);
                }
                format!(
                    "{}notify {{ {title}: {} }}\n",
                    if exported { "@@" } else { "" },
                    attrs.join(", ")
                )
            }
            5 | 6 => {
                let (name, plain) = self.title("f");
                let path = if fixed {
                    format!("'/tmp/gen/{}'", name.trim_matches('\''))
                } else {
                    format!("\"/tmp/gen/{}", &name[1..])
                };
                let mut attrs = vec![format!(
                    "ensure => {}",
                    self.rng
                        .pick(&["'file'", "'present'", "'directory'", "'absent'"])
                )];
                if self.rng.chance(60) {
                    attrs.push(format!("content => {}", self.string_expr(scope, 1)));
                }
                if self.rng.chance(30) {
                    attrs.push("mode => '0600'".into());
                }
                attrs.extend(meta);
                if fixed && self.rng.chance(20) {
                    // Titled otherwise, found by its path too.
                    attrs.push(format!("path => {path}"));
                    self.note_ref("File", &plain);
                    format!("file {{ {name}: {} }}\n", attrs.join(", "))
                } else {
                    if let Some(p) = &plain {
                        self.refs.push(format!("File['/tmp/gen/{p}']"));
                    }
                    format!("file {{ {path}: {} }}\n", attrs.join(", "))
                }
            }
            7 => {
                let (title, plain) = self.title("x");
                let mut attrs = vec!["command => '/bin/true'".to_string()];
                if self.rng.chance(40) {
                    attrs.push("refreshonly => true".into());
                }
                if self.rng.chance(30) {
                    attrs.push("unless => '/bin/false'".into());
                }
                if self.rng.chance(30) {
                    attrs.push("path => ['/bin', '/usr/bin']".into());
                }
                attrs.extend(meta);
                self.note_ref("Exec", &plain);
                format!("exec {{ {title}: {} }}\n", attrs.join(", "))
            }
            8 => {
                let (title, plain) = self.title("pkg");
                let mut attrs = vec![format!(
                    "ensure => {}",
                    self.rng
                        .pick(&["'installed'", "'1.2.3'", "'latest'", "absent"])
                )];
                if fixed && self.rng.chance(30) {
                    let n = self.fresh("pkgname");
                    attrs.push(format!("name => '{n}'"));
                    if self.cond == 0 && self.rng.chance(50) {
                        // Found by its name as well as by its title.
                        self.refs.push(format!("Package['{n}']"));
                    }
                }
                attrs.extend(meta);
                self.note_ref("Package", &plain);
                format!("package {{ {title}: {} }}\n", attrs.join(", "))
            }
            _ => {
                // Several titles in one body, and a `default:` body.
                let (a, pa) = self.title("m");
                let (b, pb) = self.title("m");
                let v = self.string_expr(scope, 1);
                self.note_ref("Notify", &pa);
                self.note_ref("Notify", &pb);
                format!(
                    "notify {{ default: message => {v}; [{a}, {b}]: {} }}\n",
                    meta.join(", ")
                )
            }
        }
    }

    fn assignment(&mut self, scope: &mut Scope) -> String {
        let kind = *self.rng.pick(&KINDS);
        let name = self.fresh("v");
        let e = self.expr(kind, scope, 2);
        scope.vars.push((name.clone(), kind));
        format!("${name} = {e}\n")
    }

    fn block(&mut self, scope: &Scope, ind: &str) -> String {
        let inner = format!("{ind}  ");
        let mut s = scope.clone();
        let mut out = String::new();
        self.cond += 1;
        for _ in 0..self.rng.range(1, 2) {
            out.push_str(&self.statement(&mut s, &inner));
        }
        self.cond -= 1;
        out
    }

    fn if_stmt(&mut self, scope: &mut Scope, ind: &str) -> String {
        let c = self.expr(Kind::Bool, scope, 2);
        let then = self.block(scope, ind);
        let mut s = format!("if {c} {{\n{then}{ind}}}");
        if self.rng.chance(40) {
            let c2 = self.expr(Kind::Bool, scope, 1);
            let b = self.block(scope, ind);
            let _ = write!(s, " elsif {c2} {{\n{b}{ind}}}");
        }
        if self.rng.chance(50) {
            let b = self.block(scope, ind);
            let _ = write!(s, " else {{\n{b}{ind}}}");
        }
        s.push('\n');
        s
    }

    fn unless_stmt(&mut self, scope: &mut Scope, ind: &str) -> String {
        let c = self.expr(Kind::Bool, scope, 2);
        let then = self.block(scope, ind);
        format!("unless {c} {{\n{then}{ind}}}\n")
    }

    fn case_stmt(&mut self, scope: &mut Scope, ind: &str) -> String {
        let subject = self.expr(Kind::Str, scope, 1);
        let mut s = format!("case {subject} {{\n");
        let options = [
            "'a', 'b'",
            "/^[a-m]/",
            "String[1, 3]",
            "Integer",
            "'node.example.com'",
        ];
        for _ in 0..self.rng.range(1, 3) {
            let o = *self.rng.pick(&options);
            let b = self.block(scope, &format!("{ind}  "));
            let _ = write!(s, "{ind}  {o}: {{\n{b}{ind}  }}\n");
        }
        if self.rng.chance(70) {
            let b = self.block(scope, &format!("{ind}  "));
            let _ = write!(s, "{ind}  default: {{\n{b}{ind}  }}\n");
        }
        let _ = writeln!(s, "{ind}}}");
        s
    }

    fn each_stmt(&mut self, scope: &mut Scope, ind: &str) -> String {
        let arr = self.sub(Kind::Arr, scope, 1);
        let x = self.fresh("e");
        let i = self.fresh("i");
        let mut inner = scope.clone();
        inner.vars.push((x.clone(), Kind::Str));
        inner.vars.push((i.clone(), Kind::Int));
        self.title_vars.push(format!("${{{i}}}"));
        self.cond += 1;
        let (title, _) = self.title("loop");
        let msg = self.string_expr(&inner, 1);
        let mut s =
            format!("{arr}.each |${i}, ${x}| {{\n{ind}  notify {{ {title}: message => {msg} }}\n");
        if self.rng.chance(30) {
            let b = self.block(&inner, ind);
            s.push_str(&b);
        }
        self.cond -= 1;
        self.title_vars.pop();
        let _ = writeln!(s, "{ind}}}");
        s
    }

    fn notice_stmt(&mut self, scope: &mut Scope) -> String {
        let kind = *self.rng.pick(&KINDS);
        let e = self.expr(kind, scope, 2);
        format!("notice({e})\n")
    }

    fn lookup_stmt(&mut self, scope: &mut Scope) -> String {
        let name = self.fresh("v");
        let key = self.fresh("gen::key");
        let (e, kind) = match self.rng.below(4) {
            0 => (format!("lookup('{key}', Integer, 'first', 42)"), Kind::Int),
            1 => (
                format!("lookup('{key}', {{ 'default_value' => 'dflt' }})"),
                Kind::Str,
            ),
            2 => (
                format!("lookup({{ 'name' => '{key}', 'default_value' => [1, 2] }})"),
                Kind::Arr,
            ),
            _ => (
                format!("lookup('{key}', undef, undef, {{ 'a' => 1 }})"),
                Kind::Hash,
            ),
        };
        scope.vars.push((name.clone(), kind));
        format!("${name} = {e}\n")
    }

    fn type_check_stmt(&mut self, scope: &mut Scope) -> String {
        let kind = *self.rng.pick(&KINDS);
        let e = self.expr(kind, scope, 1);
        let t = type_of(kind);
        match self.rng.below(3) {
            0 => format!("assert_type({t}, {e})\n"),
            1 => {
                let (title, plain) = self.title("ty");
                self.note_ref("Notify", &plain);
                format!(
                    "notify {{ {title}: message => \"${{type({e}, 'generalized')}} ${{{e} =~ {t}}}\" }}\n"
                )
            }
            _ => {
                let name = self.fresh("v");
                scope.vars.push((name.clone(), Kind::Str));
                format!("${name} = String({e})\n")
            }
        }
    }

    fn override_stmt(&mut self) -> String {
        // Top-level code may override a top-level resource's attributes that its own
        // declaration did not set (Puppet checks who set what).
        if self.in_body || !self.title_vars.is_empty() {
            return String::new();
        }
        let Some(r) = self
            .refs
            .iter()
            .find(|r| r.starts_with("Notify['n"))
            .cloned()
        else {
            return String::new();
        };
        match self.rng.below(3) {
            0 => format!("{r} {{ loglevel => 'warning' }}\n"),
            1 => format!("{r} {{ tag +> ['{}'] }}\n", self.tag()),
            _ => format!("{r} {{ withpath => true }}\n"),
        }
    }

    fn virtual_and_collect(&mut self, scope: &mut Scope) {
        if self.virtuals.is_empty() && self.rng.chance(50) {
            let t = self.fresh("v");
            let tag = self.tag();
            let m = self.string_expr(scope, 1);
            let _ = writeln!(
                self.out,
                "@notify {{ '{t}': tag => '{tag}', message => {m} }}"
            );
            self.virtuals.push((t, tag));
        }
        if self.virtuals.is_empty() {
            return;
        }
        let (title, tag) = self.rng.pick(&self.virtuals).clone();
        match self.rng.below(5) {
            0 => {
                let _ = writeln!(self.out, "realize(Notify['{title}'])");
                self.refs.push(format!("Notify['{title}']"));
            }
            1 => {
                let _ = writeln!(self.out, "Notify <| tag == '{tag}' |>");
            }
            2 => {
                let _ = writeln!(
                    self.out,
                    "Notify <| title == '{title}' or tag == 'none' |> {{ loglevel => 'err' }}"
                );
                self.refs.push(format!("Notify['{title}']"));
            }
            3 => {
                if let Some(r) = self.refs.first().cloned() {
                    let _ = writeln!(self.out, "Notify <| tag == '{tag}' |> -> {r}");
                }
            }
            _ => {
                // Never realized: present in the compiler's catalog only.
            }
        }
    }

    fn chain(&mut self) -> Option<String> {
        let mut ends: Vec<String> = self.refs.clone();
        for c in &self.classes {
            if c.declared {
                ends.push(format!("Class['{}']", c.name));
                ends.extend(c.resources.iter().cloned());
            }
        }
        if ends.len() < 2 {
            return None;
        }
        let n = self.rng.range(2, 3) as usize;
        let mut parts = Vec::new();
        for _ in 0..n {
            let e = self.rng.pick(&ends).clone();
            if self.rng.chance(15) {
                parts.push(format!("[{e}]"));
            } else {
                parts.push(e);
            }
        }
        let mut s = parts[0].clone();
        for p in &parts[1..] {
            let arrow = *self.rng.pick(&["->", "~>", "->", "<-", "<~"]);
            let _ = write!(s, " {arrow} {p}");
        }
        s.push('\n');
        Some(s)
    }

    // ---- expressions ------------------------------------------------------------------

    fn var_of(&mut self, scope: &Scope, kind: Kind) -> Option<String> {
        let vs: Vec<&String> = scope
            .vars
            .iter()
            .filter(|(_, k)| *k == kind)
            .map(|(n, _)| n)
            .collect();
        if vs.is_empty() {
            return None;
        }
        let v = self.rng.pick(&vs).to_string();
        Some(format!("${v}"))
    }

    /// An expression that gives a string, for messages.
    fn string_expr(&mut self, scope: &Scope, depth: usize) -> String {
        self.expr(Kind::Str, scope, depth)
    }

    /// An expression written so that it can be an operand or a method receiver: in
    /// parentheses unless it is a variable or a literal.
    fn sub(&mut self, kind: Kind, scope: &Scope, depth: usize) -> String {
        let (text, atomic) = self.expr_atomic(kind, scope, depth);
        if atomic {
            text
        } else {
            format!("({text})")
        }
    }

    fn expr(&mut self, kind: Kind, scope: &Scope, depth: usize) -> String {
        self.expr_atomic(kind, scope, depth).0
    }

    fn expr_atomic(&mut self, kind: Kind, scope: &Scope, depth: usize) -> (String, bool) {
        if depth == 0 || self.rng.chance(25) {
            if self.rng.chance(45) {
                if let Some(v) = self.var_of(scope, kind) {
                    return (v, true);
                }
            }
            return (self.literal(kind), true);
        }
        let d = depth - 1;
        let text = match kind {
            Kind::Int => match self.rng.below(12) {
                0 => format!("{} + {}", self.sub(Kind::Int, scope, d), self.sub(Kind::Int, scope, d)),
                1 => format!("({} - {}) * {}", self.sub(Kind::Int, scope, d), self.sub(Kind::Int, scope, d), self.rng.range(1, 4)),
                2 => format!("{} % {}", self.sub(Kind::Int, scope, d), self.rng.range(1, 7)),
                3 => format!("{} / {}", self.sub(Kind::Int, scope, d), self.rng.range(1, 5)),
                4 => format!("length({})", self.sub(Kind::Arr, scope, d)),
                5 => format!("{}.length", self.sub(Kind::Str, scope, d)),
                6 => format!("max({}, {})", self.sub(Kind::Int, scope, d), self.sub(Kind::Int, scope, d)),
                7 => format!("{}.reduce(0) |$m, $x| {{ $m + 1 }}", self.sub(Kind::Arr, scope, d)),
                8 => format!("{} ? {{ true => 1, default => {} }}", self.sub(Kind::Bool, scope, d), self.sub(Kind::Int, scope, d)),
                9 => format!("Integer('{}')", self.rng.range(0, 999)),
                10 => format!("'{}' + {}", self.rng.range(1, 9), self.sub(Kind::Int, scope, d)),
                _ => format!("if {} {{ {} }} else {{ {} }}", self.sub(Kind::Bool, scope, d), self.sub(Kind::Int, scope, d), self.sub(Kind::Int, scope, d)),
            },
            Kind::Str => match self.rng.below(16) {
                0 | 1 => self.interpolated(scope, d),
                2 => format!("upcase({})", self.sub(Kind::Str, scope, d)),
                3 => format!("{}.downcase", self.sub(Kind::Str, scope, d)),
                4 => format!("join({}, '-')", self.sub(Kind::Arr, scope, d)),
                5 => format!("String({})", { let k = self.any_kind(); self.sub(k, scope, d) }),
                6 => format!("regsubst({}, '[aeiou]', '_', 'G')", self.sub(Kind::Str, scope, d)),
                7 => format!("{}[0, 3]", self.sub(Kind::Str, scope, d)),
                8 => format!("\"${{type({})}}\"", { let k = self.any_kind(); self.sub(k, scope, d) }),
                9 => format!("{} ? {{ /^a/ => 'starts-a', String[5] => 'long', default => 'other' }}", self.sub(Kind::Str, scope, d)),
                10 => format!("inline_epp('<%= $x %>+<%= $y %>', {{ 'x' => {}, 'y' => {} }})", self.sub(Kind::Str, scope, d), self.sub(Kind::Int, scope, d)),
                11 => format!("sprintf('%s:%d', {}, {})", self.sub(Kind::Str, scope, d), self.sub(Kind::Int, scope, d)),
                12 => "\"${facts['clientcert']}/${trusted['hostname']}/${server_facts['servername']}\"".into(),
                13 => format!("capitalize({})", self.sub(Kind::Str, scope, d)),
                14 => format!("{}.map |$k, $v| {{ \"${{k}}=${{v}}\" }}.join(',')", self.sub(Kind::Hash, scope, d)),
                _ => format!("strip(\"  {}  \")", self.rng.pick(&["x", "a b", "tab\\t"])),
            },
            Kind::Bool => match self.rng.below(10) {
                0 => format!("{} == {}", self.sub(Kind::Int, scope, d), self.sub(Kind::Int, scope, d)),
                1 => format!("{} < {}", self.sub(Kind::Int, scope, d), self.sub(Kind::Int, scope, d)),
                2 => format!("{} =~ /[a-f]/", self.sub(Kind::Str, scope, d)),
                3 => format!("{} =~ {}", { let k = self.any_kind(); self.sub(k, scope, d) }, self.rng.pick(&["Integer", "String[1]", "Array[Integer]", "Hash", "Boolean", "Numeric", "Data"])),
                4 => format!("{} in {}", self.sub(Kind::Str, scope, d), self.sub(Kind::Arr, scope, d)),
                5 => format!("!{}", self.sub(Kind::Bool, scope, d)),
                6 => format!("({} and {})", self.sub(Kind::Bool, scope, d), self.sub(Kind::Bool, scope, d)),
                7 => format!("({} or {})", self.sub(Kind::Bool, scope, d), self.sub(Kind::Bool, scope, d)),
                8 => {
                    if let Some(r) = self.refs.last().cloned() {
                        format!("defined({r})")
                    } else {
                        "defined('$facts')".into()
                    }
                }
                _ => format!("{}.empty", self.sub(Kind::Arr, scope, d)),
            },
            Kind::Arr => match self.rng.below(10) {
                0 => format!("[{}, {}]", self.sub(Kind::Str, scope, d), self.sub(Kind::Int, scope, d)),
                1 => format!("{}.map |$x| {{ \"<${{x}}>\" }}", self.sub(Kind::Arr, scope, d)),
                2 => format!("{}.filter |$x| {{ $x =~ String }}", self.sub(Kind::Arr, scope, d)),
                3 => format!("{} + {}", self.sub(Kind::Arr, scope, d), self.sub(Kind::Arr, scope, d)),
                4 => format!("split({}, '')", self.sub(Kind::Str, scope, d)),
                5 => format!("keys({})", self.sub(Kind::Hash, scope, d)),
                6 => format!("{}.sort", self.rng.pick(&["[3, 1, 2]", "['b', 'c', 'a']", "[]"])),
                7 => format!("unique({})", self.sub(Kind::Arr, scope, d)),
                8 => format!("Integer[1, {}].map |$i| {{ $i * 2 }}", self.rng.range(1, 4)),
                _ => format!("{}[1, 2]", self.sub(Kind::Arr, scope, d)),
            },
            Kind::Hash => match self.rng.below(5) {
                0 => format!("{{ 'k' => {}, 'n' => {} }}", self.sub(Kind::Str, scope, d), self.sub(Kind::Int, scope, d)),
                1 => format!("{} + {{ 'extra' => {} }}", self.sub(Kind::Hash, scope, d), self.sub(Kind::Bool, scope, d)),
                2 => format!("{}.filter |$k, $v| {{ $k != 'k' }}", self.sub(Kind::Hash, scope, d)),
                3 => format!("Hash({}.map |$x| {{ [\"${{x}}\", 1] }})", self.sub(Kind::Arr, scope, d)),
                _ => format!("{} - ['n']", self.sub(Kind::Hash, scope, d)),
            },
        };
        (text, false)
    }

    fn interpolated(&mut self, scope: &Scope, depth: usize) -> String {
        let mut s = String::from("\"");
        for _ in 0..self.rng.range(1, 3) {
            match self.rng.below(5) {
                0 => {
                    let words = ["txt", " ", "a-b", "\\n", "$$", "100%", "'q'"];
                    let w: &str = words[self.rng.below(words.len())];
                    s.push_str(w);
                }
                1 => {
                    let k = *self.rng.pick(&KINDS);
                    if let Some(v) = self.var_of(scope, k) {
                        let _ = write!(s, "${{{}}}", &v[1..]);
                    } else {
                        s.push_str("none");
                    }
                }
                2 => {
                    // In parentheses: a bare number would name a match variable (`${1}`).
                    let e = self.expr(Kind::Int, scope, depth.min(1));
                    let _ = write!(s, "${{({e})}}");
                }
                3 => {
                    if let Some(v) = self.var_of(scope, Kind::Hash) {
                        let _ = write!(s, "${{{}['k']}}", &v[1..]);
                    } else if let Some(v) = self.var_of(scope, Kind::Arr) {
                        let _ = write!(s, "${{{}[0]}}", &v[1..]);
                    } else {
                        s.push_str("${title}");
                    }
                }
                _ => {
                    if let Some(v) = self.var_of(scope, Kind::Str) {
                        let _ = write!(s, "${{{}.upcase}}", &v[1..]);
                    } else {
                        s.push_str("${module_name}");
                    }
                }
            }
        }
        s.push('"');
        s
    }

    fn literal(&mut self, kind: Kind) -> String {
        match kind {
            Kind::Int => match self.rng.below(8) {
                0 => format!("0x{:X}", self.rng.range(0, 255)),
                1 => format!("0{:o}", self.rng.range(1, 63)),
                2 => format!("-{}", self.rng.range(1, 50)),
                _ => self.rng.range(0, 100).to_string(),
            },
            Kind::Str => match self.rng.below(8) {
                0 => "''".into(),
                1 => "'it''s'".replace("''", "\\'"),
                2 => "\"tab\\there\"".into(),
                3 => format!(
                    "'{}'",
                    self.rng.pick(&["abc", "Node", "x y", "ünï", "a/b", "42"])
                ),
                4 => "\"dq ${facts['clientversion']}\"".into(),
                _ => format!("'{}'", self.fresh("s")),
            },
            Kind::Bool => self.rng.pick(&["true", "false"]).to_string(),
            Kind::Arr => match self.rng.below(4) {
                0 => "[]".into(),
                1 => format!("['{}', 'b', 'a']", self.fresh("w")),
                2 => "[3, 1, 2]".into(),
                _ => "['x', [1, 2], undef]".into(),
            },
            Kind::Hash => match self.rng.below(3) {
                0 => "{}".into(),
                1 => format!("{{ 'k' => '{}', 'n' => 1 }}", self.fresh("h")),
                _ => "{ 'k' => [1], 'z' => { 'deep' => true } }".into(),
            },
        }
    }

    // ---- failures ---------------------------------------------------------------------

    fn injection(&mut self) -> String {
        self.injected = true;
        let which = self.inject.unwrap_or(0);
        let ref_or = |g: &mut Gen, dflt: &str| -> String {
            g.refs.first().cloned().unwrap_or_else(|| dflt.to_string())
        };
        match which {
            0 => "notify { 'dup': }\nnotify { 'dup': }\n".into(),
            1 => "include gen_no_such_class\n".into(),
            2 => format!(
                "{} -> Notify['gen_missing']\n",
                ref_or(self, "Notify['dup2']")
            ),
            3 => "fail(\"boom ${facts['clientcert']}\")\n".into(),
            4 => "$z = 10 / 0\n".into(),
            5 => "assert_type(String, 5)\n".into(),
            6 => "$z = lookup('gen::nowhere')\n".into(),
            7 => "$z = gen_no_such_function(1)\n".into(),
            8 => "notify { 'bad-attr': nosuch => 1 }\n".into(),
            9 => "$z = 1\n$z = 2\n".into(),
            10 => "gen_no_such_type { 'x': }\n".into(),
            11 => "$z = 'abc' + 1\n".into(),
            12 => "$z = Integer('abc')\n".into(),
            13 => "realize(Notify['gen_never'])\n".into(),
            14 => "Notify['gen_nowhere'] { message => 'x' }\n".into(),
            15 => "notify { 'r': require => 'Notify[gen_absent]' }\n".into(),
            16 => match self.classes.iter().find(|c| !c.params.is_empty()) {
                Some(c) => format!(
                    "class {{ '{}': {} => {} }}\n",
                    c.name,
                    c.params[0].name,
                    wrong_literal(c.params[0].kind)
                ),
                None => "class { 'gen_nothing': }\n".into(),
            },
            17 => match self.defines.first() {
                Some(d) => format!("{} {{ 'bad': nosuch => 1 }}\n", d.name),
                None => "$z = [1, 2][0, 1, 2]\n".into(),
            },
            18 => "$z = { 'a' => 1 }['a']['b']\n".into(),
            _ => "notify { 'unterminated': message => 'x'\n".into(),
        }
    }
}

/// How many kinds of failure [`Gen::injection`] knows.
const INJECTIONS: usize = 20;

fn type_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "Integer",
        Kind::Str => "String",
        Kind::Bool => "Boolean",
        Kind::Arr => "Array",
        Kind::Hash => "Hash",
    }
}

/// A literal of another type than `kind` (for type-mismatch failures).
fn wrong_literal(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "'not a number'",
        Kind::Str => "[1]",
        Kind::Bool => "'yes'",
        Kind::Arr => "{}",
        Kind::Hash => "3",
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::program;

    #[test]
    fn deterministic_and_varied() {
        for seed in 0..50 {
            assert_eq!(program(seed), program(seed));
        }
        let distinct: std::collections::BTreeSet<String> = (0..50).map(program).collect();
        assert_eq!(distinct.len(), 50);
    }

    #[test]
    fn programs_parse() {
        // The generator writes valid syntax except for its one deliberate syntax error.
        let mut bad = Vec::new();
        for seed in 0..300 {
            let text = program(seed);
            let parse = puppet_eval_syntax_errors(&text);
            if parse && !text.contains("'unterminated'") {
                bad.push(seed);
            }
        }
        assert!(bad.is_empty(), "seeds with syntax errors: {bad:?}");
    }

    fn puppet_eval_syntax_errors(text: &str) -> bool {
        let env = puppet_eval::Environment::from_main(None, text);
        env.main_diagnostics()
            .iter()
            .any(|d| d.is_error() && d.code == "SYNTAX_ERROR")
    }
}
