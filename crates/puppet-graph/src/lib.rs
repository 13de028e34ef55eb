//! The catalog model, the relationship and refresh graph, ordering, cycle reports and the
//! offline apply simulation of Puppet 7, computed from any catalog before anything runs.
//!
//! Puppet builds its relationship graph only on the agent, at apply time. This crate
//! builds the same graph from a catalog (Puppet's own catalog JSON, or one our compiler
//! made), so that the apply order, every dependency cycle with the file and line of the
//! resources involved, and what a run would refresh or skip are known at compile time.
//! It does not compile manifests and never touches the system.
//!
//! ```
//! use puppet_graph::{Catalog, Graph, Scenario};
//!
//! let json = r#"{
//!   "resources": [
//!     {"type": "Notify", "title": "config"},
//!     {"type": "Exec", "title": "reload",
//!      "parameters": {"command": "/bin/true", "refreshonly": true, "subscribe": "Notify[config]"}}
//!   ],
//!   "edges": []
//! }"#;
//! let catalog = Catalog::from_json(json)?;
//! let graph = Graph::build(&catalog)?;
//!
//! let order: Vec<String> = graph.order()?.into_iter().map(|r| graph.reference(r)).collect();
//! assert_eq!(order, ["Notify[config]", "Exec[reload]"]);
//!
//! let run = graph.simulate(&Scenario::new())?;
//! assert_eq!(run.refreshed[0].resource, "Exec[reload]");
//! # Ok::<(), puppet_graph::Error>(())
//! ```
//!
//! The pieces: [`Catalog`] (model and JSON), [`GraphBuilder`] then [`Graph`] (build, seal,
//! query), [`Graph::cycles`] ([`CycleReport`]), [`Graph::simulate`] ([`Scenario`],
//! [`Simulation`]), [`Graph::to_dot`], [`diff`] of two catalogs ([`CatalogDiff`]) and
//! PuppetDB's wire format ([`Catalog::to_puppetdb`]).

mod autorequire;
mod cycles;
mod diff;
mod dot;
mod error;
mod fxhash;
mod graph;
mod keys;
mod model;
mod params;
mod puppetdb;
mod reference;
mod simulate;

pub use autorequire::AutoRelation;
pub use cycles::{Cycle, CycleEdge, CycleLimits, CycleReport, CycleStep};
pub use diff::{
    diff, CatalogDiff, DiffOptions, EdgeChange, EdgeKind, ParamChange, ResourceChange,
    ResourceEntry,
};
pub use dot::DotKind;
pub use error::Error;
pub use graph::{Dependency, EdgeOrigin, Graph, GraphBuilder, Part, ResourceId, TraceEntry};
pub use model::{
    Catalog, ContainmentEdge, Parameters, RelationKind, RelationOrigin, Relationship, Resource,
};
pub use puppetdb::PuppetDbOptions;
pub use simulate::{DependencyFailure, Outcome, Refresh, Scenario, ScheduledRefresh, Simulation};

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn graph_is_send_and_sync() {
        assert_send_sync::<crate::Graph>();
        assert_send_sync::<crate::Catalog>();
    }
}
