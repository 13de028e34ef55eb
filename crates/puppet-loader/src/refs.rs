//! References between definitions, and the reports built on them: the PUP-121 hazard
//! report (names whose target differs between Puppet 3's relative lookup and modern
//! absolute resolution) and the seed-003 function visibility report.
//!
//! A reference is a name written literally in the source that denotes a class or a defined
//! type: `include`/`require`/`contain` arguments, `class { 'x': }`, `inherits x`, resource
//! types `foo::bar { ... }`, and `Class['x']` / `Foo::Bar['t']` references. Names computed
//! at run time (interpolated strings, variables) are not references here.

use crate::defs::{DefKind, Definition};
use crate::env::{Index, LoadedFile, ResolutionMode};
use puppet_syntax::ast::{self, AstNode, Expr, LiteralKind};
use puppet_syntax::{LineIndex, SyntaxKind, SyntaxNode};
use serde::Serialize;
use smol_str::SmolStr;
use std::path::Path;
use std::sync::Arc;

/// The syntax a reference was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefSyntax {
    /// `include x`, `require x`, `contain x`.
    Include,
    /// `class { 'x': }`.
    ResourceLikeClass,
    /// `class a inherits x`.
    Inherits,
    /// `x { 'title': }` (a defined type, or a built-in resource type).
    ResourceType,
    /// `Class['x']` or `X['title']`.
    TypeReference,
}

/// One literal reference to a class or defined type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub syntax: RefSyntax,
    /// What the reference names: a class, or a defined type.
    pub kind: DefKind,
    /// The name as written (may start with `::`).
    pub name: SmolStr,
    /// The namespace it was written in (Puppet 3's rule: a class's own name; a define's
    /// enclosing namespace; empty at top scope and in nodes).
    pub namespace: SmolStr,
    pub file: Arc<Path>,
    /// Byte range of the name (or the title string).
    pub range: (u32, u32),
    /// 1-based line of the reference.
    pub line: u32,
}

/// A reference whose target depends on the resolution mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hazard {
    pub reference: Reference,
    /// Modern (absolute) target; `None`: not a user definition (a built-in type, or missing).
    pub absolute: Option<Definition>,
    /// Puppet 3 (relative) target.
    pub relative: Option<Definition>,
}

/// A call to a namespaced function of a module the caller does not list as a dependency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VisibilityFinding {
    /// The calling module.
    pub caller: SmolStr,
    /// The function name as written.
    pub function: SmolStr,
    /// The module the function's name belongs to.
    pub function_module: SmolStr,
    /// The Puppet-language definition, when the function is one (Puppet 7.23 resolves such
    /// calls anyway; the seed's rule would refuse them).
    pub definition: Option<Definition>,
    pub file: Arc<Path>,
    pub range: (u32, u32),
    pub line: u32,
}

/// Which functions a module sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Puppet 7.23: every Puppet-language function is visible from everywhere.
    #[default]
    Puppet7,
    /// Seed 003: a module with a `dependencies` list sees only its own functions and those
    /// of the modules it lists; the environment and modules without the list see all.
    Dependencies,
}

/// Puppet's data type names: `Foo[...]` with these is a type, never a resource reference.
const DATA_TYPES: &[&str] = &[
    "any",
    "array",
    "binary",
    "boolean",
    "callable",
    "catalogentry",
    "collection",
    "data",
    "default",
    "deferred",
    "enum",
    "error",
    "float",
    "hash",
    "init",
    "integer",
    "iterable",
    "iterator",
    "notundef",
    "numeric",
    "object",
    "optional",
    "pattern",
    "regexp",
    "richdata",
    "runtime",
    "scalar",
    "scalardata",
    "semver",
    "semverrange",
    "sensitive",
    "string",
    "struct",
    "timespan",
    "timestamp",
    "tuple",
    "type",
    "typeset",
    "undef",
    "variant",
    "resource",
    "uri",
    "typealias",
    "typereference",
    "notundef",
];

fn range_of(r: puppet_syntax::TextRange) -> (u32, u32) {
    (r.start().into(), r.end().into())
}

