//! Definitions found in one parsed file, and Puppet's location checks for that file.
//!
//! Given a parse tree and what the file's path allows ([`FileNamespace`]), this finds every
//! class, defined type, function and type alias (nested classes and defines get their
//! enclosing class's name in front, as Puppet's parser does) and reports, with Puppet 7.23's
//! wording, definitions outside the file's namespace and top-level code in autoloaded files.
//! It knows nothing of modules or file systems.

use crate::diagnostic::{codes, Diagnostic};
use crate::names::{canonical, FileNamespace};
use puppet_syntax::ast::{self, AstNode, Expr, LiteralKind};
use puppet_syntax::{Parse, SyntaxToken};
use serde::Serialize;
use smol_str::SmolStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a definition defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DefKind {
    Class,
    Define,
    Function,
    TypeAlias,
}

impl DefKind {
    /// All kinds, in listing order.
    pub const ALL: [DefKind; 4] = [
        DefKind::Class,
        DefKind::Define,
        DefKind::Function,
        DefKind::TypeAlias,
    ];

    /// A lower-case label (`class`, `define`, `function`, `type alias`).
    pub fn label(self) -> &'static str {
        match self {
            DefKind::Class => "class",
            DefKind::Define => "define",
            DefKind::Function => "function",
            DefKind::TypeAlias => "type alias",
        }
    }
}

/// One definition: what, its canonical name, and where. Cheap to clone; `Send + Sync`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Definition {
    pub kind: DefKind,
    /// Canonical name: lower case, no leading `::` (type aliases too: `apache::loglevel`).
    pub name: SmolStr,
    /// The name as written in the source (for nested definitions, with the enclosing
    /// class's name in front).
    pub written_name: SmolStr,
    /// The file, as the provider named it.
    pub file: Arc<Path>,
    /// Byte range of the whole definition (trivia excluded).
    pub range: (u32, u32),
    /// Byte range of the name.
    pub name_range: (u32, u32),
    /// The module the file belongs to (`None` for the main manifest and the environment).
    pub module: Option<SmolStr>,
}

/// The range of `node` without leading and trailing trivia.
pub(crate) fn trimmed(node: &puppet_syntax::SyntaxNode) -> (u32, u32) {
    range_of(puppet_syntax::ast::trimmed_range(node))
}

fn range_of(r: puppet_syntax::TextRange) -> (u32, u32) {
    (r.start().into(), r.end().into())
}

fn token_range(t: Option<SyntaxToken>, fallback: (u32, u32)) -> (u32, u32) {
    t.map(|t| range_of(t.text_range())).unwrap_or(fallback)
}

/// The outcome of scanning one file.
#[derive(Debug, Clone, Default)]
pub struct FileScan {
    /// Definitions that passed the location check, in source order.
    pub definitions: Vec<Definition>,
    /// Location problems (Puppet's `ILLEGAL_DEFINITION_LOCATION` and
    /// `ILLEGAL_TOP_CONSTRUCT_LOCATION`).
    pub diagnostics: Vec<Diagnostic>,
}

/// Finds the definitions of `parse` (from `file`, in `module`) and checks them against
/// `namespace`. `display_path` is the file name used in messages (Puppet prints the
/// absolute path).
pub fn scan_file(
    parse: &Parse,
    file: &Arc<Path>,
    module: Option<&SmolStr>,
    namespace: &FileNamespace,
    display_path: &str,
) -> FileScan {
    let mut scan = FileScan::default();
    let Some(root) = ast::SourceFile::cast(parse.syntax()) else {
        return scan;
    };
    let cx = Cx {
        file,
        module,
        namespace,
        display_path,
    };
    for stmt in root.statements() {
        if *namespace != FileNamespace::Free && !is_valid_top_construct(&stmt) {
            scan.diagnostics.push(crate::diagnostic::error(
                codes::ILLEGAL_TOP_CONSTRUCT_LOCATION,
                format!(
                    "This {} is unacceptable as a top level construct in this location",
                    label(&stmt)
                ),
                Some(file.to_path_buf()),
                Some(report_range(&stmt)),
            ));
        }
        cx.visit(&stmt, "", &mut scan);
    }
    scan
}

