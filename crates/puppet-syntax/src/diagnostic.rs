//! Diagnostics: a stable code, a severity, a message and a byte range.
//!
//! Codes are Puppet's issue codes where Puppet has one (`SYNTAX_ERROR`,
//! `ILLEGAL_ASSIGNMENT_VIA_INDEX`, ...), so tools can match on them across versions.
//! Rendering (snippets, colours) is left to the tools that print them.

use rowan::TextRange;
use serde::Serialize;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a source text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// A stable, upper-case code, Puppet's issue code where one exists.
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// Byte range in the source.
    #[serde(serialize_with = "serialize_range")]
    pub range: TextRange,
}

fn serialize_range<S: serde::Serializer>(range: &TextRange, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Range", 2)?;
    st.serialize_field("start", &u32::from(range.start()))?;
    st.serialize_field("end", &u32::from(range.end()))?;
    st.end()
}

impl Diagnostic {
    /// An error with the given code and message over `range`.
    pub fn error(code: impl Into<String>, message: impl Into<String>, range: TextRange) -> Self {
        Diagnostic {
            code: code.into(),
            severity: Severity::Error,
            message: message.into(),
            range,
        }
    }

    /// A warning with the given code and message over `range`.
    pub fn warning(code: impl Into<String>, message: impl Into<String>, range: TextRange) -> Self {
        Diagnostic {
            code: code.into(),
            severity: Severity::Warning,
            message: message.into(),
            range,
        }
    }
}
