//! Criterion bench of `puppet-graph` on a generated 20,000-resource catalog (about 65,000
//! relationship edges, plus containment): build + seal + order + all cycles, JSON parsing
//! and a simulation, with a plain Kahn topological sort of the same edges measured in
//! the same run as the baseline the figures are divided by.
//!
//! `GRAPH_BENCH_WRITE=FILE cargo bench --bench graph` also writes the generated catalog
//! (Puppet's JSON format) so that Puppet itself can be timed on it. Not a test: it checks
//! only that the generated graph is acyclic.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use puppet_lang::graph::{Catalog, CycleLimits, Graph, Scenario};
use serde_json::{json, Value};

/// A small deterministic generator (no rand dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const RESOURCES: usize = 20_000;
const REL_EDGES: usize = 65_000;
const CLASSES: usize = 200;

/// Generates the catalog: `CLASSES` classes in Stage[main], each holding a block of leaves
/// (files under per-class directories, so autorequire applies, execs, packages,
/// services, notifies), each leaf requiring the previous one of its class, random
/// forward `before`/`notify` edges between leaves, and `require` between classes.
/// With `cycles`, that many back edges are added.
fn generate(cycles: usize) -> Value {
    let mut rng = Lcg(42);
    let leaves = RESOURCES - CLASSES - 2;
    let mut resources = vec![
        json!({"type":"Stage","title":"main","tags":["stage"],"exported":false,"parameters":{"name":"main"}}),
        json!({"type":"Class","title":"main","tags":["class"],"exported":false,"parameters":{"name":"main"}}),
    ];
    let mut edges = vec![json!({"source":"Stage[main]","target":"Class[main]"})];
    let mut refs: Vec<String> = Vec::with_capacity(leaves);
    let mut params: Vec<serde_json::Map<String, Value>> = Vec::with_capacity(leaves);
    let mut class_of = Vec::with_capacity(leaves);
    let mut rel = 0usize;
    for c in 0..CLASSES {
        let mut p = serde_json::Map::new();
        if c > 0 && c % 3 == 0 {
            p.insert("require".into(), json!(format!("Class[Mod{}]", c - 1)));
            rel += 1;
        }
        resources.push(
            json!({"type":"Class","title":format!("Mod{c}"),"tags":["class",format!("mod{c}")],
            "exported":false,"parameters":p}),
        );
        edges.push(json!({"source":"Stage[main]","target":format!("Class[Mod{c}]")}));
    }
    let per_class = leaves.div_ceil(CLASSES);
    for i in 0..leaves {
        // Classes hold contiguous blocks, so forward edges agree with the class order.
        let c = i / per_class;
        let (ty, title) = match i % 5 {
            _ if i % per_class == 0 => ("File", format!("/srv/mod{c}")),
            0 | 1 => ("File", format!("/srv/mod{c}/f{i}")),
            2 => ("Exec", format!("e{i}")),
            3 => ("Package", format!("p{i}")),
            _ => ("Notify", format!("n{i}")),
        };
        refs.push(format!("{ty}[{title}]"));
        let mut p = serde_json::Map::new();
        if ty == "Exec" {
            p.insert("command".into(), json!("/bin/true"));
            p.insert("refreshonly".into(), json!(i % 2 == 0));
        }
        params.push(p);
        class_of.push(c);
    }
    // Chain inside each class.
    let mut last_in_class: Vec<Option<usize>> = vec![None; CLASSES];
    for i in 0..leaves {
        let c = class_of[i];
        if let Some(prev) = last_in_class[c] {
            params[i]
                .entry("require")
                .or_insert_with(|| json!([]))
                .as_array_mut()
                .unwrap()
                .push(json!(refs[prev]));
            rel += 1;
        }
        last_in_class[c] = Some(i);
    }
    // Random forward edges.
    while rel < REL_EDGES {
        let a = rng.below(leaves - 1);
        let b = a + 1 + rng.below((leaves - a - 1).min(2000));
        let kind = if rng.below(4) == 0 {
            "notify"
        } else {
            "before"
        };
        params[a]
            .entry(kind)
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(json!(refs[b]));
        rel += 1;
    }
    for k in 0..cycles {
        let b = 1000 + k * 3000;
        let a = b + 1 + rng.below(1500);
        params[a]
            .entry("before")
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .unwrap()
            .push(json!(refs[b]));
    }
    for i in 0..leaves {
        let (ty, title) = refs[i].split_once('[').unwrap();
        let title = title.trim_end_matches(']');
        resources.push(
            json!({"type":ty,"title":title,"tags":[ty.to_lowercase(),"class"],
            "file":format!("/etc/puppet/code/modules/mod{}/manifests/init.pp", class_of[i]),
            "line": i % 500 + 1,"exported":false,"parameters":params[i]}),
        );
        edges.push(json!({"source":format!("Class[Mod{}]", class_of[i]),"target":refs[i]}));
    }
    json!({"tags":["settings"],"name":"bench.example.com","version":1,"catalog_format":2,
        "environment":"production","resources":resources,"edges":edges,"classes":[]})
}

#[inline(never)]
fn full(cat: &Catalog) -> usize {
    let g = Graph::build(cat).unwrap();
    let order = g.order().map(|o| o.len()).unwrap_or(0);
    let cycles = g.cycles(CycleLimits::default()).cycles.len();
    order + cycles
}