struct Cx<'a> {
    file: &'a Arc<Path>,
    module: Option<&'a SmolStr>,
    namespace: &'a FileNamespace,
    display_path: &'a str,
}

impl Cx<'_> {
    fn visit(&self, stmt: &Expr, enclosing: &str, scan: &mut FileScan) {
        let (kind, written, name_tok, body) = match stmt {
            Expr::ClassDef(c) => (DefKind::Class, c.name(), c.name_token(), c.body()),
            Expr::DefineDef(d) => (DefKind::Define, d.name(), d.name_token(), d.body()),
            Expr::FunctionDef(f) => (DefKind::Function, f.name(), f.name_token(), None),
            Expr::TypeAlias(t) => {
                let name = t.name();
                let tok = match t.lhs() {
                    Some(Expr::TypeRef(r)) => r.token(),
                    Some(Expr::Access(a)) => match a.target() {
                        Some(Expr::TypeRef(r)) => r.token(),
                        _ => None,
                    },
                    _ => None,
                };
                (DefKind::TypeAlias, name, tok, None)
            }
            _ => return,
        };
        if written.is_empty() {
            return;
        }
        // Puppet's parser prefixes classes and defines with the enclosing classes' names.
        let qualified =
            if enclosing.is_empty() || kind == DefKind::Function || kind == DefKind::TypeAlias {
                written.clone()
            } else {
                format!("{enclosing}::{written}")
            };
        let range = trimmed(stmt.syntax());
        let mut accepted = true;
        if kind != DefKind::TypeAlias {
            let ok = match self.namespace {
                FileNamespace::Free => true,
                FileNamespace::BadModuleFile => false,
                FileNamespace::Namespace(ns) => {
                    qualified.to_ascii_lowercase().starts_with(ns.as_str())
                }
            };
            if !ok {
                accepted = false;
                scan.diagnostics.push(crate::diagnostic::error(
                    codes::ILLEGAL_DEFINITION_LOCATION,
                    format!(
                        "Unacceptable location. The name '{qualified}' is unacceptable in file '{}'",
                        self.display_path
                    ),
                    Some(self.file.to_path_buf()),
                    Some(range),
                ));
            }
        }
        if let (true, Some(canon)) = (accepted, canonical(&qualified)) {
            scan.definitions.push(Definition {
                kind,
                name: canon.into(),
                written_name: qualified.as_str().into(),
                file: self.file.clone(),
                range,
                name_range: token_range(name_tok, range),
                module: self.module.cloned(),
            });
        }
        if kind == DefKind::Class {
            if let Some(body) = body {
                for inner in body.statements() {
                    self.visit(&inner, &qualified, scan);
                }
            }
        }
    }
}

/// Where Puppet reports a statement: operator expressions at their operator, anything
/// else from its first token.
fn report_range(stmt: &Expr) -> (u32, u32) {
    let op = match stmt {
        Expr::Assign(a) => a.op(),
        Expr::Binary(b) => b.op(),
        Expr::Relationship(r) => r.op(),
        _ => None,
    };
    match op {
        Some(t) => range_of(t.text_range()),
        None => trimmed(stmt.syntax()),
    }
}

/// Definitions (other than nodes) are the only statements allowed at the top of an
/// autoloaded file.
fn is_valid_top_construct(e: &Expr) -> bool {
    matches!(
        e,
        Expr::ClassDef(_)
            | Expr::DefineDef(_)
            | Expr::FunctionDef(_)
            | Expr::TypeAlias(_)
            | Expr::TypeDefinition(_)
            | Expr::Error(_)
    )
}

fn op_label(op: Option<SyntaxToken>) -> String {
    format!(
        "'{}' expression",
        op.map(|t| t.text().to_string()).unwrap_or_default()
    )
}