/// The literal string value of `e`, if it is a plain name or a non-interpolated string.
fn literal_name(e: &Expr) -> Option<(String, (u32, u32))> {
    match e {
        Expr::Name(n) => Some((n.text(), range_of(n.range()))),
        Expr::Literal(l)
            if matches!(l.kind(), Some(LiteralKind::String | LiteralKind::BareWord)) =>
        {
            Some((l.string_value()?, range_of(l.range())))
        }
        Expr::String(s) if !s.is_interpolated() => {
            let text: String = s
                .parts()
                .map(|p| match p {
                    ast::StringPart::Text(t) => ast::unescape_dq(t.text(), "\\\"'nrtsu$"),
                    _ => String::new(),
                })
                .collect();
            Some((text, range_of(s.range())))
        }
        _ => None,
    }
}

/// The qualified name of a class or define node, with enclosing classes in front (as
/// Puppet's parser names nested definitions).
fn qualified_def_name(node: &SyntaxNode) -> Option<String> {
    let own = match node.kind() {
        SyntaxKind::CLASS_DEF => ast::ClassDef::cast(node.clone())?.name(),
        SyntaxKind::DEFINE_DEF => ast::DefineDef::cast(node.clone())?.name(),
        _ => return None,
    };
    let mut prefix = Vec::new();
    for anc in node.ancestors().skip(1) {
        if let Some(c) = ast::ClassDef::cast(anc) {
            prefix.push(c.name());
        }
    }
    prefix.reverse();
    prefix.push(own);
    Some(prefix.join("::"))
}

/// Puppet 3's lookup namespace at `node`.
fn namespace_at(node: &SyntaxNode) -> String {
    for anc in node.ancestors() {
        match anc.kind() {
            SyntaxKind::CLASS_DEF => return qualified_def_name(&anc).unwrap_or_default(),
            SyntaxKind::DEFINE_DEF => {
                let q = qualified_def_name(&anc).unwrap_or_default();
                return q
                    .rsplit_once("::")
                    .map(|(ns, _)| ns.to_string())
                    .unwrap_or_default();
            }
            SyntaxKind::NODE_DEF => return String::new(),
            _ => {}
        }
    }
    String::new()
}