/// Baseline: a plain Kahn topological sort (adjacency vectors, FIFO queue) over the same
/// relationship edges: no containers, no priorities, no origins, no cycle listing.
fn baseline(edges: &[(u32, u32)], n: usize) -> usize {
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut indeg = vec![0u32; n];
    for &(a, b) in edges {
        adj[a as usize].push(b);
        indeg[b as usize] += 1;
    }
    let mut queue: std::collections::VecDeque<u32> =
        (0..n as u32).filter(|&v| indeg[v as usize] == 0).collect();
    let mut done = 0;
    while let Some(v) = queue.pop_front() {
        done += 1;
        for &w in &adj[v as usize] {
            indeg[w as usize] -= 1;
            if indeg[w as usize] == 0 {
                queue.push_back(w);
            }
        }
    }
    done
}

fn edge_list(cat: &Catalog) -> Vec<(u32, u32)> {
    let index: std::collections::HashMap<String, u32> = cat
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("{}[{}]", r.type_name, r.title), i as u32))
        .collect();
    let mut out = Vec::new();
    for (i, r) in cat.resources.iter().enumerate() {
        for (k, v) in &r.parameters {
            let incoming = k == "require" || k == "subscribe";
            if !(incoming || k == "before" || k == "notify") {
                continue;
            }
            let vals: Vec<&str> = match v {
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                Value::String(s) => vec![s.as_str()],
                _ => vec![],
            };
            for s in vals {
                if let Some(&o) = index.get(s) {
                    out.push(if incoming {
                        (o, i as u32)
                    } else {
                        (i as u32, o)
                    });
                }
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let dag_json = generate(0);
    let cyc_json = generate(5);
    let dag = Catalog::from_value(dag_json.clone()).unwrap();
    let cyc = Catalog::from_value(cyc_json).unwrap();
    let text = serde_json::to_string(&dag_json).unwrap();
    if let Ok(path) = std::env::var("GRAPH_BENCH_WRITE") {
        std::fs::write(&path, &text).unwrap();
        eprintln!("wrote {path}");
    }
    let edges = edge_list(&dag);
    // `GRAPH_BENCH_PROFILE=dag|cycles|both[:N]` runs the measured work N times (default
    // once) on that catalog and exits, for `valgrind --tool=callgrind
    // --toggle-collect='graph::full*'` or `perf stat`.
    if let Ok(spec) = std::env::var("GRAPH_BENCH_PROFILE") {
        let (which, times) = spec.split_once(':').unwrap_or((spec.as_str(), "1"));
        for _ in 0..times.parse::<usize>().unwrap_or(1) {
            if which != "cycles" {
                black_box(full(black_box(&dag)));
            }
            if which != "dag" {
                black_box(full(black_box(&cyc)));
            }
        }
        return;
    }
    {
        let g = Graph::build(&dag).unwrap();
        assert!(!g.has_cycles());
        eprintln!(
            "catalog: {} resources, {} relationship edges; expanded graph: {} vertices, {} edges",
            dag.resources.len(),
            edges.len(),
            g.vertex_count(),
            g.edge_count()
        );
    }
    let mut group = c.benchmark_group("graph_20k");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(6));
    group.bench_function("baseline_plain_toposort", |b| {
        b.iter(|| baseline(black_box(&edges), dag.resources.len()))
    });
    group.bench_function("build_seal_order_cycles", |b| {
        b.iter(|| full(black_box(&dag)))
    });
    group.bench_function("build_seal_order_cycles_5_cycles", |b| {
        b.iter(|| full(black_box(&cyc)))
    });
    group.bench_function("parse_json", |b| {
        b.iter(|| {
            Catalog::from_json(black_box(&text))
                .unwrap()
                .resources
                .len()
        })
    });
    let g = Graph::build(&dag).unwrap();
    group.bench_function("simulate", |b| {
        b.iter(|| {
            g.simulate(black_box(&Scenario::new()))
                .unwrap()
                .refreshed
                .len()
        })
    });
    group.finish();

    // Ratios against the baseline, measured here in the same process.
    let median = |f: &mut dyn FnMut() -> usize| -> Duration {
        let mut v: Vec<Duration> = (0..15)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed()
            })
            .collect();
        v.sort();
        v[v.len() / 2]
    };
    let base = median(&mut || baseline(&edges, dag.resources.len()));
    let rows: [(&str, Duration); 4] = [
        ("build_seal_order_cycles", median(&mut || full(&dag))),
        (
            "build_seal_order_cycles_5_cycles",
            median(&mut || full(&cyc)),
        ),
        (
            "parse_json",
            median(&mut || Catalog::from_json(&text).unwrap().resources.len()),
        ),
        (
            "simulate",
            median(&mut || g.simulate(&Scenario::new()).unwrap().refreshed.len()),
        ),
    ];
    eprintln!("\nmedians (15 runs) vs baseline plain toposort of the same edges = {base:.2?}:");
    for (name, d) in rows {
        eprintln!(
            "  {name:<34} {d:>10.2?}  = {:>5.1} x baseline",
            d.as_secs_f64() / base.as_secs_f64()
        );
    }
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
