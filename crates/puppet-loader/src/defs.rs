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
use puppet_syntax::flat::FlatParse;
use puppet_syntax::green::{Node, Token};
use puppet_syntax::{Parse, SyntaxKind, SyntaxToken};
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
fn range_of(r: puppet_syntax::TextRange) -> (u32, u32) {
    (r.start().into(), r.end().into())
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
/// absolute path). Reads the flat tree of the compile path ([`puppet_syntax::green`]); a
/// tool holding a rowan parse gets the flat form with [`FlatParse::from_parse`].
pub fn scan_file(
    parse: &FlatParse,
    file: &Arc<Path>,
    module: Option<&SmolStr>,
    namespace: &FileNamespace,
    display_path: &str,
) -> FileScan {
    let mut scan = FileScan::default();
    let root = parse.root();
    if root.kind() != SyntaxKind::SOURCE_FILE {
        return scan;
    }
    let cx = Cx {
        file,
        module,
        namespace,
        display_path,
    };
    for stmt in root.exprs() {
        if *namespace != FileNamespace::Free && !is_valid_top_construct(stmt.kind()) {
            scan.diagnostics.push(crate::diagnostic::error(
                codes::ILLEGAL_TOP_CONSTRUCT_LOCATION,
                format!(
                    "This {} is unacceptable as a top level construct in this location",
                    label_of_statement(parse.text(), stmt)
                ),
                Some(file.to_path_buf()),
                Some(report_range(stmt)),
            ));
        }
        cx.visit(stmt, "", &mut scan);
    }
    scan
}

/// [`label`] of a top-level statement of the flat tree: the typed AST's, from a rowan
/// parse of the text made for it (only files with misplaced code get here).
fn label_of_statement(text: &str, stmt: Node<'_>) -> String {
    let parse = puppet_syntax::parse(text);
    ast::SourceFile::cast(parse.syntax())
        .and_then(|f| {
            f.statements().find(|e| {
                e.syntax().kind() == stmt.kind() && e.syntax().text_range() == stmt.text_range()
            })
        })
        .map(|e| label(&e))
        .unwrap_or_else(|| "Expression".into())
}

struct Cx<'a> {
    file: &'a Arc<Path>,
    module: Option<&'a SmolStr>,
    namespace: &'a FileNamespace,
    display_path: &'a str,
}

/// The name token after the keyword of a definition (as the typed AST's `name_token`).
fn definition_name_token(n: Node<'_>) -> Option<Token<'_>> {
    n.children_with_tokens()
        .filter_map(|e| e.into_token())
        .filter(|t| !t.kind().is_trivia())
        .nth(1)
}

impl Cx<'_> {
    fn visit(&self, stmt: Node<'_>, enclosing: &str, scan: &mut FileScan) {
        use SyntaxKind as K;
        let (kind, name_tok, body) = match stmt.kind() {
            K::CLASS_DEF => (
                DefKind::Class,
                definition_name_token(stmt),
                stmt.child(K::BLOCK),
            ),
            K::DEFINE_DEF => (DefKind::Define, definition_name_token(stmt), None),
            K::FUNCTION_DEF => (DefKind::Function, definition_name_token(stmt), None),
            K::TYPE_ALIAS => {
                // `type Name = ...` or `type Name[...] = ...`.
                let tok = stmt.nth_expr(0).and_then(|lhs| match lhs.kind() {
                    K::TYPE_REF => lhs.first_significant_token(),
                    K::ACCESS_EXPR => lhs
                        .nth_expr(0)
                        .filter(|t| t.kind() == K::TYPE_REF)
                        .and_then(|t| t.first_significant_token()),
                    _ => None,
                });
                (DefKind::TypeAlias, tok, None)
            }
            _ => return,
        };
        let written = name_tok.map_or("", |t| t.text());
        if written.is_empty() {
            return;
        }
        // Puppet's parser prefixes classes and defines with the enclosing classes' names.
        let qualified =
            if enclosing.is_empty() || kind == DefKind::Function || kind == DefKind::TypeAlias {
                written.to_string()
            } else {
                format!("{enclosing}::{written}")
            };
        let range = range_of(stmt.trimmed_range());
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
                name_range: name_tok.map_or(range, |t| range_of(t.text_range())),
                module: self.module.cloned(),
            });
        }
        if let Some(body) = body {
            for inner in body.exprs() {
                self.visit(inner, &qualified, scan);
            }
        }
    }
}

/// Where Puppet reports a statement: operator expressions at their operator, anything
/// else from its first token.
fn report_range(stmt: Node<'_>) -> (u32, u32) {
    use SyntaxKind as K;
    let op = match stmt.kind() {
        K::ASSIGN_EXPR | K::BINARY_EXPR | K::RELATIONSHIP_EXPR => stmt.operator_token(),
        _ => None,
    };
    match op {
        Some(t) => range_of(t.text_range()),
        None => range_of(stmt.trimmed_range()),
    }
}

/// Definitions (other than nodes) are the only statements allowed at the top of an
/// autoloaded file.
fn is_valid_top_construct(kind: SyntaxKind) -> bool {
    use SyntaxKind as K;
    matches!(
        kind,
        K::CLASS_DEF
            | K::DEFINE_DEF
            | K::FUNCTION_DEF
            | K::TYPE_ALIAS
            | K::TYPE_DEFINITION
            | K::ERROR
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
    let flat = FlatParse::from_parse(&Arc::from(parse.syntax().to_string()), parse);
    let mut diags = scan_file(&flat, &arc, None, &ns, &display(file)).diagnostics;
    diags.sort_by_key(|d| d.start());
    diags
}
