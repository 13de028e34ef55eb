//! The one diagnostic type of the puppet-* crates.
//!
//! Every problem any crate reports about the user's input (a syntax error, a definition in the
//! wrong file, an evaluation error, a Hiera or template failure, a dependency cycle) is, or
//! converts without loss into, a [`Diagnostic`]: a stable code (Puppet's issue code where
//! Puppet has one), a severity, the message (Puppet's text where Puppet has one), the file and
//! byte range it is about, and related locations. It serialises to JSON and renders for a
//! terminal with the source line ([`Diagnostic::render`]).
//!
//! This crate knows nothing of Puppet's grammar; it is the bottom of the dependency graph.
//!
//! ```
//! use puppet_diagnostics::{Diagnostic, TextRange};
//! let source = "class a {\n  notice($x\n}\n";
//! let d = Diagnostic::error("SYNTAX_ERROR", "Syntax error at '}'", TextRange::new(22.into(), 23.into()))
//!     .with_file("site.pp")
//!     .with_source(source);
//! assert_eq!(d.to_string(), "site.pp:3:1: error[SYNTAX_ERROR]: Syntax error at '}'");
//! assert_eq!(d.render(Some(source)), "\
//! site.pp:3:1: error[SYNTAX_ERROR]: Syntax error at '}'
//!   3 | }
//!     | ^
//! ");
//! ```

mod line_index;

pub use line_index::{LineCol, LineIndex};
pub use text_size::{TextRange, TextSize};

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is wrong: Puppet would refuse it (or, for tools, the result is unusable).
    Error,
    /// Worth a look; Puppet would go on (Puppet's warnings and deprecations).
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Another place that explains a diagnostic (the first definition of a duplicate, each step
/// of a dependency cycle).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    pub message: String,
    /// The file, as its path is printed; `None` for code given as text.
    pub file: Option<Arc<str>>,
    #[serde(serialize_with = "serialize_range")]
    pub range: Option<TextRange>,
    /// Line and column of the range's start, when the text was at hand.
    pub location: Option<LineCol>,
}

/// One problem found in the user's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// A stable, upper-case code, Puppet's issue code where one exists (`SYNTAX_ERROR`,
    /// `DUPLICATE_RESOURCE`, ...).
    pub code: Cow<'static, str>,
    pub severity: Severity,
    /// The message; Puppet's text where Puppet reports the same problem, without the
    /// location suffix Puppet appends (that is [`file`](Self::file) and
    /// [`range`](Self::range)).
    pub message: String,
    /// The file, as its path is printed; `None` for code given as text (`-e`) or for a
    /// problem not about one file.
    pub file: Option<Arc<str>>,
    /// The byte range in the file; `None` when the problem is about a whole file (or none).
    #[serde(serialize_with = "serialize_range")]
    pub range: Option<TextRange>,
    /// Line and column of the range's start, when the source text was at hand
    /// ([`with_source`](Self::with_source)).
    pub location: Option<LineCol>,
    /// Other places that explain this one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
}

fn serialize_range<S: Serializer>(range: &Option<TextRange>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    match range {
        None => s.serialize_none(),
        Some(range) => {
            let mut st = s.serialize_struct("Range", 2)?;
            st.serialize_field("start", &u32::from(range.start()))?;
            st.serialize_field("end", &u32::from(range.end()))?;
            st.end()
        }
    }
}