/// Puppet's label for a statement, as used in validation messages.
pub fn label(e: &Expr) -> String {
    match e {
        Expr::Resource(_) => "Resource Statement".into(),
        Expr::ResourceDefaults(_) => "Resource Defaults Expression".into(),
        Expr::ResourceOverride(_) => "Resource Override".into(),
        Expr::Call(_) => "Function Call".into(),
        Expr::MethodCall(_) => "Method call".into(),
        Expr::Assign(a) => op_label(a.op()),
        Expr::Relationship(r) => op_label(r.op()),
        Expr::Binary(b) => op_label(b.op()),
        Expr::Unary(u) => match u.op().map(|t| t.text().to_string()).as_deref() {
            Some("-") => "Unary Minus".into(),
            Some("*") => "Unfold".into(),
            _ => "'not' expression".into(),
        },
        Expr::NodeDef(_) => "Node Definition".into(),
        Expr::If(_) => "'if' statement".into(),
        Expr::Unless(_) => "'unless' Statement".into(),
        Expr::Case(_) => "'case' statement".into(),
        Expr::Collect(c) => {
            let exported = c.query().map(|q| q.is_exported()).unwrap_or(false);
            if exported {
                "Exported Query"
            } else {
                "Virtual Query"
            }
            .into()
        }
        Expr::Variable(_) => "Variable".into(),
        Expr::Literal(l) => match l.kind() {
            Some(LiteralKind::Number) => match l.number() {
                Some(ast::Number::Float(_)) => "Literal Float".into(),
                _ => "Literal Integer".into(),
            },
            Some(LiteralKind::True | LiteralKind::False) => "Boolean".into(),
            Some(LiteralKind::Undef) => "'undef' expression".into(),
            Some(LiteralKind::Default) => "'default' expression".into(),
            Some(LiteralKind::Regex) => "Regular Expression".into(),
            _ => "String".into(),
        },
        Expr::String(_) => "Double Quoted String".into(),
        Expr::Name(_) => "Name".into(),
        Expr::TypeRef(_) => "Type-Name".into(),
        Expr::Array(_) => "Array Expression".into(),
        Expr::Hash(_) => "Hash Expression".into(),
        Expr::Access(_) => "'[]' expression".into(),
        Expr::Selector(_) => "Selector Expression".into(),
        Expr::Paren(_) => "Parenthesized Expression".into(),
        Expr::Reserved(r) => format!("Reserved Word '{}'", r.text()),
        Expr::Heredoc(_) => "Heredoc".into(),
        Expr::ClassDef(_) => "Host Class Definition".into(),
        Expr::DefineDef(_) => "'define' expression".into(),
        Expr::FunctionDef(_) => "Function Definition".into(),
        Expr::TypeAlias(_) => "Type Alias".into(),
        Expr::TypeDefinition(_) => "Type Definition".into(),
        _ => "Expression".into(),
    }
}

/// A path as Puppet prints it in messages.
pub(crate) fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Convenience for tests and tools: the location check of a single file, given the module
/// path directories it may lie in (first matching wins) and the main manifest, if any.
///
/// ```
/// use puppet_loader::check_file_location;
/// let parse = puppet_syntax::parse("class other {}\nnotify { 'x': }\n");
/// let diags = check_file_location(
///     "/mp/apache/manifests/init.pp".as_ref(), &parse, &["/mp".into()], None);
/// assert_eq!(diags[0].message,
///     "Unacceptable location. The name 'other' is unacceptable in file '/mp/apache/manifests/init.pp'");
/// assert_eq!(diags[1].message,
///     "This Resource Statement is unacceptable as a top level construct in this location");
/// ```
pub fn check_file_location(
    file: &Path,
    parse: &Parse,
    modulepath: &[PathBuf],
    manifest: Option<&Path>,
) -> Vec<Diagnostic> {
    let ns = crate::env::namespace_for_file(file, modulepath, manifest);
    let arc: Arc<Path> = Arc::from(file);
    let mut diags = scan_file(parse, &arc, None, &ns, &display(file)).diagnostics;
    diags.sort_by_key(|d| d.start());
    diags
}
