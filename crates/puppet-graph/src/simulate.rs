//! Offline apply simulation: given which resources change, fail, or fail to refresh, walk
//! the graph in Puppet's evaluation order and compute what Puppet's transaction would do:
//! refresh events (merged, at most one refresh per resource per run, relayed through
//! container sentinels), resources skipped because a dependency failed (transitively),
//! and the `--noop` variant ("Would have triggered 'refresh' from N events").
//!
//! Nothing is executed and no system state is read: whether a resource changes is an input
//! ([`Scenario`]), with Puppet-like defaults (notify and exec change, an `refreshonly` exec
//! only runs on refresh, everything else is in sync). Tags (`--tags`, `--skip_tags`) are
//! honoured; schedules, providers and generated resources are not modelled.

use indexmap::{IndexMap, IndexSet};
use serde::Serialize;

use crate::error::Error;
use crate::graph::{Graph, Part, ResourceId};

/// What applying a resource does (before any refresh).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A property changes: one event is sent along `notify`/`subscribe` edges.
    Changed,
    /// The resource is in sync: no event.
    Unchanged,
    /// Applying it fails: no event, and everything after it is skipped.
    Failed,
}

/// The input of a simulation.
///
/// ```
/// use puppet_graph::{Catalog, Graph, Scenario};
/// let cat = Catalog::from_json(r#"{"resources":[
///   {"type":"Exec","title":"f","parameters":{"command":"/bin/false"}},
///   {"type":"Notify","title":"after","parameters":{"require":"Exec[f]"}}],"edges":[]}"#).unwrap();
/// let g = Graph::build(&cat).unwrap();
/// let sim = g.simulate(&Scenario::new().fail("Exec[f]")).unwrap();
/// assert_eq!(sim.failed, ["Exec[f]"]);
/// assert_eq!(sim.skipped, ["Notify[after]"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scenario {
    outcomes: IndexMap<String, Outcome>,
    refresh_failures: IndexSet<String>,
    noop: bool,
    tags: Vec<String>,
    skip_tags: Vec<String>,
}

impl Scenario {
    /// The default scenario: notify and exec change (a `refreshonly` exec does not),
    /// everything else is in sync, nothing fails.
    pub fn new() -> Scenario {
        Scenario::default()
    }

    /// Makes `reference` fail when applied.
    pub fn fail(self, reference: impl Into<String>) -> Scenario {
        self.outcome(reference, Outcome::Failed)
    }

    /// Sets what applying `reference` does.
    pub fn outcome(mut self, reference: impl Into<String>, outcome: Outcome) -> Scenario {
        self.outcomes.insert(reference.into(), outcome);
        self
    }

    /// Makes the refresh of `reference` fail ("Failed to call refresh").
    pub fn fail_refresh(mut self, reference: impl Into<String>) -> Scenario {
        self.refresh_failures.insert(reference.into());
        self
    }

    /// Runs in noop mode (`--noop`); a resource's own `noop` parameter still wins.
    pub fn noop(mut self, noop: bool) -> Scenario {
        self.noop = noop;
        self
    }

    /// Applies only resources carrying one of `tags` (`--tags`).
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Scenario {
        self.tags = tags.into_iter().map(|t| t.into().to_lowercase()).collect();
        self
    }

    /// Skips resources carrying one of `tags` (`--skip_tags`).
    pub fn skip_tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Scenario {
        self.skip_tags = tags.into_iter().map(|t| t.into().to_lowercase()).collect();
        self
    }
}

/// A refresh that happened (or would have, in noop).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refresh {
    /// The refreshed resource.
    pub resource: String,
    /// The callback (always `refresh`).
    pub callback: String,
    /// Number of events merged into it.
    pub events: usize,
}

/// A `Scheduling refresh of X` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScheduledRefresh {
    /// The resource whose event is sent.
    pub source: String,
    /// The callback.
    pub callback: String,
    /// The receiver.
    pub target: String,
}

/// A `Dependency X has failures: true` notice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DependencyFailure {
    /// The skipped resource.
    pub resource: String,
    /// The failed dependency.
    pub dependency: String,
}

/// The result of a simulation, in the meaning of the oracle's `apply-order` output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Simulation {
    /// Leaf resources in evaluation order (empty when the graph has cycles).
    pub evaluation_order: Vec<String>,
    /// Every evaluated vertex, container sentinels included.
    pub trace: Vec<String>,
    /// Resources with a (non-noop) change or a refresh, as Puppet's report counts them.
    pub changed: Vec<String>,
    /// Resources with a (non-noop) property change: `changed` without the resources whose
    /// only event was a refresh.
    pub property_changes: Vec<String>,
    /// Resources that failed (apply or refresh).
    pub failed: Vec<String>,
    /// Resources whose refresh failed.
    pub failed_to_restart: Vec<String>,
    /// Resources skipped because a dependency failed.
    pub skipped: Vec<String>,
    /// `Triggered 'refresh' from N events`.
    pub refreshed: Vec<Refresh>,
    /// `Would have triggered 'refresh' from N events` (noop), containers included.
    pub would_refresh: Vec<Refresh>,
    /// `Scheduling refresh of X`.
    pub scheduled_refreshes: Vec<ScheduledRefresh>,
    /// `Dependency X has failures: true`.
    pub dependency_failures: Vec<DependencyFailure>,
    /// Puppet's cycle error verbatim, when the graph has cycles (then nothing is
    /// evaluated and the resources in the cycles are `failed`), as `apply-order` lists it.
    pub cycles: Vec<String>,
    /// Puppet's path for each cyclic component: `(A => B => A)`.
    pub cycle_paths: Vec<String>,
    /// The run as Puppet would log it (simplified), in order.
    pub log: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Pending {
    total: usize,
    noop: usize,
}