impl Diagnostic {
    /// A diagnostic with no location yet.
    pub fn new(
        severity: Severity,
        code: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code: code.into(),
            severity,
            message: message.into(),
            file: None,
            range: None,
            location: None,
            related: Vec::new(),
        }
    }

    /// An error over `range` (of a file given later with [`with_file`](Self::with_file)).
    pub fn error(
        code: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
        range: TextRange,
    ) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message).with_range(range)
    }

    /// A warning over `range`.
    pub fn warning(
        code: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
        range: TextRange,
    ) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message).with_range(range)
    }

    /// The same diagnostic about `file` (its path as printed).
    pub fn with_file(mut self, file: impl Into<Arc<str>>) -> Diagnostic {
        self.file = Some(file.into());
        self
    }

    /// The same diagnostic about `file`, when there is one.
    pub fn with_file_opt(mut self, file: Option<impl Into<Arc<str>>>) -> Diagnostic {
        self.file = file.map(Into::into);
        self
    }

    /// The same diagnostic over `range`.
    pub fn with_range(mut self, range: TextRange) -> Diagnostic {
        self.range = Some(range);
        self
    }

    /// Computes [`location`](Self::location) (and that of related places in the same file)
    /// from the text the range is in.
    pub fn with_source(mut self, text: &str) -> Diagnostic {
        if let Some(r) = self.range {
            self.location = Some(LineIndex::new(text).line_col(text, r.start()));
        }
        let file = self.file.clone();
        for rel in &mut self.related {
            if rel.file == file {
                if let Some(r) = rel.range {
                    rel.location = Some(LineIndex::new(text).line_col(text, r.start()));
                }
            }
        }
        self
    }

    /// Adds a related place.
    pub fn with_related(
        mut self,
        message: impl Into<String>,
        file: Option<Arc<str>>,
        range: Option<TextRange>,
        location: Option<LineCol>,
    ) -> Diagnostic {
        self.related.push(Related {
            message: message.into(),
            file,
            range,
            location,
        });
        self
    }

    /// Where the range starts (0 without a range): the sort key of a file's diagnostics.
    pub fn start(&self) -> TextSize {
        self.range.map_or(TextSize::from(0), |r| r.start())
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col` (as much of it as is known), or `None` without a file or location.
    pub fn position(&self) -> Option<String> {
        position(self.file.as_deref(), self.location)
    }

    /// This diagnostic as one JSON object (what `--format json` tools print per line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The diagnostic for a terminal: the headline (`file:line:col: severity[CODE]:
    /// message`, as [`Display`](std::fmt::Display) prints it), then, when `source` (the text
    /// of [`file`](Self::file)) is given, the source line with the range underlined, then
    /// the related places. Ends with a newline.
    pub fn render(&self, source: Option<&str>) -> String {
        let location = self.location.or_else(|| {
            let (text, range) = (source?, self.range?);
            Some(LineIndex::new(text).line_col(text, range.start()))
        });
        let mut out = match position(self.file.as_deref(), location) {
            Some(p) => format!("{p}: "),
            None => String::new(),
        };
        out.push_str(&format!(
            "{}[{}]: {}\n",
            self.severity, self.code, self.message
        ));
        let gutter = location.map_or(1, |l| l.line.to_string().len());
        let pad = " ".repeat(gutter);
        if let (Some(text), Some(range), Some(lc)) = (source, self.range, location) {
            let line = text.lines().nth(lc.line as usize - 1).unwrap_or("");
            // Underline the range on its first line (at least one caret).
            let start = lc.col as usize - 1;
            let room = line.chars().count().saturating_sub(start).max(1);
            let width = text
                .get(usize::from(range.start())..usize::from(range.end()))
                .map_or(1, |s| s.chars().take_while(|c| *c != '\n').count())
                .clamp(1, room);
            out.push_str(&format!("  {} | {line}\n", lc.line));
            out.push_str(&format!(
                "  {pad} | {}{}\n",
                " ".repeat(start),
                "^".repeat(width)
            ));
        }
        for rel in &self.related {
            out.push_str(&format!("  {pad} = note: {}\n", related_text(rel)));
        }
        out
    }
}

fn related_text(rel: &Related) -> String {
    match position(rel.file.as_deref(), rel.location) {
        Some(p) => format!("{} ({p})", rel.message),
        None => rel.message.clone(),
    }
}

fn position(file: Option<&str>, location: Option<LineCol>) -> Option<String> {
    match (file, location) {
        (Some(f), Some(l)) => Some(format!("{f}:{}:{}", l.line, l.col)),
        (Some(f), None) => Some(f.to_string()),
        (None, Some(l)) => Some(format!("<string>:{}:{}", l.line, l.col)),
        (None, None) => None,
    }
}

/// `file:line:col: severity[CODE]: message`, or without the position when none is known.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.position() {
            write!(f, "{p}: ")?;
        }
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// The diagnostics of one run, with helpers tools need.
pub trait DiagnosticsExt {
    /// The first error, if any.
    fn first_error(&self) -> Option<&Diagnostic>;
    /// True when there is at least one error.
    fn has_errors(&self) -> bool {
        self.first_error().is_some()
    }
}

impl DiagnosticsExt for [Diagnostic] {
    fn first_error(&self) -> Option<&Diagnostic> {
        self.iter().find(|d| d.is_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_code_file_range_and_location() {
        let d = Diagnostic::warning("X", "m", TextRange::new(2.into(), 3.into()))
            .with_file("f.pp")
            .with_source("a\nbc");
        assert_eq!(
            d.to_json(),
            r#"{"code":"X","severity":"warning","message":"m","file":"f.pp","range":{"start":2,"end":3},"location":{"line":2,"col":1}}"#
        );
    }

    #[test]
    fn render_without_source_or_file() {
        let d = Diagnostic::new(Severity::Error, "E", "boom").with_related(
            "first here",
            Some("a.pp".into()),
            None,
            Some(LineCol { line: 4, col: 2 }),
        );
        assert_eq!(
            d.render(None),
            "error[E]: boom\n    = note: first here (a.pp:4:2)\n"
        );
        assert_eq!(d.to_string(), "error[E]: boom");
    }

    #[test]
    fn range_past_the_end_does_not_panic() {
        let d = Diagnostic::error("E", "m", TextRange::new(10.into(), 40.into()))
            .with_file("f")
            .with_source("ab");
        assert_eq!(
            d.render(Some("ab")),
            "f:1:3: error[E]: m\n  1 | ab\n    |   ^\n"
        );
    }
}
