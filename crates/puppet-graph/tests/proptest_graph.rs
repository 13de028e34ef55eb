//! Property tests of the graph: random DAGs (with random classes containing the resources)
//! give an order that respects every edge and does not change between builds; a back edge
//! gives a cycle that names it; a simulation never refreshes a resource twice; malformed
//! JSON is an error, never a panic.
//!
//! Not a conformance test: Puppet's exact behaviour is checked on fixtures elsewhere.

use proptest::prelude::*;
use puppet_graph::{Catalog, CycleLimits, EdgeOrigin, Graph, RelationKind, Scenario};
use serde_json::{json, Value};

const KINDS: [&str; 4] = ["before", "notify", "require", "subscribe"];

#[derive(Debug, Clone)]
struct Dag {
    n: usize,
    exec: Vec<(bool, bool)>,
    classes: Vec<usize>,
    edges: Vec<(usize, usize, usize)>,
}

fn name(i: usize) -> String {
    format!("n{i}")
}

fn reference(d: &Dag, i: usize) -> String {
    if d.exec[i].0 {
        format!("Exec[{}]", name(i))
    } else {
        format!("Notify[{}]", name(i))
    }
}

fn dag() -> impl Strategy<Value = Dag> {
    (1usize..40).prop_flat_map(|n| {
        (
            Just(n),
            prop::collection::vec((any::<bool>(), any::<bool>()), n),
            prop::collection::vec(0usize..4, n),
            prop::collection::vec((0..n, 0..n, 0usize..4), 0..(n * 3)),
        )
            .prop_map(|(n, exec, classes, raw)| Dag {
                n,
                exec,
                classes,
                edges: raw.into_iter().filter(|(a, b, _)| a < b).collect(),
            })
    })
}