fn refreshable(type_key: &str) -> bool {
    matches!(
        type_key,
        "exec" | "service" | "package" | "mount" | "anchor"
    )
}

impl Graph {
    /// Simulates applying the catalog under `scenario`.
    pub fn simulate(&self, scenario: &Scenario) -> Result<Simulation, Error> {
        let mut sim = Simulation::default();
        let n = self.res.len();
        let mut outcome: Vec<Option<Outcome>> = vec![None; n];
        for (r, o) in &scenario.outcomes {
            outcome[self.resolve(r)?.index()] = Some(*o);
        }
        let mut refresh_fails = vec![false; n];
        for r in &scenario.refresh_failures {
            refresh_fails[self.resolve(r)?.index()] = true;
        }
        let order = match self.vertex_order() {
            Ok(o) => o,
            Err(_) => {
                sim.cycle_paths = self.puppet_cycle_paths();
                if let Some(m) = self.puppet_cycle_message() {
                    sim.log.push(format!("Error: {m}"));
                    sim.cycles.push(m);
                }
                // Puppet fails every resource that is part of a cycle.
                for v in self.cycle_vertices_in_puppet_order() {
                    let vx = self.vertices[v as usize];
                    let name = self.res_name(vx.res);
                    if vx.part == Part::Resource && !sim.failed.iter().any(|f| f == name) {
                        sim.failed.push(name.to_string());
                    }
                }
                sim.log.push(
                    "Error: Failed to apply catalog: One or more resource dependency cycles detected in graph"
                        .into(),
                );
                return Ok(sim);
            }
        };
        let nv = self.vertices.len();
        let mut failed = vec![false; nv];
        let mut failed_deps: Vec<Vec<u32>> = vec![Vec::new(); nv];
        let mut queues: Vec<Pending> = vec![Pending::default(); nv];
        let mut notified: IndexSet<u32> = IndexSet::new();

        let is_noop = |v: u32| -> bool {
            let r = &self.res[self.vertices[v as usize].res as usize];
            match self.vertices[v as usize].part {
                Part::Resource => r.noop.unwrap_or(scenario.noop),
                _ => scenario.noop,
            }
        };
        let tagged = |v: u32, tags: &[String]| -> bool {
            let r = &self.res[self.vertices[v as usize].res as usize];
            self.names
                .tags(r)
                .any(|t| tags.iter().any(|x| x == &t.to_lowercase()))
        };

        for &v in order {
            let vx = self.vertices[v as usize];
            let info = &self.res[vx.res as usize];
            let name = self.res_name(vx.res).to_string();
            let leaf = vx.part == Part::Resource;
            sim.trace.push(name.clone());
            if leaf {
                sim.evaluation_order.push(name.clone());
            }
            // Failed dependencies are the union over direct dependencies.
            let mut fd: Vec<u32> = Vec::new();
            for &d in self.in_neighbours(v) {
                for &x in &failed_deps[d as usize] {
                    if !fd.contains(&x) {
                        fd.push(x);
                    }
                }
                if failed[d as usize] && !fd.contains(&d) {
                    fd.push(d);
                }
            }
            let tag_skip = (!scenario.skip_tags.is_empty() && tagged(v, &scenario.skip_tags))
                || (!scenario.tags.is_empty() && !tagged(v, &scenario.tags));
            let skip = if tag_skip {
                true
            } else if !fd.is_empty() {
                if leaf {
                    for &d in &fd {
                        if notified.insert(d) {
                            let dep = self.vertex_name(d).to_string();
                            sim.log.push(format!(
                                "Notice: {name}: Dependency {dep} has failures: true"
                            ));
                            sim.dependency_failures.push(DependencyFailure {
                                resource: name.clone(),
                                dependency: dep,
                            });
                        }
                    }
                    sim.log.push(format!(
                        "Warning: {name}: Skipping because of failed dependencies"
                    ));
                    sim.skipped.push(name.clone());
                }
                true
            } else {
                false
            };
            failed_deps[v as usize] = fd;
            if skip {
                if queues[v as usize].total > 0 && leaf {
                    sim.log
                        .push(format!("Info: {name}: Unscheduling all events on {name}"));
                }
                queues[v as usize] = Pending::default();
                continue;
            }
            // Apply.
            if leaf {
                let o = outcome[vx.res as usize].unwrap_or(match self.names.type_key(info) {
                    "notify" => Outcome::Changed,
                    "exec" if !info.refreshonly => Outcome::Changed,
                    _ => Outcome::Unchanged,
                });
                // In noop mode nothing is applied, so nothing fails: a resource that would
                // fail is out of sync and reports a noop change like any other.
                let o = if o == Outcome::Failed && is_noop(v) {
                    Outcome::Changed
                } else {
                    o
                };
                match o {
                    Outcome::Changed => {
                        let noop = is_noop(v);
                        if noop {
                            sim.log.push(format!("Notice: {name}: would change (noop)"));
                        } else {
                            sim.changed.push(name.clone());
                            sim.property_changes.push(name.clone());
                            sim.log.push(format!("Notice: {name}: changed"));
                        }
                        self.queue_events(v, 1, noop, &mut queues, &mut sim);
                    }
                    Outcome::Failed => {
                        failed[v as usize] = true;
                        sim.failed.push(name.clone());
                        sim.log.push(format!("Error: {name}: failed"));
                    }
                    Outcome::Unchanged => {}
                }
            }
            // Process queued refresh events.
            let pending = std::mem::take(&mut queues[v as usize]);
            if pending.total > 0 {
                let all_noop = pending.noop == pending.total;
                if all_noop || is_noop(v) {
                    let s = if pending.total == 1 { "" } else { "s" };
                    sim.log.push(format!(
                        "Notice: {name}: Would have triggered 'refresh' from {} event{s}",
                        pending.total
                    ));
                    sim.would_refresh.push(Refresh {
                        resource: name.clone(),
                        callback: "refresh".into(),
                        events: pending.total,
                    });
                    self.queue_events(v, 1, true, &mut queues, &mut sim);
                } else if leaf && refresh_fails[vx.res as usize] {
                    sim.log
                        .push(format!("Error: {name}: Failed to call refresh"));
                    if !failed[v as usize] {
                        failed[v as usize] = true;
                        sim.failed.push(name.clone());
                    }
                    sim.failed_to_restart.push(name.clone());
                } else {
                    if leaf {
                        let s = if pending.total == 1 { "" } else { "s" };
                        sim.log.push(format!(
                            "Notice: {name}: Triggered 'refresh' from {} event{s}",
                            pending.total
                        ));
                        // Puppet's report counts a refreshed resource as changed (the
                        // refresh is a successful event of the resource).
                        if !sim.changed.contains(&name) {
                            sim.changed.push(name.clone());
                        }
                        sim.refreshed.push(Refresh {
                            resource: name.clone(),
                            callback: "refresh".into(),
                            events: pending.total,
                        });
                    }
                    self.queue_events(v, 1, false, &mut queues, &mut sim);
                }
            }
        }
        Ok(sim)
    }