/// Every literal class/define reference in `file`, in source order.
pub fn references_in(file: &LoadedFile) -> Vec<Reference> {
    let mut out = Vec::new();
    let lines = LineIndex::new(&file.text);
    let root = file.parse().syntax();
    let mut push_ns =
        |syntax: RefSyntax, kind: DefKind, name: String, range: (u32, u32), namespace: String| {
            if name.is_empty() || crate::names::canonical(&name).is_none() {
                return;
            }
            out.push(Reference {
                syntax,
                kind,
                name: name.into(),
                namespace: namespace.into(),
                file: file.path.clone(),
                range,
                line: lines.line_col(&file.text, range.0.into()).line,
            });
        };
    for node in root.descendants() {
        match node.kind() {
            SyntaxKind::CALL_EXPR => {
                let Some(call) = ast::CallExpr::cast(node.clone()) else {
                    continue;
                };
                let Some(Expr::Name(callee)) = call.callee() else {
                    continue;
                };
                if !matches!(callee.text().as_str(), "include" | "require" | "contain") {
                    continue;
                }
                for arg in call.args() {
                    let items: Vec<Expr> = match &arg {
                        Expr::Array(a) => a.elements().collect(),
                        other => vec![other.clone()],
                    };
                    for item in items {
                        if let Some((name, range)) = literal_name(&item) {
                            push_ns(
                                RefSyntax::Include,
                                DefKind::Class,
                                name,
                                range,
                                namespace_at(&node),
                            );
                        }
                    }
                }
            }
            SyntaxKind::RESOURCE_EXPR => {
                let Some(res) = ast::ResourceExpr::cast(node.clone()) else {
                    continue;
                };
                let Some(Expr::Name(t)) = res.type_expr() else {
                    continue;
                };
                let tname = t.text();
                if tname == "class" {
                    for body in res.bodies() {
                        let titles: Vec<Expr> = match body.title() {
                            Some(Expr::Array(a)) => a.elements().collect(),
                            Some(e) => vec![e],
                            None => vec![],
                        };
                        for title in titles {
                            if let Some((name, range)) = literal_name(&title) {
                                push_ns(
                                    RefSyntax::ResourceLikeClass,
                                    DefKind::Class,
                                    name,
                                    range,
                                    namespace_at(&node),
                                );
                            }
                        }
                    }
                } else {
                    let range = range_of(t.range());
                    push_ns(
                        RefSyntax::ResourceType,
                        DefKind::Define,
                        tname,
                        range,
                        namespace_at(&node),
                    );
                }
            }
            SyntaxKind::CLASS_DEF => {
                let Some(c) = ast::ClassDef::cast(node.clone()) else {
                    continue;
                };
                if let Some(inh) = c.inherits() {
                    if let Some(tok) = inh.name_token() {
                        // The parent is looked up from the class's own namespace.
                        let ns = qualified_def_name(&node).unwrap_or_default();
                        let range = range_of(tok.text_range());
                        push_ns(
                            RefSyntax::Inherits,
                            DefKind::Class,
                            tok.text().to_string(),
                            range,
                            ns,
                        );
                    }
                }
            }
            SyntaxKind::ACCESS_EXPR => {
                let Some(acc) = ast::AccessExpr::cast(node.clone()) else {
                    continue;
                };
                let Some(Expr::TypeRef(t)) = acc.target() else {
                    continue;
                };
                let tname = t.text();
                let lower = tname.to_ascii_lowercase();
                if lower == "class" {
                    for key in acc.keys() {
                        if let Some((name, range)) = literal_name(&key) {
                            push_ns(
                                RefSyntax::TypeReference,
                                DefKind::Class,
                                name,
                                range,
                                namespace_at(&node),
                            );
                        }
                    }
                } else if !DATA_TYPES.contains(&lower.as_str()) {
                    let range = range_of(t.range());
                    push_ns(
                        RefSyntax::TypeReference,
                        DefKind::Define,
                        tname,
                        range,
                        namespace_at(&node),
                    );
                }
            }
            _ => {}
        }
    }
    out
}

impl Index {
    /// Every literal reference in every file of the environment, in file order.
    pub fn references(&self) -> Vec<Reference> {
        self.files().flat_map(|f| references_in(f)).collect()
    }

    /// The PUP-121 hazard report: every reference whose target differs between Puppet 3's
    /// relative lookup and modern absolute resolution, in file order.
    ///
    /// ```
    /// use puppet_loader::{Index, EnvironmentConfig, MemoryProvider};
    /// use std::sync::Arc;
    /// let provider = MemoryProvider::new()
    ///     .with_file("/mp/a/manifests/init.pp", "class a { include b\n include ::b }")
    ///     .with_file("/mp/a/manifests/b.pp", "class a::b { }")
    ///     .with_file("/mp/b/manifests/init.pp", "class b { }");
    /// let env = Index::load(&EnvironmentConfig::with_modulepath(["/mp"]), Arc::new(provider));
    /// let hazards = env.hazards();
    /// assert_eq!(hazards.len(), 1);
    /// assert_eq!(hazards[0].reference.line, 1);
    /// assert_eq!(hazards[0].absolute.as_ref().unwrap().name, "b");
    /// assert_eq!(hazards[0].relative.as_ref().unwrap().name, "a::b");
    /// ```
    pub fn hazards(&self) -> Vec<Hazard> {
        let mut out = Vec::new();
        for r in self.references() {
            let abs = self.resolve_reference(&r, ResolutionMode::Absolute);
            let rel = self.resolve_reference(&r, ResolutionMode::Relative);
            // A type reference that is really a type alias is not a resource reference.
            if r.syntax == RefSyntax::TypeReference
                && r.kind == DefKind::Define
                && self.resolve(DefKind::TypeAlias, &r.name).is_some()
            {
                continue;
            }
            let key = |d: &Option<&Definition>| d.map(|d| (d.kind, d.name.clone()));
            if key(&abs) != key(&rel) {
                out.push(Hazard {
                    reference: r,
                    absolute: abs.cloned(),
                    relative: rel.cloned(),
                });
            }
        }
        out
    }