/// A catalog in Puppet's shape: Stage[main], Class[main], three classes, the resources.
fn catalog(d: &Dag, back: Option<(usize, usize)>) -> Catalog {
    let mut resources = vec![
        json!({"type":"Stage","title":"main","parameters":{"name":"main"}}),
        json!({"type":"Class","title":"main","parameters":{"name":"main"}}),
    ];
    let mut edges = vec![json!({"source":"Stage[main]","target":"Class[main]"})];
    for c in 1..4 {
        resources.push(json!({"type":"Class","title":format!("C{c}"),"tags":[format!("c{c}")]}));
        edges.push(json!({"source":"Stage[main]","target":format!("Class[C{c}]")}));
    }
    let mut params: Vec<serde_json::Map<String, Value>> = vec![serde_json::Map::new(); d.n];
    for &(a, b, k) in &d.edges {
        let (holder, other) = if k < 2 { (a, b) } else { (b, a) };
        let list = params[holder]
            .entry(KINDS[k].to_string())
            .or_insert_with(|| json!([]));
        list.as_array_mut()
            .unwrap()
            .push(json!(reference(d, other)));
    }
    if let Some((from, to)) = back {
        let list = params[from]
            .entry("before".to_string())
            .or_insert_with(|| json!([]));
        list.as_array_mut().unwrap().push(json!(reference(d, to)));
    }
    for (i, p) in params.iter().enumerate() {
        let mut p = p.clone();
        let ty = if d.exec[i].0 {
            p.insert("command".into(), json!("/bin/true"));
            if d.exec[i].1 {
                p.insert("refreshonly".into(), json!(true));
            }
            "Exec"
        } else {
            "Notify"
        };
        resources
            .push(json!({"type":ty,"title":name(i),"line":i + 1,"file":"site.pp","parameters":p}));
        let container = if d.classes[i] == 0 {
            "Class[main]".to_string()
        } else {
            format!("Class[C{}]", d.classes[i])
        };
        edges.push(json!({"source":container,"target":reference(d, i)}));
    }
    Catalog::from_value(json!({"name":"n","resources":resources,"edges":edges,"classes":[]}))
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn order_respects_edges_and_is_stable(d in dag()) {
        let cat = catalog(&d, None);
        let g = Graph::build(&cat).unwrap();
        prop_assert!(g.verify().is_ok());
        let order: Vec<String> = g.order().unwrap().into_iter().map(|r| g.reference(r)).collect();
        prop_assert_eq!(order.len(), d.n);
        let pos = |i: usize| order.iter().position(|r| *r == reference(&d, i)).unwrap();
        for &(a, b, _) in &d.edges {
            prop_assert!(pos(a) < pos(b), "edge {} -> {} broken in {:?}", a, b, order);
        }
        let again = Graph::build(&catalog(&d, None)).unwrap();
        let order2: Vec<String> = again.order().unwrap().into_iter().map(|r| again.reference(r)).collect();
        prop_assert_eq!(order, order2);
        prop_assert!(g.cycles(CycleLimits::default()).cycles.is_empty());
    }

    #[test]
    fn back_edge_gives_a_cycle_naming_it(d in dag(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!d.edges.is_empty());
        let (a, b, _) = d.edges[pick.index(d.edges.len())];
        let g = Graph::build(&catalog(&d, Some((b, a)))).unwrap();
        prop_assert!(g.order().is_err());
        let report = g.cycles(CycleLimits { max_cycles: 50, ..CycleLimits::default() });
        prop_assert!(!report.cycles.is_empty());
        prop_assert!(report.puppet_message.is_some());
        let (from, to) = (reference(&d, b), reference(&d, a));
        for cycle in &report.cycles {
            let named = cycle.edges.iter().any(|e| {
                e.from == from && e.to == to && e.origins.iter().any(|o| matches!(o,
                    EdgeOrigin::Metaparameter { param: RelationKind::Before, declared_on, location }
                        if *declared_on == from && location.as_deref() == Some(&*format!("site.pp:{}", b + 1))))
            });
            prop_assert!(named, "cycle {} does not name {} -> {}", cycle.to_puppet_string(), from, to);
        }
    }

    #[test]
    fn never_refreshes_twice(d in dag(), fails in prop::collection::vec(any::<prop::sample::Index>(), 0..3), noop in any::<bool>()) {
        let cat = catalog(&d, None);
        let g = Graph::build(&cat).unwrap();
        let mut sc = Scenario::new().noop(noop);
        for f in fails {
            sc = sc.fail(reference(&d, f.index(d.n)));
        }
        let sim = g.simulate(&sc).unwrap();
        let mut seen = std::collections::HashSet::new();
        for r in sim.refreshed.iter().chain(&sim.would_refresh) {
            prop_assert!(seen.insert(r.resource.clone()), "{} refreshed twice", r.resource);
        }
        for s in &sim.skipped {
            prop_assert!(!sim.failed.contains(s) && !sim.changed.contains(s));
        }
        prop_assert_eq!(sim.evaluation_order.len(), d.n);
    }

    #[test]
    fn malformed_json_is_an_error(text in ".{0,200}") {
        if let Ok(cat) = Catalog::from_json(&text) {
            let _ = Graph::build(&cat);
        }
    }

    #[test]
    fn arbitrary_resources_never_panic(
        refs in prop::collection::vec(("[A-Za-z:]{0,6}", "[a-z\\[\\]/]{0,6}", "[a-z]{0,8}"), 0..12)
    ) {
        let resources: Vec<Value> = refs.iter().enumerate().map(|(i, (t, title, param))| {
            json!({"type": if t.is_empty() { "Notify" } else { t.as_str() }, "title": format!("{title}{i}"),
                   "parameters": {"before": param, "require": [format!("{t}[{title}]"), null]}})
        }).collect();
        if let Ok(cat) = Catalog::from_value(json!({"resources": resources, "edges": []})) {
            if let Ok(g) = Graph::build(&cat) {
                let _ = g.order();
                let _ = g.cycles(CycleLimits::default());
                let _ = g.simulate(&Scenario::new());
            }
        }
    }
}