    /// Sends `count` events from `v` along every refreshing edge to receivers that can be
    /// refreshed (and to `v` itself for self-refreshing types).
    fn queue_events(
        &self,
        v: u32,
        count: usize,
        noop: bool,
        queues: &mut [Pending],
        sim: &mut Simulation,
    ) {
        let source = self.vertex_name(v).to_string();
        let source_leaf = self.vertices[v as usize].part == Part::Resource;
        for slot in self.out_slots(v) {
            if slot.refresh == 0 {
                continue;
            }
            let t = slot.target;
            let tv = self.vertices[t as usize];
            let tinfo = &self.res[tv.res as usize];
            if tv.part == Part::Resource && !refreshable(self.names.type_key(tinfo)) {
                continue;
            }
            for _ in 0..slot.refresh {
                queues[t as usize].total += count;
                if noop {
                    queues[t as usize].noop += count;
                }
                if tv.part != Part::End {
                    if source_leaf {
                        sim.log.push(format!(
                            "Info: {source}: Scheduling refresh of {}",
                            self.res_name(tv.res)
                        ));
                    }
                    sim.scheduled_refreshes.push(ScheduledRefresh {
                        source: source.clone(),
                        callback: "refresh".into(),
                        target: self.res_name(tv.res).to_string(),
                    });
                }
            }
        }
        let info = &self.res[self.vertices[v as usize].res as usize];
        if source_leaf && self.names.type_key(info) == "mount" && !info.deleting {
            queues[v as usize].total += count;
            if noop {
                queues[v as usize].noop += count;
            }
        }
    }

    /// The resources a default [`Scenario`] lets change: what [`Graph::simulate`] assumes
    /// when the scenario says nothing about a resource.
    pub fn default_outcome(&self, id: ResourceId) -> Option<Outcome> {
        let r = self.res.get(id.index())?;
        if r.container {
            return None;
        }
        Some(match self.names.type_key(r) {
            "notify" => Outcome::Changed,
            "exec" if !r.refreshonly => Outcome::Changed,
            _ => Outcome::Unchanged,
        })
    }
}
