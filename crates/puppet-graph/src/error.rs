//! The crate's error type: every way reading a catalog or building its graph can fail,
//! each with a stable code and Puppet's own wording where Puppet has one.
//!
//! It is not a diagnostic renderer: examples decide how to print errors. Cycles are not
//! errors here (they are a query result, see [`crate::CycleReport`]), and neither is a
//! failing resource in a simulation.

use thiserror::Error;

/// An error reading a catalog, resolving its references or building its graph.
///
/// [`Error::code`] is stable; the `Display` text follows Puppet where Puppet reports the
/// same problem.
///
/// ```
/// let err = puppet_graph::Catalog::from_json("{ not json").unwrap_err();
/// assert_eq!(err.code(), "GRAPH_JSON");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not JSON, or not JSON of a catalog's shape.
    #[error("Could not parse catalog JSON: {message} (line: {line}, column: {column})")]
    Json {
        /// serde_json's description.
        message: String,
        /// 1-based line of the problem (0 when unknown).
        line: usize,
        /// 1-based column of the problem (0 when unknown).
        column: usize,
    },
    /// A string that should be a resource reference (`Type[title]`) is not one.
    #[error("Invalid resource reference '{reference}' in parameter '{param}' of {resource}")]
    BadReference {
        /// The offending value, as text.
        reference: String,
        /// The parameter it was found in.
        param: String,
        /// The resource carrying the parameter.
        resource: String,
    },
    /// Two resources share a type and title (or an alias).
    #[error("Duplicate declaration: {reference} is already declared; cannot redeclare")]
    DuplicateResource {
        /// The duplicated reference.
        reference: String,
    },
    /// A relationship metaparameter names a resource that is not in the catalog.
    /// Puppet's compiler text; [`Error::agent_message`] gives the agent's.
    #[error("Could not find resource '{target}' in parameter '{param}'{}", location(.file, .line))]
    MissingInParameter {
        /// The reference that was not found.
        target: String,
        /// `before`, `require`, `notify` or `subscribe`.
        param: String,
        /// The resource carrying the parameter.
        resource: String,
        /// Manifest of that resource, if known.
        file: Option<String>,
        /// Line of that resource, if known.
        line: Option<u32>,
    },
    /// A relationship made by a chaining arrow (or the `require` function) names a resource
    /// that is not in the catalog. Puppet's compiler text.
    #[error("Could not find resource '{missing}' for relationship {} '{other}'", if *.missing_is_source { "on" } else { "from" })]
    MissingForRelationship {
        /// The reference that was not found.
        missing: String,
        /// The other end of the relationship.
        other: String,
        /// Whether the missing end is the source of the relationship.
        missing_is_source: bool,
    },
    /// A containment edge names a resource that is not in the catalog (Puppet's
    /// `from_data_hash` text).
    #[error(
        "Could not intern from data: Could not find relationship {end} {reference} for {other}"
    )]
    MissingContainmentEnd {
        /// `source` or `target`.
        end: &'static str,
        /// The missing reference.
        reference: String,
        /// The other end.
        other: String,
    },
    /// The graph has dependency cycles, so there is no apply order. The message is
    /// Puppet's (`Found 1 dependency cycle:` ...).
    #[error("{message}")]
    DependencyCycles {
        /// Number of cyclic strongly connected components.
        count: usize,
        /// Puppet's message.
        message: String,
    },
    /// A reference given to a query or a scenario is not in the graph.
    #[error("Unknown resource {reference}")]
    UnknownResource {
        /// The reference asked for.
        reference: String,
    },
}

fn location(file: &Option<String>, line: &Option<u32>) -> String {
    match (file, line) {
        (Some(f), Some(l)) => format!(" (file: {f}, line: {l})"),
        (Some(f), None) => format!(" (file: {f})"),
        (None, Some(l)) => format!(" (line: {l})"),
        (None, None) => String::new(),
    }
}

impl Error {
    /// The stable code of this error, e.g. `GRAPH_MISSING_DEPENDENCY`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Json { .. } => "GRAPH_JSON",
            Error::BadReference { .. } => "GRAPH_BAD_REFERENCE",
            Error::DuplicateResource { .. } => "GRAPH_DUPLICATE_RESOURCE",
            Error::MissingInParameter { .. } => "GRAPH_MISSING_DEPENDENCY",
            Error::MissingForRelationship { .. } => "GRAPH_MISSING_RELATIONSHIP_END",
            Error::MissingContainmentEnd { .. } => "GRAPH_MISSING_CONTAINMENT_END",
            Error::DependencyCycles { .. } => "GRAPH_DEPENDENCY_CYCLES",
            Error::UnknownResource { .. } => "GRAPH_UNKNOWN_RESOURCE",
        }
    }

    /// The message the Puppet agent logs for the same problem when it applies such a
    /// catalog (`Could not find dependency X for Y`), where it differs from the compiler's.
    ///
    /// ```
    /// let json = r#"{"resources":[{"type":"Notify","title":"a","parameters":{"require":"Notify[b]"}}],"edges":[]}"#;
    /// let cat = puppet_graph::Catalog::from_json(json).unwrap();
    /// let err = puppet_graph::Graph::build(&cat).unwrap_err();
    /// assert_eq!(err.to_string(), "Could not find resource 'Notify[b]' in parameter 'require'");
    /// assert_eq!(err.agent_message(), "Could not find dependency Notify[b] for Notify[a]");
    /// ```
    pub fn agent_message(&self) -> String {
        match self {
            Error::MissingInParameter {
                target,
                param,
                resource,
                ..
            } => {
                let what = if param == "require" || param == "subscribe" {
                    "dependency"
                } else {
                    "dependent"
                };
                format!("Could not find {what} {target} for {resource}")
            }
            other => other.to_string(),
        }
    }
}

impl From<&Error> for puppet_diagnostics::Diagnostic {
    /// The error as a diagnostic: its code and Puppet's text (which names the file and line
    /// where Puppet does).
    fn from(e: &Error) -> Self {
        puppet_diagnostics::Diagnostic::new(
            puppet_diagnostics::Severity::Error,
            e.code(),
            e.to_string(),
        )
    }
}