    /// Resolves a reference under `mode`. Resource types and `X[...]` references name a
    /// defined type, or a class for `Class[...]`; a defined type reference that finds no
    /// define also tries a class of that name (Puppet resolves resource types that way).
    pub fn resolve_reference(&self, r: &Reference, mode: ResolutionMode) -> Option<&Definition> {
        let find = |kind: DefKind| self.resolve_in(kind, &r.name, &r.namespace, mode);
        match r.kind {
            DefKind::Define if mode == ResolutionMode::Relative => {
                crate::names::relative_candidates(&r.namespace, &r.name)
                    .iter()
                    .find_map(|c| self.resolve(DefKind::Define, c))
            }
            kind => find(kind),
        }
    }

    /// Resolves function `name` called from `caller` (a module name, `None` for the main
    /// manifest and the environment) under a visibility rule.
    ///
    /// ```
    /// use puppet_loader::{Index, EnvironmentConfig, MemoryProvider, Visibility};
    /// use std::sync::Arc;
    /// let provider = MemoryProvider::new()
    ///     .with_file("/mp/a/metadata.json", r#"{"name":"me-a","version":"1.0.0","author":"me",
    ///         "license":"MIT","source":"s","dependencies":[]}"#)
    ///     .with_file("/mp/b/functions/f.pp", "function b::f() { 1 }");
    /// let env = Index::load(&EnvironmentConfig::with_modulepath(["/mp"]), Arc::new(provider));
    /// assert!(env.resolve_function(Some("a"), "b::f", Visibility::Puppet7).is_some());
    /// assert!(env.resolve_function(Some("a"), "b::f", Visibility::Dependencies).is_none());
    /// assert!(env.resolve_function(None, "b::f", Visibility::Dependencies).is_some());
    /// ```
    pub fn resolve_function(
        &self,
        caller: Option<&str>,
        name: &str,
        visibility: Visibility,
    ) -> Option<&Definition> {
        let def = self.resolve(DefKind::Function, name)?;
        if visibility == Visibility::Puppet7 {
            return Some(def);
        }
        match (caller.and_then(|c| self.module(c)), def.module.as_deref()) {
            (Some(m), Some(owner)) if !m.sees(owner) => None,
            _ => Some(def),
        }
    }

    /// Calls from modules to namespaced functions of modules they do not list as
    /// dependencies: what seed 003's rule would refuse (Puppet 7.23 allows them).
    pub fn visibility_report(&self) -> Vec<VisibilityFinding> {
        let mut out = Vec::new();
        for file in self.files() {
            let Some(caller) = file.module.clone() else {
                continue;
            };
            let Some(module) = self.module(&caller) else {
                continue;
            };
            let lines = LineIndex::new(&file.text);
            for node in file.parse().syntax().descendants() {
                let name = match node.kind() {
                    SyntaxKind::CALL_EXPR => {
                        match ast::CallExpr::cast(node.clone()).and_then(|c| c.callee()) {
                            Some(Expr::Name(n)) => n,
                            _ => continue,
                        }
                    }
                    SyntaxKind::METHOD_CALL_EXPR => {
                        match ast::MethodCallExpr::cast(node.clone()).and_then(|c| c.name()) {
                            Some(n) => n,
                            None => continue,
                        }
                    }
                    _ => continue,
                };
                let text = name.text();
                let Some(canon) = crate::names::canonical(&text) else {
                    continue;
                };
                let Some((owner, _)) = canon.split_once("::") else {
                    continue;
                };
                if owner == "environment" || module.sees(owner) {
                    continue;
                }
                let range = range_of(name.range());
                out.push(VisibilityFinding {
                    caller: caller.clone(),
                    function: text.into(),
                    function_module: owner.into(),
                    definition: self.resolve(DefKind::Function, &canon).cloned(),
                    file: file.path.clone(),
                    range,
                    line: lines.line_col(&file.text, range.0.into()).line,
                });
            }
        }
        out
    }
}
